"""The after-data rule from dates (audit/dates.py, claims.date_check): the kept run dates are git's,
the choices' table is the code's, and each kind of late choice (a threshold, a premise marking, a
window, an added seed) degrades its part, while choices made before their runs decide as before.
Each planted case is also run with the date check removed, and must then fail."""
import json
import os
import subprocess

import pytest

from audit import claims
from audit import dates as D
from audit import rules as A
from audit import studies

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_first_added_follows_renames_back_to_the_first_add(tmp_path):
    """registration_commit and registered_source find a file's first commit, through its renames, from one git log
    (`first_added`), as `git log --diff-filter=A --follow` does: in a made-up history, a file added, renamed twice
    (once with an edit), then another file added under its first name (the name's first add is still the first)."""
    git = lambda *a: subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *a], cwd=tmp_path,
                                    capture_output=True, text=True, check=True).stdout.strip()      # noqa: E731
    git("init", "-q")
    (tmp_path / "a.md").write_text("a registration\n" * 20)
    git("add", "-A"), git("commit", "-qm", "add a")
    first = git("rev-parse", "--short", "HEAD")
    os.makedirs(tmp_path / "docs")
    git("mv", "a.md", "docs/b.md"), git("commit", "-qm", "move")
    (tmp_path / "docs" / "b.md").write_text("a registration\n" * 20 + "one line more\n")
    git("mv", "docs/b.md", "docs/c.md"), git("add", "-A"), git("commit", "-qm", "move and edit")
    (tmp_path / "a.md").write_text("another file\n")
    git("add", "-A"), git("commit", "-qm", "a new a.md")
    assert D.first_added("docs/c.md", str(tmp_path)) == (first, "a.md")
    follow = git("log", "--diff-filter=A", "--format=%h", "--follow", "--", "a.md").split()
    assert D.first_added("a.md", str(tmp_path)) == (follow[-1], "a.md") == (first, "a.md") and len(follow) == 2
    assert D.first_added("docs/b.md", str(tmp_path)) == (first, "a.md") and D.first_added("x.md", str(tmp_path)) is None


def test_the_kept_run_dates_are_gits_where_history_exists():
    """results/run_dates.json holds, for every stored run git knows, the date git gives (a checkout
    without history reads the kept ones and judges the same)."""
    shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True, text=True)
    git = D.store_dates(ROOT) if shallow.returncode == 0 and shallow.stdout.strip() == "false" else None
    if not git:
        pytest.skip("no git history here: the kept dates are what the verdicts read")
    kept = D.load(os.path.join(ROOT, "results"))
    runs, written = kept["runs"], kept["written"]
    # a run not committed when the file was written carries that time; one committed after it is not in it yet
    assert all(runs[k] == d or (runs[k] == written and d >= written) for k, d in git.items() if k in runs)
    assert all(d >= written for k, d in git.items() if k not in runs), "run `python reproduce.py --dates`"
    # the 2026-11-23 move into one store is followed to each run's first commit
    assert git["add_p113_fixed_lam=0.03_seed0_e10000_stop200"] < "2026-11-23T19:23:47+00:00"


def test_the_choices_table_is_the_codes():
    """docs/stats.md's table is generated from CHOICES; its values are the constants the rules use; and
    every part of the verdict table depends on at least one dated choice."""
    from analysis import FOUND_MASS, THIN_EPOCHS
    text = open(os.path.join(ROOT, "docs", "stats.md")).read()
    assert D.threshold_table() in text
    assert A.SMALLEST_SPEEDUP == 1.25 and D.BY_KEY["speed-up"].value == "1.25x"
    assert A.NONINFERIORITY == 1.25 and D.BY_KEY["margin"].value == "1.25x"
    assert FOUND_MASS == 0.25 and D.BY_KEY["diffuse"].value.startswith("0.25")
    assert THIN_EPOCHS == 100 and A.MAX_VIOLATION_RATE == 0.01 and D.BY_KEY["window"].value.startswith("100 epochs")
    assert A.SLOPE_MARGIN_V3 == 0.5 and D.BY_KEY["law band"].value.startswith("1 +- 0.5")
    for c in D.CHOICES:
        assert c.whose.startswith(("ours", "the paper's")) and c.date[:4] == "2026" and c.key in D.JUDGES
    table = claims.verdicts(os.path.join(ROOT, "results"))
    for claim, (_, parts) in table.items():
        for part, v in (parts or {}).items():
            assert D.choices_for(claim, claims.label(part, v), claims.study_of(claim, claims.label(part, v), v)), (claim, part)


