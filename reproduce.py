"""Run every figure and appendix study, then write results/REPORT.md: each claim C1-C11 of
the paper (numbered as in the README) with the measured numbers beside the paper's statement and a verdict, generated
from the runs' own summaries (the JSON files the scripts write).

    python reproduce.py --quick --jobs 2      # every study at its --quick preset
    python reproduce.py --jobs 2              # paper scale (hours on a laptop CPU)
    python reproduce.py --report-only         # rewrite REPORT.md from what is in results/
    python reproduce.py --dry-run             # print the plan and the time estimate

Every study caches its runs (runs/<study>/), so an interrupted reproduction resumes where it
stopped. The time estimate is a rough upper bound: it assumes every run trains its whole
budget, while runs that grok stop --stop-after epochs later and cached runs cost nothing.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import report

# (claim, script and subcommand, runs at paper scale, runs at --quick, cost of one epoch
#  relative to the paper config, epochs per run at paper scale / quick)
QUICK_EPOCH_COST = 0.3    # sweep.QUICK_MODEL's epoch against the paper config's (22 vs 75 ms here)
STUDIES = [
    ("C1", ["exp_fig1_phases.py"], 5, 2, 1.0, 10000, 3000),
    ("C2", ["exp_fig2_ablation.py"], 60, 6, 1.0, 10000, 1500),
    ("C3", ["exp_fig3_kl.py"], 40, 3, 1.0, 10000, 3000),
    ("C4", ["exp_fig4_tickets.py"], 25, 5, 1.0, 10000, 1500),
    ("C5", ["exp_appendix.py", "bound"], 10, 2, 1.0, 10000, 2000),
    ("C6", ["exp_appendix.py", "priors"], 35, 7, 1.0, 10000, 1200),
    ("C7", ["exp_appendix.py", "routing"], 10, 2, 1.5, 10000, 1500),
    ("C7", ["exp_appendix.py", "lengths"], 10, 2, 1.4, 10000, 1500),
    ("C8", ["exp_appendix.py", "dims"], 25, 5, 2.5, 10000, 1500),
    ("C8", ["exp_appendix.py", "heads"], 5, 1, 2.0, 10000, 1500),
    ("C9", ["exp_appendix.py", "tasks"], 30, 4, 1.0, 10000, 1500),
    ("C9", ["exp_appendix.py", "autoregressive"], 10, 2, 1.0, 10000, 1500),
    ("C10", ["exp_appendix.py", "frozen"], 15, 3, 1.0, 10000, 1200),
    ("C10", ["exp_appendix.py", "optimizers"], 40, 4, 2.0, 10000, 1500),
    ("C11", ["exp_regime_map.py"], 180, 2, 1.0, 10000, 3000),
    # the held-out confirmation in the cell the map selects (its commands are in regime_map.json)
    ("C3b", None, 45, 0, 1.0, 10000, 0),
]


def held_out_commands(results):
    """The regime map's held-out confirmation commands, [] before a cell is selected."""
    path = os.path.join(results, "regime_map.json")
    selection = json.load(open(path)).get("selection") if os.path.exists(path) else None
    return selection["commands"] if selection else []


# ---------------------------------------------------------------------------------------
# Running the studies

def ms_per_epoch(threads):
    """Two short runs of the paper config (the difference removes set-up costs), with the
    threads each of --jobs workers gets: the clock the estimate uses."""
    import train
    wall = lambda n: train.train(train.make_config(epochs=n, quiet=True, threads=threads))[0]["wall_s"]
    return 1000 * max(wall(40) - wall(20), 1e-3) / 20


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="every study at its --quick preset")
    p.add_argument("--jobs", type=int, default=1, help="runs trained in parallel by each study")
    p.add_argument("--only", nargs="+", default=None, help="claims to run, e.g. C1 C3")
    p.add_argument("--report-only", action="store_true", help="only rewrite REPORT.md")
    p.add_argument("--dry-run", action="store_true", help="print the plan and the estimate, run nothing")
    p.add_argument("--results-dir", default="results")
    args = p.parse_args(argv)
    results = os.path.join(args.results_dir, "quick") if args.quick else args.results_dir
    if args.only and not set(args.only) <= set(report.PAPER):
        raise SystemExit(f"error: --only takes claims among {', '.join(report.PAPER)}")
    steps = [s for s in STUDIES if not args.only or s[0] in args.only]
    if not args.report_only:
        ms = ms_per_epoch(max(1, (os.cpu_count() or 1) // max(1, args.jobs)))
        total = sum(runs * cost * (QUICK_EPOCH_COST * q_ep if args.quick else ep) for _, _, n, q, cost, ep, q_ep in steps
                    for runs in [q if args.quick else n]) * ms / 1000 / max(1, args.jobs)
        print(f"{len(steps)} studies; the paper config trains at {ms:.0f} ms/epoch here; estimated at most "
              f"{total / 3600:.1f} h with --jobs {args.jobs} (runs that grok stop early; cached runs are free)")
        for claim, cmd, *_ in steps:
            cmds = [cmd] if cmd is not None else held_out_commands(results)
            if not cmds:
                print(f"[{claim}] skipped: the regime map has selected no cell yet (it waits for five seeds in every lambda = 0 cell)")
            for cmd in cmds:
                line = [sys.executable] + cmd + (["--quick"] if args.quick else []) + \
                    ["--jobs", str(args.jobs), "--results-dir", args.results_dir]
                print(f"[{claim}] {' '.join(line[1:])}", flush=True)
                if not args.dry_run:
                    t0 = time.time()
                    rc = subprocess.call(line)
                    print(f"[{claim}] {'done' if rc == 0 else f'FAILED (exit {rc})'} in {time.time() - t0:.0f}s", flush=True)
    if not args.dry_run:
        os.makedirs(results, exist_ok=True)
        path = os.path.join(results, "REPORT.md")
        with open(path, "w") as f:
            f.write(report.make_report(results))
        print(f"wrote {path}")
        if not args.quick and os.path.abspath(results) == os.path.abspath("results") and report.update_readme(results):
            print("updated the verdict table in README.md")
        for claim, (verdict, _) in report.verdicts(results).items():
            print(f"  {claim:4s} {verdict}")


if __name__ == "__main__":
    main()
