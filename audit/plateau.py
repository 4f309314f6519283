"""Beyond the paper, part five: what ends the plateau in the paper's own regime? Four accounts of
what the information study (docs/registered/information.md) saw in `fresh`, where KLs that carry
no information ended the plateau sooner than lambda 0 and than the oracle, put to arms that set
them against each other. Registered in docs/registered/plateau.md before any of its runs.

    python -m audit.plateau --jobs 2 --threads 1      # every run (seed by seed, resumable)
    python -m audit.plateau --plot-only              # judge and draw from the store
    python -m audit.plateau --power                  # the registration's power table, recomputed
    python -m audit.plateau --quick                  # the small model, one seed, a few minutes

The accounts (the registration gives each one's predictions as outcomes):
  live      a KL that stays live keeps attention and the embeddings moving under AdamW on the
            plateau (a local form of the "Adam freeze" account): any live KL helps
  noise     attention mass on distractors that are redrawn every epoch feeds the MLP fresh noise,
            a regularizer against memorizing: the speed-up needs mass on redrawn distractors
  routing   pulling attention toward uniform removes a routing freedom memorization uses; an
            average over the positions carries all a commutative task needs (arXiv 2603.05228)
  info      the paper's: only the oracle's content helps (fresh's pattern was a selection)
Every run logs, besides train.py's quantities, the RMS of AdamW's updates to W_Q, W_K and the
embeddings and the training set's attention mass (train.py --log-updates): what each arm does to
the plateau, not only when it ends.
"""
import argparse
import functools
import math
import os

import numpy as np

import analysis
import plots
import store
import sweep
from analysis import first_epoch, held_from
from audit.information import bound_mark, count_verdict
from audit import dates as D
from audit import rules as A

LAM = 0.3                       # the information study's (the regime map's) strength
OFF_EARLY, OFF_LATE = 200, 1000  # the uniform KL turned off: before memorization ends, and on the plateau
# arm -> (distractor regime, the config changes from the paper config: train.py's flags)
ARMS = {"lambda 0": ("fresh", {}),
        "uniform": ("fresh", {"lam": LAM, "prior": "uniform"}),
        "lambda 0 pad": ("fresh", {"distractor_vocab": "pad"}),
        "uniform pad": ("fresh", {"lam": LAM, "prior": "uniform", "distractor_vocab": "pad"}),
        "query": ("fresh", {"lam": LAM, "prior": "query"}),
        "distractors": ("fresh", {"lam": LAM, "prior": "adversarial"}),
        f"uniform off {OFF_EARLY}": ("fresh", {"lam": LAM, "prior": "uniform", "prior_stop": OFF_EARLY}),
        f"uniform off {OFF_LATE}": ("fresh", {"lam": LAM, "prior": "uniform", "prior_stop": OFF_LATE}),
        "sub lambda 0": ("fresh", {"task": "sub"}),
        "sub oracle": ("fresh", {"task": "sub", "lam": LAM}),
        "sub uniform": ("fresh", {"task": "sub", "lam": LAM, "prior": "uniform"}),
        "rho lambda 0": ("refresh0.003", {}),
        "rho query": ("refresh0.003", {"lam": LAM, "prior": "query"})}
# Amendment 1 (docs/registered/plateau.md, 2026-12-02): the query target at lambda 0.3 kept attention off
# the operands (seed 230), so the query and distractor targets get weaker arms too, each at the largest
# lambda of PILOT's at which a pilot run memorizes; WEAK_LAM holds what the pilot chose (empty before it)
PILOT = dict(seed=250, epochs=1500, lams=(0.1, 0.03, 0.01), targets=("query", "adversarial"))
WEAK_LAM = {t: D.number("part five weak") for t in ("query", "adversarial")}   # the pilot's (results/plateau_pilot.json)
WEAK = {"query weak": ("fresh", "query"), "distractors weak": ("fresh", "adversarial"),
        "rho query weak": ("refresh0.003", "query")}
ARMS.update({arm: (regime, {"lam": WEAK_LAM[target], "prior": target})
             for arm, (regime, target) in WEAK.items() if WEAK_LAM.get(target)})
BUDGETS = {"fresh": 10000, "refresh0.003": 20000}     # the information study's, justified there
SEEDS = tuple(range(230, 250))                        # no store run used them (the registration)
DECIDING_ACC = 0.95                                   # t_95 decides, as in the information study
SMALLEST = A.SMALLEST_SPEEDUP                         # rules v4's speed-up part: 1.25x counts
COUNT_BELOW = 0.5     # a comparison whose slower arm reaches 0.95 in fewer than half its runs: the count test
WINDOW = (500, 1000)  # the plateau the per-run quantities are averaged over: after memorization, before any 0.95
EARLY = (0, OFF_EARLY)  # while memorizing, up to the early switch-off: the distractor mass there too (described;
                        # added 2026-12-03 after seeds 230-245 were seen, never deciding)
QUICK = dict(p=sweep.QUICK_MODEL["p"], seeds=[0], epochs=1500)
# --quick (about two minutes on one core): the arms on `add` in `fresh` that show something at its scale.
# Not the amendment's weaker ones; not `sub`, none of whose arms reached 0.95 within 1,500 epochs on the
# small model (seed 0, 2026-12-03); not "uniform off 1000", the same run as "uniform" where that groks sooner.
QUICK_ARMS = tuple(arm for arm, (regime, changes) in ARMS.items()
                   if regime == "fresh" and arm not in WEAK and changes.get("task") != "sub" and arm != f"uniform off {OFF_LATE}")

# The comparisons (faster arm, slower arm), each by rules v4's speed-up part on the paired t_95
COMPARISONS = {"K1": ("uniform", "lambda 0"),
               "K2": ("uniform pad", "lambda 0 pad"),
               "K3": ("query", "lambda 0"),
               "K4": ("distractors", "lambda 0"),
               "K5": ("distractors", "uniform"),
               "K6": ("sub uniform", "sub lambda 0"),
               "K7": ("rho query", "rho lambda 0"),
               "T1": (f"uniform off {OFF_EARLY}", "lambda 0"),
               "T2": ("uniform", f"uniform off {OFF_EARLY}"),
               "T3": (f"uniform off {OFF_LATE}", "lambda 0"),
               "T4": ("uniform", f"uniform off {OFF_LATE}"),
               "S1": ("sub oracle", "sub lambda 0")}