def _results(tmp_path, study, seed_dates, summary):
    """A results folder with one study's summary and its runs' dates ({seed: ISO date})."""
    (tmp_path / studies.STUDIES[study].summary).write_text(json.dumps(summary))
    (tmp_path / D.RUN_DATES).write_text(json.dumps({"runs": {}, "studies": {study: {str(s): d for s, d in seed_dates.items()}}}))
    return str(tmp_path)


def _tickets(seeds):
    """A Figure 4 summary where the Bayesian ticket is plainly as fast as the lottery ticket."""
    return {"seeds": seeds, "budget": 10000, "grok": {"lottery": {str(s): 3000 + 10 * s for s in seeds},
                                                      "bayes": {str(s): 2000 + 10 * s for s in seeds}}}


def _c4(results):
    return claims.verdicts(results, only=["C4"], with_plan=False, plan_seeds=False)["C4"]


BEFORE, AFTER = "2026-11-20T00:00:00+00:00", "2026-12-01T00:00:00+00:00"   # around C4's margin, 2026-11-23


def test_a_threshold_set_after_every_run_leaves_its_part_inconclusive(tmp_path, check=True):
    results = _results(tmp_path, "fig4", {s: BEFORE for s in range(8)}, _tickets(list(range(8))))
    verdict, parts = _c4(results)
    (v,) = parts.values()
    assert verdict == A.INCONCLUSIVE and v["would_read"] == A.REPRODUCED
    assert "non-inferiority margin 1.25x (ours, 2026-11-23) came after its runs" in v["reason"]


def test_a_threshold_set_before_some_runs_decides_on_those_seeds_alone(tmp_path):
    results = _results(tmp_path, "fig4", {s: BEFORE if s < 3 else AFTER for s in range(10)}, _tickets(list(range(10))))
    verdict, parts = _c4(results)
    (v,) = parts.values()
    assert verdict == A.REPRODUCED and v["n"] == 7 and v["after_seeds"] == list(range(3, 10))
    assert "judged on the 7 seeds stored after it (seeds 3-9)" in v["reason"] and v["all_seeds"]["n"] == 10


def test_choices_made_before_every_run_decide_as_before(tmp_path):
    results = _results(tmp_path, "fig4", {s: AFTER for s in range(8)}, _tickets(list(range(8))))
    verdict, parts = _c4(results)
    (v,) = parts.values()
    assert verdict == A.REPRODUCED and "after_data" not in v and "after_data_note" not in v and v["n"] == 8


def _judge(claim, part, v, results):
    return claims.date_check(claim, {part: v}, results, lambda: {part: v})[part]


