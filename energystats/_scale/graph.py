r"""The semimetric of a k-nearest-neighbour graph (França, Rizzo & Vogelstein 2020, eq. 35) as a
matrix known by its products, exact at every n in memory O(n m).

For the graph's sparse kernel :math:`K = \mathcal D^{-1} (A + \mathcal D) \mathcal D^{-1}`
(:class:`~energystats._neighbors.Graph`) with diagonal :math:`\kappa`, the semimetric is
:math:`\rho = \kappa \mathbf 1^\top + \mathbf 1 \kappa^\top - 2K` (eq. 8): a product costs
O(nnz(K) + n m), a row O(n). :class:`GraphMatrix` answers the operations a statistic asks of
its matrix (``@``, ``sum``, rows, the upper triangle's product) as :class:`~.streamed.Streamed`
does.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

__all__ = ["GraphMatrix"]


class GraphMatrix:
    """rho of the graph kernel K (n x n, sparse) as a matrix known by its products."""

    def __init__(self, K: sparse.csr_matrix):
        self.K = K.tocsr()
        self.kappa = self.K.diagonal()
        self.shape = self.K.shape

    def __matmul__(self, Z: np.ndarray) -> np.ndarray:
        Z2 = Z.reshape(Z.shape[0], -1)
        out = -2.0 * (self.K @ Z2)
        out += np.outer(self.kappa, Z2.sum(axis=0))
        out += self.kappa @ Z2
        return out.reshape(Z.shape)

    def upper(self, Z: np.ndarray) -> np.ndarray:
        """The strict upper triangle of rho times Z: row i gathers its columns j > i, by suffix
        sums of Z and of kappa Z, and K's strict upper entries."""
        after = np.cumsum(Z[::-1], axis=0)[::-1] - Z  # sum over j > i of Z_j
        kz = self.kappa[:, None] * Z
        kafter = np.cumsum(kz[::-1], axis=0)[::-1] - kz
        return self.kappa[:, None] * after + kafter - 2.0 * (sparse.triu(self.K, 1) @ Z)

    def sum(self, axis=None):
        rows = self.shape[0] * self.kappa + self.kappa.sum() - 2.0 * np.asarray(
            self.K.sum(axis=1)).ravel()
        return rows.sum() if axis is None else rows

    def __getitem__(self, rows) -> np.ndarray:
        if np.ndim(rows) == 0:
            return self[np.array([rows])][0]
        R = -2.0 * self.K[rows].toarray()
        R += self.kappa[rows][:, None] + self.kappa[None, :]
        return R

    def dense(self) -> np.ndarray:
        """rho itself (n x n)."""
        return self[np.arange(self.shape[0])]
