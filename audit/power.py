"""The power plan (rules v3, docs/stats.md): for every part of a claim that rules v3 leave
inconclusive or not decided, how many seeds give an 80% chance of a decision either way,
computed from that part's own seed scatter in the store, what those seeds cost, and which
parts the plan runs. A part whose decision costs more than UNTESTABLE_HOURS is "untestable
here" (rule 7), with its cost; the plan runs the cheapest parts first, up to CAP_HOURS.

    python -m audit.power                 # print the plan (about 10 minutes: the scaling parts simulate the rule)
    python -m audit.power --write         # and write docs/plan.md and results/plan.json (audit/claims.py reads it)

"Either way": under the paper's effect (a 2x speed-up where the paper gives no size; twice
the smallest effect that counts for other effects; slope 1 for a law; a property that holds
in 95% of seeds; for "matches", equal times) and under no effect (1x; 0; slope 0; 5%; the
treatment 1.25^2 = 1.56x slower), each with the part's measured scatter, normal on the
per-seed scale the rule uses. The chance is the rule's own decision rate at n seeds
(t-intervals and binomial sums computed exactly as analysis.py does; scaling parts by
calling the rule on simulated data).
"""
import argparse
import functools
import gzip
import json
import math
import os
from collections import namedtuple

import numpy as np

from audit import rules as A
from audit import claims

POWER = 0.8
CAP_HOURS = 25.0             # the whole plan (issue #39)
UNTESTABLE_HOURS = 10.0      # rule 7: a part costlier than this is untestable here
MAX_SEEDS = 200
STORE = os.path.join("results", "store")
REPS = 4000

# A part's design: its claim and part name (audit/claims.py's), the kind of rule, the smallest effect
# that counts (the rule's scale), the truths' effect under the paper, and the new runs a seed
# costs: store key patterns ({seed}) of the arms to train for a new seed, whose cost is read off
# their stored runs (median epochs run x median ms/epoch, the speed they were trained at).
# `derived` arms are served by stored runs of another budget or stop (store.derived): free.
Design = namedtuple("Design", "claim part kind smallest paper arms seeds_now command note floor_x budget",
                    defaults=((), 5, "", "", None, 10000))
