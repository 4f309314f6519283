"""The sensitivity study (audit/choices.py, docs/registered/sensitivity.md): its cells are the registered
ones, its runs are shared with the figures', and each reading is judged by its claim's rules."""
import itertools

import pytest

import analysis
from audit import rules
from audit import choices as E
import exp_fig2_ablation
from audit import regime_map as exp_regime_map
import optim
from audit import report
import store
import sweep
import train


def test_the_cells_are_the_registered_ones():
    """docs/registered/sensitivity.md: C2 50 runs, C6 50 (and the stored baselines), the headline 60 (and
    amendment 3's reference row, the default's 20 stored runs), C1 30, C10's pilot 6 on seed 0
    at 3,000 epochs; seeds 0-4, 10,000 epochs, stop 200."""
    args = E.parse([])
    c = E.cells(args)
    c.pop("followup"), c.pop("confirm")                       # amendments 5 and 6: the next tests
    count = lambda part, arm=None: sum(len(by) for arms in c[part].values() for a, by in arms.items() if arm in (None, a))
    assert (count("c2"), count("c6", "prior"), count("headline"), count("c1"), count("c10 pilot")) == (50, 50, 80, 30, 6)
    assert c["c10"] == {}                                     # five seeds follow the pilot's choice
    unique = {store.run_key(cfg) for _, cfg in E.flat(c)}
    # shared: C6's baselines (10 runs, two readings each), and C1-V's runs are the headline's
    # separate-vocabulary lambda 0 cells; the headline's default row (amendment 3, 20 runs)
    # has its lambda 0 cells in C6's baselines
    assert len(unique) == 50 + 50 + 10 + 60 + 30 + 6 - 10 + 10
    cfgs = [cfg for label, cfg in E.flat(c) if not label.startswith("c10")]
    assert {cfg.seed for cfg in cfgs} == set(range(5)) and {cfg.epochs for cfg in cfgs} == {10000}
    assert {cfg.stop_after for cfg in cfgs} == {200} and {cfg.p for cfg in cfgs} == {113}
    pilot = [cfg for label, cfg in E.flat(c) if label.startswith("c10 pilot")]
    assert {(cfg.seed, cfg.epochs) for cfg in pilot} == {(0, 3000)}


def test_shared_runs_are_the_same_configs_as_the_figures():
    """C2-G is Figure 2's gnm row (the same configs, so the runs are shared); C6's baselines and the headline's
    lambda 0 / 0.3 cells at the default are the regime map's and Figure 3's runs."""
    assert (E.NORM_R, E.GLOBAL_R) == (exp_fig2_ablation.MEASURED_R, exp_fig2_ablation.MEASURED_GLOBAL_R)
    args = E.parse([])
    fig2 = exp_fig2_ablation.parse(["--capacity", "gnm"])
    for prior in ("oracle", "adversarial"):
        mine = E.cells(args)["c2"]["C2-G"][prior][0]
        assert store.run_key(mine) == store.run_key(exp_fig2_ablation.run_config("gnm", prior, 0, fig2))
    base = E.cells(args)["c6"]["C6-lambda entropy 0.01, fresh"]["baseline"][0]
    assert store.run_key(base) == store.run_key(train.make_config(stop_after=200))
    default = E.cells(args)["headline"][E.HEADLINE_DEFAULT]
    grid = exp_regime_map.parse([])
    for (rho, regime), lam, s in itertools.product(((0.003, "refresh0.003"), (1, "fresh")), (0.0, 0.3), range(5)):
        assert store.run_key(default[f"{regime} lambda {lam:g}"][s]) == \
            store.run_key(exp_regime_map.run_config(rho, 1.0, lam, s, grid))


