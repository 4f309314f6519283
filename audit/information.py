"""Beyond the paper, part four: is it the information or any live gradient? The KL prior to the
oracle (the paper's mechanism, §5, Thm. 5.2) against the 2026 "Adam freeze" account (any live
auxiliary gradient ends AdamW's plateau, detached noise included). Registered in
docs/registered/information.md before any of its runs.

    python -m audit.information --jobs 2 --threads 1      # every run (seed by seed, resumable)
    python -m audit.information --plot-only              # judge and draw from the store
    python -m audit.information --power                  # the registration's power table, recomputed
    python -m audit.information --dose                   # amendment 1's dose check: the task gradient's size
    python -m audit.information --quick                   # the small model, one seed, a few minutes

Six arms in three distractor regimes, the paper config otherwise, seeds 200-209 (no store run
used them): lambda 0; the KL to the oracle; three controls at the same lambda 0.3 (KL toward
uniform attention; a shuffled oracle, two wrong keys per example kept for the run; noise on the
attention logits with the KL gradient's norm, no direction); and the rival's own control, a
detached Gaussian gradient of RMS 3e-4 on every weight matrix (lambda 0). The first epoch test
accuracy reaches 0.95 decides (t_95; why: the registration); t_grok (0.99) and t_struct beside it.
Amendment 1 (registered 2026-11-29, before its runs): the rival's noise at the top of its range, RMS
1e-2, in the two regimes that decide, reported beside their readings and never changing them.
Amendment 2 (registered 2026-11-29, before its runs): what `fresh` showed on seeds 200-209 (the KL
toward uniform and toward a wrong pair sooner than lambda 0 and than the oracle), put to seeds 210-229.
"""
import argparse
import math
import os

import numpy as np

import analysis
import controls
import plots
import store
import sweep
import train
from analysis import first_epoch, held_from
from audit import rules as A

LAM, WEIGHT_NOISE_RMS = 0.3, 3e-4
# arm -> the config changes from the paper config (train.py's flags)
ARMS = {"lambda 0": {},
        "oracle": {"lam": LAM},
        "uniform": {"lam": LAM, "prior": "uniform"},
        "shuffled": {"lam": LAM, "prior": "shuffled"},
        "logit noise": {"lam": LAM, "prior_kind": "logit-noise"},
        "weight noise": {"weight_noise": WEIGHT_NOISE_RMS}}
CONTROLS = ("uniform", "shuffled", "logit noise", "weight noise")
# regime -> epoch budget (docs/registered/information.md, "Budgets")
BUDGETS = {"fixed": 10000, "refresh0.003": 20000, "fresh": 10000}
# the regimes whose reading decides between the accounts; `fresh` is described (the registration's
# power table: the accounts' predictions there differ by the oracle's own 1.23x, below 1.25x)
DECIDING_REGIMES = ("fixed", "refresh0.003")
SEEDS = tuple(range(200, 210))
DECIDING_ACC = 0.95               # t_95 decides; t_grok (train.py's 0.99) and t_struct are reported beside it
SMALLEST = A.SMALLEST_SPEEDUP     # rules v4's speed-up part: 1.25x counts
ALPHA = 0.025                     # the count test's one-sided level (the two-sided 95% of rules v4's intervals)
QUICK = dict(p=sweep.QUICK_MODEL["p"], seeds=[0], epochs=1000)
# --quick looks at the informative regime and the paper's (issue #84: `fixed` tests the rival weakly) and
# leaves out the amendments' runs: a first look in about two minutes on one core (issue #85)
QUICK_REGIMES = ("refresh0.003", "fresh")
# Amendment 1 (docs/registered/information.md, 2026-11-29): the rival's weight noise at the top of
# the range over which it reports no dependence, in the two regimes that decide
STRONG = {"weight noise 1e-2": {"weight_noise": 1e-2}}
STRONG_REGIMES = DECIDING_REGIMES
MEMORIZED_SHARE = 0.5             # its premise: at least half its runs in a regime reach train accuracy 0.99
DOSE_EPOCHS = (1000, 2000, 3000)  # the dose check's epochs: the lambda 0 plateau under `fixed`
# Amendment 2 (docs/registered/information.md, 2026-11-29): `fresh`'s described result on seeds no run
# had used. Per control (uniform, shuffled) the side seeds 200-209 showed, "rival": the control faster
# than lambda 0 (reproduced) and the oracle not faster than it (not reproduced), by rules v4's
# speed-up part on the paired t_95.
CONFIRM_ARMS, CONFIRM_REGIME = ("lambda 0", "oracle", "uniform", "shuffled"), "fresh"
CONFIRM_SEEDS = tuple(range(210, 230))
# (faster, slower) -> (the verdict that confirms, what seeds 200-209 showed: the mean and sd of the
# per-seed log(t_slower / t_faster), and that mean were the paper's account true: the control as
# slow as lambda 0, so the oracle ahead of it by its own 1.27x over lambda 0 on seeds 200-209)
CONFIRM = {("uniform", "lambda 0"): ("reproduced", 0.529, 0.356, 0.0),
           ("shuffled", "lambda 0"): ("reproduced", 0.553, 0.407, 0.0),
           ("oracle", "uniform"): ("not reproduced", -0.289, 0.280, 0.241),
           ("oracle", "shuffled"): ("not reproduced", -0.313, 0.337, 0.241)}


# ---------------------------------------------------------------------------------------
# The runs

def runs(args, arms=ARMS, regimes=tuple(BUDGETS), seeds=None):
    """{regime: {arm: [(label, cfg) per seed]}}: the registered arms, or an amendment's."""
    return {regime: {arm: [(f"{regime}/{arm}/seed{s}",
                            sweep.study_config(args, s, regime=regime, epochs=budget(args, regime), **changes))
                           for s in (args.seeds if seeds is None else seeds)] for arm, changes in arms.items()}
            for regime in regimes}


