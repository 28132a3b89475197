r"""The energy tests of normality, parameters estimated: multivariate (R ``mvnorm.e``,
``mvnorm.test``) and univariate with its limit distribution (R ``normal.e``, ``normal.test``).
The statistic is affine invariant: its null distribution is that of N(0, I_d) samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats
from scipy.spatial.distance import pdist

from .._frontdoor import front_door
from .._linalg import standardise
from .._progress import check_progress
from .._random import as_generator, check_rng
from .._resample import check_observed, check_resamples, null_distribution, pvalue
from .._result_bases import FitPanel, NullPanel, Sample, TestResult
from .._scale import fits, pairwise
from .._semimetric import Scaling, resolve_semimetric
from .._validation import as_data, unit_scale
from ._limit import normal_limit_pdf, normal_limit_sf
from ._standard import CLOSED_FORMS, energy_statistic

__all__ = ["MvnormTestResult", "NormalTestResult", "mvnorm_statistic", "mvnorm_test",
           "normal_statistic", "normal_test"]

_METHODS = ("bootstrap", "limit")
_GAUSSIAN = CLOSED_FORMS[type(stats.norm)]


@dataclass(frozen=True, repr=False)
class MvnormTestResult(TestResult):
    """Result of :func:`mvnorm_test` (R ``mvnorm.test``): the statistic n E_n of
    :func:`mvnorm_statistic` and its values on Gaussian samples of the same shape.

    Attributes
    ----------
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
        """Squared Mahalanobis distances against their law under normality: n D^2 / (n - 1)^2
        is Beta(d / 2, (n - d - 1) / 2) (Gnanadesikan & Kettenring 1972)."""
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


@dataclass(frozen=True, repr=False)
class NormalTestResult(TestResult):
    """Result of :func:`normal_test` (R ``normal.test``: ``statistic``, ``p.value``, ``estimate``).

    Attributes
    ----------
    statistic : float
        :math:`n\\mathcal E_n` of :func:`normal_statistic` (R ``normal.e``).
    method : str
        ``"bootstrap"`` (the null of ``n_resamples`` Gaussian samples) or ``"limit"`` (the
        tail of the limit distribution; ``null_distribution`` and ``n_resamples`` None).
    mean, sd : float
        The estimates (R's ``estimate``): sample mean and standard deviation (n - 1).
    n_samples : int
    """

    method: str
    mean: float
    sd: float
    n_samples: int

    _title = "Energy test of univariate normality, estimated mean and sd (R normal.test)"
    _statistic_label = "E"
    _hidden = ("method",)

    def _pvalue_note(self) -> str:
        if self.method == "limit":
            return "limit distribution"
        return f"{self.n_resamples} parametric bootstrap samples"

    def _null_panels(self) -> tuple[NullPanel, ...]:
        test, label = "energy test of normality", "energy statistic n E\u2099"
        if self.method == "limit":  # its density over (0, 2.5], beyond which it holds < 1e-5
            return (NullPanel(test, label, self.statistic, self.pvalue,
                              "limit distribution \u03a3 \u03bb\u2096 Z\u2096\u00b2",
                              density=normal_limit_pdf, support=(0.0, 2.5)),)
        return (NullPanel(test, label, self.statistic, self.pvalue,
                          f"parametric bootstrap ({self.n_resamples:,} normal samples)",
                          null=self.null_distribution),)

    def _fit_panel(self, sample: Sample) -> FitPanel:
        values = sample.column(self.n_samples)
        if not np.isclose(values.mean(), self.mean, rtol=1e-9, atol=1e-12 * (1 + abs(self.mean))):
            raise ValueError(f"`x` has mean {values.mean():.6g}, `result` estimated "
                             f"{self.mean:.6g}: pass the data the test was run on.")
        return FitPanel(values, sample.name, stats.norm(self.mean, self.sd),
                        f"fitted N({self.mean:.4g}, {self.sd:.4g}\u00b2)",
                        f"energy test of normality: p = {self.pvalue:.3g}")


#: From this d on :func:`_mean_distance_to_gaussian` sums a Poisson mixture (hyp1f1 overflows).
MIXTURE_FROM = 50


