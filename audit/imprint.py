"""Beyond the paper, part six: what the uniform KL leaves behind while the model memorizes. Part five
(docs/registered/plateau.md) found that in `fresh` the KL toward uniform attention, switched off at
epoch 200, still ends a plateau thousands of epochs later sooner than lambda 0. Three questions about
what it leaves behind, registered in docs/registered/imprint.md before any of their runs:

  Q1  noise or target form: a 2x2 of target {uniform, oracle} x distractors {redrawn, one pad token},
      judged by the per-seed interaction of log(t_oracle / t_uniform) across the two
  Q2  which weights carry it: at epoch 200, one group of weights (with its AdamW moments) moved from
      the uniform-off-200 run into the lambda 0 run of the same seed, and the reverse
  Q3  the logit-scale account: App. G's QK penalty during epochs 0-200 only, at the strength a pilot
      chose to match the uniform KL's attention-weight norm at epoch 200

    python -m audit.imprint --jobs 2 --threads 1      # every run (seed by seed, resumable)
    python -m audit.imprint --plot-only               # judge and draw from the store
    python -m audit.imprint --power                   # the registration's power tables, recomputed
    python -m audit.imprint --pilot                   # Q3's pilot: the QK penalty's strength
    python -m audit.imprint --quick                   # the small model, one seed, a few minutes
"""
import argparse
import collections
import copy
import math
import os

import numpy as np

import analysis
import plots
import runfolder
import store
import sweep
from audit import plateau as P
from audit import dates as D
from audit import rules as A

LAM = 0.3                        # the information study's and part five's strength
SWITCH = 200                     # part five's early switch-off: inside memorization in every stored fresh run
BUDGET = 10000                   # part five's in `fresh` (justified in docs/registered/information.md)
SEEDS = tuple(range(400, 440))   # Q1; no store run used a seed from 251 to 299 or from 301 on
SEEDS_Q23 = SEEDS[:20]           # Q2 and Q3 (their lambda 0 runs are Q1's)
PILOT_SEEDS = (390, 391, 392)    # Q3's pilot, disjoint from the study's
SMALLEST = A.SMALLEST_SPEEDUP    # rules v4: 1.25x counts
DECIDING_ACC = 0.95              # t_95 decides, as in parts four and five
MEMORIZED_SHARE = D.number("part six memorized")   # a registered check: every arm memorizes in half its runs
MASS_BAND = D.number("part six mass")   # a registered check (ours): uniform's distractor mass, redrawn / pad, within 1.5x
NORM_BAND = D.number("part six norm")   # Q3's check (ours): its attention norm at epoch 200 within 1.1x of uniform off 200's

# Q1: arm -> train.py's changes from the paper config (all in `fresh`; pad: one pad token as every distractor)
PAD = {"distractor_vocab": "pad"}
Q1_ARMS = {"lambda 0": {}, "uniform": {"lam": LAM, "prior": "uniform"}, "oracle": {"lam": LAM},
           "lambda 0 pad": PAD, "uniform pad": {"lam": LAM, "prior": "uniform", **PAD}, "oracle pad": {"lam": LAM, **PAD}}
# the interaction: + log t_oracle - log t_uniform (redrawn) - log t_oracle pad + log t_uniform pad
TERMS = (("oracle", +1), ("uniform", -1), ("oracle pad", -1), ("uniform pad", +1))

# Q2: the two parents (lambda 0 is Q1's arm) and the groups of model.Transformer's parameters moved between them
OFF = f"uniform off {SWITCH}"
PARENTS = {"lambda 0": {}, OFF: {"lam": LAM, "prior": "uniform", "prior_stop": SWITCH}}
GROUPS = {"W_Q W_K": ("W_Q", "W_K"), "W_V W_O": ("W_V", "W_O"), "embeddings": ("embed", "pos"),
          "MLP": ("W_in", "b_in", "W_out", "b_out"), "unembedding": ("W_U",)}
TAG = {"lambda 0": "lambda0", OFF: f"uniform_off{SWITCH}"}           # the parents' names in a store key
GROUP_TAG = {"W_Q W_K": "qk", "W_V W_O": "vo", "embeddings": "embed", "MLP": "mlp", "unembedding": "unembed"}


def child(base, group):
    """A transplant's arm name: `base`'s run with `group` taken from the other parent at SWITCH."""
    donor = OFF if base == "lambda 0" else "lambda 0"
    return f"{base} + {group} of {donor}"


CHILDREN = {child(base, g): (base, g) for base in PARENTS for g in GROUPS}
# The machine check (amendment 1, 2026-12-06: described beside Q2's reading, never deciding). Q2's children were
# trained on another CPU than their parents, and another CPU's rounding makes another run: a child's re-trained
# first SWITCH epochs are not its parent's bitwise. A transplant of nothing, trained where the children were, is
# the base parent as the children continue it; Q2's comparisons are read again against it.
NOTHING = "nothing"
NULLS = {f"{base} + {NOTHING}": base for base in PARENTS}
MOVED = {**CHILDREN, **{arm: (base, None) for arm, base in NULLS.items()}}     # every transplant: (base, group or None)

# Q3: the QK penalty during epochs 0-SWITCH only, at the pilot's strength (None before the pilot)
QK_C = D.number("part six qk")  # the pilot's choice (results/imprint_pilot.json, 2026-12-04)
QK_ARM = f"QK penalty to {SWITCH}"
PILOT = dict(seeds=PILOT_SEEDS, epochs=SWITCH, low=1e-4, high=1.0, steps=8)
QUICK = dict(p=sweep.QUICK_MODEL["p"], seeds=[0], epochs=800)    # 18 small runs: about a minute on 2 cores
QUICK_C = 1e-3                   # --quick's QK strength (no pilot at its scale)
CHUNK = 2                        # seeds trained per sweep call


