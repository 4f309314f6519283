"""The paper's claims judged: one function per claim, each returning {part: verdict dict} from the
summaries the study scripts write; every verdict comes from the rules in audit/rules.py (rules v4
decide, v3 is shown beside; docs/stats.md), and nothing else decides. Here too: the parts untestable
by premise, the one rule for a choice made after its data, the power plans' notes. REPORT.md
(audit/report.py) and the README's blocks (audit/readme.py) only lay out what this returns.

    claims.verdicts("results")           # {claim: (verdict, {part: verdict dict})}
"""
import collections
import math
import os

import numpy as np

import analysis
from audit import dates as D
from audit import rules as A
from audit import studies
from audit import policy
from audit.policy import (ADDENDUM, C10_NO_PLATEAU, NO_PLATEAU, NOT_TESTED, UNTESTABLE_PARTS, V4_PLAN_STUDIES,     # noqa: F401
                             V4_PLANNED, cost_text, mark_untestable, plan_power, plan_status, study_of,
                             v4_plan_note)     # what the report and tests read here too
from audit.summaries import NAMING, label, naming, restrict     # noqa: F401
from audit.summaries import by_seed as _by_seed, cell_times as _cell_times, load as _load, summary as _summary

PAPER = {claim: statement for claim, (_, statement) in studies.CLAIMS.items()}
PAPER_SHORT = {claim: short for claim, (short, _) in studies.CLAIMS.items()}


# ---------------------------------------------------------------------------------------
# One function per claim, each returning {part: verdict dict} from the summaries the scripts
# wrote; every verdict comes from the rules in audit/rules.py (nothing else decides)


# The rules that decide (docs/stats.md, version 4, registered 2026-11-26 before this recomputation)
# and the ones REPORT.md shows beside them
DECIDING, BESIDE = "v4", "v3"

def _speedup(d, baseline, arm, R, what="speed-up"):
    """Rule 2 for 'arm groks faster than baseline' from a study summary {grok: {arm: [per seed]}};
    where the study extended its censored runs (--extend), each run is censored at its own budget."""
    budget = d["budget"] if "budgets" not in d else \
        (_by_seed(d["budgets"][baseline], d["seeds"]), _by_seed(d["budgets"][arm], d["seeds"]))
    times = {a: _by_seed(d["grok"][a], d["seeds"]) for a in (baseline, arm)}
    drawn = {a: {int(s): t for s, t in d.get("retrain_grokked_within", {}).get(a, {}).items()} for a in times}
    return _other_draws(R.speedup(times[baseline], times[arm], budget, what), times, drawn,
                        lambda read: R.speedup(read[baseline], read[arm], budget, what))


def _other_draws(v, times, drawn, judge):
    """Rules v4, rule 8 as amended 2026-11-26: a censored run's retrain that grokked within the
    budget its run never grokked in (extend.run_extended) is another draw, not read; the verdict
    v says so, with judge's verdict on the times with those retrains read in place beside it.
    times and drawn: {arm: {seed: grok epoch}}, the same seed keys."""
    other = [f"{a} seed {s} at {t}" for a in drawn for s, t in drawn[a].items()]
    if not other:
        return v
    w = judge({a: {**times[a], **drawn.get(a, {})} for a in times})
    x = lambda e: "inf" if e == math.inf else "0" if e == -math.inf else f"{math.exp(e):.2f}x"
    note = (f"retrained on to 5x the budget, {len(other)} censored run(s) grokked within the budget their run never "
            f"grokked in ({', '.join(other)}): another draw, not the run's continuation, so the run stays a bound "
            f"(rules v4, rule 8 as amended 2026-11-26); with them read in place: {w['verdict']}"
            + (f", {x(w['estimate'])} [{x(w['ci'][0])}, {x(w['ci'][1])}]" if "ci" in w else ""))
    return {**v, "reason": "; ".join(filter(None, [v.get("reason"), note])), "read_in_place": w}


def claim_c1(results, R=A.RULES[DECIDING], use=None):
    d = _summary(results, "fig1", use)
    if d is None:
        return None
    rows = d["rows"].values()
    return {
        "four phases in order (memorize, gradient collapse, condense before test acc 0.5, grok)":
            {**R.property([analysis.meets_regime_criterion(m, d["budget"]) for m in rows], "seeds in order"),
             "label": "four phases in order"},
        f"diffuse attention at memorization (informative mass <= {analysis.FOUND_MASS}; uniform 0.2)":
            {**R.level([m["mass_at_mem"] for m in rows], 0.0, analysis.FOUND_MASS, "informative mass at t_mem", (0, 1)),
             "label": "diffuse attention at memorization"},
    }


