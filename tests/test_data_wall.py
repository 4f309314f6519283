"""The data wall's registered rules (docs/registered/data_wall.md): the pilot's choice of fractions and
budget, an arm's wall, the reading at a fraction, and the exact power."""
import math

import pytest

from audit import data_wall as W
from audit.information import fisher_one_sided


def test_the_pilot_brackets_the_fraction_where_lambda_0_stops_grokking():
    # lambda 0 reaches 0.95 at 0.25 and 0.2 (slowest 12,000 epochs at 0.2), at 0.15 in neither pilot seed
    got = W.pilot_choice({0.25: 2, 0.2: 1, 0.15: 0}, {0.25: [5000, 6000], 0.2: [12000]})
    assert got["f_p"] == 0.2 and got["g_fail"] == 0.15
    assert got["fractions"] == (0.2, 0.175, 0.15, 0.075)
    assert got["budget"] == 40000 and got["seeds"] == list(W.SEEDS)        # 3 x 12,000 rounded up to 10,000
    slow = W.pilot_choice({0.25: 2, 0.2: 2, 0.15: 0}, {0.25: [5000, 6000], 0.2: [9000, 18000]})
    assert slow["budget"] == 60000 and slow["seeds"] == list(W.SEEDS[:8])  # 54,000 -> 60,000: eight seeds
    fast = W.pilot_choice({0.25: 0}, {})
    assert fast["f_p"] == W.KNOWN and fast["fractions"] == (0.3, 0.275, 0.25, 0.125) and fast["budget"] == 30000
    never = W.pilot_choice({g: 2 for g in W.PILOT_GRID}, {g: [1000] for g in W.PILOT_GRID})
    assert never["f_p"] == 0.05 and never["fractions"] == (0.05, 0.0375, 0.025, 0.0125)
    capped = W.pilot_choice({0.25: 2, 0.2: 0}, {0.25: [29000]})
    assert capped["budget"] == W.MAX_BUDGET


def test_an_arm_s_wall_is_the_smallest_fraction_where_half_its_runs_reach_095():
    fr = (0.2, 0.175, 0.15, 0.075)
    assert W.wall({0.2: (9, 10), 0.175: (5, 10), 0.15: (4, 10), 0.075: (0, 10)}, fr) == 0.175
    assert W.wall({0.2: (4, 10), 0.175: (3, 10), 0.15: (0, 10), 0.075: (0, 10)}, fr) is None
    assert W.wall({f: (10, 10) for f in fr}, fr) == 0.075
    assert W.wall({0.2: (0, 0)}, fr) is None                      # no runs: no wall read


def test_each_reading_at_a_fraction():
    c = lambda a, b, u: {"lambda 0": (a, 10), "oracle": (b, 10), "uniform": (u, 10)}   # noqa: E731
    assert W.reading(c(5, 10, 10)) == W.READINGS[0]               # lambda 0 in half its runs: no wall here
    assert W.reading(c(1, 9, 1)) == W.READINGS[1]                 # the information needed
    assert W.reading(c(1, 9, 9)) == W.READINGS[2]                 # the KL without it crosses too
    assert W.reading(c(1, 9, 5)) == W.READINGS[3]                 # uniform in between: not told
    assert W.reading(c(1, 4, 9)) == W.READINGS[4]                 # the prior does not cross
    assert W.reading(c(3, 6, 1)) == W.READINGS[5]                 # 6/10 against 3/10: not significant
    # the test is one-sided Fisher at 0.025: 6 of 10 against 1 of 10 has p 0.029, 8 against 2 p 0.012
    assert fisher_one_sided(6, 10, 1, 10) == pytest.approx(0.0286, abs=1e-4)
    assert W.reading(c(1, 6, 0)) == W.READINGS[5] and W.reading(c(2, 8, 0)) == W.READINGS[1]


def test_the_overall_reading_needs_every_fraction_and_a_wall():
    r = W.READINGS
    assert W.overall({}) == "not decided"
    assert W.overall({0.2: r[0], 0.1: r[0]}).startswith("untestable")
    assert W.overall({0.2: r[0], 0.1: r[4]}) == "not shown"
    assert W.overall({0.2: r[0], 0.15: r[2], 0.1: r[2]}) == \
        "shown at train fraction 0.1, 0.15; not the information (the KL without it crosses too)"
    assert W.overall({0.2: r[0], 0.15: r[1]}) == "shown at train fraction 0.15; the information is needed"