def strong_runs(args):
    """Amendment 1's runs, as runs() lays them out."""
    return runs(args, STRONG, STRONG_REGIMES)


def confirm_runs(args):
    """Amendment 2's runs: {arm: [(label, cfg) per seed]} in `fresh` at seeds 210-229 (none with --quick)."""
    seeds = () if args.quick else CONFIRM_SEEDS
    return runs(args, {a: ARMS[a] for a in CONFIRM_ARMS}, (CONFIRM_REGIME,), seeds)[CONFIRM_REGIME]


def budget(args, regime):
    return args.epochs if args.quick else BUDGETS[regime]


def planned_runs(args):
    """Seed by seed (every arm and regime of a seed, then the next), so that a sweep cut short
    leaves whole paired seeds behind; within a seed the decisive regimes first. Amendment 1's runs
    come after all 180, seed by seed, then amendment 2's. --quick: QUICK_REGIMES' runs only."""
    cells, strong, confirm = runs(args), strong_runs(args), confirm_runs(args)
    regimes, strong_regimes = (QUICK_REGIMES, ()) if args.quick else (("fixed", "refresh0.003", "fresh"), STRONG_REGIMES)
    return ([cells[regime][arm][i] for i in range(len(args.seeds)) for regime in regimes for arm in ARMS]
            + [strong[regime][arm][i] for i in range(len(args.seeds)) for regime in strong_regimes for arm in STRONG]
            + [confirm[arm][i] for i in range(len(next(iter(confirm.values())))) for arm in CONFIRM_ARMS])


# the times each run is read by (t_95 decides); the held t_95 (test accuracy at or above 0.95 from that
# epoch to the run's end) and the prior's value at LIVE_EPOCHS are reported beside (issue #84, 2026-12-02)
TIME_MEASURES = ("t_95", "t_95_held", "t_grok", "t_struct", "t_mem")
LIVE_EPOCHS = (200, 1000)


def measures(summary, history):
    """The times of one run (None: never within its budget): t_95 decides; t_mem (train accuracy
    0.99) is amendment 1's premise; and the prior's value at LIVE_EPOCHS (None once the run ended)."""
    value_at = lambda e: next((v for t, v in zip(history["epoch"], history["prior_loss"]) if t == e), None)
    return {"t_95": first_epoch(history, "test_acc", DECIDING_ACC), "t_grok": summary["grok_epoch"],
            "t_95_held": held_from(history, "test_acc", DECIDING_ACC),
            "t_struct": summary["struct_epoch"], "t_mem": summary["mem_epoch"],
            **{f"prior_{e}": value_at(e) for e in LIVE_EPOCHS}}


# ---------------------------------------------------------------------------------------
# The rules: rules v4's speed-up part where runs grok; the exact count test where they may not

def fisher_one_sided(k1, n1, k2, n2):
    """P(K1 >= k1) for two binomial counts under equal rates, given their total (Fisher's exact
    test, one-sided: is arm 1's rate higher?). The hypergeometric tail, exactly."""
    total, n = k1 + k2, n1 + n2
    return sum(math.comb(n1, k) * math.comb(n2, total - k) for k in range(k1, min(n1, total) + 1)) / math.comb(n, total)


def count_verdict(faster, slower, what):
    """'faster groks within the budget more often than slower': reproduced if Fisher's one-sided
    p < ALPHA. No count test can show two rates equal, so the other outcome is 'inconclusive',
    with each arm's rate and its exact 97.5% upper bound."""
    k1, n1 = sum(t is not None for t in faster.values()), len(faster)
    k2, n2 = sum(t is not None for t in slower.values()), len(slower)
    if not n1 or not n2:
        return {"verdict": A.NOT_DECIDED, "reason": "no data", "text": f"{what}: no data"}
    p = fisher_one_sided(k1, n1, k2, n2)
    up = lambda k, n: A.clopper_pearson_one_sided(k, n, ALPHA)[1]
    return {"verdict": A.REPRODUCED if p < ALPHA else A.INCONCLUSIVE, "p": p, "counts": [k1, n1, k2, n2],
            "text": f"{what}: {k1}/{n1} against {k2}/{n2} grokked (Fisher one-sided p = {p:.2g}; rates at most "
                    f"{up(k1, n1):.2f} and {up(k2, n2):.2f}, 97.5%)"}


def compare(times, faster, slower, regime, budget_):
    """One comparison of two arms' deciding times ({arm: {seed: t_95 or None}}) in a regime."""
    what = f"{faster} faster than {slower}"
    if regime == "fixed":
        return count_verdict(times[faster], times[slower], what)
    v = A.speedup_verdict_v4(times[slower], times[faster], budget_, what=what, smallest=SMALLEST)
    return {**v, "bound": bound_mark(times[faster], times[slower]),
            "text": f"{what}: " + (v.get("text") or v.get("reason", ""))}


def bound_mark(faster, slower):
    """'>=' if some per-seed ratio slower/faster is a lower bound (the slower run censored, the faster
    not) and none an upper bound, '<=' for the reverse, '' if every ratio is measured: an estimate that
    rests on bounds is printed as a bound."""
    seeds = set(faster) & set(slower)
    low = any(slower[s] is None and faster[s] is not None for s in seeds)
    high = any(faster[s] is None and slower[s] is not None for s in seeds)
    return ">=" if low and not high else "<=" if high and not low else "bounds both ways" if low else ""


