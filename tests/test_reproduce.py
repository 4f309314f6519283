"""report.py and reproduce.py: the report's verdicts come from the summaries by the rules, never crash on a
clean or empty fit, and the plan runs."""
import argparse
import json
import os

import pytest

from audit import claims, readme, report
from audit import rules
from audit import studies
import reproduce

SEEDS = [0, 1, 2, 3, 4]


def write(path, name, obj):
    (path / name).write_text(json.dumps(obj))


def marks(t_grok, mass=0.3):
    # memorizes at 100, gradient collapses, structure at 300 then grokking: the C1 criterion
    return {"t_mem": 100, "t_resurge": 150, "t_struct": 300, "t_rise": 400, "t_grok": t_grok,
            "mass_at_mem": mass, "acc_at_struct": 0.2, "grad_collapse": 0.01}


def fig3(lams, law, regime="fresh"):
    return {"regime": regime, "budget": 10000, "seeds": SEEDS,
            "table": {f"{l:g}": {"grok": [law(l, s) for s in SEEDS]} for l in lams}}


def verdict_lines(tmp_path, rules="v4"):
    """The report's text and {claim: its verdict under rules v4 (the table's third column), v3 (its
    fourth) or v4 on the five seeds ("five", its fifth)}."""
    text = report.make_report(str(tmp_path))
    rows = [l.split(" | ") for l in text.splitlines() if l.startswith("| C")]
    return text, {r[0][2:]: r[{"v4": 2, "v3": 3, "five": 4}[rules]].strip("*| ") for r in rows}


def test_report_verdicts_from_a_fixture(tmp_path):
    write(tmp_path, "fig1_fresh_lam0.json", {"rows": {s: marks(500 + 10 * i, mass=0.22) for i, s in enumerate("abcdef")}, "budget": 1000})
    write(tmp_path, "fig5_bound.json", {"total_violations": 3, "runs": {
        "p113_fresh_lam0_seed0": {"violations": 3, "before memorization": 1e-2, "plateau": 1e-3, "after grokking": 1e-4}}})
    write(tmp_path, "fig4_tickets.json", {"budget": 10000, "grok": {
        "lottery": {"0": 100, "1": 200}, "bayes": {"0": 90, "1": 300}}})
    write(tmp_path, "fig8_routing.json", {"budget": 10000, "seeds": SEEDS,
                                          "grok": {"baseline": [500] * 5, "kl": [900, 950, 1000, 920, 990]}})
    report, line = verdict_lines(tmp_path)
    assert line["C1"] == "reproduced" and "6/6" in report              # six seeds: the fewest that decide
    assert line["C5"] == "not reproduced" and "3 violations" in report   # one violation refutes
    assert line["C4"] == "inconclusive" and "n = 2," in report              # two seeds decide nothing
    assert line["C7"] == "not reproduced"                                # KL slower on 5/5 seeds
    assert line["C2"] == "not run" and line["C10"] == "not run"


def test_clean_inverse_law_without_floor_and_no_grokking_do_not_crash(tmp_path):
    write(tmp_path, "fig3_kl.json", fig3([0.01, 0.03, 0.1, 0.3, 1.0], lambda l, s: round(20 / l * (1 + 0.01 * s))))
    report, line = verdict_lines(tmp_path)
    assert verdict_lines(tmp_path, "v3")[1]["C3"] == "reproduced" and "4 decades" not in report and "room" in report
    # v4, rule 9: these runs predate Eq. 7's amendment, and no held-out seeds are planned for `fresh`
    assert line["C3"] == "inconclusive" and "postdates these runs" in report
    write(tmp_path, "fig3_kl.json", fig3([0.01, 0.1, 1.0], lambda l, s: 500 if l == 1.0 else None))
    report, line = verdict_lines(tmp_path)                  # one lambda groks: no room at all
    assert line["C3"] == "not decided" and "error:" not in report
    write(tmp_path, "fig3_kl.json", fig3([0.01, 0.1], lambda l, s: None))
    assert verdict_lines(tmp_path)[1]["C3"] == "not decided"               # two x of the named room


def test_other_regimes_never_change_the_c3_verdict(tmp_path):
    flat = lambda l, s: 3000 + 10 * s
    write(tmp_path, "fig3_kl.json", fig3([0.01, 0.03, 0.1, 0.3, 1.0], flat))
    before = verdict_lines(tmp_path, "v3")[1]["C3"]
    write(tmp_path, "fig3_kl_fixed.json", fig3([0.01, 0.03, 0.1, 0.3, 1.0], lambda l, s: round(20 / l), "fixed"))
    report, line = verdict_lines(tmp_path, "v3")
    assert line["C3"] == before == "not reproduced" and "flat" in report       # a flat curve fails
    assert "(not part of the verdict)" in report and "fig3_kl_fixed.json" in report
    cell = lambda lam, t: {"rho": 0.003, "wd": 1.0, "lam": lam, "grok": {str(s): t + 10 * s for s in SEEDS}}
    write(tmp_path, "regime_map.json", {"selection": None, "budget": 10000, "cells": {
        "rho0.003_wd1_lam0": cell(0.0, 8000), "rho0.003_wd1_lam0.3": cell(0.3, 2400)}})
    report, line = verdict_lines(tmp_path, "v3")
    assert line["C3"] == before and "(not part of the verdict) regime map rho0.003_wd1_lam0.3" in report


def test_c3b_is_judged_on_the_held_out_seeds_of_the_selected_cell(tmp_path):
    write(tmp_path, "regime_map.json", {"selection": None, "cells": {}})
    line = verdict_lines(tmp_path)[1]
    assert line["C3b"] == line["C11"] == "not decided"          # the map has no C11 part yet
    sel = {"cell": "rho0.003_wd1_lam0", "shows_regime": True, "regime": "refresh0.003", "wd": 1.0,
           "fig3_file": "fig3_kl_refresh0.003_seeds5-9.json",
           "commands": [["exp_fig3_kl.py", "--regime", "refresh0.003", "--seeds", "5", "6", "7", "8", "9"]]}
    write(tmp_path, "regime_map.json", {"selection": sel, "cells": {}})
    text, line = verdict_lines(tmp_path)
    assert line["C3b"] == "not decided" and "exp_fig3_kl.py --regime refresh0.003" in text
    held_out = fig3([0.01, 0.03, 0.1, 0.3, 1.0], lambda l, s: round(20 / l * (1 + 0.01 * s)), "refresh0.003")
    held_out["seeds"] = [5, 6, 7, 8, 9]
    write(tmp_path, sel["fig3_file"], held_out)
    text, line = verdict_lines(tmp_path, "v3")
    assert line["C3b"] == "reproduced" and "seeds [5, 6, 7, 8, 9]" in text
    assert verdict_lines(tmp_path)[1]["C3b"] == "inconclusive"      # v4, rule 9: the law awaits runs after Eq. 7's amendment
    assert "(not part of the verdict) `fig3_kl_refresh0.003_seeds5-9.json`" not in text   # C3's own part only


