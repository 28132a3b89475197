r"""Operators whose products visit square tiles: the tiles themselves, and the block
sums of many labelings from the tiles on and above the diagonal."""

from __future__ import annotations

import abc
from typing import Callable

import numpy as np

from .._config import memory_budget
from ._base import TILE, PairwiseOperator

__all__ = ["TILE", "TiledOperator", "group_tile", "labeling_bytes", "one_hot", "upper_tiles"]


def upper_tiles(n: int, t: int) -> list[tuple[int, int, int, int]]:
    """The tiles (a, b, c, e) = rows a:b, columns c:e on and above the diagonal, side t."""
    return [(a, min(a + t, n), c, min(c + t, n)) for a in range(0, n, t) for c in range(a, n, t)]


def group_tile(n: int, tile: int) -> int:
    """Tile side for the block sums of many labelings: small enough that the upper triangle is
    most of the work (at least four tiles a side), large enough for efficient products."""
    return max(1, min(tile, max(128, -(-n // 4))))


def labeling_bytes(n: int, k: int, tile: int, threads: int) -> int:
    """Memory the block sums of one labeling need over tiles of side ``tile``: its codes, and
    per thread the one-hot indicators of two blocks of rows, a tile's product and the sums."""
    return 2 * n + threads * (8 * (k - 1) * 4 * group_tile(n, tile) + 32 * k * k)


def one_hot(codes_t: np.ndarray, k: int) -> np.ndarray:
    """One-hot indicators of groups 0..k-2 from transposed codes (rows x B): rows x (k-1) x B,
    each group's B columns contiguous."""
    Z = np.empty((codes_t.shape[0], k - 1, codes_t.shape[1]))
    for j in range(k - 1):
        np.equal(codes_t, j, out=Z[:, j, :], casting="unsafe")
    return Z


def upper_tile_sums(
    tile: Callable,
    tiles: list,
    codes_t: np.ndarray,
    k: int,
    want_rows: bool,
    Z: np.ndarray | None = None,
):
    r"""The quadratic forms :math:`z_i^\top A z_j` of the one-hot indicators of groups
    0..k-2 under B labelings (``codes_t``: n x B, the codes transposed) from the given tiles
    on or above the diagonal: tile (I, J) takes one product, :math:`Y = A_{IJ} Z_J`, and the
    column-wise sums of :math:`Z_I \odot Y`. The indicators ``Z`` of all n points (n x K x
    B, K = k - 1) are used when given; otherwise they are formed per block of rows, in memory
    O(tile B k) rather than O(n B k). Returns the sums of the diagonal tiles and of the others
    (K x K x B each; the tiles below the diagonal are the transposes of the latter) and, when
    ``want_rows``, A's row sums over these tiles."""
    n, B = codes_t.shape
    K = k - 1
    diag, off = np.zeros((K, K, B)), np.zeros((K, K, B))
    rows = np.zeros(n) if want_rows else None
    bands = {}  # the one-hot rows of the current row band
    columns = None  # a reused buffer for those of the current column band (no fresh pages per tile)

    def indicators(a: int, b: int, row_band: bool) -> np.ndarray:
        nonlocal columns
        if Z is not None:
            return Z[a:b]
        if row_band:
            if (a, b) not in bands:
                bands.clear()
                bands[(a, b)] = one_hot(codes_t[a:b], k)
            return bands[(a, b)]
        if columns is None or columns.shape[0] < b - a:
            columns = np.empty((b - a, K, B))
        out = columns[: b - a]
        for j in range(K):
            np.equal(codes_t[a:b], j, out=out[:, j, :], casting="unsafe")
        return out

    # work arrays reused from tile to tile: fresh ones would be mapped anew, page by page
    # (glibc returns large blocks to the system; Dask's workers make it do so early)
    side = max(max(b - a, e - c) for a, b, c, e in tiles) if tiles else 0
    tile_buffer, product_buffer = np.empty(side * side), np.empty(side * K * B)
    for a, b, c, e in tiles:
        T = tile(a, b, c, e, tile_buffer[: (b - a) * (e - c)].reshape(b - a, e - c))
        Y = product_buffer[: (b - a) * K * B].reshape(b - a, K * B)
        np.matmul(T, indicators(c, e, False).reshape(e - c, K * B), out=Y)
        Y = Y.reshape(b - a, K, B)
        Zi = indicators(a, b, True)
        if K == 1:
            part = np.einsum("nb,nb->b", Zi[:, 0, :], Y[:, 0, :])[None, None, :]
        else:
            part = np.einsum("nib,njb->ijb", Zi, Y)
        (diag if a == c else off)[...] += part
        if want_rows:
            rows[a:b] += T.sum(axis=1)
            if c != a:
                rows[c:e] += T.sum(axis=0)
    return diag, off, rows


class TiledOperator(PairwiseOperator):
    """An operator that can produce any square tile A[a:b, c:e] (:meth:`_tile`), and so the
    block sums of many labelings in one pass over the tiles on and above the diagonal."""

    tiled = True

    @abc.abstractmethod
    def _tile(self, a: int, b: int, c: int, e: int, out: np.ndarray | None = None) -> np.ndarray:
        """The block A[a:b, c:e]: a view when the matrix is held, else computed, into ``out``
        (a C-contiguous (b - a) x (e - c) array) when given."""

    def group_sums(self, codes: np.ndarray, k: int, cross: bool) -> np.ndarray:
        r"""Block sums of B labelings at once (see :meth:`PairwiseOperator.group_sums`).

        Only quadratic forms :math:`z_i^\top A z_j` of the one-hot indicators of
        groups 0..k-2 are needed, and A is symmetric, so each tile on or above the
        diagonal takes one product: tile (I, J) gives :math:`Y = A_{IJ} Z_J` and the
        column-wise sums of :math:`Z_I \odot Y`; the tiles below the diagonal are the
        transposes. Half the flops of forming :math:`A Z`, and no n x B(k-1)
        output. The row sums close the last group (sum_j M_ij = z_i' A 1).
        """
        B, n = codes.shape
        K = k - 1
        self.check_beside(
            f"the permutation batch ({self.kind} {n} x {n} operator, {B} labelings)",
            self.group_sums_bytes(k) * B,
        )
        want_rows = self._row_sums is None
        codes_t = np.ascontiguousarray(codes.T)
        # all the indicators at once when they fit beside the batch (fewer, larger arrays);
        # distributed tasks form their own
        fits = self.fits_beside((self.group_sums_bytes(k) + 8 * n * K) * B)
        Z = one_hot(codes_t, k) if fits and not self._distributed() else None
        t = self._group_tile()
        tiles = upper_tiles(n, t)
        if self._distributed():  # tasks of whole row bands (their indicators formed once), a
            bands = sorted({a for a, *_ in tiles})  # long band with a short one: equal work
            pairs = [{bands[i], bands[-1 - i]} for i in range((len(bands) + 1) // 2)]
            groups = self._shards(pairs, t * n * (K * B + self._pair_cost()), K * B)
            shards = [
                [tile for tile in tiles if any(tile[0] in pair for pair in group)]
                for group in groups
            ]
        else:
            shards = self._shards(tiles, t * t * K * B, K * B)
        shares = self._map(
            "_tile_group_sums",
            shards,
            codes_t=codes_t,
            k=k,
            want_rows=want_rows,
            Z=Z,
            form=self._distributed(),
        )
        P = sum(d + o + o.transpose(1, 0, 2) for d, o, _ in shares)  # K x K x B: z_i' A z_j
        if want_rows:
            self._row_sums = np.sum([r for _, _, r in shares], axis=0)
        rows = self.row_sums()
        M = np.empty((B, k, k))
        M[:, :K, :K] = P.transpose(2, 0, 1)
        R = np.zeros((K, B))  # z_i' A 1
        step = n if Z is not None else self._group_tile()
        for a in range(0, n, step):
            R += np.einsum(
                "n,nkb->kb",
                rows[a : a + step],
                Z[a : a + step] if Z is not None else one_hot(codes_t[a : a + step], k),
            )
        R = R.T
        M[:, :K, K] = R - M[:, :K, :K].sum(axis=2)
        M[:, K, :K] = M[:, :K, K]
        M[:, K, K] = (rows.sum() - R.sum(axis=1)) - M[:, :K, K].sum(axis=1)
        return M

    def _tile_group_sums(
        self,
        tiles: list,
        codes_t: np.ndarray,
        k: int,
        want_rows: bool,
        Z: np.ndarray | None,
        form: bool,
    ):
        """One shard of :meth:`group_sums`: :func:`upper_tile_sums` of a group of tiles; a task
        (``form``) forms all the indicators at once when they fit its process's budget."""
        n, B = codes_t.shape
        if form and 8 * n * (k - 1) * B <= memory_budget() // 2:
            Z = one_hot(codes_t, k)
        return upper_tile_sums(self._tile, tiles, codes_t, k, want_rows, Z)

    def group_sums_bytes(self, k: int) -> int:
        """Memory :meth:`group_sums` needs per labeling (:func:`labeling_bytes`)."""
        return labeling_bytes(self.n, k, self.tile, self.threads)

    def _group_tile(self) -> int:
        """Tile side for :meth:`group_sums` (:func:`group_tile`)."""
        return group_tile(self.n, self.tile)
