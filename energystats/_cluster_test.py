"""A valid test of cluster structure: energy clustering against a Gaussian null.

Testing found clusters with the permutation test on the same variables is
invalid: the labels were chosen to make the groups differ. This test asks
instead whether the data hold more cluster structure than one Gaussian would
show, in the spirit of SigClust (Liu, Hayes, Nobel & Marron 2008) with the
energy statistic in place of the 2-means index, and with an exact null.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import cholesky, solve_triangular

from ._kgroups import KGroups
from ._parallel import check_n_jobs, n_workers, run_tasks
from ._results import ResultMixin
from ._semimetric import Scaling, resolve_semimetric
from ._validation import as_data, check_n_clusters, check_positive_int

__all__ = ["ClusterTestResult", "cluster_test"]


@dataclass(frozen=True, repr=False)
class ClusterTestResult(ResultMixin):
    """Result of :func:`cluster_test`.

    Attributes
    ----------
    statistic : float
        S / T of the fitted partition of the whitened data: the share of the
        total energy dispersion explained by the clusters (Lemma 1: T = S + W).
    pvalue : float
        (1 + #{null >= statistic}) / (n_resamples + 1).
    null_distribution : ndarray of shape (n_resamples,)
        S / T of the same procedure fitted to samples of N(0, I_d) of the same size.
    n_resamples : int
        Number of Gaussian samples.
    n_clusters : int
        Number of clusters fitted.
    model : KGroups
        The estimator fitted to the whitened data; ``model.labels_`` are the clusters.
    """

    statistic: float
    pvalue: float
    null_distribution: np.ndarray = field(repr=False)
    n_resamples: int
    n_clusters: int
    model: KGroups = field(repr=False)

    _title = "energy test of cluster structure against one Gaussian"

    def _extra_lines(self) -> list[str]:
        q = np.quantile(self.null_distribution, [0.5, 0.95])
        return [
            f"cluster sizes: {self.model.cluster_sizes_.tolist()}",
            f"Gaussian null of S/T: median {q[0]:.4g}, 95th percentile {q[1]:.4g}",
        ]


def _whiten(X: np.ndarray) -> np.ndarray:
    """(X - mean) L^-T with L L' the sample covariance: identity mean and covariance.

    Data near the ends of float64 are first divided by a power of two (exact; the whitened
    data do not depend on the scale)."""
    X = Scaling.for_data(X, resolve_semimetric()).data(X)
    centred = X - X.mean(axis=0)
    cov = centred.T @ centred / (X.shape[0] - 1)
    try:
        L = cholesky(cov, lower=True)
    except np.linalg.LinAlgError:
        raise ValueError("`X` has a singular sample covariance (a column is constant or collinear with others).") from None
    return solve_triangular(L, centred.T, lower=True).T


def _share(X: np.ndarray, n_clusters: int, seed: np.random.Generator, options: dict) -> tuple[float, KGroups]:
    model = KGroups(n_clusters, random_state=seed, **options).fit(_whiten(X))
    return model.objective_ / (model.objective_ + model.W_), model


def _null_shares(streams, n: int, d: int, k: int, options: dict) -> np.ndarray:
    """S / T of the procedure on one sample of N(0, I_d) of size n per stream (a joblib task)."""
    return np.array([_share(s.standard_normal((n, d)), k, s, options)[0] for s in streams])


def cluster_test(
    X, n_clusters: int, *, n_resamples: int = 199, rng=None, progress: bool = False, n_jobs=None, **kgroups_options
) -> ClusterTestResult:
    r"""Test whether data hold more cluster structure than one Gaussian would show.

    Whitens the data by its own sample mean and covariance, clusters it with
    :class:`KGroups`, and takes the share of energy the partition explains,
    S / T (eq. 16, 18). The null distribution comes from applying the same
    procedure to samples of N(0, I_d) of the same size.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Data; needs n > d + 1.
    n_clusters : int
        Number of clusters k >= 2.
    n_resamples : int, default=199
        Number of Gaussian samples.
    rng : int, numpy.random.Generator or None, default=None
        Seeds the clustering of X and every Gaussian sample and its clustering.
    progress : bool, default=False
        Show a progress bar (tqdm).
    n_jobs : int, default=None
        joblib's ``n_jobs``: the Gaussian resamples, independent fits each with
        its own random stream, run as joblib tasks (on a Dask cluster inside
        ``joblib.parallel_config(backend="dask")``); the result is the same
        whatever ``n_jobs``.
    **kgroups_options
        Options of :class:`KGroups` (``algorithm``, ``exponent``, ``metric``
        among "euclidean", "exponential", "gaussian", ``sigma``, ``init``,
        ``n_init``, ``max_iter``). Each resample is a full fit.

    Returns
    -------
    ClusterTestResult

    Notes
    -----
    Exactness: semimetrics that depend on :math:`\|x - y\|` only are rotation
    invariant, and whitening by the sample covariance is affine equivariant
    (the whitened data of AX + b are a rotation of the whitened data of X).
    So S/T has the same distribution under every Gaussian population, and
    the Monte Carlo p-value :math:`(1 + \#\{t^* \ge t\}) / (B + 1)` has exact
    level for Gaussian data. Plugging the sample covariance into a
    parametric bootstrap instead is badly conservative.

    Limitation: a unimodal but non-Gaussian population (skewed, heavy
    tailed) can be called clustered; the test is against one Gaussian, not
    against unimodality. Power falls as d grows at fixed n.

    Comparing the found clusters on *other* variables, not used to form
    them, is valid with :func:`energy_test`.

    References
    ----------
    Y. Liu, D. N. Hayes, A. Nobel and J. S. Marron, "Statistical
    significance of clustering for high-dimension, low-sample size data",
    JASA 103 (2008).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> two = np.r_[rng.normal(0, 1, (30, 2)), rng.normal(0, 1, (30, 2)) + [4.0, 0.0]]
    >>> res = es.cluster_test(two, 2, n_resamples=39, rng=1)
    >>> res.pvalue, res.model.cluster_sizes_.tolist()
    (0.025, [31, 29])

    The clusters may then be compared validly on an outcome that was not
    used to form them (here unrelated to the clusters):

    >>> outcome = rng.normal(size=60)
    >>> p = es.energy_test(outcome, res.model.labels_, rng=2).pvalue
    >>> bool(p > 0.05)
    True
    """
    X = as_data(X, "X")
    n, d = X.shape
    k = check_n_clusters(n_clusters, n, minimum=2)
    B = check_positive_int(n_resamples, "n_resamples")
    if n <= d + 1:
        raise ValueError(f"`X` needs more samples than features + 1 to be whitened (n = {n}, d = {d}).")
    metric = kgroups_options.get("metric", "euclidean")
    if not (isinstance(metric, str) and metric in ("euclidean", "exponential", "gaussian")):
        raise ValueError("`metric` must be 'euclidean', 'exponential' or 'gaussian': the null needs a rotation-invariant semimetric.")
    for name in ("random_state", "n_clusters"):
        if name in kgroups_options:
            raise ValueError(f"`{name}` is set by cluster_test; use `rng` for the seed.")
    n_jobs = check_n_jobs(n_jobs)
    streams = np.random.default_rng(rng).spawn(B + 1)
    statistic, model = _share(X, k, streams[0], kgroups_options)
    jobs = n_workers(n_jobs)
    chunks = np.array_split(np.arange(1, B + 1), min(B, 4 * jobs)) if jobs > 1 else [[i] for i in range(1, B + 1)]
    tasks = [{"streams": [streams[i] for i in chunk]} for chunk in chunks]
    null_shares = functools.partial(_null_shares, n=n, d=d, k=k, options=kgroups_options)
    description = "Gaussian resamples" if progress else None
    if jobs > 1:
        parts = run_tasks(null_shares, tasks, n_jobs, progress=description)
    else:
        if progress:
            from tqdm.auto import tqdm

            tasks = tqdm(tasks, total=B, desc=description)
        parts = [null_shares(**task) for task in tasks]
    null = np.concatenate(parts)
    pvalue = (1 + np.count_nonzero(null >= statistic)) / (B + 1)
    return ClusterTestResult(
        statistic=float(statistic),
        pvalue=float(pvalue),
        null_distribution=null,
        n_resamples=B,
        n_clusters=k,
        model=model,
    )
