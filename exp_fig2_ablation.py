"""Figure 2: the norm condition x the structural condition (claim C2, Thm. 4.3, §6).

    python exp_fig2_ablation.py               # 4 x 3 grid x seeds 0-4 at paper scale
    python exp_fig2_ablation.py --quick       # small look: the small model, ~90 s
    python exp_fig2_ablation.py --jobs 2 --shard 0/4

Capacity control (rows):
  wd       AdamW weight decay 1.0 (the paper's default)
  none     no weight decay, no norm control
  nm       norm matching: the MLP rescaled to ||theta_mlp||_F = R after every step, wd 0
  nm+qk    norm matching plus the QK penalty 0.5 (||W_Q||^2 + ||W_K||^2), the paper's
           "norm-matched control"
  gnm      (not in the default grid) Omnigrok's variant: *all* parameters rescaled to a
           total norm --global-radius after every step, wd 0; `--capacity gnm` adds it
Structure (columns): no prior | oracle KL prior | adversarial prior (uniform on the
distractor positions), both with strength --lam.

Paper's expectation: adversarial -> chance even under norm matching; oracle without
capacity control -> partial; oracle with capacity control -> full generalization.
R: the MLP norm at which grokked baselines end, measured (docs/registered/sensitivity.md, "Norm-matching radius"), not tuned.
"""
import argparse
import os

import numpy as np

import plots
import store
import sweep

CAPACITY = {"wd": dict(wd=1.0), "none": dict(wd=0.0), "nm": dict(wd=0.0, norm_match=True),
            "nm+qk": dict(wd=0.0, norm_match=True, qk_penalty=0.5),
            "gnm": dict(wd=0.0, global_norm_match=True)}
DEFAULT_ROWS = ["wd", "none", "nm", "nm+qk"]
STRUCTURE = {"no prior": dict(lam=0.0), "oracle": dict(prior="oracle"), "adversarial": dict(prior="adversarial")}
# Median final MLP norm of the lambda = 0 runs that grokked in the regime study
# (results/fig1_regimes.json: distractors fresh, seeds 0-2: 18.78, 18.98, 18.64).
MEASURED_R = 18.8
# Median final total parameter norm of the lambda = 0 fresh Figure 3 runs, seeds 0-4
# (runs/fig3/p113_fresh_lam0_seed*/history.json: 34.21, 34.72, 34.54, 33.25, 36.15).
MEASURED_GLOBAL_R = 34.5
QUICK = dict(p=sweep.QUICK_MODEL["p"], epochs=1500, seeds=[0], capacity=["wd", "nm"])


def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--lam", type=float, default=1.0, help="strength of the oracle / adversarial prior")
    p.add_argument("--radius", type=float, default=MEASURED_R, help="norm-matching radius R for the MLP")
    p.add_argument("--regime", default="fresh", type=sweep.regime_arg, help="distractor regime")
    p.add_argument("--global-radius", type=float, default=MEASURED_GLOBAL_R,
                   help="total-norm radius of the gnm row (all parameters)")
    p.add_argument("--capacity", nargs="+", default=DEFAULT_ROWS, help=f"rows, from {list(CAPACITY)}")
    sweep.add_scale_args(p, QUICK)
    sweep.add_sweep_args(p)
    return p


def run_config(cap, struct, seed, args):
    kw = dict(CAPACITY[cap])
    if kw.pop("norm_match", False):
        kw["norm_match"] = args.radius
    if kw.pop("global_norm_match", False):
        kw["global_norm_match"] = args.global_radius
    kw.update(STRUCTURE[struct])
    if struct != "no prior":
        kw["lam"] = args.lam
    return sweep.study_config(args, seed, **kw)


def run_name(cap, struct, seed, args):
    return f"p{args.p}_{args.regime}_{cap}_{struct.replace(' ', '')}_seed{seed}"


def expectation(cap, struct):
    if struct == "adversarial":
        return "chance"
    if struct == "oracle":
        return "partial" if cap == "none" else "full"
    return "-"


def verdict(accs, chance):
    """Median final test accuracy as chance / partial / full (full = >= 0.99)."""
    m = float(np.median(accs))
    return "full" if m >= 0.99 else ("chance" if m < 3 * chance else "partial")


def parse(argv=None):
    """The flags, with the --quick preset applied."""
    args = sweep.apply_quick(get_parser().parse_args(argv), QUICK)
    bad = [c for c in args.capacity if c not in CAPACITY]
    if bad:
        raise SystemExit(f"error: unknown capacity rows {bad}; choose from {list(CAPACITY)}")
    return args


def planned_runs(args):
    """Every (label, config) this call needs (reproduce.py --dry-run counts them)."""
    return [(run_name(c, s, seed, args), run_config(c, s, seed, args))
            for c in args.capacity for s in STRUCTURE for seed in args.seeds]


