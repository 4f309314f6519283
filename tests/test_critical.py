"""audit/critical.py (docs/registered/critical.md): the logistic transition, the two censored models of
t_grok, H6c's committed prediction, and H7's accounts and rule."""
import math

import numpy as np
import pytest

from audit import critical as E
from audit import report

LAMS = [0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.05, 0.1, 0.2, 0.3, 1.0]


def test_logistic_fit_recovers_a_known_transition():
    rng = np.random.default_rng(0)
    lams = np.exp(rng.uniform(np.log(0.005), np.log(0.2), 20000))
    p = 1 / (1 + np.exp(-(np.log(lams) - np.log(0.03)) / 0.2))
    lam_c, s = E.logistic_fit(lams, rng.random(lams.size) < p)
    assert lam_c == pytest.approx(0.03, rel=0.03) and s == pytest.approx(0.2, rel=0.05)
    assert E.width(0.2) == pytest.approx(9 ** 0.4)
    # a perfectly separated sample: a finite fit at the slope cap, between the two sides
    lam_c, s = E.logistic_fit([0.01, 0.02, 0.03, 0.05], [False, False, True, True])
    assert 0.02 < lam_c < 0.03 and s == pytest.approx(0.01)


def test_the_seed_bootstrap_interval_of_lam_c_has_the_width_the_fit_implies():
    """H6a's interval resamples whole seeds, as many as there are: with independent outcomes its
    95% width in ln lam_c matches the fit's own standard error (delta method on the logistic's
    information, 2 x 1.96 x se) within 25%. Resampling half the seeds would widen it by sqrt(2)
    (measured 0.88-1.11 of the delta method over eight data sets; this one 1.01)."""
    rng = np.random.default_rng(1)
    lams, seeds = [0.01, 0.013, 0.016, 0.02, 0.025, 0.03, 0.035, 0.04, 0.05, 0.07], list(range(30))
    p = lambda lam: 1 / (1 + np.exp(-(np.log(lam) - np.log(0.022)) / 0.25))
    grok = {lam: {s: (1 if rng.random() < p(lam) else None) for s in seeds} for lam in lams}
    got = E.transition(grok, seeds, n_boot=400)
    x = np.log([lam for lam in lams for _ in seeds])
    y = np.array([grok[lam][s] is not None for lam in lams for s in seeds])
    lam_c, s = E.logistic_fit(np.exp(x), y)
    b = 1 / s
    a = (x.mean() - np.log(lam_c)) * b                       # the fit's a + b (x - mean x)
    q = 1 / (1 + np.exp(-(a + b * (x - x.mean()))))
    X = np.stack([np.ones_like(x), x - x.mean()], 1)
    info = X.T @ ((q * (1 - q))[:, None] * X)
    grad = np.array([-1 / b, a / b ** 2])                    # d ln lam_c / d(a, b)
    se = np.sqrt(grad @ np.linalg.solve(info, grad))
    width = np.log(got["lam_c_ci"][1]) - np.log(got["lam_c_ci"][0])
    assert got["lam_c"] == pytest.approx(lam_c)
    assert 0.75 < width / (2 * 1.96 * se) < 1.25


def synthetic(law, sigma=0.25, seeds=10, budget=20000, seed=0):
    rng = np.random.default_rng(seed)
    lams, times = [], []
    for lam in LAMS:
        for _ in range(seeds):
            t = law(lam) * np.exp(rng.normal(0, sigma))
            lams.append(lam)
            times.append(None if t > budget else float(t))
    return lams, times


def test_the_paper_model_is_recovered_and_its_likelihood_is_consistent():
    lams, times = synthetic(lambda l: 2500 + 300 / l)
    m = E.fit_model(lams, times, 20000, "paper")
    assert m["floor"] == pytest.approx(2500, rel=0.15) and m["C"] == pytest.approx(300, rel=0.2)
    assert m["sigma"] == pytest.approx(0.25, rel=0.2)
    assert E.heldout_loglik(m, lams, times, 20000) == pytest.approx(m["loglik"], rel=1e-9)
    t = E.fit_model(lams, times, 20000, "threshold")
    assert 2 * (t["loglik"] - m["loglik"]) < E.LR_CUT          # nested: no real gain on the paper's own law


def test_a_threshold_is_preferred_where_there_is_one():
    lams, times = synthetic(lambda l: np.inf if l <= 0.022 else 2500 + 20 / (l - 0.022))
    paper, thresh = (E.fit_model(lams, times, 20000, m) for m in ("paper", "threshold"))
    assert 2 * (thresh["loglik"] - paper["loglik"]) > E.LR_CUT
    assert 0.015 < thresh["lam_c"] < 0.025
    assert np.isinf(E.predict_median(thresh, 0.01)) and np.isfinite(E.predict_median(paper, 0.01))


