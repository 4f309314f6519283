"""Beyond the paper: does the grokking delay split into a routing clock (1/lambda) and a norm
clock (1/wd)? The study pre-registered in docs/registered/two_clocks.md (first committed to the README,
0e4f1b5), hypotheses H1-H5.

    python -m audit.two_clocks --jobs 2             # every run (most shared with Figure 3 in fixed)
    python -m audit.two_clocks --part h1 h2         # the runs of some hypotheses only
    python -m audit.two_clocks --plot-only          # redraw from the store
    python -m audit.two_clocks --quick              # the small model, one seed, eight runs

H1 routing clock: under `fixed` with the KL prior, t_struct ~ 1/lambda (rule 6 on t_struct).
H1b (amendment 2, 2026-11-24, before any H1 run): H1 with t_struct the first epoch from
   which B_tau holds to the run's end; reported beside H1, never instead of it.
H1c (amendment 3, 2026-11-24, after H1's runs, before any run it judges): t_struct's slope
   over lambda 0.02, 0.03, 0.05 (a room fixed in advance) on the held-out seeds 5-9.
H2 norm clock: attention frozen at the oracle, t_grok ~ 1/wd (rule 6), and the plateau
   t_grok - t_mem against Eq. 5's bound per seed (rule 3).
H3 composition: R(lambda) fitted on H1's lambda 0.03, 0.1, 0.3; N(wd) on H2's four wd; one
   constant c; t_grok predicted as max(R, N) + c on 13 held-out cells, tolerance [0.7, 1.3]x,
   holds if at least 80% of them are within it.
H4 the lambda = 0 baseline under `fixed` for 50,000 epochs: the count that grokked.
H5 KL to the uniform distribution against KL to the oracle at lambda 0.1 and 1 (rule 2).
Every number, cell and tolerance here is the pre-registration's; none is tuned.

The study was registered under rules v2, which were removed on 2026-11-26 (docs/stats.md):
REGISTERED_V2 keeps, as frozen text, the verdicts they gave on the complete study, and the
code recomputes each part by rules v3 beside them. v3 reads a law over a room named in
advance, never off the medians: H1 and H1b over H1c's room (named after H1's seeds were
seen), H2 over C11's 1/wd room (claims.ROOM_C11, the same law in the same model).
"""
import argparse
import math
import os

import numpy as np

import analysis
from audit import rules as A
import plots
from audit import claims
import store
import sweep

