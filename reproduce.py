"""Run every study of the registry (studies.py), then write results/REPORT.md: each claim of
the paper with the measured numbers beside the paper's statement and a verdict, generated
from the studies' summaries by the rules in audit/.

    python reproduce.py --dry-run             # the plan: runs stored, runs missing, core-hours
    python reproduce.py --jobs 2              # paper scale: every study, resuming from the store
    python reproduce.py --plot-only           # redraw every figure, its printout (.txt) and REPORT.md
    python reproduce.py --quick --jobs 2      # every study at its --quick preset, two studies at a time
    python reproduce.py --report-only         # rewrite REPORT.md, the README's table and the printouts'
                                              # verdict lines from the summaries in results/
    python reproduce.py --only C3 fig4        # some claims or studies
    python reproduce.py --only C7 C10 --shard 0/2 --threads 1 &
    python reproduce.py --only C7 C10 --shard 1/2 --threads 1
                                              # two processes, one core each, each its share of every study

The plan counts each study's runs from its own script (`planned_runs`), and a run that several
studies share once. The estimate is, per missing run, the epochs that stored runs of the same
setting (other seeds) ran; with none at its budget, what the same setting's runs at other
budgets imply (`expected_epochs`); else the whole budget; times the ms/epoch that
stored runs of the same model and task took with one thread (timed here when none is stored).
A run cut short is charged only the epochs after its checkpoint (runfolder.save_checkpoint).
"""
import argparse
import concurrent.futures
import contextlib
import importlib
import io
import multiprocessing as mp
import os
import re
import runpy
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

import runfolder
import store
import sweep
import train
from audit import claims, dates, readme, report, studies

# what sets a run's cost per epoch: the model, the task's size, the batch
SHAPE = ("task", "p", "frac", "n_distractors", "n_bits", "parity_k", "n_outputs", "perm_n", "pos_slots",
         "d_model", "n_heads", "d_mlp", "optimizer", "batch_size", "frozen_attn", "eval_every", "n_operands",
         "n_layers", "layernorm")


def selected(only):
    """The registry's studies named in --only (claims or study names), in registry order."""
    if not only:
        return list(studies.STUDIES)
    known = set(studies.STUDIES) | {s.claim for s in studies.STUDIES.values()}
    bad = [o for o in only if o not in known]
    if bad:
        raise SystemExit(f"error: --only takes claims ({', '.join(studies.CLAIMS)}, beyond) or studies "
                         f"({', '.join(studies.STUDIES)}); not {', '.join(bad)}")
    return [n for n, s in studies.STUDIES.items() if n in only or s.claim in only]


def printout_path(name, results):
    """Where --plot-only keeps what a study printed: beside its summary, as .txt."""
    return os.path.join(results, studies.summary(name)[:-len(".json")] + ".txt")


VERDICT_TAIL = "\nVerdict by the repository's rules"


def refresh_printouts(results):
    """Each kept printout's verdict lines rewritten from the rules as they stand (what --plot-only
    would append), so that a study's .txt never names a part's status from before other runs
    landed; the study's own lines are left as printed. Returns the paths rewritten."""
    changed = []
    for name, s in studies.STUDIES.items():
        path = printout_path(name, results)
        if s.command[0] == "-m" or not os.path.exists(path):     # a beyond study prints its own verdicts
            continue
        with open(path) as f:
            text = f.read()
        head = text.split(VERDICT_TAIL, 1)[0]
        new = head + report.study_parts_text(results, name)
        if new != text:
            runfolder.atomic_write(path, lambda f: f.write(new))
            changed.append(path)
    return changed


def study_command(name, args):
    cmd = list(studies.STUDIES[name].command)
    return cmd + (["--quick"] if args.quick else []) + ["--results-dir", args.results_dir]


def study_args(name, args):
    """The study's script (a module) and its parsed flags."""
    cmd = study_command(name, args)
    module_name, flags = (cmd[1], cmd[2:]) if cmd[0] == "-m" else (cmd[0][:-len(".py")], cmd[1:])   # -m audit.NAME
    module = importlib.import_module(module_name)
    return module, module.parse(flags)


