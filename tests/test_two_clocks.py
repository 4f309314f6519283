"""The two-clocks study (README, pre-registered): its cells and its H3 prediction rule on
synthetic runs with a known law, and the script end to end on a tiny config."""

import math

import pytest

from audit import two_clocks as tc
import store
import train


def synthetic(args, law, miss=(), route=30):
    """{label: (summary, history)} for every planned run: t_struct = route / lambda, and t_grok
    from `law(lam, wd, frozen)`; cells named in `miss` grok at twice the law."""
    results = {}
    for part in tc.cells(args).values():
        for name, cell in part.items():
            for label, cfg in cell:
                t = law(cfg.lam, cfg.wd, cfg.frozen_attn is not None)
                t = None if t is None else (2 * t if name in miss else t)
                results[label] = ({"grok_epoch": None if t is None or t >= cfg.epochs else round(t),
                                   "struct_epoch": round(route / cfg.lam) if cfg.lam else None, "config": {}}, {})
    return results


def two_clocks(lam, wd, frozen):
    """max of the routing clock 30/lambda and the norm clock 3000/wd (c = 0)."""
    if frozen:
        return 3000 / wd
    return None if lam == 0 else max(30 / lam, 3000 / wd)


def test_the_thirteen_held_out_cells_are_the_registered_ones():
    args = tc.parse([])
    held = tc.held_out_cells(args)
    assert len(held) == 13 and all(len(c) == 5 for c in held.values())
    fit = {(cfg.lam, cfg.wd, cfg.distractors, cfg.seed) for c in tc.cells(args)["h1"].values() for _, cfg in c
           if cfg.lam in tc.FIT_LAMS}
    for cell in held.values():                      # never a cell the fit saw
        assert not {(cfg.lam, cfg.wd, cfg.distractors, cfg.seed) for _, cfg in cell} & fit
    budgets = {cfg.epochs for c in held.values() for _, cfg in c if cfg.distractors == "fixed"}
    assert budgets == {20000}
    # the map's cells are the stored regime-map runs (same configs, same keys)
    name, cfg = held["refresh0.003 lam 0.3 wd 1"][0]
    assert store.run_key(cfg) == "add_p113_refresh0.003_lam=0.3_seed0_e10000_stop200"


def test_h4_asks_for_its_own_50k_runs_not_the_20k_baseline_h5_shares_with_c3f():
    """H4's baseline and H5's differ only in their budget; until 2026-11-24 they shared a label
    and H4 silently read the 20k runs as its 50k ones."""
    args = tc.parse([])
    budgets = {}
    for label, cfg in tc.planned_runs(args):
        if cfg.distractors == "fixed" and cfg.lam == 0 and cfg.frozen_attn is None:
            budgets.setdefault(cfg.epochs, []).append(cfg.seed)
    assert budgets == {50000: [0, 1, 2, 3, 4], 20000: [0, 1, 2, 3, 4]}
    h4 = [cfg for _, cfg in tc.cells(args)["h4"]["fixed lam 0, 50k"]]
    assert all(cfg.epochs == 50000 for cfg in h4)


def test_composition_recovers_a_two_clock_law_and_fails_when_cells_miss():
    args = tc.parse([])
    c = tc.cells(args)
    v = tc.composition(c, synthetic(args, two_clocks), args)
    assert v["verdict"] == "reproduced" and v["text"].startswith("13/13")
    assert v["routing_law"][1] == pytest.approx(1.0, abs=1e-9) and v["norm_law"][1] == pytest.approx(1.0, abs=1e-9)
    assert v["constant"] == pytest.approx(0, abs=1)
    misses = ["fixed lam 0.01 wd 1", "fixed lam 0.3 wd 2", "fresh lam 0.03 wd 1"]
    v = tc.composition(c, synthetic(args, two_clocks, misses), args)
    assert v["verdict"] == "not reproduced" and v["text"].startswith("10/13")       # 10 < 80% of 13
    assert {n for n, r in v["cells"].items() if not r["within"]} == set(misses)
    # a sequential account R + N: where the routing clock is short (30/lambda against 3000/wd)
    # the max rule cannot tell the two apart (the constant absorbs it), where it is long it can
    v = tc.composition(c, synthetic(args, lambda l, w, f: 3000 / w if f else None if l == 0 else 30 / l + 3000 / w), args)
    assert v["verdict"] == "reproduced"
    v = tc.composition(c, synthetic(args, lambda l, w, f: 3000 / w if f else None if l == 0 else 300 / l + 3000 / w), args)
    assert v["verdict"] == "not reproduced"


