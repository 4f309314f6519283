"""Part five (docs/registered/plateau.md): its new targets and switches, each with a test that
fails if it is wrong, the reading of the four accounts on synthetic verdicts, and the
registration's power tables recomputed."""
import math
import os

import pytest
import torch

import controls
import train
from audit import plateau as P
from tasks import make_task
from audit import rules as A

SMALL = dict(p=11, d_model=16, d_mlp=32, frac=0.6, epochs=30, eval_every=10, threads=1, quiet=True)


def test_sub_is_not_commutative_and_keeps_adds_layout():
    t = make_task("sub", p=11, frac=0.5, seed=0)
    a = make_task("add", p=11, frac=0.5, seed=0)
    assert torch.equal(t.train_x, a.train_x) and t.informative == [0, 1]      # the same inputs, split and oracle
    x, y = t.train_x, t.train_y
    assert torch.equal(y, (x[:, 0] - x[:, 1]) % 11) and (y >= 0).all()
    assert (y != (x[:, 1] - x[:, 0]) % 11).any()                                # a - b is not b - a


def test_query_target_puts_all_its_mass_on_the_query():
    t = make_task("add", p=11, frac=0.5, n_distractors=2, seed=0)
    q = controls.query_target(t, "train")
    assert q.shape == (len(t.train_x), 5) and torch.equal(q[:, 4], torch.ones(len(q)))
    assert q[:, :4].abs().sum() == 0


def test_query_kl_is_minus_log_the_query_attention():
    """KL(q || a) with q all on the query is -log a_query: the prior the query arm trains with."""
    scores = torch.randn(6, 1, 5)
    q = controls.query_target(make_task("add", p=11, frac=0.5, seed=0), "train")[:6][:, None, :]
    kl = train.prior_loss(scores, q, "kl")
    assert torch.allclose(kl, -torch.log_softmax(scores.double(), -1)[..., 4].mean())


def test_pad_distractors_never_change_across_epochs():
    t = make_task("add", p=11, frac=0.5, seed=0, distractor_vocab="pad")
    x = t.train_x.clone()
    for _ in range(5):
        t.refresh_distractors(1.0)
        assert torch.equal(t.train_x, x)
    shared = make_task("add", p=11, frac=0.5, seed=0)
    before = shared.train_x.clone()
    shared.refresh_distractors(1.0)
    assert not torch.equal(shared.train_x, before)                              # the test can fail


def test_with_pad_distractors_fresh_and_rho_are_one_computation():
    """Why part five runs its pad arms in `fresh` only: redrawing a pad token changes nothing."""
    runs = [train.train(train.make_config(**SMALL, distractor_vocab="pad", distractors=d, refresh=r))[1]
            for d, r in (("fresh", 0.0), ("refresh", 0.003), ("fixed", 0.0))]
    assert runs[0]["test_loss"] == runs[1]["test_loss"] == runs[2]["test_loss"]


def test_prior_stop_turns_lambda_off_from_its_epoch():
    cfg = train.make_config(lam=0.3, prior_stop=200)
    assert [train.prior_weight(cfg, e) for e in (0, 199, 200, 5000)] == [0.3, 0.3, 0.0, 0.0]
    with pytest.raises(ValueError, match="prior-stop"):
        train.validate(train.make_config(lam=0.3, prior_start=300, prior_stop=200))


def test_prior_stop_changes_the_run_only_from_its_epoch():
    on = train.train(train.make_config(**SMALL, lam=0.3, prior="uniform"))[1]
    off = train.train(train.make_config(**SMALL, lam=0.3, prior="uniform", prior_stop=15))[1]
    assert on["test_loss"][:2] == off["test_loss"][:2] and on["test_loss"][2:] != off["test_loss"][2:]
    assert off["prior_weight"] == [0.3, 0.3, 0.0, 0.0]


