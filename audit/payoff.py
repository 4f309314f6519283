"""Beyond the paper, H8: can the prior's payoff be predicted before it is run? Registered in
docs/registered/payoff.md (2026-11-26) before any of its runs.

    python -m audit.payoff --jobs 2             # the eight held-out cells, both arms, seeds 0-4
    python -m audit.payoff --plot-only          # judge and draw from the store

The model (fitted once on the stored runs): the KL prior's arm (lambda 0.3) groks at a time
that depends on weight decay alone, log t = a - beta log wd + noise, whatever the distractor
regime; so the prior's speed-up in a cell is the run without it divided by that time. Its
prediction in a cell is the prior arm's geometric-mean t_grok, T(wd); it holds in the cell if
the measured geometric mean lies within TOLERANCE of it, and the model holds if it does in at
least 7 of the 8 cells.
"""
import argparse
import math
import os

import numpy as np

import plots
import store
import sweep
from audit import rules as A

LAM, BUDGET, SEEDS = 0.3, 10000, (0, 1, 2, 3, 4)
# the eight cells no run has visited: (name, regime, changes); registered in docs/registered/payoff.md
CELLS = (("rho 0.002", "refresh0.002", {}),
         ("rho 0.005", "refresh0.005", {}),
         ("rho 0.003, wd 0.7", "refresh0.003", {"wd": 0.7}),
         ("rho 0.003, wd 1.5", "refresh0.003", {"wd": 1.5}),
         ("rho 0.003, init x1.5", "refresh0.003", {"init_scale": 1.5}),
         ("rho 0.001, separate vocabulary", "refresh0.001", {"distractor_vocab": "separate"}),
         ("fresh, wd 0.7", "fresh", {"wd": 0.7}),
         ("fresh, wd 1.5", "fresh", {"wd": 1.5}))
TOLERANCE = 1.5          # a cell holds if the measured geometric mean is within this factor of T(wd)
NEEDED = 7               # of the 8 cells
N_BOOT = 2000


FIT_RUNS = os.path.join("docs", "registered", "payoff_fit_runs.txt")   # the fit's runs, frozen at registration


def prior_times(folder=store.STORE, lam=LAM, keys=None):
    """{wd: [t_grok]} of the stored runs with the KL prior at lambda `lam`, the paper's model,
    initialisation and vocabulary, any distractor regime and budget (the fitting data). keys: only
    these store names (the registered fit reads the runs stored at registration, FIT_RUNS: the
    scan alone would take in H8's own prior arms and every later lambda 0.3 run)."""
    out = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json.gz") or f"lam={lam:g}_" not in name:
            continue
        if keys is not None and name[:-len(".json.gz")] not in keys:
            continue
        summary, _ = store.read_file(os.path.join(folder, name))
        c = summary["config"]
        if c.get("task", "add") != "add" or c.get("p") != 113 or c.get("prior", "oracle") != "oracle" \
                or c.get("init_scale", 1.0) != 1.0 or c.get("distractor_vocab", "shared") != "shared" \
                or c.get("init", "paper") != "paper" or c.get("prior_kind", "kl") != "kl" or c.get("frozen_attn") \
                or c.get("optimizer", "adamw") != "adamw" or c.get("n_heads", 1) != 1 or c.get("pos_slots") \
                or c.get("prior_start", 0) or c.get("prior_anneal") or c.get("norm_match") is not None:
            continue
        out.setdefault(float(c["wd"]), []).append(summary["grok_epoch"])
    return out


def registered_keys(path=FIT_RUNS):
    """The store names of the registered fit's 120 runs (one per line)."""
    with open(path) as f:
        return {line.strip() for line in f if line.strip() and not line.startswith("#")}


