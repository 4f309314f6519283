"""Beyond the paper, part three re-registered: does the prior's payoff survive in a two-layer
transformer configured as people train them? Registered in docs/registered/deep_trained.md
(2026-11-28) before any of its runs; the first registration (docs/registered/deep.md) stopped
on a pilot that never grokked.

    python -m audit.deep_trained --part gate --jobs 1           # the gate: one lambda 0 run
    python -m audit.deep_trained --part cells --jobs 2          # the cells, once a gate passed
    python -m audit.deep_trained --part cells --plot-only       # judge and draw from the store
    python -m audit.deep_trained --power                        # the registration's power table

The model people train: nanoGPT's pre-LN blocks, two of them, no LayerNorm before the
unembedding, AdamW's weight decay on matrices only (not on LayerNorm gains and shifts or
biases), one head (the fallback: four, the anchor's); everything else the paper's. The prior
(KL to the oracle, lambda 0.3) acts on the first block. Gate: one lambda 0 run at rho 0.003,
seed 300, up to 20,000 epochs, passes if it memorizes and then groks within them. Cells: rho
0.003, lambda 0 against lambda 0.3, seeds 0-5, the budget fixed from the gate (budget_rule).
"""
import argparse
import math
import os

import numpy as np

import plots
import store
import sweep
from audit import deep
from audit import rules as A

LAYERS, LAM, REGIME = 2, 0.3, "refresh0.003"
# the configurations, in the order they are gated (docs/registered/deep_trained.md)
CONFIGS = {"one head": dict(n_layers=LAYERS, layernorm=True, final_layernorm=False, decay_norms=False, n_heads=1),
           "four heads": dict(n_layers=LAYERS, layernorm=True, final_layernorm=False, decay_norms=False, n_heads=4)}
GATE_SEED, GATE_EPOCHS = 300, 20000
SEEDS = tuple(range(6))
PREDICTED_SPEEDUP = 2.65          # the minimal model's payoff at rho 0.003 (regime map, seeds 0-4)
SMALLEST = A.SMALLEST_SPEEDUP
# Set from the passing gate by budget_rule and committed in docs/registered/deep_trained.md
# before the first cell runs; None until then.
PASSED_CONFIG = "one head"       # the gate passed (2026-11-28): t_grok 5,540
BUDGET = 14000                   # budget_rule(5540), committed before the first cell run


def budget_rule(t_gate):
    """The cells' budget from the gate run's t_grok: 2.5x it, rounded up to 1,000 epochs, within
    [10,000, 20,000] (20,000 at most: every run to its budget then costs at most 12.2 core-hours)."""
    return int(min(20000, max(10000, math.ceil(2.5 * t_gate / 1000) * 1000)))


def gate_passes(summary):
    """Memorizes (train accuracy 0.99), then groks (test accuracy 0.99) within the gate's budget."""
    mem, grok = summary["mem_epoch"], summary["grok_epoch"]
    return mem is not None and grok is not None and mem <= grok <= GATE_EPOCHS


def gate_line(label, s):
    return (f"{label}: memorized at {s['mem_epoch']}, grokked at {s['grok_epoch']} (final test accuracy "
            f"{s['final_test_acc']:.3f}): {'passes' if gate_passes(s) else 'fails'}"
            + (f"; the cells' budget by rule: {budget_rule(s['grok_epoch']):,}" if gate_passes(s) else ""))


def config(args, name, seed, lam, epochs):
    return sweep.study_config(args, seed, regime=REGIME, lam=lam, epochs=epochs, **CONFIGS[name])


def gate_runs(args):
    epochs = args.epochs if args.quick else GATE_EPOCHS          # --quick: the small model, the preset's budget
    return [(f"gate {name}", config(args, name, GATE_SEED, 0.0, epochs)) for name in CONFIGS]


def cell_runs(args, name, budget):
    return {arm: [(f"{arm}/seed{s}", config(args, name, s, lam, budget)) for s in args.seeds]
            for arm, lam in (("lambda 0", 0.0), (f"lambda {LAM:g}", LAM))}