@pytest.mark.parametrize("wd", [0.0, 0.5])
def test_update_rms_is_adamws_own_step(wd):
    """On a toy problem: the RMS adam_update_rms reads from AdamW's state is the step AdamW took,
    theta_new = theta_old (1 - lr wd) - update, at several steps (bias correction included)."""
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.randn(7, 5))
    opt = torch.optim.AdamW([w], lr=0.01, weight_decay=wd, betas=(0.9, 0.98), eps=1e-6)
    for _ in range(4):
        old = w.detach().clone()
        (w.sin() * torch.arange(35.).view(7, 5)).sum().backward()
        opt.step()
        opt.zero_grad()
        step = old * (1 - 0.01 * wd) - w.detach()
        got = controls.adam_update_rms(opt, {"w": w}, [0.01])["w"]
        assert math.isclose(got, step.pow(2).mean().sqrt().item(), rel_tol=1e-4)
    assert controls.adam_update_rms(torch.optim.AdamW([torch.nn.Parameter(torch.ones(2))]),
                                       {"v": torch.ones(2)}, [0.01]) == {"v": 0.0}


def test_logging_updates_changes_nothing_the_run_computes():
    plain = train.train(train.make_config(**SMALL, lam=0.3, prior="uniform"))[1]
    logged = train.train(train.make_config(**SMALL, lam=0.3, prior="uniform", log_updates=True))[1]
    assert all(plain[k] == logged[k] for k in plain)
    assert set(logged) - set(plain) == {f"update_rms_{n}" for n in controls.UPDATE_PARAMS} | {"train_attn_mass"}
    assert logged["update_rms_W_Q"][0] == 0.0 and all(v > 0 for v in logged["update_rms_W_Q"][1:])
    assert all(math.isclose(sum(m), 1.0, rel_tol=1e-5) for m in logged["train_attn_mass"])
    with pytest.raises(ValueError, match="log-updates"):
        train.validate(train.make_config(log_updates=True, optimizer="sgd"))


def test_the_arms_are_the_registered_configs():
    args = P.parse([])
    cells = P.runs(args)
    cfg = lambda arm: cells[arm][0][1]
    assert len(P.planned_runs(args)) == 16 * 20 and all(c.log_updates for _, c in P.planned_runs(args))
    assert cfg("query weak").lam == cfg("distractors weak").lam == cfg("rho query weak").lam == 0.03   # the pilot's
    assert cfg("rho query weak").refresh == 0.003 and cfg("distractors weak").prior == "adversarial"
    assert cfg("query").prior == "query" and cfg("distractors").prior == "adversarial"
    assert cfg("uniform pad").distractor_vocab == "pad" and cfg("uniform off 200").prior_stop == 200
    assert cfg("sub oracle").task == "sub" and cfg("sub oracle").prior == "oracle" and cfg("sub oracle").lam == 0.3
    assert cfg("rho query").distractors == "refresh" and cfg("rho query").refresh == 0.003
    assert cfg("rho query").epochs == 20000 and cfg("lambda 0").epochs == 10000 and cfg("lambda 0").lam == 0
    assert [c.seed for _, c in P.planned_runs(args)[:16]] == [230] * 16


def verdicts_for(account):
    """Each comparison read as the account predicts it; where it predicts nothing, inconclusive."""
    preds = P.PREDICTIONS[account]
    return {k: {"verdict": {"faster": A.REPRODUCED, "not faster": A.NOT_REPRODUCED}.get(preds.get(k), A.INCONCLUSIVE)}
            for k in P.COMPARISONS}


@pytest.mark.parametrize("account", P.ACCOUNTS)
def test_each_accounts_own_pattern_favours_it_alone(account):
    r = P.reading(verdicts_for(account))
    assert r["reading"] == f"the data favour {account}" and r["standing"] == [account]


