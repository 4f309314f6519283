"""The after-data rule from dates (rules v4, docs/stats.md, "After-data choices"; by dates since
2026-12-03): every choice a verdict depends on carries the date it was made, every stored run the
date it was stored, and a part decides only on runs stored after each of its choices.

  CHOICES        every threshold, band, margin, premise marking, window, seed addition and reading
                 the verdicts use: its value, whose it is (ours or the paper's), its commit and date,
                 and the parts it judges (`applies`); docs/stats.md's threshold table is made from it
  choices_for    the choices one part depends on
  store_dates    {store key: the date its file was first committed}, from git (renames followed)
  late_choice    the latest of a part's choices made on or after the first run it reads, or None

The dates of the runs are kept beside the store in results/run_dates.json (written by `python
reproduce.py --dates` from git), so that a checkout without history judges the same; a test compares
them with git where history exists. audit/claims.py applies the rule to every part. No torch.
"""
import collections
import functools
import json
import os
import subprocess

# A choice: key, what was chosen, its value, "ours" or "the paper's", the commit that made it and its
# date (ISO, UTC), the parts it judges (applies(claim, label, study) -> bool: a part's label, and the registry
# study it was judged on), and where
# runs made after it were registered to confirm or decide it (a registry study, or None)
Choice = collections.namedtuple("Choice", "key what value whose commit date applies confirm")

RUN_DATES = "run_dates.json"
STORE_IMPORT = "b756d52"      # 2026-11-23: the per-study stores moved into results/store (renames followed)


def _has(*words):
    return lambda claim, label, study=None: any(w in label for w in words)


def _claim(c, *words):
    return lambda claim, label, study=None: claim == c and (not words or any(w in label for w in words))


SPEEDUP = ("faster", "removes the plateau")
LAW = ("~ 1/lambda", "~ 1/wd")
PROPERTY = ("four phases", "heads meet B_tau", "starves the attention gradient", "contracts on the plateau",
            "plateau >= Eq. 5's bound")
CHOICES = (
    Choice("phases", "C1's four phases: the regime map's registered criterion (docs/registered/regime_map.md)",
           "memorize; the gradient collapses 10x; condense before test accuracy 0.5; grok", "ours", "416da85",
           "2026-11-22T11:25:16+00:00", _claim("C1", "four phases"), None),
    Choice("majority", "a property counts where its 95% interval over seeds lies above", "1/2 of seeds", "ours",
           "0d9799c", "2026-11-22T11:46:30+00:00", lambda c, label, study=None: any(w in label for w in PROPERTY), None),
    Choice("diffuse", "C1's 'diffuse' line: informative mass at t_mem at most", "0.25 (uniform: 0.2)", "ours",
           "0d9799c", "2026-11-22T11:46:30+00:00", _claim("C1", "diffuse"), None),
    Choice("c2 bands", "C2's bands for the paper's words", "full [0.99, 1.01), partial [3/p, 0.99), chance [0, 3/p)",
           "ours", "0d9799c", "2026-11-22T11:46:30+00:00", _claim("C2"), None),
    Choice("margin", "C4's non-inferiority margin", "1.25x", "ours", "96d1532", "2026-11-23T18:53:43+00:00",
           _claim("C4"), None),
    Choice("speed-up", "the smallest speed-up that counts", "1.25x", "ours", "0e6f865", "2026-11-25T06:08:08+00:00",
           lambda c, label, study=None: any(w in label for w in SPEEDUP) and c != "C4", None),
    Choice("law band", "a law's exponent counts within", "1 +- 0.5, over a room named in advance", "ours (1: the "
           "paper's)", "0e6f865", "2026-11-25T06:08:08+00:00", lambda c, label, study=None: any(w in label for w in LAW),
           None),
    Choice("window", "C5's window: one logged point per", "100 epochs; a violation rate below 1% counts", "ours",
           "0e6f865", "2026-11-25T06:08:08+00:00", _claim("C5", "bound holds"), "bound_after"),
    Choice("c7 gain", "C7's smallest accuracy gain at longer lengths", "+0.05", "ours", "0e6f865",
           "2026-11-25T06:08:08+00:00", _claim("C7", "longer test lengths"), None),
    Choice("c8 tau", "C8's smallest rank correlation", "-Kendall tau +0.20", "ours", "0e6f865",
           "2026-11-25T06:08:08+00:00", _claim("C8", "larger d"), None),
    Choice("c5 drop", "C5's 'far below': the smallest drop of measured/bound", "2x", "ours", "95e1348",
           "2026-11-25T06:19:24+00:00", _claim("C5", "falls after memorization"), "bound_after"),
    Choice("lambda 1", "C3's plateau read at", "lambda = 1 against lambda = 0", "ours", "95e1348",
           "2026-11-25T06:19:24+00:00", _has("removes the plateau"), None),
    Choice("parity premise", "C9 parity's premise marked untestable (no plateau after memorization)", "untestable",
           "ours", "95e1348", "2026-11-25T06:19:24+00:00",
           lambda c, label, study=None: c == "C9" and label.startswith("parity: the bound holds"), "tasks_parity_confirm"),
    Choice("fixed premise", "C11 under `fixed` marked untestable (no run without a prior groks)", "untestable", "ours",
           "95e1348", "2026-11-25T06:19:24+00:00", _claim("C11", "fixed:"), "regime_map_confirm_fixed"),
    Choice("rho 0.001 premise", "C11's Eq. 5 part at rho 0.001 marked untestable (no plateau ends)", "untestable",
           "ours", "82c1131", "2026-11-26T03:18:30+00:00", _claim("C11", "rho 0.001: plateau"), "regime_map_v4plan_rho0.001"),
    Choice("sixth seed", "a sixth seed, added after seeing five (the fifth addendum, docs/plan.md)", "6 seeds", "ours",
           "ad7ea68", "2026-11-28T07:08:10+00:00",
           lambda c, label, study=None: study in ("priors_after", "heldout_fig3_after"), None),
    # the studies beyond the paper: they judge no claim's part (applies: never), and read their choices from here
    Choice("part five premise", "part five: an arm tests an account only if its runs memorize, at least", "0.5 of them",
           "ours", "fa73c1c", "2026-12-02T01:00:19+00:00", lambda c, label, study=None: False, None),
    Choice("part five weak", "part five, amendment 1: the weak arms' strength (its pilot's rule)", "0.03", "ours",
           "5eeacb8", "2026-12-02T01:30:41+00:00", lambda c, label, study=None: False, None),
    Choice("part five gain", "part five, amendment 2: the accuracy gain at the budget that counts", "+0.05", "ours",
           "39ccf02", "2026-12-03T08:14:26+00:00", lambda c, label, study=None: False, None),
    Choice("part five as tested", "part five said as tested: an arm moved 'more' than its reference at", "1.5x", "ours",
           "227e197", "2026-12-04T18:11:20+00:00", lambda c, label, study=None: False, None),
    Choice("part six memorized", "part six, Q1's check: every arm memorizes in at least", "0.5 of its runs", "ours",
           "0d66b04", "2026-12-04T18:32:41+00:00", lambda c, label, study=None: False, None),
    Choice("part six mass", "part six, Q1's check: uniform's distractor mass, redrawn over pad, within", "1.5x",
           "ours", "0d66b04", "2026-12-04T18:32:41+00:00", lambda c, label, study=None: False, None),
    Choice("part six norm", "part six, Q3's check: the QK arm's attention norm at epoch 200 within", "1.1x of uniform's",
           "ours", "0d66b04", "2026-12-04T18:32:41+00:00", lambda c, label, study=None: False, None),
    Choice("part six qk", "part six, Q3: the QK penalty's strength (its pilot's rule)", "0.000124094", "ours", "33ac95b",
           "2026-12-04T18:39:04+00:00", lambda c, label, study=None: False, None),
    Choice("data wall half", "the data wall: an arm's wall where at least, and 'beats' where more than,", "0.5 of its runs "
           "reach 0.95", "ours", "c5f30b0", "2026-12-04T21:27:54+00:00", lambda c, label, study=None: False, None),
    Choice("data wall alpha", "the data wall: 'beats' by Fisher's exact test, one-sided, at", "p < 0.025", "ours",
           "c5f30b0", "2026-12-04T21:27:54+00:00", lambda c, label, study=None: False, None),
    Choice("data wall budget", "the data wall: the budget, the pilot's slowest t_95 at f_p times", "3x (30,000 to 60,000)",
           "ours", "c5f30b0", "2026-12-04T21:27:54+00:00", lambda c, label, study=None: False, None),
)
BY_KEY = {c.key: c for c in CHOICES}