GRID_LAMS = (0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 1.0)     # Figure 3 in fixed (C3f), 20k epochs
FIT_LAMS = (0.03, 0.1, 0.3)
WDS = (0.5, 1.0, 2.0, 4.0)
FIXED_BUDGET, FROZEN_BUDGET, LONG_BUDGET = 20000, 10000, 50000
TOLERANCE, HOLD_FRACTION = (0.7, 1.3), 0.8
H1C_LAMS = (0.02, 0.03, 0.05)           # amendment 3: where seeds 0-4 saw t_struct leave its floor
PARTS = ("h1", "h1c", "h2", "h3", "h4", "h5")
STRUCT_FRAC = 0.99                     # B_tau: the fraction of examples meeting tau (train.py's struct_epoch)
H1B = "H1b (amendment 2, 2026-11-24; reported beside H1): t_struct held for good ~ 1/lambda"
H1C = "H1c (amendment 3, 2026-11-24; reported beside H1): t_struct ~ 1/lambda over lambda 0.02-0.05, seeds 5-9"
H4 = "H4 (reported): baselines that grokked within 50k epochs"
H5 = "H5: the information or any gradient (both lambdas, as registered)"
# Rules v2's verdicts on the complete study (every one of its runs stored; results/two_clocks.json
# at commit 282a5d1), frozen when v2 was removed: {part: (verdict, what it measured)}
REGISTERED_V2 = {
    "H1: t_struct ~ 1/lambda (fixed, KL)": (
        "not decided", "only 1/lambda = 20 lies between the floor (40 epochs, 1/lambda 1-10) and the cap "
        "(20,000, 1/lambda 33-100); the rule needs 3"),
    H1B: ("inconclusive", "slope 1.39 [0.27, 2.52] over 1/lambda 5-20 (0.6 decades), margin 1 +- 0.25"),
    H1C: ("inconclusive", "slope 3.70 [0.65, 6.76] over 1/lambda 20-50 (room fixed in advance); 1 censored run "
          "makes it a lower bound"),
    "H2: t_grok ~ 1/wd (frozen oracle attention)": (
        "not decided", "only 1/wd = 1 lies between the floor (1,392 epochs, 1/wd 0.25-0.5) and the cap "
        "(10,000, 1/wd 2)"),
    "H2 (reported): plateau >= Eq. 5's bound": ("inconclusive", "5/5 seeds (95% interval [0.48, 1.00])"),
    "H3: max(R, N) + c predicts held-out t_grok": ("not reproduced", "3/13 held-out cells within [0.7, 1.3]x "
                                                  "(holds with 11)"),
    H4: ("reported", "0/5 grokked within 50,000 epochs"),
    "H5 lambda 0.1: oracle faster than uniform": ("reproduced", "speed-up 6.10x [4.04x, 9.21x], 5 lower bounds"),
    "H5 lambda 0.1: uniform faster than the baseline": ("inconclusive", "no run of either arm grokked"),
    "H5 lambda 1: oracle faster than uniform": ("reproduced", "speed-up 6.09x [3.26x, 11.38x], 5 lower bounds"),
    "H5 lambda 1: uniform faster than the baseline": ("inconclusive", "no run of either arm grokked"),
    H5: ("the information matters", "oracle faster than uniform reproduced at both lambdas"),
}
QUICK = dict(p=sweep.QUICK_MODEL["p"], seeds=[0], grid_lams=(0.1, 0.3, 1.0), fit_lams=(0.1, 0.3, 1.0),
             wds=(1.0, 2.0), fixed_budget=2000, frozen_budget=1500, long_budget=2000, part=["h1", "h2", "h5"])


def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--part", nargs="+", default=list(PARTS), choices=PARTS, help="hypotheses whose runs to ask for")
    sweep.add_scale_args(p, QUICK)
    sweep.add_sweep_args(p)
    p.set_defaults(regime="fixed", partial_ok=True)        # drawn from whatever part is stored, like the map
    return p


def parse(argv=None):
    """The flags, with the --quick preset applied (args.grid_lams etc.: the study's axes)."""
    args = get_parser().parse_args(argv)
    args.grid_lams, args.fit_lams, args.wds = GRID_LAMS, FIT_LAMS, WDS
    args.fixed_budget, args.frozen_budget, args.long_budget = FIXED_BUDGET, FROZEN_BUDGET, LONG_BUDGET
    sweep.apply_quick(args, QUICK)
    args.held_out_seeds = [s + 5 for s in args.seeds]      # H3: seeds 5-9 of the fitted cells
    return args


# ---------------------------------------------------------------------------------------
# The cells: (label, config) per seed

def kl(lam, seed, args, wd=1.0, regime="fixed", prior="oracle", budget=None):
    """A KL run (lambda = 0: the baseline) in a regime; `fixed` cells run the 20k budget."""
    budget = budget or (args.fixed_budget if regime == "fixed" else args.epochs)
    kw = dict(lam=lam, wd=wd, epochs=budget) | (dict(prior=prior) if lam and prior != "oracle" else {})
    return f"{regime}_{prior if lam else 'baseline'}_lam{lam:g}_wd{wd:g}_seed{seed}_e{budget}", \
        sweep.study_config(args, seed, regime=regime, **kw)


def frozen(wd, seed, args):
    return f"frozen_wd{wd:g}_seed{seed}", sweep.study_config(args, seed, regime="fixed", frozen_attn="oracle",
                                                             wd=wd, epochs=args.frozen_budget)


