"""The k-sample energy permutation test of equal distributions, and its post-hoc pairs.

H0: P_1 = ... = P_k against "at least two differ" (Székely & Rizzo 2004; Rizzo & Székely
2010; França, Rizzo & Vogelstein 2020, eq. 12, 16). The relabelings of a block are drawn in one
vectorised call (:mod:`energystats._resample`) and evaluated together: their block sums by one
product with the stacked indicators of their first k - 1 groups (:mod:`._sums`), the last
group's from the row sums, then S, E or F (:mod:`._disco`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np
import pandas as pd

from .._config import check_fits, memory_budget
from .._frontdoor import front_door
from .._parallel import check_n_jobs
from .._progress import check_progress, progress_bar
from .._random import as_generator
from .._resample import (
    BLOCK_BYTES,
    MAX_EXACT,
    all_relabelings,
    check_resamples,
    null_distribution,
    permutations,
    pvalue,
    relabeling_count,
)
from .._result_bases import NullPanel, TestResult
from .._scale import fits
from .._scale.projection import N_PROJECTIONS, check_projection, random_directions
from .._semimetric import MetricLike, Scaling, prepare_points, resolve_semimetric
from .._validation import as_data, as_groups, check_correction, check_positive_int
from ._disco import statistics, tie_scale
from ._sums import Sums, block_sums, complete

__all__ = ["EnergyTestResult", "energy_test", "energy_test_samples", "pairwise_energy_tests"]

_TITLES = {
    "S": "Energy test of equal distributions (between-sample statistic S, R disco)",
    "E": "Energy test of equal distributions (R eqdist.etest)",
    "F": "Energy test of equal distributions (DISCO F ratio, R disco)",
}
_LABELS = {"S": "between-sample energy S", "E": "sum of pairwise two-sample energy statistics",
           "F": "DISCO F ratio"}
_UNDEFINED = "`statistic`='F' is undefined when every group is constant (W = 0); use 'S' or 'E'."


@dataclass(frozen=True, repr=False)
class EnergyTestResult(TestResult):
    """Result of a k-sample energy permutation test.

    Attributes
    ----------
    statistic_name : str
        ``"S"``, ``"E"`` or ``"F"``.
    sizes : ndarray of shape (k,)
        Group sizes, in the order of ``groups``.
    groups : ndarray of shape (k,)
        Group labels, in sorted order.
    approximation : str
        ``"exact"``, or ``"projection"``: the statistic and its null are those of the
        random-projection estimate of the distance.
    n_projections : int or None
        The number of directions L of ``"projection"``.
    """

    statistic_name: str
    sizes: np.ndarray
    groups: np.ndarray
    approximation: str = "exact"
    n_projections: int | None = None

    _hidden = ("approximation", "n_projections")

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
            return [f"distance estimated from {self.n_projections} random projections (the test's "
                    "level is exact)"]
        return []

    def _null_panels(self) -> tuple[NullPanel, ...]:
        return (
            NullPanel(f"{len(self.sizes)}-sample energy test of equal distributions",
                      _LABELS[self.statistic_name], self.statistic, self.pvalue,
                      self._permutation_label("relabelings"), null=self.null_distribution),
        )


_TEST_DEFAULTS = {
    "statistic": "S", "n_resamples": 999, "exponent": 1.0, "metric": "euclidean", "sigma": None,
    "exact": "auto", "batch": None, "progress": None, "ties": "tolerant", "n_jobs": None,
    "approximation": None, "n_projections": N_PROJECTIONS,
}


def _energy_test_iv(statistic, n_resamples, exact, batch, progress, ties) -> tuple:
    """(B, exact, batch, progress), validated; messages name the argument."""
    if statistic not in _TITLES:
        raise ValueError(f"`statistic` must be one of {tuple(_TITLES)}, got {statistic!r}.")
    if ties not in ("tolerant", "strict"):
        raise ValueError(f"`ties` must be 'tolerant' or 'strict', got {ties!r}.")
    B = check_resamples(n_resamples)
    if not (isinstance(exact, str) and exact == "auto") and not isinstance(exact, (bool, np.bool_)):
        raise ValueError(f"`exact` must be 'auto', True or False, got {exact!r}.")
    batch = None if batch is None else check_positive_int(batch, "batch")
    return B, exact if isinstance(exact, str) else bool(exact), batch, check_progress(progress)


def _relabelings(rng, codes: np.ndarray, m: int) -> np.ndarray:
    """m random relabelings (m x n), ``codes[permutation]``; drawn a MiB of keys at a time,
    which draws the same ones as one call."""
    n = codes.shape[0]
    step = max(1, 2**17 // n)
    blocks = [codes[permutations(rng, n, min(step, m - a))] for a in range(0, m, step)]
    return np.concatenate(blocks) if blocks else codes[None][:0]


def relabeling_null(sums: Sums, codes, sizes, statistic: str, labelings=None, *, n_resamples=0,
                    exact=False, batch=None, progress=False, rng=None):
    """The statistic on the observed labeling (first) and on relabelings: ``labelings`` given,
    or every distinct one (``exact``: "auto" when there are at most ``n_resamples``), or
    ``n_resamples`` drawn from ``rng``; in blocks of one product each (``batch`` relabelings,
    else as many as fit). Returns (values, exact, total): total is the sum of D."""
    n, k = codes.shape[0], sizes.shape[0]
    if labelings is None:
        count = relabeling_count(sizes, MAX_EXACT)
        if exact is True and count > MAX_EXACT:
            raise ValueError(f"`exact`=True needs more than {MAX_EXACT} relabelings; use "
                             "exact='auto' or False.")
        exact = exact is True or (exact == "auto" and count <= min(n_resamples, MAX_EXACT))
        labelings = all_relabelings(codes) if exact else None
    count = n_resamples + 1 if labelings is None else labelings.shape[0]
    what = f"energy_test (n = {n}, k = {k})"
    per = (17 * k - 11) * n + 64 * k * k  # a labeling's codes, indicators, products, sums
    fixed = 48 * n if sums.kind == "projection" else 0  # a projection's values, order, sums
    if batch is not None:
        check_fits(f"{what} with `batch`={batch}", fixed + per * batch,
                   "a smaller `batch` (or batch=None, which fits the budget)")
        step = batch
    else:  # blocks of 8 MiB, or as large as the budget holds where each recomputes D
        check_fits(f"{what} (one relabeling)", fixed + per)
        whole = sums.kind in ("streamed", "projection")
        step = (memory_budget(fixed + per * count) - fixed if whole else BLOCK_BYTES) // per
    step = max(1, min(count, step))
    done, total = 0, []

    def draw(m):
        nonlocal done
        if labelings is not None:
            block = labelings[done : done + m]
        elif done == 0:
            block = np.vstack([codes, _relabelings(rng, codes, m - 1)])
        else:
            block = _relabelings(rng, codes, m)
        done += m
        return block

    def evaluate(block):
        C, zr, t = sums.of(block, k - 1)
        total.append(t)
        return statistics(complete(C, zr, t), t, sizes, statistic)

    bar = progress_bar(range(-(-count // step)), -(-count // step), progress, "permutations")
    tick = getattr(bar, "update", None)
    values = null_distribution(evaluate, draw, count, BLOCK_BYTES / (step + 0.5),
                               tick and (lambda m: tick(1)))
    if tick:
        bar.close()
    return values, bool(exact), total[0]


def relabeling_test(sums: Sums, codes, groups, sizes, statistic: str, options: tuple, rng,
                    ties: str) -> EnergyTestResult:
    """The test of :func:`energy_test` on the block sums ``sums`` of the pooled points:
    ``options`` = (n_resamples, exact, batch, progress)."""
    B, exact, batch, progress = options
    values, exact, total = relabeling_null(sums, codes, sizes, statistic, n_resamples=B,
                                           exact=exact, batch=batch, progress=progress, rng=rng)
    observed = float(values[0])
    if not np.isfinite(observed):
        raise ValueError(_UNDEFINED)
    null = values if exact else values[1:]
    scale = tie_scale(observed, total / (2.0 * codes.shape[0]), sizes, statistic)
    p = pvalue(observed, null, exact=exact, scale=scale, strict=ties == "strict",
               what=f"the energy statistic {statistic}")
    return EnergyTestResult(statistic=observed, pvalue=p, null_distribution=null,
                            n_resamples=null.shape[0], exact=exact, statistic_name=statistic,
                            sizes=sizes, groups=groups)


def _rescaled(res: EnergyTestResult, scaling: Scaling) -> EnergyTestResult:
    """The result for data that were rescaled by a power of two: S and E scale back, F is a
    ratio."""
    if scaling.log2_factor == 0.0 or res.statistic_name == "F":
        return res
    return replace(res, statistic=scaling.result(res.statistic, "the statistic"),
                   null_distribution=scaling.result(res.null_distribution, "the null distribution"))


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

    Tests H0: P_1 = ... = P_k against "at least two differ" by relabeling the points at
    random (or exhaustively) and recomputing the statistic.

    Parameters
    ----------
    X : array_like of shape (N, d), or (N, N) when ``metric="precomputed"``
        Pooled data.
    labels : array_like of shape (N,)
        Sample of each point; at least two distinct values.
    statistic : {"S", "E", "F"}, default="S"
        ``"S"``: the between-sample statistic of eq. (16) (R ``disco.between``); ``"E"``: the
        sum over pairs of :math:`\frac{n_i n_j}{n_i + n_j} \mathcal E_{ij}` (R
        ``eqdist.etest``, method "original"); ``"F"``: the DISCO ratio (S/(k-1)) / (W/(N-k))
        (R ``disco``). For k = 2 all three order the relabelings alike: the same p-value.
    n_resamples : int, default=999
        Number of random relabelings (at least 1).
    exponent, metric, sigma
        The semimetric, as in :func:`dispersion`.
    rng
        It draws the relabelings.
    exact : {"auto", True, False}, default="auto"
        ``"auto"`` enumerates every distinct relabeling when there are at most
        ``n_resamples`` of them (and at most 10**6); ``True`` always does (up to 10**6);
        ``False`` never does.
    batch : int, default=None
        Relabelings evaluated per product; ``None``: as many as fit 8 MiB of temporaries (as
        many as ``working_memory`` holds when each product recomputes the distances: streamed,
        projected). The result does not depend on it; a batch that cannot fit raises
        :class:`WorkingMemoryError`.
    progress : bool or None, default=None
        Show a progress bar (tqdm) over the batches.
    ties : {"tolerant", "strict"}, default="tolerant"
        How null values equal to the observed statistic count; see Notes.
    n_jobs : int, default=None
        joblib's ``n_jobs`` for the distances recomputed in tiles (a matrix beyond
        ``working_memory``) or the projections, on a Dask cluster inside
        ``joblib.parallel_config(backend="dask")``; the result is the same whatever ``n_jobs``.
    approximation : {None, "projection"}, default=None
        ``"projection"``: the random-projection statistic of Huang & Huo (2017), for the
        Euclidean distance with exponent 1: the distance is replaced by :math:`\hat D =
        \frac{C_d}{L} \sum_l |u_l^\top (x - y)|` over ``n_projections`` directions (drawn
        from a stream spawned from ``rng``), an unbiased estimate of it. Every relabeling
        uses the same directions, so the test has exact level for any L; only its power
        depends on L. Time O(L n log n) per batch for the sorts, O(L n k) per relabeling;
        memory O(n) per relabeling of a batch.
    n_projections : int, default=200
        L, the number of directions of ``approximation="projection"`` (at most 10**4).

    Returns
    -------
    EnergyTestResult

    Notes
    -----
    Monte Carlo p-value: :math:`(1 + \#\{t^* \ge t - \gamma\}) / (B + 1)`, never 0, with a
    tolerance :math:`\gamma = 100\,\epsilon \max(|t|, s)` that counts relabelings equal to
    the observed one up to rounding as ties (as ``scipy.stats.permutation_test``); s is the
    magnitude of the sums the statistic is a difference of (:math:`k^2 T` for S and E).
    ``ties="strict"`` counts only :math:`t^* > t + \gamma`, R ``eqdist.etest``'s and
    ``disco``'s rule. Exact p-value (all M distinct relabelings, the observed one among
    them): :math:`\#\{t^* \ge t - \gamma\} / M`, or :math:`(1 + \#\{t^* > t + \gamma\}) / M`
    with ``ties="strict"``. R's ``disco.between`` reports :math:`\#\{t^* > t\} / B`, which can
    be 0; energystats does not reproduce that.

    Time O(N^2 d) for the distances, then O(N^2 k) per relabeling in BLAS-3 products with the
    upper triangle of D (O(N k) for one-dimensional data with exponent 1 from 150 points, after
    one sort). The N x N matrix is held when it fits ``working_memory`` (:func:`set_config`,
    default 1 GiB), else its tiles are recomputed for each batch, with the same results.

    The p-values are valid for groups fixed before seeing the data, or for clusters compared
    on variables not used to form them: labels found by clustering the same variables make
    H0 false by construction.

    References
    ----------
    G. J. Székely and M. L. Rizzo, "Testing for equal distributions in high dimension",
    InterStat (2004). M. L. Rizzo and G. J. Székely, "DISCO analysis", Ann. Appl. Stat. 4
    (2010). G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-Groups via Hartigan's
    Method", IEEE TPAMI (2020), eq. (12), (16). C. Huang and X. Huo, "A statistically and
    numerically efficient independence test based on random projections and distance
    covariance" (2017).

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
    L = check_projection(approximation, n_projections, {"": sm}, X.shape[1])
    scaling = Scaling.for_data(X, sm)
    gen = as_generator(rng)
    # the directions from a spawned stream: the relabelings are those of the exact test
    directions = None if L is None else random_directions(L, X.shape[1], gen.spawn(1)[0])
    sums = block_sums(scaling.data(X), scaling.semimetric(sm), directions=directions,
                      n_jobs=n_jobs)
    res = relabeling_test(sums, codes, groups, sizes, statistic, options, gen, ties)
    if L is not None:
        res = replace(res, approximation="projection", n_projections=L)
    return _rescaled(res, scaling)


@front_door("*samples", names=("*samples",), forwards=energy_test)
def energy_test_samples(*samples, nan_policy: str = "raise", **energy_test_options
                        ) -> EnergyTestResult:
    """:func:`energy_test` for samples given as separate arrays.

    Parameters
    ----------
    *samples : array_like
        Two or more samples with the same number of features; sample i gets label i.
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
        raise ValueError(f"`samples` must be at least two arrays, got {len(samples)}.")
    if energy_test_options.get("metric") == "precomputed":
        raise ValueError(
            "`metric`='precomputed' needs the pooled matrix: use energy_test(D, labels, ...).")
    arrays = [as_data(s, f"samples[{i}]") for i, s in enumerate(samples)]
    d = arrays[0].shape[1]
    for i, a in enumerate(arrays):
        if a.shape[1] != d:
            raise ValueError(f"`samples[{i}]` has {a.shape[1]} features; `samples[0]` has {d}.")
    labels = np.repeat(np.arange(len(arrays)), [a.shape[0] for a in arrays])
    return energy_test(np.vstack(arrays), labels, **energy_test_options)


