r"""Random projections: the Euclidean distance averaged over one-dimensional distances
along random directions (Huang & Huo 2017)."""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from .._config import check_fits, memory_budget
from .._parallel import THREADS, round_robin
from ._base import PairwiseOperator, is_scalar
from .sorted import SortedOperator

__all__ = ["ProjectionOperator", "random_directions", "sphere_constant"]


def sphere_constant(d: int) -> float:
    r"""C_d = sqrt(pi) Gamma((d + 1)/2) / Gamma(d/2): :math:`\|x\| = C_d E_u |u^\top x|` for u
    uniform on the unit sphere of R^d (C_1 = 1, C_2 = pi/2, C_3 = 2)."""
    return float(np.sqrt(np.pi) * np.exp(gammaln((d + 1) / 2.0) - gammaln(d / 2.0)))


def random_directions(L: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """L directions on the unit sphere of R^d (L x d), in blocks of d orthonormal vectors, each
    block a uniformly random rotation (the QR decomposition of a Gaussian matrix with the
    signs fixed: Haar measure). Each direction is uniform on the sphere, so estimates stay
    unbiased, while the directions of a block are orthogonal: the projection statistic's
    standard deviation is 3 to 5 times smaller than with independent directions
    (measured for d = 2 to 50, L = 25 and 50)."""
    blocks = []
    for _ in range(-(-L // d)):
        Q, R = np.linalg.qr(rng.standard_normal((d, d)))
        blocks.append((Q * np.where(np.diag(R) < 0, -1.0, 1.0)).T)
    return np.vstack(blocks)[:L]


class ProjectionOperator(PairwiseOperator):
    r"""The random-projection estimate of the Euclidean distance matrix,
    :math:`\hat D_{ij} = \frac{C_d}{L} \sum_{l=1}^L |u_l^\top x_i - u_l^\top x_j|`.

    For u uniform on the unit sphere, :math:`E_u |u^\top (x - y)| = \|x - y\| / C_d`
    (Huang & Huo 2017), so :math:`\hat D` is an unbiased estimate of D, entry by entry,
    and every statistic linear in D (block sums, W, S, T, the energy distance) is the
    average of its one-dimensional values over the projections, times C_d. Each
    projection is a :class:`SortedOperator`: one O(n log n) sort, then O(n k) per
    labeling. :math:`\hat D` is a sum of one-dimensional distance matrices, so it is a
    semimetric of negative type itself: statistics built on it keep their properties
    (E >= 0, S + W = T), and a permutation test on it is exact in level for any L.
    The projections are shared among the threads, or among joblib tasks with ``n_jobs``;
    each shard projects and sorts its own directions. Memory O(n) per thread (its sorted
    projection, 56 n bytes, as :attr:`nbytes`), O(n m) more per thread for a product with m
    columns; as many threads run as the memory budget holds, at least one.
    """

    kind = "projection"
    approximation = "projection"
    batch_cap = None  # each call sorts every projection once: as few calls as the budget allows

    def __init__(self, X: np.ndarray, directions: np.ndarray):
        self.X, self.directions = X, directions
        self.n = X.shape[0]
        self.scale = sphere_constant(X.shape[1]) / directions.shape[0]
        self.threads = THREADS

    @property
    def n_projections(self) -> int:
        return self.directions.shape[0]

    def _threads_for(self, m: int) -> int:
        """Threads for a product with m columns: each holds a sorted projection and its own
        n x m output and temporaries; as many as the budget holds, at least one."""
        per_thread = 56 * self.n + 40 * self.n * m
        return max(1, min(self.threads, self.directions.shape[0], memory_budget() // per_thread))

    @property
    def nbytes(self) -> int:
        """The sorted projections the threads hold during a call (x, order, centred values,
        ranks, the projection and a labeling's members)."""
        return self._threads_for(0) * 56 * self.n

    def _projection(self, l: int) -> SortedOperator:
        return SortedOperator(self.X @ self.directions[l])

    def _projection_shards(self, columns: int, held: int) -> list[list[int]]:
        """The projections in shards, for work of ``columns`` per point and projection after
        the sort, with ``held`` columns of output per thread."""
        items = list(range(self.directions.shape[0]))
        if self._distributed():
            return self._shards(items, self.n * (np.log2(max(self.n, 2)) + columns), columns)
        return round_robin(items, self._threads_for(held))

    def _matmat(self, Z):
        parts = self._map("_projection_products", self._projection_shards(Z.shape[1], Z.shape[1]), Z=Z)
        out = parts[0]
        for other in parts[1:]:
            out += other
        out *= self.scale
        return out

    def _projection_products(self, projections: list[int], Z: np.ndarray) -> np.ndarray:
        out = np.zeros((self.n, Z.shape[1]))
        for l in projections:
            out += self._projection(l)._matmat(Z)
        return out

    def group_sums(self, codes, k, cross):
        check_fits(
            f"the permutation batch ({self.kind} {self.n} x {self.n} operator, {codes.shape[0]} labelings)",
            self.nbytes + self.group_sums_bytes(k) * codes.shape[0],
        )
        parts = self._map("_projection_group_sums", self._projection_shards(codes.shape[0] * k, 0), codes=codes, k=k, cross=cross)
        M = sum(parts)
        M *= self.scale
        return M

    def _projection_group_sums(self, projections: list[int], codes: np.ndarray, k: int, cross: bool) -> np.ndarray:
        return sum(self._projection(l).group_sums(codes, k, cross) for l in projections)

    def row_sums(self):
        """The sum over the projections of their O(n) row sums (no n x 1 product)."""
        if self._row_sums is None:
            check_fits(f"the row sums ({self.kind} {self.n} x {self.n} operator)", self.nbytes + 8 * self.n * self._threads_for(0))
            self._row_sums = sum(self._map("_projection_row_sums", self._projection_shards(1, 0)))
            self._row_sums *= self.scale
        return self._row_sums

    def _projection_row_sums(self, projections: list[int]) -> np.ndarray:
        out = np.zeros(self.n)
        for l in projections:
            out += self._projection(l).row_sums()
        return out

    def group_sums_bytes(self, k):
        return 2 * self.n + 64 * k * k

    def rows(self, idx):
        single = is_scalar(idx)
        rows = np.atleast_1d(np.arange(self.n)[idx])
        out = np.zeros((rows.size, self.n))
        for u in self.directions:
            y = self.X @ u  # the projections of the sorted operators, so that the diagonal is 0
            out += np.abs(y[rows, None] - y[None, :])
        out *= self.scale
        return out[0] if single else out

    def product_bytes(self, m):
        return self._threads_for(m) * 40 * self.n * m

    def restrict(self, idx):
        return ProjectionOperator(self.X[idx], self.directions).with_jobs(self.n_jobs)