def test_the_reading_waits_for_every_comparison_and_drops_an_untestable_one():
    v = verdicts_for("noise")
    assert P.reading({k: c for k, c in v.items() if k != "K7"})["reading"] == "not decided"
    every = {k: {"verdict": A.INCONCLUSIVE} for k in P.COMPARISONS}
    assert P.reading(every)["reading"] == "not told apart: live, noise, routing, info"
    assert P.reading({**every, "K1": {"verdict": A.REPRODUCED}, "K3": {"verdict": A.NOT_REPRODUCED}})["standing"] \
        == ["noise", "routing"]
    # the distractors arm never memorizing: K4 and K5 drop out, so noise and live are told by the rest
    judged = P.judge({"distractors": {0: None, 1: None}, "lambda 0": {0: 100, 1: 120}, "uniform": {0: 50, 1: 60}},
                     lambda arm: 10000, memorized={"distractors": (0, 2)})
    assert judged["K4"]["verdict"] == judged["K5"]["verdict"] == P.UNTESTABLE
    assert P.reading({**v, "K4": judged["K4"]})["accounts"]["noise"]["comparisons"]["K4"] == P.UNTESTABLE


def test_when_the_kl_acts():
    r = lambda **v: P.when({k: {"verdict": v.get(k, A.INCONCLUSIVE)} for k in ("T1", "T2", "T3", "T4")})
    assert r(T1=A.REPRODUCED).startswith("while memorizing")
    assert r(T2=A.REPRODUCED, T3=A.REPRODUCED) == "on the plateau (the first 1000 epochs suffice)"
    assert r(T2=A.REPRODUCED, T4=A.REPRODUCED) == "on the plateau (it must stay on past epoch 1000)"
    assert r() == "not told" and P.when({}) == "not decided"


def test_a_slower_arm_that_never_leaves_chance_is_judged_by_the_count_test():
    times = {"fast": {s: 3000 for s in range(10)}, "slow": {s: (None if s else 9000) for s in range(10)}}
    c = P.compare(times, "fast", "slow", 10000)
    assert c["rule"] == "count" and c["verdict"] == A.REPRODUCED
    times["slow"] = {s: 6000 for s in range(10)}
    assert P.compare(times, "fast", "slow", 10000)["rule"] == "rules v4"


@pytest.mark.parametrize("row", P.POWER_ROWS)
def test_the_registered_power_tables_are_what_the_code_computes(row):
    """docs/registered/plateau.md's power tables, recomputed (2,000 data sets each, fixed seed)."""
    label, scale, drop = row
    with open(os.path.join("docs", "registered", "plateau.md")) as f:
        doc = f.read()
    for line in P.power_table(P.power(scale=scale, drop=drop)).splitlines()[2:]:
        assert line in doc, (label, line)


def test_amendment_1_pilot_takes_the_largest_strength_that_memorizes():
    m = {(t, lam): lam <= 0.03 for t in P.PILOT["targets"] for lam in P.PILOT["lams"]}
    assert P.pilot_choice(m) == {"query": 0.03, "adversarial": 0.03}
    m = {**m, ("adversarial", 0.03): False, ("adversarial", 0.01): False}
    assert P.pilot_choice(m)["adversarial"] is None
    assert [c.lam for _, c in P.pilot_runs(P.parse([]))] == [0.1, 0.03, 0.01] * 2
    assert {c.seed for _, c in P.pilot_runs(P.parse([]))} == {250} and 250 not in P.SEEDS


