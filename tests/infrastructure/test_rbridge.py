"""The rpy2 bridge (energystats._rbridge)."""

import numpy as np
import pytest

from energystats import _rbridge


def test_r_available_reports_a_reason():
    ok, reason = _rbridge.r_available()
    assert isinstance(ok, bool)
    assert ok == (reason == "")


@pytest.mark.r
def test_versions_are_reported():
    v = _rbridge.r_versions()
    assert set(v) == {"R", "energy", "rpy2"}
    assert v["rpy2"].startswith("3.5.")


@pytest.mark.r
def test_matrix_round_trip(rng):
    X = rng.normal(size=(7, 3))
    np.testing.assert_array_equal(_rbridge.to_numpy(_rbridge.r_matrix(X)), X)
    np.testing.assert_array_equal(_rbridge.to_numpy(_rbridge.r_matrix(X[:, 0])), X[:, :1])
    D = np.abs(X[:, None, 0] - X[None, :, 0])
    np.testing.assert_array_equal(
        _rbridge.to_numpy(_rbridge.r_call("as.matrix", _rbridge.r_dist(D))), D
    )


@pytest.mark.r
def test_factor_and_keyword_names():
    f = _rbridge.r_factor(np.array(["b", "a", "b"]))
    assert list(_rbridge.r_call("levels", f)) == ["a", "b"]
    # iter_max is passed as iter.max
    out = _rbridge.r_call(
        "kgroups", _rbridge.r_matrix(np.arange(6.0)), 2, iter_max=5,
        cluster=np.array([1, 1, 1, 2, 2, 2]),
    )
    assert list(_rbridge.r_field(out, "cluster")) == [1, 1, 1, 2, 2, 2]


@pytest.mark.r
def test_starting_r_leaves_child_processes_their_own_libraries():
    """rpy2 sets LD_LIBRARY_PATH to the system's libraries while R starts; left in place, every
    child process (joblib's and Dask's workers) would load them in place of its own Python's."""
    import os
    import subprocess
    import sys

    before = os.environ.get("LD_LIBRARY_PATH")
    _rbridge.r_versions()
    assert os.environ.get("LD_LIBRARY_PATH") == before
    # R still works
    assert float(_rbridge.to_numpy(_rbridge.r_call("sum", _rbridge.r_matrix([1.0, 2.0])))[0]) == 3.0
    subprocess.run([sys.executable, "-c", "import ssl, numpy"], check=True)
