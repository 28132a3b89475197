r"""Partial distance covariance and correlation (Székely & Rizzo 2014): R ``pdcov``, ``pdcor``,
``pdcov.test``, ``pdcor.test``.

In the Hilbert space of U-centred matrices with :math:`(\tilde A \cdot \tilde B) =
\frac{1}{n(n-3)} \sum_{i \ne j} \tilde A_{ij} \tilde B_{ij}`, the projection of x's matrix onto
the orthogonal complement of z's is :math:`P_{z^\perp}(x) = \tilde A - \frac{(\tilde A \cdot
\tilde C)}{(\tilde C \cdot \tilde C)} \tilde C` (:math:`\tilde A` when :math:`(\tilde C \cdot
\tilde C) = 0`), and

.. math::

    \mathrm{pdCov}(x, y; z) = (P_{z^\perp}(x) \cdot P_{z^\perp}(y)), \qquad
    \mathrm{pdCor}(x, y; z) = \frac{(P_{z^\perp}(x) \cdot P_{z^\perp}(y))}
    {|P_{z^\perp}(x)|\, |P_{z^\perp}(y)|}

(eq. 4.1-4.3; pdCor is 0 when a projection is 0): both from the six inner products of
:math:`\tilde A, \tilde B, \tilde C`. The tests permute the rows and columns of
:math:`P_{z^\perp}(x)` against :math:`P_{z^\perp}(y)` (Section 4.2).
"""

from __future__ import annotations

import math

import numpy as np

from .._frontdoor import front_door
from .._parallel import check_n_jobs
from .._random import as_generator
from .._resample import check_resamples, null_distribution, permutation_draws, pvalue
from .._semimetric import Scaling
from .dcov import centred, gram, ratio
from .testing import IndependenceTestResult, _held, gathered, halved, item_bytes, use_exact
from .variables import as_variables

__all__ = ["pdcor", "pdcor_test", "pdcov", "pdcov_test"]


def _partial(U: np.ndarray) -> tuple[tuple[float, float], tuple[float, float, float]]:
    """(c_x, c_y) of P(x) = A - c_x C, P(y) = B - c_y C, and (P(x).P(y), P(x).P(x),
    P(y).P(y)), from the U-products of x, y, z (3 x 3)."""
    cx, cy = (U[0, 2] / U[2, 2], U[1, 2] / U[2, 2]) if U[2, 2] > 0 else (0.0, 0.0)
    xy = U[0, 1] - cx * U[1, 2] - cy * U[0, 2] + cx * cy * U[2, 2]
    xx = U[0, 0] - 2.0 * cx * U[0, 2] + cx * cx * U[2, 2]
    yy = U[1, 1] - 2.0 * cy * U[1, 2] + cy * cy * U[2, 2]
    return (cx, cy), (xy, max(xx, 0.0), max(yy, 0.0))


def _three(x, y, z, metric, exponent, sigma, n_jobs=None):
    variables = as_variables({"x": x, "y": y, "z": z}, metric, exponent, sigma, min_samples=4)
    n = variables[0].n
    return variables, gram(variables, unbiased=True, n_jobs=check_n_jobs(n_jobs)) / (
        n * (n - 3.0))


_PARAMETERS = """
    Parameters
    ----------
    x, y, z : array_like, DataFrame, categorical, or (n, n) distances
        The three samples, one observation per row, n >= 4 (see :func:`dcov`).
    exponent, metric, sigma
        The semimetric of each sample, as in :func:`dcov` (one value, or three).
    n_jobs : int, default=None
        joblib's ``n_jobs`` for the bands of streamed matrices.
    nan_policy : {"raise", "omit", "propagate"}, default="raise"
        Rows with a missing value: an error, dropped from all three, or a NaN result.
"""


def _document(f):
    f.__doc__ = f.__doc__.replace("{parameters}", _PARAMETERS)
    return f


@front_door(("x", "y", "z"), distances=("x", "y", "z"), columns=("y", "z"), propagate=True)
@_document
def pdcov(x, y, z, *, exponent=1.0, metric="euclidean", sigma=None, n_jobs=None,
          nan_policy: str = "raise") -> float:
    r"""Partial distance covariance of x and y removing z (R ``pdcov``): the U-centred inner
    product :math:`(P_{z^\perp}(x) \cdot P_{z^\perp}(y))` (Székely & Rizzo 2014, eq. 4.2),
    which can be negative.
    {parameters}
    Returns
    -------
    float

    Notes
    -----
    Time O(n^2 (p + q + r)); memory the three matrices when they fit ``working_memory``, else
    O(n) in tiles.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=50); x = z + rng.normal(size=50); y = z + rng.normal(size=50)
    >>> es.dcor(x, y, estimator="U") > 0.1 > abs(es.pdcor(x, y, z))
    True
    """
    variables, U = _three(x, y, z, metric, exponent, sigma, n_jobs)
    f = variables[0].scaling.log2_factor + variables[1].scaling.log2_factor
    return Scaling(0, f).result(float(_partial(U)[1][0]), "pdcov")


@front_door(("x", "y", "z"), distances=("x", "y", "z"), columns=("y", "z"), propagate=True)
@_document
def pdcor(x, y, z, *, exponent=1.0, metric="euclidean", sigma=None, n_jobs=None,
          nan_policy: str = "raise") -> float:
    r"""Partial distance correlation of x and y removing z (R ``pdcor``), in [-1, 1]
    (Székely & Rizzo 2014, eq. 4.3); 0 when a projection is 0.
    {parameters}
    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.arange(10.0)
    >>> round(es.pdcor(x, x**2, np.cos(x)), 6) == round(es.pdcor(x**2, x, np.cos(x)), 6)
    True
    """
    return ratio(*_partial(_three(x, y, z, metric, exponent, sigma, n_jobs)[1])[1])