def test_the_power_is_exact_and_sums_to_one():
    for p, right in W.TRUTHS.values():
        pr = W.reading_probabilities(p, 6)
        assert math.isclose(sum(pr.values()), 1.0, rel_tol=1e-12)
    # one arm certain, the others certain: the reading is certain
    assert W.reading_probabilities((0.0, 1.0, 0.0), 10)[W.READINGS[1]] == pytest.approx(1.0)
    assert W.reading_probabilities((0.0, 1.0, 1.0), 10)[W.READINGS[2]] == pytest.approx(1.0)
    # against a Monte Carlo count of the same design
    import random
    rng, n, p = random.Random(0), 8, (0.3, 0.7, 0.3)
    draws = [W.reading({arm: (sum(rng.random() < q for _ in range(n)), n) for arm, q in zip(W.ARMS, p)})
             for _ in range(4000)]
    exact = W.reading_probabilities(p, n)
    for name in W.READINGS:
        assert abs(draws.count(name) / len(draws) - exact[name]) < 0.03


def test_the_runs_are_the_paper_config_in_fresh_with_the_information_study_s_arms():
    import argparse
    args = argparse.Namespace(p=113, epochs=30000, stop_after=200, regime="fresh", quick=False, seeds=[510])
    runs = dict(W.study_runs(args, (0.2, 0.1), 30000))
    assert len(runs) == 2 * 3
    cfg = runs["oracle frac0.1 seed510"]
    assert (cfg.frac, cfg.lam, cfg.prior, cfg.distractors, cfg.epochs, cfg.p, cfg.wd) == (0.1, 0.3, "oracle", "fresh", 30000, 113, 1.0)
    assert runs["lambda 0 frac0.2 seed510"].lam == 0.0 and runs["uniform frac0.2 seed510"].prior == "uniform"
    assert not set(W.PILOT_SEEDS) & set(W.SEEDS)


def test_a_summary_from_made_up_runs_reads_and_draws(tmp_path):
    """summarize, text and plot on made-up histories: one cell short of its runs reads not decided."""
    def run(t95):
        epochs = list(range(0, 1001, 100))
        acc = [0.96 if t95 is not None and e >= t95 else 0.1 for e in epochs]
        mass = [0.2 + e / 4000 for e in epochs]             # 0.225 at epoch 100, 0.45 at the end
        return {"grok_epoch": None}, {"epoch": epochs, "test_acc": acc, "info_mass": mass}
    reach = {"lambda 0": {0.2: 600, 0.1: None}, "oracle": {0.2: 300, 0.1: 500}, "uniform": {0.2: 200, 0.1: 400}}
    results = {W.label(a, f, s): run(reach[a][f]) for a in W.ARMS for f in (0.2, 0.1) for s in (1, 2, 3, 4)}
    s = W.summarize(results, (0.2, 0.1), 1000, (1, 2, 3, 4))
    assert s["cells"]["0.1"]["lambda 0"]["k"] == 0 and s["cells"]["0.1"]["oracle"]["k"] == 4
    assert s["readings"]["0.2"] == W.READINGS[0] and s["walls"]["lambda 0"] == 0.2 and s["walls"]["oracle"] == 0.1
    assert s["readings"]["0.1"] == W.READINGS[2]          # 4 of 4 against 0 of 4: Fisher p 1/70 < 0.025, both priors
    assert s["overall"].startswith("shown at train fraction 0.1; not the information")
    del results[W.label("uniform", 0.1, 4)]
    short = W.summarize(results, (0.2, 0.1), 1000, (1, 2, 3, 4))
    assert "0.1" not in short["readings"] and short["overall"] == "not decided" and short["walls"] is None
    assert "fraction 0.1" in W.text(short)
    part = next(l for l in W.markdown(short) if "fraction 0.1" in l)      # a cell short of its runs says how short
    assert part.endswith("**not decided** (so far: 11 of 12 runs stored)"), part
    assert "so far" not in next(l for l in W.markdown(short) if "fraction 0.2" in l)      # a whole cell is read
    ratios = lambda summary: [l for l in W.markdown(summary) if "t_95 ratios" in l]     # beside a read cell only
    assert len(ratios(s)) == 2 and len(ratios(short)) == 1 and "oracle over lambda 0 2.00x" in ratios(short)[0]
    begun = {k: v for k, v in results.items() if not (k.startswith("lambda 0") and "0.1" in k)}
    line = next(l for l in W.markdown(W.summarize(begun, (0.2, 0.1), 1000, (1, 2, 3, 4))) if "fraction 0.1" in l)
    assert "lambda 0" not in line.split("median")[0] and "0 of 0" not in line, line     # an arm not begun is absent
    W.MASS_EPOCH, kept = 100, W.MASS_EPOCH                   # the arm check reads the mass at MASS_EPOCH and at the end
    try:
        check = W.arm_check(W.summarize(results, (0.2,), 1000, (1, 2, 3, 4))["cells"]["0.2"])
    finally:
        W.MASS_EPOCH = kept
    assert "at epoch 100: lambda 0 0.23, oracle 0.23" in check and "end: lambda 0 0.45, oracle 0.45, uniform 0.45" in check
    empty = W.summarize({k: v for k, v in results.items() if "0.1" not in k}, (0.2, 0.1), 1000, (1, 2, 3, 4))
    for page in (W.text(empty), "\n".join(W.markdown(empty))):      # a cell with no run says so
        line = next(l for l in page.splitlines() if "fraction 0.1" in l)
        assert "no run stored yet" in line and "0 of 0" not in line and "0/0" not in line
    W.plot(s, str(tmp_path / "wall.png"))
    assert (tmp_path / "wall.png").exists()


