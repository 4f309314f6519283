"""Beyond the paper: the title's "need", tested where it can fail. In `fresh` at the paper's train fraction
0.3, plain training groks every time, and a prior that only shortens the plateau is a speed-up, not a need.
Below some train fraction plain training stops grokking within any practical budget (Power et al. 2022;
Varma et al. 2023's critical data size). Does the oracle prior make runs grok below that wall, and does
the KL toward uniform attention (no information) cross it too? Registered in docs/registered/data_wall.md
before any of its runs, the pilot's rule before the pilot.

    python -m audit.data_wall --power                   # the registration's power table, recomputed
    python -m audit.data_wall --pilot --jobs 2          # the pilot: lambda 0 down the grid, seeds 500-501
    python -m audit.data_wall --jobs 2 --threads 1      # the study, at the fractions the pilot chose, then
                                                        # amendment 3's runs (0.15 on new seeds)
    python -m audit.data_wall --plot-only               # judge and draw from the store
    python -m audit.data_wall --quick                   # the small model at train fractions 0.6 and 0.3, about 90 s

The deciding measure is a count: per arm and train fraction, how many of the runs reach test accuracy 0.95
within the budget (a run that never does stays in, as not reaching it). Times are reported beside it.
"""
import argparse
import math
import os
import statistics

import plots
import store
import sweep
from analysis import held_from
from grok_times import censored_median
from summary import first_epoch
from audit import dates as D
from audit import rules as A
from audit.information import fisher_one_sided

LAM = 0.3                                   # the information study's and parts five and six's strength
ARMS = {"lambda 0": {}, "oracle": {"lam": LAM, "prior": "oracle"}, "uniform": {"lam": LAM, "prior": "uniform"}}
DECIDING_ACC = 0.95                         # t_95 decides, as in parts four to six
HALF = D.number("data wall half")           # ours: a wall where at least half the runs reach 0.95, 'beats' above half
ALPHA = D.number("data wall alpha")         # ours: Fisher's exact test, one-sided (parts four and five's count rule)
BUDGET_FACTOR = D.number("data wall budget")   # ours: the budget, 3x the pilot's slowest t_95 where lambda 0 groks
PILOT_SEEDS = (500, 501)                    # disjoint from the study's; no stored run used a seed from 440 on
SEEDS = tuple(range(510, 520))              # the study's ten
KNOWN = 0.3                                 # the paper's fraction: lambda 0 reached 0.95 in every stored fresh run
PILOT_GRID = (0.25, 0.2, 0.15, 0.1, 0.05)   # the pilot goes down it until neither pilot seed reaches 0.95
MIN_BUDGET, MAX_BUDGET, BUDGET_STEP = 30000, 60000, 10000
LONG_BUDGET, FEWER_SEEDS = 40000, 8         # a budget above 40,000: eight seeds, so the cost stays near ten core-hours
QUICK = dict(p=sweep.QUICK_MODEL["p"], seeds=[0], epochs=1500)
QUICK_FRACS = (0.6, 0.3)                    # --quick: the small model at two fractions, a first look only


# ---------------------------------------------------------------------------------------
# The pilot's rule (registered before the pilot)

def pilot_choice(reached, t95):
    """The study's fractions and budget from the pilot. reached: {grid fraction: how many of the pilot's
    lambda 0 runs reached 0.95 within MIN_BUDGET}, for the grid's fractions in order down to the first at
    which none did (g_fail); t95: {fraction: [t_95 of those that did]}. The fraction above g_fail
    (KNOWN above the grid's first) is f_p, where lambda 0 still groks; the study runs at f_p, halfway
    to g_fail, g_fail and half of g_fail. The budget is 3x the pilot's slowest t_95 at f_p, rounded up
    to BUDGET_STEP, within [MIN_BUDGET, MAX_BUDGET]; above LONG_BUDGET the study keeps its first FEWER_SEEDS
    seeds. Returns {"fractions", "budget", "f_p", "g_fail", "seeds"}."""
    grid = [g for g in PILOT_GRID if g in reached]
    fails = [g for g in grid if reached[g] == 0]
    g_fail = fails[0] if fails else None
    if g_fail is None:               # lambda 0 groks down the whole grid: the wall is below it
        g_fail = PILOT_GRID[-1] / 2
        f_p = PILOT_GRID[-1]
    else:
        i = PILOT_GRID.index(g_fail)
        f_p = KNOWN if i == 0 else PILOT_GRID[i - 1]
    slowest = max(t95.get(f_p, []), default=0)
    budget = min(MAX_BUDGET, max(MIN_BUDGET, BUDGET_STEP * math.ceil(BUDGET_FACTOR * slowest / BUDGET_STEP)))
    fractions = tuple(round(f, 4) for f in (f_p, (f_p + g_fail) / 2, g_fail, g_fail / 2))
    seeds = SEEDS if budget <= LONG_BUDGET else SEEDS[:FEWER_SEEDS]      # a longer budget: fewer seeds, the cost held
    return {"fractions": fractions, "budget": budget, "f_p": f_p, "g_fail": g_fail, "seeds": list(seeds)}


# ---------------------------------------------------------------------------------------
# The runs

def config(args, seed, frac, arm, epochs):
    return sweep.study_config(args, seed, regime="fresh", frac=frac, epochs=epochs, **ARMS[arm])


def label(arm, frac, seed):
    return f"{arm} frac{frac:g} seed{seed}"


TRAINING_ORDER = (2, 1, 0, 3)   # amendment 1: g_fail, halfway, f_p, g_fail / 2 (the fractions' positions)