def test_amendment_1_reads_the_query_arm_by_its_premise_on_the_seeds_after_it():
    """A query arm that never memorizes makes K3 untestable in the amended reading only; the amended
    reading leaves seed 230 out."""
    seeds = P.SEEDS
    runs = {arm: {s: {"t_95": 2000.0 if arm in ("uniform", "uniform pad") else 3000.0, "t_95_held": None, "t_grok": None,
                      "t_mem": 300, "plateau": {}} for s in seeds} for arm in P.ARMS}
    for s in seeds:
        runs["query"][s].update(t_95=None, t_mem=None)
    summary = P.summarize(runs, P.BUDGETS, seeds)
    assert summary["comparisons"]["K3"]["verdict"] == A.NOT_REPRODUCED          # as registered
    am = summary["amendment 1"]
    assert am["seeds"] == list(range(231, 250)) and am["comparisons"]["K3"]["verdict"] == P.UNTESTABLE
    assert am["accounts"]["live"]["comparisons"]["K3"] == P.UNTESTABLE
    assert summary["accounts"]["live"]["comparisons"]["K3"] == "against"


def test_a_premise_waits_for_every_run_of_its_arm():
    """The distractors arm's premise is not judged on the runs stored so far: with one seed missing,
    K4 and K5 are not yet untestable (nor judged)."""
    seeds = P.SEEDS
    runs = {arm: {s: {"t_95": 3000.0, "t_95_held": None, "t_grok": None, "t_mem": 300, "plateau": {}} for s in seeds}
            for arm in P.ARMS}
    runs["distractors"] = {s: {"t_95": None, "t_95_held": None, "t_grok": None, "t_mem": None, "plateau": {}}
                           for s in seeds[:-1]}
    summary = P.summarize(runs, P.BUDGETS, seeds)
    assert "K4" not in summary["comparisons"] and summary["reading"] == "not decided"
    runs["distractors"][seeds[-1]] = dict(runs["distractors"][seeds[0]])
    assert P.summarize(runs, P.BUDGETS, seeds)["comparisons"]["K4"]["verdict"] == P.UNTESTABLE


@pytest.mark.parametrize("scale", (1.0, 0.5))
def test_amendment_2_power_tables_are_what_the_code_computes(scale):
    """docs/registered/plateau.md's amendment 2 tables, recomputed (2,000 data sets each, fixed seed)."""
    with open(os.path.join("docs", "registered", "plateau.md")) as f:
        doc = f.read().split("## Amendment 2", 1)[1]
    for line in P.power_accuracy_table(P.power_accuracy(scale=scale)).splitlines()[2:]:
        assert line in doc, line


def test_amendment_2_compares_accuracy_at_the_budget_on_the_seeds_after_it():
    """K6a/K8a/S1a read each run's last test accuracy, paired by seed, on seeds 234-249 only: a gain of
    +0.30 on every seed reads reproduced, none reads not reproduced, and seeds 230-233 never count."""
    seeds = list(range(230, 250))
    acc = {"sub lambda 0": 0.05, "sub uniform": 0.35, "sub oracle": 0.07}
    per_run = {arm: {s: {"acc_end": a + 0.01 * (s % 3) + (0.5 if s < 234 and arm == "sub oracle" else 0)}
                     for s in seeds} for arm, a in acc.items()}
    r = P.accuracy_reading(per_run, seeds)
    assert r["seeds"] == list(range(234, 250))
    c = r["comparisons"]
    assert c["K6a"]["verdict"] == A.REPRODUCED and c["K6a"]["n"] == 16
    assert c["K8a"]["verdict"] == A.NOT_REPRODUCED and c["S1a"]["verdict"] == A.NOT_REPRODUCED
    assert r["standing"] == ["live", "noise"] and r["reading"] == "not told apart: live, noise"
    # a history's last logged test accuracy is what is compared
    m = P.measures({"config": {"task": "sub", "n_distractors": 2}, "grok_epoch": None, "mem_epoch": 500},
                   {"epoch": [0, 10], "test_acc": [0.01, 0.42], "mlp_norm": [1.0, 1.0], "prior_loss": [0.0, 0.0]})
    assert m["acc_end"] == 0.42
    # not decided until every run of the compared arms is in
    del per_run["sub uniform"][240]
    assert P.accuracy_reading(per_run, seeds)["reading"] == "not decided"