def claim_c2(results, R=A.RULES[DECIDING], use=None):
    d = _summary(results, "fig2", use)
    if d is None:
        return None
    bands = D.bands("c2 bands", d.get("p", 113))       # full, partial, chance: ours (audit/dates.py)
    return {f"{cell}: paper {c['paper']}": R.level(c["final_test_acc"], *bands[c["paper"]], "final test acc", (0, 1))
            for cell, c in d["grid"].items() if c["paper"] in bands}     # "-": the paper states nothing


# Rules v3's rooms for the 1/lambda law, named before the verdicts were recomputed (docs/stats.md):
# Figure 3's grid less its two strongest lambda (the floor's end), and the same rule on C3f's grid
ROOM_C3 = (0.003, 0.01, 0.03, 0.1, 0.3)
ROOM_C3F = (0.01, 0.02, 0.03, 0.05, 0.1, 0.2)
# the sensitivity study's reference row of the headline (docs/registered/sensitivity.md, amendment 3)
HEADLINE_DEFAULT = "default (the regime map's cells)"
PLATEAU_LAM = 1.0             # v3: "the prior removes the plateau" judged at lambda = 1 against lambda = 0


# Rules v4, rule 9: Eq. 7's amendment (2026-11-25) decides a law only on seeds run after it, per
# regime: C3f's held-out `fixed` seeds (docs/plan.md, "Rules v4's plan", 7). C3's and C3b's laws
# have none (deciding them costs more than 10 core-hours).
EQ7_HELD_OUT = {"fixed": frozenset(range(10, 20))}
EQ7_PLAN_ROW = {"fixed": 7}             # the row of docs/plan.md that runs them
EQ7_AMENDED_STATUS = "Eq. 7's amendment (2026-11-25) postdates these runs"
EQ7_AMENDED = EQ7_AMENDED_STATUS + ": it decides only on seeds run after it"


def _fig3_parts(d, label, R, room=ROOM_C3, short=None):
    """Rule 2's plateau part and rule 6's law on one Figure 3 summary, named `label` (REPORT.md);
    each carries its README label, `short` (the label without seeds or asides) and the part."""
    times = {1 / float(l): _by_seed(v["grok"], d["seeds"]) for l, v in d["table"].items() if float(l) > 0}
    grok = {float(l): _by_seed(v["grok"], d["seeds"]) for l, v in d["table"].items()}
    parts = {}
    if 0.0 in grok and PLATEAU_LAM in grok:
        parts[f"{label}: the prior removes the plateau (t_grok(0) / t_grok(lambda = {PLATEAU_LAM:g}))"] = {
            **R.speedup(grok[0.0], grok[PLATEAU_LAM], d["budget"]),
            "label": f"{short or label}: the prior removes the plateau"}
    strongest = max(l for l in grok if l > 0)           # Eq. 7's floor cell, named: the grid's strongest prior
    law = R.scaling(times, d["budget"], [1 / l for l in room], "1/lambda", floor_x=1 / strongest)
    if (R.version == "v4" and law["verdict"] != A.NOT_DECIDED
            and not set(d["seeds"]) <= EQ7_HELD_OUT.get(d["regime"], frozenset())):
        held = sorted(EQ7_HELD_OUT.get(d["regime"], ()))
        note = EQ7_AMENDED + (f": held-out seeds {held[0]}-{held[-1]} decide it (docs/plan.md, rules v4's plan, "
                              f"row {EQ7_PLAN_ROW[d['regime']]})"
                              if held else " (none is planned: deciding this law costs more than 10 core-hours)")
        law = {**law, "verdict": A.INCONCLUSIVE, "reason": "; ".join(filter(None, [note, law.get("reason")])),
               **({"note": note, "status": f"{EQ7_AMENDED_STATUS}; {plan_status(EQ7_PLAN_ROW[d['regime']], False)}"}
                  if held else {})}
    elif R.version == "v4" and law["verdict"] != A.NOT_DECIDED:      # the held-out seeds: they decide it
        note = (f"held-out seeds {d['seeds'][0]}-{d['seeds'][-1]}, run after Eq. 7's amendment "
                f"(docs/plan.md, rules v4's plan, row {EQ7_PLAN_ROW[d['regime']]})")
        law = {**law, "note": note, "reason": "; ".join(filter(None, [note, law.get("reason")])),
               "status": f"held-out seeds {d['seeds'][0]}-{d['seeds'][-1]}, run after Eq. 7's amendment "
                         f"(plan, row {EQ7_PLAN_ROW[d['regime']]})"}
    parts[f"{label}: t_grok - floor ~ 1/lambda over the named room (Eq. 7)"] = {
        **law, "label": f"{short or label}: t_grok - floor ~ 1/lambda over the named room"}
    return parts


def eq7_before_after(d, R, room=ROOM_C3):
    """Rules v4, rule 9: one Figure 3 summary's law read without Eq. 7's floor (t ~ x^beta over
    the named room) and with it (as amended 2026-11-25): (before, after)."""
    times = {1 / float(l): _by_seed(v["grok"], d["seeds"]) for l, v in d["table"].items() if float(l) > 0}
    strongest = max(float(l) for l in d["table"] if float(l) > 0)
    return tuple(R.scaling(times, d["budget"], [1 / l for l in room], "1/lambda", floor_x=fx)
                 for fx in (None, 1 / strongest))


