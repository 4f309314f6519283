"""What the figures and the report compute from finished runs' histories: phase marks, the
pre-registered criteria that judge a run, and the statistics over seeds that every verdict
uses. Nothing here trains; everything takes a history dict (train.py's) or numbers.

Phase marks of one run (paper §5.1, Fig. 1):
  t_mem      first epoch with train accuracy >= 0.99            (end of phase 1)
  t_resurge  first epoch after t_mem at which the informative mass has covered 10% of
             the way from its value at t_mem to the oracle's 1/k (end of phase 2)
  t_struct   first epoch where B_tau holds on >= 99% of test examples (Def. 4.1)
  t_rise     first epoch with test accuracy >= rise_acc (0.5)
  t_grok     first epoch with test accuracy >= 0.99            (phase 4)
  mass_at_mem     informative mass min_{i in S} a_i at t_mem (uniform over 5 positions: 0.2)
  acc_at_struct   test accuracy at t_struct
  grad_collapse   min of ||dL_task/dW|| on the plateau [t_mem, t_struct or t_grok] over its
                  peak up to t_mem (paper: "an initial spike ... followed by a collapse")
"""
import numpy as np


def first_epoch(history, key, threshold):
    """First logged epoch with history[key] >= threshold, None if never."""
    return next((e for e, v in zip(history["epoch"], history[key]) if v >= threshold), None)


def first_not_none(*values):
    """The first value that is not None (epoch 0 is a value, unlike with `or`)."""
    return next((v for v in values if v is not None), None)


def phase_marks(history, rise_acc=0.5, k=2):
    """The phase boundaries of one run (module docstring); None where not reached."""
    ep = np.asarray(history["epoch"])
    t_mem = first_epoch(history, "train_acc", 0.99)
    t_resurge = None
    if t_mem is not None:
        mass = np.asarray(history["info_mass"])
        m0 = mass[ep == t_mem][0]
        hit = np.nonzero((ep >= t_mem) & (mass >= m0 + 0.1 * (1 / k - m0)))[0]
        t_resurge = int(ep[hit[0]]) if len(hit) else None
    marks = {"t_mem": t_mem, "t_resurge": t_resurge, "t_struct": first_epoch(history, "frac_struct", 0.99),
             "t_rise": first_epoch(history, "test_acc", rise_acc), "t_grok": first_epoch(history, "test_acc", 0.99)}
    at = lambda key, t: None if t is None else float(np.asarray(history[key])[ep == t][0])
    marks["mass_at_mem"] = at("info_mass", t_mem)
    marks["acc_at_struct"] = at("test_acc", marks["t_struct"])
    marks["mlp_norm_at_mem"] = at("mlp_norm", t_mem)
    marks["mlp_norm_at_grok"] = at("mlp_norm", marks["t_grok"])
    g = np.asarray(history["grad_W_norm"])
    if t_mem is not None:
        end = first_not_none(marks["t_struct"], marks["t_grok"], int(ep[-1]))
        plateau = g[(ep >= t_mem) & (ep <= max(end, t_mem))]
        marks["grad_collapse"] = float(plateau.min() / g[ep <= t_mem].max())
    else:
        marks["grad_collapse"] = None
    return marks


def meets_regime_criterion(m, budget):
    """The distractor-regime criterion of README "The distractor regime" (fixed before those
    runs): memorizes, the attention gradient then collapses >= 10x, attention condenses no
    later than test accuracy reaches 0.5, and it groks within the budget."""
    ts = (m["t_mem"], m["t_struct"], m["t_rise"], m["t_grok"], m["grad_collapse"])
    return bool(all(t is not None for t in ts)
                and m["t_mem"] < m["t_struct"] <= m["t_rise"] and m["t_grok"] <= budget
                and m["grad_collapse"] <= 0.1)


# ---------------------------------------------------------------------------------------
# "The paper's regime": the pre-registered criterion of README "Where the paper's story
# holds", judged on the lambda = 0 baseline only, written down before the grid ran.

FOUND_MASS = 0.25         # informative mass above which attention "has found the operands"
MIN_PLATEAU = 500         # epochs test accuracy must stay below 0.5 after memorization
MAX_GRAD_COLLAPSE = 0.1   # plateau task gradient to W at most this fraction of its peak
MIN_SEEDS_MEETING = 4     # of seeds 0-4, for a cell to show the paper's regime


def paper_regime_checks(m, budget):
    """The five conditions (a)-(e) for one baseline run's phase marks; each True/False."""
    ok = lambda *ts: all(t is not None for t in ts)
    return {
        "memorizes": ok(m["t_mem"]) and m["t_mem"] <= budget,
        "diffuse_at_mem": ok(m["mass_at_mem"]) and m["mass_at_mem"] <= FOUND_MASS,
        "starved_plateau": (ok(m["t_mem"], m["grad_collapse"]) and m["grad_collapse"] <= MAX_GRAD_COLLAPSE
                            and first_not_none(m["t_rise"], budget) - m["t_mem"] >= MIN_PLATEAU),
        "condenses_first": ok(m["t_mem"], m["t_struct"]) and m["t_mem"] < m["t_struct"]
                           and (m["t_rise"] is None or m["t_struct"] <= m["t_rise"]),
        "groks": ok(m["t_grok"]) and m["t_grok"] <= budget,
    }


def meets_paper_regime(m, budget):
    return all(paper_regime_checks(m, budget).values())