def test_amendments_1_and_2_read_as_one_rule_out_what_either_rules_out():
    """Amendment 2, item 4: the combined reading. live's own pattern in amendment 1 (every other account
    ruled out there) beside a `sub` reading that rules live and noise out leaves none of the four; it
    waits for both readings."""
    every = {**P.COMPARISONS, **P.COMPARISONS_WEAK}
    am1 = {"comparisons": {k: {"verdict": {"faster": A.REPRODUCED, "not faster": A.NOT_REPRODUCED}.get(
        P.PREDICTIONS_AMENDED["live"].get(k), A.INCONCLUSIVE)} for k in every}}
    assert P.reading(am1["comparisons"], P.PREDICTIONS_AMENDED, every)["standing"] == ["live"]
    am2 = {"comparisons": {"K6a": {"verdict": A.NOT_REPRODUCED}, "K8a": {"verdict": A.REPRODUCED},
                           "S1a": {"verdict": A.REPRODUCED}}}
    r = P.combined_reading(am1, am2)
    assert r["reading"] == "none of the four" and r["accounts"]["live"]["comparisons"]["K6a"] == "against"
    am2["comparisons"].update(K6a={"verdict": A.REPRODUCED}, K8a={"verdict": A.NOT_REPRODUCED})
    assert P.combined_reading(am1, am2)["reading"] == "the data favour live"
    del am2["comparisons"]["K8a"]
    assert P.combined_reading(am1, am2)["reading"] == "not decided"
    summary = P.summarize({}, P.BUDGETS, P.SEEDS)
    assert summary["amendments 1 and 2"]["reading"] == "not decided"
    assert any(line.startswith("- Amendments 1 and 2 read as one") for line in P.markdown(summary))


def test_quick_runs_the_arms_that_show_something_at_its_scale_and_the_paper_runs_all():
    """--quick (issue #85): one seed of QUICK_ARMS, `add` in `fresh` only; without --quick every arm."""
    quick = P.planned_runs(P.parse(["--quick"]))
    assert [label.split("/")[1] for label, _ in quick] == list(P.QUICK_ARMS) and len(P.QUICK_ARMS) == 7
    assert all(c.task == "add" and c.distractors == "fresh" and c.seed == 0 for _, c in quick)
    assert {label.split("/")[1] for label, _ in P.planned_runs(P.parse([]))} == set(P.ARMS)


def test_the_figure_draws_each_group_together_and_labels_what_never_reached_095(tmp_path):
    """plateau.png: the arms group by group (add in fresh, sub, rho 0.003), amendment 1's weak arms
    beside their group's; an arm none of whose runs reached 0.95 is drawn at its budget."""
    order = P.display_order(list(P.ARMS))
    groups = [P.group(a) for a in order]
    assert all(groups.index(g) == i or groups[i - 1] == g for i, g in enumerate(groups))     # contiguous
    assert order.index("query weak") < order.index("sub lambda 0") < order.index("rho lambda 0") < order.index("rho query weak")
    run = lambda t: {"t_95": t, "acc_end": 0.5 if t is None else 0.99}
    summary = {"runs": {a: {"1": run(None if "sub" in a else 2000)} for a in P.ARMS}, "budgets": P.BUDGETS,
               "plateau": {a: {"distractor_mass": 0.1, "update_rms_W_Q": 1e-4, "update_rms_W_K": None} for a in P.ARMS}}
    P.plot(summary, str(tmp_path / "plateau.png"))
    assert (tmp_path / "plateau.png").stat().st_size > 10000


def test_the_combined_readings_power_tables_are_what_the_code_computes():
    """docs/registered/plateau.md's note of 2026-12-03: the combined reading's error rates, recomputed."""
    with open(os.path.join("docs", "registered", "plateau.md")) as f:
        doc = f.read().split("the combined reading's error rates", 1)[1]
    for label, scale in P.POWER_COMBINED_ROWS:
        for line in P.power_table(P.power_combined(scale=scale), len(P.AMENDED_SEEDS)).splitlines()[2:]:
            assert line in doc, (label, line)


