"""The verdict rules' policy over parts (audit/policy.py, audit/claims.py): rule 7's untestable
parts and costs, rules v4's plan and the addenda's studies deciding the parts they were run for, Eq. 7's
held-out seeds, censored runs and retrains, the direction beside each interval. (The after-data rule by
dates: tests/test_dates.py.)"""
import json
import os

import pytest

from tests.test_reproduce import write
from audit import claims, report
from audit import rules
from audit import studies


def test_v4_untestable_only_by_premise(tmp_path):
    """Rules v4, rule 7: a part the first plan priced out stays inconclusive with its cost (v3 called it
    untestable). (A premise marked after its data: tests/test_dates.py.)"""
    v3, v4 = rules.RULES["v3"], rules.RULES["v4"]
    write(tmp_path, "plan.json", {"rows": [{"claim": "C4", "part": "ni", "untestable": "deciding it costs 12 core-hours "
                                            "(more than 10)", "design": "80 seeds"}]})
    part = {"ni": {"verdict": "inconclusive", "n": 10, "text": "time ratio 1.18x [0.69x, 2.01x]"}}
    assert claims.mark_untestable("C4", part, v3, results=str(tmp_path))["ni"]["verdict"] == "untestable here"
    now = claims.mark_untestable("C4", part, v4, results=str(tmp_path))["ni"]
    assert now["verdict"] == "inconclusive" and "12 core-hours" in now["note"] and now["text"] == part["ni"]["text"]


def test_v4_judges_eq7_only_on_the_seeds_run_after_its_amendment(tmp_path):
    """Rules v4, rule 9: C3f's law on seeds 0-9 (before the amendment) decides nothing; the same
    law on the held-out seeds 10-19 decides."""
    steep = lambda l, s: round(2900 + 3e-3 / l ** 4 * (1 + 0.01 * s))
    lams = [0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 1.0]
    seen = {"regime": "fixed", "budget": 20000, "seeds": list(range(10)),
            "table": {f"{l:g}": {"grok": [steep(l, s) if steep(l, s) < 20000 else None for s in range(10)]} for l in lams}}
    v4 = rules.RULES["v4"]
    law = claims._fig3_parts(seen, "x", v4, claims.ROOM_C3F)["x: t_grok - floor ~ 1/lambda over the named room (Eq. 7)"]
    assert law["verdict"] == "inconclusive" and "held-out seeds 10-19 decide it" in law["reason"]
    assert claims._fig3_parts(seen, "x", rules.RULES["v3"], claims.ROOM_C3F)[
        "x: t_grok - floor ~ 1/lambda over the named room (Eq. 7)"]["verdict"] == "not reproduced"
    held = {**seen, "seeds": list(range(10, 20))}
    law = claims._fig3_parts(held, "x", v4, claims.ROOM_C3F)["x: t_grok - floor ~ 1/lambda over the named room (Eq. 7)"]
    assert law["verdict"] == "not reproduced" and law["estimate"] == pytest.approx(4, abs=0.1)
    before, after = claims.eq7_before_after(seen, v4, claims.ROOM_C3F)
    assert "floor" not in before and after["floor"] == pytest.approx(2900, abs=1)


def test_c3fs_held_out_seeds_replace_the_first_seeds_law_and_report_its_confirmation(tmp_path):
    """Rule 9: once seeds 10-19 are in, C3f's law is theirs alone (the seeds-0-9 part, inconclusive
    by rule 9, no longer votes: a held-out "reproduced" would otherwise stay inconclusive for ever);
    REPORT.md lists the move and the held-out reading beside seeds 0-9's, confirmed or not."""
    steep = lambda l, s: round(2900 + 3e-3 / l ** 4 * (1 + 0.01 * s)) if l else 10 ** 9     # lambda 0: never
    table = lambda seeds, lams: {f"{l:g}": {"grok": [steep(l, s) if steep(l, s) < 20000 else None for s in seeds]}
                                 for l in lams}
    first, held = list(range(10)), list(range(10, 20))
    write(tmp_path, studies.summary("fig3_fixed"), {"regime": "fixed", "budget": 20000, "seeds": first,
                                                     "table": table(first, [0, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 1])})
    law = lambda p: "1/lambda over the named room" in p
    before = claims.verdicts(str(tmp_path))["C3f"][1]
    assert [v["verdict"] for p, v in before.items() if law(p)] == ["inconclusive"]
    write(tmp_path, studies.summary("fig3_fixed_v4plan"), {"regime": "fixed", "budget": 20000, "seeds": held,
                                                            "table": table(held, [0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 1])})
    parts = claims.verdicts(str(tmp_path))["C3f"][1]
    (name, v), = [(p, v) for p, v in parts.items() if law(p)]
    assert "seeds [10, 11" in name and v["verdict"] == "not reproduced" and v["plan"] == "fig3_fixed_v4plan"
    assert v["replaces"] == next(p for p in before if law(p)) and "held-out seeds 10-19" in v["note"]
    assert any("removes the plateau" in p for p in parts)                  # the part it does not decide stays
    text = report.make_report(str(tmp_path))
    assert "(fig3_fixed_v4plan, in place of this part at the first seeds): inconclusive -> not reproduced" in text
    eq7 = text.split("## After-data changes")[1].split("\n## ")[0]
    assert "- C3f, held out (seeds 10-19, fixed)" in eq7
    assert "read not reproduced on seeds 0-9 and reads not reproduced on the held-out seeds: confirmed" in eq7


