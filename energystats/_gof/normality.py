"""The energy goodness-of-fit test of multivariate normality (Székely & Rizzo 2005)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats
from scipy.special import gammaln, hyp1f1, ndtr

from .._frontdoor import front_door
from .._linalg import standardise
from .._operator import make_operator, stacked_pair_sums
from .._random import as_generator
from .._resampling import Draws, check_observed, check_options, null_distribution, pvalue
from .._result_bases import FitPanel, NullPanel, Sample, TestResult
from .._semimetric import resolve_semimetric
from .._validation import as_data, unit_scale
from ._standard import energy_scale

__all__ = ["MvnormTestResult", "mvnorm_statistic", "mvnorm_test"]


@dataclass(frozen=True, repr=False)
class MvnormTestResult(TestResult):
    """Result of :func:`mvnorm_test` (R ``mvnorm.test``: ``statistic``, ``p.value``).

    Attributes
    ----------
    statistic : float
        n E_n of :func:`mvnorm_statistic` (R ``mvnorm.e``).
    null_distribution : ndarray of shape (n_resamples,)
        The statistic of Gaussian samples of the same size and dimension.
    n_samples, n_features : int
    """

    n_samples: int
    n_features: int

    _title = "Energy test of multivariate normality, estimated parameters (R mvnorm.test)"
    _statistic_label = "E"
    _resamples = "parametric bootstrap samples"

    def _null_panels(self) -> tuple[NullPanel, ...]:
        return (NullPanel(f"energy test of {self.n_features}-variate normality",
                          "energy statistic n E\u2099", self.statistic, self.pvalue,
                          f"parametric bootstrap ({self.n_resamples:,} normal samples)",
                          null=self.null_distribution),)

    def _fit_panel(self, sample: Sample) -> FitPanel:
        """The squared Mahalanobis distances of the rows from their mean (covariance with
        n - 1) against their law under normality: n D^2 / (n - 1)^2 is Beta(d / 2,
        (n - d - 1) / 2) for every row (Gnanadesikan & Kettenring 1972, after Wilks 1963)."""
        X = sample.matrix(self.n_samples, self.n_features)
        n, d = X.shape
        if n <= d + 1:
            raise ValueError("`x` needs more rows than columns + 1 for the law of its Mahalanobis "
                             f"distances, got {n} rows and {d} columns.")
        centred = X - X.mean(axis=0)
        covariance = np.cov(X, rowvar=False).reshape(d, d)
        squared = np.einsum("ij,ji->i", centred, np.linalg.solve(covariance, centred.T))
        law = stats.beta(d / 2.0, (n - d - 1) / 2.0, scale=(n - 1.0) ** 2 / n)
        beta = f"Beta({d / 2:g}, {(n - d - 1) / 2:g})"
        return FitPanel(squared, "Mahalanobis D\u00b2", law, f"scaled {beta} law of D\u00b2",
                        f"energy test of {d}-variate normality: p = {self.pvalue:.3g}")


#: From this dimension on :func:`_mean_distance_to_gaussian` sums its Poisson mixture: scipy's
#: ``hyp1f1(-1/2, d/2, -r^2/2)`` overflows for d >= 100 over the radii that occur.
MIXTURE_FROM = 50


def _mean_distance_to_gaussian(Y: np.ndarray) -> np.ndarray:
    r"""E||y - Z|| for each row y, Z ~ N(0, I_d) (Székely & Rizzo 2005, eq. 3.2):
    sqrt(2) Gamma((d + 1) / 2) / Gamma(d / 2) 1F1(-1/2; d/2; -|y|^2 / 2); for d = 1 the
    equal form 2 y Phi(y) + 2 phi(y) - y.

    From d = :data:`MIXTURE_FROM` on, the same value as a Poisson mixture: ||y - Z||^2 is
    non-central chi-square, a chi-square with d + 2K degrees of freedom, K ~ Poisson(|y|^2/2),
    so :math:`E\|y - Z\| = \sum_k P(K = k)\, \sqrt2\, \Gamma(\frac{d+1}2 + k) /
    \Gamma(\frac d2 + k)`, positive terms summed over k within 12 standard deviations and 20
    of |y|^2/2 (the Poisson mass left out is below 1e-25): relative error about 1e-13 (the
    differences of log-gammas of about d log d), no overflow at any d.
    """
    d = Y.shape[1]
    if d == 1:
        y = Y[:, 0]
        return 2.0 * y * ndtr(y) + 2.0 * np.exp(-0.5 * y * y) / np.sqrt(2.0 * np.pi) - y
    r2 = np.einsum("ij,ij->i", Y, Y)
    if d < MIXTURE_FROM:
        ratio = np.exp(gammaln((d + 1) / 2) - gammaln(d / 2))
        return np.sqrt(2.0) * ratio * hyp1f1(-0.5, d / 2, -r2 / 2)
    x = r2 / 2.0
    reach = 12.0 * np.sqrt(x.max()) + 20.0
    first = np.maximum(np.floor(x - reach), 0.0)
    k = first[:, None] + np.arange(int(2.0 * reach) + 2)
    a = d / 2 + k  # Gamma(a + 1/2) / Gamma(a) = sqrt(a) exp(a log1p(1/(2a)) - 1/2 + ...)
    log_ratio = 0.5 * np.log(a) + (a * np.log1p(0.5 / a) - 0.5) + _stirling(a + 0.5) - _stirling(a)
    return np.sqrt(2.0) * np.exp(_log_poisson(k, x[:, None]) + log_ratio).sum(axis=1)


def _stirling(a: np.ndarray) -> np.ndarray:
    """log Gamma(a) - ((a - 1/2) log a - a + log(2 pi) / 2) for a >= 15, by its series to
    a^-13 (the next term, 3617/(122400 a^15), below 1e-19 there)."""
    b = 1.0 / (a * a)
    series = 1.0 / 156.0
    terms = (-691.0 / 360360.0, 1.0 / 1188.0, -1.0 / 1680.0, 1.0 / 1260.0, -1.0 / 360.0, 1.0 / 12.0)
    for coefficient in terms:
        series = coefficient + b * series
    return series / a


def _log_poisson(k: np.ndarray, x: np.ndarray) -> np.ndarray:
    """log P(K = k), K ~ Poisson(x), to about 1e-15 absolute at any size (Loader's form
    -stirlerr(k) - bd0(k, x) - log(2 pi k) / 2, bd0 = k log(k/x) + x - k by its series in
    v = (k - x)/(k + x) where |v| < 0.1: no cancellation of terms of size k log x)."""
    k, x = np.broadcast_arrays(k, x)
    with np.errstate(divide="ignore", invalid="ignore"):
        small = k < 15
        direct = gammaln(k + 1.0) - (k + 0.5) * np.log(k) + k - 0.5 * np.log(2 * np.pi)
        stirlerr = np.where(small, direct,
                            _stirling(np.maximum(k, 15.0)))
        v = (k - x) / (k + x)
        series = (k - x) * v
        term = 2.0 * k * v
        for j in range(1, 20):
            term = term * v * v
            series = series + term / (2 * j + 1)
        bd0 = np.where(np.abs(v) < 0.1, series, special.xlogy(k, k / x) + x - k)
        out = -stirlerr - bd0 - 0.5 * np.log(2 * np.pi * k)
    return np.where(k == 0, -x, out)


def _between(d: int) -> float:
    """E||Z - Z'|| = sqrt(2) E||Z|| = 2 Gamma((d + 1) / 2) / Gamma(d / 2)."""
    return 2.0 * np.exp(gammaln((d + 1) / 2) - gammaln(d / 2))


