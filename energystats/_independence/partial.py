r"""Partial distance covariance and correlation (Székely & Rizzo 2014): R ``pdcov``,
``pdcor``, ``pdcov.test``, ``pdcor.test``.

In the Hilbert space of U-centred matrices with inner product
:math:`(\tilde A \cdot \tilde B) = \frac{1}{n(n-3)}\sum_{i \ne j} \tilde A_{ij}\tilde B_{ij}`,
the projection of x's matrix onto the orthogonal complement of z's is
:math:`P_{z^\perp}(x) = \tilde A - \frac{(\tilde A \cdot \tilde C)}{(\tilde C \cdot \tilde C)}
\tilde C` (:math:`\tilde A` itself when :math:`(\tilde C \cdot \tilde C) = 0`), and

.. math::

    \mathrm{pdCov}(x, y; z) = (P_{z^\perp}(x) \cdot P_{z^\perp}(y)), \qquad
    \mathrm{pdCor}(x, y; z) = \frac{(P_{z^\perp}(x) \cdot P_{z^\perp}(y))}
    {|P_{z^\perp}(x)|\, |P_{z^\perp}(y)|}

(eq. 4.1-4.3; pdCor is 0 when a projection is 0). Both expand into the six inner products
of :math:`\tilde A, \tilde B, \tilde C`, which one pass over the tiles of the three
distance matrices gives (:func:`~energystats._operator.centred_gram`): no n x n array. The
tests permute the rows of :math:`P_{z^\perp}(x)` against :math:`P_{z^\perp}(y)` (Section
4.2): the permutation engine of the operator layer
(:func:`~energystats._operator.gathered_products`) holds the two projections, formed from the
operators' U-centred rows.
"""

from __future__ import annotations

import numpy as np

from .._frontdoor import door_of, front_door
from .._operator import PairwiseOperator, centred_gram, gathered_products
from .._parallel import check_n_jobs
from .._resampling import Pairings, check_options, null_distribution, pvalue
from .._semimetric import MetricLike, Scaling
from ._data import Variable, as_variables
from .dcov import gram_of, operators
from .testing import IndependenceTestResult, pairing_scale

__all__ = ["pdcor", "pdcor_test", "pdcov", "pdcov_test"]


def _coefficients(U: np.ndarray) -> tuple[float, float]:
    """c_x, c_y of P(x) = A - c_x C, P(y) = B - c_y C from the U-products U (3 x 3: x, y, z)."""
    if U[2, 2] > 0:
        return U[0, 2] / U[2, 2], U[1, 2] / U[2, 2]
    return 0.0, 0.0


def _partial(U: np.ndarray) -> tuple[float, float, float]:
    """(P(x).P(y), P(x).P(x), P(y).P(y)) from the U-products of x, y, z (3 x 3)."""
    cx, cy = _coefficients(U)
    xy = U[0, 1] - cx * U[1, 2] - cy * U[0, 2] + cx * cy * U[2, 2]
    xx = U[0, 0] - cx * U[0, 2] - cx * U[0, 2] + cx * cx * U[2, 2]
    yy = U[1, 1] - cy * U[1, 2] - cy * U[1, 2] + cy * cy * U[2, 2]
    return xy, max(xx, 0.0), max(yy, 0.0)


def _variables(x, y, z, metric, exponent, sigma) -> list[Variable]:
    variables = as_variables({"x": x, "y": y, "z": z}, metric, exponent, sigma, min_samples=4)
    return variables


def _correlation(xy: float, xx: float, yy: float) -> float:
    return float(xy / np.sqrt(xx * yy)) if xx * yy > 0 else 0.0


_PARAMETERS = """
    Parameters
    ----------
    x, y, z : array_like, DataFrame, categorical, or (n, n) distances
        The three samples, one observation per row, n >= 4 (see :func:`dcov`).
    exponent, metric, sigma
        The semimetric of each sample, as in :func:`dcov` (one value, or three).
    n_jobs : int, default=None
        joblib's ``n_jobs`` for the pass over the tiles.
"""


