"""End to end: the command line, run folders, and a small run where the prior must help."""
import json
import os
import subprocess
import sys

import pytest
import torch

import train

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TINY = ["--p", "7", "--frac", "0.5", "--epochs", "20", "--d-model", "8", "--d-mlp", "16", "--threads", "1"]


def run_cli(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "train.py"), *args],
                          capture_output=True, text=True, cwd=ROOT)


def run_main(*args):
    """train.main in this process (no interpreter to start): its exit message, None if it
    returned. --threads would change this process's thread count: restored after."""
    threads = torch.get_num_threads()
    try:
        train.main(list(args))
    except SystemExit as e:
        return e.code
    finally:
        torch.set_num_threads(threads)


def test_cli_writes_summary_and_history(tmp_path, capsys):
    out = tmp_path / "run"
    r = run_cli(*TINY, "--lam", "0.1", "--out", str(out), "--print-every", "0")
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text())
    h = json.loads((out / "history.json").read_text())
    for key in ("config", "grok_epoch", "mem_epoch", "struct_epoch", "final_train_acc", "final_test_acc",
                "epochs_run", "wall_s", "ms_per_epoch"):
        assert key in s
    assert s["config"]["lam"] == 0.1 and s["epochs_run"] == 20
    assert h["epoch"] == list(range(0, 21, 10))
    assert all(len(v) == len(h["epoch"]) for v in h.values())
    assert not [f for f in os.listdir(out) if f.endswith(".tmp")]
    # the same command again trains nothing and leaves the files alone
    mtime = (out / "summary.json").stat().st_mtime_ns
    assert run_main(*TINY, "--lam", "0.1", "--out", str(out), "--print-every", "0") is None
    assert "already holds" in capsys.readouterr().out
    assert (out / "summary.json").stat().st_mtime_ns == mtime


@pytest.mark.parametrize("args,msg", [(["--task", "div"], "unknown task"), (["--p", "2"], "--p"),
                                      (["--frac", "1.5"], "--frac"), (["--lam", "-1"], "--lam"),
                                      (["--prior", "flat"], "unknown prior"),
                                      (["--distractors", "refresh"], "--refresh"),
                                      (["--optimizer", "lion", "--beta2", "0.98"], "--beta2")])
def test_bad_input_is_one_line_error(args, msg):
    """train.main exits with a one-line message (Python prints a string exit code as it is, on
    stderr, with status 1); the first case runs the real command to check what a user sees."""
    if args == ["--task", "div"]:
        r = run_cli(*TINY, *args)
        assert r.returncode != 0
        lines = r.stderr.strip().splitlines()
    else:
        message = run_main(*TINY, *args)
        assert isinstance(message, str)
        lines = message.splitlines()
    assert len(lines) == 1 and msg in lines[0] and lines[0].startswith("error:")


def test_make_config_is_the_parsers_defaults_and_configs_share_nothing():
    """train.make_config parses the defaults; store.make_config parses them once and copies
    them: equal to a fresh parse, and safe only because every default is an immutable scalar
    (a list default would be shared)."""
    import store
    fresh = vars(train.get_parser().parse_args([]))
    assert vars(train.make_config()) == fresh and vars(store.make_config()) == fresh
    assert all(v is None or isinstance(v, (bool, int, float, str)) for v in fresh.values())
    for make in (train.make_config, store.make_config):
        a = make(lam=0.3)
        a.seed = 7
        assert make().lam == fresh["lam"] and make().seed == fresh["seed"]
        assert vars(make(lam=0.3, seed=7)) == vars(a)
        with pytest.raises(ValueError, match="unknown config key"):
            make(lamda=1)


def test_existing_out_with_another_config_is_refused(tmp_path):
    out = tmp_path / "run"
    assert run_main(*TINY, "--out", str(out), "--print-every", "0") is None
    before = (out / "summary.json").read_bytes(), (out / "history.json").read_bytes()
    message = run_main(*TINY, "--lam", "0.5", "--out", str(out))
    assert isinstance(message, str) and "another config" in message and "lam" in message
    assert len(message.strip().splitlines()) == 1
    assert ((out / "summary.json").read_bytes(), (out / "history.json").read_bytes()) == before


def test_kl_prior_generalizes_well_before_the_baseline():
    """Tiny p = 31 with fixed distractors: the oracle prior reaches 80% test accuracy while
    the lambda = 0 run is still near chance (measured: 1190 epochs vs < 3% at 3000)."""
    kw = dict(p=31, frac=0.5, d_model=32, d_mlp=64, lr=3e-3, epochs=1500, grok_acc=0.8, distractors="fixed",
              quiet=True, threads=1)
    kl, _ = train.train(train.make_config(lam=1.0, **kw))
    base, base_hist = train.train(train.make_config(lam=0.0, **kw))
    assert kl["grok_epoch"] is not None and kl["grok_epoch"] <= 1500
    assert base["grok_epoch"] is None and max(base_hist["test_acc"]) < 0.2


