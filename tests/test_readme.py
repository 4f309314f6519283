"""The README is written by hand around one generated table. Its tests check numbers and shape, never
sentences: every number its prose states is one the code computes from the committed summaries (with the
README's rounding), or a setting; each computed number it is meant to state is there; the generated table
is current and its cells short; the picture and the install come first; a finding is at most two
sentences; no term is used before its definition; every name its maps give exists."""
import math
import os
import re

import pytest

import store
from audit import data_wall as W
from audit import dates
from audit import readme as blocks_module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def readme():
    return open(os.path.join(ROOT, "README.md")).read()


def section(title):
    return readme().split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def prose(text):
    """The text a reader reads as sentences: without code blocks, generated blocks, inline code and links."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"<!-- generated: (\w+) .*?-->.*?<!-- end of generated: \1 -->", " ", text, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    return re.sub(r"\]\([^)]*\)", "]", text)


def x(v):
    """A rules v4 speed-up as the README writes it, a bound marked where it rests on censored runs:
    "1.28× [1.16, 1.42]", "≥ 4.33× [2.38, ∞)"."""
    lo, hi = (math.exp(e) for e in v["ci"])
    mark = {">=": "≥ ", "<=": "≤ "}.get(v.get("bound", ""), "")
    return f"{mark}{math.exp(v['estimate']):.2f}× [{lo:.2f}, " + (f"{hi:.2f}]" if math.isfinite(hi) else "∞)")


def ratio(v):
    return {">=": "≥ ", "<=": "≤ "}.get(v.get("bound", ""), "") + f"{math.exp(v['estimate']):.2f}×"


# part six's Q2 reading as the README's finding says it (a changed reading fails the number check)
Q2_WORDS = {"MLP suffices, not alone needed": "can be moved into a plain run through the MLP's weights alone, yet is not stored only there"}
# the information study's controls as the README names the one with the smallest and the largest ratio
CONTROL_WORDS = {"uniform": "the uniform target", "shuffled": "the shuffled target", "logit noise": "the logit noise",
                 "weight noise": "the weight noise"}
# the data wall's amendment 3 as the README's finding says it (a changed reading fails the number check)
CONFIRM_WORDS = {"confirmed": "but a KL without the oracle's information carried runs past the wall"}
# the data wall's amendment 4 as the README's finding says it once decided, each reading's words written 2026-12-07,
# before its last 15 runs were in (a reading with no words here fails the number check)
NEED_WORDS = {"shown: the oracle prior carries runs past plain training's wall": "the oracle prior carried runs past the wall",
              "not shown: the oracle prior does not cross": "the oracle prior did not carry runs past the wall",
              "untestable on these seeds (lambda 0 reached 0.95 in at least half its runs)":
                  "plain training reached it in at least half its runs, so there was no wall to cross",
              "not told": "too close to tell whether the oracle prior carried runs past the wall"}


@pytest.fixture(scope="module")
def numbers():
    """{what: the number, as the README must write it}, computed from results/ as a clone has it."""
    from audit.information import CONTROLS
    load = lambda name: store.read_json(os.path.join(ROOT, "results", name))
    plateau, info, deep, h7, six, wall = (load(f) for f in ("plateau.json", "information.json", "deep_trained.json",
                                                            "critical.json", "imprint.json", "data_wall.json"))
    h7 = h7["H7"]
    c, rho = plateau["comparisons"], info["regimes"]["refresh0.003"]["comparisons"]
    over = sorted((math.exp(rho[f"oracle vs {k}"]["estimate"]), ratio(rho[f"oracle vs {k}"]), k) for k in CONTROLS)
    grok = [v for lam in ("0.013", "0.01") for v in h7["grok"][lam].values()]
    seeds = sorted({int(s) for lam in ("0.013", "0.01") for s in h7["grok"][lam]})
    return {"fresh, every stored seed": x(plateau["pooled K1"]["all"]), "its seeds": str(plateau["pooled K1"]["all"]["n"]),
            "off after 200": x(c["T1"]),
            "part six, redrawn against pad": x(six["Q1"]["comparisons"]["interaction"]),
            "part six's seeds": str(six["Q1"]["comparisons"]["interaction"]["n"]),
            "part six, uniform over the oracle": x(six["Q1"]["comparisons"]["uniform faster than oracle"]),
            "part six, shrunken attention weights": x(six["Q3"]["comparisons"]["QK faster than lambda 0"]),
            "part six, the MLP carries it": x(six["Q2"]["comparisons"]["MLP carries"]),
            "part six, the whole effect on Q2's seeds": x(six["Q2"]["comparisons"]["T1"]),
            "part six, the MLP does not remove it": x(six["Q2"]["comparisons"]["MLP removes"]),
            "part six, Q2's seeds": f"{six['Q2']['comparisons']['MLP carries']['n']} seeds",
            "part six, Q2's reading": Q2_WORDS.get(six["Q2"]["reading"], f"Q2 now reads {six['Q2']['reading']!r}"),
            "plain training in fresh, every run": (f"median {int(six['medians']['t_grok']['lambda 0']):,} epochs on "
                                                   f"{len(six['runs']['lambda 0'])} seeds" if all(
                                                       r["t_grok"] for r in six["runs"]["lambda 0"].values())
                                                   else "a λ 0 run that never grokked"),
            "rho 0.003, against lambda 0": x(rho["oracle vs lambda 0"]),
            "fresh, the oracle against lambda 0": x(info["regimes"]["fresh"]["comparisons"]["oracle vs lambda 0"]),
            "against the controls": f"{over[0][1]} (over {CONTROL_WORDS[over[0][2]]})",
            "against the controls, at most": f"{over[-1][1]} (over {CONTROL_WORDS[over[-1][2]]})",
            "rho's seeds": str(len(info["seeds"])),
            "two layers": x(deep["speedup"]), "two layers' seeds": str(deep["speedup"]["n"]),
            "two layers, predicted": f"{deep['predicted_speedup']:g}×",
            "critical, runs": str(len(grok)) if None not in grok else "a run that never grokked",
            "critical, budget": f"{h7['budget']:,}", "critical, seeds": f"{seeds[0]}–{seeds[-1]}",
            "critical, without": str(len(h7["grok"]["0"])) if not any(h7["grok"]["0"].values()) else "a control grokked",
            **data_wall_numbers(wall)}


def data_wall_numbers(wall):
    """The data wall's finding: plain training's wall and its count there, the counts at the study fraction just
    below it, the runs an arm at the lowest fraction, where none reached 0.95, and amendment 3's confirmation on new
    seeds (as the README writes them)."""
    if wall["walls"] is None:
        return {"data wall": "not every cell is in"}
    at = lambda f, arm: "{k} of {n}".format(**wall["cells"][f"{f:g}"][arm])      # noqa: E731
    at_new = lambda arm: "{k} of {n}".format(**wall["confirm"]["cell"][arm])     # noqa: E731
    top = wall["walls"]["lambda 0"]
    below = max(f for f in wall["fractions"] if f < top)
    low = min(wall["fractions"])
    lowest = sum(c["k"] for c in wall["cells"][f"{low:g}"].values())
    return {"data wall, plain training's wall": f"{top:g}", "data wall, below it": f"{below:g}",
            "data wall, budget": f"{wall['budget']:,}", "data wall, plain at its wall": at(top, "lambda 0"),
            "data wall, plain below it": at(below, "lambda 0"),
            "data wall, the oracle below it": at(below, "oracle"), "data wall, uniform below it": at(below, "uniform"),
            "data wall, the lowest": f"{low:g}",
            "data wall, runs an arm at the lowest": (str(len(wall["seeds"])) if not lowest
                                                     else f"{lowest} runs reached 0.95 at the lowest"),
            # amendment 3: the uniform KL against plain training at that fraction on new seeds, and its reading
            "data wall, new seeds, uniform": at_new("uniform"), "data wall, new seeds, plain": at_new("lambda 0"),
            "data wall, new seeds": str(len(wall["confirm"]["seeds"])),
            "data wall, on new seeds": CONFIRM_WORDS.get(wall["confirm"]["reading"],
                                                         f"amendment 3 now reads {wall['confirm']['reading']!r}"),
            **need_numbers(wall.get("need"))}


def need_numbers(need):
    """Amendment 4 (the title's need at 0.15 on 32 new seeds): the seeds it plans; once its reading is decided, each
    arm's count and the reading in the README's words too. Until then no count (its counts so far decide nothing)."""
    if not need:
        return {}
    planned = {"need, seeds": str(len(need["seeds"]))}
    if need["reading"] == "not decided":
        return planned
    at = lambda arm: "{k} of {n}".format(**need["cell"][arm])      # noqa: E731
    return {**planned, "need, the oracle": at("oracle"), "need, plain": at("lambda 0"),
            "need, reading": NEED_WORDS.get(need["reading"], f"amendment 4 now reads {need['reading']!r}")}


# settings and names the prose may state: the task (113), the marks (0.99, 0.95, 1/4, 99%), the uniform mass (0.2)
# and the oracle target's (0.5, on each operand),
# our smallest effect (1.25; for C8's rank correlation audit/dates.py's "c8 tau"), the 95% of an interval, the regimes and strengths named (0.003, λ 0.01, 0.013, 0.3),
# the switch-off epoch (200), the budgets' and groks' epochs in the commands, the paper's sections and equations,
# the paper's configuration (widths 64 and 256, lr 0.001, 30% for training, 10,000 epochs: config.py's defaults)
SETTINGS = {"113", "0.99", "0.95", "1/4", "99", "0.2", "0.5", "1.25", "95", "0.003", "0.01", "0.013", "0.3", "0", "1", "200",
            "250", "64", "256", "0.001", "30", "10,000", f"{dates.number('c8 tau'):.2f}"}
PAPER_REFS = r"Eq\. \d+|Def\. \d\.\d|§\d\.\d|Fig\. \d+|C\d+[a-z]?|arXiv \d+\.\d+|t_95|B_τ|\d+ MB|\d+ MiB"


def stated(text):
    return set(re.findall(r"\d+(?:[.,–/]\d+)*", re.sub(PAPER_REFS, " ", prose(text))))


def test_every_number_the_readme_states_is_one_the_code_computes(numbers):
    """Each computed number is in the README where a reader reads it, and every number the prose before the
    commands states is one of them or a setting. A stale number, or one typed by hand, fails."""
    text = re.sub(r"\s+", " ", prose(readme()))
    missing = {k: v for k, v in numbers.items() if v not in text}
    assert not missing, f"the README no longer states what the results give: {missing}"
    head = readme().split("\n## Commands\n", 1)[0]
    allowed = set().union(*(stated(v) for v in numbers.values())) | SETTINGS
    other = stated(head) - allowed
    assert not other, f"the README states numbers no code computes: {sorted(other)}"


def test_the_number_check_fails_on_a_stale_number(numbers):
    """The check above is not vacuous: a changed digit in a stated interval is caught."""
    stale = readme().replace(numbers["fresh, every stored seed"], "1.79× [1.62, 1.96]")
    assert numbers["fresh, every stored seed"] not in stale and "1.79" in stated(stale.split("\n## Commands\n")[0])
    assert "1.79" not in set().union(*(stated(v) for v in numbers.values())) | SETTINGS


def test_a_decided_need_reading_must_be_stated():
    """Amendment 4's counts enter the number check only once its reading is decided, and then must be in the README;
    before, only the seeds it plans."""
    need = store.read_json(os.path.join(ROOT, "results", "data_wall.json")).get("need")
    assert need_numbers({**need, "reading": "not decided"}) == {"need, seeds": str(len(need["seeds"]))} == {"need, seeds": "32"}
    # counts no stored cell has (lambda 0 has at most 9 of 32 at 0.15), so the README cannot already state them
    cell = {arm: {"k": k, "n": 32} for arm, k in (("lambda 0", 30), ("oracle", 31))}
    decided = need_numbers({**need, "cell": cell, "reading": "shown: the oracle prior carries runs past plain training's wall"})
    assert decided["need, the oracle"] == "31 of 32" and decided["need, seeds"] == "32"
    assert set(NEED_WORDS) == set(W.NEED_READS)        # every reading has the README's words for it
    text = re.sub(r"\s+", " ", prose(readme()))
    assert not all(v in text for v in decided.values())      # the README does not state it yet: the check would fail


def test_the_claim_table_is_current_and_its_cells_short():
    blocks = dict(re.findall(r"<!-- generated: (\w+) .*?-->\n(.*?)\n<!-- end of generated: \1 -->", readme(), flags=re.S))
    assert set(blocks) == set(blocks_module.README_BLOCKS)
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for name, make in blocks_module.README_BLOCKS.items():
            assert blocks[name] == make("results"), f"README block {name!r} is stale: python reproduce.py --report-only"
    finally:
        os.chdir(cwd)
    cells = [c.strip() for row in blocks["verdicts"].splitlines()[2:] for c in row.strip("|").split(" | ")]
    assert len(cells) == 4 * len(blocks["verdicts"].splitlines()[2:])
    assert max(len(c) for c in cells) <= blocks_module.CELL, max(cells, key=len)
    # a cell cut at CELL characters ends in '…' and can lose its seed count: every measured cell keeps its n
    measured = cells[2::4]
    assert all(re.search(r"n = \d", c) or c == "no runs yet" for c in measured), [c for c in measured if "n = " not in c]
    assert not any(c.endswith("…") for c in measured)


def test_the_picture_and_the_install_come_first():
    lines = readme().splitlines()
    picture = next(i for i, l in enumerate(lines) if ".png)" in l)
    install = next(i for i, l in enumerate(lines) if l.startswith("pip install"))
    assert picture < 20 and install < 40, (picture + 1, install + 1)
    assert lines[0].startswith("# ") and "arXiv 2605.15787" in " ".join(lines[:6])


def test_each_finding_beyond_the_paper_is_at_most_two_sentences():
    bullets = [b for b in re.split(r"\n(?=- )", section("Beyond the paper").strip()) if b.startswith("- ")]
    assert bullets
    for b in bullets:
        text = re.sub(r"\b(?:Eq|Fig|Def|App|Thm|e\.g|i\.e)\. ", "X ", prose(b))
        sentences = len(re.findall(r"[.!?](?=\s|$)", text))
        assert sentences <= 2, b[:80]


def test_no_term_is_used_before_its_definition():
    """A term is defined where it is first set in bold (the opening paragraph and the terms of "What holds"):
    no earlier line of the README uses it."""
    text = readme()
    defined = text.split("<!-- generated: verdicts", 1)[0]
    terms = {t.strip("`") for t in re.findall(r"\*\*([^*]+?)\*\*", defined)}
    assert {"grokking", "distractors", "oracle", "λ", "fresh", "t_grok", "plateau", "reproduced"} <= terms
    for term in terms:
        if len(term) < 2 and term != "λ":
            continue
        at = re.search(r"\*\*`?" + re.escape(term) + r"`?\*\*", text).start()
        first = re.search(r"(?<![\w`])`?" + re.escape(term) + r"(?![\w])", text)
        assert first.start() >= at, f"{term!r} is used before its definition: {text[max(0, first.start() - 60):first.start() + 20]!r}"


def test_every_name_the_readme_maps_to_code_is_there():
    """The README's maps (the files, and each formula beside the code that implements it) name
    functions, classes, files and tests: each must still exist under that name, so a rename
    cannot leave the map pointing at nothing."""
    import importlib
    import exp_appendix  # noqa: F401
    text = readme()
    for name in set(re.findall(r"`([a-z_]\w*(?:\.[A-Za-z_]\w*)+)`", text)):
        if name.endswith(".py") or name.startswith("torch."):
            continue
        parts = name.split(".")
        for i in range(len(parts) - 1, 0, -1):         # the longest importable prefix, then attributes
            try:
                obj = importlib.import_module(".".join(parts[:i]))
                break
            except ModuleNotFoundError:
                continue
        for attr in parts[i:]:
            assert hasattr(obj, attr), f"the README names {name}, which is not there"
            obj = getattr(obj, attr)
    for path, test in re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", text):
        assert f"def {test}(" in open(os.path.join(ROOT, path)).read(), f"{path}::{test}"
    for path in set(re.findall(r"`([\w/]+\.py)`", text)):
        assert os.path.exists(os.path.join(ROOT, path)), path


def test_the_stated_configuration_is_the_code_s_default():
    """The README's 'paper's configuration' bullet states config.py's defaults: a changed default fails here."""
    import config
    cfg = config.make_config()
    bullet = readme().split("**The paper's configuration**", 1)[1].split("\n- ", 1)[0]
    want = {"64": cfg.d_model, "256": cfg.d_mlp, "0.001": cfg.lr, "1": cfg.wd, "30": round(cfg.frac * 100),
            "10,000": cfg.epochs}
    assert stated(bullet) == set(want) and all(float(k.replace(",", "")) == v for k, v in want.items()), stated(bullet)
    assert (cfg.n_layers, cfg.n_heads, cfg.batch_size, cfg.optimizer) == (1, 1, None, "adamw")
    import sweep            # and the quick presets' task, as the install lines state it
    quick = f"modulus {sweep.QUICK_MODEL['p']}, train fraction {sweep.QUICK_MODEL['frac']:g}"
    assert quick in readme() and f"{quick}, lr {sweep.QUICK_MODEL['lr']:g}" in readme(), quick


def test_the_first_command_s_grok_epochs_are_the_stored_runs():
    """The first run the README gives (train.py --lam 0.1 --seed 0 --stop-after 200) groks in the stated range in
    the committed store, and the same seed without the prior at the epoch stated beside it."""
    line = next(l for l in readme().splitlines() if l.startswith("python train.py"))
    lo, hi, plain = (int(v.replace(",", "")) for v in
                     re.search(r"groks near epoch ([\d,]+)-([\d,]+) \(([\d,]+) on this seed without the prior\)", line).groups())
    args = dict(re.findall(r"--([\w-]+) (\S+)", line.split("#")[0]))
    assert args == {"lam": "0.1", "seed": "0", "stop-after": "200", "out": "runs/x"}
    folder = os.path.join(ROOT, "results", "store")
    prior, none = (store.read(folder, store.make_config(lam=lam, seed=0, stop_after=200))[0]["grok_epoch"] for lam in (0.1, 0.0))
    assert lo <= prior <= hi and none == plain, (prior, none)


def test_a_bound_from_censored_runs_names_the_arm_whose_runs_never_reached_the_mark():
    """"≤" (the first arm's time a lower bound: its runs censored) names the first arm of "A against B", "≥" the second."""
    from audit.rules import NOT_REPRODUCED
    part = "entropy faster than weight decay alone"
    for mark, arm in (("<=", "the entropy prior"), (">=", "weight decay alone")):
        parts = {part: {"verdict": NOT_REPRODUCED, "n": 8, "against": "counts from 1.25x",
                        "shown": f"speed-up {mark} 0.49x, every effect a bound (one arm's runs all censored)"}}
        cell = blocks_module.measured(NOT_REPRODUCED, parts)
        side = "below" if mark == "<=" else "above"
        assert f"every run of {arm} censored" in cell and f"at or {side}" in cell, cell


def test_a_part_waiting_for_later_runs_says_what_was_chosen_late_and_what_later_runs_did():
    """The claim table's cell for a part read inconclusive by the after-data rule (policy.late): a premise marked
    late, or a threshold set late with the reading it would give; and whether later runs are none yet, too few,
    or refuted it (a wrong branch would tell a reader the opposite)."""
    from audit import policy, readme
    from audit import rules as A
    v = {"verdict": A.UNTESTABLE, "n": 5}
    cell = lambda premise, later, key="fixed premise": readme.late_words(  # noqa: E731
        policy.late({**v, "verdict": A.UNTESTABLE if premise else A.INCONCLUSIVE}, "a choice", key, premise, "why", later))
    assert "untestable" in cell(True, "none") and "none yet" in cell(True, "none")
    assert "refuted" in cell(True, "refuted") and "none yet" not in cell(True, "refuted")
    assert "too few" in cell(False, "too few")
    law = cell(False, "none", "law band")
    assert "1 ± 0.5" in law and "would read inconclusive" in law and "untestable" not in law