def _mean_distance_to_gaussian(Y: np.ndarray) -> np.ndarray:
    r"""E||y - Z|| for each row y of Y (n x d), Z ~ N(0, I_d) (Székely & Rizzo 2005, eq. 3.2).

    From d = :data:`MIXTURE_FROM` on as a Poisson mixture (||y - Z||^2 is chi-square with
    d + 2K degrees of freedom, K ~ Poisson(|y|^2/2)): :math:`\sum_k P(K = k)\sqrt2\,
    \Gamma(\frac{d+1}2 + k) / \Gamma(\frac d2 + k)` over k within 12 sd and 20 of |y|^2/2
    (the mass left out below 1e-25): relative error about 1e-13 at any d."""
    d = Y.shape[1]
    if d == 1:
        return _GAUSSIAN(Y[:, 0])[0]
    r2 = np.einsum("ij,ij->i", Y, Y)
    if d < MIXTURE_FROM:
        ratio = np.exp(special.gammaln((d + 1) / 2) - special.gammaln(d / 2))
        return np.sqrt(2.0) * ratio * special.hyp1f1(-0.5, d / 2, -r2 / 2)
    x = r2 / 2.0
    reach = 12.0 * np.sqrt(x.max()) + 20.0
    k = np.maximum(np.floor(x - reach), 0.0)[:, None] + np.arange(int(2.0 * reach) + 2)
    a = d / 2 + k  # Gamma(a + 1/2) / Gamma(a) = sqrt(a) exp(a log1p(1/(2a)) - 1/2 + ...)
    log_ratio = 0.5 * np.log(a) + (a * np.log1p(0.5 / a) - 0.5) + _stirling(a + 0.5) - _stirling(a)
    return np.sqrt(2.0) * np.exp(log_poisson(k, x[:, None]) + log_ratio).sum(axis=1)


def _stirling(a: np.ndarray) -> np.ndarray:
    """log Gamma(a) - ((a - 1/2) log a - a + log(2 pi) / 2) for a >= 15, series to a^-13."""
    b, series = 1.0 / (a * a), 1.0 / 156.0
    for coefficient in (-691.0 / 360360.0, 1.0 / 1188.0, -1.0 / 1680.0, 1.0 / 1260.0,
                        -1.0 / 360.0, 1.0 / 12.0):
        series = coefficient + b * series
    return series / a


def log_poisson(k: np.ndarray, x: np.ndarray) -> np.ndarray:
    """log P(K = k), K ~ Poisson(x), to 1e-15 at any size: Loader's -stirlerr(k) - bd0(k, x)
    - log(2 pi k) / 2, bd0 = k log(k/x) + x - k by its series in (k - x)/(k + x) near 0."""
    k, x = np.broadcast_arrays(k, x)
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = special.gammaln(k + 1.0) - (k + 0.5) * np.log(k) + k - 0.5 * np.log(2 * np.pi)
        stirlerr = np.where(k < 15, direct, _stirling(np.maximum(k, 15.0)))
        v = (k - x) / (k + x)
        series, term = (k - x) * v, 2.0 * k * v
        for j in range(1, 20):
            term = term * v * v
            series = series + term / (2 * j + 1)
        bd0 = np.where(np.abs(v) < 0.1, series, special.xlogy(k, k / x) + x - k)
        out = -stirlerr - bd0 - 0.5 * np.log(2 * np.pi * k)
    return np.where(k == 0, -x, out)


def _between(d: int) -> float:
    """E||Z - Z'|| = sqrt(2) E||Z|| = 2 Gamma((d + 1) / 2) / Gamma(d / 2)."""
    return 2.0 * np.exp(special.gammaln((d + 1) / 2) - special.gammaln(d / 2))