def test_a_premise_marked_after_its_runs_waits_for_runs_made_after_it(tmp_path):
    """C9 parity's marking (2026-11-25) on runs stored before it: inconclusive, reading untestable beside;
    C11's marking at rho 0.001 (2026-11-26) is judged on the runs registered after it, confirmed or refuted."""
    results = _results(tmp_path, "tasks", {s: BEFORE for s in range(5)}, {"seeds": list(range(5))})
    part = "parity: the bound holds, and starves the attention gradient after memorization"
    v = _judge("C9", part, {"verdict": A.UNTESTABLE, "n": 0, "reason": "no plateau"}, results)
    assert v["verdict"] == A.INCONCLUSIVE and v["would_read"] == A.UNTESTABLE and "premise marked" in v["reason"]
    results = _results(tmp_path, "regime_map", {s: BEFORE for s in range(5)}, {"seeds": list(range(5))})
    marked = "rho 0.001: plateau >= Eq. 5's bound"
    untestable = {"verdict": A.UNTESTABLE, "n": 0, "reason": "no plateau ends"}
    assert "not run yet" in _judge("C11", marked, untestable, results)["reason"]
    summary = claims.CONFIRM["rho 0.001 premise"].summary
    never = {"cells": {"rho0.001_wd1_lam0": {"grok": {str(s): None for s in range(5, 15)}}}}
    (tmp_path / summary).write_text(json.dumps(never))
    confirmed = _judge("C11", marked, untestable, results)
    assert confirmed["verdict"] == A.UNTESTABLE and "confirmed on the runs made after it" in confirmed["reason"]
    never["cells"]["rho0.001_wd1_lam0"]["grok"]["7"] = 9100                  # a run grokked after all
    (tmp_path / summary).write_text(json.dumps(never))
    assert "refuted" in _judge("C11", marked, untestable, results)["reason"]


def test_c11s_marking_under_fixed_is_judged_on_the_runs_registered_after_it(tmp_path):
    """docs/plan.md, row 20: C11's `fixed` parts, marked untestable (2026-11-25) after their runs, count once
    no lambda = 0 run of seeds 20-24 groks at any of the four weight decays; one that groks, or a weight decay
    with no runs, leaves them inconclusive."""
    results = _results(tmp_path, "regime_map", {s: BEFORE for s in range(5)}, {"seeds": list(range(5))})
    untestable = {"verdict": A.UNTESTABLE, "n": 0, "reason": "no run without a prior groks"}
    parts = ("fixed: t_grok ~ 1/wd over the named room", "fixed: plateau >= Eq. 5's bound")
    assert all("not run yet" in _judge("C11", p, untestable, results)["reason"] for p in parts)
    summary = claims.CONFIRM["fixed premise"].summary
    assert summary == studies.summary("regime_map_confirm_fixed")
    never = {"cells": {f"rho0_wd{wd}_lam0": {"grok": {str(s): None for s in range(20, 25)}} for wd in ("0.5", "1", "2", "4")}}
    (tmp_path / summary).write_text(json.dumps(never))
    for p in parts:
        v = _judge("C11", p, untestable, results)
        assert v["verdict"] == A.UNTESTABLE and "confirmed on the runs made after it" in v["reason"]
    never["cells"]["rho0_wd4_lam0"]["grok"]["23"] = 6130                     # one run grokked after all
    (tmp_path / summary).write_text(json.dumps(never))
    assert all("refuted" in _judge("C11", p, untestable, results)["reason"] for p in parts)
    assert all(_judge("C11", p, untestable, results)["later"] == "refuted" for p in parts)
    never["cells"]["rho0_wd4_lam0"]["grok"]["23"] = None
    del never["cells"]["rho0_wd2_lam0"]                                        # a weight decay never run
    (tmp_path / summary).write_text(json.dumps(never))
    assert all(_judge("C11", p, untestable, results)["verdict"] == A.INCONCLUSIVE for p in parts)


def test_c10s_untested_settings_are_not_decided_so_c10_is_never_reproduced_where_testable():
    """C10's five settings our mapping left without a plateau are 'not tested here', never 'untestable
    here': with every other part reproduced, C10 reads inconclusive."""
    parts = {f"{o}: the MLP norm contracts on the plateau": {"verdict": A.NOT_DECIDED, "n": 0} for o in claims.C10_NO_PLATEAU}
    parts["adamw: the MLP norm contracts on the plateau"] = {"verdict": A.REPRODUCED, "n": 12}
    marked = claims.mark_untestable("C10", parts, A.RULES["v4"], with_plan=False)
    assert all(v["verdict"] == A.NOT_DECIDED and v["status"].startswith("not tested here")
               for p, v in marked.items() if not p.startswith("adamw"))
    assert A.RULES["v4"].combine(marked) == A.INCONCLUSIVE


