"""The information-or-any-gradient study (docs/registered/information.md): its design, its count
test, its reading of the two accounts, and its power table as registered."""
import math
import os
import re

import pytest

import train
from audit import information as I
from audit import rules as A


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


def planned_cfg(planned, regime, arm):
    return next(c for label, c in planned if label.startswith(f"{regime}/{arm}/"))


def test_the_design_is_the_registered_one():
    args = I.parse([])
    planned, strong, confirm = I.planned_runs(args)[:180], I.planned_runs(args)[180:200], I.planned_runs(args)[200:]
    assert len(planned) == 180 and len({train.semantic_config(c)["seed"] for _, c in planned}) == 10
    # amendment 2, after amendment 1: lambda 0, the oracle, uniform and shuffled in `fresh` at seeds
    # 210-229 (none of the 200 runs before it uses them), seed by seed; none with --quick
    assert len(confirm) == 80 and [c.seed for _, c in confirm[:5]] == [210] * 4 + [211]
    assert {c.seed for _, c in confirm} == set(range(210, 230)) and not {c.seed for _, c in planned + strong} & set(range(210, 230))
    by_arm = {label.split("/")[1]: cfg for label, cfg in confirm}
    assert set(by_arm) == set(I.CONFIRM_ARMS) and all(c.distractors == "fresh" and c.epochs == 10000 for _, c in confirm)
    for arm, cfg in by_arm.items():
        assert train.semantic_config(cfg) == {**train.semantic_config(planned_cfg(planned, "fresh", arm)), "seed": cfg.seed}
    quick = I.planned_runs(I.parse(["--quick"]))             # one seed: the registered arms in QUICK_REGIMES
    assert [label.rsplit("/", 1)[0] for label, _ in quick] == [f"{r}/{a}" for r in I.QUICK_REGIMES for a in I.ARMS]
    # amendment 1, after the 180: the rival's noise at 1e-2, lambda 0, in the two deciding regimes
    assert len(strong) == 20 and [c.seed for _, c in strong[:2]] == [200, 200]
    assert {label.rsplit("/", 1)[0] for label, _ in strong} == {"fixed/weight noise 1e-2", "refresh0.003/weight noise 1e-2"}
    assert all(c.weight_noise == 1e-2 and c.lam == 0.0 and c.epochs == I.BUDGETS[label.split("/")[0]] for label, c in strong)
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


@pytest.mark.parametrize("table", [lambda: I.power_table(I.power()),                   # the registration's
                                   lambda: I.confirm_power_table(I.confirm_power())])   # amendment 2's
