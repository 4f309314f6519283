"""What the verdict rules add to a claim's parts beyond their statistics (rules v4, docs/stats.md):
the parts untestable by premise (rule 7), the power plan's rows and costs (docs/plan.md), and the
after-data rule by dates (audit/dates.py): `mark_untestable` and `date_check`, which
audit/claims.py applies to every part. No torch.
"""
import json
import os

from audit import dates as D
from audit import rules as A
from audit import studies
from audit.summaries import NAMING, _ONLY_SEEDS, label, load as _load


# Rules v3, rule 7 (docs/stats.md): parts whose premise never occurs here, each (status, evidence,
# the design that would decide it); the reason printed is "status: evidence", the README shows the
# status. The power plan (power.py, docs/plan.md) adds the parts whose decision costs more than 10
# core-hours, with its cost.
NO_PLATEAU = "no plateau to measure"
C10_NO_PLATEAU = ("sgd", "lion", "muon", "bs512", "bs128")
UNTESTABLE_PARTS = {
    "C9": {"parity: the bound holds, and starves the attention gradient after memorization": (
        "sparse parity groks 50-130 epochs after it starts, with no plateau after memorization to starve", "",
        "a parity task with a plateau (more input bits or a smaller train fraction)")},
    "C11": {**{f"fixed: {part}": (
        "no run without a prior groks under fixed distractors", "0 of 20 within 10,000 epochs at wd 0.5-4, "
        "0 of 10 within 20,000 and 0 of 5 within 50,000 at wd 1 (the two clocks' H4)",
        "none known: the paper's premise, a delay set by weight decay, does not occur here")
        for part in ("t_grok ~ 1/wd over the named room", "plateau >= Eq. 5's bound")},
        # added 2026-11-26 (docs/stats.md, rule 7): this part had read "not decided, no data" since v3; its
        # premise, a plateau that ends in grokking, never occurs within the map's budget at rho 0.001
        "rho 0.001: plateau >= Eq. 5's bound": (
            "no run without a prior groks within the budget at rho 0.001", "0 of 20 within 10,000 epochs "
            "at wd 0.5-4, so no plateau ends to be measured",
            "the 40k-epoch design of this regime's law (docs/plan.md: 12 seeds, 34 core-hours, more than 10)")},
}


def unlisted_markings(untestable=None):
    """The parts marked untestable (UNTESTABLE_PARTS) with no dated marking in audit/dates.py's CHOICES: a marking
    without a date would lift a verdict unseen (issue #97). [(claim, part)]; [] when every marking is dated."""
    marked = UNTESTABLE_PARTS if untestable is None else untestable
    return [(claim, part) for claim, parts in marked.items() for part in parts
            if not any(c.value == "untestable" for c in D.choices_for(claim, part))]


# Parts our own configuration left untested (issue #86, 2026-12-03): not "untestable here", since the
# paper's premise, a plateau under another optimizer, may well occur; optim.py's mapping of lr and wd
# gave none. They read "not decided", so C10 cannot read "reproduced where testable".
NOT_TESTED = {"C10": {**{f"{o}: the MLP norm contracts on the plateau": (
    "not tested here: our mapping gave no plateau",
    f"under optim.py's mapping of lr and wd every {o} seed of 0-9 met B_tau before it memorized or within three "
    "logged epochs of it", "a learning rate under which it memorizes before it meets B_tau")
    for o in ("muon", "bs512")}, **{f"{o}: the MLP norm contracts on the plateau": (
        "not tested here: under our mapping it does not learn",
        f"under optim.py's mapping of lr and wd no {o} seed of 0-9 memorizes within the budget",
        "a mapping under which it memorizes with a plateau (the sensitivity study's one: REPORT.md's choices block)")
        for o in ("sgd", "lion")},
    "bs128: the MLP norm contracts on the plateau": (
        "not tested here: under our mapping it mostly does not learn",
        "under optim.py's mapping of lr and wd 8 of the 10 bs128 seeds of 0-9 never memorize within the budget, and "
        "the other 2 meet B_tau before they memorize", "a learning rate under which batch 128 memorizes")}}


