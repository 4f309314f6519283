"""Beyond the paper: does the answer survive outside the minimal model? A two-layer pre-LN
transformer (model_deep.DeepTransformer) on the regime map's headline cells. Registered in
docs/registered/deep.md (2026-11-26) before any of its runs, the pilot's included.

    python -m audit.deep --part pilot --jobs 2           # seed 100: the budget and the cost, by rule
    python -m audit.deep --part grid --jobs 2            # the registered grid (after the pilot)
    python -m audit.deep --plot-only                     # judge and draw from the store

By the registered rule the pilot (neither run grokked within 20,000 epochs) leaves no grid that
fits 12 core-hours: the grid is not run under this registration, and --plot-only redraws the
pilot (results/deep_pilot.json, deep_pilot.png).

The prediction (D1): with the prior on the first block, the speed-up of lambda 0.3 over lambda 0
is reproduced by rules v4 in `fixed` and in rho 0.003, as it was in the minimal model; D2: it is
smaller under `fresh`; D3: the same with the prior on every block (reported, not deciding); and
C1's phases and C5's starvation on the lambda 0 runs.
"""
import argparse
import math
import os

import numpy as np

import analysis
import plots
import store
import sweep
from audit import rules

MODEL = dict(n_layers=2, layernorm=True)
LAM = 0.3
CELLS = (("fixed", "fixed"), ("rho 0.003", "refresh0.003"), ("fresh", "fresh"))
READINGS = {"first": "the prior on the first block (primary)", "all": "the prior on every block (alternative)"}
SEEDS = tuple(range(6))
PILOT_SEED, PILOT_EPOCHS = 100, 20000
PILOT = (("a: lambda 0, fresh", "fresh", 0.0), ("b: lambda 0.3, fixed", "fixed", LAM))
MAX_CORE_HOURS = 12.0
# Set from the pilot by the registered rule (budget_rule, shrink_step), committed in
# docs/registered/deep.md before the first grid run; None until then, and None for good if no
# step fits 12 core-hours (amendment 1: the grid is then not run under this registration).
BUDGET = None
SHRINK_STEP = None
R = rules.RULES["v4"]


# ---------------------------------------------------------------------------------------
# The runs

def config(args, regime, lam, seed, epochs, prior_layer="first"):
    return sweep.study_config(args, seed, regime=regime, lam=lam, epochs=epochs, prior_layer=prior_layer, **MODEL)


def pilot_runs(args):
    """The pilot's two runs (--quick: on the small model at the preset's short budget, a first look)."""
    epochs = args.epochs if args.quick else PILOT_EPOCHS
    return [(f"pilot {name}", config(args, regime, lam, PILOT_SEED, epochs)) for name, regime, lam in PILOT]


def grid_runs(args, budget, step):
    """{(cell, arm): [(label, cfg) per seed]}, arms lambda 0, first, all; shrunk by the registered
    step (amendment 1: 1, the alternative in `fixed` only; 2, none; 3, seeds 0-4; 4, no `fresh`)."""
    seeds = SEEDS[:5] if step >= 3 else SEEDS
    out = {}
    for cell, regime in CELLS:
        if step >= 4 and cell == "fresh":
            continue
        arms = {"lambda 0": (0.0, "first"), "first": (LAM, "first")}
        if step == 0 or (step == 1 and cell == "fixed"):
            arms["all"] = (LAM, "all")
        for arm, (lam, layer) in arms.items():
            out[cell, arm] = [(f"{cell}/{arm}/seed{s}", config(args, regime, lam, s, budget, layer)) for s in seeds]
    return out


def planned_runs(args):
    """The grid's runs; the pilot's until the pilot has set the grid's budget."""
    if args.part == "pilot" or BUDGET is None or SHRINK_STEP is None:
        return pilot_runs(args)
    return [r for rs in grid_runs(args, BUDGET, SHRINK_STEP).values() for r in rs]


# ---------------------------------------------------------------------------------------
# The registered rules that turn the pilot into a budget and a grid

def budget_rule(t_fresh0, t_prior):
    """B = 10,000 if both pilot runs grokked by epoch 5,000, else 20,000."""
    return 10000 if all(t is not None and t <= 5000 for t in (t_fresh0, t_prior)) else 20000


