"""Energy hierarchical clustering (Székely & Rizzo 2005) and its significant splits (Kimes,
Liu, Hayes & Marron 2017)."""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Real

import numpy as np
import pandas as pd
from scipy.cluster.hierarchy import cut_tree, linkage
from scipy.spatial.distance import pdist, squareform

from .._config import check_fits
from .._frontdoor import front_door
from .._progress import check_progress, progress_bar
from .._random import as_generator
from .._resample import check_resamples
from .._result_bases import ClusteringResult
from .._results import ResultMixin
from .._scale import pairwise
from .._semimetric import MetricLike, Scaling, prepare_points, resolve_semimetric
from .._validation import check_n_clusters, check_positive_int
from ._sequential import NodeTest, walk_tree
from .cluster_test import cluster_test

__all__ = ["EnergyHClustResult", "SignificantClustersResult", "energy_hclust",
           "significant_clusters"]

#: Columns of :attr:`SignificantClustersResult.nodes`.
_NODE_COLUMNS = ["node", "parent", "size", "statistic", "pvalue", "n_components", "threshold",
                 "significant"]


def _first_appearance(labels: np.ndarray) -> np.ndarray:
    """Relabel clusters 0, 1, ... in the order of their first member (R ``cutree``)."""
    _, first, codes = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty_like(first)
    rank[np.argsort(first)] = np.arange(first.size)
    return rank[codes]


def _r_merge(Z: np.ndarray, n: int) -> np.ndarray:
    """R's ``merge`` from scipy's linkage: singleton j as -(j + 1), the cluster formed at
    step s (1-based) as s; a singleton is listed before a cluster, two singletons or two
    clusters in increasing order of their index."""
    ids = Z[:, :2].astype(np.int64)
    merge = np.where(ids < n, -(ids + 1), ids - n + 1)
    both_negative = (merge < 0).all(axis=1)
    # -2 before -5; -3 before 2; 5 before 6
    key = np.where(both_negative[:, None], np.abs(merge), merge)
    swap = key[:, 0] > key[:, 1]
    merge[swap] = merge[swap][:, ::-1]
    return merge


def _leaves(merge: np.ndarray, node: int) -> np.ndarray:
    """The observations (0-based) under ``node`` of R's ``merge`` (a step s >= 1, or -j for
    observation j), from left to right with each merge's first entry on the left."""
    found, stack = [], [node]
    while stack:
        node = stack.pop()
        if node < 0:
            found.append(-node - 1)
        else:
            left, right = merge[node - 1]
            stack += [right, left]
    return np.array(found, dtype=np.int64)


@dataclass(frozen=True, repr=False)
class EnergyHClustResult(ResultMixin):
    r"""Result of :func:`energy_hclust`.

    Attributes
    ----------
    linkage : ndarray of shape (n - 1, 4)
        scipy's linkage matrix (``scipy.cluster.hierarchy.dendrogram``, ``fcluster``
        and ``cut_tree`` accept it), with the energy heights of ``height``.
    merge : ndarray of shape (n - 1, 2)
        R's ``merge``: -j is observation j (1-based), s > 0 the cluster formed at step s.
    height : ndarray of shape (n - 1,)
        R's ``height``: the merge cost (n_A n_B / (n_A + n_B)) E(A, B) of the two
        clusters joined at each step, non-decreasing.
    order : ndarray of shape (n,)
        R's ``order``: the observations (1-based) from left to right in the dendrogram.
    exponent : float
        alpha of the Euclidean semimetric :math:`|x - y|^\alpha` (1 for other metrics).
    metric : str
        The semimetric's name (``"callable"`` for a callable).
    n_samples : int
    """

    linkage: np.ndarray = field(repr=False)
    merge: np.ndarray = field(repr=False)
    height: np.ndarray = field(repr=False)
    order: np.ndarray = field(repr=False)
    exponent: float
    metric: str
    n_samples: int

    _title = "Energy hierarchical clustering (R energy.hclust)"

    def to_frame(self) -> pd.DataFrame:
        """One row per merge (step 1, 2, ...): R's ``merge`` (``merge_a``, ``merge_b``) and
        ``height``."""
        return pd.DataFrame(
            {"merge_a": self.merge[:, 0], "merge_b": self.merge[:, 1], "height": self.height},
            index=pd.RangeIndex(1, len(self.height) + 1, name="step"))

    def labels(self, n_clusters: int) -> np.ndarray:
        """Cut the tree into ``n_clusters`` clusters (undoing the last n_clusters - 1
        merges, as R ``cutree(h, k)``); clusters numbered 0, 1, ... in order of their
        first observation."""
        k = check_n_clusters(n_clusters, self.n_samples)
        return _first_appearance(cut_tree(self.linkage, n_clusters=k)[:, 0])

    def _extra_lines(self) -> list[str]:
        return [f"last merge heights: {', '.join(f'{h:.5g}' for h in self.height[-3:])}"]


