r"""Distance covariance and correlation (Székely, Rizzo & Bakirov 2007): the V-statistics of
R's ``dcov``, ``dcor`` and ``DCOR``, the unbiased U-statistics of ``dcovU``, ``bcdcor`` and
``dcovU_stats`` (Székely & Rizzo 2014), and the centrings R exports (``D_center``,
``U_center``, ``U_product``).

With :math:`A` and :math:`B` the double-centred distance matrices of x and y (eq. 2.7),

.. math::

    \mathcal V_n^2(x, y) = \frac{1}{n^2} \sum_{i,j} A_{ij} B_{ij}, \qquad
    \mathcal R_n^2(x, y) = \frac{\mathcal V_n^2(x, y)}{\sqrt{\mathcal V_n^2(x)\,\mathcal V_n^2(y)}}

(eq. 2.8, 2.9); with the U-centred matrices :math:`\tilde A, \tilde B` (Székely & Rizzo 2014,
eq. 3.1), :math:`(\tilde A \cdot \tilde B) = \frac{1}{n(n-3)} \sum_{i \ne j} \tilde A_{ij}
\tilde B_{ij}` is an unbiased estimator of :math:`\mathcal V^2(X, Y)` (eq. 3.2) and
:math:`\mathcal R^*_n = (\tilde A \cdot \tilde B) / \sqrt{(\tilde A \cdot \tilde A)(\tilde B
\cdot \tilde B)}` the bias-corrected squared distance correlation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._frontdoor import front_door
from .._parallel import check_n_jobs
from .._random import check_rng
from .._results import ResultMixin, _number
from .._scale import Streamed
from .._scale.concordance import line_gram
from .._scale.streamed import centred_sums
from .._semimetric import Scaling
from .._validation import as_data, unit_scale
from .projection import projected_squares
from .variables import Variable, as_variables

__all__ = ["DCovStatsResult", "centred", "d_center", "dcor", "dcov", "dcov_stats", "estimates",
           "gram", "ratio", "stats_result", "u_center", "u_product"]

#: From this many points two samples on the line take the O(n log n) sums (measured:
#: benchmarks/bench_independence.py; below, the held matrices are faster).
LINE_N = 1000


def centred(D: np.ndarray, unbiased: bool = False) -> np.ndarray:
    r"""The double-centred matrix :math:`A_{ij} = a_{ij} - \bar a_{i\cdot} - \bar a_{\cdot j} +
    \bar a_{\cdot\cdot}` (Székely, Rizzo & Bakirov 2007, eq. 2.7), or with ``unbiased`` the
    U-centred :math:`\tilde A_{ij} = a_{ij} - \frac{a_{i\cdot} + a_{\cdot j}}{n - 2} +
    \frac{a_{\cdot\cdot}}{(n-1)(n-2)}`, 0 on the diagonal (Székely & Rizzo 2014, eq. 3.1)."""
    n = D.shape[0]
    rows = D.sum(axis=1)
    if unbiased:
        C = D - (rows[:, None] + rows[None, :]) / (n - 2) + rows.sum() / ((n - 1) * (n - 2))
        np.fill_diagonal(C, 0.0)
        return C
    mean = rows / n
    return D - mean[:, None] - mean[None, :] + mean.mean()


def gram(variables: list[Variable], unbiased: bool = False, algorithm: str = "auto",
         n_jobs=None) -> np.ndarray:
    """m x m sums :math:`\\sum_{ij} C^{(k)}_{ij} C^{(l)}_{ij}` of the variables' centred
    distance matrices (double-centred, or U-centred with ``unbiased``): held matrices when
    they fit the memory budget, streamed tiles otherwise, the line's O(n log n) sums for
    one-dimensional |x - y| (``algorithm="sorted"``, or ``"auto"`` from :data:`LINE_N`
    points)."""
    lines = [v.line for v in variables]
    on_line = all(x is not None for x in lines)
    if algorithm == "sorted" and not on_line:
        raise ValueError("`algorithm`='sorted' needs one-dimensional data with "
                         "metric='euclidean' and exponent=1 for every variable.")
    if algorithm == "sorted" or (algorithm == "auto" and on_line and variables[0].n >= LINE_N):
        return line_gram(lines, unbiased)
    mats = [v.matrix(n_jobs) for v in variables]
    if any(isinstance(D, Streamed) for D in mats):
        return centred_sums(mats, unbiased)
    C = [centred(D, unbiased) for D in mats]
    return np.array([[np.vdot(a, b) for b in C] for a in C])


@dataclass(frozen=True, repr=False)
class DCovStatsResult(ResultMixin):
    r"""Distance covariance, correlation and variances of two samples, from one pass.

    Every field is a squared quantity under both estimators (the U-statistics can be negative
    and have no square root); :meth:`r_names` gives the four numbers R prints.

    Attributes
    ----------
    dcov2 : float
        ``"V"``: :math:`\mathcal V_n^2(x, y)` (R ``dcov(x, y)^2``); ``"U"``: the unbiased
        estimator of :math:`\mathcal V^2(X, Y)` (R ``dcovU``).
    dcor2 : float
        ``"V"``: :math:`\mathcal R_n^2(x, y)` in [0, 1] (R ``dcor(x, y)^2``); ``"U"``: the
        bias-corrected :math:`\mathcal R^*_n` in [-1, 1] (R ``bcdcor``).
    dvar2_x, dvar2_y : float
        ``"V"``: :math:`\mathcal V_n^2(x)`, :math:`\mathcal V_n^2(y)` (the squares of R
        ``DCOR``'s ``dVarX``, ``dVarY``); ``"U"``: R ``dcovU_stats``' ``dVarXU``, ``dVarYU``.
    estimator : str
        ``"V"`` or ``"U"``.
    n_samples : int
        Sample size (after dropping rows with missing values).
    """

    dcov2: float
    dcor2: float
    dvar2_x: float
    dvar2_y: float
    estimator: str
    n_samples: int

    @property
    def _title(self) -> str:
        if self.estimator == "V":
            return "Distance covariance statistics, V-statistics (R DCOR)"
        return "Distance covariance statistics, unbiased U-statistics (R dcovU_stats)"

    def r_names(self) -> dict[str, float]:
        """R's names and numbers: ``DCOR``'s ``dCov``, ``dCor``, ``dVarX``, ``dVarY`` (the square
        roots of the fields) for "V"; ``dcovU_stats``' ``dCovU``, ``bcdcor``, ``dVarXU``,
        ``dVarYU`` (the fields) for "U"."""
        values = (self.dcov2, self.dcor2, self.dvar2_x, self.dvar2_y)
        if self.estimator == "V":
            return dict(zip(("dCov", "dCor", "dVarX", "dVarY"), map(float, np.sqrt(values))))
        return dict(zip(("dCovU", "bcdcor", "dVarXU", "dVarYU"), values))

    def _extra_lines(self) -> list[str]:
        return ["R's numbers: " + ", ".join(
            f"{name} = {_number(value)}" for name, value in self.r_names().items())]


def ratio(xy: float, xx: float, yy: float) -> float:
    """xy / sqrt(xx yy) within [-1, 1] (rounding, or a projected estimate, can pass 1), 0 when
    a variable is constant (as R defines dCor then)."""
    return float(np.clip(xy / np.sqrt(xx * yy), -1.0, 1.0)) if xx * yy > 0 else 0.0


def squares(G: np.ndarray, n: int, estimator: str) -> np.ndarray:
    """The V-statistics :math:`\\mathcal V_n^2` (G / n^2) or U-statistics (G / (n(n-3))) of the
    sums G; a V-statistic of two variables below zero beyond rounding is refused: their
    distances are not of negative type (Lyons 2013)."""
    if estimator == "U":
        return G / (n * (n - 3.0))
    V = G / float(n * n)
    bound = 1e-10 * np.sqrt(np.outer(np.abs(np.diag(V)), np.abs(np.diag(V))))
    if (V < -bound).any():
        raise ValueError(
            f"`x` and `y` give V_n^2 = {V.min():.4g} < 0 beyond rounding: their distances are "
            "not of negative type (as D**3 or a non-Euclidean dissimilarity), for which "
            "distance covariance is not defined. Pass distances of negative type: Euclidean "
            "distances, or their powers in (0, 2].")
    return np.maximum(V, 0.0)


def _check_estimator(estimator: str, n: int) -> int:
    if estimator not in ("V", "U"):
        raise ValueError(f"`estimator` must be 'V' or 'U', got {estimator!r}.")
    if estimator == "U" and n < 4:
        raise ValueError("`estimator`='U' needs at least 4 samples (the U-statistics divide by "
                         f"n(n - 3)), got {n}.")
    return n


def estimates(variables: list[Variable], estimator: str, G: np.ndarray | None = None,
              **options) -> np.ndarray:
    """The 2 x 2 squares (:func:`squares`) of the first two variables, in the units of their
    rescaled data (G: their :func:`gram`, when known)."""
    n = _check_estimator(estimator, variables[0].n)
    return squares(gram(variables[:2], estimator == "U", **options) if G is None else G, n,
                   estimator)


def stats_result(S: np.ndarray, variables: list[Variable], estimator: str) -> DCovStatsResult:
    """The result of the squares S, scaled back to the data's units (``OverflowError`` where one
    is beyond float64)."""
    fx, fy = (v.scaling.log2_factor for v in variables[:2])
    names = ("dCov^2", "dVar(x)^2", "dVar(y)^2") if estimator == "V" else (
        "dCovU", "dVarXU", "dVarYU")
    return DCovStatsResult(
        dcov2=Scaling(0, fx + fy).result(float(S[0, 1]), names[0]),
        dcor2=ratio(S[0, 1], S[0, 0], S[1, 1]),
        dvar2_x=Scaling(0, 2 * fx).result(float(S[0, 0]), names[1]),
        dvar2_y=Scaling(0, 2 * fy).result(float(S[1, 1]), names[2]),
        estimator=estimator, n_samples=variables[0].n)


def _two(x, y, exponent, metric, sigma, estimator, algorithm, n_jobs, approximation,
         n_projections, rng) -> tuple[np.ndarray, list[Variable]]:
    check_rng(rng)  # on every path; only the projections draw from it
    variables = as_variables({"x": x, "y": y}, metric, exponent, sigma)
    if algorithm not in ("auto", "sorted", "pairwise"):
        raise ValueError(f"`algorithm` must be one of ('auto', 'sorted', 'pairwise'), got "
                         f"{algorithm!r}.")
    n_jobs = check_n_jobs(n_jobs)
    if approximation is None:
        return estimates(variables, estimator, algorithm=algorithm, n_jobs=n_jobs), variables
    if approximation != "projection":
        raise ValueError(f"`approximation` must be None or 'projection', got {approximation!r}.")
    _check_estimator(estimator, variables[0].n)
    return projected_squares(variables, estimator, n_projections, rng), variables


_PARAMETERS = """
    Parameters
    ----------
    x : array_like of shape (n,) or (n, p), DataFrame, categorical, or (n, n) distances
        First sample, one observation per row. Strings or an unordered pandas categorical
        get the 0-1 distance (R's unordered factors); an ordered categorical is its codes.
    y : array_like of shape (n,) or (n, q), DataFrame, categorical, or (n, n) distances
        Second sample, the same number of rows.
    exponent : float or pair of floats, default=1.0
        alpha in (0, 2] of :math:`\\|x - x'\\|^\\alpha` (R's ``index``); 2 gives the squared
        product-moment covariances. A precomputed matrix is used as it is and refuses
        alpha != 1 (R's ``dcov(Dx, Dy, index = a)`` of ``dist`` objects is ``dcov(Dx ** a,
        Dy ** a, metric="precomputed")``). Distances not of negative type (V_n^2 < 0 beyond
        rounding, as for D**3) raise a ``ValueError``.
    metric : str, callable, or pair of them, default="euclidean"
        The semimetric of each sample (:func:`pairwise_semimetric`): ``"euclidean"``,
        ``"gaussian"`` or ``"exponential"`` (with ``sigma``; distance covariance is then the
        HSIC of the kernel, Sejdinovic et al. 2013), ``"discrete"`` (0-1), ``"precomputed"``
        (a distance matrix, as R's ``dist`` objects), or a callable; a pair gives x and y
        different ones, e.g. ``("euclidean", "precomputed")``.
    sigma : float or pair of floats, default=None
        Scale of ``"gaussian"`` and ``"exponential"``.
    estimator : {"V", "U"}, default="V"
        ``"V"``: the V-statistics of Székely, Rizzo & Bakirov (2007); ``"U"``: the unbiased
        U-statistics of Székely & Rizzo (2014), n >= 4.
    algorithm : {"auto", "sorted", "pairwise"}, default="auto"
        ``"sorted"``: the O(n log n) sums for two one-dimensional samples with exponent 1
        (Huo & Székely 2016), which ``"auto"`` takes for them from 1,000 points;
        ``"pairwise"``: every pair, O(n^2).
    n_jobs : int, default=None
        joblib's ``n_jobs`` for the bands of streamed matrices (Dask inside
        ``joblib.parallel_config(backend="dask")``).
    approximation : {None, "projection"}, default=None
        ``"projection"``: the randomly projected distance covariance of Huang & Huo (2017),
        the average of ``n_projections`` one-dimensional statistics along random directions
        times the sphere constants (Euclidean distance, exponent 1), unbiased over the
        directions, O(K n log n) time and O(n) memory. The distance variances use a second
        set of directions per sample; dCor is clipped to 1.
    n_projections : int, default=200
        K, the number of random directions, for ``approximation="projection"``.
    rng : {None, int, numpy.random.Generator}, default=None
        It draws the directions of ``approximation="projection"``.
    nan_policy : {"raise", "omit", "propagate"}, default="raise"
        Rows of x and y with a missing value: an error, dropped from both, or a NaN result.

    Notes
    -----
    Time O(n^2 (p + q)): the two matrices held when they fit ``working_memory``, otherwise
    streamed in tiles (memory O(n)); O(n log n) for two one-dimensional samples with
    exponent 1.
"""

_DATA_NAME = """    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.
"""


def _document(f):
    """The shared Parameters and Notes in ``f``'s docstring: ``{parameters}``, or
    ``{named_parameters}`` with the ``data_name`` entry (a function whose result names it)."""
    at = _PARAMETERS.index("\n    Notes")
    named = _PARAMETERS[:at] + _DATA_NAME + _PARAMETERS[at:]
    f.__doc__ = f.__doc__.replace("{named_parameters}", named).replace("{parameters}", _PARAMETERS)
    return f


@front_door(("x", "y"), distances=("x", "y"), columns=("y",), propagate=True)
@_document
def dcov(x, y, *, exponent=1.0, metric="euclidean", sigma=None, estimator: str = "V",
         algorithm: str = "auto", n_jobs=None, approximation: str | None = None,
         n_projections: int = 200, rng=None, nan_policy: str = "raise") -> float:
    r"""Distance covariance of two samples.

    ``estimator="V"``: :math:`\mathcal V_n(x, y)`, the square root of the V-statistic (eq.
    2.8), R ``dcov(x, y, index)`` (squared: ``dcov2d``); ``"U"``: the unbiased estimator of
    :math:`\mathcal V^2(X, Y)`, signed and not square-rooted, R ``dcovU(x, y)``.
    {parameters}
    Returns
    -------
    float

    References
    ----------
    G. J. Székely, M. L. Rizzo and N. K. Bakirov, "Measuring and testing dependence by
    correlation of distances", Ann. Statist. 35 (2007). G. J. Székely and M. L. Rizzo,
    "Partial distance correlation with methods for dissimilarities", Ann. Statist. 42
    (2014). X. Huo and G. J. Székely, "Fast computing for distance covariance",
    Technometrics 58 (2016).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0]); y = x**2
    >>> round(es.dcov(x, y), 6)   # R: dcov(1:5, (1:5)^2)
    2.701111
    >>> round(es.dcov(x, y, estimator="U"), 6)   # R: dcovU(1:5, (1:5)^2)
    6.4
    """
    S, (vx, vy) = _two(x, y, exponent, metric, sigma, estimator, algorithm, n_jobs,
                       approximation, n_projections, rng)
    f = vx.scaling.log2_factor + vy.scaling.log2_factor
    if estimator == "U":
        return Scaling(0, f).result(float(S[0, 1]), "dCovU")
    return Scaling(0, f / 2).result(float(np.sqrt(S[0, 1])), "dCov")  # the root first: it fits


@front_door(("x", "y"), distances=("x", "y"), columns=("y",), propagate=True)
@_document
def dcor(x, y, *, exponent=1.0, metric="euclidean", sigma=None, estimator: str = "V",
         algorithm: str = "auto", n_jobs=None, approximation: str | None = None,
         n_projections: int = 200, rng=None, nan_policy: str = "raise") -> float:
    r"""Distance correlation of two samples.

    ``estimator="V"``: :math:`\mathcal R_n(x, y) \in [0, 1]`, the square root of eq. (2.9),
    R ``dcor(x, y, index)`` (squared: ``dcor2d``); ``"U"``: the bias-corrected squared
    distance correlation of Székely & Rizzo (2014), which can be negative, R ``bcdcor``. A
    constant sample gives 0, as in R.
    {parameters}
    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> round(es.dcor(x, x**2), 6), es.dcor(x, 3 * x - 1)   # R: dcor(1:5, (1:5)^2) 0.986916
    (0.986916, 1.0)
    """
    S, _ = _two(x, y, exponent, metric, sigma, estimator, algorithm, n_jobs, approximation,
                n_projections, rng)
    r = ratio(S[0, 1], S[0, 0], S[1, 1])
    return float(np.sqrt(r)) if estimator == "V" else r


@front_door(("x", "y"), distances=("x", "y"), columns=("y",), names=("x", "y"))
@_document
def dcov_stats(x, y, *, exponent=1.0, metric="euclidean", sigma=None, estimator: str = "V",
               algorithm: str = "auto", n_jobs=None, approximation: str | None = None,
               n_projections: int = 200, rng=None, nan_policy: str = "raise"
               ) -> DCovStatsResult:
    r"""Distance covariance, correlation and both distance variances at once: R ``DCOR(x,
    y, index)`` (``estimator="V"``) or ``dcovU_stats(Dx, Dy)`` (``"U"``).
    {named_parameters}
    Returns
    -------
    DCovStatsResult

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> res = es.dcov_stats(x, x**2)
    >>> {name: round(value, 6) for name, value in res.r_names().items()}   # R: DCOR(1:5, (1:5)^2)
    {'dCov': 2.701111, 'dCor': 0.986916, 'dVarX': 1.102724, 'dVarY': 6.792938}
    >>> round(res.dcov2, 6), round(res.dcor2, 6)   # their squares
    (7.296, 0.974003)
    """
    S, variables = _two(x, y, exponent, metric, sigma, estimator, algorithm, n_jobs,
                        approximation, n_projections, rng)
    return stats_result(S, variables, estimator)


def _square(D, name: str) -> tuple[np.ndarray, Scaling]:
    """``D`` validated (square, symmetric) and divided by a power of two (exact), so that no
    sum overflows; the scaling multiplies results back."""
    D = as_data(D, name)
    if D.shape[0] != D.shape[1]:
        raise ValueError(f"`{name}` must be a square matrix, got shape {D.shape}.")
    D, e = unit_scale(D)
    if not np.allclose(D, D.T, rtol=1e-12, atol=0.0):
        raise ValueError(f"`{name}` must be symmetric.")
    return D, Scaling(0, float(e))


@front_door("D", distances=("D",))
def d_center(D) -> np.ndarray:
    r"""The double-centred matrix of eq. (2.7) (Székely, Rizzo & Bakirov 2007): R
    ``D_center(Dx)``.

    Parameters
    ----------
    D : array_like of shape (n, n)
        A symmetric matrix (distances, or any dissimilarities).

    Returns
    -------
    ndarray of shape (n, n)

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> D = np.abs(np.subtract.outer([0.0, 1.0, 3.0], [0.0, 1.0, 3.0]))
    >>> bool(np.allclose(es.d_center(D).sum(axis=0), 0))
    True
    """
    D, back = _square(D, "D")
    return back.result(centred(D), "the double-centred matrix of `D`", inplace=True)


@front_door("D", distances=("D",))
def u_center(D) -> np.ndarray:
    r"""The U-centred matrix of Székely & Rizzo (2014, eq. 3.1), 0 on the diagonal: R
    ``U_center(Dx)``. U-centring is idempotent and ``d_center`` leaves its result unchanged.

    Parameters
    ----------
    D : array_like of shape (n, n), n >= 3
        A symmetric matrix (distances, or any dissimilarities).

    Returns
    -------
    ndarray of shape (n, n)

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.array([0.0, 1.0, 3.0, 6.0])
    >>> U = es.u_center(np.abs(np.subtract.outer(x, x)))
    >>> bool(np.allclose(es.u_center(U), U)), bool(np.allclose(U.sum(axis=1), 0))
    (True, True)
    """
    D, back = _square(D, "D")
    n = D.shape[0]
    if n < 3:
        raise ValueError(
            f"`D` must be at least 3 x 3 for U-centring (it divides by n - 2), got {n} x {n}.")
    return back.result(centred(D, unbiased=True), "the U-centred matrix of `D`", inplace=True)


@front_door(("U", "V"))
def u_product(U, V) -> float:
    r"""The inner product :math:`(\tilde A \cdot \tilde B) = \frac{1}{n(n-3)} \sum_{i \ne j}
    \tilde A_{ij} \tilde B_{ij}` of two U-centred matrices (Székely & Rizzo 2014, eq. 3.2):
    R ``U_product(U, V)``; of U-centred distance matrices, R ``dcovU``.

    Parameters
    ----------
    U, V : array_like of shape (n, n), n >= 4
        U-centred matrices (:func:`u_center`).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> U = es.u_center(np.abs(np.subtract.outer(x, x)))
    >>> V = es.u_center(np.abs(np.subtract.outer(x**2, x**2)))
    >>> bool(np.isclose(es.u_product(U, V), es.dcov(x, x**2, estimator="U")))
    True
    """
    U, back_u = _square(U, "U")
    V, back_v = _square(V, "V")
    n = U.shape[0]
    if V.shape != U.shape:
        raise ValueError(f"`U` and `V` must have the same shape, got {U.shape} and {V.shape}.")
    if n < 4:
        raise ValueError(
            f"`U` must be at least 4 x 4 (the product divides by n(n - 3)), got {n} x {n}.")
    total = float(np.vdot(U, V)) - float(np.diagonal(U) @ np.diagonal(V))
    return Scaling(0, back_u.log2_factor + back_v.log2_factor).result(
        total / (n * (n - 3)), "U_product(`U`, `V`)")
