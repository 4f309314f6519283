"""The deeper model re-registered (docs/registered/deep_trained.md): its gate, its budget rule,
its runs and its power table as registered."""
import os

import pytest

import store
import train
from audit import deep_trained as D


def test_the_budget_rule():
    assert [D.budget_rule(t) for t in (1000, 3990, 4010, 6000, 7650, 12000)] == \
        [10000, 10000, 11000, 15000, 20000, 20000]


def test_the_gate_passes_only_on_memorizing_then_grokking_within_its_budget():
    s = lambda mem, grok: {"mem_epoch": mem, "grok_epoch": grok}
    assert D.gate_passes(s(300, 9000)) and D.gate_passes(s(300, 20000))
    assert not D.gate_passes(s(300, None)) and not D.gate_passes(s(None, None)) and not D.gate_passes(s(300, 20010))


def test_the_gate_runs_the_fallback_only_after_the_first_failed(tmp_path):
    args = D.parse(["--store", str(tmp_path)])
    first = D.planned_runs(args)
    assert [label for label, _ in first] == ["gate one head"]
    cfg = first[0][1]
    train.validate(cfg)
    assert (cfg.seed, cfg.epochs, cfg.lam, cfg.n_layers, cfg.final_layernorm, cfg.decay_norms, cfg.distractors,
            cfg.refresh) == (300, 20000, 0.0, 2, False, False, "refresh", 0.003)
    summary = lambda grok: {"config": train.semantic_config(cfg), "grok_epoch": grok, "mem_epoch": 400,
                            "epochs_run": 20000}
    history = {"epoch": [0, 20000], "train_loss": [1.0, 0.0]}
    store.write(str(tmp_path), summary(None), history, cfg)                      # failed
    assert [label for label, _ in D.planned_runs(args)] == ["gate one head", "gate four heads"]


def test_the_summary_is_drawn_from_what_is_stored_with_the_gate_named():
    """Partial by design (results/, not results/partial/): REPORT.md shows the gate and the cells so far."""
    assert D.parse([]).partial_ok and D.parse(["--part", "cells"]).partial_ok
    s = {"mem_epoch": 2020, "grok_epoch": 5540, "final_test_acc": 1.0}
    assert D.gate_line("gate one head", s).endswith("passes; the cells' budget by rule: 14,000")
    assert D.gate_line("gate one head", {**s, "grok_epoch": None}).endswith("fails")


def test_the_cells_are_the_registered_ones_at_the_committed_budget():
    """Committed after the gate (t_grok 5,540) and before any cell: budget_rule's 14,000 epochs."""
    assert D.BUDGET == D.budget_rule(5540) == 14000 and D.PASSED_CONFIG == "one head"
    cells = D.planned_runs(D.parse(["--part", "cells"]))
    assert len(cells) == 12 and {c.seed for _, c in cells} == set(range(6))
    for _, cfg in cells:
        train.validate(cfg)
        assert (cfg.epochs, cfg.n_heads, cfg.final_layernorm, cfg.decay_norms, cfg.prior_layer, cfg.refresh) == \
            (14000, 1, False, False, "first", 0.003) and cfg.lam in (0.0, 0.3)


def test_the_registered_power_table_is_what_the_code_computes():
    with open(os.path.join("docs", "registered", "deep_trained.md")) as f:
        doc = f.read()
    for row in D.power_table(D.power()).splitlines()[2:]:
        assert row in doc, row


def test_the_cells_are_judged_once_every_run_is_stored(monkeypatch):
    """Rules v4's speed-up part, registered: not decided while a cell run is missing; with all
    twelve, reproduced when the prior arm groks 3x sooner on every seed, a censored lambda 0 run
    entering as a bound."""
    monkeypatch.setattr(D.deep, "mechanism_of", lambda hists, budget: {"n": len(hists)})
    args = D.parse([])
    arms = D.cell_runs(args, D.PASSED_CONFIG, D.BUDGET)
    t0 = [6000, 7000, None, 6500, 8000, 5000]
    results = {label: ({"grok_epoch": t0[i]}, {}) for i, (label, _) in enumerate(arms["lambda 0"])}
    partial = D.summarize(results, args)
    assert partial["speedup"]["verdict"] == "not decided" and partial["stored_runs"] == 6
    assert partial["mechanism"] == {"n": 6}
    results.update({label: ({"grok_epoch": (t0[i] or D.BUDGET) / 3}, {})
                    for i, (label, _) in enumerate(arms[f"lambda {D.LAM:g}"])})
    out = D.summarize(results, args, gate={"mem_epoch": 2020, "grok_epoch": 5540})
    assert out["stored_runs"] == out["planned_runs"] == 12 and out["gate"]["passes"]
    v = out["speedup"]
    assert v["verdict"] == "reproduced" and v["n"] == 6 and v["ci"][0] > 1.0
    assert out["grok"]["lambda 0"]["2"] is None and out["budget"] == D.BUDGET