"""reproduce.py: the report's verdicts come from the summaries, and the plan runs."""
import json

import reproduce


def write(path, name, obj):
    (path / name).write_text(json.dumps(obj))


def marks(t_grok, ok=True):
    # memorizes at 100, gradient collapses, structure at 300 then grokking: the C1 criterion
    return {"t_mem": 100, "t_resurge": 150, "t_struct": 300 if ok else None, "t_rise": 400, "t_grok": t_grok,
            "mass_at_mem": 0.3, "acc_at_struct": 0.2, "grad_collapse": 0.01}


def test_report_verdicts_from_a_fixture(tmp_path):
    write(tmp_path, "fig1_fresh_lam0.json", {"rows": {"a": marks(500), "b": marks(700)}, "budget": 1000})
    write(tmp_path, "fig5_bound.json", {"total_violations": 3, "runs": {
        "r": {"before memorization": 1e-2, "plateau": 1e-3, "after grokking": 1e-4}}})
    write(tmp_path, "fig3_kl.json", {"regime": "fresh", "table": {"0.1": {"median": 900}, "1": {"median": 100}},
                                     "fit": {"slope": 0.1, "slope_ci95": [0.0, 0.2], "floor": 90}})
    write(tmp_path, "fig4_tickets.json", {"grok": {"lottery": {"0": 100, "1": 200}, "bayes": {"0": 90, "1": 300}},
                                          "bayes_matches_or_beats": {"0": True, "1": False}})
    write(tmp_path, "fig8_routing.json", {"median": {"baseline": 500, "kl": 900}, "kl_faster": False})
    report = reproduce.make_report(str(tmp_path))
    line = {l.split(" | ")[0][2:]: l for l in report.splitlines() if l.startswith("| C")}
    assert line["C1"].endswith("**reproduced** |") and "2/2 seeds" in line["C1"]
    assert line["C5"].endswith("**partly** |") and "3 violations" in line["C5"]      # bound violated
    assert line["C3"].endswith("**not reproduced** |")                                # slope 0.1, no fixed run
    assert line["C4"].endswith("**partly** |") and "1/2 seeds" in line["C4"]
    assert line["C7"].endswith("**not reproduced** |")
    assert line["C2"].endswith("**not run** |") and line["C10"].endswith("**not run** |")
    # the fixed-distractor Figure 3 turns C3 into 'partly'
    write(tmp_path, "fig3_kl_fixed_lam1.json", {"fit": {"slope": 0.7}})
    c3 = [l for l in reproduce.make_report(str(tmp_path)).splitlines() if l.startswith("| C3 ")][0]
    assert c3.endswith("**partly** |") and "slope is 0.70" in c3


def test_dry_run_prints_the_plan(capsys, tmp_path):
    reproduce.main(["--quick", "--dry-run", "--only", "C1", "C5", "--results-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert "estimated at most" in out and "exp_fig1_phases.py --quick" in out and "bound --quick" in out
    assert "exp_fig3_kl.py" not in out
