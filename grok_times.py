"""Grokking times over seeds. A run that never groks is censored at the budget, never dropped: its
time is a lower bound, and so is a median it reaches. And the line fit of a scaling law (Eq. 7's
log t_grok against log 1/lambda). What every figure script reports; analysis.py re-exports it.
"""
import numpy as np


def censor(t, budget):
    """A grokking time with a never-grokked run (None) censored at the budget."""
    return float(budget) if t is None else float(t)


def censored_median(times, budget):
    """(median, censored?) of grokking times with None = never, censored at the budget. A
    censored median is a lower bound: the budget when the middle run never grokked, or
    (middle finite time + budget) / 2 when one of an even count's two middle runs never did."""
    if not times:
        return None, False
    vals = sorted(np.inf if t is None else float(t) for t in times)
    n = len(vals)
    mid = vals[n // 2 - 1: n // 2 + 1] if n % 2 == 0 else [vals[n // 2]]
    if all(np.isfinite(mid)):
        return float(np.mean(mid)), False
    finite = [v if np.isfinite(v) else float(budget) for v in mid]
    return float(np.mean(finite)), True


def fmt_median(times, budget):
    med, cens = censored_median(times, budget)
    return "-" if med is None else f"> {med:g}" if cens else f"{med:g}"


def fit_line(x, y):
    """Least squares y = a + b x; returns (a, b)."""
    b, a = np.polyfit(np.asarray(x, float), np.asarray(y, float), 1)
    return a, b