def test_a_window_chosen_after_its_runs_is_decided_on_the_runs_made_after_it(tmp_path):
    results = _results(tmp_path, "bound", {s: BEFORE for s in range(5)}, {"seeds": list(range(5))})
    bound = "the bound holds at every logged point"
    seen = {"verdict": A.REPRODUCED, "n": 5, "text": "0 violations in 381 points"}
    before = _judge("C5", bound, seen, results)
    assert before["verdict"] == A.INCONCLUSIVE and before["would_read"] == A.REPRODUCED
    runs = lambda points: {f"p113_fresh_lam{l}_seed{s}": {"points": points, "violating_points": 0}
                           for l in (0.1, 1) for s in range(120, 128)}
    (tmp_path / claims.C5_CONFIRMING).write_text(json.dumps({"runs": runs(30), "total_violations": 0}))
    assert _judge("C5", bound, seen, results)["verdict"] == A.REPRODUCED
    (tmp_path / claims.C5_CONFIRMING).write_text(json.dumps({"runs": runs(10), "total_violations": 0}))  # 160 points
    assert _judge("C5", bound, seen, results)["verdict"] == A.INCONCLUSIVE


def test_a_seed_added_after_seeing_the_others_decides_only_on_itself(tmp_path):
    """C6's sixth seed (2026-11-28): a part read from seeds 0-4 stored before it and seed 5 after it is
    judged on seed 5 alone, which decides nothing."""
    results = _results(tmp_path, "priors_after", {**{s: BEFORE for s in range(5)}, 5: AFTER}, {"seeds": list(range(6))})
    part = "entropy faster than weight decay alone"
    v = {"verdict": A.NOT_REPRODUCED, "n": 6, "plan": "priors_after", "text": "speed-up <= 0.35x"}
    one = {"verdict": A.INCONCLUSIVE, "n": 1, "n_run": 1, "plan": "priors_after"}
    got = claims.date_check("C6", {part: v}, results, lambda: {part: one})[part]
    assert got["verdict"] == A.INCONCLUSIVE and got["after_seeds"] == [5] and got["all_seeds"]["verdict"] == A.NOT_REPRODUCED
    assert "a sixth seed, added after seeing five" in got["after_data_note"]


PLANTED = [test_a_threshold_set_after_every_run_leaves_its_part_inconclusive,
           test_a_threshold_set_before_some_runs_decides_on_those_seeds_alone,
           test_a_premise_marked_after_its_runs_waits_for_runs_made_after_it,
           test_a_window_chosen_after_its_runs_is_decided_on_the_runs_made_after_it,
           test_a_seed_added_after_seeing_the_others_decides_only_on_itself]


@pytest.mark.parametrize("planted", PLANTED, ids=lambda f: f.__name__[7:40])
def test_each_planted_case_fails_without_the_date_check(planted, tmp_path, monkeypatch):
    monkeypatch.setattr(claims, "date_check", lambda claim, parts, results, judge, study=None: parts)
    with pytest.raises((AssertionError, KeyError)):
        planted(tmp_path)


def test_a_summary_is_read_on_some_seeds_only():
    """restrict: lists aligned with the seeds and dicts keyed by exactly the seeds keep the kept seeds;
    a dict keyed by other numbers (lambda) is left whole."""
    d = {"seeds": [0, 1, 2], "grok": {"a": [10, None, 30]}, "table": {"0": {"grok": [1, 2, 3]}, "1": {"grok": [4, 5, 6]}},
         "by": {"0": 1, "1": 2, "2": 3}, "retrain_grokked_within": {"a": {"1": 99}}}
    r = claims.restrict(d, {0, 2})
    assert r["seeds"] == [0, 2] and r["grok"]["a"] == [10, 30] and r["by"] == {"0": 1, "2": 3}
    assert r["table"] == {"0": {"grok": [1, 3]}, "1": {"grok": [4, 6]}} and r["retrain_grokked_within"] == {"a": {}}