def test_the_t95_ratios_are_per_seed_and_a_censored_run_is_a_bound():
    """The ratios beside a read cell (ours, deciding nothing): the slower arm's t_95 over the faster's, seed by
    seed; a seed censored in both arms is left out of n, one censored in the slower arm makes the ratio a bound."""
    seeds = [1, 2, 3, 4, 5, 6, 7]
    cell = {"lambda 0": {"seeds": seeds, "t_95": [400, 800, 1200, 1600, 2000, 2400, None]},
            "oracle": {"seeds": seeds, "t_95": [200, 400, 600, 800, 1000, 1200, None]},
            "uniform": {"seeds": seeds, "t_95": [100, 200, 300, 400, 500, 600, 5000]}}
    got = {(fast, slow): (shown, n) for fast, slow, shown, n in W.t95_ratios(cell, 10000)}
    assert got[("oracle", "lambda 0")] == ("2.00x [2.00x, 2.00x]", 6)           # seed 7 censored in both: out
    shown, n = got[("uniform", "lambda 0")]
    assert n == 7 and shown.startswith(">= 4.00x") and shown.endswith("inf]")   # seed 7: 10000 / 5000, a lower bound
    cell["uniform"]["seeds"] = [7, 6, 5, 4, 3, 2, 1]                            # paired by seed, not by position
    cell["uniform"]["t_95"] = cell["uniform"]["t_95"][::-1]
    assert {(f, s): (sh, n) for f, s, sh, n in W.t95_ratios(cell, 10000)} == got
    never = {arm: {"seeds": seeds, "t_95": [None] * len(seeds)} for arm in W.ARMS}    # a cell where no run reached it
    assert all(n == 0 and sh.startswith("no run of either arm") for _, _, sh, n in W.t95_ratios(never, 10000))


def test_before_its_pilot_the_study_plans_the_pilot_s_grid_and_reports_not_run(tmp_path):
    args = W.parse(["--results-dir", str(tmp_path)])
    runs = W.planned_runs(args)
    assert len(runs) == len(W.PILOT_GRID) * len(W.PILOT_SEEDS)
    assert {cfg.seed for _, cfg in runs} == set(W.PILOT_SEEDS) and {cfg.epochs for _, cfg in runs} == {W.MIN_BUDGET}
    assert W.design(args) is None and any("not run" in line for line in W.markdown(None))
    W.main(["--results-dir", str(tmp_path), "--plot-only"])          # a redraw before the pilot writes nothing
    assert not list(tmp_path.iterdir())
    import json
    choice = W.pilot_choice({0.25: 2, 0.2: 0}, {0.25: [4000, 5000]})
    (tmp_path / "data_wall_pilot.json").write_text(json.dumps({**choice, "reached": {"0.25": 2, "0.2": 0}}))
    runs = W.planned_runs(W.parse(["--results-dir", str(tmp_path)]))
    assert len(runs) == 2 * 2 + 4 * 3 * 10 + 8 * 2 + 32 * 3 and {cfg.epochs for _, cfg in runs[4:]} == {30000}  # + amendments 3-5
    W.main(["--results-dir", str(tmp_path), "--plot-only"])          # chosen, none of its runs stored: nothing drawn
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data_wall_pilot.json"]
    assert any("0.25, 0.225, 0.2, 0.1" in line for line in W.markdown(None, {**choice, "reached": {"0.25": 2, "0.2": 0}}))


