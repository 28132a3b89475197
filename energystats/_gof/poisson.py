r"""Goodness-of-fit tests of the Poisson distribution, mean estimated (R ``poisson.e``,
``poisson.m``, ``poisson.etest``, ``poisson.mtest``, ``poisson.tests``): the energy test and the
two mean distance tests of Székely & Rizzo (2004), formulas in :func:`poisson_statistic`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from .._config import check_fits
from .._frontdoor import front_door
from .._random import as_generator
from .._resample import check_observed, check_resamples, null_distribution, pvalue
from .._result_bases import FitPanel, NullPanel, Sample, TestResult
from .._results import Table
from .._validation import as_data
from ._standard import energy_statistic
from .normality import log_poisson

__all__ = ["PoissonTestResult", "poisson_statistic", "poisson_test"]

#: The values of ``statistic`` (both functions') and the statistics each names.
_TESTS = {"all": ("M-CvM", "M-AD", "E"), "M": ("M-CvM", "M-AD"), "E": ("E",),
          "M-CvM": ("M-CvM",), "M-AD": ("M-AD",)}
_METHOD = {"M-CvM": "M-CvM test", "M-AD": "M-AD test", "E": "Energy test"}


@dataclass(frozen=True, repr=False)
class PoissonTestResult(TestResult):
    """Result of :func:`poisson_test` (R ``poisson.tests``; one row of its data frame per test).

    Attributes
    ----------
    statistic : ndarray of shape (n_tests,)
        The statistics, in the order of ``statistic_names``.
    pvalue : ndarray of shape (n_tests,)
        (1 + #{null >= statistic}) / (n_resamples + 1), per test.
    null_distribution : ndarray of shape (n_resamples, n_tests)
        The statistics of the Poisson(estimate) samples, all from the same samples.
    statistic_names : tuple of str
        The statistics, among ``"M-CvM"``, ``"M-AD"``, ``"E"``.
    estimate : float
        The sample mean, the estimate of lambda.
    n_samples : int
    """

    statistic_names: tuple
    estimate: float
    n_samples: int

    _title = "Goodness-of-fit tests of the Poisson distribution, estimated mean (R poisson.tests)"
    _hidden = ("statistic_names",)
    #: the axis label of each test's statistic in plot_null_distribution
    _plot_labels = {"M-CvM": "mean distance Cram\u00e9r-von Mises statistic",
                    "M-AD": "mean distance Anderson-Darling statistic", "E": "energy statistic"}

    def _tables(self) -> list[Table]:
        caption = f"Tests (p-values from {self.n_resamples} parametric bootstrap samples)"
        return [Table(caption, self.to_frame().drop(columns="estimate"))]

    def to_frame(self) -> pd.DataFrame:
        """R's ``poisson.tests`` data frame: one row per test (index ``"M-CvM"``, ``"M-AD"``,
        ``"E"``), columns ``estimate``, ``statistic``, ``pvalue``, ``method``."""
        return pd.DataFrame({"estimate": self.estimate, "statistic": self.statistic,
                             "pvalue": self.pvalue,
                             "method": [_METHOD[t] for t in self.statistic_names]},
                            index=pd.Index(list(self.statistic_names), name="test"))

    def _null_panels(self) -> tuple[NullPanel, ...]:
        names = self.statistic_names
        null = np.asarray(self.null_distribution, dtype=float).reshape(-1, len(names))
        statistics, pvalues = np.atleast_1d(self.statistic), np.atleast_1d(self.pvalue)
        return tuple(NullPanel("Poisson goodness-of-fit tests", self._plot_labels[name], float(t),
                               float(p), f"parametric bootstrap ({self.n_resamples:,} Poisson "
                               "samples)", null=null[:, k], name=name)
                     for k, (name, t, p) in enumerate(zip(names, statistics, pvalues)))

    def _fit_panel(self, sample: Sample) -> FitPanel:
        values = sample.column(self.n_samples)
        if not np.isclose(values.mean(), self.estimate, rtol=1e-12):
            raise ValueError(f"`x` has mean {values.mean():.6g}, `result` estimated "
                             f"{self.estimate:.6g}: pass the data the test was run on.")
        pvalues = ", ".join(f"{p:.3g} ({t})"
                            for t, p in zip(self.statistic_names, np.atleast_1d(self.pvalue)))
        return FitPanel(values, sample.name, stats.poisson(self.estimate),
                        f"fitted Poisson({self.estimate:.4g})",
                        f"Poisson goodness-of-fit tests: p = {pvalues}", discrete=True)


def _check(x) -> np.ndarray:
    """``x`` as a vector of non-negative integer counts (int64): at least two, not all zero."""
    X = as_data(x, "x")
    if X.shape[1] != 1:
        raise ValueError(f"`x` must be one-dimensional counts, got {X.shape[1]} columns.")
    x = X[:, 0]
    if x.size < 2:
        raise ValueError(f"`x` must hold at least two counts, got {x.size}.")
    bad = (x < 0) | (x != np.round(x))
    if bad.any():
        raise ValueError(f"`x` must hold non-negative integers (counts), got {x[bad][0]:g}.")
    if x.max() > 2**50:
        raise ValueError(f"`x` holds a count of {x.max():.3g}, beyond the exact integers of "
                         "float64 (2^50 here).")
    if not x.any():
        raise ValueError("`x` is all zeros: the fitted Poisson(0) is a point mass, there is "
                         "nothing to test.")
    return x.astype(np.int64)


def _check_test(statistic) -> tuple[str, ...]:
    if not isinstance(statistic, str) or statistic not in _TESTS:
        raise ValueError(f"`statistic` must be one of {tuple(_TESTS)}, got {statistic!r}.")
    return _TESTS[statistic]


#: The M statistics' grid reaches beyond the extreme counts until the pmf has fallen by
#: e^-TAIL_LOG, margins tried 2% apart; the longest grid.
_TAIL_LOG, _MARGINS, MAX_GRID = 80.0, np.unique(np.ceil(1.02 ** np.arange(1800))), 10**7


def _margin(x: float, lam: float, side: int) -> int:
    """The first of :data:`_MARGINS` m with log f(x + side m) - log f(x) <= -TAIL_LOG, f the
    Poisson(lam) pmf (side -1: below x, down to 0)."""
    m = _MARGINS
    if side < 0:
        m = m[m <= x]
        m = np.r_[m, x] if m.size == 0 or m[-1] < x else m
    drop = log_poisson(x + side * m, lam) - log_poisson(np.float64(x), lam)
    reached = np.flatnonzero(drop <= -_TAIL_LOG)
    return int(m[reached[0]] if reached.size else m[-1])


def _grid_bounds(X: np.ndarray, lam: np.ndarray) -> tuple[int, int]:
    r"""The first and last counts of the M statistics' sums for every row of X (rows sorted,
    lam their means): :func:`_margin` below the smallest count and above the largest, for the
    row that needs the widest. The terms left out (F f, F f / (1 - F) below; above, 1 - F_hat
    falls as the pmf) are below e^-160 times polynomials in lambda, the cdf and sf summed from
    the grid's ends miss e^-80 sqrt(lambda): under the rounding up to lambda = 2^50."""
    positive = lam > 0  # a sample of zeros fits a point mass at 0: no terms beyond its counts
    if not positive.any():
        return 0, int(X.max()) + 1
    X_low, X_high, lam = X[positive].min(axis=1), X[positive].max(axis=1), lam[positive]
    below = _margin(float(X_low.max()), float(lam.min()), -1)
    above = _margin(float(X_high.min()) + 1.0, float(lam.max()), 1)
    return int(max(0, X.min() - below)), int(max(X.max(), X_high.max() + above))