# ---------------------------------------------------------------------------------------
# The plan and its estimate

def _shape(cfg):
    if isinstance(cfg, dict):          # a stored config lacks the flags added after it: their defaults
        cfg = {**store.default_semantic(), **cfg}
    return tuple(str(cfg.get(k) if isinstance(cfg, dict) else getattr(cfg, k)) for k in SHAPE)


def _cell(cfg):
    """A run's setting without its seed: runs of one cell ran about as long. A stored config
    (a dict) lacks the flags added after it was trained: they had their defaults
    (store.config_differences), and are filled in so that it meets the configs asked for now."""
    default = store.default_semantic()
    sem = train.semantic_config(cfg) if not isinstance(cfg, dict) else {**default, **cfg}
    return tuple(sorted((k, str(v)) for k, v in sem.items() if k not in ("seed", "init_seed")))


def _cell_any_budget(cfg):
    """A run's setting without its seed, budget or early stop."""
    return tuple(kv for kv in _cell(cfg) if kv[0] not in ("epochs", "stop_after"))


def stored_costs(folder):
    """From every stored run: ms/epoch per shape (one-thread runs), epochs run per cell, and
    per cell of any budget the grokking epochs (None: never grokked within its budget)."""
    ms, epochs, groks = {}, {}, {}
    if not os.path.isdir(folder):
        return ms, epochs, groks
    for f in os.listdir(folder):
        if f.endswith(".json.gz"):
            s = store.read_summary(os.path.join(folder, f))
            if s.get("threads") == 1 and s.get("ms_per_epoch"):
                ms.setdefault(_shape(s["config"]), []).append(s["ms_per_epoch"])
            epochs.setdefault(_cell(s["config"]), []).append(s["epochs_run"])
            groks.setdefault(_cell_any_budget(s["config"]), []).append(s.get("grok_epoch"))
    return ({k: float(np.median(v)) for k, v in ms.items()}, {k: float(np.median(v)) for k, v in epochs.items()},
            groks)


def expected_epochs(cfg, epochs, groks):
    """The epochs a missing run will likely take: the median its cell's stored runs took; with
    none stored at this budget, from the cell's runs at other budgets, each charged its
    grokking epoch plus the early stop, or the whole budget where it never grokked (it may
    never do so within this budget either: an upper bound, not a guess)."""
    if _cell(cfg) in epochs:
        return epochs[_cell(cfg)]
    seen = groks.get(_cell_any_budget(cfg))
    if not seen or cfg.stop_after is None:
        return cfg.epochs
    return float(np.median([cfg.epochs if g is None else min(g + cfg.stop_after, cfg.epochs) for g in seen]))


def timed_ms_per_epoch(cfg):
    """One thread, two short runs of this shape (the difference removes set-up costs)."""
    def wall(n):
        c = train.make_config(**{**train.semantic_config(cfg), "epochs": n, "stop_after": None})
        c.quiet, c.threads, c.device = True, 1, "cpu"
        return train.train(c)[0]["wall_s"]
    return 1000 * max(wall(30) - wall(15), 1e-3) / 15


def timings_path(args):
    """Where the dry run keeps the ms/epoch it timed for shapes with no stored run, so that the
    README's table is priced without training anything."""
    return os.path.join(args.results_dir, "quick" if args.quick else "", "timings.json")


def epochs_done(runs_dir, key):
    """The epochs a run cut short has behind it: its checkpoint's (runfolder.save_checkpoint), else 0."""
    path = runfolder.checkpoint_path(os.path.join(runs_dir, key))
    return torch.load(path, map_location="cpu")["epoch"] if os.path.exists(path) else 0