FRESH0 = "add_p113_fresh_seed{seed}_e10000_stop200"
FRESH1 = "add_p113_fresh_lam=1_seed{seed}_e10000_stop200"
DESIGNS = [
    Design("C1", "four phases in order (memorize, gradient collapse, condense before test acc 0.5, grok)",
           "property", None, 0.95, (FRESH0,), 5, "python exp_fig1_phases.py --seeds 0 ... N-1",
           "seeds 5-9 are the stored dense runs (Figure 4's), cut 200 epochs after grokking: no new run"),
    Design("C3", "distractors fresh: the prior removes the plateau (t_grok(0) / t_grok(lambda = 1))", "speedup",
           math.log(1.25), math.log(2), (FRESH0, FRESH1), 5, "python exp_fig3_kl.py --lam 0 1 --seeds 0 ... N-1",
           "the same comparison as C6's KL arm and C9's addition (one set of runs serves all three); the "
           "baseline's seeds 5-9 are derived from the dense runs"),
    Design("C3", "distractors fresh: t_grok - floor ~ 1/lambda over the named room (Eq. 7)", "scaling", None, 1.0,
           tuple(f"add_p113_fresh_lam={l}_seed{{seed}}_e10000_stop200" for l in ("0.003", "0.01", "0.03", "0.1", "0.3", "3")),
           5, "python exp_fig3_kl.py --seeds 0 ... N-1", floor_x=1 / 3),
    Design("C3b", "cell rho0.003_wd1_lam0 (the closest cell: none shows the paper's regime), seeds [5, 6, 7, 8, 9]: "
                  "t_grok - floor ~ 1/lambda over the named room (Eq. 7)", "scaling", None, 1.0,
           tuple(f"add_p113_refresh0.003_lam={l}_seed{{seed}}_e10000_stop200" for l in ("0.003", "0.01", "0.03", "0.1", "0.3", "3")),
           5, "python exp_fig3_kl.py --regime refresh0.003 --seeds 5 ... N+4 (held-out seeds from 5 on)", floor_x=1 / 3,
           note="seeds 0-4 of this regime were seen by the regime map's selection; new seeds start at 10"),
    Design("C4", "Bayesian ticket matches or outperforms the lottery ticket (non-inferiority, margin 1.25x)",
           "noninferiority", math.log(1.25), 0.0,
           ("add_p113_fresh_seed{seed}_e10000",
            "add_p113_fresh_init_from=add_p113_fresh_seed{seed}_e10000.init_mask=add_p113_fresh_seed{seed}_e10000.mask_lottery_keep0.4_seed{seed}_e10000_stop200",
            "add_p113_fresh_init_seed={init}_lam=0.1_seed{seed}_e10000_stop200"),
           10, "python exp_fig4_tickets.py --arms dense lottery bayes --seeds 0 ... N-1"),
    Design("C6", "teacher faster than weight decay alone", "speedup", math.log(1.25), math.log(2),
           (FRESH0, "add_p113_fresh_lam=1_prior=teacher_teacher=add_p113_fresh_seed{seed}_e10000_stop200.final_seed{seed}_e10000_stop200"),
           5, "python exp_appendix.py priors --seeds 0 ... N-1",
           "a new seed's teacher is its baseline's final weights (the baseline trains once more to store them)"),
    Design("C6", "anneal faster than weight decay alone", "speedup", math.log(1.25), math.log(2),
           (FRESH0, "add_p113_fresh_lam=1_prior_anneal=1000_seed{seed}_e10000_stop200"), 5,
           "python exp_appendix.py priors --seeds 0 ... N-1"),
    Design("C7", "KL faster under dynamic routing", "speedup", math.log(1.25), math.log(2),
           ("route_p113_fresh_seed{seed}_e10000_stop200", "route_p113_fresh_lam=1_seed{seed}_e10000_stop200"), 5,
           "python exp_appendix.py routing --seeds 0 ... N-1"),
    Design("C7", "KL keeps higher accuracy at longer test lengths", "effect", 0.05, 0.10,
           ("add_p113_fresh_n_distractors=3_pos_slots=24_seed{seed}_e10000_stop200",
            "add_p113_fresh_lam=1_n_distractors=3_pos_slots=24_seed{seed}_e10000_stop200"), 5,
           "python exp_appendix.py lengths --seeds 0 ... N-1"),
    Design("C8", "4 heads meet B_tau in aggregate while no single head does", "property", None, 0.95,
           ("add_p113_fresh_n_heads=4_seed{seed}_e10000_stop200",), 5, "python exp_appendix.py heads --seeds 0 ... N-1"),
    Design("C9", "add: the bound holds, and starves the attention gradient after memorization", "property", None, 0.95,
           (FRESH0,), 5, "python exp_appendix.py tasks --tasks add --seeds 0 ... N-1",
           "the baseline's seeds 5-9 are derived from the dense runs; the KL arm is C3's"),
    Design("C9", "perm: KL faster", "speedup", math.log(1.25), math.log(2),
           ("perm_p113_fresh_seed{seed}_e30000_stop200", "perm_p113_fresh_lam=1_seed{seed}_e30000_stop200"), 0,
           "python exp_appendix.py tasks --tasks perm --epochs 30000 --seeds 0 ... N-1",
           "no run of either arm grokked within 10,000 epochs: no scatter is known, so it is costed at ten seeds "
           "of a 30,000-epoch budget that may still not suffice"),
    Design("C9", "perm: the bound holds, and starves the attention gradient after memorization", "property", None, 0.95,
           ("perm_p113_fresh_seed{seed}_e10000_stop200",), 4, "python exp_appendix.py tasks --tasks perm --seeds 0 ... N-1"),
    Design("C9", "arparity: the bound holds, and starves the attention gradient after memorization", "property",
           None, 0.95, ("arparity_p113_fixed_batch_size=512_seed{seed}_e10000_stop200",), 2,
           "python exp_appendix.py autoregressive --seeds 0 ... N-1", "2 of 5 seeds have a plateau to measure: "
           "the seeds needed are divided by that share"),
    Design("C10", "frozen oracle attention groks faster than the baseline", "speedup", math.log(1.25), math.log(2),
           (FRESH0, "add_p113_fresh_frozen_attn=oracle_seed{seed}_e10000_stop200"), 5,
           "python exp_appendix.py frozen --seeds 0 ... N-1"),
    Design("C10", "adamw: the MLP norm contracts on the plateau", "property", None, 0.95, (FRESH0,), 5,
           "python exp_appendix.py optimizers --settings adamw --seeds 0 ... N-1",
           "AdamW is the baseline: its seeds 5-9 are derived from the dense runs"),
    Design("C10", "beta2_0.98: the MLP norm contracts on the plateau", "property", None, 0.95,
           ("add_p113_fresh_beta2=0.98_seed{seed}_e10000_stop200",), 4,
           "python exp_appendix.py optimizers --settings beta2_0.98 --seeds 0 ... N-1"),
    Design("C10", "beta1_0.5: the MLP norm contracts on the plateau", "property", None, 0.95,
           ("add_p113_fresh_beta1=0.5_seed{seed}_e10000_stop200",), 5,
           "python exp_appendix.py optimizers --settings beta1_0.5 --seeds 0 ... N-1"),
] + [
    Design("C11", f"{name}: t_grok ~ 1/wd over the named room", "scaling", None, 1.0,
           tuple(f"add_p113_{regime}_{wd}seed{{seed}}_e40000_stop200" for wd in ("wd=0.5_", "", "wd=2_")), 0,
           f"python -m audit.regime_map --part baseline wd --rhos {rho} --epochs 40000 --seeds 0 ... N-1",
           "a 40,000-epoch budget, so that the named room's medians are measured; runs that grokked within "
           "10,000 epochs are derived from the stored ones", budget=40000)
    for regime, name, rho in (("fixed", "fixed", 0), ("refresh0.001", "rho 0.001", 0.001),
                              ("refresh0.003", "rho 0.003", 0.003), ("refresh0.01", "rho 0.01", 0.01),
                              ("fresh", "fresh", 1))
] + [
    Design("C11", f"{name}: plateau >= Eq. 5's bound", "property", None, 0.95,
           tuple(f"add_p113_{regime}_{wd}seed{{seed}}_e40000_stop200" for wd in ("wd=0.5_", "", "wd=2_")), 5,
           "python -m audit.regime_map --part wd --seeds 0 ... N-1", "measured on the same runs as the 1/wd law")
    for regime, name in (("refresh0.003", "rho 0.003"), ("refresh0.01", "rho 0.01"), ("fresh", "fresh"))
]