def test_amendment_1_trains_the_cell_where_lambda_0_failed_first():
    import argparse
    args = argparse.Namespace(p=113, epochs=60000, stop_after=200, regime="fresh", quick=False, seeds=[510, 511])
    runs = W.study_runs(args, (0.2, 0.175, 0.15, 0.075), 60000)
    assert [cfg.frac for _, cfg in runs] == [f for f in (0.15, 0.175, 0.2, 0.075) for _ in range(2 * 3)]
    assert [cfg.seed for _, cfg in runs[:6]] == [510, 510, 510, 511, 511, 511]


def test_amendment_2_s_second_reading_and_its_exact_power():
    """Amendment 2 (docs/registered/data_wall.md): does the KL without the information carry runs over a wall
    lambda 0 fails at? Its reading per fraction, its reading over the fractions it is judged on, its power."""
    c = lambda a, u: {"lambda 0": (a, 8), "oracle": (0, 8), "uniform": (u, 8)}   # noqa: E731
    r = W.SECOND_READINGS
    assert W.second_reading(c(4, 0)) == r[0]                      # lambda 0 in half its runs: no wall
    assert W.second_reading(c(2, 8)) == r[1]                      # 0.15's counts: Fisher p 0.0035
    assert W.second_reading(c(1, 6)) == r[1] and W.second_reading(c(2, 6)) == r[3]   # p 0.020 and 0.066
    assert W.second_reading(c(0, 3)) == r[2] and W.second_reading(c(3, 4)) == r[3]
    new = dict.fromkeys(W.CONFIRM_FRACTIONS, r[0])
    assert W.second_overall({0.15: r[1]}) == "not decided"        # 0.15 prompted it: it never confirms
    assert W.second_overall(new).startswith("untestable")
    assert W.second_overall({**new, 0.075: r[2]}) == "not confirmed"
    assert W.second_overall({**new, 0.075: r[3]}) == "not confirmed"
    assert W.second_overall({**new, 0.175: r[1], 0.075: r[2]}) == "confirmed"
    for p, _ in W.SECOND_TRUTHS.values():
        assert math.isclose(sum(W.second_probabilities(p, 8).values()), 1.0, rel_tol=1e-12)
    # the truth at both arms equal never reads a crossing more than 1% of the time at eight runs an arm
    for q in (0.1, 0.2, 0.3, 0.4):
        assert W.second_probabilities((q, q), 8)[r[1]] < 0.01
    assert W.second_probabilities((0.1, 0.9), 8)[r[1]] == pytest.approx(0.932, abs=5e-4)
    # through summarize, at the study's own fractions (the pilot's halfway 0.175 is the same float as the constant)
    def run(t95):
        return {"grok_epoch": None}, {"epoch": [0, 500, 1000], "test_acc": [0.1, 0.1, 0.96 if t95 else 0.1],
                                      "info_mass": [0.2, 0.3, 0.4]}
    fr = ((0.2 + 0.15) / 2, 0.2, 0.15, 0.15 / 2)
    reach = {"lambda 0": {0.2: 1}, "oracle": {}, "uniform": {fr[0]: 1, 0.15: 1}}
    results = {W.label(a, f, s): run(reach[a].get(f)) for a in W.ARMS for f in fr for s in range(4)}
    s = W.summarize(results, fr, 1000, range(4))
    assert s["second"] == {"0.175": r[1], "0.2": r[0], "0.15": r[1], "0.075": r[2]}
    assert s["second_overall"] == "confirmed"
    line = W.second_text(s)
    assert "at 0.15: the KL without the information crosses (prompted it; confirms nothing)" in line
    assert "at 0.175: the KL without the information crosses;" in line and line.endswith("new fractions: confirmed")


