"""Shared by the Monte Carlo tests of level: the binomial interval a rejection rate must fall
in, and the power argument that sizes them.

Every Monte Carlo assertion in ``tests/`` states beside it its false-failure probability
under the null it assumes, and that probability is below ``FALSE_FAILURE`` = 1e-4."""

from scipy.stats import binom

#: The largest false-failure probability a Monte Carlo assertion may have.
FALSE_FAILURE = 1e-4

#: Data sets per Monte Carlo level test: the interval around 0.05 whose false-failure
#: probability is below 1e-4 (counts outside [15, 59] of 700: 8.2e-5) then excludes the
#: rejection rate of a test whose true level is 0.10 with probability 0.91 and that of a
#: true level 0.01 with probability 0.99 (``tests/infrastructure/test_calibration.py`` checks it;
#: 420 data sets, enough at the 99% interval, give 0.59 at this false-failure probability).
LEVEL_REPS = 700

#: Data sets per Monte Carlo level test whose level is measured finely in ``validation/``
#: (which runs in CI in its --quick mode): the unit test then guards against a gross failure
#: only. The interval around 0.05 (counts outside [3, 32] of 300: 5.2e-5) excludes the
#: rejection rate of a test whose true level is 0.15 with probability 0.98 (0.125: 0.81), at
#: 3/7 of the cost of :data:`LEVEL_REPS`.
COARSE_LEVEL_REPS = 300


def rejection_interval(
    reps: int, level: float = 0.05, false_failure: float = FALSE_FAILURE
) -> tuple[float, float]:
    """The interval of the rejection rate over ``reps`` data sets of a test whose true level
    is ``level``: a rate outside it has probability below ``false_failure`` (at most
    ``false_failure / 2`` in each tail, exact binomial)."""
    lo, hi = binom.ppf(false_failure / 2, reps, level), binom.isf(false_failure / 2, reps, level)
    return lo / reps, hi / reps


def false_failure_probability(
    reps: int, level: float = 0.05, false_failure: float = FALSE_FAILURE
) -> float:
    """The exact probability that the rejection rate of a test whose true level is ``level``
    falls outside :func:`rejection_interval`: what a correct test fails with."""
    return detection_probability(reps, level, level, false_failure)


def detection_probability(
    reps: int, true_level: float, level: float = 0.05, false_failure: float = FALSE_FAILURE
) -> float:
    """Probability that the rejection rate of a test with ``true_level`` falls outside the
    interval of :func:`rejection_interval`: the power of the level check."""
    lo, hi = rejection_interval(reps, level, false_failure)
    return float(
        binom.cdf(round(lo * reps) - 1, reps, true_level)
        + binom.sf(round(hi * reps), reps, true_level)
    )
