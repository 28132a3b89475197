r"""The Nyström feature map: what it takes to give any point its features with the same
landmarks (Wang, Gittens & Mahoney 2019). The view :attr:`~._base.PairwiseOperator.feature_map`
of an operator known by such features (:mod:`.nystroem`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._semimetric import Semimetric

__all__ = ["FeatureMap"]


@dataclass(frozen=True)
class FeatureMap:
    r"""The Nyström feature map of :func:`~.nystroem.nystroem_features`: what it takes to give
    any point its features with the same landmarks.

    Attributes
    ----------
    landmarks : ndarray of shape (m, d)
        The landmark points L.
    col : ndarray of shape (m,)
        Column means :math:`\bar\rho` of the landmarks' semimetric matrix.
    c : float
        Their mean.
    projection : ndarray of shape (m, r)
        :math:`V \Lambda^{-1/2}` of the landmarks' centred kernel (eigenvalues above 1e-10
        of the largest).
    semimetric : Semimetric
    mean : ndarray of shape (r,) or None
        The weighted mean of the training points' features, subtracted from every point's
        features (``None`` before it is known).
    """

    landmarks: np.ndarray
    col: np.ndarray
    c: float
    projection: np.ndarray
    semimetric: Semimetric
    mean: np.ndarray | None = None

    @property
    def metric(self) -> np.ndarray:
        r""":math:`A = V \Lambda^{-1} V^\top` (m x m): the features' inner product in terms of the
        kernel rows to the landmarks, :math:`\phi(x)^\top \phi(y) = K_{xL} A K_{yL}^\top`
        (before the centring by ``mean``)."""
        return self.projection @ self.projection.T

    @staticmethod
    def band_rows(m: int) -> int:
        """Points per band of kernel rows to m landmarks (2^17 values: a band stays in cache)."""
        return max(1, 2**17 // max(1, m))

    def kernel_rows(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r"""The kernel centred at the landmarks' mean between points X and the landmarks,
        :math:`K_{XL} = -\tfrac12 (R - \bar r 1^\top - 1 \bar\rho^\top + c)` (len(X) x m), and
        each point's :math:`K(x, x) = \bar r_x - c/2`."""
        K = self.semimetric(X, self.landmarks)
        r = K.mean(axis=1, keepdims=True)
        K -= r
        K -= self.col[None, :]
        K += self.c
        K *= -0.5
        return K, r[:, 0] - 0.5 * self.c

    def transform(self, X: np.ndarray, residual: bool = False):
        r"""Features of points X, in bands of rows. With ``residual``, also
        :math:`\|\phi_\perp(x)\|^2 = K(x, x) - \|\Phi_x\|^2`, the part of each point's feature
        vector outside the landmarks' span (:math:`K(x, x) = \bar r_x - c/2` for the kernel
        centred at the landmarks' mean), which the features leave out."""
        projection = self.projection
        out = np.empty((X.shape[0], projection.shape[1]))
        rest = np.empty(X.shape[0])
        step = self.band_rows(self.landmarks.shape[0])
        for a in range(0, X.shape[0], step):
            K, self_kernel = self.kernel_rows(X[a : a + step])
            out[a : a + step] = K @ projection
            if residual:
                band = out[a : a + step]
                rest[a : a + step] = self_kernel - np.einsum("ij,ij->i", band, band)
        if self.mean is not None:
            out -= self.mean
        return (out, np.maximum(rest, 0.0)) if residual else out
