"""The figure scripts end to end on a tiny config (seconds), and the phase marks."""
import importlib
import json
import math
import os

import pytest

import exp_appendix
import exp_fig1_phases
import exp_fig2_ablation
import exp_fig3_kl
import store
import sweep
import train
import analysis
from audit import rules
from audit import claims, report

TINY = ["--p", "7", "--epochs", "30", "--seeds", "0", "--stop-after", "5"]


def dirs(tmp_path):
    return ["--runs-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res")]


def test_fig3_redraws_and_reproduce_prints_the_verdict_report_gives(tmp_path, capsys):
    """Figure 3 in fixed distractors, redrawn from the committed store: the script prints its
    table and no verdict; the parts reproduce.py prints after it are the deciding rules' (v4), the
    ones REPORT.md gives C3f: the law read with Eq. 7's floor, left to the held-out seeds that
    postdate the amendment (rule 9); grokking epochs are integers, so the numbers are the same on
    any machine (the continuous beta fit to the precision its printout keeps)."""
    seeds = [str(s) for s in range(10)]
    exp_fig3_kl.main(["--plot-only", "--regime", "fixed", "--epochs", "20000", "--lam", "0", "0.01", "0.02", "0.03",
                      "0.05", "0.1", "0.2", "0.3", "1", "--seeds", *seeds, "--store", os.path.join("results", "store"),
                      "--results-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert "lambda  grok epoch per seed" in out and "reproduced" not in out
    out = report.study_parts_text(str(tmp_path), "fig3_fixed")
    assert "(Eq. 7): inconclusive, n = 10, beta 6.84 [2.84, 10.83]" in out
    assert "held-out seeds 10-19 decide it" in out
    assert "the prior removes the plateau (t_grok(0) / t_grok(lambda = 1)): reproduced" in out
    d = json.loads((tmp_path / "fig3_kl_fixed_seeds0-9_lam0_0.01_0.02_0.03_0.05_0.1_0.2_0.3_1.json").read_text())
    assert claims.fig3_room(d) == claims.ROOM_C3F
    assert claims.fig3_parts_v3(d, "x") == claims._fig3_parts(d, "x", rules.RULES["v3"], claims.ROOM_C3F)


def test_fig1_script(tmp_path, capsys):
    exp_fig1_phases.main(TINY + dirs(tmp_path))
    out = capsys.readouterr().out
    assert "Claim C1" in out and "seeds show the four phases" in out
    assert os.path.exists(tmp_path / "res" / "fig1_fresh_lam0.png")
    s = json.loads((tmp_path / "res" / "fig1_fresh_lam0.json").read_text())
    assert set(s["rows"]) == {"p7_fresh_lam0_seed0"}


def test_fig3_script_and_single_lambda(tmp_path, capsys):
    exp_fig3_kl.main(TINY + ["--lam", "0", "1"] + dirs(tmp_path))
    out = capsys.readouterr().out
    assert "Claim C3" in out and os.path.exists(tmp_path / "res" / "fig3_kl_lam0_1.png")
    exp_fig3_kl.main(TINY + ["--lam", "1", "--plot-only"] + dirs(tmp_path))   # cached: re-plots only
    assert "training" not in capsys.readouterr().out


def test_fig2_script(tmp_path, capsys):
    exp_fig2_ablation.main(TINY + ["--capacity", "wd", "nm", "gnm", "--radius", "5", "--global-radius", "7"]
                           + dirs(tmp_path))
    out = capsys.readouterr().out
    assert "Claim C2" in out and "median class differs" in out
    grid = json.loads((tmp_path / "res" / "fig2_ablation_wd_nm_gnm.json").read_text())["grid"]
    assert set(grid) == {f"{c}|{s}" for c in ("wd", "nm", "gnm") for s in ("no prior", "oracle", "adversarial")}
    # the norm-matched runs really sat on their spheres
    history = lambda **kw: store.read(str(tmp_path / "res" / "store"), train.make_config(
        p=7, epochs=30, stop_after=5, wd=0.0, prior="oracle", lam=1.0, **kw))[1]
    assert all(abs(n - 5) < 1e-4 for n in history(norm_match=5.0)["mlp_norm"])
    assert all(abs(n - 7) < 1e-4 for n in history(global_norm_match=7.0)["total_norm"])


def test_appendix_bound(tmp_path, capsys):
    exp_appendix.main(["bound"] + TINY + dirs(tmp_path))
    out = capsys.readouterr().out
    assert "bound violated at 0 logged" in out


def test_bad_flag_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="--lam"):
        exp_fig3_kl.main(TINY + ["--lam", "-1"] + dirs(tmp_path))
    with pytest.raises(SystemExit, match="unknown capacity"):
        exp_fig2_ablation.main(TINY + ["--capacity", "huge"] + dirs(tmp_path))


def _history(train_acc, test_acc, frac_struct, info_mass, grad):
    return {"epoch": [10 * i for i in range(len(train_acc))], "train_acc": train_acc, "test_acc": test_acc,
            "frac_struct": frac_struct, "info_mass": info_mass, "grad_W_norm": grad,
            "mlp_norm": [1.0] * len(train_acc)}


def test_phase_marks_and_criterion():
    # memorizes at 20, gradient collapses 100x, attention condenses at 40, test rises at 50
    h = _history(train_acc=[0.1, 0.5, 1, 1, 1, 1, 1], test_acc=[0, 0, 0, 0.1, 0.2, 0.6, 0.995],
                 frac_struct=[0, 0.1, 0.2, 0.5, 0.995, 1, 1], info_mass=[0.2, 0.2, 0.2, 0.3, 0.45, 0.48, 0.48],
                 grad=[1.0, 1.0, 0.5, 0.01, 0.02, 0.1, 0.1])
    m = analysis.phase_marks(h, rise_acc=0.5)
    assert (m["t_mem"], m["t_resurge"], m["t_struct"], m["t_rise"], m["t_grok"]) == (20, 30, 40, 50, 60)
    assert m["t_found"] == 30                                        # mass 0.3 > 0.25 first at 30
    assert m["grad_collapse"] == pytest.approx(0.01) and m["mass_at_mem"] == 0.2
    assert analysis.meets_regime_criterion(m, budget=100)
    assert not analysis.meets_regime_criterion(m, budget=50)            # grokked after the budget
    # attention condensing only after test accuracy rose fails the criterion
    late = dict(h, frac_struct=[0, 0, 0, 0, 0, 0, 1])
    assert not analysis.meets_regime_criterion(analysis.phase_marks(late, 0.5), budget=100)
    # no gradient collapse fails it too
    flat = dict(h, grad_W_norm=[1.0] * 7)
    assert not analysis.meets_regime_criterion(analysis.phase_marks(flat, 0.5), budget=100)


def test_appendix_priors_quick_looks_at_its_one_lambda():
    """The priors' --quick preset is the one its --help prints: no arm at --low-lam (it once lived in
    the help text only, and the quick look trained four arms more)."""
    args = exp_appendix.parse(["priors", "--quick"])
    assert args.low_lam == 0.0 and not [label for label, _ in exp_appendix.planned_runs(args) if "@" in label]
    assert [label for label, _ in exp_appendix.planned_runs(exp_appendix.parse(["priors"])) if "@0.1" in label]


def test_appendix_priors_and_teacher_stage(tmp_path, capsys):
    arms = ["--arms", "baseline", "kl", "entropy", "teacher"]
    exp_appendix.main(["priors"] + TINY + arms + dirs(tmp_path))
    out = capsys.readouterr().out
    assert "Claim C6" in out and "no grokked baseline" in out            # tiny runs never grok
    # mark the baseline as grokked (in the store, which a sweep reads first): the second call
    # trains the teacher arm from the baseline's final weights
    folder = str(tmp_path / "res" / "store")
    base = train.make_config(p=7, epochs=30, stop_after=5, seed=0)
    summary, history = store.read(folder, base)
    store.write(folder, dict(summary, grok_epoch=20), history, base)
    # a redraw before the teacher is trained draws stage 1 to partial/ (it used to stop at stage 2)
    exp_appendix.main(["priors"] + TINY + arms + ["--plot-only"] + dirs(tmp_path))
    assert "none of the 1 teacher runs is stored yet" in capsys.readouterr().out
    assert (tmp_path / "res" / "partial" / "fig6_priors.json").exists()
    exp_appendix.main(["priors"] + TINY + arms + dirs(tmp_path))
    out = capsys.readouterr().out
    assert "training 1 of 1 runs" in out                                # only the teacher
    teacher = train.make_config(p=7, epochs=30, stop_after=5, seed=0, lam=1.0, prior="teacher",
                                teacher=store.weights_path(folder, base))
    summary, _ = store.read(folder, teacher)                           # stored under its own key
    assert os.path.exists(summary["config"]["teacher"])                 # the baseline's weights, kept in the store
    assert store.run_key(base) in store.run_key(teacher)                # and named in the teacher's key
    res = json.loads((tmp_path / "res" / "fig6_priors.json").read_text())
    assert set(res["grok"]) == {"baseline", "kl", "entropy", "teacher", "kl@0.1", "entropy@0.1"}
    assert res["low_lam"] == 0.1 and "faster than baseline" not in out     # the secondary comparisons are REPORT.md's
    assert "entropy@0.1 faster than baseline" in claims.priors_secondary(res)


def test_appendix_optimizers_predicted_rates(tmp_path):
    exp_appendix.main(["optimizers", "--settings", "adamw", "lion", "bs512"] + TINY + dirs(tmp_path))
    res = json.loads((tmp_path / "res" / "fig11_optimizers.json").read_text())["settings"]
    # the rate weight decay alone implies: one step of 1e-3 per epoch, 1 step/epoch at full batch
    assert res["adamw"]["wd_rate"] == pytest.approx(-math.log(1 - 1e-3))
    assert res["lion"]["wd_rate"] == pytest.approx(-math.log(1 - 1e-3))
    n_train = round(0.3 * 7 * 7)   # p = 7, frac 0.3: fewer than 512 examples -> 1 step per epoch
    assert res["bs512"]["wd_rate"] == pytest.approx(-math.log(1 - 1e-3) * math.ceil(n_train / 512))


def test_plateau_contraction_fits_the_decay_rate():
    import numpy as np
    ep = list(range(0, 200, 10))
    h = _history(train_acc=[0.5] + [1.0] * 19, test_acc=[0.0] * 19 + [1.0], frac_struct=[0.0] * 20,
                 info_mass=[0.2] * 20, grad=[1.0] * 20)
    h["mlp_norm"] = [float(30 * np.exp(-2e-3 * e)) for e in ep]
    rate, window = analysis.plateau_contraction(h)
    assert rate == pytest.approx(2e-3, rel=1e-9) and window == (10, 190)


def test_a_plateau_after_structure_is_measured_to_grokking_and_said_why_not_in_the_verdict():
    """Muon's runs met B_tau before memorizing: [t_mem, t_struct) is empty, so the verdict's
    rate is None; the descriptive rate over [t_mem, t_grok) still reads the norm (here growing)."""
    import numpy as np
    ep = list(range(0, 200, 10))
    h = _history(train_acc=[0.5] * 3 + [1.0] * 17, test_acc=[0.0] * 15 + [1.0] * 5, frac_struct=[0.0] + [1.0] * 19,
                 info_mass=[0.2] * 20, grad=[1.0] * 20)
    h["mlp_norm"] = [float(30 * np.exp(1e-3 * e)) for e in ep]         # grows on the plateau [30, 150)
    assert analysis.plateau_contraction(h)[0] is None
    assert exp_appendix.contraction_to_grok(h) == pytest.approx(-1e-3, rel=1e-9)
    assert claims.no_plateau_reason([{"t_mem": 30, "t_struct": 10}, {"t_mem": 30, "t_struct": 40},
                                     {"t_mem": None, "t_struct": 5}]) == \
        ("no plateau to measure: 2 of 3 seeds memorized; 1 of them met B_tau first (t_struct <= t_mem), "
         "1 met it fewer than three logged epochs after")
    assert claims.no_plateau_reason([{"t_mem": None, "t_struct": None}]) == "no plateau to measure: no seed memorized"


STUDY_ARGS = {"lengths": ["--lengths", "6", "9"],
              "dims": ["--dims", "16", "32"], "optimizers": ["--settings", "adamw", "lion"]}
STUDY_FILES = {"tasks": "fig10_tasks", "autoregressive": "fig10_autoregressive", "routing": "fig8_routing",
               "lengths": "fig8_lengths", "dims": "fig9_dims", "heads": "fig9_heads", "frozen": "appendix_frozen",
               "optimizers": "fig11_optimizers", "priors": "fig6_priors"}


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    """Every appendix study once on the tiny config, into one results folder, with its output."""
    root = tmp_path_factory.mktemp("studies")
    outputs = {}
    for study in STUDY_FILES:
        import contextlib
        import io
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exp_appendix.main([study] + TINY + STUDY_ARGS.get(study, []) + dirs(root))
        outputs[study] = buf.getvalue()
    return root, outputs


@pytest.mark.parametrize("study", list(STUDY_FILES))
def test_appendix_study_runs(studies, study):
    root, outputs = studies
    assert "Claim C" in outputs[study]
    for ext in ("png", "json"):
        assert (root / "res" / f"{STUDY_FILES[study]}.{ext}").exists()


def test_tasks_summary_comes_from_stored_runs_never_an_older_summary(studies, tmp_path, capsys):
    """--tasks chooses what is trained; every task's row is computed from its stored runs, never
    copied from an older summary. A redraw with another task's runs missing goes to partial/."""
    root, _ = studies
    full = (root / "res" / "fig10_tasks.json").read_text()
    exp_appendix.main(["tasks"] + TINY + ["--tasks", "parity", "--plot-only"] + dirs(root))
    assert (root / "res" / "fig10_tasks.json").read_text() == full      # the same runs, the same rows
    assert set(json.loads(full)["runs"]) == {f"{t}/{a}" for t in ("add", "parity", "perm") for a in ("baseline", "kl")}
    exp_appendix.main(["tasks"] + TINY + ["--tasks", "parity"] + dirs(tmp_path))   # a store with parity only
    assert "runs of the other tasks are not stored" in capsys.readouterr().out
    assert set(json.loads((tmp_path / "res" / "fig10_tasks.json").read_text())["runs"]) == \
        {"parity/baseline", "parity/kl"}
    exp_appendix.main(["tasks"] + TINY + ["--tasks", "parity", "--plot-only"] + dirs(tmp_path))
    assert (tmp_path / "res" / "partial" / "fig10_tasks.json").exists()


def test_the_quick_tasks_look_redraws_as_it_was_drawn(tmp_path, monkeypatch):
    """--quick leaves S_5 out by design: its redraw from the quick store is the same summary,
    not a partial one for want of perm runs (it once went to partial/)."""
    for key, value in dict(p=7, epochs=30, seeds=[0], stop_after=5).items():
        monkeypatch.setitem(exp_appendix.TASK_STUDY_QUICK, key, value)
    exp_appendix.main(["tasks", "--quick"] + dirs(tmp_path))
    drawn = (tmp_path / "res" / "quick" / "fig10_tasks.json").read_text()
    assert set(json.loads(drawn)["runs"]) == {f"{t}/{a}" for t in ("add", "parity") for a in ("baseline", "kl")}
    exp_appendix.main(["tasks", "--quick", "--plot-only"] + dirs(tmp_path))
    assert (tmp_path / "res" / "quick" / "fig10_tasks.json").read_text() == drawn
    assert not (tmp_path / "res" / "quick" / "partial").exists()


def test_a_tasks_summary_of_its_own_covers_the_tasks_asked_for(tmp_path, capsys):
    """The addition row at rho = 0.003 (`--tasks add --regime refresh0.003`) writes a summary of
    its own; the other tasks were never planned in that regime, so their absence does not make
    the redraw partial (it went to partial/ with all ten of its runs stored)."""
    flags = ["tasks"] + TINY + ["--tasks", "add", "--regime", "refresh0.5"] + dirs(tmp_path)
    exp_appendix.main(flags)
    exp_appendix.main(flags + ["--plot-only"])
    assert "not stored" not in capsys.readouterr().out
    summary = tmp_path / "res" / "fig10_tasks_refresh0.5.json"
    assert summary.exists() and not (tmp_path / "res" / "partial").exists()
    assert set(json.loads(summary.read_text())["runs"]) == {"add/baseline", "add/kl"}


def test_report_reads_every_study_summary(studies):
    """report.make_report understands what the scripts write: every appendix claim gets
    a measured line, none is 'not run'."""
    from audit import report as report_module
    root, outputs = studies
    report = report_module.make_report(str(root / "res"))
    lines = {l.split(" | ")[0][2:]: l for l in report.splitlines() if l.startswith("| C")}
    for claim in ("C6", "C7", "C8", "C9", "C10"):
        assert "**not run**" not in lines[claim], lines[claim]
    assert "error:" not in report
    # a figure script prints its measurements, never a verdict; the verdicts are REPORT.md's
    for study, out in outputs.items():
        assert "Verdict by the repository's rules" not in out and "[yes]" not in out, study
        assert "reproduced" not in out.replace("not reproduced", ""), study


def test_distributed_condition_epochs():
    h = {"epoch": [0, 10, 20, 30], "frac_struct": [0.0, 0.995, 1.0, 1.0],
         "frac_struct_heads": [[0, 0], [0.5, 0.2], [0.3, 0.995], [1.0, 1.0]]}
    # epoch 10: the average meets B_tau, no head does; 20: head 1 alone does; 30: both do
    assert exp_appendix.distributed_epochs(h).tolist() == [10]


def test_regime_map_script(tmp_path, capsys):
    """The map end to end on the baseline row (7 refresh rates, one tiny run each), then
    redrawn from the store alone with no training."""
    from audit import regime_map as exp_regime_map
    exp_regime_map.main(TINY + dirs(tmp_path) + ["--part", "baseline"])
    out = capsys.readouterr().out
    assert "training 7 of 7 runs" in out and "Selection for the held-out confirmation" in out and "not decided" in out
    for f in ("regime_map.json", "regime_map.png", "regime_map_baselines.png", "regime_map_c11.png"):
        assert os.path.exists(tmp_path / "res" / f)
    cells = json.loads((tmp_path / "res" / "regime_map.json").read_text())["cells"]
    assert set(cells) == {exp_regime_map.cell_key(rho, 1.0, 0.0) for rho in exp_regime_map.RHOS}
    import shutil
    shutil.rmtree(tmp_path / "runs")
    exp_regime_map.main(TINY + dirs(tmp_path) + ["--part", "baseline", "--plot-only"])
    assert "training" not in capsys.readouterr().out


QUICK_COMMANDS = [("exp_fig1_phases", []), ("exp_fig2_ablation", []), ("exp_fig3_kl", []), ("exp_fig4_tickets", []),
                  ("audit.regime_map", [])] + [("exp_appendix", [study]) for study in (
                      "bound", "priors", "frozen", "optimizers", "routing", "lengths", "dims", "heads", "tasks")]


@pytest.mark.parametrize("script,study", QUICK_COMMANDS, ids=lambda v: "-".join(v) if isinstance(v, list) else v)
def test_every_quick_preset_runs_the_small_model(script, study, tmp_path, monkeypatch):
    """--quick: every modular-addition run of every preset is sweep.QUICK_MODEL (nothing is trained)."""
    asked = []

    def nothing_stored(runs, args, log=print, weights=()):     # what run_sweep does with --plot-only and an empty store
        asked.extend(runs)
        raise SystemExit("error: none of the runs is in the store")
    monkeypatch.setattr(sweep, "run_sweep", nothing_stored)
    with pytest.raises(SystemExit):
        importlib.import_module(script).main(study + ["--quick"] + dirs(tmp_path))
    added = [cfg for _, cfg in asked if cfg.task in ("add", "route")]
    assert added, "the preset asked for no modular-addition run"
    for cfg in added:
        assert {k: getattr(cfg, k) for k in sweep.QUICK_MODEL} == sweep.QUICK_MODEL
        assert cfg.epochs <= 3000


def test_the_frozen_study_runs_only_the_arms_asked_for():
    """The power plan compares frozen attention with the baseline at 90 seeds: --arms leaves the
    KL arm (drawn beside them) out, and the default keeps all three."""
    run = lambda *argv: exp_appendix.frozen_runs(exp_appendix.parse(["frozen", *argv]))
    assert len(run()) == 3 * 5
    two = run("--arms", "baseline", "frozen", "--seeds", "0", "1")
    assert [name.rsplit("_", 1)[0].split("_")[-1] for name, _ in two] == ["baseline", "baseline", "frozen", "frozen"]
    assert [cfg.frozen_attn for _, cfg in two] == [None, None, "oracle", "oracle"]


def test_a_title_names_consecutive_seeds_as_a_range():
    import plots
    assert plots.seeds_text(range(90)) == "0-89" and plots.seeds_text([5, 6, 7, 8, 9]) == "5-9"
    assert plots.seeds_text([0, 2, 3]) == "0, 2, 3" and plots.seeds_text([4]) == "4"