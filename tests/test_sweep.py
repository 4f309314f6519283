"""The run store, the sweep cache, sharding and the Figure 3 fits."""
import argparse
import json
import os
import shutil

import numpy as np
import pytest
import torch

import exp_appendix
import exp_fig3_kl
import extend
import runfolder
import store
import summary as summary_module
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
    folder = lambda cfg: tmp_path / "runs" / store.run_key(cfg) / "summary.json"
    stamps = {n: os.stat(folder(cfg)).st_mtime_ns for n, cfg in tiny_runs()}
    logs.clear()
    res2 = sweep.run_sweep(tiny_runs(), sweep_args(tmp_path), log=logs.append)
    assert not any("training" in l for l in logs)
    assert {n: os.stat(folder(cfg)).st_mtime_ns for n, cfg in tiny_runs()} == stamps
    assert res2["lam0.5"][0] == res["lam0.5"][0]


def test_changed_config_is_not_reused(tmp_path):
    """A file under a run's key that holds another config (a collision, or a default changed
    since it was stored) is an error, in the store and in the run folder."""
    runs = tiny_runs()
    sweep.run_sweep(runs, sweep_args(tmp_path), log=lambda s: None)
    cfg = runs[0][1]
    summary, history = store.read(str(tmp_path / "res" / "store"), cfg)
    forged = dict(summary, config=dict(summary["config"], lr=2e-3))
    store.write(str(tmp_path / "res" / "store"), forged, history, cfg)
    with pytest.raises(ValueError, match="another config"):
        sweep.run_sweep(runs, sweep_args(tmp_path), log=lambda s: None)
    summary_file = tmp_path / "runs" / store.run_key(cfg) / "summary.json"
    store.write_json(str(summary_file), forged)
    with pytest.raises(ValueError, match="another config"):
        sweep.run_sweep(runs, sweep_args(tmp_path, store=str(tmp_path / "other")), log=lambda s: None)


def test_run_key_names_every_setting_that_differs_from_the_defaults():
    key = store.run_key(train.make_config(distractors="refresh", refresh=0.003, lam=0.1, wd=2.0, seed=3,
                                          stop_after=200))
    assert key == "add_p113_refresh0.003_lam=0.1_wd=2_seed3_e10000_stop200"
    assert store.run_key(train.make_config()) == "add_p113_fresh_seed0_e10000"
    assert store.run_key(train.make_config(teacher="results/store/add_p113_fresh_seed0_e10000.final.pt",
                                           prior="teacher", lam=1.0)) == \
        "add_p113_fresh_lam=1_prior=teacher_teacher=add_p113_fresh_seed0_e10000.final_seed0_e10000"
    # one setting changed, one key changed: over every flag of train.py
    base = train.make_config()
    changes = dict(task="parity", p=97, frac=0.5, n_operands=3, n_distractors=4, distractors="fixed", refresh=0.5,
                   n_bits=12, parity_k=2, n_outputs=2, perm_n=4, pos_slots=10, d_model=32, n_heads=4, d_mlp=128,
                   optimizer="sgd", batch_size=128, lr=3e-3, wd=0.5, beta1=0.5, beta2=0.98, warmup=0, clip=0.0,
                   epochs=500, lam=0.3, prior="adversarial", teacher="t.pt", prior_kind="entropy", prior_start=5,
                   prior_anneal=9, frozen_attn="oracle", norm_match=18.8, global_norm_match=34.5, qk_penalty=0.5,
                   eval_every=5, tau=0.2, grok_acc=0.95, stop_after=200, seed=1, init_seed=7, init_from="i.pt",
                   mask="m.pt", amp="bf16", compile="eager", distractor_vocab="separate",
                   init="pytorch", init_scale=2.0, n_layers=2, layernorm=True, prior_layer="all", weight_noise=3e-4,
                   final_layernorm=False, decay_norms=False, prior_stop=300, log_updates=True,
                   qk_stop=100, transplant="mlp_from_lambda0_at200")
    assert set(changes) == set(train.semantic_config(base)), "a new flag: add it here"
    keys = {store.run_key(train.make_config(**{k: v})) for k, v in changes.items()}
    assert len(keys) == len(changes) and store.run_key(base) not in keys