def weight_sources(cfgs):
    """{run key: {"final", "init"}} of the runs whose stored weights another of `cfgs` starts
    from (a teacher, a ticket's initial weights, the dense run a mask is cut from). Such a run
    stored without its weights is trained again for them (sweep.run_sweep), so a plan counts it."""
    need = {}
    for c in cfgs:
        for path, kind in ((c.teacher, "final"), (c.init_from, "init"), (c.mask, "final")):
            name = os.path.basename(path or "")
            # named by store.weights_path, or a mask cut from those weights (exp_fig4_tickets.mask_path)
            key = re.sub(rf"\.({'|'.join(store.WEIGHT_KINDS)})\.pt$|\.mask_[^/]*\.pt$", "", name)
            if key != name:
                need.setdefault(key, set()).add(kind)
    return need


def study_plans(names, args, time_missing=True):
    """Per study: {name: (runs, stored, missing, new, hours of the new runs, hours of all its
    runs)}. `new` are the missing runs no earlier study shares (each run is counted once, in
    the first study that asks for it), a run cut short charged only the epochs after its
    checkpoint; `all` prices the study alone, trained from scratch.
    A shape with no stored one-thread run is priced from the timings an earlier dry run saved,
    else timed (time_missing) and saved; with neither, its hours are nan. A saved timing is
    kept, not timed again: a dry run leaves the committed timings.json as it is."""
    folder = args.store or os.path.join(args.results_dir, "quick" if args.quick else "", "store")
    ms, epochs, groks = stored_costs(folder)
    saved = store.read_json(timings_path(args)) if os.path.exists(timings_path(args)) else {}
    timed = {}

    def hours(cfg, done=0):
        shape = _shape(cfg)
        if shape not in ms:
            if " ".join(shape) in saved or not time_missing:
                ms[shape] = saved.get(" ".join(shape), float("nan"))
            else:
                ms[shape] = timed[" ".join(shape)] = timed_ms_per_epoch(cfg)
        expected = expected_epochs(cfg, epochs, groks)
        # a run cut short past its cell's typical length may well run to the budget
        left = expected - done if expected > done else cfg.epochs - done
        return left * ms[shape] / 3.6e6

    seen, out = set(), {}
    for name in names:
        module, sargs = study_args(name, args)
        keys = {store.run_key(cfg): cfg for _, cfg in module.planned_runs(sargs)}
        sources = weight_sources(keys.values())
        # a run held by a stored run of another budget or early stop (store.derived) is not missing
        missing = {k: c for k, c in keys.items()
                   if (not os.path.exists(os.path.join(folder, k + ".json.gz")) and store.derived(folder, c) is None)
                   or any(not os.path.exists(store.weights_path(folder, c, kind)) for kind in sources.get(k, ()))}
        new = {k: c for k, c in missing.items() if k not in seen}      # shared with an earlier study: counted there
        seen |= set(missing)
        out[name] = (len(keys), len(keys) - len(missing), len(missing), len(new),
                     sum(hours(c, epochs_done(sargs.runs_dir, k)) for k, c in new.items()),
                     sum(hours(c) for c in keys.values()))
    if timed:
        store.write_json(timings_path(args), {**saved, **timed})
    return out


def disagreeing_twins(folder, names=None):
    """Pairs of stored runs of one config but for their budget or early stop (twins) whose shared
    logged epochs disagree: trained on two machines, their trajectories differ (float rounding).
    [(name a, name b, the first logged epoch where the training loss differs, grok a, grok b)].
    Each twin serves its own key; a request for a third key is served by `serving_order`, so no
    request depends on which twin a listing returns first (docs/running.md, "Twins"; `--twins` prints them)."""
    names = sorted(n for n in (os.listdir(folder) if names is None else names) if n.endswith(".json.gz"))
    groups = {}
    for n in names:
        m = re.fullmatch(r"(.*_seed\d+_)e\d+(?:_stop\d+)?\.json\.gz", n)
        if m:
            groups.setdefault(m.group(1), []).append(n)
    out = []
    for group in groups.values():
        runs = {n: store.read_file(os.path.join(folder, n)) for n in group} if len(group) > 1 else {}
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                (sa, ha), (sb, hb) = runs[a], runs[b]
                at_b = dict(zip(hb["epoch"], hb["train_loss"]))
                first = next((e for e, v in zip(ha["epoch"], ha["train_loss"]) if e in at_b and at_b[e] != v), None)
                if first is not None:
                    out.append((a[:-8], b[:-8], first, sa["grok_epoch"], sb["grok_epoch"]))
    return out


