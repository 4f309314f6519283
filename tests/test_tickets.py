"""Ticket hooks: pruning keeps exactly the requested fraction; masks hold through steps;
rewinding restores the saved initial values."""
import json
import os

import torch

import exp_fig4_tickets as fig4
import store
import train


def test_global_magnitude_pruning_keeps_the_largest():
    torch.manual_seed(0)
    state = {n: torch.randn(8, 5) for n in fig4.PRUNABLE}
    masks = fig4.magnitude_masks(state, 0.3)
    kept = torch.cat([state[n][masks[n].bool()].abs() for n in fig4.PRUNABLE])
    dropped = torch.cat([state[n][~masks[n].bool()].abs() for n in fig4.PRUNABLE])
    assert kept.numel() == round(0.3 * 8 * 5 * len(fig4.PRUNABLE))
    assert kept.min() >= dropped.max()            # global, not per matrix
    counts = {n: int(masks[n].sum()) for n in fig4.PRUNABLE}
    assert len(set(counts.values())) > 1          # matrices keep different shares


def test_random_masks_keep_the_same_count():
    state = {n: torch.randn(8, 5) for n in fig4.PRUNABLE}
    m = fig4.random_masks(state, 0.3, seed=1)
    assert sum(int(v.sum()) for v in m.values()) == round(0.3 * 8 * 5 * len(fig4.PRUNABLE))
    assert not all(torch.equal(m[n], fig4.magnitude_masks(state, 0.3)[n]) for n in fig4.PRUNABLE)


def test_masks_hold_through_steps_and_rewind_restores_init(tmp_path):
    kw = dict(p=11, frac=0.5, epochs=30, eval_every=10, d_model=16, d_mlp=32, quiet=True, threads=1)
    dense = train.make_config(out=str(tmp_path / "dense"), **kw)
    store.run_to_folder(dense, log=lambda s: None)
    init = torch.load(tmp_path / "dense" / "init.pt")
    final = torch.load(tmp_path / "dense" / "final.pt")
    masks = fig4.magnitude_masks(final, 0.4)
    torch.save(masks, tmp_path / "mask.pt")
    # weight decay and Adam momentum both act on the pruned entries; the hook must undo them
    cfg = train.make_config(init_from=str(tmp_path / "init.pt"), mask=str(tmp_path / "mask.pt"), lam=0.3, **kw)
    torch.save(init, tmp_path / "init.pt")
    weights = {}
    train.train(cfg, weights=weights)
    for n, m in masks.items():
        assert (weights["final"][n][m == 0] == 0).all(), n
        assert (weights["final"][n][m == 1] != 0).all(), n
        # rewinding: the ticket starts from the dense run's initial values on kept entries
        torch.testing.assert_close(weights["init"][n], init[n] * m)
    assert torch.equal(weights["init"]["embed"], init["embed"])   # not pruned, rewound as is


def test_init_seed_changes_only_the_initialisation():
    kw = dict(p=11, frac=0.5, epochs=1, eval_every=1, d_model=16, d_mlp=32, quiet=True, threads=1)
    wa, wb = {}, {}
    train.train(train.make_config(**kw), weights=wa)
    train.train(train.make_config(init_seed=1000, **kw), weights=wb)
    assert not torch.equal(wa["init"]["W_Q"], wb["init"]["W_Q"])


def test_fig4_script_tiny(tmp_path, capsys):
    fig4.main(["--p", "7", "--epochs", "20", "--seeds", "0", "--stop-after", "5",
               "--runs-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res")])
    out = capsys.readouterr().out
    assert "Claim C4" in out and "INCONCLUSIVE" not in out        # a figure script prints no verdict
    from audit import report
    assert "on this study's runs (claim C4" in report.study_parts_text(str(tmp_path / "res"), "fig4")
    s = json.loads((tmp_path / "res" / "fig4_tickets.json").read_text())
    assert set(s["grok"]) == set(fig4.ARMS)
    # every arm trained: the ticket arms found the dense run's weights in its run folder
    assert all(g != "missing" for arm in s["grok"].values() for g in arm.values())
    assert os.path.exists(tmp_path / "res" / "fig4_tickets.png")


def test_fig4_trains_only_the_arms_asked_for_and_draws_them_apart(tmp_path, capsys):
    """--arms dense lottery bayes (what C4 compares) trains those three and writes a summary and
    figure of their own, never over the five arms' files; a pruned ticket brings the dense run
    whose weights it starts from."""
    fig4.main(["--p", "7", "--epochs", "20", "--seeds", "0", "--stop-after", "5", "--arms", "bayes", "lottery",
               "--runs-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res")])
    s = json.loads((tmp_path / "res" / "fig4_tickets_dense-lottery-bayes.json").read_text())
    assert list(s["grok"]) == ["dense", "lottery", "bayes"]
    assert all(g != "missing" for arm in s["grok"].values() for g in arm.values())
    assert sorted(os.listdir(tmp_path / "res")) == ["fig4_tickets_dense-lottery-bayes.json",
                                                    "fig4_tickets_dense-lottery-bayes.png", "store"]
    assert len([f for f in os.listdir(tmp_path / "res" / "store") if f.endswith(".json.gz")]) == 3   # no random, both
    assert fig4.parse(["--arms", "bayes"]).arms == ["bayes"]