def fit(times, n_boot=N_BOOT, seed=0):
    """Least squares of log t = a - beta log wd over every run (each grokked; a run that did not
    would make the fit refuse), with a bootstrap over runs within each wd. Returns
    {a, beta, sigma, boot: (n_boot, 2) array of (a, beta)}."""
    if any(t is None for ts in times.values() for t in ts):
        raise ValueError("a prior run that never grokked: the least-squares model does not apply")
    def ls(groups):
        x = np.concatenate([np.full(len(ts), math.log(wd)) for wd, ts in groups.items()])
        y = np.concatenate([np.log(np.asarray(ts, float)) for ts in groups.values()])
        slope, a = np.polyfit(x, y, 1)
        return a, -slope, float(np.std(y - (a + slope * x), ddof=2))
    a, beta, sigma = ls(times)
    rng = np.random.default_rng(seed)
    boot = np.array([ls({wd: rng.choice(ts, len(ts)) for wd, ts in times.items()})[:2] for _ in range(n_boot)])
    return {"a": float(a), "beta": float(beta), "sigma": sigma, "boot": boot,
            "n": {f"{wd:g}": len(ts) for wd, ts in sorted(times.items())}}


def predicted_time(model, wd):
    """T(wd), the predicted geometric-mean t_grok of the prior arm, with its 95% bootstrap interval."""
    t = lambda a, beta: math.exp(a - beta * math.log(wd))
    boot = [t(a, b) for a, b in model["boot"]]
    return t(model["a"], model["beta"]), [float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))]


def geometric_mean(times):
    """exp(mean log t) of a cell's runs; None if any never grokked within the budget."""
    return None if any(t is None for t in times) else float(math.exp(np.mean(np.log(times))))


def geometric_mean_at_least(times, budget=BUDGET):
    """A lower bound on the geometric mean: each run that never grokked counted at the budget (it
    groks later, if ever). Equal to geometric_mean when every run grokked."""
    return float(math.exp(np.mean(np.log([budget if t is None else t for t in times]))))


def judge_cell(prior, base, t_hat, tolerance=TOLERANCE, budget=BUDGET):
    """One cell: the prior arm's geometric mean against T(wd) (the registered rule), and the
    speed-up predicted from the cell's own baseline (its geometric mean over T(wd)) against the one
    measured. Where baseline runs never grokked, the two speed-ups are reported as lower bounds
    (`*_at_least`, the censored runs at the budget); the rule does not read them."""
    g, b = geometric_mean(prior), geometric_mean(base)
    b_low = geometric_mean_at_least(base, budget)
    holds = g is not None and t_hat / tolerance <= g <= t_hat * tolerance
    return {"prior_gm": g, "base_gm": b, "predicted_time": t_hat, "holds": holds,
            "grok": {"lambda 0": list(base), f"lambda {LAM:g}": list(prior)},
            "base_censored": sum(t is None for t in base), "prior_censored": sum(t is None for t in prior),
            "speedup_predicted": None if b is None else b / t_hat,
            "speedup_measured": None if b is None or g is None else b / g,
            "speedup_predicted_at_least": b_low / t_hat,
            "speedup_measured_at_least": None if g is None else b_low / g}


def judge(cells):
    """H8 as registered: {cell: judge_cell row}; holds if at least NEEDED cells hold."""
    held = sum(r["holds"] for r in cells.values())
    return {"verdict": "holds" if held >= NEEDED else "fails", "held": held, "of": len(cells), "cells": cells}


# ---------------------------------------------------------------------------------------
# Described beside H8, never judged (issue #72, 2026-11-28, after H8's verdict): how far off the
# model is on the new cells, what its 7-of-8 rule could not see, and the cell seen before it

SEEN_BEFORE = ("fresh, init x0.5", "fresh", {"init_scale": 0.5})   # stored before registration; H8 placed its init cell at x1.5


