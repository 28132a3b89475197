"""Comparing clusters on the variables that formed them, by data thinning.

Testing clusters on the data that found them is invalid (the labels were chosen to
make the groups differ). Data thinning (Neufeld, Dharamshi, Gao & Witten 2024,
JMLR; data fission, Leiner, Duan, Wasserman & Ramdas 2023) splits each observation
into two independent parts, X = X1 + X2: the clusters are found on X1 and compared
on X2 with the permutation energy test, which is then valid because the labels are
independent of X2.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from numbers import Real

import numpy as np
import pandas as pd

from .._frontdoor import front_door
from .._homogeneity import EnergyTestResult, energy_test, pairwise_energy_tests
from .._random import as_generator
from .._resample import check_resamples
from .._result_bases import ClusteringResult, NullPanel, TestResult
from .._results import Table
from .._validation import as_data, check_n_clusters
from .cluster_test import check_kgroups_options
from .kgroups import KGroups

__all__ = ["ThinnedComparisonResult", "thinned_cluster_comparison"]

#: Options of :class:`KGroups` that fix the semimetric, shared with the energy test.
_SEMIMETRIC_OPTIONS = ("exponent", "metric", "sigma")


@dataclass(frozen=True, repr=False)
class ThinnedComparisonResult(ClusteringResult, TestResult):
    """Result of :func:`thinned_cluster_comparison`: the energy test on the held-out part X2,
    grouped by the clusters found on X1 (its statistic, p-value and null are ``test``'s).

    Attributes
    ----------
    n_clusters : int
        Number of clusters fitted.
    family : str
        ``"gaussian"`` or ``"poisson"``.
    epsilon : float
        The share of the information given to the clustering part X1.
    test : EnergyTestResult
        The k-sample energy test on X2.
    pairwise : pandas.DataFrame or None
        :func:`pairwise_energy_tests` on X2 for k > 2 (Holm-corrected), else None.
    labels : ndarray of shape (n,)
        The clusters found on X1.
    model : KGroups
        The estimator fitted to X1.
    fit_part, test_part : ndarray of shape (n, d)
        X1 and X2, with X1 + X2 = X.
    """

    n_clusters: int
    family: str
    epsilon: float
    test: EnergyTestResult = field(repr=False)
    pairwise: pd.DataFrame | None = field(repr=False)
    model: KGroups = field(repr=False)
    fit_part: np.ndarray = field(repr=False)
    test_part: np.ndarray = field(repr=False)

    _title = "Energy test of clusters by data thinning: found on one part, tested on the other"

    @property
    def _statistic_label(self) -> str:
        return self.test.statistic_name

    def _pvalue_note(self) -> str:
        return self.test._pvalue_note()

    def _tables(self) -> list[Table]:
        return [] if self.pairwise is None else [Table("Pairs of clusters (Holm)", self.pairwise)]

    def _null_panels(self) -> tuple[NullPanel, ...]:
        test = f"{self.n_clusters} clusters found on one thinned part, tested on the other"
        return tuple(replace(panel, test=test) for panel in self.test._null_panels())


def _covariance_root(cov, d: int) -> np.ndarray:
    """A d x d matrix R with R'R = Sigma, from a variance (scalar), per-feature variances
    (d,) or a symmetric positive semidefinite (d, d) matrix."""
    if isinstance(cov, bool):
        raise TypeError("`cov` must be a number or an array of numbers, got bool.")
    try:
        C = np.asarray(cov, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("`cov` must be a number or an array of numbers, got "
                        f"{type(cov).__name__}.") from None
    if not np.isfinite(C).all():
        raise ValueError("`cov` contains NaN or infinite values.")
    if C.ndim == 0 or C.shape == (d,):
        if (C <= 0).any():
            raise ValueError("`cov` must hold positive variances.")
        return np.diag(np.broadcast_to(np.sqrt(C), (d,)))
    if C.shape != (d, d):
        raise ValueError(f"`cov` must be a scalar, of shape ({d},) or ({d}, {d}), got shape "
                         f"{C.shape}.")
    if np.abs(C - C.T).max() > 1e-12 * np.abs(C).max():
        raise ValueError("`cov` must be symmetric.")
    values, vectors = np.linalg.eigh((C + C.T) / 2)
    if values[0] < -1e-10 * values[-1] or values[-1] <= 0:
        raise ValueError("`cov` must be positive semidefinite and nonzero.")
    return (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T


def _thin(X: np.ndarray, family: str, cov, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """X1 of the decomposition X = X1 + X2 (Neufeld et al. 2024, Table 1).

    Gaussian rows N(mu, Sigma): X1 = eps X + sqrt(eps (1 - eps)) Z R, Z standard normal,
    R'R = Sigma, so that X1 | X ~ N(eps X, eps (1 - eps) Sigma); then X1 ~ N(eps mu,
    eps Sigma) and X2 ~ N((1 - eps) mu, (1 - eps) Sigma) are independent. Poisson counts
    with mean mu: X1 | X ~ Binomial(X, eps), so X1 ~ Poisson(eps mu) and X2 ~
    Poisson((1 - eps) mu) are independent."""
    if family == "poisson":
        return rng.binomial(X.astype(np.int64), epsilon).astype(float)
    root = _covariance_root(cov, X.shape[1])
    return epsilon * X + np.sqrt(epsilon * (1.0 - epsilon)) * (rng.standard_normal(X.shape) @ root)


@front_door("X", names=("X",))
def thinned_cluster_comparison(X, n_clusters: int, *, family: str = "gaussian", cov=None,
                               epsilon: float = 0.5, statistic: str = "S",
                               n_resamples: int = 999, rng=None, n_jobs=None,
                               nan_policy: str = "raise",
                               **kgroups_options) -> ThinnedComparisonResult:
    r"""Find clusters on one part of the data and compare them on an independent part.

    Splits X = X1 + X2 by data thinning (Neufeld, Dharamshi, Gao & Witten 2024), so
    that X1 and X2 are independent; fits :class:`KGroups` to X1 and runs
    :func:`energy_test` on X2 grouped by those clusters (and
    :func:`pairwise_energy_tests` for k > 2). The question answered is "do the
    clusters differ?" on the same variables that formed them.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Data. ``"gaussian"``: rows N(mu_i, Sigma) with Sigma known; ``"poisson"``:
        counts (non-negative integers), each entry Poisson.
    n_clusters : int
        Number of clusters k >= 2.
    family : {"gaussian", "poisson"}, default="gaussian"
        The noise model that makes the two parts independent.
    cov : float, array_like of shape (d,) or (d, d)
        Sigma, the noise covariance of each row, for ``"gaussian"`` (required): one
        variance, per-feature variances, or a positive semidefinite matrix. Not used
        by ``"poisson"``.
    epsilon : float, default=0.5
        The share of information in X1, 0 < epsilon < 1: larger finds the clusters
        better, smaller leaves more power to compare them.
    statistic : {"S", "E", "F"}, default="S"
        The energy test's statistic (see :func:`energy_test`).
    n_resamples : int, default=999
        Relabelings of the energy test.
    rng : int, numpy.random.Generator or None, default=None
        The seed: an int, a Generator (advanced in place) or None (fresh entropy).
        It seeds the thinning, the clustering and the relabelings (three independent
        streams).
    n_jobs : int, default=None
        joblib's ``n_jobs``, for the clustering's restarts and the energy test.
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.
    **kgroups_options
        Options of :class:`KGroups`; ``exponent``, ``metric`` and ``sigma`` are used
        by the energy test as well.
    nan_policy : {"raise", "omit"}, default="raise"
        A row with a missing value (NaN, None, pandas NA, masked, or R's NA) in ``X``:
        ``"raise"`` an error, ``"omit"`` drop it; the result's ``n_omitted`` counts them.
        ``labels`` is -1 on the rows dropped; ``fit_part`` and ``test_part`` hold the others.

    Returns
    -------
    ThinnedComparisonResult

    Notes
    -----
    Gaussian rows :math:`X_i \sim N(\mu_i, \Sigma)`: with :math:`X^{(1)}_i \mid X_i \sim
    N(\epsilon X_i, \epsilon(1-\epsilon)\Sigma)` and :math:`X^{(2)} = X - X^{(1)}`, the parts
    :math:`X^{(1)}_i \sim N(\epsilon\mu_i, \epsilon\Sigma)` and :math:`X^{(2)}_i \sim
    N((1-\epsilon)\mu_i, (1-\epsilon)\Sigma)` are independent (their Table 1; Poisson counts:
    :math:`X^{(1)} \mid X \sim \mathrm{Binomial}(X, \epsilon)`). The labels are a function
    of X1 alone, so the permutation test on X2 is exact for the null that the rows of
    different clusters share one distribution: with no cluster structure the p-value is
    uniform although the clusters were found on the same variables. Sigma must be the true
    noise covariance: an estimate :math:`\tilde\Sigma` leaves the parts a cross-covariance
    :math:`\epsilon(1-\epsilon)(\Sigma - \tilde\Sigma)` (Neufeld et al. 2024, Prop. 1); the
    Poisson split needs Poisson counts (overdispersed ones are not split independently).

    References
    ----------
    A. Neufeld, A. Dharamshi, L. L. Gao and D. Witten, "Data thinning for
    convolution-closed distributions", JMLR 25 (2024).
    J. Leiner, B. Duan, L. Wasserman and A. Ramdas, "Data fission: splitting a
    single data point", JASA (2023).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3)); X[40:, 0] += 6.0   # noise covariance I
    >>> res = es.thinned_cluster_comparison(X, 2, cov=1.0, rng=1)
    >>> res.model.cluster_sizes_.tolist(), bool(res.pvalue < 0.01)
    ([40, 40], True)
    >>> null = rng.normal(size=(80, 3))                  # one Gaussian: no clusters
    >>> bool(es.thinned_cluster_comparison(null, 2, cov=1.0, rng=1).pvalue > 0.05)
    True
    """
    if family not in ("gaussian", "poisson"):
        raise ValueError(f"`family` must be 'gaussian' or 'poisson', got {family!r}.")
    X = as_data(X, "X", min_samples=2)
    n = X.shape[0]
    k = check_n_clusters(n_clusters, n, minimum=2)
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real):
        raise TypeError(f"`epsilon` must be a real number, got {type(epsilon).__name__}.")
    if not 0.0 < epsilon < 1.0:
        raise ValueError(f"`epsilon` must lie strictly between 0 and 1, got {epsilon}.")
    epsilon = float(epsilon)
    if family == "gaussian" and cov is None:
        raise ValueError("`cov` (the known noise covariance) is required for family='gaussian'.")
    if family == "poisson":
        if cov is not None:
            raise ValueError("`cov` is not used by family='poisson'; leave it None.")
        if (X < 0).any() or (X != np.round(X)).any():
            raise ValueError("`X` must hold non-negative integer counts for family='poisson'.")
    check_resamples(n_resamples)
    check_kgroups_options(kgroups_options, "thinned_cluster_comparison")
    thinning, clustering, relabeling = as_generator(rng).spawn(3)
    fit_part = _thin(X, family, cov, epsilon, thinning)
    test_part = X - fit_part
    model = KGroups(k, random_state=clustering, n_jobs=n_jobs, **kgroups_options).fit(fit_part)
    semimetric = {name: kgroups_options[name] for name in _SEMIMETRIC_OPTIONS
                  if name in kgroups_options}
    pair_stream, test_stream = relabeling.spawn(2)
    test = energy_test(test_part, model.labels_, statistic=statistic, n_resamples=n_resamples,
                       rng=test_stream, n_jobs=n_jobs, **semimetric)
    pairwise = None if k == 2 else pairwise_energy_tests(
        test_part, model.labels_, rng=pair_stream, n_resamples=n_resamples, n_jobs=n_jobs,
        **semimetric).table
    return ThinnedComparisonResult(
        statistic=test.statistic, pvalue=test.pvalue, null_distribution=test.null_distribution,
        n_resamples=test.n_resamples, exact=test.exact, n_clusters=k, family=family,
        epsilon=epsilon, test=test, pairwise=pairwise, labels=model.labels_, model=model,
        fit_part=fit_part, test_part=test_part)
