r"""The centred kernel :math:`G = -\tfrac12 J D J^\top` on top of any semimetric operator."""

from __future__ import annotations

import numpy as np

from ._base import PairwiseOperator, is_scalar
from ._tiled import TiledOperator

__all__ = ["CentredKernel"]


class CentredKernel(TiledOperator):
    r"""The centred kernel :math:`G = -\tfrac12 J D J^\top`, :math:`J = I - \mathbf 1 p^\top`,
    :math:`p = w / s`, on top of a semimetric operator D.

    It is the Gram matrix of eq. (7) with the weighted mean in feature space as
    reference point: :math:`G_{ij} = -\tfrac12 (D_{ij} - r_i - r_j + c)` with
    :math:`r = D p` and :math:`c = p^\top r`, and
    :math:`G_{ii} + G_{jj} - 2 G_{ij} = D_{ij}`. Products and rows are formed
    from D's, so the kernel costs no memory beyond D's operator and two
    n-vectors; r costs one product with D.
    """

    def __init__(self, D: PairwiseOperator, weights: np.ndarray | None = None, *, recipe=None):
        self.D = D
        self.recipe = recipe
        self.n = D.n
        self.nbytes = D.nbytes
        self.tile = D.tile
        self.threads = D.threads
        self.tiled = D.tiled
        self.approximation = D.approximation
        self.kind = f"centred {D.kind}"
        self.p = np.full(self.n, 1.0 / self.n) if weights is None else weights / weights.sum()
        self.r = D.matmat(self.p[:, None], "the kernel's centring")[:, 0]
        self.c = float(self.p @ self.r)

    def _matmat(self, Z):
        DZ = self.D._matmat(Z)  # the budget was checked for this operator's product
        col = Z.sum(axis=0)
        DZ -= np.outer(self.r, col)
        DZ -= self.r @ Z
        DZ += self.c * col
        DZ *= -0.5
        return DZ

    def rows(self, idx):
        R = np.array(self.D.rows(idx), dtype=float)  # a copy: dense rows may be views
        R -= (self.r[idx] if is_scalar(idx) else self.r[idx][:, None]) + self.r
        R += self.c
        R *= -0.5
        return R

    def diagonal(self):
        return self.r - 0.5 * self.c

    def _pair_cost(self) -> int:
        return self.D._pair_cost()

    def _tile(self, a, b, c, e, out=None):
        T = self.D._tile(a, b, c, e, out)
        if self.D.tile_views:  # a view of a held matrix: centre a copy
            T = np.array(T, dtype=float)
        T -= self.r[a:b, None] + self.r[None, c:e]
        T += self.c
        T *= -0.5
        return T

    def product_bytes(self, m):
        return self.D.product_bytes(m) + 8 * self.n * m

    def restrict(self, idx):
        raise NotImplementedError("restrict the semimetric operator, then centre it")
