"""Part six (docs/registered/imprint.md): the QK penalty's switch-off, the transplant that composes a
checkpoint from two parents, the interaction and its bounds, the readings, the pilot's rule."""
import math

import pytest

import store
import train
from audit import imprint as I
from audit import rules as A

SMALL = dict(p=11, d_model=16, d_mlp=32, frac=0.6, epochs=60, eval_every=10, threads=1, quiet=True, log_updates=True)


def test_qk_stop_turns_the_penalty_off_from_its_epoch_and_changes_the_run_only_from_there():
    on = train.train(train.make_config(**SMALL, qk_penalty=0.1))[1]
    off = train.train(train.make_config(**SMALL, qk_penalty=0.1, qk_stop=25))[1]
    plain = train.train(train.make_config(**SMALL))[1]
    assert on["test_loss"][:3] == off["test_loss"][:3] and on["test_loss"][3:] != off["test_loss"][3:]
    assert off["test_loss"][1] != plain["test_loss"][1]         # the penalty acted before its stop
    with pytest.raises(ValueError, match="qk-stop"):
        train.validate(train.make_config(qk_penalty=0.1, qk_stop=0))


def _parents(tmp_path, seed=0):
    """The two parents' configs at the small scale (switching at epoch 20) and their checkpoints at 20."""
    cfgs = {p: train.make_config(**SMALL, seed=seed, **ch) for p, ch in
            {"lambda 0": {}, I.OFF: {"lam": 0.3, "prior": "uniform", "prior_stop": 20}}.items()}
    paths = {p: I.prefix_checkpoint(c, str(tmp_path / f"prefix_{i}"), epoch=20) for i, (p, c) in enumerate(cfgs.items())}
    return cfgs, paths


def _child(cfg, transplant, tmp_path, base_path, donor_path, names):
    c = train.make_config(**{**vars(cfg), "transplant": transplant})
    c.out = str(tmp_path / transplant)
    I.compose(c, base_path, donor_path, names, f"{c.out}/checkpoint.pt")
    return train.train(c)


def test_a_transplant_of_nothing_is_the_parent_and_of_everything_the_donor(tmp_path):
    """The composed checkpoint resumes bitwise: moving no weights gives the base parent's run, moving every
    group (weights and AdamW moments) gives the donor's run after the switch (the two are one computation
    from there on: the uniform KL is off)."""
    cfgs, paths = _parents(tmp_path)
    whole = {p: train.train(c)[1] for p, c in cfgs.items()}
    summary, nothing = _child(cfgs["lambda 0"], "none", tmp_path, paths["lambda 0"], paths[I.OFF], ())
    assert nothing["test_loss"] == whole["lambda 0"]["test_loss"] and nothing["attn_norm"] == whole["lambda 0"]["attn_norm"]
    assert summary["resumed_at"] == [20]
    every = [n for g in I.GROUPS.values() for n in g]
    _, all_ = _child(cfgs["lambda 0"], "all", tmp_path, paths["lambda 0"], paths[I.OFF], every)
    after = whole[I.OFF]["epoch"].index(20)
    assert all_["test_loss"][after:] == whole[I.OFF]["test_loss"][after:]
    assert all_["test_loss"][:after] == whole["lambda 0"]["test_loss"][:after]      # the log before is the base's
    _, mlp = _child(cfgs["lambda 0"], "mlp", tmp_path, paths["lambda 0"], paths[I.OFF], I.GROUPS["MLP"])
    assert mlp["test_loss"][after:] not in (whole["lambda 0"]["test_loss"][after:], whole[I.OFF]["test_loss"][after:])


