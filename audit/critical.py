"""Beyond the paper: is there a critical prior strength below which the KL prior never rescues a
memorized model? The study pre-registered in docs/registered/critical.md (2026-11-25), hypotheses H6a-c.

    python -m audit.critical --jobs 2               # every run (the stored C3f grid serves most of the fit)
    python -m audit.critical --part fit             # the fitting set only
    python -m audit.critical --plot-only            # redraw from the store
    python -m audit.critical --quick                # the small model, two seeds: a first look, never a verdict

H6a the transition: P(grok within 20k | lambda) logistic in log lambda; lambda_c and its width
    W = lambda_90 / lambda_10 with 95% seed-bootstrap intervals; holds if W's interval < 2.
H6b the divergence: t = floor + C / lambda (Eq. 7, the paper) against t = floor +
    C (lambda - lambda_c)^-gamma, log-normal scatter, censored maximum likelihood; likelihood
    ratio on the fit, log-likelihood on held-out seeds 10-14 at a 40k budget.
H6c lambda_c predicted from the lambda = 0 runs alone: sqrt(B) ||dL/ds|| / ||a - q*|| (committed
    before any run: 0.066); holds if within 1.5x of H6a's lambda_c.
Every number here is the registration's; none is tuned.
"""
import argparse
import gzip
import json
import math
import os

import numpy as np
import torch

from audit import rules as A
import plots
import store
import sweep

FIT_LAMS = (0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.05, 0.1, 0.2, 0.3, 1.0)
BUDGET, HELD_OUT_BUDGET = 20000, 40000
HELD_OUT_SEEDS = (10, 11, 12, 13, 14)
HELD_OUT_LAMS = (0.017, 0.029)     # lambda_c / 1.3 and x 1.3, registered in docs/registered/critical.md (amendment 1) before their runs
WDS, WD_LAMS, WD_SEEDS = (0.5, 2.0), (0.015, 0.02, 0.03, 0.3), (0, 1, 2, 3, 4)
# H7 (docs/registered/critical.md, registered 2026-11-26 before any of its runs): is memorization absorbing
# below a positive lambda_c? Seeds no study had used, a 200k budget, lambda = 0 as the control.
H7_LAMS, H7_SEEDS, H7_BUDGET = (0.013, 0.01, 0.0), (90, 91, 92, 93, 94), 200000
PARTS = ("fit", "heldout", "wd", "h7")
# the two accounts as fitted for the registration (docs/registered/critical.md, H7's table; h7_accounts recomputes them)
H7_ACCOUNTS = {"a": {"floor": 2783.0305475816126, "C": 2.780560039092904, "sigma": 0.39327365639401357,
                     "gamma": 2.2977652054867796, "lam_c": 0.0},
               "b": {"floor": 2587.9800064960905, "C": 37.940420187677056, "sigma": 0.4097258847333398,
                     "gamma": 1.3817053851111547, "lam_c": 0.01}}
WIDTH_LIMIT, H6C_FACTOR, LR_CUT, HELD_OUT_NATS = 2.0, 1.5, 5.99, 2.0
N_BOOT = 2000
H6C_PREDICTED = 0.066      # committed 2026-11-25 before any run (docs/registered/critical.md); h6c_prediction recomputes it
H6C_WD_PREDICTED = {0.5: 0.030, 1.0: H6C_PREDICTED, 2.0: 0.72}   # the same formula per wd, committed with it
QUICK = dict(p=sweep.QUICK_MODEL["p"], seeds=[0, 1], fit_lams=(0.01, 0.03, 0.1, 1.0), budget=2000, part=["fit"])


def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--part", nargs="+", default=list(PARTS), choices=PARTS, help="which runs to ask for")
    sweep.add_scale_args(p, QUICK)
    sweep.add_sweep_args(p)
    p.set_defaults(regime="fixed", seeds=list(range(10)), partial_ok=True)   # main decides: the fitting set
    return p


def parse(argv=None):
    args = get_parser().parse_args(argv)
    args.fit_lams, args.budget = FIT_LAMS, BUDGET
    sweep.apply_quick(args, QUICK)
    return args


def run(lam, seed, args, wd=1.0, budget=None):
    budget = budget or args.budget
    return (f"fixed_lam{lam:g}_wd{wd:g}_seed{seed}_e{budget}",
            sweep.study_config(args, seed, regime="fixed", lam=lam, wd=wd, epochs=budget))


def cells(args):
    """{part: {lambda or (wd, lambda): [(label, cfg) per seed]}}."""
    out = {"fit": {l: [run(l, s, args) for s in args.seeds] for l in args.fit_lams},
           "heldout": {l: [run(l, s, args, budget=HELD_OUT_BUDGET) for s in HELD_OUT_SEEDS] for l in HELD_OUT_LAMS},
           "wd": {(wd, l): [run(l, s, args, wd=wd) for s in WD_SEEDS] for wd in WDS for l in WD_LAMS},
           "h7": {l: [run(l, s, args, budget=H7_BUDGET) for s in H7_SEEDS] for l in H7_LAMS}}
    return {k: v for k, v in out.items() if k in args.part}


def planned_runs(args):
    runs = {}
    for part in cells(args).values():
        for cell in part.values():
            runs.update(cell)
    return list(runs.items())


