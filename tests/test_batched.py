"""Seed-batched training (batched.py) against separate train.py runs."""
import os

import pytest
import torch

import batched
import sweep
import train

KW = dict(p=13, frac=0.5, epochs=40, eval_every=5, threads=1, quiet=True, lr=3e-3, stop_after=5)


# What may legitimately differ: the vmapped matmuls may round differently from the plain
# ones (vectorized kernels, another summation order: ~1e-7 relative per step), and Adam
# divides each step by sqrt(v), so an entry whose gradient is near zero can move by up to
# ~lr differently per step. Over 40 steps at lr 3e-3 this was measured at 1.2e-5 on an
# AVX-512 CPU (0 on others). The tolerances leave ~10x headroom over that and stay ~100x
# below what a wrong loss moves (see the lambda check at the end).
HIST_TOL = dict(rtol=1e-3, atol=1e-4)
WEIGHT_TOL = dict(rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("prior_kind", train.PRIOR_KINDS)
def test_batched_histories_equal_separate_runs(prior_kind):
    """Three runs (seeds and lambdas differ, fresh distractors) batched into one model give
    the histories of three train.py runs, up to the rounding described above, for every
    prior kind (each run's loss is train.training_loss)."""
    cfgs = [train.make_config(seed=s, lam=lam, prior_kind=prior_kind, **KW)
            for s, lam in ((0, 0.0), (1, 0.3), (2, 1.0))]
    weights = []
    got = batched.train_batched(cfgs, weights=weights)
    refs = []
    for cfg, (summary, history), w in zip(cfgs, got, weights):
        ref_w = {}
        ref_summary, ref = train.train(cfg, weights=ref_w)
        refs.append(ref)
        assert history.keys() == ref.keys() and history["epoch"] == ref["epoch"]
        for key in ("train_loss", "test_loss", "test_acc", "prior_loss", "grad_W_norm", "lemma_bound", "mlp_norm"):
            torch.testing.assert_close(torch.tensor(history[key]), torch.tensor(ref[key]), **HIST_TOL)
        assert summary["grok_epoch"] == ref_summary["grok_epoch"]
        for n in ref_w["init"]:
            assert torch.equal(w["init"][n], ref_w["init"][n])
            torch.testing.assert_close(w["final"][n], ref_w["final"][n], **WEIGHT_TOL)
    # the tolerance can tell a wrong prior strength apart: lambda 0.3 vs 1.0 (seeds aside)
    lam_run = train.train(train.make_config(seed=2, lam=0.3, prior_kind=prior_kind, **KW))[1]
    with pytest.raises(AssertionError):
        torch.testing.assert_close(torch.tensor(lam_run["train_loss"]), torch.tensor(refs[2]["train_loss"]), **HIST_TOL)


def test_batched_refuses_what_it_does_not_support():
    with pytest.raises(ValueError, match="differ only"):
        batched.check_batchable([train.make_config(), train.make_config(d_model=32)])
    with pytest.raises(ValueError, match="--batch-size"):
        batched.check_batchable([train.make_config(batch_size=64)])
    with pytest.raises(ValueError, match="--optimizer lion"):
        batched.check_batchable([train.make_config(optimizer="lion")])
    with pytest.raises(ValueError, match="--qk-penalty"):   # it reads the plain model's weights
        batched.check_batchable([train.make_config(qk_penalty=0.5)])


def test_sweep_batch_seeds(tmp_path):
    """--batch-seeds groups the runs by config, writes normal run folders, and the cache then
    serves them to an unbatched call."""
    class Args:
        jobs, shard, plot_only, device, batch_seeds = 1, None, False, "cpu", True
        runs_dir, results_dir = str(tmp_path / "runs"), str(tmp_path / "res")
    runs = [(f"s{s}_d{d}", train.make_config(seed=s, d_model=d, **KW)) for s in (0, 1) for d in (8, 16)]
    assert sorted(len(g) for g in sweep.batch_groups([c for _, c in runs])) == [2, 2]
    res = sweep.run_sweep(runs, Args())
    assert set(res) == {n for n, _ in runs}
    assert all(os.path.exists(tmp_path / "runs" / f"{n}_e40" / "final.pt") for n, _ in runs)
    Args.batch_seeds = False
    lines = []
    sweep.run_sweep(runs, Args(), log=lines.append)
    assert not any("training" in line for line in lines)            # all cached