def study_runs(args, fractions, budget):
    """One fraction at a time (amendment 1: g_fail first, where a need can show), seed by seed within it: an
    interruption leaves whole cells, and the rest not begun."""
    order = [fractions[i] for i in TRAINING_ORDER] if len(fractions) == len(TRAINING_ORDER) else list(fractions)
    return [(label(arm, f, s), config(args, s, f, arm, budget)) for f in order for s in args.seeds for arm in ARMS]


def pilot_runs(args, frac):
    return [(label("lambda 0", frac, s), config(args, s, frac, "lambda 0", MIN_BUDGET)) for s in PILOT_SEEDS]


def measures(summary, history):
    """One run's t_95 (the deciding time: first epoch at test accuracy 0.95), held t_95 and t_grok (0.99),
    None where not within its budget; and the arm check's informative mass at epoch MASS_EPOCH and at its end."""
    at = next((i for i, e in enumerate(history["epoch"]) if e >= MASS_EPOCH), None)
    mass = history.get("info_mass")
    return {"t_95": first_epoch(history, "test_acc", DECIDING_ACC),
            "t_95_held": held_from(history, "test_acc", DECIDING_ACC), "t_grok": summary["grok_epoch"],
            "mass_early": None if mass is None or at is None else mass[at], "mass_end": None if mass is None else mass[-1]}


# The arm check (ours, added 2026-12-06 after 9 of the study's runs were seen; it decides nothing): did each KL
# move attention as its name says? The oracle's target puts 0.5 on each operand, the uniform's 0.2 (five positions).
MASS_EPOCH = 1000


# ---------------------------------------------------------------------------------------
# The rules (registered)

def grokked(times):
    """How many of the runs reached 0.95 within the budget (None: did not), and how many runs."""
    return sum(t is not None for t in times), len(times)


def wall(counts, fractions):
    """An arm's wall: the smallest fraction at which at least half its runs reach 0.95. counts:
    {fraction: (k, n)}. None when no fraction does; the reading says 'above' the largest then."""
    held = [f for f in fractions if f in counts and counts[f][1] and counts[f][0] >= HALF * counts[f][1]]
    return min(held) if held else None


def beats(a, b):
    """Arm a reaches 0.95 in more than half its runs, and more often than b by Fisher's exact test, one-sided."""
    (ka, na), (kb, nb) = a, b
    return ka > HALF * na and fisher_one_sided(ka, na, kb, nb) < ALPHA


READINGS = ("lambda 0 groks here", "the prior crosses; the information is needed",
            "the prior crosses, and so does the KL without the information",
            "the prior crosses; whether the information is needed not told", "the prior does not cross", "not told")


def reading(c):
    """The reading at one fraction from its counts {arm: (k, n)}: registered in docs/registered/data_wall.md."""
    lam0, oracle, uniform = c["lambda 0"], c["oracle"], c["uniform"]
    if lam0[0] >= HALF * lam0[1]:
        return READINGS[0]
    if beats(oracle, lam0):
        if uniform[0] < HALF * uniform[1] and beats(oracle, uniform):
            return READINGS[1]
        if beats(uniform, lam0):
            return READINGS[2]
        return READINGS[3]
    if oracle[0] < HALF * oracle[1]:
        return READINGS[4]
    return READINGS[5]


def overall(readings):
    """The title's need in `fresh`: shown where the prior crosses at some fraction; untestable when
    lambda 0 groks at every fraction of the study (there is no wall to cross in its range)."""
    if not readings:
        return "not decided"
    if all(r == READINGS[0] for r in readings.values()):
        return "untestable here (lambda 0 groks at every fraction)"
    crossed = [f for f, r in readings.items() if r in READINGS[1:4]]
    if not crossed:
        return "not shown"
    info = [f for f in crossed if readings[f] == READINGS[1]]
    without = [f for f in crossed if readings[f] == READINGS[2]]
    what = "; the information is needed" if info and not without else \
        "; not the information (the KL without it crosses too)" if without and not info else \
        "; whether the information is needed not told" if not info else "; the information read both ways"
    return f"shown at train fraction {', '.join(f'{f:g}' for f in sorted(crossed))}" + what


# ---------------------------------------------------------------------------------------
# Amendment 2 (after fraction 0.15 was read): a second reading beside the registered one, judged only on
# the fractions none of whose runs were stored when it was committed

SECOND_READINGS = ("no wall here", "the KL without the information crosses", "it does not cross", "not told")
CONFIRM_FRACTIONS = (0.175, 0.2, 0.075)     # every run of theirs stored after amendment 2 (tests/test_data_wall.py)


CROSSINGS = ("no wall", "crosses", "does not cross", "not told")


def crossing(c, arm):
    """Does `arm` carry runs over a wall lambda 0 fails at, from the counts {arm: (k, n)}? "no wall": lambda 0 reaches
    0.95 in at least half its runs; "crosses": `arm` beats lambda 0; "does not cross": `arm` reaches it in fewer than
    half; else "not told"."""
    lam0, other = c["lambda 0"], c[arm]
    if lam0[0] >= HALF * lam0[1]:
        return CROSSINGS[0]
    if beats(other, lam0):
        return CROSSINGS[1]
    return CROSSINGS[2] if other[0] < HALF * other[1] else CROSSINGS[3]


def second_reading(c):
    """Does the KL toward uniform attention (no information) carry runs over a wall lambda 0 fails at?"""
    return dict(zip(CROSSINGS, SECOND_READINGS))[crossing(c, "uniform")]


def second_overall(second):
    """The second reading over the fractions it is judged on ({fraction: second reading}, every run in)."""
    if any(f not in second for f in CONFIRM_FRACTIONS):
        return "not decided"
    new = [second[f] for f in CONFIRM_FRACTIONS]
    if SECOND_READINGS[1] in new:
        return "confirmed"
    if all(r == SECOND_READINGS[0] for r in new):
        return "untestable on the new fractions (lambda 0 groks at all three)"
    return "not confirmed"