def fig3_room(d):
    """The named room a Figure 3 summary is judged over: C3f's on a `fixed` grid that holds it
    (the dense grid of seeds 0-9), C3's otherwise (what the claims below pass)."""
    return ROOM_C3F if d["regime"] == "fixed" and all(f"{l:g}" in d["table"] for l in ROOM_C3F) else ROOM_C3


def fig3_parts_v3(d, label):
    """Rules v3 on one Figure 3 summary over its claim's room."""
    return _fig3_parts(d, label, A.RULES["v3"], fig3_room(d))


def _fig3_claim(results, study, where, R, use=None, room=ROOM_C3, short=None):
    """Rule 6 on one Figure 3 summary of the registry; where(d) names its setting (short(d): the
    same without its seeds, the README's)."""
    d = _summary(results, study, use)
    return None if d is None else _fig3_parts(d, where(d), R, room, short(d) if short else None)


def claim_c3(results, R=A.RULES[DECIDING], use=None):
    return _fig3_claim(results, "fig3", lambda d: f"distractors {d['regime']}", R, use)


def claim_c3_other_regimes(results, R=A.RULES[DECIDING]):
    """Figure 3 under the other regimes that were run, and the regime map's KL speed-up per
    (rho, lambda) cell, each judged on its own (never used to change the default regime's verdict)."""
    out = {}
    for f in sorted(os.listdir(results)):
        if f.startswith("fig3_kl_") and f.endswith(".json") and "_seeds" not in f:   # held-out: C3b
            d = _load(results, f)
            out.update(_fig3_parts(d, f"`{f}`, distractors {d['regime']}", R))
    d = _load(results, "regime_map.json")          # the map's KL speed-up per distractor regime
    cells = (d or {}).get("cells", {})
    for key, cell in cells.items():
        base = cells.get(f"rho{cell['rho']:g}_wd{cell['wd']:g}_lam0")
        v = None if cell["lam"] == 0 or base is None else R.speedup(_cell_times(base), _cell_times(cell), d["budget"])
        if v is not None:
            out[f"regime map {key}: KL speed-up t_grok(0) / t_grok(lambda)"] = v
    return out


def claim_c3_paper_regime(results, R=A.RULES[DECIDING], use=None):
    """C3 judged where the lambda = 0 baseline shows the paper's story: the regime map's
    pre-registered selection (docs/registered/regime_map.md), on the held-out seeds 5-9 the selection never saw.
    (The map's selection names the held-out summary; `use` reads another study in its place only for
    "heldout_fig3", as the fifth addendum's sixth seed does.)"""
    d = _load(results, "regime_map.json")
    if d is None:
        return None
    part = "t_grok ~ 1/lambda where the baseline shows the paper's story (held-out seeds)"
    sel = d.get("selection")
    if sel is None:
        return {part: {"verdict": A.NOT_DECIDED, "n": 0,
                       "reason": "the regime map selects a cell once every lambda = 0 cell has its five seeds"}}
    other = (use or {}).get("heldout_fig3")
    f = _load(results, sel["fig3_file"] if other in (None, "heldout_fig3") else studies.summary(other))
    where = f"cell {sel['cell']}" + ("" if sel["shows_regime"] else " (the closest cell: none shows the paper's regime)")
    if f is None:
        return {f"{where}: {part}": {"verdict": A.NOT_DECIDED, "n": 0, "reason": "held-out runs not done: python "
                                     + " ".join(sel["commands"][0]) + " --jobs 2"}}
    return _fig3_parts(f, f"{where}, seeds {f['seeds']}", R, short=f"cell {sel['cell']}")


def claim_c3_fixed(results, R=A.RULES[DECIDING], use=None):
    """C3 under fixed distractors on the dense lambda grid at seeds 0-9 (20k budget); a decided law says how
    many seeds' absence alone would move it (fragility)."""
    parts = _fig3_claim(results, "fig3_fixed",
                        lambda d: f"distractors fixed, seeds {d['seeds']}, {d['budget']}-epoch budget", R, use, ROOM_C3F,
                        lambda d: f"distractors fixed, {d['budget']}-epoch budget")
    for part, v in (parts or {}).items():
        if "Eq. 7" in part and v["verdict"] in (A.REPRODUCED, A.NOT_REPRODUCED) and len(v.get("slopes", ())) > 2:
            k = fragility(v["slopes"])
            v["fragile"] = k
            v["reason"] = "; ".join(filter(None, [v.get("reason"), f"fragile: leaving out any one of {k} of the "
                                                  f"{len(v['slopes'])} seeds puts the interval's lower end below 1.5"
                                                  if k else ""]))
    return parts