def premise_reason(status, evidence):
    """An untestable part's reason as printed: its status, then the evidence."""
    return f"{status}: {evidence}" if evidence else status


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
FRESH_SPEEDUP_STATUS = ("no design within 200 seeds decides it with 80% power (rules v4 refutes a true 1.15x in 38% "
                        "of data sets at 90 seeds, 79% at 250)")
FRESH_SPEEDUP_COST = FRESH_SPEEDUP_STATUS[:-1] + "; docs/plan.md, rules v4's plan)"
V4_COSTLY = {"C3": {"distractors fresh: the prior removes the plateau (t_grok(0) / t_grok(lambda = 1))": FRESH_SPEEDUP_COST},
             "C9": {"add: KL faster": FRESH_SPEEDUP_COST}}
# (C4: row 9 was withdrawn for its cost before any of its runs, and row 11 funds it: docs/plan.md,
# second and third addenda)


# the registry's study of each row (docs/plan.md, "Registry, 2026-11-26"): once a part's verdict is
# read from it (with_plan_seeds), its row is run
V4_PLAN_STUDIES = {1: "autoregressive_v4plan", 3: "frozen_v4plan", 4: "optimizers_v4plan", 5: "tasks_perm_v4plan",
                   6: "regime_map_v4plan_rho0.003", 8: "routing_v4plan", 10: "dims_v4plan",
                   11: "fig4_v4plan"}


def plan_status(row, run):
    """A part's status in the README when a row of the plan decides it."""
    return f"{'after its planned runs' if run else 'runs planned'} (plan, row {row})"


def v4_plan_note(claim, part, plan=None, results=None):
    """What rules v4's plan says of a part, {"note": as REPORT.md prints it, "status": as the
    README shows it}, or None: its row, planned or run (plan: the study this verdict was read from;
    results: where the row's study's summary is looked for); or its cost, where the plan prices
    it above 10 core-hours."""
    addendum = addendum_row(claim, plan)
    if addendum and addendum[2](part):                             # an addendum's row decides it
        return {"note": f"at the seeds of rules v4's plan, row {addendum[1]} (docs/plan.md)",
                "status": plan_status(addendum[1], True)}
    row = V4_PLANNED.get(claim, {}).get(part)
    if row is None:
        cost = V4_COSTLY.get(claim, {}).get(part)
        return None if cost is None else {"note": cost, "status": FRESH_SPEEDUP_STATUS}
    study = V4_PLAN_STUDIES.get(row)
    if plan is not None and plan == study:
        return {"note": f"at the seeds of rules v4's plan, row {row} (docs/plan.md)", "status": plan_status(row, True)}
    if results is not None and os.path.exists(os.path.join(results, studies.summary(study))):
        return {"note": f"decided at the seeds of rules v4's plan, row {row} ({study}), not here",
                "status": f"decided at the seeds of plan row {row} ({study}), not here"}
    return {"note": f"runs planned (docs/plan.md, rules v4's plan, row {row})", "status": plan_status(row, False)}


def premise_confirmed(results, choice, label="", confirm=None):
    """What the runs made after a choice say of it (confirm[choice].decide: claims.CONFIRM): None while they
    are not stored (or none are registered); True, False, or the part's verdict on them alone."""
    after = (confirm or {}).get(choice)
    d = None if after is None else _load(results, after.summary)
    return None if d is None else after.decide(d, label)