# ---------------------------------------------------------------------------------------
# The rule's decision rate at n seeds

def t_decided(n, mu, sd, decide, reps=REPS, seed=0):
    """P(the rule decides) for per-seed values ~ N(mu, sd) at n seeds: decide(lo, hi) -> bool."""
    rng = np.random.default_rng(seed)
    x = rng.normal(mu, sd, (reps, n))
    half = A.t_quantile(0.975, n - 1) * x.std(1, ddof=1) / math.sqrt(n)
    return float(np.mean(decide(x.mean(1) - half, x.mean(1) + half)))


def seeds_for(decided_at, start=5, step=1):
    """The fewest seeds n >= start (in steps of `step`, then bisected) at which decided_at(n) >=
    POWER, None past MAX_SEEDS. Costly rules (scaling) search a doubling ladder, then bisect."""
    if step == 1:
        n = start
        while n <= MAX_SEEDS:
            if decided_at(n) >= POWER:
                return n
            n = n + 1 if n < 40 else n + 5
        return None
    lo, hi = start - 1, start
    while decided_at(hi) < POWER:
        lo, hi = hi, hi * 2
        if hi > MAX_SEEDS:
            return None
    while hi - lo > max(1, hi // 10):          # within 10%
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if decided_at(mid) >= POWER else (mid, hi)
    return hi


def property_decided(n, p):
    ks = [k for k in range(n + 1) if A.property_verdict([True] * k + [False] * (n - k))["verdict"]
          in (A.REPRODUCED, A.NOT_REPRODUCED)]
    return sum(math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in ks)


def scaling_decided(n, room, sigma, slope, budget, level, floor=0.0, floor_x=None, reps=200, seed=0):
    """The rule's decision rate on simulated laws with log-normal seed scatter sigma, censored at
    the budget: without a floor, t = level (x / x_gm)^slope (x_gm the room's geometric mean);
    with one (Eq. 7), t = floor + level (x / x_max)^slope at the room and t = floor at the floor
    cell, and slope 0 means no law at all: t = floor everywhere (a flat curve)."""
    rng = np.random.default_rng(seed)
    x_gm, x_max = math.exp(np.mean(np.log(room))), max(room)
    if floor_x is None:
        law = lambda x: level * (x / x_gm) ** slope
    else:
        law = lambda x: floor if (x == floor_x or slope == 0) else floor + level * (x / x_max) ** slope
    grid = list(room) + ([floor_x] if floor_x is not None else [])
    got = 0
    for _ in range(reps):
        times = {x: {s: (None if t > budget else float(t)) for s, t in
                     enumerate(law(x) * np.exp(rng.normal(0, sigma, n)))} for x in grid}
        got += A.scaling_verdict_v3(times, budget, room, floor_x=floor_x)["verdict"] in (A.REPRODUCED, A.NOT_REPRODUCED)
    return got / reps


def scaling_outcomes(n, room, sigma, slope, budget, level, reps=2000, seed=0, rule=A.scaling_verdict_v4):
    """The share of each verdict `rule` gives on simulated laws without a floor, t = level (x / x_gm)^slope
    with log-normal scatter sigma drawn afresh per cell and seed (the real seeds' are correlated across
    cells, which makes a per-seed slope steadier: this errs low), censored at the budget."""
    rng, x_gm, out = np.random.default_rng(seed), math.exp(np.mean(np.log(room))), {}
    for _ in range(reps):
        times = {x: {s: (None if t > budget else float(t)) for s, t in
                     enumerate(level * (x / x_gm) ** slope * np.exp(rng.normal(0, sigma, n)))} for x in room}
        v = rule(times, budget, room)["verdict"]
        out[v] = out.get(v, 0) + 1 / reps
    return out


# docs/plan.md, seventh addendum (row 19): C11's 1/wd law in `fresh` on 16 new seeds, its power at the scatter and
# level seeds 0-11 showed (per-seed sigma 0.415; geometric mean of the room's medians 1,720, 3,175, 6,325 epochs)
ROW19 = dict(n=16, room=(0.5, 1.0, 2.0), sigma=0.415, budget=40000, level=3270.0)
ROW19_SLOPES = {"slope 1 (the paper's)": 1.0, "slope 0.89 (seeds 0-11)": 0.89, "slope 0.5 (the margin's edge)": 0.5,
                "no law (slope 0)": 0.0}


def row19_table():
    rows = ["| truth (16 seeds) | reproduced | inconclusive | not reproduced |", "|---|---|---|---|"]
    for label, slope in ROW19_SLOPES.items():
        o = scaling_outcomes(slope=slope, **ROW19)
        rows.append(f"| {label} | " + " | ".join(f"{100 * o.get(v, 0):.0f}%" for v in
                                                  (A.REPRODUCED, A.INCONCLUSIVE, A.NOT_REPRODUCED)) + " |")
    return "\n".join(rows)


def scatter(v):
    """The per-seed sd behind a verdict's t-interval: (hi - lo) / 2 / t * sqrt(n)."""
    n = v["n"]
    return (v["ci"][1] - v["ci"][0]) / 2 / A.t_quantile(0.975, n - 1) * math.sqrt(n)


# ---------------------------------------------------------------------------------------
# Cost

@functools.lru_cache(maxsize=None)
def _names(store):
    return tuple(sorted(os.listdir(store)))


def _key(pattern, seed):
    """An arm's store key at one seed; {init} is the Bayesian ticket's fresh initialisation, seed +
    1000 (exp_fig4_tickets.ticket_runs)."""
    return pattern.format(seed=seed, init=seed + 1000)


def _stored(stem, seed, store=STORE):
    """Every stored summary of one arm's seed, under any budget or early stop."""
    prefix = f"{_key(stem, seed)}_seed{seed}_e"
    out = []
    for name in _names(store):
        if name.startswith(prefix) and name.endswith(".json.gz"):
            with gzip.open(os.path.join(store, name), "rt") as fh:
                out.append(json.load(fh)["summary"])
    return out


def arm_hours(pattern, n_seeds, store=STORE):
    """Core-hours to have one arm (a store key pattern with {seed}) at seeds 0..n_seeds-1: a
    seed stored under this key, or under another budget or stop that holds it (store.derived),
    is free; one stored that never grokked within a smaller budget is retrained whole (no
    checkpoint survives a session); a new seed costs what the stored seeds cost on average
    (their epochs if they grokked within this budget, else the budget). Speed: the stored runs'
    median ms/epoch (the paper's configuration's 39 ms if none is stored). An arm with no early
    stop (Figure 4's dense runs) is kept for its final weights, which only its own key stores: no
    other run holds it, and a new seed runs the whole budget."""
    stem, rest = pattern.rsplit("_seed{seed}_", 1)
    budget = int(rest.split("_")[0][1:])
    whole = "_stop" not in rest
    seen, ms, costs = {}, [], []
    for seed in range(max(n_seeds, 10)):
        runs = _stored(stem, seed, store)
        if runs:
            seen[seed] = runs
            ms += [r["ms_per_epoch"] for r in runs]
    speed = float(np.median(ms)) if ms else 39.0
    per_new = []
    for runs in seen.values():
        g = [r["grok_epoch"] for r in runs if r["grok_epoch"] is not None]
        per_new.append(min(g) + 200 if g and min(g) + 200 <= budget else budget)
    per_new = float(np.mean(per_new)) if per_new and not whole else budget
    hours = 0.0
    for seed in range(n_seeds):
        runs = seen.get(seed, [])
        if whole:
            holds = os.path.exists(os.path.join(store, _key(pattern, seed) + ".json.gz"))
        else:
            holds = any(r["grok_epoch"] is not None and r["grok_epoch"] + 200 <= min(budget, r["epochs_run"])
                        or r["epochs_run"] >= budget for r in runs)
        if holds:
            continue
        hours += (budget if runs else per_new) * speed / 3.6e6
    return hours


def plan(results="results"):
    table = claims.verdicts(results, with_plan=False, plan_seeds=False)
    rows = []
    for d in DESIGNS:
        v = table.get(d.claim, (None, {}))[1].get(d.part)
        if v is None or v["verdict"] in (A.REPRODUCED, A.NOT_REPRODUCED, A.UNTESTABLE):
            continue
        row = dict(claim=d.claim, part=d.part, verdict=v["verdict"], kind=d.kind, command=d.command, note=d.note,
                   seeds_now=d.seeds_now)
        if d.kind in ("speedup", "effect", "noninferiority") and "ci" in v and v.get("n", 0) >= 2:
            sd = scatter(v)
            if d.kind == "noninferiority":
                m = d.smallest
                truths = {"matches (1x)": (0.0, lambda lo, hi: hi < m), "1.56x slower": (2 * m, lambda lo, hi: lo > m)}
            else:
                none = lambda lo, hi: (hi < d.smallest) | (lo > 0)
                truths = {"paper": (d.paper, none), "none": (0.0, none)}
            n = seeds_for(lambda n: min(t_decided(n, mu, sd, f) for mu, f in truths.values()))
            row.update(scatter=sd, seeds=n, power={k: t_decided(n or MAX_SEEDS, mu, sd, f) for k, (mu, f) in truths.items()})
        elif d.kind == "property":
            share = d.seeds_now / 5 if d.seeds_now < 5 else 1.0          # seeds with a measurable value
            n = seeds_for(lambda n: min(property_decided(n, 0.95), property_decided(n, 0.05)), start=5)
            n = math.ceil(n / share)
            row.update(seeds=n, power={"holds (95%)": property_decided(n, 0.95), "absent (5%)": property_decided(n, 0.05)})
        elif d.kind == "scaling":
            room = [float(x) for x in v.get("room_named", [])]
            sigma = v.get("sigma") or 0.45           # the part's own, else C11 fresh's (0.45)
            meds = {float(x): m for x, m in v.get("medians", {}).items() if float(x) in v.get("room", [])}
            floor = v.get("floor") or 0.0
            floor_x = d.floor_x
            if floor_x is None:
                level = math.exp(np.mean(np.log(list(meds.values())))) if meds else 5000.0   # measured, else a guess
            else:                                    # the excess over the floor at the room's weakest prior
                level = max(meds[max(meds)] - floor, 0.25 * floor) if meds else floor
            budget = d.budget
            at = lambda n, b: scaling_decided(n, room, sigma, b, budget, level, floor, floor_x)
            n = seeds_for(lambda n: min(at(n, 1.0), at(n, 0.0)), start=5, step=2)
            at_most = n or 160       # the largest design the doubling search simulates when none decides (5 ... 160)
            row.update(seeds=n, scatter=sigma, power={"slope 1": at(at_most, 1.0), "no law": at(at_most, 0.0)})
        else:                              # no scatter known (no run grokked): ten seeds, costed
            row.update(seeds=10, power={}, note=d.note)
        n = row["seeds"] or MAX_SEEDS
        row.update(new_seeds=max(0, n - d.seeds_now), hours=sum(arm_hours(a, n) for a in d.arms),
                   power_min=min(row["power"].values()) if row["power"] else 0.0)
        rows.append(row)
    rows.sort(key=lambda r: r["hours"])
    spent = 0.0
    for r in rows:
        if r["seeds"] is None or r["hours"] > UNTESTABLE_HOURS:
            r["untestable"] = claims.cost_text(r) + f": at a per-seed scatter of {r.get('scatter', float('nan')):.2f}"
            r["design"] = r["command"].replace("N-1", str((r["seeds"] or MAX_SEEDS) - 1))
        elif spent + r["hours"] <= CAP_HOURS:
            r["in_plan"] = True
            spent += r["hours"]
        else:
            r["untestable"] = f"outside the plan's {CAP_HOURS:g}-core-hour cap ({r['hours']:.1f} core-hours)"
            r["design"] = r["command"].replace("N-1", str(r["seeds"] - 1))
    return {"rows": rows, "hours": spent, "cap": CAP_HOURS, "power": POWER}


def markdown(p):
    out = ["| claim | part | v3 now | seeds for 80% | power (each truth) | new seeds | core-hours | plan |",
           "|---|---|---|---|---|---|---|---|"]
    for r in p["rows"]:
        pw = ", ".join(f"{k} {v:.2f}" for k, v in r["power"].items()) or "unknown"
        where = "**run**" if r.get("in_plan") else f"untestable here: {r['untestable']}"
        out.append(f"| {r['claim']} | {r['part']} | {r['verdict']} | {r['seeds'] or '>' + str(MAX_SEEDS)} | {pw} | "
                   f"{r['new_seeds']} | {r['hours']:.1f} | {where} |")
    out.append("")
    out.append(f"In the plan: {sum(1 for r in p['rows'] if r.get('in_plan'))} parts, {p['hours']:.1f} core-hours at the "
               f"speed the stored runs were trained (about half that on a fast machine), cap {p['cap']:g}.")
    return "\n".join(out)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", action="store_true", help="write results/plan.json and the table into docs/plan.md")
    args = ap.parse_args()
    p = plan()
    print(markdown(p))
    if args.write:
        with open(os.path.join("results", "plan.json"), "w") as f:
            json.dump(p, f, indent=1, default=float)
        path = os.path.join("docs", "plan.md")
        text = A.replace_block(open(path).read(), "<!-- generated by power.py -->", "<!-- end of plan -->", markdown(p))
        with open(path, "w") as f:
            f.write(text)
        print(f"wrote results/plan.json and {path}")