def stored_before(marker, keys, path="audit/data_wall.py"):
    """The run keys whose first commit came no later than the commit that first added `marker` to `path`
    ([] for runs not yet committed, which are later still), from the store's dates; skips without git history."""
    import os
    import subprocess
    from datetime import datetime
    from audit import dates as D
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    log = subprocess.run(["git", "log", "--reverse", "--format=%aI", "-S", marker, "--", path],
                         cwd=root, capture_output=True, text=True)
    when = log.stdout.split()[:1] if log.returncode == 0 else []
    dates = D.store_dates(root) if when else None
    if not dates:
        pytest.skip("no git history here (or the amendment is not yet committed)")
    return [k for k in keys if k in dates and datetime.fromisoformat(dates[k]) <= datetime.fromisoformat(when[0])]


def test_amendment_2_is_judged_only_on_runs_stored_after_it():
    """Every stored run of the fractions amendment 2 is judged on was first committed after the commit that
    added it (git; a run not yet committed is later still). Skipped without history."""
    import store
    args = W.parse([])
    keys = [store.run_key(W.config(args, s, f, arm, 60000)) for f in W.CONFIRM_FRACTIONS for s in W.SEEDS[:8]
            for arm in W.ARMS]
    early = stored_before("CONFIRM_FRACTIONS = (", keys)
    assert not early, f"runs stored before amendment 2 judge it: {early}"
    # and the check can fail: 0.15's runs, all stored before it, would
    f15 = [store.run_key(W.config(args, s, 0.15, arm, 60000)) for s in W.SEEDS[:8] for arm in W.ARMS]
    assert stored_before("CONFIRM_FRACTIONS = (", f15) == f15


def planted_at_0_15(reached, seeds):
    """Planted results at fraction 0.15: per arm, its first k seeds' runs reach 0.95 at epoch 1000, the rest never."""
    def run(t95):
        return {"grok_epoch": None}, {"epoch": [0, 500, 1000], "test_acc": [0.1, 0.5, 0.96] if t95 else [0.1] * 3,
                                      "info_mass": [0.2, 0.3, 0.4]}
    return {W.label(a, 0.15, s): run(i < k) for a, k in reached.items() for i, s in enumerate(seeds)}


def test_amendment_3_judges_0_15_s_crossing_on_new_seeds():
    """Amendment 3 (docs/registered/data_wall.md): amendment 2's second reading at 0.15 on seeds no stored run
    had used, lambda 0 and the uniform KL; not decided until all 16 runs are in; its exact power."""
    assert not set(W.CONFIRM_SEEDS) & (set(W.SEEDS) | set(W.PILOT_SEEDS)) and len(W.CONFIRM_SEEDS) == 8
    args = W.parse([])
    runs = W.confirm_runs(args, 60000)
    assert [(cfg.seed, cfg.lam, cfg.prior) for _, cfg in runs[:2]] == [(520, 0.0, "oracle"), (520, 0.3, "uniform")]
    assert {(cfg.frac, cfg.epochs, cfg.distractors) for _, cfg in runs} == {(0.15, 60000, "fresh")} and len(runs) == 16
    results = lambda k0, k2, seeds=W.CONFIRM_SEEDS: planted_at_0_15({"lambda 0": k0, "uniform": k2}, seeds)  # noqa: E731
    assert W.confirmation(results(2, 8), 60000)["reading"] == "confirmed"          # Fisher p 0.0035
    assert W.confirmation(results(2, 6), 60000)["reading"] == "not told"           # p 0.066
    assert W.confirmation(results(1, 3), 60000)["reading"] == "not confirmed"
    assert W.confirmation(results(4, 8), 60000)["reading"].startswith("untestable")
    part = W.confirmation(results(0, 8, W.CONFIRM_SEEDS[:7]), 60000)
    assert part["reading"] == "not decided" and part["cell"]["uniform"]["k"] == 7
    assert "so far: 14 of 16 runs stored" in W.confirmation_text(part, 60000)
    line = W.confirmation_text(W.confirmation(results(2, 8), 60000), 60000)
    assert "lambda 0 2 of 8, uniform 8 of 8; median t_95 lambda 0 60000 (a lower bound), uniform 1000: confirmed" in line
    assert line.endswith(", n = 8") and "t_95 per seed, >= " in line        # six seeds censored: a bound
    assert W.second_probabilities(W.CONFIRM_TRUTHS["as fraction 0.15's counts were (2 of 8, 8 of 8)"], 8)[
        W.SECOND_READINGS[1]] == pytest.approx(0.797, abs=5e-4)


