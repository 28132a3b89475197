r"""Tests of independence: the distance covariance and distance correlation permutation
tests (R ``dcov.test``, ``dcor.test``; Székely, Rizzo & Bakirov 2007) and the distance
correlation t-test for high dimension (R ``dcorT.test``; Székely & Rizzo 2013)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, TypeVar

import numpy as np
from scipy.special import stdtr

from .._config import check_fits
from .._frontdoor import door_of, front_door
from .._operator import PairwiseOperator, Repeated, centred_gram, make_operator, permuted_products
from .._parallel import check_n_jobs
from .._random import as_generator
from .._resampling import (
    Pairings,
    check_observed,
    check_options,
    null_distribution,
    pvalue,
    tie_scale,
)
from .._result_bases import NullPanel, TestResult
from .._results import _number
from .._semimetric import MetricLike, Scaling
from ._data import Variable, as_variables
from .dcov import (
    DCovStatsResult,
    gram_of,
    operators,
    stats_from_gram,
    stats_from_projection,
)
from .gamma import (
    SKEW_ROWS,
    Reference,
    SquareRoot,
    gamma_pvalue,
    gamma_reference,
    permutation_moments,
    skewness_of,
)
from .projection import N_PROJECTIONS, check_variables, project, projection_gamma

__all__ = [
    "IndependenceTestResult",
    "dcor_test",
    "dcor_ttest",
    "dcov_test",
    "engine_for",
    "pairing_scale",
]


@dataclass(frozen=True, repr=False)
class IndependenceTestResult(TestResult):
    """Result of a test of independence.

    Attributes
    ----------
    statistic_name : str
        ``"nV^2"``, ``"dCor"``, ``"T"``, ... as R's ``htest`` names it.
    estimate : float
        R's ``estimate``: dCov, dCor, the bias-corrected dCor^2, ...
    estimates : DCovStatsResult, ndarray or None
        dCov^2, dCor^2, dVar^2(x), dVar^2(y) (their roots are R's ``estimates`` of
        ``dcov.test``: ``estimates.r_names()``); :func:`mutual_independence_test`: the
        bias-corrected dCor^2 of each column against the columns after it.
    method : str
        ``"permutation"``, ``"gamma"`` or ``"t"``.
    n_samples : int
        Sample size (after dropping rows with missing values).
    df : float or None
        Degrees of freedom of the t-test.
    reference_distribution : object or None
        The distribution of ``statistic`` under independence whose upper tail at
        ``statistic`` is ``pvalue``, with the ``pdf``, ``cdf``, ``sf`` and ``ppf`` of a
        ``scipy.stats`` distribution and compared by value: Student t with
        ``df`` degrees of freedom for the t-test, the gamma of ``method="gamma"`` (for dCor
        the distribution of the square root of the gamma of dCor^2); None for permutation
        tests (``null_distribution``) and when every permutation gives the same statistic.
    """

    statistic_name: str
    estimate: float
    estimates: DCovStatsResult | None = field(repr=False)
    method: str
    n_samples: int
    df: float | None = None
    reference_distribution: object | None = field(default=None, repr=False)

    _titles = {
        "nV^2": "Distance covariance test of independence (R dcov.test)",
        "dCor": "Distance correlation test of independence (R dcor.test)",
        "T": "Distance correlation t-test of independence in high dimension (R dcorT.test)",
        "n pdcov": "Partial distance covariance test (R pdcov.test)",
        "pdcor": "Partial distance correlation test (R pdcor.test)",
        "Sum(R*)": "Energy test of mutual independence (R mutualIndep.test)",
        "n I^2": "Energy test of independence, coefficient I (R mvI.test)",
    }
    #: R's name of ``estimate`` for each statistic
    _estimates = {
        "nV^2": "dCov",
        "dCor": "dCor",
        "T": "bcdcor",
        "n pdcov": "pdcov",
        "pdcor": "pdcor",
        "n I^2": "I",
    }
    _hidden = ("method", "df", "estimate")
    #: the test and the axis label of each statistic in plot_null_distribution
    _plot_names = {
        "nV^2": ("distance covariance test of independence",
                 "n V\u00b2 (distance covariance statistic)"),
        "dCor": ("distance correlation test of independence", "distance correlation dCor"),
        "T": ("distance correlation t-test of independence",
              "T (t statistic of the bias-corrected dCor\u00b2)"),
        "Sum(R*)": ("energy test of mutual independence", "sum of bias-corrected dCor\u00b2"),
        "n I^2": ("test of independence by the coefficient I", "n I\u00b2"),
        "n pdcov": ("partial distance covariance test", "n pdCov"),
        "pdcor": ("partial distance correlation test", "partial distance correlation pdCor"),
    }

    @property
    def _title(self) -> str:
        return self._titles.get(
            self.statistic_name, f"Energy test of independence, statistic {self.statistic_name}"
        )

    @property
    def _statistic_label(self) -> str:
        return self.statistic_name

    def _pvalue_note(self) -> str:
        if self.method == "t":
            return f"t distribution, df = {_number(self.df)}"
        if self.method == "gamma":
            return "gamma approximation of the permutation distribution"
        return (
            f"exact: all {self.n_resamples} permutations"
            if self.exact
            else f"{self.n_resamples} permutations"
        )

    def _details(self) -> list[tuple[str, str]]:
        name = self._estimates.get(self.statistic_name)
        estimate = [(name, _number(self.estimate))] if name and name != self.statistic_name else []
        return estimate + super()._details()

    def _null_panels(self) -> tuple[NullPanel, ...]:
        unknown = ("test of independence", self.statistic_name)
        test, label = self._plot_names.get(self.statistic_name, unknown)
        if self.null_distribution is not None:
            null_label = self._permutation_label("permutations")
            return (NullPanel(test, label, self.statistic, self.pvalue, null_label,
                              null=self.null_distribution),)
        reference = self.reference_distribution
        if reference is None:
            raise ValueError("`result`'s null distribution is a point mass (every permutation "
                             "gives the same statistic, p = 1): there is no distribution to draw.")
        if self.method == "t":
            null_label = f"Student t, {self.df:g} df"
        else:
            null_label = "gamma approximation of the null"
        support = (float(reference.ppf(0.0005)), float(reference.ppf(0.9995)))
        return (NullPanel(test, label, self.statistic, self.pvalue, null_label,
                          density=reference.pdf, support=support),)


def pairing_scale(n: int, squares_x, squares_y):
    r"""The tie rule (:func:`~energystats._resampling.tie_scale`) fed with what the pairing
    engines add up for :math:`S(\pi) = \sum_{ij} A_{ij} b_{\pi(i)\pi(j)}`, from the raw sums of
    squares :math:`\sum_{ij} a_{ij}^2` and :math:`\sum_{ij} b_{ij}^2` of the two matrices. The
    terms sum in absolute value to at most :math:`\|A\|\,\|b\| \le \|a\|\,\|b\|`
    (Cauchy-Schwarz; centring is a projection), and the O(n log n) expansion's three terms to
    at most :math:`4\|a\|\,\|b\|` (:math:`\sum_i a_{i\cdot}^2 \le n \|a\|^2`,
    :math:`a_{\cdot\cdot} \le n \|a\|`); the longest run of sequential additions is a gather's
    block of 64 rows (a dot product of 64 n terms; a cumulative sum of n is shorter). Tied
    values of the statistic (permutations that give the same contingency table of categorical
    data) then tie on every machine."""
    terms = 4.0 * np.sqrt(np.asarray(squares_x, dtype=float) * np.asarray(squares_y, dtype=float))
    return tie_scale(terms, run=64 * n)


def engine_for(x: Variable, y: Variable, op_x: PairwiseOperator, op_y: PairwiseOperator):
    """The permutation engine of :math:`\\sum_{ij} A_{ij} b_{\\pi(i)\\pi(j)}` for two variables
    and their operators, asked of the operator layer
    (:func:`~energystats._operator.permuted_products`): O(n log n) per permutation for
    one-dimensional |x - y|, else gathers of y's matrix."""
    return permuted_products(op_x, op_y)