def _statistics(samples: np.ndarray, held: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """n E_n of each sample of a block (b x n x d) and its tie scale: for d = 1 sorted, else
    the pairs by ``pdist`` when ``held`` (n x n fits the budget), streamed otherwise."""
    b, n, d = samples.shape
    if d == 1:
        centred = samples[:, :, 0] - samples[:, :, 0].mean(axis=-1, keepdims=True)
        y = np.sort(centred / centred.std(axis=-1, ddof=1, keepdims=True), axis=-1)
        return energy_statistic(_GAUSSIAN(y)[0], _between(1), y)
    Y = standardise(samples)
    twice = 2.0 * _mean_distance_to_gaussian(Y.reshape(b * n, d)).reshape(b, n).mean(axis=1)
    pairs = np.array([2.0 * pdist(y).sum() if held else
                      pairwise(y, resolve_semimetric(), held=False).sum() for y in Y]) / (n * n)
    return n * (twice - _between(d) - pairs), n * (twice + _between(d) + pairs)


def _check(X, univariate: bool) -> np.ndarray:
    """The data as an n x d float array: one column of two values or more, not all equal
    (``univariate``), or more rows than columns + 1."""
    X = as_data(X, "x" if univariate else "X")
    n, d = X.shape
    if not univariate and n <= d + 1:
        raise ValueError(f"`X` needs more samples than features + 1 (n = {n}, d = {d}).")
    if univariate and d != 1:
        raise ValueError(f"`x` must be univariate (one column), got {d} columns (mvnorm_test "
                         "tests multivariate normality).")
    if univariate and n < 2:
        raise ValueError(f"`x` must hold at least two values, got {n}.")
    if univariate and X.min() == X.max():
        raise ValueError("`x` is constant: its standard deviation is 0, so it can be neither "
                         "standardised nor tested.")
    return X


def _observed(X: np.ndarray, what: str) -> tuple[float, float]:
    """n E_n of the data X (n x d, checked finite: ``what`` names it) and its tie scale."""
    statistic, scale = (float(v[0]) for v in _statistics(X[None], fits(X.shape[0])))
    return check_observed(statistic, what), scale


def _bootstrap(statistic: float, scale: float, n: int, d: int, B: int, rng, progress=False):
    """The statistics of ``B`` standard Gaussian samples of n points in d dimensions, a
    block per call of the generator, and the p-value of ``statistic``."""
    gen, held = as_generator(rng), fits(n)
    null = null_distribution(lambda block: _statistics(block, held)[0],  # 8 arrays of a sample
                             lambda m: gen.standard_normal((m, n, d)), B, 64.0 * n * d, progress,
                             "Gaussian samples")
    return null, pvalue(statistic, null, scale=scale, what="the normality statistic")


@front_door("X", propagate=True)
def mvnorm_statistic(X, *, nan_policy: str = "raise") -> float:
    r"""The energy statistic of multivariate normality, :math:`n\mathcal E_n` (R ``mvnorm.e``).

    Parameters
    ----------
    X : array_like of shape (n, d)
        Data; needs n > d + 1.
    nan_policy : {"raise", "omit", "propagate"}, default="raise"
        A row with a missing value (NaN, None, pandas NA, masked, or R's NA) in ``X``:
        ``"raise"`` an error, ``"omit"`` drop it, ``"propagate"`` return NaN.

    Returns
    -------
    float

    Notes
    -----
    With :math:`y_j = S^{-1/2}(x_j - \bar x)` (S the sample covariance, n - 1, its symmetric
    root) and Z, Z' independent N(0, I_d) (Székely & Rizzo 2005, eq. 3.1, 3.2),

    .. math::

        n\mathcal E_n = n\Big(\frac 2n \sum_j E\|y_j - Z\| - E\|Z - Z'\|
        - \frac 1{n^2} \sum_{j,k} \|y_j - y_k\|\Big),

    :math:`E\|y - Z\| = \sqrt 2\,\frac{\Gamma((d+1)/2)}{\Gamma(d/2)}\,
    {}_1F_1(-\tfrac12; \tfrac d2; -\tfrac{\|y\|^2}2)`, :math:`E\|Z - Z'\| =
    2\Gamma(\frac{d+1}2)/\Gamma(\frac d2)`. Affine invariant. d = 1 is :func:`normal_statistic`
    (O(n log n)); for d > 1, O(n^2 d) time, the pairs streamed past the working memory; from
    d = 50 on :math:`E\|y - Z\|` as a Poisson mixture of chi means (R's is 1e-8 at d = 1,000).

    References
    ----------
    As in :func:`mvnorm_test`.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> round(es.mvnorm_statistic(X), 4)  # R: mvnorm.e(X)
    0.9404
    """
    X = unit_scale(_check(X, False))[0]  # exact, and standardised: the same statistic
    return float(_statistics(X[None], fits(X.shape[0]))[0][0])


@front_door("X", names=("X",))
def mvnorm_test(X, *, n_resamples: int = 999, rng=None, progress: bool | None = None,
                nan_policy: str = "raise") -> MvnormTestResult:
    r"""Energy test of multivariate normality (R ``mvnorm.test``, ``mvnorm.etest``).

    H0: the rows are i.i.d. Gaussian, any mean and non-singular covariance. The statistic
    of :func:`mvnorm_statistic` against its values on ``n_resamples`` N(0, I_d) samples.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Data; needs n > d + 1.
    n_resamples : int, default=999
        Gaussian samples (R's ``R``).
    rng : int, numpy.random.Generator or None, default=None
        It seeds the Gaussian samples: ``standard_normal((m, n, d))`` for each block of m.
    progress : bool or None, default=None
        A progress bar over the samples (tqdm); None: when a person is watching.
    nan_policy : {"raise", "omit"}, default="raise"
        A row with a missing value (NaN, None, pandas NA, masked, or R's NA) in ``X``:
        ``"raise"`` an error, ``"omit"`` drop it; the result's ``n_omitted`` counts them.
    data_name : str, default=None
        The result's ``data_name``; None: the pandas names of the data, else the parameter names.

    Returns
    -------
    MvnormTestResult

    Notes
    -----
    The statistic of eq. 3.1 of Székely & Rizzo (2005) (:func:`mvnorm_statistic`); p-value
    :math:`(1 + \#\{t^* \ge t\}) / (B + 1)` (:mod:`energystats._resample`), never 0;
    R reports :math:`\#\{t^* \ge t\} / B`. Consistent against every fixed non-Gaussian
    alternative with finite first moment. Time O(B n^2 d) (O(B n log n) for d = 1); memory
    a block of samples within 8 MiB and one sample's n(n - 1)/2 distances.

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
    X = unit_scale(_check(X, False))[0]
    n, d = X.shape
    B = check_resamples(n_resamples)
    statistic, scale = _observed(X, "the multivariate normality statistic")
    null, p = _bootstrap(statistic, scale, n, d, B, rng, check_progress(progress))
    return MvnormTestResult(statistic=statistic, pvalue=p, null_distribution=null, n_resamples=B,
                            n_samples=n, n_features=d)


@front_door("x", propagate=True)
def normal_statistic(x, *, nan_policy: str = "raise") -> float:
    r"""The energy statistic of univariate normality, :math:`n\mathcal E_n` (R ``normal.e``).

    Parameters
    ----------
    x : array_like of shape (n,)
        Univariate data, at least two values, not all equal.
    nan_policy : {"raise", "omit", "propagate"}, default="raise"
        Rows with a missing value in ``x``: as in :func:`mvnorm_statistic`.

    Returns
    -------
    float

    Notes
    -----
    :func:`mvnorm_statistic` of the data as one column (Székely & Rizzo 2005, eq. 3.1 with
    d = 1): :math:`y_i = (x_i - \bar x)/s` (s the sample standard deviation, n - 1),
    :math:`E|y - Z| = 2y\Phi(y) + 2\varphi(y) - y`, :math:`E|Z - Z'| = 2/\sqrt\pi`, and the
    pair sum :math:`2\sum_t (2t - n - 1)\,y_{(t)}` from the sorted sample: O(n log n).

    References
    ----------
    As in :func:`mvnorm_test`.

    Examples
    --------
    >>> import energystats as es
    >>> x = es.datasets.load_iris()["Sepal.Length"][:50]
    >>> round(es.normal_statistic(x), 6)  # R: normal.e(iris[1:50, 1])
    0.465029
    """
    return float(_statistics(unit_scale(_check(x, True))[0][None])[0][0])


@front_door("x", names=("x",))
def normal_test(x, *, method: str = "bootstrap", n_resamples: int | None = None, rng=None,
                nan_policy: str = "raise") -> NormalTestResult:
    r"""Energy test of univariate normality with estimated mean and sd (R ``normal.test``).

    H0: the values are i.i.d. normal, mean and variance unknown (Case 4 of R's
    ``EVnormal``). The statistic is :func:`normal_statistic`.

    Parameters
    ----------
    x : array_like of shape (n,)
        Univariate data, at least two values, not all equal.
    method : {"bootstrap", "limit"}, default="bootstrap"
        ``"bootstrap"`` (R's ``"mc"``): the statistic of ``n_resamples`` standard normal
        samples of size n (an exact Monte Carlo test); ``"limit"``: the tail probability of
        the limit distribution :math:`\sum_k \lambda_k Z_k^2` (see Notes).
    n_resamples : int, default=None
        Gaussian samples for ``"bootstrap"`` (R's ``R``); None means 999. Not accepted with
        ``"limit"``, which draws nothing.
    rng : int, numpy.random.Generator or None, default=None
        It seeds the Gaussian samples (unused by ``"limit"``).
    nan_policy : {"raise", "omit"}, default="raise"
        Rows with a missing value in ``x``: as in :func:`mvnorm_test`.
    data_name : str, default=None
        The result's ``data_name``; None: the pandas names of the data, else the parameter names.

    Returns
    -------
    NormalTestResult

    Notes
    -----
    The statistic of eq. 3.1 of Székely & Rizzo (2005) with d = 1. ``"bootstrap"``: the
    samples and p-value of :func:`mvnorm_test` with the same ``rng``; time O(B n log n).

    ``"limit"``: the eigenvalues :math:`\lambda_k` of the integral operator of Möri,
    Székely & Rizzo (2021) for estimated mean and variance by a Rayleigh-Ritz method
    (:mod:`energystats._gof._limit`: once per process, 0.3 s), the 150 largest to 1e-11, the
    rest by their total mean; the tail by Imhof's (1961) eq. 3.2. R's ``EVnormal`` agrees to
    4e-11 for the first 15, then falls below (sum 0.3977, trace :math:`3/(4\sqrt\pi) =
    0.4231`): R's limit p-values are smaller than these and than simulated ones
    (``validation/results/gof_limit.md``). ``"bootstrap"`` is exact at every n.

    References
    ----------
    G. J. Székely and M. L. Rizzo, "A new test for multivariate normality", J. Multivariate
    Analysis 93 (2005). T. F. Móri, G. J. Székely and M. L. Rizzo, "On energy tests of
    normality", J. Statistical Planning and Inference 213 (2021). J. P. Imhof, "Computing
    the distribution of quadratic forms in normal variables", Biometrika 48 (1961).

    Examples
    --------
    >>> import energystats as es
    >>> x = es.datasets.load_iris()["Sepal.Length"][:50]
    >>> res = es.normal_test(x, n_resamples=199, rng=0)  # R: normal.test(x, R = 199)
    >>> round(res.statistic, 4), res.pvalue
    (0.465, 0.315)
    >>> round(es.normal_test(x, method="limit").pvalue, 4)
    0.3244
    """
    if method not in _METHODS:
        hint = " (R's method = \"mc\" is 'bootstrap' here)" if method == "mc" else ""
        raise ValueError(f"`method` must be one of {_METHODS}, got {method!r}{hint}.")
    if method == "limit" and n_resamples is not None:
        raise ValueError("`n_resamples` applies to method='bootstrap' only; method='limit' draws "
                         "no samples.")
    X, e = unit_scale(_check(x, True))  # x / 2^e: no overflow of squares, the same statistic
    check_rng(rng)  # for "limit" too, which draws nothing
    x, back = X[:, 0], Scaling(0, float(e))  # the estimates in the data's units
    statistic, scale = _observed(X, "the normality statistic")
    estimates = dict(mean=back.result(float(x.mean()), "the mean"),
                     sd=back.result(float(x.std(ddof=1)), "the sd"), n_samples=x.size)
    if method == "limit":
        return NormalTestResult(statistic=statistic, pvalue=normal_limit_sf(statistic),
                                method="limit", n_resamples=None, null_distribution=None,
                                **estimates)
    B = 999 if n_resamples is None else check_resamples(n_resamples)
    null, p = _bootstrap(statistic, scale, x.size, 1, B, rng)
    return NormalTestResult(statistic=statistic, pvalue=p, method="bootstrap", n_resamples=B,
                            null_distribution=null, **estimates)