def fragility(slopes, edge=1 + A.SLOPE_MARGIN_V3):
    """How many single seeds, each left out alone, put the t-interval of the per-seed slopes' lower end
    below `edge` (the law band's upper edge): the seeds a 'not reproduced' law rests on."""
    s = np.asarray(slopes, float)
    return int(sum(A.t_interval(np.delete(s, i))[1] < edge for i in range(len(s))))


def claim_c4(results, R=A.RULES[DECIDING], use=None):
    d = _summary(results, "fig4", use)
    if d is None:
        return None
    times = {a: {s: g for s, g in d["grok"][a].items() if g != "missing"} for a in ("lottery", "bayes")}
    # --extend (rules v4, rule 8): each ticket censored at the budget it was trained to; the
    # pair is (treatment's, reference's), as the ratio is bayes / lottery
    budget = d["budget"] if "budgets" not in d else (d["budgets"]["bayes"], d["budgets"]["lottery"])
    judge = lambda t: R.noninferiority(t["lottery"], t["bayes"], budget, what="bayes/lottery time ratio")
    drawn = {a: d.get("retrain_grokked_within", {}).get(a, {}) for a in times}
    return {f"Bayesian ticket matches or outperforms the lottery ticket (non-inferiority, margin {A.NONINFERIORITY:g}x)":
            {**_other_draws(judge(times), times, drawn, judge),
             "label": "Bayesian ticket matches or outperforms the lottery ticket"}}


def _runs_by_seed(d):
    """A bound summary's runs pooled per seed (n counts seeds: a seed's lambdas are pooled first)."""
    by_seed = {}
    for name, r in d["runs"].items():
        by_seed.setdefault(name.rsplit("_seed", 1)[-1], []).append(r)
    return by_seed


def c5_bound(d, R=A.RULES[DECIDING]):
    """C5's first part on a bound summary: rule 5b on every (thinned) logged point."""
    by_seed = _runs_by_seed(d)
    if d["total_violations"]:               # any violation refutes an exact inequality, points counted or not
        bound = {"verdict": A.NOT_REPRODUCED, "n": len(by_seed), "violations": d["total_violations"],
                 "text": f"{d['total_violations']} violations of Lemma 5.1's bound",
                 "reason": "an exact inequality is not reproduced by a single violation beyond rounding"}
    elif not all("points" in r for rs in by_seed.values() for r in rs):
        bound = {"verdict": A.NOT_DECIDED, "n": 0, "reason": "the summary predates rule 5b: redraw it "
                                                               "(python exp_appendix.py bound --plot-only)"}
    else:
        bound = R.exact({s: sum(r["points"] for r in rs) for s, rs in by_seed.items()},
                        {s: sum(r["violating_points"] for r in rs) for s, rs in by_seed.items()}, "Lemma 5.1's bound")
    return bound


def claim_c5(results, R=A.RULES[DECIDING], use=None):
    d = _summary(results, "bound", use)
    if d is None:
        return None
    return {"the bound holds at every logged point": c5_bound(d, R), "measured/bound falls after memorization": c5_drop(d, R)}


def c5_drop(d, R=A.RULES[DECIDING]):
    """C5's second part on a bound summary: measured/bound before memorization over on the plateau, per
    seed, against "far below" (the smallest effect that counts: 2x)."""
    drops = [float(np.mean([np.log(r["before memorization"] / r["plateau"]) for r in rs]))
             for rs in ([r for r in rs if r.get("before memorization") and r.get("plateau")]
                        for rs in _runs_by_seed(d).values()) if rs]
    return R.effect(drops, math.log(D.number("c5 drop")), "before/plateau ratio (per seed)", fmt=lambda x: f"{np.exp(x):.1f}x")


# The runs made after a choice, where they were registered to confirm or decide it (audit.dates, a
# choice's `confirm`): {choice key: Confirm}. Every other late choice leaves its part judged on the seeds
# stored after it, or inconclusive (date_check).
#   summary  the summary of the runs made after the choice
#   test     what those runs must show
#   decide   decide(summary, label) -> True (the choice confirmed: the part reads as the choice says), False
#            (refuted: inconclusive), or a verdict dict (the part decided on those runs alone)
#   rests_on rests_on(verdict) -> whether the reading depends on the choice at all (a violation of an exact
#            bound refutes it at every point, whatever the window)
#   name     the choice in two words, as the README names it
Confirm = collections.namedtuple("Confirm", "summary test decide rests_on name", defaults=(lambda v: True, "its premise"))


def _no_parity_plateau(d, label):
    """Row 18's test of C9 parity's premise: no run of either arm has a plateau to measure (per seed, its
    starvation reads None: it grokked with no plateau after memorization)."""
    runs = [d["runs"].get(f"parity/{arm}") for arm in ("baseline", "kl")]
    return all(r is not None and all(s is None for s in r["starved_per_seed"]) for r in runs)