def judge(times, budgets):
    """times: {regime: {arm: {seed: t_95 or None}}}. Per regime: each control against lambda 0
    and the oracle against each control, then what the pattern says (reading())."""
    out = {}
    for regime, arms in times.items():
        if not all(arms.get(a) for a in ARMS):
            out[regime] = {"reading": "not decided", "reason": "an arm has no stored run", "comparisons": {}}
            continue
        comps = {"oracle vs lambda 0": compare(arms, "oracle", "lambda 0", regime, budgets[regime])}
        for c in CONTROLS:
            comps[f"{c} vs lambda 0"] = compare(arms, c, "lambda 0", regime, budgets[regime])
            comps[f"oracle vs {c}"] = compare(arms, "oracle", c, regime, budgets[regime])
        out[regime] = {"comparisons": comps, **reading(comps), "decides": regime in DECIDING_REGIMES}
    return out


def reading(comps):
    """The registered reading of one regime (docs/registered/information.md, "What each outcome
    means"): the paper's account if the oracle is faster than every control and no control is
    faster than lambda 0; the rival's if every control is faster than lambda 0 and the oracle
    faster than none; otherwise mixed, naming each control's side."""
    faster_than_base = {c: comps[f"{c} vs lambda 0"]["verdict"] == A.REPRODUCED for c in CONTROLS}
    oracle_beats = {c: comps[f"oracle vs {c}"]["verdict"] == A.REPRODUCED for c in CONTROLS}
    if all(oracle_beats.values()) and not any(faster_than_base.values()):
        verdict = "the paper's account"
    elif all(faster_than_base.values()) and not any(oracle_beats.values()):
        verdict = "the rival account"
    else:
        verdict = "mixed"
    return {"reading": verdict, "per_control": {c: side(faster_than_base[c], oracle_beats[c]) for c in CONTROLS}}


def side(faster_than_base, oracle_beats):
    """Whose prediction one control's two comparisons fit: paper (the oracle beats it, it does not
    beat lambda 0), rival (the reverse), both (it beats lambda 0 and the oracle beats it), neither."""
    return ("paper" if oracle_beats and not faster_than_base else "rival" if faster_than_base and not oracle_beats
            else "both" if faster_than_base else "neither")


def judge_strong(times, budgets, n_seeds):
    """Amendment 1, per regime whose runs are all in: its premise (at least half the strong-noise
    runs memorize), then its two comparisons by the regime's rule and its side; reported beside the
    registered reading, never changing it."""
    out = {}
    for regime in STRONG_REGIMES:
        arms = times["t_95"].get(regime, {})
        for arm in STRONG:
            if any(len(arms.get(a, {})) < n_seeds for a in (arm, "lambda 0", "oracle")):
                out[f"{regime}/{arm}"] = {"side": "not decided", "reason": "not every run is stored"}
                continue
            memorized = sum(t is not None for t in times["t_mem"][regime][arm].values())
            premise = memorized >= MEMORIZED_SHARE * n_seeds
            comps = {f"{arm} vs lambda 0": compare(arms, arm, "lambda 0", regime, budgets[regime]),
                     f"oracle vs {arm}": compare(arms, "oracle", arm, regime, budgets[regime])}
            won = [c["verdict"] == A.REPRODUCED for c in comps.values()]
            out[f"{regime}/{arm}"] = {"memorized": f"{memorized}/{n_seeds}", "comparisons": comps,
                                      "side": side(*won) if premise else "too strong to test"}
    return out


def judge_confirm(times, budget_=BUDGETS[CONFIRM_REGIME], seeds=CONFIRM_SEEDS):
    """Amendment 2, once every one of its runs is stored: each comparison by rules v4's speed-up
    part on the paired t_95 ({arm: {seed: t_95 or None}}), whether it gave the verdict that confirms,
    each control's side, and the oracle against lambda 0 beside."""
    stored = sum(len(times.get(a, {})) for a in CONFIRM_ARMS)
    if stored < len(CONFIRM_ARMS) * len(seeds):
        return {"verdict": A.NOT_DECIDED, "reason": f"{stored} of {len(CONFIRM_ARMS) * len(seeds)} runs stored"}
    judged = {f"{f} vs {s}": {**compare(times, f, s, CONFIRM_REGIME, budget_), "confirms": expected}
              for (f, s), (expected, *_) in CONFIRM.items()}
    won = lambda name: judged[name]["verdict"] == A.REPRODUCED
    return {"comparisons": judged, "seeds": list(seeds),
            "confirmed": {c: all(judged[k]["verdict"] == judged[k]["confirms"] for k in (f"{c} vs lambda 0", f"oracle vs {c}"))
                          for c in ("uniform", "shuffled")},
            "side": {c: side(won(f"{c} vs lambda 0"), won(f"oracle vs {c}")) for c in ("uniform", "shuffled")},
            "beside": compare(times, "oracle", "lambda 0", CONFIRM_REGIME, budget_)}


# ---------------------------------------------------------------------------------------
# The power of the design, computed before the runs (docs/registered/information.md)

# What the stored runs say of the two arms every account agrees on (their seeds are not this
# study's): geometric-median t_grok and the per-seed log sd. rho 0.003's lambda 0 median is the
# 10 stored seeds' 8,090 (2 censored at 10,000), raised to 8,500 for the censored pair.
TRUTHS = {"refresh0.003": {"lambda 0": (8500, 0.35), "oracle": (2465, 0.35)},
          "fresh": {"lambda 0": (3490, 0.35), "oracle": (2830, 0.35)}}
FIXED_GROK = {"lambda 0": 0.0, "oracle": 1.0}   # 0 of 25 stored runs without the prior grokked (<= 200,000 epochs)
REPS = 2000


def simulated_times(rng, median, sd, n, budget_):
    t = np.exp(rng.normal(math.log(median), sd, n))
    return {i: (None if v > budget_ else float(v)) for i, v in enumerate(t)}