def test_a_plan_study_never_drops_a_part_it_does_not_decide():
    """On the committed summaries: every part the seeds before the plans give is still in the
    verdict, or was replaced by the plan's part of the same name at other seeds (C3f's law)."""
    results = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results")
    now, first = claims.verdicts(results), claims.verdicts(results, plan_seeds=False)
    for claim, (_, parts) in first.items():
        replaced = {v.get("replaces") for v in now[claim][1].values()}
        assert not set(parts or {}) - set(now[claim][1]) - replaced, claim


def test_every_row_of_rules_v4s_plan_is_a_study_of_its_claim_that_decides_its_part():
    """claims.V4_PLANNED names each planned part's row, V4_PLAN_STUDIES the row's study: the study
    must judge that claim and, once run, replace that part (with_plan_seeds), or the note would
    say "planned" for ever, or "run" for a part the study never decides."""
    for claim, parts in claims.V4_PLANNED.items():
        for part, row in parts.items():
            s = studies.STUDIES[claims.V4_PLAN_STUDIES[row]]
            assert s.claim == claim and s.plan_for is not None, (claim, part)
            assert s.plan_parts is None or s.plan_parts in part, (claim, part)
    assert claims.v4_plan_note("C9", "perm: KL faster") == {"note": "runs planned (docs/plan.md, rules v4's plan, row 5)",
                                                            "status": "runs planned (plan, row 5)"}
    assert claims.v4_plan_note("C9", "perm: KL faster", "tasks_perm_v4plan")["note"].startswith("at the seeds of")
    assert claims.v4_plan_note("C9", "perm: KL faster", "tasks_perm_plan")["note"].startswith("runs planned")
    ran = "arparity: the bound holds, and starves the attention gradient after memorization"
    results = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results")
    assert os.path.exists(os.path.join(results, studies.summary("autoregressive_v4plan")))
    assert "not here" in claims.v4_plan_note("C9", ran, "autoregressive_plan", results)["note"]


def test_a_retrain_that_is_another_draw_is_reported_beside_the_verdict_and_not_read():
    """rules v4, rule 8 as amended: the summary's retrains that grokked within their run's budget
    change no number of the verdict; they are named, with the verdict they would give read in place."""
    seeds = list(range(12))
    d = {"seeds": seeds, "budget": 10000, "grok": {"baseline": [4000 + 100 * s for s in seeds], "frozen": [2500] * 12},
         "budgets": {"baseline": [10000] * 12, "frozen": [10000] * 12}}
    d["grok"]["baseline"][3] = None
    plain = claims._speedup(d, "baseline", "frozen", rules.RULES["v4"])
    drawn = claims._speedup({**d, "retrain_grokked_within": {"baseline": {"3": 3000}}}, "baseline", "frozen", rules.RULES["v4"])
    assert (drawn["estimate"], drawn["ci"], drawn["verdict"]) == (plain["estimate"], plain["ci"], plain["verdict"])
    assert "baseline seed 3 at 3000" in drawn["reason"] and "read in place" in drawn["reason"]
    assert drawn["read_in_place"]["estimate"] < plain["estimate"]


