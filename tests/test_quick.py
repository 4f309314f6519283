"""reproduce.py --quick: every study's quick preset is small and writes under its own name, and the
studies run side by side, two at a time, never two that share a run."""
import argparse
import os

import exp_appendix
import exp_fig3_kl
import reproduce
import store
import sweep
from audit import studies

# what one study's --quick may plan (issue #85; 40,000 epochs 2026-12-02, 16,000 by cost 2026-12-03): small-model
# runs costing at most this many one-block epochs at d = 128 (reproduce.study_runs: a two-block epoch counts 5).
# The small model runs 6-11 ms an epoch here, so even with every run censored a study trains under 3 minutes
QUICK_STUDY_COST = 16000


def test_every_studys_quick_preset_plans_small_runs_within_its_budget():
    """For every study in the registry: the runs its --quick plans are the small model's (the tasks
    modulo p at sweep.QUICK_MODEL's p; the others at their own small sizes, never the paper's p 113),
    and their planned epochs, weighted by cost, add up to at most QUICK_STUDY_COST. A study whose
    --quick trains the paper's runs (as payoff.py's once did: 80 of them) fails."""
    args = argparse.Namespace(quick=True, results_dir="results")
    too_big = {}
    for name in studies.STUDIES:
        module, sargs = reproduce.study_args(name, args)
        cfgs = {store.run_key(c): c for _, c in module.planned_runs(sargs)}.values()
        large = [store.run_key(c) for c in cfgs if c.p != sweep.QUICK_MODEL["p"] and c.task in ("add", "sub", "mul", "addk", "route")]
        cost = reproduce.study_runs(name, args)[1]
        if large or cost > QUICK_STUDY_COST:
            too_big[name] = (cost, large[:2])
    assert not too_big, f"--quick plans paper-scale or long runs: {too_big}"


def test_each_figure_3_studys_quick_look_writes_under_its_own_name():
    """Figure 3's quick looks (one seed, the small model) write under the name their study's command
    asks for, the registry's: the quick report reads each claim from its own study. They once all
    wrote fig3_kl.json, so C3 read whichever variant ran last (a rho 0.003 one) and C3f read nothing."""
    names = {}
    for name, s in studies.STUDIES.items():
        if s.command[0] == "exp_fig3_kl.py":
            for quick in (True, False):
                _, args = reproduce.study_args(name, argparse.Namespace(quick=quick, results_dir="results"))
                assert exp_fig3_kl.summary_stem(args) + ".json" == s.summary, (name, quick)
            names[name] = s.summary
    assert len(set(names.values())) == len(names) >= 6
    assert exp_fig3_kl.summary_stem(exp_fig3_kl.parse(["--quick"])) == "fig3_kl"
    assert exp_fig3_kl.summary_stem(exp_fig3_kl.parse(["--quick", "--lam", "0.3"])) == "fig3_kl_lam0.3"
    # a long grid's quick look leaves out QUICK_SKIPS and keeps its name; a short one keeps every lambda
    _, fixed = reproduce.study_args("fig3_fixed", argparse.Namespace(quick=True, results_dir="results"))
    assert fixed.lam == [0.0, 0.01, 0.03, 0.1, 0.3, 1.0] and fixed.seeds == [0]
    assert exp_fig3_kl.parse(["--quick", "--lam", "0.2"]).lam == [0.2]


def test_a_quick_look_keeps_its_studys_name():
    """Under --quick one seed trains, but the summary keeps the name of the seeds the command asked for
    (sweep.output_seeds_tag): Figure 6-7's variants (other arms, other seeds) once all wrote
    fig6_priors.json under --quick, so the quick report read whichever ran last."""
    for name in ("priors", "priors_plan", "priors_after", "priors_confirm"):
        _, args = reproduce.study_args(name, argparse.Namespace(quick=True, results_dir="results"))
        assert args.seeds == [0]
        assert os.path.basename(exp_appendix.out_path(args, "fig6_priors", "json")) == studies.STUDIES[name].summary


def test_quick_runs_studies_side_by_side_longest_first_and_never_two_that_share_a_run(monkeypatch, capsys):
    """`reproduce.py --quick --jobs 2`: two studies at a time, each on one core (--jobs 1
    --threads 1, its lines printed together when it ends), the longest first; a study that
    shares a run with a running one waits for it (so no run is trained twice); a failed one is
    named. Planted: a, b share a run; c is short; the cores are free for c beside a."""
    import threading
    import time as clock
    plans = {"a": ({"r1", "r2"}, 30.0), "b": ({"r2"}, 20.0), "c": ({"r3"}, 10.0)}
    monkeypatch.setattr(reproduce, "study_runs", lambda name, args: plans[name])
    lock, running, together, seen = threading.Lock(), set(), [], []

    def fake_study(name, args, results):
        assert (args.jobs, args.threads, args.side_by_side) == (1, 1, True)
        with lock:
            running.add(name)
            together.append(set(running))
            seen.append(name)
        clock.sleep(0.2)
        with lock:
            running.discard(name)
        return f"[{name}] done", "", name == "c"
    monkeypatch.setattr(reproduce, "run_study", fake_study)
    failed = reproduce.run_side_by_side(["c", "b", "a"], argparse.Namespace(jobs=2, quick=True), "results")
    assert seen[:2] == ["a", "c"] and seen[2] == "b"           # longest first; b waits for a, not for c
    assert not any({"a", "b"} <= s for s in together) and {"a", "c"} in together
    assert failed == ["c"]
    out = capsys.readouterr().out
    assert "[a] done (" in out and "3/3 studies" in out and "ETA" in out


def test_study_runs_name_a_run_by_its_setting_and_seed_whatever_its_budget():
    """Two studies whose quick presets plan the same setting and seed at different budgets (a
    stored run of one serves the other, store.derived) share a run; other seeds do not."""
    args = argparse.Namespace(quick=True, results_dir="results")
    fig1, _ = reproduce.study_runs("fig1", args)
    seeds, _ = reproduce.study_runs("fig1_seeds0-9", args)
    bound, _ = reproduce.study_runs("bound", args)
    assert fig1 & seeds and fig1 & bound                       # lambda 0, fresh, seed 0: budgets 3000 and 2000
    assert not (fig1 - {("script", "exp_fig1_phases.py")}) & reproduce.study_runs("heldout_fig1", args)[0]  # another regime
    # a script's variants write their quick summary under one name: never two at once
    assert ("script", "exp_fig3_kl.py") in reproduce.study_runs("fig3_fixed", args)[0] & reproduce.study_runs("fig3", args)[0]
    assert not reproduce.study_runs("priors", args)[0] & reproduce.study_runs("routing", args)[0]