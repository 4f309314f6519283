"""Run many configs (seeds x settings) into run folders, cached, in parallel, sharded.

Every exp_*.py builds a list of (run name, config) and calls `run_sweep`:

  runs/<experiment>/<run name>/{summary,history}.json
  - a run whose summary.json holds the same config is not trained again, so a second call
    only re-plots and a killed sweep resumes losing at most the runs in flight;
  - a run folder holding a different config is an error, never silently reused;
  - --jobs N trains N runs at once in worker processes, each with cores/N threads;
  - --shard i/n trains only every n-th run starting at i (a SLURM array: one task per i),
    and a last call with --plot-only merges whatever is on disk.
"""
import multiprocessing as mp
import os
import time

import numpy as np

import train


def add_sweep_args(parser, experiment):
    a = parser.add_argument
    a("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    a("--jobs", type=int, default=1, help="runs trained in parallel (worker processes)")
    a("--threads", type=int, default=0, help="torch threads per run (default: cores / jobs)")
    a("--shard", default=None, help="i/n: train only runs i, i+n, i+2n, ... of the sweep")
    a("--plot-only", action="store_true", help="train nothing; plot what is on disk")
    a("--runs-dir", default=os.path.join("runs", experiment), help="where run folders go")
    a("--results-dir", default="results", help="where the figure and summary go")
    a("--device", default="auto", help="auto | cpu | cuda")
    a("--batch-seeds", action="store_true",
      help="train the runs that differ only in seed / lambda as one stacked model (batched.py; "
           "the GPU path). Each group is one job")


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


def _train_one(cfg):
    train.run_to_folder(cfg, log=lambda line: None)
    return [cfg.out]


def _train_group(cfgs):
    import batched
    batched.run_group_to_folders(cfgs, log=lambda line: None)
    return [c.out for c in cfgs]


def batch_groups(cfgs):
    """Configs that differ only in what batched.py may batch (seed, init seed, lambda)."""
    import batched
    groups = {}
    for cfg in cfgs:
        key = str({k: v for k, v in train.semantic_config(cfg).items() if k not in batched.BATCHABLE})
        groups.setdefault(key, []).append(cfg)
    for group in groups.values():
        batched.check_batchable(group)
    return list(groups.values())


def run_sweep(runs, args, log=print):
    """runs: list of (name, cfg). Trains what is missing (unless --plot-only) and returns
    {name: (summary, history)} for every run complete on disk."""
    names = [n for n, _ in runs]
    if len(set(names)) != len(names):
        raise ValueError("duplicate run names in sweep")
    jobs = max(1, args.jobs)
    threads = getattr(args, "threads", 0) or max(1, (os.cpu_count() or 1) // jobs)
    todo = []
    for name, cfg in runs:
        cfg.out = os.path.join(args.runs_dir, name)
        cfg.device = args.device
        cfg.quiet = True
        cfg.threads = cfg.threads or threads
        if train.cached_summary(cfg.out, cfg) is None:   # raises if the folder holds another config
            todo.append((name, cfg))
    mine = shard_runs(todo, args.shard) if not args.plot_only else []
    if mine:
        log(f"training {len(mine)} of {len(runs)} runs ({len(runs) - len(todo)} cached) "
            f"with {jobs} job(s) x {threads} thread(s) -> {args.runs_dir}")
        t0 = time.time()
        cfgs = [cfg for _, cfg in mine]
        fn, units = (_train_group, batch_groups(cfgs)) if getattr(args, "batch_seeds", False) else (_train_one, cfgs)
        if jobs == 1:
            outs = map(fn, units)
        else:
            pool = mp.get_context("spawn").Pool(jobs)
            outs = pool.imap_unordered(fn, units)
        k = 0
        for group in outs:
            for out in group:
                k += 1
                s = train.read_json(os.path.join(out, "summary.json"))
                log(f"  [{k}/{len(mine)}] {os.path.basename(out)}: grok {s['grok_epoch']}, "
                    f"test acc {s['final_test_acc']:.3f}, {s['wall_s']:.0f}s "
                    f"(elapsed {time.time() - t0:.0f}s)")
        if jobs > 1:
            pool.close()
            pool.join()
    results = {}
    for name, cfg in runs:
        path = os.path.join(cfg.out, "summary.json")
        if os.path.exists(path):
            results[name] = (train.read_json(path), train.read_json(os.path.join(cfg.out, "history.json")))
    missing = len(runs) - len(results)
    if missing:
        log(f"note: {missing} of {len(runs)} runs are not on disk yet; plotting what is there")
    return results


# ---------------------------------------------------------------------------------------
# Helpers the figure scripts share

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
    fig.suptitle(title, fontsize=10)
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