def grid_cost(budget, step, ms_per_epoch, t_fresh0, t_prior):
    """Core-hours of the grid after shrink step `step` (amendment 1's order), each run priced as
    registered: lambda 0 in fixed and rho 0.003 the whole budget, the others 1.5 x the pilot's
    t_grok + 200 (the budget where the pilot's run never grokked)."""
    n = 5 if step >= 3 else len(SEEDS)
    short = lambda t: budget if t is None else min(budget, 1.5 * t + 200)
    cells = 2 if step >= 4 else 3
    n_all = {0: 3, 1: 1}.get(step, 0)                      # cells with the alternative reading
    epochs = n * (2 * budget + (short(t_fresh0) if cells == 3 else 0) + (cells + n_all) * short(t_prior))
    return epochs * ms_per_epoch / 1000 / 3600


def shrink_step(budget, ms_per_epoch, t_fresh0, t_prior, limit=MAX_CORE_HOURS):
    """The first step (0 = the whole grid) whose cost fits the limit; None if none does: then the
    grid is not run under this registration (amendment 1)."""
    return next((s for s in range(5) if grid_cost(budget, s, ms_per_epoch, t_fresh0, t_prior) <= limit), None)


def pilot_plan(results):
    """The pilot's two runs -> their t_grok, the mean ms per epoch, B, the step (None: no step
    fits 12 core-hours) and the grid's cost at every step."""
    a, b = [results[label] for label in sorted(results)]          # pilot a, pilot b: their summaries
    t_a, t_b = a["grok_epoch"], b["grok_epoch"]
    ms = float(np.mean([a["ms_per_epoch"], b["ms_per_epoch"]]))
    budget = budget_rule(t_a, t_b)
    return {"t_grok": {"a": t_a, "b": t_b}, "final_test_acc": {"a": a["final_test_acc"], "b": b["final_test_acc"]},
            "ms_per_epoch": ms, "budget": budget, "step": shrink_step(budget, ms, t_a, t_b),
            "core_hours_by_step": [grid_cost(budget, s, ms, t_a, t_b) for s in range(5)]}


# ---------------------------------------------------------------------------------------
# Judging: D1, D2, D3 and the mechanism on the lambda 0 runs

def times(results, runs):
    return {label.rsplit("seed", 1)[1]: results[label][0]["grok_epoch"] for label, _ in runs if label in results}


def speedups(results, grid, budget, layer):
    """{cell: rules v4's speed-up verdict of lambda 0.3 (prior on `layer`) over lambda 0}."""
    return {cell: R.speedup(times(results, grid[cell, "lambda 0"]), times(results, grid[cell, layer]), budget)
            for cell, _ in CELLS if (cell, layer) in grid}


def judge_d1(sp):
    """Holds if fixed and rho 0.003 are reproduced; fails if either is not; else inconclusive."""
    v = [sp[c]["verdict"] for c in ("fixed", "rho 0.003") if c in sp]
    if len(v) < 2 or rules.NOT_DECIDED in v:
        return rules.NOT_DECIDED
    return "holds" if all(x == rules.REPRODUCED for x in v) else \
        "fails" if rules.NOT_REPRODUCED in v else rules.INCONCLUSIVE


def judge_d2(sp):
    """Holds if fresh's interval lies wholly below both others'; fails if wholly above either."""
    if any(c not in sp or "ci" not in sp[c] for c in ("fixed", "rho 0.003", "fresh")):
        return rules.NOT_DECIDED
    lo, hi = sp["fresh"]["ci"]
    others = [sp[c]["ci"] for c in ("fixed", "rho 0.003")]
    if all(hi < o[0] for o in others):
        return "holds"
    return "fails" if any(lo > o[1] for o in others) else rules.INCONCLUSIVE


def mechanism(results, grid, budget):
    """C1's phases and C5's starvation on the lambda 0 runs, by the rules of those claims."""
    return mechanism_of([results[label][1] for cell, _ in CELLS for label, _ in grid[cell, "lambda 0"]
                         if label in results], budget)


def mechanism_of(hists, budget):
    """C1's phases and C5's starvation on these runs' histories (two blocks), by those claims' rules."""
    marks = [analysis.phase_marks(h) for h in hists]
    out = {"four phases in order (the regime map's criterion, first block)":
           R.property([analysis.meets_regime_criterion(m, budget) for m in marks], "runs in order")}
    for i in range(2):
        mass = [None if m["t_mem"] is None else
                float(np.asarray(h["info_mass_layers"])[np.asarray(h["epoch"]) == m["t_mem"], i][0])
                for h, m in zip(hists, marks)]
        out[f"diffuse attention at memorization, block {i + 1} (informative mass <= {analysis.FOUND_MASS})"] = \
            R.level(mass, 0.0, analysis.FOUND_MASS, "informative mass at t_mem")
    drops = [d for d in (starvation_drop(h, m) for h, m in zip(hists, marks)) if d is not None]
    out["the first block's task gradient ||dL/ds|| falls after memorization"] = R.effect(drops, math.log(2), "before/plateau ratio (per run)",
                                                                                  fmt=lambda x: f"{np.exp(x):.1f}x")
    return out