def test_bench_quick_prints_both_implementations(capsys):
    import bench
    bench.main(["--quick", "--threads", "1"])
    out = capsys.readouterr().out
    for label in ("query-only (train.py)", "conventional", "speed-up", "--amp bf16", "2 blocks, LayerNorm: train.py"):
        assert label in out


def test_bench_times_the_same_model_both_ways():
    """The conventional model bench.py times has the parameters of the one train.py trains (the
    minimal model, and two pre-LN blocks with LayerNorm): the same model, written two ways."""
    import bench
    for kw in ({}, {"n_layers": 2, "layernorm": True}, {"d_model": 128, "n_heads": 4, "d_mlp": 512}):
        cfg = train.make_config(p=23, **kw)
        task, ours = train.build_run(cfg, torch.device("cpu"))
        conv = bench.ConventionalTransformer(task.vocab_size, task.n_classes, task.seq_len, cfg.d_model, cfg.n_heads,
                                             cfg.d_mlp, cfg.n_layers, cfg.layernorm)
        count = lambda m: sum(p.numel() for p in m.parameters())
        assert count(conv) == count(ours), kw


def test_readme_names_only_code_that_exists():
    """Every `module.name` the README points a reader to (the formula map, the file table,
    the text, and the pages of docs/ but the frozen registrations) names a function or constant that exists, and
    every file in its file table is in the repository: the map from paper to code stays true
    when code moves."""
    import importlib
    import re
    readme = open(os.path.join(ROOT, "README.md")).read()
    # a registration is frozen when committed: the code it names is as of its date (the README's map is current)
    pages = "".join(open(os.path.join(d, f)).read() for d, _, fs in sorted(os.walk(os.path.join(ROOT, "docs")))
                    for f in sorted(fs) if f.endswith(".md") and os.path.basename(d) != "registered")
    modules = {f[:-3] for f in os.listdir(ROOT) if f.endswith(".py")} | {"audit"}
    missing = []
    for ref in sorted(set(re.findall(r"`([a-z_0-9]+(?:\.[A-Za-z_][A-Za-z_0-9]*)+)", readme + pages))):
        mod, *attrs = ref.split(".")
        if mod not in modules or attrs == ["py"]:
            continue
        if mod in ("audit",) and attrs:          # a package: its module, then the name in it
            mod, attrs = f"{mod}.{attrs[0]}", attrs[1:]
            if not os.path.exists(os.path.join(ROOT, *mod.split(".")) + ".py"):
                missing.append(ref)
                continue
        obj = importlib.import_module(mod)
        for a in attrs:
            if not hasattr(obj, a):
                missing.append(ref)
                break
            obj = getattr(obj, a)
    files = re.findall(r"^\| `([\w/.]+\.(?:py|md))` \|", readme, flags=re.M)
    assert files, "the README's file table was not found"
    missing += [f for f in files if not os.path.exists(os.path.join(ROOT, f))]
    links = re.findall(r"\]\(((?:docs/)?[\w./-]+\.(?:md|png))\)", readme)
    missing += [f for f in links if not os.path.exists(os.path.join(ROOT, f)) and "results/" not in f]
    assert not missing, f"README names code or pages that do not exist: {missing}"