def test_c4_reads_each_extended_ticket_as_a_bound_at_its_own_budget(tmp_path):
    """Row 11 under --extend (rules v4, rule 8): a ticket still censored after its extension is a
    bound at 50,000, not at the study's 10,000 (the ratio bayes / lottery is then <= 4000 / 50000,
    not 4000 / 10000), and a retrain that grokked within 10,000 is named, not read."""
    seeds = [str(s) for s in range(12)]
    d = {"seeds": list(range(12)), "budget": 10000,
         "grok": {"lottery": {s: 4000 + 100 * int(s) for s in seeds}, "bayes": {s: 4200 for s in seeds}}}
    d["grok"]["lottery"]["5"] = None
    def part(summary):                       # C4's one part, judged on this summary
        (tmp_path / studies.summary("fig4")).write_text(json.dumps(summary))
        return next(iter(claims.claim_c4(str(tmp_path), rules.RULES["v4"]).values()))
    at_budget = part(d)
    extended = {**d, "budgets": {a: {s: 50000 if (a, s) == ("lottery", "5") else 10000 for s in seeds}
                                 for a in ("lottery", "bayes")}}
    at_own = part(extended)
    assert "within 10000): <= 0.42x" in at_budget["reason"]             # 4200 / 10000
    assert "within 50000): <= 0.08x" in at_own["reason"]                # 4200 / 50000
    drawn = part({**extended, "retrain_grokked_within": {"lottery": {"5": 9000}}})
    assert (drawn["estimate"], drawn["ci"], drawn["verdict"]) == (at_own["estimate"], at_own["ci"], at_own["verdict"])
    assert "lottery seed 5 at 9000" in drawn["reason"]
    assert "upper bounds" not in drawn["read_in_place"]["reason"]       # there, seed 5 is measured: 4200 / 9000


def test_a_costly_part_is_quoted_with_its_power_and_no_cost_where_no_design_decides():
    """Rules v4's costs (issues #72, #86): a design that decides is quoted with its cost, seeds and power
    under both truths; where none within 200 seeds does, no cost is quoted, only that and the power. A law
    is quoted by rules v4's own simulated rows for its room, never by v3's grid rule that priced the plan,
    and with no such row its power is not known and no cost is quoted."""
    row = {"hours": 34.2, "seeds": 12, "power": {"paper": 0.875, "none": 0.935}, "kind": "effect", "untestable": "x"}
    assert claims.cost_text(row) == ("deciding it costs 34 core-hours (more than 10; 12 seeds, power 88% if paper "
                                     "and 94% if none)")
    none = {**row, "seeds": None, "hours": 182.0, "power": {"paper": 0.17, "none": 0.98}}
    text = claims.cost_text(none)
    assert text == "no design decides within 200 seeds (at 200 seeds, power 17% if paper and 98% if none)"
    assert "core-hours" not in text
    law = {**row, "kind": "scaling", "claim": "C3f", "power": {"slope 1": 0.2, "no law": 0.9}}
    quoted = claims.cost_text(law)
    assert quoted.startswith("rules v4 confirms a true law here in 4% at 10 seeds and 1% at 20 seeds")
    assert "slope 1" not in quoted and "core-hours" not in quoted
    assert claims.cost_text({**law, "claim": "C11"}) == "rules v4's power for this room is not simulated: no design is priced"


def test_every_interval_part_says_its_direction_beside_its_verdict():
    """Issue #72: an effect in the paper's direction, clear of no effect, shows it even where it is
    below our smallest effect that counts (C6's late part, 1.10x [1.04x, 1.17x], not reproduced)."""
    import math
    late = {"verdict": "not reproduced", "ci": [math.log(1.04), math.log(1.17)], "smallest": math.log(1.25)}
    assert claims.direction(late) == "direction: the paper's, clear of no effect"
    assert claims.direction({**late, "ci": [-0.2, 0.3]}) == "direction: not clear of no effect"
    assert claims.direction({**late, "ci": [-0.5, -0.1]}) == "direction: against the paper's, clear of no effect"
    c4 = {"verdict": "reproduced", "ci": [math.log(0.69), math.log(0.88)], "margin": 1.25}
    assert claims.direction(c4) == "direction: faster, clear of no difference"
    assert claims.direction({"verdict": "reproduced", "n": 5}) == ""               # no interval: nothing to say
    law = {"verdict": "not reproduced", "ci": [1.61, 3.54], "margin": 0.5, "room": [5, 10, 20, 33.3]}   # C3f's beta
    assert claims.direction(law) == "direction: rises with x, clear of no dependence"


def test_the_fifth_addendums_runs_decide_their_parts_on_their_own_seeds(tmp_path):
    """docs/plan.md, row 14: once dims_after's summary is stored, C8's width part is read from its
    seeds alone, in place of the earlier seeds' part, and names its row; before, nothing moves."""
    from audit import studies
    ds = (16, 32, 64, 128, 256)
    def dims(seeds, sign):           # t_struct falls (sign +1) or rises (sign -1) with d, per seed
        return {"seeds": seeds, "budget": 10000,
                "struct": {f"d{d}": [2000 - sign * 5 * d + 7 * i for i in range(len(seeds))] for d in ds}}
    write(tmp_path, studies.summary("dims"), dims(list(range(10)), +1))
    before = claims.verdicts(str(tmp_path), only=["C8"])["C8"][1]["larger d reaches B_tau sooner"]
    assert before["verdict"] == "reproduced" and "addendum" not in before
    write(tmp_path, studies.summary("dims_after"), dims(list(range(10, 20)), -1))
    after = claims.verdicts(str(tmp_path), only=["C8"])["C8"][1]["larger d reaches B_tau sooner"]
    assert after["verdict"] == "not reproduced" and after["addendum"] == 14 and after["plan"] == "dims_after"
    assert after["n"] == 10 and "row 14" in after["note"] and "disclosed" not in after
    # the first seeds' verdict is what the plan found (plan_seeds=False), the addendum's is not read there
    assert claims.verdicts(str(tmp_path), only=["C8"], plan_seeds=False)["C8"][1][
        "larger d reaches B_tau sooner"]["verdict"] == "reproduced"


