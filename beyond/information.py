"""Beyond the paper, part four: is it the information or any live gradient? The KL prior to the
oracle (the paper's mechanism, §5, Thm. 5.2) against the 2026 "Adam freeze" account (any live
auxiliary gradient ends AdamW's plateau, detached noise included). Registered in
docs/registered/information.md before any of its runs.

    python -m beyond.information --jobs 2 --threads 1     # every run (seed by seed, resumable)
    python -m beyond.information --plot-only             # judge and draw from the store
    python -m beyond.information --power                 # the registration's power table, recomputed
    python -m beyond.information --dose                  # amendment 1's dose check: the task gradient's size
    python -m beyond.information --quick                  # the small model, one seed, a few minutes

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
import plots
import store
import sweep
import train
from analysis import first_epoch
from verdicts import rules as A

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
QUICK = dict(p=sweep.QUICK_MODEL["p"], seeds=[0], epochs=3000)
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
    come after all 180, seed by seed, then amendment 2's."""
    cells, strong, confirm = runs(args), strong_runs(args), confirm_runs(args)
    return ([cells[regime][arm][i] for i in range(len(args.seeds))
             for regime in ("fixed", "refresh0.003", "fresh") for arm in ARMS]
            + [strong[regime][arm][i] for i in range(len(args.seeds)) for regime in STRONG_REGIMES for arm in STRONG]
            + [confirm[arm][i] for i in range(len(next(iter(confirm.values())))) for arm in CONFIRM_ARMS])


def measures(summary, history):
    """The times of one run (None: never within its budget): t_95 decides; t_mem (train accuracy
    0.99) is amendment 1's premise."""
    return {"t_95": first_epoch(history, "test_acc", DECIDING_ACC), "t_grok": summary["grok_epoch"],
            "t_struct": summary["struct_epoch"], "t_mem": summary["mem_epoch"]}


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
    up = lambda k, n: A.clopper_pearson_one_sided(k, n, 0.025)[1]
    return {"verdict": A.REPRODUCED if p < ALPHA else A.INCONCLUSIVE, "p": p, "counts": [k1, n1, k2, n2],
            "text": f"{what}: {k1}/{n1} against {k2}/{n2} grokked (Fisher one-sided p = {p:.2g}; rates at most "
                    f"{up(k1, n1):.2f} and {up(k2, n2):.2f}, 97.5%)"}


def compare(times, faster, slower, regime, budget_):
    """One comparison of two arms' deciding times ({arm: {seed: t_95 or None}}) in a regime."""
    what = f"{faster} faster than {slower}"
    if regime == "fixed":
        return count_verdict(times[faster], times[slower], what)
    v = A.speedup_verdict_v4(times[slower], times[faster], budget_, what=what, smallest=SMALLEST)
    return {**v, "text": f"{what}: " + (v.get("text") or v.get("reason", ""))}


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
    out = {m: {} for m in ("t_95", "t_grok", "t_struct", "t_mem")}
    for cells in cells_list or (runs(args), strong_runs(args)):
        for regime, arms in cells.items():
            for arm, rs in arms.items():
                for label, cfg in rs:
                    if label in results:
                        for m, t in measures(*results[label]).items():
                            out[m].setdefault(regime, {}).setdefault(arm, {})[cfg.seed] = t
    return out