def test_amendment_5_runs_the_headline_parts_it_registered_on_the_runs_already_shared():
    """docs/registered/sensitivity.md, amendment 5: the default's fresh cells at seeds 0-24 (its seeds 0-4
    the headline row's runs, its lambda 0 cell the stored fresh baseline) and init x2's rho 0.003
    cells on held-out seeds 5-14 alone, each as its headline row's config at another seed."""
    args = E.parse([])
    c = E.cells(args)
    more = c["followup"]
    assert set(more) == {E.HEADLINE_DEFAULT, "init scale x2"}
    default, x2 = more[E.HEADLINE_DEFAULT], more["init scale x2"]
    assert set(default) == {"fresh lambda 0", "fresh lambda 0.3"} and set(x2) == {"refresh0.003 lambda 0", "refresh0.003 lambda 0.3"}
    assert all(sorted(by) == list(range(25)) for by in default.values())
    assert all(sorted(by) == list(range(5, 15)) for by in x2.values())
    key = store.run_key
    for a, by in default.items():
        assert all(key(by[s]) == key(c["headline"][E.HEADLINE_DEFAULT][a][s]) for s in range(5))
    assert all(key(default["fresh lambda 0"][s]) == key(train.make_config(seed=s, stop_after=200)) for s in range(25))
    for a, by in x2.items():
        first = c["headline"]["init scale x2"][a][0]
        assert all(key(by[s]) == key(train.make_config(**{**vars(first), "seed": s})) for s in by)
    new = {key(cfg) for _, cfg in E.flat({"followup": more})} - {key(cfg) for _, cfg in E.flat({"headline": c["headline"]})}
    assert len(new) == 20 + 20 + 20          # the default's seeds 5-24 in both arms, init x2's 5-14 in both


def test_amendment_5_puts_its_part_in_place_of_the_seeds_0_4_one():
    """The headline's rule, unchanged, on the row's other part (seeds 0-4) and amendment 5's
    part; the seeds-0-4 answer stays beside it, and a part with runs missing says how many."""
    args = E.parse([])
    slow, base = (lambda s: fake(8000 + 10 * s)), (lambda s: fake(3000 + 10 * s))
    noisy = (2000, 3500, 1800, 3300, 2600)           # 0.86-1.67x under fresh on seeds 0-4: inconclusive
    head = {"refresh0.003 lambda 0": {s: slow(s) for s in range(5)}, "refresh0.003 lambda 0.3": {s: fake(2000 + 10 * s) for s in range(5)},
            "fresh lambda 0": {s: base(s) for s in range(5)}, "fresh lambda 0.3": {s: fake(noisy[s]) for s in range(5)}}
    parts, answer = E.judge_headline(head, args.epochs)
    assert answer == "not decided"
    def judged(fresh_03, rho_03):
        v = {"headline": {row: {"parts": parts, "answer": answer} for row in (E.HEADLINE_DEFAULT, "init scale x2")}}
        results = {f"followup/{E.HEADLINE_DEFAULT}/fresh lambda {lam}/seed{s}": (base(s) if lam == "0" else fresh_03(s))
                   for lam in ("0", "0.3") for s in range(25)}
        results.update({f"followup/init scale x2/refresh0.003 lambda {lam}/seed{s}": (slow(s) if lam == "0" else rho_03(s))
                        for lam in ("0", "0.3") for s in range(5, 15)})
        v.update(E.judge({"followup": E.cells(args)["followup"]}, results, args))
        v = E.attach_followup(v)
        assert set(v) == {"headline"}
        return v["headline"]
    got = judged(lambda s: fake(3000 + 10 * s + (40 if s % 2 else -40)), lambda s: fake(8000 + 10 * s))
    assert got[E.HEADLINE_DEFAULT]["answer"] == "not decided"                        # seeds 0-4's, kept
    assert got[E.HEADLINE_DEFAULT]["followup"]["answer"] == "holds"                 # 1x under fresh at 25 seeds
    assert got["init scale x2"]["followup"]["answer"] == "changes"                  # 1x at rho 0.003, held out
    assert got["init scale x2"]["followup"]["seeds"] == "held-out seeds 5-14"
    # a pooled part reports its added seeds alone beside it (never judged); a held-out one has none
    alone = got[E.HEADLINE_DEFAULT]["followup"]["added_seeds_alone"]
    assert alone["n"] == 20 and sorted(alone["seeds"]) == list(range(5, 25)) and "added_seeds_alone" not in got["init scale x2"]["followup"]
    assert "; the 20 added seeds alone, reported beside: " in report.held_out_note("headline", got[E.HEADLINE_DEFAULT])
    note = report.held_out_note("headline", got["init scale x2"])
    assert note.startswith(" (amendment 5, held-out seeds 5-14: the answer **changes**; speed-up at rho 0.003")
    assert report.headline_answer(got["init scale x2"]) == ("changes", " (held-out seeds 5-14, amendment 5; on seeds 0–4: not decided)")
    got = judged(lambda s: fake(750 + 10 * s), lambda s: fake(2000 + 10 * s))
    assert got[E.HEADLINE_DEFAULT]["followup"]["answer"] == "changes"               # 4x under fresh too
    assert got["init scale x2"]["followup"]["answer"] == "not decided"               # rho reproduced, fresh as on 0-4
    row = {"answer": "not decided", "followup": {"stored": 3, "runs": 20, "seeds": "held-out seeds 5-14"}}
    assert report.held_out_note("headline", row) == " (amendment 5, held-out seeds 5-14: 3 of 20 runs stored)"
    assert report.headline_answer(row) == ("not decided", "") and report.held_out_note("headline", {}) == ""