def _statistic(X: np.ndarray) -> float:
    n, d = X.shape
    Y = standardise(X)
    within = make_operator(Y, resolve_semimetric()).row_sums().sum()
    to_gaussian = _mean_distance_to_gaussian(Y).mean()
    return float(n * (2.0 * to_gaussian - _between(d) - within / (n * n)))


def _statistics(samples: np.ndarray) -> np.ndarray:
    """The statistic of each sample of a block (B x n x d), as :func:`_statistic` computes it
    (to rounding): the block standardised at once, E||y - Z|| of all its rows in one call,
    and each sample's pair sum from its pairs (no operator built per sample)."""
    B, n, d = samples.shape
    Y = standardise(samples)
    to_gaussian = _mean_distance_to_gaussian(Y.reshape(B * n, d)).reshape(B, n).mean(axis=1)
    within = stacked_pair_sums(Y, resolve_semimetric())
    return n * (2.0 * to_gaussian - _between(d) - within / (n * n))


#: Point pairs per block of the bootstrap (about 10 ms of ``pdist`` on this machine, 2.5 ns
#: a pair at d = 3): every sample in one block up to n = 60 at B = 999, and blocks that a
#: progress bar can follow beyond (8 samples a block at n = 1,000).
PAIRS_PER_BLOCK = 2**22


