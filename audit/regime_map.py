"""Where the paper's story holds: a map over distractor refresh rho, weight decay and lambda
(claims C1, C3 and C11; docs/registered/regime_map.md).

    python -m audit.regime_map --jobs 2             # the whole grid, seeds 0-4 (resumes from the store)
    python -m audit.regime_map --part baseline      # only lambda = 0 at wd = 1 over rho
    python -m audit.regime_map --plot-only          # redraw the maps from the committed run data
    python -m audit.regime_map --quick              # fixed vs fresh at lambda 0, the small model, seed 0, ~70 s

The grid (paper config everywhere except the axis varied; 10k epochs; stop 200 after grokking):
  baseline  rho in RHOS, wd 1, lambda 0                 the pre-registered criterion's runs
  wd        wd in WDS, rho in WD_RHOS, lambda 0          C11: t_grok against 1/wd, Eq. 5's bound
  lam       rho in RHOS, wd 1, lambda in LAMS > 0        the KL speed-up per regime
rho = 0 is `fixed` distractors, rho = 1 `fresh`, anything between redraws each training
example's distractors with probability rho per epoch.
"""
import argparse
import math
import os

import numpy as np

import analysis
from audit import rules
import plots
from audit import claims
import store
import sweep

RHOS = [0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 1.0]
LAMS = [0.0, 0.03, 0.3]
WDS = [0.5, 1.0, 2.0, 4.0]
WD_RHOS = [0.0, 0.001, 0.003, 0.01, 1.0]
PARTS = ("baseline", "wd", "lam")
HELD_OUT_SEEDS = [5, 6, 7, 8, 9]       # the confirmation's seeds: the selection never sees them
# A first look (240 s on this project's 2-core machine): the two ends of the map at lambda = 0,
# one seed. Under `fixed` attention memorizes through the distractors (mass at t_mem below
# uniform) and never groks; under `fresh` it is already on the operands at memorization and groks.
QUICK = dict(p=sweep.QUICK_MODEL["p"], rhos=[0.0, 1.0], seeds=[0], epochs=2000, part=["baseline"])


def rho_label(rho):
    """How tables and figures name a refresh rate: fixed, fresh, or rho <value>."""
    return "fixed" if rho == 0 else "fresh" if rho == 1 else f"rho {rho:g}"


def run_name(rho, wd, lam, seed):
    return f"rho{rho:g}_wd{wd:g}_lam{lam:g}_seed{seed}"


def run_config(rho, wd, lam, seed, args):
    return sweep.study_config(args, seed, regime=sweep.regime_name(rho), wd=wd, lam=lam)


def grid_cells(parts, rhos=RHOS, wds=WDS):
    """(rho, wd, lam) cells in training priority: the criterion's baselines first."""
    cells = []
    if "baseline" in parts:
        cells += [(rho, 1.0, 0.0) for rho in rhos]
    if "wd" in parts:   # strongest decay first: shorter runs, so more cells fill per hour
        cells += [(rho, wd, 0.0) for wd in sorted(wds, reverse=True) if wd != 1.0 for rho in WD_RHOS if rho in rhos]
    if "lam" in parts:
        cells += [(rho, 1.0, lam) for lam in LAMS if lam > 0 for rho in RHOS]
    return cells


def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--part", nargs="+", default=list(PARTS), choices=PARTS, help="which part of the grid")
    sweep.add_scale_args(p, QUICK)
    sweep.add_sweep_args(p)
    # the map is drawn from whatever part of the grid is stored (its cells show n): a redraw
    # from part of the runs replaces the committed map (other studies' go to results/partial/)
    p.set_defaults(partial_ok=True)
    p.add_argument("--rhos", type=float, nargs="+", default=None,
                   help=f"refresh rates to run (default: all, {RHOS}); with other seeds or another budget "
                        "the summary is a variant of its own, regime_map_<rhos>_<seeds>_e<budget>.json")
    p.add_argument("--wds", type=float, nargs="+", default=None,
                   help=f"the weight-decay part's values (default: all, {WDS}); fewer make a variant, "
                        "regime_map_<rhos>_<seeds>_e<budget>_wds<values>.json")
    return p


# ---------------------------------------------------------------------------------------
# Analysis: per cell, the baseline criterion (docs/registered/regime_map.md), the KL speed-up, and C11