def _m_estimate(running: np.ndarray, lam: np.ndarray, k: np.ndarray) -> np.ndarray:
    r"""The M-estimate :math:`\hat F(k) = \min(1, a_k + b_k \hat F(k - 1))`, :math:`a_k =
    \sum_{i \le k} F_n(i) / (k + 1)`, :math:`b_k = \lambda / (k + 1)`, in blocks: with
    :math:`P_i = \prod_{m \le i} b_m`, :math:`\hat F(i) = P_i (\hat F_{\text{before}} +
    \sum_{j \le i} a_j / P_j)`; a block ends where the sum of :math:`|\log b|` passes 200."""
    a = running / (k + 1.0)
    out = np.minimum(a, 1.0)  # a sample of zeros only: lambda = 0, b = 0
    positive = lam > 0
    if not positive.any():
        return out
    A = a[positive]
    log_b = np.log(lam[positive])[:, None] - np.log(k + 1.0)
    block = np.floor(np.cumsum(np.abs(log_b).max(axis=0)) / 200.0)
    edges = np.r_[0, np.flatnonzero(np.diff(block)) + 1, k.size]
    previous, rows = np.zeros(A.shape[0]), []
    for start, end in zip(edges[:-1], edges[1:]):
        log_P = np.cumsum(log_b[:, start:end], axis=1)
        x = np.exp(log_P) * (previous[:, None] + np.cumsum(A[:, start:end] * np.exp(-log_P), 1))
        x[np.maximum.accumulate(x >= 1.0, axis=1)] = 1.0
        rows.append(x)
        previous = x[:, -1]
    out[positive] = np.concatenate(rows, axis=1)
    return out