@front_door(("x", "y", "z"), distances=("x", "y", "z"), columns=("y", "z"), propagate=True)
def pdcov(
    x,
    y,
    z,
    *,
    exponent=1.0,
    metric: MetricLike | tuple = "euclidean",
    sigma=None,
    n_jobs=None,
    nan_policy: str = "raise",
) -> float:
    r"""Partial distance covariance of x and y removing z (R ``pdcov``): the U-centred inner
    product :math:`(P_{z^\perp}(x) \cdot P_{z^\perp}(y))` (Székely & Rizzo 2014, eq. 4.2),
    an unbiased-type statistic that can be negative.
    {parameters}
    Returns
    -------
    float

    Notes
    -----
    Time O(n^2 (p + q + r)), memory O(n): one pass over the tiles of the three distance
    matrices after their row sums.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=50); x = z + rng.normal(size=50); y = z + rng.normal(size=50)
    >>> es.dcor(x, y, estimator="U") > 0.1 > abs(es.pdcor(x, y, z))
    True
    """
    variables = _variables(x, y, z, metric, exponent, sigma)
    G = gram_of(variables, n_jobs=check_n_jobs(n_jobs))
    n = G.n
    xy, _, _ = _partial(G.U / (n * (n - 3)))
    fx, fy = variables[0].scaling.log2_factor, variables[1].scaling.log2_factor
    return Scaling(0, fx + fy).result(float(xy), "pdcov")


@front_door(("x", "y", "z"), distances=("x", "y", "z"), columns=("y", "z"), propagate=True)
def pdcor(
    x,
    y,
    z,
    *,
    exponent=1.0,
    metric: MetricLike | tuple = "euclidean",
    sigma=None,
    n_jobs=None,
    nan_policy: str = "raise",
) -> float:
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
    variables = _variables(x, y, z, metric, exponent, sigma)
    G = gram_of(variables, n_jobs=check_n_jobs(n_jobs))
    return _correlation(*_partial(G.U))


for _f in (pdcov, pdcor):
    _f.__doc__ = door_of(_f).document(_f.__doc__.replace("{parameters}", _PARAMETERS))
del _f


def _projection_rows(op: PairwiseOperator, z: PairwiseOperator, c: float):
    """Rows a:b of P(x) = U(x) - c U(z) (U-centred, zero diagonal), from the operators'
    U-centred rows: no n x n array."""

    def rows(a: int, b: int) -> np.ndarray:
        P = op.centred_rows(a, b, unbiased=True)
        P -= c * z.centred_rows(a, b, unbiased=True)
        return P

    return rows


def _test(
    x, y, z, statistic: str, n_resamples, exponent, metric, sigma, rng, exact, progress, n_jobs
) -> IndependenceTestResult:
    options = check_options(n_resamples, exact, progress=progress)
    n_jobs = check_n_jobs(n_jobs)
    variables = _variables(x, y, z, metric, exponent, sigma)
    n = variables[0].n
    ops = operators(variables, n_jobs=n_jobs)
    U = centred_gram(ops, n_jobs=n_jobs).U / (n * (n - 3))
    xy, xx, yy = _partial(U)
    cx, cy = _coefficients(U)
    # S(pi) = sum_ij P(y)_ij P(x)_pi(i)pi(j): the rows of P(x) permuted (Section 4.2)
    engine = gathered_products(
        _projection_rows(ops[1], ops[2], cy), _projection_rows(ops[0], ops[2], cx), n,
        reserve=sum(op.nbytes for op in ops), what="the partial test's matrices",
    )
    del ops  # the engine holds the two projections
    res = null_distribution(Pairings(n, engine), options, rng, n_jobs)
    observed, null, exact_used, count = res.observed, res.values, res.exact, res.count
    scale = pairing_scale(n, *engine.squares)
    what = "the partial distance covariance"
    p = pvalue(observed, null, exact=exact_used, scale=scale, what=what)
    fx, fy = variables[0].scaling.log2_factor, variables[1].scaling.log2_factor
    if statistic == "n pdcov":  # R's statistic: n times the U-product
        scale = 2.0 ** (fx + fy) / (n - 3)
        stat, values, estimate = (
            observed * scale,
            null * scale,
            Scaling(0, fx + fy).result(float(xy), "pdcov"),
        )
    else:
        norm = np.sqrt(xx * yy) * n * (n - 3)
        to_r = (
            (lambda s: np.asarray(s) / norm)
            if norm > 0
            else (lambda s: np.zeros_like(np.asarray(s, float)))
        )
        stat, values, estimate = float(to_r(observed)), to_r(null), _correlation(xy, xx, yy)
    return IndependenceTestResult(
        statistic=float(stat),
        pvalue=float(p),
        null_distribution=np.asarray(values, dtype=float),
        n_resamples=int(count),
        statistic_name=statistic,
        estimate=float(estimate),
        estimates=None,
        method="permutation",
        n_samples=n,
        exact=exact_used,
    )