def test_each_choices_date_is_its_commits_and_that_commit_set_its_value():
    """Where history exists (issue #97): every choice's commit is in git's history, its date is that commit's,
    and the commit adds a line holding its value. Planted: a back-dated entry, an entry re-dated late, and an
    entry naming a commit that never set its value are each caught, with a one-line reason."""
    wrong = D.verify_choices(root=ROOT)
    if wrong is None:
        pytest.skip("no git history here: the kept dates are what the verdicts read")
    assert wrong == []
    c = D.BY_KEY["margin"]
    back = c._replace(date="2026-11-20T00:00:00+00:00")            # back-dated to before C4's runs
    late = c._replace(date="2026-12-01T00:00:00+00:00")            # re-dated after them
    elsewhere = c._replace(commit=D.BY_KEY["phases"].commit, date=D.BY_KEY["phases"].date)   # a commit that set no 1.25
    assert len(D.verify_choices((back, late, elsewhere), root=ROOT)) == 3
    reasons = [r for _, r in D.verify_choices((back,), root=ROOT)] + [r for _, r in D.verify_choices((late,), root=ROOT)]
    assert all(r.startswith("dated ") and "96d1532 is of 2026-11-23" in r for r in reasons)
    assert [r for _, r in D.verify_choices((elsewhere,), root=ROOT)] == [f"{elsewhere.commit} adds no line with its value '1.25x'"]


RULE_CALLS = ("effect", "speedup", "level", "noninferiority", "scaling", "property", "exact")
# numbers that are not thresholds: the floor of a level band and the range of a share or an accuracy, (0, 1)
NOT_THRESHOLDS = (0, 0.0, 1)


def judging_literals(source):
    """[(line, value)]: numeric literals among the arguments (after the data) of the rules' calls (R.effect, R.level,
    ...) in a judging module's source: a threshold written there, not read from CHOICES."""
    import ast
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RULE_CALLS \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in ("R", "A"):
            for arg in node.args[1:] + [k.value for k in node.keywords]:
                for n in ast.walk(arg):
                    if isinstance(n, ast.Constant) and type(n.value) in (int, float) and n.value not in NOT_THRESHOLDS:
                        out.append((n.lineno, n.value))
    return out


def test_no_threshold_in_the_claims_code_is_a_literal_and_a_planted_one_is_caught():
    """audit/claims.py reads the thresholds it passes to the rules from CHOICES (dates.number), and holds no other
    number but those CLAIMS_LITERALS names. Planted: C7's accuracy gain written as a literal, the way a late change
    would be, is found with its line; a threshold in a helper of its own is found too."""
    source = open(os.path.join(ROOT, "audit", "claims.py")).read()
    assert judging_literals(source) == []
    planted = source.replace('D.number("c7 gain")', "0.01")
    assert planted != source
    assert [v for _, v in judging_literals(planted)] == [0.01]
    held = {v for values in D.function_literals(source).values() for v in values}
    assert held <= set(D.CLAIMS_LITERALS), held - set(D.CLAIMS_LITERALS)
    planted = source.replace("def _kendall(", "def _enough(gain):\n    return gain > 0.03\n\n\ndef _kendall(", 1)
    assert {v for values in D.function_literals(planted).values() for v in values} - set(D.CLAIMS_LITERALS) == {0.03}
    assert D.number("c7 gain") == 0.05 and D.number("c8 tau") == 0.2 and D.number("c5 drop") == 2.0
    assert D.bands("c2 bands", 113) == {"full": (0.99, 1.01), "partial": (3 / 113, 0.99), "chance": (0.0, 3 / 113)}


def test_function_literals_keeps_a_functions_numbers_but_indices_0_1_and_drawing():
    """The literal scan's unit: a top-level function's numbers, its defaults and nested functions included; left out:
    0 and 1, True, whatever stands under a subscript's index (nested ones too), module-level code, drawing functions."""
    source = ("X = 7.5\n\n\ndef judge(v, cut=0.3):\n    def inner():\n        return 12\n"
              "    return v[2] > cut * 4 and v[idx[3]][0] < 1 and v[f(5):] and True\n\n\n"
              "def plot_it(v):\n    return v * 9\n\n\nasync def later():\n    return 2.5\n")
    assert D.function_literals(source) == {"judge": {0.3, 12, 4}, "later": {2.5}}


