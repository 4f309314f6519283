"""Where the paper's story holds: a map over distractor refresh rho, weight decay and lambda
(claims C1, C3 and C11; README "Where the paper's story holds").

    python exp_regime_map.py --jobs 2            # the whole grid, seeds 0-4 (resumes from the store)
    python exp_regime_map.py --part baseline     # only lambda = 0 at wd = 1 over rho
    python exp_regime_map.py --plot-only         # redraw the maps from the committed run data

The grid (paper config everywhere except the axis varied; 10k epochs; stop 200 after grokking):
  baseline  rho in RHOS, wd 1, lambda 0                 the pre-registered criterion's runs
  wd        wd in WDS, rho in WD_RHOS, lambda 0          C11: t_grok against 1/wd, Eq. 5's bound
  lam       rho in RHOS, wd 1, lambda in LAMS > 0        the KL speed-up per regime
rho = 0 is `fixed` distractors, rho = 1 `fresh`, anything between redraws each training
example's distractors with probability rho per epoch.
"""
import argparse
import os

import sweep
import train

RHOS = [0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 1.0]
LAMS = [0.0, 0.03, 0.3]
WDS = [0.5, 1.0, 2.0, 4.0]
WD_RHOS = [0.0, 0.001, 0.003, 0.01, 1.0]
PARTS = ("baseline", "wd", "lam")


def run_name(rho, wd, lam, seed):
    return f"rho{rho:g}_wd{wd:g}_lam{lam:g}_seed{seed}"


def run_config(rho, wd, lam, seed, args):
    distractors = "fixed" if rho == 0 else "fresh" if rho == 1 else "refresh"
    return train.make_config(p=args.p, epochs=args.epochs, stop_after=args.stop_after, seed=seed,
                             distractors=distractors, refresh=rho if distractors == "refresh" else 0.0,
                             wd=wd, lam=lam)


def grid_cells(parts):
    """(rho, wd, lam) cells in training priority: the criterion's baselines first."""
    cells = []
    if "baseline" in parts:
        cells += [(rho, 1.0, 0.0) for rho in RHOS]
    if "wd" in parts:
        cells += [(rho, wd, 0.0) for wd in WDS if wd != 1.0 for rho in WD_RHOS]
    if "lam" in parts:
        cells += [(rho, 1.0, lam) for lam in LAMS if lam > 0 for rho in RHOS]
    return cells


def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--part", nargs="+", default=list(PARTS), choices=PARTS, help="which part of the grid")
    sweep.add_scale_args(p, "none (the map needs the paper's budget)", stop_after=200)
    sweep.add_sweep_args(p, "regime_map")
    return p


def main(argv=None):
    args = get_parser().parse_args(argv)
    if args.quick:
        raise SystemExit("error: the map has no --quick preset; use --part baseline --seeds 0 for a first look")
    cells = grid_cells(args.part)
    runs = [(run_name(*c, s), run_config(*c, s, args)) for c in cells for s in args.seeds]
    try:
        results = sweep.run_sweep(runs, args)
    except ValueError as e:
        raise SystemExit(f"error: {e}")
    for c in cells:
        groks = [results[n][0]["grok_epoch"] if n in results else "-" for n in (run_name(*c, s) for s in args.seeds)]
        print(f"rho {c[0]:g} wd {c[1]:g} lam {c[2]:g}: grok {groks}")


if __name__ == "__main__":
    main()