def test_a_run_one_study_trained_serves_another(tmp_path):
    """Two studies (two labels, two result folders) asking for one config share one run."""
    cfg = lambda: train.make_config(p=7, frac=0.5, epochs=10, d_model=8, d_mlp=16)
    sweep.run_sweep([("baseline", cfg())], sweep_args(tmp_path), log=lambda s: None)
    logs = []
    res = sweep.run_sweep([("lam0", cfg()), ("also lam0", cfg())], sweep_args(tmp_path), log=logs.append)
    assert all(l.startswith("served ") for l in logs) and res["lam0"] == res["also lam0"]   # nothing trained
    assert os.listdir(tmp_path / "res" / "store") == [store.run_key(cfg()) + ".json.gz"]
    logs = []                         # the progress line counts runs, not the labels asking for them
    other = train.make_config(p=7, frac=0.5, epochs=10, d_model=8, d_mlp=16, lam=0.5)
    sweep.run_sweep([("lam0", cfg()), ("lam0.5", other), ("also lam0.5", other)], sweep_args(tmp_path), log=logs.append)
    assert any("training 1 of 2 runs (1 stored)" in l for l in logs)


def test_weights_are_stored_for_the_runs_that_need_them(tmp_path):
    """A run asked for with weights keeps float32 init and final state dicts in the store; a
    stored run without them is trained again for them, its stored history kept."""
    runs = tiny_runs()
    sweep.run_sweep(runs, sweep_args(tmp_path), log=lambda s: None)
    shutil.rmtree(tmp_path / "runs")                         # a clone: the store alone
    logs = []
    sweep.run_sweep(runs, sweep_args(tmp_path), log=logs.append, weights=["lam0"])
    assert any("training 1 of 2" in l for l in logs)
    folder = str(tmp_path / "res" / "store")
    final = torch.load(store.weights_path(folder, runs[0][1]))
    assert all(v.dtype == torch.float32 for v in final.values())
    assert not os.path.exists(store.weights_path(folder, runs[1][1]))
    train.train(runs[0][1], weights=(w := {}))          # the same computation, in this process
    for k, v in final.items():
        assert torch.equal(v, w["final"][k].float())


def test_store_serves_a_clone_with_no_run_folders(tmp_path):
    """What a fresh clone has: the committed store and no runs/. Nothing is trained, the
    histories are the trained ones at float32 precision, and --plot-only sees them all."""
    trained = sweep.run_sweep(tiny_runs(), sweep_args(tmp_path), log=lambda s: None)
    shutil.rmtree(tmp_path / "runs")
    logs = []
    again = sweep.run_sweep(tiny_runs(), sweep_args(tmp_path, plot_only=True), log=logs.append)
    assert all(l.startswith("served ") for l in logs) and set(again) == set(trained)        # nothing trained
    for n in trained:
        assert again[n][0] == trained[n][0]
        assert again[n][1]["train_loss"] == trained[n][1]["train_loss"]
    ref = train.train(tiny_runs()[1][1])[1]                       # full precision, same computation
    np.testing.assert_allclose(again["lam0.5"][1]["train_loss"], ref["train_loss"], rtol=1e-6)
    # one head: the store drops attn_mass_heads (= attn_mass) and rebuilds it on reading
    np.testing.assert_allclose(np.array(again["lam0.5"][1]["attn_mass_heads"]), np.array(ref["attn_mass_heads"]), rtol=1e-6)


def test_a_summary_read_alone_is_the_whole_files(tmp_path):
    """store.read_summary (the dry run's costs read every stored run) parses only the summary;
    it is the summary read_file decodes with the history, for a file write() made and for one
    laid out otherwise (history first)."""
    import gzip
    trained = sweep.run_sweep(tiny_runs(), sweep_args(tmp_path), log=lambda s: None)
    files = sorted((tmp_path / "res" / "store").glob("*.json.gz"))
    assert len(files) == len(trained)
    for f in files:
        assert store.read_summary(f) == store.read_file(f)[0]
    summary, history = store.read_file(files[0])
    other = tmp_path / "other.json.gz"
    with gzip.open(other, "wt") as g:
        json.dump({"history": history, "summary": summary}, g)
    assert store.read_summary(other) == summary