_METHODS = ("permutation", "gamma")


def skew_rows(n: int) -> np.ndarray:
    """The rows whose distance matrices give the limit's skewness: all below SKEW_ROWS, else
    SKEW_ROWS evenly spaced ones (a systematic sample: the p-value stays deterministic)."""
    return (
        np.arange(n)
        if n <= SKEW_ROWS
        else np.unique(np.linspace(0, n - 1, SKEW_ROWS).round().astype(np.intp))
    )


def variable_power_sums(v: Variable, rows: np.ndarray) -> tuple[float, float]:
    """The power sums (tr C^2, tr C^3) of the variable's double-centred distance matrix on
    ``rows``."""
    m = rows.shape[0]
    check_fits(f"the skewness of the gamma p-value ({m} x {m} matrices)", 4 * 8 * m * m)
    data = v.data[np.ix_(rows, rows)] if v.semimetric.precomputed else v.data[rows]
    return make_operator(data, v.semimetric, Repeated(sort=False)).power_sums()


def _skewness(x: Variable, y: Variable) -> float:
    rows = skew_rows(x.n)
    return skewness_of(variable_power_sums(x, rows), variable_power_sums(y, rows))


def _dcor_of(denominator: float):
    """S -> dCor for dCor^2 = S / denominator (0 for a constant sample)."""
    if denominator > 0:
        return lambda s: np.sqrt(np.maximum(s, 0.0) / denominator)
    return lambda s: np.zeros_like(np.asarray(s, float))