def test_not_decided_while_the_cells_not_stored_could_still_change_it():
    """H3 holds with 11 of 13 cells within. Ten stored hits and three cells missing: not decided;
    three stored misses: fails whatever the rest show; eleven stored hits: holds."""
    args = tc.parse([])
    held = list(tc.held_out_cells(args))
    c = tc.cells(args)

    def drop(results, names):
        for name in names:
            for label, _ in tc.held_out_cells(args)[name]:
                del results[label]
        return results
    v = tc.composition(c, drop(synthetic(args, two_clocks), held[:3]), args)
    assert v["verdict"] == "not decided" and v["n"] == 10 and v["text"].startswith("10/10")
    v = tc.composition(c, drop(synthetic(args, two_clocks, held[3:6]), held[:3]), args)
    assert v["verdict"] == "not reproduced" and v["text"].startswith("7/10")
    v = tc.composition(c, drop(synthetic(args, two_clocks), held[:2]), args)
    assert v["verdict"] == "reproduced" and v["text"].startswith("11/11")


def test_the_sequential_rule_is_reported_beside_and_never_decides():
    """Registered: R + N + c' reported beside max(R, N) + c. Runs that follow the sequential law
    with a long routing clock fail the max rule and sit within the sequential one."""
    args = tc.parse([])
    v = tc.composition(tc.cells(args), synthetic(
        args, lambda l, w, f: 3000 / w if f else None if l == 0 else 300 / l + 3000 / w, route=300), args)
    assert v["verdict"] == "not reproduced"
    assert all(r["within_seq"] for r in v["cells"].values()) and "reported: 13/13" in v["text"]
    assert v["constant_seq"] == pytest.approx(0, abs=1)


def test_script_end_to_end_on_a_tiny_config(tmp_path):
    tiny = ["--p", "7", "--seeds", "0", "--part", "h1", "h2", "h5", "--runs-dir", str(tmp_path / "runs"),
            "--results-dir", str(tmp_path / "res")]
    args = tc.parse(tiny)
    args.grid_lams, args.fit_lams, args.wds = (0.3, 1.0), (0.3, 1.0), (1.0, 2.0)
    args.fixed_budget = args.frozen_budget = 30
    runs = tc.planned_runs(args)
    # h1: 2 lambdas; h2: 2 wd; h5: uniform at 0.1 and 1, oracle at 0.1 (at 1 it is h1's run), the baseline
    assert len(runs) == len({store.run_key(cfg) for _, cfg in runs}) == 2 + 2 + 2 + 1 + 1
    import sweep
    results = sweep.run_sweep(runs, args, log=lambda s: None)
    verdicts = tc.analyse(results, args)
    assert set(verdicts) >= {"H1: t_struct ~ 1/lambda (fixed, KL)", "H2: t_grok ~ 1/wd (frozen oracle attention)",
                             "H5 lambda 1: oracle faster than uniform"}
    tc.plot(results, verdicts, args, str(tmp_path / "two_clocks.png"))
    assert (tmp_path / "two_clocks.png").exists()


def test_each_clock_panel_draws_its_law():
    """The H2 panel on a synthetic 1/wd law (a named room, no floor): medians, rule 6's slope over
    the room, and H3's fitted law, each a labelled line."""
    import plots
    from audit import rules as A
    times = {1 / wd: {s: round(1500 / wd * (1 + 0.02 * s)) for s in range(5)} for wd in (0.5, 1, 2, 4)}
    v = A.scaling_verdict_v3(times, 10000, [0.25, 0.5, 1, 2], "1/wd")
    assert v["verdict"] == "reproduced" and v["estimate"] == pytest.approx(1.0, abs=1e-4)
    fig, ax = plots.pyplot().subplots()
    tc.draw_law(ax, v, fitted=(7.3, 1.0))
    labels = [l.get_label() for l in ax.get_lines()]
    assert labels[0] == "median over seeds" and "rule 6: slope 1.00 [1.00, 1.00]" in labels
    assert "H3's fit: slope 1.00" in labels
    slope_line = ax.get_lines()[labels.index("rule 6: slope 1.00 [1.00, 1.00]")]
    x, y = slope_line.get_data()
    assert y[-1] / y[0] == pytest.approx((x[-1] / x[0]) ** v["estimate"])           # the drawn slope is the estimate