# ---------------------------------------------------------------------------------------
# H6a: a logistic transition in log lambda

def logistic_fit(lams, grokked, max_slope=100.0, iters=60):
    """Maximum-likelihood logistic P(grok) = 1 / (1 + exp(-(ln lam - ln lam_c) / s)) by Newton's
    method on (a, b) of a + b ln lam; b is held <= max_slope (s >= 0.01) so that a perfectly
    separated sample has a finite fit. Returns (lam_c, s)."""
    x, y = np.log(np.asarray(lams, float)), np.asarray(grokked, float)
    xm = x.mean()
    xc = x - xm
    a, b = 0.0, 1.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(a + b * xc)))
        w = np.maximum(p * (1 - p), 1e-9)
        r = y - p
        # the Newton step H^-1 g for the design [1, x - xm], H (+ a 1e-9 ridge) solved in closed form
        h00, h01, h11 = w.sum() + 1e-9, (w * xc).sum(), (w * xc * xc).sum() + 1e-9
        g0, g1 = r.sum(), (r * xc).sum()
        det = h00 * h11 - h01 * h01
        a, b = a + (h11 * g0 - h01 * g1) / det, b + (h00 * g1 - h01 * g0) / det
        b = float(min(max(b, 1e-3), max_slope))
    return float(np.exp(xm - a / b)), 1 / b


def width(s):
    """lambda_90 / lambda_10 of the logistic: 9^(2s)."""
    return 9.0 ** (2 * s)


def transition(grok, seeds, n_boot=N_BOOT, seed=0):
    """H6a from {lam: {seed: t or None}}: lam_c, W and their seed-bootstrap intervals."""
    lams = sorted(grok)
    def fit(ss):
        ls = [l for l in lams for s in ss if s in grok[l]]
        ys = [grok[l][s] is not None for l in lams for s in ss if s in grok[l]]
        return logistic_fit(ls, ys)
    lam_c, s = fit(list(seeds))
    rng = np.random.default_rng(seed)
    boots = np.array([fit(list(rng.choice(seeds, len(seeds)))) for _ in range(n_boot)])
    ci = lambda v: [float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))]
    return {"lam_c": lam_c, "s": s, "width": width(s), "lam_c_ci": ci(boots[:, 0]), "width_ci": ci(width(boots[:, 1]))}


# ---------------------------------------------------------------------------------------
# H6b: two censored models of t_grok

def _loglik(params, lam, t, budget, model, lam_min):
    """Censored log-normal log-likelihood (torch, float64) of t_grok under one model."""
    log_floor, log_c, log_sigma = params[0], params[1], params[2]
    floor, c, sigma = log_floor.exp(), log_c.exp(), log_sigma.exp()
    if model == "paper":
        mu = torch.log(floor + c / lam)
        alive = torch.ones_like(lam, dtype=torch.bool)
    else:
        lam_c = lam_min * torch.sigmoid(params[3])          # below every lambda at which a run grokked
        gamma = params[4].exp()
        alive = lam > lam_c
        gap = torch.where(alive, lam - lam_c, torch.ones_like(lam))
        mu = torch.log(floor + c * gap ** (-gamma))
    done = ~torch.isnan(t)
    z_obs = (torch.log(torch.nan_to_num(t, nan=1.0)) - mu) / sigma
    obs = -0.5 * z_obs ** 2 - log_sigma - 0.5 * math.log(2 * math.pi) - torch.log(torch.nan_to_num(t, nan=1.0))
    cens = torch.special.log_ndtr(-(math.log(budget) - mu) / sigma)        # P(t > budget)
    ll = torch.where(done, torch.where(alive, obs, torch.full_like(obs, -1e6)),
                     torch.where(alive, cens, torch.zeros_like(cens)))
    return ll.sum()


def best_of_starts(init, loglik, starts, max_iter):
    """Maximum likelihood by L-BFGS from `starts` starting points (init() draws one): the best
    finite (log-likelihood, parameters); a start whose line search fails is skipped."""
    best = None
    for _ in range(starts):
        p = torch.tensor(init(), dtype=torch.float64, requires_grad=True)
        opt = torch.optim.LBFGS([p], max_iter=max_iter, line_search_fn="strong_wolfe")
        def closure():
            opt.zero_grad()
            loss = -loglik(p)
            loss.backward()
            return loss
        try:
            opt.step(closure)
        except RuntimeError:
            continue
        ll = float(loglik(p.detach()))
        if np.isfinite(ll) and (best is None or ll > best[0]):
            best = (ll, p.detach().clone())
    return best