def summarize(times, budgets, seeds, confirm_times=None):
    """The summary information.json holds: per regime the judged comparisons and the reading
    (t_95), and, described beside it, every arm's censored median by each measure and every
    stored run's times (REPORT.md's run table); amendment 1's cells beside, never in a reading;
    amendment 2's hypotheses on its own seeds (confirm_times: {measure: {arm: {seed: t}}})."""
    n_seeds = len(seeds)
    complete = lambda m: {r: a for r, a in times[m].items() if all(len(a.get(arm, {})) == n_seeds for arm in ARMS)}
    judged = judge(complete("t_95"), budgets)
    by_grok = judge(complete("t_grok"), budgets)         # reported beside, never deciding
    medians = {m: {r: {arm: analysis.fmt_median(list(ts.values()), budgets[r]) for arm, ts in arms.items()}
                   for r, arms in by.items()} for m, by in times.items()}
    grokked = {r: {arm: f"{sum(t is not None for t in ts.values())}/{len(ts)}" for arm, ts in arms.items()}
               for r, arms in times["t_95"].items()}
    return {"regimes": judged, "by_t_grok": by_grok, "medians": medians, "reached_0.95": grokked, "budgets": budgets,
            "stored_runs": sum(len(ts) for arms in times["t_95"].values() for arm, ts in arms.items() if arm in ARMS),
            "planned_runs": n_seeds * len(ARMS) * len(budgets), "deciding_measure": f"t_{round(100 * DECIDING_ACC)}",
            "seeds": list(seeds), "times": {m: {r: {arm: {str(s): t for s, t in sorted(ts.items())} for arm, ts in arms.items()}
                                                for r, arms in by.items()} for m, by in times.items()},
            "amendment 1": judge_strong(times, budgets, n_seeds),
            "amendment 2": judge_confirm((confirm_times or {}).get("t_95", {})),
            "amendment 2 medians": {m: {arm: analysis.fmt_median(list(ts.values()), budgets[CONFIRM_REGIME])
                                        for arm, ts in by.items()} for m, by in (confirm_times or {}).items()}}


def text(summary):
    lines = [f"Information or any gradient (docs/registered/information.md): {summary['stored_runs']} of "
             f"{summary['planned_runs']} runs stored; t_95 decides"]
    for regime, b in summary["budgets"].items():
        lines.append(f"\n{regime} (budget {b:,} epochs)")
        for arm in ARMS:
            med = lambda m: summary["medians"][m].get(regime, {}).get(arm, "-")
            lines.append(f"  {arm:13s} reached 0.95: {summary['reached_0.95'].get(regime, {}).get(arm, '-'):6s} "
                         f"median t_95 {med('t_95')}, t_grok {med('t_grok')}, t_struct {med('t_struct')}")
        r = summary["regimes"].get(regime)
        if r is None:
            lines.append("  not decided: not every arm has all its seeds")
            continue
        beside = summary["by_t_grok"].get(regime, {}).get("comparisons", {})
        for name, c in r["comparisons"].items():
            lines.append(f"  {c['verdict']}: {c['text']}")
            if name in beside and beside[name]["verdict"] != c["verdict"]:
                lines.append(f"    by t_grok instead (reported, not deciding): {beside[name]['verdict']}: "
                             f"{beside[name]['text']}")
        lines.append(f"  reading{reading_role(r)}: {r['reading']}"
                     + (f" (per control: {r['per_control']})" if "per_control" in r else ""))
    lines.append("\nAmendment 1 (registered 2026-11-29): the rival's noise at RMS 1e-2, beside the readings above")
    for cell, a in summary.get("amendment 1", {}).items():
        med = lambda m: summary["medians"][m].get(cell.split("/")[0], {}).get(cell.split("/")[1], "-")
        lines.append(f"  {cell}: side {a['side']}" + (f", memorized {a['memorized']}, median t_95 {med('t_95')}"
                                                      if "memorized" in a else f" ({a['reason']})"))
        lines += [f"    {c['verdict']}: {c['text']}" for c in a.get("comparisons", {}).values()]
    lines.append("\nAmendment 2 (registered 2026-11-29): `fresh`'s described result, seeds 210-229")
    lines += confirm_lines(summary)
    return "\n".join(lines)