def test_a_comparisons_text_names_it_once():
    """REPORT.md's line per comparison: "A faster than B: speed-up 2.00x [...]", not the name twice."""
    times = {"fast": {s: 1500.0 + s for s in range(10)}, "slow": {s: 3000.0 + 2 * s for s in range(10)}}
    text = P.compare(times, "fast", "slow", 10000)["text"]
    assert text.startswith("fast faster than slow: speed-up 2.00x") and text.count("faster than") == 1
    times["slow"][0] = None                                   # a censored slower run: the estimate is a lower bound
    assert P.compare(times, "fast", "slow", 10000)["bound"] == ">=" and P.compare(times, "slow", "fast", 10000)["bound"] == "<="
    acc = {"a": {s: 0.3 + 0.01 * s for s in range(8)}, "b": {s: 0.1 for s in range(8)}}
    text = P.compare_accuracy(acc, "a", "b")["text"]
    assert text.startswith("a more accurate than b at the budget: accuracy difference +0.235") and text.count("more accurate") == 1


def test_the_distractor_mass_is_averaged_over_the_plateau_and_while_memorizing():
    """measures(): the training set's attention mass on the distractor positions (2 and 3 for `add`),
    averaged over the logged epochs 500-1000 (the plateau) and 0-200 (while memorizing, up to the early
    switch-off), each window's ends included and nothing outside it."""
    epochs = list(range(0, 1201, 100))
    mass = [[0.4, 0.4, 0.0, 0.0, 0.2] if e <= 200 else [0.1, 0.1, 0.3, 0.3, 0.2] if 500 <= e <= 1000
            else [0.0, 0.0, 0.5, 0.5, 0.0] for e in epochs]
    history = {"epoch": epochs, "test_acc": [0.0] * len(epochs), "mlp_norm": [1.0] * len(epochs),
               "prior_loss": [0.0] * len(epochs), "train_attn_mass": mass}
    m = P.measures({"config": {"task": "add", "n_distractors": 2}, "grok_epoch": None, "mem_epoch": 300}, history)
    assert m["plateau"]["distractor_mass"] == pytest.approx(0.6)
    assert m["plateau"]["distractor_mass_early"] == pytest.approx(0.0)
    assert P.EARLY == (0, P.OFF_EARLY) and P.WINDOW == (500, 1000)


def test_the_report_says_when_an_account_falls_on_k5w_alone():
    """The note of 2026-12-03: an account ruled out in the combined reading by K5w and nothing else is named,
    with the two arms' distractor masses; an account ruled out by more than K5w is not."""
    summary = P.summarize({}, P.BUDGETS, P.SEEDS)
    accounts = {"live": {"comparisons": {"T2": "against", "K5w": "open"}, "ruled_out": True},
                "noise": {"comparisons": {"K1": "for", "K5w": "against"}, "ruled_out": True},
                "routing": {"comparisons": {"K5w": "against", "K6a": "against"}, "ruled_out": True},
                "info": {"comparisons": {"K1": "for"}, "ruled_out": False}}
    summary["amendments 1 and 2"] = {"reading": "the data favour info", "accounts": accounts}
    summary["plateau"] = {"distractors weak": {"distractor_mass_early": 0.25, "distractor_mass": 0.044},
                          "uniform": {"distractor_mass_early": 0.23, "distractor_mass": 0.071}}
    lines = [line for line in P.markdown(summary) if "by K5w alone" in line]
    assert len(lines) == 1 and lines[0].startswith("  - noise ruled out by K5w alone")
    assert "epochs 0-200 0.25 / 0.23; epochs 500-1000 0.044 / 0.071" in lines[0]
    accounts["noise"]["comparisons"]["K2"] = "against"
    assert not any("by K5w alone" in line for line in P.markdown(summary))


