r"""The semimetric matrix recomputed from the points, a band of rows at a time.

:class:`Streamed` is the n x n matrix D of a semimetric on points X, never held: a product
visits the tiles on and above the diagonal once, each a ``TILE`` x ``TILE`` block computed
from the points, so that memory stays O(n m + TILE^2) for an n x m product. The bands of rows
are independent tasks (joblib's, on a Dask cluster inside ``joblib.parallel_config(backend=
"dask")``), and their results are added in band order, so a product is the same whatever
``n_jobs`` or backend runs it.

Two products are offered, as for the dense matrix (:func:`energystats._scale.upper_product`):
the upper triangle :math:`U Z` (each pair once; twice the quadratic forms :math:`z^\top D z =
2 z^\top U z` then follow, França, Rizzo & Vogelstein 2020, eq. 13) and the whole :math:`D Z =
U Z + U^\top Z`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["TILE", "Streamed"]

#: Side of a tile (2 MiB): products then run at most of numpy's matrix-product rate.
TILE = 512


def _band(X, metric, a: int, Z: np.ndarray, both: bool):
    """Band a:a+TILE of the upper triangle: its rows of U Z (with ``both``, of D Z through its
    diagonal tile) and, with ``both``, the band's contribution U[a:b]' Z[a:b] below the diagonal
    (rows from a on; zero in the diagonal tile)."""
    n = X.shape[0]
    b = min(a + TILE, n)
    top = np.zeros((b - a, Z.shape[1]))
    low = np.zeros((n - a, Z.shape[1])) if both else None
    for c in range(a, n, TILE):
        e = min(c + TILE, n)
        T = metric(X[a:b], X[c:e])
        if c == a:  # the diagonal tile: its strict upper triangle for U Z, all of it for D Z
            top += (T if both else np.triu(T, 1)) @ Z[c:e]
            continue
        top += T @ Z[c:e]
        if both:
            low[c - a : e - a] += T.T @ Z[a:b]
    return top, low


class Streamed:
    """D = metric(X, X), n x n, known by its products (see the module's docstring).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The points.
    metric : callable
        ``metric(A, B)``: the len(A) x len(B) block of the semimetric.
    n_jobs : int or None
        joblib's ``n_jobs`` for the bands; None runs them here.
    """

    def __init__(self, X: np.ndarray, metric, n_jobs=None):
        self.X, self.metric, self.n_jobs = X, metric, n_jobs
        self.shape = (X.shape[0], X.shape[0])

    def _products(self, Z: np.ndarray, both: bool):
        from .._parallel import run_tasks  # joblib's tasks, Dask's when configured

        starts = range(0, self.shape[0], TILE)
        if self.n_jobs is None or len(starts) == 1:
            return [_band(self.X, self.metric, a, Z, both) for a in starts]
        return run_tasks(_band, [dict(a=a) for a in starts], self.n_jobs,
                         shared=dict(X=self.X, metric=self.metric, Z=Z, both=both))

    def upper(self, Z: np.ndarray) -> np.ndarray:
        """U Z: the strict upper triangle of D (its diagonal is 0) times Z (n x m)."""
        return np.concatenate([top for top, _ in self._products(Z, False)])

    def __matmul__(self, Z: np.ndarray) -> np.ndarray:
        Z2 = Z.reshape(Z.shape[0], -1)
        parts = self._products(Z2, True)
        out = np.concatenate([top for top, _ in parts])
        for (_, low), a in zip(parts, range(0, self.shape[0], TILE)):
            out[a:] += low
        return out.reshape(Z.shape)

    def sum(self, axis=None):
        """Row (or column) sums, or the total when ``axis`` is None."""
        rows = self @ np.ones(self.shape[0])
        return rows.sum() if axis is None else rows

    def __getitem__(self, rows) -> np.ndarray:
        """Rows of D (an integer: one row, 1-D)."""
        if np.ndim(rows) == 0:
            return self.metric(self.X[rows][None, :], self.X)[0]
        return self.metric(self.X[rows], self.X)