# ---------------------------------------------------------------------------------------
# Amendment 3 (2026-12-06, before any of its runs): amendment 2's one crossing, at 0.15, prompted amendment 2
# and confirms nothing; the same reading on new seeds at 0.15 does. The oracle is not re-run there: at its
# counts (5 of 8 against lambda 0's 2 of 8) eight new seeds would tell it from lambda 0 in about one study in five.

CONFIRM_AT = 0.15
CONFIRM_SEEDS = tuple(range(520, 528))      # no stored run has used them (tests/test_data_wall.py)
CONFIRM_ARMS = ("lambda 0", "uniform")
CONFIRM_READS = {SECOND_READINGS[0]: "untestable on these seeds (lambda 0 reached 0.95 in at least half its runs)",
                 SECOND_READINGS[1]: "confirmed", SECOND_READINGS[2]: "not confirmed", SECOND_READINGS[3]: "not told"}


def confirm_runs(args, budget):
    """Amendment 3's runs, seed by seed, lambda 0 then the uniform KL: an interruption leaves whole seeds."""
    return [(label(arm, CONFIRM_AT, s), config(args, s, CONFIRM_AT, arm, budget)) for s in CONFIRM_SEEDS
            for arm in CONFIRM_ARMS]


def new_seeds_cell(results, frac, seeds, arms):
    """(the arms' cell at one fraction on new seeds, their counts {arm: (k, n)} once every run is stored, else None)."""
    cell = {arm: arm_cell(results, arm, frac, seeds) for arm in arms}
    complete = all(c["n"] == len(seeds) for c in cell.values())
    return cell, {arm: (c["k"], c["n"]) for arm, c in cell.items()} if complete else None


def confirmation(results, budget):
    """Amendment 3's cell on its new seeds and its reading: amendment 2's second reading mapped to confirmed /
    not confirmed / untestable / not told, once all its runs are stored ("not decided" before)."""
    cell, counts = new_seeds_cell(results, CONFIRM_AT, CONFIRM_SEEDS, CONFIRM_ARMS)
    return {"fraction": CONFIRM_AT, "seeds": list(CONFIRM_SEEDS), "cell": cell,
            "second": second_reading(counts) if counts else None,
            "reading": CONFIRM_READS[second_reading(counts)] if counts else "not decided"}


def confirmation_text(c, budget, bold=False):
    """Amendment 3's line: counts, median t_95 and the uniform KL over lambda 0 beside its reading."""
    cell = c["cell"]
    stored = sum(x["n"] for x in cell.values())
    head = (f"amendment 3 (registered before its runs): amendment 2's crossing at {c['fraction']:g}, on new seeds "
            f"{plots.seeds_text(c['seeds'])}: ")
    if not stored:
        return head + ("no run stored yet: **not decided**" if bold else "no run stored yet: not decided")
    counts = ", ".join(f"{arm} {x['k']} of {x['n']}" for arm, x in cell.items() if x["n"])
    meds = medians_text(cell, budget)
    so_far = "" if c["second"] else f" (so far: {stored} of {len(CONFIRM_ARMS) * len(c['seeds'])} runs stored)"
    reading = f"**{c['reading']}**" if bold else c["reading"]
    line = f"{head}reached 0.95 within {budget:,} epochs: {counts}; median t_95 {meds}: {reading}{so_far}"
    if c["second"]:
        shown, n = t95_ratio(cell, "uniform", "lambda 0", budget)
        line += f"; beside it, deciding nothing: the uniform KL over lambda 0, t_95 per seed, {shown}, n = {n}"
    return line


# ---------------------------------------------------------------------------------------
# Amendment 4 (2026-12-06, before any of its runs): the title's need at 0.15 on new seeds. There the oracle reached
# 0.95 in 5 of 8 runs against lambda 0's 2 of 8 (2 of 8 again on amendment 3's seeds), which the registered count
# test could not tell apart (p = 0.157). The same test on 32 new seeds an arm tells those rates apart in four studies
# in five (NEED_TRUTHS, `--power`). The uniform KL is not re-run: amendment 3 already crossed there.

NEED_AT = 0.15
NEED_SEEDS = tuple(range(530, 562))         # no stored run has used them (tests/test_data_wall.py)
NEED_ARMS = ("lambda 0", "oracle")
NEED_READS = ("untestable on these seeds (lambda 0 reached 0.95 in at least half its runs)",
              "shown: the oracle prior carries runs past plain training's wall", "not shown: the oracle prior does not cross",
              "not told")


def need_runs(args, budget):
    """Amendment 4's runs, seed by seed, lambda 0 then the oracle: an interruption leaves whole seeds."""
    return [(label(arm, NEED_AT, s), config(args, s, NEED_AT, arm, budget)) for s in NEED_SEEDS for arm in NEED_ARMS]


def need(results, budget):
    """Amendment 4's cell on its new seeds and its reading (the crossing rule for the oracle), once all its runs are
    stored ("not decided" before)."""
    cell, counts = new_seeds_cell(results, NEED_AT, NEED_SEEDS, NEED_ARMS)
    return {"fraction": NEED_AT, "seeds": list(NEED_SEEDS), "cell": cell,
            "reading": dict(zip(CROSSINGS, NEED_READS))[crossing(counts, "oracle")] if counts else "not decided"}