def analyse(results, cells, seeds, budget):
    """{cell key: statistics} for every (rho, wd, lam) cell with runs, and the C11 parts."""
    out = {}
    for rho, wd, lam in cells:
        names = {s: run_name(rho, wd, lam, s) for s in seeds}
        runs = {s: results[n] for s, n in names.items() if n in results}
        if not runs:
            continue
        marks = {s: analysis.phase_marks(h) for s, (_, h) in runs.items()}
        groks = {s: summ["grok_epoch"] for s, (summ, _) in runs.items()}
        med, censored = analysis.censored_median(list(groks.values()), budget)
        cell = {"rho": rho, "wd": wd, "lam": lam, "seeds": sorted(runs), "grok": groks,
                "median_grok": med, "median_censored": censored,
                "frac_grokked": sum(g is not None for g in groks.values()) / len(groks),
                "mass_at_mem": _median([m["mass_at_mem"] for m in marks.values()]),
                "median_t_mem": _median([m["t_mem"] for m in marks.values()]),
                # seeds whose attention found the operands (mass > 0.25) before memorizing, or without ever memorizing
                "found_before_mem": sum(m["t_found"] is not None and (m["t_mem"] is None or m["t_found"] < m["t_mem"])
                                        for m in marks.values()),
                "median_t_found": _median([m["t_found"] for m in marks.values()]),
                "grad_collapse": _median([m["grad_collapse"] for m in marks.values()]),
                "marks": marks}
        if lam == 0:
            checks = {s: analysis.paper_regime_checks(m, budget) for s, m in marks.items()}
            cell["checks"] = checks
            cell["seeds_meeting"] = sum(all(c.values()) for c in checks.values())
            cell["conditions_met"] = {k: sum(c[k] for c in checks.values()) for k in next(iter(checks.values()))}
            cell["pairs_met"] = sum(cell["conditions_met"].values())     # (seed, condition) pairs: the selection's second key
            cell["shows_regime"] = len(checks) >= 5 and cell["seeds_meeting"] >= analysis.MIN_SEEDS_MEETING
            cell["eq5"] = {s: {"plateau": None if m["t_grok"] is None or m["t_mem"] is None else m["t_grok"] - m["t_mem"],
                               "bound": analysis.eq5_bound(m, runs[s][0]["config"])} for s, m in marks.items()}
        out[cell_key(rho, wd, lam)] = cell
    for key, cell in out.items():                  # the KL speed-up against the same (rho, wd) baseline
        base = out.get(cell_key(cell["rho"], cell["wd"], 0.0))
        if cell["lam"] > 0 and base is not None:
            cell["speedup"] = rules.speedup_verdict_v4(base["grok"], cell["grok"], budget)
            seeds = set(base["grok"]) & set(cell["grok"])          # for the figure: the runs never grokked per arm
            cell["speedup"]["never_grokked"] = {"baseline": sum(base["grok"][s] is None for s in seeds),
                                                "treatment": sum(cell["grok"][s] is None for s in seeds)}
    return out


def _median(values):
    values = [v for v in values if v is not None]
    return float(np.median(values)) if values else None


def cell_key(rho, wd, lam):
    return f"rho{rho:g}_wd{wd:g}_lam{lam:g}"


def select_cell(stats, cells):
    """The pre-registered selection (docs/registered/regime_map.md) among the lambda = 0 cells of `cells` (the grid),
    made only once every one of them has its five seeds: the cells that show the paper's
    regime (wd 1 first, then most seeds meeting, then the lowest median mass at t_mem); if
    none does, the closest (most seeds meeting, then most (seed, condition) pairs met, then
    the lowest mass), named as such. None before the lambda = 0 grid is complete."""
    keys = [cell_key(*c) for c in cells if c[2] == 0]
    if not keys or any(k not in stats or len(stats[k]["seeds"]) < 5 for k in keys):
        return None
    base = [stats[k] for k in keys]
    mass = lambda c: c["mass_at_mem"] if c["mass_at_mem"] is not None else math.inf
    shows = [c for c in base if c["shows_regime"]]
    if shows:
        best = min(shows, key=lambda c: (c["wd"] != 1.0, -c["seeds_meeting"], mass(c)))
        return held_out(best, {"shows_regime": True})
    best = min(base, key=lambda c: (-c["seeds_meeting"], -c["pairs_met"], mass(c)))
    failing = [k for k, v in best["conditions_met"].items() if v < analysis.MIN_SEEDS_MEETING]
    return held_out(best, {"shows_regime": False, "failing": failing})


