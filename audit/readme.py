"""The README's generated blocks (and those of docs/registered/sensitivity.md): the claim table,
one row per claim in words with the number that decides or holds its verdict (`plain_table`;
REPORT.md's fuller one, `readme_table`), and the "what else we tried" blocks; every number in them comes from the claims' verdicts (audit/claims.py) and the
summaries, through `update_readme`.

    python reproduce.py --report-only    # rewrites every generated block
"""
from audit.choices import NORM_R, choice_line, held_out_note
from audit import dates as D
from audit import rules as A
from audit import studies
from audit.claims import PAPER_SHORT, _load, direction, study_of, verdicts
from audit.report import CHOICE_CLAIMS, claim_outcome


def block_markers(name):
    return f"<!-- generated: {name} (reproduce.py --report-only) -->", f"<!-- end of generated: {name} -->"


def deciding_part(verdict, parts):
    """The part that decides a claim's verdict under rule 5: (its name, its verdict dict)."""
    want = A.REPRODUCED if verdict == A.PARTLY else verdict      # reproduced where testable: what is
    pick = next((p for p, v in parts.items() if v["verdict"] == want), None)
    if pick is None:     # inconclusive from a mix of reproduced / not decided parts
        pick = next((p for p, v in parts.items() if v["verdict"] not in (A.REPRODUCED, A.UNTESTABLE)),
                    next(iter(parts)))
    return pick, parts[pick]


