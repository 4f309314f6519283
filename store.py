"""The run store: every finished run kept once, under a name computed from what it computes.

    results/store/<key>.json.gz     summary + history, floats at float32 precision (committed)
    results/store/<key>.final.pt    final weights, float32: only for runs a later arm starts
    results/store/<key>.init.pt     from (a teacher, a lottery ticket's source, a length test)
    runs/<key>/                     the run folder on the machine that trained it (not committed)

`run_key(cfg)` names a run by its semantic config (config.semantic_config): the task, p and
distractor regime, then every other setting that differs from train.py's defaults as
name=value in alphabetical order, then the seed, the epoch budget and the early stop:

    add_p113_fresh_seed0_e10000_stop200                 the fresh baseline (lambda = 0)
    add_p113_refresh0.003_lam=0.1_wd=2_seed3_e10000_stop200

Every study that asks for a config gets the same file, so a run is trained once and serves
every study that needs it; a study's own labels ("baseline", "kl", ...) never enter the key.
A file whose stored config differs from the one asked for (a name collision, or a default that
changed since) is an error, never silently reused. Shards merge by copying files: every file
is written whole and atomically, and the same run gives the same bytes (gzip mtime 0).
"""
import gzip
import json
import os
import re

import torch

import config
import runfolder
from config import config_differences, default_semantic, make_config   # the store's configs are config.py's
from runfolder import atomic_write   # one writer of whole files
from summary import summarize

STORE = os.path.join("results", "store")
WEIGHT_KINDS = ("init", "final")
PATH_KEYS = ("teacher", "init_from", "mask")      # settings that name a file: the key keeps its stem


# ---------------------------------------------------------------------------------------
# The key

def _value(key, v):
    if key in PATH_KEYS and isinstance(v, str):
        name = os.path.basename(v)
        return name[:-3] if name.endswith(".pt") else name
    return f"{v:.10g}" if isinstance(v, float) else str(v)


def run_key(cfg):
    """The store name of a run: readable, and the same for every study that asks for cfg."""
    sem = config.semantic_config(cfg)
    default = default_semantic()
    regime = sem["distractors"] + (f"{sem['refresh']:g}" if sem["refresh"] else "")
    parts = [sem["task"], f"p{sem['p']}", regime]
    core = ("task", "p", "distractors", "refresh", "seed", "epochs", "stop_after")
    parts += [f"{k}={_value(k, v)}" for k, v in sem.items() if k not in core and v != default[k]]
    parts += [f"seed{sem['seed']}", f"e{sem['epochs']}"]
    if sem["stop_after"] is not None:
        parts.append(f"stop{sem['stop_after']}")
    return "_".join(parts)


# ---------------------------------------------------------------------------------------
# Files: whole or not at all

def write_json(path, obj, digits=12):
    """A summary, its floats at 12 significant digits: statistics computed from the same stored
    runs differ in the last bits between CPUs (numpy's kernels sum in another order), and
    rounded they write the same file on every machine, so a redraw is byte-identical. An
    iterative fit (L-BFGS) can differ further down than that: its summary keeps fewer digits."""
    atomic_write(path, lambda f: json.dump(_round(obj, digits), f))


def read_json(path):
    with open(path) as f:
        return json.load(f)


def _round(obj, digits=7):
    """Floats to `digits` significant digits; 7, float32 precision, is what the store keeps of a
    run's history. (nan and inf stay as they are.)"""
    if isinstance(obj, float):
        return float(f"{obj:.{digits}g}")
    if isinstance(obj, (list, tuple)):
        return [_round(v, digits) for v in obj]
    if isinstance(obj, dict):
        return {k: _round(v, digits) for k, v in obj.items()}
    return obj


# ---------------------------------------------------------------------------------------
# The store

def path(folder, cfg):
    return os.path.join(folder, run_key(cfg) + ".json.gz")


def write(folder, summary, history, cfg):
    """One run into the store (its key from cfg), atomically."""
    if summary["config"].get("n_heads", 1) == 1:
        history = {k: v for k, v in history.items() if k != "attn_mass_heads"}   # = attn_mass
    data = json.dumps({"summary": summary, "history": _round(history)}).encode()

    def write_gz(raw):
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:   # mtime 0: same run, same bytes
            f.write(data)
    atomic_write(path(folder, cfg), write_gz, mode="wb")


def read_file(file):
    """(summary, history) of one store file, whatever its config."""
    with gzip.open(file, "rt") as f:
        run = json.load(f)
    history = run["history"]
    if "attn_mass_heads" not in history and "attn_mass" in history:
        history["attn_mass_heads"] = [[m] for m in history["attn_mass"]]
    return run["summary"], history


def read_summary(file):
    """The summary of one store file without decoding its history (most of its bytes): write()
    puts the summary first, so one JSON value is parsed from there; any other layout is read
    whole. What the dry run's costs read from every stored run."""
    with gzip.open(file, "rt") as f:
        text = f.read()
    head = '{"summary": '
    if text.startswith(head):
        return json.JSONDecoder().raw_decode(text, len(head))[0]
    return json.loads(text)["summary"]


