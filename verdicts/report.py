"""The claims and their verdicts, from the summaries the study scripts write: what
results/REPORT.md, the README's verdict table, and each study's closing lines print. Every
verdict comes from the rules in analysis.py ("Verdict rules", version 3 deciding, 2 and 1
shown beside); nothing else decides.

    report.verdicts("results")           # {claim: (verdict, {part: verdict dict})}
    report.print_parts("results/fig6_priors.json")  # a study's closing lines
"""
import collections
import json
import math
import os
import re

import numpy as np

import analysis
from verdicts import rules as A
from verdicts import studies

PAPER = {claim: statement for claim, (_, statement) in studies.CLAIMS.items()}
PAPER_SHORT = {claim: short for claim, (short, _) in studies.CLAIMS.items()}


# ---------------------------------------------------------------------------------------
# The report: one function per claim, each returning {part: verdict dict} from the summaries
# the scripts wrote; every verdict comes from the rules in analysis.py (nothing else decides)


# The rules that decide (docs/stats.md, version 4, registered 2026-11-26 before this recomputation)
# and the ones REPORT.md shows beside them
DECIDING, BESIDE = "v4", "v3"

def _load(results, name):
    path = os.path.join(results, name)
    return json.load(open(path)) if os.path.exists(path) else None


def _summary(results, role, use=None):
    """The summary a claim reads for one of its studies (`role`, a registry name). `use` maps
    roles to the studies read in their place ({"priors": "priors_rho"}: the same rules on a
    variant's summary); a role it leaves out reads nothing. None: every role reads itself."""
    name = role if use is None else use.get(role)
    return None if name is None else _load(results, studies.summary(name))


def _by_seed(groks, seeds):
    """{seed: grok epoch or None} from a list aligned with seeds (runs not on disk, 'missing',
    dropped: they are not censored, they do not exist)."""
    return {s: g for s, g in zip(seeds, groks) if g != "missing"}


def _cell_times(cell):
    """{seed: grok epoch or None} of a regime-map cell (its grok is keyed by seed)."""
    return {int(s): t for s, t in cell["grok"].items() if t != "missing"}


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
    budget its run never grokked in (sweep.run_extended) is another draw, not read; the verdict
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
            R.property([analysis.meets_regime_criterion(m, d["budget"]) for m in rows], "seeds in order"),
        f"diffuse attention at memorization (informative mass <= {analysis.FOUND_MASS}; uniform 0.2)":
            R.level([m["mass_at_mem"] for m in rows], 0.0, analysis.FOUND_MASS, "informative mass at t_mem"),
    }


