"""Figure 1: the four phases of grokking (claim C1, paper §5.1 and §6).

    python exp_fig1_phases.py                 # paper scale, seeds 0-4 (runs shared through the store)
    python exp_fig1_phases.py --quick         # a small look: the small model, 2 seeds, ~30 s
    python exp_fig1_phases.py --regime-study  # lambda = 0 under every distractor regime

Claim: memorization with diffuse attention; a plateau where the task gradient to the
attention interaction matrix collapses and the MLP norm decays; attention moves to the
oracle; then test accuracy rises. Attention condenses *before* test accuracy rises.

Phase marks per seed (analysis.phase_marks, from the logged history): t_mem, t_resurge,
t_struct, t_rise (--rise-acc), t_grok. Also printed: the informative mass at t_mem (how far attention had moved during
memorization; uniform is 1/T = 0.2) and the test accuracy at t_struct.
"Condensed before test accuracy rose" means t_struct <= t_rise.
"""
import argparse
import os

import numpy as np

import plots
import store
import sweep
from analysis import meets_regime_criterion, phase_marks

# the regimes of --regime-study: the two ends and three redraw rates between them
REGIME_STUDY = ("fixed", "fresh", "refresh0.01", "refresh0.003", "refresh0.001")
# the quick look: the small model of sweep.QUICK_MODEL, one seed, 3,000 epochs
QUICK = dict(p=sweep.QUICK_MODEL["p"], epochs=3000, seeds=[0])


def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--regime", default="fresh", type=sweep.regime_arg,
                   help="distractor regime of the figure (docs/registered/regime_map.md: how it was chosen)")
    p.add_argument("--lam", type=float, default=0.0, help="KL prior strength (0 = the paper's baseline)")
    p.add_argument("--wd", type=float, default=1.0, help="weight decay (a cell of the regime map)")
    p.add_argument("--rise-acc", type=float, default=0.5, help="test accuracy that marks 'accuracy rose'")
    p.add_argument("--regime-study", action="store_true",
                   help="run lambda = 0 under every regime and print the selection table")
    sweep.add_scale_args(p, QUICK)
    sweep.add_sweep_args(p)
    return p


def run_name(regime, lam, seed, args):
    return f"p{args.p}_{regime}" + ("" if args.wd == 1.0 else f"_wd{args.wd:g}") + f"_lam{lam:g}_seed{seed}"


def run_config(regime, lam, seed, args):
    return sweep.study_config(args, seed, regime=regime, lam=lam, wd=args.wd)


def fmt(v):
    return "-" if v is None else (f"{v:.3g}" if isinstance(v, float) else str(v))


def print_marks(rows, budget):
    cols = ("t_mem", "mass_at_mem", "t_resurge", "t_struct", "acc_at_struct", "t_rise", "t_grok",
            "grad_collapse")
    print(f"{'run':28s} " + " ".join(f"{c:>13s}" for c in cols) + "  struct<=rise  criterion")
    for name, m in rows:
        before = m["t_struct"] is not None and (m["t_rise"] is None or m["t_struct"] <= m["t_rise"])
        print(f"{name:28s} " + " ".join(f"{fmt(m[c]):>13s}" for c in cols)
              + f"  {str(before):>11s}  {meets_regime_criterion(m, budget)}")


