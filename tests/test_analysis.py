"""The verdict rules, version 1 (analysis.py, kept unchanged beside version 2), on synthetic data
whose truth is known, and phase marks. Version 2: tests/test_rules.py."""
import numpy as np
import pytest

import analysis
from audit import rules as A

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


def law(xs, slope, floor=None, noise=0.05, n_seeds=5, seed=0):
    rng = np.random.default_rng(seed)
    t = lambda x: max(floor or 0, 20 * x ** slope)
    return {x: {s: t(x) * float(np.exp(rng.normal(0, noise))) for s in range(n_seeds)} for x in xs}


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


def test_censoring_bias_is_the_side_of_the_mean_log_x_the_censored_runs_sit_on():
    lx = np.log([1, 3, 9])                       # mean log 3: x = 3 moves nothing
    cens = lambda *rows: np.array([[c] * 2 for c in rows])
    assert A.censoring_bias(lx, cens(False, False, False)) is None
    assert A.censoring_bias(lx, cens(False, True, False)) is None
    assert A.censoring_bias(lx, cens(False, False, True)) == "lower"      # the long, weak-prior end
    assert A.censoring_bias(lx, cens(True, False, False)) == "upper"      # never grokked at the strong end
    assert A.censoring_bias(lx, cens(True, False, True)) == "both"


def test_held_from_skips_a_threshold_met_and_lost():
    h = {"epoch": [0, 10, 20, 30, 40, 50], "frac": [0.2, 0.995, 0.7, 0.99, 1.0, 0.999]}
    assert analysis.first_epoch(h, "frac", 0.99) == 10
    assert analysis.held_from(h, "frac", 0.99) == 30           # met at 10, lost at 20, held from 30 on
    assert analysis.held_from({"epoch": [0, 10], "frac": [1.0, 0.5]}, "frac", 0.99) is None   # lost at the end
    assert analysis.held_from({"epoch": [0, 10], "frac": [1.0, 1.0]}, "frac", 0.99) == 0       # epoch 0 is an epoch


def test_a_runs_summary_marks_its_phases_by_the_one_first_epoch_rule():
    """t_mem and t_struct in a run's summary are summary.first_epoch on its history (analysis.first_epoch is the same function): the rule lives
    once (the loop's summaries and the studies' phase marks use the same function)."""
    import train
    summary, history = train.train(train.make_config(p=11, frac=0.6, epochs=300, d_model=16, d_mlp=32, lr=3e-3,
                                                     threads=1, quiet=True, distractors="fixed"))
    assert summary["mem_epoch"] == analysis.first_epoch(history, "train_acc", 0.99) is not None
    assert summary["struct_epoch"] == analysis.first_epoch(history, "frac_struct", 0.99)
    import summary
    assert not hasattr(train, "first_epoch") and train.summarize is summary.summarize
    assert analysis.first_epoch is summary.first_epoch


def test_the_verdict_rules_load_no_torch():
    import os
    import subprocess
    import sys
    code = "import sys, audit.rules; assert 'torch' not in sys.modules"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    assert subprocess.run([sys.executable, "-c", code], cwd=root).returncode == 0