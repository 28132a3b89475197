r"""How many clusters: sequential tests down a divisive k-groups tree, with family-wise error
control, beside the W-against-k curve and the gap statistic.

The rule. Start with all n points as one node. A node of m points is split in two by
k-groups and tested, at level :math:`\alpha\, m / n`, only if its parent was split (the
root always is tested): significant, it is replaced by its two halves; not significant,
it is a final cluster. k̂ is the number of final clusters. The levels of the nodes tested
at any one depth belong to disjoint sets of points and sum to at most alpha: the
sequential rule of Kimes, Liu, Hayes & Marron (2017, Sec. 3.2), here on a divisive tree of
k-groups splits rather than on the dendrogram.

Two nulls say what "one cluster" means:

* ``"unimodal"``: the node is one cluster when its projection on the line joining its
  two k-groups centroids is unimodal. A random half of the node's points is split by
  k-groups; Hartigan's dip of the other half's projection on the line joining the two
  centroids, calibrated on uniform samples (the least favourable unimodal law), tests it.
  The held-out half did not choose the line, so the calibration applies to it (with the
  same points choosing and testing the line, one uniform cluster was split in 16-20% of
  data sets at alpha = 0.05). One Gaussian, uniform, t or skewed cluster is then one
  cluster.
* ``"gaussian"``: the node is one cluster when it is one Gaussian sample:
  :func:`cluster_test` (two clusters), whose level is exact. A uniform, heavy-tailed or
  skewed cluster is split.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Real

import numpy as np
import pandas as pd

from .._frontdoor import front_door
from .._parallel import check_n_jobs, n_workers, run_tasks
from .._random import as_generator
from .._progress import check_progress, progress_bar
from .._resampling import check_options, pvalue
from .._result_bases import ClusteringResult
from .._semimetric import prepare_points, resolve_semimetric
from .._validation import check_positive_int
from .cluster_test import cluster_test
from .dip import _dip_sorted, uniform_dip_null
from .kgroups import KGroups

__all__ = ["ChooseKResult", "choose_k"]

_NULLS = ("unimodal", "gaussian")
#: Resamples per node test when ``n_resamples`` is None.
DEFAULT_RESAMPLES = {"unimodal": 999, "gaussian": 199}
#: Columns of :attr:`ChooseKResult.nodes`.
_NODE_COLUMNS = ["node", "parent", "size", "statistic", "pvalue", "threshold", "significant"]
#: Columns of :attr:`ChooseKResult.table`.
_TABLE_COLUMNS = ["k", "W", "S", "log_W", "ref_log_W", "gap", "gap_se", "pvalue", "threshold"]


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
        ``"unimodal"`` (dip test of the projection on the centroids' line) or
        ``"gaussian"`` (:func:`cluster_test`).
    table : pandas.DataFrame
        One row per k = 1..k_max: ``W`` and ``S`` of ``KGroups(k)`` fitted to all the data
        (eq. 15, 16; W + S = T), ``log_W``, ``ref_log_W`` (mean log W of the uniform
        reference sets), ``gap`` and its standard error ``gap_se`` (Tibshirani et al.
        2001; NaN without reference sets), and, for k >= 2, ``pvalue`` and ``threshold``
        of the (k - 1)-th split of the tree in the order it was tested (NaN past the
        splits made: the tests that were not significant are in ``nodes``).
    nodes : pandas.DataFrame
        One row per tested node: ``node`` (0 is the root, in the order of testing),
        ``parent`` (-1 for the root), ``size``, ``statistic`` (the dip, or S / T of the
        cluster test), ``pvalue``, ``threshold`` (alpha * size / n) and ``significant``.
    labels : ndarray of shape (n,)
        The final clusters of the tree, numbered by size, largest first (-1 on rows
        dropped for missing values).
    model : KGroups
        ``KGroups(k)`` fitted to all the data (the row k of ``table``); its partition
        can differ from the tree's ``labels``, which nest.
    k_gap : int or None
        The gap statistic's choice: the smallest k with gap(k) >= gap(k + 1) - se(k + 1)
        (``None`` without reference sets). Descriptive: it has no error guarantee.
    n_resamples : int
        Monte Carlo resamples per node test.
    n_references : int
        Uniform reference sets of the gap statistic.
    """

    k: int
    alpha: float
    null: str
    table: pd.DataFrame = field(repr=False)
    nodes: pd.DataFrame = field(repr=False)
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
        return [("Over k", self.to_frame())]

    def _extra_lines(self) -> list[str]:
        rule = "dip test of unimodality" if self.null == "unimodal" else "cluster test against one Gaussian"
        return [f"rule: {rule} at each node, family-wise error {self.alpha:g}"]