def _test(x, y, z, statistic: str, n_resamples, exponent, metric, sigma, rng, exact,
          progress, n_jobs) -> IndependenceTestResult:
    B = check_resamples(n_resamples)
    variables, U = _three(x, y, z, metric, exponent, sigma, n_jobs)
    n = variables[0].n
    exact = use_exact(exact, n, B)
    (cx, cy), (xy, xx, yy) = _partial(U)
    A, Bm, C = (centred(_held(v), unbiased=True) for v in variables)
    Px, Py = A - cx * C, Bm - cy * C  # S(pi) = sum_ij P(y)_ij P(x)_pi(i)pi(j)
    del A, Bm, C
    gen = as_generator(rng)
    U = halved(Py)
    null = null_distribution(lambda P: gathered(U, Px, P), permutation_draws(gen, n, exact),
                             math.factorial(n) if exact else B, item_bytes(n), progress,
                             "permutations")
    observed = float(np.vdot(Py, Px))
    scale = 4.0 * np.sqrt(64.0 * n * np.vdot(Px, Px) * np.vdot(Py, Py))
    p = pvalue(observed, null, exact=exact, scale=scale, what="the partial distance covariance")
    f = variables[0].scaling.log2_factor + variables[1].scaling.log2_factor
    if statistic == "n pdcov":  # R's statistic: n times the U-product
        to_stat = lambda s: np.asarray(s) * 2.0**f / (n - 3)  # noqa: E731
        estimate = Scaling(0, f).result(float(xy), "pdcov")
    else:
        norm = np.sqrt(xx * yy) * n * (n - 3)
        to_stat = (lambda s: np.asarray(s) / norm) if norm > 0 else (  # noqa: E731
            lambda s: np.zeros_like(np.asarray(s, float)))
        estimate = ratio(xy, xx, yy)
    return IndependenceTestResult(
        statistic=float(to_stat(observed)), pvalue=float(p),
        null_distribution=np.asarray(to_stat(null), dtype=float), n_resamples=int(null.size),
        statistic_name=statistic, estimate=float(estimate), estimates=None,
        method="permutation", n_samples=n, exact=exact)


_TEST_PARAMETERS = """
    Parameters
    ----------
    x, y, z : array_like, DataFrame, categorical, or (n, n) distances
        The three samples, one observation per row, n >= 4 (see :func:`dcov`).
    n_resamples : int, default=999
        Number of random permutations.
    exponent, metric, sigma
        The semimetric of each sample, as in :func:`dcov`.
    rng : {None, int, numpy.random.Generator}, default=None
        It draws the permutations.
    exact : {"auto", True, False}, default="auto"
        As in :func:`dcov_test`.
    progress : bool or None, default=None
        Show a progress bar over blocks of permutations.
    n_jobs : int, default=None
        joblib's ``n_jobs`` for the bands of streamed matrices.
    nan_policy : {"raise", "omit"}, default="raise"
        Rows with a missing value: an error, or dropped from all three.
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.

    Returns
    -------
    IndependenceTestResult

    Notes
    -----
    Time O(B n^2); memory the two projections and the three matrices, n x n each, within
    ``working_memory``.
"""


def _document_test(f):
    f.__doc__ = f.__doc__.replace("{parameters}", _TEST_PARAMETERS)
    return f


@front_door(("x", "y", "z"), distances=("x", "y", "z"), columns=("y", "z"),
            names=("x", "y", "z"))
@_document_test
def pdcov_test(x, y, z, *, n_resamples: int = 999, exponent=1.0, metric="euclidean",
               sigma=None, rng=None, exact="auto", progress: bool | None = None, n_jobs=None,
               nan_policy: str = "raise") -> IndependenceTestResult:
    r"""Permutation test of zero partial distance covariance (R ``pdcov.test``): the statistic
    :math:`n\,(P_{z^\perp}(x) \cdot P_{z^\perp}(y))` (R's ``n V^*``), ``estimate`` pdcov.
    {parameters}
    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(1)
    >>> z = rng.normal(size=40); x = z + rng.normal(size=40); y = z + rng.normal(size=40)
    >>> es.pdcov_test(x, y, z, n_resamples=199, rng=0).pvalue > 0.05
    True
    """
    return _test(x, y, z, "n pdcov", n_resamples, exponent, metric, sigma, rng, exact, progress,
                 n_jobs)


@front_door(("x", "y", "z"), distances=("x", "y", "z"), columns=("y", "z"),
            names=("x", "y", "z"))
@_document_test
def pdcor_test(x, y, z, *, n_resamples: int = 999, exponent=1.0, metric="euclidean",
               sigma=None, rng=None, exact="auto", progress: bool | None = None, n_jobs=None,
               nan_policy: str = "raise") -> IndependenceTestResult:
    r"""Permutation test of zero partial distance correlation (R ``pdcor.test``): the
    statistic pdCor(x, y; z), whose norms do not change under the permutations, so the
    p-value is :func:`pdcov_test`'s with the same ``rng``; ``estimate`` pdcor.
    {parameters}
    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(1)
    >>> z = rng.normal(size=40); x = z + rng.normal(size=40); y = x + rng.normal(size=40)
    >>> es.pdcor_test(x, y, z, n_resamples=199, rng=0).pvalue
    0.005
    """
    return _test(x, y, z, "pdcor", n_resamples, exponent, metric, sigma, rng, exact, progress,
                 n_jobs)