def after_data(choice, label, v, results, premise, confirm):
    """A part whose choice came after its runs, judged on the runs registered after it (CONFIRM): None if
    the choice is confirmed (the part reads as the choice says); else the part's verdict: decided on the
    runs made after it, or inconclusive with the reading the choice gives beside it."""
    after, when = confirm[choice], D.said(D.BY_KEY[choice])
    if not premise and not after.rests_on(v):
        return None                                   # the reading does not depend on the choice
    outcome = premise_confirmed(results, choice, label, confirm)
    if outcome is True:
        return None
    if isinstance(outcome, dict):
        return {**outcome, "after_data": when, "decided_on": D.BY_KEY[choice].confirm,
                "reason": "; ".join(filter(None, [outcome.get("reason"), f"decided on the runs made after {when} "
                                                  f"({after.summary}); before them: {v['verdict']}"]))}
    return late(v, when, after.name, premise, f"it counts only once {after.test} ({after.summary}): "
                + ("not run yet" if outcome is None else "refuted"), "none" if outcome is None else "refuted")


def late(v, when, name, premise, why, later="none"):
    """A part read inconclusive because a choice came after its runs, with the reading it would give. later: what
    the runs made after the choice did: none yet, too few to judge it, not read seed by seed, or refuted it."""
    reading = A.UNTESTABLE if premise else v["verdict"]
    measured = v.get("text") or v.get("reason")
    return {"verdict": A.INCONCLUSIVE, "n": v.get("n", 0), "after_data": when, "would_read": reading, "later": later,
            "measured": measured, "measured_shown": v.get("shown") or v.get("status") or "", "choice_name": name,
            "reason": f"{when} came after its runs; {why}; the reading it would give: {reading}"
                      + (f" ({measured})" if measured else "")}


# The registry study a part of a claim with several studies reads, by words of its label (else the
# claim's one study); a part read from a plan or addendum study names it ("plan")
PART_STUDY = {"C5": (("bound holds", "bound"), ("", "bound")), "C7": (("routing", "routing"), ("lengths", "lengths")),
              "C8": (("larger d", "dims"), ("heads", "heads")), "C9": (("arparity", "autoregressive"), ("", "tasks")),
              "C10": (("frozen", "frozen"), ("", "optimizers")), "C3b": (("", "heldout_fig3"),)}


def study_of(claim, label, v):
    """The registry study whose runs a part was judged on."""
    if v.get("decided_on") or v.get("plan"):
        return v.get("decided_on") or v["plan"]
    for words, name in PART_STUDY.get(claim, ()):
        if words in label:
            return name
    base = [n for n, s in studies.STUDIES.items() if s.claim == claim and not s.variant_of and not s.plan_for]
    return base[0] if base else None