_TEST_PARAMETERS = """
    Parameters
    ----------
    x, y, z : array_like, DataFrame, categorical, or (n, n) distances
        The three samples, one observation per row, n >= 4 (see :func:`dcov`).
    n_resamples : int, default=999
        Number of random permutations.
    exponent, metric, sigma
        The semimetric of each sample, as in :func:`dcov`.
    rng
    exact : {"auto", True, False}, default="auto"
        As in :func:`dcov_test`.
    progress : bool or None, default=None
    n_jobs : int, default=None
        joblib's ``n_jobs`` for blocks of permutations.
"""


@front_door(
    ("x", "y", "z"), distances=("x", "y", "z"), columns=("y", "z"), names=("x", "y", "z")
)
def pdcov_test(
    x,
    y,
    z,
    *,
    n_resamples: int = 999,
    exponent=1.0,
    metric: MetricLike | tuple = "euclidean",
    sigma=None,
    rng=None,
    exact="auto",
    progress: bool | None = None,
    n_jobs=None,
    nan_policy: str = "raise",
) -> IndependenceTestResult:
    r"""Permutation test of zero partial distance covariance (R ``pdcov.test``).

    The statistic is :math:`n\,(P_{z^\perp}(x) \cdot P_{z^\perp}(y))` (R's ``n V^*``);
    each permutation permutes the rows and columns of :math:`P_{z^\perp}(x)` (Székely &
    Rizzo 2014, Section 4.2), in float64 gathers on both cores: time O(B n^2), memory
    two n x n arrays (the two projections) beside the three distance matrices' operators.
    {parameters}
    Returns
    -------
    IndependenceTestResult
        ``estimate``: pdcov.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(1)
    >>> z = rng.normal(size=40); x = z + rng.normal(size=40); y = z + rng.normal(size=40)
    >>> es.pdcov_test(x, y, z, n_resamples=199, rng=0).pvalue > 0.05
    True
    """
    return _test(
        x, y, z, "n pdcov", n_resamples, exponent, metric, sigma, rng, exact, progress, n_jobs
    )


@front_door(
    ("x", "y", "z"), distances=("x", "y", "z"), columns=("y", "z"), names=("x", "y", "z")
)
def pdcor_test(
    x,
    y,
    z,
    *,
    n_resamples: int = 999,
    exponent=1.0,
    metric: MetricLike | tuple = "euclidean",
    sigma=None,
    rng=None,
    exact="auto",
    progress: bool | None = None,
    n_jobs=None,
    nan_policy: str = "raise",
) -> IndependenceTestResult:
    r"""Permutation test of zero partial distance correlation (R ``pdcor.test``): the
    statistic pdCor(x, y; z), whose norms do not change under the permutations, so the
    p-value is :func:`pdcov_test`'s with the same ``rng``.
    {parameters}
    Returns
    -------
    IndependenceTestResult
        ``estimate``: pdcor.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(1)
    >>> z = rng.normal(size=40); x = z + rng.normal(size=40); y = x + rng.normal(size=40)
    >>> es.pdcor_test(x, y, z, n_resamples=199, rng=0).pvalue
    0.005
    """
    return _test(
        x, y, z, "pdcor", n_resamples, exponent, metric, sigma, rng, exact, progress, n_jobs
    )


for _f in (pdcov_test, pdcor_test):
    _f.__doc__ = door_of(_f).document(_f.__doc__.replace("{parameters}", _TEST_PARAMETERS))
del _f
