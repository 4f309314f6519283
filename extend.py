"""Rules v4's censoring by design (docs/stats.md, version 4), for the studies whose comparison decides
a claim by grokking times (exp_fig4_tickets.py, exp_appendix.py): every run that never grokked within
its budget is trained on to --extend epochs and read in its place.

    parser = ...; extend.add_extend_arg(parser)
    results, budgets, elsewhere, continued = extend.run_extended(runs, args)

A run's first --epochs epochs are the same with either budget (training never looks at its budget,
store.derived), so an extension is its run continued, on the machine that trained it.
"""
import argparse

import store
import sweep
from sweep import is_stored, say, store_dir, write_partial


def add_extend_arg(parser):
    """--extend B, for the studies whose comparison decides a claim by grokking times."""
    parser.add_argument("--extend", type=int, default=None, metavar="EPOCHS",
                        help="train every run that never grokked within --epochs again to EPOCHS (rules v4's "
                             "censoring by design: 5x the budget), and read that run in its place")


def extension_runs(runs, args):
    """Rules v4's censoring by design (docs/stats.md, version 4): for every run of `runs` that the
    store holds and that never grokked within its budget, the same config at --extend epochs,
    labelled `<label>@e<extend>`. It is the same run for its first --epochs epochs (training
    never looks at its budget, store.derived), continued. A run not stored yet is not known to
    be censored, so the dry run prices its extension only once it is stored."""
    extend = getattr(args, "extend", None)
    if not extend:
        return []
    if extend <= args.epochs:
        raise ValueError(f"--extend {extend} must be more than --epochs {args.epochs}")
    out = []
    for label, cfg in runs:
        got = store.read(store_dir(args), cfg)
        if got is not None and got[0]["grok_epoch"] is None:
            out.append((f"{label}@e{extend}", _with_epochs(cfg, extend)))
    return out


def _with_epochs(cfg, epochs):
    """cfg with another budget (a copy: the study's own config is left as it is)."""
    longer = argparse.Namespace(**vars(cfg))
    longer.epochs = epochs
    return longer


def run_extended(runs, args, log=say):
    """sweep.run_sweep(runs), then each run that never grokked within its budget extended to --extend
    epochs (extension_runs) and read in its place. Returns ({label: (summary, history)},
    {label: budget}, {label: grok epoch}, {label}): the budget each label's result was censored
    at (--extend for an extended run, --epochs for the rest), the retrains that are not their
    run's continuation, and the extended runs that are (trained at once, below). A retrain is
    bitwise its run only on the machine and thread count that trained it; elsewhere their
    numbers differ within tens of epochs and their test accuracy parts after thousands (the runs
    are chaotic; docs/stats.md, rule 8), and a retrain may grok within the budget its run never
    grokked in. Such a retrain is another draw, not the censored run's continuation: the
    censored run stays, a bound at its own budget (rules v4, rule 8 as amended 2026-11-26), and
    the retrain's epoch is returned for the report. A retrain that also never grokked within the
    budget is read in place: a draw given what the censored run showed.
    An early-stopped run not stored yet is trained to --extend at once: it stops as its run would
    after it grokked, its first --epochs epochs are its run (store.derived reads the run from
    them), and if it never grokked within them it goes on as its own continuation, never
    another draw. (A run without an early stop would pay the longer budget whole: it is left to
    the above.)"""
    extend = getattr(args, "extend", None)
    if extend and not args.plot_only:
        at_once = [(f"{label}@e{extend}", _with_epochs(cfg, extend)) for label, cfg in runs
                   if cfg.stop_after is not None and not is_stored(args, cfg)]
        if at_once:
            log(f"training {len(at_once)} run(s) not stored yet to {extend} epochs at once (their first "
                f"{args.epochs} are the runs themselves)")
            sweep.run_sweep(at_once, args, log)
    results = sweep.run_sweep(runs, args, log)
    budgets = {label: args.epochs for label in results}
    longer = extension_runs(runs, args)
    if longer and args.plot_only:                 # a redraw reads the extensions stored so far
        have = [(label, cfg) for label, cfg in longer if is_stored(args, cfg)]
        if len(have) < len(longer):
            log(f"note: {len(longer) - len(have)} of {len(longer)} extended runs are not stored yet")
            write_partial(args, log)
        longer = have
    elsewhere, continued = {}, set()
    if longer:
        log(f"extending {len(longer)} run(s) that never grokked within {args.epochs} to {args.extend} epochs")
        got = sweep.run_sweep(longer, args, log)
        for label, _ in longer:
            base = label[:label.rindex("@")]
            if label not in got:
                continue
            grok = got[label][0]["grok_epoch"]
            if grok is not None and grok <= args.epochs:
                elsewhere[base] = grok
                log(f"  {label}: grokked at {grok}, within the {args.epochs} its run never grokked in: "
                    "another draw, not its continuation; the run stays, censored at its budget")
            else:
                if "derived_from" in results[base][0]:          # its run was read from this one: trained on
                    continued.add(base)
                results[base], budgets[base] = got[label], args.extend
    return results, budgets, elsewhere, continued


def budget_table(budgets, args, arms, name, elsewhere=None):
    """Under --extend: {"budgets": {arm: [the epochs each seed's run was censored at]}} (the
    verdicts read a censored run as a bound at its own budget), and "retrain_grokked_within":
    {arm: {seed: epoch}} for the retrains that grokked within the budget their run never grokked
    in (run_extended: another draw, reported, not read). Else {}. name(arm, seed): a run's label."""
    if not getattr(args, "extend", None):
        return {}
    other = {a: {str(s): elsewhere[name(a, s)] for s in args.seeds if name(a, s) in (elsewhere or {})} for a in arms}
    return {"budgets": {a: [budgets.get(name(a, s), args.epochs) for s in args.seeds] for a in arms},
            "retrain_grokked_within": {a: v for a, v in other.items() if v}}


def extended_text(budgets, args, elsewhere=None, continued=()):
    """The title's note of the runs --extend trained longer: those read in place, and those whose
    retrain grokked within the budget (another draw: the run stays, a triangle at the budget).
    continued: the runs trained on to --extend at once (run_extended), not retrained."""
    n, other = sum(b > args.epochs for b in budgets.values()), len(elsewhere or {})
    if not n + other:
        return ""
    how = ("retrained" if not continued else "trained on" if len(continued) == n + other else
           f"trained on ({len(continued)}) or retrained ({n + other - len(continued)})")
    text = f"\n{n + other} run(s) that never grokked within {args.epochs} {how} to {args.extend} epochs"
    return text + (f": {n} read, {other} grokked within {args.epochs} (another draw, not read)" if other else "")