def _projected_scale(x: Variable, y: Variable, directions: tuple[np.ndarray, np.ndarray]) -> float:
    r""":func:`pairing_scale` summed over the projection pairs, with the raw sums of squares of
    a projection's distances :math:`\sum_{ij} (u^\top x_i - u^\top x_j)^2 = 2n\, u^\top
    X_c^\top X_c u` from the centred cross-products (no pass over the projections)."""
    n = x.n

    def squares(data: np.ndarray, U: np.ndarray) -> np.ndarray:
        C = data - data.mean(axis=0)
        return 2.0 * n * np.einsum("kd,de,ke->k", U, C.T @ C, U)

    return float(
        pairing_scale(n, squares(x.data, directions[0]), squares(y.data, directions[1])).sum()
    )


_Value = TypeVar("_Value")


def _at_data_scale(compute: Callable[[], _Value]) -> _Value | None:
    """``compute()``, numbers a test reports at the data's scale beside its statistic (the V- or
    U-statistics of ``estimates``, the reference distribution of n V_n^2), or None when one of
    them is beyond float64 (data scaled near 1e300 or 1e-300): the statistic and its p-value
    do not need them (dCor and the t-test's bias-corrected dCor^2 are scale free)."""
    try:
        return compute()
    except (OverflowError, ValueError):  # Scaling.result: beyond float64, either way
        return None