def test_the_groups_cover_every_parameter_once_and_a_transplant_moves_its_moments(tmp_path):
    import torch
    names = [n for g in I.GROUPS.values() for n in g]
    _, model = train.build_run(train.make_config(**SMALL), torch.device("cpu"))
    assert sorted(names) == sorted(n for n, _ in model.named_parameters())
    cfgs, paths = _parents(tmp_path)
    c = train.make_config(**{**vars(cfgs["lambda 0"]), "transplant": "qk"})
    I.compose(c, paths["lambda 0"], paths[I.OFF], I.GROUPS["W_Q W_K"], str(tmp_path / "qk.pt"))
    got, base, donor = (torch.load(p) for p in (tmp_path / "qk.pt", paths["lambda 0"], paths[I.OFF]))
    index = I.param_index(c)
    for n in names:
        src = donor if n in I.GROUPS["W_Q W_K"] else base
        assert torch.equal(got["model"][n], src["model"][n])
        assert torch.equal(got["opt"]["state"][index[n]]["exp_avg_sq"], src["opt"]["state"][index[n]]["exp_avg_sq"])
    assert not torch.equal(base["model"]["W_Q"], donor["model"]["W_Q"])        # the parents differ there
    other = train.make_config(**{**SMALL, "seed": 1})
    other_path = I.prefix_checkpoint(other, str(tmp_path / "other"), epoch=20)
    with pytest.raises(ValueError, match="same distractors"):
        I.compose(c, paths["lambda 0"], other_path, (), str(tmp_path / "x.pt"))
    with pytest.raises(ValueError, match="--transplant: no checkpoint"):
        bare = train.make_config(**{**SMALL, "transplant": "qk"})
        bare.out = str(tmp_path / "empty")
        train.train(bare)


def test_a_transplants_key_names_it_and_the_parents_keys_are_the_study_arms():
    args = I.parse([])
    keys = {arm: store.run_key(I.transplant_config(args, 400, arm)) for arm in I.CHILDREN}
    assert len(set(keys.values())) == 10
    assert "transplant=mlp_from_uniform_off200_at200" in keys["lambda 0 + MLP of uniform off 200"]
    assert "prior_stop=200" in keys["uniform off 200 + W_Q W_K of lambda 0"]
    first = dict(I.seed_runs(args, 400, True, 0.01))
    assert store.run_key(first["q1/lambda 0/seed400"]) == "add_p113_fresh_log_updates=True_seed400_e10000_stop200"
    assert store.run_key(first["q3/QK penalty to 200/seed400"]).startswith("add_p113_fresh_log_updates=True_qk_penalty=0.01_qk_stop=200")
    assert store.run_key(first["q1/oracle pad/seed400"]) == \
        "add_p113_fresh_distractor_vocab=pad_lam=0.3_log_updates=True_seed400_e10000_stop200"
    assert {c.epochs for _, c in I.pilot_runs(args, 0.01) + I.pilot_target_runs(args)} == {200}   # 200 epochs, as registered
    assert {c.seed for _, c in I.pilot_runs(args, 0.01)} == {390, 391, 392}
    assert len(I.seed_runs(args, 430, False)) == 6 and I.seed_runs(args, 430, False, part="transplants") == []
    first_transplant = next(i for i, (label, _) in enumerate(I.planned_runs(args)) if "+" in label)
    assert all("+" not in label for label, _ in I.planned_runs(args)[:first_transplant])
    assert sum("q1/" in label for label, _ in I.planned_runs(args)[:first_transplant]) == 240


def test_the_interaction_is_the_log_ratio_difference_with_censoring_as_bounds():
    t = {"oracle": {0: 2000, 1: None, 2: None, 3: 1000}, "uniform": {0: 1000, 1: 1000, 2: None, 3: 1000},
         "oracle pad": {0: 1500, 1: 1500, 2: 1500, 3: None}, "uniform pad": {0: 1500, 1: 1500, 2: 1500, 3: 1000}}
    effects, bounds, seeds, left = I.interaction(t, 10000)
    assert seeds == [0, 1, 3] and left == [2]      # seed 2: a + term (oracle) and a - term (uniform) censored
    assert math.isclose(effects[0], math.log(2)) and bounds[0] == 0
    assert math.isclose(effects[1], math.log(10)) and bounds[1] == +1   # only a + term censored: a lower bound
    assert math.isclose(effects[2], math.log(0.1)) and bounds[2] == -1  # only a - term (oracle pad): an upper bound
    t["uniform"][2] = 1000
    t["oracle"][3] = 5000
    effects, bounds, seeds, left = I.interaction(t, 10000)
    assert seeds == [0, 1, 2, 3] and bounds == [0, 1, 1, -1]
    assert math.isclose(effects[3], math.log(5000 / 1000) - math.log(10000 / 1000))


def _verdict(verdict, ci):
    return {"verdict": verdict, "ci": ci}


@pytest.mark.parametrize("ci, pad, reading", [
    ((0.25, 0.5), A.INCONCLUSIVE, "noise"), ((0.25, 0.5), A.REPRODUCED, "both: noise and target form"),
    ((0.05, 0.2), A.REPRODUCED, "both: noise and target form"), ((-0.1, 0.2), A.REPRODUCED, "target form"),
    ((-0.1, 0.2), A.NOT_REPRODUCED, "neither shown"), ((-0.1, 0.3), A.REPRODUCED, "not told"),
    ((0.1, 0.3), A.INCONCLUSIVE, "not told")])
