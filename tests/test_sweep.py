"""The sweep cache, sharding and the Figure 3 fits."""
import argparse
import os

import numpy as np
import pytest

import exp_fig3_kl
import sweep
import train


def sweep_args(tmp_path, **kw):
    a = argparse.Namespace(seeds=[0], jobs=1, shard=None, plot_only=False,
                           runs_dir=str(tmp_path / "runs"), results_dir=str(tmp_path / "res"), device="cpu")
    vars(a).update(kw)
    return a


def tiny_runs(lams=(0.0, 0.5)):
    return [(f"lam{l:g}", train.make_config(p=7, frac=0.5, epochs=10, d_model=8, d_mlp=16, lam=l))
            for l in lams]


def test_second_call_trains_nothing(tmp_path):
    logs = []
    res = sweep.run_sweep(tiny_runs(), sweep_args(tmp_path), log=logs.append)
    assert set(res) == {"lam0", "lam0.5"} and any("training 2 of 2" in l for l in logs)
    stamps = {n: os.stat(tmp_path / "runs" / n / "summary.json").st_mtime_ns for n in res}
    logs.clear()
    res2 = sweep.run_sweep(tiny_runs(), sweep_args(tmp_path), log=logs.append)
    assert not any("training" in l for l in logs)
    assert {n: os.stat(tmp_path / "runs" / n / "summary.json").st_mtime_ns for n in res2} == stamps
    assert res2["lam0.5"][0] == res["lam0.5"][0]


def test_changed_config_is_not_reused(tmp_path):
    sweep.run_sweep(tiny_runs(), sweep_args(tmp_path), log=lambda s: None)
    changed = [("lam0", train.make_config(p=7, frac=0.5, epochs=11, d_model=8, d_mlp=16))]
    with pytest.raises(ValueError, match="another config"):
        sweep.run_sweep(changed, sweep_args(tmp_path), log=lambda s: None)


def test_interrupted_sweep_resumes(tmp_path):
    runs = tiny_runs((0.0, 0.1, 0.2))
    sweep.run_sweep(runs[:1], sweep_args(tmp_path), log=lambda s: None)
    # a run killed mid-way leaves a history but no summary: it is redone
    os.makedirs(tmp_path / "runs" / "lam0.1")
    (tmp_path / "runs" / "lam0.1" / "history.json").write_text("{}")
    logs = []
    res = sweep.run_sweep(tiny_runs((0.0, 0.1, 0.2)), sweep_args(tmp_path), log=logs.append)
    assert any("training 2 of 3" in l for l in logs) and set(res) == {"lam0", "lam0.1", "lam0.2"}


def test_plot_only_trains_nothing(tmp_path):
    res = sweep.run_sweep(tiny_runs(), sweep_args(tmp_path, plot_only=True), log=lambda s: None)
    assert res == {} and not os.path.exists(tmp_path / "runs" / "lam0")


@pytest.mark.parametrize("n_runs,n_shards", [(10, 3), (7, 7), (3, 5), (40, 4)])
def test_shards_partition_the_runs(n_runs, n_shards):
    runs = list(range(n_runs))
    parts = [sweep.shard_runs(runs, f"{i}/{n_shards}") for i in range(n_shards)]
    flat = [r for p in parts for r in p]
    assert sorted(flat) == runs and len(flat) == len(set(flat))


def test_bad_shard():
    for s in ("3/3", "a/b", "1", "-1/2"):
        with pytest.raises(ValueError):
            sweep.parse_shard(s)


def test_parallel_jobs_match_serial(tmp_path):
    serial = sweep.run_sweep(tiny_runs(), sweep_args(tmp_path / "a"), log=lambda s: None)
    par = sweep.run_sweep(tiny_runs(), sweep_args(tmp_path / "b", jobs=2), log=lambda s: None)
    for n in serial:
        assert serial[n][1]["train_loss"] == par[n][1]["train_loss"]


def test_scaling_fit_recovers_slope_and_floor():
    lams = np.array([0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0])
    for slope in (1.0, 0.6):
        t = np.maximum(400.0, 30.0 * (1 / lams) ** slope)     # floor reached at lambda ~0.3+
        noisy = t * np.exp(np.random.default_rng(0).normal(0, 0.02, len(t)))
        fit = exp_fig3_kl.fit_scaling(lams, noisy)
        assert fit["slope"] == pytest.approx(slope, abs=0.05)
        assert fit["floor"] == pytest.approx(400, rel=0.05)
        assert set(fit["sloped_lams"]) == {l for l, v in zip(lams, 30.0 / lams ** slope) if v > 400}
    # a pure power law has no floor
    fit = exp_fig3_kl.fit_scaling(lams[:4], 50 / lams[:4])
    assert fit["n_floor"] == 0 and fit["slope"] == pytest.approx(1.0, abs=1e-6)


def test_slope_interval_covers_truth():
    rng = np.random.default_rng(1)
    pts = [(l, 20 / l * np.exp(rng.normal(0, 0.1))) for l in (0.01, 0.03, 0.1, 0.3) for _ in range(5)]
    lo, hi = exp_fig3_kl.slope_interval(pts, [0.01, 0.03, 0.1, 0.3])
    assert lo < 1.0 < hi and hi - lo < 0.3


def test_divergence_rate_of_an_exponential():
    ep = np.arange(0, 1000, 10)
    hist = {"epoch": ep.tolist(), "struct_div": (0.9 * np.exp(-0.004 * ep)).tolist()}
    assert exp_fig3_kl.divergence_rate(hist) == pytest.approx(0.004, rel=1e-6)
