"""Starting partitions of kernel k-groups: k-means++ in the kernel's feature space (where rho is
the squared distance), balanced random labels, the spectral start (França, Rizzo & Vogelstein
2020, eq. 21, 29) and power k-means on the points; and the runs from them (:func:`restarts`,
a joblib task of ``KGroups``)."""

from __future__ import annotations

import math
from contextlib import nullcontext

import numpy as np
from scipy.linalg import eigh
from scipy.sparse.linalg import LinearOperator, eigsh
from sklearn.cluster import KMeans
from threadpoolctl import threadpool_limits

from .._parallel import blas_for
from ._partition import FeaturePartition, Partition, fit_once, r_kgroups
from .power_kmeans import PowerKMeans

__all__ = ["initial_labels", "restarts", "spectral_embedding"]

#: OpenBLAS threads a product of at least this many multiply-adds (interface/gemm.c): below,
#: a run's products n x n by n x k need no limit (whose call would cost more than they do).
BLAS_THREADED = 2 * 4 * 65536


def _choice(rng: np.random.Generator, p: np.ndarray, size: int | None = None):
    """``rng.choice(p.size, size, p=p)``: the same draws from the same stream (numpy's inverse
    cdf), without its checks of p, which cost more than the draw at small n."""
    cdf = p.cumsum()
    cdf /= cdf[-1]
    return cdf.searchsorted(rng.random() if size is None else rng.random(size), side="right")


def _rows(D, idx) -> np.ndarray:
    """rho from every point to the points ``idx`` (n x len(idx))."""
    if isinstance(D, np.ndarray):
        return D[:, idx]
    return np.maximum(D[np.asarray(idx)].T, 0.0)  # a graph's rho, to rounding


def _kmeanspp(D, w: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Greedy k-means++ (D^2 sampling with 2 + ln k trials per centre) on the matrix D."""
    n, trials = w.shape[0], 2 + int(math.log(k))
    centres = [int(_choice(rng, w / w.sum()))]
    closest = _rows(D, centres)[:, 0]
    for _ in range(1, k):
        potential = w @ closest
        if potential > 0:
            candidates = _choice(rng, w * closest / potential, trials)
        else:  # every point coincides with a centre: unused points
            unused = np.setdiff1d(np.arange(n), centres)
            candidates = rng.choice(unused, size=min(trials, unused.size), replace=False)
        dist = np.minimum(closest[:, None], _rows(D, candidates))
        best = int((w @ dist).argmin())
        if candidates[best] in centres:
            candidates[best] = np.setdiff1d(np.arange(n), centres)[0]
        centres.append(int(candidates[best]))
        closest = dist[:, best]
    labels = _rows(D, centres).argmin(axis=1)
    labels[centres] = np.arange(k)  # no group empty
    return labels


def spectral_embedding(D, w: np.ndarray, k: int, rng: np.random.Generator, Phi=None):
    r"""The rows the spectral start clusters: :math:`Y = \mathcal W^{-1/2} U` with U the top-k
    eigenvectors of :math:`\mathcal W^{1/2} G \mathcal W^{1/2}` (eq. 29), G the kernel centred
    at the weighted mean, :math:`G = -\tfrac12 J D J^\top`, :math:`J = I - 1 p^\top`,
    :math:`p = w / s`: LAPACK on a held D, else Lanczos (``eigsh`` from a vector drawn from
    ``rng``) on its products; from the SVD of :math:`\mathcal W^{1/2} \Phi` for features.
    ``None`` when k >= n - 1."""
    n = w.shape[0]
    if k >= n - 1:
        return None
    root = np.sqrt(w)
    if Phi is not None:
        return np.linalg.svd(root[:, None] * Phi, full_matrices=False)[0][:, :k] / root[:, None]
    p = w / w.sum()
    r = D @ p
    c = float(p @ r)
    if isinstance(D, np.ndarray):
        G = -0.5 * (D - r[:, None] - r[None, :] + c)
        return eigh(root[:, None] * G * root, subset_by_index=[n - k, n - 1])[1] / root[:, None]

    def product(z):
        z = root * z.ravel()
        return -0.5 * root * (D @ z - r @ z - r * z.sum() + c * z.sum())

    op = LinearOperator((n, n), matvec=product, dtype=float)
    return eigsh(op, k=k, which="LA", v0=rng.standard_normal(n))[1] / root[:, None]


def initial_labels(init: str, D, points, w: np.ndarray, k: int, rng) -> np.ndarray:
    """One run's start: ``points`` are the spectral embedding for "spectral", the points for
    "power-kmeans"; balanced random labels where the embedding is None or leaves a group empty;
    k-means++ where power k-means does."""
    if init == "spectral" and points is not None:
        seed = int(rng.integers(2**31 - 1))
        labels = KMeans(k, n_init=1, random_state=seed).fit(points, sample_weight=w).labels_
        if np.unique(labels).size == k:
            return labels
    if init in ("random", "spectral"):
        return rng.permutation(np.arange(w.shape[0]) % k)
    if init == "power-kmeans":
        labels = PowerKMeans(k, random_state=rng).fit(points).labels_
        if np.unique(labels).size == k:
            return labels
    return _kmeanspp(D, w, k, rng)


def restarts(D, points, w, k: int, algorithm: str, init, max_iter: int, tol: float,
             streams: list, Phi=None) -> list:
    """One run per random stream on D (or the features Φ): the start, then Hartigan or Lloyd
    (or R's rule). ``points``: the spectral embedding or power k-means' points. Returns per run
    (W, labels, sweeps, converged, R's count or None); a module-level function, so that the
    runs can be joblib tasks."""
    n, out = w.shape[0], []
    given = not isinstance(init, str)
    # the products of a run have k columns: OpenBLAS's threads would only spin
    limit = blas_for(0.0) if n * n * k >= BLAS_THREADED else nullcontext()
    openmp = threadpool_limits(1, "openmp") if not given and init == "spectral" else nullcontext()
    with limit, openmp:
        for stream in streams:
            start = init if given else initial_labels(init, D, points, w, k, stream)
            if algorithm == "r-kgroups":
                labels, sweeps, count, converged = r_kgroups(D, start, k, max_iter)
                out.append((Partition(D, w, labels, k).W(), labels, sweeps, converged, count))
                continue
            st = Partition(D, w, start, k) if Phi is None else FeaturePartition(Phi, w, start, k)
            st, sweeps, converged = fit_once(st, algorithm, max_iter, stream, tol)
            out.append((st.W(), st.labels, sweeps, converged, None))
    return out