def test_h6c_recomputes_the_committed_prediction_from_the_store():
    # the store's histories are float32: the median of a ratio of them is the same to 1e-6 anywhere
    value, per_seed = E.h6c_prediction()
    assert round(value, 3) == E.H6C_PREDICTED and len(per_seed) == 10
    assert per_seed == pytest.approx([0.062, 0.122, 0.065, 0.077, 0.055, 0.067, 0.052, 0.092, 0.095, 0.060], abs=6e-4)


def test_held_out_cells_and_h6b_as_registered():
    assert E.held_out_lams(0.0237) == (0.018, 0.031)
    assert E.judge_h6b(10.0, 3.0) == "reproduced" and E.judge_h6b(10.0, -2.5) == "not reproduced"
    assert E.judge_h6b(3.0, 0.5) == "not reproduced" and E.judge_h6b(10.0, 1.0) == "inconclusive"
    paper = {"model": "paper", "floor": 2500.0, "C": 300.0, "sigma": 0.3}
    p = E.predictions(paper, 0.03)
    assert p["median"] == pytest.approx(12500) and p["share"][20000] == pytest.approx(0.9413, abs=1e-3)
    thresh = {"model": "threshold", "floor": 2500.0, "C": 20.0, "sigma": 0.3, "lam_c": 0.022, "gamma": 1.0}
    assert E.predictions(thresh, 0.02)["share"][40000] == 0.0


def test_each_held_out_cell_is_reported_against_both_predictions():
    cell = {"grok": {"10": 21000, "11": None, "12": 39000, "13": 25000, "14": 45000},
            "paper": {"median": 20000.0, "share": {"20000": 0.5, "40000": 0.93}},
            "threshold": {"median": 46000.0, "share": {"20000": 0.02, "40000": 0.36}}}
    (line,) = report.heldout_lines({"0.017": cell})
    assert "held-out lambda 0.017: 5 seeds: 0 grokked within 20k, 3 within 40k, median 39,000" in line
    assert "paper predicted median 20,000, share 0.50 within 20k and 0.93 within 40k" in line
    assert "threshold predicted median 46,000, share 0.02 within 20k and 0.36 within 40k" in line


def test_the_weight_decay_secondary_fits_bounds_and_orders_as_registered():
    never, always = {s: None for s in range(5)}, {s: 1000 for s in range(5)}
    half = {0: 9000, 1: None, 2: 8000, 3: None, 4: 7000}
    h6a = {"lam_c": 0.0225, "lam_c_ci": [0.020, 0.026]}
    # wd 0.5 turns between 0.02 and 0.03; wd 2 groks everywhere: only bounded, below the grid
    fit = E.wd_secondary({"wd 0.5": {"0.015": never, "0.02": never, "0.03": half, "0.3": always},
                          "wd 2": {"0.015": always, "0.02": always, "0.03": always, "0.3": always}},
                         E.WD_SEEDS, h6a, n_boot=50)
    assert list(fit) == ["wd 0.5", "wd 1", "wd 2", "direction", "intervals"]
    assert 0.02 < fit["wd 0.5"]["lam_c"] < 0.3 and fit["wd 0.5"]["share"]["0.03"] == 0.6
    assert fit["wd 2"]["bound"] == "below 0.015" and "lam_c" not in fit["wd 2"]
    assert fit["direction"] == "does not hold"          # 0.5's lambda_c sits above wd 1's
    # the registered order: wd 2 never groks (above the grid), wd 0.5 turns below wd 1's
    fit = E.wd_secondary({"wd 0.5": {"0.015": half, "0.02": always, "0.03": always, "0.3": always},
                          "wd 2": {"0.015": never, "0.02": never, "0.03": never, "0.3": never}},
                         E.WD_SEEDS, h6a, n_boot=50)
    assert fit["wd 0.5"]["lam_c"] < 0.0225 and fit["wd 2"]["bound"] == "above 0.3" and fit["direction"] == "holds"
    # the intervals: bounds from the grid and wd 1's interval, apart in the registered order or not
    grid = lambda low: {"0.015": low, "0.02": always, "0.03": always, "0.3": always}
    top = {l: never for l in ("0.015", "0.02", "0.03", "0.3")}
    fit = E.wd_secondary({"wd 0.5": grid(always), "wd 2": top}, E.WD_SEEDS, h6a, n_boot=50)
    assert fit["direction"] == "holds" and fit["intervals"] == "separate"
    fit = E.wd_secondary({"wd 0.5": grid(always), "wd 2": top}, E.WD_SEEDS, {**h6a, "lam_c_ci": [0.01, 0.05]}, n_boot=50)
    assert fit["direction"] == "holds" and fit["intervals"] == "overlap"
    assert "do not separate the three wd in that order" in report.wd_line(fit)
    # a cell not yet stored: counted, not judged
    fit = E.wd_secondary({"wd 0.5": {"0.015": {0: None}, "0.02": {}, "0.03": half, "0.3": always}}, E.WD_SEEDS, h6a)
    assert fit["wd 0.5"]["stored"] == 11 and "direction" not in fit