def write_run_dates(args, log=print):
    """results/run_dates.json (audit/dates.py): every stored run's date from git (or, without history,
    the kept ones), and per registry study {seed: the date of the first of its runs stored}; and the
    choices' table in docs/stats.md. A run served from another budget's (store.derived) takes its date."""
    folder = args.store or os.path.join(args.results_dir, "store")
    git = dates.store_dates()
    runs = git if git is not None else (dates.load(args.results_dir) or {}).get("runs", {})
    by_study, keys = {}, {}
    now = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
    for name in studies.STUDIES:
        module, sargs = study_args(name, args)
        by_seed, keys[name] = {}, set()
        for _, cfg in module.planned_runs(sargs):
            key = store.run_key(cfg)
            if key not in runs and os.path.exists(os.path.join(folder, key + ".json.gz")):
                runs[key] = now                  # stored, not committed yet: stored now, after every choice so far
            if key not in runs:
                served = store.derived(folder, cfg)
                key = served[0]["derived_from"] if served else key
            if key in runs:
                keys[name].add(key)
                by_seed[cfg.seed] = min(by_seed.get(cfg.seed, runs[key]), runs[key])
        by_study[name] = {str(s): d for s, d in sorted(by_seed.items())}
    # the runs two studies of different claims both read (a row of the README's table says so)
    shared = {a: {b: len(keys[a] & keys[b]) for b in studies.STUDIES
                  if studies.STUDIES[b].claim != studies.STUDIES[a].claim and keys[a] & keys[b]} for a in studies.STUDIES}
    store.write_json(os.path.join(args.results_dir, dates.RUN_DATES),
                     {"source": "git: the commit that first added each file of results/store (renames followed); "
                                "a run not committed yet when this was written: the time it was written",
                      "written": now,
                      "runs": dict(sorted(runs.items())), "studies": by_study,
                      "shared": {a: s for a, s in shared.items() if s}})
    log(f"wrote {os.path.join(args.results_dir, dates.RUN_DATES)} ({len(runs)} runs, {len(by_study)} studies)")
    snaps = dates.registered_snapshots()      # each registered study's constants as registered, for a checkout
    if snaps is not None:                     # without history (audit.dates.late_constants)
        store.write_json(os.path.join(args.results_dir, dates.REGISTERED_CONSTANTS), snaps)
        log(f"wrote {os.path.join(args.results_dir, dates.REGISTERED_CONSTANTS)} ({len(snaps)} studies)")


def plan(names, args, log=print):
    """Print, per study, its runs, how many are stored, and the estimated cost of the rest;
    returns the total estimated core-hours of the missing runs (each counted once)."""
    log(f"{'study':22s} {'claim':5s} {'runs':>5s} {'stored':>6s} {'missing':>7s} {'new':>5s} {'core-h':>7s}  command")
    plans = study_plans(names, args)
    for name, (n, stored, missing, new, hours, _) in plans.items():
        log(f"{name:22s} {studies.STUDIES[name].claim:5s} {n:5d} {stored:6d} {missing:7d} {new:5d} {hours:7.1f}  "
            f"{' '.join(study_command(name, args)[:-2])}")
    total = sum(p[4] for p in plans.values())
    shards = sweep.parse_shard(args.shard)[1]          # the plan is every shard's: n run at once
    how = f"--jobs {args.jobs} --threads 1" + (f" in each of {shards} shards" if args.shard else "")
    log(f"total: {sum(p[3] for p in plans.values())} runs to train, about {total:.1f} core-hours "
        f"({total / (max(1, args.jobs) * shards):.1f} h of wall time with {how})")
    return total