def test_amendment_6_confirms_the_default_on_held_out_seeds_or_leaves_the_answer_not_decided(tmp_path):
    """docs/registered/sensitivity.md, amendment 6: the default's fresh cells at held-out seeds 25-64 alone
    (lambda 0 the stored fresh baseline), judged by rule 2; amendment 5's answer is said as
    confirmed if they reproduce its part's verdict, and the answer is not decided if not."""
    args = E.parse([])
    c = E.cells(args)
    held = c["confirm"][E.HEADLINE_DEFAULT]
    assert list(c["confirm"]) == [E.HEADLINE_DEFAULT] and all(sorted(by) == list(range(25, 65)) for by in held.values())
    key = store.run_key
    assert all(key(held["fresh lambda 0"][s]) == key(train.make_config(seed=s, stop_after=200)) for s in range(25, 65))
    assert all(key(held["fresh lambda 0.3"][s]) == key(train.make_config(seed=s, lam=0.3, stop_after=200)) for s in range(25, 65))
    part = {"verdict": "reproduced", "n": 25, "estimate": 0.18, "ci": [0.02, 0.35]}
    def judged(lam03):
        results = {f"confirm/{E.HEADLINE_DEFAULT}/fresh lambda {lam}/seed{s}": fake(3000 + 10 * s) if lam == "0" else lam03(s)
                   for lam in ("0", "0.3") for s in range(25, 65)}
        v = {"headline": {E.HEADLINE_DEFAULT: {"answer": "not decided"}},      # its parts: as judged before
             "followup": {E.HEADLINE_DEFAULT: {"verdict": "reproduced", "answer": "changes", "parts": {"p": part}}}}
        v.update(E.judge({"confirm": c["confirm"]}, results, args))
        row = E.attach_followup(v)["headline"][E.HEADLINE_DEFAULT]
        return row
    row = judged(lambda s: fake(round((3000 + 10 * s) / 1.2 * (0.7 if s % 2 else 1.3))))   # 1.2x, scattered
    assert report.headline_answer(row) == ("changes", " (seeds 0-24 pooled, confirmed on held-out seeds 25-64, "
                                                      "amendments 5 and 6; on seeds 0–4: not decided)")
    assert "; amendment 6, held-out seeds 25-64 alone: **confirmed**, reproduced" in report.held_out_note("headline", row)
    row = judged(lambda s: fake(round((3000 + 10 * s) * (0.9 if s % 2 else 1.1))))         # 1x
    assert not row["followup"]["confirm"]["confirms"] and report.headline_answer(row)[0] == "not decided"
    assert "changes, not confirmed on held-out seeds 25-64" in report.headline_answer(row)[1]
    row["followup"]["confirm"] = {"stored": 7, "runs": 80, "seeds": "held-out seeds 25-64"}
    assert report.headline_answer(row)[0] == "changes"               # amendment 5's, until its runs are in


def test_the_default_judged_by_the_headline_rule_is_not_decided_as_amendment_3_says():
    """docs/registered/sensitivity.md, amendment 3, quotes the default's own cells under the headline's
    registered rule: reproduced at rho 0.003 (2.65x), inconclusive under fresh (1.23x), so not
    decided. Read from the committed store (grokking epochs are integers: the same anywhere)."""
    args = E.parse([])
    arms = {a: {s: store.read(sweep.store_dir(args), cfg) for s, cfg in by.items()}
            for a, by in E.cells(args)["headline"][E.HEADLINE_DEFAULT].items()}
    parts, answer = E.judge_headline(arms, args.epochs)
    rho, fresh = parts.values()
    assert (rho["verdict"], fresh["verdict"], answer) == ("reproduced", "inconclusive", "not decided")
    assert "2.65x [1.39x, 5.04x]" in rho["text"] and "1.23x [0.77x, 1.97x]" in fresh["text"]
    assert "2.65x [1.39x, 5.04x]" in open("docs/registered/sensitivity.md").read()


