"""The k-sample energy statistic of given labels or given permutations (R ``ksample.e``).

For users who build their own resampling schemes: the statistic of one labeling, or of a
batch of permutations of the rows at once, through the same block sums as
:func:`~energystats.energy_test` (one product of the pairwise operator per batch).
"""

from __future__ import annotations

import numpy as np

from .._frontdoor import front_door
from .._semimetric import MetricLike, Scaling, prepare_points, resolve_semimetric
from .._validation import as_groups, check_positive_int
from ._sums import block_sums
from .permutation import relabeling_null

__all__ = ["ksample_statistic"]

_STATISTICS = ("E", "S", "F")


def _ksample_iv(statistic, permutations, n: int, batch):
    if statistic not in _STATISTICS:
        raise ValueError(f"`statistic` must be one of {_STATISTICS}, got {statistic!r}.")
    if batch is not None:
        batch = check_positive_int(batch, "batch")
    if permutations is None:
        return np.arange(n)[None, :], batch
    perms = np.asarray(permutations)
    if not np.issubdtype(perms.dtype, np.integer):
        raise TypeError(f"`permutations` must hold integer row indices, got dtype {perms.dtype}.")
    if perms.ndim not in (1, 2) or perms.shape[-1] != n:
        raise ValueError(f"`permutations` must have shape ({n},) or (B, {n}), got {perms.shape}.")
    perms = np.atleast_2d(perms).astype(np.intp)
    if perms.shape[0] == 0:
        raise ValueError("`permutations` must hold at least one permutation.")
    if not (np.sort(perms, axis=1) == np.arange(n)).all():
        bad = int(np.flatnonzero((np.sort(perms, axis=1) != np.arange(n)).any(axis=1))[0])
        raise ValueError(
            f"`permutations` must hold permutations of 0..{n - 1} (0-based row indices); row {bad} "
            "is not one."
        )
    return perms, batch


def _propagated(arguments: dict, n: int):
    """``nan_policy="propagate"`` with ``permutations`` (indices of all n rows) and rows missing:
    the call is checked (the permutations of the n rows), and each permutation gives NaN."""
    resolve_semimetric(arguments["metric"], arguments["exponent"], arguments["sigma"])
    perms, _ = _ksample_iv(arguments["statistic"], arguments["permutations"], n, arguments["batch"])
    return np.nan if np.ndim(arguments["permutations"]) == 1 else np.full(len(perms), np.nan)


@front_door(
    ("X", "labels"), distances=("X",), columns=("labels",), propagate=True,
    indexes={"permutations": _propagated},
)
def ksample_statistic(
    X,
    labels,
    *,
    permutations=None,
    statistic: str = "E",
    exponent=1.0,
    metric: MetricLike = "euclidean",
    sigma=None,
    batch: int | None = None,
    nan_policy: str = "raise",
):
    r"""The k-sample energy statistic of a labeling, or of given permutations (R ``ksample.e``).

    Position t of the pooled sample belongs to group ``labels[t]``; with
    ``permutations``, the sample is ``X[ix]`` for each permutation ``ix`` (R's
    ``x[ix, ]``), so point ``ix[t]`` joins group ``labels[t]``.

    Parameters
    ----------
    X : array_like of shape (N, d), or (N, N) when ``metric="precomputed"``
        Pooled data (R's ``x``; a precomputed matrix is R's ``distance = TRUE``).
    labels : array_like of shape (N,)
        Group of each position; at least two groups. R's ``sizes`` are
        ``np.repeat(np.arange(k), sizes)``.
    permutations : array_like of int, shape (N,) or (B, N), default=None
        0-based permutations of the rows (R's ``ix - 1``); ``None`` is the
        identity.
    statistic : {"E", "S", "F"}, default="E"
        ``"E"``: :math:`\sum_{i<j} \frac{n_i n_j}{n_i + n_j} \mathcal E_{ij}`
        (R ``method = "original"``); ``"S"``: the between-sample dispersion,
        the same sum with weights :math:`\frac{n_i n_j}{2N}` (R ``"discoB"``);
        ``"F"``: the DISCO ratio :math:`\frac{S/(k-1)}{W/(N-k)}` (R
        ``"discoF"``). The statistics of :func:`energy_test`.
    exponent, metric, sigma
        The semimetric, as in :func:`dispersion` (R's ``ksample.e`` has
        exponent 1 only).
    batch : int, default=None
        Permutations per product of the pairwise operator; ``None`` fits the
        memory budget. The values do not depend on it.
    nan_policy
        Not ``"omit"`` with ``permutations``, which index the rows: drop the rows before
        drawing them; ``"propagate"`` with them gives NaN for each permutation.

    Returns
    -------
    float or ndarray of shape (B,)
        A float without ``permutations`` or for one permutation (1-D), one
        value per row for a 2-D array.

    Notes
    -----
    R's scaling: ``ksample.e(x, sizes, method = "original")`` is the sum
    over pairs of groups of ``edist``'s :math:`\frac{n_i n_j}{n_i + n_j}
    \mathcal E_{ij}` (not the energy distances themselves), and equals
    ``eqdist.e``; ``"discoB"`` is ``disco(...)$between``, which is
    :attr:`DispersionResult.S`. With a distance matrix, R's ``ksample.e(d,
    sizes, distance = TRUE, ix = ix)`` permutes the rows of ``d`` only
    (``d[ix, ]``), which is not the statistic of any relabeling; here a
    permutation of a precomputed matrix is ``D[ix][:, ix]``, R's
    ``ksample.e(d[ix, ix], sizes, distance = TRUE)``.

    Time O(N^2 d) for the operator, then O(N^2 k)
    per permutation (O(N k) for one-dimensional data with exponent 1), as
    :func:`energy_test`.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> iris = es.datasets.load_iris()
    >>> X, labels = iris.iloc[:, :4], np.repeat([0, 1, 2], 50)
    >>> round(es.ksample_statistic(X, labels), 4)  # R: ksample.e(iris[, 1:4], c(50, 50, 50))
    357.7119
    >>> perms = np.random.default_rng(0).permuted(np.tile(np.arange(150), (3, 1)), axis=1)
    >>> es.ksample_statistic(X, labels, permutations=perms).round(4)
    array([8.4454, 4.4118, 8.8737])
    """
    sm = resolve_semimetric(metric, exponent, sigma)
    X = prepare_points(X, sm, "X")
    n = X.shape[0]
    codes, groups, sizes = as_groups(labels, n)
    perms, batch = _ksample_iv(statistic, permutations, n, batch)
    labelings = np.empty(perms.shape, dtype=codes.dtype)
    np.put_along_axis(labelings, perms, codes[None, :], axis=1)  # point ix[t] in group labels[t]
    scaling = Scaling.for_data(X, sm)
    sums = block_sums(scaling.data(X), scaling.semimetric(sm))
    values = relabeling_null(sums, codes, sizes, statistic, labelings, batch=batch)[0]
    if statistic != "F":
        values = scaling.result(values, "the statistic")
    if permutations is None or np.ndim(permutations) == 1:
        return float(values[0])
    return values