def _no_baseline_groks(*cells):
    """The test of a premise "no run without a prior groks": every named cell has runs, and none of them grokked."""
    return lambda d, label: all(bool(d["cells"].get(c, {}).get("grok")) and all(t is None for t in d["cells"][c]["grok"].values())
                                for c in cells)


CONFIRM = {
    "rho 0.001 premise": Confirm("regime_map_rho0.001_seeds5-14_e10000.json", "no lambda = 0 run at rho 0.001, wd 1, "
                                 "seeds 5-14 groks within 10,000 epochs", _no_baseline_groks("rho0.001_wd1_lam0")),
    # the eighth addendum (docs/plan.md, row 20, registered 2026-12-06 before its runs)
    "fixed premise": Confirm("regime_map_fixed_seeds20-24_e10000.json", "no lambda = 0 run under fixed distractors, "
                             "wd 0.5, 1, 2 or 4, seeds 20-24, groks within 10,000 epochs",
                             _no_baseline_groks(*(f"rho0_wd{wd:g}_lam0" for wd in (0.5, 1, 2, 4)))),
    "window": Confirm("fig5_bound_seeds120-127.json", "seeds 120-127, the window fixed in advance, decide it by rule 5b",
                      lambda d, label: c5_bound(d, A.RULES["v4"]), lambda v: not v.get("violations"), "its window"),
    "parity premise": Confirm("fig10_tasks_seeds5-10.json", "no sparse parity run of seeds 5-10 has a plateau after "
                              "memorization to starve (plan, sixth addendum, row 18)", _no_parity_plateau),
    "c5 drop": Confirm("fig5_bound_seeds120-127.json", "seeds 120-127, run after it, decide it",
                       lambda d, label: c5_drop(d, A.RULES["v4"]), name="its threshold"),
}
C5_CONFIRMING = CONFIRM["window"].summary


def date_check(claim, parts, results, judge, study=None):
    """policy.date_check with this file's confirmations (CONFIRM)."""
    return policy.date_check(claim, parts, results, judge, study, CONFIRM)


def premise_confirmed(results, choice, label=""):
    return policy.premise_confirmed(results, choice, label, CONFIRM)


def claim_c6(results, R=A.RULES[DECIDING], use=None):
    d = _summary(results, "priors", use)
    if d is None:
        return None
    arms = d["grok"]
    parts = {f"{arm} faster than weight decay alone": _speedup(d, "baseline", arm, R)
             for arm in ("kl", "entropy", "sparsity", "teacher", "anneal", "late") if arm in arms}
    for arm in ("entropy", "sparsity"):
        if arm in arms and "kl" in arms:
            parts[f"oracle KL faster than {arm}"] = _speedup(d, arm, "kl", R)
    return parts


def priors_secondary(d, R=A.RULES[DECIDING]):
    """The priors study's secondary comparisons, written down before their runs (docs/figures.md,
    "Figures 6–7") and never part of C6's verdict: the uniform-KL control and every arm run at
    the lower lambda (`arm@lam`) against weight decay alone, and the oracle KL against the
    uniform control at equal lambda (does the target's information matter, beyond a gradient?)."""
    arms = d["grok"]
    pairs = [(a, "baseline") for a in arms if "@" in a or a == "uniform"]
    pairs += [(kl, kl.replace("kl", "uniform")) for kl in arms if kl.split("@")[0] == "kl"
              and kl.replace("kl", "uniform") in arms]
    return {f"{fast} faster than {slow}": _speedup(d, slow, fast, R) for fast, slow in pairs}


def claim_c7(results, R=A.RULES[DECIDING], use=None):
    r, l = _summary(results, "routing", use), _summary(results, "lengths", use)
    if r is None and l is None:
        return None
    parts = {}
    if r is not None:
        parts["KL faster under dynamic routing"] = _speedup(r, "baseline", "kl", R)
    if l is not None:
        acc = l["accuracy"]
        seeds = sorted(set(acc["baseline"]) & set(acc["kl"]))
        gain = [np.mean([acc["kl"][s][L] - acc["baseline"][s][L] for L in acc["kl"][s] if int(L) > 6]) for s in seeds]
        parts["KL keeps higher accuracy at longer test lengths"] = R.effect(     # five points of accuracy count
            gain, D.number("c7 gain"), "mean accuracy gain over lengths > 6", fmt=lambda x: f"{x:+.3f}")
    return parts


def _kendall(xs, ts):
    """Kendall's tau between xs and ts (ties count 0)."""
    pairs = [(i, j) for i in range(len(xs)) for j in range(i + 1, len(xs))]
    return sum(np.sign(xs[j] - xs[i]) * np.sign(ts[j] - ts[i]) for i, j in pairs) / max(1, len(pairs))