def test_the_c10_mappings_keep_the_decay_clock_and_the_choice_is_the_first_to_memorize():
    """SGD's and Lion's alternative mappings keep lr * wd (Eq. 5's clock) as registered; batch
    128 scales lr only. The choice: the first listed mapping whose pilot memorized."""
    for opt in ("sgd", "lion"):
        for _, kw in E.C10_MAPPINGS[opt]:
            assert optim.decay_per_step(opt, kw["lr"], kw["wd"]) == pytest.approx(optim.decay_per_step(opt, E.LR, E.WD))
    assert all("wd" not in kw for _, kw in E.C10_MAPPINGS["bs128"])
    run = lambda best: ({}, {"train_acc": [0.1, best]})
    pilots = {("sgd", "lr x300"): run(0.5), ("sgd", "lr x1000"): run(0.995),
              ("lion", "lr / 3"): run(1.0), ("bs128", "lr x0.3"): run(0.2), ("bs128", "lr x0.1"): run(0.3)}
    assert E.pilot_choice(pilots) == {"sgd": "lr x1000", "lion": "lr / 3", "bs128": None}
    assert E.pilot_choice({("sgd", "lr x300"): run(0.5)})["sgd"] == "pending"
    args = E.parse(["--part", "c10"])
    c = E.cells(args, pilots)
    assert sorted(c["c10"]) == ["lion lr / 3", "sgd lr x1000"]
    assert {cfg.lr for cfg in c["c10"]["sgd lr x1000"]["run"].values()} == {10 * E.LR}


def fake(grok, acc=1.0):
    return {"grok_epoch": grok, "final_test_acc": acc}, None


def test_the_headline_rule():
    """Holds: reproduced at rho 0.003 and not reproduced (below 1.25x) under fresh; changes if
    either comes out the other way; otherwise not decided."""
    seeds = range(5)
    arms = lambda rho_kl, fresh_kl: {
        "refresh0.003 lambda 0": {s: fake(None) for s in seeds}, "refresh0.003 lambda 0.3": {s: fake(rho_kl + 10 * s) for s in seeds},
        "fresh lambda 0": {s: fake(3000 + 10 * s) for s in seeds}, "fresh lambda 0.3": {s: fake(fresh_kl + 10 * s) for s in seeds}}
    assert E.judge_headline(arms(2000, 3000), 10000)[1] == "holds"
    assert E.judge_headline(arms(2000, 1000), 10000)[1] == "changes"      # 3x under fresh too
    noisy = arms(2000, 0)
    noisy["fresh lambda 0.3"] = {s: fake(t) for s, t in zip(seeds, (2000, 3500, 1800, 3300, 2600))}  # 0.86-1.67x
    parts, answer = E.judge_headline(noisy, 10000)
    assert answer == "not decided" and parts["speed-up under fresh (lambda 0.3)"]["verdict"] == "inconclusive"