# ---------------------------------------------------------------------------------------
# The runs

def budget(args):
    return args.epochs if args.quick else BUDGET


def config(args, seed, epochs=None, **changes):
    """Every arm logs the attention mass and AdamW's updates (--log-updates: logged, never used in the step);
    epochs: the study's budget unless given (the pilot's runs are SWITCH epochs long)."""
    return sweep.study_config(args, seed, regime="fresh", epochs=epochs or budget(args), log_updates=True, **changes)


def transplant_config(args, seed, arm):
    base, group = MOVED[arm]
    donor = OFF if base == "lambda 0" else "lambda 0"
    tag = GROUP_TAG[group] if group else NOTHING
    return config(args, seed, **PARENTS[base], transplant=f"{tag}_from_{TAG[donor]}_at{SWITCH}")


def qk_config(args, seed, c, epochs=None):
    return config(args, seed, epochs, qk_penalty=c, qk_stop=SWITCH)


def seed_runs(args, seed, q23=True, c=None, part="first"):
    """One seed's (label, cfg). part "first": Q1's six arms, then (on Q2 and Q3's seeds) uniform off 200
    and the QK arm (once the pilot chose its strength); part "transplants": Q2's ten transplants; part
    "machine check": the two transplants of nothing (amendment 1)."""
    c = QK_C if c is None else c
    if part in ("transplants", "machine check"):
        arms = CHILDREN if part == "transplants" else NULLS
        return [(f"q2/{arm}/seed{seed}", transplant_config(args, seed, arm)) for arm in arms] if q23 else []
    out = [(f"q1/{arm}/seed{seed}", config(args, seed, **ch)) for arm, ch in Q1_ARMS.items()]
    if q23:
        out.append((f"q2/{OFF}/seed{seed}", config(args, seed, **PARENTS[OFF])))
        if c:
            out.append((f"q3/{QK_ARM}/seed{seed}", qk_config(args, seed, c)))
    return out


def planned_parts(args):
    """[(part, seeds, runs)] in the order trained: every seed's Q1 and Q3 runs (with uniform off 200), then
    Q2's transplants, CHUNK seeds at a time, so that a sweep cut short leaves whole seeds of the cheaper
    questions behind, then the machine check's runs. --quick: its one seed takes every question, the QK arm at QUICK_C."""
    q23 = set(args.seeds) if args.quick else set(SEEDS_Q23)
    c = QUICK_C if args.quick else QK_C
    return [(part, args.seeds[k:k + CHUNK], [r for s in args.seeds[k:k + CHUNK] for r in seed_runs(args, s, s in q23, c, part)])
            for part in ("first", "transplants", "machine check") for k in range(0, len(args.seeds), CHUNK)]


def planned_runs(args):
    return [r for _, _, runs in planned_parts(args) for r in runs]


def arm_of(label):
    return label.split("/")[1]


# ---------------------------------------------------------------------------------------
# Q2's transplant: the study composes the checkpoint at SWITCH; train.py resumes it (bitwise, runfolder.py)

class _Stop(Exception):
    pass


def prefix_checkpoint(cfg, folder, epoch=SWITCH):
    """Train cfg's first `epoch` epochs and leave the loop's state before epoch `epoch` (weights, AdamW's
    moments, the distractors, the random streams, the log so far) in folder/checkpoint.pt."""
    import train
    c = copy.deepcopy(cfg)
    c.out, c.checkpoint_every, c.quiet = folder, epoch, True
    path = runfolder.checkpoint_path(folder)
    if os.path.exists(path):
        os.remove(path)
    os.makedirs(folder, exist_ok=True)

    def stop(e, run):
        if e == epoch:
            raise _Stop
    try:
        train.train(c, on_step=stop)
    except _Stop:
        pass
    return path


def param_index(cfg):
    """{parameter name: its index in the optimizer's state}, as train.py builds the optimizer for cfg."""
    import torch
    import train
    from optim import build_optimizer
    _, model = train.build_run(cfg, torch.device("cpu"))
    opt = build_optimizer(model, cfg.optimizer, cfg.lr, cfg.wd, (cfg.beta1, cfg.beta2), cfg.decay_norms)
    name = {id(p): n for n, p in model.named_parameters()}
    order = [name[id(p)] for g in opt.param_groups for p in g["params"]]
    return {n: i for i, n in enumerate(order)}


def compose(child_cfg, base_path, donor_path, names, out_path):
    """A checkpoint for child_cfg: the base run's state at SWITCH with the parameters `names` and their
    AdamW moments from the donor's. The two parents must have seen the same distractors."""
    import torch
    base, donor = torch.load(base_path, map_location="cpu"), torch.load(donor_path, map_location="cpu")
    if base["epoch"] != donor["epoch"] or not torch.equal(base["train_x"], donor["train_x"]):
        raise ValueError("the two parents are not at the same epoch with the same distractors")
    index = param_index(child_cfg)
    state = copy.deepcopy(base)
    for n in names:
        state["model"][n] = donor["model"][n].clone()
        state["opt"]["state"][index[n]] = copy.deepcopy(donor["opt"]["state"][index[n]])
    from config import semantic_config
    state["config"] = semantic_config(child_cfg)
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    runfolder.atomic_write(out_path, lambda f: torch.save(state, f), mode="wb")