# Each account's prediction per comparison: "faster" (reproduced), "not faster" (anything but
# reproduced), or absent (no prediction). Derived predictions are marked in the registration.
PREDICTIONS = {
    "live": {"K1": "faster", "K2": "faster", "K3": "faster", "K4": "faster", "K6": "faster", "K7": "faster",
             "T1": "not faster", "T2": "faster"},
    "noise": {"K1": "faster", "K2": "not faster", "K3": "not faster", "K4": "faster", "K5": "faster",
              "K6": "faster", "K7": "not faster"},
    "routing": {"K1": "faster", "K2": "faster", "K3": "not faster", "K4": "not faster", "K5": "not faster",
                "K6": "not faster", "K7": "not faster"},
    "info": {"K1": "not faster", "K2": "not faster", "K3": "not faster", "K4": "not faster", "K5": "not faster",
             "K6": "not faster", "K7": "not faster"}}
ACCOUNTS = tuple(PREDICTIONS)
# Amendment 1: the weak arms' comparisons, predicted as the ones they stand beside
COMPARISONS_WEAK = {"K3w": ("query weak", "lambda 0"), "K4w": ("distractors weak", "lambda 0"),
                    "K5w": ("distractors weak", "uniform"), "K7w": ("rho query weak", "rho lambda 0")}
PREDICTIONS_AMENDED = {a: {**p, **{f"{k}w": v for k, v in p.items() if f"{k}w" in COMPARISONS_WEAK}}
                       for a, p in PREDICTIONS.items()}
AMENDED_SEEDS = tuple(range(231, 250))      # the runs made after amendment 1 (seed 230's query run came before)
# A premise (ours, 2026-12-02): an arm whose target may keep attention off the operands tests the
# accounts only if it memorizes (train accuracy 0.99; in `fresh` no run can memorize without reading
# the operands) in at least half its runs; else its comparisons are "untestable here" and drop out of
# every account's predictions. Stored runs at lambda 1 (Figure 2's adversarial arm) never memorized.
PREMISES = {"distractors": ("K4", "K5")}
# Amendment 1 (2026-12-02, after seed 230's query run): the same premise for the query arms and the weak arms
PREMISES_AMENDED = {**PREMISES, "query": ("K3",), "rho query": ("K7",), "query weak": ("K3w",),
                    "distractors weak": ("K4w", "K5w"), "rho query weak": ("K7w",)}
MEMORIZED_SHARE = D.number("part five premise")   # every choice is read from audit/dates.py's CHOICES, dated there
UNTESTABLE = "untestable here"


# ---------------------------------------------------------------------------------------
# The runs

def budget(args, regime):
    return args.epochs if args.quick else BUDGETS[regime]


def runs(args):
    """{arm: [(label, cfg) per seed]}: every arm logs its plateau (--log-updates)."""
    return {arm: [(f"plateau/{arm}/seed{s}",
                   sweep.study_config(args, s, regime=regime, epochs=budget(args, regime), log_updates=True, **changes))
                  for s in args.seeds] for arm, (regime, changes) in ARMS.items()}


def planned_runs(args):
    """Seed by seed (every arm of a seed, then the next), so that a sweep cut short leaves whole
    paired seeds behind. --quick: QUICK_ARMS' runs only."""
    cells = runs(args)
    return [cells[arm][i] for i in range(len(args.seeds)) for arm in (QUICK_ARMS if args.quick else ARMS)]


def measures(summary, history):
    """One run's times (None: not within its budget) and its plateau (the mean over WINDOW's logged
    epochs of each quantity --log-updates adds, the distractor mass, the MLP norm and the prior's
    value), from its stored summary and history."""
    cfg = summary["config"]
    n_ops = cfg.get("n_operands", 2) if cfg["task"] == "addk" else 2
    distractor_pos = list(range(n_ops, n_ops + cfg["n_distractors"]))
    within = lambda window: [i for i, e in enumerate(history["epoch"]) if window[0] <= e <= window[1]]
    rows, early = within(WINDOW), within(EARLY)
    mean = lambda values, at=rows: float(np.mean([values[i] for i in at])) if at else None
    plateau = {k: mean(history[k]) for k in history if k.startswith("update_rms_")}
    if "train_attn_mass" in history:
        mass = [sum(m[j] for j in distractor_pos) for m in history["train_attn_mass"]]
        plateau["distractor_mass"] = mean(mass)
        plateau["distractor_mass_early"] = mean(mass, early)     # not on the plateau: while memorizing (EARLY)
    plateau.update(mlp_norm=mean(history["mlp_norm"]), prior_loss=mean(history["prior_loss"]))
    return {"t_95": first_epoch(history, "test_acc", DECIDING_ACC), "t_95_held": held_from(history, "test_acc", DECIDING_ACC),
            "t_grok": summary["grok_epoch"], "t_mem": summary["mem_epoch"], "plateau": plateau,
            "acc_end": history["test_acc"][-1]}     # at the budget, or where a run that grokked stopped (amendment 2)


# ---------------------------------------------------------------------------------------
# The rule and the reading

def compare(times, faster, slower, budget_):
    """'faster ends the plateau sooner than slower' ({arm: {seed: t_95 or None}}): rules v4's
    speed-up part on the paired t_95 (1.25x counts), or, where the slower arm reached 0.95 in fewer
    than half its runs, the count of runs that did (Fisher's exact test, one-sided, p < 0.025:
    reproduced, else inconclusive)."""
    what = f"{faster} faster than {slower}"
    slow = times[slower]
    if sum(t is not None for t in slow.values()) < COUNT_BELOW * len(slow):
        return {**count_verdict(times[faster], slow, what), "rule": "count"}
    v = A.speedup_verdict_v4(slow, times[faster], budget_, smallest=SMALLEST)
    return {**v, "rule": "rules v4", "bound": bound_mark(times[faster], slow),     # an estimate that rests on bounds
            "text": f"{what}: " + (v.get("text") or v.get("reason", ""))}


def judge(times, budget_of, memorized=None, comparisons=COMPARISONS, premises=PREMISES):
    """Every comparison whose two arms have all their seeds ({arm: {seed: t}}; budget_of(arm)).
    memorized: {arm: (runs that memorized, runs)}, for the premises; a comparison whose premise fails,
    or whose arm amendment 1's pilot found no strength for, is UNTESTABLE."""
    out = {}
    failed = {k for arm, ks in premises.items() if memorized and arm in memorized
              and memorized[arm][0] < MEMORIZED_SHARE * memorized[arm][1] for k in ks}
    for name, (f, s) in comparisons.items():
        if f in WEAK and WEAK_LAM.get(WEAK[f][1], 0) is None:
            out[name] = {"verdict": UNTESTABLE, "text": f"{f}: no strength of the pilot's let its run memorize"}
        elif name in failed:
            out[name] = {"verdict": UNTESTABLE, "text": f"{f} faster than {s}: {f} memorized in "
                         f"{memorized[f][0]} of {memorized[f][1]} runs (its premise: at least half)"}
        elif times.get(f) and times.get(s) and len(times[f]) == len(times[s]):
            out[name] = compare(times, f, s, max(budget_of(f), budget_of(s)))
    return out