def test_every_part_is_judged_and_drawn_from_stored_runs(tmp_path):
    """judge() and the figure on one tiny real run standing in for every run of every part;
    a reading with a run missing says how many are stored; the REPORT block lists them all."""
    got = train.train(train.make_config(p=7, epochs=40, eval_every=2, quiet=True))
    args = E.parse(["--results-dir", str(tmp_path)])
    c = E.cells(args)
    results = {label: got for label, _ in E.flat(c)}
    results.pop("c1/C1-P padding, fresh/baseline/seed3")
    v = E.judge(c, results, args)
    assert v["c1"]["C1-P padding, fresh"] == {"stored": 4, "runs": 5}
    assert v["c2"]["C2-W"]["verdict"] in ("not reproduced", "reproduced", "inconclusive")
    assert set(v["c2"]["C2-W"]["parts"]) == {"oracle: full (final test acc in [0.99, 1.01))",
                                             "adversarial: chance (final test acc below 3/p = 0.027)"}
    # identical arms: 1x, so the rho 0.003 speed-up is not reproduced and the answer changes
    # (no run grokked: nothing is informative, and it is not decided)
    assert v["headline"]["init scale x2"]["answer"] == ("changes" if got[0]["grok_epoch"] else "not decided")
    assert set(v["c10 choice"]) == set(E.C10_MAPPINGS)
    E.plot(v, results, c, args, str(tmp_path / "choices.png"))
    assert (tmp_path / "choices.png").stat().st_size > 0
    store.write_json(str(tmp_path / "choices.json"), {"verdicts": v})
    block = "\n".join(report.choices_block(str(tmp_path)))
    assert "- C2 (norm-matched rows): by the registered rule, **" in block and "\n  - C2-G: **" in block and "C1-P padding, fresh: 4 of 5 runs stored" in block
    v["c2"]["C2-W"]["verdict"] = "reproduced"                  # said only with its seeds until held out
    store.write_json(str(tmp_path / "choices.json"), {"verdicts": v})
    block = "\n".join(report.choices_block(str(tmp_path)))
    assert "(on seeds 0-4; the held-out confirmation on seeds 5-9 not run yet)" in block.split("  - C2-W: ")[1].split("\n")[0]


def test_a_call_with_one_part_keeps_every_parts_verdicts(tmp_path):
    """`--plot-only --part c2` redraws from the store; the summary still lists every part (the
    others with how many of their runs are stored), so no call drops another's verdicts."""
    import json
    summary, history = train.train(train.make_config(p=7, epochs=30, quiet=True))
    folder = str(tmp_path / "store")
    args = E.parse(["--part", "c2"])
    for _, cfg in E.flat(E.cells(args)):
        store.write(folder, dict(summary, config=train.semantic_config(cfg)), history, cfg)
    E.main(["--plot-only", "--part", "c2", "--store", folder, "--results-dir", str(tmp_path),
            "--runs-dir", str(tmp_path / "runs")])
    v = json.load(open(tmp_path / "choices.json"))["verdicts"]
    assert set(v) == {"c2", "c6", "headline", "c1", "c10 pilot", "c10 choice"}     # no pilot stored: no c10 yet
    assert "verdict" in v["c2"]["C2-Q"] and v["c6"]["C6-L1 0.1, fresh"] == {"stored": 0, "runs": 10}
    assert (tmp_path / "choices.png").exists()


def test_a_reading_reproduced_on_seeds_0_4_is_confirmed_on_the_same_cells_at_seeds_5_9():
    """docs/registered/sensitivity.md: the held-out confirmation runs the same cells on seeds 5-9, judged
    by the same rule; until it has run, the reading is said with its seeds only."""
    args = E.parse([])
    full, chance = (lambda s: fake(1000 + s, 0.995)), (lambda s: fake(None, 0.008))
    verdicts = {"c2": {"C2-W": {"verdict": "reproduced"}, "C2-G": {"verdict": "inconclusive"}},
                "headline": {"init scale x2": {"verdict": "reproduced"}}, "c6": {}}
    held = E.held_out_cells(args, verdicts)
    assert list(held) == ["heldout c2"] and list(held["heldout c2"]) == ["C2-W"]     # not the headline
    same = E.cells(args)["c2"]["C2-W"]["oracle"][0]
    for prior, by_seed in held["heldout c2"]["C2-W"].items():
        assert sorted(by_seed) == [5, 6, 7, 8, 9]
        assert store.run_key(by_seed[5]) == store.run_key(train.make_config(**{**vars(same), "seed": 5, "prior": prior}))
    results = {f"heldout c2/C2-W/oracle/seed{s}": full(s) for s in E.HELD_OUT_SEEDS}
    results.update({f"heldout c2/C2-W/adversarial/seed{s}": chance(s) for s in E.HELD_OUT_SEEDS})
    got = E.judge(held, results, args)["heldout c2"]["C2-W"]
    assert got["verdict"] == "reproduced"
    row = {"verdict": "reproduced", "parts": got["parts"]}
    assert "not run yet" in report.held_out_note("c2", row)
    assert "has 3 of 10 runs stored" in report.held_out_note("c2", {**row, "heldout": {"stored": 3, "runs": 10}})
    assert "held-out seeds 5-9: **confirmed**" in report.held_out_note("c2", {**row, "heldout": got})
    results["heldout c2/C2-W/oracle/seed7"] = fake(None, 0.5)
    results["heldout c2/C2-W/oracle/seed8"] = fake(None, 0.4)
    failed = E.judge(held, results, args)["heldout c2"]["C2-W"]
    assert failed["verdict"] != "reproduced"
    assert "**not confirmed**" in report.held_out_note("c2", {**row, "heldout": failed})
    assert report.held_out_note("headline", row) == "" and report.held_out_note("c2", {"verdict": "inconclusive"}) == ""