def test_train_py_copies_with_only_the_files_it_trains(tmp_path):
    """train.py with what it imports at module level (at most 1,500 lines in all), and nothing else
    of the repository (no controls.py, model_deep.py, tasks_appendix.py or optim_appendix.py, which a
    run loads only when it asks for them; no sweep or store), trains and writes its run folder."""
    import shutil
    from tests.test_layout import copy_budget
    needs, lines = copy_budget("train.py")
    assert lines <= 1500, f"train.py with what it imports is {lines} lines: {needs}"
    assert not {"controls.py", "model_deep.py", "tasks_appendix.py", "optim_appendix.py", "store.py", "sweep.py",
                "analysis.py"} & set(needs), needs
    for f in needs:
        shutil.copy(os.path.join(ROOT, f), tmp_path / f)
    r = subprocess.run([sys.executable, "train.py", *TINY, "--out", "run", "--print-every", "0"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["epochs_run"] == 20
    assert (tmp_path / "run" / "final.pt").exists()
    alone = tmp_path / "model_alone"                     # model.py needs torch and nothing else
    alone.mkdir()
    shutil.copy(os.path.join(ROOT, "model.py"), alone / "model.py")
    r = subprocess.run([sys.executable, "-c", "import torch, model; m = model.Transformer(10, 7, 4); "
                        "print(tuple(m(torch.zeros(3, 4, dtype=torch.long))[0].shape))"],
                       capture_output=True, text=True, cwd=alone)
    assert r.returncode == 0 and r.stdout.strip() == "(3, 7)", r.stderr
    for f, code, want in (("tasks.py", "import tasks; t = tasks.make_task('add', p=7); print(t.train_x.shape[1])", "5"),
                          ("optim.py", "import torch, optim; m = torch.nn.Linear(2, 2); "
                           "print(type(optim.build_optimizer(m, 'sgd')).__name__)", "SGD")):
        alone = tmp_path / f"{f[:-3]}_alone"             # tasks.py and optim.py copy alone too
        alone.mkdir()
        shutil.copy(os.path.join(ROOT, f), alone / f)
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=alone)
        assert r.returncode == 0 and r.stdout.strip() == want, r.stderr
    deep = tmp_path / "model_deep_alone"                 # and so does model_deep.py
    deep.mkdir()
    shutil.copy(os.path.join(ROOT, "model_deep.py"), deep / "model_deep.py")
    r = subprocess.run([sys.executable, "-c", "import torch, model_deep; m = model_deep.DeepTransformer(10, 7, 4); "
                        "x = torch.zeros(3, 4, dtype=torch.long); print(tuple(m.run(x)['logits'].shape), "
                        "tuple(m(x)[0].shape))"], capture_output=True, text=True, cwd=deep)
    assert r.returncode == 0 and r.stdout.strip() == "(3, 7) (3, 7)", r.stderr


def test_every_relative_link_in_the_pages_resolves():
    """README.md, docs/ and docs/registered/: a page moved or renamed leaves no dead link, inline or by
    reference ([label]: target), and no reference label goes undefined."""
    import re
    pages = ["README.md"] + [os.path.relpath(os.path.join(d, f), ROOT) for d, _, fs in os.walk(os.path.join(ROOT, "docs"))
                             for f in fs if f.endswith(".md")]
    dead = []
    for page in pages:
        text = re.sub(r"```.*?```", "", open(os.path.join(ROOT, page)).read(), flags=re.S)
        inline = re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", text)
        defined = re.findall(r"^\[[^\]]+\]: ([^\s#]+)", text, flags=re.M)        # reference links: [label]: target
        labels = set(re.findall(r"^\[([^\]]+)\]: ", text, flags=re.M))
        prose = re.sub(r"`[^`\n]*`", "", text)
        used = re.findall(r"\]\[([^\]]+)\]", prose) + re.findall(r"\[([\w.-]+\.md)\](?![(:\[])", prose)
        dead += [f"{page}: [{label}] is never defined" for label in used if label not in labels]
        for target in inline + defined:
            if "://" in target:
                continue
            if not os.path.exists(os.path.join(ROOT, os.path.dirname(page), target)):
                dead.append(f"{page}: {target}")
    assert not dead, f"dead links: {dead}"


def test_bench_bf16_grok_trains_both_precisions_into_the_store_and_tables_them(tmp_path, capsys):
    """bench.py --bf16-grok: per seed a float32 and a bf16-autocast run of one config, keyed apart in
    the store, and the table reads each run's own grokking epoch."""
    import bench
    got = bench.main(["--bf16-grok", "0", "--quick", "--threads", "1", "--results-dir", str(tmp_path),
                      "--runs-dir", str(tmp_path / "runs")])
    fp32, bf16 = got["off_seed0"][0], got["bf16_seed0"][0]
    assert fp32["config"]["amp"] == "off" and bf16["config"]["amp"] == "bf16" and fp32["precision"] != bf16["precision"]
    keys = sorted(f for f in os.listdir(tmp_path / "quick" / "store") if f.endswith(".json.gz"))
    assert len(keys) == 2 and any("amp=bf16" in k for k in keys)
    row = (tmp_path / "quick" / "bench_bf16_grok.txt").read_text().splitlines()[2].split()
    assert row == ["0", str(fp32["grok_epoch"]), str(bf16["grok_epoch"])] + row[3:]


def test_the_bf16_table_in_running_md_is_the_stored_measurement():
    """docs/running.md's bf16 table restates results/bench_bf16_grok.txt (bench.py --bf16-grok)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rows = open(os.path.join(root, "results", "bench_bf16_grok.txt")).read().splitlines()[2:-1]
    doc = open(os.path.join(root, "docs", "running.md")).read()
    assert len(rows) == 5
    for row in rows:
        seed, fp32, bf16, ratio = row.split()
        assert f"| {seed} | {int(fp32):,} | {int(bf16):,} | {float(ratio):.2f} |" in doc, row