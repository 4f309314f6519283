"""audit/payoff.py (docs/registered/payoff.md, H8): the model as fitted for the registration, its cells,
and its rule."""
import math
import os

import numpy as np
import pytest

from audit import payoff as P
import store


def test_the_fit_on_the_stored_runs_is_the_registered_one():
    """The fit reads the 120 runs frozen at registration, whatever the store gains later (H8's own
    prior arms would otherwise enter the fit that judges them)."""
    keys = P.registered_keys()
    assert len(keys) == 120 and all(os.path.exists(os.path.join(store.STORE, k + ".json.gz")) for k in keys)
    times = P.prior_times(keys=keys)
    assert {wd: len(ts) for wd, ts in times.items()} == {1.0: 110, 0.5: 5, 2.0: 5}
    model = P.fit(times)
    assert math.exp(model["a"]) == pytest.approx(2938, abs=1) and model["beta"] == pytest.approx(1.009, abs=1e-3)
    t, ci = P.predicted_time(model, 0.7)
    assert round(t) == 4211 and [round(c) for c in ci] == [3617, 4852]


def test_the_cells_are_the_registered_ones_and_no_run_had_visited_them():
    args = P.parse([])
    runs = P.planned_runs(args)
    assert len(runs) == 80 and len({store.run_key(c) for _, c in runs}) == 80
    assert all(c.epochs == 10000 and c.stop_after == 200 and c.lam in (0.0, 0.3) for _, c in runs)
    wd = {name: next(c for n, _, c in P.CELLS if n == name).get("wd", 1.0) for name, _, _ in P.CELLS}
    assert sorted(set(wd.values())) == [0.7, 1.0, 1.5]


def test_the_rule():
    """A cell holds if the prior arm's geometric mean is within 1.5x of T(wd) (a censored run
    fails it); H8 holds with 7 of 8."""
    hit = P.judge_cell([3000] * 5, [9000] * 5, 2938)
    assert hit["holds"] and hit["speedup_predicted"] == pytest.approx(9000 / 2938)
    assert not P.judge_cell([5000] * 5, [9000] * 5, 2938)["holds"]          # 1.7x slower
    assert not P.judge_cell([3000, 3000, None, 3000, 3000], [9000] * 5, 2938)["holds"]
    cells = {i: {"holds": i != 0} for i in range(8)}
    assert P.judge(cells)["verdict"] == "holds"
    cells[1]["holds"] = False
    assert P.judge(cells)["verdict"] == "fails"


def test_censored_baselines_give_lower_bounds_that_the_rule_does_not_read():
    """A run without the prior that never grokked counts at the budget in a lower bound on the
    speed-ups (it would grok later, if ever); the cell's verdict reads the prior arm alone."""
    base = [6000, None, 8000, None, 9000]
    low = math.exp((math.log(6000) + math.log(8000) + math.log(9000) + 2 * math.log(10000)) / 5)
    assert P.geometric_mean(base) is None and P.geometric_mean_at_least(base) == pytest.approx(low)
    assert P.geometric_mean_at_least([6000, 8000]) == pytest.approx(math.sqrt(6000 * 8000))
    r = P.judge_cell([3000] * 5, base, 2938)
    assert r["holds"] and r["base_censored"] == 2 and r["speedup_measured"] is None
    assert r["speedup_measured_at_least"] == pytest.approx(low / 3000)
    assert r["speedup_predicted_at_least"] == pytest.approx(low / 2938)
    assert P.judge_cell([3000] * 5, base, 2938, budget=50000)["speedup_measured_at_least"] > low / 3000