def test_the_c10_panel_shows_each_runs_plateau_contraction_and_drops_runs_with_no_plateau(monkeypatch):
    """C10's panel draws what rule 5 judges: analysis.plateau_contraction per run; a run with
    no plateau to measure (None) gives no point, as it gives the rule no seed."""
    rates = iter([0.002, None, -0.001])
    monkeypatch.setattr(E.analysis, "plateau_contraction", lambda history: (next(rates), None))
    runs = [({"grok_epoch": 100}, {}), ({"grok_epoch": None}, {}), ({"grok_epoch": 900}, {})]
    assert E.panel_values("c10", runs, 1000) == [0.002, -0.001]
    assert E.panel_values("c6", runs, 1000) == [100, 1000, 900]          # other parts: t_grok, censored


def test_c10_with_no_plateau_is_not_tested_here_with_why_and_judged_by_rule_5_where_there_is_one():
    """SGD x300's shape: attention meets B_tau (epoch 150) before the model memorizes (600), so
    no seed has a plateau to measure: not decided, "not tested here" with the reason counted from
    the marks (issue #86's label: never "untestable here", since another mapping might give a
    plateau), not rule 5's bare "no data". Seeds with a plateau are judged by rule 5."""
    import numpy as np
    ep = np.arange(0, 3010, 10)

    def run(t_mem, t_struct, t_grok, norm_end):
        h = {"epoch": ep.tolist(), "train_acc": (ep >= t_mem).astype(float).tolist(),
             "test_acc": np.where(ep >= t_grok, 1.0, 0.1).tolist(),
             "frac_struct": (ep >= t_struct).astype(float).tolist(), "info_mass": [0.4] * len(ep),
             "grad_W_norm": [1.0] * len(ep),
             "mlp_norm": np.interp(ep, [0, t_mem, t_struct, 3000], [10, 30, norm_end, norm_end]).tolist()}
        return {"grok_epoch": t_grok}, h

    early = E.judge_c10({"run": {s: run(600, 150, 1600, 25.0) for s in range(5)}})
    v = early["the MLP norm contracts on the plateau"]
    assert v["verdict"] == rules.NOT_DECIDED and v["n"] == 0 and v["status"] == E.NOT_TESTED
    assert v["reason"].startswith("not tested here under this mapping, no plateau to measure: ") and "untestable" not in rules.describe(v)
    assert "5 of 5 seeds memorized; 5 of them met B_tau first" in v["reason"]
    late = E.judge_c10({"run": {s: run(600, 2000, 2500, 20.0) for s in range(6)}})["the MLP norm contracts on the plateau"]
    assert late["verdict"] == rules.REPRODUCED and late["n"] == 6       # 30 -> 20 on every plateau


