"""The verdict rules, version 1 (analysis.py, kept unchanged beside version 2), on synthetic data
whose truth is known, and phase marks. Version 2: tests/test_rules.py."""
import numpy as np
import pytest

import analysis
from verdicts import rules as A

BUDGET = 10000


def test_clopper_pearson_matches_closed_forms():
    # k = n: lower = alpha^(1/n); k = 0: upper = 1 - alpha^(1/n)
    lo, hi = A.clopper_pearson_one_sided(5, 5)
    assert lo == pytest.approx(0.05 ** (1 / 5), abs=1e-9) and hi == 1.0
    lo, hi = A.clopper_pearson_one_sided(0, 5)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.05 ** (1 / 5), abs=1e-9)
    lo, hi = A.clopper_pearson_one_sided(3, 10)      # scipy.stats.binomtest(3, 10).proportion_ci(0.90)
    assert lo == pytest.approx(0.0873, abs=1e-4) and hi == pytest.approx(0.6066, abs=1e-4)


def test_censored_median():
    assert A.censored_median([100, None, 300], BUDGET) == (300.0, False)
    assert A.censored_median([100, None, None], BUDGET) == (BUDGET, True)
    assert analysis.fmt_median([None, None], BUDGET) == "> 10000"
    assert A.censored_median([100, 200], BUDGET) == (150.0, False)
    assert A.censored_median([100, None], BUDGET) == ((100 + BUDGET) / 2, True)     # a lower bound
    assert analysis.fmt_median([100, None], BUDGET) == "> 5050"


def test_clean_speedup_is_reproduced():
    base = {s: 4000 + 100 * s for s in range(5)}
    v = A.speedup_verdict_v1(base, {s: base[s] / 2 for s in range(5)}, BUDGET)
    assert v["verdict"] == A.REPRODUCED and v["n"] == 5
    assert np.exp(v["estimate"]) == pytest.approx(2.0) and "2.00x" in v["text"]


def test_no_effect_is_not_reproduced_or_inconclusive():
    rng = np.random.default_rng(0)
    base = {s: float(rng.uniform(2000, 6000)) for s in range(5)}
    same = A.speedup_verdict_v1(base, dict(base), BUDGET)          # exactly no effect: excludes any speed-up
    assert same["verdict"] == A.NOT_REPRODUCED
    noisy = {s: base[s] * (1.3 if s % 2 else 1 / 1.3) for s in range(5)}
    assert A.speedup_verdict_v1(base, noisy, BUDGET)["verdict"] == A.INCONCLUSIVE
    slower = A.speedup_verdict_v1(base, {s: 2 * base[s] for s in range(5)}, 1e9)
    assert slower["verdict"] == A.NOT_REPRODUCED


def test_fewer_than_five_seeds_is_at_most_inconclusive():
    one = A.speedup_verdict_v1({0: 4000}, {0: 1000}, BUDGET)
    assert one["verdict"] == A.INCONCLUSIVE and one["n"] == 1 and "n = 1 < 5" in one["reason"]
    assert A.property_verdict_v1([True] * 4)["verdict"] == A.INCONCLUSIVE
    assert A.property_verdict_v1([True] * 5)["verdict"] == A.REPRODUCED
    assert A.property_verdict_v1([False] * 5)["verdict"] == A.NOT_REPRODUCED
    assert A.property_verdict_v1([True, True, True, True, False])["verdict"] == A.INCONCLUSIVE


def test_censored_runs_stay_in_and_all_censored_decides_nothing():
    never = {s: None for s in range(5)}
    v = A.speedup_verdict_v1(never, {s: 3000 for s in range(5)}, BUDGET)   # the treatment alone groks
    assert v["verdict"] == A.REPRODUCED and np.exp(v["estimate"]) == pytest.approx(BUDGET / 3000)
    assert "5 in only the baseline (its ratio a lower bound)" in v["reason"]      # a bound, and says so
    mixed = A.speedup_verdict_v1({0: None, 1: 2000, 2: None, 3: 4000}, {0: 1000, 1: None, 2: None, 3: 2000}, BUDGET)
    assert mixed["reason"].endswith("1 in only the baseline (its ratio a lower bound), "
                                    "1 in only the treatment (an upper bound), 1 in both arms (counted as 1x)")
    assert mixed["never_grokked"] == {"baseline": 2, "treatment": 2}
    assert A.speedup_verdict_v1(never, dict(never), BUDGET)["verdict"] == A.INCONCLUSIVE
    assert A.property_verdict_v1([])["verdict"] == A.NOT_DECIDED
    assert A.property_verdict_v1([None, None])["verdict"] == A.NOT_DECIDED
    assert A.effect_verdict_v1([])["verdict"] == A.NOT_DECIDED
    times = {x: dict(never) for x in (1, 10, 100)}
    assert A.scaling_verdict_v1(times, BUDGET)["verdict"] == A.INCONCLUSIVE


