"""What the figures measure from finished runs' histories: phase marks, the pre-registered
criteria a run meets or not, Eq. 5's bound (and, re-exported, grok_times.py's censored medians over
seeds and line fits). Nothing
here trains and nothing here judges a claim (the verdict rules are audit/rules.py);
everything takes a history dict (train.py's) or numbers.

Phase marks of one run (paper §5.1, Fig. 1):
  t_mem      first epoch with train accuracy >= 0.99            (end of phase 1)
  t_resurge  first epoch after t_mem at which the informative mass has covered 10% of
             the way from its value at t_mem to the oracle's 1/k (end of phase 2)
  t_found    first epoch with informative mass > FOUND_MASS (0.25): attention "has found
             the operands" in the paper's-regime criterion's sense (below)
  t_struct   first epoch where B_tau holds on >= 99% of test examples (Def. 4.1)
  t_rise     first epoch with test accuracy >= rise_acc (0.5)
  t_grok     first epoch with test accuracy >= 0.99            (phase 4)
  mass_at_mem     informative mass min_{i in S} a_i at t_mem (uniform over 5 positions: 0.2)
  acc_at_struct   test accuracy at t_struct
  grad_collapse   min of ||dL_task/dW|| on the plateau [t_mem, t_struct or t_grok] over its
                  peak up to t_mem (paper: "an initial spike ... followed by a collapse")
"""
import math

import numpy as np

from grok_times import censor, censored_median, fit_line, fmt_median   # noqa: F401  (every study reads them from here)
from summary import first_epoch   # noqa: F401  (a run's marks: summary.py; every study reads it from here)


def held_from(history, key, threshold):
    """First logged epoch from which history[key] >= threshold at every later logged epoch,
    None if the last one is below. Unlike first_epoch it skips a threshold met and lost again
    (B_tau by epoch 40 in wide models, Figure 9)."""
    start = None
    for e, v in zip(history["epoch"], history[key]):
        start = (start if start is not None else e) if v >= threshold else None
    return start


def first_not_none(*values):
    """The first value that is not None (epoch 0 is a value, unlike with `or`)."""
    return next((v for v in values if v is not None), None)


def phase_marks(history, rise_acc=0.5, k=2):
    """The phase boundaries of one run (module docstring); None where not reached."""
    ep, mass = np.asarray(history["epoch"]), np.asarray(history["info_mass"])
    t_mem = first_epoch(history, "train_acc", 0.99)
    t_resurge = None
    if t_mem is not None:
        m0 = mass[ep == t_mem][0]
        hit = np.nonzero((ep >= t_mem) & (mass >= m0 + 0.1 * (1 / k - m0)))[0]
        t_resurge = int(ep[hit[0]]) if len(hit) else None
    found = np.nonzero(mass > FOUND_MASS)[0]
    marks = {"t_mem": t_mem, "t_resurge": t_resurge, "t_found": int(ep[found[0]]) if len(found) else None,
             "t_struct": first_epoch(history, "frac_struct", 0.99),
             "t_rise": first_epoch(history, "test_acc", rise_acc), "t_grok": first_epoch(history, "test_acc", 0.99)}
    at = lambda key, t: None if t is None else float(np.asarray(history[key])[ep == t][0])
    marks["mass_at_mem"] = at("info_mass", t_mem)
    marks["acc_at_struct"] = at("test_acc", marks["t_struct"])
    marks["mlp_norm_at_mem"] = at("mlp_norm", t_mem)
    marks["mlp_norm_at_grok"] = at("mlp_norm", marks["t_grok"])
    g = np.asarray(history.get("grad_W_norm", []))      # absent with frozen attention: no gradient to W
    if t_mem is not None and len(g):
        end = first_not_none(marks["t_struct"], marks["t_grok"], int(ep[-1]))
        plateau = g[(ep >= t_mem) & (ep <= max(end, t_mem))]
        marks["grad_collapse"] = float(plateau.min() / g[ep <= t_mem].max())
    else:
        marks["grad_collapse"] = None
    return marks


def meets_regime_criterion(m, budget):
    """The distractor-regime criterion of docs/registered/regime_map.md (fixed before those
    runs): memorizes, the attention gradient then collapses >= 10x, attention condenses no
    later than test accuracy reaches 0.5, and it groks within the budget."""
    ts = (m["t_mem"], m["t_struct"], m["t_rise"], m["t_grok"], m["grad_collapse"])
    return bool(all(t is not None for t in ts)
                and m["t_mem"] < m["t_struct"] <= m["t_rise"] and m["t_grok"] <= budget
                and m["grad_collapse"] <= 0.1)


# ---------------------------------------------------------------------------------------
# The MLP norm's contraction on the plateau (C10; Def. 3.2: norm-contractive optimizers)

def norm_contraction(history, start, end):
    """-d log||theta_mlp|| / dt per epoch, least squares over the logged epochs in [start, end);
    None with fewer than three of them."""
    ep = np.asarray(history["epoch"], dtype=float)
    w = (ep >= start) & (ep < end)
    return float(-np.polyfit(ep[w], np.log(np.asarray(history["mlp_norm"])[w]), 1)[0]) if w.sum() >= 3 else None


def plateau_contraction(history, m=None):
    """Per-epoch contraction rate over the plateau [t_mem, t_struct) (t_grok, or the end of
    the run, when structure is never met). m: the run's phase marks, if already computed."""
    m = m or phase_marks(history, rise_acc=0.5)
    if m["t_mem"] is None:
        return None, None
    end = first_not_none(m["t_struct"], m["t_grok"], history["epoch"][-1] + 1)
    return norm_contraction(history, m["t_mem"], end), (int(m["t_mem"]), int(end))


# ---------------------------------------------------------------------------------------
# "The paper's regime": the pre-registered criterion of docs/registered/regime_map.md ("Where the paper's story
# holds"), judged on the lambda = 0 baseline only, written down before the grid ran.

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


# ---------------------------------------------------------------------------------------
# Eq. 5, and the thinned log: measurements every study and the verdict rules read

THIN_EPOCHS = 100


def eq5_bound(marks, cfg):
    """Eq. 5's least plateau length in epochs (one step per epoch at full batch): eroding the
    MLP from its norm at memorization to the Goldilocks shell r* (its norm at grokking) under
    the per-step contraction 1 - lr * wd takes log(||theta_mem|| / r*) / -log(1 - lr * wd)."""
    if marks["t_grok"] is None or marks["mlp_norm_at_mem"] is None or not cfg["wd"]:
        return None
    shrink = marks["mlp_norm_at_mem"] / marks["mlp_norm_at_grok"]
    return max(0.0, math.log(shrink)) / -math.log(1 - cfg["lr"] * cfg["wd"])


def thinned_points(epochs, violations, every=THIN_EPOCHS):
    """(points, violations) of one run's log for rule 5b: the logged epochs grouped into
    windows of `every` epochs, a window counting once and violating if any epoch in it did."""
    windows = {}
    for e, v in zip(epochs, violations):
        windows[int(e) // every] = windows.get(int(e) // every, 0) + int(v)
    return len(windows), sum(1 for v in windows.values() if v)