def test_the_seventh_addendums_runs_decide_c11s_fresh_law_alone(tmp_path):
    """docs/plan.md, row 19: once regime_map_confirm_fresh's summary is stored, C11's 1/wd law in `fresh` is
    read from its seeds alone, naming its row and what was seen before it; Eq. 5's part is not its to decide."""
    from audit import regime_map as M
    from tests.test_regime_map import BUDGET, results_for

    def summary(seeds, slope):          # t_grok = 3000 wd^-slope per seed, memorization at 300
        cells = {(1.0, wd, 0.0): [(300, round(3000 / wd ** slope) - 100, round(3000 / wd ** slope * (1 + 0.02 * (s % 5 - 2))),
                                   0.37) for s in range(len(seeds))] for wd in (0.5, 1.0, 2.0)}
        stats = M.analyse(results_for(cells), list(cells), list(range(len(seeds))), BUDGET)
        return {"cells": {k: {**c, "grok": {str(s): t for s, t in c["grok"].items()}} for k, c in stats.items()},
                "c11": M.c11_parts(stats), "budget": BUDGET, "seeds": seeds}
    law = "fresh: t_grok ~ 1/wd over the named room"
    write(tmp_path, studies.summary("regime_map"), summary(list(range(5)), 1.0))
    before = claims.verdicts(str(tmp_path), only=["C11"])["C11"][1]
    assert before[law]["verdict"] == "reproduced" and "addendum" not in before[law]
    write(tmp_path, studies.summary("regime_map_confirm_fresh"), summary(list(range(12, 28)), 0.0))
    after = claims.verdicts(str(tmp_path), only=["C11"])["C11"][1]
    assert after[law]["verdict"] == "not reproduced" and after[law]["addendum"] == 19
    assert after[law]["n"] == 16 and "seen before it" in after[law]["disclosed"]
    eq5 = "fresh: plateau >= Eq. 5's bound"
    assert "addendum" not in after[eq5] and after[eq5]["n"] == before[eq5]["n"] == 5
    assert claims.decides("regime_map_confirm_fresh", law) == "decides"
    assert claims.decides("regime_map_confirm_fresh", eq5) is None


def test_a_variant_study_says_whether_its_runs_enter_the_verdict():
    """REPORT.md names each variant's parts by their role (claims.decides): the fifth addendum's runs
    decide the parts it registered, and only those; runs made after a premise was marked confirm or
    refute it; every other variant is reported beside and never enters a verdict."""
    assert claims.decides("dims_after", "larger d reaches B_tau sooner") == "decides"
    assert claims.decides("priors_after", "entropy faster than weight decay alone") == "decides"
    assert claims.decides("priors_after", "kl faster than weight decay alone") is None
    assert claims.decides("bound_after", "the bound holds at every logged point") == "decides"
    assert claims.decides("bound_after", "measured/bound falls after memorization") == "decides"     # its 2x too
    assert claims.decides("regime_map_v4plan_rho0.001") == "premise"
    assert claims.decides("regime_map_confirm_fixed", "fixed: plateau >= Eq. 5's bound") == "premise"
    assert claims.decides("regime_map_confirm_fixed", "rho 0.001: plateau >= Eq. 5's bound") is None
    assert claims.decides("tasks_parity_confirm", "parity: KL faster") == "decides"
    assert claims.decides("tasks_parity_confirm", "parity: the bound holds, and starves the attention gradient "
                          "after memorization") == "premise"
    assert claims.decides("priors_confirm", "late faster than weight decay alone") == "decides"
    assert claims.decides("optimizers_after") is None          # C10's settings are not tested: reported beside
    others = [n for n, s in studies.STUDIES.items() if s.variant_of and n not in
              ("dims_after", "priors_after", "bound_after", "heldout_fig3_after", "regime_map_v4plan_rho0.001",
               "priors_confirm", "tasks_parity_confirm", "regime_map_confirm_fresh", "regime_map_confirm_fixed")]
    assert others and all(claims.decides(n) is None for n in others)
    note = claims.v4_plan_note("C8", "larger d reaches B_tau sooner", "dims_after", "results")["note"]
    assert "row 14" in note and "not here" not in note