def read(folder, cfg):
    """(summary, history) of the stored run of cfg, None if absent. ValueError if the file
    under cfg's key holds another config. A run stored under another budget or early stop that
    holds cfg's run epoch for epoch serves it (`derived`)."""
    file = path(folder, cfg)
    if not os.path.exists(file):
        return derived(folder, cfg)
    summary, history = read_file(file)
    changed = config_differences(summary["config"], cfg)
    if changed:
        raise ValueError(f"{file} holds a run with another config (differs in: {', '.join(changed)}); "
                         "use another --store or delete it")
    return summary, history


def derived(folder, cfg):
    """cfg's run read from a stored run of the same config with another budget or early stop,
    None if none holds it. Training never looks at either until it stops (train.py: the loop
    only ends earlier), so a run that stopped early at epoch E serves every budget >= E, and a
    run trained without an early stop serves the run that stops `stop_after` epochs after it
    grokked, cut there (tested against training, tests/test_sweep.py; the stored dense runs of
    Figure 4 match the stored early-stopped ones exactly). The
    summary is recomputed from the cut history and names its source (`derived_from`).

    Runs of one config trained on different machines can differ (float rounding moves the
    trajectory: docs/registered/sensitivity.md, Determinism), so which stored run serves never
    depends on the file system: the candidates are tried in a fixed order (`serving_order`),
    the same early stop first, then the shortest budget, then the name."""
    key = run_key(cfg)
    stem = key[:key.rindex(f"_seed{cfg.seed}_")] + f"_seed{cfg.seed}_"
    if not os.path.isdir(folder):
        return None
    for name in serving_order(os.listdir(folder), stem, cfg.stop_after):
        if name == key + ".json.gz":
            continue
        summary, history = read_file(os.path.join(folder, name))
        if [k for k in config_differences(summary["config"], cfg) if k not in ("epochs", "stop_after")]:
            continue
        grok = summary["grok_epoch"]
        grok = grok if grok is not None and grok <= cfg.epochs else None
        end = cfg.epochs if grok is None or cfg.stop_after is None else min(cfg.epochs, grok + cfg.stop_after)
        if summary["epochs_run"] < end or (grok is None and summary["grok_epoch"] is not None
                                            and summary["grok_epoch"] <= end):
            continue                                     # it stopped before cfg's run would have
        if end not in history["epoch"]:
            continue                                     # cfg's run logs its last epoch; this one did not
        keep = [i for i, e in enumerate(history["epoch"]) if e <= end]
        cut = {k: [v[i] for i in keep] if isinstance(v, list) and len(v) == len(history["epoch"]) else v
               for k, v in history.items()}
        out = summarize(config.semantic_config(cfg), cut, grok, end, summary["ms_per_epoch"] * end / 1000,
                                 summary["device"], summary["threads"])
        out.update(ms_per_epoch=summary["ms_per_epoch"], derived_from=name[:-8],
                   **{k: summary[k] for k in ("device_name", "precision") if k in summary})
        return out, cut
    return None


def serving_order(names, stem, stop_after):
    """The store files of one config's other budgets and early stops (`stem` + e<budget>[_stop<n>]),
    in the order they are tried to serve a request: a run with the request's own early stop
    first, then the shortest budget, then the name (an order of the names alone, never of a
    listing)."""
    runs, pattern = [], re.compile(re.escape(stem) + r"e(\d+)(?:_stop(\d+))?\.json\.gz")
    for name in names:
        m = name.startswith(stem) and pattern.fullmatch(name)
        if m:
            stop = None if m.group(2) is None else int(m.group(2))
            runs.append((stop != stop_after, int(m.group(1)), name))
    return [name for *_, name in sorted(runs)]


def weights_path(folder, cfg, kind="final"):
    assert kind in WEIGHT_KINDS
    return os.path.join(folder, f"{run_key(cfg)}.{kind}.pt")


def write_weights(folder, cfg, state, kind="final"):
    """A state dict as float32 (about 0.3 MB for the paper's model)."""
    state = {k: v.detach().to("cpu", torch.float32).clone() for k, v in state.items()}
    atomic_write(weights_path(folder, cfg, kind), lambda f: torch.save(state, f), mode="wb")


# ---------------------------------------------------------------------------------------
# A run folder (the machine that trained it): summary.json, history.json, init.pt, final.pt,
# written by runfolder.save_run

def from_folder(out, cfg):
    """(summary, history) of a finished run folder, None if unfinished or absent."""
    if runfolder.folder_summary(out, lambda stored: config_differences(stored, cfg)) is None:     # raises if the folder holds another config
        return None
    return read_json(os.path.join(out, "summary.json")), read_json(os.path.join(out, "history.json"))


def run_to_folder(cfg, log=print):
    """Train into cfg.out unless the same run is already there; returns the summary."""
    cached = runfolder.folder_summary(cfg.out, lambda stored: config_differences(stored, cfg))
    if cached is not None:
        return cached
    weights = {}
    import train          # the loop, only where a run is trained
    summary, history = train.train(cfg, log=log, weights=weights)
    runfolder.save_run(cfg.out, summary, history, weights)
    return summary