def _m_statistics(X: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """M-CvM and M-AD of each row of the sorted counts X (B x n) with means lam, on the grid
    of :func:`_grid_bounds` (refused when longer than :data:`MAX_GRID` or beyond the working
    memory, 10 arrays of its length a row): the pmf from Loader's log-pmf (1e-15 at any mean),
    the cdf and sf as its running sums from the grid's two ends."""
    low, high = _grid_bounds(X, lam)
    B, n = X.shape
    what = f"the M statistics of counts from {int(X.min()):,} to {int(X.max()):,}"
    size = high - low + 1
    if size > MAX_GRID:
        raise ValueError(f"{what} need a grid of {size:,} counts, more than {MAX_GRID:,} (one step "
                         "of their recursion per count: over a minute per sample); use "
                         "statistic='E', whose statistic needs no grid.")
    check_fits(f"{what} (a grid of {size:,} counts" + (f" for each of {B:,} samples)" if B > 1
               else ")"), 80.0 * B * size, "statistic='E', whose statistic needs no grid")
    k = np.arange(low, high + 1)
    pmf = np.exp(log_poisson(k[None, :].astype(float), lam[:, None]))
    cdf, sf = np.cumsum(pmf, axis=1), np.zeros_like(pmf)
    sf[:, :-1] = np.cumsum(pmf[:, :0:-1], axis=1)[:, ::-1]  # sum over j > k
    counts = np.bincount((np.arange(B)[:, None] * k.size + X - low).ravel(),
                         minlength=B * k.size).reshape(B, k.size)
    running = np.cumsum(np.cumsum(counts, axis=1), axis=1) / n  # sum_{i <= k} F_n(i)
    F_hat = np.zeros_like(running)  # 0 below the smallest count
    a, b = X.min() - low, X.max() - low
    F_hat[:, a : b + 1] = _m_estimate(running[:, a : b + 1], lam, k[a : b + 1])
    # above the largest count sum_{i <= k} F_n(i) = k + 1 - lambda, so
    # 1 - F_hat(k) = lambda / (k + 1) (1 - F_hat(k - 1))
    F_hat[:, b + 1 :] = 1.0 - (1.0 - F_hat[:, b, None]) * np.cumprod(
        lam[:, None] / (k[b + 1 :] + 1.0), axis=1)
    squares = (F_hat - cdf) ** 2 * pmf
    with np.errstate(divide="ignore", invalid="ignore"):
        anderson = np.where((cdf > 0) & (sf > 0), squares / (cdf * sf), 0.0)
    return n * squares.sum(axis=1), n * anderson.sum(axis=1)


def _e_statistic(X: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The energy statistic of each row of the sorted counts X and its tie scale, E|x - X| from
    scipy's cdf at x and x - 1 (a table over the block's range when shorter than 2n)."""
    L = lam[:, None]
    low, high = int(X.min()) - 1, int(X.max())
    if high - low + 1 < 2 * X.shape[1]:
        table = stats.poisson.cdf(np.arange(low, high + 1), L)
        at, below = (np.take_along_axis(table, X - shift - low, axis=1) for shift in (0, 1))
    else:
        at, below = stats.poisson.cdf(X, L), stats.poisson.cdf(X - 1, L)
    between = 2.0 * lam * (special.i0e(2.0 * lam) + special.i1e(2.0 * lam))
    return energy_statistic(2.0 * X * at - 2.0 * L * below + L - X, between, X.astype(float))


def _statistics(X: np.ndarray, tests: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The ``tests`` statistics of each row of the counts X (B x n), B x len(tests), and their
    tie scales (E's sums; 0 for the M statistics, sums of non-negative terms), the rows
    sorted first: a sample equal to the data up to order gets the same values."""
    X = np.sort(X, axis=1)
    lam, zero = X.mean(axis=1), np.zeros(X.shape[0])
    out = {}
    if tests != ("E",):
        out["M-CvM"], out["M-AD"] = ((m, zero) for m in _m_statistics(X, lam))
    if "E" in tests:
        out["E"] = _e_statistic(X, lam)
    return tuple(np.column_stack([out[t][i] for t in tests]) for i in (0, 1))


@front_door("x", propagate=True)
def poisson_statistic(x, *, statistic: str = "E",
                      nan_policy: str = "raise") -> float | dict[str, float]:
    r"""A Poisson goodness-of-fit statistic (R ``poisson.e``, ``poisson.m``).

    Parameters
    ----------
    x : array_like of shape (n,)
        Non-negative integer counts (integer-valued floats too), at least two, not all zero.
    statistic : {"E", "M-CvM", "M-AD", "M", "all"}, default="E"
        ``"E"``: the energy statistic :math:`Q_n` (R ``poisson.e``); ``"M-CvM"``, ``"M-AD"``:
        the mean distance statistics; ``"M"``: both (R ``poisson.m``); ``"all"``: the three.
    nan_policy : {"raise", "omit", "propagate"}, default="raise"
        Rows with a missing value in ``x``: as in :func:`mvnorm_statistic`.

    Returns
    -------
    float or dict
        The statistic; for ``"M"`` and ``"all"`` ``{name: statistic}`` in R's order.

    Notes
    -----
    With :math:`\bar x` the estimate of lambda, F, f the Poisson(:math:`\bar x`) cdf and
    pmf, :math:`F_n` the EDF, the M-estimate (Székely & Rizzo 2004; it solves
    :math:`E|X - j| = \lambda - j + 2\sum_{i<j} F(i)` on the sample; capped at 1 as R's
    ``poisson.m``, where it then stays) and the statistics are

    .. math::

        \hat F(k) = \min\Big(1, \frac{\sum_{i \le k} F_n(i) + \bar x\,\hat F(k - 1)}
        {k + 1}\Big), \quad \hat F(-1) = 0,

        M_{\mathrm{CvM}} = n\sum_{k \ge 0} (\hat F(k) - F(k))^2 f(k), \quad
        M_{\mathrm{AD}} = n\sum_{k \ge 0} \frac{(\hat F(k) - F(k))^2 f(k)}{F(k)(1 - F(k))},

        Q_n = n\Big(\frac2n\sum_i E|x_i - X| - E|X - X'| - \frac1{n^2}\sum_{i,j}|x_i - x_j|\Big),

    :math:`E|x - X| = 2xF(x) - 2\bar xF(x - 1) + \bar x - x`, :math:`E|X - X'| = 2\bar x
    e^{-2\bar x}(I_0(2\bar x) + I_1(2\bar x))` (X - X' is Skellam). The M sums run where the
    Poisson probability is within :math:`e^{-80}` of its value at the extreme counts (the
    rest is below rounding), leaving out ``"M-AD"`` terms whose :math:`F(1 - F)` underflows.
    Time O(n log n) for ``"E"``; O(n log n + K) time and 80 K bytes for the M statistics, K
    about :math:`25\sqrt{\bar x}` plus the range of the counts (a grid beyond the working
    memory raises :class:`~energystats.WorkingMemoryError`: use ``"E"``).

    References
    ----------
    As in :func:`poisson_test`.

    Examples
    --------
    >>> import energystats as es
    >>> x = [1, 1, 2, 4, 1, 4, 4, 2, 2, 0, 1, 1, 3, 1, 3, 2, 3, 6, 1, 3, 4, 1, 2, 0, 1, 1, 0, 1,
    ...      4, 1]
    >>> round(es.poisson_statistic(x), 6)  # R: poisson.e(x)
    0.847383
    >>> # R: poisson.m(x)
    >>> {name: round(value, 6) for name, value in es.poisson_statistic(x, statistic="M").items()}
    {'M-CvM': 0.006698, 'M-AD': 0.051548}
    """
    tests = _check_test(statistic)
    values = _statistics(_check(x)[None, :], tests)[0][0]
    if len(tests) == 1:
        return float(values[0])
    return {name: float(value) for name, value in zip(tests, values)}


@front_door("x", names=("x",))
def poisson_test(x, *, statistic: str = "all", n_resamples: int = 999, rng=None,
                 nan_policy: str = "raise") -> PoissonTestResult:
    r"""Goodness-of-fit tests of the Poisson distribution with estimated mean (R ``poisson.tests``).

    H0: the counts are i.i.d. Poisson, lambda unknown. The statistics against theirs on
    ``n_resamples`` samples from Poisson(:math:`\bar x`), every test on the same samples.

    Parameters
    ----------
    x : array_like of shape (n,)
        Non-negative integer counts, at least two, not all zero.
    statistic : {"all", "M", "E", "M-CvM", "M-AD"}, default="all"
        The statistics of :func:`poisson_statistic`: ``"M"`` the mean distance tests (R
        ``poisson.mtest`` is M-CvM), ``"E"`` the energy test (R ``poisson.etest``).
    n_resamples : int, default=999
        Bootstrap samples (R's ``R``).
    rng : int, numpy.random.Generator or None, default=None
        It seeds the Poisson samples: ``poisson(mean, (m, n))`` for each block of m.
    nan_policy : {"raise", "omit"}, default="raise"
        Rows with a missing value in ``x``: as in :func:`mvnorm_test`.
    data_name : str, default=None
        The result's ``data_name``; None: the pandas names of the data, else the parameter names.

    Returns
    -------
    PoissonTestResult
        ``to_frame()`` is R's ``poisson.tests`` data frame, one row per test.

    Notes
    -----
    The statistics of :func:`poisson_statistic` (Székely & Rizzo 2004); p-value :math:`(1 +
    \#\{t^* \ge t - \gamma\}) / (B + 1)` per test (:mod:`energystats._resample`: ties up to
    rounding count); R reports :math:`\#\{t^* \ge t\}/B`. A sample of zeros only has
    statistics 0 (R: NaN for M-AD). Constant data are allowed. Time O(B (n log n + K))
    (O(B n log n) for ``statistic="E"``).

    References
    ----------
    G. J. Székely and M. L. Rizzo, "Mean distance test of Poisson distribution", Statistics
    & Probability Letters 67 (2004).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.random.default_rng(0).poisson(3.0, size=50)
    >>> res = es.poisson_test(x, n_resamples=199, rng=1)  # R: poisson.tests(x, R = 199)
    >>> res.to_frame().round(4).reset_index()
        test  estimate  statistic  pvalue       method
    0  M-CvM      3.18     0.2510   0.315   M-CvM test
    1   M-AD      3.18     1.2720   0.330    M-AD test
    2      E      3.18     0.7761   0.530  Energy test
    >>> overdispersed = np.random.default_rng(0).negative_binomial(2, 0.4, size=50)
    >>> es.poisson_test(overdispersed, statistic="E", n_resamples=199, rng=1).pvalue
    array([0.005])
    """
    tests = _check_test(statistic)
    x = _check(x)
    B = check_resamples(n_resamples)
    n, lam = x.size, float(x.mean())
    observed, scale = (v[0] for v in _statistics(x[None, :], tests))
    check_observed(observed, "the Poisson statistic")
    gen = as_generator(rng)
    low, high = _grid_bounds(x[None, :], np.array([lam]))
    # the samples' grids, wider than the data's: ten arrays of their length, eight of n
    width = 0 if tests == ("E",) else high - low + 1 + 80 * np.sqrt(lam) + 80
    null = null_distribution(lambda block: _statistics(block, tests)[0],
                             lambda m: gen.poisson(lam, size=(m, n)), B, 80.0 * (n + width),
                             False)
    return PoissonTestResult(statistic_names=tests, statistic=observed, pvalue=pvalue(
        observed, null, scale=scale, what="the Poisson statistic"), estimate=lam, n_samples=n,
        n_resamples=B, null_distribution=null)
