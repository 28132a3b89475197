"""The Monte Carlo level tests are sized by a power argument (tests/_calibration.py)."""

from _calibration import (
    COARSE_LEVEL_REPS,
    FALSE_FAILURE,
    LEVEL_REPS,
    detection_probability,
    false_failure_probability,
    rejection_interval,
)


def test_level_tests_catch_a_doubled_level():
    assert detection_probability(LEVEL_REPS, 0.10) >= 0.9
    assert detection_probability(LEVEL_REPS, 0.01) >= 0.9
    assert false_failure_probability(LEVEL_REPS) < FALSE_FAILURE  # a correct test fails rarely
    # the 420 data sets of the 99% interval are not enough at 1e-4
    assert detection_probability(420, 0.10) < 0.6


def test_coarse_level_tests_catch_a_tripled_level():
    """The level tests whose level ``validation/`` measures finely catch a gross failure."""
    assert detection_probability(COARSE_LEVEL_REPS, 0.15) >= 0.98
    assert detection_probability(COARSE_LEVEL_REPS, 0.125) >= 0.8
    assert false_failure_probability(COARSE_LEVEL_REPS) < FALSE_FAILURE
    lo, hi = rejection_interval(COARSE_LEVEL_REPS)
    assert (round(lo * COARSE_LEVEL_REPS), round(hi * COARSE_LEVEL_REPS)) == (3, 32)


def test_three_level_checks_in_one_test_share_the_false_failure_probability():
    """test_poisson.py's level test checks three tests on the same data sets (a coarse level
    test: validation/gof_power.py measures the levels): 300 of them at 1e-4 / 3 each."""
    assert 3 * false_failure_probability(300, false_failure=FALSE_FAILURE / 3) < FALSE_FAILURE
    assert detection_probability(300, 0.15, false_failure=FALSE_FAILURE / 3) >= 0.97


def test_rejection_interval_contains_the_level():
    lo, hi = rejection_interval(LEVEL_REPS)
    assert lo < 0.05 < hi and hi < 0.09
    assert (round(lo * LEVEL_REPS), round(hi * LEVEL_REPS)) == (15, 59)
