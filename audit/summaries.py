"""The summaries the verdicts read (results/<study>.json, written by the study scripts), as
audit/claims.py and audit/policy.py read them: loaded (on some seeds only, while the after-data
rule judges a part on the seeds stored after its choices), per seed, and a part's name. No torch.
"""
import contextvars
import json
import os

from audit import studies


def load(results, name):
    path = os.path.join(results, name)
    d = json.load(open(path)) if os.path.exists(path) else None
    keep = _ONLY_SEEDS.get().get(name)
    return d if d is None or keep is None else restrict(d, keep)


# {summary file: the seeds a part is judged on}: set by date_check while it judges a part on the seeds
# stored after its choices (rules v4, the after-data rule by dates)
_ONLY_SEEDS = contextvars.ContextVar("only_seeds", default={})


def restrict(d, keep, seeds=None, by_seed=False):
    """A summary read on the seeds `keep` only: every list aligned with the nearest `seeds` list, every
    dict keyed by exactly those seeds (or named `seeds`), and the retrains' {seed: epoch} keep those seeds'
    entries. (date_check checks the result: a part judged on more seeds than kept is not read.)"""
    if not isinstance(d, dict):
        return d
    own = d.get("seeds")
    seeds = own if isinstance(own, list) and all(isinstance(x, int) for x in own) else seeds
    if by_seed:
        return {x: w for x, w in d.items() if int(x) in keep}
    out = {}
    for k, v in d.items():
        digits = isinstance(v, dict) and v and all(str(x).isdigit() for x in v)
        if k == "seeds" and isinstance(v, list):
            out[k] = [x for x in v if x in keep]
        elif digits and (k == "seeds" or (seeds is not None and {int(x) for x in v} == set(seeds))):
            out[k] = {x: restrict(w, keep, seeds) for x, w in v.items() if int(x) in keep}
        elif k == "retrain_grokked_within" and isinstance(v, dict):
            out[k] = {arm: restrict(w, keep, seeds, by_seed=True) for arm, w in v.items()}
        elif isinstance(v, list) and seeds is not None and len(v) == len(seeds):
            out[k] = [restrict(w, keep, seeds) for x, w in zip(seeds, v) if x in keep]
        else:
            out[k] = restrict(v, keep, seeds)
    return out


def summary(results, role, use=None):
    """The summary a claim reads for one of its studies (`role`, a registry name). `use` maps
    roles to the studies read in their place ({"priors": "priors_rho"}: the same rules on a
    variant's summary); a role it leaves out reads nothing. None: every role reads itself."""
    name = role if use is None else use.get(role)
    return None if name is None else load(results, studies.summary(name))


def by_seed(groks, seeds):
    """{seed: grok epoch or None} from a list aligned with seeds (runs not on disk, 'missing',
    dropped: they are not censored, they do not exist)."""
    return {s: g for s, g in zip(seeds, groks) if g != "missing"}


def cell_times(cell):
    """{seed: grok epoch or None} of a regime-map cell (its grok is keyed by seed)."""
    return {int(s): t for s, t in cell["grok"].items() if t != "missing"}


def naming(who, what):
    """A part's name in two fields, "who: what" (a setting, what is claimed of it), so that the
    README can group the settings that share a claim without reading the name apart."""
    return {"label": f"{who}: {what}", "who": who, "what": what}


NAMING = ("label", "who", "what")          # the fields a part's verdict keeps whatever judges it


def label(part, v):
    """A part's name without its asides and the seeds it was measured at, as the claim function set
    it ("label"; the README's, and what a part at other seeds is matched by), else its name."""
    return v.get("label", part)