def held_out_cells(args):
    """H3's held-out cells: {name: [(label, cfg) per seed]} (docs/registered/two_clocks.md: 13 cells)."""
    cells = {f"fixed lam {l:g} wd 1": [kl(l, s, args) for s in args.seeds] for l in (0.01, 1.0)}
    for wd in (0.5, 2.0):
        for l in (0.03, 0.3):
            cells[f"fixed lam {l:g} wd {wd:g}"] = [kl(l, s, args, wd=wd) for s in args.seeds]
    for regime in ("refresh0.003", "fresh"):
        for l in (0.03, 0.3):
            cells[f"{regime} lam {l:g} wd 1"] = [kl(l, s, args, regime=regime) for s in args.seeds]
    for l in args.fit_lams:
        cells[f"fixed lam {l:g} wd 1, seeds {args.held_out_seeds[0]}-{args.held_out_seeds[-1]}"] = \
            [kl(l, s, args) for s in args.held_out_seeds]
    return cells


def cells(args):
    """{hypothesis: {cell name: [(label, cfg) per seed]}} for the parts asked for."""
    out = {"h1": {f"lam {l:g}": [kl(l, s, args) for s in args.seeds] for l in args.grid_lams},
           "h1c": {f"lam {l:g}": [kl(l, s, args) for s in args.held_out_seeds] for l in H1C_LAMS},
           "h2": {f"wd {wd:g}": [frozen(wd, s, args) for s in args.seeds] for wd in args.wds},
           "h3": held_out_cells(args),
           "h4": {"fixed lam 0, 50k": [kl(0.0, s, args, budget=args.long_budget) for s in args.seeds]},
           "h5": {f"{prior} lam {l:g}": [kl(l, s, args, prior=prior) for s in args.seeds]
                  for prior in ("oracle", "uniform") for l in (0.1, 1.0)}}
    out["h5"]["baseline"] = [kl(0.0, s, args) for s in args.seeds]
    return {h: c for h, c in out.items() if h in args.part}


def planned_runs(args):
    """Every (label, config) this call needs (a run two hypotheses share is listed once; one
    label never names two configs, e.g. H4's 50k baseline and H5's 20k one)."""
    runs = {}
    for part in cells(args).values():
        for cell in part.values():
            for label, cfg in cell:
                if runs.setdefault(label, cfg) != cfg:
                    raise ValueError(f"two configs under the label {label}")
    return list(runs.items())


# ---------------------------------------------------------------------------------------
# Analysis

def per_seed(cell, results, key="grok_epoch"):
    """{seed: the summary's key (None: never)} over the cell's stored runs."""
    return {cfg.seed: results[label][0][key] for label, cfg in cell if label in results}


def held_struct(cell, results):
    """{seed: the first epoch from which B_tau holds to the run's end (None: never)}: H1b's
    t_struct, which skips a B_tau met and lost again (analysis.held_from)."""
    return {cfg.seed: analysis.held_from(results[label][1], "frac_struct", STRUCT_FRAC)
            for label, cfg in cell if label in results}


def by_inverse(part, times_of):
    """{1/lambda or 1/wd: times_of(cell)} over a hypothesis's cells, named "lam 0.1", "wd 2"."""
    return {1 / float(name.split()[1]): times_of(cell) for name, cell in part.items()}


def loglaw(xs, ts):
    """Least squares of log t on log x over medians: (log-intercept, slope); None if < 2 points."""
    pts = [(math.log(x), math.log(t)) for x, t in zip(xs, ts) if t is not None]
    if len(pts) < 2:
        return None
    lx, lt = np.array(pts).T
    slope, icpt = np.polyfit(lx, lt, 1)
    return float(icpt), float(slope)


def median_time(times, budget):
    """The censored median over seeds, None if it sits at the budget (never reached)."""
    med, censored = A.censored_median(list(times.values()), budget)
    return None if censored else med