def short_cell(text, width=110):
    """`text` in at most `width` characters, cut at a word (a table cell, so no '|')."""
    text = text.replace("|", "/")
    if len(text) <= width:
        return text
    cut = text[:width - 1]
    words = cut.rsplit(" ", 1)[0] if " " in cut[width // 2:] else cut     # a word, unless that loses half
    return words.rstrip(" ,;:([") + "…"


def part_label(part, v):
    """A part's name for the README's table, as its claim function set it (the "label" field:
    without the asides and seed lists REPORT.md keeps), else the name itself."""
    return v.get("label", part)


def who_what(part, v):
    """(the setting, what is claimed of it) of a part named in two fields ("who", "what"), so that
    settings sharing a claim are listed together; ("", its label) otherwise."""
    return (v["who"], v["what"]) if "who" in v else ("", part_label(part, v))


def holding_parts(verdict, parts):
    """The parts that decide a claim's verdict, or hold it where it is undecided (rule 5): every
    part not reproduced where the claim is not; every part neither reproduced nor untestable where
    it is inconclusive; the reproduced parts where it is reproduced where testable (the untested
    ones: `untestable_cells`); all of them where it is reproduced. [(name, verdict dict)]."""
    if verdict == A.NOT_REPRODUCED:
        keep = lambda v: v["verdict"] == A.NOT_REPRODUCED
    elif verdict == A.PARTLY:
        keep = lambda v: v["verdict"] == A.REPRODUCED
    elif verdict == A.REPRODUCED:
        keep = lambda v: True
    else:
        keep = lambda v: v["verdict"] not in (A.REPRODUCED, A.UNTESTABLE)
    return [(p, v) for p, v in parts.items() if keep(v)] or [deciding_part(verdict, parts)]


def _part_number(v):
    """A part's one number, from its fields: the estimate with its interval and what the interval is
    judged against ("shown", "against"), or what left a law without a room ("dropped"), or the
    status of a part with no number; then its direction, its status in a clause and what its
    design disclosed."""
    if v["verdict"] in (A.UNTESTABLE, A.NOT_DECIDED) and v.get("reason"):
        head = v.get("status") or v["reason"]
    elif "shown" in v:
        head = v["shown"] + (f" ({v['against']})" if v.get("against") else "")
    elif "dropped" in v:
        head = v["dropped"]
    else:
        head = v.get("text") or v.get("reason", "")
    status = v.get("status", "")
    said = "; ".join(filter(None, [direction(v).replace("direction: ", ""), status if status not in head else "",
                                   v.get("disclosed")]))
    return head + (f"; {said}" if said else "")


def untestable_cells(parts):
    """The parts untestable here, one line per claim and reason, each part named by what comes
    before the claim it shares: "sgd, lion: the MLP norm contracts on the plateau: untestable here,
    no plateau to measure"."""
    groups = {}
    for p, v in parts.items():
        if v["verdict"] == A.UNTESTABLE:
            who, what = who_what(p, v)
            groups.setdefault((what, v.get("status") or v.get("reason") or "no data"), []).append(who)
    return [short_cell(f"{', '.join(filter(None, who))}: " * any(who) + f"{what}: untestable here, {why}", 260)
            for (what, why), who in groups.items()]


def readme_table(results):
    """REPORT.md's "What decides each claim" (the README's claim table until 2026-12-04): per claim the
    paper's statement in a phrase, the verdict, the part(s) that decide or hold it with their number,
    and n; from the same verdicts as REPORT.md's parts (where every part has its reason)."""
    rows = ["| claim | the paper says | verdict | what decides or holds it: estimate [95% interval] (what counts) | n |",
            "|---|---|---|---|---|"]
    for claim, (verdict, parts) in verdicts(results).items():
        if not parts:
            rows.append(f"| {claim} | {PAPER_SHORT[claim]} | {verdict} | no summary yet | 0 |")
            continue
        held = holding_parts(verdict, parts)
        shown = held if verdict != A.REPRODUCED else [min(held, key=lambda pv: pv[1].get("n", 0))]
        waiting = [(p, v) for p, v in shown if v.get("would_read")]
        shown = [(p, v) for p, v in shown if not v.get("would_read")]
        cells = [short_cell(f"{part_label(p, v)}: {_part_number(v)}", 260) + runs_note(results, claim, p, v) for p, v in shown]
        n = ", ".join(str(v.get("n", 0)) for _, v in shown)
        if waiting:                   # one line per choice made after its data (the one rule)
            groups = after_data_cells(waiting)
            cells, n = cells + [c for c, _ in groups], ", ".join(filter(None, [n] + [m for _, m in groups]))
        others = sum(v["verdict"] == A.REPRODUCED for v in parts.values())
        if others and verdict == A.INCONCLUSIVE:
            cells.append(f"its {others} other part{'s' * (others > 1)} reproduced")
        if verdict == A.REPRODUCED and len(held) > 1:
            cells.append(f"and {len(held) - 1} more part{'s' * (len(held) > 2)}, all reproduced")
        if verdict == A.PARTLY:          # what is reproduced, then what could not be tried and why
            untested = untestable_cells(parts)
            cells, n = cells + untested, n + ", 0" * len(untested)
        rows.append(f"| {claim} | {PAPER_SHORT[claim]} | **{verdict}**{scope(claim, parts)} | {'<br>'.join(cells)} | {n} |")
    return "\n".join(rows)


def scope(claim, parts):
    """What a verdict covers where it is narrower than the claim: C10's optimizer parts that showed no plateau
    under optim.py's mapping are not tested here (our mapping's failure, not the claim's: issue #86), so its verdict
    covers the AdamW variants only."""
    from audit.claims import C10_NO_PLATEAU
    untried = [p for p, v in parts.items() if p.split(":")[0] in C10_NO_PLATEAU and str(v.get("status", "")).startswith("not tested")]
    return " (frozen attention reproduced; other optimizers not tested)" if claim == "C10" and untried else ""


def runs_note(results, claim, part, v):
    """" (λ 1 against λ 0; seeds 10-17, stored after its threshold; shares runs with C9, C10)": the runs a
    part was judged on, from its study's summary and results/run_dates.json; "" where they are unknown."""
    name = study_of(claim, part_label(part, v), v)
    d, dates = _load(results, studies.summary(name)) if name in studies.STUDIES else None, D.load(results)
    bits = []
    lam = (d or {}).get("lam")
    if isinstance(lam, (int, float)) and not isinstance(lam, bool):
        bits.append(f"λ {lam:g}")
    seeds = v.get("after_seeds") or sorted(int(s) for s in (dates or {}).get("studies", {}).get(name, {}))
    if seeds:
        span = (f"{seeds[0]}–{seeds[-1]}" if len(seeds) > 1 and seeds == list(range(seeds[0], seeds[-1] + 1))
                else ", ".join(map(str, seeds)))
        bits.append(f"seed{'s' * (len(seeds) > 1)} {span}" + (", stored after its choices" if v.get("after_seeds") else ""))
    others = sorted({studies.STUDIES[o].claim for o in (dates or {}).get("shared", {}).get(name, {})} - {"beyond", claim},
                    key=lambda c: list(studies.CLAIMS).index(c))
    if others:
        bits.append("shares runs with " + ", ".join(others))
    return f" ({'; '.join(bits)})" if bits else ""


def after_data_cells(waiting):
    """The parts waiting on runs made after a choice made after their data, one cell per choice:
    who, what, the reading the choice gives on the data it was chosen with. [(cell, n)]."""
    groups = {}
    for p, v in waiting:
        who, what = who_what(p, v)
        key = (what, v["would_read"], v.get("measured_shown", ""), v.get("after_data", "its choice"))
        groups.setdefault(key, []).append((who, v.get("n", 0)))
    return [(short_cell(f"{', '.join(filter(None, (w for w, _ in wn)))}: " * any(w for w, _ in wn)
                        + f"{what}: would read {reading}" + (f", {shown}" if shown else "")
                        + f", on runs stored before {choice}; inconclusive until runs made after it", 300),
             ", ".join(str(k) for _, k in wn))
            for (what, reading, shown, choice), wn in groups.items()]


# The README's table (issue #96): one row per claim, in words: the claim, what the paper says, the one number that
# decides or holds its verdict (its part's estimate and interval, what counts, n), the verdict. REPORT.md keeps
# every part (`readme_table`'s fuller table, "What decides each claim").
IN_WORDS = {
    "C1": ("Four phases", "memorize with diffuse attention, a plateau, then structure, then grokking (§5.1)"),
    "C2": ("Capacity and structure (Fig. 2)", "with the oracle prior and the MLP's norm held fixed the model still groks fully"),
    "C3": ("The KL prior ends the plateau", "the oracle KL removes the plateau, and t_grok − floor falls like 1/λ (Eq. 7)"),
    "C3b": ("C3 at ρ 0.003, new seeds", "as C3, where its phases show best: of the ρ we mapped, 0.003 comes closest to the paper's four phases (in none do most seeds show all four)"),
    "C3f": ("The 1/λ law under `fixed`", "t_grok − floor ∝ 1/λ (Eq. 7); we test it under `fixed` (not the paper's setup), where λ 0 never groks"),
    "C4": ("Bayesian vs lottery ticket", "a new initialisation with the KL prior matches or beats the lottery ticket (Fig. 4)"),
    "C5": ("Lemma 5.1's bound", "the task gradient to an attention logit stays below a bound that scales with that position's attention weight and the square root of the loss, so it nearly vanishes once the model memorizes"),
    "C6": ("Directed vs undirected priors", "the oracle KL beats entropy and sparsity priors, and those beat weight decay alone"),
    "C7": ("Routing, longer inputs", "the KL helps when the operands' positions vary, and degrades less on longer inputs"),
    "C8": ("Width and heads", "larger d finds the structure sooner; several heads meet it together, none alone"),
    "C9": ("Across tasks", "on addition, parity, permutations and autoregressive parity the gradient starves, and the KL speeds them up"),
    "C10": ("Frozen attention, optimizers", "with attention frozen at the oracle the MLP generalizes fast; other optimizers keep the norm's decay"),
    "C11": ("Delay ∝ 1/weight decay", "without a prior t_grok grows like 1/wd, and the plateau lasts at least the time weight decay needs to shrink the weights from their memorizing norm to one too small to memorize (Eq. 5)"),
}
CELL = 200                      # the most characters a cell of the README's table holds


# the headline parts' names in plain words (a part not named here keeps its own label)
PLAIN_PARTS = {"diffuse attention at memorization": "attention when the model memorizes",
               "nm|oracle: paper full": f"the MLP's weight norm held at {NORM_R:g} (a plain run's after grokking), oracle prior",
               "distractors fresh: the prior removes the plateau": "the oracle KL at λ 1 against λ 0",
               "cell rho0.003_wd1_lam0: the prior removes the plateau": "the oracle KL at λ 1 against λ 0 at ρ 0.003",
               "distractors fixed, 20000-epoch budget: t_grok - floor ~ 1/λ": "the exponent of 1/λ",
               "Bayesian ticket matches or outperforms the lottery ticket": "the Bayesian ticket's time over the lottery ticket's "
                                                                            "(below 1: it is faster)",
               "the bound holds at every logged point": "the bound",
               "entropy faster than weight decay alone": "the entropy prior against weight decay alone",
               "KL faster under dynamic routing": "the KL with the operands' positions varying",
               "larger d reaches B_τ sooner": "width d against the time to B_τ",
               "add: KL faster": "addition (C3's runs), the KL",
               "sgd: the MLP norm contracts on the plateau": "SGD, Lion, Muon, other batch sizes",
               "frozen oracle attention groks faster than the baseline": "frozen oracle attention over λ 0",
               "fresh: t_grok ~ 1/wd": "the exponent of 1/wd in `fresh`",
               "fixed: t_grok ~ 1/wd": "the exponent of 1/wd under `fixed`",
               "rho 0.001: t_grok ~ 1/wd": "the exponent of 1/wd at ρ 0.001"}


def plain(text, asides=True):
    """A part's label or number in the README's words: without asides in parentheses (asides=True), seed lists
    or the registration's "room"; λ, τ, ±, ≤, ≥ and × spelled as symbols."""
    import re
    if asides:
        text = re.sub(r"\s*\((?:[^()]|\([^()]*\))*\)", "", text)
    text = re.sub(r",?\s*seeds \[[\d, ]+\]", "", text).replace(" over the named room", "")
    for a, b in (("lambda", "λ"), ("B_tau", "B_τ"), ("+-", "±"), ("<=", "≤"), (">=", "≥"),
                 ("-Kendall tau(d, t_struct)", "rank correlation, larger d sooner (−Kendall τ of d, t_struct)"),
                 ("Kendall tau", "Kendall τ"), ("beta ", "β "),
                 ("not tested here: under our mapping it does not learn",
                  "run, not a test: our lr and wd for them gave no learning or no plateau"),
                 ("our band", "the range that counts (ours)"), (", 1.01)", ", 1]")):     # an accuracy band [lo, 1.01) is [lo, 1]
        text = text.replace(a, b)
    return re.sub(r"(\d)x\b", r"\1×", text).strip(" :")


# a choice made after its data, named in the README's words by its key in audit/dates.py (else generically)
LATE_CHOICES = {"law band": "the exponent's margin (1 ± 0.5)"}


def late_words(v):
    """Why a part waits (policy.late): what we chose after seeing its seeds, and what runs made after that did
    (its "later")."""
    premise = v["would_read"] == A.UNTESTABLE
    chose = ("marked it untestable here (its premise never occurs)" if premise else
             f"set {LATE_CHOICES.get(v.get('choice_name'), 'what judges it')}")
    reading = "" if premise else f" (by it they would read {v['would_read']})"       # right after the seeds it judges
    after = {"refuted": "; later runs refuted it", "too few": "; too few later runs to judge it",
             "not by seed": "; its later runs are not read seed by seed"}.get(v.get("later"),
                                                                              ", so only later runs can judge it: none yet")
    return f"we {chose} after seeing its {v.get('n', 0)} seeds{reading}{after}"


def measured(verdict, parts):
    """The README's number for a claim: the first part that holds its verdict and has an estimate (else the
    first such part, with why it has none), with what counts and its n."""
    held = holding_parts(verdict, parts)
    p, v = next(((p, v) for p, v in held if v.get("shown")), held[0])
    label = plain(part_label(p, v))
    if v.get("would_read") and not v.get("shown"):     # a choice made after its data: decided only by later runs
        number = late_words(v)
    else:
        number = v.get("shown") or (v.get("text") or v.get("status") or v.get("reason") or "no number yet").split(";")[0]
    name = PLAIN_PARTS.get(label, label)
    if "(one arm's runs all censored)" in number and " against " in name:     # name the arm: <= the first, >= the second
        first, second = name.split(" against ", 1)
        arm = first if "<=" in number or "≤" in number else second
        side = "at or below" if arm == first else "at or above"
        number = number.replace("(one arm's runs all censored)", f"(every run of {arm} censored, so the true "
                                                                 f"value lies {side} it)")
    counts = f"; {plain(v['against'], asides=False)}" if v.get("shown") and v.get("against") else ""
    cell = f"{name}: {plain(number, asides=False)}{counts}; n = {v.get('n', 0)}"
    read = [(q, w) for q, w in parts.items() if w.get("shown")]
    # where the verdict rests on parts with nothing to read (C10's optimizers), the cell gives first what was read
    if not v.get("shown") and not v.get("n") and read:
        q, w = read[0]
        first = plain(part_label(q, w))
        also = f"; {plain(w['against'], asides=False)}" if w.get("against") else ""
        cell = (f"{PLAIN_PARTS.get(first, first)}: {plain(w['shown'], asides=False)}{also}; n = {w.get('n', 0)}. "
                f"{PLAIN_PARTS.get(label, label)}: {plain(number, asides=False)}")
    return short_cell(cell, CELL)


def plain_table(results):
    """The README's claim table (issue #96): every cell at most CELL characters."""
    rows = ["| claim | the paper says | we measured (estimate [95% interval], what counts, n seeds) | verdict |",
            "|---|---|---|---|"]
    for claim, (verdict, parts) in verdicts(results).items():
        words, says = IN_WORDS[claim]
        cell = measured(verdict, parts) if parts else "no runs yet"
        others = sum(v["verdict"] == A.REPRODUCED for v in parts.values())
        if verdict == A.INCONCLUSIVE and others and claim != "C10":      # C10's verdict column says its own
            more = f"; {others} other part{'s' * (others > 1)} reproduced"
            cell = cell + more if len(cell + more) <= CELL else cell
        rows.append(f"| {claim}: {words} | {says} | {cell} | **{verdict}**{scope(claim, parts)} |")
    return "\n".join(rows)


README_BLOCKS = {"verdicts": plain_table}


# docs/registered/sensitivity.md: under each choice the code makes, what else the sensitivity study tried
# (docs/registered/sensitivity.md), generated from its summary so that the numbers stay those of the store

TRIED_PARTS = {"tried_c2": ("c2",), "tried_c1": ("c1",), "tried_c6": ("c6",), "tried_c10": ("c10 pilot", "c10"),
               "tried_headline": ("headline",)}


def tried(parts):
    """The text of one "what else we tried" block: each reading of `parts` with its verdict and
    numbers (REPORT.md's Choices lines), or how many of its runs are stored."""
    def make(results):
        d = _load(results, studies.summary("choices"))
        head = "*What else we tried* ([sensitivity.md](sensitivity.md), pre-registered; seeds 0–4 unless said; generated):"
        rows = [] if d is None else [(part, reading, row) for part in parts
                                     for reading, row in d["verdicts"].get(part, {}).items()]
        if not rows:
            return head + " not run yet."
        lines = [head] + [f"- by the registered rule, {CHOICE_CLAIMS[part]}: {claim_outcome(d['verdicts'][part])[1]}"
                          for part in parts if part in CHOICE_CLAIMS and d["verdicts"].get(part)]
        lines += [f"- {reading}: {choice_line(row)}{held_out_note(part, row)}" for part, reading, row in rows]
        if "c10 pilot" in parts and "c10 choice" in d["verdicts"]:
            lines.append("- the registered choice (first mapping to memorize): " + ", ".join(
                f"{o}: {c or 'none memorized'}" for o, c in d["verdicts"]["c10 choice"].items()))
        return "\n".join(lines)
    return make


TRIED_BLOCKS = {name: tried(parts) for name, parts in TRIED_PARTS.items()}


def update_readme(results, path="README.md", blocks=None):
    """Rewrite every generated block of the README, or of another page (docs/registered/sensitivity.md), between
    its markers, from `results`;
    `blocks` adds generated text computed elsewhere ({name: text}). False if none was found."""
    text = open(path).read()
    found = False
    for name, make in {**README_BLOCKS, **TRIED_BLOCKS, **(blocks or {})}.items():
        start, end = block_markers(name)
        if start in text:
            text, found = A.replace_block(text, start, end, make(results) if callable(make) else make), True
    if found:
        with open(path, "w") as f:
            f.write(text)
    return found