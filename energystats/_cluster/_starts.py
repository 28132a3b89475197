"""Starting partitions of kernel k-groups: k-means++ in the kernel's feature space,
balanced random labels, the spectral start (eq. 29), and power k-means on the points; and
the restarts, one run from each start (:func:`restarts`, a joblib task of ``KGroups``)."""

from __future__ import annotations

import math
from contextlib import nullcontext
from typing import Callable

import numpy as np
from sklearn.cluster import KMeans

from .._operator import PairwiseOperator, centred_kernel, indicator
from .._parallel import blas_controller, one_blas_thread
from ._partition import GAIN_RTOL, TINY, fit_once, r_kgroups
from .power_kmeans import PowerKMeans

__all__ = ["initial_labels", "restarts", "spectral_embedding", "start_points"]


def _choice(rng: np.random.Generator, p: np.ndarray, size: int | None = None):
    """``rng.choice(p.size, size, p=p)`` for probabilities p, the same draws from the same
    stream (numpy's inverse cdf: the cumulative sum divided by its last value, searched for
    uniform draws), without its checks of p, which cost more than the draw at small n."""
    cdf = p.cumsum()  # the method: np.cumsum's dispatch costs more than 50 sums
    cdf /= cdf[-1]
    return cdf.searchsorted(rng.random() if size is None else rng.random(size), side="right")


#: k-means++ on a held matrix of at most this many points evaluates rho for every pair at once:
#: one pass over n^2 entries (128 KiB) costs less than numpy's calls for 2k batches of columns.
ALL_PAIRS = 128


