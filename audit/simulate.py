"""Operating characteristics of the verdict rules (audit/rules.py: v4, which decides, and v3
beside it), measured on synthetic data whose truth is known: how often each rule says "reproduced" when the claimed
effect is absent, how often its interval covers the truth, and its power at the effect sizes
the paper claims. The rules are called as they are, once per simulated data set.

    python -m audit.simulate               # print the table (about 20 s)
    python -m audit.simulate --write       # and write it into docs/stats.md between its markers
    python -m audit.simulate --scaling-v4 --write      # rules v4's scaling rows (under an hour on one core)

tests/test_rules.py recomputes the table and fails if a rule drifts from the numbers in
docs/stats.md, or if an error rate or a coverage leaves its bound.
"""
import argparse
import concurrent.futures
import contextlib
import math
import multiprocessing
import os
import re
import zlib

import numpy as np

from audit import rules as A

BUDGET = 10000
REPS = 2000          # data sets per effect scenario (Monte-Carlo s.e. of a 2.5% rate: 0.35%)
REPS_SCALING = 400   # per scaling scenario (s.e. of a 2.5% rate: 0.8%)


def noise(rng, kind, size, sd):
    """Per-seed noise on log times: normal, Student t with 3 df, or a contaminated normal (one
    seed in ten five times as spread), each scaled to standard deviation sd."""
    if kind == "normal":
        return rng.normal(0, sd, size)
    if kind == "t3":
        return rng.standard_t(3, size) * sd / math.sqrt(3)          # var of t3 is 3
    if kind == "contaminated":
        wide = rng.random(size) < 0.1
        return rng.normal(0, 1, size) * np.where(wide, 5, 1) * sd / math.sqrt(0.9 + 0.1 * 25)
    raise ValueError(kind)


def speedup_scenario(rng, n, ratio, sd, kind, base_median=4000, budget=BUDGET, treat_sd=None):
    """One data set of a paired speed-up: a seed effect shared by both arms (log sd 0.3) and
    each arm's own noise (sd / sqrt 2 each, so the per-seed log ratio has sd sd): baseline
    around base_median, treatment around base_median / ratio; times past the budget censored."""
    shared = rng.normal(0, 0.3, n)
    base = base_median * np.exp(shared + noise(rng, kind, n, sd / math.sqrt(2)))
    treat = base_median / ratio * np.exp(shared + noise(rng, kind, n, sd / math.sqrt(2) if treat_sd is None else treat_sd))
    cut = lambda t: {s: (None if v > budget else float(v)) for s, v in enumerate(t)}
    return cut(base), cut(treat)


def stable_seed(*parts):
    """A generator seed from a scenario's name (Python's hash() changes between processes)."""
    return zlib.crc32(repr(parts).encode())


def rate(flags):
    return float(np.mean(flags))


def noninferiority_rows(reps=REPS):
    rows = []
    for kind in ("normal", "t3"):
        for ratio, truth in ((1.25, "at the margin"), (1.0, "equal"), (0.85, "15% faster")):
            rng = np.random.default_rng(stable_seed('ni', kind, ratio))
            rep, cover = [], []
            for _ in range(reps):
                ref, treat = speedup_scenario(rng, 5, 1 / ratio, 0.3, kind, budget=1e12)
                v = A.noninferiority_verdict_v3(ref, treat, 1e12)
                rep.append(v["verdict"] == A.REPRODUCED)
                cover.append(v["ci"][0] <= math.log(ratio) <= v["ci"][1])
            rows.append(dict(rule="non-inferiority (margin 1.25)", scenario=f"time ratio {ratio}, {kind} noise sd 0.3",
                             n=5, truth="not non-inferior" if ratio >= 1.25 else "non-inferior",
                             reproduced=rate(rep), coverage=rate(cover)))
    return rows


def level_rows(reps=REPS):
    rows = []
    for mean, truth in ((0.99, "at the band's edge"), (0.997, "inside")):
        rng = np.random.default_rng(int(mean * 1000))
        rep, cover = [], []
        for _ in range(reps):
            vals = list(mean + rng.normal(0, 0.004, 5))
            v = A.level_verdict(vals, 0.99, 1.01)
            rep.append(v["verdict"] == A.REPRODUCED)
            cover.append(v["ci"][0] <= mean <= v["ci"][1])
        rows.append(dict(rule="level (band [0.99, 1.01))", scenario=f"mean accuracy {mean}, sd 0.004", n=5,
                         truth="outside" if mean <= 0.99 else "inside", reproduced=rate(rep), coverage=rate(cover)))
    return rows


