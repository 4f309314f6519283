"""The information-or-any-gradient study (docs/registered/information.md): its design, its count
test, its reading of the two accounts, and its power table as registered."""
import math
import os
import re

import pytest

import train
from beyond import information as I
from verdicts import rules as A


def test_fisher_one_sided_against_the_hypergeometric_by_hand():
    assert I.fisher_one_sided(5, 10, 0, 10) == pytest.approx(math.comb(10, 5) / math.comb(20, 5))   # 0.01625
    assert I.fisher_one_sided(4, 10, 0, 10) == pytest.approx(210 / 4845)                             # 0.0433
    assert I.fisher_one_sided(10, 10, 0, 10) == pytest.approx(1 / math.comb(20, 10))
    assert I.fisher_one_sided(0, 10, 0, 10) == 1.0 and I.fisher_one_sided(3, 10, 3, 10) > 0.5
    # 3 of 4 against 1 of 4: P(K1 >= 3) = (C(4,3)C(4,1) + C(4,4)C(4,0)) / C(8,4)
    assert I.fisher_one_sided(3, 4, 1, 4) == pytest.approx((4 * 4 + 1) / 70)


def test_the_count_rule_needs_five_of_ten_against_none():
    runs = lambda k, n=10: {s: (100 if s < k else None) for s in range(n)}
    assert I.count_verdict(runs(5), runs(0), "x")["verdict"] == A.REPRODUCED
    assert I.count_verdict(runs(4), runs(0), "x")["verdict"] == A.INCONCLUSIVE
    assert I.count_verdict(runs(0), runs(10), "x")["verdict"] == A.INCONCLUSIVE      # one-sided
    assert I.count_power(10, 1.0, 0.0) == pytest.approx(1.0) and I.count_power(10, 0.0, 0.0) == 0.0


def _comps(faster_than_base, oracle_beats):
    v = lambda ok: {"verdict": A.REPRODUCED if ok else A.INCONCLUSIVE}
    out = {}
    for c in I.CONTROLS:
        out[f"{c} vs lambda 0"] = v(c in faster_than_base)
        out[f"oracle vs {c}"] = v(c in oracle_beats)
    return out


def test_the_reading_needs_each_accounts_whole_pattern():
    assert I.reading(_comps((), I.CONTROLS))["reading"] == "the paper's account"
    assert I.reading(_comps(I.CONTROLS, ()))["reading"] == "the rival account"
    mixed = I.reading(_comps(("weight noise",), ("uniform", "shuffled", "logit noise")))
    assert mixed["reading"] == "mixed"
    assert mixed["per_control"] == {"uniform": "paper", "shuffled": "paper", "logit noise": "paper",
                                    "weight noise": "rival"}
    assert I.reading(_comps(("uniform",), I.CONTROLS))["per_control"]["uniform"] == "both"


def test_the_design_is_the_registered_one():
    args = I.parse([])
    planned = I.planned_runs(args)
    assert len(planned) == 180 and len({train.semantic_config(c)["seed"] for _, c in planned}) == 10
    first = planned[: len(I.ARMS) * 3]
    assert {c.seed for _, c in first} == {200}                       # seed by seed
    for label, cfg in planned:
        train.validate(cfg)
        regime = label.split("/")[0]
        assert cfg.epochs == I.BUDGETS[regime] and cfg.stop_after == 200 and cfg.wd == 1.0
    by_arm = {label.split("/")[1]: cfg for label, cfg in planned if label.startswith("fresh/")}
    assert by_arm["logit noise"].prior_kind == "logit-noise" and by_arm["logit noise"].lam == 0.3
    assert by_arm["shuffled"].prior == "shuffled" and by_arm["weight noise"].weight_noise == 3e-4
    assert by_arm["weight noise"].lam == 0.0 and by_arm["lambda 0"].lam == 0.0


def test_the_registered_power_table_is_what_the_code_computes():
    """docs/registered/information.md's table, recomputed (2,000 data sets, fixed seed)."""
    with open(os.path.join("docs", "registered", "information.md")) as f:
        doc = f.read()
    table = I.power_table(I.power()).replace("lambda 0", "λ 0")
    for row in table.splitlines()[2:]:
        assert row in doc, row