def prepare_transplants(args, seed, todo):
    """Compose the checkpoint of every transplant of `seed` in `todo` (labels not yet stored) into its run
    folder, from the two parents' first SWITCH epochs (trained here: a few seconds each)."""
    children = [(label, cfg) for label, cfg in todo if arm_of(label) in MOVED
                and not os.path.exists(runfolder.checkpoint_path(os.path.join(args.runs_dir, store.run_key(cfg))))]
    if not children:
        return
    prefixes = {}
    for parent, changes in PARENTS.items():
        cfg = config(args, seed, **changes)
        cfg.threads, cfg.device = getattr(args, "threads", 0) or 1, args.device
        prefixes[parent] = prefix_checkpoint(cfg, os.path.join(args.runs_dir, "prefix", f"{store.run_key(cfg)}_at{SWITCH}"))
    for label, cfg in children:
        base, group = MOVED[arm_of(label)]
        donor = OFF if base == "lambda 0" else "lambda 0"
        out = os.path.join(args.runs_dir, store.run_key(cfg))
        if not os.path.exists(os.path.join(out, "summary.json")) and not os.path.exists(runfolder.checkpoint_path(out)):
            compose(cfg, prefixes[base], prefixes[donor], GROUPS[group] if group else (), runfolder.checkpoint_path(out))
            # cut short keeps its own later checkpoint (train.py checks it is this config's)


# ---------------------------------------------------------------------------------------
# What each run gives

def measures(summary, history):
    """Part five's measures (t_95, held t_95, t_grok, t_mem, the distractor mass while memorizing and on
    the plateau, AdamW's updates, test accuracy at the end) and the attention weights' norm at SWITCH."""
    m = P.measures(summary, history)
    at = [v for e, v in zip(history["epoch"], history["attn_norm"]) if e == SWITCH]
    m["attn_norm_switch"] = at[0] if at else None
    m["cpu"] = summary.get("device_name")       # the machine check: children and their nulls on one CPU
    before = [i for i, e in enumerate(history["epoch"]) if e < SWITCH]    # and one re-trained start
    m["log_before_switch"] = [history[k][before[-1]] for k in ("train_loss", "mlp_norm", "attn_norm")] if before else None
    return m


def starts(per_run, seed):
    """{parent: [the log before SWITCH of each arm that continues it: the parent's own run first, then its
    children and its transplant of nothing]} on one seed."""
    base_of = {a: b for a, (b, _) in MOVED.items()}
    return {b: [str(per_run[b][seed]["log_before_switch"])] + [str(per_run[a][seed]["log_before_switch"])
                                                              for a in base_of if base_of[a] == b] for b in PARENTS}


def collect(results):
    """{arm: {seed: measures}} from run_sweep's {label: (summary, history)}."""
    out = {}
    for label, (summary, history) in results.items():
        out.setdefault(arm_of(label), {})[summary["config"]["seed"]] = measures(summary, history)
    return out


# ---------------------------------------------------------------------------------------
# Q1: the interaction

def interaction(times, budget_):
    """Per seed log(t_oracle / t_uniform) - log(t_oracle pad / t_uniform pad) on t_95 ({arm: {seed: t}}),
    a run that never reached 0.95 censored at the budget: the effect is a lower bound (+1) when only
    terms with + are censored, an upper bound (-1) when only terms with -, and is left out (no
    information) when both kinds are. Returns (effects, bounds, seeds, left_out)."""
    effects, bounds, seeds, left = [], [], [], []
    for s in sorted(set.intersection(*(set(times[a]) for a, _ in TERMS))):
        signs = {sign for a, sign in TERMS if times[a][s] is None}
        if len(signs) > 1:
            left.append(s)
            continue
        effects.append(sum(sign * math.log(times[a][s] or budget_) for a, sign in TERMS))
        bounds.append(signs.pop() if signs else 0)
        seeds.append(s)
    return effects, bounds, seeds, left


def ratio(x):
    return f"{math.exp(x):.2f}x" if math.isfinite(x) else ("0" if x < 0 else "inf")


def judge_q1(times, budget_):
    """The interaction by rules v4's effect part against 1.25x; P, uniform pad faster than oracle pad, by its
    speed-up part; K1-style anchors beside. {name: verdict}."""
    effects, bounds, seeds, left = interaction(times, budget_)
    note = f"{len(left)} seeds censored on both sides, left out" if left else ""
    i = A.effect_verdict_v4(effects, math.log(SMALLEST), "interaction", fmt=ratio, bounds=bounds,
                            n_run=len(effects) + len(left), bound_note=note)
    lo, hi = i.get("ci", (-math.inf, math.inf))
    i.update(inside=bool(-math.log(SMALLEST) < lo and hi < math.log(SMALLEST)), clear=bool(lo > 0), seeds=seeds)
    out = {"interaction": i}
    for name, (fast, slow) in {"uniform pad faster than oracle pad": ("uniform pad", "oracle pad"),
                               "uniform faster than oracle": ("uniform", "oracle"),
                               "uniform faster than lambda 0": ("uniform", "lambda 0"),
                               "oracle faster than lambda 0": ("oracle", "lambda 0"),
                               "uniform pad faster than lambda 0 pad": ("uniform pad", "lambda 0 pad"),
                               "oracle pad faster than lambda 0 pad": ("oracle pad", "lambda 0 pad")}.items():
        out[name] = A.speedup_verdict_v4(times[slow], times[fast], budget_, smallest=SMALLEST)
    return out


def q1_reading(judged):
    """noise: the interaction's interval above 1.25x and uniform pad not shown faster than oracle pad; both:
    the interaction clear of none (its lower end above 1x) and uniform pad faster than oracle pad; target
    form: the interaction inside +-1.25x and uniform pad faster; neither shown: inside, and uniform pad not
    faster; not told: anything else."""
    i, p = judged["interaction"], judged["uniform pad faster than oracle pad"]["verdict"] == A.REPRODUCED
    if i["verdict"] == A.REPRODUCED and not p:
        return "noise"
    if i["clear"] and p:
        return "both: noise and target form"
    if i["inside"] and p:
        return "target form"
    if i["inside"]:
        return "neither shown"
    return "not told"