def claim_c8(results, R=A.RULES[DECIDING], use=None):
    dm, hd = _summary(results, "dims", use), _summary(results, "heads", use)
    if dm is None and hd is None:
        return None
    parts = {}
    if dm is not None:
        ds = sorted(dm["struct"], key=lambda k: int(k[1:]))
        per_seed = [(_kendall([int(k[1:]) for k in ds], [A.censor(dm["struct"][k][i], dm["budget"]) for k in ds]))
                    for i in range(len(dm["seeds"]))]
        parts["larger d reaches B_tau sooner"] = R.effect(                  # a weak rank correlation counts
            [-t for t in per_seed], D.number("c8 tau"), "-Kendall tau(d, t_struct)", fmt=lambda x: f"{x:+.2f}")
    if hd is not None:
        parts[f"{hd['n_heads']} heads meet B_tau in aggregate while no single head does"] = R.property(
            [v["first_distributed"] is not None for v in hd["seeds"].values()], "seeds")
    return parts


def claim_c9(results, R=A.RULES[DECIDING], use=None):
    ts = [d for d in (_summary(results, "tasks", use), _summary(results, "autoregressive", use)) if d]
    if not ts:
        return None
    parts = {}
    for d in ts:
        tasks = sorted({k.split("/")[0] for k in d["runs"]})
        for t in tasks:
            missing = [a for a in ("baseline", "kl") if f"{t}/{a}" not in d["runs"]]
            faster, starves = "KL faster", "the bound holds, and starves the attention gradient after memorization"
            if missing:                  # a partial summary (results/partial/): an arm has no stored run
                parts[f"{t}: {faster}"] = {"verdict": A.NOT_DECIDED, "n": 0, **naming(t, faster),
                                           "reason": f"no stored run of the {missing[0]} arm"}
                continue
            base, kl = d["runs"][f"{t}/baseline"], d["runs"][f"{t}/kl"]
            parts[f"{t}: {faster}"] = {**R.speedup(_by_seed(base["grok"], base.get("seeds", d["seeds"])),
                                                   _by_seed(kl["grok"], kl.get("seeds", d["seeds"])), d["budget"]),
                                       **naming(t, faster)}
            per_seed = base.get("starved_per_seed")
            parts[f"{t}: {starves}"] = {**(
                {"verdict": A.NOT_REPRODUCED, "n": len(d["seeds"]), "reason": "bound violated"}
                if base["violations"] + kl["violations"] else
                R.property(per_seed, "seeds whose plateau ratio fell below the pre-memorization ratio")
                if per_seed is not None else
                {"verdict": A.NOT_DECIDED, "n": 0, "reason": "no per-seed starvation data in this summary"}),
                **naming(t, starves)}
    return parts


def claim_c10(results, R=A.RULES[DECIDING], use=None):
    fr, op = _summary(results, "frozen", use), _summary(results, "optimizers", use)
    if fr is None and op is None:
        return None
    parts = {}
    if fr is not None:
        parts["frozen oracle attention groks faster than the baseline"] = _speedup(fr, "baseline", "frozen", R)
    if op is not None:
        for name, v in op["settings"].items():
            parts[f"{name}: the MLP norm contracts on the plateau"] = {
                **R.property([None if r is None else r > 0 for r in v["plateau_rate"]], "seeds contracting"),
                **naming(name, "the MLP norm contracts on the plateau")}
            if all(r is None for r in v["plateau_rate"]):
                parts[f"{name}: the MLP norm contracts on the plateau"].update(
                    reason=no_plateau_reason(v.get("marks")), status=NO_PLATEAU)
    return parts


def no_plateau_reason(marks):
    """Why no seed has a plateau [t_mem, t_struct) to fit: no memorization, or B_tau met first."""
    if marks is None:                                     # a summary from before the marks were kept
        return "no plateau to measure"
    mem = [m for m in marks if m.get("t_mem") is not None]
    early = sum(m["t_struct"] is not None and m["t_struct"] <= m["t_mem"] for m in mem)
    if not mem:
        return "no plateau to measure: no seed memorized"
    return (f"no plateau to measure: {len(mem)} of {len(marks)} seeds memorized; {early} of them met B_tau first "
            f"(t_struct <= t_mem), {len(mem) - early} met it fewer than three logged epochs after")


ROOM_C11 = (0.5, 1.0, 2.0)        # x = 1/wd at wd 2, 1, 0.5, the map's grid less its strongest decay (named with v3)
C11_REGIMES = ((0.0, "fixed"), (0.001, "rho 0.001"), (0.003, "rho 0.003"), (0.01, "rho 0.01"), (1.0, "fresh"))


def c11_law(name):
    """The name of C11's 1/wd part for one regime (REPORT.md and the map's figure)."""
    return f"{name}: t_grok ~ 1/wd over the named room"