def reading(verdicts, predictions=PREDICTIONS, comparisons=COMPARISONS):
    """Per account: each predicted comparison for it ("for": reproduced where it predicts faster,
    not reproduced where it predicts not faster), against it (reproduced where it predicts not
    faster, not reproduced where it predicts faster) or open (inconclusive, or not yet judged).
    An account with a comparison against it is ruled out. The reading names the accounts that
    stand: "the data favour X" if one, "not told apart" if several, "none of the four" if none;
    "not decided" until every comparison is judged."""
    per = {}
    for account, preds in predictions.items():
        rows = {}
        for k, pred in preds.items():
            v = verdicts.get(k, {}).get("verdict")
            if v == UNTESTABLE:
                rows[k] = UNTESTABLE
            elif v not in (A.REPRODUCED, A.NOT_REPRODUCED):
                rows[k] = "open"
            elif pred == "faster":
                rows[k] = "for" if v == A.REPRODUCED else "against"
            else:
                rows[k] = "against" if v == A.REPRODUCED else "for"
        per[account] = {"comparisons": rows, "ruled_out": "against" in rows.values()}
    standing = [a for a in ACCOUNTS if not per[a]["ruled_out"]]
    if not all(k in verdicts for k in comparisons):
        verdict = "not decided"
    elif len(standing) == 1:
        verdict = f"the data favour {standing[0]}"
    elif standing:
        verdict = "not told apart: " + ", ".join(standing)
    else:
        verdict = "none of the four"
    return {"reading": verdict, "standing": standing, "accounts": per, "when": when(verdicts)}


def when(verdicts):
    """When the uniform KL acts (T1-T4): 'while memorizing' if turned off at OFF_EARLY it is still
    faster than lambda 0 and the whole KL is not faster than it; 'on the plateau' if turned off at
    OFF_EARLY it is not faster than lambda 0 and the whole KL is faster than it (then OFF_LATE says
    whether the first OFF_LATE epochs suffice); otherwise 'not told'."""
    v = lambda k: verdicts.get(k, {}).get("verdict")
    if any(v(k) is None for k in ("T1", "T2", "T3", "T4")):
        return "not decided"
    if v("T1") == A.REPRODUCED and v("T2") != A.REPRODUCED:
        return "while memorizing (the first 200 epochs suffice)"
    if v("T1") != A.REPRODUCED and v("T2") == A.REPRODUCED:
        late = (f"the first {OFF_LATE} epochs suffice" if v("T3") == A.REPRODUCED and v("T4") != A.REPRODUCED
                else f"it must stay on past epoch {OFF_LATE}" if v("T3") != A.REPRODUCED and v("T4") == A.REPRODUCED
                else f"epoch {OFF_LATE} not told")
        return f"on the plateau ({late})"
    return "not told"


# ---------------------------------------------------------------------------------------
# The power of the design, computed before the runs (docs/registered/plateau.md)

# Per-seed log-normal t_95 of the baselines, from stored runs (the registration says which):
# (median, per-seed log sd); "sub lambda 0" has no stored run: taken as add's
BASE = {"lambda 0": (3000, 0.35), "lambda 0 pad": (2600, 0.35), "sub lambda 0": (3000, 0.35),
        "rho lambda 0": (8500, 0.35)}
BASE_OF = {"uniform": "lambda 0", "query": "lambda 0", "distractors": "lambda 0", f"uniform off {OFF_EARLY}": "lambda 0",
           f"uniform off {OFF_LATE}": "lambda 0", "uniform pad": "lambda 0 pad", "sub oracle": "sub lambda 0",
           "sub uniform": "sub lambda 0", "rho query": "rho lambda 0"}
EFFECT = (math.log(1.70), 0.36)   # "faster": the uniform KL's speed-up in fresh, seeds 200-209 (log mean, sd)
# Each account's truth: which arms are faster than their baseline by EFFECT (all others as their
# baseline, sd EFFECT[1]); the timing arms as the account says or, where it says nothing, as uniform
TRUTHS = {"live": ("uniform", "uniform pad", "query", "distractors", "sub uniform", "rho query"),
          "noise": ("uniform", "distractors", "sub uniform", f"uniform off {OFF_EARLY}", f"uniform off {OFF_LATE}"),
          "routing": ("uniform", "uniform pad", f"uniform off {OFF_EARLY}", f"uniform off {OFF_LATE}", "sub oracle"),
          "info": ("sub oracle",)}
DOUBLE = {"noise": ("distractors",)}   # noise: twice the log effect where the mass on redrawn distractors doubles
REPS = 2000


def simulate(rng, account, n, scale=1.0):
    """One simulated data set under an account's truth: {arm: {seed: t_95 or None}}, censored at
    each arm's budget. scale multiplies the log effect ("half": 0.5)."""
    budget_of = lambda arm: BUDGETS[ARMS[arm][0]]
    cut = lambda t, arm: {i: (None if v > budget_of(arm) else float(v)) for i, v in enumerate(t)}
    base = {b: np.exp(rng.normal(math.log(m), sd, n)) for b, (m, sd) in BASE.items()}
    out = {b: cut(t, b) for b, t in base.items()}
    for arm, b in BASE_OF.items():
        mu = EFFECT[0] * scale * (2 if arm in DOUBLE.get(account, ()) else 1) if arm in TRUTHS[account] else 0.0
        out[arm] = cut(base[b] * np.exp(-rng.normal(mu, EFFECT[1], n)), arm)
    return out


def power(n=len(SEEDS), reps=REPS, seed=0, scale=1.0, drop=()):
    """{truth: {account: P(it stands)}, and 'alone': P(the reading favours the true account alone)}.
    drop: comparisons whose premise failed (read UNTESTABLE)."""
    out, dropped = {}, {k: {"verdict": UNTESTABLE} for k in drop}
    for truth, data_sets in _simulated_verdicts(n, reps, seed, scale).items():
        stands, alone = {a: 0 for a in ACCOUNTS}, 0
        for verdicts in data_sets:
            r = reading({**{k: {"verdict": v} for k, v in verdicts.items()}, **dropped})
            for a in r["standing"]:
                stands[a] += 1
            alone += r["standing"] == [truth]
        out[truth] = {**{a: k / reps for a, k in stands.items()}, "alone": alone / reps}
    return out


