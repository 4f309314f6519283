"""The figure scripts end to end on a tiny config (seconds), and the phase marks."""
import json
import os

import pytest

import exp_appendix
import exp_fig1_phases
import exp_fig2_ablation
import exp_fig3_kl

TINY = ["--p", "7", "--epochs", "30", "--seeds", "0", "--stop-after", "5"]


def dirs(tmp_path):
    return ["--runs-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res")]


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
    exp_fig2_ablation.main(TINY + ["--capacity", "wd", "nm", "--radius", "5"] + dirs(tmp_path))
    out = capsys.readouterr().out
    assert "Claim C2" in out and "cells where the measurement disagrees" in out
    grid = json.loads((tmp_path / "res" / "fig2_ablation.json").read_text())["grid"]
    assert set(grid) == {f"{c}|{s}" for c in ("wd", "nm") for s in ("no prior", "oracle", "adversarial")}
    # the norm-matched runs really sat on the sphere
    run = tmp_path / "runs" / "p7_fresh_nm_oracle_seed0" / "history.json"
    assert all(abs(n - 5) < 1e-4 for n in json.loads(run.read_text())["mlp_norm"])


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
            "frac_struct": frac_struct, "info_mass": info_mass, "grad_W_norm": grad}


def test_phase_marks_and_criterion():
    # memorizes at 20, gradient collapses 100x, attention condenses at 40, test rises at 50
    h = _history(train_acc=[0.1, 0.5, 1, 1, 1, 1, 1], test_acc=[0, 0, 0, 0.1, 0.2, 0.6, 0.995],
                 frac_struct=[0, 0.1, 0.2, 0.5, 0.995, 1, 1], info_mass=[0.2, 0.2, 0.2, 0.3, 0.45, 0.48, 0.48],
                 grad=[1.0, 1.0, 0.5, 0.01, 0.02, 0.1, 0.1])
    m = exp_fig1_phases.phase_marks(h, rise_acc=0.5)
    assert (m["t_mem"], m["t_resurge"], m["t_struct"], m["t_rise"], m["t_grok"]) == (20, 30, 40, 50, 60)
    assert m["grad_collapse"] == pytest.approx(0.01) and m["mass_at_mem"] == 0.2
    assert exp_fig1_phases.meets_criterion(m, budget=100)
    assert not exp_fig1_phases.meets_criterion(m, budget=50)            # grokked after the budget
    # attention condensing only after test accuracy rose fails the criterion
    late = dict(h, frac_struct=[0, 0, 0, 0, 0, 0, 1])
    assert not exp_fig1_phases.meets_criterion(exp_fig1_phases.phase_marks(late, 0.5), budget=100)
    # no gradient collapse fails it too
    flat = dict(h, grad_W_norm=[1.0] * 7)
    assert not exp_fig1_phases.meets_criterion(exp_fig1_phases.phase_marks(flat, 0.5), budget=100)
