r"""Tests of independence: the distance covariance and correlation permutation tests (R
``dcov.test``, ``dcor.test``; Székely, Rizzo & Bakirov 2007) and the distance correlation
t-test in high dimension (R ``dcorT.test``; Székely & Rizzo 2013).

A permutation :math:`\pi` of y's rows leaves x's double-centred matrix A alone and permutes
y's, so each null value is :math:`S(\pi) = \sum_{ij} A_{ij} b_{\pi(i)\pi(j)} = n^2
\mathcal V_n^2(x, y_\pi)`, with b y's raw distances (A's zero row sums remove b's centring).
A block of permutations is evaluated by gathers, :math:`\sum_i \langle A_{i\cdot},
b_{\pi(i), \pi}\rangle` (for n up to 64 the upper triangle's entries of a block in one
gather), or, for two samples on the line from
:data:`LINE_N` points, by the O(n log n) sums of :mod:`energystats._scale.concordance`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import stdtr

from .._config import check_fits
from .._frontdoor import front_door
from .._parallel import check_n_jobs
from .._random import as_generator
from .._resample import (
    MAX_EXACT,
    check_observed,
    check_resamples,
    null_distribution,
    permutation_draws,
    pvalue,
)
from .._result_bases import NullPanel, TestResult
from .._results import _number
from .._scale import pairwise
from .._scale.concordance import abs_product_sum, abs_product_sums, line_row_sums
from .._semimetric import Scaling
from .dcov import (
    DCovStatsResult,
    centred,
    estimates,
    gram,
    ratio,
    squares,
    stats_result,
)
from .gamma import Reference, SquareRoot, gamma_pvalue, gamma_reference, moments, skewness
from .projection import projected_null
from .variables import Variable, as_variables

__all__ = ["IndependenceTestResult", "dcor_test", "dcor_ttest", "dcov_test", "pair_null"]

#: From this many points two samples on the line are permuted by the O(n log n) sums
#: (benchmarks/bench_sweep.py at load 1: at n = 1,000 they took 1.4 times the gathers' time).
LINE_N = 2000


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
        The distribution of ``statistic`` under independence whose upper tail is
        ``pvalue`` (``pdf``, ``cdf``, ``sf``, ``ppf``, compared by value): Student t for the
        t-test, the gamma of ``method="gamma"``; None for permutation tests.
    """

    statistic_name: str
    estimate: float
    estimates: DCovStatsResult | None = field(repr=False)
    method: str
    n_samples: int
    df: float | None = None
    reference_distribution: object | None = field(default=None, repr=False)

    #: R's title, R's name of ``estimate``, and the plot's test and axis label, by statistic
    _names = {
        "nV^2": ("Distance covariance test of independence (R dcov.test)", "dCov",
                 "distance covariance test of independence",
                 "n V\u00b2 (distance covariance statistic)"),
        "dCor": ("Distance correlation test of independence (R dcor.test)", "dCor",
                 "distance correlation test of independence", "distance correlation dCor"),
        "T": ("Distance correlation t-test of independence in high dimension (R dcorT.test)",
              "bcdcor", "distance correlation t-test of independence",
              "T (t statistic of the bias-corrected dCor\u00b2)"),
        "n pdcov": ("Partial distance covariance test (R pdcov.test)", "pdcov",
                    "partial distance covariance test", "n pdCov"),
        "pdcor": ("Partial distance correlation test (R pdcor.test)", "pdcor",
                  "partial distance correlation test", "partial distance correlation pdCor"),
        "Sum(R*)": ("Energy test of mutual independence (R mutualIndep.test)", None,
                    "energy test of mutual independence", "sum of bias-corrected dCor\u00b2"),
        "n I^2": ("Energy test of independence, coefficient I (R mvI.test)", "I",
                  "test of independence by the coefficient I", "n I\u00b2"),
    }
    _hidden = ("method", "df", "estimate")

    def _name(self, i: int):
        default = (f"Energy test of independence, statistic {self.statistic_name}", None,
                   "test of independence", self.statistic_name)
        return self._names.get(self.statistic_name, default)[i]

    @property
    def _title(self) -> str:
        return self._name(0)

    @property
    def _statistic_label(self) -> str:
        return self.statistic_name

    def _pvalue_note(self) -> str:
        if self.method == "t":
            return f"t distribution, df = {_number(self.df)}"
        if self.method == "gamma":
            return "gamma approximation of the permutation distribution"
        if self.exact:
            return f"exact: all {self.n_resamples} permutations"
        return f"{self.n_resamples} permutations"

    def _details(self) -> list[tuple[str, str]]:
        name = self._name(1)
        estimate = [(name, _number(self.estimate))] if name and name != self.statistic_name else []
        return estimate + super()._details()

    def _null_panels(self) -> tuple[NullPanel, ...]:
        test, label = self._name(2), self._name(3)
        if self.null_distribution is not None:
            return (NullPanel(test, label, self.statistic, self.pvalue,
                              self._permutation_label("permutations"),
                              null=self.null_distribution),)
        reference = self.reference_distribution
        if reference is None:
            raise ValueError("`result`'s null distribution is a point mass (every permutation "
                             "gives the same statistic, p = 1): there is no distribution to draw.")
        null_label = (f"Student t, {self.df:g} df" if self.method == "t"
                      else "gamma approximation of the null")
        support = (float(reference.ppf(0.0005)), float(reference.ppf(0.9995)))
        return (NullPanel(test, label, self.statistic, self.pvalue, null_label,
                          density=reference.pdf, support=support),)