def test_every_untestable_marking_is_dated_and_an_unlisted_one_is_caught():
    """Every part marked untestable has a dated marking in CHOICES. Planted: C1's and C2's parts added to the
    untestable list with no dated entry (the late choice that would lift them to 'reproduced where testable')."""
    from audit import policy
    assert policy.unlisted_markings() == []
    planted = {**policy.UNTESTABLE_PARTS, "C1": {"diffuse attention at memorization": ("x", "", "")},
               "C2": {"nm|oracle: paper full": ("x", "", "")}}
    assert policy.unlisted_markings(planted) == [("C1", "diffuse attention at memorization"), ("C2", "nm|oracle: paper full")]


def test_no_choices_value_changed_after_its_dated_commit_and_a_late_change_is_caught():
    """The table's own history (renames followed): no entry's value changed after the commit its date names.
    Planted: C4's margin changed from 1.25x to 1.20x in a commit after its date, caught with that commit; a change
    made before its date is not."""
    history = D.table_values(root=ROOT)
    if not history:
        pytest.skip("no git history here")
    assert len(history) >= 7 and all(len(v) >= 16 for _, _, v in history) and D.changed_after(history=history) == []
    margin = D.BY_KEY["margin"]                                          # dated 2026-11-23
    late = [("a" * 40, "2026-11-24T00:00:00+00:00", {"margin": "1.25x"}), ("b" * 40, "2026-12-01T00:00:00+00:00", {"margin": "1.20x"})]
    assert D.changed_after((margin,), late) == [("margin", "bbbbbbb", "2026-12-01T00:00:00+00:00")]
    early = [("a" * 40, "2026-11-20T00:00:00+00:00", {"margin": "1.20x"}), ("b" * 40, "2026-11-22T00:00:00+00:00", {"margin": "1.25x"})]
    assert D.changed_after((margin,), early) == []


