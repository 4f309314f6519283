"""What the figures and the report compute from finished runs' histories: phase marks, the
pre-registered criteria that judge a run, and the statistics over seeds that every verdict
uses. Nothing here trains; everything takes a history dict (train.py's) or numbers.

Phase marks of one run (paper §5.1, Fig. 1):
  t_mem      first epoch with train accuracy >= 0.99            (end of phase 1)
  t_resurge  first epoch after t_mem at which the informative mass has covered 10% of
             the way from its value at t_mem to the oracle's 1/k (end of phase 2)
  t_found    first epoch with informative mass > FOUND_MASS (0.25): attention "has found
             the operands" in the paper's-regime criterion's sense (below)
  t_struct   first epoch where B_tau holds on >= 99% of test examples (Def. 4.1)
  t_rise     first epoch with test accuracy >= rise_acc (0.5)
  t_grok     first epoch with test accuracy >= 0.99            (phase 4)
  mass_at_mem     informative mass min_{i in S} a_i at t_mem (uniform over 5 positions: 0.2)
  acc_at_struct   test accuracy at t_struct
  grad_collapse   min of ||dL_task/dW|| on the plateau [t_mem, t_struct or t_grok] over its
                  peak up to t_mem (paper: "an initial spike ... followed by a collapse")
"""
import numpy as np


def first_epoch(history, key, threshold):
    """First logged epoch with history[key] >= threshold, None if never."""
    return next((e for e, v in zip(history["epoch"], history[key]) if v >= threshold), None)


def first_not_none(*values):
    """The first value that is not None (epoch 0 is a value, unlike with `or`)."""
    return next((v for v in values if v is not None), None)


def phase_marks(history, rise_acc=0.5, k=2):
    """The phase boundaries of one run (module docstring); None where not reached."""
    ep, mass = np.asarray(history["epoch"]), np.asarray(history["info_mass"])
    t_mem = first_epoch(history, "train_acc", 0.99)
    t_resurge = None
    if t_mem is not None:
        m0 = mass[ep == t_mem][0]
        hit = np.nonzero((ep >= t_mem) & (mass >= m0 + 0.1 * (1 / k - m0)))[0]
        t_resurge = int(ep[hit[0]]) if len(hit) else None
    found = np.nonzero(mass > FOUND_MASS)[0]
    marks = {"t_mem": t_mem, "t_resurge": t_resurge, "t_found": int(ep[found[0]]) if len(found) else None,
             "t_struct": first_epoch(history, "frac_struct", 0.99),
             "t_rise": first_epoch(history, "test_acc", rise_acc), "t_grok": first_epoch(history, "test_acc", 0.99)}
    at = lambda key, t: None if t is None else float(np.asarray(history[key])[ep == t][0])
    marks["mass_at_mem"] = at("info_mass", t_mem)
    marks["acc_at_struct"] = at("test_acc", marks["t_struct"])
    marks["mlp_norm_at_mem"] = at("mlp_norm", t_mem)
    marks["mlp_norm_at_grok"] = at("mlp_norm", marks["t_grok"])
    g = np.asarray(history["grad_W_norm"])
    if t_mem is not None:
        end = first_not_none(marks["t_struct"], marks["t_grok"], int(ep[-1]))
        plateau = g[(ep >= t_mem) & (ep <= max(end, t_mem))]
        marks["grad_collapse"] = float(plateau.min() / g[ep <= t_mem].max())
    else:
        marks["grad_collapse"] = None
    return marks


def meets_regime_criterion(m, budget):
    """The distractor-regime criterion of README "The distractor regime" (fixed before those
    runs): memorizes, the attention gradient then collapses >= 10x, attention condenses no
    later than test accuracy reaches 0.5, and it groks within the budget."""
    ts = (m["t_mem"], m["t_struct"], m["t_rise"], m["t_grok"], m["grad_collapse"])
    return bool(all(t is not None for t in ts)
                and m["t_mem"] < m["t_struct"] <= m["t_rise"] and m["t_grok"] <= budget
                and m["grad_collapse"] <= 0.1)