def need_text(c, budget, bold=False):
    """Amendment 4's line: counts so far or its reading, with the oracle over lambda 0 beside it once all are in."""
    cell, complete = c["cell"], c["reading"] != "not decided"
    stored = sum(x["n"] for x in cell.values())
    head = (f"amendment 4 (registered before its runs): the title's need at {c['fraction']:g}, the oracle against "
            f"lambda 0 on new seeds {plots.seeds_text(c['seeds'])}: ")
    reading = f"**{c['reading']}**" if bold else c["reading"]
    if not stored:
        return head + f"no run stored yet: {reading}"
    counts = ", ".join(f"{arm} {x['k']} of {x['n']}" for arm, x in cell.items() if x["n"])
    line = f"{head}reached 0.95 within {budget:,} epochs: {counts}; median t_95 {medians_text(cell, budget)}: {reading}"
    if not complete:
        return line + f" (so far: {stored} of {len(NEED_ARMS) * len(c['seeds'])} runs stored)"
    shown, n = t95_ratio(cell, "oracle", "lambda 0", budget)
    return line + f"; beside it, deciding nothing: the oracle over lambda 0, t_95 per seed, {shown}, n = {n}"


# ---------------------------------------------------------------------------------------
# Amendment 5 (2026-12-07, before any of its runs): at 0.15 the oracle crossed in 18 of amendment 4's 32 runs and the
# uniform KL in 16 of 16 on other seeds. Does the KL without the information cross more often than the oracle's, on
# the same seeds? Only the uniform KL's runs are new: the oracle's 18 of 32 was seen, so the reading turns on the new
# count alone (INFO_ORACLE_SEEN), and its error rates are computed with that count fixed.

INFO_SEEDS = NEED_SEEDS                     # amendment 4's seeds: their oracle and lambda 0 runs are stored
INFO_ORACLE_SEEN = (18, 32)                 # the oracle's count on them, seen before this amendment (its result)
INFO_READS = ("the KL without the information crosses more often than the oracle's",
              "the oracle's information crosses more often", "not told")


def info_runs(args, budget):
    """Amendment 5's new runs: the uniform KL on amendment 4's seeds, in seed order."""
    return [(label("uniform", NEED_AT, s), config(args, s, NEED_AT, "uniform", budget)) for s in INFO_SEEDS]


def info_reading(c):
    """The uniform KL against the oracle from the counts {arm: (k, n)}, by the count rule "beats" both ways."""
    u, o = c["uniform"], c["oracle"]
    return INFO_READS[0] if beats(u, o) else INFO_READS[1] if beats(o, u) else INFO_READS[2]


def information_at_wall(results, budget):
    """Amendment 5's cell (the three arms on amendment 4's seeds) and its reading once every uniform-KL run is in."""
    cell, counts = new_seeds_cell(results, NEED_AT, INFO_SEEDS, ("lambda 0", "oracle", "uniform"))
    return {"fraction": NEED_AT, "seeds": list(INFO_SEEDS), "cell": cell,
            "reading": info_reading(counts) if counts else "not decided",
            "uniform crossing": crossing(counts, "uniform") if counts else None}


def info_text(c, budget, bold=False):
    """Amendment 5's line: the counts, its reading (or the runs so far), and beside it what decides nothing."""
    cell, stored, reading = c["cell"], c["cell"]["uniform"]["n"], (f"**{c['reading']}**" if bold else c["reading"])
    head = (f"amendment 5 (registered before its runs): the uniform KL against the oracle at {c['fraction']:g}, on "
            f"amendment 4's seeds {plots.seeds_text(c['seeds'])}: ")
    if not stored:
        return head + f"no uniform-KL run stored yet: {reading}"
    counts = ", ".join(f"{arm} {x['k']} of {x['n']}" for arm, x in cell.items() if x["n"])
    line = f"{head}reached 0.95 within {budget:,} epochs: {counts}; median t_95 {medians_text(cell, budget)}: {reading}"
    if c["uniform crossing"] is None:
        return line + f" (so far: {stored} of {len(c['seeds'])} uniform-KL runs stored)"
    (shown, n), check = t95_ratio(cell, "uniform", "oracle", budget), arm_check(cell)
    return line + (f"; beside it, deciding nothing: the uniform KL against lambda 0, {c['uniform crossing']}; the uniform "
                   f"KL over the oracle, t_95 per seed, {shown}, n = {n}" + (f"; {check}" if check else ""))


# ---------------------------------------------------------------------------------------
# Power, exactly: every count of three binomial arms enumerated

TRUTHS = {   # (lambda 0, oracle, uniform): each run's chance of reaching 0.95 at a fraction
    "no wall": ((0.9, 0.95, 0.95), READINGS[0]),
    "the prior crosses, with the information": ((0.1, 0.9, 0.1), READINGS[1]),
    "the prior crosses, and so does the KL without it": ((0.1, 0.9, 0.9), READINGS[2]),
    "nothing crosses": ((0.1, 0.1, 0.1), READINGS[4]),
    "a partial crossing, with the information": ((0.3, 0.7, 0.3), READINGS[1]),
    "a partial crossing, without it": ((0.3, 0.7, 0.7), READINGS[2]),
}


def binomial_pmfs(p, n):
    """Per arm, the chance of each count k = 0..n of n runs reaching 0.95, at its chance q."""
    return [[math.comb(n, k) * q ** k * (1 - q) ** (n - k) for k in range(n + 1)] for q in p]


def reading_probabilities(p, n):
    """{reading: probability} for true chances p = (lambda 0, oracle, uniform) and n runs per arm."""
    b = binomial_pmfs(p, n)
    out = dict.fromkeys(READINGS, 0.0)
    for k0 in range(n + 1):
        for k1 in range(n + 1):
            for k2 in range(n + 1):
                out[reading({"lambda 0": (k0, n), "oracle": (k1, n), "uniform": (k2, n)})] += b[0][k0] * b[1][k1] * b[2][k2]
    return out


DEFINITE = READINGS[0:3] + READINGS[4:5]     # the readings that name an account ("not told" names none)