def property_rows():
    """Exact: P(reproduced) = P(k >= smallest k the rule calls reproduced) under Binomial(n, p)."""
    rows = []
    for n in (5, 6, 10):
        k_min = next((k for k in range(n + 1) if A.property_verdict([True] * k + [False] * (n - k))["verdict"]
                      == A.REPRODUCED), None)
        for p, truth in ((0.5, "holds in half the seeds"), (0.9, "holds in 90%"), (1.0, "holds always")):
            prob = 0.0 if k_min is None else sum(math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(k_min, n + 1))
            rows.append(dict(rule="property (majority of seeds)", scenario=f"p = {p}, exact", n=n,
                             truth="none" if p <= 0.5 else "holds", reproduced=prob))
    return rows


# The two clocks' H3 (exp_two_clocks.composition, docs/registered/two_clocks.md): 13 held-out cells, each
# judged on its median over five seeds, within [0.7, 1.3] x its prediction; holds with 11.
H3_CELLS, H3_NEED, H3_TOLERANCE = 13, 11, (0.7, 1.3)


def composition_rows(reps=REPS):
    """H3's best case: every cell's prediction is its true median (no fit error), and each
    cell's five seeds scatter lognormally around it. "reproduced" is then the most power the
    registered design can have; every miss is the scatter of a five-seed median."""
    rows = []
    for sd, name in ((0.2, "seed scatter 20%"), (0.42, "seed scatter 42% (C3f's, lambda 0.1-1, ten seeds)")):
        rng = np.random.default_rng(stable_seed("composition", sd))
        med = np.median(rng.normal(0, sd, (reps, H3_CELLS, 5)), 2)
        within = ((med >= math.log(H3_TOLERANCE[0])) & (med <= math.log(H3_TOLERANCE[1]))).sum(1)
        holds = rate(within >= H3_NEED)
        rows.append(dict(rule=f"composition (H3: {H3_NEED} of {H3_CELLS} cells within 0.7-1.3x)",
                         scenario=f"every prediction exact, {name}", n=5, truth="holds",
                         reproduced=holds, not_reproduced=1 - holds))
    return rows


def law_times(rng, lams, n, kind, sd, law, budget):
    """{x = 1/lambda: {seed: t or None}} for t = law(x) x per-run noise, censored at the budget."""
    out = {}
    for lam in lams:
        x = 1 / lam
        t = law(x) * np.exp(noise(rng, kind, n, sd))
        out[x] = {s: (None if v > budget else float(v)) for s, v in enumerate(t)}
    return out


# v3's scaling scenarios whose floor crowds the named room (Eq. 7 near its floor): their
# intervals cover at 91-94%, below the 93% target in one case (docs/stats.md says so)
V3_CROWDED = {"Eq. 7 with its floor inside the room (C3b's levels: 2,700 + 17/lambda), seed scatter 20%",
              "Eq. 7 reaching its floor early (2,700 + 3/lambda), seed scatter 20%"}


# ---------------------------------------------------------------------------------------
# Rules v3 (2026-11-25): the smallest effect that counts, informative seeds, bounds, the
# exact-inequality rate, and scaling over a room named in advance (docs/stats.md)
V3_SPEEDUP = "v3 speed-up (smallest 1.25x)"
V3_NI = "v3 non-inferiority (margin 1.25)"
V3_EXACT = "v3 exact inequality (rate < 1%)"
V3_SCALING = "v3 scaling (named room, Eq. 7's floor, margin 0.5)"
AT_SMALLEST = "at the smallest effect"        # the truth where "not reproduced" must stay <= 2.5%