def starvation_drop(history, m):
    """log(median ||dL/ds|| before memorization / median on the plateau [t_mem, t_struct or t_grok))."""
    if m["t_mem"] is None:
        return None
    ep, g = np.asarray(history["epoch"]), np.asarray(history["grad_s_norm"])
    end = analysis.first_not_none(m["t_struct"], m["t_grok"], int(ep[-1]) + 1)
    before, plateau = g[ep < m["t_mem"]], g[(ep >= m["t_mem"]) & (ep < max(end, m["t_mem"] + 1))]
    if not len(before) or not len(plateau):
        return None
    return float(np.log(np.median(before) / np.median(plateau)))


def minimal_speedups(results_dir):
    """The minimal model's speed-ups in the same cells, seeds 0-4, from the regime map's summary."""
    d = store.read_json(os.path.join(results_dir, "regime_map.json"))
    key = {"fixed": "rho0", "rho 0.003": "rho0.003", "fresh": "rho1"}
    grok = lambda k: {s: t for s, t in d["cells"][k]["grok"].items()}
    return {cell: R.speedup(grok(f"{key[cell]}_wd1_lam0"), grok(f"{key[cell]}_wd1_lam{LAM:g}"), d["budget"])
            for cell, _ in CELLS}


# ---------------------------------------------------------------------------------------
# The command line

def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--part", default="grid", choices=("pilot", "grid"))
    sweep.add_scale_args(p, dict(p=sweep.QUICK_MODEL["p"], epochs=1500, seeds=[0]))
    sweep.add_sweep_args(p)
    p.set_defaults(regime="fresh")
    return p


QUICK = dict(p=sweep.QUICK_MODEL["p"], epochs=1500, seeds=[0])


def parse(argv=None):
    return sweep.apply_quick(get_parser().parse_args(argv), QUICK)


def main(argv=None):
    args = parse(argv)
    if args.part == "pilot" or args.quick:             # --quick: the pilot on the small model
        return pilot(args)
    if BUDGET is None or SHRINK_STEP is None:
        if not args.plot_only:
            raise SystemExit("error: no grid to run: its budget and size are set from the pilot by the registered "
                             "rule (docs/registered/deep.md; python -m audit.deep --part pilot)")
        print("no grid: by the registered rule it is not run (docs/registered/deep.md); the pilot, redrawn:")
        return pilot(args)
    grid = grid_runs(args, BUDGET, SHRINK_STEP)
    results = sweep.run_sweep(planned_runs(args), args)
    budget = BUDGET
    out = {"budget": budget, "step": SHRINK_STEP, "readings": {}}
    for layer in READINGS:
        sp = speedups(results, grid, budget, layer)
        if sp:
            out["readings"][layer] = {"speedups": sp, "D1": judge_d1(sp), "D2": judge_d2(sp)}
    out["mechanism"] = mechanism(results, grid, budget)
    out["minimal"] = minimal_speedups(args.results_dir)
    for layer, r in out["readings"].items():
        print(f"{READINGS[layer]}: D1 {r['D1']}, D2 {r['D2']}")
        for cell, v in r["speedups"].items():
            print(f"  {cell}: {v['verdict']}: {v.get('text', v.get('reason'))}")
    for part, v in out["mechanism"].items():
        print(f"{part}: {v['verdict']}: {v.get('text', v.get('reason'))}")
    store.write_json(os.path.join(args.results_dir, "deep.json"), out, digits=6)
    plot(results, grid, out, os.path.join(args.results_dir, "deep.png"))


def plot_phases(ax, title, h):
    """One run's phases: train and test accuracy, the informative mass of each block, and the
    task gradient to the first block's W_Q^T W_K (right axis, log)."""
    ax.set(title=title, xlabel="epoch", xscale="log", ylim=(0, 1.02))
    ax.plot(h["epoch"], h["test_acc"], color="k", label="test accuracy")
    ax.plot(h["epoch"], h["train_acc"], color="gray", ls=":", label="train accuracy")
    masses = np.asarray(h["info_mass_layers"]).T if "info_mass_layers" in h else [h["info_mass"]]
    for i, m in enumerate(masses):
        ax.plot(h["epoch"], m, color=f"C{i + 1}", label=f"informative mass, block {i + 1}")
    ax.axhline(analysis.FOUND_MASS, color="gray", lw=0.6, ls="--")
    g = ax.twinx()
    g.plot(h["epoch"], h["grad_W_norm"], color="C3", alpha=0.4, lw=0.8)
    g.set(yscale="log", ylabel="task gradient to W_Q^T W_K, block 1 (red)")
    ax.legend(fontsize=7, loc="center left")


