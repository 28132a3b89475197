r"""Mini-batch kernel k-means in the Nyström feature space (Sculley 2010), then Lloyd's steps
on every point, for samples whose features do not fit the memory budget
(``KGroups(..., approximation="nystroem", batch_size=b)``, or ``KGroups``' own choice then).

The features :math:`\phi(x) = K_{xL} V \Lambda^{-1/2}` of :func:`nystroem_map` are never held
for all points. Mini-batch steps draw b points at a time, compute their features, assign them
to the nearest centre and move each centre towards its points' weighted mean with a step of
their weight over the centre's accumulated weight (Sculley 2010, Algorithm 1, one batch at
once as scikit-learn's ``MiniBatchKMeans``). They stop when the smoothed cost of the batches
has not improved for ten steps, or after ``max_iter`` epochs. Lloyd's steps on all points
follow, each one pass over the data in bands: the kernel rows to the landmarks of a band,
their inner products with the centres (:math:`\phi(x)^\top c_l = K_{xL} (V \Lambda^{-1/2} c_l)`,
O(m k) per point, no features formed), the nearest centre, and the band's group sums of
kernel rows, which give the next centres, the group sums of the features and W. They stop
when no label changes (``converged``), or after ``max_iter`` passes.

Memory: the data, the labels, a band of kernel rows and a batch's features, O(n + b m + k m)
beyond the data (:func:`minibatch_bytes`). Time O(n m (d + k)) per pass, O(b m (d + r)) per
step.

References
----------
D. Sculley, "Web-scale k-means clustering", WWW (2010). S. Wang, A. Gittens and M. W. Mahoney,
"Scalable kernel k-means clustering with Nyström approximation", JMLR 20 (2019).
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from .._config import check_fits, memory_budget, memory_error
from .._scale import Streamed
from .._scale.nystroem import FeatureMap
from .._semimetric import resolve_semimetric
from ._partition import indicator
from ._starts import initial_labels

__all__ = ["MAX_BATCH", "MiniBatchFit", "largest_batch", "minibatch_bytes", "minibatch_fit",
           "nystroem_path"]

#: Steps without improvement of the smoothed batch cost after which the steps stop.
_PATIENCE = 10
#: The largest batch :func:`nystroem_path` gives the mini-batch path, the size whose accuracy
#: was measured at n = 10^6 and 10^7 (``benchmarks/bench_approximations.py``).
MAX_BATCH = 10_000


class MiniBatchFit(NamedTuple):
    """The result of :func:`minibatch_fit`: ``W`` and ``T`` are upper bounds on the exact
    values of ``labels``, as for Nyström k-groups (the features' values plus each point's
    residual outside the landmarks' span); ``S`` the groups' feature sums (k x r) centred by
    ``feature_map.mean``, the weighted mean feature; ``passes`` Lloyd's passes over all
    points, ``converged`` whether the last changed no label."""

    labels: np.ndarray
    W: float
    T: float
    S: np.ndarray
    feature_map: FeatureMap
    passes: int
    converged: bool


def minibatch_bytes(n: int, m: int, r: int, k: int, batch: int) -> int:
    """Memory of :func:`minibatch_fit` beyond the data: the features of the evaluation sample
    and of a start's sample (``size`` points, m kernel values and r features each), a batch's
    kernel rows, features and distances, the labels and the weights (9 bytes a point), and a
    pass's band of kernel rows and their products with the centres."""
    size = min(n, max(3 * batch, 10 * k))
    return (8 * size * (m + r) + 8 * batch * (m + r + k) + 9 * n
            + 8 * FeatureMap.band_rows(m) * (m + k))


def largest_batch(n: int, m: int, k: int, budget: int, most: int) -> int | None:
    """The largest batch of at most ``most`` points (and n) whose mini-batch fit needs at most
    ``budget`` bytes with m landmarks (r = m features, the most there can be); ``None`` when
    not even one point does. :func:`minibatch_bytes` grows with the batch: bisection."""
    lo, hi = 0, min(n, most)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if minibatch_bytes(n, m, m, k, mid) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo or None


def nystroem_path(n: int, k: int, m: int, reserve: int, batch_size: int | None,
                  labels_given: bool) -> tuple[str, int | None]:
    """The path of Nyström k-groups on n points with m landmarks: ``("nystroem", None)`` when
    the features (8 n (m + 1) bytes, r <= m of them and the residuals) fit the memory budget
    beside the partition's ``reserve``; else ``("nystroem-minibatch", b)``, b ``batch_size``
    or the largest batch of at most :data:`MAX_BATCH` points that fits; else
    :class:`WorkingMemoryError`, naming what to change."""
    if batch_size is not None:
        return "nystroem-minibatch", batch_size
    features = 8 * n * (m + 1) + reserve
    budget = memory_budget()
    if features <= budget:
        return "nystroem", None
    batch = None if labels_given else largest_batch(n, m, k, budget, MAX_BATCH)
    if batch is not None:
        return "nystroem-minibatch", batch
    if labels_given:
        raise memory_error(f"Nystroem k-groups on {n} points with {m} landmarks (the features: "
                           "`init` labels rule out mini-batch steps, `batch_size`)", features,
                           "lower `n_landmarks`, or give `init` as a string")
    raise memory_error(f"Nystroem k-groups on {n} points with {m} landmarks, even in mini-batch "
                       "steps of one point (`batch_size`=1),",
                       min(features, minibatch_bytes(n, m, m, k, 1)), "lower `n_landmarks`")


def _features(feature_map: FeatureMap, X: np.ndarray) -> np.ndarray:
    """Features of a few points (a batch or a sample), not centred."""
    K, _ = feature_map.kernel_rows(X)
    return K @ feature_map.projection


def _group_sums(labels: np.ndarray, weights: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
    """Sum of ``weights`` times ``rows`` per group (k x columns)."""
    return indicator(labels, k, weights).T @ rows


def _nearest(Phi: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest centre of each row of Phi and the squared distance to it."""
    d2 = ((Phi * Phi).sum(axis=1)[:, None] - 2.0 * Phi @ centres.T
          + (centres * centres).sum(axis=1)[None, :])
    labels = np.argmin(d2, axis=1)
    return labels, np.maximum(d2[np.arange(Phi.shape[0]), labels], 0.0)


def _start(X, w, feature_map: FeatureMap, k: int, init: str, size: int, rng) -> np.ndarray:
    """Initial centres (k x r): ``init`` on the features of ``size`` points drawn uniformly,
    each centre the weighted mean of its group there."""
    idx = np.sort(rng.choice(X.shape[0], size=size, replace=False))
    Phi = _features(feature_map, X[idx])
    ws = np.ones(size) if w is None else w[idx]
    centred = Phi - (ws @ Phi) / ws.sum()
    D = Streamed(centred, resolve_semimetric(exponent=2.0))  # rho in feature space, by rows
    labels = initial_labels(init, D, centred if init == "power-kmeans" else None, ws, k, rng)
    return _group_sums(labels, ws, Phi, k) / np.bincount(labels, weights=ws, minlength=k)[:, None]


def _steps(X, w, feature_map: FeatureMap, centres: np.ndarray, batch: int, max_steps: int,
           rng: np.random.Generator) -> None:
    """Mini-batch steps from ``centres`` (updated in place)."""
    n, k = X.shape[0], centres.shape[0]
    counts = np.zeros(k)
    alpha = min(1.0, 2.0 * batch / (n + 1))  # the smoothing of the batch cost, as scikit-learn's
    smoothed = best = np.inf
    stale = 0
    for step in range(1, max_steps + 1):
        idx = rng.integers(0, n, size=batch)
        Phi = _features(feature_map, X[idx])
        wb = np.ones(batch) if w is None else w[idx]
        labels, d2 = _nearest(Phi, centres)
        cost = float(wb @ d2) / float(wb.sum())
        added = np.bincount(labels, weights=wb, minlength=k)
        sums = _group_sums(labels, wb, Phi, k)
        moved = added > 0
        centres[moved] = ((centres[moved] * counts[moved, None] + sums[moved])
                          / (counts[moved] + added[moved])[:, None])
        counts += added
        smoothed = cost if step == 1 else (1.0 - alpha) * smoothed + alpha * cost
        if smoothed < best:
            best, stale = smoothed, 0
        else:
            stale += 1
            if stale >= _PATIENCE:
                return


def _pass(X, w, feature_map: FeatureMap, C: np.ndarray, norms: np.ndarray,
          labels: np.ndarray):
    """One Lloyd pass in bands of points: their nearest centres (written into ``labels``), the
    changes, and the group sums of kernel rows, of weights and of K(x, x)."""
    k, m = C.shape[1], C.shape[0]
    rows, weights, self_sums, changed = np.zeros((k, m)), np.zeros(k), np.zeros(k), 0
    step = feature_map.band_rows(m)
    for c in range(0, X.shape[0], step):
        K, self_kernel = feature_map.kernel_rows(X[c : c + step])
        new = np.argmin(norms[None, :] - 2.0 * K @ C, axis=1)
        changed += int(np.count_nonzero(new != labels[c : c + step]))
        labels[c : c + step] = new
        wb = np.ones(new.shape[0]) if w is None else w[c : c + step]
        weights += np.bincount(new, weights=wb, minlength=k)
        self_sums += np.bincount(new, weights=wb * self_kernel, minlength=k)
        rows += _group_sums(new, wb, K, k)
    return rows, weights, self_sums, changed


def minibatch_fit(X: np.ndarray, w, feature_map: FeatureMap, k: int, init: str, batch: int,
                  max_iter: int, streams: list, evaluation: np.random.Generator) -> MiniBatchFit:
    """Mini-batch steps from each start (one random stream each), the start of least cost on
    one sample of points kept, then Lloyd's passes over all points (module docstring)."""
    n = X.shape[0]
    m, r = feature_map.projection.shape
    size = min(n, max(3 * batch, 10 * k))
    check_fits(f"mini-batch k-groups ({n} points, batches of {batch}, {m} landmarks)",
               minibatch_bytes(n, m, r, k, batch), "lower `batch_size` or `n_landmarks`")
    chosen = np.sort(evaluation.choice(n, size=size, replace=False))
    sample_w = None if w is None else w[chosen]
    sample_phi = _features(feature_map, X[chosen])
    best = None
    for stream in streams:
        centres = _start(X, w, feature_map, k, init, size, stream)
        _steps(X, w, feature_map, centres, batch, max(1, max_iter * n // batch), stream)
        _, d2 = _nearest(sample_phi, centres)
        cost = float(d2.sum() if sample_w is None else sample_w @ d2)
        if best is None or cost < best[0]:
            best = (cost, centres)
    centres = best[1]
    labels = np.full(n, -1, dtype=np.int8 if k < 128 else np.intp)
    for passes in range(1, max_iter + 1):
        C = feature_map.projection @ centres.T  # m x k: phi(x)' c_l = K_x C_l
        norms = (centres * centres).sum(axis=1)
        rows, weights, self_sums, changed = _pass(X, w, feature_map, C, norms, labels)
        S = rows @ feature_map.projection  # group sums of the features
        empty = weights == 0
        # a group lost every point: it restarts at the sampled points farthest from their centres
        if empty.any():
            _, d2 = _nearest(sample_phi, centres)
            centres[empty] = sample_phi[np.argsort(d2)[::-1][: int(empty.sum())]]
            changed += 1
        centres[~empty] = S[~empty] / weights[~empty, None]
        if changed == 0:
            break
    total = weights.sum()
    mean = S.sum(axis=0) / total
    Q = (S * S).sum(axis=1) / weights  # ||S_l||^2 / s_l of the features before centring
    # sum_i w_i K(x_i, x_i) - sum_l ||S_l||^2 / s_l: the residuals included
    W = float(self_sums.sum() - Q.sum())
    T = float(self_sums.sum() - total * (mean @ mean))
    return MiniBatchFit(labels.astype(np.intp), W, T, S - weights[:, None] * mean,
                        replace(feature_map, mean=mean), passes, changed == 0)