def factor_range(gms, times_hat, tolerance=TOLERANCE, needed=NEEDED, grid=None):
    """[lowest, highest] constant factor c such that the rule still holds with c * T(wd) in place
    of T(wd) (the cells' geometric means gms against their predictions times_hat): the errors
    of the model's level the 7-of-8 rule cannot see. None if no c in the grid passes."""
    grid = np.exp(np.linspace(math.log(0.25), math.log(4), 8001)) if grid is None else grid
    r = np.log(np.asarray(gms, float) / np.asarray(times_hat, float))
    ok = [c for c in grid if np.sum(np.abs(r - math.log(c)) <= math.log(tolerance) + 1e-12) >= needed]
    return [float(min(ok)), float(max(ok))] if ok else None


def exponent_range(gms, wds, a, tolerance=TOLERANCE, needed=NEEDED, grid=None):
    """[lowest, highest] weight-decay exponent b such that the rule still holds with
    exp(a) wd^-b (the fitted level at wd 1) in place of T(wd): the errors of the model's slope
    the rule cannot see. None if none in the grid passes."""
    grid = np.linspace(-2, 5, 7001) if grid is None else grid
    lg, lw = np.log(np.asarray(gms, float)), np.log(np.asarray(wds, float))
    ok = [b for b in grid if np.sum(np.abs(lg - (a - b * lw)) <= math.log(tolerance) + 1e-12) >= needed]
    return [float(min(ok)), float(max(ok))] if ok else None


def describe_fit(cells, model, seen_before=None):
    """What H8's data say beyond its verdict, each a description with its interval: the pooled
    ratio of the prior arm's geometric mean to T(wd) over the cells (a t-interval over cells); the
    exponent of wd fitted on the new cells' prior-arm runs alone (fit()'s bootstrap); the constant
    factors and exponents the rule would have passed; and the cell seen before registration.
    None while a prior arm has a run that never grokked (no geometric mean)."""
    rows = [r for r in cells.values() if r["prior_gm"] is not None]
    if len(rows) < len(cells) or len(rows) < 2:
        return None
    logs = np.log([r["prior_gm"] / r["predicted_time"] for r in rows])
    m, se = float(np.mean(logs)), float(np.std(logs, ddof=1) / math.sqrt(len(logs)))
    q = A.t_quantile(0.975, len(logs) - 1)
    times = {}
    for r in rows:
        times.setdefault(r["wd"], []).extend(r["grok"][f"lambda {LAM:g}"])
    new = fit(times)
    lo, hi = np.percentile(new["boot"][:, 1], [2.5, 97.5])
    out = {"pooled_ratio": [math.exp(m), math.exp(m - q * se), math.exp(m + q * se)], "cells": len(rows),
           "beta_new": [new["beta"], float(lo), float(hi)], "runs_new": int(sum(new["n"].values())),
           "wd_new": sorted(times), "factor_passes": factor_range([r["prior_gm"] for r in rows],
                                                                  [r["predicted_time"] for r in rows]),
           "exponent_passes": exponent_range([r["prior_gm"] for r in rows], [r["wd"] for r in rows], model["a"])}
    if seen_before is not None:
        out["seen_before"] = seen_before
    return out


def seen_before_cell(args):
    """The init x0.5 cell stored before H8's registration, by H8's rule: its prior arm's runs (read
    from the store by their config) and whether they all grokked (the rule needs a geometric mean).
    None if not stored."""
    name, regime, changes = SEEN_BEFORE
    out = []
    for s in SEEDS:
        stored = store.read(args.store or store.STORE,
                            sweep.study_config(args, s, regime=regime, lam=LAM, epochs=BUDGET, **changes))
        if stored is None:
            return None
        out.append(stored[0]["grok_epoch"])
    return {"cell": name, "grok": out, "never": sum(t is None for t in out), "holds": False if None in out else None}


