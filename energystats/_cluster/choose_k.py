r"""How many clusters: sequential tests down a divisive k-groups tree, with family-wise error
control, beside the W-against-k curve and the gap statistic.

The rule (:mod:`._sequential`, Kimes, Liu, Hayes & Marron 2017, Sec. 3.2). Start with all n
points as one node. A node of m points is tested, at level :math:`\alpha\, m / n`, only if its
parent was split (the root always is): significant, it is split into k̃ clusters by
``KGroups(k̃)``, k̃ the gap statistic's choice on the node; not significant, it is a final
cluster. k̂ is the number of final clusters.

The node test (:mod:`._k_tests`) compares how much k-means splits the node's leading principal
scores, for k = 2..4, with how much it splits references of one cluster of the same size,
variances and axes. Two nulls say what "one cluster" means:

* ``"unimodal"``: uniform laws on the node's box and simplex, the least favourable convex
  clusters; a Gaussian, uniform, t, skewed or rounded cluster is one cluster, a curved one
  (a half-circle) is not.
* ``"gaussian"``: whitened Gaussian samples; a Gaussian node is one cluster, but uniform,
  heavy tailed and skewed clusters are split.

The W-against-k curve and the gap statistic (:mod:`._k_curve`) are descriptive.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from numbers import Real

import numpy as np
import pandas as pd

from .._frontdoor import front_door
from .._parallel import check_n_jobs
from .._progress import check_progress, progress_bar
from .._random import as_generator
from .._resampling import check_options
from .._result_bases import ClusteringResult
from .._semimetric import prepare_points, resolve_semimetric
from .._validation import check_positive_int
from ._k_curve import w_curve
from ._k_tests import node_test
from ._sequential import NodeTest, walk_tree
from .kgroups import KGroups

__all__ = ["ChooseKResult", "choose_k"]

_NULLS = ("unimodal", "gaussian")
#: Resamples per node test when ``n_resamples`` is None.
DEFAULT_RESAMPLES = {"unimodal": 199, "gaussian": 199}
#: Starts of each k-groups split of the tree: a split that cuts a cluster is not undone.
SPLIT_STARTS = 10
#: Columns of :attr:`ChooseKResult.nodes`.
_NODE_COLUMNS = [
    "node",
    "parent",
    "size",
    "statistic",
    "components",
    "k",
    "pvalue",
    "threshold",
    "significant",
]
#: Columns of :attr:`ChooseKResult.table`.
_TABLE_COLUMNS = ["k", "W", "S", "log_W", "ref_log_W", "gap", "gap_se"]
_RULES = {
    "unimodal": (
        "k-means drops against uniform clusters (box, simplex) of the node's axes and variances"
    ),
    "gaussian": "k-means drops of the whitened scores against whitened Gaussian samples",
}


@dataclass(frozen=True, repr=False)
class ChooseKResult(ClusteringResult):
    """Result of :func:`choose_k`.

    Attributes
    ----------
    k : int
        k̂, the number of clusters the sequential tests find (at most ``k_max``).
    alpha : float
        The family-wise error rate of the tests.
    null : str
        ``"unimodal"`` or ``"gaussian"``: what one cluster is (see :func:`choose_k`).
    stopped : str
        Why the search stopped: how many final clusters were tested and not significant, were
        too small to test, or were left by ``k_max``.
    nodes : pandas.DataFrame
        One row per tested node, in the order of testing: ``node`` (0 is the root),
        ``parent`` (-1 for the root), ``size``, ``statistic`` (the largest standardised drop
        of k-means' within sum of squares), ``components`` (J, the principal axes tested),
        ``k`` (the clusters it is split into when significant), ``pvalue``, ``threshold``
        (alpha * size / n) and ``significant``. The rows that are not significant decided k̂.
    table : pandas.DataFrame
        One row per k = 1..k_max: ``W`` and ``S`` of ``KGroups(k)`` fitted to all the data
        (eq. 15, 16; W + S = T), ``log_W``, ``ref_log_W`` (mean log W of the uniform
        reference sets), ``gap`` and its standard error ``gap_se`` (Tibshirani et al.
        2001; NaN without reference sets, or where W is 0). Descriptive.
    labels : ndarray of shape (n,)
        The final clusters of the tree, numbered by size, largest first (-1 on rows
        dropped for missing values).
    model : KGroups
        ``KGroups(k̂)`` fitted to all the data (the row k̂ of ``table``); its partition
        can differ from the tree's ``labels``, which nest.
    k_gap : int or None
        The gap statistic's choice: the smallest k with gap(k) >= gap(k + 1) - se(k + 1)
        (``None`` without reference sets, or when no gap is defined). Descriptive: it has no
        error guarantee.
    n_resamples : int
        Monte Carlo references per node test.
    n_references : int
        Uniform reference sets of the gap statistic.
    """

    k: int
    alpha: float
    null: str
    stopped: str
    nodes: pd.DataFrame = field(repr=False)
    table: pd.DataFrame = field(repr=False)
    model: KGroups = field(repr=False)
    k_gap: int | None
    n_resamples: int
    n_references: int

    _title = "Number of clusters by sequential tests down a divisive k-groups tree"
    _not_one_test = "holds one test per split: plot_choose_k draws the decision"

    def to_frame(self) -> pd.DataFrame:
        """The table over k, indexed by k."""
        return self.table.set_index("k")

    def _tables(self) -> list[tuple[str, pd.DataFrame]]:
        return [("Tested nodes", self.nodes.set_index("node")), ("Over k", self.to_frame())]

    @property
    def deciding(self) -> pd.Series | None:
        """The row of ``nodes`` that kept k̂ from growing: of the tested nodes that were not
        significant, the one nearest its threshold (smallest p-value / threshold); None when
        no test refused a split (the search stopped at ``k_max`` or at untestable nodes)."""
        refused = self.nodes[~self.nodes["significant"].astype(bool)]
        if refused.empty:
            return None
        return refused.loc[(refused["pvalue"] / refused["threshold"]).idxmin()]

    def _extra_lines(self) -> list[str]:
        lines = [f"rule: {_RULES[self.null]}, family-wise error {self.alpha:g}"]
        row = self.deciding
        if row is not None:
            lines.append(
                f"decided by node {int(row['node'])} ({int(row['size'])} points): "
                f"p-value {row['pvalue']:.4g} > threshold {row['threshold']:.4g}"
            )
        return lines


def _by_size(labels: np.ndarray) -> np.ndarray:
    """Relabel clusters by size, largest first; ties in order of their first point."""
    codes, first, inverse, counts = np.unique(
        labels, return_index=True, return_inverse=True, return_counts=True
    )
    order = np.lexsort((first, -counts))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[inverse.ravel()]


def _choose_k_iv(k_max, alpha, null, n_resamples, n_references, min_size, n, d):
    k_max = check_positive_int(k_max, "k_max")
    if k_max > n:
        raise ValueError(f"`k_max` must be at most the number of samples ({n}), got {k_max}.")
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0.0 < alpha < 1.0:
        raise ValueError(f"`alpha` must be a number strictly between 0 and 1, got {alpha!r}.")
    if null not in _NULLS:
        raise ValueError(f"`null` must be 'unimodal' or 'gaussian', got {null!r}.")
    options = check_options(DEFAULT_RESAMPLES[null] if n_resamples is None else n_resamples)
    if (
        isinstance(n_references, bool)
        or not isinstance(n_references, (int, np.integer))
        or n_references < 0
    ):
        raise ValueError(f"`n_references` must be a non-negative integer, got {n_references!r}.")
    if n_references == 1:
        raise ValueError(
            "`n_references` must be 0 (no gap statistic) or at least 2 "
            "(its standard error needs two)."
        )
    floor = d + 2 if null == "gaussian" else 4
    minimum = (
        max(10, floor)
        if min_size is None
        else check_positive_int(min_size, "min_size", minimum=floor)
    )
    return k_max, float(alpha), options, int(n_references), minimum


@front_door("X", names=("X",))
def choose_k(
    X,
    k_max: int = 10,
    *,
    alpha: float = 0.05,
    null: str = "unimodal",
    n_resamples: int | None = None,
    n_references: int = 10,
    min_size: int | None = None,
    metric: str = "euclidean",
    exponent: float = 1.0,
    sigma: float | None = None,
    n_init: int = 3,
    rng=None,
    n_jobs=None,
    progress: bool | None = None,
    nan_policy: str = "raise",
) -> ChooseKResult:
    r"""Choose the number of clusters with a family-wise error guarantee.

    Walks a divisive tree from all the points. A node of m points is tested at level
    :math:`\alpha m / n` only if its parent was significant; a significant node is split
    into k̃ clusters by :class:`KGroups`, k̃ the gap statistic's choice on the node; k̂ is
    the number of nodes left unsplit (the sequential rule of Kimes et al. 2017, on a
    divisive k-groups tree). Beside it, the table over k = 1..k_max holds W and S of
    ``KGroups(k)`` on all the data and the gap statistic.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Data (a DataFrame's columns are the features).
    k_max : int, default=10
        Largest k considered: the tree stops splitting at k_max clusters, and the table
        runs to k_max.
    alpha : float, default=0.05
        Family-wise error rate of the node tests, 0 < alpha < 1.
    null : {"unimodal", "gaussian"}, default="unimodal"
        What one cluster is (Notes). ``"unimodal"``: a law no more clustered than the uniform
        law on the box or the simplex of the node's principal axes and variances, the least
        favourable convex clusters (a curved cluster is split: Notes). ``"gaussian"``: one
        Gaussian sample; it splits uniform, heavy-tailed and skewed clusters.
    n_resamples : int, default=None
        Reference samples per node test; ``None``: 199. A node can only be significant when
        1 / (n_resamples + 1) <= alpha * size / n: at the default and alpha = 0.05, nodes of
        at least 10% of the points; smaller nodes are final clusters without a test (no row
        in ``nodes``), which changes no decision.
    n_references : int, default=10
        Uniform reference sets of the gap statistic of the table (0: none). Descriptive: it
        does not change k̂.
    min_size : int, default=None
        Nodes with fewer points are not tested; ``None``: 10 (and at least d + 2 for the
        Gaussian null).
    metric, exponent, sigma
        The semimetric of :class:`KGroups` (the table's fits and the tree's splits).
    n_init : int, default=3
        Restarts of the table's and the gap references' :class:`KGroups` fits (the tree's
        splits take 10, so that a split does not cut a cluster).
    rng : int, numpy.random.Generator or None, default=None
        Seeds every fit and every Monte Carlo draw: the same seed, the same result. The
        tree's streams are drawn first: ``n_references``, ``n_init`` and ``n_jobs`` leave
        the tests and the splits unchanged.
    n_jobs : int, default=None
        joblib's ``n_jobs``: the table's fits and the gap's reference sets run as tasks; the
        result does not depend on it.
    progress : bool or None, default=None
        One progress bar for the call (fits, then node tests).
    nan_policy : {"raise", "omit"}, default="raise"
        Rows with a missing value: ``"raise"`` an error, ``"omit"`` drop them
        (``labels`` is -1 on them).

    Returns
    -------
    ChooseKResult
        Its print shows every tested node (p-value, threshold) and why the search stopped;
        :func:`energystats.plotting.plot_choose_k` draws W against k with the decision marked.

    Warns
    -----
    UserWarning
        With ``null="gaussian"``, when the tree reaches ``k_max``: a cluster that is not
        Gaussian is split again and again.

    Notes
    -----
    The node test. The node's points are projected on their J leading principal axes
    (:func:`signal_dimension`); the drops of k-means' within sum of squares from k = 1 to
    k = 2, 3, 4 (the gap statistic's curve) are standardised against B references of the
    same size, and the largest is the statistic; its p-value counts the references that
    reach it. ``"unimodal"``: the references are uniform on the box and on the simplex with
    the node's axes and variances, the p-value the larger of the two. ``"gaussian"``: the
    scores are whitened and the references are whitened Gaussian samples.

    What is guaranteed. With the Gaussian null, when the n points are one Gaussian sample
    (any mean and covariance) and every principal axis is kept (J = d), the root's test is
    exact: :math:`P(\hat k > 1) \le \alpha`; with J < d axes chosen by their variance it
    is approximate. With the unimodal null the same bound holds when the points are uniform
    on a box, and for one convex cluster because it splits less easily than the uniform law
    of its variances (in one dimension, as the gap statistic's reference argument goes;
    checked by simulation in several: the rates are in ``docs/cluster.md``). A curved
    cluster is not convex: the two ends of a half-circle are farther apart than its
    variances say, k-means splits it more than any convex reference, and the test finds two
    clusters (in about one data set in four at n = 200, noise 0.3). When there are k true
    clusters and the tree's splits keep each whole, the levels of the nodes tested at one
    depth sum to at most alpha and :math:`P(\hat k > k) \le \alpha` (Kimes et al. 2017).

    Cost: k_max fits of KGroups on n points, k_max fits per reference set, at most
    2 k_max - 1 node tests, each B batched k-means fits of at most 500 points in J
    dimensions, and a 10-start KGroups fit per split.

    References
    ----------
    P. K. Kimes, Y. Liu, D. N. Hayes and J. S. Marron, "Statistical significance for
    hierarchical clustering", Biometrics 73 (2017). R. Tibshirani, G. Walther and
    T. Hastie, "Estimating the number of clusters in a data set via the gap statistic",
    JRSS B 63 (2001).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 1.0, size=(60, 2)) for c in ([0, 0], [8, 0], [0, 8])])
    >>> res = es.choose_k(X, k_max=5, n_references=5, rng=1)
    >>> res.k, res.k_gap, np.bincount(res.labels).tolist()
    (3, 3, [60, 60, 60])
    >>> res.to_frame()["W"].round(1).tolist()
    [589.7, 340.9, 157.9, 144.9, 132.2]
    """
    semimetric = resolve_semimetric(metric, exponent, sigma)
    X = prepare_points(X, semimetric, min_samples=2)
    n, d = X.shape
    k_max, alpha, options, n_references, minimum = _choose_k_iv(
        k_max, alpha, null, n_resamples, n_references, min_size, n, d
    )
    B = options.n_resamples
    n_init = check_positive_int(n_init, "n_init")
    progress = check_progress(progress)
    n_jobs = check_n_jobs(n_jobs)
    fit_options = {"metric": metric, "exponent": exponent, "sigma": sigma, "n_init": n_init}
    split_options = {**fit_options, "n_init": SPLIT_STARTS}
    gen = as_generator(rng)
    node_gen = gen.spawn(1)[0]  # first: the decision's streams depend on no descriptive option
    fit_streams = gen.spawn(k_max)
    reference_streams = gen.spawn(n_references)

    steps = k_max + n_references + 2 * k_max - 1
    bar = iter(
        progress_bar(range(steps), steps, progress, "choose_k: fits, references, node tests")
    )

    def advance(count: int = 1) -> None:
        for _ in range(count):
            next(bar, None)

    curve = w_curve(X, k_max, fit_streams, reference_streams, fit_options, n_jobs, advance)

    def test(points: np.ndarray, _, room: int) -> NodeTest:
        fields, p, split = node_test(X[points], null, B, room, node_gen.spawn(1)[0], split_options)
        advance()
        return NodeTest(p, fields, lambda: split(points))

    walk = walk_tree(
        np.arange(n),
        points_of=lambda points: points,
        test=lambda node, points, room: test(points, node, room),
        n=n,
        alpha=alpha,
        n_resamples=B,
        min_size=minimum,
        k_max=k_max,
        largest_first=True,
    )
    advance(steps)
    k_hat = len(walk.final)
    if null == "gaussian" and "k_max" in walk.reasons:
        warnings.warn(
            f"choose_k reached k_max = {k_max} with null='gaussian': a cluster that is not "
            "Gaussian (uniform, skewed, heavy tailed) is split again and again; "
            "null='unimodal' takes such a cluster as one.",
            UserWarning,
            stacklevel=2,
        )
    table = pd.DataFrame(
        {
            "k": np.arange(1, k_max + 1),
            "W": curve.W,
            "S": curve.S,
            "log_W": curve.log_W,
            "ref_log_W": curve.ref_log_W,
            "gap": curve.gap,
            "gap_se": curve.gap_se,
        },
        columns=_TABLE_COLUMNS,
    )
    return ChooseKResult(
        k=k_hat,
        alpha=alpha,
        null=null,
        stopped=walk.stop(),
        nodes=walk.frame(_NODE_COLUMNS),
        table=table,
        labels=_by_size(walk.labels(n)),
        model=curve.models[k_hat - 1],
        k_gap=curve.k_gap,
        n_resamples=B,
        n_references=n_references,
    )