def planned_runs(args):
    """The gates until one passes (the fallback only after the first failed, by the store), then
    the cells of the passing configuration once its budget is committed (BUDGET)."""
    if args.part == "gate":
        folder = args.store or store.STORE
        out = []
        for label, cfg in gate_runs(args):
            out.append((label, cfg))
            stored = store.read(folder, cfg)
            if stored is None or gate_passes(stored[0]):
                break                      # not run yet, or passed: no fallback
        return out
    if PASSED_CONFIG is None or BUDGET is None:
        return []
    arms = list(cell_runs(args, PASSED_CONFIG, args.epochs if args.quick else BUDGET).values())
    return [arm[i] for i in range(len(args.seeds)) for arm in arms]      # seed by seed: a cut sweep leaves pairs


# ---------------------------------------------------------------------------------------
# The power of the cells, computed before the runs

def power(reps=2000, seed=0, n=len(SEEDS), sd=0.35):
    """{t_gate: {truth: (P reproduced, P not reproduced)}}: rules v4's speed-up part at n seeds,
    the lambda 0 arm's median taken as the gate's t_grok, per-seed log sd `sd` (the minimal model's
    cells), each run censored at budget_rule(t_gate); truths: the minimal model's payoff (2.65x)
    and none (1x)."""
    rng = np.random.default_rng(seed)
    out = {}
    for t_gate in (3000, 6000, 10000, 15000):
        b = budget_rule(t_gate)
        out[t_gate] = {}
        for truth, ratio in (("payoff 2.65x", PREDICTED_SPEEDUP), ("none", 1.0)):
            hits = [0, 0]
            for _ in range(reps):
                draw = lambda median: {i: (None if v > b else float(v)) for i, v in
                                       enumerate(np.exp(rng.normal(math.log(median), sd, n)))}
                v = A.speedup_verdict_v4(draw(t_gate), draw(t_gate / ratio), b, smallest=SMALLEST)["verdict"]
                hits[0] += v == A.REPRODUCED
                hits[1] += v == A.NOT_REPRODUCED
            out[t_gate][truth] = (hits[0] / reps, hits[1] / reps)
    return out


def power_table(p):
    rows = ["| gate t_grok | cells' budget | payoff 2.65x: reproduced / not | no payoff: reproduced / not |",
            "|---|---|---|---|"]
    for t, r in p.items():
        cell = lambda k: f"{100 * r[k][0]:.0f}% / {100 * r[k][1]:.0f}%"
        rows.append(f"| {t:,} | {budget_rule(t):,} | {cell('payoff 2.65x')} | {cell('none')} |")
    return "\n".join(rows)


# ---------------------------------------------------------------------------------------
# Judging the cells (rules v4's speed-up part), the mechanism on the lambda 0 runs, the figure

def summarize(results, args, gate=None, minimal=None):
    """results/deep_trained.json: the gate, each arm's t_grok per stored seed, the registered
    verdict once every cell run is stored ("not decided" before), the minimal model's payoff in
    the same cell beside it, and the mechanism per block on the lambda 0 runs (described)."""
    arms = cell_runs(args, PASSED_CONFIG, BUDGET)
    grok = {arm: {label.rsplit("seed", 1)[1]: results[label][0]["grok_epoch"] for label, _ in rs if label in results}
            for arm, rs in arms.items()}
    planned = sum(len(rs) for rs in arms.values())
    stored = sum(len(g) for g in grok.values())
    out = {"config": PASSED_CONFIG, "budget": BUDGET, "regime": REGIME, "lam": LAM, "seeds": list(args.seeds),
           "planned_runs": planned, "stored_runs": stored, "grok": grok, "predicted_speedup": PREDICTED_SPEEDUP,
           "gate": None if gate is None else {"seed": GATE_SEED, "mem_epoch": gate["mem_epoch"],
                                              "grok_epoch": gate["grok_epoch"], "passes": gate_passes(gate)}}
    out["speedup"] = (A.speedup_verdict_v4(grok["lambda 0"], grok[f"lambda {LAM:g}"], BUDGET, smallest=SMALLEST)
                      if stored == planned else
                      {"verdict": A.NOT_DECIDED, "n": 0, "reason": f"{stored} of {planned} cell runs stored"})
    if minimal is not None:
        out["minimal"] = minimal
    hists = [results[label][1] for label, _ in arms["lambda 0"] if label in results]
    out["mechanism"] = deep.mechanism_of(hists, BUDGET) if hists else {}
    return out