def test_quick_and_paper_budgets_never_collide(tmp_path):
    short = [("lam0", train.make_config(p=7, frac=0.5, epochs=5, d_model=8, d_mlp=16))]
    sweep.run_sweep(tiny_runs((0.0,)), sweep_args(tmp_path), log=lambda s: None)
    res = sweep.run_sweep(short, sweep_args(tmp_path), log=lambda s: None)
    assert res["lam0"][0]["epochs_run"] == 5
    assert len(os.listdir(tmp_path / "res" / "store")) == 2


def test_shards_on_two_machines_merge_by_copying_the_store(tmp_path):
    runs = tiny_runs((0.0, 0.1, 0.2))
    for i, machine in enumerate(("a", "b")):
        sweep.run_sweep(runs, sweep_args(tmp_path / machine, shard=f"{i}/2"), log=lambda s: None)
    merged = tmp_path / "merged" / "res" / "store"
    for machine in ("a", "b"):
        shutil.copytree(tmp_path / machine / "res" / "store", merged, dirs_exist_ok=True)
    res = sweep.run_sweep(runs, sweep_args(tmp_path / "merged", plot_only=True), log=lambda s: None)
    assert set(res) == {"lam0", "lam0.1", "lam0.2"}


def test_interrupted_sweep_resumes(tmp_path):
    runs = tiny_runs((0.0, 0.1, 0.2))
    sweep.run_sweep(runs[:1], sweep_args(tmp_path), log=lambda s: None)
    # a run killed mid-way leaves a history but no summary: it is redone
    killed = tmp_path / "runs" / store.run_key(runs[1][1])
    os.makedirs(killed)
    (killed / "history.json").write_text("{}")
    logs = []
    res = sweep.run_sweep(tiny_runs((0.0, 0.1, 0.2)), sweep_args(tmp_path), log=logs.append)
    assert any("training 2 of 3" in l for l in logs) and set(res) == {"lam0", "lam0.1", "lam0.2"}


def test_a_run_in_flight_at_a_sessions_end_goes_on_from_its_checkpoint(tmp_path, monkeypatch):
    """The run folder a sweep trains into keeps the loop's checkpoint; the next sweep resumes
    it (the same run bitwise: tests/test_train.py) and the store's copy says where."""
    (label, cfg), = tiny_runs((0.1,))
    cfg.checkpoint_every = 4
    whole = sweep.run_sweep([(label, cfg)], sweep_args(tmp_path / "whole"), log=lambda s: None)[label]

    save = runfolder.save_checkpoint
    def killed_at_epoch_8(path, *a):            # the session ends before epoch 8's checkpoint
        if os.path.exists(path):
            raise KeyboardInterrupt
        save(path, *a)
    monkeypatch.setattr(runfolder, "save_checkpoint", killed_at_epoch_8)
    with pytest.raises(KeyboardInterrupt):
        sweep.run_sweep([(label, cfg)], sweep_args(tmp_path), log=lambda s: None)
    monkeypatch.setattr(runfolder, "save_checkpoint", save)
    logs = []
    summary, history = sweep.run_sweep([(label, cfg)], sweep_args(tmp_path), log=logs.append)[label]
    assert any("resumed at epoch 4" in l for l in logs), logs
    assert summary["resumed_at"] == [4] and history == whole[1]
    assert not os.path.exists(os.path.join(cfg.out, "checkpoint.pt"))


def test_plot_only_trains_nothing(tmp_path):
    sweep.run_sweep(tiny_runs((0.0,)), sweep_args(tmp_path), log=lambda s: None)
    res = sweep.run_sweep(tiny_runs(), sweep_args(tmp_path, plot_only=True), log=lambda s: None)
    assert set(res) == {"lam0"} and not os.path.exists(tmp_path / "runs" / store.run_key(tiny_runs()[1][1]))


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
    """Workers compute exactly what a serial sweep computes: bitwise equal histories when
    both use the same thread count (a different count rounds differently, README)."""
    threads = torch.get_num_threads()
    try:
        serial = sweep.run_sweep(tiny_runs(), sweep_args(tmp_path / "a", threads=1), log=lambda s: None)
        par = sweep.run_sweep(tiny_runs(), sweep_args(tmp_path / "b", jobs=2, threads=1), log=lambda s: None)
    finally:
        torch.set_num_threads(threads)
    for n in serial:
        assert serial[n][1]["train_loss"] == par[n][1]["train_loss"]
        assert serial[n][0]["threads"] == par[n][0]["threads"] == 1


