"""The Monte Carlo level tests are sized by a power argument (tests/_calibration.py)."""

from _calibration import LEVEL_REPS, detection_probability, rejection_interval


def test_level_tests_catch_a_doubled_level():
    assert detection_probability(LEVEL_REPS, 0.10) >= 0.9
    assert detection_probability(LEVEL_REPS, 0.01) >= 0.9
    assert detection_probability(LEVEL_REPS, 0.05) <= 0.01  # a correct test fails rarely
    assert detection_probability(100, 0.10) < 0.5  # the 100 data sets some tests used were not enough


def test_rejection_interval_contains_the_level():
    lo, hi = rejection_interval(LEVEL_REPS)
    assert lo < 0.05 < hi and hi < 0.08