def test_vacuous_checks_are_not_decided(tmp_path):
    write(tmp_path, "fig11_optimizers.json", {"settings": {
        "adamw": {"plateau_rate": [3e-4] * 5}, "sgd": {"plateau_rate": [None] * 5}}})
    write(tmp_path, "fig10_tasks.json", {"budget": 10000, "seeds": SEEDS, "runs": {
        "perm/baseline": {"grok": [None] * 5, "violations": 0}, "perm/kl": {"grok": [None] * 5, "violations": 0}}})
    text, line = verdict_lines(tmp_path)
    assert "sgd: the MLP norm contracts on the plateau: **not decided**" in text     # not tested here (our mapping)
    assert "not tested here" in text and line["C10"] == "inconclusive"
    assert "perm: KL faster: **inconclusive**" in text and "no run of either arm grokked" in text
    assert line["C9"] == "inconclusive"


def test_readme_blocks_are_generated(tmp_path):
    """Every generated block is rewritten between its markers, the text around them kept."""
    page = tmp_path / "README.md"
    start, end = readme.block_markers("verdicts")
    s2, e2 = readme.block_markers("redraw")
    page.write_text(f"intro\n{start}\nSTALE-TEXT\n{end}\nmiddle\n{s2}\nOLD-TEXT\n{e2}\nrest\n")
    write(tmp_path, "fig1_fresh_lam0.json", {"rows": {s: marks(500) for s in "abcdef"}, "budget": 1000})
    assert readme.update_readme(str(tmp_path), str(page), blocks={"redraw": "new table"})
    text = page.read_text()
    assert "STALE-TEXT" not in text and "OLD-TEXT" not in text and text.startswith("intro\n") and text.endswith("rest\n")
    assert "\nmiddle\n" in text and f"{s2}\nnew table\n{e2}" in text
    row = text.split("| C1: Four phases |")[1].split("\n")[0]       # the README's table, in words: mass 0.3, 6 seeds
    assert "attention when the model memorizes: informative mass at t_mem 0.3" in row
    assert row.endswith("n = 6 | **not reproduced** |")


def _blocks(text):
    import re
    return dict(re.findall(r"<!-- generated: (\w+) .*?-->\n(.*?)\n<!-- end of generated: \1 -->", text, flags=re.S))


def test_the_generated_pages_are_current(monkeypatch):
    """docs/registered/sensitivity.md's generated blocks are what report.py makes from the committed summaries
    (the README's claim table: tests/test_readme.py), and docs/running.md has its redraw table."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    monkeypatch.chdir(root)                               # the generators read results/ as a clone has it
    tried = _blocks(open(os.path.join(root, "docs", "registered", "sensitivity.md")).read())
    assert set(tried) == set(readme.TRIED_BLOCKS), "docs/registered/sensitivity.md: one 'what else we tried' block per choice"
    for name, make in readme.TRIED_BLOCKS.items():
        assert tried[name] == make("results"), f"docs/registered/sensitivity.md block {name!r} is stale: python reproduce.py --report-only"
    running = _blocks(open(os.path.join(root, "docs", "running.md")).read())
    assert set(running) == {"redraw"} and running["redraw"].count("| `python ") == len(reproduce.studies.STUDIES)


def test_c11_parts_untestable_by_premise_match_the_committed_runs():
    """claims.UNTESTABLE_PARTS quotes counts for C11's premise: no baseline (lambda = 0) run of the
    regime map groks within its budget under `fixed` or at rho 0.001, wd 0.5-4 (0 of 20 each)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cells = json.load(open(os.path.join(root, "results", "regime_map.json")))["cells"]
    for rho, part in (("rho0", "fixed: plateau >= Eq. 5's bound"), ("rho0.001", "rho 0.001: plateau >= Eq. 5's bound")):
        runs = [t for wd in ("0.5", "1", "2", "4") for t in cells[f"{rho}_wd{wd}_lam0"]["grok"].values()]
        assert len(runs) == 20 and all(t is None for t in runs)
        assert "0 of 20 within 10,000 epochs at wd 0.5-4" in claims.UNTESTABLE_PARTS["C11"][part][1]   # (status, evidence, design)


def test_c10_parts_not_tested_match_the_committed_runs():
    """claims.NOT_TESTED's evidence for C10's five settings is what their seeds 0-9 show under our mapping:
    no sgd, lion or bs128 seed memorizes; every muon and bs512 seed memorizes and meets B_tau before it or
    fewer than three logged epochs after (logged every 10), so no plateau has points to fit."""
    root, never = os.path.dirname(os.path.dirname(os.path.abspath(__file__))), {}
    for name in ("fig11_optimizers.json", "fig11_optimizers_seeds5-9.json"):
        settings = json.load(open(os.path.join(root, "results", name)))["settings"]
        for o in ("sgd", "lion", "bs128", "muon", "bs512"):
            marks = settings[o]["marks"]
            _, evidence, _ = claims.NOT_TESTED["C10"][f"{o}: the MLP norm contracts on the plateau"]
            assert len(marks) == 5 and all(r is None for r in settings[o]["plateau_rate"])
            assert "seed of 0-9 " in evidence or "seeds of 0-9 " in evidence
            if "memorizes within the budget" in evidence:
                assert all(m["t_mem"] is None for m in marks), o
            elif o == "bs128":
                never[name] = sum(m["t_mem"] is None for m in marks)
                assert all(m["t_struct"] is not None and m["t_struct"] < m["t_mem"] for m in marks if m["t_mem"])
            else:
                assert "within three logged epochs" in evidence
                assert all(m["t_mem"] is not None and m["t_struct"] is not None and m["t_struct"] < m["t_mem"] + 30
                           for m in marks), o
    assert "8 of the 10 bs128 seeds of 0-9 never memorize" in claims.NOT_TESTED["C10"][
        "bs128: the MLP norm contracts on the plateau"][1] and sum(never.values()) == 8