def test_amendment_3_is_judged_only_on_runs_stored_after_it():
    """Every stored run of amendment 3 was first committed after the commit that added it (git). Skipped
    without history."""
    import store
    keys = [store.run_key(cfg) for _, cfg in W.confirm_runs(W.parse([]), 60000)]
    early = stored_before("CONFIRM_SEEDS = tuple(range(520", keys)
    assert not early, f"runs stored before amendment 3 judge it: {early}"


def test_amendment_4_reads_the_oracle_against_lambda_0_at_0_15_on_new_seeds():
    """Amendment 4: the title's need at 0.15 on 32 seeds no run had used, lambda 0 and the oracle, by the registered
    count test (more than half, Fisher one-sided below ALPHA); not decided until all 64 runs are in."""
    used = set(W.SEEDS) | set(W.PILOT_SEEDS) | set(W.CONFIRM_SEEDS)
    assert not set(W.NEED_SEEDS) & used and len(W.NEED_SEEDS) == 32
    runs = W.need_runs(W.parse([]), 60000)
    assert [(cfg.seed, cfg.lam, cfg.prior) for _, cfg in runs[:2]] == [(530, 0.0, "oracle"), (530, 0.3, "oracle")]
    assert {(cfg.frac, cfg.epochs, cfg.distractors) for _, cfg in runs} == {(0.15, 60000, "fresh")} and len(runs) == 64
    results = lambda k0, k1, seeds=W.NEED_SEEDS: planted_at_0_15({"lambda 0": k0, "oracle": k1}, seeds)  # noqa: E731
    read = lambda k0, k1: W.need(results(k0, k1), 60000)["reading"]      # noqa: E731
    assert read(8, 20).startswith("shown")          # 20 of 32 against 8 of 32: Fisher one-sided p 0.0023
    assert read(12, 17) == "not told"               # more than half, p 0.16: not below 0.025
    assert read(8, 15).startswith("not shown")      # fewer than half
    assert read(16, 32).startswith("untestable")    # lambda 0 reaches 0.95 in half its runs
    part = W.need(results(0, 5, W.NEED_SEEDS[:5]), 60000)
    assert part["reading"] == "not decided" and "so far: 10 of 64 runs stored" in W.need_text(part, 60000)
    assert W.need_text(W.need(results(8, 20), 60000), 60000).endswith(", n = 20")   # 12 seeds censored in both arms


def test_amendment_4s_error_rates_are_exact_and_match_simulation():
    """Its power, computed before its runs: exact enumeration, checked against 4,000 simulated studies at the truth
    0.15's counts suggest (lambda 0 0.25, the oracle 0.625), and no more than 2% false 'shown' where the arms are equal."""
    import numpy as np
    truth = W.NEED_TRUTHS["as 0.15's counts were (4 of 16, 5 of 8)"]
    exact = W.need_probabilities(truth, 32)
    assert sum(exact.values()) == pytest.approx(1) and exact[W.NEED_READS[1]] == pytest.approx(0.798, abs=5e-4)
    rng = np.random.default_rng(0)
    ks = rng.binomial(32, truth, size=(4000, 2))
    shown = np.mean([W.crossing({"lambda 0": (int(a), 32), "oracle": (int(b), 32)}, "oracle") == "crosses" for a, b in ks])
    assert abs(shown - exact[W.NEED_READS[1]]) < 3 * np.sqrt(0.2 * 0.8 / 4000)
    for p in (0.1, 0.25, 0.4, 0.5, 0.6):
        assert W.need_probabilities((p, p), 32)[W.NEED_READS[1]] < 0.02


def test_amendment_4_is_judged_only_on_runs_stored_after_it():
    """Every stored run of amendment 4 was first committed after the commit that added it (git). Skipped
    without history."""
    import store
    keys = [store.run_key(cfg) for _, cfg in W.need_runs(W.parse([]), 60000)]
    early = stored_before("NEED_SEEDS = tuple(range(530", keys)
    assert not early, f"runs stored before amendment 4 judge it: {early}"


