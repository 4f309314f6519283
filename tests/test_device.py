"""The loop on a device this CI does not have. On PyTorch's `meta` device every tensor has a
shape and no data, so any read of a value on the host (.item(), float(), a Python `if` on a
tensor) fails; and under `SameDevice` (a dispatch guard) so does any op that mixes a host
tensor with a device tensor (the meta device alone accepts host index tensors in indexing,
embedding, scatter and even matmul). A few epochs of train.train's own loop, measuring nothing
(measure=False), over the loop's configs run there; mutants show that the grid fails when a `device=` is dropped, an upload is
skipped or a host read enters the step. The CUDA tests run the same code on a GPU, with host
syncs made errors; they skip here."""
import argparse
import importlib.util
import math
import os

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import train

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMALL = dict(p=7, epochs=2, seed=0, d_model=16, d_mlp=32)
GRID = [dict(), dict(distractors="fresh"), dict(distractors="refresh", refresh=0.5), dict(lam=0.3),
        dict(lam=0.3, prior_kind="entropy"), dict(lam=0.3, prior_kind="l1-logits"), dict(n_heads=4),
        dict(task="route"), dict(task="arparity", distractors="fixed"), dict(task="parity"),
        dict(frozen_attn="oracle"), dict(batch_size=16), dict(pos_slots=8), dict(norm_match=5.0),
        dict(global_norm_match=20.0), dict(qk_penalty=0.5), dict(optimizer="lion"), dict(optimizer="muon"),
        dict(optimizer="sgd"), dict(lam=0.3, prior="adversarial"), dict(lam=0.3, prior_anneal=1), dict(lam=0.3, prior="uniform"),
        dict(n_layers=2, layernorm=True, lam=0.3), dict(n_layers=2, lam=0.3, prior_layer="all", task="arparity", distractors="fixed"),
        dict(lam=0.3, prior="shuffled"), dict(lam=0.3, prior_kind="logit-noise"), dict(weight_noise=3e-4),
        dict(n_layers=2, layernorm=True, final_layernorm=False, decay_norms=False, lam=0.3, distractors="fresh")]