def date_check(claim, parts, results, judge, study=None, confirm=None):
    """Rules v4's after-data rule, from dates, on every part: a part decides only on runs stored after
    each of its choices (audit/dates.py). Where a choice came on or after the first run a part reads:
    a choice with runs registered after it (confirm: claims.CONFIRM) is judged on those; else the part is judged again on
    the seeds whose every run was stored after it (judge(use) -> its parts, the summary read on those
    seeds), or, with none or where the part cannot be read by seed, it is inconclusive, naming the choice.
    Without results/run_dates.json the dates are unknown and nothing changes (a test folder)."""
    dates = D.load(results)
    if dates is None or not parts:
        return parts
    out, rejudged = {}, {}
    for part, v in parts.items():
        name, lab = study or study_of(claim, label(part, v), v), label(part, v)
        first = D.first_run(dates, name)
        choice = None if v["verdict"] == A.NOT_DECIDED else D.late_choice(claim, lab, first, name)
        premise = v["verdict"] == A.UNTESTABLE
        if choice is None:
            out[part] = v
            continue
        when = D.said(choice)
        if choice.key in (confirm or {}):
            judged = after_data(choice.key, lab, v, results, premise, confirm)
            out[part] = v if judged is None else {**judged, **{k: v[k] for k in NAMING if k in v}}
            if judged is None and premise_confirmed(results, choice.key, lab, confirm) is True:
                c = confirm[choice.key]
                out[part] = {**v, "status": (v.get("status") or "") + "; marked after its data, confirmed on runs "
                             "made after it", "reason": "; ".join(filter(None, [v.get("reason"), f"{when}, confirmed "
                                                                                 f"on the runs made after it: {c.test} ({c.summary})"]))}
            continue
        latest = max(c.date for c in D.choices_for(claim, lab, name))
        keep = D.seeds_after(dates, name, latest)
        summary = studies.STUDIES[name].summary if name in studies.STUDIES else None
        again = None
        if keep and summary and not premise:
            if (summary, tuple(keep)) not in rejudged:            # one judgement per summary and seeds, not per part
                token = _ONLY_SEEDS.set({**_ONLY_SEEDS.get(), summary: set(keep)})
                try:
                    rejudged[summary, tuple(keep)] = judge() or {}
                finally:
                    _ONLY_SEEDS.reset(token)
            again = next((w for p, w in rejudged[summary, tuple(keep)].items() if label(p, w) == lab), None)
        if again is not None and 0 < again.get("n_run", again.get("n", 0)) <= len(keep) \
                and again["verdict"] != A.NOT_DECIDED:
            seeds_text = (f"seed {keep[0]}" if len(keep) == 1 else f"seeds {keep[0]}-{keep[-1]}"
                          if keep == list(range(keep[0], keep[-1] + 1)) else f"seeds {keep}")
            counted = "the seed" if len(keep) == 1 else f"the {len(keep)} seeds"
            note = f"{when} came after its first runs: judged on {counted} stored after it ({seeds_text})"
            out[part] = {**again, **{k: v[k] for k in NAMING if k in v}, "after_seeds": keep, "after_data_note": note,
                         "all_seeds": v, "reason": "; ".join(filter(None, [again.get("reason"), note,
                                                                       f"on every seed: {v['verdict']}"]))}
        else:
            later = ("none" if not keep else "too few" if again is None or again["verdict"] == A.NOT_DECIDED
                     else "not by seed")
            why = {"none": "none of its seeds was stored after it",
                   "too few": f"{len(keep)} of its seeds were stored after it, too few to judge the part on",
                   "not by seed": "the part is not read seed by seed"}[later]
            out[part] = {**late(v, when, choice.key, premise, why, later), **{k: v[k] for k in NAMING if k in v}}
    return out


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
        if v.get("addendum"):                          # decided on the runs the fifth addendum registered
            out[part] = v
            continue
        if part in NOT_TESTED.get(claim, {}):
            status, evidence, design = NOT_TESTED[claim][part]
            v = {"verdict": A.NOT_DECIDED, "n": 0, "status": status, "would_decide": design,
                 "reason": premise_reason(status, evidence) + (f"; measured: {measured}" if measured else ""),
                 **{k: v[k] for k in NAMING if k in v}}
        elif part in premise or (part in costly and R.version == "v3"):
            status, evidence, design = premise[part] if part in premise else (costly[part][0], "", costly[part][1])
            reason = premise_reason(status, evidence)
            v = {**A.untestable(reason, design), "n": v.get("n", 0), "status": status,
                 **{k: v[k] for k in NAMING if k in v},
                 **({"reason": f"{reason}; measured: {measured}"} if measured else {})}
        elif part in costly:
            cost, design = costly[part]
            pn = (v4_plan_note(claim, part, v.get("plan") or study, results)
                  or {"note": f"{cost}: would decide {design}", "status": cost})
            v = {**v, "verdict": v["verdict"] if v["verdict"] in (A.REPRODUCED, A.NOT_REPRODUCED) else A.INCONCLUSIVE,
                 **pn, "reason": "; ".join(filter(None, [v.get("reason"), pn["note"]]))}
        elif R.version == "v4" and v4_plan_note(claim, part) and v["verdict"] != A.UNTESTABLE:
            pn = v4_plan_note(claim, part, v.get("plan") or study, results)
            v = {**v, **pn, "reason": "; ".join(filter(None, [v.get("reason"), pn["note"]]))}
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


MAX_SEEDS, COSTLY_HOURS = 200, 10.0     # audit/power.py's search bound (effects; laws: their v4 rows) and line