def claim_c2(results, R=A.RULES[DECIDING], use=None):
    d = _summary(results, "fig2", use)
    if d is None:
        return None
    chance = 1 / d.get("p", 113)
    bands = {"full": (0.99, 1.01), "partial": (3 * chance, 0.99), "chance": (0.0, 3 * chance)}
    return {f"{cell}: paper {c['paper']}": R.level(c["final_test_acc"], *bands[c["paper"]], "final test acc")
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
EQ7_AMENDED = "Eq. 7's amendment (2026-11-25) postdates these runs: it decides only on seeds run after it"


def _fig3_parts(d, label, R, room=ROOM_C3):
    times = {1 / float(l): _by_seed(v["grok"], d["seeds"]) for l, v in d["table"].items() if float(l) > 0}
    grok = {float(l): _by_seed(v["grok"], d["seeds"]) for l, v in d["table"].items()}
    parts = {}
    if 0.0 in grok and PLATEAU_LAM in grok:
        parts[f"{label}: the prior removes the plateau (t_grok(0) / t_grok(lambda = {PLATEAU_LAM:g}))"] = \
            R.speedup(grok[0.0], grok[PLATEAU_LAM], d["budget"])
    strongest = max(l for l in grok if l > 0)           # Eq. 7's floor cell, named: the grid's strongest prior
    law = R.scaling(times, d["budget"], [1 / l for l in room], "1/lambda", floor_x=1 / strongest)
    if (R.version == "v4" and law["verdict"] != A.NOT_DECIDED
            and not set(d["seeds"]) <= EQ7_HELD_OUT.get(d["regime"], frozenset())):
        held = sorted(EQ7_HELD_OUT.get(d["regime"], ()))
        note = EQ7_AMENDED + (f": held-out seeds {held[0]}-{held[-1]} decide it (docs/plan.md, rules v4's plan, "
                              f"row {EQ7_PLAN_ROW[d['regime']]})"
                              if held else " (none is planned: deciding this law costs more than 10 core-hours)")
        law = {**law, "verdict": A.INCONCLUSIVE, "reason": "; ".join(filter(None, [note, law.get("reason")])),
               **({"note": note} if held else {})}
    elif R.version == "v4" and law["verdict"] != A.NOT_DECIDED:      # the held-out seeds: they decide it
        note = (f"held-out seeds {d['seeds'][0]}-{d['seeds'][-1]}, run after Eq. 7's amendment "
                f"(docs/plan.md, rules v4's plan, row {EQ7_PLAN_ROW[d['regime']]})")
        law = {**law, "note": note, "reason": "; ".join(filter(None, [note, law.get("reason")]))}
    parts[f"{label}: t_grok - floor ~ 1/lambda over the named room (Eq. 7)"] = law
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


def _fig3_claim(results, study, where, R, use=None, room=ROOM_C3):
    """Rule 6 on one Figure 3 summary of the registry; where(d) names its setting."""
    d = _summary(results, study, use)
    return None if d is None else _fig3_parts(d, where(d), R, room)


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
    (`use` is not read: the map's selection names the held-out summary.)"""
    d = _load(results, "regime_map.json")
    if d is None:
        return None
    part = "t_grok ~ 1/lambda where the baseline shows the paper's story (held-out seeds)"
    sel = d.get("selection")
    if sel is None:
        return {part: {"verdict": A.NOT_DECIDED, "n": 0,
                       "reason": "the regime map selects a cell once every lambda = 0 cell has its five seeds"}}
    f = _load(results, sel["fig3_file"])
    where = f"cell {sel['cell']}" + ("" if sel["shows_regime"] else " (the closest cell: none shows the paper's regime)")
    if f is None:
        return {f"{where}: {part}": {"verdict": A.NOT_DECIDED, "n": 0, "reason": "held-out runs not done: python "
                                     + " ".join(sel["commands"][0]) + " --jobs 2"}}
    return _fig3_parts(f, f"{where}, seeds {f['seeds']}", R)


def claim_c3_fixed(results, R=A.RULES[DECIDING], use=None):
    """C3 under fixed distractors on the dense lambda grid at seeds 0-9 (20k budget)."""
    return _fig3_claim(results, "fig3_fixed",
                       lambda d: f"distractors fixed, seeds {d['seeds']}, {d['budget']}-epoch budget", R, use, ROOM_C3F)


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
            _other_draws(judge(times), times, drawn, judge)}


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
    by_seed = _runs_by_seed(d)
    drops = [float(np.mean([np.log(r["before memorization"] / r["plateau"]) for r in rs]))
             for rs in ([r for r in rs if r.get("before memorization") and r.get("plateau")] for rs in by_seed.values())
             if rs]
    # "far below": the smallest effect that counts is 2x
    return {"the bound holds at every logged point": c5_bound(d, R),
            "measured/bound falls after memorization": R.effect(drops, math.log(2), "before/plateau ratio (per seed)",
                                                                fmt=lambda x: f"{np.exp(x):.1f}x")}


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
            gain, 0.05, "mean accuracy gain over lengths > 6", fmt=lambda x: f"{x:+.3f}")
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
            [-t for t in per_seed], 0.2, "-Kendall tau(d, t_struct)", fmt=lambda x: f"{x:+.2f}")
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
            if missing:                  # a partial summary (results/partial/): an arm has no stored run
                parts[f"{t}: KL faster"] = {"verdict": A.NOT_DECIDED, "n": 0,
                                            "reason": f"no stored run of the {missing[0]} arm"}
                continue
            base, kl = d["runs"][f"{t}/baseline"], d["runs"][f"{t}/kl"]
            parts[f"{t}: KL faster"] = R.speedup(_by_seed(base["grok"], base.get("seeds", d["seeds"])),
                                                         _by_seed(kl["grok"], kl.get("seeds", d["seeds"])), d["budget"])
            per_seed = base.get("starved_per_seed")
            parts[f"{t}: the bound holds, and starves the attention gradient after memorization"] = (
                {"verdict": A.NOT_REPRODUCED, "n": len(d["seeds"]), "reason": "bound violated"}
                if base["violations"] + kl["violations"] else
                R.property(per_seed, "seeds whose plateau ratio fell below the pre-memorization ratio")
                if per_seed is not None else
                {"verdict": A.NOT_DECIDED, "n": 0, "reason": "no per-seed starvation data in this summary"})
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
            parts[f"{name}: the MLP norm contracts on the plateau"] = R.property(
                [None if r is None else r > 0 for r in v["plateau_rate"]], "seeds contracting")
            if all(r is None for r in v["plateau_rate"]):
                parts[f"{name}: the MLP norm contracts on the plateau"]["reason"] = no_plateau_reason(v.get("marks"))
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
    beyond/regime_map.py prints and draws the same parts."""
    parts = {}
    for rho, name in C11_REGIMES:
        times = {1 / c["wd"]: _cell_times(c) for c in cells if c["rho"] == rho and c["lam"] == 0}
        if times:
            parts[c11_law(name)] = R.scaling(times, budget, ROOM_C11, "1/wd")
        eq5 = eq5_parts.get(f"{name}: plateau >= Eq. 5's bound")
        if eq5:
            parts[f"{name}: plateau >= Eq. 5's bound"] = eq5
    return parts


def claim_c11(results, R=A.RULES[DECIDING], use=None):
    d = _summary(results, "regime_map", use)
    if d is None:
        return None
    if d.get("c11"):
        return c11_from_cells(d["cells"].values(), d["budget"], d["c11"], R)
    return {"t_grok ~ 1/wd": {"verdict": A.NOT_DECIDED, "n": 0, "reason": "no weight-decay sweep in the map's summary yet"}}


# Rules v3, rule 7 (docs/stats.md): parts whose premise never occurs here, with the reason and the
# design that would decide them; the power plan (power.py, docs/plan.md) adds the parts whose
# decision costs more than 10 core-hours, with its cost.
NO_PLATEAU = "no plateau to measure"
UNTESTABLE_PARTS = {
    "C9": {"parity: the bound holds, and starves the attention gradient after memorization": (
        "sparse parity groks 50-130 epochs after it starts, with no plateau after memorization to starve",
        "a parity task with a plateau (more input bits or a smaller train fraction)")},
    "C10": {**{f"{o}: the MLP norm contracts on the plateau": (
        f"{NO_PLATEAU}: every {o} seed meets B_tau before or as it memorizes",
        "a setting of this optimizer with a plateau (a smaller learning rate or a longer warm-up)")
        for o in ("muon", "bs512")},
            **{f"{o}: the MLP norm contracts on the plateau": (
                f"{NO_PLATEAU}: no {o} seed memorizes within the budget under optim.py's mapping of lr and wd",
                "a mapping under which it memorizes with a plateau (the sensitivity study tried the registered one: "
                "REPORT.md's choices block, C10)")
               for o in ("sgd", "lion", "bs128")}},
    "C11": {**{f"fixed: {part}": (
        "no run without a prior groks under fixed distractors: 0 of 20 within 10,000 epochs at wd 0.5-4, "
        "0 of 10 within 20,000 and 0 of 5 within 50,000 at wd 1 (the two clocks' H4)",
        "none known: the paper's premise, a delay set by weight decay, does not occur here")
        for part in ("t_grok ~ 1/wd over the named room", "plateau >= Eq. 5's bound")},
        # added 2026-11-26 (docs/stats.md, rule 7): this part had read "not decided, no data" since v3; its
        # premise, a plateau that ends in grokking, never occurs within the map's budget at rho 0.001
        "rho 0.001: plateau >= Eq. 5's bound": (
            "no run without a prior groks within the budget at rho 0.001: 0 of 20 within 10,000 epochs "
            "at wd 0.5-4, so no plateau ends to be measured",
            "the 40k-epoch design of this regime's law (docs/plan.md: 12 seeds, 34 core-hours, more than 10)")},
}


# One rule for every choice made after its data (rules v4, docs/stats.md, "After-data choices",
# 2026-11-28): a premise marking, a window, a room or a threshold fixed after the runs it judges
# existed decides only on runs made after it; until those are stored the part is inconclusive,
# with the reading the choice would give beside it. {claim: {part: AfterData}}:
#   choice   what was chosen after the data, and when
#   summary  the summary of the runs made after it (docs/plan.md registers them)
#   test     what those runs must show
#   decide   decide(summary) -> True (the choice confirmed: the part reads as the choice says),
#            False (refuted: inconclusive), or a verdict dict (the part decided on those runs alone)
#   rests_on rests_on(verdict) -> whether that reading depends on the choice at all (a violation of
#            an exact bound refutes it at every point, whatever the window)
AfterData = collections.namedtuple("AfterData", "choice summary test decide rests_on", defaults=(lambda v: True,))


def _no_baseline_groks(cell):
    return lambda d: bool(d["cells"].get(cell, {}).get("grok")) and all(t is None for t in d["cells"][cell]["grok"].values())


def _no_plateau(setting):
    return lambda d: all(r is None for r in d["settings"][setting]["plateau_rate"]) if setting in d["settings"] else False


C10_NO_PLATEAU = ("sgd", "lion", "muon", "bs512", "bs128")
C10_CONFIRMING = "fig11_optimizers_seeds5-9.json"
C5_CONFIRMING = "fig5_bound_seeds120-127.json"
MARKED_AFTER_DATA = {
    "C11": {"rho 0.001: plateau >= Eq. 5's bound": AfterData(
        "its premise marked untestable (2026-11-26)", "regime_map_rho0.001_seeds5-14_e10000.json",
        "no lambda = 0 run at rho 0.001, wd 1, seeds 5-14 groks within 10,000 epochs", _no_baseline_groks("rho0.001_wd1_lam0"))},
    "C10": {f"{o}: the MLP norm contracts on the plateau": AfterData(
        "its premise (no plateau to measure) marked untestable after its seeds 0-4 had shown none", C10_CONFIRMING,
        f"no {o} run of seeds 5-9 has a plateau to measure", _no_plateau(o)) for o in C10_NO_PLATEAU},
    "C5": {"the bound holds at every logged point": AfterData(
        "its window (one point every 100 epochs) chosen after its runs existed", C5_CONFIRMING,
        "seeds 120-127, the window fixed in advance, decide it by rule 5b", lambda d: c5_bound(d, A.RULES["v4"]),
        lambda v: not v.get("violations"))},
}


# Rules v4's plan (docs/plan.md): the parts its runs decide, by row (2 and 7 are C11's marking
# and C3f's held-out law, named above); a part of the first plan priced above 10 core-hours and
# not here stays inconclusive with its cost.
V4_PLANNED = {
    "C9": {"arparity: the bound holds, and starves the attention gradient after memorization": 1, "perm: KL faster": 5},
    "C10": {"frozen oracle attention groks faster than the baseline": 3,
            "beta2_0.98: the MLP norm contracts on the plateau": 4},
    "C11": {"rho 0.003: plateau >= Eq. 5's bound": 6},
    "C7": {"KL faster under dynamic routing": 8},
    "C8": {"larger d reaches B_tau sooner": 10},                # the plan's addendum, after the recomputation
    "C4": {"Bayesian ticket matches or outperforms the lottery ticket (non-inferiority, margin 1.25x)": 11},
}
# parts the v4 plan prices above 10 core-hours that the first plan did not list
FRESH_SPEEDUP_COST = ("no design decides within 200 seeds (rules v4 refutes a true 1.15x in 38% of data sets at 90 "
                      "seeds, 79% at 250, about 17 core-hours; docs/plan.md, rules v4's plan)")
V4_COSTLY = {"C3": {"distractors fresh: the prior removes the plateau (t_grok(0) / t_grok(lambda = 1))": FRESH_SPEEDUP_COST},
             "C9": {"add: KL faster": FRESH_SPEEDUP_COST}}
# (C4: row 9 was withdrawn for its cost before any of its runs, and row 11 funds it: docs/plan.md,
# second and third addenda)


# the registry's study of each row (docs/plan.md, "Registry, 2026-11-26"): once a part's verdict is
# read from it (with_plan_seeds), its row is run
V4_PLAN_STUDIES = {1: "autoregressive_v4plan", 3: "frozen_v4plan", 4: "optimizers_v4plan", 5: "tasks_perm_v4plan",
                   6: "regime_map_v4plan_rho0.003", 8: "routing_v4plan", 10: "dims_v4plan",
                   11: "fig4_v4plan"}


def v4_plan_note(claim, part, plan=None, results=None):
    """What rules v4's plan says of a part: its row, planned or run (plan: the study this verdict
    was read from; results: where the row's study's summary is looked for); or its cost, where
    the plan prices it above 10 core-hours."""
    row = V4_PLANNED.get(claim, {}).get(part)
    if row is None:
        return V4_COSTLY.get(claim, {}).get(part)
    study = V4_PLAN_STUDIES.get(row)
    if plan is not None and plan == study:
        return f"at the seeds of rules v4's plan, row {row} (docs/plan.md)"
    if results is not None and os.path.exists(os.path.join(results, studies.summary(study))):
        return f"decided at the seeds of rules v4's plan, row {row} ({study}), not here"
    return f"runs planned (docs/plan.md, rules v4's plan, row {row})"


def premise_confirmed(results, claim, part):
    """What the runs made after a choice say of it (AfterData.decide): None while they are not
    stored; True, False, or the part's verdict on them alone."""
    after = MARKED_AFTER_DATA[claim][part]
    d = _load(results, after.summary)
    return None if d is None else after.decide(d)


def after_data(claim, part, v, results, premise):
    """A part whose choice was made after its data (MARKED_AFTER_DATA), by the one rule: None if
    the choice is confirmed (the part reads as the choice says); else the part's verdict: decided
    on the runs made after the choice, or inconclusive with the reading the choice gives beside it."""
    after = MARKED_AFTER_DATA[claim][part]
    if not premise and not after.rests_on(v):
        return None                                   # the reading does not depend on the choice
    outcome = premise_confirmed(results, claim, part)
    measured = v.get("text") or v.get("reason")
    if outcome is True:
        return None
    if isinstance(outcome, dict):
        return {**outcome, "after_data": after.choice,
                "reason": "; ".join(filter(None, [outcome.get("reason"), f"decided on the runs made after {after.choice} "
                                                  f"({after.summary}); before them: {v['verdict']}"]))}
    reading = A.UNTESTABLE if premise else v["verdict"]
    why = (f"{after.choice}; it counts only once {after.test} ({after.summary}): "
           + ("not run yet" if outcome is None else "refuted"))
    return {"verdict": A.INCONCLUSIVE, "n": v.get("n", 0), "after_data": after.choice, "would_read": reading,
            "measured": measured,
            "reason": f"{why}; the reading it would give: {reading}" + (f" ({measured})" if measured else "")}


