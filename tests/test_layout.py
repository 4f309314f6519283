"""The repository's shape (README, "Files"): two tiers, the reference at the top level and the audit
(audit/: the verdicts and the studies beyond the paper) beside it, which the reference never imports;
nothing imports in a cycle, and a figure script copied with
the core and the shared helpers alone runs its --quick preset in an empty folder."""
import ast
import glob
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORE = ["model.py", "model_deep.py", "tasks.py", "tasks_appendix.py", "optim.py", "optim_appendix.py", "diagnostics.py",
        "runfolder.py", "train.py", "config.py", "device.py", "controls.py", "summary.py", "grok_times.py", "analysis.py"]
SHARED = ["sweep.py", "store.py", "plots.py", "extend.py"]
FIGURES = sorted(os.path.basename(f) for f in glob.glob(os.path.join(ROOT, "exp_*.py")))
PACKAGES = ("audit",)
# the audit's studies beyond the paper: each renders its own report lines (audit/report.py lays them out)
STUDIES = ("regime_map", "two_clocks", "choices", "critical", "payoff", "deep", "deep_trained", "information", "plateau",
           "imprint", "data_wall")
ENTRY = ("reproduce.py",)       # the one top-level file that drives both tiers: every study, then the audit's report


def module_name(path):
    rel = os.path.relpath(path, ROOT)[:-len(".py")]
    return rel.replace(os.sep, ".").removesuffix(".__init__")


def imports(path):
    """The repository's modules that a file imports (top-level and inside functions)."""
    tree = ast.parse(open(path).read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return names


def module_level_imports(path):
    """The repository's files a file needs to load: its imports at module level (an import inside a
    function, as train.py's of controls.py and model_deep.py, runs only when a run asks for it)."""
    found = set()
    for node in ast.parse(open(path).read()).body:
        for n in ast.walk(node) if isinstance(node, (ast.If, ast.Try)) else [node]:
            if isinstance(n, ast.Import):
                found |= {a.name for a in n.names}
            elif isinstance(n, ast.ImportFrom) and n.module:
                found |= {n.module} | {f"{n.module}.{a.name}" for a in n.names}
    files = {m.replace(".", os.sep) + ".py" for m in found} | {m.replace(".", os.sep) + "/__init__.py" for m in found}
    return {f for f in files if os.path.exists(os.path.join(ROOT, f))}


def copy_budget(start):
    """(the files a copy of `start` needs, sorted; their lines in all)."""
    needed, todo = set(), [start]
    while todo:
        f = todo.pop()
        if f not in needed:
            needed.add(f)
            todo += module_level_imports(os.path.join(ROOT, f))
    return sorted(needed), sum(len(open(os.path.join(ROOT, f)).readlines()) for f in needed)


def repo_modules():
    files = glob.glob(os.path.join(ROOT, "*.py")) + [f for p in PACKAGES for f in glob.glob(os.path.join(ROOT, p, "*.py"))]
    return {module_name(f): f for f in files}


def test_the_core_and_the_figure_scripts_import_no_verdict_code():
    assert FIGURES and "exp_appendix.py" in FIGURES
    for f in CORE + SHARED + FIGURES:
        bad = [n for n in imports(os.path.join(ROOT, f)) if n.split(".")[0] in PACKAGES + ("report", "studies")]
        assert not bad, f"{f} imports {bad}: a figure or core file draws its runs, never a verdict"
    for f in CORE:      # the core copies alone: it imports the core only
        own = {n.split(".")[0] for n in imports(os.path.join(ROOT, f))} & set(repo_modules())
        assert own <= {c[:-3] for c in CORE}, f"{f} imports {own}"


def test_no_import_cycles():
    mods = repo_modules()
    graph = {m: {n for n in imports(f) if n in mods and n != m} for m, f in mods.items()}
    state = {}

    def visit(m, path):
        state[m] = "open"
        for n in graph[m]:
            assert state.get(n) != "open", f"import cycle: {' -> '.join(path + [m, n])}"
            if n not in state:
                visit(n, path + [m])
        state[m] = "done"
    for m in graph:
        if m not in state:
            visit(m, [])
    # the mutant: a cycle is found when there is one
    graph["model"] = graph["model"] | {"train"}
    state.clear()
    try:
        visit("train", [])
    except AssertionError as e:
        assert "import cycle" in str(e)
    else:
        raise AssertionError("the cycle check missed a cycle")


def test_a_copied_figure_script_runs_its_quick_preset_alone(tmp_path):
    """exp_fig3_kl.py with what it imports at module level (at most 2,500 lines in all), and nothing
    else, in an empty folder: --quick at one lambda trains, and writes its summary and figure."""
    needs, lines = copy_budget("exp_fig3_kl.py")
    assert lines <= 2500, f"exp_fig3_kl.py with what it imports is {lines} lines: {needs}"
    for f in needs:
        shutil.copy(os.path.join(ROOT, f), tmp_path / f)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "exp_fig3_kl.py", "--quick", "--lam", "0.3", "--threads", "1"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "results" / "quick" / "fig3_kl_lam0.3.json").exists()     # named by the lambda asked for
    assert (tmp_path / "results" / "quick" / "fig3_kl_lam0.3.png").exists()
    assert "grok epoch per seed" in done.stdout


def test_no_source_file_is_over_800_lines():
    """Issue #96: a file a reader opens reads in one sitting (the reference and the audit alike)."""
    long = {m: n for m, f in repo_modules().items() if (n := len(open(f).readlines())) > 800}
    assert not long, f"over 800 lines: {long}"


def test_each_study_renders_its_own_lines_and_nothing_strips_markdown():
    """No study imports audit/report.py or audit/readme.py (a study renders its own lines; the report lays
    them out), and no code strips the project's own markdown after the fact: a verdict renders
    itself bold or plain (rules.describe(v, bold=False))."""
    assert all(os.path.exists(os.path.join(ROOT, "audit", f"{m}.py")) for m in STUDIES)
    for f in (os.path.join(ROOT, "audit", f"{m}.py") for m in STUDIES):
        bad = [n for n in imports(f) if n in ("audit.report", "audit.readme") or n.startswith(("audit.report.", "audit.readme."))]
        assert not bad, f"{f} imports {bad}"
    for f in repo_modules().values():
        source = open(f).read()
        assert ".replace(\"**\", \"\")" not in source and ".replace('**', '')" not in source, f


def test_the_reference_never_imports_the_audit():
    """Two tiers that depend one way: no top-level file but the entry point imports the audit, at any level
    (inside a function too), and loading train, model and a figure script loads nothing of it."""
    for f in glob.glob(os.path.join(ROOT, "*.py")):
        if os.path.basename(f) not in ENTRY:
            bad = [n for n in imports(f) if n.split(".")[0] in PACKAGES]
            assert not bad, f"{os.path.basename(f)} imports {bad}"
    probe = "import sys, train, model, exp_fig3_kl; print(sorted(m for m in sys.modules if m.split('.')[0] == 'audit'))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr[-500:]
