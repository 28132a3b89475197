r"""Nyström: a low-rank centred kernel known through features from landmarks
(Wang, Gittens & Mahoney 2019)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .._config import check_fits
from .._parallel import MIN_TASKS, THREADS
from .._semimetric import Semimetric
from ._tiled import TiledOperator
from .feature_map import FeatureMap

__all__ = ["NystroemOperator", "nystroem_features", "nystroem_map"]


def _landmarks(
    X: np.ndarray,
    semimetric: Semimetric,
    weights: np.ndarray | None,
    m: int,
    rng: np.random.Generator,
    how: str,
) -> np.ndarray:
    """m distinct landmark indices: drawn with probabilities proportional to the weights
    ("uniform"), or by D^2 sampling, each next one with probability proportional to
    w(x) times the semimetric to the nearest landmark so far (k-means++'s seeding in the
    kernel's feature space, where rho is the squared distance; "d2")."""
    n = X.shape[0]
    w = np.ones(n) if weights is None else weights
    if how == "uniform":
        return np.sort(rng.choice(n, size=m, replace=False, p=w / w.sum()))
    chosen = [int(rng.choice(n, p=w / w.sum()))]
    nearest = semimetric(X, X[chosen])[:, 0]
    for _ in range(1, m):
        potential = w * nearest
        potential[chosen] = 0.0
        total = potential.sum()
        if total <= 0:  # every point coincides with a landmark: the rest uniformly among the others
            free = np.setdiff1d(np.arange(n), chosen)
            chosen.extend(rng.choice(free, size=m - len(chosen), replace=False).tolist())
            break
        chosen.append(int(rng.choice(n, p=potential / total)))
        np.minimum(nearest, semimetric(X, X[chosen[-1:]])[:, 0], out=nearest)
    return np.sort(np.asarray(chosen))


def nystroem_map(
    X: np.ndarray,
    semimetric: Semimetric,
    weights: np.ndarray | None,
    m: int,
    rng: np.random.Generator,
    landmarks: str = "d2",
) -> FeatureMap:
    r"""The Nyström feature map of m landmarks of X (Wang, Gittens & Mahoney 2019), without
    the features: with the landmarks' semimetric matrix :math:`\rho_{LL}`, the kernel centred
    at the landmarks' mean is :math:`K_{LL} = -\tfrac12 J \rho_{LL} J`; with
    :math:`K_{LL} = V \Lambda V^\top` (eigenvalues above 1e-10 of the largest kept), a point's
    features are :math:`\phi(x) = K_{xL} V \Lambda^{-1/2}` (:meth:`FeatureMap.transform`),
    which reproduce :math:`K_{LL}` on the landmarks. A semimetric of negative type makes
    :math:`K_{LL}` positive semidefinite. Memory O(n) for the landmarks' draw, checked."""
    n = X.shape[0]
    m = min(m, n)
    check_fits(f"the draw of {m} landmarks among {n} points", 40 * n)
    L = X[_landmarks(X, semimetric, weights, m, rng, landmarks)]
    rho_LL = semimetric(L, L)
    rho_LL = 0.5 * (rho_LL + rho_LL.T)
    col = rho_LL.mean(axis=0)
    c = float(col.mean())
    K_LL = -0.5 * (rho_LL - col[:, None] - col[None, :] + c)
    lam, V = np.linalg.eigh(K_LL)
    keep = lam > 1e-10 * max(lam.max(), np.finfo(float).tiny)
    return FeatureMap(L, col, c, V[:, keep] / np.sqrt(lam[keep]), semimetric)


def nystroem_features(
    X: np.ndarray,
    semimetric: Semimetric,
    weights: np.ndarray | None,
    m: int,
    rng: np.random.Generator,
    landmarks: str = "d2",
) -> tuple[np.ndarray, FeatureMap, np.ndarray]:
    r"""Features Φ (n x r, r <= m) with :math:`\Phi\Phi^\top \approx G`, the centred kernel of
    eq. (7), from m landmarks (:func:`nystroem_map`). Centring Φ by its weighted mean gives
    :math:`\Phi\Phi^\top \approx J K J^\top = G` (exact when every point is a landmark). Φ
    is built in bands of rows: memory 8 n (r + 1) bytes, checked against the budget. Returns
    Φ, the :class:`FeatureMap` that gives new points their features, and each point's
    residual :math:`K(x_i, x_i) - \|\Phi_i\|^2 \ge 0` (Φ before its centring; see
    :meth:`FeatureMap.transform`), the squared length of its feature vector outside the
    landmarks' span.
    """
    n = X.shape[0]
    feature_map = nystroem_map(X, semimetric, weights, m, rng, landmarks)
    r = feature_map.projection.shape[1]
    check_fits(
        f"the Nystroem features ({n} points x {r} components)",
        8 * n * (r + 1),
        "KGroups(..., batch_size=...): mini-batch steps on features computed block by block",
    )
    Phi, residual = feature_map.transform(X, residual=True)
    w = np.ones(n) if weights is None else weights
    mean = (w @ Phi) / w.sum()
    Phi -= mean
    return Phi, replace(feature_map, mean=mean), residual


class NystroemOperator(TiledOperator):
    r"""A centred kernel known through features: :math:`G \approx \Phi\Phi^\top`, Φ of n x r.

    Products cost O(n r m), a row O(n r), the diagonal O(n r); memory O(n r). Built by
    :func:`nystroem_features` (Wang, Gittens & Mahoney 2019), whose :class:`FeatureMap`
    (``feature_map``) gives new points their features and whose ``residual`` is each
    point's squared length outside the landmarks' span. Products are shared among the
    threads, or joblib tasks with ``n_jobs``, by bands of rows.
    """

    kind = "nystroem"
    approximation = "nystroem"

    def __init__(
        self,
        features: np.ndarray,
        feature_map: FeatureMap | None = None,
        residual: np.ndarray | None = None,
        *,
        recipe=None,
    ):
        self.features = features
        self.recipe = recipe
        self.feature_map = feature_map
        self.residual = residual
        self.n = features.shape[0]
        self.nbytes = 0  # the features are the data
        self.threads = THREADS

    def _pair_cost(self) -> int:
        return self.features.shape[1]

    def _bands(self, columns: int) -> list:
        step = max(1, min(2**16 // max(1, self.features.shape[1]), -(-self.n // MIN_TASKS)))
        bands = [(a, min(a + step, self.n)) for a in range(0, self.n, step)]
        return self._shards(bands, step * self.features.shape[1] * columns, columns)

    def _matmat(self, Z):
        return self.features @ self.feature_sums(Z)

    def _band_inner(self, bands: list, Z: np.ndarray) -> np.ndarray:
        return sum(self.features[a:b].T @ Z[a:b] for a, b in bands)

    def rows(self, idx):
        return self.features[idx] @ self.features.T

    def diagonal(self):
        return np.einsum("ij,ij->i", self.features, self.features)

    def quadratic(self, Z):
        inner = self.feature_sums(Z)
        M = inner.T @ inner
        return 0.5 * (M + M.T)

    def feature_sums(self, Z):
        return sum(self._map("_band_inner", self._bands(Z.shape[1]), Z=Z))

    def _tile(self, a, b, c, e, out=None):
        return np.matmul(self.features[a:b], self.features[c:e].T, out=out)

    def product_bytes(self, m):
        return 8 * self.n * m + 8 * self.features.shape[1] * m * (1 + self.threads)

    def restrict(self, idx):
        features = self.features[idx]
        return NystroemOperator(features - features.mean(axis=0)).with_jobs(self.n_jobs)