def mark_untestable(claim, parts, R, with_plan=True, results="results", study=None):
    """The parts of UNTESTABLE_PARTS (and, with_plan, the power plan's) say so, with what was
    measured. Rules v4 (rule 7): only a premise is untestable; a costly part of the plan is
    inconclusive with its cost and design, and a premise marked after its data counts once
    the runs that confirm it are stored. study: the registry study the parts were read from
    (its own section of REPORT.md), where they carry no "plan"."""
    if not parts:
        return parts
    premise = UNTESTABLE_PARTS.get(claim, {})
    costly = plan_untestable(results).get(claim, {}) if with_plan else {}
    out = {}
    for part, v in parts.items():
        measured = v.get("text") or v.get("reason")
        if R.version == "v4" and part in MARKED_AFTER_DATA.get(claim, {}):
            judged = after_data(claim, part, v, results, part in premise)
            if judged is not None:
                out[part] = judged
                continue
        if part in premise or (part in costly and R.version == "v3"):
            reason, design = (premise.get(part) or costly[part])
            v = {**A.untestable(reason, design), "n": v.get("n", 0),
                 **({"reason": f"{reason}; measured: {measured}"} if measured else {})}
        elif part in costly:
            reason, design = costly[part]
            note = v4_plan_note(claim, part, v.get("plan") or study, results) or f"{reason}: would decide {design}"
            v = {**v, "verdict": v["verdict"] if v["verdict"] in (A.REPRODUCED, A.NOT_REPRODUCED) else A.INCONCLUSIVE,
                 "note": note, "reason": "; ".join(filter(None, [v.get("reason"), note]))}
        elif R.version == "v4" and v4_plan_note(claim, part) and v["verdict"] != A.UNTESTABLE:
            note = v4_plan_note(claim, part, v.get("plan") or study, results)
            v = {**v, "note": note, "reason": "; ".join(filter(None, [v.get("reason"), note]))}
        out[part] = v
    return out


def plan_untestable(results="results"):
    """{claim: {part: (reason, design)}}: the parts the power plan (results/plan.json) found too
    costly to decide."""
    path = os.path.join(results, "plan.json")
    if not os.path.exists(path):
        return {}
    plan = json.load(open(path))
    out = {}
    for row in plan["rows"]:
        if row.get("untestable"):
            out.setdefault(row["claim"], {})[row["part"]] = (cost_text(row), row["design"])
    return out


MAX_SEEDS, SCALING_POWER_SEEDS, COSTLY_HOURS = 200, 60, 10.0     # verdicts/power.py's search bound and line


def cost_text(row):
    """What deciding a costly part of the plan takes, always with its power under both truths:
    the cost and seeds of the design that decides it (80% under each), or, where no design within
    MAX_SEEDS seeds does, that, with the power the search found at the largest design it simulated."""
    if "hours" not in row:                      # a plan written before its rows carried their design
        return row["untestable"]
    pw = " and ".join(f"{p:.0%} if {truth}" for truth, p in row.get("power", {}).items())
    if row.get("seeds") is None:
        at = SCALING_POWER_SEEDS if row.get("kind") == "scaling" else MAX_SEEDS
        return f"no design decides within {MAX_SEEDS} seeds (at {at} seeds, power {pw})" if pw else \
            f"no design decides within {MAX_SEEDS} seeds"
    if row.get("hours", 0) > COSTLY_HOURS:
        return (f"deciding it costs {row['hours']:.0f} core-hours (more than {COSTLY_HOURS:g}; {row['seeds']} seeds, "
                f"power {pw})" if pw else f"deciding it costs {row['hours']:.0f} core-hours (more than {COSTLY_HOURS:g})")
    return row["untestable"]


def plan_power(results="results", table=None):
    """{claim: the power plan's row for an undecided part}: among the plan's rows whose part is
    still inconclusive or not decided in `table` (verdicts(); every plan row when None), one
    not run yet if there is one (the seeds that would decide it), else one whose plan study has
    run ("run": True, the plan's seeds in and this draw undecided); the smallest predicted power
    first."""
    path = os.path.join(results, "plan.json")
    if not os.path.exists(path):
        return {}
    out = {}
    for r in json.load(open(path))["rows"]:
        if r.get("untestable"):
            continue
        if table is not None:
            v = (table.get(r["claim"], (None, None))[1] or {}).get(r["part"])
            if v is None or v["verdict"] not in (A.INCONCLUSIVE, A.NOT_DECIDED):
                continue
            r = {**r, "run": bool(v.get("plan")), "n_now": v.get("n")}
        best = out.get(r["claim"])
        if best is None or (r.get("run", False), r["power_min"]) < (best.get("run", False), best["power_min"]):
            out[r["claim"]] = r
    return out


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
    parts = CLAIMS[s.claim](results, R, use={s.variant_of or s.plan_for or name: name})
    if parts is not None and s.plan_parts:
        parts = {p: v for p, v in parts.items() if s.plan_parts in p}
    return mark_untestable(s.claim, parts, R, results=results, study=name)


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
        at_seeds = {_without_seeds(part): part for part in (study_parts(results, s.plan_for, R) or {})
                    if part in (parts or {}) and part not in got}
        replaced = {part: at_seeds.get(_without_seeds(part)) for part in got}
        parts = {part: v for part, v in (parts or {}).items() if part not in replaced.values()}
        for part, v in got.items():
            parts[part] = {**v, "plan": name, **({"replaces": replaced[part]} if replaced[part] else {})}
    return parts


def _without_seeds(part):
    """A part's name without the seeds it was measured at: "fixed, seeds [0, 1], 20000" -> "fixed, 20000"."""
    return re.sub(r"seeds \[[\d, ]*\],? ?", "", part)


def beside(results, claim, R=A.RULES[DECIDING]):
    """What is reported under a claim but never decides it: {label: {part: verdict dict}} for
    its pre-registered variants (studies.py, variant_of) and the priors' secondary comparisons."""
    out = {}
    for name, s in studies.STUDIES.items():
        if s.claim == claim and s.variant_of:
            parts = study_parts(results, name, R)
            out[s.title] = parts if parts is not None else {
                "": {"verdict": A.NOT_DECIDED, "n": 0, "reason": f"not run yet: python {' '.join(s.command)} --jobs 2"}}
    for name, s in studies.STUDIES.items():          # the priors study and its variants
        d = _load(results, s.summary) if (s.variant_of or name) == "priors" and s.claim == claim else None
        if d is not None and priors_secondary(d, R):
            out[f"{s.title}, secondary comparisons"] = priors_secondary(d, R)
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
                parts = with_plan_seeds(results, claim, parts, R)
            parts = mark_untestable(claim, parts, R, with_plan, results)
        except Exception as e:
            if "PYTEST_CURRENT_TEST" in os.environ:
                raise
            parts = {"reading the summary": {"verdict": A.NOT_DECIDED, "n": 0, "reason": f"error: {e!r}"}}
        combine = getattr(R, "combine", A.combine)
        out[claim] = ("not run", {}) if parts is None else (combine(parts), parts)
    return out


def make_report(results):
    """REPORT.md text from the summaries in `results`: every verdict under rules v3."""
    lines = ["# Reproduction report", "",
             f"Generated by `python reproduce.py --report-only` from the summaries in `{results}/`. "
             "Every verdict follows the verdict rules v4 in `verdicts/rules.py`, stated with their measured "
             "error rates in [docs/stats.md](../docs/stats.md) and registered before this recomputation: n "
             "counts informative seeds; runs that never grokked stay in, censored at the budget, a ratio "
             "they enter is a bound printed with its value and used only on its safe side (the Wilcoxon "
             "interval; the t-interval where every run is measured); each effect has a smallest effect that "
             "counts (1.25x unless the claim names more): **reproduced** where the interval lies above it, "
             "**not reproduced** where it lies below it; scaling laws are judged by per-seed slopes over a "
             "room named in advance against 1 +- 0.5; **inconclusive** otherwise (always with fewer than 5 "
             "informative seeds, and where deciding costs more than 10 core-hours: the cost and design are "
             "given), **not decided** where there is no data, **untestable here** only where the paper's "
             "premise never occurs. Every part of a claim is co-primary: a claim is reproduced if every "
             "part is, not reproduced if any part is. The verdict reads the power plans' studies where their "
             "runs are in (docs/plan.md). Beside it: rules v3 on the same seeds, and v4 on the seeds the "
             "first plan started from (\"before the plans\": five seeds, ten for C3f). (Rules v1 and v2: "
             "docs/stats.md names the commits whose report prints their verdicts.)", "",
             "| claim | paper | verdict | rules v3 | v4, before the plans |", "|---|---|---|---|---|"]
    table, old, five = verdicts(results), verdicts(results, rules=BESIDE), verdicts(results, plan_seeds=False)
    for claim, (verdict, _) in table.items():
        paper = PAPER[claim].replace("|", "\\|")          # ||theta|| would split the cell
        lines.append(f"| {claim} | {paper} | **{verdict}** | {old[claim][0]} | {five[claim][0]} |")
    lines += ["", "## Verdicts that moved", ""] + moved_lines(table, old, five)
    lines += ["", "## After-data changes, before and after (rules v4, rule 9)", ""] + eq7_lines(results)
    lines += marking_lines(results, old, table)
    lines += ["", "## Parts and numbers", ""]
    for claim, (verdict, parts) in table.items():
        lines.append(f"### {claim}: {verdict}")
        if not parts:
            lines.append("- no summary in this folder: a study is drawn once all its runs are stored "
                         "(`python reproduce.py --dry-run` counts those stored and those missing)")
        for part, v in parts.items():
            lines.append(f"- {part}: {A.describe(v)}" + (f"; {direction(v)}" if direction(v) else ""))
            was = (old[claim][1] or {}).get(part)
            if was and (was["verdict"], was.get("text")) != (v["verdict"], v.get("text")):
                lines.append(f"  - rules v3: {A.describe(was)}")
        if claim == "C3":
            for part, v in claim_c3_other_regimes(results).items():
                lines.append(f"- (not part of the verdict) {part}: {A.describe(v)}")
        side_v3 = beside(results, claim, A.RULES[BESIDE])
        for label, side in beside(results, claim).items():
            lines.append(f"- (reported beside, pre-registered, not part of the verdict) {label}:")
            for part, v in side.items():
                lines.append(f"  - {part + ': ' if part else ''}{A.describe(v)}")
                was = side_v3.get(label, {}).get(part)
                if was and (was["verdict"], was.get("text")) != (v["verdict"], v.get("text")):
                    lines.append(f"    - rules v3: {A.describe(was)}")
        lines.append("")
    lines += beyond_the_paper(results)
    lines += studies_section(results)
    return "\n".join(lines).rstrip() + "\n"