class SameDevice(TorchDispatchMode):
    """Every op's tensors on one device: a host tensor meeting a device tensor is an error
    (0-dim host tensors, Python scalars in all but name, aside)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kinds = set()
        def visit(a):
            if isinstance(a, torch.Tensor):
                if not (a.device.type == "cpu" and a.dim() == 0):
                    kinds.add(a.device.type)
            elif isinstance(a, (list, tuple)):
                for b in a:
                    visit(b)
        for a in list(args) + list((kwargs or {}).values()):
            visit(a)
        if len(kinds) > 1:
            raise RuntimeError(f"{func} mixes devices: {sorted(kinds)}")
        return func(*args, **(kwargs or {}))


def step_epochs(cfg, device, epochs=2):
    """`epochs` epochs of train.train's own loop without measuring (measure=False) on `device`, under
    SameDevice; returns what its on_step saw of the run."""
    seen = {}
    cfg.epochs = epochs
    with SameDevice():
        train.train(cfg, device=device, measure=False, on_step=lambda epoch, run: seen.update(run=run))
    return seen["run"]


META = torch.device("meta")


@pytest.mark.parametrize("change", GRID, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()) or "default")
def test_the_loops_epochs_run_on_the_meta_device(change):
    run = step_epochs(train.make_config(**{**SMALL, **change}), META)
    assert all(p.device.type == "meta" for p in run.model.parameters())
    assert run.train_set["x"].device.type == "meta"


def test_the_guard_rejects_a_host_tensor_meeting_a_device_tensor():
    w = torch.zeros(5, 3, device=META)
    with SameDevice():
        w * 2.0 + torch.tensor(1.0)                         # scalars pass
        with pytest.raises(RuntimeError, match="mixes devices"):
            w[torch.tensor([1, 2])]


# The mutants: each plants one bug the loop once had or could have in a copy of the code, and the
# check it must fail is shown to fail on the copy (the same check passes on the code itself, above).

def mutant(module, old, new, **names):
    """A copy of the repository's module with `old` (which must occur once) replaced by `new`, run as
    its own module; names: globals of the copy replaced (another mutant's class, say)."""
    source = open(os.path.join(ROOT, f"{module}.py")).read()
    assert source.count(old) == 1, f"{module}.py no longer holds {old!r}: update the mutant"
    spec = importlib.util.spec_from_loader(f"{module}_mutant", loader=None)
    copy = importlib.util.module_from_spec(spec)
    exec(compile(source.replace(old, new), f"{module}_mutant", "exec"), copy.__dict__)
    copy.__dict__.update(names)
    return copy


def meta_steps(loop, cfg):
    """Two epochs of a (mutant) train module's loop on the meta device under SameDevice."""
    cfg.epochs = 2
    with SameDevice():
        loop.train(cfg, device=META, measure=False)


def test_a_minibatch_order_drawn_on_the_host_is_caught():
    """The loop's randperm without device=: a host index tensor meets the device's data."""
    copy = mutant("train", "generator=batch_gen, device=device)", "generator=batch_gen)")
    with pytest.raises(RuntimeError, match="mixes devices"):
        meta_steps(copy, train.make_config(**SMALL, batch_size=16))


def test_redrawn_distractors_left_on_the_host_are_caught():
    """The upload skipped: the loop keeps the host's redrawn inputs."""
    copy = mutant("train", 'train_set["x"] = upload(task.train_x)', 'train_set["x"] = task.train_x')
    with pytest.raises(RuntimeError, match="mixes devices"):
        meta_steps(copy, train.make_config(**SMALL, distractors="fresh"))


def test_an_upload_that_returns_the_host_tensor_is_caught():
    """The host-to-device helper returning the host tensor instead of the device copy."""
    device = mutant("device", "return x.to(self.device)", "return x")
    copy = mutant("train", "upload = HostToDevice(device)", "upload = HostToDevice(device)",
                  HostToDevice=device.HostToDevice)
    with pytest.raises(RuntimeError, match="mixes devices"):
        meta_steps(copy, train.make_config(**SMALL, distractors="refresh", refresh=0.5))


def test_a_host_read_inside_the_epoch_is_caught_on_meta():
    """A float() read of a device value inside the loop's own epoch (lambda's schedule, read back)."""
    copy = mutant("train", "lam, qk = prior_weight(cfg, epoch),",
                  "lam, qk = float(torch.tensor(prior_weight(cfg, epoch), device=device)),")
    with pytest.raises((RuntimeError, NotImplementedError)):
        meta_steps(copy, train.make_config(**SMALL, lam=0.3))


def test_a_host_read_in_the_step_is_caught_on_meta():
    """A step that reads a value on the host (as float() did in norm matching)."""
    copy = mutant("train", "    opt.step()\n", "    opt.step()\n    float(model.W_Q.detach().pow(2).sum())\n")
    with pytest.raises(RuntimeError):
        meta_steps(copy, train.make_config(**SMALL))


def test_a_missing_device_argument_in_the_model_is_caught_on_meta():
    """model.py with one `device=` dropped (the positions' index in `run`)."""
    model = mutant("model", "torch.arange(T, device=x.device)).flatten()", "torch.arange(T)).flatten()")
    copy = mutant("train", "model = Transformer(*sizes)", "model = Transformer(*sizes)", Transformer=model.Transformer)
    with pytest.raises((RuntimeError, NotImplementedError)):
        meta_steps(copy, train.make_config(**SMALL))


def summary_says_where(loop):
    summary, _ = loop.train(train.make_config(p=7, frac=0.5, epochs=4, d_model=8, d_mlp=16, quiet=True, device="cpu"))
    assert summary["device"] == "cpu" and summary["device_name"] == train.device_name(torch.device("cpu"))
    assert summary["precision"] == "float32" and summary["threads"] == torch.get_num_threads()


def test_the_summary_says_where_and_how_the_run_was_computed():
    """A summary without its device (the field dropped from summary.summarize) fails the check."""
    summary_says_where(train)
    summary = mutant("summary", '        "device": str(device),\n', "")
    with pytest.raises(KeyError):
        summary_says_where(mutant("train", "from summary import summarize", "from summary import summarize",
                                  summarize=summary.summarize))


def test_norm_matching_is_the_host_formula_bit_for_bit():
    """match_norm_ keeps its scale on the device; it is the float64 host formula it replaced,
    bitwise, on the CPU."""
    def host(params, radius):
        scale = radius / math.sqrt(sum(float(p.pow(2).sum()) for p in params))
        for p in params:
            p.mul_(scale)
    for seed in range(20):
        g = torch.Generator().manual_seed(seed)
        params = [torch.randn(32, 64, generator=g) * (seed + 0.5), torch.randn(64, generator=g), torch.randn(16, 16, generator=g)]
        a, b = [p.clone() for p in params], [p.clone() for p in params]
        host(a, 18.8)
        train.match_norm_(b, 18.8)
        assert all(torch.equal(x, y) for x, y in zip(a, b))


def test_the_upload_is_the_tensor_itself_on_the_cpu():
    x = torch.arange(6)
    assert train.HostToDevice(torch.device("cpu"))(x) is x


def test_deterministic_is_not_part_of_a_runs_key(monkeypatch):
    import store
    assert store.run_key(train.make_config(deterministic=True)) == store.run_key(train.make_config())
    calls = []
    monkeypatch.setattr(torch, "use_deterministic_algorithms", lambda mode: calls.append(mode))
    train.set_deterministic(train.make_config(deterministic=True))
    train.set_deterministic(train.make_config())
    assert calls == [True]


cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")


@cuda
@pytest.mark.parametrize("change", GRID, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()) or "default")
def test_the_step_path_never_syncs_on_cuda(change):
    """The meta grid's code on a GPU, one epoch after a warm-up one, with every host sync an error."""
    cfg = train.make_config(**{**SMALL, **change})
    step_epochs(cfg, torch.device("cuda"), epochs=1)       # the first epoch warms up (allocations, kernels)
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        step_epochs(cfg, torch.device("cuda"), epochs=2)
    finally:
        torch.cuda.set_sync_debug_mode("default")