def c11_from_cells(cells, budget, eq5_parts, R=A.RULES[DECIDING]):
    """C11 from the regime map's cells: per regime, the 1/wd law over the named
    room (rule 6) and Eq. 5's bound per seed (rule 5, as the map's summary judged it: eq5_parts).
    audit/regime_map.py prints and draws the same parts."""
    parts = {}
    for rho, name in C11_REGIMES:
        times = {1 / c["wd"]: _cell_times(c) for c in cells if c["rho"] == rho and c["lam"] == 0}
        if times:
            parts[c11_law(name)] = {**R.scaling(times, budget, ROOM_C11, "1/wd"),
                                    **naming(name, "t_grok ~ 1/wd over the named room")}
        eq5 = eq5_parts.get(f"{name}: plateau >= Eq. 5's bound")
        if eq5:
            parts[f"{name}: plateau >= Eq. 5's bound"] = {**eq5, **naming(name, "plateau >= Eq. 5's bound")}
    return parts


def claim_c11(results, R=A.RULES[DECIDING], use=None):
    d = _summary(results, "regime_map", use)
    if d is None:
        return None
    if d.get("c11"):
        return c11_from_cells(d["cells"].values(), d["budget"], d["c11"], R)
    return {"t_grok ~ 1/wd": {"verdict": A.NOT_DECIDED, "n": 0, "reason": "no weight-decay sweep in the map's summary yet"}}


CLAIMS = {"C1": claim_c1, "C2": claim_c2, "C3": claim_c3, "C3b": claim_c3_paper_regime, "C3f": claim_c3_fixed,
          "C4": claim_c4,
          "C5": claim_c5, "C6": claim_c6,
          "C7": claim_c7, "C8": claim_c8, "C9": claim_c9, "C10": claim_c10, "C11": claim_c11}


def study_parts(results, name, R=A.RULES[DECIDING]):
    """The parts of its claim that one study of the registry gives on its own, None if it has no
    summary: the claim's rules read this study in its role (a variant or a plan study in the role
    of the study it repeats), and nothing else; a plan study, only the parts it decides."""
    s = studies.STUDIES[name]
    if s.claim not in CLAIMS:
        return None
    use = {s.variant_of or s.plan_for or name: name}
    parts = CLAIMS[s.claim](results, R, use=use)
    if parts is not None and s.plan_parts:
        parts = {p: v for p, v in parts.items() if s.plan_parts in p}
    parts = mark_untestable(s.claim, parts, R, results=results, study=name)
    if R.version == "v4":
        parts = date_check(s.claim, parts, results, lambda: CLAIMS[s.claim](results, R, use=use), study=name)
    return parts


def with_plan_seeds(results, claim, parts, R):
    """The power plan's studies of a claim (studies.py, plan_for) in place of the five-seed parts
    they decide, once their summaries are written (docs/plan.md, "How the plan runs"); each such
    part names its study ("plan"). A part whose name carries its seeds (C3f's law: "seeds [10, ...,
    19]") replaces the part of the study it repeats that is named at that study's seeds, and
    names it ("replaces"): the plan's seeds decide the part, the first seeds no longer vote."""
    for name, s in studies.STUDIES.items():
        if s.claim != claim or s.plan_for is None:
            continue
        got = {part: v for part, v in (CLAIMS[claim](results, R, use={s.plan_for: name}) or {}).items()
               if s.plan_parts is None or s.plan_parts in part}
        if not got:
            continue
        at_seeds = {label(part, v): part for part, v in (study_parts(results, s.plan_for, R) or {}).items()
                    if part in (parts or {}) and part not in got}
        replaced = {part: at_seeds.get(label(part, v)) for part, v in got.items()}
        parts = {part: v for part, v in (parts or {}).items() if part not in replaced.values()}
        for part, v in got.items():
            parts[part] = {**v, "plan": name, **({"replaces": replaced[part]} if replaced[part] else {})}
    return parts


def with_addendum_runs(results, claim, parts, R):
    """The parts the addenda's studies of `claim` decide (ADDENDUM), each read from its seeds alone once
    its summary is stored, in place of its twin at the earlier seeds ("replaces"), a later row in place of
    an earlier, with its row ("addendum") and, where the design was chosen after seeing data, that."""
    for name, row, wanted, disclosed in ADDENDUM.get(claim, ()):
        if not parts or _load(results, studies.summary(name)) is None:
            continue
        got = {p: v for p, v in (CLAIMS[claim](results, R, use={studies.STUDIES[name].variant_of: name}) or {}).items()
               if wanted(p)}
        note = f"at the seeds of rules v4's plan, row {row} (docs/plan.md)"          # the addenda's rows
        made = {p: {**v, "plan": name, "addendum": row, "note": note, "status": plan_status(row, True),
                    "reason": "; ".join(filter(None, [v.get("reason"), note, disclosed])),
                    **({"disclosed": disclosed} if disclosed else {})} for p, v in got.items()}
        out = {}
        for part, v in parts.items():
            twin = next((p for p, w in made.items() if label(p, w) == label(part, v)), None)
            out[twin or part] = v if twin is None else {**made[twin], **({"replaces": part} if twin != part else {})}
        parts = out
    return parts