def test_a_bug_in_a_claim_function_raises_under_the_tests(tmp_path, monkeypatch):
    write(tmp_path, "fig4_tickets.json", {"budget": 10000})            # no "grok": a KeyError
    import pytest
    with pytest.raises(KeyError):
        claims.verdicts(str(tmp_path))
    monkeypatch.delenv("PYTEST_CURRENT_TEST")                            # outside the tests: reported
    assert claims.verdicts(str(tmp_path))["C4"][0] == "not decided"


def test_dry_run_prints_the_plan_from_the_registry(capsys, tmp_path):
    reproduce.main(["--quick", "--dry-run", "--only", "C1", "bound", "--results-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert "exp_fig1_phases.py --quick" in out and "bound --quick" in out and "exp_fig3_kl.py" not in out
    # fig1 --quick: one seed; bound --quick: lambda 0 and 0.1 on one seed; nothing stored
    assert [l.split()[2:5] for l in out.splitlines() if l.startswith(("fig1 ", "bound "))] == \
        [["1", "0", "1"], ["2", "0", "2"]]
    assert "total: 3 runs to train" in out
    hours = lambda line: (float(line.split("about ")[1].split()[0]), float(line.split("(")[1].split()[0]))
    total, wall = hours(next(l for l in out.splitlines() if l.startswith("total:")))
    assert wall == total                                      # one run at a time
    reproduce.main(["--quick", "--dry-run", "--only", "C1", "bound", "--shard", "0/2", "--results-dir", str(tmp_path)])
    line = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("total:"))
    assert hours(line) == (total, pytest.approx(total / 2, abs=0.051)) and "in each of 2 shards" in line


def test_a_dry_run_times_a_shape_once_and_keeps_the_saved_timing(capsys, tmp_path, monkeypatch):
    """A shape with no stored run is timed once; a later dry run prices it from timings.json and
    leaves the file as it is (it used to time again and rewrite it on every dry run)."""
    argv = ["--quick", "--dry-run", "--only", "bound", "--results-dir", str(tmp_path)]
    reproduce.main(argv)
    saved = (tmp_path / "quick" / "timings.json").read_bytes()
    def no_timing(cfg):
        raise AssertionError("timed again")
    monkeypatch.setattr(reproduce, "timed_ms_per_epoch", no_timing)
    capsys.readouterr()
    reproduce.main(argv)
    assert (tmp_path / "quick" / "timings.json").read_bytes() == saved
    assert "total: 2 runs to train" in capsys.readouterr().out


def test_a_dry_run_charges_a_run_cut_short_only_its_epochs_left(tmp_path, monkeypatch):
    """A missing run with a checkpoint (runfolder.save_checkpoint) at half its budget costs half;
    the dry run charged it the whole budget before."""
    import argparse
    import pytest
    import torch
    import runfolder
    import store
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(reproduce, "timed_ms_per_epoch", lambda cfg: 1.0)
    args = argparse.Namespace(quick=True, results_dir=str(tmp_path), store=None)
    hours = lambda: reproduce.study_plans(["bound"], args)["bound"][4]
    before = hours()
    module, sargs = reproduce.study_args("bound", args)
    (_, cfg), *others = module.planned_runs(sargs)
    folder = os.path.join(sargs.runs_dir, store.run_key(cfg))
    os.makedirs(folder)
    torch.save({"epoch": cfg.epochs // 2}, runfolder.checkpoint_path(folder))
    n = 1 + len(others)
    assert hours() == pytest.approx(before * (n - 0.5) / n)


def test_every_registered_study_plans_its_runs():
    """Each registry entry names a script whose parse / planned_runs give a non-empty plan."""
    import argparse
    args = argparse.Namespace(quick=False, results_dir="results")
    for name in reproduce.studies.STUDIES:
        module, sargs = reproduce.study_args(name, args)
        assert module.planned_runs(sargs), name


def test_only_takes_claims_or_studies():
    import pytest
    assert reproduce.selected(["C4"]) == ["fig4", "fig4_seeds0-9", "fig4_v4plan"]
    assert reproduce.selected(["C8"]) == ["dims", "dims_v4plan", "heads", "heads_plan", "dims_after"]
    assert reproduce.selected(["fig2", "C1"]) == ["fig1", "fig1_seeds0-9", "fig2"]
    with pytest.raises(SystemExit, match="--only"):
        reproduce.selected(["C99"])


def test_plot_only_redraws_from_a_fixture_store_with_no_training(tmp_path, capsys):
    """What a fresh clone does: `reproduce.py --plot-only` redraws each study whose runs are
    stored and REPORT.md, trains nothing. The fixture store holds Figure 3's 40 paper-scale
    configs, each with the history of one tiny real run (the scripts only read histories)."""
    import argparse
    import train
    import store
    summary, history = train.train(train.make_config(p=7, epochs=30, quiet=True))
    args = argparse.Namespace(quick=False, results_dir=str(tmp_path))
    module, sargs = reproduce.study_args("fig3", args)
    folder = str(tmp_path / "store")
    for _, cfg in module.planned_runs(sargs):
        store.write(folder, dict(summary, config=train.semantic_config(cfg)), history, cfg)
    runs = ["--runs-dir", str(tmp_path / "runs")]       # not the checkout's runs/, which a live sweep may fill
    reproduce.main(["--plot-only", "--only", "C1", "C3", "--results-dir", str(tmp_path)] + runs)
    out = capsys.readouterr().out
    assert "[fig1] done" in out and "[fig3] done" in out and "training" not in out
    for f in ("fig3_kl.json", "fig3_kl.png", "fig1_fresh_lam0.json", "fig1_fresh_lam0.png", "REPORT.md"):
        assert (tmp_path / f).exists(), f
    assert len(os.listdir(folder)) == 40 and not os.path.exists(tmp_path / "runs")
    printout = (tmp_path / "fig3_kl.txt").read_text()          # what the study printed, kept beside its summary
    assert "Claim C3" in printout and "training" not in printout
    os.remove(os.path.join(folder, os.listdir(folder)[0]))         # one run missing: a partial redraw
    os.remove(tmp_path / "fig3_kl.txt")
    reproduce.main(["--plot-only", "--only", "C3", "--results-dir", str(tmp_path)] + runs)
    assert not (tmp_path / "fig3_kl.txt").exists() and (tmp_path / "partial" / "fig3_kl.json").exists()


def priors(baseline, kl, **more):
    return {"budget": 10000, "seeds": SEEDS, "grok": {"baseline": baseline, "kl": kl, **more}}


def test_a_variant_is_reported_beside_its_claim_and_never_decides_it(tmp_path):
    """The pre-registered rho = 0.003 runs of a prior-effect study (studies.py, variant_of) are
    judged by the same rules as the study they repeat, listed under its claim, and leave the
    claim's verdict as the default study's runs make it; so do the priors' secondary arms."""
    same = [3000 + 10 * s for s in SEEDS]
    write(tmp_path, "fig6_priors.json", priors(same, [2900, 3110, 2950, 3100, 3040],     # no detectable effect
                                               uniform=same, **{"kl@0.1": same, "uniform@0.1": same}))
    text, line = verdict_lines(tmp_path)
    assert line["C6"] == "not reproduced"                   # v3: the KL arm is no faster than 1.25x
    assert "Figures 6-7: structural priors (fresh), secondary comparisons:" in text
    assert "  - kl faster than uniform: **" in text and "  - kl@0.1 faster than uniform@0.1: **" in text
    assert "pre-registered, not part of the verdict) Figures 6-7 at rho 0.003:\n  - **not decided**" in text
    write(tmp_path, "fig6_priors_refresh0.003.json", priors(same, [9000 + 100 * s for s in SEEDS]))
    text, line = verdict_lines(tmp_path)
    assert line["C6"] == "not reproduced"        # unchanged: the variant is beside it, never counted
    side = text.split("Figures 6-7 at rho 0.003:\n")[1].split("\n- ")[0]
    assert "  - kl faster than weight decay alone: **not reproduced**" in side       # 3x slower on 5/5 seeds
    assert claims.study_parts(str(tmp_path), "priors_rho")["kl faster than weight decay alone"]["verdict"] == \
        "not reproduced"


def fig3_summary(seeds, table):
    return {"budget": 10000, "seeds": seeds, "regime": "fresh",
            "table": {l: {"grok": times} for l, times in table.items()}}


def test_a_plan_study_decides_only_the_parts_it_was_run_for(tmp_path):
    """The power plan's study of C3's plateau (studies.py, plan_for / plan_parts) replaces that
    part once its summary exists; Eq. 7's law stays Figure 3's; REPORT.md keeps the five-seed
    verdict beside it and lists the move."""
    write(tmp_path, "fig3_kl.json", fig3_summary(SEEDS, {"0": [3000, 2000, 4000, 2500, 3500],     # 1.2x, noisy
                                                 "1": [2500, 2400, 2600, 2000, 3000],
                                                 "0.1": [2600, 2500, 2700, 2100, 3100]}))
    plateau = "distractors fresh: the prior removes the plateau (t_grok(0) / t_grok(lambda = 1))"
    law = "distractors fresh: t_grok - floor ~ 1/lambda over the named room (Eq. 7)"
    five = claims.verdicts(str(tmp_path))["C3"][1]
    assert five[plateau]["verdict"] == "inconclusive" and "plan" not in five[plateau]
    seeds = list(range(18))
    write(tmp_path, "fig3_kl_seeds0-17_lam0_1.json", fig3_summary(seeds, {"0": [3000 + 10 * s for s in seeds],
                                                                  "1": [1000 + 10 * s for s in seeds]}))
    parts = claims.verdicts(str(tmp_path))["C3"][1]
    assert parts[plateau]["verdict"] == "reproduced" and parts[plateau]["plan"] == "fig3_plan"
    assert parts[plateau]["n"] == 18
    assert parts[law] == {k: v for k, v in five[law].items()}         # the plan's summary has no law: untouched
    assert claims.verdicts(str(tmp_path), plan_seeds=False)["C3"][1][plateau]["verdict"] == "inconclusive"
    assert list(claims.study_parts(str(tmp_path), "fig3_plan")) == [plateau]
    text, line = verdict_lines(tmp_path, "five")
    assert line["C3"] == claims.verdicts(str(tmp_path), plan_seeds=False)["C3"][0]
    moved = text.split("## Verdicts that moved\n")[1].split("\n## ")[0]
    assert f"{plateau} (fig3_plan): inconclusive -> reproduced" in moved
    claim_line = next(l for l in moved.splitlines() if l.startswith("- C3:"))      # the claim first, its parts below
    assert claim_line == f"- C3: stays **{line['C3']}**; its parts moved:" and line["C3"] == "inconclusive"   # the law
    assert f"  - {plateau} (fig3_plan)" in moved


def test_each_study_section_shows_its_own_figures_parts(tmp_path, capsys):
    """Two figures of one claim (routing and lengths: C7) each show the part their own runs give."""
    write(tmp_path, "fig8_routing.json", {"budget": 10000, "seeds": SEEDS,
                                          "grok": {"baseline": [500] * 5, "kl": [900, 950, 1000, 920, 990]}})
    acc = lambda a: {str(s): {"6": 1.0, "8": a, "10": a - 0.1} for s in SEEDS}
    write(tmp_path, "fig8_lengths.json", {"accuracy": {"baseline": acc(0.5), "kl": acc(0.8)}})
    assert list(claims.study_parts(str(tmp_path), "routing")) == ["KL faster under dynamic routing"]
    assert list(claims.study_parts(str(tmp_path), "lengths")) == ["KL keeps higher accuracy at longer test lengths"]
    assert claims.study_parts(str(tmp_path), "heads") is None                   # no summary
    for f in ("fig8_routing.png", "fig8_lengths.png"):
        (tmp_path / f).write_bytes(b"")
    text = "\n".join(report.studies_section(str(tmp_path)))
    sections = {block.split("\n")[0]: block for block in text.split("\n### ")[1:]}
    routing = sections["Figure 8 (left): dynamic routing (fresh)"]
    assert '<img src="fig8_routing.png"' in routing and "- KL faster under dynamic routing: **not reproduced**" in routing
    lengths = sections["Figure 8 (right): longer test sequences"]
    assert "KL keeps higher accuracy" in lengths and "dynamic routing" not in lengths
    assert "KL-trained models degrade less" in lengths          # the paper's line for this figure
    out = report.study_parts_text(str(tmp_path), "lengths")     # a study's printout: its own parts only
    assert "KL keeps higher accuracy" in out and "dynamic routing" not in out and "claim C7" in out


def test_a_study_section_says_when_its_censored_runs_were_extended(tmp_path):
    """A time past the budget (--extend, rule 8) must not read as a typo: the budget line says so."""
    grok = {"baseline": [500, 600, 700, 800, 900], "kl": [400, 12000, 300, 350, 420]}
    section = lambda: next(b for b in "\n".join(report.studies_section(str(tmp_path))).split("\n### ")
                           if b.startswith("Figure 8 (left)"))
    write(tmp_path, "fig8_routing.json", {"budget": 10000, "seeds": SEEDS, "grok": grok,
                                          "budgets": {"baseline": [10000] * 5, "kl": [10000] * 5}})
    assert "Budget 10000 epochs." in section()
    write(tmp_path, "fig8_routing.json", {"budget": 10000, "seeds": SEEDS, "grok": grok,
                                          "budgets": {"baseline": [10000] * 5, "kl": [10000, 50000, 10000, 10000, 10000]}})
    assert "Budget 10000 epochs (each run censored at it extended to 50000)." in section()


def test_the_figure_notes_quote_only_generated_numbers():
    """docs/figures.md is hand-written, but every number it quotes (outside code, links and the
    verbatim pre-registration, a quote) appears in the generated results/REPORT.md: a note cannot
    keep a number its data no longer give."""
    import re
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    notes = open(os.path.join(root, "docs", "figures.md")).read()
    generated = open(os.path.join(root, "results", "REPORT.md")).read()
    generated = re.sub(r"(?<=\d),(?=\d{3})", "", generated)           # 12,399 in a page is 12399 in a note too
    prose = "\n".join(l for l in notes.splitlines() if not l.startswith(">"))
    prose = re.sub(r"`[^`]*`|\]\([^)]*\)", "", prose)
    numbers = re.findall(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)", prose)
    assert len(numbers) > 20                                 # the page quotes numbers: the check ran
    quoted = {n.replace(",", "") for n in numbers}
    missing = sorted(n for n in quoted if not re.search(rf"(?<![\d.]){re.escape(n)}(?![\d])", generated))
    assert not missing, f"docs/figures.md quotes numbers no generated page gives: {missing}"


def test_weight_sources_name_the_runs_whose_weights_other_runs_start_from():
    from types import SimpleNamespace as C
    none = dict(teacher=None, init_from=None, mask=None)
    cfgs = [C(**none),
            C(**{**none, "teacher": "results/store/add_p113_fresh_lam=0.1_seed0_e10000_stop200.final.pt"}),
            C(**{**none, "init_from": "results/store/add_p113_fresh_seed3_e10000.init.pt",
                 "mask": "runs/masks/add_p113_fresh_seed3_e10000.mask_lottery_keep0.4.pt"})]
    assert reproduce.weight_sources(cfgs) == {"add_p113_fresh_lam=0.1_seed0_e10000_stop200": {"final"},
                                              "add_p113_fresh_seed3_e10000": {"init", "final"}}


def test_the_plan_counts_a_stored_run_without_the_weights_a_ticket_starts_from(tmp_path):
    """Figure 4's dense runs stored with no weights are trained again (sweep.run_sweep), so the
    dry run must count them; once their weights are stored, nothing is left."""
    import argparse
    import torch
    import train
    import store
    summary, history = train.train(train.make_config(p=7, epochs=20, quiet=True))
    args = argparse.Namespace(quick=True, results_dir=str(tmp_path), store=None)
    module, sargs = reproduce.study_args("fig4", args)
    folder = str(tmp_path / "quick" / "store")
    runs = module.planned_runs(sargs)
    for _, cfg in runs:
        store.write(folder, dict(summary, config=train.semantic_config(cfg), threads=1, ms_per_epoch=1.0), history, cfg)
    dense = [cfg for label, cfg in runs if cfg.init_from is None and cfg.mask is None and not cfg.lam]
    plan = lambda: reproduce.study_plans(["fig4"], args, time_missing=False)["fig4"][:3]
    assert plan() == (len(runs), len(runs) - len(dense), len(dense))
    for cfg in dense:
        for kind in ("init", "final"):
            store.write_weights(folder, cfg, {"w": torch.zeros(1)}, kind)
    assert plan() == (len(runs), len(runs), 0)


def test_a_partial_tasks_summary_leaves_the_missing_arm_not_decided(tmp_path):
    """`--plot-only` on a study half stored writes a partial summary (results/partial/): the
    ρ = 0.003 addition row had its baselines and no KL runs, and claim C9 raised a KeyError."""
    base = {"grok": [3000, 3100, None, 2900, 3300], "violations": 0, "starved_per_seed": [True] * 5}
    write(tmp_path, "fig10_tasks.json", {"budget": 10000, "seeds": SEEDS, "runs": {"add/baseline": base}})
    parts = claims.claim_c9(str(tmp_path))
    assert parts["add: KL faster"]["verdict"] == "not decided"
    assert "kl arm" in parts["add: KL faster"]["reason"]


def test_a_failed_study_fails_the_whole_command(tmp_path, monkeypatch, capsys):
    """A study that crashes under --plot-only used to print FAILED and leave reproduce.py's exit
    status 0, so a script or CI that checks the status never saw it. REPORT.md is still written
    from what did run, and then the command exits non-zero, naming the study."""
    import pytest
    (tmp_path / "fails.py").write_text("import sys\nsys.exit(3)\n")
    monkeypatch.setattr(reproduce, "study_command", lambda name, args: [str(tmp_path / "fails.py")])
    with pytest.raises(SystemExit) as stop:
        reproduce.main(["--plot-only", "--only", "fig3", "--results-dir", str(tmp_path)])
    assert "1 study failed: fig3" in str(stop.value.code)
    assert "[fig3] FAILED (exit 3)" in capsys.readouterr().out and (tmp_path / "REPORT.md").exists()


def test_the_dry_run_counts_a_run_a_stored_run_of_another_budget_holds(tmp_path, monkeypatch):
    """A run store.derived serves (a stored run of another budget or early stop holds it) is
    stored for the dry run, not missing: the power plan's 40k-epoch C11 runs that grokked
    within 10k cost nothing."""
    import argparse
    import store
    monkeypatch.setattr(reproduce, "timed_ms_per_epoch", lambda cfg: 1.0)
    args = argparse.Namespace(quick=True, results_dir=str(tmp_path), store=None)
    assert reproduce.study_plans(["bound"], args)["bound"][:3] == (2, 0, 2)
    module, sargs = reproduce.study_args("bound", args)
    held = store.run_key(module.planned_runs(sargs)[0][1])
    monkeypatch.setattr(store, "derived", lambda folder, cfg: ({}, {}) if store.run_key(cfg) == held else None)
    assert reproduce.study_plans(["bound"], args)["bound"][:3] == (2, 1, 1)


def test_the_plan_column_names_an_undecided_part_and_says_when_its_seeds_are_run(tmp_path):
    """The README's plan column: a part the verdict has decided is never offered; a planned part
    not run yet comes before one whose plan study has run, and that one says its seeds are in."""
    row = lambda claim, part, power: {"claim": claim, "part": part, "seeds": 12, "power_min": power}
    write(tmp_path, "plan.json", {"rows": [row("C9", "decided", 0.5), row("C9", "ran", 0.6), row("C9", "not run", 0.9),
                                           row("C7", "ran", 0.8), {**row("C7", "too dear", 0.1), "untestable": "cost"}]})
    part = lambda verdict, plan=None: {"verdict": verdict, "n": 4, **({"plan": plan} if plan else {})}
    table = {"C9": ("inconclusive", {"decided": part("reproduced", "x"), "ran": part("inconclusive", "x"),
                                     "not run": part("not decided")}),
             "C7": ("inconclusive", {"ran": part("inconclusive", "y"), "too dear": part("untestable here")})}
    got = claims.plan_power(str(tmp_path), table)
    assert got["C9"]["part"] == "not run" and not got["C9"]["run"]
    assert got["C7"]["part"] == "ran" and got["C7"]["run"] and got["C7"]["n_now"] == 4
    assert claims.plan_power(str(tmp_path))["C9"]["part"] == "decided"       # no table: the plan as written


def test_what_else_we_tried_lists_each_reading_with_its_verdict(tmp_path):
    """docs/registered/sensitivity.md's generated blocks: under a choice, every reading of its part from the
    sensitivity study's summary, with its verdict, numbers and held-out note; C10's block adds
    the registered mapping choice; with no summary, "not run yet"."""
    make = readme.TRIED_BLOCKS["tried_c2"]
    assert make(str(tmp_path)).endswith("not run yet.")
    level = {"verdict": "reproduced", "n": 5, "estimate": 0.99, "ci": [0.98, 1.0], "text": "final test acc 0.994"}
    write(tmp_path, "choices.json", {"verdicts": {
        "c2": {"C2-W": {"stored": 10, "runs": 10, "verdict": "reproduced", "parts": {"oracle: full": level},
                        "heldout": {"stored": 3, "runs": 10}},
               "C2-Q": {"stored": 4, "runs": 10}},
        "c10 pilot": {"sgd lr x300": {"stored": 1, "runs": 1, "max_train_acc": 0.5}},
        "c10 choice": {"sgd": None}}})
    text = make(str(tmp_path))
    assert "- C2-W: **reproduced**: oracle: full: " in text and "final test acc 0.994" in text
    assert "held-out confirmation on seeds 5-9 has 3 of 10 runs stored" in text
    assert "- C2-Q: 4 of 10 runs stored" in text and "sgd" not in text
    assert "- by the registered rule, C2: **not decided yet**: 1 of 2 readings have runs missing" in text
    c10 = readme.TRIED_BLOCKS["tried_c10"](str(tmp_path))
    assert "best train accuracy 0.500" in c10 and "sgd: none memorized" in c10


def test_a_budget_never_stored_is_priced_from_the_same_setting_at_other_budgets():
    """A 40k run whose setting is stored only at 10k: seeds that grokked at 10k cost their grokking
    epoch plus the early stop; a seed that never grokked within 10k is charged the whole 40k."""
    import train
    cfg = train.make_config(epochs=40000, stop_after=200, seed=7)
    at_10k = train.make_config(epochs=10000, stop_after=200, seed=0)
    epochs = {reproduce._cell(at_10k): 3000.0}
    groks = {reproduce._cell_any_budget(at_10k): [2800, 4800, None]}
    assert reproduce._cell_any_budget(cfg) == reproduce._cell_any_budget(at_10k)
    assert reproduce.expected_epochs(cfg, epochs, groks) == 5000          # median of 3000, 5000, 40000
    assert reproduce.expected_epochs(at_10k, epochs, groks) == 3000       # its own budget is stored
    groks = {reproduce._cell_any_budget(at_10k): [None, None, 4800]}
    assert reproduce.expected_epochs(cfg, epochs, groks) == 40000
    assert reproduce.expected_epochs(cfg, {}, {}) == 40000                # nothing stored: the budget
    no_stop = train.make_config(epochs=40000, stop_after=None, seed=7)
    assert reproduce.expected_epochs(no_stop, epochs, {reproduce._cell_any_budget(no_stop): [2800]}) == 40000


def test_a_stored_config_without_a_later_flag_meets_the_same_setting_asked_for_now():
    """The dry run priced every run stored before a flag was added (distractor_vocab, init, ...)
    at the whole budget: its stored config lacked the key, so it met no cell asked for now."""
    import json
    import train
    cfg = train.make_config(epochs=10000, stop_after=200, seed=3)
    stored = json.loads(json.dumps(train.semantic_config(cfg)))
    for flag in ("distractor_vocab", "init", "init_scale"):
        stored.pop(flag)
    assert reproduce._cell(stored) == reproduce._cell(cfg)
    assert reproduce._cell({**stored, "init_scale": 2.0}) != reproduce._cell(cfg)


def test_a_table_cell_is_cut_at_a_word_and_never_holds_a_pipe():
    text = "diffuse attention at memorization (informative mass <= 0.25; uniform 0.2)"
    assert readme.short_cell(text, 44) == "diffuse attention at memorization…"   # not "(informat…"
    assert readme.short_cell(text, 48) == "diffuse attention at memorization (informative…"
    assert readme.short_cell("a|b", 48) == "a/b"                         # a '|' would split the cell
    assert readme.short_cell("x" * 60, 20) == "x" * 19 + "…"            # one long word: cut inside it
    assert readme.short_cell(text, len(text)) == text


def test_every_kept_printout_ends_with_the_verdict_lines_the_rules_give_now():
    """A study's .txt (what --plot-only kept) ends with its claim's parts by today's rules and
    store: `reproduce.refresh_printouts` (run by --report-only) rewrites them as runs land, so a
    printout never names as planned a plan row that has run."""
    results = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results")
    kept = {n: reproduce.printout_path(n, results) for n, s in studies.STUDIES.items() if s.command[0] != "-m"}
    kept = {n: p for n, p in kept.items() if os.path.exists(p)}
    assert len(kept) > 20
    for name, path in kept.items():
        text = open(path).read()
        assert text.split(reproduce.VERDICT_TAIL, 1)[0] + report.study_parts_text(results, name) == text, path


def test_the_readme_table_names_a_part_without_its_asides_and_its_status_from_fields():
    """The README's table reads a part's name without its parentheses and seed list (REPORT.md
    keeps every word), and its number and status from the verdict's fields, never from its prose:
    garbling a verdict's text and reason changes nothing in its cell."""
    d = {"table": {"0": {"grok": [5000, 6000, 7000]}, "1": {"grok": [2000, 2500, 2600]}}, "seeds": [5, 6, 7],
         "budget": 10000, "regime": "refresh0.003"}
    parts = claims._fig3_parts(d, "cell x (an aside: y), seeds [5, 6, 7]", rules.RULES["v4"], short="cell x")
    name, v = next(iter(parts.items()))
    assert name == ("cell x (an aside: y), seeds [5, 6, 7]: the prior removes the plateau (t_grok(0) / "
                    "t_grok(lambda = 1))")
    assert readme.part_label(name, v) == "cell x: the prior removes the plateau"       # the field, not the name
    assert readme.part_label("a (b) c", {}) == "a (b) c"                               # no field: the name whole
    assert readme.who_what("garbled", claims.naming("sgd", "the norm contracts")) == ("sgd", "the norm contracts")
    garbled = lambda v: {**v, "text": "x [1, 2]: y", "reason": "z: w"}
    base = {s: 4000 + 150 * s for s in range(8)}
    fast = rules.speedup_verdict_v4(base, {s: t / (1.6 + 0.05 * (s % 3)) for s, t in base.items()}, 10000)
    assert readme._part_number(fast) == readme._part_number(garbled(fast)) == f"{fast['shown']} (counts from 1.25x); " \
        "the paper's, clear of no effect"
    assert fast["shown"].startswith("speed-up 1.6") and fast["shown"].endswith("x]")
    open_ends = rules.speedup_verdict_v4({s: None for s in range(5)}, {s: 3000.0 for s in range(5)}, 10000)
    assert "no finite interval: 5 seeds with a bound" in readme._part_number(open_ends)
    band = rules.level_verdict([0.5, 0.6, 0.55, 0.58, 0.52], 0, 3 / 113, "final test acc")
    assert readme._part_number(garbled(band)).endswith("(our band [0, 0.0265))")
    law = rules.scaling_verdict_v4({1 / l: {s: None for s in range(5)} for l in (0.25, 0.5, 1)}, 10000, [1, 2, 4],
                                   "1/wd")
    assert law["verdict"] == "not decided" and law["dropped"] == "1/wd = [1.0, 2.0, 4.0] dropped: median censored at 10000"
    costly = {**law, "verdict": "inconclusive", "status": "deciding it costs 34 core-hours (more than 10)"}
    assert readme._part_number(garbled(costly)) == f"{law['dropped']}; deciding it costs 34 core-hours (more than 10)"
    none = rules.speedup_verdict_v4({0: None, 1: None}, {0: None, 1: None}, 30000)
    planned = {**none, **claims.v4_plan_note("C9", "perm: KL faster", plan="tasks_perm_v4plan")}
    assert readme._part_number(garbled(planned)) == \
        "no run of either arm grokked within 30000; after its planned runs (plan, row 5)"
    waiting = {**none, **claims.v4_plan_note("C9", "perm: KL faster")}
    assert readme._part_number(waiting).endswith("; runs planned (plan, row 5)")


def test_a_claim_reproduced_where_testable_lists_what_is_reproduced_and_why_the_rest_is_not(monkeypatch, tmp_path):
    """The README's row of a claim reproduced where testable names every reproduced part with its
    number, then the untestable parts grouped by the claim they share and the reason; a share of
    seeds is shown against the majority that counts (rule 5)."""
    parts = {"frozen faster": {"verdict": "reproduced", "n": 90, "shown": "speed-up 1.46x [1.34x, 1.61x]",
                               "against": "counts from 1.25x"},
             "adamw: the norm contracts": rules.property_verdict([True] * 12, "seeds contracting"),
             "sgd: the norm contracts": {"verdict": "untestable here", "n": 0, "status": "no plateau to measure",
                                         "reason": "no plateau to measure: no sgd seed memorizes",
                                         **claims.naming("sgd", "the norm contracts")},
             "muon: the norm contracts": {"verdict": "untestable here", "n": 0, "status": "no plateau to measure",
                                          "reason": "no plateau to measure: every muon seed meets B_tau first",
                                          **claims.naming("muon", "the norm contracts")},
             "lion (lr / 3): the norm contracts": {"verdict": "untestable here", "n": 0, "status": "no memorization",
                                                   "reason": "no memorization: x",
                                                   **claims.naming("lion", "the norm contracts")}}
    monkeypatch.setattr(readme, "verdicts", lambda results: {"C10": ("reproduced where testable", parts)})
    monkeypatch.setitem(claims.PAPER_SHORT, "C10", "optimizers")
    row = readme.readme_table(str(tmp_path)).splitlines()[-1]        # no run dates there: no runs note
    assert row == ("| C10 | optimizers | **reproduced where testable** | frozen faster: speed-up 1.46x [1.34x, 1.61x] "
                   "(counts from 1.25x)<br>adamw: the norm contracts: seeds contracting 12/12 (95% interval [0.74, "
                   "1.00]) (a majority counts: above 1/2)<br>sgd, muon: the norm contracts: untestable here, no plateau "
                   "to measure<br>lion: the norm contracts: untestable here, no memorization | 90, 12, 0, 0 |")


def test_a_shard_reaches_every_study_it_trains_and_a_bad_one_is_one_line(tmp_path, monkeypatch, capsys):
    """`--shard i/n` and `--threads` are passed to each study's command when it trains (never to a
    redraw, which reads every share and trains nothing), and a malformed shard stops with
    argparse's one-line error. Without `--threads` a study picks cores / jobs itself, so two
    sharded processes would each take every core."""
    import pytest
    seen = []
    monkeypatch.setattr(reproduce.subprocess, "run", lambda line, **kw: seen.append(line) or
                        argparse.Namespace(returncode=0, stdout="", stderr=""))
    monkeypatch.setattr(reproduce, "run_forked", lambda command: seen.append(["python", *command]) or   # a redraw's
                        argparse.Namespace(returncode=0, stdout="", stderr=""))
    reproduce.main(["--only", "fig3", "fig4", "--shard", "1/2", "--threads", "1", "--results-dir", str(tmp_path)])
    assert len(seen) == 2 and all(l[l.index("--shard") + 1] == "1/2" for l in seen)
    assert all(l[l.index("--threads") + 1] == "1" for l in seen)
    seen.clear()
    reproduce.main(["--only", "fig3", "--results-dir", str(tmp_path)])
    assert "--threads" not in seen[0] and "--shard" not in seen[0]
    seen.clear()
    reproduce.main(["--plot-only", "--only", "fig3", "--shard", "1/2", "--threads", "1", "--results-dir", str(tmp_path)])
    assert "--shard" not in seen[0] and "--threads" not in seen[0]
    with pytest.raises(SystemExit):
        reproduce.main(["--only", "fig3", "--shard", "2/2"])
    assert "need 0 <= i < n" in capsys.readouterr().err


def test_a_forked_redraw_returns_what_its_command_would(tmp_path):
    """--plot-only runs each study in a child of a forkserver that imported torch and matplotlib
    once (reproduce.run_forked): its exit code, stdout and stderr are those of the same command
    run as a process, for a script and a module, a clean exit and a one-line error."""
    import subprocess
    import sys
    (tmp_path / "tool.py").write_text("import sys\nprint('out', sys.argv[1:])\nprint('err', file=sys.stderr)\n"
                                      "if '--fail' in sys.argv: sys.exit('error: failed')\n")
    assert reproduce.run_forked(["-m", "json.tool", "--help"]).returncode == 0   # the forkserver starts here
    for command in (["tool.py", "a"], ["tool.py", "--fail"], ["-m", "tool", "b"]):
        real = subprocess.run([sys.executable, *command], capture_output=True, text=True, cwd=tmp_path)
        cwd = os.getcwd()
        os.chdir(tmp_path)                  # another folder than the forkserver's, as a user may call it
        try:
            forked = reproduce.run_forked(command)
        finally:
            os.chdir(cwd)
        assert (forked.returncode, forked.stdout, forked.stderr) == (real.returncode, real.stdout, real.stderr), command


def test_a_run_table_tells_a_run_not_stored_from_one_that_never_grokked():
    """A partial study's summary lists only its stored runs: a seed with none is "not stored",
    never "never" (a stored run that did not grok within its budget), and the grokked count is
    of the stored runs."""
    rows = report.study_table({"seeds": [0, 1, 2], "grok": {"lambda 0": {"0": 5660, "1": None}}})
    assert rows[-1] == "| lambda 0 | 5660, never, not stored | 1/2 stored |"
    rows = report.study_table({"seeds": [0, 1], "grok": {"lambda 0": {"0": 5660, "1": None}}})
    assert rows[-1] == "| lambda 0 | 5660, never | 1/2 |"


def test_a_study_that_ran_and_wrote_no_summary_says_why_from_its_printout(tmp_path):
    """audit.deep's registered rule leaves no grid: its section quotes the printout's first clause and
    links it, where a study never run says so."""
    text = report.make_report(str(tmp_path))
    assert "### Beyond the paper: a two-layer LayerNorm transformer\n" in text
    section = lambda t: t.split("### Beyond the paper: a two-layer LayerNorm transformer\n", 1)[1].split("###", 1)[0]
    assert "Not run yet: no summary." in section(text)
    (tmp_path / "deep.txt").write_text("no grid: by the registered rule it is not run (docs/registered/deep.md); "
                                       "the pilot, redrawn:\nmore\n")
    assert "No summary: no grid: by the registered rule it is not run (docs/registered/deep.md) ([deep.txt](deep.txt))." \
        in section(report.make_report(str(tmp_path)))


def test_a_study_section_quotes_its_claims_first_sentence_whole():
    """C11's statement runs "at least Eq. 5's log(...) steps.": the section quoted it to "at least Eq."."""
    assert report.first_sentence("The plateau lasts at least Eq. 5's bound. More.") == "The plateau lasts at least Eq. 5's bound."
    assert report.first_sentence("As Fig. 4 shows. More") == "As Fig. 4 shows."
    assert report.first_sentence("One sentence") == "One sentence."

def test_a_redraw_whose_forkserver_was_lost_runs_again_as_a_process(tmp_path, monkeypatch):
    """A forked child whose exit status could not be read (multiprocessing's 255, no stderr: the forkserver lost,
    seen once in a full suite) is run again as a plain process, so one lost forkserver is no failed study."""
    import argparse
    import subprocess
    calls = []
    monkeypatch.setattr(reproduce, "run_forked", lambda command: calls.append(command) or
                        subprocess.CompletedProcess(command, 255, "", ""))
    args = argparse.Namespace(plot_only=True, quick=False, jobs=1, store=str(tmp_path / "store"),
                              runs_dir=str(tmp_path / "runs"), results_dir=str(tmp_path))
    out, err, bad = reproduce.run_study("fig3", args, str(tmp_path))
    assert calls and not bad and "FAILED" not in "\n".join(out), out      # the plain run: nothing stored, files kept