def test_with_attention_frozen_at_the_oracle_the_distractor_regime_cannot_matter():
    """H2's premise (docs/registered/two_clocks.md): frozen oracle attention gives the distractors weight 0,
    so redrawing them changes nothing; the runs are bitwise equal (one process, one thread)."""
    kw = dict(p=11, frac=0.5, epochs=40, eval_every=5, d_model=16, d_mlp=32, frozen_attn="oracle",
              quiet=True, threads=1)
    _, fixed = train.train(train.make_config(distractors="fixed", **kw))
    for regime in (dict(distractors="fresh"), dict(distractors="refresh", refresh=0.01)):
        assert train.train(train.make_config(**regime, **kw))[1] == fixed
    learned = {**kw, "frozen_attn": None}                 # attention learned: the regime does matter
    assert train.train(train.make_config(distractors="fresh", **learned))[1]["train_loss"] != \
        train.train(train.make_config(distractors="fixed", **learned))[1]["train_loss"]


def test_h1b_reads_t_struct_held_for_good_where_h1_reads_a_transient():
    """Amendment 2: B_tau met at epoch 40 in every run and lost again, then held from 30/lambda
    on. H1's first-hit t_struct is 40 at every lambda (no slope to read); H1b's is the law."""
    args = tc.parse(["--part", "h1"])
    results = {}
    for cell in tc.cells(args)["h1"].values():
        for label, cfg in cell:
            t = round(30 / cfg.lam) * (1 + 0.01 * cfg.seed)
            ep = list(range(0, 20001, 10))
            frac = [1.0 if e == 40 or e >= t else 0.5 for e in ep]
            results[label] = ({"grok_epoch": None, "struct_epoch": 40, "config": {}},
                              {"epoch": ep, "frac_struct": frac})
    v = tc.analyse(results, args)
    assert v["H1: t_struct ~ 1/lambda (fixed, KL)"]["verdict"] != "reproduced"
    held = v[tc.H1B]
    assert held["verdict"] == "reproduced" and held["estimate"] == pytest.approx(1.0, abs=0.02)
    # a run whose B_tau is lost at its end enters H1b censored at the budget
    label, _ = tc.cells(args)["h1"]["lam 1"][0]
    results[label][1]["frac_struct"][-1] = 0.5
    assert tc.held_struct(tc.cells(args)["h1"]["lam 1"][:1], results) == {0: None}


def test_h1c_judges_the_held_out_seeds_only_and_waits_for_all_its_runs():
    """Amendment 3: t_struct over lambda 0.02, 0.03, 0.05 on seeds 5-9. Seeds 0-4 follow
    1/lambda and seeds 5-9 lambda^-4: H1c reads the steep law (not reproduced); with one of its
    15 runs missing it is not decided."""
    args = tc.parse(["--part", "h1", "h1c"])
    results = {}
    for part in tc.cells(args).values():
        for cell in part.values():
            for label, cfg in cell:
                t = 20 / cfg.lam if cfg.seed < 5 else 350 * (0.05 / cfg.lam) ** 4
                results[label] = ({"grok_epoch": None, "struct_epoch": round(t * (1 + 0.01 * (cfg.seed % 5))),
                                   "config": {}}, {"epoch": [0], "frac_struct": [0.0]})
    v = tc.analyse(results, args)[tc.H1C]
    assert v["verdict"] == "not reproduced" and v["n"] == 5 and v["estimate"] == pytest.approx(4, abs=0.05)
    assert {cfg.seed for cell in tc.cells(args)["h1c"].values() for _, cfg in cell} == {5, 6, 7, 8, 9}
    del results[tc.cells(args)["h1c"]["lam 0.02"][0][0]]
    v = tc.analyse(results, args)[tc.H1C]
    assert v["verdict"] == "not decided" and "14 of its 15 runs stored" in v["reason"]


def test_the_simulated_h3_design_is_the_registered_one():
    """docs/stats.md's H3 rows (audit.simulate.composition_rows) simulate the rule as registered."""
    from audit import simulate as S
    assert S.H3_TOLERANCE == tc.TOLERANCE
    assert S.H3_CELLS == len(tc.held_out_cells(tc.parse([])))
    assert S.H3_NEED == math.ceil(tc.HOLD_FRACTION * S.H3_CELLS - 1e-9) == 11     # 80% of 13 cells