def power(n=len(SEEDS), reps=REPS, seed=0):
    """{regime: {account: {comparison: (P reproduced, P not reproduced)}}} by simulation under each
    account's truth: the paper's (every control's times drawn as lambda 0's; under `fixed` it never
    groks) and the rival's (as the oracle's; under `fixed` it groks as the oracle does). Each
    regime's one control stands for all four (they are exchangeable under either truth)."""
    rng = np.random.default_rng(seed)
    out = {}
    for regime, truth in TRUTHS.items():
        out[regime] = {}
        for account, control in (("paper", "lambda 0"), ("rival", "oracle")):
            hits = {"control vs lambda 0": [0, 0], "oracle vs control": [0, 0]}
            for _ in range(reps):
                t = {arm: simulated_times(rng, *truth[arm], n, BUDGETS[regime]) for arm in ("lambda 0", "oracle")}
                t["control"] = simulated_times(rng, *truth[control], n, BUDGETS[regime])
                for name, (f, s) in (("control vs lambda 0", ("control", "lambda 0")),
                                     ("oracle vs control", ("oracle", "control"))):
                    v = A.speedup_verdict_v4(t[s], t[f], BUDGETS[regime], smallest=SMALLEST)["verdict"]
                    hits[name][0] += v == A.REPRODUCED
                    hits[name][1] += v == A.NOT_REPRODUCED
            out[regime][account] = {k: (a / reps, b / reps) for k, (a, b) in hits.items()}
    out["fixed"] = {}
    for account, p_control in (("paper", FIXED_GROK["lambda 0"]), ("rival", FIXED_GROK["oracle"])):
        out["fixed"][account] = {
            "control vs lambda 0": (count_power(n, p_control, FIXED_GROK["lambda 0"]), 0.0),
            "oracle vs control": (count_power(n, FIXED_GROK["oracle"], p_control), 0.0)}
    return out


def confirm_power(n=len(CONFIRM_SEEDS), reps=REPS, seed=0):
    """{comparison: {truth: P(the verdict that confirms)}} for amendment 2 by simulation: per seed the
    slower arm's t_95 log-normal at lambda 0's stored median (3,490, sd 0.35), the faster arm's
    shorter by a normal log ratio of the sd seeds 200-209 showed and a mean of what they showed ("as
    seen"), half of it ("half"), or the paper's account's ("paper": the false-confirmation rate),
    censored at the budget."""
    rng, out = np.random.default_rng(seed), {}
    budget_ = BUDGETS[CONFIRM_REGIME]
    cut = lambda t: {i: (None if v > budget_ else float(v)) for i, v in enumerate(t)}
    for (f, s), (expected, mean, sd, paper) in CONFIRM.items():
        out[f"{f} vs {s}"] = {}
        for truth, mu in (("as seen", mean), ("half", mean / 2), ("paper", paper)):
            hits = 0
            for _ in range(reps):
                slow = np.exp(rng.normal(math.log(TRUTHS["fresh"]["lambda 0"][0]), 0.35, n))
                fast = slow * np.exp(-rng.normal(mu, sd, n))
                hits += A.speedup_verdict_v4(cut(slow), cut(fast), budget_, smallest=SMALLEST)["verdict"] == expected
            out[f"{f} vs {s}"][truth] = hits / reps
    return out


def confirm_power_table(p, n=len(CONFIRM_SEEDS)):
    rows = [f"| comparison ({n} seeds) | confirms if | seeds 200-209 showed | P(confirms): as seen / half / the paper's account |",
            "|---|---|---|---|"]
    for (f, s), (expected, mean, sd, paper) in CONFIRM.items():
        r = p[f"{f} vs {s}"]
        rows.append(f"| {f} faster than {s} | {expected} | {math.exp(mean):.2f}x (log sd {sd:.2f}) | "
                    f"{100 * r['as seen']:.0f}% / {100 * r['half']:.0f}% / {100 * r['paper']:.1f}% |")
    return "\n".join(rows)


def count_power(n, p1, p2):
    """P(Fisher's one-sided p < ALPHA) for counts of n runs each with grokking rates p1, p2, exactly."""
    b = lambda k, p: math.comb(n, k) * p ** k * (1 - p) ** (n - k)
    return sum(b(k1, p1) * b(k2, p2) for k1 in range(n + 1) for k2 in range(n + 1)
               if fisher_one_sided(k1, n, k2, n) < ALPHA)


def power_table(p):
    rows = ["| regime | truth | control faster than lambda 0: reproduced / not | oracle faster than control: "
            "reproduced / not |", "|---|---|---|---|"]
    for regime in ("fixed", "refresh0.003", "fresh"):
        for account in ("paper", "rival"):
            r = p[regime][account]
            cell = lambda k: f"{100 * r[k][0]:.0f}% / {100 * r[k][1]:.0f}%"
            rows.append(f"| {regime} | {account}'s | {cell('control vs lambda 0')} | {cell('oracle vs control')} |")
    return "\n".join(rows)


# ---------------------------------------------------------------------------------------
# Summary, text and figure

def collect(results, args, cells_list=None):
    """{measure: {regime: {arm: {seed: t or None}}}} from run_sweep's results (the registered runs and
    amendment 1's, or the cells given)."""
    out = {m: {} for m in TIME_MEASURES}
    for cells in cells_list or (runs(args), strong_runs(args)):
        for regime, arms in cells.items():
            for arm, rs in arms.items():
                for label, cfg in rs:
                    if label in results:
                        for m, t in measures(*results[label]).items():
                            out.setdefault(m, {})
                            out[m].setdefault(regime, {}).setdefault(arm, {})[cfg.seed] = t
    return out