def test_q1_reading(ci, pad, reading):
    i = {"verdict": A.REPRODUCED if ci[0] > math.log(1.25) else A.INCONCLUSIVE, "ci": ci,
         "inside": -math.log(1.25) < ci[0] and ci[1] < math.log(1.25), "clear": ci[0] > 0}
    assert I.q1_reading({"interaction": i, "uniform pad faster than oracle pad": {"verdict": pad}}) == reading


def test_q1_judged_on_simulated_truths_reads_them_at_many_seeds():
    """At 400 seeds the rule names each of its truths (the power tables at 40 say how often at the study's size)."""
    import numpy as np
    rng = np.random.default_rng(1)
    for truth in ("noise", "target form"):
        assert I.q1_reading(I.judge_q1(I.simulate_q1(rng, truth, 400), I.BUDGET)) == truth


def test_q2_reading():
    r = lambda **v: {"T1": {"verdict": A.REPRODUCED, "ci": [0.3, 0.5]},
                     **{f"{g} {w}": {"verdict": v.get(f"{g} {w}", A.INCONCLUSIVE)} for g in I.GROUPS for w in ("carries", "removes")}}
    assert I.q2_reading(r()) == "no single group"
    assert I.q2_reading(r(**{"MLP carries": A.REPRODUCED, "MLP removes": A.REPRODUCED})) == "it lives in MLP"
    both = {f"{g} {w}": A.REPRODUCED for g in ("W_Q W_K", "MLP") for w in ("carries", "removes")}
    assert I.q2_reading(r(**both)) == "more than one: W_Q W_K, MLP"
    assert I.q2_reading(r(**{"MLP carries": A.REPRODUCED, "embeddings removes": A.REPRODUCED})) == \
        "MLP suffices, not alone needed; embeddings needed, not enough alone"
    judged = r(**both)
    judged["T1"] = {"verdict": A.INCONCLUSIVE, "ci": [-0.01, 0.5]}
    assert I.q2_reading(judged) == "no effect to carry on these seeds"


def test_q3_reading():
    r = lambda a, b: I.q3_reading({"QK faster than lambda 0": {"verdict": a}, "uniform off faster than QK": {"verdict": b}})
    assert r(A.REPRODUCED, A.NOT_REPRODUCED) == r(A.REPRODUCED, A.INCONCLUSIVE) == "fits"
    assert r(A.REPRODUCED, A.REPRODUCED).startswith("part of it")
    assert r(A.NOT_REPRODUCED, A.INCONCLUSIVE) == "ruled out" and r(A.INCONCLUSIVE, A.NOT_REPRODUCED) == "not told"


def test_the_pilots_bisection_finds_the_strength_that_matches_the_norm():
    """On a norm that falls with c (30 / (1 + 20 c)), the rule lands within its grid's step of the c that
    gives the target, and reports each c it tried."""
    norm = lambda c: 30 / (1 + 20 * c)
    c, tried = I.bisect(norm, 20.0)
    assert len(tried) == I.PILOT["steps"] and abs(math.log(c / 0.025)) < math.log(1e4) / 2 ** I.PILOT["steps"] * 2
    assert c in tried and all(abs(math.log(norm(c) / 20)) <= abs(math.log(v / 20)) for v in tried.values())


def test_the_registered_power_tables_are_what_the_code_computes():
    """docs/registered/imprint.md's tables at the study's seeds, recomputed (fixed seed)."""
    text = open("docs/registered/imprint.md").read()
    for name, fn, ns in I.POWER_ROWS:
        n = ns[-1]
        assert I.power_table(fn(n, scale=1.0), n) in text, name


def test_summary_waits_for_every_run_of_a_question():
    s = I.summarize({}, I.BUDGET)
    assert s["Q1"]["reading"] == s["Q2"]["reading"] == "not decided" and s["Q3"]["reading"].startswith("not decided")
    assert any(line.startswith("- Q1: reading") for line in I.markdown(s))

