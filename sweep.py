"""Run many configs (seeds x settings) cached, in parallel, sharded, into the run store.

Every exp_*.py builds a list of (label, config) and calls `run_sweep`. A run is stored once, under
a key computed from its config, in one store every study shares (store.py has its layout):
  - a run found in the store (or a finished run folder) is not trained again: a second call
    only re-plots, a killed sweep resumes, a clone re-plots everything with --plot-only, and
    a run one study trained serves every other study that asks for the same config;
  - a stored run or folder holding a different config is an error, never silently reused;
  - --jobs N trains N runs at once in worker processes, each with cores/N threads;
  - --shard i/n trains the missing runs among every n-th run of the sweep from i: each shard
    writes its own files, and until every shard's runs are stored, the figure and summary go to
    <results-dir>/partial/. --quick writes under results/quick/ (not committed), its store apart.
The file, by concern: 1. run configs (the regime names, a study's run config -- the paper config,
or under --quick the small model of QUICK_MODEL -- and the runs two studies share); 2. the flags
every script shares, and `apply_quick`; 3. the runner, `run_sweep`. Longer budgets for censored
runs: extend.py; the figure helpers: plots.py.
"""
import argparse
import functools
import multiprocessing as mp
import os
import time

import torch

import store
import train


# ---------------------------------------------------------------------------------------
# 1. Run configs

def distractor_regime(name):
    """(--distractors, --refresh) for a regime name: fixed, fresh or refresh<rho> for any
    0 < rho < 1 (each training example redraws its distractors with probability rho per epoch)."""
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