def summarize(times, budgets, seeds, confirm_times=None, extras=None):
    """The summary information.json holds: per regime the judged comparisons and the reading
    (t_95), and, described beside it, every arm's censored median by each measure and every
    stored run's times (REPORT.md's run table); amendment 1's cells beside, never in a reading;
    amendment 2's hypotheses on its own seeds (confirm_times: {measure: {arm: {seed: t}}}).
    Reported beside, never deciding (issue #84, 2026-12-02): every comparison by the held t_95 and
    the readings it would change; the controls that reached 0.95 where lambda 0's run never did
    (each such ratio a lower bound); the prior's value at LIVE_EPOCHS per arm (is the KL spent or
    live on the plateau?); extras: the measured targets and sizes at the weights, as main finds them."""
    n_seeds = len(seeds)
    complete = lambda m: {r: a for r, a in times.get(m, {}).items()
                          if all(len(a.get(arm, {})) == n_seeds for arm in ARMS)}
    judged = judge(complete("t_95"), budgets)
    by_grok = judge(complete("t_grok"), budgets)         # reported beside, never deciding
    by_held = judge(complete("t_95_held"), budgets)
    timed = {m: by for m, by in times.items() if m in TIME_MEASURES}
    medians = {m: {r: {arm: analysis.fmt_median(list(ts.values()), budgets[r]) for arm, ts in arms.items()}
                   for r, arms in by.items()} for m, by in timed.items()}
    grokked = {r: {arm: f"{sum(t is not None for t in ts.values())}/{len(ts)}" for arm, ts in arms.items()}
               for r, arms in times["t_95"].items()}
    confirm_times = confirm_times or {}
    return {"regimes": judged, "by_t_grok": by_grok, "by_t_95_held": by_held, "held_changes": changes(judged, by_held),
            "medians": medians, "reached_0.95": grokked, "budgets": budgets,
            "stored_runs": sum(len(ts) for arms in times["t_95"].values() for arm, ts in arms.items() if arm in ARMS),
            "planned_runs": n_seeds * len(ARMS) * len(budgets), "deciding_measure": f"t_{round(100 * DECIDING_ACC)}",
            "seeds": list(seeds), "times": {m: {r: {arm: {str(s): t for s, t in sorted(ts.items())} for arm, ts in arms.items()}
                                                for r, arms in by.items()} for m, by in timed.items()},
            "rescued": rescued(times["t_95"], budgets), "liveness": liveness(times),
            "amendment 1": judge_strong(times, budgets, n_seeds),
            "amendment 2": judge_confirm(confirm_times.get("t_95", {})),
            "amendment 2 by t_95 held": judge_confirm(confirm_times.get("t_95_held", {})),
            "amendment 2 medians": {m: {arm: analysis.fmt_median(list(ts.values()), budgets[CONFIRM_REGIME])
                                        for arm, ts in by.items()} for m, by in confirm_times.items() if m in TIME_MEASURES},
            **(extras or {})}


def changes(judged, beside):
    """[(regime, comparison, verdict by t_95, verdict beside)] where the two differ, and each regime's
    reading that would change."""
    out = [(r, name, c["verdict"], beside[r]["comparisons"][name]["verdict"]) for r, j in judged.items()
           for name, c in j["comparisons"].items()
           if r in beside and beside[r]["comparisons"][name]["verdict"] != c["verdict"]]
    out += [(r, "reading", j["reading"], beside[r]["reading"]) for r, j in judged.items()
            if r in beside and beside[r].get("reading") != j.get("reading")]
    return out


def rescued(t95, budgets):
    """{regime: {control: {seed: the lower bound budget / t_95}}}: the seeds where lambda 0 never reached
    0.95 within the budget and the control did (`fixed` aside, where lambda 0 never does)."""
    out = {}
    for regime, arms in t95.items():
        base = arms.get("lambda 0", {})
        for arm, ts in arms.items():
            hits = {s: budgets[regime] / t for s, t in ts.items() if arm != "lambda 0" and regime != "fixed"
                    and s in base and base[s] is None and t is not None}
            if hits:
                out.setdefault(regime, {})[arm] = {str(s): v for s, v in sorted(hits.items())}
    return out


def liveness(times):
    """{regime: {arm: {epoch: the median prior value there}}} over the arms with a prior (the runs
    still going at that epoch)."""
    out = {}
    for e in LIVE_EPOCHS:
        for regime, arms in times.get(f"prior_{e}", {}).items():
            for arm, vs in arms.items():
                vs = [v for v in vs.values() if v is not None]
                if ARMS.get(arm, {}).get("lam") and ARMS[arm].get("prior_kind") != "logit-noise" and vs:
                    out.setdefault(regime, {}).setdefault(arm, {})[str(e)] = float(np.median(vs))
    return out


def target_profiles(seeds=SEEDS, p=113):
    """What each KL target of the study puts where, over the training rows of `add` at p, averaged over
    the seeds: its mean mass on the operands, the distractors and `=`, and (the shuffled target) the
    share of rows that keep one operand and that put mass on `=`."""
    from tasks import make_task
    rows = {}
    for seed in seeds:
        task = make_task("add", p=p, seed=seed)
        ops, dis, eq = task.informative, task.distractor_pos, task.query_pos
        for name, q in (("oracle", task.oracle_for("train")), ("uniform", task.uniform_for("train")),
                        ("shuffled", controls.shuffled_target(task, "train", seed))):
            r = rows.setdefault(name, {"operands": [], "distractors": [], "=": [], "one operand": [], "mass on =": []})
            r["operands"].append(float(q[:, ops].sum(-1).mean()))
            r["distractors"].append(float(q[:, dis].sum(-1).mean()))
            r["="].append(float(q[:, eq].mean()))
            r["one operand"].append(float(((q[:, ops] > 0).sum(-1) == 1).float().mean()))
            r["mass on ="].append(float((q[:, eq] > 0).float().mean()))
    return {name: {k: round(float(np.mean(v)), 4) for k, v in r.items()} for name, r in rows.items()}   # float32 sums


