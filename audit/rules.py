"""The verdict rules every claim is judged by: statistics over seeds, censoring, the scaling fits, and
how parts combine into a claim's verdict. docs/stats.md states each rule, its assumptions and its
error rates measured on synthetic data with a known truth (audit/simulate.py). Rules v4 decide, v3
is reported beside (v1 and v2: docs/stats.md names the commit that prints them). A rule v4 took over
unchanged has one name; a label marks those whose versions differ. What they judge: analysis.py.
"""
import functools
import math
from types import SimpleNamespace

import numpy as np

from analysis import THIN_EPOCHS, censor, censored_median   # measurements the rules read


# ---------------------------------------------------------------------------------------
# The verdict words, exact binomial bounds, the t-interval, the sign-flip p, which way
# censoring biases a slope, how parts combine and how a verdict is said.

MIN_SEEDS = 5
REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_DECIDED = "reproduced", "not reproduced", "inconclusive", "not decided"
NONINFERIORITY = 1.25
MIN_ROOM = 3
LEVEL = 0.95


@functools.lru_cache(maxsize=None)
def clopper_pearson_one_sided(k, n, alpha=0.05):
    """One-sided (1 - alpha) exact bounds (lower, upper) on a binomial proportion k/n (remembered per k, n and
    alpha: the count rule's power tables ask for the same few thousands of times)."""
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


def describe(v, bold=True):
    """One line: verdict, n, interval, reason; the verdict bold, or plain (bold=False: a printout)."""
    return ", ".join([f"**{v['verdict']}**" if bold else v["verdict"], f"n = {v.get('n', 0)}"]
                     + [v[k] for k in ("text", "reason") if v.get(k)])


def replace_block(text, start, end, body):
    """text with the block between the markers `start` and `end` replaced by body (None if start is absent)."""
    if start not in text:
        return None
    head, rest = text.split(start, 1)
    return f"{head}{start}\n{body}\n{end}{rest.split(end, 1)[1]}"


def t_quantile(p, df):
    """Student's t p-quantile (numpy only): Simpson's rule on the density, bisection; ~1e-9 for p <= 0.999."""
    return _t_quantile(round(float(p), 12), int(df))


@functools.lru_cache(maxsize=None)
def _t_quantile(p, df):
    if p < 0.5:
        return -_t_quantile(1 - p, df)
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    def cdf(q):                                   # 1/2 + integral of the density from 0 to q
        x = np.linspace(0.0, q, 4001)
        f = c * (1 + x * x / df) ** (-(df + 1) / 2)
        return 0.5 + (q / 12000) * (f[0] + f[-1] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum())
    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        lo, hi = hi, 2 * hi
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
    return (lo + hi) / 2


def t_interval(values, level=LEVEL):
    """(mean, lower, upper): the two-sided t-interval of the mean; None with fewer than 2."""
    v = np.asarray(values, float)
    if len(v) < 2:
        return None
    mean, half = v.mean(), t_quantile(1 - (1 - level) / 2, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))
    return float(mean), float(mean - half), float(mean + half)


SIGN_FLIP_EXACT_MAX = 20        # up to 2^20 sign assignments enumerated, in blocks
SIGN_FLIP_DRAWS = 2 ** 20       # beyond: this many random assignments (fixed seed)


def sign_flip_p(values):
    """One-sided p of 'mean > 0' under sign symmetry: the share of the 2^n sign assignments whose sum is
    at least the observed one (ties count). Exact up to n = 20; beyond, a Monte-Carlo p from 2^20 random
    assignments with a fixed seed, (1 + hits) / (1 + draws): valid, repeatable, within about 0.0005 of
    the exact p near 0.05. Remembered per set of values (about 60 ms each)."""
    return _sign_flip_p(tuple(float(x) for x in values))