def analyse(results, args, R=A.RULES["v3"]):
    c, out = cells(args), {}
    h1c_room = [1 / l for l in H1C_LAMS]
    if "h1" in c:
        times = by_inverse(c["h1"], lambda cell: per_seed(cell, results, "struct_epoch"))
        out["H1: t_struct ~ 1/lambda (fixed, KL)"] = R.scaling(
            {x: t for x, t in times.items() if t}, args.fixed_budget, h1c_room, "1/lambda")
        # Amendment 2 (2026-11-24, before any H1 run): t_struct held for good, reported beside H1
        times = by_inverse(c["h1"], lambda cell: held_struct(cell, results))
        out[H1B] = R.scaling({x: t for x, t in times.items() if t}, args.fixed_budget, h1c_room, "1/lambda")
    if "h1c" in c:            # amendment 3: rule 6 over a room fixed in advance, on unseen seeds
        times = by_inverse(c["h1c"], lambda cell: per_seed(cell, results, "struct_epoch"))
        stored, planned = sum(map(len, times.values())), sum(map(len, c["h1c"].values()))
        out[H1C] = R.scaling(times, args.fixed_budget, h1c_room, "1/lambda") if stored == planned \
            else {"verdict": A.NOT_DECIDED, "n": 0, "reason": f"{stored} of its {planned} runs stored"}
    if "h2" in c:
        times = by_inverse(c["h2"], lambda cell: per_seed(cell, results))
        out["H2: t_grok ~ 1/wd (frozen oracle attention)"] = R.scaling(
            {x: t for x, t in times.items() if t}, args.frozen_budget, claims.ROOM_C11, "1/wd")
        met = []
        for cell in c["h2"].values():
            for label, cfg in cell:
                if label in results:
                    m = analysis.phase_marks(results[label][1])
                    bound = analysis.eq5_bound(m, results[label][0]["config"])
                    if bound is not None and m["t_mem"] is not None:
                        met.append((cfg.seed, m["t_grok"] - m["t_mem"] >= bound))
        seeds = sorted({s for s, _ in met})
        out["H2 (reported): plateau >= Eq. 5's bound"] = R.property(
            [all(ok for s2, ok in met if s2 == s) for s in seeds], "seeds all of whose frozen runs had a plateau at least the bound")
    if "h1" in c and "h2" in c and "h3" in c:
        out["H3: max(R, N) + c predicts held-out t_grok"] = composition(c, results, args)
    if "h4" in c:            # registered: the count with its 95% Clopper-Pearson interval and each t_grok
        cell = c["h4"]["fixed lam 0, 50k"]
        groks = per_seed(cell, results)
        k, n = sum(g is not None for g in groks.values()), len(groks)
        lo, hi = A.clopper_pearson_one_sided(k, n, alpha=(1 - A.LEVEL) / 2) if n else (None, None)
        each = ", ".join(f"seed {s} {'never' if g is None else g}" for s, g in sorted(groks.items()))
        out[H4] = {"verdict": "reported" if n == len(cell) else A.NOT_DECIDED, "n": n,
                   "text": f"{k}/{n} grokked (95% interval [{lo:.2f}, {hi:.2f}]); t_grok: {each}" if n else "no run stored",
                   "ci": [lo, hi] if n else None,
                   "reason": "five seeds cannot decide a property (rule 3); the count is the result" if n == len(cell)
                   else f"{n} of its {len(cell)} runs stored"}
    if "h5" in c:            # rule 2 on each part, once all of its runs are stored (like H1c and H4)
        b, h5 = args.fixed_budget, c["h5"]
        g = {k: per_seed(v, results) for k, v in h5.items()}
        for l in ("0.1", "1"):
            for part, (base, treated) in {"oracle faster than uniform": (f"uniform lam {l}", f"oracle lam {l}"),
                                          "uniform faster than the baseline": ("baseline", f"uniform lam {l}")}.items():
                out[f"H5 lambda {l}: {part}"] = when_all_stored(
                    R.speedup(g[base], g[treated], b), len(g[base]) + len(g[treated]), len(h5[base]) + len(h5[treated]))
        out[H5] = h5_outcome(out)
    return out


