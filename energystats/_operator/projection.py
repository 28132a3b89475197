r"""Random projections: the Euclidean distance averaged over one-dimensional distances
along random directions (Huang & Huo 2017), the one random-projection back-end of both
families: the energy statistics (block sums of :class:`ProjectionOperator`) and the
distance covariance family (:func:`projected_pair_sums`: per projection pair, the
one-dimensional distance covariance sums of the projected samples).

The directions (:func:`random_directions`), the constant C_d (:func:`sphere_constant`),
the one validation of ``approximation="projection"`` and ``n_projections``
(:func:`check_projection`) and the one default number of directions
(:data:`N_PROJECTIONS`, defined beside the options in :mod:`.options`) are here, used by
every public function that takes them."""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from .._config import check_fits, memory_budget
from .._parallel import THREADS, round_robin, run_threads
from .._semimetric import Semimetric
from .._validation import check_positive_int
from ._base import PairwiseOperator, is_scalar
from ._prefix import (
    PackedLabelings,
    as_packed,
    block_sums_on_line,
    group_sums_on_line,
    labeling_bytes,
    sweep_bytes,
)
from .options import N_PROJECTIONS
from .pairs import line_gram
from .sorted import SortedOperator

__all__ = [
    "MAX_PROJECTIONS",
    "N_PROJECTIONS",
    "ProjectionOperator",
    "check_projection",
    "line_pair_sums",
    "projected_pair_sums",
    "random_directions",
    "sphere_constant",
]



#: The most random directions of any function that takes ``n_projections``: the estimate's
#: standard error falls as 1/sqrt(L), so 10**4 directions make it 1% of one direction's (a
#: seventh of the default's); more only costs time, O(L n log n), about 0.2 ms per direction
#: for the energy statistics and 6 ms for the distance covariance family at n = 40.
MAX_PROJECTIONS = 10**4


def projection_bytes(n_projections: int, n_features: int) -> int:
    """Bytes the directions take while drawn (their blocks and the stacked copy) and the
    per-projection sums kept for the result: 8 L (2 d + 8)."""
    return 8 * n_projections * (2 * n_features + 8)


