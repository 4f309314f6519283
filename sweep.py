"""Run many configs (seeds x settings) cached, in parallel, sharded, into a committed store.

Every exp_*.py builds a list of (run name, config) and calls `run_sweep`. A run's identity is
its name plus its epoch budget, `<name>_e<epochs>`, so a --quick run and a paper-scale run
(or two studies sharing a run at different budgets) never share anything. A run lives in:

  results/runs/<experiment>/<run>_e<epochs>.json.gz   the store: summary + history, float32
                                                      precision, committed with the results
  runs/<experiment>/<run>_e<epochs>/                  the run folder: the same as JSON plus the
                                                      initial and final weights (not committed)

  - a run found in the store (or a finished run folder) with the same config is not trained
    again: a second call only re-plots, a killed sweep resumes, a clone re-plots everything
    with --plot-only and no training;
  - a stored run or folder holding a different config is an error, never silently reused;
  - --jobs N trains N runs at once in worker processes, each with cores/N threads;
  - --shard i/n trains only every n-th missing run starting at i (a SLURM array, or several
    machines): each writes its own files into the store, so merging shards is copying (or
    git-merging) the store folders, and a last call with --plot-only draws the union.
--quick writes under results/quick/ (not committed), so its store is separate too.

The file: the distractor regimes, a study's run config (the paper config, or under --quick
the small model of QUICK_MODEL) and the run names the studies share, the sweep flags, a run on
disk (its folder, the cache that reuses it, atomic JSON), the store, `run_sweep`, and the
figure helpers.
"""
import argparse
import gzip
import json
import multiprocessing as mp
import os
import tempfile
import textwrap
import time

import numpy as np
import torch

import train


# The distractor regimes of the regime study (README, "The distractor regime"), by name:
# (--distractors, --refresh). Any `refresh<rho>` with 0 < rho < 1 is a regime too.
DISTRACTOR_REGIMES = {"fixed": ("fixed", 0.0), "fresh": ("fresh", 0.0), "refresh0.01": ("refresh", 0.01),
                      "refresh0.003": ("refresh", 0.003), "refresh0.001": ("refresh", 0.001)}


def distractor_regime(name):
    """(--distractors, --refresh) for a regime name: fixed, fresh or refresh<rho>."""
    if name in ("fixed", "fresh"):
        return name, 0.0
    try:
        rho = float(name[len("refresh"):]) if name.startswith("refresh") else None
    except ValueError:
        rho = None
    if rho is None or not 0 < rho < 1:
        raise ValueError(f"unknown distractor regime {name!r}: use fixed, fresh or refresh<rho> with 0 < rho < 1")
    return "refresh", rho


def regime_name(rho):
    """The regime name of a refresh probability: 0 is `fixed`, 1 `fresh`, else refresh<rho>."""
    return "fixed" if rho == 0 else "fresh" if rho == 1 else f"refresh{rho:g}"


def regime_arg(name):
    """argparse type for --regime: a one-line error for a bad name."""
    try:
        distractor_regime(name)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return name


# The quick presets' model (README, "Quick presets"): the paper's architecture on p = 43 with
# 60% of the pairs for training and lr 3e-3, so that a preset's few runs end in about two
# minutes on two cores. Measured here (seed 0, 4,000 epochs): `fresh` groks at epoch 730,
# `fixed` with lambda 0.3 at 910, `fixed` at lambda 0 never -- the contrast of the paper scale.
# Smaller models (p 31, d_model 32) or frac 0.5 plateaued at test accuracy 0.94-0.99, short of
# the 0.99 that defines grokking, and at the paper's p = 113 the presets took 2-14 minutes each.
QUICK_MODEL = dict(p=43, frac=0.6, lr=3e-3)


def study_config(args, seed, regime=None, **changes):
    """The config of one run of a study: train.py's defaults (the paper config) at the study's
    size (args.p, args.epochs, args.stop_after), in a distractor regime (default args.regime),
    with the study's changes. Under --quick the tasks modulo p run on the QUICK_MODEL."""
    distractors, refresh = distractor_regime(regime or args.regime)
    small = getattr(args, "quick", False) and changes.get("task", "add") in ("add", "mul", "addk", "route")
    model = {k: v for k, v in QUICK_MODEL.items() if k != "p"} if small else {}
    return train.make_config(**{**model, "p": args.p, "epochs": args.epochs, "stop_after": args.stop_after,
                                "distractors": distractors, "refresh": refresh, "seed": seed, **changes})