def number(key):
    """A choice's value as the judging code uses it: its first number ("+0.05" -> 0.05, "2x" -> 2.0), so that the
    code reads its thresholds from CHOICES and nowhere else holds them."""
    import re
    return float(re.search(r"[+-]?\d+(?:\.\d+)?", BY_KEY[key].value).group(0))


def bands(key, p):
    """A choice of named bands as the judging code uses it: "full [0.99, 1.01), chance [0, 3/p)" ->
    {"full": (0.99, 1.01), "chance": (0.0, 3 / p)}; a bound "k/p" is k over the task's modulus p."""
    import re
    bound = lambda b: float(b.split("/")[0]) / p if b.endswith("/p") else float(b)
    return {name: (bound(lo), bound(hi)) for name, lo, hi in re.findall(r"(\w+) \[([\d./p]+), ([\d./p]+)\)", BY_KEY[key].value)}


def _value_token(value):
    """What a commit that set a choice must add: the marking's word, or the value's first number (as a float)."""
    import re
    if value == "untestable":
        return "untestable"
    m = re.search(r"\d+(?:\.\d+)?", value)
    return float(m.group(0)) if m else None


def whole_history(root="."):
    """Whether git holds this checkout's whole history (not a shallow clone, not outside git): every check
    against git below needs it, and says "none" without it."""
    shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=root, capture_output=True, text=True)
    return shallow.stdout.strip() == "false"