def fit_model(lams, times, budget, model, starts=12, seed=0):
    """Censored maximum likelihood of 'paper' (floor + C/lambda) or 'threshold'
    (floor + C (lambda - lambda_c)^-gamma); times None = never within the budget. Several starts,
    L-BFGS. Returns {params..., loglik, k}."""
    lam = torch.tensor(lams, dtype=torch.float64)
    t = torch.tensor([np.nan if v is None else float(v) for v in times], dtype=torch.float64)
    lam_min = float(min(l for l, v in zip(lams, times) if v is not None))
    rng = np.random.default_rng(seed)
    def init():
        start = [math.log(2500 * rng.uniform(0.5, 1.5)), math.log(100 * rng.uniform(0.1, 10)), math.log(0.4)]
        return start + ([rng.normal(0, 2), math.log(rng.uniform(0.5, 4))] if model == "threshold" else [])
    ll, p = best_of_starts(init, lambda p: _loglik(p, lam, t, budget, model, lam_min), starts, max_iter=300)
    out = {"model": model, "loglik": ll, "k": len(p), "floor": float(p[0].exp()), "C": float(p[1].exp()),
           "sigma": float(p[2].exp()), "lam_min": lam_min}
    if model == "threshold":
        out.update(lam_c=float(lam_min * torch.sigmoid(p[3])), gamma=float(p[4].exp()))
    return out


def predict_median(m, lam):
    """A fitted model's median t_grok at lambda (inf where it never groks)."""
    lam = np.asarray(lam, float)
    if m["model"] == "paper":
        return m["floor"] + m["C"] / lam
    gap = lam - m["lam_c"]
    return np.where(gap > 0, m["floor"] + m["C"] * np.abs(gap) ** (-m["gamma"]), np.inf)


def heldout_loglik(m, lams, times, budget):
    """A fitted model's censored log-likelihood of held-out runs, every parameter fixed."""
    keys = ("floor", "C", "sigma") + (("lam_c", "gamma") if m["model"] == "threshold" else ())
    vals = [math.log(m[k]) for k in keys[:3]]
    if m["model"] == "threshold":
        q = m["lam_c"] / m["lam_min"]
        vals += [math.log(q / (1 - q)), math.log(m["gamma"])]
    p = torch.tensor(vals, dtype=torch.float64)
    t = torch.tensor([np.nan if v is None else float(v) for v in times], dtype=torch.float64)
    return float(_loglik(p, torch.tensor(lams, dtype=torch.float64), t, budget, m["model"], m["lam_min"]))


def predictions(m, lam, budgets=(BUDGET, HELD_OUT_BUDGET)):
    """What a fitted model predicts at lambda: its median t_grok and the share of seeds that
    grok within each budget (log-normal scatter sigma around the median)."""
    med = float(predict_median(m, lam))
    share = {b: 0.0 if not np.isfinite(med) else
             float(0.5 * math.erfc(-(math.log(b) - math.log(med)) / (m["sigma"] * math.sqrt(2)))) for b in budgets}
    return {"median": med, "share": share}


def held_out_lams(lam_c):
    """The registration's held-out lambda: lambda_c / 1.3 and lambda_c x 1.3, two significant digits."""
    return tuple(float(f"{lam_c * f:.2g}") for f in (1 / 1.3, 1.3))


def judge_h6b(lr, heldout_delta):
    """docs/registered/critical.md, H6b: holds if the fit prefers the threshold (2 delta loglik >= 5.99) and
    the held-out set favours it by >= 2 nats; fails if the held-out set favours the paper's
    model by >= 2 nats, or the fit does not prefer the threshold and the held-out set neither."""
    if lr >= LR_CUT and heldout_delta >= HELD_OUT_NATS:
        return A.REPRODUCED
    if heldout_delta <= -HELD_OUT_NATS or (lr < LR_CUT and abs(heldout_delta) < HELD_OUT_NATS):
        return A.NOT_REPRODUCED
    return A.INCONCLUSIVE


# ---------------------------------------------------------------------------------------
# H7: is memorization absorbing below a positive lambda_c? (docs/registered/critical.md, 2026-11-26)

def power_loglik(params, lam, t, budget, lam_c):
    """Censored log-normal log-likelihood of t_grok under floor + C (lambda - lambda_c)^-gamma with
    lambda_c fixed; params = log (floor, C, sigma, gamma); budget per run (a run with t nan did
    not grok within it). A run at lambda <= lambda_c never groks: its censoring costs nothing
    and a grok there is impossible (-1e6)."""
    floor, c, sigma, gamma = (params[i].exp() for i in range(4))
    alive = lam > lam_c
    mu = torch.log(floor + c * torch.where(alive, lam - lam_c, torch.ones_like(lam)) ** (-gamma))
    done = ~torch.isnan(t)
    log_t = torch.log(torch.nan_to_num(t, nan=1.0))
    obs = -0.5 * ((log_t - mu) / sigma) ** 2 - params[2] - 0.5 * math.log(2 * math.pi) - log_t
    cens = torch.special.log_ndtr(-(torch.log(budget) - mu) / sigma)          # P(t > budget)
    return torch.where(done, torch.where(alive, obs, torch.full_like(obs, -1e6)),
                       torch.where(alive, cens, torch.zeros_like(cens))).sum()


def _tensors(lams, times, budgets):
    f64 = lambda v: torch.tensor(v, dtype=torch.float64)
    return f64(lams), f64([np.nan if v is None else float(v) for v in times]), f64(budgets)


