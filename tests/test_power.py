"""The power plan's arithmetic (power.py): each piece against a value known without it."""
import math
import os

import numpy as np
import pytest

from audit import rules as A
from audit import power


def test_t_decided_is_the_t_intervals_own_error_rate_at_no_effect_and_one_at_a_large_one():
    """At mu = 0 the 95% t-interval lies wholly above 0 in 2.5% of data sets (exact for normal
    data, any n); at a large effect it always does. 4000 replicates: Monte-Carlo sd 0.0025."""
    above = lambda lo, hi: lo > 0
    assert power.t_decided(5, 0.0, 1.0, above) == pytest.approx(0.025, abs=0.01)
    assert power.t_decided(20, 0.0, 0.3, above) == pytest.approx(0.025, abs=0.01)
    assert power.t_decided(10, 5.0, 1.0, above) == 1.0
    # power grows with n: the same effect is decided more often at more seeds
    assert power.t_decided(20, 0.5, 1.0, above) > power.t_decided(8, 0.5, 1.0, above) + 0.2


def test_property_decided_sums_the_binomial_over_the_rules_decisive_counts():
    """The decision rate is the binomial mass of the counts at which rule 5 decides, here
    summed by hand; at 5 seeds no count decides (5/5's interval reaches below one half)."""
    n, p = 9, 0.9
    decisive = [k for k in range(n + 1)
                if A.property_verdict([True] * k + [False] * (n - k))["verdict"] in (A.REPRODUCED, A.NOT_REPRODUCED)]
    want = sum(math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in decisive)
    assert power.property_decided(n, p) == pytest.approx(want)
    assert 0.5 < want < 1
    assert power.property_decided(5, 0.95) == 0 < power.property_decided(12, 0.95) <= 1


def test_seeds_for_finds_the_first_n_at_the_power_line():
    step = lambda n: 1.0 if n >= 17 else 0.5
    assert power.seeds_for(step) == 17
    assert power.seeds_for(step, start=4, step=2) in range(17, 19)        # doubling then bisection, within 10%
    assert power.seeds_for(lambda n: 0.0) is None


def test_scatter_inverts_the_t_interval():
    """The sd a verdict's interval implies is the per-seed sd it was computed from."""
    x = np.array([0.1, 0.5, -0.2, 0.9, 0.3, 0.4])
    half = A.t_quantile(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
    v = {"n": len(x), "ci": [x.mean() - half, x.mean() + half]}
    assert power.scatter(v) == pytest.approx(x.std(ddof=1))


def test_scaling_decided_on_a_clean_law_and_a_flat_curve():
    """Rule 6 (v3) decides a clean 1/x law with little scatter, and a flat curve (slope 0)."""
    room = (1.0, 2.0, 4.0)
    assert power.scaling_decided(10, room, 0.05, 1.0, 1e9, 1000.0, reps=20) == 1.0
    assert power.scaling_decided(10, room, 0.05, 0.0, 1e9, 1000.0, reps=20) == 1.0


def test_a_run_kept_for_its_weights_is_held_only_by_itself(tmp_path):
    """arm_hours: an early-stopped run that grokked holds its arm, and prices a new seed at its
    epochs; a run with no early stop (Figure 4's dense run, kept for its final weights) is held
    only by its own key and a new one runs the whole budget. The first plan counted the dense
    runs as held by the early-stopped baselines, and priced C4 at 9 core-hours."""
    import gzip
    import json

    def put(name, grok, epochs_run):
        with gzip.open(tmp_path / f"{name}.json.gz", "wt") as f:
            json.dump({"summary": {"grok_epoch": grok, "epochs_run": epochs_run, "ms_per_epoch": 36.0}}, f)
        power._names.cache_clear()                   # the store's listing is cached
    put("x_seed0_e1000_stop200", 300, 500)           # grokked at 300, stopped at 500
    hour = 1000 * 36.0 / 3.6e6                        # one whole-budget run
    assert power.arm_hours("x_seed{seed}_e1000_stop200", 1, store=str(tmp_path)) == 0
    assert power.arm_hours("x_seed{seed}_e1000_stop200", 2, store=str(tmp_path)) == pytest.approx(hour / 2)
    assert power.arm_hours("x_seed{seed}_e1000", 1, store=str(tmp_path)) == pytest.approx(hour)
    put("x_seed1_e1000", 300, 1000)                   # seed 1's own full run
    assert power.arm_hours("x_seed{seed}_e1000", 2, store=str(tmp_path)) == pytest.approx(hour)
    put("y_init_seed=1000_seed0_e1000_stop200", 300, 500)   # {init}: the Bayesian ticket's seed + 1000
    assert power.arm_hours("y_init_seed={init}_seed{seed}_e1000_stop200", 1, store=str(tmp_path)) == 0


def test_row_19s_registered_power_table_is_what_the_code_computes():
    """docs/plan.md, seventh addendum: the power table of C11's fresh law on 16 new seeds, recomputed."""
    with open(os.path.join("docs", "plan.md")) as f:
        doc = f.read().split("*Seventh addendum", 1)[1]
    for line in power.row19_table().splitlines()[2:]:
        assert line in doc, line
    # the table's rule is the one that decides: a clean 1/wd law reads reproduced, a flat curve not
    clean = power.scaling_outcomes(8, (0.5, 1.0, 2.0), 0.05, 1.0, 1e9, 1000.0, reps=20)
    flat = power.scaling_outcomes(8, (0.5, 1.0, 2.0), 0.05, 0.0, 1e9, 1000.0, reps=20)
    assert clean == {"reproduced": pytest.approx(1.0)} and flat == {"not reproduced": pytest.approx(1.0)}