# ---------------------------------------------------------------------------------------
# "The paper's regime": the pre-registered criterion of README "Where the paper's story
# holds", judged on the lambda = 0 baseline only, written down before the grid ran.

FOUND_MASS = 0.25         # informative mass above which attention "has found the operands"
MIN_PLATEAU = 500         # epochs test accuracy must stay below 0.5 after memorization
MAX_GRAD_COLLAPSE = 0.1   # plateau task gradient to W at most this fraction of its peak
MIN_SEEDS_MEETING = 4     # of seeds 0-4, for a cell to show the paper's regime


def paper_regime_checks(m, budget):
    """The five conditions (a)-(e) for one baseline run's phase marks; each True/False."""
    ok = lambda *ts: all(t is not None for t in ts)
    return {
        "memorizes": ok(m["t_mem"]) and m["t_mem"] <= budget,
        "diffuse_at_mem": ok(m["mass_at_mem"]) and m["mass_at_mem"] <= FOUND_MASS,
        "starved_plateau": (ok(m["t_mem"], m["grad_collapse"]) and m["grad_collapse"] <= MAX_GRAD_COLLAPSE
                            and first_not_none(m["t_rise"], budget) - m["t_mem"] >= MIN_PLATEAU),
        "condenses_first": ok(m["t_mem"], m["t_struct"]) and m["t_mem"] < m["t_struct"]
                           and (m["t_rise"] is None or m["t_struct"] <= m["t_rise"]),
        "groks": ok(m["t_grok"]) and m["t_grok"] <= budget,
    }


# ---------------------------------------------------------------------------------------
# Verdict rules: every claim in REPORT.md is judged with these, and only these.
#
# 1. Runs are compared over seeds, paired by seed where the arms share one. A run that never
#    grokked is kept, censored at its budget: its time is taken to be the budget (a lower
#    bound), which pulls each paired effect it enters toward zero. A median that is censored
#    is a lower bound and printed as one ("> 10000").
# 2. An effect in the paper's direction (e.g. "the prior makes grokking faster") is measured
#    per seed (speed-up: log(t_baseline / t_treatment)) and its mean gets a 95% percentile
#    bootstrap interval over seeds (N_BOOT resamples of the seeds, a fixed generator).
#    reproduced      the interval lies above zero (excludes "no effect");
#    not reproduced  the interval lies at or below zero (excludes the paper's effect);
#    inconclusive    otherwise, and always when fewer than MIN_SEEDS seeds were run or when
#                    no run of either arm grokked.
# 3. A property of single runs (e.g. "the four phases occur in order") holds over seeds if
#    the one-sided 95% exact (Clopper-Pearson) lower bound on the fraction of seeds showing
#    it exceeds 1/2 (at 5 seeds: 5 of 5); it is not reproduced if the upper bound is below
#    1/2 (at 5 seeds: 0 of 5); otherwise inconclusive. An inequality that must hold exactly
#    (Lemma 5.1) is not reproduced by a single violation.
# 4. A scaling law t ~ x^slope (C3: x = 1/lambda; C11: x = 1/wd): the least-squares slope of
#    log t on log x over every run (censored runs at the budget) above the floor; the floor
#    (which may be absent) comes from a hinge fit chosen by BIC (fit_scaling). Its 95%
#    interval: the same slope on bootstrap resamples of the seeds (paired across x), the
#    floor kept where the full data put it. A censored run sits below its true time, and
#    raising a point right of the mean log x steepens a least-squares slope while raising
#    one left of it flattens it: censored runs only on the right (the weakest prior, the long
#    runs) make the slope and its interval lower bounds, censored runs only on the left (the
#    strongest decay, runs that never grok) upper bounds (censoring_bias). Verdicts:
#    not reproduced if the interval excludes 1 on the side the censoring cannot move it
#    across (below 1 unless it is a lower bound, above 1 unless it is an upper bound);
#    reproduced only if at least 3 x lie above the floor, no run above the floor is
#    censored, and the interval contains 1 and excludes 0; otherwise inconclusive (always
#    with fewer than MIN_SEEDS seeds).
#    A level claim (Figure 2: final accuracy is chance / partial / full) is rule 2 on the
#    per-seed values against the level's band: reproduced if the mean's interval lies inside
#    the band, not reproduced if it lies wholly outside, inconclusive otherwise.
# 5. A claim with several parts is reproduced if every part is, not reproduced if any part
#    is, inconclusive otherwise; a part with no data is "not decided" and keeps the claim
#    from being reproduced. Every verdict prints n (seeds) and its interval.