def text(summary):
    return "\n".join(markdown(summary, bold=False))


# What each regime can decide (issue #84, 2026-12-02: the registered power table, and what the runs showed)
ROLES = {"fixed": "tests the rival weakly: lambda 0 never leaves chance here (its attention stays on the fixed "
                  "distractors), so there is no plateau to end, and a control that does not grok says little",
         "refresh0.003": "the regime that informs: lambda 0 memorizes, then sits on a plateau it ends slowly",
         "fresh": "the paper's own setup; described, never deciding (the registered power table: the two "
                  "accounts' predictions differ here by less than the 1.25x that counts)"}


def estimate(c):
    """A speed-up as REPORT.md and the README print it: 'x [lo, hi]', prefixed '>=' or '<=' where it
    rests on censored runs (compare's "bound")."""
    f = lambda v: f"{math.exp(v):.2f}x" if math.isfinite(v) else ("0" if v < 0 else "inf")
    mark = {">=": ">= ", "<=": "<= "}.get(c.get("bound", ""), "")
    return f"{mark}{f(c['estimate'])} [{f(c['ci'][0])}, {f(c['ci'][1])}]"


def comparison_line(c):
    """One comparison: its verdict and estimate (a bound where it rests on one), or the count test's text."""
    if "ci" not in c:                       # the count test, or one informative seed (no interval)
        return f"{c['verdict']}: {c.get('text') or c.get('reason', '')}"
    what = c["text"].split(":", 1)[0]
    extra = {"bounds both ways": "; its ratios are bounds both ways"}.get(c.get("bound"), "")
    return f"{c['verdict']}: {what} {estimate(c)} (counts from {SMALLEST:g}x){extra}; {c.get('reason') or 'every ratio measured'}"


def markdown(d, bold=True):
    """REPORT.md's section, from information.json alone (bold=False: the printout's plain text)."""
    strong = (lambda s: f"**{s}**") if bold else str
    lines = ["## Beyond the paper: the information or any live gradient (registered, docs/registered/information.md)", "",
             f"- {d['stored_runs']} of {d['planned_runs']} runs stored (seeds {d['seeds'][0]}-{d['seeds'][-1]}); t_95, "
             "the first epoch test accuracy reaches 0.95, decides; the held t_95 (from which it stays at or above "
             "0.95 to the run's end) and t_grok beside. [information.png](information.png)"]
    lines += controls_lines(d)
    for regime, budget in d["budgets"].items():
        med = lambda m, arm: d["medians"].get(m, {}).get(regime, {}).get(arm, "-")
        arms = d["reached_0.95"].get(regime, {})
        lines.append(f"- {strong(regime)} (budget {budget:,}): {ROLES[regime]}")
        lines.append("  - " + "; ".join(
            f"{arm} {arms[arm]} reached 0.95, median t_95 {med('t_95', arm)} (held {med('t_95_held', arm)}, t_grok "
            f"{med('t_grok', arm)}, t_struct {med('t_struct', arm)})" for arm in arms))
        live = d.get("liveness", {}).get(regime)
        if live:
            lines.append("  - the prior's value at epochs " + ", ".join(map(str, LIVE_EPOCHS)) + " (median over runs): "
                         + "; ".join(f"{arm} " + ", ".join(f"{v:.3f}" for v in by.values()) for arm, by in live.items()))
        r = d["regimes"].get(regime)
        if r is None:
            lines.append("  - not decided: not every arm has all its seeds stored")
            continue
        beside = {m: d.get(key, {}).get(regime, {}).get("comparisons", {}) for m, key in
                  (("t_grok", "by_t_grok"), ("held t_95", "by_t_95_held"))}
        for name, c in r["comparisons"].items():
            other = [f"{m}: {b[name]['verdict']}" for m, b in beside.items() if name in b and b[name]["verdict"] != c["verdict"]]
            lines.append(f"  - {comparison_line(c)}" + (f" (by {'; by '.join(other)})" if other else ""))
        role = "" if r.get("decides", True) else " (described, not deciding)"
        lines.append(f"  - reading{role}: {strong(r['reading'])}" + ("; per control: " + ", ".join(
            f"{k} {v}" for k, v in r["per_control"].items()) if r.get("per_control") else ""))
        held = d.get("by_t_95_held", {}).get(regime, {}).get("reading")
        if held and held != r["reading"]:
            lines.append(f"  - by the held t_95 instead (reported, never deciding) the reading would be {held}")
        for arm, bounds in d.get("rescued", {}).get(regime, {}).items():
            lines.append(f"  - {arm} reached 0.95 on the {len(bounds)} seed(s) whose lambda 0 run never did within "
                         f"{budget:,} epochs: seed " + ", ".join(f"{s} (>= {v:.2f}x)" for s, v in bounds.items()))
    if d.get("amendment 1"):
        lines.append("- Amendment 1 (registered 2026-11-29, before its runs): the rival's noise at RMS 1e-2, the top of "
                     "its range, beside the readings above and never changing them")
        for cell, a in d["amendment 1"].items():
            lines.append(f"  - {cell}: side {strong(a['side'])}" + (f" (memorized: {a['memorized']})" if "memorized" in a
                                                                   else f" ({a['reason']})"))
            lines += [f"    - {comparison_line(c)}" for c in a.get("comparisons", {}).values()]
    if d.get("amendment 2"):
        c, med = d["amendment 2"], d.get("amendment 2 medians", {})
        lines.append("- Amendment 2 (registered 2026-11-29, before its runs): `fresh`'s described result put to seeds "
                     "210-229; a control's side there, *rival*, is confirmed if it is reproduced faster than lambda 0 "
                     "and the oracle is not reproduced faster than it")
        if med.get("t_95"):
            lines.append("  - median t_95 (held; t_grok): " + "; ".join(
                f"{a} {t} ({med.get('t_95_held', {}).get(a, '-')}; {med['t_grok'][a]})" for a, t in med["t_95"].items()))
        if "comparisons" not in c:
            lines.append(f"  - not decided: {c.get('reason', '')}")
        else:
            held = d.get("amendment 2 by t_95 held", {}).get("comparisons", {})
            lines += [f"  - {comparison_line(h)} (confirms if {h['confirms']})"
                      + (f" (by the held t_95: {held[k]['verdict']})" if k in held and held[k]["verdict"] != h["verdict"] else "")
                      for k, h in c["comparisons"].items()]
            lines += [f"  - {ctl}: side {strong(c['side'][ctl])}, " + ("confirmed" if ok else "not confirmed")
                      for ctl, ok in c["confirmed"].items()]
            lines.append(f"  - beside (described): {comparison_line(c['beside'])}")
    return lines + [""]