def fit_power(lams, times, budgets, lam_c, starts=12, seed=0):
    """Censored maximum likelihood of floor + C (lambda - lambda_c)^-gamma at a fixed lambda_c
    (floor, C, sigma, gamma free), several starts, L-BFGS. Returns the fitted dict."""
    lam, t, budget = _tensors(lams, times, budgets)
    rng = np.random.default_rng(seed)
    init = lambda: [math.log(2500 * rng.uniform(0.5, 1.5)), math.log(rng.uniform(0.1, 300)), math.log(0.4),
                    math.log(rng.uniform(0.7, 4))]
    ll, p = best_of_starts(init, lambda p: power_loglik(p, lam, t, budget, lam_c), starts, max_iter=500)
    return {"loglik": ll, "floor": float(p[0].exp()), "C": float(p[1].exp()), "sigma": float(p[2].exp()),
            "gamma": float(p[3].exp()), "lam_c": lam_c}


def power_heldout_loglik(m, lams, times, budgets):
    """A fitted account's censored log-likelihood of new runs, every parameter fixed."""
    p = torch.tensor([math.log(m[k]) for k in ("floor", "C", "sigma", "gamma")], dtype=torch.float64)
    return float(power_loglik(p, *_tensors(lams, times, budgets), m["lam_c"]))


def power_prediction(m, lam, budget):
    """An account's median t_grok at lambda, the share of seeds grokking within the budget, and
    the 95% range of the median of five seeds (the third of five log-normal draws: its quantile
    is Beta(3, 3), whose 2.5% and 97.5% points are 0.1466 and 0.8534)."""
    if lam <= m["lam_c"]:
        return {"median": math.inf, "share": 0.0, "median_of_5": [math.inf, math.inf]}
    med = m["floor"] + m["C"] * (lam - m["lam_c"]) ** (-m["gamma"])
    z = lambda q: math.sqrt(2) * torch.special.erfinv(torch.tensor(2 * q - 1, dtype=torch.float64)).item()
    return {"median": med, "share": 0.5 * math.erfc(-math.log(budget / med) / (m["sigma"] * math.sqrt(2))),
            "median_of_5": [med * math.exp(m["sigma"] * z(q)) for q in (0.1466, 0.8534)]}


def stored_critical_runs(results, args):
    """(lambda, t_grok or None, budget) of every stored fixed, wd 1 run of this study before H7:
    the fitting set (20k) and the held-out cells (40k), lambda > 0."""
    c = cells(argparse.Namespace(**{**vars(args), "part": ["fit", "heldout"]}))
    return [(l, results[label][0]["grok_epoch"], cfg.epochs) for part in c.values() for l, cell in part.items()
            for label, cfg in cell if label in results and l > 0]


def h7_accounts(rows):
    """The two accounts H7 weighs, fitted once on the stored runs (rows: (lambda, t or None,
    budget)): (a) lambda_c = 0, a free power of 1/lambda; (b) lambda_c > 0 at the smallest lambda
    H7 runs, 0.01, the most likely lambda_c >= 0.01 (the profile falls as lambda_c rises), with
    the profile over lambda_c beside. As run for the registration (docs/registered/critical.md, H7)."""
    lams, times, budgets = zip(*rows)
    a = fit_power(lams, times, budgets, 0.0)
    b = fit_power(lams, times, budgets, min(l for l in H7_LAMS if l > 0))
    profile = {lc: fit_power(lams, times, budgets, lc)["loglik"] for lc in (0.002, 0.004, 0.006, 0.008, 0.012)}
    return {"a": a, "b": b, "profile": profile}


def binomial_floor(share, n=5, alpha=0.025):
    """The fewest of n seeds an account predicting `share` allows to grok: the smallest k with
    P(K < k) <= alpha < P(K < k + 1) (H7's binomial 95% band, its lower side)."""
    cdf = lambda k: sum(math.comb(n, j) * share ** j * (1 - share) ** (n - j) for j in range(k))   # P(K < k)
    return max(k for k in range(n + 1) if cdf(k) <= alpha)


def judge_h7(grok, accounts=H7_ACCOUNTS, budget=H7_BUDGET, nats=HELD_OUT_NATS):
    """docs/registered/critical.md, H7, as registered: grok {lambda: {seed: t or None}} of the lambda > 0 cells.
    (b) if the log-likelihood favours (b) by >= 2 nats; (a) if it favours (a) by >= 2 nats and
    (a) fits each cell (the number grokked within its binomial band, the median of five inside
    its range); neither otherwise. Returns the verdict dict with each cell's check."""
    lams = [l for l in grok for _ in grok[l]]
    times = [t for l in grok for t in grok[l].values()]
    delta = (power_heldout_loglik(accounts["a"], lams, times, [budget] * len(lams))
             - power_heldout_loglik(accounts["b"], lams, times, [budget] * len(lams)))
    cells = {}
    for l, by in grok.items():
        pred = power_prediction(accounts["a"], l, budget)
        k, least = sum(t is not None for t in by.values()), binomial_floor(pred["share"], len(by))
        med = float(np.median([math.inf if t is None else t for t in by.values()]))
        lo, hi = pred["median_of_5"]
        cells[f"{l:g}"] = {"grokked": k, "of": len(by), "least": least, "median": med, "range": [lo, hi],
                           "fits": k >= least and lo <= med <= hi}
    fits = all(c["fits"] for c in cells.values())
    verdict = "(b)" if delta <= -nats else "(a)" if delta >= nats and fits else "neither"
    said = "; ".join(f"lambda {l}: {c['grokked']}/{c['of']} grokked (a's band: at least {c['least']}), median "
                     + ("never" if not np.isfinite(c["median"]) else f"{c['median']:,.0f}")
                     + f" (a's range {c['range'][0]:,.0f}-{c['range'][1]:,.0f})" for l, c in cells.items())
    return {"verdict": verdict, "n": len(lams), "delta": delta, "cells": cells,
            "text": "log-likelihood (a) minus (b): " + (f"{delta:+.1f} nats" if abs(delta) < 1e5 else
                    "+inf ((b) forbids a lambda <= 0.01 run that groks)") + f" (decides at {nats:g}); {said}"}


