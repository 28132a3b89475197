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

from .._config import check_fits, memory_budget
from .._parallel import run_tasks  # joblib's tasks, Dask's when configured

__all__ = ["TILE", "Streamed", "centred_sums", "tile_side"]

#: Side of a tile (2 MiB): products then run at most of numpy's matrix-product rate.
TILE = 512


def tile_side(n: int, entry_bytes: float, fixed: float = 0.0, what: str = "tiles") -> int:
    """The side of the square tiles whose ``entry_bytes`` per entry (and ``fixed`` bytes besides)
    fit the memory budget: :data:`TILE`, or less when the budget is small (at least 16, else
    :class:`~energystats.WorkingMemoryError`)."""
    side = min(TILE, n)
    while side > 16 and fixed + entry_bytes * side * side > memory_budget(fixed + entry_bytes
                                                                          * side * side):
        side //= 2
    check_fits(what, fixed + entry_bytes * side * side)
    return side


def _band(X, metric, a: int, Z: np.ndarray, both: bool, tile: int = TILE):
    """Band a:a+TILE of the upper triangle: its rows of U Z (with ``both``, of D Z through its
    diagonal tile) and, with ``both``, the band's contribution U[a:b]' Z[a:b] below the diagonal
    (rows from a on; zero in the diagonal tile)."""
    n = X.shape[0]
    b = min(a + tile, n)
    top = np.zeros((b - a, Z.shape[1]))
    low = np.zeros((n - a, Z.shape[1])) if both else None
    for c in range(a, n, tile):
        e = min(c + tile, n)
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
        joblib's ``n_jobs`` for the bands (None: one, unless a joblib context says more).
    """

    def __init__(self, X: np.ndarray, metric, n_jobs=None):
        self.X, self.metric, self.n_jobs = X, metric, n_jobs
        self.shape = (X.shape[0], X.shape[0])

    def _products(self, Z: np.ndarray, both: bool):
        n, m = self.shape[0], Z.shape[1]
        tile = tile_side(n, 24.0, 8.0 * 3 * n * m,
                         f"a streamed product ({n} x {n} times {m} columns)")
        # run_tasks runs the bands here, in order, when joblib gives one worker
        return run_tasks(_band, [dict(a=a) for a in range(0, n, tile)], self.n_jobs,
                         shared=dict(X=self.X, metric=self.metric, Z=Z, both=both, tile=tile))

    def upper(self, Z: np.ndarray) -> np.ndarray:
        """U Z: the strict upper triangle of D (its diagonal is 0) times Z (n x m)."""
        return np.concatenate([top for top, _ in self._products(Z, False)])

    def __matmul__(self, Z: np.ndarray) -> np.ndarray:
        Z2 = Z.reshape(Z.shape[0], -1)
        parts = self._products(Z2, True)
        out = np.concatenate([top for top, _ in parts])
        for _, low in parts:
            out[out.shape[0] - low.shape[0]:] += low
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


def _tile(D, a: int, b: int, c: int, e: int) -> np.ndarray:
    """Block a:b x c:e of a held, streamed or graph matrix (a new array)."""
    if isinstance(D, Streamed):
        return D.metric(D.X[a:b], D.X[c:e])
    if isinstance(D, np.ndarray):
        return np.array(D[a:b, c:e], dtype=float)
    return D[np.arange(a, b)][:, c:e]


def _gram_band(mats: list, rows: list, a: int, unbiased: bool, tile: int) -> np.ndarray:
    """The centred products of band a:a+tile of the upper triangle (tiles right of the diagonal
    count twice)."""
    n, m = mats[0].shape[0], len(mats)
    b = min(a + tile, n)
    out = np.zeros((m, m))
    for c in range(a, n, tile):
        e = min(c + tile, n)
        tiles = []
        for D, r in zip(mats, rows):
            T = _tile(D, a, b, c, e)
            if unbiased:  # Székely & Rizzo (2014), eq. 3.1
                T -= (r[a:b, None] + r[None, c:e]) / (n - 2)
                T += r.sum() / ((n - 1) * (n - 2))
                if c == a:
                    np.fill_diagonal(T, 0.0)
            else:  # Székely, Rizzo & Bakirov (2007), eq. 2.7
                T -= (r[a:b, None] + r[None, c:e]) / n
                T += r.sum() / n**2
            tiles.append(T)
        weight = 1.0 if c == a else 2.0
        for k in range(m):
            for l in range(k, m):
                out[k, l] += weight * np.vdot(tiles[k], tiles[l])
    return out


def centred_sums(mats: list, unbiased: bool = False, n_jobs=None) -> np.ndarray:
    """m x m sums of the products of the centred matrices (double-centred, or U-centred with
    ``unbiased``) of held or streamed matrices on the same points: one pass for the row sums,
    one over the tiles of the upper triangle; memory O(n + m TILE^2)."""
    n, m = mats[0].shape[0], len(mats)
    tile = tile_side(n, 8.0 * (m + 2), 8.0 * m * n, f"the centred products of {m} {n} x {n} "
                     "matrices")
    rows = [D.sum(axis=1) for D in mats]
    parts = run_tasks(_gram_band, [dict(a=a) for a in range(0, n, tile)], n_jobs,
                      shared=dict(mats=mats, rows=rows, unbiased=unbiased, tile=tile))
    out = sum(parts)
    return np.triu(out) + np.triu(out, 1).T
