"""The semimetric recomputed from the points in square tiles for every product."""

from __future__ import annotations

import numpy as np

from .._parallel import THREADS, threads_within
from .._semimetric import Semimetric
from ._base import is_scalar
from ._tiled import TILE, TiledOperator, upper_tiles

__all__ = ["TILE_ENTRY_BYTES", "StreamedOperator"]

#: Bytes of a streamed product's temporaries per tile entry: the tile and the
#: semimetric's own temporaries (cdist's output, a power or an exponential).
TILE_ENTRY_BYTES = 8 * 3


class StreamedOperator(TiledOperator):
    r"""D recomputed from the points in square tiles for every product.

    A product :math:`D Z` visits the tiles on and above the diagonal once:
    tile (I, J) with I < J adds :math:`T Z_J` to rows I and :math:`T^\top Z_I`
    to rows J, so each unordered pair is evaluated once and all GEMMs have an
    inner dimension of a whole tile. From 16 tiles a side, the tiles are
    shared among ``threads`` threads in a fixed round-robin, each with its
    own output and single-threaded BLAS (the semimetric is then evaluated on
    every core too); the outputs are added in a fixed order, so a product is
    the same on every run. Memory: ``threads`` outputs (n x m) and tiles;
    time per product O(n^2 (d + m)).
    """

    kind = "streamed"
    batch_cap = None  # every batch is a pass over the tiles: the fewer, the better

    def __init__(
        self,
        X: np.ndarray,
        semimetric: Semimetric,
        tile: int = TILE,
        threads: int | None = None,
        *,
        recipe=None,
    ):
        self.X = X
        self.recipe = recipe
        self.semimetric = semimetric
        self.n = X.shape[0]
        self.tile = max(1, min(tile, self.n))
        self.threads = THREADS if threads is None else threads
        # one thread's tile; more as the budget holds them
        self.nbytes = TILE_ENTRY_BYTES * self.tile**2

    def _threads_for(self, m: int) -> int:
        """Threads for a product with m columns. Sharing the tiles among threads pays when the
        semimetric is a large part of a tile's work and there are many tiles: measured on the
        benchmark machine, from 8 tiles a side for a few columns (k-groups, statistics) and from
        16 for hundreds (permutation batches); below, one multi-threaded BLAS product at a time
        is faster."""
        threads = self.threads if self.n >= (8 if m <= 32 else 16) * self.tile else 1
        # beside the operator's tile, one more n x m array: the centring a kernel applies to the
        # output
        return min(threads, threads_within(self._thread_bytes(m), self.nbytes + 8 * self.n * m))

    def _thread_bytes(self, m: int) -> int:
        """A thread's output and tile products for m columns, and its tile."""
        return 8 * (self.n * m + 2 * self.tile * m) + TILE_ENTRY_BYTES * self.tile**2

    def _pair_cost(self) -> int:
        return self.X.shape[1]

    def _tile(self, a, b, c, e, out=None):
        return self.semimetric(self.X[a:b], self.X[c:e], out=out)

    def _matmat(self, Z):
        n, m = self.n, Z.shape[1]
        want_rows = self._row_sums is None  # collected on the first pass
        if self._distributed():  # tasks of row bands, each returning its band of the product
            bands = [(a, min(a + self.tile, n)) for a in range(0, n, self.tile)]
            groups = self._shards(bands, self.tile * n * (m + self._pair_cost()), m)
            out, rows = np.empty((n, m)), np.empty(n)
            for group, results in zip(
                groups, self._map("_band_products", groups, Z=Z, want_rows=want_rows)
            ):
                for (a, b), (block, block_rows) in zip(group, results):
                    out[a:b] = block
                    if want_rows:
                        rows[a:b] = block_rows
        else:  # shares of the tiles on and above the diagonal, one per thread
            tiles = upper_tiles(n, self.tile)
            shares = self._map(
                "_symmetric_products",
                self._shards(tiles, self.tile**2 * m, m),
                Z=Z,
                want_rows=want_rows,
            )
            out = shares[0][0]
            for other, _ in shares[1:]:
                out += other
            rows = np.sum([r for _, r in shares], axis=0) if want_rows else None
        if want_rows:
            self._row_sums = rows
        return out

    def _symmetric_products(self, tiles: list, Z: np.ndarray, want_rows: bool):
        """One share of a product: tile (I, J) adds T Z_J to rows I and T' Z_I to rows J."""
        out = np.zeros((self.n, Z.shape[1]))
        rows = np.zeros(self.n) if want_rows else None
        for a, b, c, e in tiles:
            T = self._tile(a, b, c, e)
            out[a:b] += T @ Z[c:e]
            if want_rows:
                rows[a:b] += T.sum(axis=1)
            if c != a:
                out[c:e] += T.T @ Z[a:b]
                if want_rows:
                    rows[c:e] += T.sum(axis=0)
        return out, rows

    def _band_products(self, bands: list, Z: np.ndarray, want_rows: bool):
        """One task of a distributed product: (D[a:b] @ Z, D[a:b] @ 1) for each band, the
        columns in tiles (twice the semimetric work of the symmetric shares, for results of
        the band's size)."""
        out = []
        for a, b in bands:
            block = np.zeros((b - a, Z.shape[1]))
            rows = np.zeros(b - a) if want_rows else None
            for c in range(0, self.n, self.tile):
                T = self._tile(a, b, c, min(c + self.tile, self.n))
                block += T @ Z[c : c + self.tile]
                if want_rows:
                    rows += T.sum(axis=1)
            out.append((block, rows))
        return out

    def rows(self, idx):
        if is_scalar(idx):
            return self.semimetric(self.X[idx][None, :], self.X)[0]
        return self.semimetric(self.X[idx], self.X)

    def product_bytes(self, m):
        """The threads' outputs and tiles (:meth:`_threads_for`: as many as the budget holds)."""
        return self._threads_for(m) * self._thread_bytes(m) - self.nbytes

    def restrict(self, idx):
        return StreamedOperator(
            self.X[idx], self.semimetric, self.tile, self.threads
        ).with_jobs(self.n_jobs)