def h5_outcome(out):
    """docs/registered/two_clocks.md, H5: the information matters if "oracle faster than uniform" is
    reproduced at both lambdas; any gradient suffices if "uniform faster than the baseline"
    is reproduced at both and "oracle faster than uniform" at neither; otherwise not decided."""
    part = lambda l, name: out[f"H5 lambda {l}: {name}"]["verdict"]
    oracle = [part(l, "oracle faster than uniform") == A.REPRODUCED for l in ("0.1", "1")]
    uniform = [part(l, "uniform faster than the baseline") == A.REPRODUCED for l in ("0.1", "1")]
    waiting = [f"lambda {l}: {name}" for l in ("0.1", "1") for name in ("oracle faster than uniform", "uniform faster than the baseline")
               if part(l, name) == A.NOT_DECIDED]
    if all(oracle):
        return {"verdict": "the information matters", "n": 5, "reason": "oracle faster than uniform reproduced at both lambdas"}
    if all(uniform) and not any(oracle):
        return {"verdict": "any gradient suffices", "n": 5,
                "reason": "uniform faster than the baseline at both lambdas, oracle faster than uniform at neither"}
    return {"verdict": A.NOT_DECIDED, "n": 0 if waiting else 5,
            "reason": f"parts not decided yet: {'; '.join(waiting)}" if waiting else "neither registered pattern holds"}


def when_all_stored(verdict, stored, planned):
    """A registered part is judged on all of its seeds: with runs missing it is not decided,
    and what the stored runs say so far stays in the reason (2026-11-24: H5 read its partial
    seeds by rule 2 before, inconclusive at n = 1-3)."""
    if stored == planned:
        return verdict
    so_far = "; ".join(filter(None, [verdict.get("text"), verdict.get("reason")]))
    return {"verdict": A.NOT_DECIDED, "n": verdict.get("n", 0),
            "reason": f"{stored} of its {planned} runs stored" + (f"; so far: {so_far}" if so_far else "")}


def composition(c, results, args):
    """H3 as pre-registered: fit R and N once, predict every held-out cell by max(R, N) + c;
    beside it (reported, never deciding) the sequential rule R + N + c', c' fitted the same way.
    The verdict is given as soon as the stored cells fix it: with m cells allowed to miss, more
    than m misses fail H3 and enough hits hold it whatever the cells not stored yet show."""
    struct = {l: median_time(per_seed(c["h1"][f"lam {l:g}"], results, "struct_epoch"), args.fixed_budget)
              for l in args.fit_lams}
    norm = {wd: median_time(per_seed(c["h2"][f"wd {wd:g}"], results), args.frozen_budget) for wd in args.wds}
    R, N = loglaw([1 / l for l in struct], list(struct.values())), loglaw([1 / w for w in norm], list(norm.values()))
    if R is None or N is None:
        return {"verdict": A.NOT_DECIDED, "n": 0, "reason": "the routing or the norm law has fewer than two "
                "uncensored medians to fit"}
    clock = lambda icpt, slope, x: math.exp(icpt + slope * math.log(x))
    rules = {"max": lambda lam, wd: max(clock(*R, 1 / lam), clock(*N, 1 / wd)),
             "seq": lambda lam, wd: clock(*R, 1 / lam) + clock(*N, 1 / wd)}
    fit_groks = [(l, g) for l in args.fit_lams for g in per_seed(c["h1"][f"lam {l:g}"], results).values()]
    const = {k: float(np.median([A.censor(g, args.fixed_budget) - rule(l, 1.0) for l, g in fit_groks]))
             for k, rule in rules.items()}

    def within(pred, med, censored, budget):
        return (TOLERANCE[1] * pred >= budget) if censored else TOLERANCE[0] * pred <= med <= TOLERANCE[1] * pred

    rows, hits, seq_hits = {}, 0, 0
    for name, cell in c["h3"].items():
        lam, wd = float(name.split()[2]), float(name.split()[4].rstrip(","))
        budget = cell[0][1].epochs
        groks = per_seed(cell, results)
        if len(groks) < len(cell):
            rows[name] = {"stored": len(groks)}
            continue
        med, censored = A.censored_median(list(groks.values()), budget)
        pred, pred_seq = (rules[k](lam, wd) + const[k] for k in ("max", "seq"))
        ok, ok_seq = within(pred, med, censored, budget), within(pred_seq, med, censored, budget)
        hits, seq_hits = hits + ok, seq_hits + ok_seq
        rows[name] = {"predicted": pred, "median": med, "censored": censored, "within": bool(ok),
                      "predicted_seq": pred_seq, "within_seq": bool(ok_seq)}
    judged = sum("within" in r for r in rows.values())
    need = math.ceil(HOLD_FRACTION * len(rows) - 1e-9)             # 11 of 13
    out = {"n": judged, "routing_law": R, "norm_law": N, "constant": const["max"],
           "constant_seq": const["seq"], "cells": rows,
           "text": f"{hits}/{judged} held-out cells within [{TOLERANCE[0]}, {TOLERANCE[1]}] x the prediction "
                   f"(sequential R + N + c', reported: {seq_hits}/{judged})"}
    left = len(rows) - judged
    if hits >= need:
        verdict = A.REPRODUCED
    elif hits + left < need:
        verdict = A.NOT_REPRODUCED
    else:
        return {**out, "verdict": A.NOT_DECIDED, "reason": f"{left} held-out cells not stored yet; "
                f"H3 holds with {need} of {len(rows)} within"}
    return {**out, "verdict": verdict, "reason": f"holds if at least {need} of the {len(rows)} cells "
            f"({HOLD_FRACTION:.0%}) are within the tolerance" +
            (f"; {left} cells not stored yet cannot change it" if left else "")}


