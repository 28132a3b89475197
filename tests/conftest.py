"""Shared fixtures; the ``r`` marker skips without R unless ENERGYSTATS_REQUIRE_R=1."""

import os

import numpy as np
import pytest

REQUIRE_R = os.environ.get("ENERGYSTATS_REQUIRE_R") == "1"


def pytest_configure(config):
    """Under pytest-xdist (``-n 2``) the workers share the cores: one BLAS thread and one
    energystats thread each, set here before the workers start and import numpy (threads
    that outnumber the cores spin against each other and run many times slower)."""
    if getattr(config.option, "numprocesses", None) and "PYTEST_XDIST_WORKER" not in os.environ:
        for name in (
            "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "ENERGYSTATS_NUM_THREADS",
        ):
            os.environ.setdefault(name, "1")


def pytest_runtest_setup(item):
    if item.get_closest_marker("r") is None:
        return
    from energystats._rbridge import r_available

    ok, reason = r_available()
    if not ok:
        r_missing(reason)


def r_missing(reason: str):
    """Skip the running test, or fail it when ENERGYSTATS_REQUIRE_R=1."""
    if REQUIRE_R:
        pytest.fail(f"ENERGYSTATS_REQUIRE_R=1 but R is not usable: {reason}")
    pytest.skip(reason)


@pytest.fixture
def rng(request):
    """A Generator seeded from the test's name: reproducible, different per test."""
    seed = sum(map(ord, request.node.nodeid))
    return np.random.default_rng(seed)


def brute_rho(x, y, exponent=1.0, metric="euclidean", sigma=None):
    """Semimetric by broadcasting differences (independent of scipy's cdist)."""
    x = np.asarray(x, float).reshape(len(x), -1)
    y = np.asarray(y, float).reshape(len(y), -1)
    d = np.sqrt(((x[:, None, :] - y[None, :, :]) ** 2).sum(-1))
    if metric == "euclidean":
        return d**exponent
    if metric == "exponential":
        return 2 - 2 * np.exp(-d / (2 * sigma))
    return 2 - 2 * np.exp(-(d**2) / (2 * sigma**2))


def brute_g(x, y, wx=None, wy=None, **kw):
    """Weighted mean semimetric g(X, Y), França et al. eq. (13), by brute force."""
    wx = np.ones(len(x)) if wx is None else np.asarray(wx, float)
    wy = np.ones(len(y)) if wy is None else np.asarray(wy, float)
    return float(wx @ brute_rho(x, y, **kw) @ wy / (wx.sum() * wy.sum()))