def _test(
    x, y, statistic: str, n_resamples, exponent, metric, sigma, rng, exact, progress, n_jobs,
    method, approximation, n_projections,
) -> IndependenceTestResult:
    """:func:`dcov_test` and :func:`dcor_test`: every method, exact or projected."""
    if method not in _METHODS:
        raise ValueError(f"`method` must be 'permutation' or 'gamma', got {method!r}.")
    if approximation not in (None, "projection"):
        raise ValueError(f"`approximation` must be None or 'projection', got {approximation!r}.")
    options = check_options(n_resamples, exact, progress=progress)
    n_jobs = check_n_jobs(n_jobs)
    vx, vy = as_variables({"x": x, "y": y}, metric, exponent, sigma)
    n = vx.n
    factors = (vx.scaling.log2_factor, vy.scaling.log2_factor)
    gen = as_generator(rng)
    null, count, exact_used = None, 0, False
    # method="gamma": mean, variance and skewness of the null in the units of `observed` as
    # rescaled below
    moments = None
    if approximation == "projection":
        K = check_variables([vx, vy], n_projections)
        # directions from their own stream
        P = project(vx, vy, K, gen.spawn(1)[0], variances=statistic == "dCor")
        unscaled = stats_from_projection(P, "V", (0.0, 0.0)) if statistic == "dCor" else None
        estimates = None if unscaled is None else _at_data_scale(
            lambda: stats_from_projection(P, "V", factors))
        if method == "gamma":
            # of n times the projected V-statistic
            _, p, mean, variance = projection_gamma(vx, vy, P, gen)
            # the engine's units: sum of S_k
            observed, moments = float(P.V_xy.sum()), (n * mean, n * n * variance, None)
        else:
            engine = Pairings(n, permuted_products(*P.operators))
            res = null_distribution(engine, options, gen, n_jobs)
            observed, null, exact_used, count = res.observed, res.values, res.exact, res.count
            p = pvalue(
                observed,
                null,
                exact=exact_used,
                scale=_projected_scale(vx, vy, P.directions),
                what="the projected distance covariance",
            )
        scale_xy = P.scale_xy / K
        observed, null = observed * scale_xy, (None if null is None else null * scale_xy)
        if unscaled is None:
            denominator, estimate = 0.0, float(np.sqrt(max(observed, 0.0)) / n)
        else:
            variances = P.scale_xx * P.scale_yy * np.mean(P.V_xx) * np.mean(P.V_yy)
            denominator, estimate = np.sqrt(variances), unscaled.r_names()["dCor"]
    else:
        ops = operators([vx, vy], n_jobs=n_jobs)
        G = centred_gram(ops, n_jobs=n_jobs, unbiased=False)
        unscaled = stats_from_gram(G, "V")  # of the rescaled data: dCor is scale free
        estimates = _at_data_scale(lambda: stats_from_gram(G, "V", factors))
        if method == "gamma":
            observed = float(G.V[0, 1])
            mean, variance = permutation_moments(
                G.V[0, 0], ops[0].row_sums(), G.squares[1], ops[1].row_sums()
            )
            moments = (mean, variance, _skewness(vx, vy))
            p = gamma_pvalue(check_observed(observed, "the distance covariance"), *moments)
        else:
            res = null_distribution(Pairings(n, engine_for(vx, vy, *ops)), options, gen, n_jobs)
            observed, null, exact_used, count = res.observed, res.values, res.exact, res.count
            p = pvalue(
                observed,
                null,
                exact=exact_used,
                scale=pairing_scale(n, *G.squares),
                what="the distance covariance",
            )
        denominator = np.sqrt(max(G.V[0, 0], 0.0) * max(G.V[1, 1], 0.0))  # dCor^2 = S / denominator
        estimate = unscaled.r_names()["dCov" if statistic == "nV^2" else "dCor"]
        if statistic == "nV^2":
            estimate = Scaling(0, (factors[0] + factors[1]) / 2).result(estimate, "dCov")
    if statistic == "nV^2":  # n V_n^2 = S / n, in the data's units (beyond float64: an error)
        what, f = "the statistic n V_n^2", factors[0] + factors[1]
        stat = Scaling(0, f).result(observed * (1.0 / n), what)
        values = None if null is None else Scaling(0, f).result(null * (1.0 / n), what)
        reference = None if moments is None else _at_data_scale(lambda: gamma_reference(
            Scaling(0, f).result(moments[0] * (1.0 / n), what),
            Scaling(0, 2 * f).result(moments[1] * (1.0 / n) * (1.0 / n), "its variance"),
            moments[2]))
        if approximation == "projection":
            estimate = Scaling(0, (factors[0] + factors[1]) / 2).result(estimate, "dCov")
    else:  # dCor is a monotone function of S: the same p-value
        to_dcor = _dcor_of(denominator)
        stat, values = float(min(to_dcor(observed), 1.0)), (None if null is None else to_dcor(null))
        square = (
            None
            if moments is None or not denominator > 0
            else gamma_reference(moments[0] / denominator, moments[1] / denominator**2, moments[2])
        )
        reference = None if square is None else SquareRoot(square)
    return IndependenceTestResult(
        statistic=float(stat),
        pvalue=float(p),
        null_distribution=None if values is None else np.asarray(values, dtype=float),
        n_resamples=int(count),
        statistic_name=statistic,
        estimate=float(estimate),
        estimates=estimates,
        method=method,
        n_samples=n,
        exact=exact_used,
        reference_distribution=reference,
    )