def held_out(cell, selection):
    """The selected cell with its held-out confirmation: Figure 3 and Figure 1 on seeds 5-9
    (reproduce.py runs these commands; audit/claims.py judges C3 there from the Figure 3 file)."""
    regime, wd = sweep.regime_name(cell["rho"]), cell["wd"]
    flags = ["--regime", regime] + ([] if wd == 1.0 else ["--wd", f"{wd:g}"]) \
        + ["--seeds"] + [str(s) for s in HELD_OUT_SEEDS]
    return {"cell": cell_key(cell["rho"], wd, 0.0), **selection, "regime": regime, "wd": wd,
            "held_out_seeds": HELD_OUT_SEEDS, "fig3_file": sweep.fig3_stem(regime, wd, HELD_OUT_SEEDS) + ".json",
            "commands": [["exp_fig3_kl.py"] + flags, ["exp_fig1_phases.py"] + flags]}


def c11_parts(stats, R=rules.RULES["v4"]):
    """Eq. 5's bound against the measured plateau t_grok - t_mem per distractor regime with a
    weight-decay sweep (rule 5, per seed: all of a seed's grokked runs). C11's 1/wd law is
    judged from the cells' times (claims.c11_from_cells, over its named room)."""
    parts = {}
    for rho in WD_RHOS:
        cells = {c["wd"]: c for c in stats.values() if c["rho"] == rho and c["lam"] == 0}
        if len(cells) < 2:
            continue
        met = {(wd, s): e["plateau"] >= e["bound"] for wd, c in cells.items() for s, e in c["eq5"].items()
               if e["plateau"] is not None and e["bound"] is not None}
        seeds = sorted({s for _, s in met}, key=str)
        checks = [all(ok for (_, s2), ok in met.items() if s2 == s) for s in seeds]
        parts[f"{rho_label(rho)}: plateau >= Eq. 5's bound"] = R.property(
            checks, "seeds all of whose grokked runs had a plateau at least the bound")
    return parts


def print_tables(stats, budget):
    print("\nBaseline (lambda = 0) per cell: seeds meeting each pre-registered condition (docs/registered/regime_map.md) of 5")
    conds = ("memorizes", "diffuse_at_mem", "starved_plateau", "condenses_first", "groks")
    print(f"{'cell':24s} " + " ".join(f"{c[:12]:>12s}" for c in conds) + f" {'all five':>9s} {'mass@mem':>9s} "
          f"{'median t_grok':>14s} {'t_found':>8s} {'t_mem':>6s} {'found first':>11s}")
    epoch = lambda t: "-" if t is None else f"{t:.0f}"
    for key, c in stats.items():
        if c["lam"] != 0:
            continue
        med = f"> {budget}" if c["median_censored"] else f"{c['median_grok']:.0f}"
        mass = "-" if c["mass_at_mem"] is None else f"{c['mass_at_mem']:.3f}"
        print(f"{key:24s} " + " ".join(f"{c['conditions_met'][k]:>12d}" for k in conds)
              + f" {c['seeds_meeting']:>6d}/{len(c['seeds'])} {mass:>9s} {med:>14s} {epoch(c['median_t_found']):>8s}"
              f" {epoch(c['median_t_mem']):>6s} {c['found_before_mem']:>9d}/{len(c['seeds'])}")
    print("\nKL speed-up t_grok(0) / t_grok(lambda), paired by seed (rules v4, audit/rules.py):")
    for key, c in stats.items():
        if "speedup" in c:
            print(f"  {key:24s} " + rules.describe(c["speedup"], bold=False))
    # for reading the speed-ups: how late the baseline's attention finds the operands (wd 1)
    print(f"\n{'regime (wd 1)':14s} {'base t_found':>12s} {'t_mem':>6s} {'t_grok':>8s} "
          + " ".join(f"{'x at lam ' + format(l, 'g'):>14s}" for l in LAMS if l > 0))
    for rho in RHOS:
        base = stats.get(cell_key(rho, 1.0, 0.0))
        if base is None:
            continue
        grok = (">" if base["median_censored"] else "") + f"{base['median_grok']:.0f}"
        ups = [stats.get(cell_key(rho, 1.0, l), {}).get("speedup", {}) for l in LAMS if l > 0]
        print(f"{rho_label(rho):14s} {epoch(base['median_t_found']):>12s} {epoch(base['median_t_mem']):>6s} {grok:>8s} "
              + " ".join(f"{math.exp(u['estimate']):>13.2f}x" if "estimate" in u else f"{'-':>14s}" for u in ups))


