"""The k-sample energy permutation test, its post-hoc pairs, and the statistic of given
permutations (Székely & Rizzo 2004; Rizzo & Székely 2010; França, Rizzo & Vogelstein 2020,
eq. 12, 16). A block of relabelings is drawn in one vectorised call (:mod:`.._resample`) and
evaluated by one product: the block sums of the first k - 1 groups (:mod:`._sums`), the last
group's from the row sums, then S, E or F (:mod:`._disco`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .._config import check_fits, memory_budget
from .._frontdoor import front_door
from .._parallel import check_n_jobs
from .._progress import announce, check_progress, duration
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
from .._results import NullPanel, TestResult
from .._scale import line
from .._scale.projection import N_PROJECTIONS, check_projection, random_directions
from .._semimetric import MetricLike, Scaling, prepare_points, resolve_semimetric
from .._validation import as_data, as_groups
from ._disco import statistics, tie_scale
from ._sums import Sums, block_sums, complete

__all__ = ["EnergyTestResult", "energy_test", "energy_test_samples", "ksample_statistic"]

_TITLES = {"S": "between-sample statistic S, R disco", "E": "R eqdist.etest",
           "F": "DISCO F ratio, R disco"}
_LABELS = {"S": "between-sample energy S", "E": "sum of pairwise two-sample energy statistics",
           "F": "DISCO F ratio"}


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
        Group labels, sorted.
    approximation : str
        ``"exact"``, or ``"projection"`` (the statistic of the projection estimate of D).
    n_projections : int or None
        The number of directions of ``"projection"``.
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

    @property
    def _title(self) -> str:
        return f"Energy test of equal distributions ({_TITLES[self.statistic_name]})"

    def _pvalue_note(self) -> str:
        if self.exact:
            return f"exact: all {self.n_resamples} distinct relabelings"
        return f"{self.n_resamples} permutations"

    def _details(self) -> list[tuple[str, str]]:
        sizes = ", ".join(f"{g}: {s}" for g, s in zip(self.groups.tolist(), self.sizes.tolist()))
        rest = [row for row in super()._details() if row[0] not in ("sizes", "groups")]
        return [("sizes", sizes)] + rest

    def _extra_lines(self) -> list[str]:
        if self.approximation != "projection":
            return []
        return [f"distance estimated from {self.n_projections} random projections (the test's "
                "level is exact)"]

    def _null_panels(self) -> tuple[NullPanel, ...]:
        return (NullPanel(f"{len(self.sizes)}-sample energy test of equal distributions",
                          _LABELS[self.statistic_name], self.statistic, self.pvalue,
                          self._permutation_label("relabelings"), null=self.null_distribution),)


def _energy_test_iv(statistic, n_resamples, exact, progress, ties) -> tuple:
    """(B, exact, progress), validated; messages name the argument."""
    if statistic not in _TITLES:
        raise ValueError(f"`statistic` must be one of {tuple(_TITLES)}, got {statistic!r}.")
    if ties not in ("tolerant", "strict"):
        raise ValueError(f"`ties` must be 'tolerant' or 'strict', got {ties!r}.")
    B = check_resamples(n_resamples)  # the null distribution and the copy joining its blocks:
    check_fits(f"the null distribution of `n_resamples`={B:,} resamples", 16 * B,
               "a smaller `n_resamples`")
    if not (isinstance(exact, str) and exact == "auto") and not isinstance(exact, (bool, np.bool_)):
        raise ValueError(f"`exact` must be 'auto', True or False, got {exact!r}.")
    return B, exact if isinstance(exact, str) else bool(exact), check_progress(progress)


def _prepared(X, metric, exponent, sigma, approximation, n_projections, rng, spawn: bool):
    """(X, semimetric, Scaling, directions or None, generator) of a call: the points validated,
    the projection's directions drawn (from a stream spawned from ``rng`` with ``spawn``)."""
    sm = resolve_semimetric(metric, exponent, sigma)
    X = prepare_points(X, sm, "X")
    L = check_projection(approximation, n_projections, {"": sm}, X.shape[1])
    gen = as_generator(rng)
    directions = None if L is None else random_directions(
        L, X.shape[1], gen.spawn(1)[0] if spawn else gen)
    return X, sm, Scaling.for_data(X, sm), directions, gen