def v3_effect_rows(reps=REPS):
    rows = []
    for kind in ("normal", "t3", "contaminated"):
        for sd in (0.3, 0.6):
            for ratio, what, truth in ((1.0, "no effect", "none"), (1.25, "1.25x faster", AT_SMALLEST),
                                       (2.0, "2x faster", "2x")):
                rng = np.random.default_rng(stable_seed('v3 speed-up', kind, sd, ratio))
                rep, wrong, cover = [], [], []
                for _ in range(reps):
                    v = A.speedup_verdict_v3(*speedup_scenario(rng, 5, ratio, sd, kind, budget=1e12), 1e12)
                    rep.append(v["verdict"] == A.REPRODUCED)
                    wrong.append(v["verdict"] == A.NOT_REPRODUCED)
                    cover.append(v["ci"][0] <= math.log(ratio) <= v["ci"][1])
                rows.append(dict(rule=V3_SPEEDUP, scenario=f"{what}, {kind} noise sd {sd}", n=5, truth=truth,
                                 reproduced=rate(rep), not_reproduced=rate(wrong), coverage=rate(cover)))
    # censoring: a quarter of the runs (baseline median 8,000 of 10,000), and three of five
    # seeds censored in both arms (both medians past the budget): those seeds do not count
    for ratio, base, what, truth in ((1.0, 8000, "no effect, baseline median 8,000 of a 10,000 budget (~25% censored)",
                                      "none"),
                                     (1.25, 8000, "1.25x faster, ~25% censored", AT_SMALLEST),
                                     (1.0, 13000, "no effect, both medians past the budget (~3 of 5 seeds "
                                                  "censored in both arms)", "none")):
        rng = np.random.default_rng(stable_seed('v3 censored', ratio, base))
        got = [A.speedup_verdict_v3(*speedup_scenario(rng, 5, ratio, 0.3, "normal", base_median=base), BUDGET)["verdict"]
               for _ in range(reps)]
        rows.append(dict(rule=V3_SPEEDUP, scenario=what, n=5, truth=truth,
                         reproduced=rate([g == A.REPRODUCED for g in got]),
                         not_reproduced=rate([g == A.NOT_REPRODUCED for g in got])))
    # non-inferiority at C4's seed scatter (sd 0.67 of the per-seed log ratio), 10 and 20 seeds
    for n in (10, 20):
        for ratio, what, truth in ((1.25, "time ratio 1.25 (the margin)", "not non-inferior"),
                                   (1.0, "identical arms", "non-inferior")):
            rng = np.random.default_rng(stable_seed('v3 ni', n, ratio))
            rep, cover = [], []
            for _ in range(reps):
                ref, treat = speedup_scenario(rng, n, 1 / ratio, 0.67, "normal", budget=1e12)
                v = A.noninferiority_verdict_v3(ref, treat, 1e12)
                rep.append(v["verdict"] == A.REPRODUCED)
                cover.append(v["ci"][0] <= math.log(ratio) <= v["ci"][1])
            rows.append(dict(rule=V3_NI, scenario=f"{what}, C4's scatter (sd 0.67)", n=n, truth=truth,
                             reproduced=rate(rep), coverage=rate(cover)))
    return rows