def h7_part(results, args):
    """H7's runs as stored, the accounts' predictions, and its verdict once all 15 are stored."""
    cell = cells(argparse.Namespace(**{**vars(args), "part": ["h7"]}))["h7"]
    grok = {l: grok_table(c, results) for l, c in cell.items()}
    stored, planned = sum(len(v) for v in grok.values()), sum(len(c) for c in cell.values())
    out = {"grok": {f"{l:g}": v for l, v in grok.items()}, "stored": stored, "planned": planned, "budget": H7_BUDGET,
           "predictions": {k: {f"{l:g}": power_prediction(m, l, H7_BUDGET) for l in H7_LAMS if l > 0}
                           for k, m in H7_ACCOUNTS.items()}}
    if stored < planned:
        out.update(verdict=A.NOT_DECIDED, n=stored, reason=f"{stored} of its {planned} runs stored; judged once all are")
    else:
        out.update(judge_h7({l: v for l, v in grok.items() if l > 0}))
        control = grok[0.0]
        out["control"] = (f"lambda 0 (the control): {sum(t is not None for t in control.values())} of {len(control)} "
                          f"grokked within {H7_BUDGET:,} epochs")
    return out


# ---------------------------------------------------------------------------------------
# H6c: lambda_c from the lambda = 0 runs alone

def h6c_prediction(folder=store.STORE, wd=1.0, seeds=range(10), budget=20000):
    """docs/registered/critical.md's formula, as committed: per seed, the median over logged epochs from
    t_mem to the end of sqrt(B) ||dL/ds|| / ||a_bar - q*|| (grad_s_norm, attn_mass of the stored
    fixed lambda = 0 runs), then the median over seeds. Returns (median, per-seed values)."""
    q = np.array([0.5, 0.5, 0.0, 0.0, 0.0])                # the oracle over (a, b, d1, d2, query)
    n_train = round(0.3 * 113 ** 2)
    per_seed = []
    wd_part = "" if wd == 1.0 else f"wd={wd:g}_"
    for s in seeds:
        with gzip.open(os.path.join(folder, f"add_p113_fixed_{wd_part}seed{s}_e{budget}_stop200.json.gz"), "rt") as f:
            run = json.load(f)
        h, t_mem = run["history"], run["summary"]["mem_epoch"]
        ep = np.array(h["epoch"])
        ratio = math.sqrt(n_train) * np.array(h["grad_s_norm"]) / np.linalg.norm(np.array(h["attn_mass"]) - q, axis=1)
        per_seed.append(float(np.median(ratio[ep >= t_mem])))
    return float(np.median(per_seed)), per_seed


# ---------------------------------------------------------------------------------------
# Judging, as registered

def grok_table(cell, results):
    """{seed: grok epoch or None} of the stored runs of one cell."""
    return {cfg.seed: results[label][0]["grok_epoch"] for label, cfg in cell if label in results}