def moved_lines(table, old, five):
    """Every claim and part whose verdict moved: from rules v3 to v4 (the same seeds), and from the
    seeds before the plans to the power plans' (both under v4). One bullet per claim (its own move,
    or that it did not move), its parts' moves below it."""
    lines = []
    for claim, (verdict, parts) in table.items():
        own, steps = [], []
        if old[claim][0] != verdict:
            own.append(f"rules v3 -> v4: {old[claim][0]} -> **{verdict}**")
        for part, v in parts.items():
            was = (old[claim][1] or {}).get(part)
            if was and was["verdict"] != v["verdict"]:
                steps.append(f"{part}: v3 {was['verdict']} -> v4 {v['verdict']}")
        if five[claim][0] != verdict:
            own.append(f"before the plans -> with the plans' seeds (v4): {five[claim][0]} -> **{verdict}**")
        for part, v in parts.items():
            was = five[claim][1].get(v.get("replaces", part)) if five[claim][1] else None
            if v.get("plan") and was and was["verdict"] != v["verdict"]:
                steps.append(f"{part} ({v['plan']}" + (", in place of this part at the first seeds" if "replaces" in v
                                                       else "") + f"): {was['verdict']} -> {v['verdict']}")
        if own or steps:
            lines.append(f"- {claim}: " + ("; ".join(own) if own else f"stays **{verdict}**; its parts moved:"))
            lines += [f"  - {step}" for step in steps]
    return lines or ["- none"]


def marking_lines(results, old, table):
    """C11's marking of a premise after its data (2026-11-26): the claim under rules v3 with and
    without it, and under v4 (which counts it once the runs made after it confirm it)."""
    claim = "C11"
    parts = old[claim][1] or {}
    lines = []
    for part, (_, summary, test, *_) in MARKED_AFTER_DATA[claim].items():
        if part not in parts:
            continue
        unmarked = {**parts, part: {"verdict": A.NOT_DECIDED, "n": 0}}
        ok = premise_confirmed(results, claim, part)
        lines += ["", f"- {claim}'s marking (2026-11-26) of \"{part}\" as untestable by premise: rules v3 "
                      f"without the marking: {A.RULES[BESIDE].combine(unmarked)}; with it: {old[claim][0]}; "
                      f"rules v4: {table[claim][0]}, the marking counting only once {test} "
                      f"(`{summary}`: " + ("not run yet" if ok is None else "confirmed" if ok else "refuted") + ")"]
    return lines


def eq7_lines(results):
    """C3, C3b and C3f's laws on their stored seeds, read without Eq. 7's floor (t ~ x^beta over
    the named room) and with it (as amended 2026-11-25); every stored run predates the
    amendment, so neither reading decides (rule 9)."""
    R = A.RULES[DECIDING]
    rows = [("C3", _summary(results, "fig3", None), ROOM_C3), ("C3f", _summary(results, "fig3_fixed", None), ROOM_C3F)]
    sel = (_load(results, "regime_map.json") or {}).get("selection")
    if sel:
        rows.insert(1, ("C3b", _load(results, sel["fig3_file"]), ROOM_C3))
    held_seeds = sorted(EQ7_HELD_OUT["fixed"])
    lines = ["Every run of the first three rows predates the amendment: each law is read both ways below and "
             f"decided by neither reading; C3f's is decided on its held-out seeds {held_seeds[0]}-{held_seeds[-1]}, run "
             f"after the amendment (docs/plan.md, \"Rules v4's plan\", row {EQ7_PLAN_ROW['fixed']}; the last row), "
             "C3's and C3b's cost more than 10 "
             "core-hours to decide. The code as it stood before the amendment (95e1348), rerun on 2026-11-26 "
             "on the summaries it had then, prints C3 not reproduced, C3b not reproduced and C3f reproduced "
             "(issue #52 quotes the same); the readings below are today's rule on today's seeds, without and "
             "with the floor.", ""]
    rows.append(("C3f, held out", _load(results, studies.summary("fig3_fixed_v4plan")), ROOM_C3F))
    amended, seeds = {}, {}
    for claim, d, room in rows:
        if d is None:
            lines.append(f"- {claim}: not run")
            continue
        before, amended[claim] = eq7_before_after(d, R, room)
        after, seeds[claim] = amended[claim], d["seeds"]
        moved = "unchanged" if before["verdict"] == after["verdict"] else f"{before['verdict']} -> {after['verdict']}"
        lines += [f"- {claim} (seeds {d['seeds'][0]}-{d['seeds'][-1]}, {d['regime']}): {moved}",
                  f"  - without a floor (t ~ x^beta over the named room): {A.describe(before)}",
                  f"  - with Eq. 7's floor (as amended): {A.describe(after)}"]
    if "C3f" in amended and "C3f, held out" in amended:       # the held-out confirmation (rule 9)
        first, held = amended["C3f"]["verdict"], amended["C3f, held out"]["verdict"]
        lines.append(f"  - the amended rule read {first} on seeds {seeds['C3f'][0]}-{seeds['C3f'][-1]} and reads "
                     f"{held} on the held-out seeds: "
                     + ("confirmed" if first == held else "not confirmed") + "; the held-out reading is C3f's law "
                     "in the verdict")
    return lines


def beyond_the_paper(results):
    """The two-clocks study (docs/registered/two_clocks.md, pre-registered): its hypotheses, apart from C1-C11."""
    d = _load(results, studies.summary("two_clocks"))
    lines = ["## Beyond the paper: the two clocks (pre-registered, docs/registered/two_clocks.md)", "",
             "Registered under rules v2; each part as registered (v2, frozen when v2 was removed) and "
             "recomputed by rules v3 (H1 and H1b over H1c's room, H2 over C11's).", ""]
    if d is None:
        return lines + ["- not run: `python -m beyond.two_clocks --jobs 2`", ""]
    registered = d.get("registered_v2", {})
    for part, v in d["verdicts"].items():
        lines.append(f"- {part}: {A.describe(v)}{medians_note(v)}")
        for name, row in v.get("cells", {}).items():
            lines.append(f"  - {name}: {h3_cell(row)}")
        if part in registered:
            lines.append(f"  - as registered (rules v2): **{registered[part][0]}**, {registered[part][1]}")
    return lines + [""] + critical_block(results) + payoff_block(results) + deep_block(results) \
        + information_block(results) + choices_block(results)


def payoff_block(results):
    """H8 (docs/registered/payoff.md, registered before its runs): the prior arm's time per held-out
    cell against the model's T(wd), the registered 7-of-8 rule, and the speed-ups beside it."""
    lines = ["## Beyond the paper: the prior's payoff predicted before it is run (H8, registered, "
             "docs/registered/payoff.md)", ""]
    d = _load(results, studies.summary("payoff"))
    if d is None:
        return lines + ["- not complete: `python -m beyond.payoff --jobs 2 --threads 1` trains what is missing "
                        "(`python reproduce.py --dry-run --only payoff` counts it); a partial redraw goes to "
                        "results/partial/", ""]
    m = d["model"]
    lines.append(f"- the model, fitted once on the {sum(m['n'].values())} stored lambda 0.3 runs frozen at "
                 f"registration: T(wd) = {math.exp(m['a']):,.0f} wd^-{m['beta']:.3f}, sigma {m['sigma']:.3f}")
    if "held" not in d:
        return lines + [f"- H8: not decided, {d['stored_runs']} of {d['planned_runs']} runs stored", ""]
    lines.append(f"- H8: **{d['verdict']}**, {d['held']} of {d['of']} cells within {d['tolerance']:g}x of T(wd) "
                 f"({d['needed']} needed); n = {d['stored_runs']} runs (two arms, {d['planned_runs'] // (2 * d['of'])} "
                 f"seeds, {d['budget']:,} epochs per run). [payoff.png](payoff.png)")
    lines += [f"  - {name}: {r['text']}" for name, r in d["cells"].items()]
    return lines + [""]