@functools.lru_cache(maxsize=None)       # one entry per (seeds, reps, seed, scale) asked for: a handful
def _simulated_verdicts(n, reps, seed, scale):
    """{truth: [{comparison: verdict}, one per simulated data set]}: the same data sets serve every `drop` of power()."""
    rng, budget_of = np.random.default_rng(seed), lambda arm: BUDGETS[ARMS[arm][0]]
    return {truth: [{k: v["verdict"] for k, v in judge(simulate(rng, truth, n, scale), budget_of).items()}
                    for _ in range(reps)] for truth in ACCOUNTS}


# the registration's power tables: (what, the effect's scale, comparisons dropped by a failed premise)
POWER_ROWS = (("the effect as seen", 1.0, ()), ("half the effect (log scale)", 0.5, ()),
              ("the effect as seen, the distractors arm untestable", 1.0, PREMISES["distractors"]))


def power_table(p, n=len(SEEDS)):
    rows = [f"| truth ({n} seeds) | " + " | ".join(f"{a} stands" for a in ACCOUNTS) + " | the truth alone |",
            "|---|" + "---|" * (len(ACCOUNTS) + 1)]
    for truth, r in p.items():
        rows.append(f"| {truth} | " + " | ".join(f"{100 * r[a]:.0f}%" for a in ACCOUNTS) + f" | {100 * r['alone']:.0f}% |")
    return "\n".join(rows)


# ---------------------------------------------------------------------------------------
# Summary, text, markdown and figure

def information_runs(args):
    """The information study's `fresh` lambda 0 and uniform runs at POOLED_SEEDS (all stored), for K1 pooled."""
    from audit import information
    return {arm: [(f"pooled/{arm}/seed{s}", sweep.study_config(args, s, regime="fresh", epochs=BUDGETS["fresh"],
                                                              **information.ARMS[arm])) for s in POOLED_SEEDS]
            for arm in ("lambda 0", "uniform")}


def pooled_runs(args):
    return [run for rs in information_runs(args).values() for run in rs]


def collect(results, args):
    """{arm: {seed: measures}} from run_sweep's results."""
    out = {}
    for arm, rs in runs(args).items():
        for label, cfg in rs:
            if label in results:
                out.setdefault(arm, {})[cfg.seed] = measures(*results[label])
    return out


def summarize(per_run, budgets, seeds, info_times=None):
    """What plateau.json holds: every arm's times and plateau per seed, medians, the comparisons of
    arms whose every seed is stored (t_95 decides; the held t_95 and t_grok beside), the reading;
    with info_times (the information study's `fresh` t_95, {arm: {seed: t}}), K1 pooled over both."""
    budget_of = lambda arm: budgets[ARMS[arm][0]]
    times = lambda m: {arm: {s: r[m] for s, r in by.items()} for arm, by in per_run.items() if len(by) == len(seeds)}
    # a premise is judged once every run of its arm is in
    memorized = {arm: (sum(r["t_mem"] is not None for r in by.values()), len(by)) for arm, by in per_run.items()
                 if len(by) == len(seeds)}
    judged = judge(times("t_95"), budget_of, memorized)
    beside = {m: judge(times(m), budget_of, memorized) for m in ("t_95_held", "t_grok")}
    amended, accuracy = amended_reading(per_run, budget_of, seeds), accuracy_reading(per_run, seeds)
    plateau = {arm: {q: _median([r["plateau"].get(q) for r in by.values()]) for q in PLATEAU_QUANTITIES}
               for arm, by in per_run.items()}
    out = {"stored_runs": sum(len(by) for by in per_run.values()), "planned_runs": len(seeds) * len(ARMS),
            "seeds": list(seeds), "budgets": budgets, "deciding_measure": "t_95",
            "memorized": {arm: f"{sum(r['t_mem'] is not None for r in by.values())}/{len(by)}" for arm, by in per_run.items()},
            "reached_0.95": {arm: f"{sum(r['t_95'] is not None for r in by.values())}/{len(by)}"
                             for arm, by in per_run.items()},
            "medians": {m: {arm: analysis.fmt_median([r[m] for r in by.values()], budget_of(arm))
                            for arm, by in per_run.items()} for m in ("t_95", "t_95_held", "t_grok", "t_mem")},
            "comparisons": judged, "beside": beside, **reading(judged), "amendment 1": amended,
            "amendment 2": accuracy, "amendments 1 and 2": combined_reading(amended, accuracy), "plateau": plateau,
            "runs": {arm: {str(s): r for s, r in sorted(by.items())} for arm, by in per_run.items()}}
    out["as tested"] = as_tested(out)
    if info_times is not None:
        out["pooled K1"] = pooled(per_run, info_times, budget_of("lambda 0"))
    return out


def amended_reading(per_run, budget_of, seeds):
    """Amendment 1's reading: on the seeds after it (AMENDED_SEEDS, those of `seeds` among them), every
    comparison, the weak arms' included, with its premises; reported beside the registered reading."""
    keep = [s for s in seeds if s in AMENDED_SEEDS]
    kept = {arm: {s: r for s, r in by.items() if s in keep} for arm, by in per_run.items()}
    times = {arm: {s: r["t_95"] for s, r in by.items()} for arm, by in kept.items() if by and len(by) == len(keep)}
    memorized = {arm: (sum(r["t_mem"] is not None for r in by.values()), len(by)) for arm, by in kept.items()
                 if by and len(by) == len(keep)}
    every = {**COMPARISONS, **COMPARISONS_WEAK}
    judged = judge(times, budget_of, memorized, every, PREMISES_AMENDED)
    return {"seeds": keep, "comparisons": judged, **reading(judged, PREDICTIONS_AMENDED, every)}


# Amendment 2 (2026-12-03, after seeds 230-233's `sub` runs, none of which reached 0.95 within 10,000 epochs):
# the `sub` arms compared by their test accuracy at the budget, paired by seed, by rules v4's effect part, on
# the runs made after it; K8a, sub oracle against sub uniform, is new. Predictions as in the registration's
# table (K6a as K6); K8a's derived by us from each account's mechanism (docs/registered/plateau.md).
ACC_SEEDS = tuple(range(234, 250))
ACC_SMALLEST = D.number("part five gain")     # ours, 2026-12-03: the accuracy gain that counts, as C7's (+0.05)
ACC_COMPARISONS = {"K6a": ("sub uniform", "sub lambda 0"), "K8a": ("sub oracle", "sub uniform"),
                   "S1a": ("sub oracle", "sub lambda 0")}