def controls_lines(d):
    """The controls as they are (issue #84): what each KL target puts where, and each control's gradient at
    the weights beside the oracle KL's, along its own run."""
    lines = []
    t = d.get("targets")
    if t:
        lines.append("- the KL targets, over the training rows (mean mass on the operands / distractors / `=`): "
                     + "; ".join(f"{n} {r['operands']:.2f} / {r['distractors']:.2f} / {r['=']:.2f}" for n, r in t.items())
                     + f"; the shuffled target keeps one operand in {t['shuffled']['one operand']:.0%} of rows and puts "
                       f"mass on `=` in {t['shuffled']['mass on =']:.0%}")
    z = d.get("sizes")
    if z:
        rows = z["sizes"]
        epochs = list(next(iter(rows.values())))
        lines.append(f"- each control's gradient at W_Q (RMS; its own run, `fresh`, seed {z['seed']}), at epochs "
                     + ", ".join(epochs) + ": " + "; ".join(
                         f"{arm} " + ", ".join(f"{r[e]['control']['W_Q']:.1e}" for e in epochs) for arm, r in rows.items())
                     + "; the task's own at W_Q in the oracle's run " + ", ".join(
                         f"{rows['oracle'][e]['task']['W_Q']:.1e}" for e in epochs))
    return lines


def task_gradient_rms(cfg, at=DOSE_EPOCHS):
    """{epoch: {weight matrix: RMS of its gradient}} of one run at the epochs `at`, each read after
    that epoch's backward and before its step, as train.train takes them (amendment 1's dose
    check: on a lambda 0 run, the task gradient the rival's noise is set beside)."""
    out = {}

    def read(epoch, run):
        if epoch in at:
            out[epoch] = {n: float(p.grad.pow(2).mean().sqrt()) for n, p in run.model.named_parameters() if p.dim() >= 2}
    train.train(train.override(cfg, {"epochs": max(at), "stop_after": None}), on_step=read)
    return out


# The controls' size at the weights (issue #84, 2026-12-02; described, never judged): along each arm's own
# run in `fresh` (the first seed), the RMS of the gradient its term alone gives these parameters, beside
# the task cross-entropy's, at these epochs (the same initialisation in every arm at epoch 0)
SIZE_ARMS, SIZE_PARAMS, SIZE_EPOCHS = ("oracle", "uniform", "shuffled", "logit noise", "weight noise"), \
    ("W_Q", "W_K", "embed"), (0, 200, 1000)


SIZES_FILE = "information_sizes.json"


def term_gradient_rms(cfg, at=SIZE_EPOCHS, params=SIZE_PARAMS):
    """{epoch: {"control": {param: RMS}, "task": {param: RMS}}} along the run cfg names: at each epoch
    in `at`, before its step, the gradient of the control's term alone (lambda(t) times the prior, or
    the weight noise) and of the task cross-entropy alone, from a second forward on the same weights.
    The noise controls' draws come from a copy of the run's stream, so the run is the run it would be."""
    import torch
    out = {}

    def read(epoch, run):
        if epoch not in at:
            return
        model, batch = run.model, run.train_set
        weights = [getattr(model, n) for n in params]
        o = run.forward(batch, uncompiled=True)
        ce = torch.nn.functional.cross_entropy(o["logits"].double(), batch["y"])
        noise = None
        if run.noise is not None:
            noise = train.generator_on(run.device)
            noise.set_state(run.noise.get_state())
        lam = train.prior_weight(run.cfg, epoch)
        term = (lam * train.prior_loss(o["scores"], batch["target"], run.cfg.prior_kind, noise) if run.cfg.lam
                else train.weight_noise(model, run.cfg.weight_noise, noise))
        rms = lambda loss: {n: (0.0 if g is None else float(g.pow(2).mean().sqrt())) for n, g in
                            zip(params, torch.autograd.grad(loss, weights, retain_graph=True, allow_unused=True))}
        out[epoch] = {"control": rms(term), "task": rms(ce)}
    train.train(train.override(cfg, {"epochs": max(at), "stop_after": None}), on_step=read)
    return out


def dose_table(rms):
    names = list(next(iter(rms.values())))
    return "\n".join([f"task-gradient RMS per weight matrix (noise RMS {WEIGHT_NOISE_RMS:g} and 1e-2 beside it)",
                      "epoch  " + " ".join(f"{n:>8s}" for n in names)]
                     + [f"{e:5d}  " + " ".join(f"{v[n]:8.1e}" for n in names) for e, v in rms.items()])


TITLES = {"fixed": "fixed distractors", "refresh0.003": "redrawn at ρ 0.003", "fresh": "fresh (the paper's; described)"}