def samples_per_block(n: int) -> int:
    """Most samples of n points per block of :func:`mvnorm_test`'s bootstrap (sizes only)."""
    return max(1, PAIRS_PER_BLOCK // (n * (n - 1) // 2))


def _check(X) -> np.ndarray:
    """``X`` divided by 2^e (exact): the statistic standardises the data (affine invariance),
    so it is unchanged, and the covariance neither overflows nor underflows at any magnitude."""
    X = as_data(X, "X")
    n, d = X.shape
    if n <= d + 1:
        raise ValueError(f"`X` needs more samples than features + 1 (n = {n}, d = {d}).")
    return unit_scale(X)[0]


@front_door("X", propagate=True)
def mvnorm_statistic(X, *, nan_policy: str = "raise") -> float:
    r"""The energy statistic of multivariate normality, n E_n (R ``mvnorm.e``).

    With :math:`y_j = S^{-1/2}(x_j - \bar x)` (sample covariance S, n - 1 denominator)
    and Z, Z' independent N(0, I_d) (Székely & Rizzo 2005, eq. 3.1),

    .. math::

        n\mathcal E_n = n\Big(\frac 2n \sum_j E\|y_j - Z\| - E\|Z - Z'\|
        - \frac 1{n^2} \sum_{j,k} \|y_j - y_k\|\Big),

    :math:`E\|y - Z\| = \sqrt 2\,\Gamma(\frac{d+1}2)/\Gamma(\frac d2)\,
    {}_1F_1(-\frac12; \frac d2; -\frac{\|y\|^2}2)` and :math:`E\|Z - Z'\| =
    2\Gamma(\frac{d+1}2)/\Gamma(\frac d2)`. Affine invariant; zero only when the
    standardised sample matches N(0, I) in energy. d = 1 is R's univariate case
    (standardised by the sample standard deviation).

    Parameters
    ----------
    X : array_like of shape (n, d)
        Data; needs n > d + 1.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> round(es.mvnorm_statistic(X), 4)
    0.9404
    """
    return _statistic(_check(X))


@front_door("X", names=("X",))
def mvnorm_test(
    X, *, n_resamples: int = 999, rng=None, progress: bool | None = None, nan_policy: str = "raise"
) -> MvnormTestResult:
    r"""Energy test of multivariate normality (R ``mvnorm.test``, ``mvnorm.etest``).

    The statistic of :func:`mvnorm_statistic`, with its null distribution from a
    parametric bootstrap: the statistic is affine invariant, so under H0 (the rows are
    i.i.d. Gaussian, any mean and non-singular covariance) it is distributed as for
    N(0, I_d) samples of the same size, which are drawn ``n_resamples`` times.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Data; needs n > d + 1.
    n_resamples : int, default=999
        Gaussian samples (R's ``R``).
    rng
        It seeds the Gaussian samples.
    progress : bool or None, default=None
        Show a progress bar (tqdm).

    Returns
    -------
    MvnormTestResult

    Notes
    -----
    p-value :math:`(1 + \#\{t^* \ge t\}) / (B + 1)`, exact for the Monte Carlo test
    and never 0; R reports :math:`\#\{t^* \ge t\} / B`. The test is consistent against
    every fixed non-Gaussian alternative with finite first moment (Székely & Rizzo
    2005); it answers "is this sample (a cluster, residuals) Gaussian?".

    References
    ----------
    G. J. Székely and M. L. Rizzo, "A new test for multivariate normality", J.
    Multivariate Analysis 93 (2005).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> bool(es.mvnorm_test(rng.normal(size=(60, 2)), rng=1).pvalue > 0.05)
    True
    >>> bool(es.mvnorm_test(rng.standard_t(2, size=(60, 2)), rng=1).pvalue < 0.05)
    True
    """
    X = _check(X)
    n, d = X.shape
    options = check_options(n_resamples, progress=progress)
    B = options.n_resamples
    statistic = check_observed(_statistic(X), "the multivariate normality statistic")
    # the draws, their standardised copies and the SVD's factors: 8 arrays of a sample's size
    engine = Draws(lambda gen, size: gen.standard_normal((size, n, d)), _statistics,
                   item_bytes=8 * 8 * n * d, what=f"mvnorm_test (n = {n}, d = {d})",
                   desc="Gaussian samples", cap=samples_per_block(n))
    null = null_distribution(engine, options, as_generator(rng)).values
    # standardised: mean ||y_j - y_k||^2 = 2 tr(cov) <= 2d, so var(y) is at most d
    return MvnormTestResult(
        statistic=statistic,
        pvalue=pvalue(statistic, null, scale=energy_scale(statistic, n, _between(d), np.sqrt(d)),
                      what="the multivariate normality statistic"),
        null_distribution=null,
        n_resamples=B,
        n_samples=n,
        n_features=d,
    )