def cost_text(row):
    """What deciding a costly part of the plan takes, always with its power: the cost and seeds of the
    design that decides it (80% under each truth), or, where no design within the seeds simulated does,
    that, with the power at the largest design simulated. A law (rule 6) is quoted by rules v4's own
    simulated rows for its room (docs/stats.md), never by v3's grid rule that priced the plan; with no
    row for its room, its power is not known and no cost is quoted."""
    if "hours" not in row:                      # a plan written before its rows carried their design
        return row["untestable"]
    pw = " and ".join(f"{p:.0%} if {truth}" for truth, p in row.get("power", {}).items())
    if row.get("kind") == "scaling":
        v4 = v4_law_power(row["claim"])
        return (f"rules v4 confirms a true law here in {v4} of simulated data sets (docs/stats.md): no design decides it"
                if v4 else "rules v4's power for this room is not simulated: no design is priced")
    if row.get("seeds") is None:
        return f"no design decides within {MAX_SEEDS} seeds (at {MAX_SEEDS} seeds, power {pw})" if pw else \
            f"no design decides within {MAX_SEEDS} seeds"
    if row.get("hours", 0) > COSTLY_HOURS:
        return (f"deciding it costs {row['hours']:.0f} core-hours (more than {COSTLY_HOURS:g}; {row['seeds']} seeds, "
                f"power {pw})" if pw else f"deciding it costs {row['hours']:.0f} core-hours (more than {COSTLY_HOURS:g})")
    return row["untestable"]


V4_LAW_ROOMS = {"C3": "C3 and C3b's room", "C3b": "C3 and C3b's room", "C3f": "C3f's room"}


def v4_law_power(claim, path=os.path.join("docs", "stats.md")):
    """"1% at 5 seeds and 0% at 20": the rate at which rules v4 reproduces a true Eq. 7 law (floor + C/x) in
    its simulated rows for the claim's room, or None where none is simulated."""
    from audit import simulate
    room = V4_LAW_ROOMS.get(claim)
    if room is None or not os.path.exists(path):
        return None
    rows = sorted((n, r["reproduced"]) for (_, sc, n), r in simulate.read(path, simulate.START_V4_SCALING).items()
                  if sc.startswith(room) and "Truth: Eq. 7" in sc)
    return " and ".join(f"{p:.0%} at {n} seeds" for n, p in rows) or None


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


# The addenda's decisive runs (docs/plan.md: the fifth, rows 14-16, registered 2026-11-28; the sixth, rows
# 17-18, and the seventh, row 19, registered 2026-12-03; each before any of its runs): once a study's summary
# is written, it decides the parts it names on its own seeds, in place of the same parts at the earlier seeds;
# a later row of the same claim in place of an earlier. {claim: [(study, row, which parts, what is disclosed)]}
ADDENDUM = {"C8": [("dims_after", 14, lambda part: part.startswith("larger d"), "")],
            "C6": [("priors_after", 15, lambda part: "entropy" in part or "sparsity" in part,
                    "a sixth seed, added after seeing five"),
                   ("priors_confirm", 17, lambda part: part.split(" ")[0] in ("kl", "entropy", "sparsity", "late")
                    or part.startswith("oracle KL faster than"), "")],
            "C3b": [("heldout_fig3_after", 16, lambda part: "removes the plateau" in part,
                     "a sixth held-out seed, added after seeing five")],
            "C9": [("tasks_parity_confirm", 18, lambda part: part == "parity: KL faster", "")],
            "C11": [("regime_map_confirm_fresh", 19, lambda part: part == "fresh: t_grok ~ 1/wd over the named room",
                     "the wd 1 runs of its seeds were stored (2026-11-25) and seen before it")]}


def addendum_row(claim, study):
    """The addendum row (study, row, which parts, disclosed) that `study` runs for `claim`, or None."""
    return next((a for a in ADDENDUM.get(claim, ()) if a[0] == study), None)