def test_plot_only_never_replaces_a_summary_with_less(tmp_path):
    """--plot-only with nothing stored stops with one line and writes nothing; with part of the
    runs stored it redirects the figure and summary to <results-dir>/partial/ (unless the
    study draws partial grids by design, partial_ok) and keeps reading the same store."""
    with pytest.raises(SystemExit, match="none of the 2 runs"):
        sweep.run_sweep(tiny_runs(), sweep_args(tmp_path, plot_only=True), log=lambda s: None)
    assert not os.path.exists(tmp_path / "res")
    sweep.run_sweep(tiny_runs((0.0,)), sweep_args(tmp_path), log=lambda s: None)
    args = sweep_args(tmp_path, plot_only=True)
    store = sweep.store_dir(args)
    assert set(sweep.run_sweep(tiny_runs(), args, log=lambda s: None)) == {"lam0"}
    assert args.results_dir == str(tmp_path / "res" / "partial") and args.store == store
    assert set(sweep.run_sweep(tiny_runs((0.0,)), args, log=lambda s: None)) == {"lam0"}   # a later stage
    args = sweep_args(tmp_path, plot_only=True, partial_ok=True)
    sweep.run_sweep(tiny_runs(), args, log=lambda s: None)
    assert args.results_dir == str(tmp_path / "res")


def test_a_shard_never_replaces_a_summary_with_its_share(tmp_path):
    """A training run with --shard trains only its share of the runs; until the other shards'
    runs are stored, its figure and summary go to <results-dir>/partial/ (a plan study whose
    summary exists is read as decided, so a shard's share must never be written there)."""
    args = sweep_args(tmp_path, shard="0/2")
    assert set(sweep.run_sweep(tiny_runs(), args, log=lambda s: None)) == {"lam0"}
    assert args.results_dir == str(tmp_path / "res" / "partial")
    logs = []
    args = sweep_args(tmp_path, shard="1/2")                  # started after shard 0 stored its share
    assert set(sweep.run_sweep(tiny_runs(), args, log=logs.append)) == {"lam0", "lam0.5"}
    assert any("training 1 of 2" in l for l in logs)         # its own run, not shard 0's again
    assert args.results_dir == str(tmp_path / "res")         # the last shard completes the study


def test_study_config_is_the_paper_config_or_under_quick_the_small_model():
    args = argparse.Namespace(p=43, epochs=100, stop_after=50, regime="refresh0.003", quick=False)
    paper = sweep.study_config(args, 3, lam=0.1)
    expected = train.make_config(p=43, epochs=100, stop_after=50, distractors="refresh", refresh=0.003,
                                 seed=3, lam=0.1)
    assert train.semantic_config(paper) == train.semantic_config(expected)
    args.quick = True
    small = sweep.study_config(args, 3, lam=0.1)
    differs = {k for k, v in train.semantic_config(small).items() if train.semantic_config(expected)[k] != v}
    assert differs == set(sweep.QUICK_MODEL) - {"p"}           # the small model, nothing else
    assert all(getattr(small, k) == v for k, v in sweep.QUICK_MODEL.items())
    assert sweep.study_config(args, 3, lr=0.01).lr == 0.01       # a study's own change wins
    parity = sweep.study_config(args, 3, task="parity")            # p and frac mean nothing to parity
    assert (parity.frac, parity.lr) == (expected.frac, expected.lr)
    assert sweep.study_config(args, 3, regime="fixed").distractors == "fixed"


def test_divergence_rate_of_an_exponential():
    ep = np.arange(0, 1000, 10)
    hist = {"epoch": ep.tolist(), "struct_div": (0.9 * np.exp(-0.004 * ep)).tolist()}
    assert exp_fig3_kl.divergence_rate(hist) == pytest.approx(0.004, rel=1e-6)