def heat(ax, M, rows, cols, title, fmt, cmap="viridis", log=False, ratio=False):
    """A heatmap with each cell's text; ratio=True: a log scale centred on 1 (no effect)."""
    import matplotlib.colors as mcolors
    finite = M[np.isfinite(M)]
    norm = None
    if ratio and finite.size and finite.min() > 0:            # symmetric in log: 2x and 0.5x equally far from 1
        m = max(finite.max(), 1 / finite.min(), 1.5)
        norm = mcolors.LogNorm(vmin=1 / m, vmax=m)
    elif log and finite.size and finite.min() > 0:
        norm = mcolors.LogNorm()
    im = ax.imshow(M, cmap=cmap, aspect="auto", norm=norm)
    im.autoscale_None()                                              # the colour limits, before reading colours
    rgba = im.to_rgba(np.ma.masked_invalid(M))                       # (rows, cols, 4)
    ax.set_xticks(range(len(cols)), cols, fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            r, g, b = rgba[i, j, :3] if np.isfinite(M[i, j]) else (1, 1, 1)
            light = 0.299 * r + 0.587 * g + 0.114 * b > 0.5          # dark text on light cells
            ax.text(j, i, fmt(i, j), ha="center", va="center", fontsize=7, color="k" if light else "w")
    ax.set_title(title, fontsize=9)
    return im


def plot(stats, seeds, budget, model, path):
    plt = plots.pyplot()
    rhos = RHOS
    rlabel = [rho_label(r) for r in rhos]
    get = lambda rho, wd, lam: stats.get(cell_key(rho, wd, lam))
    fig, ax = plt.subplots(2, 3, figsize=(16, 9))

    def grid(rows, cols, cell_of, value):
        M = np.full((len(rows), len(cols)), np.nan)
        for i, r in enumerate(rows):
            for j, c in enumerate(cols):
                cell = cell_of(r, c)
                if cell is not None and value(cell) is not None:
                    M[i, j] = value(cell)
        return M

    def med_fmt(M, cells):
        return lambda i, j: "" if cells[i][j] is None else (f">{budget}" if cells[i][j]["median_censored"]
                                                            else f"{M[i, j]:.0f}") + f"\nn={len(cells[i][j]['seeds'])}"

    by_lam = lambda r, l: get(r, 1.0, l)
    M = grid(rhos, LAMS, by_lam, lambda c: c["median_grok"])
    cells = [[by_lam(r, l) for l in LAMS] for r in rhos]
    heat(ax[0, 0], M, rlabel, [f"{l:g}" for l in LAMS], "median t_grok (wd 1), rho x lambda", med_fmt(M, cells), log=True)
    ax[0, 0].set(xlabel="lambda", ylabel="distractor refresh rho")
    M = grid(rhos, LAMS, by_lam, lambda c: c["frac_grokked"])
    heat(ax[0, 1], M, rlabel, [f"{l:g}" for l in LAMS], "fraction of seeds grokked (wd 1)",
         lambda i, j: "" if np.isnan(M[i, j]) else f"{M[i, j]:.1f}")
    ax[0, 1].set(xlabel="lambda")
    lam_pos = [l for l in LAMS if l > 0]
    M = grid(rhos, lam_pos, by_lam, lambda c: np.exp(c["speedup"]["estimate"]) if "estimate" in c.get("speedup", {}) else None)
    sp = [[by_lam(r, l) for l in lam_pos] for r in rhos]

    def speedup_fmt(i, j):   # censored runs enter at the budget: say how many, in which arm
        c = sp[i][j]
        if c is None or "speedup" not in c:
            return ""
        v = c["speedup"]
        if "estimate" not in v:
            return f"neither arm\ngrokked\nn={v['n_run']}"
        lo, hi = np.exp(v["ci"])
        never = v["never_grokked"]
        ends = f"[{lo:.2f}, {hi:.2f}]" if np.isfinite(v["ci"]).all() else "no interval"   # five seeds with a bound
        return (f"{M[i, j]:.2f}x\n{ends}\nn={v['n_run']}"
                + (f", never: {never['baseline']} base, {never['treatment']} KL" if any(never.values()) else ""))
    heat(ax[0, 2], M, rlabel, [f"{l:g}" for l in lam_pos],
         "KL speed-up t(0)/t(lambda), paired by seed, 95% CI\n(never-grokked runs counted at the budget)",
         speedup_fmt, cmap="coolwarm", ratio=True)
    ax[0, 2].set(xlabel="lambda")
    by_wd = lambda r, w: get(r, w, 0.0)
    M = grid(rhos, WDS, by_wd, lambda c: c["median_grok"])
    cells = [[by_wd(r, w) for w in WDS] for r in rhos]
    heat(ax[1, 0], M, rlabel, [f"{w:g}" for w in WDS], "median t_grok (lambda 0), rho x weight decay", med_fmt(M, cells), log=True)
    ax[1, 0].set(xlabel="weight decay", ylabel="distractor refresh rho")
    M = grid(rhos, WDS, by_wd, lambda c: c["mass_at_mem"])

    def mass_fmt(i, j):      # a median over the seeds that memorized: say how many did
        c = cells[i][j]
        if c is None:
            return ""
        n_mem, n = c["conditions_met"]["memorizes"], len(c["seeds"])
        if n_mem == 0:
            return f"never\nmemorized\n0/{n}"
        return f"{M[i, j]:.2f}" + ("" if n_mem == n else f"\n{n_mem}/{n} memorized")
    heat(ax[1, 1], M, rlabel, [f"{w:g}" for w in WDS],
         f"informative mass at t_mem (uniform 0.2; 'found' > {analysis.FOUND_MASS})", mass_fmt)
    ax[1, 1].set(xlabel="weight decay")
    M = grid(rhos, WDS, by_wd, lambda c: c["seeds_meeting"])
    P = grid(rhos, WDS, by_wd, lambda c: c["pairs_met"])
    G = grid(rhos, WDS, by_wd, lambda c: c["grad_collapse"])
    heat(ax[1, 2], M, rlabel, [f"{w:g}" for w in WDS],
         "seeds meeting the paper's-regime criterion (of 5), (seed, condition)\npairs met (of 25); "
         "below: median task-gradient collapse factor",
         lambda i, j: "" if np.isnan(M[i, j]) else f"{M[i, j]:.0f} ({P[i, j]:.0f}/25)"
         + (f"\n{G[i, j]:.0e}" if np.isfinite(G[i, j]) else ""), cmap="magma")
    ax[1, 2].set(xlabel="weight decay")
    plots.save_figure(fig, path, f"Where the paper's story holds: {model}, seeds {plots.seeds_text(seeds)}, "
                      f"{budget}-epoch budget (censored medians shown as >budget; blank = outside the grid or not run yet)")


def plot_headline(stats, seeds, budget, model, path):
    """The answer in one panel (the README's headline): the KL speed-up per distractor regime
    at wd 1, each lambda with its 95% interval, against the baseline's informative mass at
    memorization and its median t_grok (on the tick labels). A hollow marker with an arrow is a
    lower bound: every baseline seed ran the whole budget without grokking."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import NullFormatter, ScalarFormatter
    plt = plots.pyplot()
    fig, ax = plt.subplots(figsize=(8.5, 4.4))
    lams = [l for l in LAMS if l > 0]
    for k, (lam, color) in enumerate(zip(lams, ("tab:blue", "tab:red"))):
        for i, rho in enumerate(RHOS):
            v = stats.get(cell_key(rho, 1.0, lam), {}).get("speedup", {})
            if "estimate" not in v:
                continue
            x, (lo, hi), est = i + (k - 0.5) * 0.18, np.exp(v["ci"]), np.exp(v["estimate"])
            bound = v["never_grokked"]["baseline"] == v["n_run"]
            if np.isfinite(v["ci"]).all():          # five seeds with a bound have no finite interval (rules v4)
                ax.plot([x, x], [lo, hi], color=color, lw=2, alpha=0.6)
            ax.plot(x, est, "o", color=color, mfc="white" if bound else color, ms=7)
            if bound:
                ax.annotate("", (x, est * 1.35), (x, est), arrowprops=dict(arrowstyle="->", color=color))
    ax.axhline(1, color="k", lw=0.8, ls="--")

    def tick(rho):
        base = stats.get(cell_key(rho, 1.0, 0.0))
        if base is None:
            return rho_label(rho)
        t = f">{budget}" if base["median_censored"] else f"{base['median_grok']:.0f}"
        mass = "never memorized" if base["mass_at_mem"] is None else f"mass {base['mass_at_mem']:.2f}"
        return f"{rho_label(rho)}\nt_grok {t}\n{mass}"
    ax.set_xticks(range(len(RHOS)), [tick(r) for r in RHOS], fontsize=8)
    ax.set_yscale("log")
    ax.set_yticks([0.3, 0.5, 1, 2, 3, 5])
    ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set(xlabel="distractor regime: redrawn per epoch with prob. rho; below, the baseline's (lambda 0) median\n"
                  "t_grok and its attention on the operands at memorization (informative mass; uniform = 0.2)",
           ylabel="KL speed-up t_grok(0) / t_grok(lambda)")
    ax.legend(handles=[Line2D([], [], color=c, marker="o", label=f"lambda = {l:g}")
                       for l, c in zip(lams, ("tab:blue", "tab:red"))], title="KL prior toward the oracle", fontsize=8)
    plots.save_figure(fig, path, f"Where the KL prior pays off: its speed-up per distractor regime\n"
                      f"({model}, wd 1, seeds {plots.seeds_text(seeds)}, paired by seed, 95% interval by rules v4; hollow = "
                      f"lower bound: no baseline grokked in {budget} epochs, and five such seeds have no interval)")


def plot_baselines(results, seeds, budget, model, path):
    """The lambda = 0, wd = 1 baseline of every refresh rate on one time axis: what each
    condition of the criterion reads (median over seeds, min-max band; a run that stopped
    after grokking holds its last value)."""
    plt = plots.pyplot()
    fig, ax = plt.subplots(1, 4, figsize=(18, 4.2))
    panels = (("train_acc", "train accuracy (memorization)", False),
              ("info_mass", f"informative mass (uniform 0.2; 'found' > {analysis.FOUND_MASS})", False),
              ("grad_W_norm", "task gradient to W (starvation)", True), ("test_acc", "test accuracy (grokking)", False))
    colors = plt.cm.viridis(np.linspace(0, 0.9, len(RHOS)))
    for rho, color in zip(RHOS, colors):
        hists = [results[n][1] for n in (run_name(rho, 1.0, 0.0, s) for s in seeds) if n in results]
        if not hists:
            continue
        label = f"{sweep.regime_name(rho)} (n={len(hists)})"
        for a, (key, title, log) in zip(ax, panels):
            grid, values = plots.curves(hists, key, budget)
            plots.band(a, grid, values, label=label, color=color, log=log)
            a.set(title=title, xlabel="epoch")
    ax[1].axhline(analysis.FOUND_MASS, color="k", ls=":", lw=1)
    ax[0].legend(fontsize=8, title="distractor refresh", title_fontsize=8)
    plots.save_figure(fig, path, f"The lambda = 0 baseline across distractor regimes ({model}, wd 1, "
                      f"seeds {plots.seeds_text(seeds)}, {budget}-epoch budget; median and min-max over seeds; a run "
                      "stopped after grokking holds its last value)")


def plot_c11(stats, c11, seeds, budget, model, path):
    """C11 as measured: every baseline run's grokking epoch against 1/wd, per distractor
    regime (a run that never grokked drawn at the budget, hollow: a lower bound), with the
    law's slope 1 through the wd 1 median for comparison; and each grokked run's plateau
    t_grok - t_mem against Eq. 5's least plateau from its own norms."""
    plt = plots.pyplot()
    fig, ax = plt.subplots(1, 2, figsize=(13, 5))
    colors = plt.cm.viridis(np.linspace(0, 0.9, len(WD_RHOS)))
    bound_pts = []
    for k, (rho, color) in enumerate(zip(WD_RHOS, colors)):
        cells = sorted((c for c in stats.values() if c["rho"] == rho and c["lam"] == 0), key=lambda c: c["wd"])
        if not cells:
            continue
        part = c11.get(claims.c11_law(rho_label(rho)), {})
        label = rho_label(rho) + (f": slope {part['estimate']:.2f}" if "estimate" in part else "") \
            + (f" [{part['ci'][0]:.2f}, {part['ci'][1]:.2f}]" if "ci" in part else "") + f", {part.get('verdict', '-')}"
        for c in cells:
            x = 1 / c["wd"] * (1 + 0.04 * (k - len(WD_RHOS) / 2))          # side by side, not on top
            done = [t for t in c["grok"].values() if t is not None]
            never = sum(t is None for t in c["grok"].values())
            ax[0].scatter([x] * len(done), done, color=color, s=18, label=label if c is cells[0] else None)
            if never:
                ax[0].scatter([x], [budget], facecolors="none", edgecolors=color, s=18 + 14 * never)
                ax[0].annotate(f"{never}", (x, budget), xytext=(3, 3), textcoords="offset points", fontsize=7, color=color)
            for e in c.get("eq5", {}).values():
                if e["plateau"] is not None and e["bound"] is not None:
                    bound_pts.append((e["bound"], e["plateau"], color))
        base = next((c for c in cells if c["wd"] == 1.0 and not c["median_censored"]), None)
        if base is not None:                                   # the law: t proportional to 1/wd
            xs = np.array([1 / max(WDS), 1 / min(WDS)])
            ax[0].plot(xs, base["median_grok"] * xs, color=color, ls=":", lw=1)
    ax[0].axhline(budget, color="k", lw=0.5)
    ax[0].set(xscale="log", yscale="log", xlabel="1 / weight decay", ylabel="grokking epoch")
    ax[0].set_title("t_grok against 1/wd; hollow: never grokked (drawn at the budget, number = runs);\n"
                    "dotted: the law, slope 1 through the wd 1 median", fontsize=9)
    ax[0].minorticks_off()
    ax[0].set_xticks([1 / w for w in WDS], [f"1/{w:g}" for w in WDS])
    room = ", ".join(f"1/{1 / x:g}" for x in claims.ROOM_C11)
    ax[0].legend(fontsize=7, title=f"regime: per-seed slope over the named room ({room}) [95% CI],\n"
                 "verdict (rules v4, as REPORT.md)", title_fontsize=7)
    if bound_pts:
        b, p, col = zip(*bound_pts)
        ax[1].scatter(b, p, c=list(col), s=18)
        hi = max(max(b), max(p)) * 1.2
        ax[1].plot([1, hi], [1, hi], color="k", lw=0.8, ls="--")
    else:                                          # an empty panel says why, rather than look like a failed draw
        ax[1].text(0.5, 0.5, "no run grokked:\nno plateau ends to compare with the bound", transform=ax[1].transAxes,
                   ha="center", va="center", fontsize=10, color="0.4")
    ax[1].set(xscale="log", yscale="log", xlabel="Eq. 5's least plateau log(||theta_mem|| / r*) / -log(1 - lr wd), epochs",
              ylabel="measured plateau t_grok - t_mem, epochs")
    ax[1].set_title("plateau against Eq. 5's bound, grokked runs (colours as left);\n"
                    "above the dashed line y = x the bound holds", fontsize=9)
    plots.save_figure(fig, path, f"Claim C11: the baseline's delay against weight decay ({model}, lambda 0, seeds "
                      f"{plots.seeds_text(seeds)}, {budget}-epoch budget)")


def parse(argv=None):
    """The flags, with the --quick preset applied (args.rhos: the refresh rates)."""
    args = get_parser().parse_args(argv)
    bad = [r for r in args.rhos or () if r not in RHOS]
    if bad:
        raise SystemExit(f"error: --rhos takes values of the map's grid {RHOS}; not {bad}")
    args.rhos = sorted(args.rhos) if args.rhos else RHOS
    bad = [w for w in args.wds or () if w not in WDS]
    if bad:
        raise SystemExit(f"error: --wds takes values of the map's grid {WDS}; not {bad}")
    args.wds = sorted(args.wds) if args.wds else WDS
    args = sweep.apply_quick(args, QUICK)
    # the map draws whatever part of its grid is stored; a variant (the power plan's C11 runs)
    # decides claim parts, so like every other study it is drawn only once all its runs are in
    # (a redraw from part of them goes to results/partial/)
    args.partial_ok = not variant_tag(args)
    return args


def variant_tag(args):
    """'' for the map itself (every refresh rate on seeds within 0-4, at any budget, or --quick);
    else the suffix of a variant's summary and figure, so that it never overwrites the map (the
    power plan's C11 runs: one refresh rate at 12 seeds and 40,000 epochs, docs/plan.md)."""
    if args.quick or (args.rhos == RHOS and args.wds == WDS and not sweep.seeds_tag(args.seeds)):
        return ""
    wds = "" if args.wds == WDS else "_wds" + "-".join(f"{w:g}" for w in args.wds)
    return "_" + "_".join(rho_label(r).replace(" ", "") for r in args.rhos) + \
        sweep.seeds_tag(args.seeds) + f"_e{args.epochs}" + wds


def planned_runs(args):
    """Every (label, config) this call needs (reproduce.py --dry-run counts them)."""
    return [(run_name(*c, s), run_config(*c, s, args)) for c in grid_cells(args.part, args.rhos, args.wds)
            for s in args.seeds]


def main(argv=None):
    args = parse(argv)
    rhos = args.rhos
    os.makedirs(args.results_dir, exist_ok=True)
    cells = grid_cells(args.part, rhos, args.wds)
    runs = planned_runs(args)
    try:
        results = sweep.run_sweep(runs, args)
    except ValueError as e:
        raise SystemExit(f"error: {e}")
    stats = analyse(results, cells, args.seeds, args.epochs)
    print_tables(stats, args.epochs)
    tag = variant_tag(args)                        # a variant selects nothing: the map's selection is made once
    selection = None if tag else select_cell(stats, grid_cells(["baseline", "wd"], rhos))
    c11 = c11_parts(stats)
    if not tag:
        print("\nSelection for the held-out confirmation (docs/registered/regime_map.md, pre-registered): "
              + ("not decided (made once every lambda = 0 cell, baseline and weight-decay parts, has its five seeds)"
                 if selection is None else
                 f"{selection['cell']}" + ("" if selection["shows_regime"] else
                                           f", the closest cell (no cell shows the regime; failing: {selection['failing']})")))
    if selection is not None:
        print("Held-out confirmation (reproduce.py runs it; audit/claims.py judges C3b on it):\n"
              + "\n".join("  python " + " ".join(cmd) + " --jobs 2" for cmd in selection["commands"]))
    print("\nClaim C11 (abstract, Eq. 5): the baseline's delay grows like 1/wd and lasts at least Eq. 5's bound.")
    c11_now = claims.c11_from_cells(stats.values(), args.epochs, c11)        # the verdict REPORT.md gives
    for part, v in c11_now.items():
        print(f"  {part}: " + rules.describe(v, bold=False))
    strip = lambda c: {k: v for k, v in c.items() if k != "marks"}
    store.write_json(os.path.join(args.results_dir, f"regime_map{tag}.json"),
                     {"cells": {k: strip(c) for k, c in stats.items()}, "selection": selection, "c11": c11,
                      "budget": args.epochs, "seeds": args.seeds, "criterion": {
                          "found_mass": analysis.FOUND_MASS, "min_plateau": analysis.MIN_PLATEAU,
                          "max_grad_collapse": analysis.MAX_GRAD_COLLAPSE, "min_seeds": analysis.MIN_SEEDS_MEETING}})
    model = "the --quick small model (sweep.QUICK_MODEL)" if args.quick else "paper config"
    if tag:                                        # a variant: its C11 figure only
        plot_c11(stats, c11_now, args.seeds, args.epochs, model, os.path.join(args.results_dir, f"regime_map{tag}_c11.png"))
        return
    plot(stats, args.seeds, args.epochs, model, os.path.join(args.results_dir, "regime_map.png"))
    plot_headline(stats, args.seeds, args.epochs, model, os.path.join(args.results_dir, "regime_map_headline.png"))
    plot_baselines(results, args.seeds, args.epochs, model, os.path.join(args.results_dir, "regime_map_baselines.png"))
    plot_c11(stats, c11_now, args.seeds, args.epochs, model, os.path.join(args.results_dir, "regime_map_c11.png"))


if __name__ == "__main__":
    main()