def information_block(results):
    """The information-or-any-gradient study (docs/registered/information.md, registered before its
    runs): per regime, every arm's censored medians, the nine comparisons by t_95 (t_grok beside
    where it reads otherwise) and the registered reading, once every arm of the regime is stored."""
    lines = ["## Beyond the paper: the information or any live gradient (registered, docs/registered/information.md)", ""]
    d = _load(results, studies.summary("information"))
    if d is None:
        return lines + ["- not run: `python -m beyond.information --jobs 2 --threads 1`", ""]
    lines.append(f"- {d['stored_runs']} of {d['planned_runs']} runs stored (seeds 200-209); t_95, the first epoch "
                 "test accuracy reaches 0.95, decides. [information.png](information.png)")
    for regime, budget in d["budgets"].items():
        med = lambda m, arm: d["medians"][m].get(regime, {}).get(arm, "-")
        arms = d["reached_0.95"].get(regime, {})
        lines.append(f"- {regime} (budget {budget:,}): " + "; ".join(
            f"{arm} {arms[arm]} reached 0.95, median t_95 {med('t_95', arm)} (t_grok {med('t_grok', arm)})"
            for arm in arms))
        r = d["regimes"].get(regime)
        if r is None:
            lines.append("  - not decided: not every arm has all its seeds stored")
            continue
        beside = d["by_t_grok"].get(regime, {}).get("comparisons", {})
        for name, c in r["comparisons"].items():
            other = beside.get(name, {})
            lines.append(f"  - {c['verdict']}: {c['text']}" + (f" (by t_grok: {other['verdict']})"
                                                             if other and other["verdict"] != c["verdict"] else ""))
        lines.append(f"  - reading: **{r['reading']}**" + (f"; per control: " + ", ".join(
            f"{k} {v}" for k, v in r["per_control"].items()) if r.get("per_control") else ""))
    return lines + [""]


def deep_block(results):
    """The two-layer LayerNorm study (docs/registered/deep.md, registered before its runs): the
    pilot and the rule's budget, then D1-D3 by rules v4 and C1/C5's checks on the lambda 0 runs."""
    lines = ["## Beyond the paper: a two-layer LayerNorm transformer (registered, docs/registered/deep.md)", ""]
    pilot = _load(results, "deep_pilot.json")
    if pilot is None:
        return lines + ["- the pilot is not run: `python -m beyond.deep --part pilot --jobs 2 --threads 1`", ""]
    t = pilot["t_grok"]
    acc = pilot["final_test_acc"]
    when = lambda run: (f"grokked at epoch {t[run]:,}" if t[run] is not None else
                        f"did not grok within 20,000 epochs (final test accuracy {acc[run]:.3f})")
    lines.append(f"- pilot (seed 100, {pilot['ms_per_epoch']:.0f} ms an epoch, two runs on two cores): "
                 f"lambda 0 under `fresh` {when('a')}; lambda 0.3 (first block) under `fixed` "
                 f"{when('b')}. The registered rule gives B = {pilot['budget']:,}; the grid costs "
                 + ", ".join(f"{h:.1f}" for h in pilot["core_hours_by_step"]) + " core-hours at shrink steps 0-4, so "
                 + (f"it runs at step {pilot['step']}" if pilot["step"] is not None else
                    "no step fits 12 core-hours and the grid is not run under this registration (amendment 1)")
                 + ". The phases of both pilot runs beside the minimal model's: [deep_pilot.png](deep_pilot.png)")
    d = _load(results, studies.summary("deep"))
    if d is None:
        return lines + ["- the grid is not run (docs/registered/deep.md says what was decided after the pilot)", ""]
    for layer, r in d["readings"].items():
        lines.append(f"- prior on the {layer} block{'s' if layer == 'all' else ''}: D1 **{r['D1']}**, D2 **{r['D2']}**")
        lines += [f"  - {cell}: {A.describe(v)}" for cell, v in r["speedups"].items()]
    lines += [f"- minimal model, same cells, seeds 0-4: " + "; ".join(
        f"{cell} {A.describe(v).replace('**', '')}" for cell, v in d["minimal"].items())]
    lines += [f"- lambda 0 runs, {part}: {A.describe(v)}" for part, v in d["mechanism"].items()]
    return lines + [""]


def choices_block(results):
    """The sensitivity study (docs/registered/sensitivity.md, pre-registered): per claim, every reading the
    paper leaves open with its verdict and numbers, by the claim's own rules v3."""
    lines = ["## Choices: the readings the paper leaves open (pre-registered, docs/registered/sensitivity.md)", ""]
    d = _load(results, studies.summary("choices"))
    if d is None:
        return lines + ["- not run: `python -m beyond.choices --jobs 2` (about 290 runs; "
                        "`python reproduce.py --dry-run --only choices` counts them)", ""]
    names = {"c2": "C2 (norm-matched rows)", "c6": "C6 (entropy, sparsity)", "headline": "the headline answer",
             "c1": "C1 (diffuse attention at memorization)", "c10 pilot": "C10 (the mapping pilot, seed 0)",
             "c10": "C10 (contraction under the chosen mapping)"}
    for part, rows in d["verdicts"].items():
        if part == "c10 choice":
            lines.append(f"- C10's registered choice (first mapping to memorize): "
                         + ", ".join(f"{o}: {c or 'none memorized'}" for o, c in rows.items()))
            continue
        outcome = f" by the registered rule, {claim_outcome(rows)[1]}" if part in CHOICE_CLAIMS else ""
        lines.append(f"- {names.get(part, part)}:{outcome}")
        lines += [f"  - {reading}: {choice_line(row)}{held_out_note(part, row)}" for reading, row in rows.items()]
    return lines + [""]


CHOICE_CLAIMS = {"c2": "C2", "c6": "C6", "c1": "C1", "c10": "C10"}    # the sensitivity study's parts that test a claim


def claim_outcome(rows):
    """The registered rule (docs/registered/sensitivity.md) over one claim's readings: (kind, words).
    kind "reproduced": a reading reproduced it on seeds 0-4 and again on held-out seeds 5-9;
    "stands": every reading is judged and none did (a held-out failure counts as none), so the
    default's verdict stands; "pending": a reading or its held-out seeds still have runs missing."""
    confirmed = [r for r, row in rows.items()
                 if row.get("verdict") == A.REPRODUCED and row.get("heldout", {}).get("verdict") == A.REPRODUCED]
    if confirmed:
        return "reproduced", f"**reproduced under reading {', '.join(confirmed)}** (confirmed on held-out seeds 5-9)"
    unjudged = [r for r, row in rows.items() if "verdict" not in row]
    unconfirmed = [r for r, row in rows.items() if row.get("verdict") == A.REPRODUCED and "verdict" not in row.get("heldout", {})]
    if unjudged or unconfirmed:
        return "pending", ("**not decided yet**: " + "; ".join(
            ([f"{len(unjudged)} of {len(rows)} readings have runs missing"] if unjudged else [])
            + ([f"{', '.join(unconfirmed)} reproduced on seeds 0-4, its held-out seeds not all run"] if unconfirmed else [])))
    counts = collections.Counter("reproduced on seeds 0-4 only" if row["verdict"] == A.REPRODUCED else row["verdict"]
                                 for row in rows.values() if row["verdict"] != A.NOT_REPRODUCED)
    return "stands", (f"**the default's verdict stands**: none of the {len(rows)} registered readings reproduces it"
                      + (" (" + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) + ")" if counts else ""))


def held_out_note(part, row):
    """The registered rule: a reading that reproduces a failing claim says so only "on seeds
    0-4" until the same cells on held-out seeds 5-9 reproduce it again (docs/registered/sensitivity.md).
    A headline row says instead what amendment 5's further seeds gave, if it has them."""
    if part == "headline":
        return followup_note(row)
    if row.get("verdict") != A.REPRODUCED:
        return ""
    held = row.get("heldout")
    if held is None or "verdict" not in held:
        return (" (on seeds 0-4; the held-out confirmation on seeds 5-9 "
                + (f"has {held['stored']} of {held['runs']} runs stored)" if held else "not run yet)"))
    confirmed = ("**confirmed**: reproduced under this reading" if held["verdict"] == A.REPRODUCED
                 else f"**not confirmed** ({held['verdict']}): the negative verdict stands")
    return f" (on seeds 0-4; held-out seeds 5-9: {confirmed}; {choice_line(held).split(': ', 1)[1]})"


def followup_note(row):
    """Amendment 5 (docs/registered/sensitivity.md): a headline row's open part at the seeds the power plan
    sized, and the answer with it in place of the seeds-0-4 part."""
    more = row.get("followup")
    if more is None:
        return ""
    if "parts" not in more:
        return f" (amendment 5, {more['seeds']}: {more['stored']} of {more['runs']} runs stored)"
    (name, v), = more["parts"].items()
    answer = f"the answer **{more['answer']}**; " if "answer" in more else ""
    return (f" (amendment 5, {more['seeds']}: {answer}{name}: {A.describe(v).replace('**', '')}{added_note(more)}"
            f"{confirm_note(more)})")


def confirm_note(more):
    """Amendment 6: whether held-out seeds confirm amendment 5's pooled verdict."""
    held = more.get("confirm")
    if held is None:
        return ""
    if "parts" not in held:
        return f"; amendment 6, {held['seeds']}: {held['stored']} of {held['runs']} runs stored"
    (v,) = held["parts"].values()
    said = "**confirmed**" if held.get("confirms") else "**not confirmed**"
    return f"; amendment 6, {held['seeds']} alone: {said}, {A.describe(v).replace('**', '')}"


def added_note(more):
    """A pooled part's added seeds alone (seeds 0-4 left out), reported beside it, never judged."""
    v = more.get("added_seeds_alone", {})
    return f"; the {v['n']} added seeds alone, reported beside: {A.describe(v).replace('**', '')}" if "ci" in v else ""