def test_the_registered_power_tables_are_what_the_code_computes(table):
    """docs/registered/information.md's power tables, recomputed (2,000 data sets, fixed seed)."""
    with open(os.path.join("docs", "registered", "information.md")) as f:
        doc = f.read()
    for row in table().replace("lambda 0", "λ 0").splitlines()[2:]:
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
    # amendment 1's arm: under `fixed` it groks as the oracle does (the rival's side); at rho 0.003
    # it never memorizes on 6 of 10 runs (too strong to test, whatever its times)
    strong = "weight noise 1e-2"
    times["t_mem"] = {r: {arm: {s: 300.0 for s in seeds} for arm in arms} for r, arms in times["t_95"].items()}
    for m in ("t_95", "t_grok", "t_struct"):
        times[m]["fixed"] = {**fixed, strong: around(2000)}
        times[m]["refresh0.003"] = {**rho, strong: around(2500)}
    times["t_mem"]["fixed"][strong] = {s: 300.0 for s in seeds}
    times["t_mem"]["refresh0.003"][strong] = {s: (300.0 if i < 4 else None) for i, s in enumerate(seeds)}
    summary = I.summarize(times, I.BUDGETS, seeds)
    assert summary["regimes"]["fixed"]["reading"] == "the paper's account"
    assert summary["regimes"]["refresh0.003"]["reading"] == "the rival account"
    assert "fresh" not in summary["regimes"] and summary["stored_runs"] == 179 and summary["planned_runs"] == 180
    assert summary["regimes"]["fixed"]["decides"] and summary["regimes"]["refresh0.003"]["decides"]
    amended = summary["amendment 1"]        # beside the readings, which it does not change
    assert amended[f"fixed/{strong}"]["side"] == "rival" and amended[f"fixed/{strong}"]["memorized"] == "10/10"
    assert amended[f"refresh0.003/{strong}"]["side"] == "too strong to test"
    assert "comparisons" in amended[f"refresh0.003/{strong}"]        # reported all the same
    cut = {m: {r: {a: dict(ts) for a, ts in arms.items()} for r, arms in by.items()} for m, by in times.items()}
    del cut["t_95"]["fixed"][strong][seeds[0]]
    assert I.judge_strong(cut, I.BUDGETS, len(seeds))[f"fixed/{strong}"]["side"] == "not decided"
    assert summary["reached_0.95"]["fixed"] == {**{arm: "0/10" for arm in I.ARMS}, "oracle": "10/10", strong: "10/10"}
    store.write_json(tmp_path / "information.json", summary)
    written = store.read_json(tmp_path / "information.json")
    assert written["regimes"]["fixed"]["reading"] == "the paper's account"
    from audit import report
    rows = report.study_table(written)          # REPORT.md's run table: every run's times, by seed
    assert len(rows) == 2 + len(I.BUDGETS) * len(I.ARMS) + 2 and rows[0].startswith("| regime (budget) | arm | t_95")
    oracle = next(r for r in rows if r.startswith("| fixed (10,000) | oracle |"))
    assert oracle.split(" | ")[2] == ", ".join(f"{fixed['oracle'][s]:.0f}" for s in seeds) and oracle.endswith("| 10/10 |")
    shuffled = next(r for r in rows if r.startswith("| fresh (10,000) | shuffled |"))
    assert shuffled.split(" | ")[2].endswith(", not stored") and shuffled.endswith("| 9/9 |")
    assert next(r for r in rows if r.startswith("| fixed (10,000) | uniform |")).split(" | ")[2] == ", ".join(["never"] * 10)
    block = "\n".join(report.information_block(str(tmp_path)))      # REPORT.md's section
    assert "  - reading: **the paper's account**" in block and "  - reading: **the rival account**" in block
    assert f"  - fixed/{strong}: side **rival** (memorized: 10/10)" in block
    assert "- **refresh0.003** (budget 20,000): the regime that informs" in block
    assert f"| fixed (10,000) | {strong} |" in "\n".join(rows)
    assert block.count("not decided: not every arm has all its seeds stored") == 1
    med = lambda m: written["medians"][m]["fixed"]["oracle"]      # every arm's medians by the three measures
    assert f"oracle 10/10 reached 0.95, median t_95 {med('t_95')} (held -, t_grok {med('t_grok')}, t_struct {med('t_struct')})" in block
    out = I.text(summary)
    assert "reading: the paper's account" in out and "reading: the rival account" in out
    assert f"refresh0.003/{strong}: side too strong to test (memorized: 4/10)" in out and "**" not in out
    assert out.count("not decided: not every arm has all its seeds") == 1
    I.plot(times, I.BUDGETS, str(tmp_path / "information.png"))
    assert (tmp_path / "information.png").stat().st_size > 10000
    confirm = {m: {arm: around(3000) for arm in I.CONFIRM_ARMS} for m in ("t_95", "t_grok")}
    I.plot(times, I.BUDGETS, str(tmp_path / "with_amendment_2.png"), confirm)     # a fourth panel, once run
    import matplotlib.image
    width = lambda name: matplotlib.image.imread(str(tmp_path / name)).shape[1]
    assert width("with_amendment_2.png") > 1.25 * width("information.png")
    fresh["shuffled"][seeds[-1]] = 3000.0      # `fresh` complete: judged, and described, never deciding
    whole = I.summarize({m: {"fresh": fresh} for m in times}, I.BUDGETS, seeds)
    assert whole["amendment 1"][f"fixed/{strong}"]["side"] == "not decided"
    assert whole["regimes"]["fresh"]["decides"] is False and whole["regimes"]["fresh"]["reading"] == "mixed"
    assert "reading (described, not deciding): mixed" in I.text(whole)
    store.write_json(tmp_path / "information.json", whole)
    assert "  - reading (described, not deciding" in "\n".join(report.information_block(str(tmp_path)))


def test_the_dose_check_reads_the_gradient_train_steps_with(monkeypatch):
    """task_gradient_rms, epoch by epoch, is the RMS of the gradient train.train's step receives:
    after that epoch's backward, before its step (the same run in the same process: bitwise)."""
    import torch
    cfg = train.make_config(p=11, frac=0.5, epochs=12, eval_every=5, d_model=16, d_mlp=32, quiet=True, threads=1,
                            device="cpu", distractors="fixed")
    seen, real = {}, train.step
    def spy(model, opt, cfg_, masks):
        seen[len(seen)] = {n: float(p.grad.pow(2).mean().sqrt()) for n, p in model.named_parameters() if p.dim() >= 2}
        return real(model, opt, cfg_, masks)
    with monkeypatch.context() as m:
        m.setattr(train, "step", spy)
        train.train(cfg)
    got = I.task_gradient_rms(cfg, (0, 6, 11))
    assert got == {e: seen[e] for e in (0, 6, 11)}
    assert set(got[6]) == {n for n, p in train.build_run(cfg, torch.device("cpu"))[1].named_parameters() if p.dim() >= 2} and \
        all(v > 0 for v in got[6].values())
    assert "W_Q" in I.dose_table(got) and len(I.dose_table(got).splitlines()) == 5