def power_table(ns=(8, 10, 12)):
    """Markdown: per truth and seed count, the chance of its own reading and of a wrong one (another
    reading that names an account: a crossing where there is none, the other account of the information)."""
    lines = ["| truth (lambda 0, oracle, uniform) | " + " | ".join(f"n {n}: right / wrong" for n in ns) + " |",
             "|---|" + "---|" * len(ns)]
    for name, (p, right) in TRUTHS.items():
        cells = []
        for n in ns:
            pr = reading_probabilities(p, n)
            wrong = sum(v for r, v in pr.items() if r != right and r in DEFINITE)
            cells.append(f"{pr[right]:.0%} / {wrong:.0%}")
        lines.append(f"| {name} {p} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


SECOND_TRUTHS = {   # (lambda 0, uniform): amendment 2's truths, each run's chance of reaching 0.95
    "the KL without the information crosses": ((0.1, 0.9), SECOND_READINGS[1]),
    "nothing crosses": ((0.1, 0.1), SECOND_READINGS[2]),
    "no difference below a partial wall": ((0.3, 0.3), SECOND_READINGS[2]),
    "a partial crossing": ((0.3, 0.7), SECOND_READINGS[1]),
}


def crossing_probabilities(p, n, arm):
    """{outcome of `crossing`: its chance} for true chances p = (lambda 0, arm) and n runs an arm."""
    b = binomial_pmfs(p, n)
    out = dict.fromkeys(CROSSINGS, 0.0)
    for k0 in range(n + 1):
        for k2 in range(n + 1):
            out[crossing({"lambda 0": (k0, n), arm: (k2, n)}, arm)] += b[0][k0] * b[1][k2]
    return out


def second_probabilities(p, n):
    """{second reading: probability} for true chances p = (lambda 0, uniform) and n runs an arm."""
    return dict(zip(SECOND_READINGS, crossing_probabilities(p, n, "uniform").values()))


def chances_table(heads, reads, rows, keys=None):
    """Markdown: columns `heads` then `reads`; a row per (its first cells, {reading: chance}), the chances in the
    order of `keys` (default `reads`)."""
    lines = ["| " + " | ".join(heads + list(reads)) + " |", "|" + "---|" * (len(heads) + len(reads))]
    return "\n".join(lines + ["| " + " | ".join(lead + [f"{pr[r]:.1%}" for r in keys or reads]) + " |" for lead, pr in rows])


def second_power_table(n=FEWER_SEEDS):
    """Markdown: amendment 2's reading's chances per truth, n runs an arm (the study's eight seeds)."""
    return chances_table([f"truth (lambda 0, uniform), n {n}"], SECOND_READINGS,
                         [([f"{name} {p}"], second_probabilities(p, n)) for name, (p, _) in SECOND_TRUTHS.items()])


CONFIRM_TRUTHS = {   # (lambda 0, uniform) at 0.15: amendment 3's power inputs, written before its runs
    "as fraction 0.15's counts were (2 of 8, 8 of 8)": (0.25, 0.95),
    "a smaller gap": (0.25, 0.75),
    "no difference": (0.25, 0.25),
}


def confirm_power_table(n=len(CONFIRM_SEEDS)):
    """Markdown: amendment 3's reading's chances per truth, n new runs an arm."""
    return chances_table([f"truth (lambda 0, uniform), n {n}"], [CONFIRM_READS[r].split(" (")[0] for r in SECOND_READINGS],
                         [([f"{name} {p}"], second_probabilities(p, n)) for name, p in CONFIRM_TRUTHS.items()], SECOND_READINGS)


NEED_TRUTHS = {   # (lambda 0, oracle) at 0.15: amendment 4's power inputs, written before its runs
    "as 0.15's counts were (4 of 16, 5 of 8)": (0.25, 0.625),
    "a smaller gap": (0.25, 0.5),
    "a larger gap": (0.25, 0.75),
    "no difference": (0.25, 0.25),
    "no difference, higher": (0.5, 0.5),
}


def need_probabilities(p, n):
    """{amendment 4's reading: its chance} with n runs an arm at the truth p = (lambda 0, oracle), exactly."""
    return dict(zip(NEED_READS, crossing_probabilities(p, n, "oracle").values()))


NEED_POWER_NS = (8, 16, 24)                 # the power table's smaller studies, beside NEED_SEEDS' own


def need_power_table(ns=NEED_POWER_NS + (len(NEED_SEEDS),)):
    """Markdown: amendment 4's reading's chances per truth, n new runs an arm (its power as seeds are added)."""
    return chances_table(["truth (lambda 0, oracle)", "n"], [r.split(" (")[0].split(":")[0] for r in NEED_READS],
                         [([f"{name} {p}", str(n)], need_probabilities(p, n)) for name, p in NEED_TRUTHS.items() for n in ns],
                         NEED_READS)


INFO_TRUTHS = (0.5625, 0.7, 0.8, 0.9, 0.95)  # amendment 5's power inputs (the uniform KL's chance), before its runs


def info_probabilities(p, seen=INFO_ORACLE_SEEN):
    """{amendment 5's reading: its chance} when each new uniform-KL run reaches 0.95 with chance p, the oracle's count
    fixed at `seen` (k, n), exactly."""
    k_o, n = seen
    out = dict.fromkeys(INFO_READS, 0.0)
    for k, pk in enumerate(binomial_pmfs((p,), n)[0]):
        out[info_reading({"uniform": (k, n), "oracle": (k_o, n)})] += pk
    return out


def info_power_table():
    """Markdown: amendment 5's reading's chances per true chance of the uniform KL, the oracle's count as seen."""
    return chances_table([f"the uniform KL's chance, n {INFO_ORACLE_SEEN[1]}"], INFO_READS,
                         [([f"{p:g}"], info_probabilities(p)) for p in INFO_TRUTHS])


# ---------------------------------------------------------------------------------------
# Judging the runs

def arm_cell(results, arm, frac, seeds):
    """One arm at one fraction over the seeds stored of `seeds`: {"k", "n", "seeds", and per run "t_95",
    "t_95_held", "t_grok", "mass_early", "mass_end"}."""
    ran = [s for s in seeds if label(arm, frac, s) in results]
    m = [measures(*results[label(arm, frac, s)]) for s in ran]
    k, n = grokked([x["t_95"] for x in m])
    return {"k": k, "n": n, "seeds": ran, **{key: [x[key] for x in m] for key in (
        "t_95", "t_95_held", "t_grok", "mass_early", "mass_end")}}


def summarize(results, fractions, budget, seeds):
    """{"cells": {fraction: {arm: {"k", "n", "t_95", "t_95_held", "t_grok"}}}, "walls", "readings", "overall",
    "second", "second_overall"} (the last two amendment 2's, beside the registered reading)."""
    cells, readings, second = {}, {}, {}
    for f in fractions:
        cell = {arm: arm_cell(results, arm, f, seeds) for arm in ARMS}
        cells[f] = cell
        if all(cell[arm]["n"] == len(seeds) for arm in ARMS):     # nothing read from part of a cell
            counts = {arm: (cell[arm]["k"], cell[arm]["n"]) for arm in ARMS}
            readings[f], second[f] = reading(counts), second_reading(counts)
    complete = len(readings) == len(fractions)       # a wall is read only when every cell is in
    walls = {arm: wall({f: (c[arm]["k"], c[arm]["n"]) for f, c in cells.items()}, fractions) for arm in ARMS} \
        if complete else None
    return {"fractions": list(fractions), "budget": budget, "seeds": list(seeds),
            "cells": {f"{f:g}": c for f, c in cells.items()}, "walls": walls,
            "readings": {f"{f:g}": r for f, r in readings.items()},
            "overall": overall(readings) if complete else "not decided",
            "second": {f"{f:g}": r for f, r in second.items()}, "second_overall": second_overall(second)}


def median(times, budget):
    """The median t_95 with never-reached runs at the budget (a lower bound when one is in the middle)."""
    return censored_median(times, budget)


def medians_text(cell, budget):
    """Each begun arm's median t_95, marked where it is a lower bound."""
    return ", ".join(f"{arm} {m:g}" + (" (a lower bound)" if low else "") for arm, c in cell.items() if c["n"]
                     for m, low in [median(c["t_95"], budget)])


def arm_check(cell):
    """The arm check's line for a cell: each arm's median informative mass early and at the end ("" if none)."""
    mid = lambda xs: statistics.median(xs) if xs else None
    marks = {arm: (mid([v for v in c.get("mass_early", []) if v is not None]),
                   mid([v for v in c.get("mass_end", []) if v is not None])) for arm, c in cell.items()}
    if not any(e is not None for e, _ in marks.values()):
        return ""
    show = lambda when: ", ".join(f"{arm} {m[when]:.2f}" for arm, m in marks.items() if m[when] is not None)
    return (f"the arms' informative mass (a check of ours, added after 9 runs were seen; it decides nothing; the "
            f"oracle's target 0.5, uniform attention 0.2), median at epoch {MASS_EPOCH:,}: {show(0)}; at each run's end: {show(1)}")


# The t_95 ratios (ours, added 2026-12-06 after fractions 0.15, 0.175 and 0.2 were read; they decide nothing): issue
# #98 asked for t_95 ratios where both arms have a plateau to time, which the registration left out. Per seed, the
# slower arm's t_95 over the faster's, censored at the budget (a bound where one run never reached 0.95), averaged
# on a log scale with the interval every speed-up in this repository uses (rules v4); a read cell only.
RATIOS = (("oracle", "lambda 0"), ("uniform", "lambda 0"), ("uniform", "oracle"))     # (faster, slower) as named


def t95_ratios(cell, budget):
    """[(faster, slower, the speed-up as shown, n)] of a cell's arms: the slower's t_95 over the faster's, per seed;
    n counts the seeds where at least one of the two reached 0.95 (a seed censored in both tells nothing)."""
    return [(fast, slow, *t95_ratio(cell, fast, slow, budget)) for fast, slow in RATIOS]


def t95_ratio(cell, fast, slow, budget):
    """(the speed-up as shown, n): arm slow's t_95 over arm fast's, seed by seed (rules v4, censored runs as bounds)."""
    times = {arm: dict(zip(cell[arm]["seeds"], cell[arm]["t_95"])) for arm in (fast, slow)}
    v = A.speedup_verdict_v4(times[slow], times[fast], budget, what="")
    return v.get("shown", "no seed in both arms").strip(), v["n"]


def walls_text(summary):
    if summary["walls"] is None:
        return "not decided (not every cell is in)"
    top = format(max(summary["fractions"]), "g")
    return ", ".join(f"{arm} {'above ' + top if w is None else format(w, 'g')}" for arm, w in summary["walls"].items())


def text(summary):
    lines = [f"the data wall (fresh, budget {summary['budget']}, seeds {plots.seeds_text(summary['seeds'])}):"]
    for f, cell in summary["cells"].items():
        counts = (", ".join(f"{arm} {c['k']}/{c['n']}" for arm, c in cell.items() if c["n"]) if any(c["n"] for c in cell.values())
                  else "no run stored yet")
        lines.append(f"  fraction {f}: reached 0.95: {counts} -> {summary['readings'].get(f, 'not decided')}")
    lines.append("  walls: " + walls_text(summary))
    lines.append(f"  the title's need: {summary['overall']}")
    lines.append("  " + second_text(summary))
    if "confirm" in summary:
        lines.append("  " + confirmation_text(summary["confirm"], summary["budget"]))
    if "need" in summary:
        lines.append("  " + need_text(summary["need"], summary["budget"]))
    if "info" in summary:
        lines.append("  " + info_text(summary["info"], summary["budget"]))
    return "\n".join(lines)


def second_text(summary, bold=False):
    """Amendment 2's line: its reading per fraction read so far, and over the fractions it is judged on."""
    per = "; ".join(f"at {f}: {r}" + (" (prompted it; confirms nothing)" if float(f) not in CONFIRM_FRACTIONS else "")
                    for f, r in summary.get("second", {}).items())
    return (f"beside it, amendment 2 (added after 0.15 was read; judged on "
            f"{', '.join(f'{f:g}' for f in CONFIRM_FRACTIONS)} only): does the KL without the information cross "
            f"where lambda 0 fails? {per or 'no fraction read yet'}; over the new fractions: "
            + ("**{}**" if bold else "{}").format(summary.get("second_overall", "not decided")))


def markdown(summary, pilot_choice_=None):
    """REPORT.md's section: the pilot's choice, then each fraction's counts and reading."""
    head = ["## Beyond the paper: the title's \"need\" at the data wall (registered, docs/registered/data_wall.md)", ""]
    if pilot_choice_ is not None:
        p = pilot_choice_
        head.append(f"- the pilot (lambda 0, seeds {', '.join(map(str, PILOT_SEEDS))}, 30,000 epochs): reached 0.95 in "
                    + ", ".join(f"{k} of {len(PILOT_SEEDS)} at {f}" for f, k in p["reached"].items())
                    + f"; so the study runs at train fractions {', '.join(f'{f:g}' for f in p['fractions'])} with a "
                    f"budget of {p['budget']:,} epochs on seeds {plots.seeds_text(p['seeds'])}")
        head.append("- amendment 1 (after the pilot, before any study run): the cells are trained one fraction at a time, "
                    "g_fail first (where lambda 0 failed in the pilot); nothing that judges changed")
    if summary is None:
        return head + ["- not run: `python -m audit.data_wall --jobs 2 --threads 1` trains it (registered before its runs)", ""]
    for f, cell in summary["cells"].items():
        if not any(c["n"] for c in cell.values()):
            head.append(f"- train fraction {f}: no run stored yet: **{summary['readings'].get(f, 'not decided')}**")
            continue
        counts = ", ".join(f"{arm} {c['k']} of {c['n']}" for arm, c in cell.items() if c["n"])   # an arm not begun: absent
        meds = medians_text(cell, summary["budget"])
        so_far = "" if f in summary["readings"] else \
            f" (so far: {sum(c['n'] for c in cell.values())} of {len(cell) * len(summary['seeds'])} runs stored)"
        head.append(f"- train fraction {f}: reached 0.95 within {summary['budget']:,} epochs: {counts}; median t_95 "
                    f"{meds}: **{summary['readings'].get(f, 'not decided')}**{so_far}")
        check = arm_check(cell)
        if check:
            head.append(f"  - {check}")
        if f in summary["readings"]:
            head.append("  - t_95 ratios (ours, added after 0.15, 0.175 and 0.2 were read; they decide nothing), the slower "
                        "arm's t_95 over the faster's per seed: " + "; ".join(
                            f"{fast} over {slow} {shown}, n = {n}" for fast, slow, shown, n in t95_ratios(cell, summary["budget"])))
    head.append("- walls (the smallest fraction where half the runs reach 0.95): " + walls_text(summary))
    head.append(f"- the title's need in `fresh`: **{summary['overall']}**")
    head.append("- " + second_text(summary, bold=True))
    if "confirm" in summary:
        head.append("- " + confirmation_text(summary["confirm"], summary["budget"], bold=True))
    if "need" in summary:
        head.append("- " + need_text(summary["need"], summary["budget"], bold=True))
    if "info" in summary:
        head.append("- " + info_text(summary["info"], summary["budget"], bold=True))
    return head + [""]


def plot(summary, path):
    """Two panels against the train fraction, one line per arm: the share of runs reaching 0.95 (each point
    labelled k/n, the runs stored so far) and the median t_95 with the budget. The arms sit a little apart
    on the fraction axis so that equal values stay visible; the axis spans every study fraction from the start."""
    plt = plots.pyplot()
    fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
    fr = [float(f) for f in summary["cells"]]
    step = (max(fr) - min(fr)) / 40 if len(fr) > 1 else 0.002
    for i, (arm, color, marker) in enumerate(zip(ARMS, ("0.4", "tab:blue", "tab:orange"), "osD")):
        xs = [f + (i - 1) * step for f in fr]
        cells = [summary["cells"][f][arm] for f in summary["cells"]]
        ax[0].plot(xs, [c["k"] / c["n"] if c["n"] else float("nan") for c in cells], marker=marker, ls="-",
                   color=color, label=arm)
        for x, c in zip(xs, cells):
            if c["n"]:
                ax[0].annotate(f"{c['k']}/{c['n']}", (x, c["k"] / c["n"]), textcoords="offset points",
                               xytext=(0, 7 if i != 1 else -13), ha="center", fontsize=7, color=color)
        meds = [median(c["t_95"], summary["budget"]) if c["n"] else (None, False) for c in cells]
        ax[1].plot(xs, [m if m is not None else float("nan") for m, _ in meds], marker=marker, ls="-", color=color,
                   label=arm)
        for x, (m, censored) in zip(xs, meds):
            if censored:
                ax[1].scatter(x, m, marker="^", facecolors="none", edgecolors=color, s=90)
    pad = 2 * step + 0.01
    for a in ax:
        a.set_xlim(min(fr) - pad, max(fr) + pad)
        a.set_xticks(fr)
    ax[0].axhline(0.5, color="gray", ls=":", lw=1)
    ax[0].set(xlabel="train fraction", ylabel="share of runs reaching 0.95", ylim=(-0.08, 1.1),
              title="share reaching test accuracy 0.95 within the budget")
    ax[1].axhline(summary["budget"], color="gray", ls=":", lw=1, label="budget")
    ax[1].set(xlabel="train fraction", ylabel="median t_95 (epochs)", yscale="log",
              title="median t_95 (open triangles: a lower bound)")
    ax[0].legend(fontsize=8)
    ax[1].legend(fontsize=8)
    stored = sum(c["n"] for cell in summary["cells"].values() for c in cell.values())
    every = len(summary["cells"]) * len(ARMS) * len(summary["seeds"])
    plots.save_figure(fig, path, f"The data wall in fresh: seeds {plots.seeds_text(summary['seeds'])}, budget "
                                 f"{summary['budget']:,} epochs" + (f" ({stored} of {every} runs stored)" if stored < every else ""))


# ---------------------------------------------------------------------------------------
# The command line

def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    sweep.add_scale_args(p, QUICK)
    sweep.add_sweep_args(p)
    p.add_argument("--power", action="store_true", help="print the design's power table and exit")
    p.add_argument("--pilot", action="store_true", help="the pilot: lambda 0 down the grid on seeds 500-501, "
                                                        "into data_wall_pilot.json")
    p.set_defaults(seeds=list(SEEDS), regime="fresh", partial_ok=True)
    return p


def pilot(args):
    """The registered pilot, level by level down PILOT_GRID until neither pilot seed reaches 0.95."""
    reached, t95 = {}, {}
    for frac in PILOT_GRID:
        results = sweep.run_sweep(pilot_runs(args, frac), args)
        times = [measures(*results[lab])["t_95"] for lab, _ in pilot_runs(args, frac) if lab in results]
        if len(times) < len(PILOT_SEEDS):
            print(f"the pilot's runs at fraction {frac:g} are not all stored: not decided")
            return None
        reached[frac], t95[frac] = sum(t is not None for t in times), [t for t in times if t is not None]
        if reached[frac] == 0:
            break
    choice = {**pilot_choice(reached, t95), "reached": {f"{f:g}": k for f, k in reached.items()},
              "t_95": {f"{f:g}": t for f, t in t95.items()}}
    store.write_json(os.path.join(args.results_dir, "data_wall_pilot.json"), choice)
    print(f"the pilot chose fractions {choice['fractions']} and a budget of {choice['budget']} epochs")
    return choice


def parse(argv=None):
    return sweep.apply_quick(get_parser().parse_args(argv), QUICK)


def pilot_file(args):
    return os.path.join(args.results_dir, "data_wall_pilot.json")


def design(args):
    """(fractions, budget) of the study, and args.seeds set to the registered seeds the budget allows;
    None before the pilot has chosen them (its file, results/data_wall_pilot.json)."""
    if args.quick:
        return QUICK_FRACS, args.epochs
    if not os.path.exists(pilot_file(args)):
        return None
    choice = store.read_json(pilot_file(args))
    if args.seeds == list(SEEDS):                       # the registered seeds: as many as the budget allows
        args.seeds = choice["seeds"]
    return tuple(choice["fractions"]), choice["budget"]


def planned_runs(args):
    """The study's runs once the pilot has chosen its fractions, with the pilot's own; before it, every
    run the pilot may train (its whole grid: it stops at the first fraction where lambda 0 fails)."""
    if args.quick:
        return study_runs(args, *design(args))
    pilot_levels = PILOT_GRID
    if os.path.exists(pilot_file(args)):
        pilot_levels = tuple(float(f) for f in store.read_json(pilot_file(args))["reached"])
    runs = [r for f in pilot_levels for r in pilot_runs(args, f)]
    chosen = design(args)
    return runs + (study_runs(args, *chosen) + confirm_runs(args, chosen[1]) + need_runs(args, chosen[1])
                   + info_runs(args, chosen[1]) if chosen else [])


def main(argv=None):
    args = parse(argv)
    if args.power:
        print(power_table())
        print("\namendment 2's second reading:\n" + second_power_table())
        print("\namendment 3, at 0.15 on new seeds:\n" + confirm_power_table())
        print("\namendment 4, the title's need at 0.15 on new seeds:\n" + need_power_table())
        print("\namendment 5, the uniform KL against the oracle's seen 18 of 32:\n" + info_power_table())
        return
    if args.pilot:
        pilot(args)
        return
    chosen = design(args)
    if chosen is None:
        if args.plot_only:
            print("the data wall: not run (its pilot chooses the fractions: python -m audit.data_wall --pilot)")
            return
        raise SystemExit("error: the study's fractions come from its pilot: run --pilot first")
    fractions, budget = chosen
    runs = study_runs(args, fractions, budget)
    if args.plot_only and not any(sweep.is_stored(args, cfg) for _, cfg in runs):
        print(f"the data wall: none of its {len(runs)} runs is stored yet (its pilot chose "
              f"{', '.join(f'{f:g}' for f in fractions)} at {budget:,} epochs); nothing drawn")
        return
    extra = [] if args.quick else confirm_runs(args, budget) + need_runs(args, budget) + info_runs(args, budget)  # 3-5
    results = sweep.run_sweep(runs + extra, args)
    summary = summarize(results, fractions, budget, args.seeds)
    if extra:
        summary["confirm"] = confirmation(results, budget)
        summary["need"] = need(results, budget)
        summary["info"] = information_at_wall(results, budget)
    print(text(summary))
    os.makedirs(args.results_dir, exist_ok=True)
    store.write_json(os.path.join(args.results_dir, "data_wall.json"), summary)
    plot(summary, os.path.join(args.results_dir, "data_wall.png"))


if __name__ == "__main__":
    main()