def minimal_cell(results_dir):
    """The minimal model's payoff in the same cell (rho 0.003, wd 1, seeds 0-4) as audit/deep.py
    judges it, with its runs' t_grok for the figure."""
    path = os.path.join(results_dir, "regime_map.json")
    if not os.path.exists(path):
        return None
    cells = store.read_json(path)["cells"]
    if not all(k in cells for k in ("rho0.003_wd1_lam0", f"rho0.003_wd1_lam{LAM:g}")):
        return None                                  # a map without the cell (the --quick one's rho grid)
    return {"grok": {"lambda 0": cells["rho0.003_wd1_lam0"]["grok"],
                     f"lambda {LAM:g}": cells[f"rho0.003_wd1_lam{LAM:g}"]["grok"]},
            "speedup": deep.minimal_speedups(results_dir)["rho 0.003"]}


def plot(out, path):
    """Each seed's t_grok in both arms, joined by a line (the comparison is paired by seed), the
    two-layer model beside the minimal model in the same cell (a run that never grokked drawn at
    its budget, hollow)."""
    plt = plots.pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.6))
    models = [("two-layer, as people train it", out["grok"], out["budget"])]
    if out.get("minimal"):
        models.insert(0, ("minimal model (regime map)", out["minimal"]["grok"], 10000))
    arms = ("lambda 0", f"lambda {LAM:g}")
    for j, (name, grok, budget) in enumerate(models):
        seeds = sorted({s for arm in arms for s in grok.get(arm, {})}, key=int)
        for i, s in enumerate(seeds):
            pair = []
            for k, arm in enumerate(arms):
                if s in grok.get(arm, {}):
                    t = grok[arm][s]
                    pair.append((2 * j + k + 0.06 * (i - len(seeds) / 2), budget if t is None else t))
                    ax.scatter(*pair[-1], color=f"C{k}", facecolors="none" if t is None else f"C{k}", s=30, zorder=2)
            if len(pair) == 2:
                ax.plot(*zip(*pair), color="gray", lw=0.6, alpha=0.6, zorder=1)
    names = [f"{'minimal' if 'minimal' in name else 'two-layer'}\nlambda {lam}" for name, _, _ in models
             for lam in ("0", f"{LAM:g}")]
    ax.set_xticks(range(len(names)), names)
    ax.set(yscale="log", ylabel="t_grok (hollow: never within the budget; lines: one seed)",
           title=f"rho 0.003: {out['stored_runs']} of {out['planned_runs']} two-layer runs stored; "
                 f"speed-up: {out['speedup']['verdict']}")
    plots.save_figure(fig, path, "Beyond the paper: the two-layer model as people train it "
                                 "(docs/registered/deep_trained.md)")


# ---------------------------------------------------------------------------------------
# The command line

def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--part", choices=("gate", "cells"), default="gate")
    p.add_argument("--power", action="store_true", help="print the cells' power table and exit")
    sweep.add_scale_args(p, dict(p=sweep.QUICK_MODEL["p"], epochs=1500, seeds=[0]))
    sweep.add_sweep_args(p)
    # drawn from whatever is stored (the gate, the cells so far, "not decided" until all are in)
    p.set_defaults(seeds=list(SEEDS), regime=REGIME, partial_ok=True)
    return p


def parse(argv=None):
    return sweep.apply_quick(get_parser().parse_args(argv), dict(p=sweep.QUICK_MODEL["p"], epochs=1500, seeds=[0]))


def main(argv=None):
    args = parse(argv)
    if args.power:
        print(power_table(power()))
        return
    runs = planned_runs(args)
    if not runs:
        print("the cells wait for a gate that passed and their budget (docs/registered/deep_trained.md)")
        return
    minimal = minimal_cell(args.results_dir)       # before the sweep points results_dir at results/partial
    results = sweep.run_sweep(runs, args)
    if args.part == "cells":                       # judge and draw what is stored
        gate = store.read(args.store or store.STORE, gate_runs(args)[0][1])
        out = summarize(results, args, gate and gate[0], minimal)
        print(f"deep_trained: {out['stored_runs']} of {out['planned_runs']} cell runs stored; speed-up "
              + A.describe(out["speedup"], bold=False))
        store.write_json(os.path.join(args.results_dir, "deep_trained.json"), out, digits=6)
        plot(out, os.path.join(args.results_dir, "deep_trained.png"))
        if gate:
            print(gate_line(f"gate {PASSED_CONFIG}", gate[0]))
    for label, _ in runs:
        if label in results and label.startswith("gate"):
            print(gate_line(label, results[label][0]))


if __name__ == "__main__":
    main()