def main(argv=None):
    args = parse(argv)
    os.makedirs(args.results_dir, exist_ok=True)
    cells = [(c, s) for c in args.capacity for s in STRUCTURE]
    runs = planned_runs(args)
    try:
        results = sweep.run_sweep(runs, args)
    except ValueError as e:
        raise SystemExit(f"error: {e}")
    chance = 1 / args.p
    grid, disagree = {}, []
    print("\nClaim C2 (paper): adversarial -> chance (even norm-matched); oracle without capacity "
          "control -> partial; oracle with capacity control -> full.")
    print(f"{'capacity':8s} {'structure':12s} {'final test acc per seed':42s} {'median':>7s} "
          f"{'measured':>8s} {'paper':>8s}")
    for c, s in cells:
        accs = [results[n][0]["final_test_acc"] for n in (run_name(c, s, seed, args) for seed in args.seeds)
                if n in results]
        if not accs:
            continue
        v, e = verdict(accs, chance), expectation(c, s)
        grid[f"{c}|{s}"] = {"final_test_acc": accs, "median": float(np.median(accs)), "measured": v,
                            "paper": e, "grok": [results[run_name(c, s, seed, args)][0]["grok_epoch"]
                                                 for seed in args.seeds if run_name(c, s, seed, args) in results]}
        flag = "" if e in ("-", v) else "  <- differs"
        if flag:
            disagree.append(f"{c}/{s}: measured {v}, paper {e}")
        print(f"{c:8s} {s:12s} {str([round(a, 3) for a in accs]):42s} {np.median(accs):7.3f} {v:>8s} {e:>8s}{flag}")
    print("cells whose median class differs from the paper's (descriptive): " + ("; ".join(disagree) if disagree else "none"))
    # the preset's rows (the default, or --quick's) write the file the report reads
    stem = "fig2_ablation" + ("" if args.quick or args.capacity == DEFAULT_ROWS else "_" + "_".join(args.capacity))
    store.write_json(os.path.join(args.results_dir, stem + ".json"),
                     {"grid": grid, "disagree": disagree, "radius": args.radius, "lam": args.lam,
                      "regime": args.regime, "p": args.p, "seeds": args.seeds, "budget": args.epochs,
                      "global_radius": args.global_radius if "gnm" in args.capacity else None})
    plot(results, cells, grid, args, os.path.join(args.results_dir, stem + ".png"))


def plot(results, cells, grid, args, path):
    plt = plots.pyplot()
    caps = list(dict.fromkeys(c for c, _ in cells))
    structs = list(STRUCTURE)
    fig = plt.figure(figsize=(15, 4.8))
    ax0 = fig.add_subplot(1, 3, 1)
    M = np.full((len(caps), len(structs)), np.nan)
    for i, c in enumerate(caps):
        for j, s in enumerate(structs):
            g = grid.get(f"{c}|{s}")
            if g:
                M[i, j] = g["median"]
                spread = f"[{min(g['final_test_acc']):.2f}, {max(g['final_test_acc']):.2f}]"
                ax0.text(j, i, f"{g['median']:.2f}\n{spread}\npaper: {g['paper']}", ha="center", va="center",
                         fontsize=8, color="w" if g["median"] < 0.6 else "k")
    ax0.imshow(M, vmin=0, vmax=1, cmap="viridis")
    ax0.set_xticks(range(len(structs)), structs)
    ax0.set_yticks(range(len(caps)), caps)
    ax0.set_title("final test accuracy: median [min, max]")
    ax1, ax2 = fig.add_subplot(1, 3, 2), fig.add_subplot(1, 3, 3)
    styles = {"wd": "-", "none": ":", "nm": "--", "nm+qk": "-.", "gnm": (0, (5, 1, 1, 1, 1, 1))}
    colors = {"no prior": "C7", "oracle": "C2", "adversarial": "C3"}
    for c, s in cells:
        hists = [results[n][1] for n in (run_name(c, s, seed, args) for seed in args.seeds) if n in results]
        if not hists:
            continue
        grid_e, acc = plots.curves(hists, "test_acc", args.epochs)
        ax1.plot(grid_e, np.median(acc, 0), ls=styles[c], color=colors[s], label=f"{c} / {s}")
        grid_e, mn = plots.curves(hists, "mlp_norm", args.epochs)
        ax2.plot(grid_e, np.median(mn, 0), ls=styles[c], color=colors[s])
    ax1.set(xlabel="epoch", ylabel="test accuracy (median over seeds)", title="test accuracy")
    ax1.legend(fontsize=6, ncol=2)
    ax2.set(xlabel="epoch", ylabel=r"$\|\theta_{mlp}\|_F$", yscale="log", title="MLP norm (line style = capacity)")
    plots.save_figure(fig, path, f"Figure 2: p = {args.p}, distractors {args.regime}, prior lambda = "
                      f"{args.lam:g}, R = {args.radius:g}, seeds {plots.seeds_text(args.seeds)}")


if __name__ == "__main__":
    main()