def cell_line(r, budget=BUDGET):
    """One cell in words: the prior arm against T(wd), then the speed-ups ('>=' where baselines never grokked)."""
    speed = lambda v, bound: "-" if v is None else f"{'>= ' if bound else ''}{v:.2f}x"
    bound = r["base_censored"] > 0
    prior = (f"prior arm {r['prior_gm']:,.0f}" if r["prior_gm"] is not None else
             f"prior arm: {r['prior_censored']} of {len(r['grok'][f'lambda {LAM:g}'])} never grokked within {budget:,}")
    lo, hi = r["predicted_interval"]
    return (f"{prior} against T(wd) {r['predicted_time']:,.0f} [{lo:,.0f}, {hi:,.0f}]: "
            f"{'within' if r['holds'] else 'outside'} {TOLERANCE:g}x; speed-up measured "
            f"{speed(r['speedup_measured_at_least'], bound)}, predicted {speed(r['speedup_predicted_at_least'], bound)}"
            + (f" ({r['base_censored']} of {len(r['grok']['lambda 0'])} runs without the prior never grokked within "
               f"{budget:,}: lower bounds)" if bound else ""))


def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    sweep.add_scale_args(p, QUICK)
    sweep.add_sweep_args(p)
    p.set_defaults(seeds=list(SEEDS), regime="fresh")
    return p


# --quick: four of the cells on the small model, one seed, a short budget (a first look at the machinery;
# T(wd) was fitted on the paper's model, so the small model's cells say nothing of H8)
QUICK = dict(p=sweep.QUICK_MODEL["p"], epochs=1500, seeds=[0])
QUICK_CELLS = ("rho 0.002", "rho 0.003, wd 1.5", "rho 0.003, init x1.5", "fresh, wd 1.5")   # one of each kind


def parse(argv=None):
    args = get_parser().parse_args(argv)
    if args.quick:
        return sweep.apply_quick(args, QUICK)
    args.epochs = BUDGET
    return args


def runs(args):
    """{cell: {arm: [(label, cfg) per seed]}}: lambda 0 and lambda 0.3 in each cell."""
    out = {}
    for name, regime, changes in CELLS:
        out[name] = {arm: [(f"{name}/{arm}/seed{s}", sweep.study_config(args, s, regime=regime, lam=lam, **changes))
                           for s in args.seeds] for arm, lam in (("lambda 0", 0.0), (f"lambda {LAM:g}", LAM))}
    return out


def planned_runs(args):
    """Every cell's runs; --quick: QUICK_CELLS' (a first look in about two minutes on one core)."""
    return [r for name, cell in runs(args).items() if name in QUICK_CELLS or not args.quick
            for arm in cell.values() for r in arm]


def summarize(grok, model, n_seeds=len(SEEDS), seen_before=None, budget=BUDGET):
    """grok: {cell: {arm: [t_grok of each stored seed]}} -> the summary payoff.json holds: each
    complete cell judged (with its line of text), H8's verdict once all eight are, and the fit.
    budget: the runs' (BUDGET; --quick's is shorter)."""
    cells = {}
    for name, regime, changes in CELLS:
        got = grok.get(name, {})
        if all(len(got.get(arm, [])) == n_seeds for arm in ("lambda 0", f"lambda {LAM:g}")):
            wd = changes.get("wd", 1.0)
            t_hat, interval = predicted_time(model, wd)
            r = {**judge_cell(got[f"lambda {LAM:g}"], got["lambda 0"], t_hat, budget=budget), "wd": wd,
                 "predicted_interval": interval}
            cells[name] = {**r, "text": cell_line(r, budget)}
    out = judge(cells) if len(cells) == len(CELLS) else {"verdict": "not decided", "cells": cells}
    if "held" in out:
        out["described"] = describe_fit(cells, model, seen_before)
    return {**out, "stored_runs": sum(len(v) for arms in grok.values() for v in arms.values()),
            "planned_runs": 2 * n_seeds * len(CELLS), "budget": budget, "tolerance": TOLERANCE, "needed": NEEDED,
            "model": {k: v for k, v in model.items() if k != "boot"}}


