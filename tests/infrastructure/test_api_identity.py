"""The public API gives today's outputs on fixed seeds, for every back-end (see
``tests/_api_cases.py``): integers and p-values exactly, statistics to 1e-12 relative (of the
largest entry of an array). The cases run in one subprocess."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests import _api_cases

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    out = tmp_path_factory.mktemp("api") / "outputs.json"
    subprocess.run([sys.executable, "-m", "tests._api_cases", "--out", str(out)], cwd=ROOT,
                   check=True)
    return _api_cases.load(out)


@pytest.mark.parametrize("name", sorted(_api_cases.CASES))
def test_same_outputs_as_the_snapshot(name, outputs):
    expected = _api_cases.load()[name]
    got = outputs[name]
    assert sorted(got) == sorted(expected)
    for key, want in expected.items():
        value = got[key]
        assert value.shape == want.shape, key
        if want.dtype.kind in "iub" or "pvalue" in key:
            np.testing.assert_array_equal(value, want, err_msg=f"{name}: {key}")
        else:
            # to 1e-12 of the array's largest entry: a null value S = T - W rounds relative to
            # the sums it is a difference of, not to itself (one value may be far smaller)
            scale = float(np.abs(want).max()) if want.size else 0.0
            np.testing.assert_allclose(
                value, want, rtol=1e-12, atol=1e-12 * scale, err_msg=f"{name}: {key}"
            )