def _draw_relabelings(rng, codes: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out`` (m x n) filled with random relabelings ``codes[permutation]``, a MiB of keys at
    a time (the same ones as one call)."""
    n, m = codes.shape[0], out.shape[0]
    step = max(1, 2**17 // n)
    for a in range(0, m, step):
        np.take(codes, permutations(rng, n, min(step, m - a)), out=out[a : a + step])
    return out


def relabeling_null(sums: Sums, codes, sizes, statistic: str, labelings=None, *, n_resamples=0,
                    exact=False, progress=False, rng=None):
    """The statistic on the observed labeling (first) and relabelings: ``labelings``, or all
    distinct ones (``exact``; "auto": when at most ``n_resamples``), or ``n_resamples`` drawn
    from ``rng``; a product holds as many as 8 MiB of temporaries hold (``working_memory``,
    where each product recomputes D). Returns (values, exact, the sum of D)."""
    n, k = codes.shape[0], sizes.shape[0]
    if labelings is None and exact is not False:  # the multinomial's digits only if it is small
        few = math.lgamma(n + 1) - sum(math.lgamma(m + 1) for m in sizes) < math.log(MAX_EXACT) + 1
        count = relabeling_count(sizes, MAX_EXACT) if few else MAX_EXACT + 1
        if exact is True and count > MAX_EXACT:
            raise ValueError(f"`exact`=True needs more than {MAX_EXACT} relabelings; use "
                             "exact='auto' or False.")
        exact = exact is True or (exact == "auto" and count <= min(n_resamples, MAX_EXACT))
        labelings = all_relabelings(codes) if exact else None
    count = n_resamples + 1 if labelings is None else labelings.shape[0]
    per, fixed = (17 * k - 11) * n + 64 * k * k, 0  # a labeling's codes, indicators, products
    if sums.kind == "projection":  # a projection's sort and prefix sums; the labels held
        per, fixed = n + 64 * k * k, 32 * n + max(line.WORK, (13 * k - 4) * n)
    elif sums.kind == "streamed":  # its product's arrays; its smallest tiles
        per, fixed = per + 24 * (k - 1) * n, 24 * 16 * 16
    check_fits(f"energy_test (n = {n}, k = {k}) (one relabeling)", fixed + per)
    free = memory_budget(fixed + per * count) - fixed  # half of it for the tiles when streamed
    whole = {"projection": free, "streamed": free // 2}.get(sums.kind, BLOCK_BYTES)
    step = whole // per
    step, done, total = max(1, min(count, step)), 0, []

    def draw(m):
        nonlocal done
        if labelings is not None:
            block = labelings[done : done + m]
        else:
            block = np.empty((m, n), codes.dtype)
            block[0] = codes  # the observed labeling first
            _draw_relabelings(rng, codes, block[done == 0 :])
        done += m
        return block

    def evaluate(block):
        C, zr, t = sums.of(block, k - 1)
        total.append(t)
        return statistics(complete(C, zr, t), t, sizes, statistic)

    values = null_distribution(evaluate, draw, count, per, progress, "permutations", block=step,
                               work=0.5 * n * n * (k - 1) * count)
    return values, bool(exact), total[0]


def relabeling_test(sums: Sums, codes, groups, sizes, statistic: str, options: tuple, rng,
                    ties: str) -> EnergyTestResult:
    """:func:`energy_test` on the block sums of the pooled points; ``options`` =
    (n_resamples, exact, progress)."""
    B, exact, progress = options
    values, exact, total = relabeling_null(sums, codes, sizes, statistic, n_resamples=B,
                                           exact=exact, progress=progress, rng=rng)
    observed = float(values[0])
    if not np.isfinite(observed):
        raise ValueError("`statistic`='F' is undefined when every group is constant (W = 0); "
                         "use 'S' or 'E'.")
    null = values if exact else values[1:]
    scale = tie_scale(observed, total / (2.0 * codes.shape[0]), sizes, statistic)
    p = pvalue(observed, null, exact=exact, scale=scale, strict=ties == "strict",
               what=f"the energy statistic {statistic}")
    return EnergyTestResult(statistic=observed, pvalue=p, null_distribution=null,
                            n_resamples=null.shape[0], exact=exact, statistic_name=statistic,
                            sizes=sizes, groups=groups)


def _announce(X, sm, k: int, labelings: int, projections: int | None, progress) -> None:
    """Say before a test of minutes how long it will take, and for the exact test what random
    projections would take: from the sizes and this machine's rates on one core (3.5e-11 s a
    pair of points, formed group and relabeling for the products of the matrix, 5e-9 s a
    point, formed group and relabeling on the line, and per direction); they choose nothing."""
    n = X.shape[0]
    what = f"energy_test of {n:,} points in {k} groups, {labelings:,} relabelings"
    sorted_ = 5e-9 * n * (k - 1) * labelings
    if projections:
        return announce(sorted_ * projections, f"{what} on {projections} projections",
                        progress=progress)
    on_line = sm.is_abs_difference(X) and n >= line.LINE_MIN
    seconds = sorted_ if on_line else 3.5e-11 * n * n * (k - 1) * labelings
    projected = sorted_ * N_PROJECTIONS
    faster = (f"; approximation='projection' (--projections on the command line) estimates the "
              f"distances from {N_PROJECTIONS} random directions, the test's level exact, in "
              f"about {duration(projected)}" if projected < seconds / 4 else "")
    announce(seconds, what, faster, progress)


def _rescaled(res: EnergyTestResult, scaling: Scaling) -> EnergyTestResult:
    """The result for data rescaled by a power of two: S and E scale back, F is a ratio."""
    if scaling.log2_factor == 0.0 or res.statistic_name == "F":
        return res
    return replace(res, statistic=scaling.result(res.statistic, "the statistic"),
                   null_distribution=scaling.result(res.null_distribution, "the null distribution"))


@front_door(("X", "labels"), distances=("X",), columns=("labels",), names=("X",), by="labels")
def energy_test(X, labels, *, statistic: str = "S", n_resamples: int = 999, exponent=1.0,
                metric: MetricLike = "euclidean", sigma=None, rng=None, exact="auto",
                progress: bool | None = None, ties: str = "tolerant",
                n_jobs: int | None = None, approximation: str | None = None,
                n_projections: int = N_PROJECTIONS, nan_policy: str = "raise") -> EnergyTestResult:
    r"""Permutation test of equal distributions for k samples (energy statistics).

    Tests H0: P_1 = ... = P_k against "at least two differ" by relabeling the points at random
    (or every distinct way) and recomputing the statistic.

    Parameters
    ----------
    X : array_like of shape (N, d), or (N, N) when ``metric="precomputed"``
        Pooled data.
    labels : array_like of shape (N,)
        Sample of each point; at least two distinct values.
    statistic : {"S", "E", "F"}, default="S"
        S, eq. (16) (R ``disco.between``); E, the sum over pairs of :math:`\frac{n_i n_j}{n_i +
        n_j} \mathcal E_{ij}` (R ``eqdist.etest``); F = (S/(k-1)) / (W/(N-k)) (R ``disco``).
        For k = 2 the three give the same p-value.
    n_resamples : int, default=999
        Number of random relabelings.
    exponent, metric, sigma
        The semimetric, as in :func:`dispersion`.
    rng : int, numpy.random.Generator or None, default=None
        The seed: an int, a Generator (advanced in place) or None (fresh entropy).
        It draws the relabelings.
    exact : {"auto", True, False}, default="auto"
        Enumerate every distinct relabeling: when there are at most ``n_resamples`` (and
        10**6) of them, always (up to 10**6), or never.
    progress : bool or None, default=None
        Show a progress bar (tqdm) over the blocks of relabelings.
    ties : {"tolerant", "strict"}, default="tolerant"
        How null values equal to the statistic count; see Notes.
    n_jobs : int, default=None
        joblib's ``n_jobs`` for the tiles of a matrix beyond ``working_memory`` or the
        projections (Dask's in ``joblib.parallel_config(backend="dask")``).
    approximation : {None, "projection"}, default=None
        ``"projection"`` (Euclidean distance, exponent 1): D replaced by its unbiased estimate
        :math:`\hat D = \frac{C_d}{L} \sum_l |u_l^\top (x - y)|` over L random directions
        (Huang & Huo 2017) drawn from a stream spawned from ``rng``, the same for every
        relabeling: the level is exact for any L.
    n_projections : int, default=200
        L, at most 10**4.
    nan_policy : {"raise", "omit"}, default="raise"
        A row with a missing value (NaN, None, pandas NA, masked, or R's NA) in ``X`` or
        ``labels``: ``"raise"`` an error, ``"omit"`` drop the row of both (a precomputed
        matrix loses the point's row and column); the result's ``n_omitted`` counts them.
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.

    Returns
    -------
    EnergyTestResult

    Notes
    -----
    p-value :math:`(1 + \#\{t^* \ge t - \gamma\}) / (B + 1)`; :math:`\gamma = 100 \epsilon
    \max(|t|, s)` makes values equal to t up to rounding tie, s the magnitude of the sums the
    statistic is a difference of (:math:`k^2 T` for S and E). ``ties="strict"`` counts only
    :math:`t^* > t + \gamma` (R's rule). Exact, over all M distinct relabelings (the observed
    among them): :math:`\#\{t^* \ge t - \gamma\} / M`, or :math:`(1 + \#\{t^* > t +
    \gamma\}) / M`. The result depends on neither ``n_jobs`` nor the memory.

    Time O(N^2 d), then O(N^2 k) per relabeling in BLAS-3 products, the matrix held when it
    fits ``working_memory`` (:func:`set_config`), else recomputed in tiles per block of
    relabelings (as many as the budget holds); on the line with exponent 1 from 150 points,
    O(N k) after one sort; projected, O(L N log N) per block and O(L N k) per relabeling.
    Valid for groups fixed before seeing the data, or clusters compared on variables not used
    to form them.

    References
    ----------
    G. J. Székely and M. L. Rizzo, "Testing for equal distributions in high dimension",
    InterStat (2004). M. L. Rizzo and G. J. Székely, "DISCO analysis", Ann. Appl. Stat. 4
    (2010). G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-Groups via Hartigan's
    Method", IEEE TPAMI (2020). C. Huang and X. Huo, "A statistically and numerically
    efficient independence test based on random projections and distance covariance" (2017).

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
    options = _energy_test_iv(statistic, n_resamples, exact, progress, ties)
    X, sm, scaling, directions, gen = _prepared(X, metric, exponent, sigma, approximation,
                                                n_projections, rng, spawn=True)
    codes, groups, sizes = as_groups(labels, X.shape[0])
    _announce(X, sm, len(groups), options[0] + 1, None if directions is None else
              directions.shape[0], options[2])
    sums = block_sums(scaling.data(X), scaling.semimetric(sm), directions=directions,
                      n_jobs=check_n_jobs(n_jobs))
    res = relabeling_test(sums, codes, groups, sizes, statistic, options, gen, ties)
    if directions is not None:
        res = replace(res, approximation="projection", n_projections=directions.shape[0])
    return _rescaled(res, scaling)


@front_door("*samples", names=("*samples",), forwards=energy_test)
def energy_test_samples(*samples, nan_policy: str = "raise", **energy_test_options
                        ) -> EnergyTestResult:
    """:func:`energy_test` of samples given as separate arrays (sample i gets label i).

    Parameters
    ----------
    *samples : array_like
        Two or more samples with the same number of features.
    nan_policy : {"raise", "omit"}, default="raise"
        A row with a missing value (NaN, None, pandas NA, masked, or R's NA) in a sample:
        ``"raise"`` an error, ``"omit"`` drop it from its own sample; the result's
        ``n_omitted`` counts them.
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.
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
            "`metric`='precomputed' needs the pooled matrix: use energy_test(D, labels, ...).")
    arrays = [as_data(s, f"samples[{i}]") for i, s in enumerate(samples)]
    for i, a in enumerate(arrays):
        if a.shape[1] != arrays[0].shape[1]:
            raise ValueError(f"`samples[{i}]` has {a.shape[1]} features; `samples[0]` has "
                             f"{arrays[0].shape[1]}.")
    labels = np.repeat(np.arange(len(arrays)), [a.shape[0] for a in arrays])
    return energy_test(np.vstack(arrays), labels, **energy_test_options)


def _ksample_iv(statistic, permutations, n: int) -> np.ndarray:
    """The permutations as a B x n array, validated; messages name the argument."""
    if statistic not in ("S", "E", "F"):
        raise ValueError(f"`statistic` must be one of ('S', 'E', 'F'), got {statistic!r}.")
    if permutations is None:
        return np.arange(n)[None, :]
    perms = np.asarray(permutations)
    if not np.issubdtype(perms.dtype, np.integer):
        raise TypeError(f"`permutations` must hold integer row indices, got dtype {perms.dtype}.")
    if perms.ndim not in (1, 2) or perms.shape[-1] != n:
        raise ValueError(f"`permutations` must have shape ({n},) or (B, {n}), got {perms.shape}.")
    perms = np.atleast_2d(perms).astype(np.intp)
    if perms.shape[0] == 0:
        raise ValueError("`permutations` must hold at least one permutation.")
    wrong = (np.sort(perms, axis=1) != np.arange(n)).any(axis=1)
    if wrong.any():
        raise ValueError(f"`permutations` must hold permutations of 0..{n - 1} (0-based row "
                         f"indices); row {int(np.flatnonzero(wrong)[0])} is not one.")
    return perms


def _propagated(arguments: dict, n: int):
    """``nan_policy="propagate"`` with ``permutations`` and rows missing: the call checked,
    NaN for each permutation."""
    resolve_semimetric(arguments["metric"], arguments["exponent"], arguments["sigma"])
    perms = _ksample_iv(arguments["statistic"], arguments["permutations"], n)
    return np.nan if np.ndim(arguments["permutations"]) == 1 else np.full(len(perms), np.nan)


@front_door(("X", "labels"), distances=("X",), columns=("labels",), propagate=True,
            indexes={"permutations": _propagated})
def ksample_statistic(X, labels, *, permutations=None, statistic: str = "S", exponent=1.0,
                      metric: MetricLike = "euclidean", sigma=None, nan_policy: str = "raise"):
    r"""The k-sample energy statistic of a labeling, or of given permutations (R ``ksample.e``).

    Position t belongs to group ``labels[t]``; with ``permutations`` the sample is ``X[ix]``
    for each permutation ``ix`` (R's ``x[ix, ]``): point ``ix[t]`` joins group ``labels[t]``.

    Parameters
    ----------
    X : array_like of shape (N, d), or (N, N) when ``metric="precomputed"``
        Pooled data (R's ``x``; a precomputed matrix is R's ``distance = TRUE``).
    labels : array_like of shape (N,)
        Group of each position (R's ``sizes``: ``np.repeat(np.arange(k), sizes)``).
    permutations : array_like of int, shape (N,) or (B, N), default=None
        0-based permutations of the rows (R's ``ix - 1``); ``None`` is the identity.
    statistic : {"S", "E", "F"}, default="S"
        As in :func:`energy_test` (the same default): R's methods ``"discoB"``, ``"original"``
        (R's default: pass ``statistic="E"`` for R's ``ksample.e(x, sizes)``), ``"discoF"``.
    exponent, metric, sigma
        The semimetric, as in :func:`dispersion` (R's ``ksample.e``: exponent 1).
    nan_policy : {"raise", "omit", "propagate"}, default="raise"
        A row with a missing value (NaN, None, pandas NA, masked, or R's NA) in ``X`` or
        ``labels``: ``"raise"`` an error, ``"omit"`` drop the row of both (a precomputed
        matrix loses the point's row and column), ``"propagate"`` return NaN.
        Not ``"omit"`` with ``permutations``, which index the rows; ``"propagate"`` gives NaN
        for each.

    Returns
    -------
    float or ndarray of shape (B,)
        A float without ``permutations`` or for one (1-D), else one value per row.

    Notes
    -----
    R's ``ksample.e(d, sizes, distance = TRUE, ix = ix)`` permutes the rows of a distance
    matrix only (``d[ix, ]``), the statistic of no relabeling; here a permutation of a
    precomputed matrix is ``D[ix][:, ix]``, R's ``ksample.e(d[ix, ix], sizes, distance =
    TRUE)``. Time as :func:`energy_test`'s per permutation.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> iris = es.datasets.load_iris()
    >>> X, labels = iris.iloc[:, :4], np.repeat([0, 1, 2], 50)
    >>> round(es.ksample_statistic(X, labels, statistic="E"), 4)  # R: ksample.e(iris[, 1:4],
    ... # c(50, 50, 50))
    357.7119
    >>> perms = np.random.default_rng(0).permuted(np.tile(np.arange(150), (3, 1)), axis=1)
    >>> es.ksample_statistic(X, labels, permutations=perms, statistic="E").round(4)
    array([8.4454, 4.4118, 8.8737])
    """
    X, sm, scaling, _, _ = _prepared(X, metric, exponent, sigma, None, None, None, False)
    codes, groups, sizes = as_groups(labels, X.shape[0])
    perms = _ksample_iv(statistic, permutations, X.shape[0])
    labelings = np.empty(perms.shape, dtype=codes.dtype)
    np.put_along_axis(labelings, perms, codes[None, :], axis=1)  # point ix[t] in group labels[t]
    sums = block_sums(scaling.data(X), scaling.semimetric(sm))
    values = relabeling_null(sums, codes, sizes, statistic, labelings)[0]
    values = values if statistic == "F" else scaling.result(values, "the statistic")
    return float(values[0]) if permutations is None or np.ndim(permutations) == 1 else values