@functools.lru_cache(maxsize=4096)
def _sign_flip_p(values):
    v = np.abs(np.asarray(values, float))
    if len(v) == 0:
        return None
    observed = float(np.sum(values)) - 1e-12 * v.sum()
    hits, rows = 0, 0
    if len(v) <= SIGN_FLIP_EXACT_MAX:
        codes = np.arange(2 ** len(v))
        for block in np.array_split(codes, max(1, len(codes) // 2 ** 16)):
            signs = 1 - 2 * ((block[:, None] >> np.arange(len(v))) & 1)
            hits += int(np.sum(signs @ v >= observed))
        return hits / len(codes)
    rng = np.random.default_rng(0)
    while rows < SIGN_FLIP_DRAWS:
        signs = rng.choice([-1.0, 1.0], size=(min(2 ** 16, SIGN_FLIP_DRAWS - rows), len(v)))
        hits += int(np.sum(signs @ v >= observed))
        rows += len(signs)
    return (1 + hits) / (1 + rows)


# ---------------------------------------------------------------------------------------
# Verdict rules, version 3 (from 2026-11-25): what decides every verdict in REPORT.md and the
# README. docs/stats.md states each rule and its error rates measured on synthetic data
# (python -m audit.simulate; tests/test_rules.py fails if a rule drifts from them).
#
# 1. n counts informative seeds, never runs: a seed censored in both arms, or with no
#    measurable value, does not count toward the five (MIN_SEEDS) a decision needs; with
#    fewer, a verdict is inconclusive. Runs that never grok stay in, censored at the budget.
# 2. Effects (speed-ups): per seed, log(t_baseline / t_treatment), a 95% t-interval
#    [lo, hi] of the mean, the exact one-sided sign-flip p printed beside it, and a smallest
#    effect that counts, stated per claim in advance (SMALLEST_SPEEDUP, 1.25x, unless the
#    paper implies more):
#    not reproduced   hi < smallest (the paper's effect, at a size that counts, is absent;
#                     a real but smaller effect says so in its reason);
#    reproduced       lo > 0 (and not the line above);
#    inconclusive     otherwise.
#    A seed censored in one arm is a bound, not a measurement; it may only help a verdict on
#    the side it is conservative for: a lower bound (the baseline never grokked) blocks "not
#    reproduced", an upper bound (the treatment never grokked) blocks "reproduced". Every
#    bound is printed in the verdict line with its value.
# 3. "Matches or outperforms" (C4): non-inferiority, margin NONINFERIORITY = 1.25 stated in
#    advance. Per seed log(t_treatment / t_reference), the same t-interval and bounds:
#    reproduced if its upper end lies below log 1.25, not reproduced if its lower end lies
#    above it, inconclusive otherwise.
# 4. Levels (Figure 2's accuracies, C1's informative mass at memorization): the t-interval
#    of the mean per-seed value against a band named per claim: reproduced inside it, not
#    reproduced wholly outside, inconclusive otherwise.
# 5. Properties of single runs that are truly yes/no: the two-sided 95% Clopper-Pearson
#    interval of the fraction of seeds showing it (each side 2.5%); reproduced above 1/2,
#    not reproduced below. At n = 5 no count decides (5/5: lower bound 0.48); 6/6 can.
# 5b. An exact inequality (Lemma 5.1) is judged on every logged point of every seed: not
#    reproduced by any violation beyond rounding; reproduced when the one-sided 97.5% upper
#    bound on the violation rate is below MAX_VIOLATION_RATE (1%). Serial correlation: points
#    closer than THIN_EPOCHS (100 epochs) count as one, so a 10k-epoch run gives 100 points.
# 6. Scaling laws: a room named in advance per claim (docs/stats.md: x values named before the
#    verdicts were recomputed), never read off the medians. An x of the room whose median is
#    censored (no time measured there) drops out of it, named; fewer than MIN_ROOM x left:
#    not decided. Per-seed least-squares slopes over the room, their t-interval, margin
#    SLOPE_MARGIN_V3 = 0.5 (1/x against no law, 0, and a divergence, >= 2): reproduced
#    inside [0.5, 1.5] with no censored run in the room, not reproduced wholly outside on a
#    side censoring cannot move it across (a flat curve fails here), inconclusive otherwise.
# 7. A claim with several parts is reproduced only if every part is (an intersection-union
#    test: each part at its own 2.5% level, no adjustment needed); it is not reproduced if
#    any part is, so REPORT.md lists every part; a part with no data is "not decided".
#    "Untestable here": a part whose premise never occurs here or whose plan costs more than
#    10 core-hours (docs/plan.md); it gives the reason and the design that would decide, and
#    is neither reproduced nor not (combine_testable leaves it out).

UNTESTABLE = "untestable here"
SMALLEST_SPEEDUP = 1.25
SLOPE_MARGIN_V3 = 0.5
MAX_VIOLATION_RATE = 0.01


def _cap_few_seeds(verdict, n, reasons):
    if n < MIN_SEEDS and verdict in (REPRODUCED, NOT_REPRODUCED):
        reasons.append(f"{verdict} in direction, but {n} informative seeds < {MIN_SEEDS}")
        return INCONCLUSIVE
    return verdict


def effect_verdict_v3(effects, smallest, what="effect", fmt=lambda x: f"{x:+.2f}", bounds=None, n_run=None,
                      bound_note=""):
    """Rule 2 (v3) on per-seed effects (positive = the paper's direction); smallest: the smallest
    effect that counts, on the effects' scale (> 0). bounds: per effect +1 (a lower bound), -1
    (an upper bound) or 0 (measured); n_run: the seeds run, when some were uninformative."""
    n = len(effects)
    n_run = n if n_run is None else n_run
    bounds = [0] * n if bounds is None else list(bounds)
    out = {"n": n, "n_run": n_run, "n_informative": n, "smallest": smallest}
    if not effects:
        return {**out, "verdict": NOT_DECIDED if not n_run else INCONCLUSIVE,
                "reason": "no data" if not n_run else "no informative seed" + (f" ({bound_note})" if bound_note else "")}
    ti = t_interval(effects)
    out.update(estimate=float(np.mean(effects)), p_signflip=sign_flip_p(effects))
    seeds_note = "" if n == n_run else f", {n} of {n_run} seeds informative"
    if ti is None:
        return {**out, "verdict": INCONCLUSIVE, "text": f"{what} {fmt(out['estimate'])} (one informative seed{'' if n_run <= 1 else ' of ' + str(n_run)})",
                "reason": "; ".join(filter(None, ["fewer than two informative seeds: no interval", bound_note]))}
    _, lo, hi = ti
    lower, upper = any(b > 0 for b in bounds), any(b < 0 for b in bounds)
    reasons = []
    if hi < smallest and not lower:
        verdict = NOT_REPRODUCED
        if lo > 0:
            reasons.append(f"an effect above 0, but below the smallest that counts ({fmt(smallest)})")
    elif lo > 0 and not upper:
        verdict = REPRODUCED
    else:
        verdict = INCONCLUSIVE
        if hi < smallest:
            reasons.append("below the smallest effect that counts, but lower bounds could lift it")
        elif lo > 0:
            reasons.append("above 0, but upper bounds could lower it")
    verdict = _cap_few_seeds(verdict, n, reasons)
    if bound_note:
        reasons.append(bound_note)
    return {**out, "verdict": verdict, "ci": [lo, hi],
            "text": f"{what} {fmt(out['estimate'])} [{fmt(lo)}, {fmt(hi)}], smallest that counts {fmt(smallest)}, "
                    f"sign-flip p = {out['p_signflip']:.3g}{seeds_note}",
            "shown": f"{what} {fmt(out['estimate'])} [{fmt(lo)}, {fmt(hi)}]", "against": f"counts from {fmt(smallest)}",
            "reason": "; ".join(reasons)}


def _bounded_log_ratios(numerator, denominator, budget, names=("baseline", "treatment")):
    """Per seed log(numerator / denominator), censored at the budget, with its kind: 0 measured,
    +1 a lower bound (only the numerator never grokked), -1 an upper bound (only the
    denominator); seeds censored in both arms left out. names: the two arms, for the note.
    budget: one number for every run, or a pair ({seed: budget} of the numerator's runs, of the
    denominator's) where runs were extended past the study's budget (rules v4's censoring by
    design: a censored run is a bound at the budget it was trained to).
    Returns (effects, bounds, seeds, note)."""
    per_run = isinstance(budget, tuple)
    at = lambda arm, s: float(budget[arm][s]) if per_run else float(budget)
    seeds = sorted(set(numerator) & set(denominator), key=str)
    kept = [s for s in seeds if numerator[s] is not None or denominator[s] is not None]
    both = len(seeds) - len(kept)
    # one log over every seed (elementwise the same numbers as one call per seed; the verdicts' power tables call this
    # a million times)
    effects = np.log([censor(numerator[s], at(0, s)) / censor(denominator[s], at(1, s)) for s in kept]).tolist()
    bounds = [+1 if numerator[s] is None else -1 if denominator[s] is None else 0 for s in kept]
    lows = [(r, at(0, s)) for r, s in zip(effects, kept) if numerator[s] is None]
    highs = [(r, at(1, s)) for r, s in zip(effects, kept) if numerator[s] is not None and denominator[s] is None]
    x = lambda v: ", ".join(f"{np.exp(r):.2f}x" for r, _ in v)
    within = lambda v: "/".join(f"{b:g}" for b in sorted({b for _, b in v}))
    notes = []
    if lows:
        notes.append(f"{len(lows)} ratios are lower bounds ({names[0]} never grokked within {within(lows)}): "
                     f">= {x(lows)}")
    if highs:
        notes.append(f"{len(highs)} ratios are upper bounds ({names[1]} never grokked within {within(highs)}): "
                     f"<= {x(highs)}")
    if both:
        notes.append(f"{both} censored in both arms, left out (no information on the ratio)")
    return effects, bounds, seeds, "; ".join(notes)


def _budget_text(budget):
    """A budget for a reason: the number, or the budgets of a comparison's extended runs."""
    if not isinstance(budget, tuple):
        return f"{budget:g}"
    return "/".join(f"{b:g}" for b in sorted({float(b) for arm in budget for b in arm.values()}))


def _speedup(effect_verdict, baseline, treatment, budget, what, smallest):
    """Rule 2 for 'treatment groks faster than baseline, by at least `smallest`x', judged by
    `effect_verdict` (v3's or v4's) on the per-seed log ratios and their bounds."""
    effects, bounds, seeds, note = _bounded_log_ratios(baseline, treatment, budget)
    if not seeds:
        return {"verdict": NOT_DECIDED, "n": 0, "reason": "no seed run in both arms"}
    if not effects:
        return {"verdict": INCONCLUSIVE, "n": 0, "n_run": len(seeds), "n_informative": 0,
                "shown": f"no run of either arm grokked within {_budget_text(budget)}",
                "reason": f"no run of either arm grokked within {_budget_text(budget)}: no informative seed"}
    ratio = lambda x: f"{np.exp(x):.2f}x" if math.isfinite(x) else "0" if x < 0 else "inf"   # an open end: 0 or inf
    v = effect_verdict(effects, math.log(smallest), what, fmt=ratio, bounds=bounds,
                       n_run=len(seeds), bound_note=note)
    v["seeds"] = seeds
    return v


def speedup_verdict_v3(baseline, treatment, budget, what="speed-up", smallest=SMALLEST_SPEEDUP):
    """Rule 2 (v3) for 'treatment groks faster than baseline, by at least `smallest`x'."""
    return _speedup(effect_verdict_v3, baseline, treatment, budget, what, smallest)


def noninferiority_verdict_v3(reference, treatment, budget, margin=NONINFERIORITY, what="time ratio"):
    """Rule 3 (v3): per seed log(t_treatment / t_reference); reproduced if the interval's upper
    end is below log(margin) and no ratio is a lower bound; not reproduced if its lower end is
    above it and no ratio is an upper bound."""
    effects, bounds, seeds, note = _bounded_log_ratios(treatment, reference, budget, ("treatment", "reference"))
    out = {"n": len(effects), "n_run": len(seeds), "n_informative": len(effects), "margin": margin}
    if not seeds:
        return {**out, "verdict": NOT_DECIDED, "reason": "no seed run in both arms"}
    ti = t_interval(effects)
    if ti is None:
        return {**out, "verdict": INCONCLUSIVE,
                "reason": "; ".join(filter(None, ["fewer than two informative seeds: no interval", note]))}
    est, lo, hi = ti
    lower, upper = any(b > 0 for b in bounds), any(b < 0 for b in bounds)
    verdict = (REPRODUCED if hi < math.log(margin) and not lower else
               NOT_REPRODUCED if lo > math.log(margin) and not upper else INCONCLUSIVE)
    reasons = []
    verdict = _cap_few_seeds(verdict, len(effects), reasons)
    if note:
        reasons.append(note)
    x = lambda v: f"{np.exp(v):.2f}x"
    return {**out, "verdict": verdict, "estimate": est, "ci": [lo, hi],
            "text": f"{what} {x(est)} [{x(lo)}, {x(hi)}], non-inferior if the upper end < {margin:g}x",
            "shown": f"{what} {x(est)} [{x(lo)}, {x(hi)}]", "against": f"non-inferior if the upper end < {margin:g}x",
            "reason": "; ".join(reasons)}


def level_verdict(values, low, high, what="mean", within=None):
    """Rule 4 (v3): the t-interval of the per-seed values (None: left out) against the band [low, high),
    cut to `within`, the range the mean must lie in ((0, 1): an accuracy or a mass), which loses no coverage."""
    vals = [float(v) for v in values if v is not None]
    out = {"n": len(vals), "n_run": len(values)}
    if not vals:
        return {**out, "verdict": NOT_DECIDED, "reason": "no data"}
    band = f"band [{low:g}, {high:g})"
    ti = t_interval(vals)
    if ti is None:
        return {**out, "verdict": INCONCLUSIVE, "estimate": vals[0], "text": f"{what} {vals[0]:.3f} (one seed), {band}",
                "reason": "fewer than two seeds: no interval"}
    est, lo, hi = ti
    if within is not None:
        lo, hi = max(lo, within[0]), min(hi, within[1])
    verdict = REPRODUCED if low <= lo and hi < high else NOT_REPRODUCED if hi < low or lo >= high else INCONCLUSIVE
    reasons = []
    verdict = _cap_few_seeds(verdict, len(vals), reasons)
    return {**out, "verdict": verdict, "estimate": est, "ci": [lo, hi],
            "text": f"{what} {est:.3f} [{lo:.3f}, {hi:.3f}], {band}", "shown": f"{what} {est:.3f} [{lo:.3f}, {hi:.3f}]",
            "against": f"our band [{low:.3g}, {high:.3g})", "reason": "; ".join(reasons)}


def property_verdict(oks, what="seeds showing it"):
    """Rule 5: per-seed booleans (None = not measurable for that seed, left out)."""
    oks = [bool(o) for o in oks if o is not None]
    if not oks:
        return {"verdict": NOT_DECIDED, "n": 0, "reason": "no data"}
    k, n = sum(oks), len(oks)
    lo, hi = clopper_pearson_one_sided(k, n, alpha=(1 - LEVEL) / 2)
    verdict = REPRODUCED if lo > 0.5 else NOT_REPRODUCED if hi < 0.5 else INCONCLUSIVE
    reasons = []
    verdict = _cap_few_seeds(verdict, n, reasons)
    if verdict == INCONCLUSIVE and n < 6 and k in (0, n):
        reasons.append(f"{k}/{n}: no count of {n} seeds decides a property at 2.5% per side (6 seeds can)")
    return {"verdict": verdict, "n": n, "k": k, "ci": [lo, hi],
            "text": f"{what} {k}/{n} (95% interval [{lo:.2f}, {hi:.2f}])", "shown": f"{what} {k}/{n} (95% interval "
            f"[{lo:.2f}, {hi:.2f}])", "against": "a majority counts: above 1/2", "reason": "; ".join(reasons)}


def exact_inequality_verdict(points, violations, what="the bound"):
    """Rule 5b: {seed: points checked (after thinning)}, {seed: violations beyond rounding}."""
    n_points, n_viol = int(sum(points.values())), int(sum(violations.values()))
    out = {"n": len(points), "points": n_points, "violations": n_viol}
    if not n_points:
        return {**out, "verdict": NOT_DECIDED, "reason": "no logged point"}
    if n_viol:
        return {**out, "verdict": NOT_REPRODUCED, "text": f"{n_viol} violations of {what} in {n_points} points",
                "reason": "an exact inequality is not reproduced by a single violation beyond rounding"}
    upper = 1 - 0.025 ** (1 / n_points)                         # Clopper-Pearson, 0 of n, one side 97.5%
    verdict = REPRODUCED if upper < MAX_VIOLATION_RATE else INCONCLUSIVE
    reasons = []
    verdict = _cap_few_seeds(verdict, len(points), reasons)
    if upper >= MAX_VIOLATION_RATE:
        reasons.append(f"{n_points} points bound the rate only below {upper:.2%} (need < {MAX_VIOLATION_RATE:.0%})")
    shown = f"0 violations of {what} in {n_points} points ({len(points)} seeds, one point per {THIN_EPOCHS} epochs until each run stops)"
    return {**out, "verdict": verdict, "ci": [0.0, upper], "shown": shown,
            "text": f"{shown}: violation rate < {upper:.2%} (97.5% upper bound)",
            "reason": "; ".join(reasons)}


def eq7_slope(x, t, floor):
    """beta of t = floor + C x^beta (Thm. 5.2, Eq. 7: t - floor ~ 1/lambda, x = 1/lambda) for one
    seed's times t at x, the floor known: least squares on log t over C > 0 and beta, on a grid
    of beta (-1 to 6, step 0.05) and C (log-spaced); with floor 0, the log-log slope exactly."""
    x, t = np.asarray(x, float), np.asarray(t, float)
    lx = np.log(x) - np.log(x).mean()
    if floor <= 0:
        return float((lx * np.log(t)).sum() / (lx ** 2).sum())
    betas = np.arange(-1.0, 6.0 + 1e-9, 0.05)
    scale = np.exp(np.mean(np.log(t)))
    cs = scale * np.logspace(-4, 3, 200)                                   # C x_gm^beta
    u = np.exp(betas[:, None] * lx[None, :])                               # (B, k): (x / x_gm)^beta
    pred = np.log(floor + cs[None, :, None] * u[:, None, :])               # (B, C, k)
    sse = ((np.log(t)[None, None, :] - pred) ** 2).sum(-1)
    return float(betas[np.unravel_index(np.argmin(sse), sse.shape)[0]])


def scaling_verdict_v3(times, budget, room, label="1/lambda", margin=SLOPE_MARGIN_V3, floor_x=None,
                       smallest=SMALLEST_SPEEDUP, slope_fit=eq7_slope):
    """Rule 6 (v3). times: {x: {seed: grok epoch or None}}; room: the x named in advance; floor_x:
    the x named in advance as the floor cell (Eq. 7's floor: C3's strongest prior), None for a law
    with no floor (C11). An x of the room whose median is censored drops out, named. Per seed,
    beta of t = F_s + C x^beta over the rest (F_s that seed's own time at the floor cell, so that
    the floor's noise is in the seeds' scatter; 0 without a floor cell), its t-interval against
    [1 - margin, 1 + margin]. A flat curve fails first: per seed log(t at the room's largest x /
    F_s) (without a floor, / t at its smallest x) whose interval lies below log(smallest) means t
    does not rise over the room (nothing for a law to follow)."""
    named = sorted(float(x) for x in room)
    have = [x for x in named if x in times]
    out = {"n": 0, "budget": budget, "margin": margin, "room_named": named}
    short = lambda v: [float(f"{x:.4g}") for x in v]
    if len(have) < MIN_ROOM:
        return {**out, "verdict": NOT_DECIDED,
                "reason": f"only {len(have)} of the named {label} values {short(named)} have runs (need {MIN_ROOM})"}
    sets = [set(times[x]) for x in have] + ([set(times[floor_x])] if floor_x is not None and floor_x in times else [])
    seeds = sorted(set.intersection(*sets), key=str)
    F = 0.0
    if floor_x is not None:
        if floor_x not in times:
            return {**out, "verdict": NOT_DECIDED, "reason": f"no runs at the floor cell {label} = {floor_x:g}"}
        F, cens = censored_median([times[floor_x][s] for s in seeds], budget)
        if cens:
            return {**out, "verdict": NOT_DECIDED, "reason": f"the floor cell's median is censored at {budget:g}"}
        out["floor"] = F
    cens_med = [x for x in have if censored_median([times[x][s] for s in seeds], budget)[1]]
    used = [x for x in have if x not in cens_med]
    out.update(room=used, at_cap=cens_med, medians={f"{x:g}": censored_median([times[x][s] for s in seeds], budget)[0]
                                                    for x in have})
    dropped = (f"; {label} = {short(cens_med)} dropped: median censored at {budget:g} (no time measured)"
               if cens_med else "")
    form = f"t = F + C x^beta (Eq. 7; F each seed's time at {label} = {floor_x:.4g}, median {F:.0f})" \
        if floor_x is not None else "t = C x^beta"
    if cens_med:                               # what the README shows of a law with too little room
        out["dropped"] = f"{label} = {short(cens_med)} dropped: median censored at {budget:g}"
    if len(used) < MIN_ROOM:
        return {**out, "n": len(seeds), "verdict": NOT_DECIDED, "text": f"room named {short(named)}{dropped}",
                "reason": f"only {len(used)} {label} values of the named room have a measured median (need {MIN_ROOM})"}
    table = np.array([[censor(times[x][s], budget) for s in seeds] for x in used])
    floors = np.array([censor(times[floor_x][s], budget) if floor_x is not None else 0.0 for s in seeds])
    informative = [j for j in range(len(seeds)) if (table[:, j] < budget).sum() >= 2 and floors[j] < budget]
    table, floors = table[:, informative], floors[informative]
    out["n"] = len(informative)
    clean = (table < budget).all(1)           # the seed scatter of log t, pooled over x with no censored run
    out["sigma"] = float(np.sqrt(np.mean(np.log(table[clean]).var(1, ddof=1)))) if clean.any() and table.shape[1] > 1 else None
    slopes = np.array([slope_fit(used, table[:, j], floors[j]) for j in range(table.shape[1])])
    out["slopes"] = [float(b) for b in slopes]
    ti = t_interval(slopes)
    if ti is None:
        return {**out, "verdict": INCONCLUSIVE, "reason": "fewer than two informative seeds: no interval"}
    est, lo, hi = ti
    decades = math.log10(used[-1] / used[0])
    censored = table >= budget
    bias = censoring_bias(np.log(used), censored)
    rise = np.log(table[-1] / (floors if floor_x is not None else table[0]))   # per seed: does t rise over the room?
    r_ti = t_interval(rise)
    out.update(estimate=est, ci=[lo, hi], decades=decades, rise=[float(r_ti[1]), float(r_ti[2])],
               shown=f"beta {est:.2f} [{lo:.2f}, {hi:.2f}]", against=f"the paper's exponent 1, within +- {margin:g} (ours)",
               text=f"beta {est:.2f} [{lo:.2f}, {hi:.2f}] in {form}, over {label} in {short(used)} ({decades:.1f} "
                    f"decades, room named in advance{dropped}); 1/x within 1 +- {margin:g}; rise over the room "
                    f"{math.exp(r_ti[0]):.2f}x [{math.exp(r_ti[1]):.2f}x, {math.exp(r_ti[2]):.2f}x]")
    reasons = []
    if r_ti[2] < math.log(smallest) and bias not in ("lower", "both"):
        verdict = NOT_REPRODUCED
        reasons.append(f"flat: t at {label} = {used[-1]:.4g} is within {smallest:g}x of "
                       + ("the floor cell's" if floor_x is not None else f"t at {label} = {used[0]:.4g}")
                       + ": no law to follow")
    elif lo >= 1 - margin and hi <= 1 + margin and bias is None:
        verdict = REPRODUCED
    elif (hi < 1 - margin and bias not in ("lower", "both")) or (lo > 1 + margin and bias not in ("upper", "both")):
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    if bias:
        kind = {"lower": "a lower bound", "upper": "an upper bound", "both": "biased both ways"}[bias]
        reasons.append(f"{int(censored.sum())} runs in the room censored at {budget:g} make the slope {kind}")
    out["verdict"] = _cap_few_seeds(verdict, len(informative), reasons)
    out["reason"] = "; ".join(reasons)
    return out


def untestable(reason, design):
    """Rule 7: a part that cannot be decided here, with why and what would decide it."""
    return {"verdict": UNTESTABLE, "n": 0, "reason": reason, "text": f"would decide: {design}"}


PARTLY = "reproduced where testable"


def combine_testable(parts):
    """Rule 7 (v3 and v4, one function: v4 decides what may be untestable before it, in
    audit/claims.py, by premise only, confirmed on runs made after a marking): rule 5's combination over the parts that are testable here; a claim whose
    parts are all untestable is untestable, and one whose testable parts are all reproduced
    while others are untestable is "reproduced where testable", never plain reproduced."""
    testable = {k: p for k, p in parts.items() if p["verdict"] != UNTESTABLE}
    if parts and not testable:
        return UNTESTABLE
    verdict = combine(testable)
    return PARTLY if verdict == REPRODUCED and len(testable) < len(parts) else verdict


# ---------------------------------------------------------------------------------------
# Verdict rules, version 4 (from 2026-11-26): written, with docs/stats.md's v4 section and its
# measured error rates, before any verdict was recomputed under it. Version 3 stays above,
# unchanged, and REPORT.md shows it beside v4. What changed from version 3:
# 2. Effects (speed-ups, non-inferiority, every paired effect): the smallest effect that counts,
#    c, decides both ways, so that a verdict converges as seeds are added and never flips:
#    reproduced       the interval's lower end lies above c (an effect of at least c is shown);
#    not reproduced   its upper end lies below c;
#    inconclusive     otherwise (the interval holds c).
#    The interval: with every run of the comparison measured, the paired t-interval of the
#    mean, as v3. With a run censored at its budget (after the plan's extension to 5x its
#    budget), the Wilcoxon signed-rank interval for the centre of the per-seed values (the
#    Hodges-Lehmann interval: order statistics of the Walsh averages, exact null
#    distribution; Hollander, Wolfe & Chicken, Nonparametric Statistical Methods, section
#    3.2). A bound enters on its safe side only: a lower bound (the baseline never grokked)
#    stands at its value for the lower end and at +inf for the upper end; an upper bound the
#    mirror. So one censored run moves n of the n(n+1)/2 Walsh averages, and its weight falls
#    as seeds are added. Both intervals assume per-seed values symmetric about their centre
#    (then the mean and the Hodges-Lehmann estimate agree). The exact one-sided sign test, over
#    the seeds whose side is known, is printed beside (never part of the verdict).
# 3. Non-inferiority (C4): the same interval of log(t_treatment / t_reference) against the
#    margin, reproduced if the upper end lies below log 1.25, not reproduced if the lower end
#    lies above it.
# 6. Scaling laws: v3's rule, with beta fitted continuously (a grid on [-2, 15] refined by
#    golden-section search) instead of on v3's grid of -1 to 6, at whose edge three of C3f's
#    seeds sat.
# 7. "Untestable here" only where the paper's premise never occurs here (claims.UNTESTABLE_PARTS,
#    each with its evidence), and a premise marked after its data were seen only once runs
#    made after the marking confirm it. A part that is merely costly is inconclusive, with its
#    cost and design. A claim with an inconclusive part is inconclusive; "reproduced where
#    testable" only where every untested part is untestable by premise.
# Levels (4), yes/no properties (5), the exact inequality (5b) and the combination of parts
# (co-primary parts, an intersection-union test) are v3's.

def binomial_cdf(k, n):
    """P(Binomial(n, 1/2) <= k), exactly (integer counts), for the sign test and its interval."""
    return _binomial_cdfs(n)[k] if k >= 0 else 0.0


@functools.lru_cache(maxsize=None)
def _binomial_cdfs(n):
    counts, total, out = 1, 0, []
    for i in range(n + 1):                  # comb(n, i) by the recurrence, summed exactly
        total += counts
        out.append(total / 2 ** n)
        counts = counts * (n - i) // (i + 1)
    return tuple(out)


@functools.lru_cache(maxsize=None)
def signed_rank_cdf(n):
    """P(W+ <= w), w = 0 .. n(n+1)/2, Wilcoxon's signed-rank statistic under the null (each
    rank's sign a fair coin), exactly by the recurrence over ranks."""
    p = np.zeros(n * (n + 1) // 2 + 1)
    p[0] = 1.0
    for rank in range(1, n + 1):
        q = p.copy()
        q[rank:] += p[:-rank]
        p = q / 2
    return np.cumsum(p)


@functools.lru_cache(maxsize=None)
def walsh_index(n, alpha=(1 - LEVEL) / 2):
    """k of the Hodges-Lehmann interval [W_(k), W_(N+1-k)] over the N = n(n+1)/2 Walsh
    averages: the largest k with P(W+ <= k - 1) <= alpha; 0 when none (n <= 5 at 2.5%)."""
    return int(np.searchsorted(signed_rank_cdf(n), alpha + 1e-12, side="right"))


@functools.lru_cache(maxsize=64)
def _pairs(n):
    return np.triu_indices(n)


def wilcoxon_interval(values, bounds):
    """(Hodges-Lehmann estimate, lower, upper) for the centre of a symmetric distribution of
    per-seed values: the order statistics of the Walsh averages (v_i + v_j) / 2, i <= j, that
    invert Wilcoxon's signed-rank test (Hollander, Wolfe & Chicken, Nonparametric Statistical
    Methods, 3rd ed., section 3.2). bounds: +1 a lower bound (the true value is at least this),
    -1 an upper bound, 0 measured. Each end uses each bound on its safe side only: for the lower
    end an upper bound counts as -inf, for the upper end a lower bound as +inf, so every Walsh
    average the end reads is on the safe side of its true value and the end stays valid. An
    end with no order statistic (n <= 5) is -inf / +inf."""
    v, b = np.asarray(values, float), np.asarray(bounds, int)
    n, k = len(v), walsh_index(len(v))
    i, j = _pairs(n)
    N = len(i)
    walsh = lambda x: (x[i] + x[j]) / 2
    est = float(np.median(walsh(v)))
    if not k:
        return est, -math.inf, math.inf
    lo = float(np.partition(walsh(np.where(b < 0, -np.inf, v)), k - 1)[k - 1])
    hi = float(np.partition(walsh(np.where(b > 0, np.inf, v)), N - k)[N - k])
    return est, lo, hi


def sign_test(values, bounds, threshold=0.0):
    """(k, m, p): of the m seeds whose side of `threshold` is known (a measured value off it, a
    lower bound above it, an upper bound below it), k lie above; p the exact one-sided
    P(Bin(m, 1/2) >= k)."""
    above = below = 0
    for v, b in zip(values, bounds):
        if v > threshold and b >= 0:
            above += 1
        elif v < threshold and b <= 0:
            below += 1
    m = above + below
    return above, m, (1 - binomial_cdf(above - 1, m)) if m else None


def paired_interval(values, bounds):
    """Rule 2's interval (v4): (estimate, lower, upper, kind). The t-interval of the mean when
    every value is measured; the Wilcoxon (Hodges-Lehmann) interval, bounds on their safe side,
    when any is a bound. None with fewer than two values."""
    if len(values) < 2:
        return None
    if not any(bounds):
        est, lo, hi = t_interval(values)
        return est, lo, hi, "mean, t-interval"
    est, lo, hi = wilcoxon_interval(values, bounds)
    return est, lo, hi, "Hodges-Lehmann, Wilcoxon interval"


def effect_verdict_v4(effects, smallest, what="effect", fmt=lambda x: f"{x:+.2f}", bounds=None, n_run=None,
                      bound_note=""):
    """Rule 2 (v4) on per-seed effects (positive = the paper's direction) against the smallest
    effect that counts, on the effects' scale. bounds: per effect +1, -1 or 0 (v3's meaning)."""
    n = len(effects)
    n_run = n if n_run is None else n_run
    bounds = [0] * n if bounds is None else list(bounds)
    out = {"n": n, "n_run": n_run, "n_informative": n, "smallest": smallest}
    if not effects:
        return {**out, "verdict": NOT_DECIDED if not n_run else INCONCLUSIVE,
                "reason": "no data" if not n_run else "no informative seed" + (f" ({bound_note})" if bound_note else "")}
    k, m, p = sign_test(effects, bounds)
    out["sign_test"] = {"above": k, "known": m, "p": p}
    seeds_note = "" if n == n_run else f", {n} of {n_run} seeds informative"
    sign = f"sign test {k}/{m}, p = {p:.3g}" if m else "sign test: no seed's side known"
    pi = paired_interval(effects, bounds)
    if pi is None:
        return {**out, "verdict": INCONCLUSIVE, "estimate": float(effects[0]),
                "text": f"{what} {fmt(effects[0])} (one informative seed{'' if n_run <= 1 else ' of ' + str(n_run)})",
                "reason": "; ".join(filter(None, ["fewer than two informative seeds: no interval", bound_note]))}
    est, lo, hi, kind = pi
    out.update(estimate=est, ci=[lo, hi], interval=kind)
    reasons = []
    if lo > smallest:
        verdict = REPRODUCED
    elif hi < smallest:
        verdict = NOT_REPRODUCED
        if lo > 0:
            reasons.append(f"an effect above 0, but below the smallest that counts ({fmt(smallest)})")
    else:
        verdict = INCONCLUSIVE
        if n <= 5 and not (math.isfinite(lo) and math.isfinite(hi)):
            reasons.append(f"{n} seeds with a bound: the Wilcoxon interval needs 6 or more")
        elif not (math.isfinite(lo) and math.isfinite(hi)):
            reasons.append("the bounds leave an end of the interval open")
    verdict = _cap_few_seeds(verdict, n, reasons)
    if bound_note:
        reasons.append(bound_note)
    end = lambda v: fmt(v).replace("infx", "inf")          # an end with no order statistic: 0x / inf, -inf / +inf
    # an estimate that rests on bounds prints as one: >= where some effects are lower bounds and none upper
    mark = ">= " if any(b > 0 for b in bounds) and not any(b < 0 for b in bounds) else \
        "<= " if any(b < 0 for b in bounds) and not any(b > 0 for b in bounds) else ""
    side = hi if mark == "<= " else lo
    if mark and all(bounds) and math.isfinite(side):   # no effect measured: only the end on the bounds' side says anything
        shown = f"{what} {mark}{end(side)}, every effect a bound (one arm's runs all censored)"
        text = f"{shown} ({kind}: the interval [{end(lo)}, {end(hi)}] of bounds)"
    else:
        every = ", every effect a bound" if mark and all(bounds) else ""
        shown = (f"{what} {mark}{fmt(est)} [{end(lo)}, {end(hi)}]{every}" if math.isfinite(lo) or math.isfinite(hi) else
                 f"{what} {mark}{fmt(est)} (no finite interval: {n} seeds with a bound; the Wilcoxon interval needs 6)")
        text = f"{what} {mark}{fmt(est)} [{end(lo)}, {end(hi)}] ({kind}){every}"
    return {**out, "verdict": verdict, "text": f"{text}, smallest that counts {fmt(smallest)}, {sign}{seeds_note}",
            "shown": shown, "against": f"counts from {fmt(smallest)}", "reason": "; ".join(reasons)}


def speedup_verdict_v4(baseline, treatment, budget, what="speed-up", smallest=SMALLEST_SPEEDUP):
    """Rule 2 (v4) for 'treatment groks faster than baseline, by at least `smallest`x'."""
    return _speedup(effect_verdict_v4, baseline, treatment, budget, what, smallest)


def noninferiority_verdict_v4(reference, treatment, budget, margin=NONINFERIORITY, what="time ratio"):
    """Rule 3 (v4): per seed log(t_treatment / t_reference), rule 2's interval; reproduced if its
    upper end is below log(margin), not reproduced if its lower end is above it."""
    effects, bounds, seeds, note = _bounded_log_ratios(treatment, reference, budget, ("treatment", "reference"))
    out = {"n": len(effects), "n_run": len(seeds), "n_informative": len(effects), "margin": margin}
    if not seeds:
        return {**out, "verdict": NOT_DECIDED, "reason": "no seed run in both arms"}
    pi = paired_interval(effects, bounds)
    if pi is None:
        return {**out, "verdict": INCONCLUSIVE,
                "reason": "; ".join(filter(None, ["fewer than two informative seeds: no interval", note]))}
    est, lo, hi, kind = pi
    verdict = REPRODUCED if hi < math.log(margin) else NOT_REPRODUCED if lo > math.log(margin) else INCONCLUSIVE
    reasons = []
    verdict = _cap_few_seeds(verdict, len(effects), reasons)
    if note:
        reasons.append(note)
    x = lambda v: f"{np.exp(v):.2f}x" if math.isfinite(v) else ("0" if v < 0 else "inf")
    return {**out, "verdict": verdict, "estimate": est, "ci": [lo, hi], "interval": kind,
            "text": f"{what} {x(est)} [{x(lo)}, {x(hi)}] ({kind}), non-inferior if the upper end < {margin:g}x",
            "shown": f"{what} {x(est)} [{x(lo)}, {x(hi)}]", "against": f"non-inferior if the upper end < {margin:g}x",
            "reason": "; ".join(reasons)}


BETA_RANGE = (-2.0, 15.0)        # v4's beta search: wide enough that no stored seed sits at an edge


def eq7_slope_v4(x, t, floor):
    """beta of t = floor + C x^beta, least squares on log t over C > 0 and beta, fitted
    continuously: v3's grid widened to BETA_RANGE (step 0.05; C log-spaced), then refined by
    golden-section search on beta, the best C for each beta by golden-section search on log C
    around its grid optimum. With floor 0, the log-log slope exactly (no search)."""
    x, t = np.asarray(x, float), np.asarray(t, float)
    lx, lt = np.log(x) - np.log(x).mean(), np.log(t)
    if floor <= 0:
        return float((lx * lt).sum() / (lx ** 2).sum())
    scale = math.exp(lt.mean())
    log_cs = np.log(scale) + np.linspace(-6, 3, 301) * math.log(10)

    def sse(beta, log_c):                     # log_c: an array; returns one SSE per C
        pred = np.log(floor + np.exp(np.asarray(log_c, float))[..., None] * np.exp(beta * lx))
        return ((lt - pred) ** 2).sum(-1)

    def best_c(beta):                         # min over C: the grid, then golden section around it
        grid = sse(beta, log_cs)
        i = int(np.argmin(grid))
        a, b = log_cs[max(i - 1, 0)], log_cs[min(i + 1, len(log_cs) - 1)]
        return _golden(lambda c: float(sse(beta, c)), a, b, 1e-6)[1]

    betas = np.arange(BETA_RANGE[0], BETA_RANGE[1] + 1e-9, 0.05)
    u = np.exp(betas[:, None] * lx[None, :])                               # (B, k)
    pred = np.log(floor + np.exp(log_cs)[None, :, None] * u[:, None, :])   # (B, C, k)
    i = int(np.argmin(((lt - pred) ** 2).sum(-1).min(1)))
    a, b = betas[max(i - 1, 0)], betas[min(i + 1, len(betas) - 1)]
    return float(_golden(best_c, a, b, 1e-5)[0])


def _golden(f, a, b, tol):
    """(argmin, min) of a unimodal f on [a, b] by golden-section search."""
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    while b - a > tol:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return (c, fc) if fc < fd else (d, fd)


def scaling_verdict_v4(times, budget, room, label="1/lambda", margin=SLOPE_MARGIN_V3, floor_x=None,
                       smallest=SMALLEST_SPEEDUP):
    """Rule 6 (v4): v3's rule with beta fitted continuously (eq7_slope_v4)."""
    return scaling_verdict_v3(times, budget, room, label, margin, floor_x, smallest, slope_fit=eq7_slope_v4)


# Every version by name, so that a claim can be judged under each (REPORT.md shows v4 and v3).
RULES = {
    "v3": SimpleNamespace(version="v3", effect=effect_verdict_v3, speedup=speedup_verdict_v3,
                          level=level_verdict, property=property_verdict, scaling=scaling_verdict_v3,
                          noninferiority=noninferiority_verdict_v3, exact=exact_inequality_verdict,
                          combine=combine_testable),
    "v4": SimpleNamespace(version="v4", effect=effect_verdict_v4, speedup=speedup_verdict_v4,
                          level=level_verdict, property=property_verdict, scaling=scaling_verdict_v4,
                          noninferiority=noninferiority_verdict_v4, exact=exact_inequality_verdict,
                          combine=combine_testable),
}