def test_prepare_transplants_composes_each_child_once_and_keeps_a_later_checkpoint(tmp_path):
    """At --quick scale: every transplant of a seed gets its composed checkpoint at epoch 200 in its run folder;
    a second call leaves a child's own (later) checkpoint as it is."""
    import os
    import runfolder
    args = I.parse(["--quick", "--runs-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res"), "--threads", "1"])
    runs = I.seed_runs(args, 0, True, I.QUICK_C, "transplants")
    I.prepare_transplants(args, 0, runs)
    paths = [runfolder.checkpoint_path(os.path.join(args.runs_dir, store.run_key(c))) for _, c in runs]
    assert len(paths) == 10 and all(os.path.exists(p) for p in paths)
    import torch
    assert {torch.load(p)["epoch"] for p in paths} == {200}
    open(paths[0], "wb").write(b"a later checkpoint")
    I.prepare_transplants(args, 0, runs)
    assert open(paths[0], "rb").read() == b"a later checkpoint"


def test_the_machine_check_reads_q2_against_the_transplants_of_nothing():
    """Amendment 1: where the children's machine ran everything 1.6x slower than the parents' (a transplant of
    nothing 1.6x slower than its parent), Q2 read against the parents misreads it, and read against the
    transplants of nothing finds the MLP; the machine's effect is measured, and the check that each seed's
    children and nulls share a CPU fails when one does not."""
    seeds = list(range(8))
    lam0 = {s: 4000 * (1 + 0.07 * s) for s in seeds}
    off = {s: lam0[s] / 1.8 for s in seeds}
    slow = 1.6
    t = {"lambda 0": lam0, I.OFF: off, "lambda 0 + nothing": {s: v * slow for s, v in lam0.items()},
         f"{I.OFF} + nothing": {s: v * slow for s, v in off.items()}}
    for g in I.GROUPS:
        t[I.child("lambda 0", g)] = {s: (off[s] if g == "MLP" else lam0[s]) * slow for s in seeds}
        t[I.child(I.OFF, g)] = {s: (lam0[s] if g == "MLP" else off[s]) * slow for s in seeds}
    t = {a: {s: round(v * (1 + 0.01 * ((s * 7 + len(a)) % 5))) for s, v in d.items()} for a, d in t.items()}
    judged, machine = I.judge_q2_same_machine(t, I.BUDGET)
    assert I.q2_reading(judged) == "it lives in MLP"
    assert I.q2_reading(I.judge_q2(t, I.BUDGET)) != "it lives in MLP"
    assert all(abs(math.exp(v["estimate"]) - 1 / slow) < 0.05 for v in machine.values())
    base = {**{a: b for a, (b, _) in I.CHILDREN.items()}, **I.NULLS, "lambda 0": "lambda 0", I.OFF: I.OFF}
    run = lambda time, cpu, start: {"t_95": time, "t_95_held": time, "t_grok": time, "t_mem": 100, "plateau": {},
                                    "attn_norm_switch": 20.0, "cpu": cpu, "log_before_switch": start}
    per_run = {a: {s: run(v, "A" if a in ("lambda 0", I.OFF) else "B", [s, base[a], a in ("lambda 0", I.OFF)])
                   for s, v in d.items()} for a, d in t.items()}
    s = I.summarize(per_run, I.BUDGET, seeds=seeds, seeds_q23=seeds)
    assert s["Q2, same machine"]["reading"] == "it lives in MLP" and s["Q2, same machine"]["test"]
    assert s["Q2, same machine"]["described"] == {"seeds whose stored parents share their children's start": "0/8"}
    machine_lines = [line for line in I.markdown(s) if "the machine, " in line]     # described, never judged
    assert len(machine_lines) == 2 and not any(w in line for line in machine_lines
                                                for w in (A.REPRODUCED, A.NOT_REPRODUCED, A.INCONCLUSIVE))
    per_run["lambda 0 + nothing"][3]["cpu"] = "C"
    s = I.summarize(per_run, I.BUDGET, seeds=seeds, seeds_q23=seeds)
    assert not s["Q2, same machine"]["test"] and "7/8" in str(s["Q2, same machine"]["checks"])
    assert any("a check failed" in line for line in I.markdown(s))
    per_run["lambda 0 + nothing"][3]["cpu"] = "B"
    per_run[I.child(I.OFF, "MLP")][5]["log_before_switch"] = "another start"
    s = I.summarize(per_run, I.BUDGET, seeds=seeds, seeds_q23=seeds)
    assert not s["Q2, same machine"]["test"] and list(s["Q2, same machine"]["checks"].values())[1] == (False, "7/8")