def test_distractor_regime_names():
    assert sweep.distractor_regime("fixed") == ("fixed", 0.0)
    assert sweep.distractor_regime("fresh") == ("fresh", 0.0)
    assert sweep.distractor_regime("refresh0.03") == ("refresh", 0.03)
    for bad in ("refresh", "refresh1", "refresh0", "refreshx", "sometimes"):
        with pytest.raises(ValueError, match="distractor regime"):
            sweep.distractor_regime(bad)
    for rho in (0.0, 1.0, 0.01, 0.003):                       # regime_name inverts it
        assert sweep.distractor_regime(sweep.regime_name(rho)) == \
            (("fixed", 0.0) if rho == 0 else ("fresh", 0.0) if rho == 1 else ("refresh", rho))


def test_the_store_is_committed_and_run_folders_are_not():
    """The store is committed data, the run folders (with weights) are not. A .gitignore rule
    `runs/` matches both, and once kept every stored run on the machine that trained it."""
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if shutil.which("git") is None or not os.path.exists(os.path.join(root, ".git")):
        pytest.skip("not a git checkout")
    args = argparse.Namespace(runs_dir="runs", results_dir="results", store=None)
    cfg = train.make_config(stop_after=200)
    stored, weights = store.path(sweep.store_dir(args), cfg), store.weights_path(sweep.store_dir(args), cfg)
    folder = os.path.join(args.runs_dir, store.run_key(cfg), "final.pt")
    ignored = lambda path: subprocess.run(["git", "check-ignore", "-q", path], cwd=root).returncode == 0
    assert not ignored(stored) and not ignored(weights)
    assert ignored(folder)


def test_seeds_tag_keeps_held_out_figures_apart():
    assert sweep.seeds_tag([0, 1, 2, 3, 4]) == sweep.seeds_tag([4, 3, 2, 1, 0]) == sweep.seeds_tag([0, 2]) == ""
    assert sweep.seeds_tag([5, 6, 7, 8, 9]) == "_seeds5-9"
    assert sweep.seeds_tag([0, 7]) == "_seeds0_7" and sweep.seeds_tag([5]) == "_seeds5"


def test_apply_quick_replaces_the_scale_and_keeps_a_given_flag():
    """One preset mechanism for every script: the preset sets the flags it names and moves
    the outputs under results/quick/; a flag in keep_given survives if the user set it."""
    a = exp_fig3_kl.parse(["--quick"])
    assert (a.p, a.epochs, a.seeds, a.lam, a.regime) == (43, 2000, [0], [0.0, 0.3, 3.0], "fixed")
    assert a.results_dir == os.path.join("results", "quick")
    a = exp_fig3_kl.parse(["--quick", "--lam", "0.3", "--regime", "fresh", "--epochs", "99"])
    assert (a.lam, a.regime, a.epochs) == ([0.3], "fresh", 2000)    # the scale is the preset's
    a = exp_fig3_kl.parse(["--lam", "0.3"])
    assert (a.p, a.epochs, a.regime, a.results_dir) == (113, 10000, "fresh", "results")


def test_a_run_stored_under_another_budget_or_stop_serves_when_it_holds_the_run(tmp_path):
    """store.derived: a run trained without an early stop serves the early-stopped run, cut
    `stop_after` epochs after it grokked, and a run that stopped early serves any budget it
    stopped within; both bitwise what training them gives (same process). A run that never
    grokked in a shorter budget serves no longer one."""
    folder = str(tmp_path)
    tiny = dict(p=11, frac=0.6, d_model=16, d_mlp=32, lr=3e-3, grok_acc=0.15, eval_every=5, quiet=True, device="cpu")
    full = train.make_config(epochs=160, **tiny)            # test accuracy passes 0.15 near epoch 130
    s_full, h_full = train.train(full)
    assert s_full["grok_epoch"] is not None and s_full["grok_epoch"] + 20 < 160
    store.write(folder, s_full, h_full, full)
    stop = train.make_config(epochs=160, stop_after=20, **tiny)
    s_stop, h_stop = train.train(stop)
    got_s, got_h = store.read(folder, stop)
    assert got_s["derived_from"] == store.run_key(full)
    assert got_h["epoch"] == h_stop["epoch"] and got_h["test_acc"] == pytest.approx(h_stop["test_acc"], rel=1e-6)
    for k in ("grok_epoch", "mem_epoch", "struct_epoch", "epochs_run", "lemma_violations"):
        assert got_s[k] == s_stop[k], k
    assert got_s["final_test_acc"] == pytest.approx(s_stop["final_test_acc"], rel=1e-6)
    # the early-stopped run, stored, serves a larger budget
    store.write(folder, s_stop, h_stop, stop)
    longer = train.make_config(epochs=400, stop_after=20, **tiny)
    assert store.read(folder, longer)[0]["epochs_run"] == s_stop["epochs_run"]
    # a run that never grokked within its budget serves no longer budget
    never = dict(tiny, grok_acc=1.01)
    short = train.make_config(epochs=30, stop_after=20, **never)
    store.write(folder, *train.train(short), short)
    assert store.read(folder, train.make_config(epochs=60, stop_after=20, **never)) is None
    assert store.read(folder, train.make_config(epochs=20, stop_after=20, **never))[0]["epochs_run"] == 20