def kl_run(lam, seed, args):
    """(name, config) of a Figure 3 run: the paper config with the KL prior at strength lam,
    in args.regime at weight decay args.wd (default 1). The bound study (Figure 5) reads
    the same runs, so both scripts name them here."""
    wd = getattr(args, "wd", 1.0)
    name = f"p{args.p}_{args.regime}" + ("" if wd == 1.0 else f"_wd{wd:g}") + f"_lam{lam:g}_seed{seed}"
    return name, study_config(args, seed, lam=lam, wd=wd)


def seeds_tag(seeds):
    """The suffix of a figure's file names when it ran on seeds beyond the paper's five (the
    held-out seeds 5-9, say), so that it never overwrites the seeds 0-4 figure the report
    reads. Seeds within 0-4 keep the plain name: the report counts how many there are."""
    seeds = sorted(seeds)
    if set(seeds) <= {0, 1, 2, 3, 4}:
        return ""
    if len(seeds) > 1 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"_seeds{seeds[0]}-{seeds[-1]}"
    return "_seeds" + "_".join(map(str, seeds))


def fig3_stem(regime, wd, seeds):
    """File stem of a Figure 3 lambda sweep (its default lambdas): results/<stem>.json / .png.
    The report finds the held-out confirmation of the regime map by this name."""
    return "fig3_kl" + ("" if regime == "fresh" else f"_{regime}") + ("" if wd == 1.0 else f"_wd{wd:g}") \
        + seeds_tag(seeds)


