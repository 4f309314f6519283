"""beyond/payoff.py (docs/registered/payoff.md, H8): the model as fitted for the registration, its cells,
and its rule."""
import math
import os

import pytest

from beyond import payoff as P
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