def q1_checks(per_run, seeds):
    """The registered checks: every arm memorized in at least half its runs; the uniform KL's median distractor
    mass over epochs 0-200 with redrawn distractors within 1.5x of its median with pad. {check: (ok, text)}."""
    out = {}
    for arm in Q1_ARMS:
        k = sum(per_run[arm][s]["t_mem"] is not None for s in seeds)
        out[f"{arm} memorized"] = (k >= MEMORIZED_SHARE * len(seeds), f"{k}/{len(seeds)}")
    mass = {a: P._median([per_run[a][s]["plateau"].get("distractor_mass_early") for s in seeds]) for a in ("uniform", "uniform pad")}
    r = mass["uniform"] / mass["uniform pad"] if mass["uniform"] and mass["uniform pad"] else None
    out["uniform's distractor mass, redrawn / pad (epochs 0-200)"] = (
        r is not None and 1 / MASS_BAND <= r <= MASS_BAND, "-" if r is None else f"{mass['uniform']:.3f} / {mass['uniform pad']:.3f} = {r:.2f}x")
    return out


# ---------------------------------------------------------------------------------------
# Q2: which weights carry it

def judge_q2(times, budget_):
    """T1 on Q2's seeds (uniform off 200 faster than lambda 0: the effect to carry); per group, carries
    (lambda 0 + the group of uniform off 200 faster than lambda 0) and removes (uniform off 200 faster
    than uniform off 200 + the group of lambda 0), each by rules v4's speed-up part."""
    v = lambda fast, slow: A.speedup_verdict_v4(times[slow], times[fast], budget_, smallest=SMALLEST)
    out = {"T1": v(OFF, "lambda 0")}
    for g in GROUPS:
        out[f"{g} carries"] = v(child("lambda 0", g), "lambda 0")
        out[f"{g} removes"] = v(OFF, child(OFF, g))
    return out


def q2_reading(judged):
    """'it lives in G' where exactly one group both carries and removes it; 'more than one: ...' where several
    do; else 'G suffices, not alone needed' (carries only), 'G needed, not enough alone' (removes only), or
    'no single group'. 'no effect to carry on these seeds' when T1's interval on them is not clear of no
    effect (its lower end at or below 1x)."""
    if not judged["T1"].get("ci", [0])[0] > 0:         # the premise: T1's interval clear of no effect
        return "no effect to carry on these seeds"
    ok = lambda g, what: judged[f"{g} {what}"]["verdict"] == A.REPRODUCED
    both = [g for g in GROUPS if ok(g, "carries") and ok(g, "removes")]
    if len(both) == 1:
        return f"it lives in {both[0]}"
    if both:
        return "more than one: " + ", ".join(both)
    carries, removes = [g for g in GROUPS if ok(g, "carries")], [g for g in GROUPS if ok(g, "removes")]
    said = [f"{', '.join(carries)} suffices, not alone needed"] if carries else []
    said += [f"{', '.join(removes)} needed, not enough alone"] if removes else []
    return "; ".join(said) or "no single group"


def judge_q2_same_machine(times, budget_):
    """Q2's comparisons with each parent replaced by its transplant of nothing (amendment 1), and the machine's
    effect: each transplant of nothing against the parent's own run (above 1x, the children's machine was faster)."""
    v = lambda fast, slow: A.speedup_verdict_v4(times[slow], times[fast], budget_, smallest=SMALLEST)
    null = {base: arm for arm, base in NULLS.items()}
    out = {"T1": v(null[OFF], null["lambda 0"])}
    for g in GROUPS:
        out[f"{g} carries"] = v(child("lambda 0", g), null["lambda 0"])
        out[f"{g} removes"] = v(null[OFF], child(OFF, g))
    return out, {f"the machine, {base}": v(arm, base) for arm, base in NULLS.items()}


# ---------------------------------------------------------------------------------------
# Q3: the logit-scale account

def judge_q3(times, budget_):
    v = lambda fast, slow: A.speedup_verdict_v4(times[slow], times[fast], budget_, smallest=SMALLEST)
    return {"QK faster than lambda 0": v(QK_ARM, "lambda 0"), "uniform off faster than QK": v(OFF, QK_ARM)}


def q3_reading(judged):
    """The logit-scale account predicts the QK arm faster than lambda 0 and not shown slower than uniform off
    200: 'fits' if so; 'part of it' if faster than lambda 0 but slower than uniform off 200; 'ruled out' if
    not faster than lambda 0; 'not told' otherwise."""
    a, b = (judged[k]["verdict"] for k in ("QK faster than lambda 0", "uniform off faster than QK"))
    if a == A.REPRODUCED:
        return "part of it: faster than lambda 0, slower than the uniform KL" if b == A.REPRODUCED else "fits"
    return "ruled out" if a == A.NOT_REPRODUCED else "not told"


# ---------------------------------------------------------------------------------------
# The pilot (Q3's strength), registered before it runs

def pilot_runs(args, c):
    return [(f"pilot/{c:.6g}/seed{s}", qk_config(args, s, c, PILOT["epochs"])) for s in PILOT["seeds"]]


def pilot_target_runs(args):
    return [(f"pilot/uniform/seed{s}", config(args, s, PILOT["epochs"], **PARENTS[OFF])) for s in PILOT["seeds"]]


def pilot_norm(results, runs):
    """The median over the pilot seeds of the attention weights' norm at epoch SWITCH."""
    return float(np.median([measures(*results[label])["attn_norm_switch"] for label, _ in runs]))