def test_the_summary_and_its_report_block(tmp_path):
    """summarize judges complete cells only and decides H8 once all eight are; REPORT.md's block
    prints the verdict with n and each cell's line, lower bounds marked."""
    model = {"a": math.log(2938), "beta": 1.0, "sigma": 0.4, "n": {"1": 110},
             "boot": [(math.log(2938), 1.0)] * 10}
    grok = {name: {"lambda 0": [9000] * 5, "lambda 0.3": [3000] * 5} for name, _, _ in P.CELLS}
    grok["rho 0.002"] = {"lambda 0": [9000, None, 8000, None, 7000], "lambda 0.3": [3000] * 5}
    grok["rho 0.003, wd 1.5"]["lambda 0.3"] = [2000] * 5                           # T(1.5) = 1,959: within
    grok["fresh, wd 1.5"] = {"lambda 0": [3000] * 5, "lambda 0.3": [2600] * 4}       # one run not stored yet
    partial = P.summarize(grok, model)
    assert partial["verdict"] == "not decided" and len(partial["cells"]) == 7 and partial["stored_runs"] == 79
    grok["fresh, wd 1.5"]["lambda 0.3"].append(9999)       # geometric mean 3,304 against T(1.5) = 1,959: outside
    out = P.summarize(grok, model)
    assert (out["verdict"], out["held"], out["planned_runs"]) == ("holds", 7, 80)
    assert "outside" in out["cells"]["fresh, wd 1.5"]["text"]
    assert ">= " in out["cells"]["rho 0.002"]["text"] and "2 of 5 runs without the prior" in out["cells"]["rho 0.002"]["text"]
    from audit import report
    assert "not complete" in " ".join(report.payoff_block(str(tmp_path)))
    store.write_json(str(tmp_path / "payoff.json"), out, digits=6)
    block = "\n".join(report.payoff_block(str(tmp_path)))
    assert "H8: **holds**, 7 of 8 cells within 1.5x" in block and "n = 80 runs" in block
    assert "rho 0.002: " + out["cells"]["rho 0.002"]["text"] in block
    # the runs' own budget (--quick's 1,500): the bounds and the words are at it, never at BUDGET
    quick = P.summarize({"rho 0.002": {"lambda 0": [None], "lambda 0.3": [600]}}, model, 1, budget=1500)
    cell = quick["cells"]["rho 0.002"]
    assert cell["speedup_measured_at_least"] == pytest.approx(1500 / 600) and quick["budget"] == 1500
    assert "never grokked within 1,500" in cell["text"] and "10,000" not in cell["text"]


def test_quick_runs_four_cells_one_seed_at_its_budget():
    args = P.parse(["--quick"])
    planned = P.planned_runs(args)
    assert {label.rsplit("/", 2)[0] for label, _ in planned} == set(P.QUICK_CELLS) and len(planned) == 8
    assert all(c.epochs == 1500 and c.seed == 0 for _, c in planned)
    assert len(P.planned_runs(P.parse([]))) == 2 * 5 * len(P.CELLS)


def test_what_the_rule_cannot_see_is_the_band_the_tolerance_leaves():
    """Every cell exactly on T(wd): any factor within 1.5x passes; an outlier cell changes nothing
    (7 of 8 suffice) but two do. The exponent: six cells at wd 1 hold whatever it is, so it
    passes while one of wd 2 and 0.5 stays within 1.5x: |b - 1| <= log 1.5 / log 2."""
    lo, hi = P.factor_range([1000.0] * 8, [1000.0] * 8)
    assert lo == pytest.approx(1 / 1.5, rel=1e-3) and hi == pytest.approx(1.5, rel=1e-3)
    assert P.factor_range([1000.0] * 7 + [5000.0], [1000.0] * 8) == [lo, hi]
    two = P.factor_range([1000.0] * 6 + [1400.0, 1400.0], [1000.0] * 8)
    assert two[1] == pytest.approx(1.5, rel=1e-3) and two[0] == pytest.approx(1.4 / 1.5, rel=1e-3)
    wds = [1.0] * 6 + [2.0, 0.5]
    gms = [3000.0 * w ** -1.0 for w in wds]
    b_lo, b_hi = P.exponent_range(gms, wds, math.log(3000.0))
    half = math.log(1.5) / math.log(2)
    assert b_lo == pytest.approx(1 - half, abs=2e-3) and b_hi == pytest.approx(1 + half, abs=2e-3)


def test_the_pooled_ratio_and_the_new_cells_exponent_are_described():
    """Cells at twice T(wd) pool to 2x; prior arms on a clean wd^-0.5 law give an exponent near 0.5."""
    model = {"a": math.log(3000.0), "beta": 1.0}
    cells = {}
    for i, wd in enumerate((0.7, 1.0, 1.5, 1.0)):
        times = [2 * 3000.0 * wd ** -0.5 * (1 + 0.01 * k) for k in range(5)]
        gm = float(np.exp(np.mean(np.log(times))))
        cells[f"c{i}"] = {"prior_gm": gm, "predicted_time": gm / (2 * (1 + 0.001 * i)), "wd": wd,
                          "grok": {"lambda 0.3": times}}
    d = P.describe_fit(cells, model)
    assert d["pooled_ratio"][0] == pytest.approx(2 * 1.0015, rel=1e-3) and d["pooled_ratio"][1] < 2 < d["pooled_ratio"][2]
    assert d["beta_new"][0] == pytest.approx(0.5, abs=0.02) and d["runs_new"] == 20
    cells["c0"]["prior_gm"] = None                     # a prior arm run that never grokked: nothing described
    assert P.describe_fit(cells, model) is None