# ---------------------------------------------------------------------------------------
# Its lines in REPORT.md (audit/report.py lays them out)

def h3_cell(row, bold=True):
    """One held-out cell of the two clocks' H3: the deciding prediction max(R, N) + c against the
    measured median, and the sequential R + N + c' reported beside it."""
    if "predicted" not in row:
        return f"{row['stored']} of its runs stored"
    return (f"predicted {row['predicted']:.0f}, measured median {row['median']:.0f}"
            f"{' (censored)' if row['censored'] else ''}: {'within' if row['within'] else ('**miss**' if bold else 'miss')}"
            + (f" (sequential R + N + c', reported: {row['predicted_seq']:.0f}, "
               f"{'within' if row['within_seq'] else 'miss'})" if "predicted_seq" in row else ""))


def markdown(d, bold=True):
    """REPORT.md's section, from two_clocks.json alone: each part as recomputed by rules v3 (the rules
    that replaced the v2 it was registered under), rules v4's reading beside it, and v2's as registered."""
    lines = ["## Beyond the paper: the two clocks (pre-registered, docs/registered/two_clocks.md)", "",
             "Registered under rules v2; each part as registered (v2, frozen when v2 was removed), recomputed by "
             "rules v3 (H1 and H1b over H1c's room, H2 over C11's), and read by rules v4 beside (2026-12-03).", ""]
    registered, v4 = d.get("registered_v2", {}), d.get("verdicts_v4", {})
    for part, v in d["verdicts"].items():
        lines.append(f"- {part}: {A.describe(v, bold)}{medians_note(v)}")
        for name, row in v.get("cells", {}).items():
            lines.append(f"  - {name}: {h3_cell(row, bold)}")
        if part in v4 and (v4[part]["verdict"], v4[part].get("text")) != (v["verdict"], v.get("text")):
            lines.append(f"  - rules v4: {A.describe(v4[part], bold)}")
        elif part in v4:
            lines.append("  - rules v4: the same")
        if part in registered:
            verdict = f"**{registered[part][0]}**" if bold else registered[part][0]
            lines.append(f"  - as registered (rules v2): {verdict}, {registered[part][1]}")
    return lines + [""]


def medians_note(v):
    """A scaling verdict's median time per x (rule 6 reads its floor, cap and room off them)."""
    meds = v.get("medians")
    return "; median per x (censored at the budget): " + ", ".join(f"{x}: {m:.0f}" for x, m in meds.items()) if meds else ""


# ---------------------------------------------------------------------------------------
# The figure