def bisect(norm_at, target, low=PILOT["low"], high=PILOT["high"], steps=PILOT["steps"]):
    """The registered rule: geometric bisection of c in [low, high], `steps` times: a median norm above the
    target raises c, else lowers it; the c tried whose norm is nearest the target on the log scale.
    norm_at(c) -> the pilot's median norm. Returns (c, {c: norm})."""
    tried = {}
    for _ in range(steps):
        mid = math.sqrt(low * high)
        tried[mid] = norm_at(mid)
        low, high = (mid, high) if tried[mid] > target else (low, mid)
    return min(tried, key=lambda c: abs(math.log(tried[c] / target))), tried


def pilot(args):
    """Q3's pilot on PILOT_SEEDS, SWITCH epochs per run (the norm at SWITCH is all it reads)."""
    target_runs = pilot_target_runs(args)
    target = pilot_norm(sweep.run_sweep(target_runs, args), target_runs)

    def norm_at(c):
        runs = pilot_runs(args, c)
        return pilot_norm(sweep.run_sweep(runs, args), runs)
    c, tried = bisect(norm_at, target)
    out = {"rule": "geometric bisection of c on the median attention norm at epoch 200 (docs/registered/imprint.md)",
           "seeds": list(PILOT["seeds"]), "target": target, "tried": {f"{k:.6g}": v for k, v in tried.items()},
           "choice": float(f"{c:.6g}")}
    print(out)
    os.makedirs(args.results_dir, exist_ok=True)
    store.write_json(os.path.join(args.results_dir, "imprint_pilot.json"), out)


# ---------------------------------------------------------------------------------------
# The power of the design, computed before the runs (docs/registered/imprint.md)

REPS = 2000
# from the stored `fresh` runs (seeds 200-249): per seed log t_95 of lambda 0 (geometric mean 2,970, sd 0.35) and
# lambda 0 pad (3,015, seeds 230-249); log(t_lambda0 / t_uniform) 0.639 (sd 0.274, seeds 200-229); log(t_oracle /
# t_uniform) 0.364 (sd 0.256, seeds 200-229); log(t_lambda0 pad / t_uniform pad) 0.268 (sd 0.283, seeds 230-249);
# the oracle pad's ratio to uniform pad has no stored run: its sd taken as 0.30
STORED = dict(t0=2970, t0_pad=3015, sd_t=0.35, u=(0.639, 0.274), o_u=(0.364, 0.256), u_pad=(0.268, 0.283), sd_o_pad=0.30)
# Q1's truths: log(t_oracle pad / t_uniform pad) as a share of the redrawn log(t_oracle / t_uniform)
Q1_TRUTHS = {"noise": 0.0, "target form": 1.0, "both: noise and target form": 0.5}


def _cut(t):
    """Simulated times censored at the budget: {seed: t or None}."""
    return {i: (None if v > BUDGET else float(v)) for i, v in enumerate(t)}


def _tally(truths, reps, seed, reading_of):
    """{truth: {reading: share of `reps` simulated data sets}}; reading_of(rng, truth) -> one data set's reading."""
    rng, out = np.random.default_rng(seed), {}
    for truth in truths:
        counts = collections.Counter(reading_of(rng, truth) for _ in range(reps))
        out[truth] = {r: k / reps for r, k in counts.items()}
    return out


def simulate_q1(rng, truth, n, scale=1.0):
    """{arm: {seed: t_95 or None}} under a truth; scale multiplies the oracle's gap to uniform."""
    s = STORED
    t0, t0p = (np.exp(rng.normal(math.log(m), s["sd_t"], n)) for m in (s["t0"], s["t0_pad"]))
    tu = t0 / np.exp(rng.normal(*s["u"], n))
    to = tu * np.exp(rng.normal(scale * s["o_u"][0], s["o_u"][1], n))
    tup = t0p / np.exp(rng.normal(*s["u_pad"], n))
    top = tup * np.exp(rng.normal(scale * s["o_u"][0] * Q1_TRUTHS[truth], s["sd_o_pad"], n))
    return {"lambda 0": _cut(t0), "uniform": _cut(tu), "oracle": _cut(to), "lambda 0 pad": _cut(t0p),
            "uniform pad": _cut(tup), "oracle pad": _cut(top)}


def power_q1(n=len(SEEDS), reps=REPS, seed=0, scale=1.0):
    """{truth: {reading: share of data sets}}."""
    return _tally(Q1_TRUTHS, reps, seed, lambda rng, truth: q1_reading(judge_q1(simulate_q1(rng, truth, n, scale), BUDGET)))


# Q2's truths: per group, the share of T1's log effect its transplant carries into lambda 0 and takes out of
# uniform off 200 (T1 as stored: log 0.414, per-seed sd 0.349, seeds 230-249; every child's log time off its
# parent's with that sd)
T1_STORED = (0.414, 0.349)
Q2_TRUTHS = {"it lives in MLP": ({"MLP": 1.0}, {"MLP": 1.0}),
             "more than one: W_Q W_K, MLP": ({"W_Q W_K": 0.5, "MLP": 0.5}, {"W_Q W_K": 0.5, "MLP": 0.5}),
             "no single group": ({}, {}),
             "MLP needed, not enough alone": ({}, {"MLP": 1.0})}


def simulate_q2(rng, truth, n, scale=1.0):
    carry, remove = Q2_TRUTHS[truth]
    mu, sd = T1_STORED[0] * scale, T1_STORED[1]
    t0 = np.exp(rng.normal(math.log(STORED["t0"]), STORED["sd_t"], n))
    toff = t0 / np.exp(rng.normal(mu, sd, n))
    out = {"lambda 0": _cut(t0), OFF: _cut(toff)}
    for g in GROUPS:
        out[child("lambda 0", g)] = _cut(t0 / np.exp(rng.normal(mu * carry.get(g, 0.0), sd, n)))
        out[child(OFF, g)] = _cut(toff * np.exp(rng.normal(mu * remove.get(g, 0.0), sd, n)))
    return out