def test_said_as_tested_sets_aside_a_comparison_whose_arm_did_not_move_more_for_its_account_only():
    """Part five said as tested (2026-12-04): K5w is set aside for noise when the weak distractor arm put less
    than 1.5x uniform's distractor mass in either window, and counts again when it put 1.5x in both; the
    account left standing is named with the comparisons still open for it, never as shown."""
    plateau = {"distractors weak": {"distractor_mass_early": 0.25, "distractor_mass": 0.04},
               "uniform": {"distractor_mass_early": 0.23, "distractor_mass": 0.07},
               "query weak": {"update_rms_W_K": 3.3e-5}, "lambda 0": {"update_rms_W_K": 3.1e-5}}
    aside = P.hollow(plateau)
    assert set(aside) == {"K5w", "K3w"} and aside["K5w"][0] == "noise" and aside["K3w"][0] == "live"
    assert abs(aside["K5w"][1]["distractor_mass"] - 0.04 / 0.07) < 1e-12
    plateau["distractors weak"] = {"distractor_mass_early": 0.35, "distractor_mass": 0.106}   # 1.52x, 1.51x
    assert "K5w" not in P.hollow(plateau)
    plateau["distractors weak"]["distractor_mass"] = 0.1                                   # 1.43x on the plateau
    assert "K5w" in P.hollow(plateau)
    every = {**P.COMPARISONS, **P.COMPARISONS_WEAK}
    noise = P.PREDICTIONS_AMENDED["noise"]       # noise's own pattern, but K2 open and K5w against it
    verdict = lambda k: {"verdict": A.INCONCLUSIVE if k == "K2" else A.NOT_REPRODUCED if k == "K5w" else
                         {"faster": A.REPRODUCED, "not faster": A.NOT_REPRODUCED}.get(noise.get(k), A.INCONCLUSIVE)}
    am1 = {k: verdict(k) for k in every}
    am2 = {"K6a": {"verdict": A.REPRODUCED}, "K8a": {"verdict": A.NOT_REPRODUCED}}
    summary = {"plateau": plateau, "amendment 1": {"comparisons": am1}, "amendment 2": {"comparisons": am2},
               "amendments 1 and 2": P.combined_reading({"comparisons": am1}, {"comparisons": am2})}
    assert summary["amendments 1 and 2"]["accounts"]["noise"]["ruled_out"]        # by K5w, as registered
    r = P.as_tested(summary)
    assert r["standing"] == ["noise"] and r["reading"].startswith("noise stands, not ruled out and not shown (K2")
    assert r["accounts"]["routing"]["comparisons"]["K5w"] == "for"                 # set aside for noise only
    assert P.as_tested({**summary, "amendments 1 and 2": {"reading": "not decided"}}) is None


def test_k1_pooled_pairs_every_stored_seed_and_each_batch():
    """K1 pooled: the information study's seeds with this study's, paired per seed (a ratio of 2 on every seed
    of one batch, 1 on the other: the pooled estimate is their mean on the log scale)."""
    info = {"lambda 0": {s: 2000 for s in P.POOLED_SEEDS}, "uniform": {s: 1000 for s in P.POOLED_SEEDS}}
    per_run = {arm: {s: {"t_95": 3000 + (s % 3)} for s in P.SEEDS} for arm in ("lambda 0", "uniform")}
    out = P.pooled(per_run, info, 10000)
    assert out["all"]["n"] == 50 and out["all"]["seeds"] == [200, 249]
    assert abs(out["210-229"]["estimate"] - math.log(2)) < 1e-12 and abs(out["230-249"]["estimate"]) < 1e-12
    assert abs(out["all"]["estimate"] - 30 * math.log(2) / 50) < 1e-12
    del info["uniform"][229]
    assert "all" not in P.pooled(per_run, info, 10000) and "210-229" not in P.pooled(per_run, info, 10000)