def test_a_sweep_flushes_each_progress_line(tmp_path, monkeypatch):
    """Under nohup stdout is a file, block-buffered: the [k/n] lines with their ETA stayed unseen
    for the length of a run. Each line is flushed as it is written."""
    import io
    import sys

    class Recorder(io.StringIO):
        flushed = []

        def flush(self):
            Recorder.flushed.append(self.getvalue())

    out = Recorder()
    monkeypatch.setattr(sys, "stdout", out)
    sweep.run_sweep(tiny_runs((0.0,)), sweep_args(tmp_path))
    assert any("[1/1]" in text and "ETA" in text for text in Recorder.flushed)


def test_the_store_and_a_checkpoint_outlive_flags():
    """A stored run or checkpoint made before a flag existed serves configs that leave that flag
    at its default (store.config_differences, train.config_differences), and no other: a run
    started before a flag was added resumes after it."""
    cfg = store.make_config(lam=0.1)
    old = json.loads(json.dumps(train.semantic_config(cfg)))
    del old["init_scale"]                                  # as if stored before --init-scale existed
    assert store.config_differences(old, cfg) == []
    assert store.config_differences(old, store.make_config(lam=0.1, init_scale=2.0)) == ["init_scale"]
    assert train.config_differences(old, cfg) == []
    assert train.config_differences(old, store.make_config(lam=0.1, init_scale=2.0)) == ["init_scale"]
    assert train.config_differences(json.loads(json.dumps(train.semantic_config(cfg))), cfg) == []


def test_extend_trains_only_the_censored_runs_on_and_reads_them_in_their_place(tmp_path):
    """--extend (rules v4's censoring by design): a run that never grokked within the budget is
    trained again to the longer budget and read in its place, censored there; a run that grokked
    is left alone; the dry run prices only the extensions of stored censored runs."""
    tiny = dict(p=7, frac=0.5, d_model=8, d_mlp=16, eval_every=5, epochs=10, stop_after=20)
    runs = [("never", train.make_config(grok_acc=1.01, **tiny)), ("groks", train.make_config(grok_acc=0.0, **tiny))]
    args = sweep_args(tmp_path, epochs=10, extend=20)
    assert extend.extension_runs(runs, args) == []                     # nothing stored: nothing known censored
    results, budgets, elsewhere, continued = extend.run_extended(runs, args, log=lambda s: None)
    assert budgets == {"never": 20, "groks": 10} and elsewhere == {} and continued == {"never"}
    assert results["never"][0]["epochs_run"] == 20 and results["never"][0]["grok_epoch"] is None
    assert results["groks"][0]["epochs_run"] <= 10 and results["groks"][0]["grok_epoch"] is not None
    longer = extend.extension_runs(runs, args)
    assert [(label, cfg.epochs) for label, cfg in longer] == [("never@e20", 20)]
    assert runs[0][1].epochs == 10                                     # the study's own config untouched
    with pytest.raises(ValueError, match="more than --epochs"):
        extend.extension_runs(runs, sweep_args(tmp_path, epochs=10, extend=10))


