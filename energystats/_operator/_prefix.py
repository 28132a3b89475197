r"""Block sums on the line from one sort: the labels in sorted order, their prefix counts,
and the gaps between consecutive sorted values (the operators on the line: sorted,
projection).

For sorted values :math:`x_{(1)} \le \dots \le x_{(n)}` with gaps
:math:`g_t = x_{(t+1)} - x_{(t)}`, a pair straddles gap t when one point is among the first
t and the other is not, so (França, Rizzo & Vogelstein 2020, eq. 60-62, in gap form)

.. math::

    M_{ij} = \sum_{x \in C_i, y \in C_j} |x - y|
           = \sum_t g_t \,[R_i(t) (m_j - R_j(t)) + R_j(t) (m_i - R_i(t))]
           = m_j a_i + m_i a_j - 2 A_{ij},

with :math:`R_j(t)` the (weighted) members of :math:`C_j` among the first t sorted points,
:math:`a_j = \sum_t g_t R_j(t)` and :math:`A_{ij} = \sum_t g_t R_i(t) R_j(t)`. The formula
does not involve the values themselves, only their differences: no centring is needed.

For many labelings of the same points (a permutation null), one group, the largest, needs no
count of its own: with :math:`\tau_t = t`, :math:`R_K = \tau - \sum_{j \ne K} R_j`, so
:math:`a_K`, :math:`A_{iK}` and :math:`A_{KK}` follow from :math:`\sum_t g_t \tau_t^p R_j(t)`
(p = 0, 1) and the other :math:`A_{ij}`. The labelings are held as bits, point-major
(:class:`PackedLabelings`): a block of sorted positions gathers one short row per point for
every labeling at once, and each labeling's prefix counts are one integer cumulative sum over
the block.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = [
    "PackedLabelings",
    "as_packed",
    "block_sums_on_line",
    "group_sums_on_line",
    "labeling_bytes",
    "sweep_bytes",
    "total_on_line",
]

#: Sorted positions per block of a sweep: the block's int32 counts and float64 copies for 128
#: labelings (6 MiB) stay in the last-level cache, and numpy's per-call cost is a few per
#: cent (measured fastest on this package's benchmark machine among 1024 to 8192).
BLOCK = 4096
#: Labelings unpacked at once in a block (16 bytes of bits per point).
CHUNK = 128


class PackedLabelings:
    """``count`` labelings of n points into k groups, as bits, point-major.

    Row p of :attr:`bits` (n x planes * width bytes) holds the codes of point p under every
    labeling: bit b % 8 of byte ``q * width + b // 8`` is bit q of the code under labeling b
    (``planes`` = bits per code, ``width`` = bytes per plane). A gather of the rows of a
    block of points brings every labeling's codes of those points at once. :attr:`sizes`
    (count x k) holds the group sizes of each labeling.
    """

    def __init__(self, bits: np.ndarray, sizes: np.ndarray, k: int):
        self.bits, self.sizes, self.k = bits, sizes, k
        self.n, self.count = bits.shape[0], sizes.shape[0]
        self.planes = _planes(k)
        self.width = -(-self.count // 8)
        self._pending = None  # the byte being filled by put(), per plane

    @classmethod
    def empty(cls, n: int, count: int, k: int) -> PackedLabelings:
        """Room for ``count`` labelings, filled by :meth:`put`; rows padded to a multiple of 8
        bytes (a gather of random rows of 16 bytes takes half the time of 13)."""
        return cls(
            np.zeros((n, _row_bytes(count, k)), dtype=np.uint8),
            np.zeros((count, k), dtype=np.int64),
            k,
        )

    @classmethod
    def from_codes(cls, codes: np.ndarray, k: int) -> PackedLabelings:
        """The labelings ``codes`` (count x n, values 0..k-1) as bits."""
        count, n = codes.shape
        out = cls.empty(n, count, k)
        for q in range(out.planes):
            plane = np.packbits(((codes >> q) & 1).astype(np.uint8), axis=0, bitorder="little")
            out.bits[:, q * out.width : (q + 1) * out.width] = plane.T
        for b in range(count):
            out.sizes[b] = np.bincount(codes[b], minlength=k)
        return out

    @staticmethod
    def bytes_per_labeling(n: int, k: int) -> int:
        """Bytes of one labeling's bits (with the rows' padding) and sizes."""
        return -(-n * _planes(k) // 8) + n // 8 + 8 * k

    @property
    def nbytes(self) -> int:
        return self.bits.nbytes + self.sizes.nbytes

    def put(self, b: int, codes: np.ndarray, sizes: np.ndarray) -> None:
        """Store labeling b (codes of the n points, group ``sizes``); labelings come in order
        0, 1, 2, ... (eight of them fill a byte of every point before it is written; the
        byte being filled takes ``planes * n`` bytes more)."""
        if self._pending is None:
            self._pending = np.zeros((self.planes, self.n), dtype=np.uint8)
        bit = np.uint8(b % 8)
        for q in range(self.planes):
            plane = codes if self.planes == 1 else (codes >> q) & 1
            self._pending[q] |= plane.astype(np.uint8, copy=False) << bit
            if b % 8 == 7 or b == self.count - 1:
                self.bits[:, q * self.width + b // 8] = self._pending[q]
                self._pending[q] = 0
        self.sizes[b] = sizes
        if b == self.count - 1:
            self._pending = None

    def codes_block(self, rows: np.ndarray, first: int, last: int, out: dict) -> np.ndarray:
        """The codes of labelings first:last (a multiple of 8 from ``first``) for the gathered
        rows (s x bytes), as a (last - first) x s uint8 array, in buffers kept in ``out``."""
        s = rows.shape[0]
        nbytes = -(-(last - first) // 8)
        lo = first // 8
        codes = None
        for q in range(self.planes):
            packed = _buffer(out, "packed", (nbytes, s), np.uint8)
            np.copyto(packed, rows[:, q * self.width + lo : q * self.width + lo + nbytes].T)
            bits = _buffer(out, f"bits{q}", (nbytes, 8, s), np.uint8)
            shifted = _buffer(out, "shifted", (nbytes, s), np.uint8)
            for j in range(8):
                np.right_shift(packed, j, out=shifted)
                np.bitwise_and(shifted, 1, out=bits[:, j, :])
            plane = bits.reshape(8 * nbytes, s)[: last - first]
            if q == 0:
                codes = plane
            else:
                np.left_shift(plane, q, out=plane)
                codes |= plane
        return codes


def _planes(k: int) -> int:
    """Bits per code of k groups."""
    return max(1, (k - 1).bit_length())


def _row_bytes(count: int, k: int) -> int:
    """Bytes of a point's row of bits: ``planes`` times ``count`` bits, padded to 8 bytes."""
    return 8 * -(-_planes(k) * -(-count // 8) // 8)


def as_packed(codes, k: int) -> PackedLabelings:
    """Labelings as bits: ``codes`` itself when packed, else the array (count x n) packed."""
    return (
        codes
        if isinstance(codes, PackedLabelings)
        else PackedLabelings.from_codes(np.asarray(codes), k)
    )


def _buffer(store: dict, name: str, shape: tuple, dtype) -> np.ndarray:
    """A work array kept in ``store`` from block to block (fresh ones would be mapped anew)."""
    size = int(np.prod(shape))
    held = store.get(name)
    if held is None or held.size < size or held.dtype != dtype:
        held = store[name] = np.empty(size, dtype=dtype)
    return held[:size].reshape(shape)


def sweep_bytes(d: int = 1) -> int:
    """Bytes of a sweep's work arrays per thread that do not grow with the labelings: a block's
    points (d coordinates), gaps and weights."""
    return BLOCK * (8 * d + 64)


def labeling_bytes(n: int, k: int) -> int:
    """Bytes per labeling of a sweep into k groups: its bits and sizes, its moments and block
    sums, and its share of a block's work arrays (bits, codes, int32 counts, a float64 copy
    per group but one, a product; counted for every labeling, though a block unpacks at most
    CHUNK of them at once)."""
    block = _planes(k) + 3 + 8 * (6 + 8 * (k - 1) + (8 if k > 2 else 0))
    return PackedLabelings.bytes_per_labeling(n, k) + 8 * (k * k + 4 * k) + BLOCK * block // 8


class _Sweep:
    """The moments of one sorted sequence over blocks of positions, for many labelings."""

    def __init__(self, labelings: PackedLabelings, implicit: int):
        self.labelings, self.implicit = labelings, implicit
        self.explicit = [j for j in range(labelings.k) if j != implicit]
        B, K = labelings.count, len(self.explicit)
        self.C = np.zeros((K, B))  # members before the block
        self.a = np.zeros((K, B))  # sum_t g_t R_j(t)
        self.c = np.zeros((K, B))  # sum_t g_t t R_j(t)
        self.A = np.zeros((K, K, B))  # sum_t g_t R_i(t) R_j(t)
        self.G1 = self.G2 = 0.0  # sum_t g_t t, sum_t g_t t^2
        self.buffers: dict = {}

    def block(self, start: int, rows: np.ndarray, gaps: np.ndarray) -> None:
        """Positions start..start+s-1: the labelings' rows of their points (s x bytes) and the
        gaps after them (s; 0 after the last point)."""
        s = gaps.shape[0]
        tau = np.arange(start + 1.0, start + s + 1.0)
        weighted = _buffer(self.buffers, "weighted", (s,), np.float64)
        np.multiply(gaps, tau, out=weighted)
        Gb, Gtb = float(gaps.sum()), float(weighted.sum())
        self.G1 += Gtb
        self.G2 += float(weighted @ tau)
        B, K = self.labelings.count, len(self.explicit)
        for first in range(0, B, CHUNK):
            last = min(first + CHUNK, B)
            codes = self.labelings.codes_block(rows, first, last, self.buffers)
            counts = _buffer(self.buffers, "counts", (last - first, s), np.int32)
            R = _buffer(self.buffers, "R", (K, last - first, s), np.float64)
            lin = np.empty((K, 2, last - first))
            ends = np.empty((K, last - first))
            mask = _buffer(self.buffers, "mask", (last - first, s), np.bool_)
            for e, j in enumerate(self.explicit):
                if self.labelings.planes == 1:
                    indicator = (
                        codes if j == 1 else np.bitwise_xor(codes, 1, out=mask.view(np.uint8))
                    )
                else:
                    indicator = np.equal(codes, j, out=mask)
                np.cumsum(indicator, axis=1, dtype=np.int32, out=counts)
                ends[e] = counts[:, -1]
                np.copyto(R[e], counts)
                np.matmul(R[e], gaps, out=lin[e, 0])  # two products with one vector each:
                np.matmul(R[e], weighted, out=lin[e, 1])  # faster than one with both
            C = self.C[:, first:last]
            self.a[:, first:last] += C * Gb + lin[:, 0]
            self.c[:, first:last] += C * Gtb + lin[:, 1]
            for e in range(K):  # R[e] is last needed for its square, taken in place
                for f in (*range(e + 1, K), e):
                    product = np.square(R[e], out=R[e]) if f == e else R[e] * R[f]
                    q = product @ gaps + C[e] * C[f] * Gb + C[e] * lin[f, 0] + C[f] * lin[e, 0]
                    self.A[e, f, first:last] += q
                    if f != e:
                        self.A[f, e, first:last] += q
            C += ends

    def result(self, n: int) -> tuple[np.ndarray, float]:
        """The block sums M (count x k x k) and the sum over all ordered pairs."""
        k, K = self.labelings.k, self.implicit
        m = self.labelings.sizes.T.astype(float)  # k x count
        E = self.explicit
        M = np.empty((self.labelings.count, k, k))
        a = np.empty((k, self.labelings.count))
        A = np.empty((k, k, self.labelings.count))
        a[E] = self.a
        A[np.ix_(E, E)] = self.A
        a[K] = self.G1 - self.a.sum(axis=0)
        A[E, K] = A[K, E] = self.c - self.A.sum(axis=1)
        A[K, K] = self.G2 - 2.0 * self.c.sum(axis=0) + self.A.sum(axis=(0, 1))
        for i in range(k):
            for j in range(i, k):
                M[:, i, j] = M[:, j, i] = m[j] * a[i] + m[i] * a[j] - 2.0 * A[i, j]
        return M, 2.0 * (n * self.G1 - self.G2)


def group_sums_on_line(
    n: int,
    labelings: PackedLabelings,
    positions: Callable[[int, int], tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, float]:
    """Block sums of every labeling (count x k x k) and the sum over all ordered pairs, for
    points on the line given in sorted order by ``positions(a, b)``: the points at sorted
    positions a..b-1 and their values with the next one's (b - a + 1 values, or b - a at the
    end)."""
    sizes = labelings.sizes
    implicit = int(np.argmax(sizes.min(axis=0))) if labelings.count else 0
    sweep = _Sweep(labelings, implicit)
    rows = None
    for a in range(0, n, BLOCK):
        b = min(a + BLOCK, n)
        idx, values = positions(a, b)
        gaps = np.zeros(b - a)
        np.subtract(values[1:], values[:-1], out=gaps[: values.shape[0] - 1])
        rows = _buffer(sweep.buffers, "rows", (b - a, labelings.bits.shape[1]), np.uint8)
        np.take(labelings.bits, idx, axis=0, out=rows)
        sweep.block(a, rows, gaps)
    return sweep.result(n)


def block_sums_on_line(
    n: int,
    codes: np.ndarray,
    weights: np.ndarray | None,
    k: int,
    positions: Callable[[int, int], tuple[np.ndarray, np.ndarray]],
) -> np.ndarray:
    """Z' A Z (k x k) for the weighted indicator Z of ``codes`` (weights w, or 1), for points
    on the line given in sorted order by ``positions`` (as in :func:`group_sums_on_line`):
    weighted prefix sums of every group, in blocks; memory O(block k)."""
    C = np.zeros(k)
    a = np.zeros(k)
    A = np.zeros((k, k))
    for start in range(0, n, BLOCK):
        b = min(start + BLOCK, n)
        idx, values = positions(start, b)
        gaps = np.zeros(b - start)
        np.subtract(values[1:], values[:-1], out=gaps[: values.shape[0] - 1])
        Z = np.zeros((k, b - start))
        Z[codes[idx], np.arange(b - start)] = 1.0 if weights is None else weights[idx]
        r = np.cumsum(Z, axis=1)
        Gb = gaps.sum()
        lin = r @ gaps
        A += np.outer(C, C) * Gb + np.outer(C, lin) + np.outer(lin, C) + (r * gaps) @ r.T
        a += C * Gb + lin
        C += r[:, -1]
    M = C[None, :] * a[:, None] + C[:, None] * a[None, :] - 2.0 * A
    return 0.5 * (M + M.T)


def total_on_line(n: int, positions: Callable[[int, int], tuple[np.ndarray, np.ndarray]]) -> float:
    """The sum of |x - y| over all ordered pairs, 2 sum_t g_t t (n - t), in blocks."""
    total = 0.0
    for a in range(0, n, BLOCK):
        b = min(a + BLOCK, n)
        _, values = positions(a, b)
        gaps = np.diff(values)
        tau = np.arange(a + 1.0, a + gaps.shape[0] + 1.0)
        total += float((gaps * tau) @ (n - tau))
    return 2.0 * total