def law(xs, slope, floor=None, noise=0.05, n_seeds=5, seed=0):
    rng = np.random.default_rng(seed)
    t = lambda x: max(floor or 0, 20 * x ** slope)
    return {x: {s: t(x) * float(np.exp(rng.normal(0, noise))) for s in range(n_seeds)} for x in xs}


def test_clean_inverse_law_with_no_floor_is_reproduced():
    v = A.scaling_verdict_v1(law([3, 10, 30, 100, 300], 1.0), 1e9)
    assert v["verdict"] == A.REPRODUCED, v
    assert v["fit"]["n_floor"] == 0 and "floor absent" in v["text"]
    assert v["ci"][0] < 1 < v["ci"][1] and v["fit"]["slope"] == pytest.approx(1, abs=0.05)


def test_law_with_a_floor_fits_above_it():
    v = A.scaling_verdict_v1(law([1, 3, 10, 30, 100, 300], 1.0, floor=400), 1e9)
    assert v["verdict"] == A.REPRODUCED and v["fit"]["floor"] == pytest.approx(400, rel=0.05)
    assert set(v["fit"]["sloped_x"]) == {30, 100, 300}


def test_flat_or_half_law_is_not_reproduced_and_two_points_are_inconclusive():
    assert A.scaling_verdict_v1(law([3, 10, 30, 100, 300], 0.5, noise=0.02), 1e9)["verdict"] == A.NOT_REPRODUCED
    assert A.scaling_verdict_v1(law([3, 10, 30, 100, 300], 0.0, noise=0.02), 1e9)["verdict"] == A.NOT_REPRODUCED
    two = A.scaling_verdict_v1(law([10, 30], 1.0, noise=0.3), 1e9)
    assert two["verdict"] == A.INCONCLUSIVE
    one_seed = A.scaling_verdict_v1(law([3, 10, 30, 100, 300], 1.0, n_seeds=1), 1e9)
    assert one_seed["verdict"] == A.INCONCLUSIVE and one_seed["n"] == 1


def test_combine_parts():
    R, N, I, D = ({"verdict": v} for v in (A.REPRODUCED, A.NOT_REPRODUCED, A.INCONCLUSIVE, A.NOT_DECIDED))
    assert A.combine({"a": R, "b": R}) == A.REPRODUCED
    assert A.combine({"a": R, "b": N}) == A.NOT_REPRODUCED
    assert A.combine({"a": R, "b": D}) == A.INCONCLUSIVE
    assert A.combine({"a": D}) == A.NOT_DECIDED and A.combine({}) == A.NOT_DECIDED


def history(train_acc, test_acc, frac_struct, info_mass, grad):
    n = len(train_acc)
    return {"epoch": list(range(0, 10 * n, 10)), "train_acc": train_acc, "test_acc": test_acc,
            "frac_struct": frac_struct, "info_mass": info_mass, "grad_W_norm": grad, "mlp_norm": [1.0] * n}


def test_phase_marks_treat_epoch_zero_as_an_epoch():
    # structure already met at epoch 0: t_struct = 0 must not be read as "missing"
    h = history([0, 1, 1, 1], [0, 0.1, 0.6, 1], [1, 1, 1, 1], [0.4] * 4, [1, 2, 0.01, 0.01])
    m = analysis.phase_marks(h)
    assert m["t_struct"] == 0 and m["t_mem"] == 10 and m["t_grok"] == 30
    # the plateau window ends at t_struct when it is 0... which lies before t_mem: it is [t_mem, t_mem]
    assert m["grad_collapse"] == pytest.approx(1.0)


def test_paper_regime_checks():
    n = 120
    ep = np.arange(n) * 10
    h = history((ep >= 300).astype(float).tolist(), np.clip((ep - 900) / 200, 0, 1).tolist(),
                (ep >= 800).astype(float).tolist(), np.where(ep < 600, 0.2, 0.45).tolist(),
                np.where(ep <= 300, 1.0, 0.01).tolist())
    m = analysis.phase_marks(h)
    assert m["t_found"] == 600 and m["t_mem"] == 300          # mass 0.45 > 0.25 from epoch 600
    checks = analysis.paper_regime_checks(m, budget=1190)
    assert all(checks.values()), (m, checks)
    early = dict(m, mass_at_mem=0.3)
    assert not analysis.paper_regime_checks(early, 1190)["diffuse_at_mem"]
    assert not analysis.paper_regime_checks(dict(m, t_rise=m["t_mem"] + 100), 1190)["starved_plateau"]
    assert not analysis.paper_regime_checks(dict(m, t_grok=None), 1190)["groks"]
    assert not analysis.paper_regime_checks(dict(m, t_struct=m["t_rise"] + 10), 1190)["condenses_first"]


