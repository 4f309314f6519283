"""Figure 4: the Bayesian ticket against lottery-ticket transfer (claim C4, §4.3, §6, App. G).

    python exp_fig4_tickets.py               # 5 arms x seeds 0-4 at paper scale
    python exp_fig4_tickets.py --quick              # the small model, seed 0, ~110 s
    python exp_fig4_tickets.py --arms dense lottery bayes --seeds 0 ... 79   # only what C4 compares

Arms, per seed s (same data split for all):
  dense    the baseline: lambda = 0, trained the full budget (no early stop); its initial
           and final weights are the ticket's source
  lottery  Minegishi et al. ("Grokking Tickets", arXiv 2310.19470): global magnitude pruning
           of the dense run's final weight matrices to --keep-frac of their entries (their
           code calls this fraction "sparsity"), kept entries rewound to the dense run's
           initial values, retrained with the mask re-applied after every step
  random   a random mask of the same kept fraction on the same initialisation (control)
  bayes    the Bayesian ticket: a fresh initialisation (init seed s + 1000), dense, constant
           KL prior toward the oracle with strength --lam
  both     the lottery ticket plus the KL prior
Pruned matrices: W_Q, W_K, W_V, W_O, W_in, W_out, W_U (not the embeddings, not biases).
Claim: the Bayesian ticket groks as early as the lottery ticket or earlier, on every seed.
"""
import argparse
import os

import numpy as np
import torch

import extend
import plots
import store
import sweep

PRUNABLE = ("W_Q", "W_K", "W_V", "W_O", "W_in", "W_out", "W_U")
ARMS = ("dense", "lottery", "random", "bayes", "both")
QUICK = dict(p=sweep.QUICK_MODEL["p"], epochs=1500, seeds=[0])


def magnitude_masks(state, keep_frac, names=PRUNABLE):
    """Global magnitude pruning: keep exactly round(keep_frac * N) largest |w| over `names`."""
    flat = torch.cat([state[n].abs().flatten() for n in names])
    keep = torch.zeros(flat.numel(), dtype=torch.bool)
    keep[flat.topk(round(keep_frac * flat.numel())).indices] = True
    return _split(keep, state, names)


def random_masks(state, keep_frac, seed, names=PRUNABLE):
    """The same number of kept entries, chosen uniformly at random over the same matrices."""
    n = sum(state[k].numel() for k in names)
    keep = torch.zeros(n, dtype=torch.bool)
    keep[torch.randperm(n, generator=torch.Generator().manual_seed(seed))[:round(keep_frac * n)]] = True
    return _split(keep, state, names)


def _split(keep, state, names):
    masks, i = {}, 0
    for k in names:
        masks[k] = keep[i:i + state[k].numel()].view_as(state[k]).float()
        i += state[k].numel()
    return masks


def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--keep-frac", type=float, default=0.4,
                   help="fraction of the pruned matrices' entries KEPT (Minegishi's 'sparsity' flag)")
    p.add_argument("--lam", type=float, default=0.1, help="KL strength of the Bayesian ticket and 'both'")
    p.add_argument("--retrain-wd", type=float, default=1.0,
                   help="weight decay when retraining tickets (docs/registered/sensitivity.md: why 1.0, not Minegishi's 0)")
    p.add_argument("--regime", default="fresh", type=sweep.regime_arg)
    p.add_argument("--arms", nargs="+", choices=ARMS, default=list(ARMS),
                   help="the arms to train and draw (a pruned ticket brings its dense run)")
    extend.add_extend_arg(p)           # the tickets' (the dense run is their source, not compared)
    sweep.add_scale_args(p, QUICK)
    sweep.add_sweep_args(p)
    return p


def parse(argv=None):
    """The flags, with the --quick preset applied."""
    args = sweep.apply_quick(get_parser().parse_args(argv), QUICK)
    if not 0 < args.keep_frac <= 1:
        raise SystemExit(f"error: --keep-frac must lie in (0, 1], got {args.keep_frac}")
    # a pruned ticket starts from its dense run's weights: that run comes with it (from the store
    # if it is there), as exp_appendix.py priors brings the baseline its teacher needs
    need_dense = any(a in args.arms for a in ("lottery", "random", "both"))
    args.arms = [a for a in ARMS if a in args.arms or (a == "dense" and need_dense)]   # the figure's order
    return args


def run_label(arm, s, args):
    return f"p{args.p}_{args.regime}_{arm}_seed{s}"


def dense_config(s, args):
    """The dense run of seed s, full budget: the source of every ticket."""
    return sweep.study_config(args, s, stop_after=None)


def mask_path(s, kind, args):
    """Where seed s's mask is cut to (derived from the stored dense weights, not stored)."""
    return os.path.join(args.runs_dir, "masks", f"{store.run_key(dense_config(s, args))}.mask_{kind}_keep{args.keep_frac:g}.pt")


def ticket_runs(s, args):
    """The arms of seed s other than the dense run, those --arms asks for: (label, config)."""
    init = store.weights_path(sweep.store_dir(args), dense_config(s, args), "init")
    ticket = lambda kind, **kw: sweep.study_config(args, s, init_from=init, mask=mask_path(s, kind, args),
                                                  wd=args.retrain_wd, **kw)
    arms = {"lottery": ticket("lottery"), "both": ticket("lottery", lam=args.lam), "random": ticket("random"),
            "bayes": sweep.study_config(args, s, init_seed=s + 1000, lam=args.lam)}
    return [(run_label(arm, s, args), cfg) for arm, cfg in arms.items() if arm in args.arms]


def dense_runs(args):
    """The dense run of every seed, if --arms asks for it: (label, config)."""
    return [(run_label("dense", s, args), dense_config(s, args)) for s in args.seeds if "dense" in args.arms]