def draw_law(a, v, fitted=None):
    """On one clock's panel: the per-x medians, rule 6's floor and its slope across the room
    (through the room's medians), and the law H3 fitted for its prediction (dashed)."""
    meds = {float(x): m for x, m in v.get("medians", {}).items()}
    if meds:
        a.plot(list(meds), list(meds.values()), "kx", ms=8, label="median over seeds")
    if v.get("floor"):
        a.axhline(v["floor"], color="C2", lw=0.8, ls="--", label=f"floor {v['floor']:.0f}")
    if "estimate" in v:
        room = np.array(v["room"])
        mid = np.exp(np.mean(np.log(room))), np.exp(np.mean([math.log(meds[float(f"{x:g}")]) for x in room]))
        a.plot(room, mid[1] * (room / mid[0]) ** v["estimate"], "C3-", lw=1.5,
               label=f"rule 6: slope {v['estimate']:.2f} [{v['ci'][0]:.2f}, {v['ci'][1]:.2f}]")
    if fitted is not None and meds:
        xs = np.geomspace(min(meds), max(meds), 20)
        a.plot(xs, np.exp(fitted[0] + fitted[1] * np.log(xs)), "C1--", lw=1, label=f"H3's fit: slope {fitted[1]:.2f}")
    if a.get_legend_handles_labels()[0]:
        a.legend(fontsize=7)