def headline_answer(row):
    """(answer, how it was reached) of one headline row: amendment 5's where its runs are in;
    "not decided" where amendment 6's held-out seeds do not confirm it (as it registered)."""
    more = row.get("followup", {})
    if "answer" not in more:
        return row.get("answer"), ""
    held = more.get("confirm", {})
    if "confirms" in held:
        if held["confirms"]:
            return more["answer"], (f" ({more['seeds']}, confirmed on {held['seeds']}, amendments 5 and 6; "
                                    f"on seeds 0–4: {row.get('answer')})")
        return "not decided", (f" ({more['seeds']}: {more['answer']}, not confirmed on {held['seeds']}, amendments 5 "
                               f"and 6; on seeds 0–4: {row.get('answer')})")
    return more["answer"], f" ({more['seeds']}, amendment 5; on seeds 0–4: {row.get('answer')})"


def choice_line(row):
    """One reading of the sensitivity study: its verdict and parts, or how many runs are in."""
    if "parts" not in row:
        return f"{row['stored']} of {row['runs']} runs stored" if "max_train_acc" not in row else \
            f"best train accuracy {row['max_train_acc']:.3f} on seed 0 within the pilot's budget"
    head = f"**{row['verdict']}**" + (f" (the answer {row['answer']})" if "answer" in row else "")
    return head + ": " + "; ".join(f"{name}: {A.describe(v).replace('**', '')}" for name, v in row["parts"].items())


def critical_block(results):
    """The critical-strength study (docs/registered/critical.md, pre-registered): H6a-c with their numbers."""
    lines = ["## Beyond the paper: a critical prior strength (pre-registered, docs/registered/critical.md)", ""]
    d = _load(results, studies.summary("critical"))
    if d is None:                     # drawn once its runs are stored (a partial redraw: results/partial/)
        return lines + ["- not complete: `python -m beyond.critical --jobs 2` trains what is missing "
                        "(`python reproduce.py --dry-run` counts it); a partial redraw goes to results/partial/", ""]
    lines.append(f"- share that grokked within 20,000 epochs (fixed, wd 1, seeds stored so far: "
                 f"{d['stored']['fit']} of {d['stored']['fit_planned']} runs): "
                 + ", ".join(f"lambda {l}: {v:.1f}" for l, v in d["share"].items() if v is not None))
    for h in ("H6a", "H6b", "H6c"):
        lines.append(f"- {h}: {A.describe(d[h])}")
        if h == "H6b":
            lines += heldout_lines(d.get("heldout", {}))
    if d.get("H7"):                   # registered 2026-11-26: is memorization absorbing below a positive lambda_c?
        h7 = d["H7"]
        lines.append(f"- H7: {A.describe(h7)}" if h7["verdict"] == A.NOT_DECIDED else
                     f"- H7: **{h7['verdict']}**, n = {h7['n']}, {h7['text']}; {h7['control']}")
        for lam, grok in h7["grok"].items():        # the runs stored so far, whatever the verdict waits for
            done = sorted(t for t in grok.values() if t is not None)
            lines.append(f"  - lambda {lam}: {len(grok)} of {h7['planned'] // len(h7['grok'])} runs stored, {len(done)} grokked within "
                         f"{h7['budget']:,}" + (f" (at {', '.join(f'{t:,}' for t in done)})" if done else ""))
        for acc, pred in h7["predictions"].items():
            lines.append(f"  - account ({acc}) predicted: " + "; ".join(
                f"lambda {l}: share {p['share']:.3f} within {h7['budget']:,}, median "
                + (f"{p['median']:,.0f}" if p["median"] != float("inf") else "never") for l, p in pred.items()))
    if d.get("wd_fit"):               # the registered secondary on weight decay (no verdict)
        lines.append("- secondary, weight decay (fixed, seeds 0-4, 20k): " + wd_line(d["wd_fit"]))
    if d.get("rho"):                  # the registered secondary on rho: stored regime-map cells only
        name = lambda r: "fixed" if r == "0" else "fresh" if r == "1" else f"rho {r}"
        lines.append("- secondary, refresh rate (regime map, wd 1, 10k, share grokked at lambda 0 / 0.03 / 0.3): "
                     + "; ".join(f"{name(r)}: " + " / ".join(f"{v.get(l, float('nan')):.1f}" for l in ("0", "0.03", "0.3"))
                                 for r, v in sorted(d["rho"].items(), key=lambda kv: float(kv[0]))))
    return lines + [""]


def wd_line(fit):
    """The weight-decay secondary of the critical study: per wd, the share that grokked per lambda
    and lambda_c beside H6c's formula; then the registered direction."""
    def one(name, row):
        pred = f" (H6c's formula: {row['predicted']:g})"
        if "stored" in row:
            return f"{name}: {row['stored']} of {row['planned']} runs stored{pred}"
        shares = ("share grokked " + ", ".join(f"lambda {l}: {v:.1f}" for l, v in row["share"].items()) + "; "
                  if "share" in row else f"{row['seeds']}: ")
        got = (f"lambda_c {row['lam_c']:.4f} [{row['lam_c_ci'][0]:.4f}, {row['lam_c_ci'][1]:.4f}]" if "lam_c" in row
               else f"lambda_c {row['bound']} (the grid only bounds it)")
        return f"{name}: {shares}{got}{pred}"
    rows = "; ".join(one(n, r) for n, r in fit.items() if n not in ("direction", "intervals"))
    said = f"; the registered direction (lambda_c rises with wd), on the point estimates: **{fit.get('direction')}**"
    if fit.get("intervals"):
        said += (" (their 95% intervals separate the three wd in that order)" if fit["intervals"] == "separate"
                 else " (their 95% intervals do not separate the three wd in that order: the data do not order them)")
    return rows + (said if "direction" in fit else "")


def heldout_lines(heldout):
    """Each held-out cell of H6b (seeds 10-14, 40k budget) against both models' predictions."""
    lines = []
    for lam, cell in heldout.items():
        t = [v for v in cell["grok"].values()]
        grew = sorted(v for v in t if v is not None)
        within = lambda b: sum(v is not None and v <= b for v in t)
        got = (f"{len(t)} seeds: {within(20000)} grokked within 20k, {within(40000)} within 40k"
               + (f", median {np.median([v if v is not None else math.inf for v in t]):,.0f}" if len(grew) > len(t) / 2 else ""))
        pred = "; ".join(f"{m} predicted median {cell[m]['median']:,.0f}, share {cell[m]['share']['20000']:.2f} "
                         f"within 20k and {cell[m]['share']['40000']:.2f} within 40k"
                         for m in ("paper", "threshold") if m in cell)
        lines.append(f"  - held-out lambda {lam}: {got}; {pred}")
    return lines


def h3_cell(row):
    """One held-out cell of the two clocks' H3: the deciding prediction max(R, N) + c against the
    measured median, and the sequential R + N + c' reported beside it."""
    if "predicted" not in row:
        return f"{row['stored']} of its runs stored"
    return (f"predicted {row['predicted']:.0f}, measured median {row['median']:.0f}"
            f"{' (censored)' if row['censored'] else ''}: {'within' if row['within'] else '**miss**'}"
            + (f" (sequential R + N + c', reported: {row['predicted_seq']:.0f}, "
               f"{'within' if row['within_seq'] else 'miss'})" if "predicted_seq" in row else ""))


# ---------------------------------------------------------------------------------------
# The README's generated blocks: every number the README quotes comes from here

def block_markers(name):
    return f"<!-- generated: {name} (reproduce.py --report-only) -->", f"<!-- end of generated: {name} -->"


def deciding_part(verdict, parts):
    """The part that decides a claim's verdict under rule 5: (its name, its verdict dict)."""
    want = A.REPRODUCED if verdict == A.PARTLY else verdict      # reproduced where testable: what is
    pick = next((p for p, v in parts.items() if v["verdict"] == want), None)
    if pick is None:     # inconclusive from a mix of reproduced / not decided parts
        pick = next((p for p, v in parts.items() if v["verdict"] not in (A.REPRODUCED, A.UNTESTABLE)),
                    next(iter(parts)))
    return pick, parts[pick]


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