_TEST_PARAMETERS = """
    Parameters
    ----------
    x, y : array_like, DataFrame, categorical, or (n, n) distances
        The two samples, one observation per row (see :func:`dcov`).
    n_resamples : int, default=999
        Number of random permutations (R's ``R``).
    exponent, metric, sigma
        The semimetric of each sample, as in :func:`dcov`.
    rng
        It draws the permutations.
    exact : {"auto", True, False}, default="auto"
        ``"auto"`` enumerates all n! permutations when there are at most
        ``n_resamples`` of them; ``True`` always does (n <= 9); ``False`` never does.
    progress : bool or None, default=None
        Show a progress bar over blocks of permutations.
    n_jobs : int, default=None
        joblib's ``n_jobs``: blocks of permutations as joblib tasks (on Dask inside
        ``joblib.parallel_config(backend="dask")``); the permutations are drawn here, so
        the result is the same whatever ``n_jobs``.
    method : {"permutation", "gamma"}, default="permutation"
        ``"gamma"``: no permutations; the gamma distribution with the exact mean and
        variance of the statistic over all n! permutations (closed forms, O(n) after the
        statistic's pass over the tiles; Mantel 1967), the upper tail its p-value. Measured
        against the permutation p-value in ``validation/independence_gamma.py``: use it for
        large n or many tests. With ``approximation="projection"``: the asymptotic gamma of
        Huang & Huo (2017) (see :func:`dcov`).
    approximation : {None, "projection"}, default=None
        ``"projection"``: the randomly projected statistic of :func:`dcov` (Euclidean
        distance, exponent 1), O(K n log n) time and O(n) memory; with
        ``method="permutation"`` each permutation costs O(K n log n).
    n_projections : int, default=200
        K, the number of random directions, for ``approximation="projection"`` (the one
        default of every projected statistic, ``N_PROJECTIONS``).
"""

_TEST_NOTES = """
    A permutation of y's rows leaves x's double-centred distance matrix A alone and
    permutes y's distances b, so each null value is
    :math:`S(\\pi) = \\sum_{ij} A_{ij} b_{\\pi(i)\\pi(j)} = n^2 \\mathcal V_n^2(x, y_\\pi)`:
    n^2 / 2 gathers per permutation, on both cores, in float64 (time O(B n^2), memory
    two n x n arrays: y's distances and x's centred ones, within ``working_memory``).
    For two one-dimensional samples with exponent 1 each permutation costs O(n log n)
    and no matrix is formed. Null values equal to the observed statistic up to
    rounding count as ties (as ``scipy.stats.permutation_test``); R counts
    :math:`t^* \\ge t` exactly.
"""


@front_door(("x", "y"), distances=("x", "y"), columns=("y",), names=("x", "y"))
def dcov_test(
    x,
    y,
    *,
    n_resamples: int = 999,
    exponent=1.0,
    metric: MetricLike | tuple = "euclidean",
    sigma=None,
    rng=None,
    exact="auto",
    progress: bool | None = None,
    n_jobs=None,
    method: str = "permutation",
    approximation: str | None = None,
    n_projections: int = N_PROJECTIONS,
    nan_policy: str = "raise",
) -> IndependenceTestResult:
    r"""Distance covariance permutation test of independence (R ``dcov.test``).

    The statistic is :math:`n \mathcal V_n^2(x, y)` (R's ``nV^2``, Székely, Rizzo &
    Bakirov 2007, Section 4); the p-value is :math:`(1 + \#\{t^* \ge t\}) / (B + 1)` over
    B permutations of y's rows. ``estimate`` is :math:`\mathcal V_n(x, y)` and
    ``estimates`` R's four numbers (dCov, dCor, dVar(x), dVar(y)), or None when one of them is
    beyond float64 (data scaled near 1e300: dVar(x)^2 is their square); a statistic beyond
    float64 is an ``OverflowError``.
    {parameters}
    Returns
    -------
    IndependenceTestResult

    Notes
    -----{notes}
    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=100); y = x**2 + rng.normal(scale=0.5, size=100)
    >>> res = es.dcov_test(x, y, rng=1)
    >>> res.statistic_name, res.pvalue
    ('nV^2', 0.001)
    """
    return _test(
        x, y, "nV^2", n_resamples, exponent, metric, sigma, rng, exact, progress, n_jobs, method,
        approximation, n_projections,
    )


@front_door(("x", "y"), distances=("x", "y"), columns=("y",), names=("x", "y"))
def dcor_test(
    x,
    y,
    *,
    n_resamples: int = 999,
    exponent=1.0,
    metric: MetricLike | tuple = "euclidean",
    sigma=None,
    rng=None,
    exact="auto",
    progress: bool | None = None,
    n_jobs=None,
    method: str = "permutation",
    approximation: str | None = None,
    n_projections: int = N_PROJECTIONS,
    nan_policy: str = "raise",
) -> IndependenceTestResult:
    r"""Distance correlation permutation test of independence (R ``dcor.test``).

    The statistic is :math:`\mathcal R_n(x, y)` (R's ``dCor``); the distance variances do
    not change under permutations, so it orders the permutations as :math:`n \mathcal
    V_n^2` does and the p-value is that of :func:`dcov_test` with the same ``rng``.
    {parameters}
    Returns
    -------
    IndependenceTestResult

    Notes
    -----{notes}
    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.arange(5.0)
    >>> res = es.dcor_test(x, x**2)   # 5! = 120 permutations: exact
    >>> res.exact, res.n_resamples, round(res.pvalue, 4)   # the data's order and its reverse
    (True, 120, 0.0167)
    """
    return _test(
        x, y, "dCor", n_resamples, exponent, metric, sigma, rng, exact, progress, n_jobs, method,
        approximation, n_projections,
    )


