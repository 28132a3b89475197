"""The public API gives today's outputs on fixed seeds, for every back-end (see
``tests/_api_cases.py``): integers and p-values exactly, statistics to 1e-12 relative."""

import numpy as np
import pytest

from tests import _api_cases

SNAPSHOT = _api_cases.load()


@pytest.mark.parametrize("name", sorted(_api_cases.CASES))
def test_same_outputs_as_the_snapshot(name):
    expected = SNAPSHOT[name]
    got = _api_cases.CASES[name]()
    assert sorted(got) == sorted(expected)
    for key, want in expected.items():
        value = np.asarray(got[key])
        assert value.shape == want.shape, key
        if want.dtype.kind in "iub" or "pvalue" in key:
            np.testing.assert_array_equal(value, want, err_msg=f"{name}: {key}")
        else:
            np.testing.assert_allclose(value, want, rtol=1e-12, atol=0, err_msg=f"{name}: {key}")