ACC_PREDICTIONS = {"live": {"K6a": "faster", "K8a": "not faster"}, "noise": {"K6a": "faster", "K8a": "not faster"},
                   "routing": {"K6a": "not faster", "K8a": "faster"}, "info": {"K6a": "not faster", "K8a": "faster"}}


def compare_accuracy(acc, more, less):
    """'more reaches a higher test accuracy at the budget than less' ({arm: {seed: accuracy}}): rules v4's
    effect part on the paired differences, ACC_SMALLEST counting."""
    seeds = sorted(set(acc[more]) & set(acc[less]))
    what = f"{more} more accurate than {less} at the budget"
    v = A.effect_verdict_v4([acc[more][s] - acc[less][s] for s in seeds], ACC_SMALLEST, what="accuracy difference",
                            fmt=lambda x: f"{x:+.3f}")
    return {**v, "rule": "rules v4, accuracy", "text": f"{what}: " + (v.get("text") or v.get("reason", ""))}


def accuracy_reading(per_run, seeds):
    """Amendment 2's comparisons on the seeds after it (ACC_SEEDS among `seeds`), once every run of the
    compared arms is in; the accounts each rules out (live and noise are not told apart by `sub`, nor
    routing and info)."""
    keep = [s for s in seeds if s in ACC_SEEDS]
    arms = {a for pair in ACC_COMPARISONS.values() for a in pair}
    acc = {arm: {s: by[s]["acc_end"] for s in keep} for arm, by in per_run.items()
           if arm in arms and keep and all(by.get(s, {}).get("acc_end") is not None for s in keep)}
    judged = {k: compare_accuracy(acc, m, l) for k, (m, l) in ACC_COMPARISONS.items() if m in acc and l in acc}
    return {"seeds": keep, "comparisons": judged,
            **reading(judged, ACC_PREDICTIONS, {k: c for k, c in ACC_COMPARISONS.items() if k != "S1a"})}


def combined_reading(amended, accuracy):
    """Amendment 2, item 4: amendment 1's reading and amendment 2's read as one: every comparison of
    both (each on its own seeds), an account ruled out by a comparison against it in either; not
    decided until both are."""
    every = {**COMPARISONS, **COMPARISONS_WEAK, **{k: c for k, c in ACC_COMPARISONS.items() if k != "S1a"}}
    predictions = {a: {**PREDICTIONS_AMENDED[a], **ACC_PREDICTIONS[a]} for a in ACCOUNTS}
    return reading({**amended["comparisons"], **accuracy["comparisons"]}, predictions, every)


# the power of amendment 2, computed before its runs: per seed, each difference normal with the mean and sd
# seeds 230-233 showed (uniform - lambda 0: +0.30, sd 0.12; oracle - lambda 0: +0.10, sd 0.06; oracle -
# uniform: -0.20, sd 0.06); under routing and info, uniform as lambda 0 and the oracle +0.10 above both
ACC_TRUTHS = {"live": {"K6a": 0.30, "K8a": -0.20, "S1a": 0.10}, "noise": {"K6a": 0.30, "K8a": -0.20, "S1a": 0.10},
              "routing": {"K6a": 0.0, "K8a": 0.10, "S1a": 0.10}, "info": {"K6a": 0.0, "K8a": 0.10, "S1a": 0.10}}
ACC_SD = {"K6a": 0.12, "K8a": 0.06, "S1a": 0.06}


def power_accuracy(n=len(ACC_SEEDS), reps=REPS, seed=0, scale=1.0):
    """{truth: {account: P(it stands on amendment 2's comparisons)}}: scale multiplies every true difference."""
    rng, out = np.random.default_rng(seed), {}
    for truth, means in ACC_TRUTHS.items():
        stands = {a: 0 for a in ACCOUNTS}
        for _ in range(reps):
            judged = {k: A.effect_verdict_v4(list(rng.normal(scale * means[k], ACC_SD[k], n)), ACC_SMALLEST)
                      for k in ("K6a", "K8a")}
            for a in reading(judged, ACC_PREDICTIONS, {"K6a": None, "K8a": None})["standing"]:
                stands[a] += 1
        out[truth] = {a: k / reps for a, k in stands.items()}
    return out


def power_accuracy_table(p, n=len(ACC_SEEDS)):
    rows = [f"| truth ({n} seeds) | " + " | ".join(f"{a} stands" for a in ACCOUNTS) + " |", "|---|" + "---|" * len(ACCOUNTS)]
    return "\n".join(rows + [f"| {t} | " + " | ".join(f"{100 * r[a]:.0f}%" for a in ACCOUNTS) + " |" for t, r in p.items()])