for _f in (dcov_test, dcor_test):
    _doc = _f.__doc__.replace("{parameters}", _TEST_PARAMETERS).replace("{notes}", _TEST_NOTES)
    _f.__doc__ = door_of(_f).document(_doc)
del _f, _doc


@front_door(("x", "y"), distances=("x", "y"), columns=("y",), names=("x", "y"))
def dcor_ttest(
    x,
    y,
    *,
    exponent=1.0,
    metric: MetricLike | tuple = "euclidean",
    sigma=None,
    n_jobs=None,
    nan_policy: str = "raise",
) -> IndependenceTestResult:
    r"""Distance correlation t-test of independence in high dimension (R ``dcorT.test``).

    With :math:`\mathcal R^*_n` the bias-corrected squared distance correlation (R
    ``bcdcor``) and :math:`v = n(n-3)/2`,

    .. math::

        T = \sqrt{v - 1}\, \frac{\mathcal R^*_n}{\sqrt{1 - (\mathcal R^*_n)^2}},

    which under independence is approximately Student t with v - 1 degrees of freedom as
    the dimension grows, and approximately normal for n >= 10 (Székely & Rizzo 2013,
    Theorem 2); the p-value is the upper tail. Deterministic: the same T, degrees of
    freedom and p-value as R.

    Parameters
    ----------
    x, y : array_like, DataFrame, categorical, or (n, n) distances
        The two samples (see :func:`dcov`), n >= 4.
    exponent, metric, sigma
        The semimetric of each sample, as in :func:`dcov`.
    n_jobs : int, default=None
        joblib's ``n_jobs`` for the pass over the tiles.

    Returns
    -------
    IndependenceTestResult
        ``statistic`` T, ``df``, ``estimate`` the bias-corrected dCor^2, ``estimates`` the
        U-statistics (R ``dcovU_stats``), None when one of them is beyond float64 (data
        scaled near 1e300 or 1e-300: T is scale free, the U-statistics are not).

    Notes
    -----
    Time O(n^2 (p + q)), memory O(n): one pass over the tiles of the two distance
    matrices after their row sums, no n x n array (O(n log n) for two one-dimensional
    samples with exponent 1).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(30, 50)); y = x[:, :10] + 0.5 * rng.normal(size=(30, 10))
    >>> res = es.dcor_ttest(x, y)
    >>> res.df, bool(res.pvalue < 1e-6)
    (404.0, True)
    """
    vx, vy = as_variables({"x": x, "y": y}, metric, exponent, sigma)
    n = vx.n
    if n < 4:
        raise ValueError(
            "the distance correlation t-test needs at least 4 samples (it divides by n(n - 3)), "
            f"got {n}."
        )
    G = gram_of([vx, vy], n_jobs=check_n_jobs(n_jobs))
    factors = (vx.scaling.log2_factor, vy.scaling.log2_factor)
    # bcdcor is scale free: from the rescaled data, whatever the data's scale
    r = check_observed(stats_from_gram(G, "U").dcor2, "the bias-corrected distance correlation")
    stats = _at_data_scale(lambda: stats_from_gram(G, "U", factors))
    df = n * (n - 3) / 2.0 - 1.0
    T = np.inf if r >= 1.0 else float(np.sqrt(df) * r / np.sqrt(1.0 - r * r))
    return IndependenceTestResult(
        statistic=float(T),
        # Student's t survival function, as scipy.stats.t.sf computes it (without its
        # argument handling, which costs a small test more than the rest of it)
        pvalue=float(stdtr(df, -T)),
        null_distribution=None,
        n_resamples=0,
        statistic_name="T",
        estimate=float(r),
        estimates=stats,
        method="t",
        n_samples=n,
        df=float(df),
        reference_distribution=Reference("t", float(df)),
    )
