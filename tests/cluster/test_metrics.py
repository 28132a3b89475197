"""Agreement measures (energystats._metrics)."""

import numpy as np
import pytest

from energystats._metrics import accuracy, variation_of_information


def test_accuracy_is_the_best_matching():
    assert accuracy([1, 1, 0, 0, 2], ["a", "a", "b", "b", "b"]) == pytest.approx(4 / 5)
    assert accuracy([0, 1, 2], [2, 0, 1]) == 1.0


def test_variation_of_information():
    assert variation_of_information([0, 0, 1, 1], ["x", "x", "y", "y"]) == pytest.approx(
        0.0, abs=1e-15
    )
    # independent halves: VI = H(a) + H(b) = 2 log 2
    assert variation_of_information([0, 0, 1, 1], [0, 1, 0, 1]) == pytest.approx(
        2 * np.log(2), rel=1e-12
    )
