"""The k-sample energy permutation test of equal distributions, and post-hoc pairs.

H0: P_1 = ... = P_k against the alternative that at least two differ
(Székely & Rizzo 2004; Rizzo & Székely 2010; França, Rizzo & Vogelstein 2020,
eq. 12/16).

Permutations relabel the points; the semimetric matrix is never copied or
permuted. For a batch of B relabelings the within-group sums of all of them
come from one product of the pairwise operator with the stacked one-hot
label matrices (n x (k-1)B, BLAS-3), plus column-wise product-sums; the sums
of the last group follow from the row totals
(:meth:`~energystats._operator.PairwiseOperator.group_sums`). The operator
(:func:`~energystats._operator.make_operator`) is dense when the matrix fits the
memory budget and more than one pass is needed, streamed otherwise (one pass over
tiles of D serves a whole batch), and sorted for one-dimensional data with exponent
1 (O(n k) per relabeling).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np
import pandas as pd

from .._config import memory_budget
from .._cost import PROJECTED, relabeling_costs
from .._frontdoor import front_door
from .._operator import (
    N_PROJECTIONS,
    GroupSums,
    OnePass,
    PairwiseOperator,
    Repeated,
    approximation_of,
    make_operator,
)
from .._parallel import check_n_jobs
from .._progress import announce, duration
from .._random import as_generator
from .._resampling import (
    Options,
    Relabelings,
    check_options,
    null_distribution,
    progress_bar,
    pvalue,
    relabeling_count,
    tie_scale,
)
from .._result_bases import NullPanel, TestResult
from .._semimetric import MetricLike, Scaling, prepare_points, resolve_semimetric
from .._validation import as_data, as_groups, check_correction

__all__ = [
    "EnergyTestResult",
    "energy_test",
    "energy_test_samples",
    "pairwise_energy_tests",
    "relabeling_engine",
    "relabeling_test",
    "statistics",
]

_STATISTICS = ("S", "E", "F")
_TITLES = {
    "S": "Energy test of equal distributions (between-sample statistic S, R disco)",
    "E": "Energy test of equal distributions (R eqdist.etest)",
    "F": "Energy test of equal distributions (DISCO F ratio, R disco)",
}


@dataclass(frozen=True, repr=False)
class EnergyTestResult(TestResult):
    """Result of a k-sample energy permutation test.

    Attributes
    ----------
    statistic_name : str
        ``"S"``, ``"E"`` or ``"F"``.
    sizes : ndarray of shape (k,)
        Group sizes, in sorted label order.
    groups : ndarray of shape (k,)
        Group labels, in sorted order.
    approximation : str
        ``"exact"``, or ``"projection"``: the statistic and its null were computed
        on the random-projection estimate of the distance.
    n_projections : int or None
        The number of directions L of ``"projection"``.
    """

    statistic_name: str
    sizes: np.ndarray
    groups: np.ndarray
    approximation: str = "exact"
    n_projections: int | None = None

    _hidden = ("approximation", "n_projections")
    #: the axis label of each statistic in plot_null_distribution
    _plot_labels = {
        "S": "between-sample energy S",
        "E": "sum of pairwise two-sample energy statistics",
        "F": "DISCO F ratio",
    }

    @property
    def _statistic_label(self) -> str:
        return self.statistic_name

    def _pvalue_note(self) -> str:
        if self.exact:
            return f"exact: all {self.n_resamples} distinct relabelings"
        return f"{self.n_resamples} permutations"

    @property
    def _title(self) -> str:
        return _TITLES[self.statistic_name]

    def _details(self) -> list[tuple[str, str]]:
        sizes = ", ".join(f"{g}: {s}" for g, s in zip(self.groups.tolist(), self.sizes.tolist()))
        return [("sizes", sizes)] + [
            row for row in super()._details() if row[0] not in ("sizes", "groups")
        ]

    def _extra_lines(self) -> list[str]:
        if self.approximation == "projection":
            return [
                f"distance estimated from {self.n_projections} random projections (the test's "
                "level is exact)"
            ]
        return []

    def _null_panels(self) -> tuple[NullPanel, ...]:
        return (
            NullPanel(f"{len(self.sizes)}-sample energy test of equal distributions",
                      self._plot_labels[self.statistic_name], self.statistic, self.pvalue,
                      self._permutation_label("relabelings"), null=self.null_distribution),
        )


def statistics(M: np.ndarray, total: float, sizes: np.ndarray, name: str) -> np.ndarray:
    """S, E or F for each relabeling from its block sums M (B x k x k; off-diagonal
    entries needed for "E" only) and the constant sum of rho over all pairs."""
    n = sizes.sum()
    k = sizes.shape[0]
    diag = np.einsum("bjj->bj", M)
    W = (diag / (2.0 * sizes)).sum(axis=1)  # eq. (15)
    T = total / (2.0 * n)  # eq. (18), the same for every relabeling
    S = T - W  # Lemma 1
    if name == "S":
        return S
    if name == "F":
        with np.errstate(divide="ignore", invalid="ignore"):
            return (S / (k - 1)) / (W / (n - k))
    g_diag = diag / sizes**2
    E = np.zeros(M.shape[0])
    for i, j in combinations(range(k), 2):
        ni, nj = sizes[i], sizes[j]
        e_ij = 2.0 * M[:, i, j] / (ni * nj) - g_diag[:, i] - g_diag[:, j]
        E += ni * nj / (ni + nj) * e_ij
    return E


# --- Public API ----------------------------------------------------------------------


_TEST_DEFAULTS = {
    "statistic": "S",
    "n_resamples": 999,
    "exponent": 1.0,
    "metric": "euclidean",
    "sigma": None,
    "exact": "auto",
    "batch": None,
    "progress": None,
    "ties": "tolerant",
    "n_jobs": None,
    "approximation": None,
    "n_projections": N_PROJECTIONS,
}


def _energy_test_iv(statistic, n_resamples, exact, batch, progress, ties) -> Options:
    if statistic not in _STATISTICS:
        raise ValueError(f"`statistic` must be one of {_STATISTICS}, got {statistic!r}.")
    if ties not in ("tolerant", "strict"):
        raise ValueError(f"`ties` must be 'tolerant' or 'strict', got {ties!r}.")
    return check_options(n_resamples, exact, batch, progress)


@front_door(("X", "labels"), distances=("X",), columns=("labels",), names=("X",), by="labels")
def energy_test(
    X,
    labels,
    *,
    statistic: str = "S",
    n_resamples: int = 999,
    exponent=1.0,
    metric: MetricLike = "euclidean",
    sigma=None,
    rng=None,
    exact="auto",
    batch: int | None = None,
    progress: bool | None = None,
    ties: str = "tolerant",
    n_jobs: int | None = None,
    approximation: str | None = None,
    n_projections: int = N_PROJECTIONS,
    nan_policy: str = "raise",
) -> EnergyTestResult:
    r"""Permutation test of equal distributions for k samples (energy statistics).

    Tests H0: P_1 = ... = P_k against "at least two differ" by relabeling
    the points at random (or exhaustively) and recomputing the statistic.

    Parameters
    ----------
    X : array_like of shape (N, d), or (N, N) when ``metric="precomputed"``
        Pooled data.
    labels : array_like of shape (N,)
        Sample of each point; at least two distinct values.
    statistic : {"S", "E", "F"}, default="S"
        ``"S"``: the between-sample statistic of eq. (16) (R
        ``disco.between``); ``"E"``: the sum over pairs of
        :math:`\frac{n_i n_j}{n_i + n_j} \mathcal E_{ij}` (R
        ``eqdist.etest``, method "original"); ``"F"``: the DISCO ratio
        (S/(k-1)) / (W/(N-k)) (R ``disco``). For k = 2 all three order the
        relabelings alike and give the same p-value.
    n_resamples : int, default=999
        Number of random relabelings (at least 1).
    exponent, metric, sigma
        The semimetric, as in :func:`dispersion`.
    rng
        It draws the relabelings.
    exact : {"auto", True, False}, default="auto"
        ``"auto"`` enumerates every distinct relabeling when there are at
        most ``n_resamples`` of them (and at most 10**6); ``True`` always
        does (up to 10**6); ``False`` never does.
    batch : int, default=None
        Relabelings evaluated per product of the pairwise operator; ``None``
        picks the largest batch within the memory budget
        (``working_memory``, :func:`set_config`). The result does not depend
        on it; a batch that cannot fit raises :class:`WorkingMemoryError`.
    progress : bool or None, default=None
        Show a progress bar (tqdm) over batches.
    ties : {"tolerant", "strict"}, default="tolerant"
        How null values equal to the observed statistic count; see Notes.
    n_jobs : int, default=None
        joblib's ``n_jobs``: the products over the pairwise operator run as
        joblib tasks (tiles times a batch of relabelings), on a Dask cluster
        inside ``joblib.parallel_config(backend="dask")``. The relabelings are
        drawn here, so the result is the same whatever ``n_jobs`` (null values
        to rounding). One-dimensional data with exponent 1 and precomputed
        matrices are computed in this process.
    approximation : {None, "projection"}, default=None
        ``"projection"``: the random-projection statistic of Huang & Huo
        (2017), for the Euclidean distance with exponent 1 only. The
        distance is replaced by :math:`\hat D = \frac{C_d}{L}\sum_l
        |u_l^\top (x - y)|` over ``n_projections`` directions drawn from
        ``rng``, an unbiased estimate of it; every relabeling uses the same
        directions, so the permutation test on the projected statistic has
        exact level for any L, and only its power depends on L. Time O(L n
        log n) for the sorts, then O(L n k) per relabeling; memory O(n).
    n_projections : int, default=200
        L, the number of random directions, for ``approximation="projection"``: the one
        default of every projected statistic (``N_PROJECTIONS``; measured level, power and
        time of both families in the validation page, "How many directions").

    Returns
    -------
    EnergyTestResult

    Notes
    -----
    Monte Carlo p-value: :math:`(1 + \#\{t^* \ge t - \gamma\}) / (B + 1)`,
    with a relative tie tolerance :math:`\gamma = 100\,\epsilon\,|t|` so
    that relabelings equal to the observed one up to rounding count as ties
    (as ``scipy.stats.permutation_test``). ``ties="strict"`` counts only
    :math:`t^* > t`, R ``eqdist.etest``'s and ``disco``'s rule. The p-value
    is never 0. Exact p-value (all M distinct relabelings, the observed one
    among them): :math:`\#\{t^* \ge t - \gamma\} / M`, or
    :math:`(1 + \#\{t^* > t\}) / M` with ``ties="strict"``.

    R's ``disco.between`` reports :math:`\#\{t^* > t\} / B`, which can be 0;
    energystats does not reproduce that.

    Time O(N^2 d) for the semimetric, then O(N^2 k) per relabeling in BLAS-3
    (O(N k) for one-dimensional data with exponent 1). Memory stays within
    ``working_memory`` (:func:`set_config`, default 1 GiB): when every
    relabeling fits one batch, or the N x N matrix does not fit, the
    semimetric is recomputed in tiles once per batch (memory O(N * batch *
    k)); otherwise the matrix (8 N^2 bytes) is held and batches reuse it.
    The results are the same either way.

    These p-values are valid for groups fixed before seeing the data, or
    for clusters compared on variables not used to form them. Labels found
    by clustering the same variables make H0 false by construction.

    References
    ----------
    G. J. Székely and M. L. Rizzo, "Testing for equal distributions in high
    dimension", InterStat (2004). M. L. Rizzo and G. J. Székely, "DISCO
    analysis", Ann. Appl. Stat. 4 (2010). G. França, M. L. Rizzo and
    J. T. Vogelstein, "Kernel k-Groups via Hartigan's Method", IEEE TPAMI
    (2020), eq. (12), (16).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> x = np.r_[rng.normal(0, 1, 30), rng.normal(1.5, 1, 30)]
    >>> res = es.energy_test(x, np.repeat(["a", "b"], 30), rng=1)
    >>> round(res.statistic, 4), res.pvalue
    (14.5605, 0.001)
    >>> es.energy_test([0.0, 0.1, 5.0, 5.1], [0, 0, 1, 1]).pvalue  # exact: 6 relabelings
    0.3333333333333333
    """
    options = _energy_test_iv(statistic, n_resamples, exact, batch, progress, ties)
    n_jobs = check_n_jobs(n_jobs)
    sm = resolve_semimetric(metric, exponent, sigma)
    X = prepare_points(X, sm, "X")
    codes, groups, sizes = as_groups(labels, X.shape[0])
    labelings = relabeling_count(sizes, options)
    scaling = Scaling.for_data(X, sm)
    gen = as_generator(rng)
    # directions from a spawned stream: the relabelings are those of the exact test
    stream = gen.spawn(1)[0] if approximation else None
    estimate = approximation_of(approximation, n_projections=n_projections, rng=stream)
    _announce(X, sm, len(groups), labelings, estimate and int(n_projections), options.progress)
    op = make_operator(
        scaling.data(X), scaling.semimetric(sm), GroupSums(len(groups), labelings, options.batch),
        approximation=estimate, n_jobs=n_jobs,
    )
    res = relabeling_test(op, codes, groups, sizes, statistic, options, gen, ties)
    if not op.exact:
        res = replace(res, approximation=op.approximation, n_projections=int(n_projections))
    return _rescaled(res, scaling)


def _announce(X, sm, k: int, labelings: int, projections: int | None, progress) -> None:
    """Say before a test of minutes how long it will take (the cost model: the cheapest exact
    path, the held matrix only where it fits; or the sums over ``projections`` directions),
    and, for the exact test, what random projections would take."""
    n = X.shape[0]
    what = f"energy_test of {n:,} points in {k} groups, {labelings:,} relabelings"
    if projections:
        seconds = PROJECTED * n * k * labelings * projections
        return announce(seconds, f"{what} on {projections} projections", progress=progress)
    costs = relabeling_costs(n, k, labelings, X.shape[1], on_line=sm.is_abs_difference(X))
    if 8 * n * n > memory_budget(8 * n * n):
        del costs["dense"]
    projected = PROJECTED * n * k * labelings * N_PROJECTIONS
    faster = (f"; approximation='projection' (--projections on the command line) estimates the "
              f"distances from {N_PROJECTIONS} random directions, the test's level exact, in "
              f"about {duration(projected)}" if projected < min(costs.values()) / 4 else "")
    announce(min(costs.values()), what, faster, progress)


def _rescaled(res: EnergyTestResult, scaling: Scaling) -> EnergyTestResult:
    """The result for data that were rescaled by a power of two: S and E scale back, F is a
    ratio."""
    if scaling.log2_factor == 0.0 or res.statistic_name == "F":
        return res
    return replace(
        res,
        statistic=scaling.result(res.statistic, "the statistic"),
        null_distribution=scaling.result(res.null_distribution, "the null distribution"),
    )


_UNDEFINED = "`statistic`='F' is undefined when every group is constant (W = 0); use 'S' or 'E'."


def relabeling_engine(op: PairwiseOperator, codes: np.ndarray, sizes: np.ndarray, statistic: str,
                      total: float | None = None) -> Relabelings:
    """The engine of the k-sample tests: relabelings of the pooled points, a block of them
    evaluated by one product of the pairwise operator (its block sums Z'DZ,
    :meth:`~energystats._operator.PairwiseOperator.group_sums`) and :func:`statistics`
    (``total``, 1'D1, is the operator's unless given: asked after the block sums, which some
    back-ends find it from)."""
    k = sizes.shape[0]
    cross = statistic == "E"
    per = op.group_sums_bytes(k)

    def evaluate(block) -> np.ndarray:
        M = op.group_sums(block, k, cross)
        return statistics(M, op.total() if total is None else total, sizes, statistic)

    return Relabelings(
        codes, sizes, evaluate, item_bytes=per, held=op.nbytes,
        cap=None if op.batch_cap is None else max(1, op.batch_cap // per),
        packed=op.packed_labelings, undefined=_UNDEFINED,
        what=f"energy_test (n = {op.n}, k = {k}, {op.kind} operator)",
    )


def relabeling_test(op: PairwiseOperator, codes, groups, sizes, statistic: str, options: Options,
                    rng, ties: str) -> EnergyTestResult:
    """The test on a pairwise operator of the pooled data (see :func:`energy_test`): the null
    of :func:`relabeling_engine` from the one resampling loop, and its p-value."""
    null = null_distribution(relabeling_engine(op, codes, sizes, statistic), options, rng)
    terms = _tie_terms(null.observed, op.total() / (2.0 * op.n), sizes, statistic)
    p = pvalue(null.observed, null.values, exact=null.exact, scale=tie_scale(terms),
               strict=ties == "strict", what=f"the energy statistic {statistic}")
    return EnergyTestResult(
        statistic=null.observed,
        pvalue=p,
        null_distribution=null.values,
        n_resamples=int(null.count),
        exact=bool(null.exact),
        statistic_name=statistic,
        sizes=sizes,
        groups=groups,
    )


def _tie_terms(observed: float, T: float, sizes: np.ndarray, statistic: str) -> float:
    """What the engine adds up, for the tie rule (:func:`~energystats._resampling.tie_scale`,
    run 1: the bound covers the order of the additions). S = T - W and E are sums of block
    sums whose rounding is relative to the total dispersion T (eq. 18), not to the
    statistic, which can be far smaller (S = 3 beside T = 1,500 at n = 1,000); a labeling and
    its swap of two equal-sized groups give the same statistic exactly, and must tie however
    the block sums were added (one sort and prefix sums on the line, a BLAS product
    otherwise): k^2 T. F = (S/(k-1)) / (W/(n-k)) inherits the error of S relative to W:
    with r = F (k-1)/(n-k) = S/W and W = T/(1 + r), k (n-k)/(k-1) (1 + r)^2."""
    n, k = float(sizes.sum()), sizes.shape[0]
    if statistic == "F":
        r = abs(observed) * (k - 1) / (n - k)
        return k * (n - k) / (k - 1) * (1.0 + r) ** 2
    return k * k * abs(T)


@front_door("*samples", names=("*samples",), forwards=energy_test)
def energy_test_samples(
    *samples, nan_policy: str = "raise", **energy_test_options
) -> EnergyTestResult:
    """:func:`energy_test` for samples given as separate arrays.

    Parameters
    ----------
    *samples : array_like
        Two or more samples with the same number of features; sample i gets
        label i.
    **energy_test_options
        Keyword options of :func:`energy_test`.

    Returns
    -------
    EnergyTestResult

    Examples
    --------
    >>> import energystats as es
    >>> res = es.energy_test_samples([0.0, 0.1, 0.2], [5.0, 5.1, 5.2], rng=0)
    >>> res.exact, res.n_resamples, res.pvalue
    (True, 20, 0.1)
    """
    if len(samples) < 2:
        raise ValueError(
            f"`samples` must be at least two arrays, got {len(samples)}: each sample is its own "
            "argument, energy_test_samples(x, y, z); unpack a list of them, "
            "energy_test_samples(*samples)."
        )
    if energy_test_options.get("metric") == "precomputed":
        raise ValueError(
            "`metric`='precomputed' needs the pooled matrix: use energy_test(D, labels, ...)."
        )
    arrays = [as_data(s, f"samples[{i}]") for i, s in enumerate(samples)]
    d = arrays[0].shape[1]
    for i, a in enumerate(arrays):
        if a.shape[1] != d:
            raise ValueError(f"`samples[{i}]` has {a.shape[1]} features; `samples[0]` has {d}.")
    labels = np.repeat(np.arange(len(arrays)), [a.shape[0] for a in arrays])
    return energy_test(np.vstack(arrays), labels, **energy_test_options)


@front_door(("X", "labels"), distances=("X",), columns=("labels",), forwards=energy_test)
def pairwise_energy_tests(
    X,
    labels,
    *,
    correction: str = "holm",
    alpha: float = 0.05,
    rng=None,
    nan_policy: str = "raise",
    **energy_test_options,
) -> pd.DataFrame:
    """Energy tests of every pair of groups, with a multiple-testing correction.

    Parameters
    ----------
    X : array_like of shape (N, d), or (N, N) when ``metric="precomputed"``
    labels : array_like of shape (N,)
    correction : str, default="holm"
        Any ``method`` of ``statsmodels.stats.multitest.multipletests``
        (``"holm"``, ``"bonferroni"``, ``"fdr_bh"``, ...).
    alpha : float, default=0.05
        Family-wise level (or FDR) for the ``reject`` column.
    rng
        Each pair gets an independent stream spawned from it.
    nan_policy
        The count of dropped rows is in ``table.attrs["n_omitted"]``.
    **energy_test_options
        Keyword options of :func:`energy_test` (``statistic``,
        ``n_resamples``, ``exponent``, ``metric``, ``sigma``, ``exact``,
        ``batch``, ``progress``, ``ties``, ``n_jobs``).

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``group_a``, ``group_b``, ``n_a``, ``n_b``,
        ``statistic``, ``pvalue``, ``pvalue_adjusted``, ``reject``; with
        ``nan_policy="omit"``, ``attrs["n_omitted"]`` counts the dropped rows.

    Notes
    -----
    Valid for groups fixed before seeing the data (treatments, species), or
    for clusters compared on variables that were **not** used to form them.
    Clusters found from the same variables are regions of space, so their
    distributions differ whether or not the data have any cluster structure:
    such p-values are small by construction and say nothing.

    Examples
    --------
    >>> import energystats as es
    >>> iris = es.datasets.load_iris()
    >>> table = es.pairwise_energy_tests(iris.iloc[:, :4], iris["Species"], n_resamples=199, rng=0)
    >>> table[["group_a", "group_b", "pvalue_adjusted", "reject"]]
          group_a     group_b  pvalue_adjusted  reject
    0      setosa  versicolor            0.015    True
    1      setosa   virginica            0.015    True
    2  versicolor   virginica            0.015    True
    """
    from statsmodels.stats.multitest import multipletests

    correction, alpha = check_correction(correction, alpha)
    opts = dict(_TEST_DEFAULTS)
    opts.update(energy_test_options)
    sm = resolve_semimetric(opts["metric"], opts["exponent"], opts["sigma"])
    resampling = _energy_test_iv(
        opts["statistic"], opts["n_resamples"], opts["exact"], opts["batch"], opts["progress"],
        opts["ties"],
    )
    per_pair = replace(resampling, progress=False)  # one bar for the call, over the pairs
    n_jobs = check_n_jobs(opts["n_jobs"])
    X = prepare_points(X, sm, "X")
    codes, groups, _ = as_groups(labels, X.shape[0])
    pairs = list(combinations(range(len(groups)), 2))
    scaling = Scaling.for_data(X, sm)
    gen = as_generator(rng)
    streams = gen.spawn(len(pairs))
    directions = gen.spawn(1)[0] if opts["approximation"] else None
    L = opts["n_projections"]
    estimate = approximation_of(opts["approximation"], n_projections=L, rng=directions)
    use = Repeated() if len(pairs) > 1 else OnePass()  # dense when it fits: shared by all pairs
    points, rho = scaling.data(X), scaling.semimetric(sm)
    full = make_operator(points, rho, use, approximation=estimate, n_jobs=n_jobs)
    rows = []
    for (i, j), stream in progress_bar(
        list(zip(pairs, streams)), len(pairs), resampling.progress, "pairs of groups"
    ):
        keep = np.flatnonzero((codes == i) | (codes == j))
        pair_codes = (codes[keep] == j).astype(np.intp)
        sizes = np.bincount(pair_codes, minlength=2)
        res = _rescaled(
            relabeling_test(full.restrict(keep), pair_codes, groups[[i, j]], sizes,
                            opts["statistic"], per_pair, stream, opts["ties"]),
            scaling,
        )
        rows.append(
            {
                "group_a": groups[i],
                "group_b": groups[j],
                "n_a": int(res.sizes[0]),
                "n_b": int(res.sizes[1]),
                "statistic": res.statistic,
                "pvalue": res.pvalue,
            }
        )
    table = pd.DataFrame(rows)
    reject, adjusted, _, _ = multipletests(
        table["pvalue"].to_numpy(), alpha=alpha, method=correction
    )
    table["pvalue_adjusted"] = adjusted
    table["reject"] = reject
    return table