def add_sweep_args(parser, experiment):
    a = parser.add_argument
    a("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    a("--jobs", type=int, default=1, help="runs trained in parallel (worker processes)")
    a("--threads", type=int, default=0, help="torch threads per run (default: cores / jobs)")
    a("--shard", default=None, help="i/n: train only runs i, i+n, i+2n, ... of the sweep")
    a("--plot-only", action="store_true", help="train nothing; plot what is on disk")
    a("--runs-dir", default=os.path.join("runs", experiment), help="where run folders go")
    a("--results-dir", default="results", help="where the figure and summary go")
    a("--store", default=None,
      help=f"run store folder (default: <results-dir>/runs/{experiment}; --quick: under results/quick)")
    a("--device", default="auto", help="auto | cpu | cuda")
    # batched.py (seed batching) was removed (README, Speed); the flag still parses, so old
    # command lines run: each run trains in its own process, with the same results.
    a("--batch-seeds", action="store_true", help=argparse.SUPPRESS)


def add_scale_args(parser, quick, stop_after):
    """The flags every figure script shares for the size of its runs."""
    a = parser.add_argument
    a("--p", type=int, default=113)
    a("--epochs", type=int, default=10000)
    a("--stop-after", type=int, default=stop_after, help="epochs kept after grokking")
    a("--quick", action="store_true", help=f"preset {quick}")


def parse_shard(shard):
    if shard is None:
        return 0, 1
    try:
        i, n = (int(s) for s in shard.split("/"))
    except ValueError:
        raise ValueError(f"--shard must look like i/n, got {shard!r}") from None
    if not 0 <= i < n:
        raise ValueError(f"--shard {shard}: need 0 <= i < n")
    return i, n


def shard_runs(runs, shard):
    """The runs of shard i/n: every n-th run from i, so the shards partition the list."""
    i, n = parse_shard(shard)
    return runs[i::n]


# ---------------------------------------------------------------------------------------
# A run on disk: its folder (summary, history, weights) and the cache that reuses it

def atomic_write(path, write, mode="w"):
    """write(f) into a temporary file beside `path`, then rename it to `path`: a reader never
    sees half a file, a crash never leaves one. Readable by all, like any other result."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(fd, mode) as f:
        write(f)
    os.chmod(tmp, 0o644)               # mkstemp makes it private (0600)
    os.replace(tmp, path)


def write_json(path, obj):
    atomic_write(path, lambda f: json.dump(obj, f))


def read_json(path):
    with open(path) as f:
        return json.load(f)


def config_differences(stored, cfg):
    """Keys in which a stored run's config differs from cfg ([] = the same run). A flag added
    after the run was stored matches if cfg uses that flag's default."""
    defaults = train.semantic_config(train.make_config())
    want = json.loads(json.dumps(train.semantic_config(cfg)))
    have = dict(stored)
    for k, v in want.items():
        if k not in have and v == defaults.get(k):
            have[k] = v
    return sorted(k for k in set(have) | set(want) if have.get(k) != want.get(k))


def cached_summary(out, cfg):
    """The summary stored in `out` for this same config, None if the run is not there yet.
    Raises ValueError if `out` holds a run of another config (never silently reused)."""
    path = os.path.join(out, "summary.json")
    if not os.path.exists(path):
        return None
    stored = read_json(path)
    changed = config_differences(stored.get("config", {}), cfg)
    if changed:
        raise ValueError(f"{out} holds a run with another config (differs in: {', '.join(changed)}); "
                         "choose another --out or delete it")
    return stored


def run_to_folder(cfg, log=print):
    """Train into cfg.out unless the same run is already there; returns the summary."""
    cached = cached_summary(cfg.out, cfg)
    if cached is not None:
        return cached
    weights = {}
    summary, history = train.train(cfg, log=log, weights=weights)
    save_run(cfg.out, summary, history, weights)
    return summary


def save_run(out, summary, history, weights):
    """A run folder: init.pt / final.pt (what a ticket rewinds to), history, summary."""
    for key, state in weights.items():
        atomic_write(os.path.join(out, f"{key}.pt"), lambda f: torch.save(state, f), mode="wb")
    write_json(os.path.join(out, "history.json"), history)
    write_json(os.path.join(out, "summary.json"), summary)   # last: marks the run complete


def _train_one(cfg):
    run_to_folder(cfg, log=lambda line: None)
    return cfg.out


def run_key(name, cfg):
    """A run's identity in the store and on disk: its name and its epoch budget."""
    return f"{name}_e{cfg.epochs}"


def store_dir(args):
    """--store, or <results-dir>/runs/<the run folder's name> (under results/quick for --quick)."""
    study = os.path.basename(os.path.normpath(args.runs_dir))
    return getattr(args, "store", None) or os.path.join(args.results_dir, "runs", study)


def _round(obj):
    """Floats to float32 precision (7 significant digits): what the store keeps."""
    if isinstance(obj, float):
        return float(f"{obj:.7g}")
    if isinstance(obj, list):
        return [_round(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _round(v) for k, v in obj.items()}
    return obj


def store_write(folder, key, summary, history):
    """One run into the store, atomically (a reader never sees half a file)."""
    if summary["config"].get("n_heads", 1) == 1:
        history = {k: v for k, v in history.items() if k != "attn_mass_heads"}   # = attn_mass
    data = json.dumps({"summary": summary, "history": _round(history)}).encode()

    def write(raw):
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:   # mtime 0: same run, same bytes
            f.write(data)
    atomic_write(os.path.join(folder, key + ".json.gz"), write, mode="wb")


def store_read(folder, key, cfg):
    """(summary, history) of a stored run with this config, None if absent. ValueError if
    the stored run has another config."""
    path = os.path.join(folder, key + ".json.gz")
    if not os.path.exists(path):
        return None
    with gzip.open(path, "rt") as f:
        run = json.load(f)
    changed = config_differences(run["summary"]["config"], cfg)
    if changed:
        raise ValueError(f"{path} holds a run with another config (differs in: {', '.join(changed)}); "
                         "use another --store or delete it")
    history = run["history"]
    if "attn_mass_heads" not in history and "attn_mass" in history:
        history["attn_mass_heads"] = [[m] for m in history["attn_mass"]]
    return run["summary"], history


def is_stored(args, name, cfg):
    """Whether the store already holds this run (with this config)."""
    return store_read(store_dir(args), run_key(name, cfg), cfg) is not None


def _from_folder(out, cfg):
    if cached_summary(out, cfg) is None:     # raises if the folder holds another config
        return None
    return read_json(os.path.join(out, "summary.json")), read_json(os.path.join(out, "history.json"))


def run_sweep(runs, args, log=print):
    """runs: list of (name, cfg). Trains what is in neither the store nor a run folder
    (unless --plot-only), stores every finished run, and returns {name: (summary, history)}
    for every run available."""
    names = [n for n, _ in runs]
    if len(set(names)) != len(names):
        raise ValueError("duplicate run names in sweep")
    jobs = max(1, args.jobs)
    threads = getattr(args, "threads", 0) or max(1, (os.cpu_count() or 1) // jobs)
    store = store_dir(args)
    results, todo = {}, []
    for name, cfg in runs:
        key = run_key(name, cfg)
        cfg.out = os.path.join(args.runs_dir, key)
        cfg.device = args.device
        cfg.quiet = True
        cfg.threads = cfg.threads or threads
        got = store_read(store, key, cfg)
        if got is None:
            got = _from_folder(cfg.out, cfg)
            if got is not None:                     # finished before the store existed
                store_write(store, key, *got)
        if got is None:
            todo.append((name, cfg))
        else:
            results[name] = got
    mine = shard_runs(todo, args.shard) if not args.plot_only else []
    if mine and getattr(args, "batch_seeds", False):
        log("note: --batch-seeds is gone (README, Speed); each run trains in its own process")
    if mine:
        log(f"training {len(mine)} of {len(runs)} runs ({len(runs) - len(todo)} stored) "
            f"with {jobs} job(s) x {threads} thread(s) -> {store}")
        t0 = time.time()
        cfgs = [cfg for _, cfg in mine]
        run_of = {cfg.out: (name, cfg) for name, cfg in mine}
        if jobs == 1:
            outs = map(_train_one, cfgs)
        else:
            pool = mp.get_context("spawn").Pool(jobs)
            outs = pool.imap_unordered(_train_one, cfgs)
        for k, out in enumerate(outs, 1):
            name, cfg = run_of[out]
            store_write(store, os.path.basename(out), *_from_folder(out, cfg))
            results[name] = store_read(store, os.path.basename(out), cfg)   # a re-plot reads this precision
            s = results[name][0]
            eta = (time.time() - t0) / k * (len(mine) - k)
            log(f"  [{k}/{len(mine)}] {os.path.basename(out)}: grok {s['grok_epoch']}, "
                f"test acc {s['final_test_acc']:.3f}, {s['wall_s']:.0f}s "
                f"(elapsed {time.time() - t0:.0f}s, ETA {eta:.0f}s)")
        if jobs > 1:
            pool.close()
            pool.join()
    missing = len(runs) - len(results)
    if runs and not results:      # nothing to summarize: leave every file as it is
        raise SystemExit(f"error: none of the {len(runs)} runs is in the store {store} or under {args.runs_dir}"
                         + (": train them without --plot-only" if args.plot_only else ""))
    if missing:
        log(f"note: {missing} of {len(runs)} runs are not stored yet; plotting what is there")
        if args.plot_only and not getattr(args, "partial_ok", False) and not getattr(args, "partial", False):
            # a redraw from part of the runs never replaces the figure and summary of all of them
            args.store, args.partial = store, True        # later stages keep reading the same store
            args.results_dir = os.path.join(args.results_dir, "partial")
            os.makedirs(args.results_dir, exist_ok=True)
            log(f"  (--plot-only with runs missing: the figure and summary go to {args.results_dir})")
    return {name: results[name] for name in names if name in results}


# ---------------------------------------------------------------------------------------
# Helpers the figure scripts share

def pyplot():
    """matplotlib.pyplot on the file-only Agg backend (no display needed), imported on first
    use so that training never pays for matplotlib."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def curve(history, key, grid):
    """history[key] on an epoch grid; a run that stopped early holds its last value."""
    ep = np.asarray(history["epoch"])
    val = np.asarray(history[key], dtype=float)
    idx = np.clip(np.searchsorted(ep, grid, side="right") - 1, 0, len(ep) - 1)
    return val[idx]


def curves(histories, key, epochs, points=400):
    """(grid, array (n_runs, len(grid))) for one logged quantity over several runs."""
    grid = np.linspace(0, epochs, points)
    return grid, np.stack([curve(h, key, grid) for h in histories])


def save_figure(fig, path, title):
    """The figure scripts' common ending: title, layout, PNG, close."""
    import matplotlib.pyplot as plt
    width = int(fig.get_figwidth() * 72 / 6)      # characters of 10-point text across the figure
    fig.suptitle("\n".join(textwrap.fill(line, width) for line in title.split("\n")), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"wrote {path}")


def band(ax, grid, values, label=None, color=None, log=False):
    """Plot the median with the min-max spread over runs."""
    mid = np.median(values, 0)
    line, = ax.plot(grid, mid, label=label, color=color)
    ax.fill_between(grid, values.min(0), values.max(0), color=line.get_color(), alpha=0.2, lw=0)
    if log:
        ax.set_yscale("log")
    return line