def test_h4_reports_its_count_with_the_registered_interval_once_all_five_runs_are_stored():
    """docs/registered/two_clocks.md: H4 reports the count that grokked within 50k epochs with its 95%
    Clopper-Pearson interval and each t_grok. The interval of 0/5 is [0, 1 - 0.025^(1/5)] =
    [0, 0.52]; with runs missing the count is shown and H4 is not decided."""
    args = tc.parse(["--part", "h4"])
    cell = tc.cells(args)["h4"]["fixed lam 0, 50k"]
    results = {label: ({"grok_epoch": 41230 if cfg.seed == 3 else None, "config": {}}, {}) for label, cfg in cell}
    v = tc.analyse(results, args)[tc.H4]
    assert v["verdict"] == "reported" and v["n"] == 5
    assert v["ci"][0] == pytest.approx(1 - 0.975 ** 0.2, abs=1e-6)          # 1 of 5: lower bound 0.005
    assert "1/5 grokked (95% interval [0.01, 0.72])" in v["text"] and "seed 3 41230" in v["text"]
    results = {label: (dict(r[0], grok_epoch=None), r[1]) for label, r in results.items()}
    assert tc.analyse(results, args)[tc.H4]["ci"][1] == pytest.approx(1 - 0.025 ** 0.2, abs=1e-6)
    del results[cell[0][0]], results[cell[1][0]]
    v = tc.analyse(results, args)[tc.H4]
    assert v["verdict"] == "not decided" and v["reason"] == "3 of its 5 runs stored" and "0/3 grokked" in v["text"]


def test_h5_judges_each_part_once_all_its_runs_are_stored():
    """Each H5 part is rule 2 over five paired seeds. The oracle groks at 200-600 and the
    uniform arm never: reproduced (5/5 faster, sign-flip p = 1/32). With one uniform run
    missing, both parts that read it say not decided and keep the partial reading."""
    args = tc.parse(["--part", "h5"])
    h5 = tc.cells(args)["h5"]
    results = {label: ({"grok_epoch": 200 + 100 * cfg.seed if name.startswith("oracle") else None, "config": {}}, {})
               for name, cell in h5.items() for label, cfg in cell}
    v = tc.analyse(results, args)
    assert v["H5 lambda 0.1: oracle faster than uniform"]["verdict"] == "reproduced"
    assert v["H5 lambda 0.1: uniform faster than the baseline"]["verdict"] == "inconclusive"   # neither groks
    del results[h5["uniform lam 0.1"][4][0]]
    v = tc.analyse(results, args)
    for part in ("oracle faster than uniform", "uniform faster than the baseline"):
        w = v[f"H5 lambda 0.1: {part}"]
        assert w["verdict"] == "not decided" and w["reason"].startswith("9 of its 10 runs stored"), w
    assert "so far: speed-up" in v["H5 lambda 0.1: oracle faster than uniform"]["reason"]
    assert v["H5 lambda 1: oracle faster than uniform"]["verdict"] == "reproduced"
    assert v[tc.H5]["verdict"] == "not decided" and "lambda 0.1: oracle faster than uniform" in v[tc.H5]["reason"]


@pytest.mark.parametrize("times, outcome", [
    ({"oracle": 300, "uniform": None, "baseline": None}, "the information matters"),
    ({"oracle": 900, "uniform": 900, "baseline": None}, "any gradient suffices"),
    ({"oracle": 900, "uniform": 900, "baseline": 900}, "not decided"),      # no arm faster: neither pattern
])
def test_h5_outcome_follows_the_registered_patterns(times, outcome):
    """docs/registered/two_clocks.md: the information matters if the oracle beats uniform at both lambdas;
    any gradient suffices if uniform beats the baseline at both and the oracle beats uniform at
    neither; otherwise not decided."""
    args = tc.parse(["--part", "h5"])
    results = {label: ({"grok_epoch": None if times[name.split()[0]] is None else times[name.split()[0]] + 10 * cfg.seed,
                        "config": {}}, {})
               for name, cell in tc.cells(args)["h5"].items() for label, cfg in cell}
    v = tc.analyse(results, args)[tc.H5]
    assert v["verdict"] == outcome, v