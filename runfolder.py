"""A run on disk (train.py's --out, the store's run folders): files written whole (`atomic_write`),
the folder a finished run leaves (`save_run`: init.pt, final.pt, history.json, summary.json), the
checkpoint an unfinished one keeps (everything the loop carries from one epoch to the next), and
the check that a folder or a checkpoint holds the run asked for.
"""
import json
import os
import tempfile

import torch


def atomic_write(path, write, mode="w"):
    """write(f) into a temporary file beside `path`, then rename it: no reader sees half a file."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(fd, mode) as f:
        write(f)
    os.chmod(tmp, 0o644)               # mkstemp makes it private (0600)
    os.replace(tmp, path)


def folder_summary(out, differs):
    """The summary in run folder `out` if it holds the run asked for, None if it holds no run.
    differs(stored config) -> the keys in which it is another run (train.config_differences);
    raises ValueError if there are any (a folder is never silently reused)."""
    path = os.path.join(out, "summary.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        stored = json.load(f)
    changed = differs(stored.get("config", {}))
    if changed:
        raise ValueError(f"{out} holds a run with another config (differs in: {', '.join(changed)}); "
                         "choose another --out or delete it")
    return stored


def save_run(out, summary, history, weights):
    """A run folder: init.pt / final.pt, history, summary (last: it marks the run complete)."""
    for kind, state in weights.items():
        atomic_write(os.path.join(out, f"{kind}.pt"), lambda f: torch.save(state, f), mode="wb")
    for name, obj in (("history", history), ("summary", summary)):
        atomic_write(os.path.join(out, f"{name}.json"), lambda f: json.dump(obj, f))
    if os.path.exists(checkpoint_path(out)):
        os.remove(checkpoint_path(out))


def checkpoint_path(out):
    """Where a run folder keeps the loop's state while the run is unfinished."""
    return os.path.join(out, "checkpoint.pt")


def save_checkpoint(path, config, model, opt, task, batch_gen, noise, loop):
    """Everything the loop carries from one epoch to the next (about 1.2 MB at the paper config): the
    weights, the optimizer's moments, the training distractors, the random streams, the log so far."""
    state = {"config": config, "model": model.state_dict(), "opt": opt.state_dict(),
             "train_x": task.train_x, "refresh_gen": task.refresh_gen.get_state(),
             "batch_gen": batch_gen.get_state(), **loop}
    if noise is not None:
        state["noise_gen"] = noise.get_state()
    atomic_write(path, lambda f: torch.save(state, f), mode="wb")


def load_checkpoint(path, differs, model, opt, task, batch_gen, noise=None):
    """Put a checkpoint's state back into the loop's objects; returns its `loop` dict, with the
    epoch it resumes at added to resumed_at (a resumed run's summary says so). differs(stored
    config) -> the keys in which the checkpoint is of another run (train.config_differences)."""
    state = torch.load(path, map_location="cpu")
    changed = differs(state["config"])
    if changed:
        raise ValueError(f"{path} is a checkpoint of another config (differs in: {', '.join(changed)}); "
                         "delete it or choose another --out")
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    task.train_x = state["train_x"]
    task.refresh_gen.set_state(state["refresh_gen"])
    batch_gen.set_state(state["batch_gen"])
    if noise is not None:
        noise.set_state(state["noise_gen"])
    loop = {k: state[k] for k in ("epoch", "history", "grok", "elapsed", "resumed_at")}
    loop["resumed_at"] = loop["resumed_at"] + [loop["epoch"]]
    return loop