def test_h6c_recomputes_the_weight_decay_predictions_from_the_store():
    for wd in (0.5, 2.0):
        value, _ = E.h6c_prediction(wd=wd, seeds=range(5), budget=10000)
        assert round(value, 2 if wd == 2 else 3) == E.H6C_WD_PREDICTED[wd]


def test_h7_accounts_are_the_registered_ones_and_predict_its_table():
    """docs/registered/critical.md, H7: both accounts refitted on the stored runs give the parameters the
    registration committed (L-BFGS on another CPU moves the last digits: 1e-4 relative is far
    below what the predictions print), and those give the registered predictions."""
    import argparse
    import sweep
    args = E.parse([])
    every = argparse.Namespace(**{**vars(args), "part": ["fit", "heldout"], "plot_only": True})
    results = sweep.run_sweep(E.planned_runs(every), every, log=lambda line: None)
    rows = E.stored_critical_runs(results, args)
    assert len(rows) == 130
    lams, times, budgets = zip(*rows)
    for key, lam_c in (("a", 0.0), ("b", 0.01)):
        got = E.fit_power(lams, times, budgets, lam_c)
        for k, v in E.H7_ACCOUNTS[key].items():
            assert got[k] == pytest.approx(v, rel=1e-4, abs=1e-9), (key, k)
    pred = lambda key, lam: E.power_prediction(E.H7_ACCOUNTS[key], lam, E.H7_BUDGET)
    assert round(pred("a", 0.013)["median"]) == 62741 and round(pred("a", 0.01)["median"]) == 112346
    assert round(pred("a", 0.01)["share"], 3) == 0.929 and round(pred("b", 0.013)["median"]) == 118727
    assert [round(v) for v in pred("a", 0.01)["median_of_5"]] == [74307, 169858]
    assert pred("b", 0.01)["share"] == 0.0 and pred("b", 0.01)["median"] == math.inf


def test_h7_rule_as_registered():
    """(b) when the likelihood favours it by 2 nats; (a) only when it is favoured and fits both
    cells (count in its binomial band, median of five in its range); neither otherwise."""
    assert (E.binomial_floor(0.9287), E.binomial_floor(0.9984)) == (3, 5)
    seeds = E.H7_SEEDS
    fits = {0.013: dict(zip(seeds, (60000, 70000, 50000, 65000, 80000))), 0.01: dict(zip(seeds, (100000, 120000, None, 110000, 90000)))}
    assert E.judge_h7(fits)["verdict"] == "(a)"
    never = {l: {s: None for s in seeds} for l in (0.013, 0.01)}
    assert E.judge_h7(never)["verdict"] == "(b)"
    early = {0.013: {s: 30000 for s in seeds}, 0.01: {s: 40000 for s in seeds}}   # grokked, far sooner than (a) says
    v = E.judge_h7(early)
    assert v["verdict"] == "neither" and v["delta"] > 2 and not v["cells"]["0.01"]["fits"]
    two = {0.013: fits[0.013], 0.01: dict(zip(seeds, (100000, None, None, None, 90000)))}   # 2 of 5 at 0.01
    assert E.judge_h7(two)["verdict"] == "neither"


def test_quick_decides_nothing_and_the_paper_scale_reading_is_the_rules(tmp_path, monkeypatch):
    """--quick fits the small model on two seeds (a separable set gives a zero-width bootstrap): H6a-c
    print their numbers but are not decided. The same runs read without --quick get the rules' verdict."""
    import functools
    monkeypatch.setattr(E, "transition", functools.partial(E.transition, n_boot=50))     # the test's time
    args = E.parse(["--quick", "--results-dir", str(tmp_path)])
    times = {0.01: None, 0.03: None, 0.1: 1200, 1.0: 800}
    results = {label: ({"grok_epoch": t if t is None else t + 10 * cfg.seed}, {})
               for lam, t in times.items() for label, cfg in E.cells(args)["fit"][lam]}
    out = E.analyse(results, args)
    assert all(out[h]["verdict"] == "not decided" and "--quick" in out[h]["reason"] for h in ("H6a", "H6b", "H6c"))
    assert out["H6c"]["n"] == len(args.seeds) == 2 and "lambda_c" in out["H6a"]["text"]
    args.quick = False
    assert E.analyse(results, args)["H6a"]["verdict"] == "reproduced"      # what the quick REPORT once printed