def power_q2(n=len(SEEDS_Q23), reps=REPS // 2, seed=0, scale=1.0):
    return _tally(Q2_TRUTHS, reps, seed, lambda rng, truth: q2_reading(judge_q2(simulate_q2(rng, truth, n, scale), BUDGET)))


# Q3's truths: the QK arm as fast as uniform off 200 (logit scale carries it), half-way (part of it), as lambda 0
Q3_TRUTHS = {"fits": 1.0, "part of it: faster than lambda 0, slower than the uniform KL": 0.5, "ruled out": 0.0}


def simulate_q3(rng, truth, n, scale=1.0):
    mu, sd = T1_STORED[0] * scale, T1_STORED[1]
    t0 = np.exp(rng.normal(math.log(STORED["t0"]), STORED["sd_t"], n))
    return {"lambda 0": _cut(t0), OFF: _cut(t0 / np.exp(rng.normal(mu, sd, n))),
            QK_ARM: _cut(t0 / np.exp(rng.normal(mu * Q3_TRUTHS[truth], sd, n)))}


def power_q3(n=len(SEEDS_Q23), reps=REPS, seed=0, scale=1.0):
    return _tally(Q3_TRUTHS, reps, seed, lambda rng, truth: q3_reading(judge_q3(simulate_q3(rng, truth, n, scale), BUDGET)))


def power_table(p, n):
    readings = sorted({r for row in p.values() for r in row}, key=lambda r: (r not in p, r))
    rows = [f"| truth ({n} seeds) | " + " | ".join(readings) + " |", "|---|" + "---|" * len(readings)]
    rows += [f"| {t} | " + " | ".join(f"{100 * row.get(r, 0):.0f}%" for r in readings) + " |" for t, row in p.items()]
    return "\n".join(rows)


POWER_ROWS = (("Q1", power_q1, (20, 40)), ("Q2", power_q2, (20,)), ("Q3", power_q3, (20,)))


# ---------------------------------------------------------------------------------------
# Summary, report and figure

def summarize(per_run, budget_, seeds=SEEDS, seeds_q23=SEEDS_Q23, qk_c=None):
    """What imprint.json holds: each arm's runs and medians; each question judged once every run of its
    arms on its seeds is in ('not decided' before), with its reading and checks."""
    qk_c = QK_C if qk_c is None else qk_c
    complete = lambda arms, ss: all(s in per_run.get(a, {}) for a in arms for s in ss)
    times = lambda arms, ss, m="t_95": {a: {s: per_run[a][s][m] for s in ss} for a in arms}
    out = {"stored_runs": sum(len(v) for v in per_run.values()), "budget": budget_, "seeds": list(seeds),
           "seeds_q23": list(seeds_q23), "qk_c": qk_c,
           "planned_runs": len(seeds) * len(Q1_ARMS) + len(seeds_q23) * (1 + len(CHILDREN) + len(NULLS) + 1),
           "reached_0.95": {a: f"{sum(r['t_95'] is not None for r in v.values())}/{len(v)}" for a, v in per_run.items()},
           "memorized": {a: f"{sum(r['t_mem'] is not None for r in v.values())}/{len(v)}" for a, v in per_run.items()},
           "medians": {m: {a: analysis.fmt_median([r[m] for r in v.values()], budget_) for a, v in per_run.items()}
                       for m in ("t_95", "t_95_held", "t_grok", "t_mem")},
           "described": {a: {q: P._median([r["plateau"].get(q) for r in v.values()]) for q in P.PLATEAU_QUANTITIES}
                         | {"attn_norm_switch": P._median([r["attn_norm_switch"] for r in v.values()])}
                         for a, v in per_run.items()}}
    if complete(Q1_ARMS, seeds):
        judged = judge_q1(times(Q1_ARMS, seeds), budget_)
        checks = q1_checks(per_run, seeds)
        out["Q1"] = {"comparisons": judged, "checks": checks, "reading": q1_reading(judged),
                     "test": all(ok for ok, _ in checks.values()),
                     "by t_grok": q1_reading(judge_q1(times(Q1_ARMS, seeds, "t_grok"), budget_))}
    else:
        out["Q1"] = {"reading": "not decided"}
    q2_arms = ("lambda 0", OFF, *CHILDREN)
    if complete(q2_arms, seeds_q23):
        judged = judge_q2(times(q2_arms, seeds_q23), budget_)
        out["Q2"] = {"comparisons": judged, "reading": q2_reading(judged),
                     "by t_grok": q2_reading(judge_q2(times(q2_arms, seeds_q23, "t_grok"), budget_))}
    else:
        out["Q2"] = {"reading": "not decided"}
    if complete(q2_arms + tuple(NULLS), seeds_q23):
        judged, machine = judge_q2_same_machine(times(q2_arms + tuple(NULLS), seeds_q23), budget_)
        one = sum(len({per_run[a][s]["cpu"] for a in (*CHILDREN, *NULLS)}) == 1 for s in seeds_q23)
        shared = sum(all(len(set(v[1:])) == 1 for v in starts(per_run, s).values()) for s in seeds_q23)
        parents = sum(all(len(set(v)) == 1 for v in starts(per_run, s).values()) for s in seeds_q23)
        checks = {"each seed's children and transplants of nothing on one CPU": (one == len(seeds_q23), f"{one}/{len(seeds_q23)}"),
                  "and continuing one re-trained start (equal logs before epoch 200; added 2026-12-06, before the "
                  "check's runs were in)": (shared == len(seeds_q23), f"{shared}/{len(seeds_q23)}")}
        out["Q2, same machine"] = {"comparisons": judged, "machine": machine, "reading": q2_reading(judged), "checks": checks,
                                   "test": one == shared == len(seeds_q23),
                                   "described": {"seeds whose stored parents share their children's start": f"{parents}/{len(seeds_q23)}"},
                                   "by t_grok": q2_reading(judge_q2_same_machine(times(q2_arms + tuple(NULLS), seeds_q23, "t_grok"), budget_)[0])}
    else:
        out["Q2, same machine"] = {"reading": "not decided"}
    q3_arms = ("lambda 0", OFF, QK_ARM)
    if qk_c and complete(q3_arms, seeds_q23):
        judged = judge_q3(times(q3_arms, seeds_q23), budget_)
        norm = {a: P._median([per_run[a][s]["attn_norm_switch"] for s in seeds_q23]) for a in (QK_ARM, OFF)}
        r = norm[QK_ARM] / norm[OFF]
        out["Q3"] = {"comparisons": judged, "reading": q3_reading(judged),
                     "check": (1 / NORM_BAND <= r <= NORM_BAND, f"{norm[QK_ARM]:.2f} / {norm[OFF]:.2f} = {r:.2f}x"),
                     "by t_grok": q3_reading(judge_q3(times(q3_arms, seeds_q23, "t_grok"), budget_))}
    else:
        out["Q3"] = {"reading": "not decided" if qk_c else "not decided: the pilot has not chosen the strength"}
    out["runs"] = {a: {str(s): r for s, r in sorted(v.items())} for a, v in per_run.items()}
    return out


def markdown(summary, bold=True):
    strong = (lambda s: f"**{s}**") if bold else str
    lines = ["## Beyond the paper, part six: what the uniform KL leaves behind while the model memorizes "
             "(registered, docs/registered/imprint.md)", "",
             f"- {summary['stored_runs']} of {summary['planned_runs']} runs stored (Q1 seeds {summary['seeds'][0]}-"
             f"{summary['seeds'][-1]}, Q2 and Q3 seeds {summary['seeds_q23'][0]}-{summary['seeds_q23'][-1]}); t_95 decides; "
             f"QK penalty c = {summary['qk_c'] if summary['qk_c'] else 'not piloted yet'}. [imprint.png](imprint.png)"]
    pilot = summary.get("pilot")
    if pilot:
        norm = pilot["tried"][f"{pilot['choice']:.6g}"]
        lines.append(f"- Q3's pilot (seeds {pilot['seeds'][0]}-{pilot['seeds'][-1]}, {PILOT['epochs']} epochs a run, the "
                     f"registered bisection over {len(pilot['tried'])} strengths): uniform off {SWITCH}'s median attention "
                     f"norm at epoch {SWITCH} {pilot['target']:.2f}; c = {pilot['choice']:.2e}".replace("e-0", "e-")
                     + f" gives {norm:.2f}")
    for arm, reached in summary["reached_0.95"].items():
        m = lambda k: summary["medians"][k][arm]
        d = summary["described"][arm]
        f = lambda q, fmt="{:.3g}": "-" if d.get(q) is None else fmt.format(d[q])
        lines.append(f"- {arm}: memorized {summary['memorized'][arm]}, reached 0.95 {reached}, median t_95 {m('t_95')} "
                     f"(held {m('t_95_held')}, t_grok {m('t_grok')}); attention norm at epoch {SWITCH} "
                     f"{f('attn_norm_switch')}; distractor mass epochs {P.EARLY[0]}-{P.EARLY[1]} {f('distractor_mass_early')}, "
                     f"epochs {P.WINDOW[0]}-{P.WINDOW[1]} {f('distractor_mass')}; W_K update RMS {f('update_rms_W_K')}")
    for q in ("Q1", "Q2", "Q2, same machine", "Q3"):
        r = summary.get(q, {"reading": "not decided"})
        said = " (amendment 1: described beside Q2, never deciding)" if q == "Q2, same machine" else ""
        lines.append(f"- {q}{said}: reading {strong(r['reading'])}" + (f" (by t_grok: {r['by t_grok']})"
                                                                 if r.get("by t_grok", r["reading"]) != r["reading"] else ""))
        for name, v in r.get("comparisons", {}).items():
            lines.append(f"  - {name}: {v['verdict']}: {v.get('text') or v.get('reason', '')}")
        for name, (ok, text) in r.get("checks", {}).items():
            lines.append(f"  - check, {name}: {'met' if ok else 'NOT MET'} ({text})")
        if "check" in r:
            lines.append(f"  - check, the QK arm's attention norm at epoch {SWITCH} within {NORM_BAND}x of uniform off "
                         f"{SWITCH}'s: {'met' if r['check'][0] else 'NOT MET'} ({r['check'][1]})")
        for name, v in r.get("machine", {}).items():      # measured, not judged: no verdict word
            lines.append(f"  - described, {name} (its transplant of nothing against its own run; above 1x the children's "
                         f"machine was the faster): {v.get('text') or v.get('reason', '')}")
        for name, value in r.get("described", {}).items():
            lines.append(f"  - described: {name}: {value}")
        if "test" in r and not r["test"]:
            lines.append(f"  - a check failed: the reading is reported, not read as a test")
    return lines + [""]


def text(summary):
    return "\n".join(markdown(summary, bold=False))


def plot(summary, path):
    """Left: t_95 per arm (a run that never reached 0.95 an open triangle at the budget). Right: each
    transplant's geometric-mean speed-up over its base parent (1 = no change), the two directions side by side,
    with each seed's speed-up a dot and the band the rules read as no effect."""
    plt = plots.pyplot()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [3, 2]})
    arms = [a for a in (*Q1_ARMS, OFF, QK_ARM) if summary["runs"].get(a)]
    for i, arm in enumerate(arms):
        rs = list(summary["runs"][arm].values())
        jitter = np.linspace(-0.2, 0.2, len(rs)) if len(rs) > 1 else [0.0]
        for j, r in enumerate(rs):
            t = r["t_95"]
            ax.scatter(i + jitter[j], t or summary["budget"], s=14, color=f"C{i % 10}", marker="o" if t else "^",
                       facecolors=f"C{i % 10}" if t else "none")
    ax.set_xticks(range(len(arms)), arms, rotation=35, ha="right", fontsize=8)
    ax.set(yscale="log", ylabel="t_95 (test accuracy 0.95), epochs", title="when the plateau ends (triangle: never, at the budget)")
    for k, base in enumerate(PARENTS):
        ys = []
        for g in GROUPS:
            a = child(base, g)
            pairs = [(summary["runs"][base][s]["t_95"] or summary["budget"], r["t_95"] or summary["budget"])
                     for s, r in summary["runs"].get(a, {}).items() if s in summary["runs"].get(base, {})]
            ys.append(float(np.exp(np.mean([math.log(p / c) for p, c in pairs]))) if pairs else np.nan)
            x = list(GROUPS).index(g) + (k - 0.5) * 0.38 + np.linspace(-0.1, 0.1, len(pairs))
            bx.scatter(x, [p / c for p, c in pairs], s=6, color="0.15", zorder=3)       # one dot a seed
        bx.bar(np.arange(len(GROUPS)) + (k - 0.5) * 0.38, ys, width=0.38, color=f"C{k}",
               label=f"into {base} (from {OFF if base == 'lambda 0' else 'lambda 0'})")
    bx.axhline(1, color="0.4", lw=0.8)
    bx.axhspan(1 / SMALLEST, SMALLEST, color="0.85", zorder=0, label=f"within {SMALLEST}x either way (ours: no effect)")
    pairs = [(r["t_95"] or summary["budget"], summary["runs"][OFF][s]["t_95"] or summary["budget"])
             for s, r in summary["runs"].get("lambda 0", {}).items() if s in summary["runs"].get(OFF, {})]
    if pairs:       # the effect a transplant carries or removes: uniform off 200 over lambda 0, on the same seeds
        effect = float(np.exp(np.mean([math.log(p / c) for p, c in pairs])))
        bx.axhline(effect, color="C2", ls="--", lw=1, label=f"{OFF} over lambda 0: the effect carried in full")
        bx.axhline(1 / effect, color="C2", ls=":", lw=1, label="its inverse: the effect removed in full")
    if not any(summary["runs"].get(a) for a in CHILDREN):
        bx.text(0.5, 0.5, "no transplant stored yet", transform=bx.transAxes, ha="center", color="0.4")
    bx.set_xticks(range(len(GROUPS)), list(GROUPS), rotation=20, fontsize=8)
    bx.set(ylabel="speed-up (bar: geometric mean; dot: a seed)",
           title=f"one group of weights moved at epoch {SWITCH}:\nspeed-up over the run it went into")
    bx.set_ylim(0, bx.get_ylim()[1] * 1.5)        # room above the dots for the legend
    bx.legend(fontsize=7, loc="upper left")
    plots.save_figure(fig, path, "What the uniform KL leaves behind (docs/registered/imprint.md)")


