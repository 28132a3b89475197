r"""How many clusters: tests of the clusters of ``KGroups(k)`` for growing k, with family-wise
error control, beside the W-against-k curve and the gap statistic.

The rule. ``KGroups(k)`` is fitted to all the data for k = 1..k_max (the table). From k = 1,
the clusters of ``KGroups(k)`` are tested, largest first, each of m points at level
:math:`\alpha\, m / n`, against one cluster (:mod:`._k_tests`). When one is significant, k grows
by the number of clusters its test points to less one (the gap statistic's choice on it), and
the clusters of the new ``KGroups(k)`` are tested; when none is, k̂ = k. The test of all the
points (k = 1) is :func:`~energystats.cluster_test` without k; it looks at k = 2..k_max, a
cluster of a larger partition at k = 2..4.

What is controlled. The levels of the clusters of one partition sum to alpha: when the data
are one cluster, :math:`P(\hat k > 1) \le \alpha`; when ``KGroups(k)`` finds k true clusters,
the search passes k with probability at most alpha (Bonferroni's inequality with the weights
m / n of Kimes, Liu, Hayes & Marron 2017). Fitting every k to all the data, rather than
splitting the clusters of a tree, lets a later partition undo an earlier cut.

Two nulls say what "one cluster" means:

* ``"unimodal"``: uniform laws on the cluster's box and simplex, the least favourable convex
  clusters; a Gaussian, uniform, t, skewed or rounded cluster is one cluster, a curved one
  (a half-circle) is not.
* ``"gaussian"``: whitened Gaussian samples; a Gaussian cluster is one cluster, but uniform,
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
from .._resample import check_resamples
from .._result_bases import ClusteringResult
from .._semimetric import prepare_points, resolve_semimetric
from .._validation import check_positive_int
from ._k_curve import w_curve
from ._k_tests import node_test
from .kgroups import KGroups

__all__ = ["ChooseKResult", "choose_k"]

_NULLS = ("unimodal", "gaussian")
#: The largest k of the test of a cluster of ``KGroups(k)``, k > 1 (the test of all the points
#: looks at k = 2..k_max).
MAX_SPLIT = 4
#: Columns of :attr:`ChooseKResult.nodes`.
_NODE_COLUMNS = [
    "node",
    "k",
    "cluster",
    "size",
    "statistic",
    "components",
    "k_split",
    "pvalue",
    "threshold",
    "significant",
]
#: Columns of :attr:`ChooseKResult.table`.
_TABLE_COLUMNS = ["k", "W", "S", "log_W", "ref_log_W", "gap", "gap_se"]
_RULES = {
    "unimodal": (
        "k-means drops against uniform clusters (box, simplex) of the cluster's axes and "
        "variances"
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
        Why the search stopped: no cluster of ``KGroups(k̂)`` significant, or ``k_max``
        reached.
    nodes : pandas.DataFrame
        One row per tested cluster, in the order of testing: ``node`` (its number; 0 is all
        the points), ``k`` and ``cluster`` (it is cluster ``cluster`` of ``KGroups(k)``),
        ``size``, ``statistic`` (the largest standardised drop of k-means' within sum of
        squares), ``components`` (J, the principal axes tested), ``k_split`` (the gap
        statistic's k on it: k grows by ``k_split`` - 1 when it is significant),
        ``pvalue``, ``threshold`` (alpha * size / n) and ``significant``. The rows of
        k = k̂ decided k̂.
    table : pandas.DataFrame
        One row per k = 1..k_max: ``W`` and ``S`` of ``KGroups(k)`` fitted to all the data
        (eq. 15, 16; W + S = T), ``log_W``, ``ref_log_W`` (mean log W of the uniform
        reference sets), ``gap`` and its standard error ``gap_se`` (Tibshirani et al.
        2001; NaN without reference sets, or where W is 0).
    labels : ndarray of shape (n,)
        The clusters of ``model``, numbered by size, largest first (-1 on rows dropped for
        missing values).
    model : KGroups
        ``KGroups(k̂)`` fitted to all the data (the row k̂ of ``table``), whose clusters were
        tested.
    k_gap : int or None
        The gap statistic's choice by Tibshirani's first-SE-max rule: the smallest k with
        gap(k) >= gap(k + 1) - se(k + 1) (``None`` without reference sets, or when no gap is
        defined). Descriptive: it has no error guarantee.
    k_gap_global : int or None
        The gap statistic's choice by the global-SE-max rule: the smallest k with
        gap(k) >= max gap - se at the maximum. Descriptive.
    n_resamples : int
        Monte Carlo references per test.
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
    k_gap_global: int | None
    n_resamples: int
    n_references: int

    _title = "Number of clusters by sequential tests of the clusters of KGroups(k)"
    _not_one_test = "holds one test per cluster: plot_choose_k draws the decision"

    def to_frame(self) -> pd.DataFrame:
        """The table over k, indexed by k."""
        return self.table.set_index("k")

    def _tables(self) -> list[tuple[str, pd.DataFrame]]:
        return [("Tested clusters", self.nodes.set_index("node")), ("Over k", self.to_frame())]

    @property
    def deciding(self) -> pd.Series | None:
        """The row of ``nodes`` that kept k̂ from growing: of the clusters of ``KGroups(k̂)``
        tested and not significant, the one nearest its threshold (smallest p-value /
        threshold); None when none was (``k_max`` reached, or no cluster testable)."""
        final = self.nodes[(self.nodes["k"] == self.k) & ~self.nodes["significant"].astype(bool)]
        if final.empty:
            return None
        return final.loc[(final["pvalue"] / final["threshold"]).idxmin()]

    def _extra_lines(self) -> list[str]:
        lines = [f"rule: {_RULES[self.null]}, family-wise error {self.alpha:g}"]
        row = self.deciding
        if row is not None:
            lines.append(
                f"decided by node {int(row['node'])} ({int(row['size'])} points): "
                f"p-value {row['pvalue']:.4g} > threshold {row['threshold']:.4g}"
            )
        return lines


def _choose_k_iv(k_max, alpha, null, n_resamples, n_references, min_size, n, d):
    k_max = check_positive_int(k_max, "k_max")
    if k_max > n:
        raise ValueError(f"`k_max` must be at most the number of samples ({n}), got {k_max}.")
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0.0 < alpha < 1.0:
        raise ValueError(f"`alpha` must be a number strictly between 0 and 1, got {alpha!r}.")
    if null not in _NULLS:
        raise ValueError(f"`null` must be 'unimodal' or 'gaussian', got {null!r}.")
    B = check_resamples(n_resamples)
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
    return k_max, float(alpha), B, int(n_references), minimum


def _stop_message(k: int, reason: str, rows: list, untested: int) -> str:
    """Why the search stopped at k, in one sentence."""
    head = f"{k} cluster{'s' if k > 1 else ''}: "
    if reason == "k_max":
        return head + "k_max reached" + (f" (node {rows[-1]['node']} significant)" if rows else "")
    final = [str(row["node"]) for row in rows if row["k"] == k]
    text = f"not significant (node {', '.join(final)})" if final else ""
    if untested:
        text += ("; " if final else "") + (
            f"{untested} untested (fewer than min_size points, or level alpha m / n below "
            "1 / (n_resamples + 1))"
        )
    return head + text


@front_door("X", names=("X",))
def choose_k(
    X,
    k_max: int = 10,
    *,
    alpha: float = 0.05,
    null: str = "unimodal",
    n_resamples: int = 199,
    n_references: int = 10,
    min_size: int | None = None,
    metric: str = "euclidean",
    exponent: float = 1.0,
    sigma: float | None = None,
    n_init: int = 10,
    rng=None,
    n_jobs=None,
    progress: bool | None = None,
    nan_policy: str = "raise",
) -> ChooseKResult:
    r"""Choose the number of clusters with a family-wise error guarantee.

    Fits ``KGroups(k)`` for k = 1..k_max and tests its clusters from k = 1: each cluster of
    m points at level :math:`\alpha m / n`, largest first. A significant cluster makes k
    grow by the number of clusters its test points to, less one; k̂ is the first k whose
    clusters are all not significant. Beside it, the table over k holds W and S of
    ``KGroups(k)`` and the gap statistic.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Data (a DataFrame's columns are the features).
    k_max : int, default=10
        Largest k considered: the table runs to k_max, and the test of all the points looks
        at k = 2..k_max.
    alpha : float, default=0.05
        Family-wise error rate of the tests, 0 < alpha < 1.
    null : {"unimodal", "gaussian"}, default="unimodal"
        What one cluster is (Notes). ``"unimodal"``: a law no more clustered than the uniform
        law on the box or the simplex of the cluster's principal axes and variances, the
        least favourable convex clusters (a curved cluster is split: Notes). ``"gaussian"``:
        one Gaussian sample; it splits uniform, heavy-tailed and skewed clusters.
    n_resamples : int, default=199
        Reference samples per test (199, not 999: each one is clustered as the data are).
        A cluster can only be significant when 1 / (n_resamples + 1) <= alpha * size / n:
        at the default and alpha = 0.05, clusters of at least 10% of the points; smaller
        ones are not tested (no row in ``nodes``).
    n_references : int, default=10
        Uniform reference sets of the gap statistic of the table (0: none). Descriptive: it
        does not change k̂.
    min_size : int, default=None
        Clusters with fewer points are not tested; ``None``: 10 (and at least d + 2 for the
        Gaussian null).
    metric, exponent, sigma
        The semimetric of :class:`KGroups` (the fits whose clusters are tested); the tests
        themselves look at the points (k-means), so a precomputed matrix is refused.
    n_init : int, default=10
        Restarts of each :class:`KGroups` fit, on the data and on the gap's reference sets
        (KGroups' own default: a fit whose clusters are tested should not stall).
    rng : int, numpy.random.Generator or None, default=None
        Seeds every fit and every Monte Carlo draw: the same seed, the same result. The
        tests' streams are drawn first, then the fits': ``n_references`` and ``n_jobs`` leave
        the tests and the fits unchanged.
    n_jobs : int, default=None
        joblib's ``n_jobs``: the table's fits and the gap's reference sets run as tasks; the
        result does not depend on it.
    progress : bool or None, default=None
        One progress bar for the call (fits, then tests).
    nan_policy : {"raise", "omit"}, default="raise"
        Rows with a missing value: ``"raise"`` an error, ``"omit"`` drop them
        (``labels`` is -1 on them).
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.

    Returns
    -------
    ChooseKResult
        Its print shows every tested cluster (p-value, threshold) and why the search stopped;
        :func:`energystats.plotting.plot_choose_k` draws W against k with the decision marked.

    Warns
    -----
    UserWarning
        When a cluster of ``KGroups(k_max)`` is still significant: k_max may be too small, or,
        with ``null="gaussian"``, when that cluster is one cluster for the unimodal null, a
        cluster that is not Gaussian is split again and again.

    Notes
    -----
    The test of a cluster (:func:`cluster_test` without k is the test of all the points).
    Its points are rotated to their principal axes, of which J are kept: those that stand
    out from a spherical noise floor (:func:`signal_dimension`), or all of them (at most ten)
    when none does, as for clusters arranged symmetrically. The drops of k-means' within sum
    of squares, :math:`D_k = \log W_1 - \log W_k` (the gap statistic's curve), in J
    dimensions and on the first axis alone, are standardised against B references of the
    same size, and the largest is the statistic; its p-value counts the references that
    reach it. ``"unimodal"``: the references are uniform on the box and on the simplex with
    the cluster's axes and variances, the p-value the larger of the two. ``"gaussian"``:
    the scores are whitened and the references are whitened Gaussian samples.

    What is guaranteed. With the Gaussian null, when the n points are one Gaussian sample
    (any mean and covariance) and every principal axis is kept, the first test is exact:
    :math:`P(\hat k > 1) \le \alpha`; with J < d axes chosen by their variance it is
    approximate. With the unimodal null the same bound holds when the points are uniform
    on a box, and for one convex cluster because it splits less easily than the uniform law
    of its variances (in one dimension, as the gap statistic's reference argument goes;
    checked by simulation in several: the rates are in ``docs/validation.md``). A curved
    cluster is not convex: the two ends of a half-circle are farther apart than its
    variances say, and k-means may split it more than any convex reference. When
    ``KGroups(k)`` finds k true clusters, the levels of its clusters sum to alpha and
    :math:`P(\hat k > k) \le \alpha` (Kimes et al. 2017's weights).

    Cost: k_max fits of KGroups on n points, k_max fits per reference set, and a test per
    tested cluster: B batched k-means fits for each k it looks at, of at most 500 points in
    J dimensions.

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
    """
    semimetric = resolve_semimetric(metric, exponent, sigma)
    if semimetric.precomputed:
        raise ValueError(
            "`metric`='precomputed' is not available in choose_k: its tests run k-means on "
            "the points."
        )
    X = prepare_points(X, semimetric, min_samples=2)
    n, d = X.shape
    k_max, alpha, B, n_references, minimum = _choose_k_iv(
        k_max, alpha, null, n_resamples, n_references, min_size, n, d
    )
    n_init = check_positive_int(n_init, "n_init")
    progress = check_progress(progress)
    n_jobs = check_n_jobs(n_jobs)
    fit_options = {"metric": metric, "exponent": exponent, "sigma": sigma, "n_init": n_init}
    gen = as_generator(rng)
    test_gen = gen.spawn(1)[0]  # first: cluster_test(X, rng=...) is the first test
    fit_streams = gen.spawn(k_max)
    reference_streams = gen.spawn(n_references)

    steps = k_max + n_references + 2 * k_max
    bar = iter(progress_bar(range(steps), steps, progress, "choose_k: fits, references, tests"))

    def advance(count: int = 1) -> None:
        for _ in range(count):
            next(bar, None)

    curve = w_curve(X, k_max, fit_streams, reference_streams, fit_options, n_jobs, advance)
    rows: list[dict] = []
    k, reason, untested = 1, "not significant", 0
    while k_max > 1:
        labels = curve.models[k - 1].labels_
        sizes = np.bincount(labels)
        K = k_max if k == 1 else max(2, min(MAX_SPLIT, k_max - k + 1))
        found, untested = None, 0
        for cluster in np.argsort(-sizes, kind="stable"):
            m = int(sizes[cluster])
            if m < minimum or (B + 1) * alpha * m < n:
                untested += 1
                continue
            res = node_test(X[labels == cluster], null, B, K, test_gen.spawn(1)[0])
            advance()
            threshold = alpha * m / n
            rows.append(
                {
                    "node": len(rows),
                    "k": k,
                    "cluster": int(cluster),
                    "size": m,
                    "statistic": res.statistic,
                    "components": res.components,
                    "k_split": res.k_split,
                    "pvalue": res.pvalue,
                    "threshold": threshold,
                    "significant": bool(res.pvalue <= threshold),
                }
            )
            if rows[-1]["significant"]:
                found = labels == cluster
                break
        if found is None:
            break
        if k == k_max:
            reason = "k_max"
            _warn_k_max(X[found], null, B, alpha * found.sum() / n, k_max, test_gen)
            break
        if k > 1:
            k += 1
        else:  # the gap statistic's k (of the table, else of the test's references)
            k = min(k_max, max(2, curve.k_gap or rows[-1]["k_split"]))
    if k_max == 1:
        reason = "k_max"
    advance(steps)
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
        k=k,
        alpha=alpha,
        null=null,
        stopped=_stop_message(k, reason, rows, untested),
        nodes=pd.DataFrame(rows, columns=_NODE_COLUMNS),
        table=table,
        labels=curve.models[k - 1].labels_,
        model=curve.models[k - 1],
        k_gap=curve.k_gap,
        k_gap_global=curve.k_gap_global,
        n_resamples=B,
        n_references=n_references,
    )


def _warn_k_max(points, null, B, threshold, k_max, test_gen) -> None:
    """The warning when a cluster of ``KGroups(k_max)`` is still significant: k_max may be
    too small, unless (Gaussian null) the cluster is one cluster for the unimodal null."""
    if null == "gaussian":
        unimodal = node_test(points, "unimodal", B, MAX_SPLIT, test_gen.spawn(1)[0])
        if unimodal.pvalue > threshold:
            warnings.warn(
                f"choose_k reached k_max = {k_max} with null='gaussian' on a cluster that is "
                "one cluster for null='unimodal': a cluster that is not Gaussian (uniform, "
                "skewed, heavy tailed) is split again and again; null='unimodal' takes such a "
                "cluster as one.",
                UserWarning,
                stacklevel=3,
            )
            return
    warnings.warn(
        f"choose_k reached k_max = {k_max} with a cluster of KGroups(k_max) still more than "
        "one cluster: k_max may be too small.",
        UserWarning,
        stacklevel=3,
    )