def analyse(results, args):
    c = cells(args)
    out = {}
    fit = {l: grok_table(cell, results) for l, cell in c.get("fit", {}).items()}
    complete = fit and all(len(v) == len(args.seeds) for v in fit.values())
    stored = sum(len(v) for v in fit.values())
    out["stored"] = {"fit": stored, "fit_planned": len(args.seeds) * len(args.fit_lams)}
    out["grok"] = {f"{l:g}": v for l, v in fit.items()}
    out["share"] = {f"{l:g}": float(np.mean([t is not None for t in v.values()])) if v else None for l, v in fit.items()}
    if not complete:
        why = f"{stored} of the fitting set's {out['stored']['fit_planned']} runs stored; judged once all are"
        for h in ("H6a", "H6b", "H6c"):
            out[h] = {"verdict": A.NOT_DECIDED, "n": 0, "reason": why}
    else:
        tr = transition(fit, list(args.seeds))
        lo, hi = tr["width_ci"]
        verdict = A.REPRODUCED if hi < WIDTH_LIMIT else A.NOT_REPRODUCED if lo > WIDTH_LIMIT else A.INCONCLUSIVE
        out["H6a"] = {"verdict": verdict, "n": len(args.seeds), **tr,
                      "text": f"lambda_c {tr['lam_c']:.4f} [{tr['lam_c_ci'][0]:.4f}, {tr['lam_c_ci'][1]:.4f}], "
                              f"width lambda_90/lambda_10 {tr['width']:.2f} [{lo:.2f}, {hi:.2f}] (holds below {WIDTH_LIMIT:g})"}
        lams = [l for l in fit for s in fit[l]]
        times = [fit[l][s] for l in fit for s in fit[l]]
        paper, thresh = (fit_model(lams, times, args.budget, m) for m in ("paper", "threshold"))
        lr = 2 * (thresh["loglik"] - paper["loglik"])
        implied = math.exp(2 * 1.2816 * paper["sigma"])
        held = {l: grok_table(cell, results) for l, cell in c.get("heldout", {}).items()}
        h_lams = [l for l in held for s in held[l]]
        h_times = [held[l][s] for l in held for s in held[l]]
        h_done = bool(HELD_OUT_LAMS) and len(h_times) == len(HELD_OUT_LAMS) * len(HELD_OUT_SEEDS)
        delta = (heldout_loglik(thresh, h_lams, h_times, HELD_OUT_BUDGET)
                 - heldout_loglik(paper, h_lams, h_times, HELD_OUT_BUDGET)) if h_done else None
        out["heldout"] = {f"{l:g}": {"grok": held[l], "paper": predictions(paper, l), "threshold": predictions(thresh, l)}
                          for l in held}
        out["H6b"] = {"verdict": judge_h6b(lr, delta) if h_done else A.NOT_DECIDED, "n": len(args.seeds),
                      "heldout_delta": delta,
                      "paper": paper, "threshold": thresh, "lr": lr,
                      "text": f"fit: 2 delta loglik {lr:.1f} (threshold preferred on the fit if >= {LR_CUT}); paper: floor "
                              f"{paper['floor']:.0f}, C {paper['C']:.1f}, sigma {paper['sigma']:.2f} (its width at a "
                              f"fixed budget: {implied:.2f}); threshold: lambda_c {thresh['lam_c']:.4f}, gamma "
                              f"{thresh['gamma']:.2f}, floor {thresh['floor']:.0f}, sigma {thresh['sigma']:.2f}",
                      "reason": (f"held-out log-likelihood, threshold minus paper: {delta:+.1f} nats (decides at 2)"
                                 if h_done else "the held-out cells are registered once the fit exists"
                                 if not HELD_OUT_LAMS else "the held-out runs are not all stored")}
        ratio = H6C_PREDICTED / tr["lam_c"]
        out["H6c"] = {"verdict": A.REPRODUCED if 1 / H6C_FACTOR <= ratio <= H6C_FACTOR else A.NOT_REPRODUCED,
                      "n": len(args.seeds), "text": f"predicted {H6C_PREDICTED:g} from the lambda = 0 runs, fitted lambda_c "
                                       f"{tr['lam_c']:.4f}: ratio {ratio:.2f} (holds within {H6C_FACTOR:g}x)"}
        if getattr(args, "quick", False):     # the registered rules read the paper config's fitting set: a first look decides nothing
            for h in ("H6a", "H6b", "H6c"):
                out[h].update(verdict=A.NOT_DECIDED, reason="--quick: the small model, a first look; the rules "
                                                            "read the paper config at seeds 0-9")
    wd = {f"wd {w:g}": {f"{l:g}": grok_table(cell, results) for (w2, l), cell in c.get("wd", {}).items() if w2 == w}
          for w in WDS}
    out["wd"] = wd
    out["wd_fit"] = wd_secondary(wd, WD_SEEDS, out.get("H6a"))
    out["rho"] = rho_shares(args.results_dir)
    if "h7" in c:
        out["H7"] = h7_part(results, args)
    return out


def wd_secondary(wd, seeds, h6a=None, n_boot=N_BOOT):
    """The registered weight-decay secondary (no verdict): per wd whose cells are all stored, the
    share that grokked per lambda and H6a's logistic fit with its seed-bootstrap interval; where
    every seed grokked at every lambda, or none at any, the grid only bounds lambda_c and no fit
    is made. wd 1 is H6a's fitting set (h6a: its verdict dict). Then the registered direction
    (lambda_c rises with wd: 0.5 below 1 below 2), judged on the point estimates, and beside it
    whether the 95% intervals separate the three in that order.
    wd: {"wd w": {lam: {seed: t or None}}}.
    Returns {"wd w": row, ..., "direction": ..., "intervals": "separate" or "overlap"}."""
    out = {}
    for name, grok in wd.items():
        w = float(name.split()[1])
        row = {"predicted": H6C_WD_PREDICTED.get(w)}
        if not grok or any(len(v) < len(seeds) for v in grok.values()):
            row.update(stored=sum(len(v) for v in grok.values()), planned=len(seeds) * len(WD_LAMS))
        else:
            g = {float(l): v for l, v in grok.items()}
            row["share"] = {f"{l:g}": float(np.mean([t is not None for t in v.values()])) for l, v in sorted(g.items())}
            ys = [t is not None for v in g.values() for t in v.values()]
            if all(ys) or not any(ys):
                row["bound"] = f"below {min(g):g}" if all(ys) else f"above {max(g):g}"
            else:
                with np.errstate(over="ignore", invalid="ignore"):   # a resample with one outcome only:
                    tr = transition(g, list(seeds), n_boot=n_boot)   # its lambda_c runs off the grid, as it should
                row.update(lam_c=tr["lam_c"], lam_c_ci=tr["lam_c_ci"])
        out[name] = row
    if h6a and "lam_c" in h6a:
        out["wd 1"] = {"predicted": H6C_PREDICTED, "lam_c": h6a["lam_c"], "lam_c_ci": h6a["lam_c_ci"],
                       "seeds": "the fitting set, seeds 0-9"}
    def where(row):      # a point estimate, or the side of the grid's bound (the grid brackets wd 1's)
        return row.get("lam_c") if "bound" not in row else 0.0 if row["bound"].startswith("below") else math.inf
    out = {f"wd {w:g}": out[f"wd {w:g}"] for w in sorted(H6C_WD_PREDICTED) if f"wd {w:g}" in out}   # wd 0.5, 1, 2
    rows = list(out.values())
    est = [where(r) for r in rows]
    if len(est) == 3 and None not in est:
        out["direction"] = "holds" if est[0] < est[1] < est[2] else "does not hold"
        # said beside, not deciding: whether the 95% intervals separate the three wd in the
        # registered order (a bound from the grid counts as the interval from the grid's edge out)
        edge = lambda r, pick: pick(float(l) for l in r["share"])
        cis = [r["lam_c_ci"] if "lam_c" in r else (0.0, edge(r, min)) if r["bound"].startswith("below")
               else (edge(r, max), math.inf) for r in rows]
        out["intervals"] = "separate" if all(a[1] < b[0] for a, b in zip(cis, cis[1:])) else "overlap"
    return out