def decides(name, part=None):
    """A variant study's role in its claim's verdict, for one part (or the study, part None):
    "decides" where its runs decide the part (the fifth addendum's studies, ADDENDUM; the runs made
    after a window chosen after its data, CONFIRM), "premise" where they confirm or refute a
    premise marked after its data, None where they are reported beside and never enter it."""
    s = studies.STUDIES[name]
    add = policy.addendum_row(s.claim, name)
    if add and (part is None or add[2](part)):
        return "decides"
    for key, after in CONFIRM.items():
        if after.summary == s.summary and (part is None or D.BY_KEY[key].applies(s.claim, part)):
            return "premise" if after.name == "its premise" else "decides"
    return None


def beside(results, claim, R=A.RULES[DECIDING]):
    """What is reported under a claim, by its role in the verdict (decides()): {role: {label: {part:
    verdict dict}}}, role "decides", "premise" or None (beside, never deciding), for its pre-registered
    variants (studies.py, variant_of), and under None the priors' secondary comparisons."""
    out = {"decides": {}, "premise": {}, None: {}}
    for name, s in studies.STUDIES.items():
        if s.claim == claim and s.variant_of:
            parts = study_parts(results, name, R)
            if parts is None:
                out[decides(name)][s.title] = {"": {"verdict": A.NOT_DECIDED, "n": 0,
                                                    "reason": f"not run yet: python {' '.join(s.command)} --jobs 2"}}
            for part, v in (parts or {}).items():
                out[decides(name, part)].setdefault(s.title, {})[part] = v
    for name, s in studies.STUDIES.items():          # the priors study and its variants
        d = _load(results, s.summary) if (s.variant_of or name) == "priors" and s.claim == claim else None
        if d is not None and priors_secondary(d, R):
            out[None][f"{s.title}, secondary comparisons"] = priors_secondary(d, R)
    return out


def verdicts(results, only=None, rules=DECIDING, with_plan=True, plan_seeds=True):
    """{claim: (verdict, {part: verdict dict})} under the named rules; parts None where the study has no summary. with_plan: the power plan's untestable
    parts say so; plan_seeds: the plan's studies decide the parts they were run for (False: the
    five-seed verdicts, as the plan found them). A summary that cannot be read makes
    its claim "not decided" in a report, but under pytest every error is raised: a bug in a
    claim function must fail the tests, not read as missing data."""
    out = {}
    R = A.RULES[rules]
    for claim, fn in CLAIMS.items():
        if only is not None and claim not in only:
            continue
        try:
            parts = fn(results, R)
            if plan_seeds:
                parts = with_addendum_runs(results, claim, with_plan_seeds(results, claim, parts, R), R)
            parts = mark_untestable(claim, parts, R, with_plan, results)
            if R.version == "v4":
                parts = date_check(claim, parts, results, lambda: rejudge(results, claim, R, plan_seeds))
        except Exception as e:
            if "PYTEST_CURRENT_TEST" in os.environ:
                raise
            parts = {"reading the summary": {"verdict": A.NOT_DECIDED, "n": 0, "reason": f"error: {e!r}"}}
        combine = getattr(R, "combine", A.combine)
        out[claim] = ("not run", {}) if parts is None else (combine(parts), parts)
    return out


def rejudge(results, claim, R, plan_seeds=True):
    """A claim's parts as verdicts() reads them (plan and addendum studies in place), before the
    after-data rule: what date_check judges again on the seeds stored after a choice."""
    parts = CLAIMS[claim](results, R)
    return with_addendum_runs(results, claim, with_plan_seeds(results, claim, parts, R), R) if plan_seeds else parts


def direction(v):
    """Beside a part's verdict (issue #72): whether its interval is clear of no effect, and on which
    side, whatever the smallest effect that counts (ours) says. Parts judged by an interval of an
    effect in the paper's direction (speed-ups, effects) or of a time ratio (non-inferiority, where
    the paper's side is faster); "" for the others."""
    lo, hi = v.get("ci", (None, None))
    if lo is None or hi is None or not ("smallest" in v or "margin" in v):
        return ""
    if "room" in v:                                     # a law's exponent: above 0, the time rises with x
        return ("direction: rises with x, clear of no dependence" if lo > 0 else
                "direction: falls with x, clear of no dependence" if hi < 0 else "direction: not clear of no dependence")
    if "margin" in v:                                   # log(t_treatment / t_reference): below 0 is faster
        return ("direction: faster, clear of no difference" if hi < 0 else
                "direction: slower, clear of no difference" if lo > 0 else "direction: not clear of no difference")
    return ("direction: the paper's, clear of no effect" if lo > 0 else
            "direction: against the paper's, clear of no effect" if hi < 0 else "direction: not clear of no effect")