def test_a_complete_study_is_judged_written_and_drawn(tmp_path):
    """The path the study takes once its 180 runs are in, on synthetic times with a known
    pattern: under `fixed` only the oracle groks (the paper's account, by the count test); at
    rho 0.003 every control is as fast as the oracle, 3.4x faster than lambda 0 (the rival
    account, by rules v4); `fresh` misses one run (not decided). The summary is written as JSON,
    its text names each reading, REPORT.md its section and run table, and the figure is drawn;
    `fresh`, once complete, is judged and described, never deciding."""
    import numpy as np
    import store
    rng = np.random.default_rng(0)
    seeds = I.SEEDS
    around = lambda median: {s: float(round(median * np.exp(rng.normal(0, 0.1)))) for s in seeds}
    fixed = {arm: (around(2000) if arm == "oracle" else {s: None for s in seeds}) for arm in I.ARMS}
    rho = {arm: around(8500 if arm == "lambda 0" else 2500) for arm in I.ARMS}
    fresh = {arm: around(3000) for arm in I.ARMS}
    del fresh["shuffled"][seeds[-1]]
    times = {m: {"fixed": fixed, "refresh0.003": rho, "fresh": fresh} for m in ("t_95", "t_grok", "t_struct")}
    summary = I.summarize(times, I.BUDGETS, seeds)
    assert summary["regimes"]["fixed"]["reading"] == "the paper's account"
    assert summary["regimes"]["refresh0.003"]["reading"] == "the rival account"
    assert "fresh" not in summary["regimes"] and summary["stored_runs"] == 179 and summary["planned_runs"] == 180
    assert summary["regimes"]["fixed"]["decides"] and summary["regimes"]["refresh0.003"]["decides"]
    assert summary["reached_0.95"]["fixed"] == {**{arm: "0/10" for arm in I.ARMS}, "oracle": "10/10"}
    store.write_json(tmp_path / "information.json", summary)
    written = store.read_json(tmp_path / "information.json")
    assert written["regimes"]["fixed"]["reading"] == "the paper's account"
    from verdicts import report
    rows = report.study_table(written)          # REPORT.md's run table: every run's times, by seed
    assert len(rows) == 2 + len(I.BUDGETS) * len(I.ARMS) and rows[0].startswith("| regime (budget) | arm | t_95")
    oracle = next(r for r in rows if r.startswith("| fixed (10,000) | oracle |"))
    assert oracle.split(" | ")[2] == ", ".join(f"{fixed['oracle'][s]:.0f}" for s in seeds) and oracle.endswith("| 10/10 |")
    shuffled = next(r for r in rows if r.startswith("| fresh (10,000) | shuffled |"))
    assert shuffled.split(" | ")[2].endswith(", not stored") and shuffled.endswith("| 9/9 |")
    assert next(r for r in rows if r.startswith("| fixed (10,000) | uniform |")).split(" | ")[2] == ", ".join(["never"] * 10)
    block = "\n".join(report.information_block(str(tmp_path)))      # REPORT.md's section
    assert "  - reading: **the paper's account**" in block and "  - reading: **the rival account**" in block
    assert block.count("not decided: not every arm has all its seeds stored") == 1
    out = I.text(summary)
    assert "reading: the paper's account" in out and "reading: the rival account" in out
    assert out.count("not decided: not every arm has all its seeds") == 1
    I.plot(times, I.BUDGETS, str(tmp_path / "information.png"))
    assert (tmp_path / "information.png").stat().st_size > 10000
    fresh["shuffled"][seeds[-1]] = 3000.0      # `fresh` complete: judged, and described, never deciding
    whole = I.summarize({m: {"fresh": fresh} for m in times}, I.BUDGETS, seeds)
    assert whole["regimes"]["fresh"]["decides"] is False and whole["regimes"]["fresh"]["reading"] == "mixed"
    assert "reading (described, not deciding" in I.text(whole)
    store.write_json(tmp_path / "information.json", whole)
    assert "  - reading (described, not deciding" in "\n".join(report.information_block(str(tmp_path)))