def short_cell(text, width=110):
    """`text` in at most `width` characters, cut at a word (a table cell, so no '|')."""
    text = text.replace("|", "/")
    if len(text) <= width:
        return text
    cut = text[:width - 1]
    words = cut.rsplit(" ", 1)[0] if " " in cut[width // 2:] else cut     # a word, unless that loses half
    return words.rstrip(" ,;:([") + "…"


def part_label(name):
    """A part's name for the README's table: without its parenthetical asides and seed lists
    (REPORT.md keeps them), e.g. "cell rho0.003_wd1_lam0 (the closest cell: ...), seeds [5, 6]: the
    prior removes the plateau (t_grok(0) / t_grok(lambda = 1))" -> "cell rho0.003_wd1_lam0: the prior
    removes the plateau"."""
    while re.search(r"\([^()]*\)", name):
        name = re.sub(r"\s*\([^()]*\)", "", name)
    name = re.sub(r",\s*seeds \[[^\]]*\]", "", name)
    return re.sub(r"\s+", " ", name).strip()


def part_status(note):
    """A part's status for the README's table: its first clause (up to the first ': '), with the
    pointer into docs/plan.md shortened, e.g. "deciding it costs 41 core-hours (more than 10): over
    200 seeds ..." -> "deciding it costs 41 core-hours (more than 10)"."""
    note, _, rest = note.partition(": ")
    note += ")" * (note.count("(") - note.count(")"))      # a cut inside an aside closes it
    row = re.search(r"rules v4's plan, (row \d+)", rest)
    if row and "plan" not in note:                # the runs that decide it are named past the cut
        done = f"at the seeds of rules v4's plan, {row.group(1)}" in rest
        note += f"; {'after its planned runs' if done else 'runs planned'} (plan, {row.group(1)})"
    note = re.sub(r"\(docs/plan\.md, rules v4's plan, (row \d+)\)", r"(plan, \1)", note)
    note = re.sub(r"at the seeds of rules v4's plan, (row \d+)", r"after its planned runs (plan, \1)", note)
    note = re.sub(r";\s*docs/plan\.md[^)]*\)", ")", note)
    return note.replace(" (docs/plan.md)", "").strip()


def holding_parts(verdict, parts):
    """The parts that decide a claim's verdict, or hold it where it is undecided (rule 5): every
    part not reproduced where the claim is not; every part neither reproduced nor untestable where
    it is inconclusive; the reproduced parts where it is reproduced where testable (the untested
    ones: `untestable_cells`); all of them where it is reproduced. [(name, verdict dict)]."""
    if verdict == A.NOT_REPRODUCED:
        keep = lambda v: v["verdict"] == A.NOT_REPRODUCED
    elif verdict == A.PARTLY:
        keep = lambda v: v["verdict"] == A.REPRODUCED
    elif verdict == A.REPRODUCED:
        keep = lambda v: True
    else:
        keep = lambda v: v["verdict"] not in (A.REPRODUCED, A.UNTESTABLE)
    return [(p, v) for p, v in parts.items() if keep(v)] or [deciding_part(verdict, parts)]


def _part_threshold(text):
    """What the interval is judged against, from a part's text: the smallest effect that counts,
    the paper's band, the law's tolerance, the non-inferiority margin or, for a share of seeds, the
    majority (rule 5) ("" if none is named)."""
    for pattern, say in ((r"smallest that counts ([^,;]+)", "counts from {}"),
                         (r"band (\[[^)]*\))", "the paper's band {}"),
                         (r"1/x within (1 \+- [0-9.]+)", "the law: beta within {}"),
                         (r"(non-inferior if the upper end < [0-9.]+x)", "{}"),
                         (r"(?<!\d)\d+/\d+ \(95% interval \[", "a majority counts: above 1/2")):
        found = re.search(pattern, text)
        if found:
            short = re.sub(r"\d+\.\d{4,}", lambda m: f"{float(m.group()):.3g}", found.group(found.lastindex or 0))
            return " (" + say.format(short) + ")"
    return ""


def _part_number(v):
    """A part's one number: its estimate with its interval (the text up to the interval's end) and
    what the interval is judged against, or the reason it has none; then its status in a clause
    (`part_status`)."""
    text = v.get("text") or v.get("reason", "")
    if v["verdict"] in (A.UNTESTABLE, A.NOT_DECIDED) and v.get("reason"):
        text = v["reason"]
    if text.startswith("room named") and "; " in text:     # a law with no time measured: what was dropped
        text = text.split("; ", 1)[1].split(" (")[0]
    elif "[" in text:
        text, whole = text[:text.index("]") + 1], text
        text += ")" * (text.count("(") - text.count(")")) + _part_threshold(whole)
    elif ": " in text and v.get("reason") == text:
        text = part_status(text)
    note = part_status(v["note"]) if v.get("note") else ""
    way = direction(v).replace("direction: ", "")
    return text + (f"; {way}" if way else "") + (f"; {note}" if note and note not in text else "")


def untestable_cells(parts):
    """The parts untestable here, one line per claim and reason, each part named by what comes
    before the claim it shares: "sgd, lion: the MLP norm contracts on the plateau: untestable here,
    no plateau to measure"."""
    groups = {}
    for p, v in parts.items():
        if v["verdict"] == A.UNTESTABLE:
            who, _, what = part_label(p).partition(": ")
            who, what = (who, what) if what else ("", who)
            groups.setdefault((what, part_status(v.get("reason") or "no data")), []).append(who)
    return [short_cell(f"{', '.join(filter(None, who))}: " * any(who) + f"{what}: untestable here, {why}", 260)
            for (what, why), who in groups.items()]


def readme_table(results):
    """The README's claim table: per claim the paper's statement in a phrase, the verdict, the
    part(s) that decide or hold it with their number, and n; from the same verdicts as REPORT.md
    (where every part has its reason)."""
    rows = ["| claim | the paper says | verdict | what decides or holds it: estimate [95% interval] (what counts) | n |",
            "|---|---|---|---|---|"]
    for claim, (verdict, parts) in verdicts(results).items():
        if not parts:
            rows.append(f"| {claim} | {PAPER_SHORT[claim]} | {verdict} | no summary yet | 0 |")
            continue
        held = holding_parts(verdict, parts)
        shown = held if verdict != A.REPRODUCED else [min(held, key=lambda pv: pv[1].get("n", 0))]
        waiting = [(p, v) for p, v in shown if v.get("after_data")]
        shown = [(p, v) for p, v in shown if not v.get("after_data")]
        cells = [short_cell(f"{part_label(p)}: {_part_number(v)}", 260) for p, v in shown]
        n = ", ".join(str(v.get("n", 0)) for _, v in shown)
        if waiting:                   # one line per choice made after its data (the one rule)
            groups = after_data_cells(waiting)
            cells, n = cells + [c for c, _ in groups], ", ".join(filter(None, [n] + [m for _, m in groups]))
            others = sum(v["verdict"] == A.REPRODUCED for v in parts.values())
            if others and verdict == A.INCONCLUSIVE:
                cells.append(f"its {others} other part{'s' * (others > 1)} reproduced")
        if verdict == A.REPRODUCED and len(held) > 1:
            cells.append(f"and {len(held) - 1} more part{'s' * (len(held) > 2)}, all reproduced")
        if verdict == A.PARTLY:          # what is reproduced, then what could not be tried and why
            untested = untestable_cells(parts)
            cells, n = cells + untested, n + ", 0" * len(untested)
        rows.append(f"| {claim} | {PAPER_SHORT[claim]} | **{verdict}** | {'<br>'.join(cells)} | {n} |")
    return "\n".join(rows)


def after_data_cells(waiting):
    """The parts waiting on runs made after a choice made after their data, one cell per choice:
    who, what, the reading the choice gives on the data it was chosen with. [(cell, n)]."""
    groups = {}
    for p, v in waiting:
        who, _, what = part_label(p).partition(": ")
        who, what = (who, what) if what else ("", who)
        measured = v.get("measured") or ""
        shown = measured[:measured.index("]") + 1] if "]" in measured else measured.partition(": ")[0]
        key = (what, v["would_read"], shown, v["after_data"].split(" (")[0].split(" marked")[0])
        groups.setdefault(key, []).append((who, v.get("n", 0)))
    return [(short_cell(f"{', '.join(filter(None, (w for w, _ in wn)))}: " * any(w for w, _ in wn)
                        + f"{what}: reads {reading}" + (f", {shown}" if shown else "")
                        + f" on the runs {choice} was fixed with; counts once runs made after it are in (plan, "
                        "fifth addendum)", 300), ", ".join(str(k) for _, k in wn))
            for (what, reading, shown, choice), wn in groups.items()]


def medians_note(v):
    """A scaling verdict's median time per x (rule 6 reads its floor, cap and room off them)."""
    meds = v.get("medians")
    return "; median per x (censored at the budget): " + ", ".join(f"{x}: {m:.0f}" for x, m in meds.items()) if meds else ""


README_BLOCKS = {"verdicts": readme_table}


# docs/registered/sensitivity.md: under each choice the code makes, what else the sensitivity study tried
# (docs/registered/sensitivity.md), generated from its summary so that the numbers stay those of the store

TRIED_PARTS = {"tried_c2": ("c2",), "tried_c1": ("c1",), "tried_c6": ("c6",), "tried_c10": ("c10 pilot", "c10"),
               "tried_headline": ("headline",)}


def tried(parts):
    """The text of one "what else we tried" block: each reading of `parts` with its verdict and
    numbers (REPORT.md's Choices lines), or how many of its runs are stored."""
    def make(results):
        d = _load(results, studies.summary("choices"))
        head = "*What else we tried* ([sensitivity.md](sensitivity.md), pre-registered; seeds 0–4 unless said; generated):"
        rows = [] if d is None else [(part, reading, row) for part in parts
                                     for reading, row in d["verdicts"].get(part, {}).items()]
        if not rows:
            return head + " not run yet."
        lines = [head] + [f"- by the registered rule, {CHOICE_CLAIMS[part]}: {claim_outcome(d['verdicts'][part])[1]}"
                          for part in parts if part in CHOICE_CLAIMS and d["verdicts"].get(part)]
        lines += [f"- {reading}: {choice_line(row)}{held_out_note(part, row)}" for part, reading, row in rows]
        if "c10 pilot" in parts and "c10 choice" in d["verdicts"]:
            lines.append("- the registered choice (first mapping to memorize): " + ", ".join(
                f"{o}: {c or 'none memorized'}" for o, c in d["verdicts"]["c10 choice"].items()))
        return "\n".join(lines)
    return make


TRIED_BLOCKS = {name: tried(parts) for name, parts in TRIED_PARTS.items()}


# ---------------------------------------------------------------------------------------
# docs/results.md: every study's numbers, generated (the per-figure tables of the docs)

def _t(v, fmt="{:.0f}"):
    return "never" if v is None else v if isinstance(v, str) else fmt.format(v)


def _arm_rows(grok, seeds):
    """arm | t_grok per seed | median (never-grokked runs at the budget, counted) | grokked."""
    rows = [f"| arm | t_grok, seeds {', '.join(map(str, seeds))} | grokked |", "|---|---|---|"]
    for arm, times in grok.items():
        times = [times.get(str(s)) for s in seeds] if isinstance(times, dict) else list(times)
        done = [t for t in times if isinstance(t, (int, float))]
        rows.append(f"| {arm} | {', '.join(_t(t) for t in times)} | {len(done)}/{len(times)} |")
    return rows


def study_table(d):
    """The markdown rows of one study's summary, whatever its shape (None if it has none)."""
    seeds = d.get("seeds", [])
    if "rows" in d:                                               # Figure 1: phase marks per seed
        rows = ["| run | t_mem | mass at t_mem | t_struct | test acc at t_struct | t_rise | t_grok | "
                "task-gradient collapse |", "|---|---|---|---|---|---|---|---|"]
        for name, r in d["rows"].items():
            rows.append(f"| {name} | {_t(r['t_mem'])} | {_t(r['mass_at_mem'], '{:.2f}')} | {_t(r['t_struct'])} | "
                        f"{_t(r['acc_at_struct'], '{:.2f}')} | {_t(r['t_rise'])} | {_t(r['t_grok'])} | "
                        f"{_t(r['grad_collapse'], '{:.1e}')} |")
        return rows
    if "grid" in d:                                               # Figure 2: final test accuracy
        rows = [f"| capacity / prior | final test acc, seeds {', '.join(map(str, seeds))} | t_grok | paper |",
                "|---|---|---|---|"]
        for cell, v in d["grid"].items():
            rows.append(f"| {cell.replace('|', ' / ')} | {', '.join(f'{a:.3f}' for a in v['final_test_acc'])} | "
                        f"{', '.join(_t(t) for t in v.get('grok', []))} | {v.get('paper', '')} |")
        return rows
    if "table" in d:                                              # Figure 3: per lambda
        return _arm_rows({f"lambda {l}": v["grok"] for l, v in d["table"].items()}, seeds)
    if "cells" in d:                                              # the regime map
        rows = ["| cell | median t_grok | grokked | informative mass at t_mem |", "|---|---|---|---|"]
        for name, c in d["cells"].items():
            med = f">{d['budget']}" if c["median_censored"] else _t(c["median_grok"])
            rows.append(f"| {name} | {med} | {c['frac_grokked']:.1f} | {_t(c['mass_at_mem'], '{:.2f}')} |")
        return rows
    if "accuracy" in d:                                           # Figure 8 right: accuracy per test length
        lengths = list(next(iter(d["median"].values())))
        rows = [f"| arm | median test acc at length {', '.join(lengths)} |", "|---|---|"]
        return rows + [f"| {arm} | {', '.join(f'{v[n]:.2f}' for n in lengths)} |" for arm, v in d["median"].items()]
    if "struct_held" in d:                                        # Figure 9 left: per width
        rows = [f"| d | t_struct (B_tau first holds), seeds {', '.join(map(str, seeds))} | B_tau holds from then "
                "on (descriptive) | t_grok |", "|---|---|---|---|"]
        return rows + [f"| {a[1:]} | {', '.join(_t(t) for t in d['struct'][a])} | "
                       f"{', '.join(_t(t) for t in d['struct_held'][a])} | {', '.join(_t(t) for t in d['grok'][a])} |"
                       for a in d["struct"]]
    if "n_heads" in d:                                            # Figure 9 right: per seed
        rows = ["| seed | t_grok | t_struct | epochs with B_tau met only in aggregate |", "|---|---|---|---|"]
        return rows + [f"| {s} | {_t(v['grok'])} | {_t(v['struct'])} | {v['distributed_epochs']} |"
                       for s, v in d["seeds"].items()]
    if "runs" in d and all("violations" in v and "max_ratio" in v for v in d["runs"].values()):   # bound
        rows = ["| run | violations | largest measured/bound | median ratio before memorization, plateau, "
                "after grokking |", "|---|---|---|---|"]
        return rows + [f"| {n} | {v['violations']} | {v['max_ratio']:.3f} | "
                       + ", ".join(_t(v[k], "{:.1e}") for k in ("before memorization", "plateau", "after grokking")) + " |"
                       for n, v in d["runs"].items()]
    if "runs" in d:                                               # Figure 10
        return _arm_rows({k: v["grok"] for k, v in d["runs"].items()}, seeds)
    if "settings" in d and all("marks" in v for v in d["settings"].values()):   # Figure 11, per seed
        rows = [f"| setting | t_grok, seeds {', '.join(map(str, seeds))} | t_mem | t_struct | plateau rate "
                "[t_mem, t_struct) (the verdict's) | rate [t_mem, t_grok) (descriptive) |", "|---|---|---|---|---|---|"]
        rate = lambda rs: ", ".join("-" if r is None else f"{r:.1e}" for r in rs)
        return rows + [f"| {k} | {', '.join(_t(t) for t in v['grok'])} | {', '.join(_t(m['t_mem']) for m in v['marks'])} | "
                       f"{', '.join(_t(m['t_struct']) for m in v['marks'])} | {rate(v['plateau_rate'])} | "
                       f"{rate(v['rate_mem_to_grok'])} |" for k, v in d["settings"].items()]
    if "settings" in d:                                           # Figure 11
        return _arm_rows({k: v["grok"] for k, v in d["settings"].items()}, seeds)
    if isinstance(d.get("grok"), dict):                           # priors, frozen, routing, dims, tickets
        return _arm_rows(d["grok"], seeds)
    return None


def studies_section(results):
    """REPORT.md's last section: per study of the registry, its figure, what the paper claims
    for it, its command, a table of its runs and the parts of its claim its own runs give, all
    read from the summaries (nothing typed)."""
    lines = ["## Every study: its figure, its runs, its parts", "",
             "\"never\" = did not grok (test accuracy 0.99) within the budget; such runs stay in every statistic, "
             "censored at the budget. Notes on what the runs showed: [docs/figures.md](../docs/figures.md).", ""]
    table = verdicts(results)
    for name, s in studies.STUDIES.items():
        drawn = os.path.exists(os.path.join(results, s.figure))
        paper = s.paper or PAPER.get(s.claim, "(not a claim of the paper)").split(". ")[0].rstrip(".") + "."
        lines += [f"### {s.title}", ""] + ([f'<img src="{s.figure}" width="480">', ""] if drawn else []) + [
            f"The paper: {paper}" if s.claim in CLAIMS else "Beyond the paper.", "",
            f"`python {' '.join(s.command)}`", ""]
        d = _load(results, s.summary)
        if d is None:
            lines += ["Not run yet: no summary.", ""]
            continue
        if d.get("budget"):
            # --extend (rule 8): runs censored at the budget went on, so a time may exceed it
            longest = max((b for v in d.get("budgets", {}).values() for b in (v.values() if isinstance(v, dict) else v)),
                          default=d["budget"])
            lines.append(f"Budget {d['budget']} epochs" + (f" (each run censored at it extended to {longest})"
                                                           if longest > d["budget"] else "")
                         + (f", distractors `{d['regime']}`" if d.get("regime") else "")
                         + (f", lambda {d['lam']}" if d.get("lam") is not None else "") + ".")
            lines.append("")
        try:
            rows = study_table(d)
        except KeyError:             # a summary from before its table's field existed (a test's fixture)
            rows = None
        lines += (rows or ["(no run table in this summary)"]) + [""]
        parts = study_parts(results, name)
        if parts:
            lines.append(f"Its parts, reported beside claim {s.claim} and never part of its verdict ({table[s.claim][0]}):"
                         if s.variant_of else f"Its parts of claim {s.claim} ({table[s.claim][0]}):")
            lines += [f"- {part}: {A.describe(v)}" for part, v in parts.items()]
            lines.append("")
    return lines


def update_readme(results, path="README.md", blocks=None):
    """Rewrite every generated block of the README, or of another page (docs/registered/sensitivity.md), between
    its markers, from `results`;
    `blocks` adds generated text computed elsewhere ({name: text}). False if none was found."""
    text = open(path).read()
    found = False
    for name, make in {**README_BLOCKS, **TRIED_BLOCKS, **(blocks or {})}.items():
        start, end = block_markers(name)
        if start not in text:
            continue
        head, rest = text.split(start, 1)
        tail = rest.split(end, 1)[1]
        body = make(results) if callable(make) else make
        text, found = f"{head}{start}\n{body}\n{end}{tail}", True
    if found:
        with open(path, "w") as f:
            f.write(text)
    return found


def study_parts_text(results, name):
    """The parts of its claim that one study's own summary gives, by the rules, as reproduce.py
    prints them after the study (the claim's verdict over all its studies is REPORT.md's);
    "" for a study that judges no claim."""
    parts = study_parts(results, name) if os.path.exists(os.path.join(results, studies.summary(name))) else None
    if not parts:
        return ""
    s = studies.STUDIES[name]
    role = f"reported beside claim {s.claim}, outside its verdict" if s.variant_of else f"claim {s.claim}"
    lines = [f"\nVerdict by the repository's rules (verdicts/) on this study's runs ({role}; the claim's verdict "
             f"over all its studies is in REPORT.md): {A.combine_v3(parts).upper()}"]
    lines += [f"  {part}: " + A.describe(v).replace("**", "") for part, v in parts.items()]
    return "\n".join(lines) + "\n"