def plot(results, verdicts, args, path):
    plt = plots.pyplot()
    c = cells(args)
    fig, ax = plt.subplots(1, 4, figsize=(22, 4.8))
    scatter = lambda a, x, t, budget, color: a.scatter(x, budget if t is None else t, color=color, s=14,
                                                       marker="^" if t is None else "o",
                                                       facecolors="none" if t is None else color)
    for a, part, key, budget, xlabel in ((ax[0], "h1", "struct_epoch", args.fixed_budget, "1 / lambda"),
                                          (ax[1], "h2", "grok_epoch", args.frozen_budget, "1 / wd")):
        for name, cell in c.get(part, {}).items():
            x = 1 / float(name.split()[1])
            for t in per_seed(cell, results, key).values():
                scatter(a, x, t, budget, "C0")
            if part == "h1":                   # H1b's time beside H1's, nudged right to stay apart
                for t in held_struct(cell, results).values():
                    scatter(a, x * 1.08, t, budget, "C1")
        for name, cell in c.get("h1c", {}).items() if part == "h1" else ():   # H1c's seeds, nudged left
            for t in per_seed(cell, results, "struct_epoch").values():
                scatter(a, 0.93 / float(name.split()[1]), t, budget, "C2")
        a.axhline(budget, color="gray", lw=0.5, ls=":")
        a.set(xscale="log", yscale="log", xlabel=xlabel)
        grid = sorted(1 / float(name.split()[1]) for name in c.get(part, {}))
        a.set_xticks(grid, [f"{x:.3g}" for x in grid], minor=False)      # the grid's own values
        a.set_xticks([], minor=True)
        a.tick_params(axis="x", labelrotation=45)                         # 3.33 and 5 would collide
        if grid:
            a.set_xlim(grid[0] / 1.3, grid[-1] * 1.3)                     # the whole grid, stored or not
    ax[0].scatter([], [], color="C0", s=14, label="t_struct, first epoch B_tau holds (H1)")
    ax[0].scatter([], [], color="C1", s=14, label="t_struct held for good (H1b)")
    ax[0].scatter([], [], color="C2", s=14, label="t_struct, held-out seeds 5-9 (H1c)")
    ax[0].scatter([], [], color="gray", s=14, marker="^", facecolors="none", label="never: at the budget")
    h3 = next((v for k, v in verdicts.items() if k.startswith("H3")), {})
    for a, head, law in ((ax[0], "H1", "routing_law"), (ax[1], "H2:", "norm_law")):
        v = next((v for k, v in verdicts.items() if k.startswith(head)), {})
        draw_law(a, v, h3.get(law))
    ax[0].set(ylabel="t_struct (epochs)", title="H1 routing clock: t_struct against 1/lambda (fixed, KL)")
    ax[1].set(ylabel="t_grok (epochs)", title="H2 norm clock: t_grok against 1/wd (frozen oracle attention)")
    hue = lambda i: plt.cm.tab20((2 * i) % 20 + (2 * i) // 20)   # ten hues, then their light shades: 13 cells apart
    for i, (name, row) in enumerate(h3.get("cells", {}).items()):
        if "predicted" in row:
            ax[2].scatter(row["predicted"], row["median"], color=hue(i), label=name,
                          marker="^" if row["censored"] else "o")
            ax[2].scatter(row["predicted_seq"], row["median"], color=hue(i), marker="x", s=12, lw=0.8)
    lim = [300, 3 * args.fixed_budget]
    ax[2].plot(lim, lim, "k--", lw=0.8)
    ax[2].fill_between(lim, [TOLERANCE[0] * v for v in lim], [TOLERANCE[1] * v for v in lim], color="gray", alpha=0.2)
    ax[2].set(xscale="log", yscale="log", ylabel="measured median t_grok",
              xlabel="predicted t_grok: max(R, N) + c (deciding: o, ^ censored); R + N + c' (reported: x)",
              title="H3: held-out cells (band: the tolerance)")
    if any("predicted" in r for r in h3.get("cells", {}).values()):
        ax[2].legend(fontsize=6)
    else:
        ax[2].text(0.5, 0.5, "not decided: " + h3.get("reason", "H3's runs not asked for"), transform=ax[2].transAxes,
                   ha="center", fontsize=8, wrap=True)
    grad_ax = ax[3].twinx()                      # the task gradient to W spans decades: its own log axis
    for label, cfg in c.get("h4", {}).get("fixed lam 0, 50k", []):
        if label in results:                     # one colour per seed, one line style per quantity
            h, colour = results[label][1], f"C{cfg.seed % 10}"
            ax[3].plot(h["epoch"], h["info_mass"], lw=1, color=colour)
            ax[3].plot(h["epoch"], np.asarray(h["mlp_norm"]) / max(h["mlp_norm"]), lw=1, ls=":", color=colour)
            grad_ax.plot(h["epoch"], h["grad_W_norm"], lw=0.4, ls="--", color=colour, alpha=0.4)
            ax[3].plot([], [], color=colour, label=f"seed {cfg.seed}")
    grad_ax.set(yscale="log", ylabel="task gradient to W, ||dL/dW|| (dashed)")
    ax[3].set(xlabel="epoch", ylabel="informative mass (solid); MLP norm / its max (dotted)",
              title="H4: the fixed baseline over 50k epochs", ylim=(0, 1.25))       # headroom for the legend
    if ax[3].lines:
        grad_ax.legend(*ax[3].get_legend_handles_labels(), fontsize=6, ncol=5, loc="upper center",
                       framealpha=1)             # on the twin axis, so that no gradient line covers it
    else:
        ax[3].text(0.5, 0.5, "no H4 run stored", transform=ax[3].transAxes, ha="center", fontsize=8)
    head = lambda k: k.split(":")[0].split(" (amendment")[0]      # "H1b (amendment 2, ...)": "H1b"
    heads = [head(k) for k in verdicts]                  # H5 has two parts per lambda: named in full
    line = lambda ks: "; ".join(f"{k if heads.count(head(k)) > 1 else head(k)}: {verdicts[k]['verdict']}" for k in ks)
    plots.save_figure(fig, path, "The two clocks (pre-registered, docs/registered/two_clocks.md)\n" +
                      line([k for k in verdicts if not k.startswith("H5")]) + "\n" +
                      line([k for k in verdicts if k.startswith("H5")]))


def main(argv=None):
    args = parse(argv)
    os.makedirs(args.results_dir, exist_ok=True)
    try:
        results = sweep.run_sweep(planned_runs(args), args)
    except ValueError as e:
        raise SystemExit(f"error: {e}")
    verdicts, verdicts_v4 = analyse(results, args), analyse(results, args, A.RULES["v4"])
    registered = {} if args.quick else REGISTERED_V2     # v2's verdicts are the paper config's study
    summary = {"verdicts": verdicts, "verdicts_v4": verdicts_v4, "registered_v2": registered, "seeds": args.seeds,
               "parts": args.part}
    print("\n" + "\n".join(markdown(summary, bold=False)[2:]))
    store.write_json(os.path.join(args.results_dir, "two_clocks.json"), summary)
    plot(results, verdicts, args, os.path.join(args.results_dir, "two_clocks.png"))


if __name__ == "__main__":
    main()