def power_combined(n1=len(AMENDED_SEEDS), n2=len(ACC_SEEDS), reps=REPS // 2, seed=0, scale=1.0):
    """{truth: {account: P(it stands), 'alone': P(the truth alone)}} for the combined reading (amendment 2,
    item 4), each truth simulated as the registered power and amendment 2's power simulate it: amendment 1's
    comparisons on n1 seeds, the weak arms as the originals they stand beside; the `sub` arms never reaching
    0.95 (K6 and S1 then read by the count test: inconclusive), amendment 2's differences on n2 seeds.
    The query and distractor arms at lambda 0.3 fail their premises (K3, K4, K5, K7 untestable), so the weak
    arms decide in their place (with every premise met the table is the same: the weak arms are simulated as
    the originals)."""
    rng, out = np.random.default_rng(seed), {}
    budget_of = lambda arm: BUDGETS[ARMS[arm][0]]
    every = {**COMPARISONS, **COMPARISONS_WEAK}
    for truth in ACCOUNTS:
        stands, alone = {a: 0 for a in ACCOUNTS}, 0
        for _ in range(reps):
            t = simulate(rng, truth, n1, scale)
            t.update({arm: {i: None for i in range(n1)} for arm in ARMS if ARMS[arm][1].get("task") == "sub"})
            t.update({w: t[ARMS_OF_WEAK[w]] for w in WEAK})
            am1 = judge(t, budget_of, comparisons=every, premises={})
            am1.update({k: {"verdict": UNTESTABLE} for k in ("K3", "K4", "K5", "K7")})
            am2 = {k: A.effect_verdict_v4(list(rng.normal(scale * ACC_TRUTHS[truth][k], ACC_SD[k], n2)), ACC_SMALLEST)
                   for k in ("K6a", "K8a")}
            r = combined_reading({"comparisons": am1}, {"comparisons": am2})
            for a in r["standing"]:
                stands[a] += 1
            alone += r["standing"] == [truth]
        out[truth] = {**{a: k / reps for a, k in stands.items()}, "alone": alone / reps}
    return out


ARMS_OF_WEAK = {"query weak": "query", "distractors weak": "distractors", "rho query weak": "rho query"}
# the combined reading's power tables (docs/registered/plateau.md, a note of 2026-12-03): (what, scale)
POWER_COMBINED_ROWS = (("the effects as seen", 1.0), ("half of them (log speed-ups and accuracy differences)", 0.5))


# Said as tested (2026-12-04, after the result; no registered rule, prediction or reading changes, and every
# reading above is reported as registered): a comparison tests an account only if its arm did what the account's
# prediction assumes. Noise's K5w prediction ("grows with the mass") assumed the weak distractor target puts more
# attention on the redrawn distractors than the uniform KL; live's K3w prediction assumed the weak query KL keeps
# W_K moving more than lambda 0 does. "More" is MORE times as much in each window (ours, 2026-12-04, chosen after
# the masses and update sizes were seen); a comparison whose arm falls short is set aside for that account.
MORE = D.number("part five as tested")
ASSUMED = {"K5w": ("noise", "distractors weak", "uniform", ("distractor_mass_early", "distractor_mass")),
           "K3w": ("live", "query weak", "lambda 0", ("update_rms_W_K",))}
POOLED_SEEDS = tuple(range(200, 230))    # the information study's `fresh` seeds (its 200-209 and amendment 2's)


def hollow(plateau):
    """{comparison: (account, {quantity: arm's median / its reference's})} for each ASSUMED comparison whose
    arm did not put MORE times its reference's quantity in every window (plateau: summary["plateau"])."""
    out = {}
    for k, (account, arm, ref, quantities) in ASSUMED.items():
        ratios = {q: plateau[arm][q] / plateau[ref][q] for q in quantities
                  if plateau.get(arm, {}).get(q) is not None and plateau.get(ref, {}).get(q)}
        if len(ratios) == len(quantities) and min(ratios.values()) < MORE:
            out[k] = (account, ratios)
    return out


def as_tested(summary):
    """The combined reading (amendments 1 and 2 as one) with each comparison that did not test its account
    (hollow) set aside for that account; None until the combined reading is decided."""
    both = summary.get("amendments 1 and 2")
    if not both or both["reading"] == "not decided":
        return None
    aside = hollow(summary["plateau"])
    every = {**COMPARISONS, **COMPARISONS_WEAK, **{k: c for k, c in ACC_COMPARISONS.items() if k != "S1a"}}
    predictions = {a: {k: v for k, v in {**PREDICTIONS_AMENDED[a], **ACC_PREDICTIONS[a]}.items()
                       if aside.get(k, (None,))[0] != a} for a in ACCOUNTS}
    judged = {**summary["amendment 1"]["comparisons"], **summary["amendment 2"]["comparisons"]}
    r = reading(judged, predictions, every)
    # an account left standing is not thereby shown: the reading names the comparisons still open for it
    opened = lambda a: [k for k, v in r["accounts"][a]["comparisons"].items() if v == "open"]
    said = "; ".join(f"{a} stands, not ruled out" + (f" and not shown ({', '.join(opened(a))} open)" if opened(a) else "")
                     for a in r["standing"]) or "none of the four stands"
    return {**r, "reading": said, "set_aside": {k: {"account": a, "ratios": q} for k, (a, q) in aside.items()}}


def pooled(per_run, info_times, budget_):
    """K1 on every stored `fresh` seed: this study's lambda 0 and uniform runs (seeds 230-249) with the
    information study's (POOLED_SEEDS), the paired t_95 by rules v4's speed-up part; and each batch alone.
    info_times: {arm: {seed: t_95}} of the information study's runs. Described, never deciding."""
    here = {arm: {s: r["t_95"] for s, r in per_run.get(arm, {}).items()} for arm in ("lambda 0", "uniform")}
    every = {arm: {**info_times.get(arm, {}), **here[arm]} for arm in here}
    batches = {"all": sorted(every["lambda 0"]), "210-229": list(range(210, 230)), "230-249": list(SEEDS)}
    out = {}
    for name, seeds in batches.items():
        if seeds and all(s in every[arm] for arm in every for s in seeds):
            v = A.speedup_verdict_v4({s: every["lambda 0"][s] for s in seeds}, {s: every["uniform"][s] for s in seeds},
                                     budget_, smallest=SMALLEST)
            out[name] = {**v, "seeds": [seeds[0], seeds[-1]], "n": len(seeds)}
    return out


PLATEAU_QUANTITIES = ("distractor_mass", "distractor_mass_early", "update_rms_W_Q", "update_rms_W_K", "update_rms_embed",
                      "update_rms_pos", "mlp_norm", "prior_loss")


def _median(values):
    values = [v for v in values if v is not None]
    return float(np.median(values)) if values else None


def markdown(summary, bold=True):
    """REPORT.md's section, from the summary alone (bold=False: the printout's plain text)."""
    strong = (lambda s: f"**{s}**") if bold else str
    lines = ["## Beyond the paper, part five: what ends the plateau in the paper's own regime? (registered, "
             "docs/registered/plateau.md)", "",
             f"- {summary['stored_runs']} of {summary['planned_runs']} runs stored (seeds {summary['seeds'][0]}-"
             f"{summary['seeds'][-1]}); t_95, the first epoch test accuracy reaches 0.95, decides. [plateau.png](plateau.png)"]
    for arm, reached in summary["reached_0.95"].items():
        m = lambda k: summary["medians"][k][arm]
        p = summary["plateau"][arm]
        f = lambda q: "-" if p.get(q) is None else f"{p[q]:.2g}"
        lines.append(f"- {arm} ({ARMS[arm][0]}): memorized {summary['memorized'][arm]}, reached 0.95 {reached}, median t_95 {m('t_95')} (held {m('t_95_held')}, "
                     f"t_grok {m('t_grok')}); on the plateau (epochs {WINDOW[0]}-{WINDOW[1]}, medians over runs): "
                     f"distractor mass {f('distractor_mass')}, AdamW update RMS W_Q {f('update_rms_W_Q')}, W_K "
                     f"{f('update_rms_W_K')}, embed {f('update_rms_embed')}, pos {f('update_rms_pos')}, "
                     f"MLP norm {f('mlp_norm')}, prior {f('prior_loss')}; while memorizing (epochs {EARLY[0]}-"
                     f"{EARLY[1]}): distractor mass {f('distractor_mass_early')}")
    for name, c in summary["comparisons"].items():
        other = [f"{m.replace('_', ' ')}: {b[name]['verdict']}" for m, b in summary["beside"].items()
                 if name in b and b[name]["verdict"] != c["verdict"]]
        lines.append(f"- {name}: {c['verdict']}: {c['text']}" + (f" (by {'; '.join(other)})" if other else ""))
    lines.append(f"- reading, as registered: {strong(summary['reading'])}; when the uniform KL acts: {summary['when']}")
    lines += account_lines(summary)
    am = summary.get("amendment 1")
    if am:
        lines.append(f"- Amendment 1 (2026-12-02, after seed 230's query run; the premise for the query arms and the "
                     f"weak arms at lambda {', '.join(f'{t} {v}' for t, v in WEAK_LAM.items()) or 'not piloted yet'}), "
                     f"on seeds {am['seeds'][0] if am['seeds'] else '-'}-{am['seeds'][-1] if am['seeds'] else '-'}: "
                     f"reading {strong(am['reading'])}; when: {am['when']}")
        lines += [f"  - {name}: {c['verdict']}: {c['text']}" for name, c in am["comparisons"].items()
                  if name in COMPARISONS_WEAK or c["verdict"] != summary["comparisons"].get(name, {}).get("verdict")]
        lines += ["  " + line for line in account_lines(am)]
    am2 = summary.get("amendment 2")
    if am2:
        seeds = f"{am2['seeds'][0]}-{am2['seeds'][-1]}" if am2["seeds"] else "-"
        lines.append(f"- Amendment 2 (2026-12-03, after seeds 230-233's `sub` runs: none reached 0.95 within "
                     f"10,000 epochs): the `sub` arms by test accuracy at the budget (+{ACC_SMALLEST} counts, ours), "
                     f"on seeds {seeds}: reading {strong(am2['reading'])}")
        lines += [f"  - {name}: {c['verdict']}: {c['text']}" for name, c in am2["comparisons"].items()]
        lines += ["  " + line for line in account_lines(am2)]
    both = summary.get("amendments 1 and 2")
    mass = lambda arm, q: "-" if summary["plateau"].get(arm, {}).get(q) is None else f"{summary['plateau'][arm][q]:.2g}"
    if both:
        against = lambda a: [k for k, v in a["comparisons"].items() if v == "against"]
        lines.append(f"- Amendments 1 and 2 read as one (amendment 2, item 4): reading {strong(both['reading'])} ("
                     + "; ".join(f"{account} ruled out by {', '.join(against(a))}" if a["ruled_out"] else f"{account} stands"
                                 for account, a in both["accounts"].items()) + ")")
        alone = [account for account, a in both["accounts"].items() if against(a) == ["K5w"]]
        if alone:      # the note of 2026-12-03 (docs/registered/plateau.md): what K5w tests
            lines.append(f"  - {', '.join(alone)} ruled out by K5w alone; K5w's prediction under noise assumed more "
                         f"distractor mass than uniform's, never checked (distractors weak / uniform, medians: "
                         + "; ".join(f"{label} {mass('distractors weak', q)} / {mass('uniform', q)}" for label, q in
                                     ((f"epochs {EARLY[0]}-{EARLY[1]}", "distractor_mass_early"),
                                      (f"epochs {WINDOW[0]}-{WINDOW[1]}", "distractor_mass"))) + ")")
    tested = summary.get("as tested")
    if tested:
        aside = "; ".join(f"{k} for {v['account']} (" + ", ".join(f"{QUANTITY_NAMES[q]} {r:.2f}x" for q, r in v["ratios"].items())
                          + f" its reference's, {ASSUMED[k][1]} against {ASSUMED[k][2]})" for k, v in tested["set_aside"].items())
        lines.append(f"- Said as tested (2026-12-04, after the result; no registered reading changes): a comparison "
                     f"whose arm did not move {MORE:g}x its reference's mass or update (ours, chosen after these were seen) "
                     f"is set aside for the account that assumed it: {aside or 'none'}; reading {strong(tested['reading'])}")
        lines += ["  " + line for line in account_lines(tested)]
    pool = summary.get("pooled K1")
    if pool and "all" in pool:
        lines.append(f"- K1 pooled (described, never deciding): uniform faster than lambda 0 on every stored `fresh` seed "
                     f"({pool['all']['seeds'][0]}-{pool['all']['seeds'][-1]}, n = {pool['all']['n']}, the information "
                     f"study's with this study's): {pool['all']['shown']}; "
                     + "; ".join(f"seeds {b}: {pool[b]['shown']}" for b in ("210-229", "230-249") if b in pool))
    return lines + [""]


QUANTITY_NAMES = {"distractor_mass_early": f"distractor mass while memorizing (epochs {EARLY[0]}-{EARLY[1]})",
                  "distractor_mass": f"distractor mass on the plateau (epochs {WINDOW[0]}-{WINDOW[1]})",
                  "update_rms_W_K": f"W_K update RMS on the plateau (epochs {WINDOW[0]}-{WINDOW[1]})"}


def account_lines(r):
    return [f"  - {account}: " + ("ruled out" if a["ruled_out"] else "stands") + " ("
            + ", ".join(f"{k} {v}" for k, v in a["comparisons"].items()) + ")" for account, a in r["accounts"].items()]


def text(summary):
    return "\n".join(markdown(summary, bold=False))


def plot(summary, path):
    """Left: t_95 per arm (a run that never reached 0.95 an open triangle at its budget). Right:
    the plateau per arm (epochs 500-1000): distractor mass and the AdamW update RMS of W_Q and W_K;
    hatched beside them, the distractor mass while memorizing (epochs 0-200)."""
    plt = plots.pyplot()
    arms = display_order([arm for arm in ARMS if summary["runs"].get(arm)])   # the arms run (--quick runs fewer)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [3, 2]})
    for i, arm in enumerate(arms):
        rs = summary["runs"].get(arm, {})
        budget_ = summary["budgets"][ARMS[arm][0]]
        jitter = np.linspace(-0.2, 0.2, len(rs)) if len(rs) > 1 else [0.0]
        for j, r in enumerate(rs.values()):
            t = r["t_95"]
            ax.scatter(i + jitter[j], t or budget_, s=18, color=f"C{i % 10}", marker="o" if t else "^",
                       facecolors=f"C{i % 10}" if t else "none")
        if rs and not any(r["t_95"] for r in rs.values()):     # never reached 0.95: its test accuracy at the budget
            acc = np.median([r["acc_end"] for r in rs.values()])   # (amendment 2's measure for `sub`)
            ax.annotate(f"acc\n{acc:.2f}", (i, budget_), xytext=(0, 7), textcoords="offset points", ha="center",
                        fontsize=6.5, color=f"C{i % 10}")
    x = np.arange(len(arms))
    for a in (ax, bx):                                     # a line between the groups: add in fresh, sub, rho 0.003
        for i in range(1, len(arms)):
            if group(arms[i]) != group(arms[i - 1]):
                a.axvline(i - 0.5, color="0.8", lw=0.8, zorder=0)
    ax.set_xticks(x, arms, rotation=40, ha="right", fontsize=8)
    ax.set(yscale="log", ylabel="t_95 (test accuracy 0.95), epochs",
           title="when the plateau ends (triangle: never, at the budget; acc: median test accuracy there)")
    ax.set_ylim(top=2 * max(summary["budgets"].values()))        # room for the accuracy labels
    bars = (("distractor_mass_early", f"distractor mass while memorizing (epochs {EARLY[0]}-{EARLY[1]})", "C0", "//"),
            ("distractor_mass", "distractor mass", "C0", None), ("update_rms_W_Q", "update RMS W_Q x1e4", "C1", None),
            ("update_rms_W_K", "update RMS W_K x1e4", "C2", None))
    top = 0.0
    for k, (q, label, color, hatch) in enumerate(bars):
        v = [summary["plateau"].get(a, {}).get(q) for a in arms]
        v = [np.nan if u is None else u * (1e4 if q.startswith("update_rms") else 1) for u in v]
        bx.bar(x + (k - 1.5) * 0.2, v, width=0.2, label=label, hatch=hatch, color="none" if hatch else color,
               edgecolor=color)
        top = np.nanmax([top, *v])
    bx.set_xticks(x, arms, rotation=40, ha="right", fontsize=8)
    bx.set_ylim(0, 1.45 * top)                            # room for the legend
    bx.set_title(f"on the plateau, epochs {WINDOW[0]}-{WINDOW[1]} (median over runs;\nhatched: while memorizing, "
                 f"epochs {EARLY[0]}-{EARLY[1]})", fontsize=10)
    bx.legend(fontsize=7, loc="upper left", ncol=2)
    plots.save_figure(fig, path, "What ends the plateau in fresh? (docs/registered/plateau.md)")


def group(arm):
    """The figure's groups: the arms on `add` in `fresh`, the `sub` arms, the arms at rho 0.003."""
    regime, changes = ARMS[arm]
    return (regime, changes.get("task", "add"))


def display_order(arms):
    """The arms group by group, in ARMS' order within each (amendment 1's weak arms beside their group's)."""
    order = list(dict.fromkeys(group(arm) for arm in arms))
    return sorted(arms, key=lambda arm: order.index(group(arm)))


def pilot_runs(args):
    """Amendment 1's pilot: (label, cfg) per target and lambda, in `fresh` at PILOT's seed and budget."""
    return [(f"pilot/{target}/{lam:g}", sweep.study_config(args, PILOT["seed"], regime="fresh", epochs=PILOT["epochs"],
                                                          log_updates=True, lam=lam, prior=target))
            for target in PILOT["targets"] for lam in PILOT["lams"]]


def pilot_choice(memorized):
    """{target: the largest lambda whose pilot run memorized, or None}; memorized: {(target, lam): bool}."""
    return {t: next((lam for lam in sorted(PILOT["lams"], reverse=True) if memorized[(t, lam)]), None)
            for t in PILOT["targets"]}


def pilot(args):
    results = sweep.run_sweep(pilot_runs(args), args)
    memorized = {(label.split("/")[1], float(label.split("/")[2])): results[label][0]["mem_epoch"] is not None
                 for label, _ in pilot_runs(args)}
    choice = pilot_choice(memorized)
    out = {"rule": "the largest lambda at which the run reaches train accuracy 0.99 within the budget", **PILOT,
           "mem_epoch": {label: results[label][0]["mem_epoch"] for label, _ in pilot_runs(args)}, "choice": choice}
    print(out)
    os.makedirs(args.results_dir, exist_ok=True)
    store.write_json(os.path.join(args.results_dir, "plateau_pilot.json"), out)


# ---------------------------------------------------------------------------------------
# The command line

def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    sweep.add_scale_args(p, QUICK)
    sweep.add_sweep_args(p)
    p.add_argument("--power", action="store_true", help="print the design's power table and exit")
    p.add_argument("--pilot", action="store_true", help="amendment 1's pilot: the weak arms' strength (seed 250, "
                                                        "1,500 epochs per run), into plateau_pilot.json")
    p.set_defaults(seeds=list(SEEDS), regime="fresh", partial_ok=True)
    return p


def parse(argv=None):
    return sweep.apply_quick(get_parser().parse_args(argv), QUICK)


def main(argv=None):
    args = parse(argv)
    if args.power:
        for label, scale, drop in POWER_ROWS:
            print(f"{label}:\n" + power_table(power(len(args.seeds), scale=scale, drop=drop), len(args.seeds)) + "\n")
        for label, scale in (("amendment 2, the differences as seen", 1.0), ("amendment 2, half of them", 0.5)):
            print(f"{label}:\n" + power_accuracy_table(power_accuracy(scale=scale)) + "\n")
        for label, scale in POWER_COMBINED_ROWS:
            print(f"amendments 1 and 2 read as one, {label}:\n"
                  + power_table(power_combined(scale=scale), len(AMENDED_SEEDS)) + "\n")
        return
    if args.pilot:
        pilot(args)
        return
    results = sweep.run_sweep(planned_runs(args) + ([] if args.quick else pooled_runs(args)), args)
    info_times = None if args.quick else {arm: {cfg.seed: first_epoch(results[label][1], "test_acc", DECIDING_ACC)
                                                for label, cfg in rs if label in results}
                                          for arm, rs in information_runs(args).items()}
    summary = summarize(collect(results, args), {r: budget(args, r) for r in BUDGETS}, args.seeds, info_times)
    print(text(summary))
    os.makedirs(args.results_dir, exist_ok=True)
    store.write_json(os.path.join(args.results_dir, "plateau.json"), summary)
    plot(summary, os.path.join(args.results_dir, "plateau.png"))


if __name__ == "__main__":
    main()