def test_level_verdict():
    assert A.level_verdict_v1([0.995, 0.998, 0.999, 0.996, 0.997], 0.99, 1.01)["verdict"] == A.REPRODUCED
    assert A.level_verdict_v1([0.3, 0.4, 0.35, 0.38, 0.33], 0.99, 1.01)["verdict"] == A.NOT_REPRODUCED
    assert A.level_verdict_v1([0.3, 0.999, 0.35, 0.999, 0.999], 0.99, 1.01)["verdict"] == A.INCONCLUSIVE
    assert A.level_verdict_v1([0.38], 0.99, 1.01)["verdict"] == A.INCONCLUSIVE     # one seed


def test_censored_runs_make_a_shallow_slope_a_lower_bound():
    # an exact 1/lambda law whose weakest prior runs past the budget: the fitted slope is
    # below 1 only because of the censoring, so it refutes nothing
    law = {x: {s: (None if 200 * x > 10000 else 200 * x) for s in range(5)} for x in (1, 3, 10, 30, 100)}
    v = A.scaling_verdict_v1(law, 10000)
    assert v["ci"][1] < 1
    assert v["verdict"] == A.INCONCLUSIVE and "lower bound" in v["reason"]


def test_censoring_bias_is_the_side_of_the_mean_log_x_the_censored_runs_sit_on():
    lx = np.log([1, 3, 9])                       # mean log 3: x = 3 moves nothing
    cens = lambda *rows: np.array([[c] * 2 for c in rows])
    assert A.censoring_bias(lx, cens(False, False, False)) is None
    assert A.censoring_bias(lx, cens(False, True, False)) is None
    assert A.censoring_bias(lx, cens(False, False, True)) == "lower"      # the long, weak-prior end
    assert A.censoring_bias(lx, cens(True, False, False)) == "upper"      # never grokked at the strong end
    assert A.censoring_bias(lx, cens(True, False, True)) == "both"


def test_censored_runs_keep_a_slope_consistent_with_1_from_counting_as_reproduced():
    # an exact 1/lambda law, two of the weakest prior's runs past the budget: the fit is
    # a lower bound, so "contains 1" says nothing about the true slope
    times = law([3, 10, 30, 100, 300], 1.0, noise=0.2)
    times = {x: {s: (None if t > 7000 else t) for s, t in r.items()} for x, r in times.items()}
    v = A.scaling_verdict_v1(times, 7000)
    assert v["ci"][0] < 1 < v["ci"][1]
    assert v["verdict"] == A.INCONCLUSIVE and "lower bound" in v["reason"]


def test_runs_that_never_grok_at_the_strongest_decay_are_no_floor_and_refute_the_law():
    # C11's shape: the law holds at wd 2, 1, 0.5 (x = 1/wd), but at wd 4 no run groks. Taken
    # as a "floor" they would hide the failure (a floor above every other run is no hinge);
    # censored on the left, they make the slope an upper bound, and it lies below 1
    times = {0.25: {s: None for s in range(5)}, **law([0.5, 1, 2], 1.0, noise=0.1)}
    times = {x: {s: (None if t is None else 200 * t) for s, t in r.items()} for x, r in times.items()}
    v = A.scaling_verdict_v1(times, 10000)
    assert v["fit"]["floor"] is None and v["fit"]["sloped_x"] == [2.0, 1.0, 0.5, 0.25]
    assert v["ci"][1] < 1 and v["verdict"] == A.NOT_REPRODUCED


def test_held_from_skips_a_threshold_met_and_lost():
    h = {"epoch": [0, 10, 20, 30, 40, 50], "frac": [0.2, 0.995, 0.7, 0.99, 1.0, 0.999]}
    assert analysis.first_epoch(h, "frac", 0.99) == 10
    assert analysis.held_from(h, "frac", 0.99) == 30           # met at 10, lost at 20, held from 30 on
    assert analysis.held_from({"epoch": [0, 10], "frac": [1.0, 0.5]}, "frac", 0.99) is None   # lost at the end
    assert analysis.held_from({"epoch": [0, 10], "frac": [1.0, 1.0]}, "frac", 0.99) == 0       # epoch 0 is an epoch