def plot(times, budgets, path, confirm=None, seeds=SEEDS):
    """t_grok per arm, one panel per regime run; a run that never grokked is an open triangle at its
    budget. Beside each run a black dash marks its t_95, the measure that decides (at the budget if
    never). Amendment 2's runs (confirm: {measure: {arm: {seed: t}}}), once any is stored, in a last panel."""
    plt = plots.pyplot()
    # (arms drawn, t_grok, t_95, budget, title) per panel; amendment 1's arm once run
    panels = [(list(ARMS) + [a for a in STRONG if a in times["t_grok"].get(r, {})], times["t_grok"].get(r, {}),
               times["t_95"].get(r, {}), budgets[r], f"{TITLES[r]} (budget {budgets[r]:,})")
              for r in BUDGETS if times["t_grok"].get(r)]
    if confirm and confirm.get("t_grok"):
        panels.append((list(CONFIRM_ARMS), confirm["t_grok"], confirm["t_95"], budgets[CONFIRM_REGIME],
                       f"fresh, seeds {CONFIRM_SEEDS[0]}-{CONFIRM_SEEDS[-1]} (amendment 2)"))
    colour = {arm: f"C{i}" for i, arm in enumerate(list(ARMS) + list(STRONG))}      # one colour per arm throughout
    fig, axes = plt.subplots(1, len(panels), figsize=(4.7 * len(panels), 4.6), sharey=True)
    for ax, (drawn, grok, t95s, budget_, title) in zip(axes, panels):
        for i, arm in enumerate(drawn):
            ts, t95 = grok.get(arm, {}), t95s.get(arm, {})
            jitter = np.linspace(-0.18, 0.18, len(ts)) if len(ts) > 1 else [0.0]
            for j, (seed, t) in enumerate(ts.items()):
                ax.scatter(i + jitter[j], t or budget_, color=colour[arm], s=22,
                           marker="o" if t else "^", facecolors=colour[arm] if t else "none")
                ax.scatter(i + jitter[j], t95.get(seed) or budget_, color="black", s=30, marker="_", lw=0.9)
        ax.axhline(budget_, color="gray", lw=0.6, ls=":")
        ax.set_xticks(range(len(drawn)), drawn, rotation=30, ha="right")
        ax.set(yscale="log", xlim=(-0.5, len(drawn) - 0.5), ylim=(500, 1.6 * max(budgets.values())), title=title)
    axes[0].set_ylabel("t_grok (test accuracy 0.99), epochs")
    axes[0].text(0.02, 0.97, "open triangle: never grokked within the budget (drawn at it)\n"
                 "black dash: the run's t_95 (test accuracy 0.95), which decides", va="top",
                 transform=axes[0].transAxes, fontsize=7, color="gray")
    seeds = f"seeds {seeds[0]}-{seeds[-1]}" if len(seeds) > 1 else f"seed {seeds[0]}"
    plots.save_figure(fig, path, f"The information or any gradient: KL prior (lambda {LAM:g}) and its controls, "
                                 f"{seeds} (docs/registered/information.md)")


# ---------------------------------------------------------------------------------------
# The command line

def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    sweep.add_scale_args(p, QUICK)
    sweep.add_sweep_args(p)
    p.add_argument("--power", action="store_true", help="print the design's power table and exit")
    p.add_argument("--sizes", action="store_true", help="measure the controls' size at the weights (each arm's first "
                                                        "`fresh` run, epochs 0, 200, 1000) into information_sizes.json")
    p.add_argument("--dose", action="store_true", help="print amendment 1's dose check (the lambda 0 run of the "
                                                       "first seed under `fixed`: its task gradient's size) and exit")
    p.set_defaults(seeds=list(SEEDS), regime="fresh", partial_ok=True)
    return p


def parse(argv=None):
    return sweep.apply_quick(get_parser().parse_args(argv), QUICK)


def main(argv=None):
    args = parse(argv)
    if args.power:
        print(power_table(power(len(args.seeds))) + "\n\namendment 2:\n" + confirm_power_table(confirm_power()))
        return
    if args.dose:
        cfg = runs(args, {"lambda 0": {}}, ("fixed",))["fixed"]["lambda 0"][0][1]
        cfg.threads, cfg.device, cfg.quiet = 1, "cpu", True
        print(dose_table(task_gradient_rms(cfg, DOSE_EPOCHS if not args.quick else (100, 200))))
        return
    if args.sizes:
        cells = runs(args, {a: ARMS[a] for a in SIZE_ARMS}, ("fresh",))["fresh"]
        sizes = {}
        for arm in SIZE_ARMS:
            cfg = cells[arm][0][1]
            cfg.threads, cfg.device, cfg.quiet = 1, "cpu", True
            sizes[arm] = term_gradient_rms(cfg, SIZE_EPOCHS if not args.quick else (0, 20, 100))
            print(arm, sizes[arm])
        os.makedirs(args.results_dir, exist_ok=True)
        store.write_json(os.path.join(args.results_dir, SIZES_FILE), {"seed": args.seeds[0], "regime": "fresh", "sizes": sizes})
        return
    results = sweep.run_sweep(planned_runs(args), args)
    budgets = {r: budget(args, r) for r in BUDGETS}
    times = collect(results, args)
    confirm = {m: by.get(CONFIRM_REGIME, {}) for m, by in collect(results, args, [{CONFIRM_REGIME: confirm_runs(args)}]).items()}
    sizes = os.path.join(args.results_dir, SIZES_FILE)
    extras = {"targets": target_profiles(args.seeds, args.p),
              **({"sizes": store.read_json(sizes)} if os.path.exists(sizes) else {})}
    summary = summarize(times, budgets, args.seeds, confirm, extras)
    print(text(summary))
    os.makedirs(args.results_dir, exist_ok=True)
    store.write_json(os.path.join(args.results_dir, "information.json"), summary)
    plot(times, budgets, os.path.join(args.results_dir, "information.png"), confirm, args.seeds)


if __name__ == "__main__":
    main()