@front_door(("X", "labels"), distances=("X",), columns=("labels",), forwards=energy_test)
def pairwise_energy_tests(X, labels, *, correction: str = "holm", alpha: float = 0.05, rng=None,
                          nan_policy: str = "raise", **energy_test_options) -> pd.DataFrame:
    """Energy tests of every pair of groups, with a multiple-testing correction.

    Parameters
    ----------
    X : array_like of shape (N, d), or (N, N) when ``metric="precomputed"``
    labels : array_like of shape (N,)
    correction : str, default="holm"
        Any ``method`` of ``statsmodels.stats.multitest.multipletests`` (``"holm"``,
        ``"bonferroni"``, ``"fdr_bh"``, ...).
    alpha : float, default=0.05
        Family-wise level (or FDR) for the ``reject`` column.
    rng
        Each pair gets an independent stream spawned from it.
    nan_policy
        The count of dropped rows is in ``table.attrs["n_omitted"]``.
    **energy_test_options
        Keyword options of :func:`energy_test`.

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``group_a``, ``group_b``, ``n_a``, ``n_b``, ``statistic``,
        ``pvalue``, ``pvalue_adjusted``, ``reject``.

    Notes
    -----
    Valid for groups fixed before seeing the data (treatments, species), or for clusters
    compared on variables that were **not** used to form them: clusters found from the same
    variables are regions of space, whose distributions differ whether or not the data have
    any cluster structure. The N x N matrix, when it fits ``working_memory``, is computed once
    for all pairs.

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
    opts = {**_TEST_DEFAULTS, **energy_test_options}
    statistic, ties = opts["statistic"], opts["ties"]
    B, exact, batch, progress = _energy_test_iv(statistic, opts["n_resamples"], opts["exact"],
                                                opts["batch"], opts["progress"], ties)
    n_jobs = check_n_jobs(opts["n_jobs"])
    sm = resolve_semimetric(opts["metric"], opts["exponent"], opts["sigma"])
    X = prepare_points(X, sm, "X")
    codes, groups, _ = as_groups(labels, X.shape[0])
    L = check_projection(opts["approximation"], opts["n_projections"], {"": sm}, X.shape[1])
    pairs = list(combinations(range(len(groups)), 2))
    scaling = Scaling.for_data(X, sm)
    gen = as_generator(rng)
    streams = gen.spawn(len(pairs))
    directions = None if L is None else random_directions(L, X.shape[1], gen.spawn(1)[0])
    points, rho = scaling.data(X), scaling.semimetric(sm)
    if (len(pairs) > 1 and L is None and not rho.precomputed and not rho.is_abs_difference(points)
            and fits(X.shape[0])):  # the matrix once, for all pairs
        points, rho = rho(points, points), resolve_semimetric("precomputed")
    rows = []
    for (i, j), stream in progress_bar(list(zip(pairs, streams)), len(pairs), progress,
                                       "pairs of groups"):
        keep = np.flatnonzero((codes == i) | (codes == j))
        pair_codes = (codes[keep] == j).astype(np.int8)
        sizes = np.bincount(pair_codes, minlength=2)
        sums = block_sums(points[np.ix_(keep, keep)] if rho.precomputed else points[keep], rho,
                          directions=directions, n_jobs=n_jobs)
        res = _rescaled(relabeling_test(sums, pair_codes, groups[[i, j]], sizes, statistic,
                                        (B, exact, batch, False), stream, ties), scaling)
        rows.append({"group_a": groups[i], "group_b": groups[j], "n_a": int(sizes[0]),
                     "n_b": int(sizes[1]), "statistic": res.statistic, "pvalue": res.pvalue})
    table = pd.DataFrame(rows)
    reject, adjusted, _, _ = multipletests(table["pvalue"].to_numpy(), alpha=alpha,
                                           method=correction)
    table["pvalue_adjusted"] = adjusted
    table["reject"] = reject
    return table
