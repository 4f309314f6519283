"""Seed-batched training (batched.py) against separate train.py runs."""
import os

import pytest
import torch

import batched
import sweep
import train

KW = dict(p=13, frac=0.5, epochs=40, eval_every=5, threads=1, quiet=True, lr=3e-3, stop_after=5)


def test_batched_histories_equal_separate_runs():
    """Three runs (seeds and lambdas differ, fresh distractors) batched into one model give
    the same histories as three train.py runs (bitwise on CPU here; the contract is 'equal
    up to float rounding', so compare with a tight tolerance)."""
    cfgs = [train.make_config(seed=s, lam=lam, **KW) for s, lam in ((0, 0.0), (1, 0.3), (2, 1.0))]
    weights = []
    got = batched.train_batched(cfgs, weights=weights)
    for cfg, (summary, history), w in zip(cfgs, got, weights):
        ref_w = {}
        ref_summary, ref = train.train(cfg, weights=ref_w)
        assert history.keys() == ref.keys() and history["epoch"] == ref["epoch"]
        for key in ("train_loss", "test_loss", "test_acc", "prior_loss", "grad_W_norm", "lemma_bound", "mlp_norm"):
            torch.testing.assert_close(torch.tensor(history[key]), torch.tensor(ref[key]), rtol=1e-5, atol=1e-7)
        assert summary["grok_epoch"] == ref_summary["grok_epoch"]
        for n in ref_w["init"]:
            assert torch.equal(w["init"][n], ref_w["init"][n])
            torch.testing.assert_close(w["final"][n], ref_w["final"][n], rtol=1e-5, atol=1e-6)


def test_batched_refuses_what_it_does_not_support():
    with pytest.raises(ValueError, match="differ only"):
        batched.check_batchable([train.make_config(), train.make_config(d_model=32)])
    with pytest.raises(ValueError, match="--batch-size"):
        batched.check_batchable([train.make_config(batch_size=64)])
    with pytest.raises(ValueError, match="--optimizer lion"):
        batched.check_batchable([train.make_config(optimizer="lion")])


def test_sweep_batch_seeds(tmp_path):
    """--batch-seeds groups the runs by config, writes normal run folders, and the cache then
    serves them to an unbatched call."""
    class Args:
        jobs, shard, plot_only, device, batch_seeds = 1, None, False, "cpu", True
        runs_dir = str(tmp_path)
    runs = [(f"s{s}_d{d}", train.make_config(seed=s, d_model=d, **KW)) for s in (0, 1) for d in (8, 16)]
    assert sorted(len(g) for g in sweep.batch_groups([c for _, c in runs])) == [2, 2]
    res = sweep.run_sweep(runs, Args())
    assert set(res) == {n for n, _ in runs}
    assert all(os.path.exists(tmp_path / n / "final.pt") for n, _ in runs)
    Args.batch_seeds = False
    lines = []
    sweep.run_sweep(runs, Args(), log=lines.append)
    assert not any("training" in line for line in lines)            # all cached