def redraw_table(args):
    """docs/running.md's table: per study, its command, how many of its runs the
    store holds (all of them: `--plot-only` redraws it with no training), and what training
    it from scratch would cost (the dry run's estimate, one thread per run)."""
    rows = ["| study | command (add `--plot-only` to redraw, `--jobs 2` to train) | runs stored | "
            "retrain, core-hours |", "|---|---|---|---|"]
    for name, (n, stored, _, _, _, hours) in study_plans(list(studies.STUDIES), args, time_missing=False).items():
        s = studies.STUDIES[name]
        have = "all" if stored == n else f"{stored} of {n}"
        why = report.why_no_summary(args.results_dir, s.summary, link="../results/")
        title = (f"[{s.title}](../results/{s.figure})" if os.path.exists(os.path.join(args.results_dir, s.figure))
                 else f"{s.title} (not drawn: {why})" if why else f"{s.title} (not drawn yet)")
        rows.append(f"| {title} | `python {' '.join(s.command)}` | {have} | "
                    f"{'not timed (run --dry-run)' if hours != hours else f'{hours:.1f}'} |")
    return "\n".join(rows)


# ---------------------------------------------------------------------------------------
# A redraw is a second or two of reading and plotting after seconds of imports (torch,
# matplotlib). Under --plot-only each study therefore runs in a child forked from one process
# that imported them once (multiprocessing's forkserver: a fresh process that has only imported,
# never run threads), as its own command line would run, its output captured: the imports are
# paid once, not once per study. Training, and a platform without a forkserver (Windows), runs
# each study's command as a process.
PRELOAD = ["torch", "numpy", "matplotlib.pyplot", "train", "sweep", "store", "plots", "analysis"]


def _study_as_main(command, out, err):
    """In the forked child (multiprocessing has given it the caller's folder and sys.path):
    `script.py args` or `-m module args` run as __main__ as the interpreter runs them (the
    script's folder, or the current one, first on sys.path), its stdout and stderr in the files
    out and err. multiprocessing flushes both at the end and turns a SystemExit into the exit
    code as the interpreter would (a message: printed, exit code 1)."""
    for fd, path in ((1, out), (2, err)):
        os.dup2(os.open(path, os.O_WRONLY), fd)
    if command[0] == "-m":
        sys.path.insert(0, os.getcwd())
        sys.argv = command[1:]
        runpy.run_module(command[1], run_name="__main__", alter_sys=True)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(command[0])))
        sys.argv = list(command)
        runpy.run_path(command[0], run_name="__main__")


def run_forked(command):
    """A study's command (sys.executable's arguments) in a child of the forkserver: what
    subprocess.run(..., capture_output=True, text=True) would return, as its fields."""
    os.environ["MPLBACKEND"] = "Agg"          # pyplot imported in the forkserver draws to files only
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    with tempfile.TemporaryDirectory() as tmp:
        out, err = os.path.join(tmp, "out"), os.path.join(tmp, "err")
        for path in (out, err):
            open(path, "w").close()
        child = ctx.Process(target=_study_as_main, args=(command, out, err))
        child.start()
        child.join()
        with open(out) as o, open(err) as e:
            return subprocess.CompletedProcess(command, child.exitcode, o.read(), e.read())