def test_extend_trains_a_new_run_once_to_the_longer_budget_and_its_first_epochs_are_the_run(tmp_path):
    """An early-stopped run not stored yet is trained once, to --extend: the run at the study's
    budget is read from its first epochs (store.derived), equal to training that run alone
    (same process), and one that never grokked within them goes on as its own continuation."""
    tiny = dict(p=11, frac=0.6, d_model=16, d_mlp=32, lr=3e-3, grok_acc=0.15, eval_every=5, quiet=True,
                device="cpu", stop_after=20)
    late = train.make_config(epochs=100, **tiny)            # test accuracy passes 0.15 near epoch 130
    early = train.make_config(epochs=100, **dict(tiny, grok_acc=0.0))
    args = sweep_args(tmp_path, epochs=100, extend=400)
    results, budgets, elsewhere, continued = extend.run_extended([("late", late), ("early", early)], args,
                                                                log=lambda s: None)
    assert budgets == {"late": 400, "early": 100} and elsewhere == {} and continued == {"late"}
    assert extend.extended_text(budgets, args, elsewhere, continued) == \
        "\n1 run(s) that never grokked within 100 trained on to 400 epochs"      # not "retrained"
    assert 100 < results["late"][0]["grok_epoch"] < 400 and results["early"][0]["grok_epoch"] == 0
    folder = sweep.store_dir(args)
    assert sorted(os.listdir(folder)) == sorted(store.run_key(extend._with_epochs(c, 400)) + ".json.gz"
                                                for c in (late, early))       # each trained once
    for cfg in (late, early):
        got_s, got_h = store.read(folder, cfg)
        want_s, want_h = train.train(cfg)
        assert got_h["epoch"] == want_h["epoch"] and got_h["test_acc"] == pytest.approx(want_h["test_acc"], rel=1e-6)
        for k in ("grok_epoch", "epochs_run", "mem_epoch"):
            assert got_s[k] == want_s[k], k
    assert store.read(folder, late)[0]["grok_epoch"] is None


def test_a_retrain_that_groks_within_the_budget_its_run_never_grokked_in_is_not_read(tmp_path):
    """A retrain on another machine is another draw of a chaotic run: one that groks within the
    budget the stored run never grokked in is not its continuation. The stored run stays,
    censored at its budget, and the retrain's epoch is returned (rules v4, rule 8 as amended)."""
    tiny = dict(p=7, frac=0.5, d_model=8, d_mlp=16, eval_every=5, epochs=10, stop_after=20)
    cfg = train.make_config(grok_acc=0.0, **tiny)                   # groks at once
    args = sweep_args(tmp_path, epochs=10, extend=20)
    summary, history = sweep.run_sweep([("run", cfg)], args, log=lambda s: None)["run"]
    folder = sweep.store_dir(args)
    store.write(folder, dict(summary, grok_epoch=None), history, cfg)   # as if another machine never grokked
    results, budgets, elsewhere, continued = extend.run_extended([("run", cfg)], args, log=lambda s: None)
    assert results["run"][0]["grok_epoch"] is None and budgets == {"run": 10} and continued == set()
    assert elsewhere == {"run": summary["grok_epoch"]}
    title = extend.extended_text({"run": 10, "other": 20}, argparse.Namespace(epochs=10, extend=20), elsewhere)
    assert title == "\n2 run(s) that never grokked within 10 retrained to 20 epochs: 1 read, 1 grokked within 10 " \
                    "(another draw, not read)"                        # the figure counts both kinds
    assert extend.extended_text({"run": 10}, argparse.Namespace(epochs=10, extend=20)) == ""
    assert extend.extended_text({"a": 20, "b": 20}, argparse.Namespace(epochs=10, extend=20), {}, {"a"}) == \
        "\n2 run(s) that never grokked within 10 trained on (1) or retrained (1) to 20 epochs"