def test_no_registered_study_changed_or_added_a_constant_after_its_registration_unnamed(tmp_path):
    """Where history exists (issue #97): each registered study's numeric constants now, against the commit that
    added its registration (found from git), changed or added only where audit/dates.py names what registered
    them (or that they judge nothing). Planted: a changed threshold and a new literal, each caught; a literal
    moved into the choices table with its value is no change; and no name is listed that is not late. The same for
    the reference tier's modules whose numbers verdicts read (audit.dates.REFERENCE_MODULES), each against a
    version from before its runs: planted, C1's gradient-collapse criterion eased, caught."""
    kept_path = os.path.join(ROOT, "results", D.REGISTERED_CONSTANTS)
    kept = json.load(open(kept_path)) if os.path.exists(kept_path) else None
    unnamed = D.unnamed_late_constants(root=ROOT, kept=kept)
    if unnamed is None:
        pytest.skip("neither git history nor results/registered_constants.json here")
    assert unnamed == [], f"constants changed after their study's registration, unnamed: {unnamed}"
    snaps = D.registered_snapshots(root=ROOT)
    if snaps is None:
        return                        # no history: the kept snapshot has judged, the rest needs git
    assert kept == json.loads(json.dumps(snaps)), "results/registered_constants.json is stale: python reproduce.py --dates"
    assert all(D.late_constants(s, root=ROOT) == D.late_constants(s, root=str(tmp_path), kept=kept,
                                                                    source=open(os.path.join(ROOT, "audit", f"{s}.py")).read())
               for s in D.REGISTERED_STUDIES)          # the kept snapshot judges as git does
    wall = open(os.path.join(ROOT, "audit", "data_wall.py")).read()
    assert "KNOWN = 0.3 " in wall and "PILOT_GRID = (0.25, 0.2, 0.15, 0.1, 0.05)" in wall
    planted = wall.replace("KNOWN = 0.3 ", "KNOWN = 0.25 ").replace("PILOT_GRID = (0.25,", "CUT = 0.4\nPILOT_GRID = (0.25,")
    late = D.late_constants("data_wall", root=ROOT, source=planted)
    assert ("KNOWN", "changed") in late and ("CUT", "added") in late
    moved = wall.replace('ALPHA = D.number("data wall alpha")', "ALPHA = 0.025")      # the same value, as a literal
    assert ("ALPHA", "changed") not in D.late_constants("data_wall", root=ROOT, source=moved)
    assert ("ALPHA", "changed") in D.late_constants("data_wall", root=ROOT, source=moved.replace("ALPHA = 0.025", "ALPHA = 0.05"))
    # the reference tier's numbers the verdicts read (analysis.py's phase marks and regime criterion, the figure
    # scripts), as a study's; each reference version came before the first stored run of what it judges, and a
    # figure script's is its last version before that run
    assert D.unnamed_late_constants(tuple(D.REFERENCE_MODULES), root=ROOT) == []
    dates = D.load(os.path.join(ROOT, "results"))
    git = lambda *a: subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    for module, (commit, study) in D.REFERENCE_MODULES.items():
        first = D.first_run(dates, study)
        assert git("log", "-1", "--format=%aI", commit) < first, (module, commit, first)
        if module.startswith("exp_"):
            assert git("rev-list", "-1", f"--before={first}", "HEAD", "--", f"{module}.py").startswith(commit), module
    import analysis
    assert analysis.THIN_EPOCHS == D.number("window")
    criterion = open(os.path.join(ROOT, "analysis.py")).read()
    planted = criterion.replace("MAX_GRAD_COLLAPSE = 0.1 ", "MAX_GRAD_COLLAPSE = 0.2 ")     # C1's phases, eased late
    assert planted != criterion and D.late_constants("analysis", root=ROOT, source=planted) == [
        ("MAX_GRAD_COLLAPSE", "changed"), ("THIN_EPOCHS", "added")]
    listed = {(s, n) for s in D.REGISTERED_STUDIES + tuple(D.REFERENCE_MODULES) for n, _ in D.late_constants(s, root=ROOT)}
    assert set(D.AFTER_REGISTRATION) <= listed, set(D.AFTER_REGISTRATION) - listed
    # each commit a reason names changed the constant's line; planted, a commit that never did is caught
    assert D.misnamed_commits(root=ROOT) == []
    planted = {("critical", "HELD_OUT_LAMS"): "amendment 1 (c5f30b0)"}      # the data wall's registration
    assert D.misnamed_commits(planted, root=ROOT) == [("critical", "HELD_OUT_LAMS", ["c5f30b0"])]


# the studies' functions whose names say they judge (a reading, a verdict, a premise, a check): ours, a heuristic
JUDGING_NAMES = ("judge", "reading", "compare", "verdict", "beats", "wall", "overall", "checks", "interaction", "premise")
# numbers in them that are not thresholds: indices and halves, and the one that only formats a number for print
NOT_JUDGING = {("critical", "judge_h7", 100000.0): "where a log-likelihood difference is printed as a bound (display)"}


def study_judging_literals(study, source):
    """[(function, value)]: numeric literals (not 0, 1, -1 or 2, not an index) in a study's judging functions."""
    import ast
    tree = ast.parse(source)
    indices = {id(n) for node in ast.walk(tree) if isinstance(node, ast.Subscript) for n in ast.walk(node.slice)}
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(k in node.name for k in JUDGING_NAMES):
            out += [(node.name, n.value) for n in ast.walk(node) if isinstance(n, ast.Constant)
                    and type(n.value) in (int, float) and n.value not in (0, 1, -1, 2) and id(n) not in indices
                    and (study, node.name, n.value) not in NOT_JUDGING]
    return out