def v3_exact_rows():
    """Exact: 'reproduced' needs 0 violations in N points and N large enough that the 97.5%
    upper bound falls below 1%; P(0 of N) = (1 - rate)^N."""
    rows = []
    for n_points in (100, 500, 2000):
        ok = A.exact_inequality_verdict({s: n_points // 5 for s in range(5)}, {s: 0 for s in range(5)})
        for r, truth in ((0.01, "outside"), (0.0, "holds")):
            rows.append(dict(rule=V3_EXACT, scenario=f"violation rate {r:g} per point, {n_points} points, exact",
                             n=5, truth=truth,
                             reproduced=(1 - r) ** n_points if ok["verdict"] == A.REPRODUCED else 0.0))
    return rows


C11_ROOM = [0.5, 1, 2]                       # x = 1/wd at wd 2, 1, 0.5: 0.6 decades, 2x apart
C3_ROOM = [1 / l for l in (0.003, 0.01, 0.03, 0.1, 0.3)]     # C3's named room (x = 1/lambda)


def v3_scaling_rows(reps=REPS_SCALING):
    S = [  # (scenario, truth slope, room, law, sd, budget, n)
        ("C11's shape: clean 1/x over 0.6 decades, 2x apart, seed scatter 40%", 1.0, C11_ROOM,
         lambda x: 3500 * x, 0.4, 1e9, 10),
        ("C11's shape, 5 seeds", 1.0, C11_ROOM, lambda x: 3500 * x, 0.4, 1e9, 5),
        ("flat curve (no law), seed scatter 30%", 0.0, C11_ROOM, lambda x: 3000.0, 0.3, 1e9, 5),
        ("flat curve over Figure 3's weak-prior room, seed scatter 30%", 0.0, [1 / l for l in (0.003, 0.01, 0.03, 0.1, 0.3)],
         lambda x: 3000.0, 0.3, 10000, 5),
        ("a capped law, the cap the budget: 2500x on x 1-8, budget 10,000", 1.0, [1, 2, 4, 8],
         lambda x: 2500 * x, 0.3, 10000, 5),
        ("slope 0.5 (the margin), 0.6 decades, seed scatter 40%", 0.5, C11_ROOM, lambda x: 3500 * x ** 0.5, 0.4, 1e9, 10),
        ("slope 1.5 (the margin), 0.6 decades, seed scatter 40%", 1.5, C11_ROOM, lambda x: 3500 * x ** 1.5, 0.4, 1e9, 10),
        ("slope 1.5 (the margin), 1.5 decades, seed scatter 30%", 1.5, [1 / l for l in (0.003, 0.01, 0.03, 0.1)],
         lambda x: 20 * x ** 1.5, 0.3, 1e12, 5),
        ("slope 4 (a divergence), 0.4 decades, seed scatter 50%, censored at 20,000", 4.0, [20, 100 / 3, 50],
         lambda x: 350 * (x / 20) ** 4, 0.5, 20000, 10),
        # Eq. 7, t = floor + C / lambda, judged with its floor read at the floor cell (C3: lambda = 3)
        ("Eq. 7 with its floor inside the room (C3b's levels: 2,700 + 17/lambda), seed scatter 20%", 1.0, C3_ROOM,
         lambda x: 2700 + 17 * x, 0.2, 10000, 5, 1 / 3),
        ("Eq. 7 with its floor inside the room, seed scatter 30%, 10 seeds", 1.0, C3_ROOM,
         lambda x: 2700 + 17 * x, 0.3, 10000, 10, 1 / 3),
        ("Eq. 7 reaching its floor early (2,700 + 3/lambda), seed scatter 20%", 1.0, C3_ROOM,
         lambda x: 2700 + 3 * x, 0.2, 10000, 5, 1 / 3),
        ("a flat curve with a floor cell (C3 fresh: 3,300 everywhere), seed scatter 30%", 0.0, C3_ROOM,
         lambda x: 3300.0, 0.3, 10000, 5, 1 / 3),
        ("floor + C/lambda^4 (C3f's levels: 2,900 + 8e-3/lambda^4), seed scatter 30%, 10 seeds", 4.0,
         [1 / l for l in (0.03, 0.05, 0.1, 0.2)], lambda x: 2900 + 8e-3 * x ** 4, 0.3, 20000, 10, 1.0),
    ]
    rows = []
    for k, (name, slope, room, lawf, sd, budget, n, *floor) in enumerate(S):
        floor_x = floor[0] if floor else None
        rng = np.random.default_rng(stable_seed("v3 scaling", k))
        got = {A.REPRODUCED: 0, A.NOT_REPRODUCED: 0, A.INCONCLUSIVE: 0, A.NOT_DECIDED: 0}
        cover = []
        grid = [1 / x for x in room] + ([1 / floor_x] if floor_x else [])
        for _ in range(reps):
            v = A.scaling_verdict_v3(law_times(rng, grid, n, "normal", sd, lawf, budget), budget, room, floor_x=floor_x)
            got[v["verdict"]] += 1
            if "ci" in v and not v.get("reason") and not v.get("at_cap"):
                cover.append(v["ci"][0] <= slope <= v["ci"][1])
        inside = abs(slope - 1) < A.SLOPE_MARGIN_V3
        rows.append(dict(rule=V3_SCALING, scenario=name, n=n,
                         truth=f"slope {slope:g}" + (" (inside the margin)" if inside else " (outside)"),
                         reproduced=got[A.REPRODUCED] / reps, not_reproduced=got[A.NOT_REPRODUCED] / reps,
                         not_decided=got[A.NOT_DECIDED] / reps,
                         coverage=rate(cover) if len(cover) >= reps // 4 else None))
    return rows


# ---------------------------------------------------------------------------------------
# Rules v4 (2026-11-26): the smallest effect decides both ways, and a censored run enters the
# median's order-statistic interval on its safe side (docs/stats.md). Measured as seeds are
# added, under the censoring of the budgets the studies really use.
V4_SPEEDUP = "v4 speed-up (smallest 1.25x)"
V3_SPEEDUP_N = "v3 speed-up, as seeds are added"
V4_NI = "v4 non-inferiority (margin 1.25)"
V4_NS = (5, 10, 30, 100, 300)
REPS_V4 = 400        # data sets per (scenario, n): s.e. of a 2.5% rate 0.8 points, of 50% 2.5 points
# (name, per-seed log-ratio scatter, the baseline's median, the treatment's own spread or None,
# the budget): the censoring of the 10,000-epoch budget at the stored studies' levels, and the
# same after the plan's extension of every censored run to 5x its budget
V4_CENSORING = (("C10's scatter (0.76), baseline median 4,000 of 10,000", 0.76, 4000, None, BUDGET),
                ("seed scatter 0.3, baseline median 8,000 of 10,000 (~25% censored)", 0.3, 8000, None, BUDGET),
                ("the same, every run extended to 50,000 (5x)", 0.3, 8000, None, 5 * BUDGET),
                ("seed scatter 0.5, baseline median 6,000 of 10,000, the treatment spreading twice as much",
                 0.5, 6000, 0.7, BUDGET))
V4_TRUTHS = ((1.0, "none"), (1.15, "below the smallest"), (1.25, AT_SMALLEST), (1.5, "1.5x"), (2.0, "2x"))


@contextlib.contextmanager
def printed_p_skipped():
    """v3 prints a sign-flip p beside each verdict (2^20 random assignments past 20 seeds, about
    a second at 300); the verdict never reads it, so the simulation skips it."""
    kept = A.sign_flip_p
    A.sign_flip_p = lambda values: float("nan")
    try:
        yield
    finally:
        A.sign_flip_p = kept


def v4_rows(reps=REPS_V4, ns=V4_NS):
    """Rule 2 (v4) against n at fixed truths and real censoring; v3 beside it at 1.5x, where
    one treatment run past the budget vetoes "reproduced"."""
    rows = []
    for name, sd, base, treat_sd, budget in V4_CENSORING:
        for ratio, truth in V4_TRUTHS:
            for n in ns:
                if n > 100 and ratio in (1.0, 2.0):       # decided by 100 seeds: 300 adds nothing but time
                    continue
                rng = np.random.default_rng(stable_seed("v4", name, ratio, n))
                got = [A.speedup_verdict_v4(*speedup_scenario(rng, n, ratio, sd, "normal", base_median=base,
                                                              budget=budget, treat_sd=treat_sd), budget)["verdict"]
                       for _ in range(reps)]
                rows.append(dict(rule=V4_SPEEDUP, scenario=f"{ratio:g}x, {name}", n=n, truth=truth,
                                 reproduced=rate([g == A.REPRODUCED for g in got]),
                                 not_reproduced=rate([g == A.NOT_REPRODUCED for g in got])))
        for n in ns:
            rng = np.random.default_rng(stable_seed("v3 by n", name, n))
            with printed_p_skipped():
                got = [A.speedup_verdict_v3(*speedup_scenario(rng, n, 1.5, sd, "normal", base_median=base,
                                                              budget=budget, treat_sd=treat_sd), budget)["verdict"]
                       for _ in range(reps)]
            rows.append(dict(rule=V3_SPEEDUP_N, scenario=f"1.5x, {name}", n=n, truth="1.5x",
                             reproduced=rate([g == A.REPRODUCED for g in got]),
                             not_reproduced=rate([g == A.NOT_REPRODUCED for g in got])))
    # non-inferiority at C4's scatter (0.67): at the margin, identical arms, and 15% faster
    for ratio, truth in ((1.25, "not non-inferior"), (1.0, "non-inferior"), (0.85, "non-inferior")):
        for n in (10, 30, 80, 300):
            rng = np.random.default_rng(stable_seed("v4 ni", ratio, n))
            got = [A.noninferiority_verdict_v4(*speedup_scenario(rng, n, 1 / ratio, 0.67, "normal", base_median=3000),
                                               BUDGET)["verdict"] for _ in range(reps)]
            rows.append(dict(rule=V4_NI, scenario=f"time ratio {ratio:g}, C4's scatter (sd 0.67), "
                             "reference median 3,000 of 10,000", n=n, truth=truth,
                             reproduced=rate([g == A.REPRODUCED for g in got]),
                             not_reproduced=rate([g == A.NOT_REPRODUCED for g in got])))
    return rows


# ---------------------------------------------------------------------------------------
# Rules v4's scaling rows (docs/stats.md; issue #72, 2026-11-28): rule 6 as v4 calls it
# (eq7_slope_v4) on each scaling part's own room, floor cell and budget, under four truths: Eq. 7
# (a floor plus C / lambda), two threshold laws (a floor plus C (lambda - lambda_c)^-e, e = 0.5
# and 1, never grokking at or below lambda_c) and no law (the floor everywhere). Each truth's
# level is matched to one stored median of its part (named per part). Slow (a fit is ~60 ms):
# `python -m audit.simulate --scaling-v4 --write` (under an hour on one core); tests/test_rules.py
# recomputes the no-floor part in full and a sample of the rest.
V4_SCALING = "v4 scaling (continuous beta, named room, Eq. 7's floor, margin 0.5)"
REPS_SCALING_V4 = 200     # data sets per (scenario, n): s.e. of a 2.5% rate 1.1 points, of 50% 3.5


def threshold_law(floor, scale, lam_c, exponent):
    """t(x) = floor + scale (lambda - lambda_c)^-exponent at lambda = 1/x; inf (never groks) at or
    below lambda_c."""
    return lambda x: floor + scale * (1 / x - lam_c) ** -exponent if 1 / x > lam_c else math.inf


def law_truths(floor, lam_c, x_match, t_match, var="lambda"):
    """Eq. 7 (or, with no floor, C / var), the two threshold laws and no law, each through t_match
    at x_match (= 1/var), over the same floor: [(truth label, slope for coverage or None, law)]."""
    lam = 1 / x_match
    floor_ = "floor + " if floor else ""
    return [((f"Eq. 7: floor + C/{var}" if floor else f"C/{var}") + " (slope 1, inside the margin)", 1.0,
             lambda x, c=(t_match - floor) * lam: floor + c * x),
            (f"threshold law: {floor_}C ({var} - {lam_c:g})^-0.5 (not 1/{var})", None,
             threshold_law(floor, (t_match - floor) * (lam - lam_c) ** 0.5, lam_c, 0.5)),
            (f"threshold law: {floor_}C ({var} - {lam_c:g})^-1 (not 1/{var})", None,
             threshold_law(floor, (t_match - floor) * (lam - lam_c), lam_c, 1.0)),
            ("no law: " + ("the floor everywhere" if floor else "flat at the matched level") + " (outside)", None,
             lambda x, t=float(floor or t_match): t)]


# (part, room (x), floor cell x or None, budget, seed scatter, floor, lambda_c, matched x, matched t,
# ns, the variable)
V4_SCALING_PARTS = (
    ("C3 and C3b's room: lambda 0.003-0.3, floor cell lambda 3, budget 10,000, seed scatter 30%; "
     "matched to 8,000 at lambda 0.003", tuple(1 / l for l in (0.003, 0.01, 0.03, 0.1, 0.3)), 1 / 3,
     10000, 0.3, 2900, 0.002, 1 / 0.003, 8000, (5, 20), "lambda"),
    ("C3f's room: lambda 0.01-0.2, floor cell lambda 1, budget 20,000, seed scatter 30%; matched to "
     "the stored median at lambda 0.03 (13,000)", tuple(1 / l for l in (0.01, 0.02, 0.03, 0.05, 0.1, 0.2)), 1.0,
     20000, 0.3, 2900, 0.02, 1 / 0.03, 13000, (10, 20), "lambda"),
    ("C11's room: 1/wd 0.5-2, no floor, budget 40,000, seed scatter 40%; matched to 3,500 at wd 1",
     (0.5, 1.0, 2.0), None, 40000, 0.4, 0, 0.25, 1.0, 3500, (5, 12, 30), "wd"),
)


def v4_scaling_rows(reps=REPS_SCALING_V4, parts=V4_SCALING_PARTS, first=None, truths=None):
    """Rule 6 (v4) on each scaling part's room. first: only the first `first` data sets of each
    scenario (the test's sample; the same data sets the full table drew first); truths: only the
    truths whose label contains one of these."""
    rows = []
    for part, room, floor_x, budget, sd, floor, lam_c, x_match, t_match, ns, var in parts:
        for truth, slope, lawf in law_truths(floor, lam_c, x_match, t_match, var):
            if truths is not None and not any(t in truth for t in truths):
                continue
            for n in ns:
                rng = np.random.default_rng(stable_seed("v4 scaling", part, truth, n))
                grid = [1 / x for x in room] + ([1 / floor_x] if floor_x else [])
                got, cover = [], []
                for _ in range(reps if first is None else first):
                    v = A.scaling_verdict_v4(law_times(rng, grid, n, "normal", sd, lawf, budget), budget,
                                             list(room), f"1/{var}", floor_x=floor_x)
                    got.append(v["verdict"])
                    if slope is not None and "ci" in v and not v.get("reason") and not v.get("at_cap"):
                        cover.append(v["ci"][0] <= slope <= v["ci"][1])
                k = len(got)
                rows.append(dict(rule=V4_SCALING, scenario=f"{part}. Truth: {truth}", n=n,
                                 truth=("slope 1 (inside the margin)" if slope == 1 else
                                        "outside" if truth.startswith("no law") else f"not 1/{var}"),
                                 reproduced=got.count(A.REPRODUCED) / k,
                                 not_reproduced=got.count(A.NOT_REPRODUCED) / k,
                                 not_decided=got.count(A.NOT_DECIDED) / k,
                                 coverage=rate(cover) if slope is not None and len(cover) >= k // 4 else None))
    return rows


def table(reps=REPS, reps_scaling=REPS_SCALING, jobs=1):
    """Every row of docs/stats.md's first table, in its order. jobs=2: the v3 scaling rows (about
    half the time) are computed in a second process meanwhile; each row draws from its own
    generator (stable_seed), so the rows are the same either way."""
    if jobs > 1:
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            scaling = pool.submit(v3_scaling_rows, reps_scaling)
            first = v4_rows() + v3_effect_rows(reps) + v3_exact_rows()
            scaling = scaling.result()
    else:
        first, scaling = v4_rows() + v3_effect_rows(reps) + v3_exact_rows(), v3_scaling_rows(reps_scaling)
    return (first + scaling + noninferiority_rows(reps) + level_rows(reps) + property_rows()
            + composition_rows(reps))


def markdown(rows):
    pct = lambda v: "" if v is None else f"{100 * v:.1f}%"
    out = ["| rule | scenario | n | truth | reproduced | not reproduced | not decided | coverage |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['rule']} | {r['scenario']} | {r['n']} | {r['truth']} | {pct(r['reproduced'])} | "
                   f"{pct(r.get('not_reproduced'))} | {pct(r.get('not_decided'))} | {pct(r.get('coverage'))} |")
    return "\n".join(out)


START, END = "<!-- operating characteristics: generated by python -m audit.simulate -->", "<!-- end of table -->"
START_V4_SCALING = "<!-- v4 scaling rows: generated by python -m audit.simulate --scaling-v4 -->"


def write(path, rows, start=START):
    text = A.replace_block(open(path).read(), start, END, markdown(rows))
    with open(path, "w") as f:
        f.write(text)


def read(path, start=START):
    """A table in docs/stats.md as {(rule, scenario, n): {column: fraction or None}}."""
    text = open(path).read().split(start, 1)[1].split(END, 1)[0]
    out = {}
    cols = ("reproduced", "not_reproduced", "not_decided", "coverage")
    for line in text.strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        vals = [float(c[:-1]) / 100 if re.fullmatch(r"[\d.]+%", c) else None for c in cells[4:8]]
        out[(cells[0], cells[1], int(cells[2]))] = dict(zip(cols, vals))
    return out


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--write", action="store_true", help="write the table into docs/stats.md")
    p.add_argument("--scaling-v4", action="store_true",
                   help="rules v4's scaling rows instead (under an hour on one core), their own table in docs/stats.md")
    args = p.parse_args()
    rows, start = (v4_scaling_rows(), START_V4_SCALING) if args.scaling_v4 else (table(), START)
    print(markdown(rows))
    if args.write:
        write(os.path.join("docs", "stats.md"), rows, start)
        print("wrote the table into docs/stats.md")