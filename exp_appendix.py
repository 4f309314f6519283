"""Appendix studies, one subcommand each.

    python exp_appendix.py bound            # Fig. 5: task gradient to the attention logits vs Lemma 5.1

bound (claim C5, Lemma 5.1, App. D.1): the measured per-example gradient |dl/ds_i| against
L_f sqrt(2 l) a_i ||u_i|| over training, for the baseline and a KL run (seeds 0-4). The runs
are the Figure 3 runs of the same config (same run folders, so nothing is trained twice).
Prints the ratio measured/bound before memorization, on the plateau and after grokking,
and the number of logged points where the bound is violated (must be 0: a violation would
be a bug, not a result).
"""
import argparse
import os

import numpy as np

import exp_fig3_kl
import sweep
import train
from exp_fig1_phases import phase_marks


def bound_parser(sub):
    p = sub.add_parser("bound", help="Fig. 5: measured attention-logit gradient vs the Lemma 5.1 bound",
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--lam", type=float, nargs="+", default=[0.0, 0.1], help="lambdas to show (0 = baseline)")
    p.add_argument("--regime", default="fresh")
    p.add_argument("--p", type=int, default=113)
    p.add_argument("--epochs", type=int, default=10000)
    p.add_argument("--stop-after", type=int, default=200)
    p.add_argument("--quick", action="store_true", help="p = 113, 3000 epochs, seed 0")
    sweep.add_sweep_args(p, "fig3")      # the Figure 3 run folders
    return p


def phase_ratios(history):
    """Median measured/bound ratio (of the per-epoch means) in each phase."""
    ep = np.asarray(history["epoch"])
    ratio = np.asarray(history["lemma_grad"]) / np.maximum(np.asarray(history["lemma_bound"]), 1e-300)
    m = phase_marks(history, rise_acc=0.5)
    t_mem, t_end = m["t_mem"], m["t_struct"] or m["t_grok"]
    windows = {"before memorization": ep < (t_mem if t_mem is not None else np.inf)}
    if t_mem is not None:
        windows["plateau"] = (ep >= t_mem) & (ep < (t_end if t_end is not None else np.inf))
    if m["t_grok"] is not None:
        windows["after grokking"] = ep >= m["t_grok"]
    return {k: float(np.median(ratio[w])) if w.any() else None for k, w in windows.items()}


def run_bound(args):
    if args.quick:
        args.epochs, args.seeds = 3000, [0]
        args.results_dir = os.path.join(args.results_dir, "quick")
    os.makedirs(args.results_dir, exist_ok=True)
    runs = [(exp_fig3_kl.run_name(l, s, args), exp_fig3_kl.run_config(l, s, args)) for l in args.lam for s in args.seeds]
    results = sweep.run_sweep(runs, args)
    print("\nClaim C5 (paper): the measured gradient stays below the Lemma 5.1 bound, far below "
          "it after memorization.")
    print(f"{'run':28s} {'violations':>10s}  median measured/bound: before memorization | plateau | after grokking")
    summary, total_violations = {}, 0
    for name, _ in runs:
        if name not in results:
            continue
        s, h = results[name]
        v = int(sum(h["lemma_violations"]))
        total_violations += v
        r = phase_ratios(h)
        summary[name] = {"violations": v, "max_ratio": float(max(h["lemma_ratio_max"])), **r}
        fmt = lambda x: "-" if x is None else f"{x:.2e}"
        print(f"{name:28s} {v:10d}  {fmt(r.get('before memorization'))} | {fmt(r.get('plateau'))} | "
              f"{fmt(r.get('after grokking'))}   (max per-example ratio {max(h['lemma_ratio_max']):.3f})")
    print(f"bound violated at {total_violations} logged (example, position) points in total")
    train.write_json(os.path.join(args.results_dir, "fig5_bound.json"),
                     {"runs": summary, "total_violations": total_violations})
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(args.lam), figsize=(6 * len(args.lam), 4.5), squeeze=False)
    for ax, lam in zip(axes[0], args.lam):
        hists = [results[n][1] for n in (exp_fig3_kl.run_name(lam, s, args) for s in args.seeds) if n in results]
        if not hists:
            continue
        grid, g = sweep.curves(hists, "lemma_grad", args.epochs)
        sweep.band(ax, grid, g, "measured mean |dl/ds_i|", "C0", log=True)
        grid, b = sweep.curves(hists, "lemma_bound", args.epochs)
        sweep.band(ax, grid, b, r"bound $L_f\sqrt{2\ell}\,a_i\|u_i\|$ (mean)", "C3", log=True)
        ax.set(xlabel="epoch", title=f"lambda = {lam:g}" + (" (baseline)" if lam == 0 else ""))
        ax.legend(fontsize=8)
    sweep.save_figure(fig, os.path.join(args.results_dir, "fig5_bound.png"),
                      f"Figure 5: Lemma 5.1 on the training set, p = {args.p}, distractors {args.regime}, "
                      f"seeds {args.seeds}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="study", required=True)
    bound_parser(sub)
    args = parser.parse_args(argv)
    try:
        {"bound": run_bound}[args.study](args)
    except ValueError as e:
        raise SystemExit(f"error: {e}")


if __name__ == "__main__":
    main()
