"""Shared by the Monte Carlo tests of level: the binomial interval a rejection rate must fall
in, and the power argument that sizes them."""

from scipy.stats import binom

#: Data sets per Monte Carlo level test: the 99% interval around 0.05 then excludes the
#: rejection rate of a test whose true level is 0.10 with probability >= 0.9
#: (``tests/test_calibration.py`` checks it).
LEVEL_REPS = 420


def rejection_interval(reps: int, level: float = 0.05, coverage: float = 0.99) -> tuple[float, float]:
    """The central ``coverage`` interval of the rejection rate over ``reps`` data sets of a
    test whose true level is ``level``."""
    lo, hi = binom.ppf([(1 - coverage) / 2, (1 + coverage) / 2], reps, level)
    return lo / reps, hi / reps


def detection_probability(reps: int, true_level: float, level: float = 0.05, coverage: float = 0.99) -> float:
    """Probability that the rejection rate of a test with ``true_level`` falls outside the
    interval of :func:`rejection_interval`: the power of the level check."""
    lo, hi = rejection_interval(reps, level, coverage)
    return float(binom.cdf(round(lo * reps) - 1, reps, true_level) + binom.sf(round(hi * reps), reps, true_level))