def check_projection(
    n_projections, semimetrics: dict[str, Semimetric], n_features: int | None = None
) -> int:
    """The one validation of ``approximation="projection"``: each named semimetric must be the
    Euclidean distance (exponent 1), which the projections estimate, and ``n_projections`` a
    positive integer, at most :data:`MAX_PROJECTIONS`, whose directions in ``n_features``
    dimensions (the total over the variables; when given) fit the memory budget; returns it as
    an int. Messages name the argument."""
    for name, sm in semimetrics.items():
        if not (sm.is_euclidean_power and sm.exponent == 1.0):
            where = f" for `{name}`" if name else ""
            raise ValueError(
                "`approximation`='projection' estimates Euclidean distances: it needs numeric "
                f"data with metric='euclidean' and exponent=1, got metric={sm.metric!r}, "
                f"exponent={sm.exponent:g}{where}."
            )
    L = check_positive_int(n_projections, "n_projections")
    if L > MAX_PROJECTIONS:
        raise ValueError(
            f"`n_projections` must be at most {MAX_PROJECTIONS:,} (the estimate's standard error "
            f"is then 1% of one direction's, a seventh of the default {N_PROJECTIONS}'s; more only "
            f"costs time), got {L:,}."
        )
    if n_features is not None:
        check_fits(
            f"`n_projections`={L:,} directions in {n_features:,} dimensions",
            projection_bytes(L, n_features),
            "a smaller `n_projections`",
        )
    return L


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
    average of its one-dimensional values over the projections, times C_d. :math:`\hat D`
    is a sum of one-dimensional distance matrices, so it is a semimetric of negative type
    itself: statistics built on it keep their properties (E >= 0, S + W = T), and a
    permutation test on it is exact in level for any L.

    Each projection is sorted once per call, as (value, index) pairs in one complex array
    sorted in place; block sums (:meth:`group_sums` for every labeling of a permutation
    batch, packed as bits; :meth:`block_sums`) then come from the gaps between sorted values
    and the labels' prefix counts (:mod:`._prefix`), O(n) per labeling and projection. The
    projections are shared among the threads, or among joblib tasks with ``n_jobs``; each
    shard projects and sorts its own directions, and the per-projection results are added
    in the order of the projections, so results do not depend on the threads or ``n_jobs``.
    Memory per thread: 16 n bytes for the block sums (a projection's sorted pairs),
    16 n + 48 n m for a product with m columns; as many threads run as the memory budget
    holds, at least one.
    """

    kind = "projection"
    approximation = "projection"
    batch_cap = None  # each call sorts every projection once: as few calls as the budget allows
    packed_labelings = True

    def __init__(self, X: np.ndarray, directions: np.ndarray, *, recipe=None):
        self.X, self.directions = X, directions
        self.recipe = recipe
        self.n = X.shape[0]
        self.scale = sphere_constant(X.shape[1]) / directions.shape[0]
        self.threads = THREADS
        self._total = None

    def projections(self, rows=None, direction=None):
        points = self.X if rows is None else self.X[rows]
        return points @ (self.directions.T if direction is None else self.directions[direction])

    def _sort_bytes(self) -> int:
        """Memory of one thread's block sums beyond the labelings: a projection's values and
        indices, and a sweep's fixed work arrays."""
        return 16 * self.n + sweep_bytes(self.X.shape[1])

    def _threads_for(self, m: int, free: int | None = None, per_thread: int | None = None) -> int:
        """Threads for a product with m columns (or block sums of ``per_thread`` bytes each),
        each with its own sort and output; as many as ``free`` bytes (the budget) hold, at
        least one."""
        if per_thread is None:
            per_thread = 16 * self.n + 48 * self.n * m
        free = memory_budget() if free is None else free
        return max(1, min(self.threads, self.directions.shape[0], free // per_thread))

    @property
    def nbytes(self) -> int:
        """One thread's sorted projection and sweep: what block sums need at the least (more
        threads run only where the budget holds them, :meth:`group_sums`)."""
        return self._sort_bytes()

    def _project(self, rows: np.ndarray, l: int) -> np.ndarray:
        """u_l' x for the given points: a dot product per row, so that a point's projection is
        the same number in every method whatever the rows around it."""
        return np.einsum("ij,j->i", rows, self.directions[l])

    def _sorted(self, l: int, pairs: np.ndarray):
        """Sort projection l: (value, index) pairs as complex numbers in ``pairs``, sorted in
        place (lexicographically: by value, ties by index); returns its ``positions(a, b)``:
        the points at sorted positions a..b-1 and their projected values with the next one's,
        read in order, without gathers."""
        step = 2**16
        for a in range(0, self.n, step):
            pairs.real[a : a + step] = self._project(self.X[a : a + step], l)
            pairs.imag[a : a + step] = np.arange(a, min(a + step, self.n))
        pairs.sort()

        def positions(a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
            return pairs.imag[a:b].astype(np.intp), pairs.real[a : b + 1]

        return positions

    def _projection_shards(
        self, work: float, columns: int, free: int | None = None, per_thread: int | None = None
    ) -> list[list[int]]:
        """The projections in shards: round-robin among the threads the budget holds (for
        ``columns`` columns of output, or ``per_thread`` bytes each), or joblib tasks of
        ``work`` per projection."""
        items = list(range(self.directions.shape[0]))
        if self._distributed():
            return self._shards(items, self.n * np.log2(max(self.n, 2)) + work, columns)
        return round_robin(items, self._threads_for(columns, free, per_thread))

    def _in_order(self, shards: list[list[int]], parts: list[list]) -> list:
        """Per-projection results from the shards, in the order of the projections."""
        found = {
            l: part for shard, results in zip(shards, parts) for l, part in zip(shard, results)
        }
        return [found[l] for l in range(self.directions.shape[0])]

    def _matmat(self, Z):
        parts = self._map(
            "_projection_products", self._projection_shards(self.n * Z.shape[1], Z.shape[1]), Z=Z
        )
        out = parts[0]
        for other in parts[1:]:
            out += other
        out *= self.scale
        return out

    def _projection_products(self, projections: list[int], Z: np.ndarray) -> np.ndarray:
        out = np.zeros((self.n, Z.shape[1]))
        for l in projections:
            out += SortedOperator(self._project(self.X, l))._matmat(Z)
        return out

    def group_sums(self, codes, k, cross):
        """As :meth:`PairwiseOperator.group_sums` (``codes`` may be packed labelings): every
        projection sorted once, then the block sums of every labeling from its sweep."""
        labelings = as_packed(codes, k)
        held = self.group_sums_bytes(k) * labelings.count  # with one thread's sweeps
        check_fits(
            f"the permutation batch ({self.kind} {self.n} x {self.n} operator, {labelings.count} "
            "labelings)",
            self._sort_bytes() + held,
        )
        # each further thread sorts its own projections and unpacks its own blocks: as many
        # threads as the budget holds beside the batch (the sums are added in projection order)
        per_thread = self._sort_bytes() + self._sweep_bytes(k) * labelings.count
        shards = self._projection_shards(
            self.n * labelings.count * k, 0, memory_budget() - held + per_thread, per_thread
        )
        parts = self._map(
            "_projection_group_sums", shards, bits=labelings.bits, sizes=labelings.sizes, k=k
        )
        results = self._in_order(shards, parts)
        M = results[0][0]
        for other, _ in results[1:]:
            M += other
        M *= self.scale
        self._total = self.scale * sum(total for _, total in results)
        return M

    def _projection_group_sums(
        self, projections: list[int], bits: np.ndarray, sizes: np.ndarray, k: int
    ) -> list:
        labelings = PackedLabelings(bits, sizes, k)
        pairs = np.empty(self.n, dtype=np.complex128)
        return [group_sums_on_line(self.n, labelings, self._sorted(l, pairs)) for l in projections]

    def _sweep_bytes(self, k: int) -> int:
        """A labeling's share of one thread's sweep work arrays (each thread unpacks its own
        blocks)."""
        return labeling_bytes(self.n, k) - PackedLabelings.bytes_per_labeling(self.n, k)

    def group_sums_bytes(self, k):
        """A labeling's bits, moments and share of one thread's sweep (further threads run only
        where the budget holds their share too, :meth:`group_sums`), and its block sums per
        projection."""
        return (
            PackedLabelings.bytes_per_labeling(self.n, k)
            + self._sweep_bytes(k)
            + 8 * k * k * self.directions.shape[0]
        )

    def block_sums(self, codes, k, weights=None):
        """Z' D Z for the weighted indicator of ``codes``: the sum over the projections of their
        block sums on the line (no n x k product)."""
        per_thread = self._sort_bytes()
        check_fits(f"the block sums ({self.kind} {self.n} x {self.n} operator)", per_thread)
        shards = self._projection_shards(self.n * k, 0, per_thread=per_thread)
        parts = self._map("_projection_block_sums", shards, codes=codes, k=k, weights=weights)
        M = sum(self._in_order(shards, parts))
        return self.scale * M

    def _projection_block_sums(
        self, projections: list[int], codes: np.ndarray, k: int, weights: np.ndarray | None
    ) -> list:
        pairs = np.empty(self.n, dtype=np.complex128)
        return [
            block_sums_on_line(self.n, codes, weights, k, self._sorted(l, pairs))
            for l in projections
        ]

    def total(self) -> float:
        """The sum of the estimate over all ordered pairs (from the last :meth:`group_sums`,
        else from the row sums)."""
        if self._total is None:
            self._total = float(self.row_sums().sum())
        return self._total

    def row_sums(self):
        """The sum over the projections of their O(n) row sums (no n x 1 product)."""
        if self._row_sums is None:
            check_fits(
                f"the row sums ({self.kind} {self.n} x {self.n} operator)",
                self._threads_for(1) * 48 * self.n,
            )
            self._row_sums = sum(
                self._map("_projection_row_sums", self._projection_shards(self.n, 1))
            )
            self._row_sums *= self.scale
        return self._row_sums

    def _projection_row_sums(self, projections: list[int]) -> np.ndarray:
        out = np.zeros(self.n)
        for l in projections:
            out += SortedOperator(self._project(self.X, l)).row_sums()
        return out

    def rows(self, idx):
        single = is_scalar(idx)
        rows = np.atleast_1d(np.arange(self.n)[idx])
        out = np.zeros((rows.size, self.n))
        for l in range(self.directions.shape[0]):
            # the projections of the sorted operators, so that the diagonal is 0
            y = self._project(self.X, l)
            out += np.abs(y[rows, None] - y[None, :])
        out *= self.scale
        return out[0] if single else out

    def product_bytes(self, m):
        return self._threads_for(m) * (16 * self.n + 48 * self.n * m)

    def restrict(self, idx):
        return ProjectionOperator(self.X[idx], self.directions).with_jobs(self.n_jobs)


def line_pair_sums(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, float, float, float]:
    """(V sum, U sum, mean distance of a, of b, U sum of a with itself, of b) of two
    one-dimensional samples, in O(n log n): the sums of :func:`~.pairs.centred_gram` for
    |x - y| on the line (SRB 2007, eq. 2.8; Székely & Rizzo 2014, eq. 3.2), the V and U sums
    zero when within their rounding bound."""
    ops = [SortedOperator(a), SortedOperator(b)]
    G = line_gram(ops)
    n = a.shape[0]
    V = 0.0 if abs(G.V[0, 1]) <= G.V_error[0, 1] else G.V[0, 1]
    U = 0.0 if abs(G.U[0, 1]) <= G.U_error[0, 1] else G.U[0, 1]
    means = (float(op.row_sums().sum()) / (n * (n - 1)) for op in ops)
    return (V, U, *means, float(G.U[0, 0]), float(G.U[1, 1]))


def projected_pair_sums(op_x: PairwiseOperator, op_y: PairwiseOperator) -> np.ndarray:
    r"""The :func:`line_pair_sums` of every projection pair k, :math:`u_k^\top x` and
    :math:`v_k^\top y` (the k-th directions of the two operators), shared among the threads:
    K x 6. Their averages times :math:`C_p C_q` estimate the distance covariance sums without
    bias (Huang & Huo 2017). Memory O(n) per thread, checked."""
    n, p, q = op_x.n, op_x.directions.shape[1], op_y.directions.shape[1]
    check_fits(f"the projected statistics (n = {n})", 8 * n * (p + q + 24) * THREADS)
    K = op_x.directions.shape[0]
    shares = round_robin(list(range(K)), THREADS)
    def sums(k: int):
        return line_pair_sums(op_x.projections(direction=k), op_y.projections(direction=k))

    parts = run_threads(lambda ks: [(k, sums(k)) for k in ks], shares)
    out = np.empty((K, 6))
    for part in parts:
        for k, values in part:
            out[k] = values
    return out