# ---------------------------------------------------------------------------------------
# The command line

def get_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    sweep.add_scale_args(p, QUICK)
    sweep.add_sweep_args(p)
    p.add_argument("--power", action="store_true", help="print the design's power tables and exit")
    p.add_argument("--pilot", action="store_true", help="Q3's pilot: the QK penalty's strength (seeds 390-392, "
                                                        "200 epochs per run), into imprint_pilot.json")
    p.set_defaults(seeds=list(SEEDS), regime="fresh", partial_ok=True)
    return p


def parse(argv=None):
    return sweep.apply_quick(get_parser().parse_args(argv), QUICK)


def main(argv=None):
    args = parse(argv)
    if args.power:
        for name, fn, ns in POWER_ROWS:
            for scale, label in ((1.0, "the effect as seen"), (0.5, "half of it (log scale)")):
                for n in ns:
                    print(f"{name}, {label}:\n" + power_table(fn(n, scale=scale), n) + "\n")
        return
    if args.pilot:
        pilot(args)
        return
    if args.plot_only:
        results = sweep.run_sweep(planned_runs(args), args)
    else:
        results = {}
        for part, seeds, runs in planned_parts(args):
            if part in ("transplants", "machine check"):
                for s in seeds:
                    prepare_transplants(args, s, [(label, cfg) for label, cfg in runs
                                                  if cfg.seed == s and not sweep.is_stored(args, cfg)])
            if runs:
                results.update(sweep.run_sweep(runs, args))
    q23 = set(args.seeds) if args.quick else set(SEEDS_Q23)
    c = QUICK_C if args.quick else QK_C
    q23_seeds = [s for s in args.seeds if s in q23]
    summary = summarize(collect(results), budget(args), args.seeds, q23_seeds, c)
    pilot_file = os.path.join(args.results_dir, "imprint_pilot.json")
    if not args.quick and os.path.exists(pilot_file):      # Q3's strength, chosen by the registered pilot
        summary["pilot"] = store.read_json(pilot_file)
    print(text(summary))
    os.makedirs(args.results_dir, exist_ok=True)
    store.write_json(os.path.join(args.results_dir, "imprint.json"), summary)
    plot(summary, os.path.join(args.results_dir, "imprint.png"))


if __name__ == "__main__":
    main()