def _condensed(X: np.ndarray, semimetric) -> np.ndarray:
    """rho of every pair i < j in scipy's condensed order (``pdist``'s), within the memory
    budget for two such vectors (``linkage`` holds a working copy)."""
    n = X.shape[0]
    check_fits(f"the {n * (n - 1) // 2} pairs of {n} points (2 condensed vectors of pairwise "
               "values)", 16.0 * (n * (n - 1) // 2), "cluster a subsample")
    if semimetric.precomputed:
        return squareform(X, checks=False)
    if semimetric.is_euclidean_power:  # squared differences summed (no cancellation), ^ alpha/2
        values = pdist(X, "sqeuclidean")
        if semimetric.exponent == 1.0:
            return np.sqrt(values, out=values)
        return np.power(values, semimetric.exponent / 2.0, out=values)
    rho = semimetric.for_data(X)
    if rho.on_graph:
        return squareform(pairwise(X, rho, held=True), checks=False)
    # row by row: no n x n matrix
    return np.concatenate([rho(X[i : i + 1], X[i + 1 :])[0] for i in range(n - 1)])


@front_door("X", distances=("X",), names=("X",))
def energy_hclust(
    X, *, exponent=1.0, metric: MetricLike = "euclidean", sigma=None, nan_policy: str = "raise"
) -> EnergyHClustResult:
    r"""Agglomerative clustering that merges the two clusters of smallest energy distance.

    At each step the pair of clusters A, B with the smallest merge cost

    .. math:: \frac{n_A n_B}{n_A + n_B}\, \mathcal E(A, B), \qquad
        \mathcal E(A, B) = 2 \bar\rho_{AB} - \bar\rho_{AA} - \bar\rho_{BB}

    (Székely & Rizzo 2005, eq. 5; :math:`\bar\rho` the mean semimetric between or within
    clusters) is merged. The cost obeys the Lance-Williams recurrence of Ward's method on
    :math:`\rho` (Sec. 3), so the merges come from scipy's Ward linkage of
    :math:`\sqrt\rho`, the heights being the squares of scipy's. R:
    ``energy.hclust(dist(x), alpha)`` (``hclust(rho, "ward.D")``): the same merges, heights
    and order on data without tied distances.

    Parameters
    ----------
    X : array_like of shape (n, d), or (n, n) when ``metric="precomputed"``
        Data, or the matrix of semimetric values rho (R: ``dist(x)^alpha``).
    exponent, metric, sigma
        The semimetric, as in :func:`dispersion` (alpha in (0, 2]; R's ``alpha``).
    nan_policy : {"raise", "omit"}, default="raise"
        Rows of X with a missing value (NaN, None, pandas NA, masked): ``"raise"`` an error,
        ``"omit"`` drop them (``n_omitted`` counts them; the leaves are the remaining rows,
        numbered in order).
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.

    Returns
    -------
    EnergyHClustResult

    Notes
    -----
    Memory 8 n (n - 1) bytes (the pairwise values and scipy's working copy), checked against
    ``working_memory`` first; time O(n^2) (scipy's nearest-neighbour chain). Tied merge costs
    may be merged in another order than R's.

    References
    ----------
    G. J. Székely and M. L. Rizzo, "Hierarchical clustering via joint between-within
    distances: extending Ward's minimum variance method", J. Classification 22 (2005).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> X = np.array([[0.0], [0.1], [1.0], [1.3], [5.0]])
    >>> tree = es.energy_hclust(X)
    >>> tree.merge.tolist(), tree.height.round(4).tolist()
    ([[-1, -2], [-3, -4], [1, 2], [-5, 3]], [0.1, 0.3, 2.0, 6.56])
    >>> tree.labels(2).tolist()
    [0, 0, 0, 0, 1]
    """
    semimetric = resolve_semimetric(metric, exponent, sigma)
    X = prepare_points(X, semimetric, min_samples=2)
    scaling = Scaling.for_data(X, semimetric)
    rho = _condensed(scaling.data(X), scaling.semimetric(semimetric))
    Z = linkage(np.sqrt(rho, out=rho), method="ward")
    # Ward's heights squared: the merge costs in rho, back at the data's scale
    Z[:, 2] = scaling.result(Z[:, 2] ** 2, "the merge heights")
    n = X.shape[0]
    merge = _r_merge(Z, n)
    name = semimetric.metric if isinstance(semimetric.metric, str) else "callable"
    return EnergyHClustResult(linkage=Z, merge=merge, height=Z[:, 2].copy(),
                              order=_leaves(merge, n - 1) + 1,  # R's order, 1-based
                              exponent=semimetric.exponent, metric=name, n_samples=n)


@dataclass(frozen=True, repr=False)
class SignificantClustersResult(ClusteringResult):
    """Result of :func:`significant_clusters`.

    Attributes
    ----------
    labels : ndarray of shape (n,)
        The final clusters, numbered 0, 1, ... in order of their first observation.
    n_clusters : int
    alpha : float
        The family-wise error rate.
    nodes : pandas.DataFrame
        One row per tested node: ``node`` (R's merge step; n - 1 is the root),
        ``parent`` (-1 for the root), ``size``, ``statistic`` and ``pvalue`` of the cluster test,
        ``n_components`` (J of the test), ``threshold`` (alpha * size / n) and
        ``significant``.
    tree : EnergyHClustResult
    """

    n_clusters: int
    alpha: float
    nodes: pd.DataFrame = field(repr=False)
    tree: EnergyHClustResult = field(repr=False)

    _title = "Significant clusters of the energy dendrogram"
    _not_one_test = "holds one cluster test per node of the tree: plot_dendrogram draws the tree"

    def to_frame(self) -> pd.DataFrame:
        """The tested nodes, one row each."""
        return self.nodes

    def _tables(self) -> list[tuple[str, pd.DataFrame]]:
        return [("Tested nodes", self.nodes)]


@front_door("X", names=("X",))
def significant_clusters(X, *, alpha: float = 0.05, n_resamples: int = 199,
                         min_size: int | None = None, exponent=1.0, rng=None, n_jobs=None,
                         progress: bool | None = None, nan_policy: str = "raise",
                         **cluster_test_options) -> SignificantClustersResult:
    r"""Which splits of the energy dendrogram are real: sequential cluster tests with
    family-wise error control (Kimes, Liu, Hayes & Marron 2017).

    Builds :func:`energy_hclust` of X and walks it from the root. A node is tested
    only if its parent was significant (the root always is tested), with
    :func:`cluster_test` (two clusters, ``directions="conditional"`` by default) on the
    node's points, at level :math:`\alpha\, n_{\text{node}} / n`; a significant node
    is split into its two children, a node that is not significant (or smaller than
    ``min_size``) is a final cluster.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Data (Euclidean; the cluster test needs points, not a matrix).
    alpha : float, default=0.05
        Family-wise error rate, 0 < alpha < 1.
    n_resamples : int, default=199
        Gaussian samples per node test (199, not 999: each one is clustered). A node can
        only be significant when 1 / (n_resamples + 1) <= alpha * size / n: small nodes
        need more. Nodes below
        that size are final clusters without a test (no row in ``nodes``): their test
        could not be significant, so the result is the same and the time is saved.
    min_size : int, default=None
        Nodes with fewer points are not tested; ``None``: max(10, d + 2).
    exponent : float, default=1.0
        alpha of the tree's semimetric :math:`|x - y|^\alpha`, and of the node tests.
    rng : int, numpy.random.Generator, RandomState or None, default=None
        Seeds the node tests (one stream per node, by its merge step).
    n_jobs : int, default=None
        joblib's ``n_jobs`` for each node test's Gaussian samples.
    progress : bool or None, default=None
        One progress bar for the call, over the n points: it advances as nodes become
        final clusters (not one bar per node test).
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.
    **cluster_test_options
        Further options of :func:`cluster_test` (``directions``, ``n_init``, ...).
    nan_policy : {"raise", "omit"}, default="raise"
        Rows of X with a missing value (NaN, None, pandas NA, masked): ``"raise"`` an error,
        ``"omit"`` drop them (``n_omitted`` counts them; ``labels`` is -1 on them).

    Returns
    -------
    SignificantClustersResult

    Notes
    -----
    The root's test is exact (:func:`cluster_test`): when all n points are one Gaussian
    sample, more than one cluster is reported with probability at most alpha. Below the
    root the levels :math:`\alpha n_j / n` of the nodes tested at one stage belong to
    disjoint sets of points and sum to at most alpha (Kimes et al. 2017, Sec. 3.2); that
    bound takes each node's test as valid for its points, which were selected by the
    clustering of all the data: below the root the Gaussian null is an approximation.

    References
    ----------
    P. K. Kimes, Y. Liu, D. N. Hayes and J. S. Marron, "Statistical significance for
    hierarchical clustering", Biometrics 73 (2017).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 1.0, size=(40, 2)) for c in ([0, 0], [8, 0], [0, 8])])
    >>> res = es.significant_clusters(X, rng=1)
    >>> res.n_clusters, np.bincount(res.labels).tolist()
    (3, [40, 40, 40])
    """
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0.0 < alpha < 1.0:
        raise ValueError(f"`alpha` must be a number strictly between 0 and 1, got {alpha!r}.")
    B = check_resamples(n_resamples)
    for name in ("metric", "n_clusters", "sigma"):
        if name in cluster_test_options:
            raise ValueError(f"`{name}` is fixed by significant_clusters (Euclidean, two clusters "
                             "per node).")
    tree = energy_hclust(X, exponent=exponent)
    X = prepare_points(X, resolve_semimetric(), min_samples=2)
    n, d = X.shape
    minimum = (max(10, d + 2) if min_size is None
               else check_positive_int(min_size, "min_size", minimum=d + 2))
    progress = check_progress(progress)
    streams = as_generator(rng).spawn(n - 1)
    bar = iter(progress_bar(range(n), n, progress, "points in final clusters"))

    def settle(points: np.ndarray) -> None:
        for _ in range(points.size):
            next(bar, None)

    def test(node: int, points: np.ndarray) -> NodeTest:
        res = cluster_test(X[points], 2, n_resamples=B, rng=streams[node - 1], n_jobs=n_jobs,
                           exponent=exponent, progress=False, **cluster_test_options)
        fields = {"statistic": res.statistic, "n_components": res.n_components}
        return NodeTest(res.pvalue, fields, lambda: [int(child) for child in tree.merge[node - 1]])

    walk = walk_tree(
        n - 1, points_of=lambda node: np.sort(_leaves(tree.merge, node)), test=test, n=n,
        alpha=alpha, n_resamples=B, min_size=minimum, key=lambda node, _: node, on_final=settle,
    )
    next(bar, None)  # exhausted: the bar shows n of n and closes
    labels = _first_appearance(walk.labels(n))
    return SignificantClustersResult(labels=labels, n_clusters=len(walk.final),
                                     alpha=float(alpha), nodes=walk.frame(_NODE_COLUMNS),
                                     tree=tree)