# --- the permutation null of S(pi) = sum_ij A_ij b_pi(i)pi(j) ------------------------------


def gathered(U: np.ndarray, b: np.ndarray, P: np.ndarray) -> np.ndarray:
    r""":math:`\sum_{ij} A_{ij} b_{p(i)p(j)}` for each row p of P, given :math:`U = 2\,
    \mathrm{triu}(A, 1)` (A and b symmetric, b's diagonal zero: the sum is twice the upper
    triangle's), by gathers: for n up to 64 a block's upper triangles in one gather, else bands
    of 64 rows against the columns from the band on. numpy's sums of products, not BLAS: a small
    product on several BLAS threads waits for them."""
    n = U.shape[0]
    out = np.empty(P.shape[0])
    if n <= 64:
        iu, ju = np.triu_indices(n, 1)
        u, flat = U[iu, ju], b.ravel()
        step = max(1, 2**15 // max(iu.size, 1))
        for s in range(0, P.shape[0], step):
            p = P[s : s + step]
            index = p[:, iu] * n
            index += p[:, ju]
            out[s : s + step] = np.einsum("bm,m->b", flat[index], u)
        return out
    # U's bands on and above the diagonal block, contiguous once: a band of G's rows is a
    # contiguous copy, then its columns from the band on (half the matrix)
    bands = [(a, np.ascontiguousarray(U[a : a + 64, a:])) for a in range(0, n, 64)]
    for s, p in enumerate(P):
        out[s] = sum(np.einsum("ij,ij->", u, np.take(b[p[a : a + 64]], p[a:], axis=1))
                     for a, u in bands)
    return out


def halved(A: np.ndarray) -> np.ndarray:
    """2 triu(A, 1), what :func:`gathered` takes."""
    return 2.0 * np.triu(A, 1)


def pair_null(x: Variable, y: Variable, count: int, exact: bool, rng, progress=None):
    r"""S(pi) for ``count`` random permutations of y's rows (or all n! with ``exact``), and the
    tie scale of :func:`~energystats._resample.pvalue`: :math:`4 \sqrt{64 n} \|a\| \|b\|`
    (Cauchy-Schwarz bounds the terms by the raw matrices' norms; the runs of the sums are at
    most 64 n long)."""
    n = x.n
    lx, ly = x.line, y.line
    if lx is not None and ly is not None and n >= LINE_N:  # Huo & Szekely (2016), per pi
        rx, ry = line_row_sums(lx), line_row_sums(ly)
        constant = rx.sum() * ry.sum() / n**2

        def evaluate(P):
            return abs_product_sums(lx, ly[P]) - 2.0 / n * (ry[P] @ rx) + constant

        norms = [abs_product_sum(v, v) for v in (lx, ly)]
    else:
        a, b = _held(x), _held(y)
        norms = [np.vdot(a, a), np.vdot(b, b)]
        U = halved(centred(a))
        evaluate = lambda P: gathered(U, b, P)  # noqa: E731
    null = null_distribution(evaluate, permutation_draws(rng, n, exact),
                             math.factorial(n) if exact else count, item_bytes(n), progress,
                             "permutations")
    return null, 4.0 * math.sqrt(64.0 * n * norms[0] * norms[1])


def _held(v: Variable, copies: int = 4) -> np.ndarray:
    """The variable's matrix, held: a permutation test gathers from it (``copies`` n x n
    arrays in all must fit the memory budget)."""
    n = v.n
    check_fits(f"the permutation test's matrices (n = {n})", 8.0 * copies * n * n,
               "method='gamma' or approximation='projection'")
    return v.data if v.semimetric.precomputed else pairwise(v.data, v.semimetric, held=True)


def item_bytes(n: int) -> float:
    """Temporaries of :func:`gathered` per permutation: the upper triangle's indices and values
    (n <= 64), else a band of rows."""
    return 8.0 * n * (n - 1) if n <= 64 else 8.0 * n


def use_exact(exact, n: int, n_resamples: int) -> bool:
    """All n! permutations: with ``exact="auto"`` when there are at most ``n_resamples`` of
    them, always with True (n <= 9), never with False."""
    if isinstance(exact, str) and exact == "auto":
        return n <= 9 and math.factorial(n) <= n_resamples
    if not isinstance(exact, (bool, np.bool_)):
        raise ValueError(f"`exact` must be 'auto', True or False, got {exact!r}.")
    if exact and n > 9:
        raise ValueError(f"`exact`=True needs more than {MAX_EXACT} permutations ({n}! of "
                         "them); use exact='auto' or False.")
    return bool(exact)


def _test(x, y, statistic: str, n_resamples, exponent, metric, sigma, rng, exact, progress,
          n_jobs, method, approximation, n_projections) -> IndependenceTestResult:
    """:func:`dcov_test` and :func:`dcor_test`: every method, exact or projected."""
    if method not in ("permutation", "gamma"):
        raise ValueError(f"`method` must be 'permutation' or 'gamma', got {method!r}.")
    if approximation not in (None, "projection"):
        raise ValueError(f"`approximation` must be None or 'projection', got {approximation!r}.")
    B = check_resamples(n_resamples)
    n_jobs = check_n_jobs(n_jobs)
    vx, vy = as_variables({"x": x, "y": y}, metric, exponent, sigma)
    n = vx.n
    exact = use_exact(exact, n, B)
    gen = as_generator(rng)
    if approximation == "projection":
        return _projected(vx, vy, statistic, B, gen, progress, method, n_projections)
    G = gram([vx, vy], n_jobs=n_jobs)
    S = squares(G, n, "V")
    f = vx.scaling.log2_factor + vy.scaling.log2_factor
    observed = float(G[0, 1])
    null, reference, count = None, None, 0
    if method == "gamma":
        mean, variance = moments(vx, vy, G)
        shape = skewness(vx, vy)
        p = gamma_pvalue(check_observed(observed, "the distance covariance"), mean, variance,
                         shape)
    else:
        null, scale = pair_null(vx, vy, B, exact, gen, progress)
        count = null.shape[0]
        p = pvalue(observed, null, exact=exact, scale=scale, what="the distance covariance")
    if statistic == "nV^2":  # n V_n^2 = S / n, in the data's units
        to_stat = lambda s: Scaling(0, f).result(s / n, "the statistic n V_n^2")  # noqa: E731
        estimate = Scaling(0, f / 2).result(float(np.sqrt(S[0, 1])), "dCov")
        if method == "gamma":
            reference = _at_data_scale(lambda: gamma_reference(
                to_stat(mean), Scaling(0, 2 * f).result(variance / n**2, "its variance"), shape))
    else:  # dCor is a monotone function of S: the same p-value
        denominator = np.sqrt(S[0, 0] * S[1, 1]) * n * n
        to_stat = lambda s: (np.sqrt(np.clip(np.asarray(s) / denominator, 0.0, 1.0))  # noqa: E731
                             if denominator > 0 else np.zeros_like(np.asarray(s, float)))
        estimate = ratio(S[0, 1], S[0, 0], S[1, 1]) ** 0.5
        if method == "gamma" and denominator > 0:
            square = gamma_reference(mean / denominator, variance / denominator**2, shape)
            reference = None if square is None else SquareRoot(square)
    return IndependenceTestResult(
        statistic=float(to_stat(observed)), pvalue=float(p),
        null_distribution=None if null is None else np.asarray(to_stat(null), dtype=float),
        n_resamples=int(count), statistic_name=statistic, estimate=float(estimate),
        estimates=_at_data_scale(lambda: stats_result(S, [vx, vy], "V")), method=method,
        n_samples=n, exact=exact and method == "permutation", reference_distribution=reference)


def _projected(x, y, statistic, B, gen, progress, method, n_projections):
    """The test with ``approximation="projection"`` (:func:`~.projection.projected_null`)."""
    out = projected_null(x, y, B, gen, progress, method, n_projections)
    null, reference = out["null"], None
    if method == "gamma":
        out["pvalue"] = gamma_pvalue(out["statistic"], out["mean"], out["variance"])
        reference = gamma_reference(out["mean"], out["variance"])
    estimate = np.sqrt(max(out["statistic"] / x.n, 0.0))
    to_stat = lambda s: np.asarray(s, dtype=float)  # noqa: E731
    if statistic == "dCor":  # dCor^2 = n V^2 / (n dVar(x) dVar(y))
        d = x.n * out["dvar"]
        to_stat = (lambda s: np.sqrt(np.clip(np.asarray(s) / d, 0.0, 1.0))  # noqa: E731
                   ) if d > 0 else (lambda s: np.zeros_like(np.asarray(s, float)))
        estimate = float(to_stat(out["statistic"]))
        if reference is not None:
            reference = SquareRoot(gamma_reference(out["mean"] / d, out["variance"] / d**2))
    return IndependenceTestResult(
        statistic=float(to_stat(out["statistic"])), pvalue=float(out["pvalue"]),
        null_distribution=None if null is None else to_stat(null),
        n_resamples=0 if null is None else int(null.size), statistic_name=statistic,
        estimate=float(estimate), estimates=None, method=method, n_samples=x.n,
        reference_distribution=reference)


def _at_data_scale(compute):
    """``compute()``, or None when a number it scales back is beyond float64 (data near 1e300):
    the statistic and its p-value do not need it."""
    try:
        return compute()
    except (OverflowError, ValueError):
        return None


_TEST_PARAMETERS = """
    Parameters
    ----------
    x, y : array_like, DataFrame, categorical, or (n, n) distances
        The two samples, one observation per row (see :func:`dcov`).
    n_resamples : int, default=999
        Number of random permutations (R's ``R``).
    exponent, metric, sigma
        The semimetric of each sample, as in :func:`dcov`.
    rng : {None, int, numpy.random.Generator}, default=None
        It draws the permutations.
    exact : {"auto", True, False}, default="auto"
        ``"auto"`` enumerates all n! permutations when there are at most ``n_resamples`` of
        them; ``True`` always does (n <= 9); ``False`` never does.
    progress : bool or None, default=None
        Show a progress bar over blocks of permutations.
    n_jobs : int, default=None
        joblib's ``n_jobs`` for the bands of streamed matrices.
    method : {"permutation", "gamma"}, default="permutation"
        ``"gamma"``: no permutations; the Pearson type III distribution with the exact mean
        and variance of the statistic over all n! permutations (Mantel 1967) and the
        skewness of its limit, the upper tail its p-value (calibration in
        ``validation/independence_gamma.py``). With ``approximation="projection"``: the
        asymptotic gamma of Huang & Huo (2017).
    approximation : {None, "projection"}, default=None
        ``"projection"``: the randomly projected statistic of :func:`dcov` (Euclidean,
        exponent 1), O(K n log n) per permutation.
    n_projections : int, default=200
        K, the number of random directions, for ``approximation="projection"``.
    nan_policy : {"raise", "omit"}, default="raise"
        Rows of x and y with a missing value: an error, or dropped from both.
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.

    Returns
    -------
    IndependenceTestResult

    Notes
    -----
    Each null value is :math:`S(\\pi) = \\sum_{ij} A_{ij} b_{\\pi(i)\\pi(j)} = n^2 \\mathcal
    V_n^2(x, y_\\pi)`: time O(B n^2) and memory the two n x n matrices, within
    ``working_memory`` (O(B n log n) for two one-dimensional samples from 2,000 points).
    Null values equal to the observed statistic up to rounding count as ties (as
    ``scipy.stats.permutation_test``); R counts :math:`t^* \\ge t` exactly. The p-value is
    :math:`(1 + \\#\\{t^* \\ge t\\}) / (B + 1)`.
"""


def _document(f):
    f.__doc__ = f.__doc__.replace("{parameters}", _TEST_PARAMETERS)
    return f


@front_door(("x", "y"), distances=("x", "y"), columns=("y",), names=("x", "y"))
@_document
def dcov_test(x, y, *, n_resamples: int = 999, exponent=1.0, metric="euclidean", sigma=None,
              rng=None, exact="auto", progress: bool | None = None, n_jobs=None,
              method: str = "permutation", approximation: str | None = None,
              n_projections: int = 200, nan_policy: str = "raise") -> IndependenceTestResult:
    r"""Distance covariance permutation test of independence (R ``dcov.test``).

    The statistic is :math:`n \mathcal V_n^2(x, y)` (R's ``nV^2``, Székely, Rizzo & Bakirov
    2007, Section 4). ``estimate`` is :math:`\mathcal V_n(x, y)` and ``estimates`` R's four
    numbers, or None when one is beyond float64 (data near 1e300); a statistic beyond
    float64 is an ``OverflowError``.
    {parameters}
    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=100); y = x**2 + rng.normal(scale=0.5, size=100)
    >>> res = es.dcov_test(x, y, rng=1)
    >>> res.statistic_name, res.pvalue
    ('nV^2', 0.001)
    """
    return _test(x, y, "nV^2", n_resamples, exponent, metric, sigma, rng, exact, progress,
                 n_jobs, method, approximation, n_projections)


@front_door(("x", "y"), distances=("x", "y"), columns=("y",), names=("x", "y"))
@_document
def dcor_test(x, y, *, n_resamples: int = 999, exponent=1.0, metric="euclidean", sigma=None,
              rng=None, exact="auto", progress: bool | None = None, n_jobs=None,
              method: str = "permutation", approximation: str | None = None,
              n_projections: int = 200, nan_policy: str = "raise") -> IndependenceTestResult:
    r"""Distance correlation permutation test of independence (R ``dcor.test``).

    The statistic is :math:`\mathcal R_n(x, y)` (R's ``dCor``); the distance variances do not
    change under permutations, so it orders them as :math:`n \mathcal V_n^2` does and the
    p-value is :func:`dcov_test`'s with the same ``rng``.
    {parameters}
    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.arange(5.0)
    >>> res = es.dcor_test(x, x**2)   # 5! = 120 permutations: exact
    >>> res.exact, res.n_resamples, round(res.pvalue, 4)   # the data's order and its reverse
    (True, 120, 0.0167)
    """
    return _test(x, y, "dCor", n_resamples, exponent, metric, sigma, rng, exact, progress,
                 n_jobs, method, approximation, n_projections)


@front_door(("x", "y"), distances=("x", "y"), columns=("y",), names=("x", "y"))
def dcor_ttest(x, y, *, exponent=1.0, metric="euclidean", sigma=None, n_jobs=None,
               nan_policy: str = "raise") -> IndependenceTestResult:
    r"""Distance correlation t-test of independence in high dimension (R ``dcorT.test``).

    With :math:`\mathcal R^*_n` the bias-corrected squared distance correlation (R
    ``bcdcor``) and :math:`v = n(n-3)/2`, :math:`T = \sqrt{v - 1}\, \mathcal R^*_n /
    \sqrt{1 - (\mathcal R^*_n)^2}` is approximately Student t with v - 1 degrees of freedom
    under independence as the dimension grows (Székely & Rizzo 2013, Theorem 2); the
    p-value is the upper tail. The same T, df and p-value as R.

    Parameters
    ----------
    x, y : array_like, DataFrame, categorical, or (n, n) distances
        The two samples (see :func:`dcov`), n >= 4.
    exponent, metric, sigma
        The semimetric of each sample, as in :func:`dcov`.
    n_jobs : int, default=None
        joblib's ``n_jobs`` for the bands of streamed matrices.
    nan_policy : {"raise", "omit"}, default="raise"
        Rows of x and y with a missing value: an error, or dropped from both.
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.

    Returns
    -------
    IndependenceTestResult
        ``statistic`` T, ``df``, ``estimate`` the bias-corrected dCor^2, ``estimates`` the
        U-statistics (R ``dcovU_stats``), None when one is beyond float64.

    Notes
    -----
    Time O(n^2 (p + q)); O(n log n) for two one-dimensional samples with exponent 1.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(30, 50)); y = x[:, :10] + 0.5 * rng.normal(size=(30, 10))
    >>> res = es.dcor_ttest(x, y)
    >>> res.df, bool(res.pvalue < 1e-6)
    (404.0, True)
    """
    n_jobs = check_n_jobs(n_jobs)
    variables = as_variables({"x": x, "y": y}, metric, exponent, sigma)
    n = variables[0].n
    if n < 4:
        raise ValueError("the distance correlation t-test needs at least 4 samples (it divides "
                         f"by n(n - 3)), got {n}.")
    S = estimates(variables, "U", n_jobs=n_jobs)
    r = check_observed(ratio(S[0, 1], S[0, 0], S[1, 1]),
                       "the bias-corrected distance correlation")
    df = n * (n - 3) / 2.0 - 1.0
    T = np.inf if r >= 1.0 else float(np.sqrt(df) * r / np.sqrt(1.0 - r * r))
    return IndependenceTestResult(
        statistic=float(T), pvalue=float(stdtr(df, -T)), null_distribution=None, n_resamples=0,
        statistic_name="T", estimate=float(r),
        estimates=_at_data_scale(lambda: stats_result(S, variables, "U")), method="t",
        n_samples=n, df=float(df), reference_distribution=Reference("t", float(df)))