def _fit(X, k: int, stream, options: dict) -> KGroups:
    """KGroups(k) on X (a joblib task)."""
    return KGroups(k, random_state=stream, **options).fit(X)


def _reference_log_w(X, box, rotation, centre, stream, k_max: int, options: dict) -> np.ndarray:
    """log W of KGroups(k), k = 1..k_max, on one uniform sample of the principal-axes box
    (a joblib task)."""
    low, high = box
    Z = stream.uniform(low, high, size=(X.shape[0], low.size))
    R = Z @ rotation.T + centre
    streams = stream.spawn(k_max)
    return np.log([KGroups(k, random_state=s, **options).fit(R).W_ for k, s in zip(range(1, k_max + 1), streams)])


def _unimodal_node(points: np.ndarray, stream, n_resamples: int, options: dict) -> tuple[float, float, np.ndarray]:
    """Split a random half of the points by KGroups(2); the dip of the other half's
    projection on the line joining the two centroids, and its p-value against uniform
    samples of that size; the split of all the points by the half's fit (``predict``).

    The held-out half did not choose the direction, so its projection is a sample of the
    node's law projected on a fixed line: the dip test's calibration applies to it."""
    fit_stream, half_stream, null_stream = stream.spawn(3)
    m = points.shape[0]
    order = half_stream.permutation(m)
    fitted, held = np.sort(order[: m // 2]), np.sort(order[m // 2 :])
    model = KGroups(2, random_state=fit_stream, **options).fit(points[fitted])
    labels = model.predict(points)
    half = model.labels_
    direction = points[fitted][half == 1].mean(axis=0) - points[fitted][half == 0].mean(axis=0)
    projection = np.sort(points[held] @ direction)
    statistic = _dip_sorted(projection)
    null = uniform_dip_null(held.size, n_resamples, null_stream)
    # the dip is a maximum of differences of multiples of 1 / m: rounding at the scale of 1
    p = pvalue(statistic, null, scale=1.0, what="the dip")
    if np.unique(labels).size < 2:  # the half's split does not split the node: nothing to split
        labels = np.zeros(m, dtype=np.int64)
        p = 1.0
    return statistic, p, labels


def _gaussian_node(points: np.ndarray, stream, n_resamples: int, options: dict, n_jobs) -> tuple[float, float, np.ndarray]:
    """cluster_test(points, 2): S / T, its p-value, and its partition."""
    test = cluster_test(points, 2, n_resamples=n_resamples, rng=stream, n_jobs=n_jobs, progress=False, **options)
    return test.statistic, test.pvalue, test.labels


def _gap_choice(gap: np.ndarray, se: np.ndarray) -> int:
    """Tibshirani, Walther & Hastie (2001), Sec. 3: the smallest k with
    gap(k) >= gap(k + 1) - s(k + 1); k_max when there is none."""
    for i in range(gap.size - 1):
        if gap[i] >= gap[i + 1] - se[i + 1]:
            return i + 1
    return int(gap.size)


def _by_size(labels: np.ndarray) -> np.ndarray:
    """Relabel clusters by size, largest first; ties in order of their first point."""
    codes, first, inverse, counts = np.unique(labels, return_index=True, return_inverse=True, return_counts=True)
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
    if isinstance(n_references, bool) or not isinstance(n_references, (int, np.integer)) or n_references < 0:
        raise ValueError(f"`n_references` must be a non-negative integer, got {n_references!r}.")
    if n_references == 1:
        raise ValueError("`n_references` must be 0 (no gap statistic) or at least 2 (its standard error needs two).")
    floor = d + 2 if null == "gaussian" else 4
    minimum = max(10, floor) if min_size is None else check_positive_int(min_size, "min_size", minimum=floor)
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

    Walks a divisive tree from all the points: a node of m points is split in two by
    :class:`KGroups` and tested at level :math:`\alpha m / n` only if its parent was
    significant; k̂ is the number of nodes left unsplit (Kimes et al. 2017's sequential
    rule on a divisive k-groups tree). Beside it, the table over k = 1..k_max holds W and S
    of ``KGroups(k)`` on all the data and the gap statistic.

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
        What one cluster is. ``"unimodal"``: its projection on the line joining the two
        k-groups centroids of its split is unimodal (Hartigan's dip of the projection of a
        held-out half of the node's points, the line fitted on the other half,
        calibrated on the uniform); the node's points are then split by the half's fit. ``"gaussian"``: it is one Gaussian sample (:func:`cluster_test`, two
        clusters, ``directions="conditional"``); exact at the root, but it splits uniform,
        heavy-tailed and skewed clusters.
    n_resamples : int, default=None
        Monte Carlo resamples per node test; ``None``: 999 for the unimodal null (a
        resample is one dip, O(m)), 199 for the Gaussian null (a resample is a k-groups
        fit). A node can only be significant when 1 / (n_resamples + 1) <=
        alpha * size / n: at the defaults and alpha = 0.05, nodes of at least 2% (unimodal)
        or 10% (Gaussian) of the points; smaller nodes are final clusters without a test
        (no row in ``nodes``), which changes no decision.
    n_references : int, default=10
        Uniform reference sets of the gap statistic (0: no gap statistic).
    min_size : int, default=None
        Nodes with fewer points are not tested; ``None``: 10 (and at least d + 2 for the
        Gaussian null).
    metric, exponent, sigma
        The semimetric of :class:`KGroups` (for ``"gaussian"``: "euclidean",
        "exponential" or "gaussian", which the cluster test's null needs).
    n_init : int, default=3
        Restarts of every :class:`KGroups` fit (the table's, the references', the nodes').
    rng : int, numpy.random.Generator or None, default=None
        Seeds every fit and every Monte Carlo draw: the same seed, the same result.
    n_jobs : int, default=None
        joblib's ``n_jobs``: the table's fits and the reference sets run as tasks, and the
        Gaussian null's resamples; the result does not depend on it.
    progress : bool or None, default=None
        One progress bar for the call (fits, then node tests).
    nan_policy : {"raise", "omit"}, default="raise"
        Rows with a missing value: ``"raise"`` an error, ``"omit"`` drop them
        (``labels`` is -1 on them).

    Returns
    -------
    ChooseKResult
        :func:`energystats.plotting.plot_choose_k` draws W against k with the decision marked.

    Notes
    -----
    What is guaranteed. With the Gaussian null, when the n points are one Gaussian
    sample (any mean and covariance) the root's test is exact, so
    :math:`P(\hat k > 1) \le \alpha`, exactly, whatever n and d. With the unimodal null
    the same bound holds, asymptotically, for one cluster whose projections are unimodal:
    the tested half is independent of the line it is projected on, and the uniform is the
    least favourable unimodal law for the dip (Hartigan & Hartigan 1985, Theorem 5); at
    finite n it is a Monte Carlo calibration on the uniform of the held-out size. When there are k true
    clusters, each a null sample, the levels :math:`\alpha m / n` of the nodes tested at
    one depth sum to at most alpha, and :math:`P(\hat k > k) \le \alpha` holds
    approximately: it takes each node's test as valid for the points the tree gave it
    (Kimes et al. 2017). Measured rates are in the user guide (``docs/validation.md``).

    Cost: k_max fits of KGroups on n points, k_max fits per reference set, and at most
    2 k_max - 1 node tests (a dip test is O(m log m) per resample; a cluster test is
    n_resamples KGroups fits of m points).

    References
    ----------
    P. K. Kimes, Y. Liu, D. N. Hayes and J. S. Marron, "Statistical significance for
    hierarchical clustering", Biometrics 73 (2017). J. A. Hartigan and P. M. Hartigan,
    "The dip test of unimodality", Ann. Statist. 13 (1985). R. Tibshirani, G. Walther
    and T. Hastie, "Estimating the number of clusters in a data set via the gap
    statistic", JRSS B 63 (2001).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 1.0, size=(60, 2)) for c in ([0, 0], [8, 0], [0, 8])])
    >>> res = es.choose_k(X, k_max=5, n_references=5, rng=1)
    >>> res.k, res.k_gap, np.bincount(res.labels).tolist()
    (3, 3, [60, 60, 60])
    >>> res.to_frame()["W"].round(1).tolist()
    [589.7, 340.9, 157.9, 144.9, 133.8]
    """
    semimetric = resolve_semimetric(metric, exponent, sigma)
    X = prepare_points(X, semimetric, min_samples=2)
    n, d = X.shape
    k_max, alpha, options, n_references, minimum = _choose_k_iv(k_max, alpha, null, n_resamples, n_references, min_size, n, d)
    B = options.n_resamples
    n_init = check_positive_int(n_init, "n_init")
    if null == "gaussian" and not (isinstance(metric, str) and metric in ("euclidean", "exponential", "gaussian")):
        raise ValueError("`metric` must be 'euclidean', 'exponential' or 'gaussian' with null='gaussian': the cluster test's null needs a rotation-invariant semimetric.")
    progress = check_progress(progress)
    n_jobs = check_n_jobs(n_jobs)
    fit_options = {"metric": metric, "exponent": exponent, "sigma": sigma, "n_init": n_init}
    gen = as_generator(rng)
    fit_streams = gen.spawn(k_max)
    reference_streams = gen.spawn(n_references)
    node_gen = gen.spawn(1)[0]

    steps = k_max + n_references + 2 * k_max - 1
    bar = iter(progress_bar(range(steps), steps, progress, "choose_k: fits, references, node tests"))

    def advance(count: int = 1) -> None:
        for _ in range(count):
            next(bar, None)

    # the W-against-k curve
    fit_calls = [{"k": k, "stream": s} for k, s in zip(range(1, k_max + 1), fit_streams)]
    parallel = n_workers(n_jobs) > 1
    if parallel:
        models = run_tasks(_fit, fit_calls, n_jobs, shared={"X": X, "options": fit_options})
        advance(k_max)
    else:
        models = []
        for call in fit_calls:
            models.append(_fit(X, options=fit_options, **call))
            advance()
    W = np.array([m.W_ for m in models])
    S = np.array([m.objective_ for m in models])

    # the gap statistic's uniform references over the principal-axes box
    if n_references:
        centre = X.mean(axis=0)
        _, _, Vt = np.linalg.svd(X - centre, full_matrices=False)
        rotation = Vt.T
        Z = (X - centre) @ rotation
        box = (Z.min(axis=0), Z.max(axis=0))
        shared = {"X": X, "box": box, "rotation": rotation, "centre": centre, "k_max": k_max, "options": fit_options}
        calls = [{"stream": s} for s in reference_streams]
        if parallel:
            ref = np.array(run_tasks(_reference_log_w, calls, n_jobs, shared=shared))
            advance(n_references)
        else:
            ref = []
            for call in calls:
                ref.append(_reference_log_w(**shared, **call))
                advance()
            ref = np.array(ref)
        ref_mean = ref.mean(axis=0)
        gap = ref_mean - np.log(W)
        gap_se = ref.std(axis=0) * np.sqrt(1.0 + 1.0 / n_references)
        k_gap = _gap_choice(gap, gap_se)
    else:
        ref_mean = gap = gap_se = np.full(k_max, np.nan)
        k_gap = None

    # the sequential tests down the divisive tree
    rows: list[dict] = []
    final: list[np.ndarray] = []
    pending = [(np.arange(n), -1)]
    while pending:
        pending.sort(key=lambda item: -item[0].size)  # the largest node first
        points, parent = pending.pop(0)
        if points.size < minimum or len(final) + len(pending) + 1 >= k_max:
            final.append(points)
            continue
        stream = node_gen.spawn(1)[0]
        if (B + 1) * alpha * points.size < n:  # its smallest p-value is above its level
            final.append(points)
            continue
        if null == "unimodal":
            statistic, p, split = _unimodal_node(X[points], stream, B, fit_options)
        else:
            ct_options = {"metric": metric, "exponent": exponent, "n_init": n_init}
            if sigma is not None:
                ct_options["sigma"] = sigma
            statistic, p, split = _gaussian_node(X[points], stream, B, ct_options, n_jobs)
        advance()
        threshold = alpha * points.size / n
        significant = bool(p <= threshold)
        node = len(rows)
        rows.append({"node": node, "parent": parent, "size": points.size, "statistic": statistic, "pvalue": p, "threshold": threshold, "significant": significant})
        if significant:
            pending += [(points[split == 0], node), (points[split == 1], node)]
        else:
            final.append(points)
    advance(steps)
    labels = np.empty(n, dtype=np.int64)
    for code, points in enumerate(final):
        labels[points] = code
    labels = _by_size(labels)
    k_hat = len(final)

    nodes = pd.DataFrame(rows, columns=_NODE_COLUMNS)
    splits = nodes[nodes["significant"]] if len(nodes) else nodes
    split_p = np.full(k_max, np.nan)
    split_threshold = np.full(k_max, np.nan)
    split_p[1 : 1 + len(splits)] = splits["pvalue"].to_numpy()[: k_max - 1]
    split_threshold[1 : 1 + len(splits)] = splits["threshold"].to_numpy()[: k_max - 1]
    table = pd.DataFrame(
        {
            "k": np.arange(1, k_max + 1),
            "W": W,
            "S": S,
            "log_W": np.log(W),
            "ref_log_W": ref_mean,
            "gap": gap,
            "gap_se": gap_se,
            "pvalue": split_p,
            "threshold": split_threshold,
        },
        columns=_TABLE_COLUMNS,
    )
    return ChooseKResult(
        k=k_hat,
        alpha=alpha,
        null=null,
        table=table,
        nodes=nodes,
        labels=labels,
        model=models[k_hat - 1],
        k_gap=k_gap,
        n_resamples=B,
        n_references=n_references,
    )