def test_each_claims_readings_end_in_the_registered_rules_outcome(tmp_path):
    """docs/registered/sensitivity.md: a negative verdict stands only once every reading is judged and
    none reproduces the claim (a reading whose held-out seeds fail counts as none); a reading
    counts as reproducing it only once its held-out seeds confirm it."""
    no, inc = {"verdict": "not reproduced", "parts": {}}, {"verdict": "inconclusive", "parts": {}}
    yes = lambda held: {"verdict": "reproduced", "parts": {}, **({"heldout": {"parts": {}, **held}} if held else {})}
    assert report.claim_outcome({"a": no, "b": {"stored": 3, "runs": 10}})[0] == "pending"
    assert report.claim_outcome({"a": no, "b": yes(None)})[0] == "pending"                    # held-out not run
    assert report.claim_outcome({"a": no, "b": yes({"stored": 2, "runs": 10})})[0] == "pending"
    kind, words = report.claim_outcome({"a": no, "b": yes({"verdict": "reproduced"}), "c": yes({"verdict": "reproduced"})})
    assert kind == "reproduced" and "reading b, c" in words
    kind, words = report.claim_outcome({"a": no, "b": inc, "c": yes({"verdict": "inconclusive"})})
    assert kind == "stands" and "none of the 3" in words
    assert "(1 inconclusive, 1 reproduced on seeds 0-4 only)" in words
    assert report.claim_outcome({"a": no})[1].endswith("reproduces it")
    v = {"c6": {"a": no, "b": inc}, "c1": {"a": no}, "c2": {"a": yes({"verdict": "reproduced"})},
         "c10": {"a": {"stored": 0, "runs": 5}}}
    store.write_json(str(tmp_path / "choices.json"), {"verdicts": v})
    block = "\n".join(report.choices_block(str(tmp_path)))
    assert "- C6 (entropy, sparsity): by the registered rule, **the default's verdict stands**" in block
    assert "- C10 (contraction under the chosen mapping): by the registered rule, **not decided yet**" in block


def test_a_c1_reading_is_decided_by_its_failing_part_and_its_phases_on_ten_seeds(monkeypatch):
    """Amendment 4: on seeds 0-4 a C1 reading's verdict is the mass part's (five seeds cannot
    decide the phases, a property: rule 5); on held-out seeds 5-9 the mass is judged on them and
    the phases on seeds 0-9 pooled, and both decide."""
    marks = {}                                   # history -> phase marks (what analysis.phase_marks reads)
    in_order = dict(t_mem=100, t_struct=500, t_rise=600, t_grok=900, grad_collapse=0.01)
    monkeypatch.setattr(E.analysis, "phase_marks", lambda h, rise_acc=0.5: marks[h["id"]])
    def run(seed, mass, order=True):
        marks[seed] = dict(in_order if order else dict(in_order, t_struct=50), mass_at_mem=mass)
        return ({"grok_epoch": 900}, {"id": seed})
    args = E.parse([])
    c = {"c1": {"C1-P padding, fresh": E.cells(args)["c1"]["C1-P padding, fresh"]}}
    results = {f"c1/C1-P padding, fresh/baseline/seed{s}": run(s, 0.21 + 0.005 * s) for s in range(5)}
    row = E.judge(c, results, args)["c1"]["C1-P padding, fresh"]
    phases = [p for p in row["parts"] if p.startswith(E.C1_PHASES)][0]
    assert row["parts"][phases]["verdict"] == "inconclusive"        # 5/5 in order decides nothing
    assert row["verdict"] == "reproduced"                           # the mass part decides
    held = E.held_out_cells(args, {"c1": {"C1-P padding, fresh": row}})
    assert list(held) == ["heldout c1"]
    results.update({f"heldout c1/C1-P padding, fresh/baseline/seed{s}": run(s, 0.22) for s in E.HELD_OUT_SEEDS})
    got = E.judge(held, results, args)["heldout c1"]["C1-P padding, fresh"]
    assert got["parts"][f"{E.C1_PHASES} (seeds 0-9)"]["n"] == 10 and got["verdict"] == "reproduced"
    results["c1/C1-P padding, fresh/baseline/seed2"] = run(2, 0.21, order=False)     # one of seeds 0-4 out of order
    results["heldout c1/C1-P padding, fresh/baseline/seed7"] = run(7, 0.22, order=False)
    got = E.judge(held, results, args)["heldout c1"]["C1-P padding, fresh"]
    assert got["parts"][E.C1_MASS]["verdict"] == "reproduced" and got["verdict"] != "reproduced"
    results["c1/C1-P padding, fresh/baseline/seed0"] = run(0, 0.40)                   # not diffuse on seeds 0-4
    assert E.judge(c, results, args)["c1"]["C1-P padding, fresh"]["verdict"] != "reproduced"


def test_quick_looks_at_three_of_c2s_readings():
    args = E.parse(["--quick"])
    assert set(E.cells(args)["c2"]) == set(E.QUICK_C2) and set(E.QUICK_C2) < set(E.C2_READINGS)
    assert set(E.cells(E.parse(["--part", "c2"]))["c2"]) == set(E.C2_READINGS)