def plot_pilot(runs, path):
    """The minimal model's lambda 0 `fresh` run (seed 0) beside the pilot's two runs."""
    plt = plots.pyplot()
    minimal = store.read_file(os.path.join(store.STORE, "add_p113_fresh_seed0_e10000_stop200.json.gz"))[1]
    runs = [("minimal model, lambda 0, fresh, seed 0", minimal)] + list(runs)
    fig, ax = plt.subplots(1, len(runs), figsize=(6 * len(runs), 4.6))
    for a, (title, h) in zip(ax, runs):
        plot_phases(a, title, h)
    plots.save_figure(fig, path, "Beyond the paper: the two-layer LayerNorm pilot (docs/registered/deep.md)")


SHOWN = (0.25, 40)       # the speed-up axis; an interval's open end is drawn at its edge


def pilot(args):
    """Train (or read) the pilot's two runs; write the budget and cost the registered rule gives
    (deep_pilot.json) and their phases beside the minimal model's (deep_pilot.png)."""
    results = sweep.run_sweep(pilot_runs(args), args)
    if len(results) < len(PILOT):
        return
    plan = pilot_plan({k: v[0] for k, v in results.items()})
    print(f"pilot: t_grok (a) {plan['t_grok']['a']}, (b) {plan['t_grok']['b']}; "
          f"{plan['ms_per_epoch']:.0f} ms an epoch -> B = {plan['budget']}, step {plan['step']}; core-hours "
          f"by step: {', '.join(f'{h:.1f}' for h in plan['core_hours_by_step'])}")
    store.write_json(os.path.join(args.results_dir, "deep_pilot.json"), plan, digits=6)
    plot_pilot([(f"two-layer LN, pilot {label[6:]}", results[label][1]) for label, _ in pilot_runs(args)],
               os.path.join(args.results_dir, "deep_pilot.png"))


def plot(results, grid, out, path):
    """Left: the speed-up per regime, both models side by side. Middle and right: one lambda 0
    run of each model (fresh, seed 0): test accuracy and the informative mass per block."""
    plt = plots.pyplot()
    fig, ax = plt.subplots(1, 3, figsize=(16, 4.6))
    x = np.arange(len(CELLS))
    for j, (name, sp) in enumerate((("minimal model, seeds 0-4", out["minimal"]),
                                    *((f"two-layer LN, {READINGS[l]}", r["speedups"])
                                      for l, r in out["readings"].items()))):
        clip = lambda v: min(max(math.exp(v), SHOWN[0]), SHOWN[1])      # an open end drawn at the axis' edge
        est = [clip(sp[c].get("estimate", math.nan)) for c, _ in CELLS]
        lo = [clip(sp[c]["ci"][0]) if "ci" in sp[c] else math.nan for c, _ in CELLS]
        hi = [clip(sp[c]["ci"][1]) if "ci" in sp[c] else math.nan for c, _ in CELLS]
        ax[0].errorbar(x + 0.15 * (j - 1), est, yerr=[np.subtract(est, lo), np.subtract(hi, est)], fmt="o",
                       capsize=3, label=name, color=f"C{j}")
    ax[0].axhline(rules.SMALLEST_SPEEDUP, color="gray", ls="--", lw=0.8, label="smallest that counts (1.25x)")
    ax[0].axhline(1, color="gray", lw=0.6)
    ax[0].set(xticks=x, xticklabels=[c for c, _ in CELLS], yscale="log", ylim=SHOWN, ylabel="speed-up t(0) / t(0.3)",
              title="the prior's payoff per regime")
    ax[0].legend(fontsize=7)
    label = next((lb for lb, _ in grid.get(("fresh", "lambda 0"), []) if lb.endswith("seed0") and lb in results), None)
    minimal = store.read_file(os.path.join(store.STORE, "add_p113_fresh_seed0_e10000_stop200.json.gz"))[1]
    for a, (title, h) in zip(ax[1:], (("minimal model, fresh, lambda 0, seed 0", minimal),
                                      ("two-layer LN, fresh, lambda 0, seed 0", results[label][1] if label else None))):
        if h is not None:
            plot_phases(a, title, h)
    plots.save_figure(fig, path, "Beyond the paper: a two-layer LayerNorm transformer (docs/registered/deep.md)")


if __name__ == "__main__":
    main()