def run_study(name, args, results):
    """One study's command, trained or redrawn: (its log lines, its stderr if it failed, whether it
    failed). Under --plot-only what it prints (its tables, its claim's verdict) is kept beside its
    summary. Training streams what the study prints, unless it runs beside another (side_by_side):
    then its lines come back together, under its command line, when it is done."""
    line = [sys.executable] + study_command(name, args) + ["--jobs", str(args.jobs)] + \
        (["--plot-only"] if args.plot_only else []) + (["--store", args.store] if args.store else []) + \
        (["--runs-dir", args.runs_dir] if getattr(args, "runs_dir", "runs") != "runs" else []) + \
        (["--shard", args.shard] if getattr(args, "shard", None) and not args.plot_only else []) + \
        (["--threads", str(args.threads)] if getattr(args, "threads", 0) and not args.plot_only else [])
    header = f"[{name}] {' '.join(line[1:])}"
    captured = args.plot_only or getattr(args, "side_by_side", False)
    if not captured:
        print(header, flush=True)            # training streams its progress under it
    t0 = time.time()
    if captured and "forkserver" in mp.get_all_start_methods():
        done = run_forked(line[1:])
        if done.returncode == 255 and not done.stderr:     # multiprocessing's code for a lost forkserver (seen once
            done = subprocess.run(line, capture_output=True, text=True)      # in a full suite): once more, plainly
    else:
        done = subprocess.run(line, stdout=subprocess.PIPE if captured else None, stderr=subprocess.PIPE, text=True)
    nothing = args.plot_only and "none of the" in done.stderr     # nothing stored yet: files kept
    # the verdicts are never a figure script's: the parts of its claim this study's summary gives,
    # by the rules (audit/), follow what it printed
    beyond = studies.STUDIES[name].command[0] == "-m"      # a beyond-the-paper study prints its own verdicts
    parts = report.study_parts_text(results, name) if done.returncode == 0 and not beyond else ""
    if args.plot_only and done.returncode == 0 and "(runs missing:" not in done.stdout:
        runfolder.atomic_write(printout_path(name, results), lambda f: f.write(done.stdout + parts))
        parts = ""
    status = "done" if done.returncode == 0 else "no run stored yet; its files kept" if nothing \
        else f"FAILED (exit {done.returncode})"
    printed = done.stdout if captured and not args.plot_only else ""
    out = ([header] if captured else []) + [t.rstrip("\n") for t in (printed, parts) if t.strip()] + \
        [f"[{name}] {status} in {time.time() - t0:.0f}s"]
    failed = bool(done.returncode) and not nothing
    return "\n".join(out), done.stderr if failed else "", failed