def plot(results, names, title, path, args):
    plt = plots.pyplot()
    hists = [results[n][1] for n in names if n in results]
    marks = [phase_marks(h, args.rise_acc) for h in hists]
    fig, ax = plt.subplots(2, 2, figsize=(11, 7.5), sharex=True)
    E = args.epochs
    grid, acc = plots.curves(hists, "test_acc", E)
    plots.band(ax[0, 0], grid, acc, "test accuracy", "C0")
    plots.band(ax[0, 0], grid, plots.curves(hists, "train_acc", E)[1], "train accuracy", "C7")
    ax[0, 0].set_ylabel("accuracy")
    twin = ax[0, 0].twinx()
    plots.band(twin, grid, plots.curves(hists, "struct_div", E)[1], "D(t) = KL(q*||a)", "C3")
    twin.set_ylabel("structural divergence D(t)", color="C3")
    ax[0, 0].legend(loc="center right", fontsize=8)
    ax[0, 0].set_title("test accuracy and structural divergence")
    plots.band(ax[0, 1], grid, plots.curves(hists, "grad_W_norm", E)[1], None, "C2", log=True)
    ax[0, 1].set_title(r"task gradient $\|\partial L_{task}/\partial W\|_F$, $W=W_Q^TW_K$")
    plots.band(ax[1, 0], grid, plots.curves(hists, "mlp_norm", E)[1], None, "C4")
    ax[1, 0].set_title(r"MLP norm $\|\theta_{mlp}\|_F$")
    plots.band(ax[1, 1], grid, plots.curves(hists, "info_mass", E)[1], r"informative mass $\min_{i\in S} a_i$", "C1")
    plots.band(ax[1, 1], grid, plots.curves(hists, "frac_struct", E)[1], r"fraction with $B_\tau$", "C5")
    ax[1, 1].axhline(0.5, color="k", lw=0.5, ls=":")
    ax[1, 1].legend(fontsize=8)
    ax[1, 1].set_title("attention on the informative positions (test set)")
    styles = {"t_mem": ("k", "--"), "t_struct": ("C1", "-."), "t_grok": ("C0", ":")}
    for a in ax.flat:
        for key, (c, ls) in styles.items():
            vals = [m[key] for m in marks if m[key] is not None]
            if vals:
                a.axvline(np.median(vals), color=c, ls=ls, lw=1, label=None)
    for a in ax[1]:
        a.set_xlabel("epoch")
    plots.save_figure(fig, path, f"{title}\nlines: median t_mem (black --), t_struct (orange -.), "
                      f"t_grok (blue :); median and min-max over {len(hists)} seeds; a run stopped "
                      f"{args.stop_after} epochs after grokking holds its last value")


def parse(argv=None):
    """The flags, with the --quick preset applied."""
    return sweep.apply_quick(get_parser().parse_args(argv), QUICK)


def planned_runs(args):
    """Every (label, config) this call needs (reproduce.py --dry-run counts them)."""
    regimes, lams = (list(REGIME_STUDY), [0.0]) if args.regime_study else ([args.regime], [args.lam])
    return [(run_name(r, lam, s, args), run_config(r, lam, s, args)) for r in regimes for lam in lams for s in args.seeds]


def main(argv=None):
    args = parse(argv)
    os.makedirs(args.results_dir, exist_ok=True)
    regimes = list(REGIME_STUDY) if args.regime_study else [args.regime]
    runs = planned_runs(args)
    try:
        results = sweep.run_sweep(runs, args)
    except ValueError as e:
        raise SystemExit(f"error: {e}")
    rows = [(n, phase_marks(results[n][1], args.rise_acc)) for n, _ in runs if n in results]
    print("\nClaim C1 (paper): memorize -> attention gradient collapses -> attention condenses "
          "-> test accuracy rises; t_mem < t_struct <= t_rise <= t_grok.")
    print_marks(rows, args.epochs)
    stem = "fig1_regimes" if args.regime_study else \
        f"fig1_{args.regime}" + ("" if args.wd == 1.0 else f"_wd{args.wd:g}") + f"_lam{args.lam:g}" \
        + sweep.output_seeds_tag(args)
    summary = {"rows": {n: m for n, m in rows}, "budget": args.epochs, "rise_acc": args.rise_acc,
               "summaries": {n: results[n][0] for n, _ in runs if n in results}}
    if args.regime_study:
        summary["per_regime"] = {}
        print("\nper regime (seeds meeting the criterion):")
        for r in regimes:
            ms = [m for n, m in rows if f"_{r}_" in n]
            ok = sum(meets_regime_criterion(m, args.epochs) for m in ms)
            groks = [m["t_grok"] for m in ms]
            summary["per_regime"][r] = {"meets": ok, "n": len(ms), "grok": groks}
            print(f"  {r:14s} {ok}/{len(ms)} meet it; grok epochs {groks}")
        for r in regimes:
            names = [n for n, _ in runs if f"_{r}_" in n]
            plot(results, names, f"lambda = 0, distractors {r}, p = {args.p}",
                 os.path.join(args.results_dir, f"fig1_regime_{r}.png"), args)
    else:
        plot(results, [n for n, _ in runs], f"Figure 1: distractors {args.regime}, lambda = {args.lam:g}, "
             f"p = {args.p}", os.path.join(args.results_dir, stem + ".png"), args)
        n_ok = sum(meets_regime_criterion(m, args.epochs) for _, m in rows)
        print(f"\n{n_ok}/{len(rows)} seeds show the four phases in the paper's order within {args.epochs} epochs")
    store.write_json(os.path.join(args.results_dir, stem + ".json"), summary)


if __name__ == "__main__":
    main()
