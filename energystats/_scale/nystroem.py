r"""Nyström features: a kernel of rank at most m from m landmarks (Wang, Gittens & Mahoney 2019).

With the landmarks' semimetric matrix :math:`\rho_{LL}`, the kernel centred at the landmarks'
mean is :math:`K_{LL} = -\tfrac12 J \rho_{LL} J` (França, Rizzo & Vogelstein 2020, eq. 7);
with :math:`K_{LL} = V \Lambda V^\top` (eigenvalues above 1e-10 of the largest kept), a point's
features are :math:`\phi(x) = K_{xL} V \Lambda^{-1/2}`, so that :math:`\Phi\Phi^\top` reproduces
the kernel on the landmarks and approximates it elsewhere; :math:`\|\phi(x) - \phi(y)\|^2`
approximates :math:`\rho(x, y)` from below. Each point's residual :math:`K(x, x) -
\|\phi(x)\|^2 \ge 0` is the squared length of its feature vector outside the landmarks' span.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .._config import check_fits
from .._parallel import n_workers, run_tasks

__all__ = ["FeatureMap", "nystroem_features", "nystroem_map"]


@dataclass(frozen=True)
class FeatureMap:
    """What gives any point its features: the landmarks L (m x d), the column means ``col`` of
    :math:`\\rho_{LL}` and their mean ``c``, ``projection`` :math:`V \\Lambda^{-1/2}` (m x r),
    the semimetric, and ``mean``, the training points' weighted mean feature (subtracted)."""

    landmarks: np.ndarray
    col: np.ndarray
    c: float
    projection: np.ndarray
    semimetric: object
    mean: np.ndarray | None = None

    @staticmethod
    def band_rows(m: int) -> int:
        """Points per band of kernel rows to m landmarks (2^17 values)."""
        return max(1, 2**17 // max(1, m))

    def kernel_rows(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r""":math:`K_{XL} = -\tfrac12 (R - \bar r 1^\top - 1 \bar\rho^\top + c)` (len(X) x m)
        and each point's :math:`K(x, x) = \bar r_x - c/2`."""
        K = self.semimetric(X, self.landmarks)
        r = K.mean(axis=1, keepdims=True)
        K -= r
        K -= self.col[None, :]
        K += self.c
        K *= -0.5
        return K, r[:, 0] - 0.5 * self.c

    def transform(self, X: np.ndarray, residual: bool = False, n_jobs=None):
        """Features of X (less ``mean``), in bands (joblib's tasks with ``n_jobs`` when their
        work is worth workers); with ``residual``, also the residuals."""
        (m, r), n = self.projection.shape, X.shape[0]
        work = float(n) * m * (X.shape[1] + r)
        workers = n_workers(n_jobs, work)
        step = max(1, min(self.band_rows(m), -(-n // workers)))
        calls = [dict(a=a) for a in range(0, n, step)]
        if workers > 1 and len(calls) > 1:
            parts = run_tasks(_band, calls, n_jobs, shared=dict(fmap=self, X=X, step=step),
                              work=work)
        else:
            parts = [_band(self, X, step=step, **call) for call in calls]
        out = np.concatenate([p[0] for p in parts]) if parts else np.empty((0, r))
        rest = np.concatenate([p[1] for p in parts]) if parts else np.empty(0)
        if self.mean is not None:
            out -= self.mean
        return (out, np.maximum(rest, 0.0)) if residual else out


def _band(fmap: FeatureMap, X: np.ndarray, a: int, step: int):
    """The features of X[a : a + step] and their residuals (a task of :meth:`transform`)."""
    K, self_kernel = fmap.kernel_rows(X[a : a + step])
    band = K @ fmap.projection
    return band, self_kernel - np.einsum("ij,ij->i", band, band)


def _landmarks(X, semimetric, w, m: int, rng: np.random.Generator, how: str) -> np.ndarray:
    """m distinct landmarks: drawn with probabilities w / sum(w) ("uniform"), or by D^2
    sampling, each next one with probability proportional to w times rho to the nearest
    landmark so far (k-means++'s seeding in feature space, "d2")."""
    n = X.shape[0]
    if how == "uniform":
        return np.sort(rng.choice(n, size=m, replace=False, p=w / w.sum()))
    chosen = [int(rng.choice(n, p=w / w.sum()))]
    nearest = semimetric(X, X[chosen])[:, 0]
    for _ in range(1, m):
        potential = w * nearest
        potential[chosen] = 0.0
        total = potential.sum()
        if total <= 0:  # every point is a landmark's double: the rest uniformly among the others
            free = np.setdiff1d(np.arange(n), chosen)
            chosen.extend(rng.choice(free, size=m - len(chosen), replace=False).tolist())
            break
        chosen.append(int(rng.choice(n, p=potential / total)))
        np.minimum(nearest, semimetric(X, X[chosen[-1:]])[:, 0], out=nearest)
    return np.sort(np.asarray(chosen))


def nystroem_map(X, semimetric, w, m: int, rng, how: str = "d2") -> FeatureMap:
    """The feature map of min(m, n) landmarks of X drawn from ``rng`` (module docstring);
    ``w``: point weights or None."""
    n, m = X.shape[0], min(m, X.shape[0])
    check_fits(f"the draw of {m} landmarks among {n} points", 40 * n)
    L = X[_landmarks(X, semimetric, np.ones(n) if w is None else w, m, rng, how)]
    rho = semimetric(L, L)
    rho = 0.5 * (rho + rho.T)
    col = rho.mean(axis=0)
    c = float(col.mean())
    lam, V = np.linalg.eigh(-0.5 * (rho - col[:, None] - col[None, :] + c))
    keep = lam > 1e-10 * max(lam.max(), np.finfo(float).tiny)
    return FeatureMap(L, col, c, V[:, keep] / np.sqrt(lam[keep]), semimetric)


def nystroem_features(X, semimetric, w, m: int, rng, how: str = "d2", n_jobs=None):
    """Features Φ (n x r, r <= m) of X centred at their weighted mean, so that
    :math:`\\Phi\\Phi^\\top` approximates the centred kernel (exact when every point is a
    landmark); the :class:`FeatureMap` (with that mean) and the residuals. Memory 8 n (r + 1)
    bytes, checked; the bands of points as joblib tasks with ``n_jobs``
    (:meth:`FeatureMap.transform`)."""
    fmap = nystroem_map(X, semimetric, w, m, rng, how)
    check_fits(f"the Nystroem features ({X.shape[0]} points x {fmap.projection.shape[1]} "
               "components)", 8 * X.shape[0] * (fmap.projection.shape[1] + 1),
               "KGroups(..., batch_size=...): mini-batch steps on features computed block "
               "by block")
    Phi, residual = fmap.transform(X, residual=True, n_jobs=n_jobs)
    mean = (Phi.mean(axis=0) if w is None else (w @ Phi) / w.sum())
    Phi -= mean
    return Phi, replace(fmap, mean=mean), residual