# The quick presets' model (docs/running.md, "Quick presets"): the paper's architecture on p = 43 with
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
    small = getattr(args, "quick", False) and changes.get("task", "add") in ("add", "sub", "mul", "addk", "route")
    model = {k: v for k, v in QUICK_MODEL.items() if k != "p"} if small else {}
    return store.make_config(**{**model, "p": args.p, "epochs": args.epochs, "stop_after": args.stop_after,
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


def output_seeds_tag(args):      # the seeds asked for: a quick look (one seed) keeps its study's own name
    return seeds_tag(getattr(args, "asked_seeds", args.seeds))


def fig3_stem(regime, wd, seeds):
    """File stem of a Figure 3 lambda sweep (its default lambdas): results/<stem>.json / .png.
    The report finds the held-out confirmation of the regime map by this name."""
    return "fig3_kl" + ("" if regime == "fresh" else f"_{regime}") + ("" if wd == 1.0 else f"_wd{wd:g}") \
        + seeds_tag(seeds)


# ---------------------------------------------------------------------------------------
# 2. The flags every script shares, and the --quick presets

def add_sweep_args(parser):
    a = parser.add_argument
    a("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    a("--jobs", type=int, default=1, help="runs trained in parallel (worker processes)")
    a("--threads", type=int, default=0, help="torch threads per run (default: cores / jobs)")
    a("--shard", default=None, help="i/n: train only runs i, i+n, i+2n, ... of the sweep")
    a("--plot-only", action="store_true", help="train nothing; plot what is on disk")
    a("--runs-dir", default="runs", help="where run folders (with weights) go")
    a("--results-dir", default="results", help="where the figure and summary go")
    a("--store", default=None, help="run store folder (default: <results-dir>/store; --quick: results/quick/store)")
    a("--device", default="auto", help="auto | cpu | cuda | cuda:N (with several GPUs, auto and cuda take them in turn)")
    a("--any-device", action="store_true",
      help="train beside stored runs of another device kind (by default, a sweep that trains refuses to mix them)")


# Every study stops a run this many epochs after grokking, so that a baseline one study trained
# is the same run for every other (runs that never grok train the whole budget either way).
# --quick keeps fewer: its look at a run ends sooner after it groks (issue #85: 15 minutes for all).
STOP_AFTER, QUICK_STOP_AFTER = 200, 100


def add_scale_args(parser, quick):
    """The flags every figure script shares for the size of its runs."""
    a = parser.add_argument
    a("--p", type=int, default=113)
    a("--epochs", type=int, default=10000)
    a("--stop-after", type=int, default=STOP_AFTER,
      help="epochs kept after grokking (the same in every study, so that runs are shared)")
    a("--quick", action="store_true", help=f"preset {quick}")


def apply_quick(args, preset, parser=None, keep_given=()):
    """--quick: the preset's values replace the flags it names (the scale: p, epochs, seeds,
    the study's axes), runs stop QUICK_STOP_AFTER epochs after grokking, and the figures,
    summaries and store go under <results-dir>/quick/. A flag in keep_given survives when the
    command line set it away from its default (`exp_fig3_kl.py --quick --lam 0.3` keeps lambda
    0.3). Returns args."""
    if not args.quick:
        return args
    preset = {**({"stop_after": QUICK_STOP_AFTER} if hasattr(args, "stop_after") else {}), **preset}
    args.asked_seeds = list(getattr(args, "seeds", None) or [])      # for output_seeds_tag
    changed = []
    for key, value in preset.items():
        if key not in keep_given or getattr(args, key) == parser.get_default(key):
            if getattr(args, key, None) != value:
                changed.append(f"--{key.replace('_', '-')} {_flag_text(value)} (was {_flag_text(getattr(args, key, None))})")
            setattr(args, key, value)
    args.results_dir = os.path.join(args.results_dir, "quick")
    say("--quick sets " + (", ".join(changed) if changed else "nothing else") + f"; results under {args.results_dir}/")
    return args


def _flag_text(value):
    """A flag's value as one would type it: lists space-separated."""
    return " ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


# ---------------------------------------------------------------------------------------
# 3. The runner

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


def store_dir(args):
    """--store, or <results-dir>/store (results/quick/store under --quick)."""
    return getattr(args, "store", None) or os.path.join(args.results_dir, "store")


def is_stored(args, cfg):
    """Whether the store already holds this run (with this config)."""
    return store.read(store_dir(args), cfg) is not None


def _train_one(cfg, progress=False):
    """Train one run into its folder; with progress, its progress lines (with ETA) prefixed by its key."""
    name = os.path.basename(cfg.out)
    store.run_to_folder(cfg, log=(lambda line: say(f"  {name}: {line}")) if progress else (lambda line: None))
    return cfg.out


def _store_weights(folder, cfg):
    """Copy a run folder's initial and final weights into the store (float32)."""
    for kind in store.WEIGHT_KINDS:
        store.write_weights(folder, cfg, torch.load(os.path.join(cfg.out, f"{kind}.pt")), kind)


def say(line):
    """A progress line, flushed: a sweep left running under nohup shows it in its log at once."""
    print(line, flush=True)


def served_from(results):
    """{device kind: count} of stored runs (cpu, cuda): a run is exact only per kind of device."""
    kinds = {}
    for summary, _ in results:
        kind = str(summary.get("device", "cpu")).split(":")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    return dict(sorted(kinds.items()))


def place_on_gpus(cfgs, device, gpus):
    """With several GPUs and --device auto or cuda, the runs take them in turn (cuda:0, cuda:1,
    ...): each --jobs worker trains on its own. The device is not part of a run's key."""
    if gpus > 1 and device in ("auto", "cuda"):
        for i, cfg in enumerate(cfgs):
            cfg.device = f"cuda:{i % gpus}"


def run_sweep(runs, args, log=say, weights=()):
    """runs: list of (label, cfg). Trains what is in neither the store nor a run folder
    (unless --plot-only), stores every finished run, and returns {label: (summary, history)}
    for every run available. Runs whose label is in `weights` also keep their initial and
    final weights in the store (a later arm starts from them); a stored run without them is
    trained again for them, its stored history kept."""
    labels = [n for n, _ in runs]
    if len(set(labels)) != len(labels):
        raise ValueError("duplicate run labels in sweep")
    jobs = max(1, args.jobs)
    threads = getattr(args, "threads", 0) or max(1, (os.cpu_count() or 1) // jobs)
    folder = store_dir(args)
    results, todo = {}, []
    for label, cfg in runs:
        cfg.out = os.path.join(args.runs_dir, store.run_key(cfg))
        cfg.device = args.device
        cfg.quiet = True
        cfg.threads = cfg.threads or threads
        got = store.read(folder, cfg)
        need_weights = label in weights and not os.path.exists(store.weights_path(folder, cfg))
        # a run folder is read only when the store lacks the run or its weights
        from_folder = store.from_folder(cfg.out, cfg) if got is None or need_weights else None
        if got is None and from_folder is not None:          # finished before the store had it
            store.write(folder, *from_folder, cfg)
            got = store.read(folder, cfg)
        if need_weights and from_folder is not None and os.path.exists(os.path.join(cfg.out, "final.pt")):
            _store_weights(folder, cfg)
            need_weights = False
        if got is not None:
            results[label] = got
        if got is None or need_weights:
            todo.append((label, cfg))
    # a shard is a fixed share of the whole sweep (not of what is missing now), so shards
    # started at different times, or after a part of the sweep was stored, never overlap
    ours = set(shard_runs(list(dict.fromkeys(cfg.out for _, cfg in runs)), args.shard))
    mine = [(label, cfg) for label, cfg in todo if cfg.out in ours] if not args.plot_only else []
    served = served_from(results.values())
    if served:                                                # where the stored runs were computed
        log(f"served {len(results)} stored run(s), trained on " + ", ".join(f"{k} ({n})" for k, n in served.items()))
    here = train.pick_device(args.device).type
    other = [k for k in served if k != here]
    if mine and other and not getattr(args, "any_device", False):
        raise ValueError(f"this sweep trains on {here}, and the store serves it runs trained on {', '.join(other)}: "
                         "--any-device mixes them, --store another folder keeps them apart")
    if mine:
        run_of = {cfg.out: (label, cfg) for label, cfg in mine}    # two labels of one run: trained once
        distinct, missing = len(set(cfg.out for _, cfg in runs)), len(set(cfg.out for _, cfg in todo))
        log(f"training {len(run_of)} of {distinct} runs ({distinct - missing} stored) "
            f"with {jobs} job(s) x {threads} thread(s) -> {folder}")
        t0 = time.time()
        cfgs = [cfg for _, cfg in run_of.values()]
        place_on_gpus(cfgs, args.device, torch.cuda.device_count())
        progress = bool(getattr(args, "quick", False))      # a first look says how it goes while it trains
        for cfg in cfgs if progress else ():
            cfg.quiet, cfg.print_every = False, max(100, cfg.epochs // 10)
        train_one = functools.partial(_train_one, progress=progress)
        if jobs == 1:
            outs = map(train_one, cfgs)
        else:
            pool = mp.get_context("spawn").Pool(jobs)
            outs = pool.imap_unordered(train_one, cfgs)
        for k, out in enumerate(outs, 1):
            label, cfg = run_of[out]
            trained = store.from_folder(out, cfg)
            if label in weights:
                _store_weights(folder, cfg)
            stored = store.read(folder, cfg)
            if stored is None:
                store.write(folder, *trained, cfg)
            elif stored[0]["grok_epoch"] != trained[0]["grok_epoch"]:
                log(f"  note: {store.run_key(cfg)} trained again for its weights groks at "
                    f"{trained[0]['grok_epoch']}, the stored run at {stored[0]['grok_epoch']} (kept)")
            got = store.read(folder, cfg)          # a re-plot reads this precision
            for other, c in runs:
                if c.out == out:
                    results[other] = got
            eta = (time.time() - t0) / k * (len(cfgs) - k)
            resumed = trained[0].get("resumed_at")
            log(f"  [{k}/{len(cfgs)}] {os.path.basename(out)}: grok {trained[0]['grok_epoch']}, "
                f"test acc {trained[0]['final_test_acc']:.3f}, {trained[0]['wall_s']:.0f}s"
                + (f", resumed at epoch {', '.join(map(str, resumed))}" if resumed else "")
                + f" (elapsed {time.time() - t0:.0f}s, ETA {eta:.0f}s)")
        if jobs > 1:
            pool.close()
            pool.join()
    missing = len(runs) - len(results)
    if runs and not results:      # nothing to summarize: leave every file as it is
        raise SystemExit(f"error: none of the {len(runs)} runs is in the store {folder} or under {args.runs_dir}"
                         + (": train them without --plot-only" if args.plot_only else ""))
    if missing:                   # a redraw, or a shard that trained only its share
        log(f"note: {missing} of {len(runs)} runs are not stored yet; plotting what is there")
        write_partial(args, log)
    return {label: results[label] for label in labels if label in results}


def write_partial(args, log=say):
    """A redraw from part of a study's runs never replaces the figure and summary of all of
    them: they go to <results-dir>/partial/ (unless the study draws partial grids by design)."""
    if getattr(args, "partial_ok", False) or getattr(args, "partial", False):
        return
    args.store, args.partial = store_dir(args), True        # later stages keep reading the same store
    args.results_dir = os.path.join(args.results_dir, "partial")
    os.makedirs(args.results_dir, exist_ok=True)
    log(f"  (runs missing: the figure and summary go to {args.results_dir})")