def main(argv=None):
    args = parse(argv)
    results = sweep.run_sweep(planned_runs(args), args)
    model = fit(prior_times(args.store or store.STORE, keys=registered_keys()))
    grok = {name: {arm: [results[label][0]["grok_epoch"] for label, _ in rs if label in results]
                   for arm, rs in arms.items()} for name, arms in runs(args).items()}
    out = summarize(grok, model, len(args.seeds), seen_before_cell(args), args.epochs)
    print(f"H8 (docs/registered/payoff.md): {out['verdict']}" + (f", {out['held']} of {out['of']} cells within "
                                                    f"{TOLERANCE:g}x" if "held" in out else ""))
    for name, r in out["cells"].items():
        print(f"  {name}: {r['text']}")
    store.write_json(os.path.join(args.results_dir, "payoff.json"), out, digits=6)
    plot(out["cells"], model, os.path.join(args.results_dir, "payoff.png"), args.epochs)


def plot(cells, model, path, budget=BUDGET):
    """Left: the prior arm's geometric-mean t_grok against weight decay, the fitted T(wd) with
    its tolerance band, each held-out cell. Right: the speed-up each cell's own baseline
    predicts against the one measured."""
    plt = plots.pyplot()
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.8))
    wd = np.logspace(math.log10(0.4), math.log10(2.5), 100)
    t = np.array([predicted_time(model, w)[0] for w in wd])
    ax[0].plot(wd, t, color="C0", label=f"T(wd) = {math.exp(model['a']):.0f} wd^-{model['beta']:.2f} (fitted)")
    ax[0].fill_between(wd, t / TOLERANCE, t * TOLERANCE, color="C0", alpha=0.12, label=f"within {TOLERANCE:g}x")
    for i, (name, r) in enumerate(cells.items()):
        w = next(c for n, _, c in CELLS if n == name).get("wd", 1.0) * (1 + 0.02 * (i - 3.5))  # apart, not atop
        ax[0].scatter(w, r["prior_gm"] or budget, color=f"C{i + 1}", marker="o" if r["prior_gm"] else "^", label=name)
        if r["speedup_measured_at_least"]:       # a censored baseline: both are lower bounds (open marker)
            ax[1].scatter(r["speedup_predicted_at_least"], r["speedup_measured_at_least"], label=name,
                          color=f"C{i + 1}", facecolors="none" if r["base_censored"] else f"C{i + 1}")
    lim = [0.5, 5]
    ax[1].plot(lim, lim, color="gray", lw=0.8)
    ax[1].fill_between(lim, [l / TOLERANCE for l in lim], [l * TOLERANCE for l in lim], color="gray", alpha=0.1)
    ax[1].text(0.02, 0.03, "open: lower bounds (runs without the prior that never grokked, counted at the budget)",
               transform=ax[1].transAxes, fontsize=7, color="gray")
    ax[0].set(xscale="log", yscale="log", xlabel="weight decay (cells at one wd drawn slightly apart)",
              ylabel="prior arm's t_grok (geometric mean of 5 seeds)",
              title=f"the KL prior's arm (lambda {LAM:g}) against T(wd)")
    ax[0].text(0.02, 0.03, f"triangle: a run of the arm never grokked within {budget:,}", transform=ax[0].transAxes,
               fontsize=7, color="gray")
    ax[1].set(xscale="log", yscale="log", xlim=lim, ylim=lim, xlabel="speed-up predicted (baseline / T(wd))",
              ylabel="speed-up measured", title="the payoff, predicted and measured")
    ticks = {0: ([0.5, 0.7, 1, 1.5, 2], [1000, 2000, 3000, 5000, 10000]), 1: ([0.5, 1, 2, 3, 5], [0.5, 1, 2, 3, 5])}
    for a, (xt, yt) in zip(ax, ticks.values()):     # plain numbers on the log axes
        a.set_xticks(xt, [f"{v:g}" for v in xt])
        a.set_yticks(yt, [f"{v:,g}" for v in yt])
        a.minorticks_off()
    for a in ax:
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=7)
    plots.save_figure(fig, path, "H8: the prior's payoff predicted before it is run (docs/registered/payoff.md)")


if __name__ == "__main__":
    main()