def rho_shares(results_dir):
    """The registered secondary on the refresh rate, from stored cells only: the share of the
    regime map's five seeds that grokked within 10,000 epochs at lambda 0, 0.03 and 0.3 (wd 1),
    per rho. {rho: {lambda: share}}, {} if the map's summary is absent."""
    path = os.path.join(results_dir.split(os.sep + "partial")[0], "regime_map.json")
    if not os.path.exists(path):
        return {}
    cells = json.load(open(path))["cells"]
    out = {}
    for c in cells.values():
        if c["wd"] == 1.0:
            out.setdefault(f"{c['rho']:g}", {})[f"{c['lam']:g}"] = c["frac_grokked"]
    return out


def plot(results, out, args, path):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(16, 4.8))
    fit = {float(l): v for l, v in out["grok"].items()}
    lams = sorted(fit)
    share = [np.mean([t is not None for t in fit[l].values()]) if fit[l] else np.nan for l in lams]
    ax[0].plot(lams, share, "o", color="C0", label=f"fitting set, seeds {args.seeds[0]}-{args.seeds[-1]}")
    grid = np.logspace(math.log10(min(lams)), math.log10(max(lams)), 300)
    h6a = out.get("H6a", {})
    if "lam_c" in h6a:
        ax[0].plot(grid, 1 / (1 + np.exp(-(np.log(grid) - math.log(h6a["lam_c"])) / h6a["s"])), color="C0",
                   label=f"logistic: lambda_c {h6a['lam_c']:.3f}, width {h6a['width']:.2f}x")
        ax[0].axvline(H6C_PREDICTED, color="C3", ls="--", lw=1, label=f"H6c's prediction {H6C_PREDICTED:g}")
    for i, (w, cellz) in enumerate(out["wd"].items()):
        ls = sorted(float(l) for l in cellz if len(cellz[l]) == len(WD_SEEDS))     # complete cells only
        fit_w = out.get("wd_fit", {}).get(w, {})
        lam_c = f", lambda_c {fit_w['lam_c']:.3f}" if "lam_c" in fit_w else f", lambda_c {fit_w['bound']}" if "bound" in fit_w else ""
        if ls:
            ax[0].plot(ls, [np.mean([t is not None for t in cellz[f"{l:g}"].values()]) for l in ls], "s--",
                       color=f"C{i + 1}", ms=4, lw=0.8, label=f"{w} (seeds 0-4{lam_c})")
    held = {float(l): cell["grok"] for l, cell in out.get("heldout", {}).items()}
    for l, grok in held.items():          # the held-out cells (seeds 10-14, 40k budget), marked apart
        ax[0].plot(l, np.mean([t is not None and t <= args.budget for t in grok.values()]), "D", color="C3", ms=6,
                   label="held out (seeds 10-14)" if l == min(held) else None)
    ax[0].set(xscale="log", xlabel="lambda", ylabel=f"share grokked within {args.budget:,} epochs",
              title="H6a: the transition (fixed, wd 1)")
    ax[0].legend(fontsize=7)
    for l in lams:
        for t in fit[l].values():
            ax[1].scatter(l, t if t is not None else args.budget, s=14, color="C0",
                          marker="o" if t is not None else "^", facecolors="C0" if t is not None else "none")
    for l, grok in held.items():
        ts = list(grok.values())
        ax[1].scatter([l] * len(ts), [t if t is not None else HELD_OUT_BUDGET for t in ts], s=30, marker="D",
                      facecolors="none", edgecolors="C3", label=f"held out (seeds 10-14, {HELD_OUT_BUDGET:,} budget)"
                      if l == min(held) else None)
    h6b = out.get("H6b", {})
    for key, color in (("paper", "C1"), ("threshold", "C2")):
        if key in h6b:
            ax[1].plot(grid, np.minimum(predict_median(h6b[key], grid), 1e6), color=color,
                       label=f"{key}: {'floor + C/lambda' if key == 'paper' else 'floor + C (lambda - lambda_c)^-gamma'}"
                             f" (loglik {h6b[key]['loglik']:.1f})")
    ax[1].axhline(args.budget, color="gray", ls=":", lw=0.8)
    if held:
        ax[1].axhline(HELD_OUT_BUDGET, color="C3", ls=":", lw=0.8)
    ax[1].set(xscale="log", yscale="log", ylim=(1000, 3 * max(args.budget, HELD_OUT_BUDGET if held else 0)), xlabel="lambda", ylabel="t_grok (^: never)",
              title="H6b: t_grok against lambda, two models (median)")
    if ax[1].get_legend_handles_labels()[0]:
        ax[1].legend(fontsize=7)
    # H7 (registered 2026-11-26): lambda below 0.017 at a 200k budget, both accounts' medians, the
    # stored runs' medians beside; each H7 cell's share grokked written by its points
    c = ax[2]
    lam_grid = np.logspace(math.log10(0.008), math.log10(0.05), 200)
    for key, color in (("a", "C1"), ("b", "C2")):
        m = H7_ACCOUNTS[key]
        c.plot(lam_grid, [min(power_prediction(m, l, H7_BUDGET)["median"], 1e7) for l in lam_grid], color=color,
               label=f"({key}) " + ("lambda_c = 0: floor + C lambda^-gamma" if key == "a" else
                                    f"lambda_c = {m['lam_c']:g}: absorbing below it"))
    meds = {l: np.median([t if t is not None else np.inf for t in fit[l].values()]) for l in lams if 0.008 <= l <= 0.05}
    for l, v in meds.items():        # a median censored at the fit's budget: an open triangle there
        c.scatter(l, min(v, args.budget), s=18, color="C0", marker="o" if np.isfinite(v) else "^",
                  facecolors="C0" if np.isfinite(v) else "none", label="fitting set, 20k (median; ^: censored)"
                  if l == min(meds) else None)
    for l, grok in held.items():
        c.scatter(l, np.median([t if t is not None else np.inf for t in grok.values()]), s=30, marker="D",
                  facecolors="none", edgecolors="C3", label="held out at 40k (median)" if l == min(held) else None)
    h7 = out.get("H7", {})
    for l, grok in h7.get("grok", {}).items():
        l = float(l)
        if l == 0 or not grok:
            continue
        ts = list(grok.values())
        c.scatter([l] * len(ts), [t if t is not None else H7_BUDGET for t in ts], s=30, marker="s", edgecolors="k",
                  facecolors=["k" if t is not None else "none" for t in ts], label="H7 runs (open: not yet / never)"
                  if l == max(float(k) for k in h7["grok"]) else None)
        c.annotate(f"{sum(t is not None for t in ts)}/{len(ts)}", (l, H7_BUDGET * 1.15), ha="center", fontsize=7)
    c.axhline(H7_BUDGET, color="k", ls=":", lw=0.8)
    c.set(xscale="log", yscale="log", ylim=(5000, 1e6), xlabel="lambda",
          ylabel="t_grok", title=f"H7: lambda < 0.017, budget {H7_BUDGET // 1000}k (median t_grok)")
    c.legend(fontsize=7)
    plots.save_figure(fig, path, "A critical prior strength? (pre-registered, docs/registered/critical.md)")