def test_one_run_serves_a_request_whatever_order_the_folder_lists(tmp_path, monkeypatch):
    """Two stored runs of one config that disagree (trained on two machines: here, a planted
    difference in the first logged loss) could both serve a request for a third budget: the
    run with the request's own early stop serves it, then the shortest budget, and a planted
    listing order changes nothing."""
    folder = str(tmp_path)
    tiny = dict(p=11, frac=0.6, d_model=16, d_mlp=32, lr=3e-3, grok_acc=0.15, eval_every=5, quiet=True, device="cpu")
    full = train.make_config(epochs=160, **tiny)
    s, h = train.train(full)
    stop = train.make_config(epochs=160, stop_after=20, **tiny)
    other = {**h, "train_loss": [h["train_loss"][0] * 1.01] + h["train_loss"][1:]}     # the other machine's twin
    store.write(folder, s, h, full)
    store.write(folder, summary_module.summarize(train.semantic_config(stop), other, s["grok_epoch"], s["grok_epoch"] + 20, 1.0, "cpu", 1),
                {k: v[: h["epoch"].index(s["grok_epoch"] + 20) + 1] for k, v in other.items()}, stop)
    want = train.make_config(epochs=400, stop_after=20, **tiny)
    listing = os.listdir
    for order in (sorted, lambda names: sorted(names, reverse=True)):
        monkeypatch.setattr(os, "listdir", lambda f, order=order: order(listing(f)))
        got, _ = store.read(folder, want)
        assert got["derived_from"] == store.run_key(stop)
    assert store.serving_order(["x_seed0_e400_stop20.json.gz", "x_seed0_e100.json.gz", "x_seed0_e200_stop20.json.gz",
                                "y_seed0_e100.json.gz"], "x_seed0_", 20) == \
        ["x_seed0_e200_stop20.json.gz", "x_seed0_e400_stop20.json.gz", "x_seed0_e100.json.gz"]


def test_quick_names_every_flag_it_replaces(capsys):
    parser = argparse.ArgumentParser()
    sweep.add_scale_args(parser, dict(p=43, epochs=1500, seeds=[0]))
    sweep.add_sweep_args(parser)
    args = sweep.apply_quick(parser.parse_args(["--quick", "--epochs", "3000", "--seeds", "1", "2"]),
                             dict(p=43, epochs=1500, seeds=[0]))
    line = capsys.readouterr().out
    assert (args.epochs, args.seeds, args.p) == (1500, [0], 43)
    assert "--epochs 1500 (was 3000)" in line and "--seeds 0 (was 1 2)" in line and "--p 43 (was 113)" in line
    assert args.stop_after == sweep.QUICK_STOP_AFTER and f"--stop-after {sweep.QUICK_STOP_AFTER} (was 200)" in line


def test_quick_runs_print_their_progress_while_they_train(tmp_path, capsys):
    (label, cfg), = tiny_runs((0.0,))
    cfg.epochs = 200
    sweep.run_sweep([(label, cfg)], sweep_args(tmp_path, quick=True), log=lambda s: None)
    lines = [l for l in capsys.readouterr().out.splitlines() if store.run_key(cfg) in l]
    assert len(lines) >= 2 and all("ETA" in l for l in lines)


def test_the_store_finds_twins_that_disagree(tmp_path):
    """Two stored runs of one config (budget or early stop aside) that disagree on a shared epoch are
    found; a twin that agrees (the same run cut earlier) is not."""
    import reproduce
    folder = str(tmp_path)
    tiny = dict(p=7, frac=0.5, d_model=8, d_mlp=16, eval_every=5, quiet=True, device="cpu")
    full = train.make_config(epochs=40, **tiny)
    s, h = train.train(full)
    store.write(folder, s, h, full)
    short = train.make_config(epochs=20, **tiny)
    cut = {k: (v[:5] if isinstance(v, list) and len(v) == len(h["epoch"]) else v) for k, v in h.items()}
    store.write(folder, summary_module.summarize(train.semantic_config(short), cut, None, 20, 1.0, "cpu", 1), cut, short)
    assert reproduce.disagreeing_twins(folder) == []
    other = {**cut, "train_loss": cut["train_loss"][:2] + [cut["train_loss"][2] * 1.01] + cut["train_loss"][3:]}
    store.write(folder, summary_module.summarize(train.semantic_config(short), other, None, 20, 1.0, "cpu", 1), other, short)
    (pair,) = reproduce.disagreeing_twins(folder)
    assert {pair[0], pair[1]} == {store.run_key(full), store.run_key(short)} and pair[2] == 10