MIN_SEEDS = 5
N_BOOT = 10000
REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_DECIDED = "reproduced", "not reproduced", "inconclusive", "not decided"


def censor(t, budget):
    """A grokking time with a never-grokked run (None) censored at the budget."""
    return float(budget) if t is None else float(t)


def censored_median(times, budget):
    """(median, censored?) of grokking times with None = never, censored at the budget. A
    censored median is a lower bound: the budget when the middle run never grokked, or
    (middle finite time + budget) / 2 when one of an even count's two middle runs never did."""
    if not times:
        return None, False
    vals = sorted(np.inf if t is None else float(t) for t in times)
    n = len(vals)
    mid = vals[n // 2 - 1: n // 2 + 1] if n % 2 == 0 else [vals[n // 2]]
    if all(np.isfinite(mid)):
        return float(np.mean(mid)), False
    finite = [v if np.isfinite(v) else float(budget) for v in mid]
    return float(np.mean(finite)), True


def fmt_median(times, budget):
    med, cens = censored_median(times, budget)
    return "-" if med is None else f"> {med:g}" if cens else f"{med:g}"


def bootstrap_mean_ci(values, n_boot=N_BOOT, seed=0):
    """95% percentile bootstrap interval of the mean of per-seed values."""
    v = np.asarray(values, float)
    idx = np.random.default_rng(seed).integers(0, len(v), (n_boot, len(v)))
    means = v[idx].mean(1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def _capped(verdict, n, reasons):
    if n < MIN_SEEDS and verdict in (REPRODUCED, NOT_REPRODUCED):
        reasons.append(f"{verdict} in direction, but n = {n} < {MIN_SEEDS} seeds")
        return INCONCLUSIVE
    return verdict


def effect_verdict(effects, what="effect", fmt=lambda x: f"{x:+.2f}", no_data_reason=None):
    """Rule 2 on per-seed effects (positive = the paper's direction)."""
    if no_data_reason or not effects:
        return {"verdict": NOT_DECIDED, "n": len(effects), "reason": no_data_reason or "no data"}
    est = float(np.mean(effects))
    lo, hi = bootstrap_mean_ci(effects)
    verdict = REPRODUCED if lo > 0 else NOT_REPRODUCED if hi <= 0 else INCONCLUSIVE
    reasons = []
    verdict = _capped(verdict, len(effects), reasons)
    return {"verdict": verdict, "n": len(effects), "estimate": est, "ci": [lo, hi],
            "text": f"{what} {fmt(est)} [{fmt(lo)}, {fmt(hi)}]", "reason": "; ".join(reasons)}


def speedup_verdict(baseline, treatment, budget, what="speed-up"):
    """Rule 2 for 'treatment groks faster than baseline'. baseline, treatment: {seed: grok
    epoch or None (never)}; only seeds present in both arms are used (paired)."""
    seeds = sorted(set(baseline) & set(treatment), key=str)
    if not seeds:
        return effect_verdict([], no_data_reason="no seed run in both arms")
    if all(baseline[s] is None and treatment[s] is None for s in seeds):
        return {"verdict": INCONCLUSIVE, "n": len(seeds), "reason": "no run of either arm grokked within the budget"}
    effects = [np.log(censor(baseline[s], budget) / censor(treatment[s], budget)) for s in seeds]
    v = effect_verdict(effects, what, fmt=lambda x: f"{np.exp(x):.2f}x")
    v["seeds"] = seeds
    # a seed with a never-grokked run has a ratio that is a bound, not a measurement: say which
    never_base = {s for s in seeds if baseline[s] is None}
    never_treat = {s for s in seeds if treatment[s] is None}
    v["never_grokked"] = {"baseline": len(never_base), "treatment": len(never_treat)}
    kinds = [(len(never_base - never_treat), "only the baseline (its ratio a lower bound)"),
             (len(never_treat - never_base), "only the treatment (an upper bound)"),
             (len(never_base & never_treat), "both arms (counted as 1x)")]
    note = ", ".join(f"{k} in {kind}" for k, kind in kinds if k)
    if note:
        v["reason"] = "; ".join(filter(None, [v["reason"], "seeds censored at the budget: " + note]))
    return v


def level_verdict(values, low, high, what="mean"):
    """Rule 2 for 'the value lies in [low, high)' (per-seed values)."""
    if not values:
        return {"verdict": NOT_DECIDED, "n": 0, "reason": "no data"}
    lo, hi = bootstrap_mean_ci(values)
    verdict = REPRODUCED if low <= lo and hi < high else NOT_REPRODUCED if hi < low or lo >= high else INCONCLUSIVE
    reasons = []
    verdict = _capped(verdict, len(values), reasons)
    return {"verdict": verdict, "n": len(values), "estimate": float(np.mean(values)), "ci": [lo, hi],
            "text": f"{what} {np.mean(values):.3f} [{lo:.3f}, {hi:.3f}], paper's band [{low:g}, {high:g})",
            "reason": "; ".join(reasons)}


def clopper_pearson_one_sided(k, n, alpha=0.05):
    """One-sided (1 - alpha) exact bounds (lower, upper) on a binomial proportion k/n."""
    from math import comb
    cdf = lambda p, kk: sum(comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(kk + 1))
    def solve(f):                      # f increasing on [0, 1]: root by bisection
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
        return (lo + hi) / 2
    lower = 0.0 if k == 0 else solve(lambda p: (1 - alpha) - cdf(p, k - 1))   # P(X >= k | p) = alpha
    upper = 1.0 if k == n else solve(lambda p: alpha - cdf(p, k))             # P(X <= k | p) = alpha
    return lower, upper


def property_verdict(oks, what="seeds showing it"):
    """Rule 3: per-seed booleans (None = not measurable for that seed, left out)."""
    oks = [bool(o) for o in oks if o is not None]
    if not oks:
        return {"verdict": NOT_DECIDED, "n": 0, "reason": "no data"}
    k, n = sum(oks), len(oks)
    lo, hi = clopper_pearson_one_sided(k, n)
    verdict = REPRODUCED if lo > 0.5 else NOT_REPRODUCED if hi < 0.5 else INCONCLUSIVE
    reasons = []
    verdict = _capped(verdict, n, reasons)
    return {"verdict": verdict, "n": n, "k": k, "ci": [lo, hi],
            "text": f"{what} {k}/{n} (95% bounds [{lo:.2f}, {hi:.2f}])", "reason": "; ".join(reasons)}


def fit_line(x, y):
    """Least squares y = a + b x; returns (a, b)."""
    b, a = np.polyfit(np.asarray(x, float), np.asarray(y, float), 1)
    return a, b


def fit_scaling(x, t, min_points=2):
    """Hinge fit of log t = max(log floor, a + slope * log x) on per-run points (x > 0, t > 0).

    t grows with x, so the points with the smallest x (the strongest prior, the largest
    weight decay) may sit on a floor. Every count of the smallest distinct x as floor is
    tried (0 .. n_x - min_points); the floor level is the mean log t of its points and the
    line is fitted to the rest by least squares. A split counts only if it is a hinge, a
    least time the line falls to: the line lies at or below the floor at the floor's
    largest x and at or above it at the sloped part's smallest x (runs that take *longer*
    at small x, e.g. never grok under a strong decay, are no floor). The split with the
    lowest BIC wins (N log(SSE/N) + k log N; k = 2 for a line, 3 with a floor), so a floor
    is kept only where it explains the runs better than seed noise would by chance. Returns dict(slope,
    intercept, floor or None, n_floor, sloped_x), or None with fewer than min_points x."""
    x, t = np.asarray(x, float), np.asarray(t, float)
    xs = np.unique(x)[::-1]                              # largest x first: the sloped end
    if len(xs) < min_points:
        return None
    lx, ly, N = np.log(x), np.log(t), len(x)
    best = None
    for n_floor in range(0, len(xs) - min_points + 1):
        sloped = np.isin(x, xs[:len(xs) - n_floor])
        a, b = fit_line(lx[sloped], ly[sloped])
        sse = np.sum((ly[sloped] - (a + b * lx[sloped])) ** 2)
        floor = None
        if n_floor:
            log_floor = ly[~sloped].mean()
            x_floor, x_line = xs[len(xs) - n_floor], xs[len(xs) - n_floor - 1]   # either side of the hinge
            if not a + b * np.log(x_floor) <= log_floor <= a + b * np.log(x_line):
                continue
            floor = float(np.exp(log_floor))
            sse += np.sum((ly[~sloped] - log_floor) ** 2)
        bic = N * np.log(sse / N + 1e-12) + (2 + bool(n_floor)) * np.log(N)
        if best is None or bic < best["bic"] - 1e-9:
            best = {"bic": float(bic), "slope": float(b), "intercept": float(a), "floor": floor,
                    "n_floor": n_floor, "sloped_x": [float(v) for v in xs[:len(xs) - n_floor]]}
    return best


def scaling_verdict(times, budget, label="1/lambda", n_boot=N_BOOT, seed=0):
    """Rule 4. times: {x: {seed: grok epoch or None}} with x > 0 (e.g. x = 1/lambda)."""
    xs = sorted(times)
    seeds = sorted(set.intersection(*(set(times[x]) for x in xs)), key=str) if xs else []
    out = {"n": len(seeds), "budget": budget}
    if len(xs) < 2 or not seeds:
        return {**out, "verdict": NOT_DECIDED, "reason": f"fewer than two {label} values with runs"}
    if all(times[x][s] is None for x in xs for s in seeds):
        return {**out, "verdict": INCONCLUSIVE, "reason": "no run grokked within the budget"}
    table = np.array([[censor(times[x][s], budget) for s in seeds] for x in xs])   # (n_x, n_seeds)
    X = np.repeat(xs, len(seeds))
    fit = fit_scaling(X, table.flatten())
    sloped = sorted(fit["sloped_x"])
    out.update(fit=fit, medians={f"{x:g}": float(m) for x, m in zip(xs, np.median(table, 1))})
    if len(sloped) < 2:
        return {**out, "verdict": INCONCLUSIVE, "reason": "fewer than two points above the floor"}
    rows = [xs.index(x) for x in sloped]
    pick = np.random.default_rng(seed).integers(0, len(seeds), (n_boot, len(seeds)))   # seeds, paired across x
    ly = np.log(table[rows])[:, pick].transpose(1, 0, 2).reshape(n_boot, -1)          # (n_boot, points)
    lx = np.repeat(np.log(sloped), len(seeds)) - np.log(sloped).mean()
    slopes = ((ly - ly.mean(1, keepdims=True)) * lx).sum(1) / (lx ** 2).sum()          # least-squares slope
    lo, hi = float(np.percentile(slopes, 2.5)), float(np.percentile(slopes, 97.5))
    out.update(ci=[lo, hi], text=f"slope {fit['slope']:.2f} [{lo:.2f}, {hi:.2f}] over {label} in "
               f"{[float(f'{x:.4g}') for x in sloped]}; floor "
               + (f"{fit['floor']:.0f} epochs" if fit["floor"] else "absent in this grid"))
    reasons = []
    censored = table[rows] >= budget                                    # (sloped x, seeds)
    bias = censoring_bias(np.log(sloped), censored)
    at = ", ".join(f"{x:.4g}" for x, c in zip(sloped, censored.any(1)) if c)
    bound = {"lower": "a lower bound", "upper": "an upper bound", "both": "biased in both directions"}.get(bias)
    why = lambda where, but=True: (f"slope {where} 1, {'but' if but else 'and'} {int(censored.sum())} censored "
                                   f"runs above the floor, at {label} = {at}, make it {bound}")
    if lo > 1:          # the true slope is at least this unless the censoring is on the left
        verdict = NOT_REPRODUCED if bias in (None, "lower") else INCONCLUSIVE
    elif hi < 1:        # at most this unless the censoring is on the right
        verdict = NOT_REPRODUCED if bias in (None, "upper") else INCONCLUSIVE
    elif len(sloped) >= 3 and lo > 0 and bias is None:
        verdict = REPRODUCED
    else:
        verdict = INCONCLUSIVE
    if verdict == INCONCLUSIVE:
        if lo > 1 or hi < 1:
            reasons.append(why("above" if lo > 1 else "below"))
        elif len(sloped) < 3:
            reasons.append(f"only {len(sloped)} points above the floor")
        elif lo <= 0:
            reasons.append("interval includes 0")
        else:
            reasons.append(why("consistent with"))
    elif verdict == NOT_REPRODUCED and bias:     # the censoring moves the slope further from 1
        reasons.append(why("above" if lo > 1 else "below", but=False) + ": the true slope is further from 1")
    if (table >= budget).any():
        reasons.append(f"{int((table >= budget).sum())} runs censored at the budget (lower bounds)")
    out["verdict"] = _capped(verdict, len(seeds), reasons)
    out["reason"] = "; ".join(reasons)
    return out


def censoring_bias(log_x, censored):
    """Which way runs censored at the budget bias the least-squares slope of log t on log x
    (rule 4). log_x: (n_x,) the x above the floor, each with the same seeds; censored:
    (n_x, n_seeds) booleans. The slope's derivative in one point's log t is
    (log x - mean log x) / sum (log x - mean)^2, so raising a censored run to its true time
    steepens the slope right of the mean and flattens it left of it. Returns None (no
    censored run moves it), "lower" (the fit is a lower bound on the slope), "upper" (an
    upper bound) or "both" (no side known)."""
    side = np.asarray(log_x, float) - np.mean(log_x)
    moving = np.asarray(censored, bool).any(1) & (np.abs(side) > 1e-9)
    right, left = bool((moving & (side > 0)).any()), bool((moving & (side < 0)).any())
    return None if not (right or left) else "both" if right and left else "lower" if right else "upper"


def combine(parts):
    """Rule 5: {part name: verdict dict} -> one verdict for the claim."""
    vs = [p["verdict"] for p in parts.values()]
    if not vs:
        return NOT_DECIDED
    if NOT_REPRODUCED in vs:
        return NOT_REPRODUCED
    if all(v == REPRODUCED for v in vs):
        return REPRODUCED
    if all(v == NOT_DECIDED for v in vs):
        return NOT_DECIDED
    return INCONCLUSIVE


def describe(v):
    """One line: verdict, n, interval, reason."""
    bits = [f"**{v['verdict']}**", f"n = {v.get('n', 0)}"]
    if v.get("text"):
        bits.append(v["text"])
    if v.get("reason"):
        bits.append(v["reason"])
    return ", ".join(bits)