def test_amendment_2_confirms_a_side_only_by_both_its_verdicts():
    """judge_confirm on synthetic paired times: not decided until all 80 runs are stored; a control
    2x faster than lambda 0 and 1.5x faster than the oracle confirms the rival side; one as slow as
    lambda 0 does not (its side: paper, the oracle being 1.6x faster than it)."""
    import numpy as np
    rng = np.random.default_rng(1)
    seeds = I.CONFIRM_SEEDS
    base = {s: float(np.exp(rng.normal(math.log(3500), 0.3))) for s in seeds}
    jit = lambda f: {s: round(t / f * float(np.exp(rng.normal(0, 0.05)))) for s, t in base.items()}
    times = {"lambda 0": jit(1.0), "oracle": jit(1.6), "uniform": jit(2.4), "shuffled": jit(1.0)}
    c = I.judge_confirm(times)
    assert c["confirmed"] == {"uniform": True, "shuffled": False}
    assert c["side"] == {"uniform": "rival", "shuffled": "paper"}
    assert c["comparisons"]["uniform vs lambda 0"]["verdict"] == A.REPRODUCED
    assert c["comparisons"]["oracle vs uniform"]["verdict"] == A.NOT_REPRODUCED
    assert c["beside"]["verdict"] == A.REPRODUCED                                        # 1.6x over lambda 0
    del times["shuffled"][seeds[-1]]
    assert I.judge_confirm(times) == {"verdict": A.NOT_DECIDED, "reason": "79 of 80 runs stored"}
    summary = I.summarize({m: {} for m in ("t_95", "t_grok", "t_struct", "t_mem")}, I.BUDGETS, I.SEEDS,
                          {"t_95": {**times, "shuffled": jit(1.0)}, "t_grok": times})
    assert summary["amendment 2"]["side"]["uniform"] == "rival"
    out = I.text(summary)
    assert "uniform: side rival, confirmed" in out and "shuffled: side paper, not confirmed" in out


def test_the_committed_summary_is_what_the_store_gives(tmp_path):
    """results/information.json, re-derived from the committed run store (every registered and amended
    run) and the committed size check: the same file, value for value (write_json's rounding makes the
    statistics CPU-independent; the target profiles are rounded to 4 digits, float32 sums)."""
    import shutil
    import store
    shutil.copy(os.path.join("results", I.SIZES_FILE), tmp_path)
    I.main(["--plot-only", "--results-dir", str(tmp_path), "--store", os.path.join("results", "store")])
    assert store.read_json(tmp_path / "information.json") == store.read_json(os.path.join("results", "information.json"))


def test_the_figures_page_states_the_controls_as_measured():
    """docs/figures.md's numbers on the controls' size and liveness, and the weight noise's rescue, are
    the ones results/information.json holds."""
    import store
    d = store.read_json(os.path.join("results", "information.json"))
    with open(os.path.join("docs", "figures.md")) as f:
        page = " ".join(f.read().split("## Beyond the paper: the information or any live gradient", 1)[1].split())
    t, z = d["targets"]["shuffled"], d["sizes"]["sizes"]
    live, rescue = d["liveness"]["fresh"], d["rescued"]["refresh0.003"]["weight noise"]
    q = lambda arm, e, who="control": z[arm][e][who]["W_Q"]
    said = [f"keeps one operand in {t['one operand']:.0%} of training rows and puts mass on `=` in {t['mass on =']:.0%}",
            f"mass on the operands {t['operands']:.2f}, on the distractors {t['distractors']:.2f}, on `=` {t['=']:.2f}",
            f"W_Q had RMS {q('logit noise', '0'):.1e} at initialization, {q('oracle', '0') / q('logit noise', '0'):.0f}x "
            f"below the oracle KL's {q('oracle', '0'):.1e}",
            f"then {q('logit noise', '200'):.1e} at epoch 200 and {q('logit noise', '1000'):.1e} at epoch 1,000",
            f"its value was {live['oracle']['200']:.3f} at epoch 200 and {live['oracle']['1000']:.3f} at 1,000",
            f"the KL toward uniform's {live['uniform']['200']:.3f} and {live['uniform']['1000']:.3f}",
            f"the uniform KL's {q('uniform', '200'):.1e} and {q('uniform', '1000'):.1e}",
            "(seeds " + " and ".join(rescue) + ": " + " and ".join(f"≥ {v:.2f}x" for v in rescue.values()) + ")"]
    for s in said:
        assert s.replace("e-0", "e-") in page.replace("e-0", "e-"), s


def test_a_comparison_with_no_interval_is_written_as_its_rule_gives_it():
    """One informative seed (the --quick preset's one seed) gives an estimate and no interval: the
    line is the rule's own text (a crash here once stopped `python -m audit.information --quick`)."""
    one = A.speedup_verdict_v4({0: 4000.0}, {0: 2000.0}, 10000, what="uniform faster than lambda 0")
    assert "estimate" in one and "ci" not in one
    assert I.comparison_line(one).startswith(f"{one['verdict']}: ") and "one informative seed" in I.comparison_line(one)