def study_runs(name, args):
    """(the runs a study may train, a rough cost to order by). Each run by its setting and seed
    whatever its budget (a stored run of another budget or early stop can serve it, store.derived),
    with the runs whose weights its runs start from, and its script: two studies that share one are
    never run at the same time, so no run is trained twice and no file is written by two at once.
    The cost: the planned epochs (a run that groks stops sooner), times the width relative to the
    paper's d = 128, and 5x for two blocks (the first block reads only the query position, a later
    one every position: 45-60 ms an epoch against 11 here)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        module, sargs = study_args(name, args)         # quiet: the study prints its preset when it runs
    cfgs = [c for _, c in module.planned_runs(sargs)]
    # and its script: a script's variants write their --quick figure and summary under one name
    command = studies.STUDIES[name].command
    script = tuple(command[:2]) if command[0] in ("-m", "exp_appendix.py") else command[0]
    return ({(c.seed, _cell_any_budget(c)) for c in cfgs} | set(weight_sources(cfgs)) | {("script", script)},
            sum(c.epochs * (1 + 4 * (c.n_layers - 1)) * max(1.0, c.d_model / 128) for c in cfgs))


def run_side_by_side(names, args, results):
    """--quick: `--jobs` studies at a time, each training its runs one after another on one core. A
    quick study has a few short runs, so one study on two cores would leave one idle while its
    last run ends, and each study's start (imports) would be paid again. The longest first, so that
    no core waits on a long one at the end; a study waits while one that shares a run or a script
    with it is running (study_runs). Returns the names of the studies that failed."""
    one_core = argparse.Namespace(**{**vars(args), "jobs": 1, "threads": 1, "side_by_side": True})
    plans = {n: study_runs(n, args) for n in names}
    runs, cost = {n: p[0] for n, p in plans.items()}, {n: p[1] for n, p in plans.items()}
    waiting, running, failed = sorted(names, key=lambda n: -cost[n]), {}, []
    t0, spent, total = time.time(), 0.0, sum(cost.values()) or 1.0
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        while waiting or running:
            busy = set().union(*(runs[n] for n in running.values()))
            for n in list(waiting):
                if len(running) < max(1, args.jobs) and not runs[n] & busy:
                    waiting.remove(n)
                    busy |= runs[n]
                    running[pool.submit(run_study, n, one_core, results)] = n
            finished, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in finished:
                name = running.pop(future)
                out, err, bad = future.result()
                spent += cost[name]
                elapsed = time.time() - t0
                sys.stderr.write(err)
                print(out + f" ({len(names) - len(waiting) - len(running)}/{len(names)} studies, elapsed {elapsed:.0f}s, "
                      f"ETA {elapsed * (total - spent) / max(spent, 1e-9):.0f}s)", flush=True)
                failed += [name] if bad else []
    return failed


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="every study at its --quick preset")
    p.add_argument("--jobs", type=int, default=1,
                   help="runs trained in parallel by each study; with --quick, studies run at once (one core each)")
    p.add_argument("--only", nargs="+", default=None, help="claims or studies to run, e.g. C1 fig4")
    p.add_argument("--plot-only", action="store_true", help="train nothing; redraw from the store")
    p.add_argument("--report-only", action="store_true", help="only rewrite REPORT.md, the generated blocks and the printouts' verdict lines")
    p.add_argument("--dry-run", action="store_true", help="print the plan and the estimate, run nothing")
    p.add_argument("--dates", action="store_true",
                   help="write results/run_dates.json: every stored run's date, from git")
    p.add_argument("--twins", action="store_true",
                   help="list the stored runs of one config whose shared epochs disagree (docs/running.md, Twins)")
    p.add_argument("--results-dir", default="results")
    p.add_argument("--store", default=None, help="run store (default: <results-dir>/store)")
    p.add_argument("--runs-dir", default="runs", help="where the studies' run folders (checkpoints, weights) go")
    p.add_argument("--shard", default=None,
                   help="i/n: each study trains only its share i of n (one process per core, e.g. --jobs 1 "
                        "--shard 0/2 and --shard 1/2: no core waits for the other's last run of a study)")
    p.add_argument("--threads", type=int, default=0,
                   help="torch threads per run (default: cores / jobs); 1 with --shard, else two "
                        "processes share each core")
    args = p.parse_args(argv)
    if args.threads < 0:
        p.error("--threads must be >= 0")
    if args.shard:
        try:
            sweep.parse_shard(args.shard)
        except ValueError as e:
            p.error(str(e))
    results = os.path.join(args.results_dir, "quick") if args.quick else args.results_dir
    names = selected(args.only)
    if args.dates:
        write_run_dates(args)
        return
    if args.twins:
        for twin in disagreeing_twins(sweep.store_dir(args)):
            print("  ".join(map(str, twin)))
        return
    if args.dry_run:
        plan(names, args)
        return
    failed = []
    if args.quick and not args.plot_only and not args.report_only:
        failed = run_side_by_side(names, args, results)
    elif not args.report_only:
        # a redraw is a few seconds of imports and plotting per study: on every core at once
        workers = (os.cpu_count() or 1) if args.plot_only else 1
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            for name, (out, err, bad) in zip(names, pool.map(lambda name: run_study(name, args, results), names)):
                sys.stderr.write(err)
                print(out, flush=True)
                failed += [name] if bad else []
    os.makedirs(results, exist_ok=True)
    path = os.path.join(results, "REPORT.md")
    text = report.make_report(results).replace(      # the README's fuller table, each part that decides a claim
        "\n## Verdicts that moved", "\n## What decides each claim\n\n" + readme.readme_table(results) + "\n\n## Verdicts that moved", 1)
    with open(path, "w") as f:
        f.write(text)
    print(f"wrote {path}")
    for page in refresh_printouts(results):
        print(f"rewrote the verdict lines of {page}")
    if not args.quick and os.path.abspath(results) == os.path.abspath("results"):
        for page, blocks in (("README.md", None), (os.path.join("docs", "running.md"), {"redraw": redraw_table(args)}),
                             (os.path.join("docs", "registered", "sensitivity.md"), None),
                             (os.path.join("docs", "stats.md"), {"choices": dates.threshold_table()})):
            if readme.update_readme(results, path=page, blocks=blocks):
                print(f"updated the generated blocks of {page}")
    for claim, (verdict, _) in claims.verdicts(results).items():
        print(f"  {claim:4s} {verdict}")
    if failed:       # the report is written from what did run, but a failed study is never a success
        sys.exit(f"reproduce.py: {len(failed)} stud{'y' if len(failed) == 1 else 'ies'} failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()