def _kmeanspp(G: PairwiseOperator, w: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Greedy k-means++ in the kernel's feature space (D^2 sampling, rho = ||phi_x - phi_y||^2).

    Needs the kernel's diagonal and one row per candidate centre, or (a held matrix of at most
    :data:`ALL_PAIRS` points) every row: the same values, each entry by the same operations.
    At small n numpy's calls cost more than their work: arrays' methods, temporaries reused.
    """
    n = G.n
    diag = G.diagonal()
    column = diag[:, None]
    trials = 2 + int(math.log(k))

    def rho_of(idx):  # rho from every point to the points idx (n x len(idx))
        rho = column + diag[idx]
        rho -= 2.0 * G.rows(idx).T
        return np.maximum(rho, 0.0, out=rho)

    if n <= ALL_PAIRS and G.kind == "dense":
        every = rho_of(slice(None))

        def rho_to(idx):  # C-ordered as rho_of's (a BLAS product's rounding follows the layout)
            return every.take(idx, axis=1)
    else:

        def rho_to(idx):
            return rho_of(np.asarray(idx))

    centres = [int(_choice(rng, w / w.sum()))]
    closest = rho_to(centres)[:, 0]
    for _ in range(1, k):
        potential = w @ closest
        if potential > 0:
            candidates = _choice(rng, w * closest / potential, trials)
        else:  # every point coincides with a centre: pick unused points
            unused = np.setdiff1d(np.arange(n), centres)
            candidates = rng.choice(unused, size=min(trials, unused.size), replace=False)
        dist = rho_to(candidates)
        np.minimum(closest[:, None], dist, out=dist)
        best = int((w @ dist).argmin())
        if candidates[best] in centres:  # duplicate of a centre: take any unused point
            candidates[best] = np.setdiff1d(np.arange(n), centres)[0]
        centres.append(int(candidates[best]))
        closest = dist[:, best]
    labels = rho_to(centres).argmin(axis=1)
    labels[centres] = np.arange(k)  # each centre in its own group: none is empty
    return labels


def spectral_embedding(
    G: PairwiseOperator, w: np.ndarray, k: int, rng: np.random.Generator
) -> np.ndarray | None:
    r"""The rows the spectral start clusters, computed once per fit (they do not depend on the
    restart): :math:`Y = \mathcal W^{-1/2} U` with U the top-k eigenvectors of
    :math:`\mathcal W^{1/2} G \mathcal W^{1/2}` (eq. 29; H = W^{1/2} Y, eq. 21), so that each
    row is a point's relaxed indicator. ``None`` when k >= n - 1 (Lanczos needs k < n - 1; so
    few points need no spectrum). ``rng`` starts Lanczos iterations, when they run."""
    if k >= G.n - 1:
        return None
    root = np.sqrt(w)
    return G.top_eigenvectors(k, root, rng) / root[:, None]


def start_points(init, op: PairwiseOperator, points, w: np.ndarray, k: int, stream,
                 r_kgroups: bool):
    """What every start of one fit shares: the spectral embedding (computed once, ``stream``
    starting its Lanczos iterations; of the centred kernel of R's D), or the points power
    k-means starts from (the features of a kernel known by them); else None."""
    if isinstance(init, str) and init == "spectral":
        return spectral_embedding(centred_kernel(op) if r_kgroups else op, w, k, stream)
    if isinstance(init, str) and init == "power-kmeans":
        return points if op.features is None else op.features
    return None


def _spectral(Y, w: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Weighted k-means on the rows of the spectral embedding Y (n x k), seeded from ``rng``;
    balanced random labels when Y is ``None`` or its rows fall into fewer than k groups
    (duplicated points). On one OpenMP thread: a k-means of n x k values, where more threads
    only spin (on a busy 2-core machine 2 s against 0.14 s for ten starts at n = 10,000)."""
    if Y is None:
        return _random_labels(w.shape[0], k, rng)
    with blas_controller().limit(limits=1, user_api="openmp"):
        km = KMeans(k, n_init=1, random_state=int(rng.integers(2**31 - 1)))
        km.fit(Y, sample_weight=w)
    labels = km.labels_
    if np.unique(labels).size < k:
        labels = _random_labels(w.shape[0], k, rng)
    return labels


def _random_labels(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    return rng.permutation(np.arange(n) % k)


def initial_labels(
    init: str, points, G: PairwiseOperator, w: np.ndarray, k: int, rng: np.random.Generator
) -> np.ndarray:
    """The starting labels of one run (``init`` of :class:`KGroups`): ``points`` are the points
    for power k-means, the spectral embedding (:func:`spectral_embedding`) for the spectral
    start."""
    if init == "random":
        return _random_labels(w.shape[0], k, rng)
    if init == "spectral":
        return _spectral(points, w, k, rng)
    if init == "power-kmeans":
        labels = PowerKMeans(k, random_state=rng).fit(points).labels_
        if np.unique(labels).size == k:
            return labels
        # power k-means left a cluster empty (duplicated points): k-means++ instead
    return _kmeanspp(G, w, k, rng)


#: OpenBLAS multiplies an m x l by an l x c matrix on m l c / (4 * 65536) threads at most (its
#: SMP_THRESHOLD_MIN times GEMM_MULTITHREAD_THRESHOLD, interface/gemm.c): below twice that, a
#: run's products with the operator (n x n by n x k) run on one thread already.
BLAS_THREADED_PRODUCT = 2 * 4 * 65536


def limit_blas(n: int, k: int) -> bool:
    """Whether a run on n points in k groups limits BLAS to one thread (sizes only): only where
    BLAS would start threads that spin on products of k columns; below, the limit (about 30
    microseconds through threadpoolctl) would cost more than the products."""
    return n * n * k >= BLAS_THREADED_PRODUCT


def restarts(
    build: Callable[[], PairwiseOperator],
    points,
    weights,
    k,
    algorithm,
    init,
    max_iter,
    streams,
    operator=None,
) -> list:
    """Run one start per stream on the operator (a joblib task when ``operator`` is None: it
    builds its own with ``build``, the operator's recipe). ``points`` are the points
    power k-means starts from (``init="power-kmeans"``), or the spectral embedding
    (``init="spectral"``, computed once for every start).

    Returns, per start, (objective Q, labels, sweeps, converged), or for R's rule
    (W, labels, iterations, count, converged).
    """
    op = operator if operator is not None else build()
    n = op.n
    w = np.ones(n) if weights is None else weights
    given = not isinstance(init, str)
    # a run's products with the operator have k columns: one BLAS thread (one_blas_thread)
    if algorithm == "r-kgroups":
        G = None if given or init in ("random", "spectral") else centred_kernel(op)
        out = []
        for stream in streams:
            labels0 = init if given else initial_labels(init, points, G, w, k, stream)
            with one_blas_thread() if limit_blas(n, k) else nullcontext():
                labels, iterations, count, converged = r_kgroups(op, labels0, k, max_iter)
            M = op.quadratic(indicator(labels, k))
            W = float(np.sum(np.diag(M) / (2.0 * np.bincount(labels, minlength=k))))  # eq. (15)
            out.append((W, labels, iterations, count, converged))
        return out
    T = float(w @ op.diagonal())
    tol = GAIN_RTOL * max(abs(T), TINY)
    out = []
    for stream in streams:
        labels0 = init if given else initial_labels(init, points, op, w, k, stream)
        with one_blas_thread() if limit_blas(n, k) else nullcontext():
            st, iterations, converged = fit_once(
                op, w, labels0, k, algorithm, max_iter, stream, tol
            )
        out.append((st.objective(), st.labels, iterations, converged))
    return out