def settled(obj, digits=6, floor=1e-8):
    """The summary as the data resolve it, the same on every CPU: the censored fits are L-BFGS's,
    and on another CPU they differ in the tenth digit (2860.69943062 against 2860.69943074), so
    floats keep six significant digits; a fit that stops on its bound at 0 stops at 1.5e-11 on
    one CPU and 1.4e-11 on another, so a magnitude below `floor` is 0."""
    if isinstance(obj, float):
        return 0.0 if abs(obj) < floor else float(f"{obj:.{digits}g}")
    if isinstance(obj, (list, tuple)):
        return [settled(v, digits, floor) for v in obj]
    if isinstance(obj, dict):
        return {k: settled(v, digits, floor) for k, v in obj.items()}
    return obj


def main(argv=None):
    args = parse(argv)
    os.makedirs(args.results_dir, exist_ok=True)
    sweep.run_sweep(planned_runs(args), args)     # train the parts asked for; judge on every part stored
    every = argparse.Namespace(**{**vars(args), "part": list(PARTS), "plot_only": True})
    runs = planned_runs(every)
    results = sweep.run_sweep(runs, every, log=lambda line: None)
    out = analyse(results, every)
    if out["stored"]["fit"] < out["stored"]["fit_planned"]:     # drawn, like the map, from part of the study
        args.partial_ok = False                                   # once its fitting set is whole; before: partial/
        sweep.write_partial(args)
    out = settled(out)
    print("\nA critical prior strength (docs/registered/critical.md, pre-registered before any run):")
    print("  share grokked per lambda: " + ", ".join(f"{l}: {v:.1f}" for l, v in out["share"].items() if v is not None))
    for h in ("H6a", "H6b", "H6c"):
        print(f"  {h}: " + A.describe(out[h], bold=False))
    for name, row in out["wd_fit"].items():
        print(f"  weight decay, {name}: {row}")
    store.write_json(os.path.join(args.results_dir, "critical.json"), out, digits=6)
    plot(results, out, args, os.path.join(args.results_dir, "critical.png"))


if __name__ == "__main__":
    main()