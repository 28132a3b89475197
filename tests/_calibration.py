"""Shared by the Monte Carlo tests of level: the binomial interval a rejection rate must fall in."""

from scipy.stats import binom


def rejection_interval(reps: int, level: float = 0.05, coverage: float = 0.99) -> tuple[float, float]:
    """The central ``coverage`` interval of the rejection rate over ``reps`` data sets of a
    test whose true level is ``level``."""
    lo, hi = binom.ppf([(1 - coverage) / 2, (1 + coverage) / 2], reps, level)
    return lo / reps, hi / reps