@cuda
def test_a_short_run_on_cuda_learns_and_says_where_it_ran():
    cfg = train.make_config(p=11, frac=0.5, epochs=40, eval_every=5, quiet=True, lr=1e-2, device="cuda",
                            deterministic=True)
    summary, history = train.train(cfg)
    assert summary["device"].startswith("cuda") and summary["device_name"] == torch.cuda.get_device_name()
    assert history["train_loss"][-1] < 0.5 * history["train_loss"][0]
    assert train.train(cfg)[1] == history                         # --deterministic: the same run, bitwise


def test_a_sweep_on_several_gpus_places_its_runs_in_turn():
    import sweep
    cfgs = [train.make_config(seed=s) for s in range(5)]
    sweep.place_on_gpus(cfgs, "auto", 1)
    assert {c.device for c in cfgs} == {"auto"}                   # one GPU or none: as asked
    sweep.place_on_gpus(cfgs, "cpu", 2)
    assert {c.device for c in cfgs} == {"auto"}                   # --device cpu stays on the CPU
    sweep.place_on_gpus(cfgs, "auto", 2)
    assert [c.device for c in cfgs] == ["cuda:0", "cuda:1", "cuda:0", "cuda:1", "cuda:0"]
    train.validate(cfgs[1])                                      # cuda:N is a valid --device
    with pytest.raises(ValueError, match="--device"):
        train.validate(train.make_config(device="gpu"))


def test_amp_keeps_the_softmax_and_the_logits_in_float32():
    """--amp bf16 rounds the matmuls, never the attention softmax or the logits the loss reads:
    the same on the CPU as on CUDA (whose autocast keeps softmax in float32 by itself)."""
    cfg = train.make_config(p=11, frac=0.5, amp="bf16", device="cpu")
    task, model = train.build_run(cfg, torch.device("cpu"))
    batch, _ = train.batches(task, cfg, torch.device("cpu"))
    out = train.forward_fn(model, cfg, torch.device("cpu"))(batch)
    assert out["scores"].dtype == torch.bfloat16                   # the matmuls did run in bfloat16
    assert out["attn"].dtype == torch.float32 and out["logits"].dtype == torch.float32


def test_a_sweep_says_where_its_stored_runs_came_from_and_mixes_devices_only_when_asked(tmp_path, monkeypatch):
    """A stored run of another device kind serves a redraw; a sweep that would train beside it
    refuses unless --any-device, in one line."""
    import sweep
    import store
    args = argparse.Namespace(
        jobs=1, threads=1, shard=None, plot_only=False, runs_dir=str(tmp_path / "runs"), results_dir=str(tmp_path),
        store=str(tmp_path / "store"), device="cpu", any_device=False)
    stored = train.make_config(p=7, frac=0.5, epochs=10, d_model=8, d_mlp=16, seed=0, quiet=True)
    summary, history = train.train(stored)
    summary["device"] = "cuda:0"                                   # as if a GPU had trained it
    store.write(args.store, summary, history, stored)
    lines = []
    got = sweep.run_sweep([("a", stored)], args, log=lines.append)
    assert "a" in got and lines == ["served 1 stored run(s), trained on cuda (1)"]
    missing = train.make_config(p=7, frac=0.5, epochs=10, d_model=8, d_mlp=16, seed=1, quiet=True)
    with pytest.raises(ValueError, match="--any-device"):
        sweep.run_sweep([("a", stored), ("b", missing)], args, log=lines.append)
    args.plot_only = True                                           # a redraw trains nothing: served as stored
    assert set(sweep.run_sweep([("a", stored), ("b", missing)], args, log=lines.append)) == {"a"}