def confirm_lines(summary):
    """Amendment 2's lines for the printout: its arms' medians, each comparison's verdict and the one
    that confirms, each control's side, the oracle against lambda 0 beside."""
    c, med = summary.get("amendment 2", {}), summary.get("amendment 2 medians", {})
    lines = ["  median t_95 (t_grok): " + "; ".join(f"{a} {t} ({med['t_grok'][a]})" for a, t in med["t_95"].items())
             ] if med.get("t_95") else []
    if "comparisons" not in c:
        return lines + [f"  not decided: {c.get('reason', 'not run')}"]
    return (lines + [f"  {h['verdict']} (confirms if {h['confirms']}): {h['text']}" for h in c["comparisons"].values()]
            + [f"  {ctl}: side {c['side'][ctl]}, " + ("confirmed" if ok else "not confirmed")
               for ctl, ok in c["confirmed"].items()]
            + [f"  beside (described): {c['beside']['verdict']}: {c['beside']['text']}"])


def task_gradient_rms(cfg, at=DOSE_EPOCHS):
    """{epoch: {weight matrix: RMS of its gradient}} of one run at the epochs `at`, each read after
    that epoch's backward and before its step, as train.train takes them (amendment 1's dose
    check: on a lambda 0 run, the task gradient the rival's noise is set beside)."""
    run, out = train.start(cfg), {}
    for epoch in range(max(at) + 1):
        lam = train.epoch_data(run, epoch, 0)
        train.epoch_forward(run, lam, False)
        if epoch in at:
            out[epoch] = {n: float(p.grad.pow(2).mean().sqrt()) for n, p in run.model.named_parameters() if p.dim() >= 2}
        train.epoch_step(run, lam)
    return out


def dose_table(rms):
    names = list(next(iter(rms.values())))
    return "\n".join([f"task-gradient RMS per weight matrix (noise RMS {WEIGHT_NOISE_RMS:g} and 1e-2 beside it)",
                      "epoch  " + " ".join(f"{n:>8s}" for n in names)]
                     + [f"{e:5d}  " + " ".join(f"{v[n]:8.1e}" for n in names) for e, v in rms.items()])


def reading_role(judged):
    """'' for a regime whose reading decides; for `fresh`, that its reading is a description."""
    return "" if judged.get("decides", True) else (" (described, not deciding: the design cannot tell the "
                                                  "accounts apart here, docs/registered/information.md)")


TITLES = {"fixed": "fixed distractors", "refresh0.003": "redrawn at ρ 0.003", "fresh": "fresh (the paper's; described)"}


def plot(times, budgets, path, confirm=None):
    """t_grok per arm, one panel per regime; a run that never grokked is an open triangle at its budget.
    Beside each run a black dash marks its t_95, the measure that decides (at the budget if never).
    Amendment 2's runs (confirm: {measure: {arm: {seed: t}}}), once any is stored, in a fourth panel."""
    plt = plots.pyplot()
    # (arms drawn, t_grok, t_95, budget, title) per panel; amendment 1's arm once run
    panels = [(list(ARMS) + [a for a in STRONG if a in times["t_grok"].get(r, {})], times["t_grok"].get(r, {}),
               times["t_95"].get(r, {}), budgets[r], f"{TITLES[r]} (budget {budgets[r]:,})") for r in BUDGETS]
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
    plots.save_figure(fig, path, f"The information or any gradient: KL prior (lambda {LAM:g}) and its controls, "
                                 "seeds 200-209 (docs/registered/information.md)")


# ---------------------------------------------------------------------------------------
# The command line

def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    sweep.add_scale_args(p, QUICK)
    sweep.add_sweep_args(p)
    p.add_argument("--power", action="store_true", help="print the design's power table and exit")
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
    results = sweep.run_sweep(planned_runs(args), args)
    budgets = {r: budget(args, r) for r in BUDGETS}
    times = collect(results, args)
    confirm = {m: by.get(CONFIRM_REGIME, {}) for m, by in collect(results, args, [{CONFIRM_REGIME: confirm_runs(args)}]).items()}
    summary = summarize(times, budgets, args.seeds, confirm)
    print(text(summary))
    os.makedirs(args.results_dir, exist_ok=True)
    store.write_json(os.path.join(args.results_dir, "information.json"), summary)
    plot(times, budgets, os.path.join(args.results_dir, "information.png"), confirm)


if __name__ == "__main__":
    main()