def table_values(root=".", path="audit/dates.py"):
    """The history of the table's values: [(commit, date, {key: value})], oldest first, each version of this file
    (renames followed) as git holds it, read with ast (the values are string literals); [] without whole history."""
    import ast
    git = lambda *a: subprocess.run(["git", *a], cwd=root, capture_output=True, text=True).stdout
    if not whole_history(root):
        return []                                    # no whole history here: nothing to read
    log = git("log", "--format=%H %cI", "--follow", "--name-only", "--", path).split("\n")
    versions, commit = [], None
    for line in log:
        if " " in line.strip():
            commit, date = line.split()
        elif line.strip() and commit:
            versions.append((commit, date, line.strip()))
            commit = None
    out = []
    for commit, date, name in reversed(versions):
        values = {}
        for node in ast.walk(ast.parse(git("show", f"{commit}:{name}"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Choice" and len(node.args) >= 3:
                try:
                    values[ast.literal_eval(node.args[0])] = ast.literal_eval(node.args[2])
                except ValueError:
                    continue
        out.append((commit, date, values))
    return out


def changed_after(choices=CHOICES, history=None, root="."):
    """The choices whose value the table changed after their dated commit (issue #97: "no later commit changed
    it"): [(key, the commit that changed it, its date)]. history: table_values(root) unless given."""
    import datetime
    when = lambda s: datetime.datetime.fromisoformat(s)
    history = table_values(root) if history is None else history
    out = []
    for c in choices:
        seen = [(commit, date, values[c.key]) for commit, date, values in history if c.key in values]
        for (_, _, before), (commit, date, now) in zip(seen, seen[1:]):
            if now != before and when(date) > when(c.date):
                out.append((c.key, commit[:7], date))
    return out


def verify_choices(choices=CHOICES, root="."):
    """Each choice against git (issue #97): its commit is in the history, its date is that commit's, and the
    commit's diff adds a line holding its value (`_value_token`). [(key, what is wrong)]; None without history."""
    import datetime
    import re
    git = lambda *a: subprocess.run(["git", *a], cwd=root, capture_output=True, text=True)
    if not whole_history(root):
        return None
    wrong = []
    for c in choices:
        shown = git("show", "-s", "--format=%cI", c.commit)
        if shown.returncode:
            wrong.append((c.key, f"commit {c.commit} is not in the history"))
            continue
        when = lambda s: datetime.datetime.fromisoformat(s.strip())
        if when(shown.stdout) != when(c.date):
            wrong.append((c.key, f"dated {c.date}, but {c.commit} is of {shown.stdout.strip()}"))
        added = [l[1:] for l in git("show", "--format=", "-U0", c.commit).stdout.splitlines()
                 if l.startswith("+") and not l.startswith("+++")]
        token = _value_token(c.value)
        if isinstance(token, float):
            found = any(float(x) == token for l in added for x in re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", l))
        else:
            found = token is not None and any(token in l for l in added)
        if not found:
            wrong.append((c.key, f"{c.commit} adds no line with its value {c.value!r}"))
    return wrong


def said(c):
    """A choice as a sentence names it: what, its value (a marking's is the marking), whose, when."""
    return f"{c.what}{'' if c.value == 'untestable' else ' ' + c.value} ({c.whose}, {c.date[:10]})"


def choices_for(claim, label, study=None):
    """The choices one part (its claim, its label, the study it was judged on) depends on, oldest first."""
    return sorted((c for c in CHOICES if c.applies(claim, label, study)), key=lambda c: c.date)


def late_choice(claim, label, first_run, study=None):
    """The latest choice of the part made on or after `first_run` (the date of the first run it reads),
    or None where every choice came before every run."""
    late = [c for c in choices_for(claim, label, study) if first_run is not None and c.date >= first_run]
    return late[-1] if late else None


# ---------------------------------------------------------------------------------------
# The runs' dates, from git

def store_dates(root=".", store="results/store"):
    """{store key: the ISO date its file was first committed}, following renames (the 2026-11-23 move
    of the per-study stores into one): a run's date is when it was first committed anywhere. A file
    the move rewrote (its config's paths changed) takes the earliest date among the files the move
    deleted; None where git has no history (a checkout without it reads results/run_dates.json)."""
    try:
        log = subprocess.run(["git", "log", "--reverse", "-M", "--name-status", "--format=>%H %aI", "--",
                              "*.json.gz"], cwd=root, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    first, deleted_in, commit, date = {}, {}, None, None
    for line in log.splitlines():
        if line.startswith(">"):
            commit, date = line[1:].split()
            continue
        fields = line.split("\t")
        if not fields[0]:
            continue
        if fields[0].startswith("A"):
            first.setdefault(fields[1], (date, commit))
        elif fields[0].startswith("R"):
            first.setdefault(fields[2], first.get(fields[1], (date, commit)))
        elif fields[0].startswith("D"):
            deleted_in.setdefault(commit, []).append(first.get(fields[1], (date, commit))[0])
    out = {}
    for path, (date, commit) in first.items():
        if path.startswith(store + "/") and path.endswith(".json.gz"):
            if commit.startswith(STORE_IMPORT) and deleted_in.get(commit):     # rewritten by the move
                date = min(deleted_in[commit])
            out[os.path.basename(path)[:-len(".json.gz")]] = date
    return out


def load(results):
    """results/run_dates.json: {"runs": {key: date}, "studies": {study: {seed: the date of its first run
    stored}}}, or None. Read once per version of the file (every part of every claim asks for it)."""
    path = os.path.join(results, RUN_DATES)
    return _read(path, os.stat(path).st_mtime_ns) if os.path.exists(path) else None


@functools.lru_cache(maxsize=8)
def _read(path, mtime_ns):
    with open(path) as f:
        return json.load(f)


def first_run(dates, study, seeds=None):
    """The date of the earliest run a study reads (of `seeds` only, if given), None if unknown."""
    by_seed = (dates or {}).get("studies", {}).get(study)
    if not by_seed:
        return None
    got = [d for s, d in by_seed.items() if seeds is None or int(s) in seeds]
    return min(got) if got else None


def seeds_after(dates, study, when):
    """The seeds of a study whose every run was stored after `when`."""
    return sorted(int(s) for s, d in (dates or {}).get("studies", {}).get(study, {}).items() if d > when)


def threshold_table():
    """docs/stats.md's table of every choice the verdicts use (a generated block: reproduce.py --report-only)."""
    rows = ["| choice | value | whose | set (commit, date) | the parts it judges |", "|---|---|---|---|---|"]
    for c in CHOICES:
        rows.append(f"| {c.what} | {c.value} | {c.whose} | {c.commit}, {c.date[:10]} | {judged_text(c)} |")
    return "\n".join(rows)


JUDGES = {"phases": "C1 four phases", "majority": "every yes/no part (C1 phases, C8 heads, C9 starvation, C10 "
          "contraction, C11 Eq. 5)", "diffuse": "C1 diffuse attention", "c2 bands": "every C2 cell", "margin": "C4",
          "speed-up": "every speed-up (C3, C3b, C6, C7 routing, C9, C10 frozen attention)",
          "law band": "every law (C3, C3b, C3f, C11)", "window": "C5 the bound at every point",
          "c7 gain": "C7 longer lengths", "c8 tau": "C8 width", "c5 drop": "C5 far below",
          "lambda 1": "C3 and C3b: the prior removes the plateau", "parity premise": "C9 parity's starvation",
"fixed premise": "C11 under `fixed`",
          "rho 0.001 premise": "C11 rho 0.001's Eq. 5 part",
          "sixth seed": "the parts read on `priors_after` (C6) and `heldout_fig3_after` (C3b)",
          "part five premise": "part five's premises (docs/registered/plateau.md)",
          "part five weak": "part five's weak arms", "part five gain": "part five's `sub` comparisons (K6a, K8a, S1a)",
          "part five as tested": "part five's reading as tested (K3w, K5w)",
          "part six memorized": "part six's Q1 (docs/registered/imprint.md)", "part six mass": "part six's Q1", "part six norm": "part six's Q3",
          "part six qk": "part six's Q3 arm", "data wall half": "the data wall's walls and readings "
          "(docs/registered/data_wall.md)", "data wall alpha": "the data wall's readings", "data wall budget": "the data wall's budget"}


def judged_text(c):
    return JUDGES[c.key] + (f"; runs made after it: `{c.confirm}`" if c.confirm else "")

# ---------------------------------------------------------------------------------------
# The registered studies' design constants, against git (issue #97): each study's module-level constants
# that hold a number (its arms' strengths, seeds, budgets, windows, thresholds), as they stand now and as they
# stood at the commit that added its registration (docs/registered/<study>.md, found from git). A constant
# changed or added since is a choice made after the registration: it must be named here with what registered
# it, or as one that judges nothing; an unnamed one fails tests/test_dates.py.

REGISTERED_STUDIES = ("regime_map", "two_clocks", "choices", "critical", "payoff", "deep", "deep_trained", "information",
                      "plateau", "imprint", "data_wall")
REGISTRATION_PAGE = {"choices": "sensitivity"}      # a study whose registration page has another name
JUDGES_NOTHING = {"QUICK": "the --quick preset's scale: its outputs go under results/quick/ and judge nothing",
                  **{q: "a --quick preset (the figure scripts'): results/quick/, judges nothing" for q in
                     ("QUICK_SKIPS", "LONG_GRID", "BOUND_QUICK", "PRIORS_QUICK", "PRIORS_QUICK_LOOK", "OPTIMIZERS_QUICK",
                      "TASKS_QUICK")}}
AFTER_REGISTRATION = {
    ("data_wall", "MASS_EPOCH"): "the arm check's epoch (its addendum, fdaf20f, 2026-12-06, written after 9 of the "
                                 "study's runs were seen): a mass reported beside each cell, it decides nothing",
    ("regime_map", "HELD_OUT_SEEDS"): "C3b's confirmation seeds (cb6a1cb, 2026-11-22), which the selection never saw",
    ("two_clocks", "STRUCT_FRAC"): "amendment 2 (bea0aef, 2026-11-24), registered before any of H1's 40 runs",
    ("two_clocks", "H1C_LAMS"): "amendment 3 (8c2e586, 2026-11-24): where seeds 0-4 saw t_struct leave its floor, "
                                "judged on seeds 5-9 only",
    ("choices", "HELD_OUT_SEEDS"): "the held-out confirmation on seeds 5-9 the registration names (its amendment 2, "
                                   "9ba88db, 2026-11-25, before any held-out run)",
    ("choices", "FOLLOWUP"): "amendment 5 (5026014, 2026-11-26), registered before any of its runs",
    ("choices", "CONFIRM"): "amendment 6 (2bc2c57, 2026-11-26), registered before any of its runs: held-out seeds 25-64",
    ("critical", "HELD_OUT_LAMS"): "amendment 1 (3d61106, 2026-11-25): the held-out cells, registered before their runs",
    ("critical", "H6C_WD_PREDICTED"): "H6c's registered formula evaluated per wd (a365fdb, 2026-11-25), committed before "
                                      "the secondary's runs were all in",
    ("critical", "H7_LAMS"): "H7, registered before any of its runs (7676646, 2026-11-26)",
    ("critical", "H7_SEEDS"): "H7, registered before any of its runs (7676646, 2026-11-26)",
    ("critical", "H7_BUDGET"): "H7, registered before any of its runs (7676646, 2026-11-26)",
    ("critical", "H7_ACCOUNTS"): "H7's two accounts, fitted and registered with H7 before its runs (7676646); a constant "
                                 "since the layout commit 51c78eb",
    ("information", "STRONG"): "amendment 1 (fde6015, 2026-11-29), registered before its runs",
    ("information", "MEMORIZED_SHARE"): "amendment 1's premise (fde6015, 2026-11-29), registered before its runs",
    ("information", "DOSE_EPOCHS"): "amendment 1 (fde6015, 2026-11-29), described, never deciding",
    ("information", "CONFIRM_SEEDS"): "amendment 2 (45bf390, 2026-11-29), registered before its runs",
    ("information", "CONFIRM"): "amendment 2 (45bf390, 2026-11-29): what its new seeds confirm, registered before them",
    ("information", "LIVE_EPOCHS"): "the report regime by regime (753436a, 2026-12-02): described, never deciding",
    ("information", "SIZE_ARMS"): "the arms' sizes (753436a, 2026-12-02): described, never deciding",
    ("information", "SIZE_PARAMS"): "the arms' sizes (753436a, 2026-12-02): described, never deciding",
    ("information", "SIZE_EPOCHS"): "the arms' sizes (753436a, 2026-12-02): described, never deciding",
    ("plateau", "PILOT"): "amendment 1's pilot (52d0ea5, 2026-12-02), registered before the pilot",
    ("plateau", "WEAK_LAM"): "amendment 1's pilot's choice by its rule (the choices table: 'part five weak')",
    ("plateau", "AMENDED_SEEDS"): "amendment 1 (52d0ea5, 2026-12-02): the runs made after it",
    ("plateau", "EARLY"): "the distractor mass while memorizing (b919402, 2026-12-03): described, never deciding",
    ("plateau", "ACC_SEEDS"): "amendment 2 (39ccf02, 2026-12-03), registered before the runs it judges",
    ("plateau", "ACC_SMALLEST"): "amendment 2's +0.05 (the choices table: 'part five gain')",
    ("plateau", "ACC_TRUTHS"): "amendment 2's power inputs (39ccf02, 2026-12-03), before the runs it judges",
    ("plateau", "ACC_SD"): "amendment 2's power inputs (39ccf02, 2026-12-03), before the runs it judges",
    ("plateau", "POWER_COMBINED_ROWS"): "the combined reading's error rates (4bf4772, 2026-12-03), before any reading",
    ("plateau", "MORE"): "part five said as tested (the choices table: 'part five as tested', after the data; "
                         "it changes no registered reading)",
    ("plateau", "POOLED_SEEDS"): "part five said as tested (227e197, 2026-12-04): K1 pooled over 50 seeds, described",
    ("plateau", "QUANTITY_NAMES"): "the report's names for the plateau's quantities (227e197): judges nothing",
    ("imprint", "QK_C"): "the pilot's choice by its registered rule (the choices table: 'part six qk')",
    ("data_wall", "TRAINING_ORDER"): "amendment 1 (2026-12-04, after the pilot, before any study run): the order in "
                                     "which cells are trained; it judges nothing",
    ("data_wall", "CONFIRM_FRACTIONS"): "amendment 2 (2026-12-06, after fraction 0.15 was read, before any run of these "
                                        "fractions was stored; tests/test_data_wall.py checks that from git): where its "
                                        "second reading is judged",
    ("data_wall", "SECOND_TRUTHS"): "amendment 2's power inputs (2026-12-06), computed before the runs it judges; "
                                    "they decide nothing",
    ("data_wall", "CONFIRM_AT"): "amendment 3 (2026-12-06, after amendment 2's crossing at 0.15 was seen, before any run "
                                 "on its seeds; tests/test_data_wall.py checks that from git): where it is judged again",
    ("data_wall", "CONFIRM_SEEDS"): "amendment 3 (2026-12-06): its new seeds, registered before any run on them",
    ("data_wall", "CONFIRM_READS"): "amendment 3 (2026-12-06): amendment 2's readings named as a confirmation, before its runs",
    ("data_wall", "CONFIRM_TRUTHS"): "amendment 3's power inputs (2026-12-06), computed before its runs; they decide nothing",
    ("data_wall", "NEED_AT"): "amendment 4 (2026-12-06, after 0.15's counts were seen, before any run on its seeds; "
                              "tests/test_data_wall.py checks that from git): where the title's need is asked again",
    ("data_wall", "NEED_SEEDS"): "amendment 4 (2026-12-06): its new seeds, registered before any run on them",
    ("data_wall", "NEED_TRUTHS"): "amendment 4's power inputs (2026-12-06), computed before its runs; they decide nothing",
    ("data_wall", "NEED_POWER_NS"): "amendment 4's power table's smaller studies (2026-12-06), before its runs; they "
                                    "decide nothing",
    ("data_wall", "INFO_ORACLE_SEEN"): "amendment 5 (2026-12-07): amendment 4's oracle count, seen, which it is judged "
                                       "against (tested against the store)",
    ("data_wall", "INFO_TRUTHS"): "amendment 5's power inputs (2026-12-07), computed before its runs; they decide nothing",
    ("data_wall", "HALF"): "the registration's 'half of its runs' as a named choice (the choices table), same value",
    ("data_wall", "BUDGET_FACTOR"): "the registration's 3x budget rule as a named choice (the choices table), same value",
    ("payoff", "SEEN_BEFORE"): "described beside H8 (abe9e82, 2026-11-28): the cell stored before registration, "
                               "never judged",
    ("deep", "SHOWN"): "amendment 1 during the pilot (ea1cc6d, 2026-11-26), before it ended",
    ("deep_trained", "BUDGET"): "the budget by its registered rule, committed before the first cell run",
    ("analysis", "THIN_EPOCHS"): "C5's window, rules v3 (0e6f865, 2026-11-25): the choices table's 'window', which "
                                 "dates it for the after-data rule (a test holds the two equal)",
}


def _constants(source):
    """{name: value node} of a module's top-level assignments that hold a number or read a choice (D.number)."""
    import ast
    out = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.Assign):
            continue
        holds = any(isinstance(n, ast.Constant) and type(n.value) in (int, float) for n in ast.walk(node.value))
        reads = any(isinstance(n, ast.Attribute) and n.attr in ("number", "bands") for n in ast.walk(node.value))
        if holds or reads:
            for t in node.targets:
                for n in [t] if isinstance(t, ast.Name) else getattr(t, "elts", []):
                    if isinstance(n, ast.Name):
                        out[n.id] = node.value if isinstance(t, ast.Name) else (node.value, t, n.id)
    return out


def _value(node, env):
    """A constant's value from its node, evaluated with builtins that build numbers and containers, and the
    module's earlier constants; None when it reads anything else (then the source decides)."""
    import ast
    import math
    if isinstance(node, tuple):                          # one name of a tuple assignment
        value, target, name = node
        whole = _value(value, env)
        names = [e.id for e in target.elts]
        return None if whole is None or len(whole) != len(names) else whole[names.index(name)]
    try:
        code = compile(ast.Expression(node), "<constant>", "eval")
        return eval(code, {"__builtins__": {}, "tuple": tuple, "range": range, "dict": dict, "list": list,
                           "math": math, "number": number, "D": __import__("audit.dates", fromlist=["number"])}, dict(env))
    except Exception:
        return None


@functools.lru_cache(maxsize=None)
def _adds_and_renames(root="."):
    """[(commit, [(path, the path it was renamed from, or None where it was added)])], newest first: the files each
    commit added or renamed, from one `git log` of the whole history (one call in place of a `--follow` log a file)."""
    log = subprocess.run(["git", "log", "--diff-filter=AR", "-M", "--name-status", "--format=>%h"], cwd=root,
                         capture_output=True, text=True).stdout
    out = []
    for block in log.split(">")[1:]:
        head, *lines = block.strip().split("\n")
        files = [(p[-1], p[1] if len(p) == 3 else None) for p in (line.split("\t") for line in lines) if len(p) in (2, 3)]
        out.append((head, files))
    return out


def first_added(path, root="."):
    """(the commit that first added `path`, its renames followed back, and the name it had then); None if none."""
    found, current = None, path
    for commit, files in _adds_and_renames(root):
        for new, old in files:
            if new == current and old is None:
                found = (commit, current)
            elif new == current:
                current = old
    return found


@functools.lru_cache(maxsize=None)
def registration_commit(study, root="."):
    """The commit that added docs/registered/<study>.md (renames followed), None without history."""
    if not whole_history(root):
        return None
    found = first_added(f"docs/registered/{REGISTRATION_PAGE.get(study, study)}.md", root)
    return found and found[0]


REGISTERED_CONSTANTS = "registered_constants.json"   # beside the store: each study's constants as registered
# Reference-tier modules whose numbers the verdicts read, each against a version from before the runs they judge:
# {module: (commit, the study whose first stored run came after it)}. analysis.py's phase marks and paper's-regime
# criterion (C1's phases, C11's Eq. 5) at the regime map's registration (the choices table's 'phases'); each figure
# script at its last version before its figure's first stored run (the store import of 2026-11-22 dates the first).
# Their numbers are checked as a registered study's are (below); a test checks each commit against the run dates.
REFERENCE_MODULES = {"analysis": ("416da85", "regime_map"), "exp_fig1_phases": ("8d1a239", "fig1"),
                     "exp_fig2_ablation": ("c6d17c4", "fig2"), "exp_fig3_kl": ("cb6a1cb", "fig3"),
                     "exp_fig4_tickets": ("46b82c9", "fig4"), "exp_appendix": ("2eb9ad2", "priors")}


def _homes(name):
    """Where a module has lived, newest first: a study in audit/ (beyond/ until a7b0275, exp_<study>.py before that);
    a reference module at the top level."""
    return (f"{name}.py",) if name in REFERENCE_MODULES else (f"audit/{name}.py", f"beyond/{name}.py", f"exp_{name}.py")


def snapshot(source):
    """{name: [repr of its value or None, its source without comments]} of a module's numeric constants (`_constants`):
    what a registration fixed, comparable in a checkout without history (results/registered_constants.json)."""
    import ast
    env, out = {}, {}
    for name, node in _constants(source).items():
        env[name] = _value(node, env)
        text = ast.unparse(node[0] if isinstance(node, tuple) else node)
        out[name] = [None if env[name] is None else repr(env[name]), text]
    return out


@functools.lru_cache(maxsize=None)
def registered_source(study, root="."):
    """(commit, the study's module as registered): at the commit that added its registration, or its code's first
    version where the registration came first; None without history."""
    if study in REFERENCE_MODULES:
        if not whole_history(root):
            return None
        commit = REFERENCE_MODULES[study][0]
        return commit, subprocess.run(["git", "show", f"{commit}:{study}.py"], cwd=root, capture_output=True,
                                      text=True).stdout
    commit = registration_commit(study, root)
    if commit is None:
        return None
    for path in (f"audit/{study}.py", f"beyond/{study}.py"):          # beyond/ until a7b0275
        shown = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=root, capture_output=True, text=True)
        if shown.returncode == 0:
            return commit, shown.stdout
    first = first_added(f"audit/{study}.py", root)
    if first is None:
        return commit, ""
    return first[0], subprocess.run(["git", "show", f"{first[0]}:{first[1]}"], cwd=root, capture_output=True,
                                    text=True).stdout


def registered_snapshots(root="."):
    """{study: {"commit", "constants": snapshot}} of every registered study, from git; None without history.
    reproduce.py --dates keeps it as results/registered_constants.json."""
    out = {}
    for study in REGISTERED_STUDIES:
        got = registered_source(study, root)
        if got is None:
            return None
        out[study] = {"commit": got[0][:7], "constants": snapshot(got[1])}      # git abbreviates by the repository size
    return out


def late_constants(study, root=".", source=None, kept=None):
    """The study's constants changed or added since its registration, [(name, what)]: from git, or where the
    checkout has no history from `kept` (results/registered_constants.json's entries). Judged by value where both
    values are plain (a literal moved into the choices table is no change), else by source. source: the module's
    text now (default: audit/<study>.py). None with neither history nor a kept snapshot."""
    got = registered_source(study, root)
    if got is not None:
        then = snapshot(got[1])
    elif kept is not None and study in kept:
        then = kept[study]["constants"]
    else:
        return None
    if source is None:
        with open(os.path.join(root, _homes(study)[0])) as f:
            source = f.read()
    out = []
    for name, (value, text) in snapshot(source).items():
        if name not in then:
            out.append((name, "added"))
        elif text != then[name][1] and (value is None or value != then[name][0]):
            out.append((name, "changed"))
    return out


def misnamed_commits(named=None, root="."):
    """[(study, name, commits)] of AFTER_REGISTRATION's entries whose reason names commits none of which changed a
    line holding the constant's name (git log -G, through its module's earlier homes beyond/ and exp_*); None
    without history."""
    import re
    if not whole_history(root):
        return None
    wrong = []
    for (study, name), why in (AFTER_REGISTRATION if named is None else named).items():
        paths = list(_homes(study))
        touched = subprocess.run(["git", "log", "--format=%h", f"-G\\b{name}\\b", "--", *paths], cwd=root,
                                 capture_output=True, text=True).stdout.split()
        named_commits = re.findall(r"\b[0-9a-f]{7}\b", why)
        if named_commits and not any(t.startswith(c) for c in named_commits for t in touched):
            wrong.append((study, name, named_commits))
    return wrong


def unnamed_late_constants(studies=REGISTERED_STUDIES, root=".", kept=None):
    """[(study, name, what)] of the registered studies' late constants that AFTER_REGISTRATION does not name and
    that do not judge nothing; None with neither history nor a kept snapshot."""
    out = []
    for study in studies:
        late = late_constants(study, root, kept=kept)
        if late is None:
            return None
        out += [(study, n, w) for n, w in late if (study, n) not in AFTER_REGISTRATION and n not in JUDGES_NOTHING]
    return out


# Numbers inside a study's functions, not only its module constants (issue #97): each numeric literal a function
# holds now, against the same function at the study's registration. One added since is late; git finds the commit
# that added it (`literal_origins`), and LATE_LITERALS must name that commit with what it was. Left out, by name:
# the functions that only lay out a figure (sizes, colours, positions); and 0, 1 and indices (x[2], a[:, 0]).
DRAWING = ("plot", "draw", "heat")
LATE_LITERALS = {
    ("regime_map", "78f31f2"): "the registered five seeds per cell, in the map's analysis, committed before any of "
                               "its runs (2026-11-22 11:49; the first run 14:14)",
    ("two_clocks", "cf88634"): "H3's registered 11-of-13 rule computed: 1e-9 keeps a float product from rounding the "
                               "count up (a tolerance of numerics)",
    ("two_clocks", "ba45a3f"): "H5's registered outcome reported with its n (5 seeds): a count printed, judges nothing",
    ("choices", "588181f"): "a panel's values drawn (test accuracy 0.5 marks the rise, as drawn before): judges nothing",
    ("critical", "7b72ac4"): "amendment 1's held-out cells (at lambda_c / 1.3 and x 1.3) and each model's predicted "
                             "share there, coded 25 minutes before the amendment (3d61106), both before their runs",
    ("critical", "a365fdb"): "the weight-decay secondary's three wds, as registered (AFTER_REGISTRATION names "
                             "H6C_WD_PREDICTED, its other late number)",
    ("critical", "7676646"): "H7, registered before any of its runs: its two accounts' fits, their profile and power",
    ("critical", "51c78eb"): "the layout commit: H7's registered binomial band (n seeds, 2.5% a side) and digits "
                             "written to its summary, moved into functions of their own; values as registered",
    ("critical", "ea4a180"): "the summary's numbers settled to six digits (1e-8 a floor): rounding, judges nothing",
    ("payoff", "be1f270"): "H8's summary: the planned run count (two arms): judges nothing",
    ("payoff", "abe9e82"): "described beside H8, never deciding: its pooled ratio's interval and the ranges a rule "
                           "like H8's would accept (grids and a 1e-12 tolerance)",
    ("deep", "ea1cc6d"): "amendment 1 during the pilot, before it ended: the shrink rule's steps (range(5))",
    ("deep", "08833e9"): "the pilot's plan written to six digits: judges nothing",
    ("deep", "cfaf018"): "the deeper model's mechanism part moved into a function of its own: its registered 2x "
                         "(docs/registered/deep.md: 'rule 2 against 2x') and the two parents",
    ("deep_trained", "cfaf018"): "its summary written to six digits: judges nothing",
    ("deep_trained", "bc90e93"): "the --quick preset's 1,500 epochs: results/quick/, judges nothing",
    ("information", "fde6015"): "amendment 1 (registered before its runs): the dose check's epochs under --quick and "
                                "the gradient's RMS (a square): described, never deciding",
    ("information", "45bf390"): "amendment 2 (registered before its runs): its power at the effect as seen",
    ("information", "753436a"): "the report regime by regime: the arms' sizes (epochs under --quick, a square) and "
                                "the targets' profiles (p 113, four decimals): described, never deciding",
    ("plateau", "39ccf02"): "amendment 2 (registered before the runs it judges): its power tables",
    ("plateau", "4bf4772"): "the combined reading's error rates (two accounts' power), before any reading",
    ("exp_fig4_tickets", "fd10427"): "the Bayesian ticket's init seed (s + 1000) moved into ticket_runs by the study "
                                     "registry: a run's config (a change asks for other runs, re-reads none)",
    ("exp_appendix", "fd10427"): "the lengths study's training config (n_distractors 3) moved into length_config by "
                                 "the study registry: a run's config",
    ("exp_appendix", "d607be6"): "the priors' --low-lam arm (0.1), registered before its runs: a run's config",
    ("exp_appendix", "fbd63a5"): "Figure 9 (left)'s t_struct read as held (Def. 4.1's 99%), with the width runs of "
                                 "2026-11-24: before the held-out seeds 10-19 (2026-11-25) that decide C8",
    ("exp_appendix", "6906de2"): "Figure 11's t_rise at test accuracy 0.5, phase_marks' own default written out",
    ("exp_appendix", "444d14a"): "longer inputs' distractor seed (seed + 4242) moved here from tasks.py, where it stood "
                                 "since 2026-11-22, before the lengths runs (2026-11-24)",
    ("analysis", "c4f88d2"): "the plateau's contraction rate (C10) moved here from exp_appendix.py, its numbers as "
                             "they were (three logged epochs for a fit; t_rise at test accuracy 0.5)",
    ("plateau", "227e197"): "part five said as tested: K1 pooled over 50 seeds by batch (210-229, 230-249), described",
}


# The numbers audit/claims.py holds outside CHOICES, each named: none is a threshold of ours.
CLAIMS_LITERALS = {113: "the paper's modulus p, where a summary does not give its own (C2's bands are k/p)",
                   6: "C7: the lengths study's training length (exp_appendix.py); its part averages the longer ones",
                   2: "C3f's fragility note needs more than two seeds (one left out keeps a t-interval): described"}


def function_literals(source, only=None):
    """{function: {numeric literal}} of a module's top-level functions but those that draw (0, 1 and indices left
    out; a function's own default arguments and nested functions included). One pass over each function's nodes,
    marking those under a subscript's index (the history scan parses every version of every study: issue #97).
    only: the functions to read (default all); the history scan needs only those its late literals are in."""
    import ast
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not any(d in node.name for d in DRAWING) \
                and (only is None or node.name in only):
            found, todo = set(), [(node, False)]
            while todo:
                n, in_index = todo.pop()
                if isinstance(n, ast.Constant):
                    if not in_index and type(n.value) in (int, float) and n.value not in (0, 1):
                        found.add(n.value)
                elif isinstance(n, ast.Subscript):
                    todo += [(n.value, in_index), (n.slice, True)]
                else:
                    todo += [(c, in_index) for c in ast.iter_child_nodes(n)]
            out[node.name] = found
    return out


def late_literals(study, root=".", source=None):
    """[(function, value)]: the numeric literals a study's functions hold now that the same function did not hold
    at its registration (`registered_source`); None without history."""
    got = registered_source(study, root)
    if got is None:
        return None
    if source is None:
        with open(os.path.join(root, _homes(study)[0])) as f:
            source = f.read()
    then = function_literals(got[1]) if got[1] else {}
    return sorted((f, v) for f, values in function_literals(source).items() for v in values - then.get(f, set()))


@functools.lru_cache(maxsize=None)
def _literal_history(study, root=".", functions=None):
    """[(commit, {(function, value)})] of the study's module since its registered version, oldest first, through its
    earlier homes (beyond/, and exp_<study>.py before it); of `functions` only (a frozenset), if given."""
    homes = _homes(study)
    log = subprocess.run(["git", "log", "--format=>%H", "--name-only", "--", *homes], cwd=root, capture_output=True,
                         text=True).stdout
    versions = [(block.split()[0], next(p for p in homes if p in block.split()[1:]))
                for block in log.split(">")[1:] if set(block.split()[1:]) & set(homes)][::-1]
    since = registered_source(study, root)[0]          # a late literal came after the registered version
    versions = versions[next((i for i, (c, _) in enumerate(versions) if c.startswith(since)), 0):]
    batch = subprocess.run(["git", "cat-file", "--batch"], cwd=root, capture_output=True,
                           input="".join(f"{c}:{p}\n" for c, p in versions).encode()).stdout
    out, at = [], 0
    for commit, _ in versions:
        header_end = batch.index(b"\n", at)
        if batch[at:header_end].endswith(b" missing"):         # the commit that moved it away from this home
            at = header_end + 1
            continue
        size = int(batch[at:header_end].split()[2])
        text = batch[header_end + 1:header_end + 1 + size].decode()
        at = header_end + 1 + size + 1
        try:
            found = {(f, v) for f, values in function_literals(text, functions).items() for v in values}
        except SyntaxError:
            found = set()
        out.append((commit, found))
    return out


def literal_origins(study, late, root="."):
    """{(function, value): the commit that last added it to its function} for each of `late`, from git; a literal
    the last commit does not hold (not committed yet) has None."""
    history = _literal_history(study, root, frozenset(f for f, _ in late))
    origin, before = {}, set()
    for commit, found in history:
        for key in late:
            if key in found and key not in before:
                origin[key] = commit
        before = found
    return {key: origin.get(key) if key in before else None for key in late}


def unnamed_late_literals(studies=REGISTERED_STUDIES + tuple(REFERENCE_MODULES), root=".", named=None, sources=None):
    """[(study, function, value, commit or None)] of the registered studies' late literals whose commit
    LATE_LITERALS (or `named`) does not name; None without history. sources: {study: its text} in place of the
    file's (a planted change)."""
    named = LATE_LITERALS if named is None else named
    out = []
    for study in studies:
        late = late_literals(study, root, (sources or {}).get(study))
        if late is None:
            return None
        origins = literal_origins(study, late, root) if late else {}
        out += [(study, f, v, c and c[:7]) for (f, v), c in sorted(origins.items(), key=str)
                if c is None or (study, c[:7]) not in named]
    return out