def test_no_study_s_judging_function_holds_a_threshold_literal_and_a_planted_one_is_caught():
    """Issue #97: the registered studies' judging functions read their thresholds from module constants (compared
    with the registration by `test_no_registered_study_changed_...`) or from CHOICES, never from a literal in the
    function. Planted: the data wall's Fisher level written into `beats`, and C2's band into choices.judge_c2."""
    for study in D.REGISTERED_STUDIES:
        source = open(os.path.join(ROOT, "audit", f"{study}.py")).read()
        assert study_judging_literals(study, source) == [], study
    wall = open(os.path.join(ROOT, "audit", "data_wall.py")).read()
    planted = wall.replace("fisher_one_sided(ka, na, kb, nb) < ALPHA", "fisher_one_sided(ka, na, kb, nb) < 0.05")
    assert planted != wall and study_judging_literals("data_wall", planted) == [("beats", 0.05)]
    choices = open(os.path.join(ROOT, "audit", "choices.py")).read()
    planted = choices.replace("full_lo, full_hi, \"final test acc\")", "0.95, full_hi, \"final test acc\")")
    assert planted != choices and study_judging_literals("choices", planted) == [("judge_c2", 0.95)]


def test_no_literal_in_a_study_s_functions_came_after_its_registration_unnamed():
    """Issue #97, beyond the module constants: every numeric literal a registered study's functions hold (but those
    that only draw) either stood in the same function at its registration, or came in a commit git finds and
    audit/dates.py's LATE_LITERALS names with what it was. None is named that is not late. Planted: a threshold
    written into a helper no judging name marks (not committed yet), and a named commit left out, each caught."""
    unnamed = D.unnamed_late_literals(root=ROOT)
    if unnamed is None:
        pytest.skip("no git history here")
    assert unnamed == [], f"literals added after their study's registration, their commit unnamed: {unnamed}"
    used = set()
    for study in D.REGISTERED_STUDIES + tuple(D.REFERENCE_MODULES):
        used |= {(study, c[:7]) for c in D.literal_origins(study, D.late_literals(study, root=ROOT), root=ROOT).values()}
    assert used == set(D.LATE_LITERALS), "LATE_LITERALS names a commit that added no late literal, or misses one"
    source = open(os.path.join(ROOT, "audit", "imprint.py")).read()
    planted = source.replace("def interaction(", "def _margin():\n    return 1.1\n\n\ndef interaction(", 1)
    assert planted != source
    assert D.unnamed_late_literals(("imprint",), root=ROOT, sources={"imprint": planted}) == [("imprint", "_margin", 1.1, None)]
    criterion = open(os.path.join(ROOT, "analysis.py")).read()       # the reference tier's criterion, eased late
    planted = criterion.replace("and m[\"grad_collapse\"] <= 0.1)", "and m[\"grad_collapse\"] <= 0.2)")
    assert planted != criterion
    assert D.unnamed_late_literals(("analysis",), root=ROOT, sources={"analysis": planted}) == [
        ("analysis", "meets_regime_criterion", 0.2, None)]
    named = {k: v for k, v in D.LATE_LITERALS.items() if k != ("plateau", "227e197")}
    assert {(f, v) for _, f, v, _ in D.unnamed_late_literals(("plateau",), root=ROOT, named=named)} == {("pooled", 210), ("pooled", 230)}


def test_row_20s_runs_were_all_stored_after_it_was_registered():
    """docs/plan.md, row 20: every run `regime_map_confirm_fixed` reads was first committed after the commit that
    registered it (the one adding its confirmation to audit/claims.py); a run of the marking's own seeds 0-4 was
    not (the check can fail). Skipped without git history."""
    import store
    from audit import regime_map as M
    from tests.test_data_wall import stored_before
    keys = lambda seeds: [store.run_key(cfg) for _, cfg in M.planned_runs(M.parse(   # noqa: E731
        ["--part", "baseline", "wd", "--rhos", "0", "--seeds", *map(str, seeds)]))]
    before = lambda ks: stored_before('"fixed premise": Confirm(', ks, "audit/claims.py")   # noqa: E731
    row = keys(range(20, 25))
    assert len(row) == 20 and not before(row), before(row)
    assert before(keys([0])) == keys([0])             # the marking's own runs came before it