def planned_runs(args):
    """Every (label, config) this call needs (reproduce.py --dry-run counts them), with the
    extensions of its stored tickets that never grokked, under --extend."""
    tickets = [r for s in args.seeds for r in ticket_runs(s, args)]
    return dense_runs(args) + tickets + extend.extension_runs(tickets, args)


def main(argv=None):
    args = parse(argv)
    os.makedirs(args.results_dir, exist_ok=True)
    try:
        # 1. the dense runs; the store keeps their initial and final weights, so a clone trains
        # the ticket arms without retraining them
        dense = dense_runs(args)
        results = sweep.run_sweep(dense, args, weights=[label for label, _ in dense])
        # 2. masks from each dense run's final weights, then the other arms asked for
        runs, folder = [], sweep.store_dir(args)
        for s in args.seeds:
            final = store.weights_path(folder, dense_config(s, args), "final")
            have_weights = os.path.exists(final)
            for kind in ("lottery", "random"):
                path = mask_path(s, kind, args)
                if have_weights and not os.path.exists(path):
                    weights = torch.load(final)
                    store.atomic_write(path, lambda f: torch.save(
                        magnitude_masks(weights, args.keep_frac) if kind == "lottery"
                        else random_masks(weights, args.keep_frac, seed=s), f), mode="wb")
            for label, cfg in ticket_runs(s, args):
                if cfg.mask is None or have_weights or args.plot_only or sweep.is_stored(args, cfg):
                    runs.append((label, cfg))
                else:
                    print(f"note: seed {s}: no dense weights in {folder}, so {label} cannot be trained here")
        tickets, budgets, elsewhere, continued = extend.run_extended(runs, args)
        results.update(tickets)
    except ValueError as e:
        raise SystemExit(f"error: {e}")

    name = lambda arm, s: run_label(arm, s, args)
    grok = {arm: {s: (results[name(arm, s)][0]["grok_epoch"] if name(arm, s) in results else "missing")
                  for s in args.seeds} for arm in args.arms}
    print(f"\nClaim C4 (paper): the Bayesian ticket (fresh init + KL, lambda = {args.lam:g}) matches or "
          f"beats the lottery ticket (keep {args.keep_frac:g}, rewound, retrain wd {args.retrain_wd:g}).")
    print(f"{'seed':>4s} " + " ".join(f"{a:>9s}" for a in args.arms))
    for s in args.seeds:
        print(f"{s:4d} " + " ".join(f"{str(grok[a][s] if grok[a][s] is not None else 'never'):>9s}" for a in args.arms))
    # some arms only: a figure of its own, never drawn over the five arms' figure at these seeds
    stem = "fig4_tickets" + sweep.output_seeds_tag(args) + ("" if args.arms == list(ARMS) else "_" + "-".join(args.arms)) \
        + (f"_ext{args.extend}" if args.extend else "")
    tickets = [a for a in args.arms if a != "dense"]
    extended = extend.budget_table(budgets, args, tickets, name, elsewhere)    # {} without --extend
    if extended:                                            # keyed by seed, as "grok" is
        extended["budgets"] = {a: dict(zip(map(str, args.seeds), v)) for a, v in extended["budgets"].items()}
    store.write_json(os.path.join(args.results_dir, stem + ".json"),
                     {"grok": {a: {str(s): g for s, g in v.items()} for a, v in grok.items()},
                      "keep_frac": args.keep_frac, "lam": args.lam, "retrain_wd": args.retrain_wd,
                      "budget": args.epochs, "p": args.p, "regime": args.regime, "seeds": args.seeds, **extended})
    plot(results, grok, name, args, os.path.join(args.results_dir, stem + ".png"), budgets,
         extend.extended_text(budgets, args, elsewhere, continued))     # "" without --extend


def plot(results, grok, name, args, path, budgets=None, note=""):
    """budgets: {run name: the epochs it was censored at}, where --extend trained runs longer:
    the curves stay within the study's budget, the grokking epochs show the extended runs'."""
    budget = lambda arm, s: (budgets or {}).get(name(arm, s), args.epochs)
    top = max([args.epochs] + list((budgets or {}).values()))
    plt = plots.pyplot()
    fig, (a0, a1) = plt.subplots(1, 2, figsize=(12, 4.5))
    for j, arm in enumerate(args.arms):
        i = ARMS.index(arm)                                   # an arm keeps its colour whichever are drawn
        hists = [results[name(arm, s)][1] for s in args.seeds if name(arm, s) in results]
        if hists:
            grid, acc = plots.curves(hists, "test_acc", args.epochs)
            plots.band(a0, grid, acc, arm, f"C{i}")
        ys = [(g, budget(arm, s)) for s, g in grok[arm].items() if g != "missing"]
        xs = j + np.linspace(-0.15, 0.15, max(1, len(ys)))
        for x, (g, b) in zip(xs, ys):
            a1.scatter(x, b if g is None else g, color=f"C{i}",
                       marker="^" if g is None else "o", facecolors="none" if g is None else f"C{i}")
    a0.set(xlabel="epoch", ylabel="test accuracy", title="test accuracy (median, min-max over seeds)")
    a0.legend(fontsize=8)
    for b in sorted({args.epochs, top}):
        a1.axhline(b, color="gray", ls=":", lw=1)
    a1.set_xticks(range(len(args.arms)), args.arms)
    a1.set(ylabel="grokking epoch (triangle: never, at the budget)", title="grokking epoch per seed")
    plots.save_figure(fig, path,
                      f"Figure 4: p = {args.p}, distractors {args.regime}, keep {args.keep_frac:g}, "
                      f"lambda {args.lam:g}, retrain wd {args.retrain_wd:g}" + note)


if __name__ == "__main__":
    main()