def test_amendment_5_reads_the_uniform_kl_against_the_oracle_on_amendment_4s_seeds():
    """Amendment 5: the uniform KL on amendment 4's 32 seeds, against the oracle's stored runs there, by the count rule
    both ways; not decided until all 32 new runs are in. The oracle's count it was registered against is the store's."""
    runs = W.info_runs(W.parse([]), 60000)
    assert [(cfg.seed, cfg.lam, cfg.prior) for _, cfg in runs[:2]] == [(530, 0.3, "uniform"), (531, 0.3, "uniform")]
    assert {(cfg.frac, cfg.epochs, cfg.distractors) for _, cfg in runs} == {(0.15, 60000, "fresh")} and len(runs) == 32
    assert not {lab for lab, _ in runs} & {lab for lab, _ in W.need_runs(W.parse([]), 60000)}
    read = lambda ku, ko=18: W.info_reading({"uniform": (ku, 32), "oracle": (ko, 32)})      # noqa: E731
    assert [read(k) for k in (27, 26, 10, 9)] == [W.INFO_READS[0], W.INFO_READS[2], W.INFO_READS[2], W.INFO_READS[1]]
    assert read(32, 16) == W.INFO_READS[0] and read(16, 5) == W.INFO_READS[2]      # 'beats' needs more than half
    results = planted_at_0_15({"lambda 0": 4, "oracle": 18, "uniform": 30}, W.INFO_SEEDS)
    c = W.information_at_wall(results, 60000)
    assert c["reading"] == W.INFO_READS[0] and c["uniform crossing"] == "crosses"
    line = W.info_text(c, 60000)        # beside it: the uniform KL against lambda 0, t_95 per seed, the arm check
    assert "against lambda 0, crosses" in line and line.count(", n = 30") == 1 and "at each run's end: lambda 0 0.40" in line
    part = W.information_at_wall({k: v for k, v in results.items() if "uniform" not in k or "seed53" in k}, 60000)
    assert part["reading"] == "not decided" and "so far: 10 of 32 uniform-KL runs stored" in W.info_text(part, 60000)


def test_amendment_5s_seen_oracle_count_is_the_store_s():
    """INFO_ORACLE_SEEN, which its power and reading were registered against, is the oracle's count in the store."""
    import os
    import store
    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results", "store")
    got = {lab: store.read(folder, cfg) for lab, cfg in W.need_runs(W.parse([]), 60000)}
    if any(v is None for v in got.values()):
        pytest.skip("amendment 4's runs are not all in this store")
    oracle = W.arm_cell(got, "oracle", 0.15, W.INFO_SEEDS)
    assert (oracle["k"], oracle["n"]) == W.INFO_ORACLE_SEEN


def test_amendment_5s_error_rates_are_exact_and_match_simulation():
    """Its power, computed before its runs with the oracle's count fixed as seen: exact, checked against 4,000
    simulated uniform-KL counts, and under 0.2% false 'more often' either way where the uniform KL's chance is the
    oracle's seen 18/32."""
    import numpy as np
    exact = W.info_probabilities(0.9)
    assert sum(exact.values()) == pytest.approx(1) and exact[W.INFO_READS[0]] == pytest.approx(0.906, abs=5e-4)
    ks = np.random.default_rng(0).binomial(32, 0.9, size=4000)
    sim = np.mean([W.info_reading({"uniform": (int(k), 32), "oracle": W.INFO_ORACLE_SEEN}) == W.INFO_READS[0] for k in ks])
    assert abs(sim - exact[W.INFO_READS[0]]) < 3 * np.sqrt(0.1 * 0.9 / 4000)
    null = W.info_probabilities(18 / 32)
    assert null[W.INFO_READS[0]] < 0.002 and null[W.INFO_READS[1]] < 0.002


def test_amendment_5_is_judged_only_on_runs_stored_after_it():
    """Every stored uniform-KL run of amendment 5 was first committed after the commit that added it (git). Skipped
    without history."""
    import store
    keys = [store.run_key(cfg) for _, cfg in W.info_runs(W.parse([]), 60000)]
    early = stored_before("INFO_SEEDS = NEED_SEEDS", keys)
    assert not early, f"runs stored before amendment 5 judge it: {early}"
