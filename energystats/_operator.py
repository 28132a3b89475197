r"""The pairwise operator: the n x n semimetric matrix D, or the centred kernel G
it generates, known only by what it does.

Every statistic, test and clustering algorithm of energystats reduces to
products of that matrix with tall matrices (França, Rizzo & Vogelstein 2020):

* block sums :math:`Z^\top D Z` with the weighted group indicator Z give
  g(C_i, C_j) of eq. (13), hence W, S, T (eq. 15, 16, 18) and the energy
  distance (eq. 4);
* :math:`D Z` for a batch of relabelings gives the permutation null;
* :math:`G Z` and single rows of G drive Hartigan's moves (eq. 48-50),
  Lloyd's steps (eq. 44), k-means++ in feature space and ``predict``.

So, as every solver in :mod:`scipy.sparse.linalg` is written against a
``LinearOperator``, every algorithm here asks a :class:`PairwiseOperator` for
``matmat(Z)``, ``rows(idx)``, ``row_sums()`` and ``diagonal()``, never for the
array. Implementations:

:class:`DenseOperator`
    holds the matrix (computed once from the points, or the user's
    ``metric="precomputed"`` matrix, never copied).
:class:`StreamedOperator`
    recomputes square tiles of D from the points on every product; each
    unordered pair is evaluated once per product and used for both of its
    entries. Memory O(n m + tile^2) for an n x m right-hand side.
:class:`SortedOperator`
    :math:`\rho(x, y) = |x - y|` on the line: products by prefix sums of the
    sorted data (eq. 60-62), O(n m) after one O(n log n) sort.
:class:`CentredKernel`
    :math:`G = -\tfrac12 J D J^\top`, :math:`J = I - \mathbf 1 p^\top`, the
    kernel of eq. (7) with the weighted mean as reference point, on top of
    any D operator.

Which one a computation gets is decided here (:func:`semimetric_operator`,
:func:`kernel_operator`) from the memory budget of
``energystats.set_config(working_memory=...)``: dense when the matrix fits and
will be used more than once, streamed otherwise. Every allocation that grows
with n is checked against the budget first; what cannot fit raises
:class:`~energystats.WorkingMemoryError` before allocating.
"""

from __future__ import annotations

import copy
import functools
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Callable

import numpy as np
from scipy.spatial.distance import pdist, squareform
from scipy.sparse.linalg import LinearOperator
from scipy.special import gammaln
from threadpoolctl import ThreadpoolController

from ._config import memory_budget, memory_error

if TYPE_CHECKING:  # pragma: no cover
    from ._semimetric import Semimetric

__all__ = [
    "CentredKernel",
    "DenseOperator",
    "NystroemOperator",
    "PairwiseOperator",
    "ProjectionOperator",
    "SortedOperator",
    "StreamedOperator",
    "check_fits",
    "condensed_semimetric",
    "indicator",
    "kernel_operator",
    "nystroem_features",
    "nystroem_transform",
    "projection_operator",
    "random_directions",
    "semimetric_matrix",
    "semimetric_operator",
    "sphere_constant",
]

#: Side of the square tiles of a streamed product (2 MiB per tile): a streamed product then
#: runs at 80-90% of numpy's matrix-product rate on this package's benchmark machine
#: (benchmarks/bench_operator.py).
TILE = 512
#: Threads for streamed products and for filling and centring full n x n matrices
#: (cdist and BLAS release the GIL): the cores this process may run on, at most 8.
THREADS = max(1, min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)))
#: Bytes of a streamed product's temporaries per tile entry: the tile and the
#: semimetric's own temporaries (cdist's output, a power or an exponential).
_TILE_ENTRY_BYTES = 8 * 3


def indicator(codes: np.ndarray, k: int, weights: np.ndarray | None = None) -> np.ndarray:
    """n x k matrix with w_i (1 without weights) in column codes_i of row i: the weighted
    indicator Z of the groups, so that Z' D Z holds the block sums of eq. (13)."""
    Z = np.zeros((codes.shape[0], k))
    Z[np.arange(codes.shape[0]), codes] = 1.0 if weights is None else weights
    return Z


def check_fits(what: str, needed: float, hint: str = "") -> None:
    """Raise :class:`WorkingMemoryError` when ``needed`` bytes exceed the memory budget."""
    if needed > memory_budget():
        raise memory_error(what, needed, hint)


def _scalar(idx) -> bool:
    """Whether a row index selects one row (an integer) rather than several (slice or array)."""
    return isinstance(idx, (int, np.integer))


def _upper_tiles(n: int, t: int) -> list[tuple[int, int, int, int]]:
    """The tiles (a, b, c, e) = rows a:b, columns c:e on and above the diagonal, side t."""
    return [(a, min(a + t, n), c, min(c + t, n)) for a in range(0, n, t) for c in range(a, n, t)]


def _one_hot(codes_t: np.ndarray, k: int) -> np.ndarray:
    """One-hot indicators of groups 0..k-2 from transposed codes (rows x B): rows x (k-1) x B,
    each group's B columns contiguous."""
    Z = np.empty((codes_t.shape[0], k - 1, codes_t.shape[1]))
    for j in range(k - 1):
        np.equal(codes_t, j, out=Z[:, j, :], casting="unsafe")
    return Z


def _upper_tile_sums(tile: Callable, tiles: list, codes_t: np.ndarray, k: int, want_rows: bool, Z: np.ndarray | None = None):
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

    def one_hot(a: int, b: int, row_band: bool) -> np.ndarray:
        nonlocal columns
        if Z is not None:
            return Z[a:b]
        if row_band:
            if (a, b) not in bands:
                bands.clear()
                bands[(a, b)] = _one_hot(codes_t[a:b], k)
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
        np.matmul(T, one_hot(c, e, False).reshape(e - c, K * B), out=Y)
        Y = Y.reshape(b - a, K, B)
        Zi = one_hot(a, b, True)
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


def _run_tiles(work: Callable[[list], object], tiles: list, threads: int) -> list:
    """``[work(share) for share in shares]`` over ``threads`` fixed round-robin shares of
    ``tiles``, one thread each, results in share order.

    Each thread multiplies with one-thread BLAS: the semimetric and the products both use
    every core, and no BLAS thread spins while a tile's semimetric is evaluated. The shares
    and the order of the results do not depend on timing, so sums of the results in order
    are the same on every run.
    """
    threads = max(1, min(threads, len(tiles)))
    if threads == 1 or getattr(_in_pool, "active", False):  # one level of threads only
        return [work(tiles)]
    with _blas_controller().limit(limits=1, user_api="blas"):
        return list(_pool().map(_pooled, [work] * threads, [tiles[r::threads] for r in range(threads)]))


_in_pool = threading.local()


def _pooled(work, share):
    """Run ``work(share)`` on a pool thread, marked so that it does not wait on the pool itself."""
    _in_pool.active = True
    return work(share)


@functools.cache
def _pool() -> ThreadPoolExecutor:
    """The package's worker threads, started once (starting threads costs about a millisecond)."""
    return ThreadPoolExecutor(THREADS, thread_name_prefix="energystats")


@functools.cache
def _blas_controller() -> ThreadpoolController:
    """threadpoolctl's view of the loaded BLAS libraries, found once (finding them reads the
    process's maps: milliseconds per call)."""
    return ThreadpoolController()


class PairwiseOperator:
    """A symmetric n x n matrix A known by its products (the semimetric D or a kernel G).

    Subclasses implement ``_matmat`` and :meth:`rows`; the rest follows.
    Returned arrays are new unless documented; rows of a dense operator may be
    read-only views.
    """

    #: number of points n
    n: int
    #: bytes the operator itself holds beyond the data (the matrix, for dense)
    nbytes: int = 0
    #: "dense", "streamed", "sorted" or "centred(...)": for messages and tests
    kind: str = ""
    #: bytes of labelings per :meth:`group_sums` call beyond which larger batches gain
    #: nothing (they leave the cache); ``None``: as many as the budget holds
    batch_cap: int | None = 256 * 2**20
    #: tile side and threads of the tiled products
    tile: int = 512
    threads: int = 1
    #: joblib's ``n_jobs`` for the products (:meth:`with_jobs`): more than one worker runs
    #: their shards as joblib tasks (on Dask inside ``joblib.parallel_config(backend="dask")``,
    #: where ``None`` means every worker); 1 (the default): in this process
    n_jobs: int | None = 1
    _row_sums: np.ndarray | None = None

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.n)

    def with_jobs(self, n_jobs: int | None) -> PairwiseOperator:
        """The same operator whose products run as joblib tasks with ``n_jobs``."""
        op = copy.copy(self)
        op.n_jobs = n_jobs
        return op

    def _distributed(self) -> bool:
        """Whether products run as joblib tasks (``n_jobs`` gives more than one worker)."""
        from ._parallel import n_workers

        return n_workers(self.n_jobs) > 1

    def _map(self, method: str, shards: list, **arguments) -> list:
        """``[self.<method>(shard, **arguments) for shard in shards]``, results in shard order:
        as joblib tasks when distributed (the operator and the array arguments are sent to
        each worker once), else on this process's threads (one BLAS thread each).

        Every implementation splits its products into independent shards (groups of tiles,
        bands of rows, groups of projections); this is the one place that decides where the
        shards run, so a back-end applies to every implementation alike.
        """
        if self._distributed():
            from ._parallel import run_tasks

            arrays = {name: value for name, value in arguments.items() if isinstance(value, np.ndarray)}
            small = {name: value for name, value in arguments.items() if name not in arrays}
            return run_tasks(
                functools.partial(_operator_task, method=method, **small),
                [{"shard": shard} for shard in shards],
                self.n_jobs,
                shared={"operator": self, **arrays},
            )
        work = getattr(self, method)
        if len(shards) <= 1 or getattr(_in_pool, "active", False):
            return [work(shard, **arguments) for shard in shards]
        with _blas_controller().limit(limits=1, user_api="blas"):
            return list(_pool().map(_pooled, [lambda shard: work(shard, **arguments)] * len(shards), shards))

    def _shards(self, items: list, work_per_item: float, columns: int) -> list[list]:
        """``items`` (tiles, bands, projections) in shards: round-robin among this process's
        threads, or, when distributed, consecutive groups of about :data:`TASK_WORK` (at least
        :data:`MIN_TASKS`), independent of ``n_jobs`` so that sums come out the same."""
        if self._distributed():
            per = items_per_task(len(items), work_per_item)
            return [items[a : a + per] for a in range(0, len(items), per)]
        threads = max(1, min(self._threads_for(columns), len(items)))
        return [items[r::threads] for r in range(threads)]

    # -- what every operator provides ------------------------------------------------

    def matmat(self, Z: np.ndarray, what: str = "a product") -> np.ndarray:
        """A @ Z for Z of shape (n, m), after checking that the output and the operator's
        temporaries fit the memory budget (``what`` names the product in the error)."""
        check_fits(
            f"{what} ({self.kind} {self.n} x {self.n} operator times {Z.shape[1]} columns)",
            self.nbytes + self.product_bytes(Z.shape[1]),
        )
        return self._matmat(Z)

    def _matmat(self, Z: np.ndarray) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover

    def rows(self, idx) -> np.ndarray:
        """A[idx]: one row (1-D) for an integer, else len(idx) x n."""
        raise NotImplementedError

    def diagonal(self) -> np.ndarray:
        """diag(A): zero for a semimetric."""
        return np.zeros(self.n)

    def product_bytes(self, m: int) -> int:
        """Memory of one product with m columns: its output plus the operator's temporaries."""
        return 8 * self.n * m

    # -- derived ---------------------------------------------------------------------

    def row_sums(self) -> np.ndarray:
        """A @ 1, computed once."""
        if self._row_sums is None:
            self._row_sums = self.matmat(np.ones((self.n, 1)), "the row sums")[:, 0]
        return self._row_sums

    def quadratic(self, Z: np.ndarray) -> np.ndarray:
        """Z' A Z (m x m), exactly symmetric: for a weighted group indicator Z the block
        sums M_ij of França et al. eq. (13), g(C_i, C_j) = M_ij / (s_i s_j)."""
        M = Z.T @ self.matmat(Z, "a block sum")
        return 0.5 * (M + M.T)

    def group_sums(self, codes: np.ndarray, k: int, cross: bool) -> np.ndarray:
        r"""Block sums of B labelings at once: ``M[b, i, j] = sum_{x in C_i, y in C_j} A(x, y)``
        under labeling ``codes[b]`` (B x n, values 0..k-1). The diagonal is always
        computed; the off-diagonal blocks are meaningful only when ``cross``.

        Only quadratic forms :math:`z_i^\top A z_j` of the one-hot indicators of
        groups 0..k-2 are needed, and A is symmetric, so each tile on or above the
        diagonal takes one product: tile (I, J) gives :math:`Y = A_{IJ} Z_J` and the
        column-wise sums of :math:`Z_I \odot Y`; the tiles below the diagonal are the
        transposes. Half the flops of forming :math:`A Z`, and no n x B(k-1)
        output. The row sums close the last group (sum_j M_ij = z_i' A 1).
        """
        B, n = codes.shape
        K = k - 1
        check_fits(
            f"the permutation batch ({self.kind} {n} x {n} operator, {B} labelings)",
            self.nbytes + self.group_sums_bytes(k) * B,
        )
        want_rows = self._row_sums is None
        codes_t = np.ascontiguousarray(codes.T)
        # all the indicators at once when they fit beside the batch (fewer, larger arrays);
        # distributed tasks form their own
        fits = self.nbytes + (self.group_sums_bytes(k) + 8 * n * K) * B <= memory_budget()
        Z = _one_hot(codes_t, k) if fits and not self._distributed() else None
        t = self._group_tile()
        tiles = _upper_tiles(n, t)
        if self._distributed():  # tasks of whole row bands (their indicators formed once), a
            bands = sorted({a for a, *_ in tiles})  # long band with a short one: equal work
            pairs = [{bands[i], bands[-1 - i]} for i in range((len(bands) + 1) // 2)]
            groups = self._shards(pairs, t * n * (K * B + self.X.shape[1]), K * B)
            shards = [[tile for tile in tiles if any(tile[0] in pair for pair in group)] for group in groups]
        else:
            shards = self._shards(tiles, t * t * K * B, K * B)
        shares = self._map("_tile_group_sums", shards, codes_t=codes_t, k=k, want_rows=want_rows, Z=Z, form=self._distributed())
        P = sum(d + o + o.transpose(1, 0, 2) for d, o, _ in shares)  # K x K x B: z_i' A z_j
        if want_rows:
            self._row_sums = np.sum([r for _, _, r in shares], axis=0)
        rows = self.row_sums()
        M = np.empty((B, k, k))
        M[:, :K, :K] = P.transpose(2, 0, 1)
        R = np.zeros((K, B))  # z_i' A 1
        step = n if Z is not None else self._group_tile()
        for a in range(0, n, step):
            R += np.einsum("n,nkb->kb", rows[a : a + step], Z[a : a + step] if Z is not None else _one_hot(codes_t[a : a + step], k))
        R = R.T
        M[:, :K, K] = R - M[:, :K, :K].sum(axis=2)
        M[:, K, :K] = M[:, :K, K]
        M[:, K, K] = (rows.sum() - R.sum(axis=1)) - M[:, :K, K].sum(axis=1)
        return M

    def _tile_group_sums(self, tiles: list, codes_t: np.ndarray, k: int, want_rows: bool, Z: np.ndarray | None, form: bool):
        """One shard of :meth:`group_sums`: :func:`_upper_tile_sums` of a group of tiles; a task
        (``form``) forms all the indicators at once when they fit its process's budget."""
        n, B = codes_t.shape
        if form and 8 * n * (k - 1) * B <= memory_budget() // 2:
            Z = _one_hot(codes_t, k)
        return _upper_tile_sums(self._tile, tiles, codes_t, k, want_rows, Z)

    def group_sums_bytes(self, k: int) -> int:
        """Memory :meth:`group_sums` needs per labeling: its codes, and per thread the
        one-hot indicators of two blocks of rows, a tile's product and the sums."""
        t = self._group_tile()
        return 2 * self.n + self.threads * (8 * (k - 1) * 4 * t + 32 * k * k)

    def _threads_for(self, m: int) -> int:
        """Threads sharing the tiles of a product with m columns (see ``_run_tiles``)."""
        return self.threads

    def _group_tile(self) -> int:
        """Tile side for :meth:`group_sums`: small enough that the upper triangle is most of
        the work (at least four tiles a side), large enough for efficient products."""
        return max(1, min(self.tile, max(128, -(-self.n // 4))))

    def _tile(self, a: int, b: int, c: int, e: int, out: np.ndarray | None = None) -> np.ndarray:
        """The block A[a:b, c:e]: a view when the matrix is held, else computed, into ``out``
        (a C-contiguous (b - a) x (e - c) array) when given."""
        raise NotImplementedError  # pragma: no cover

    def restrict(self, idx: np.ndarray) -> PairwiseOperator:
        """The operator of the submatrix A[idx][:, idx]."""
        raise NotImplementedError

    def aslinearoperator(self) -> LinearOperator:
        """A :class:`scipy.sparse.linalg.LinearOperator` view (for iterative eigensolvers)."""
        return LinearOperator(
            self.shape,
            matvec=lambda v: self.matmat(np.asarray(v, float).reshape(-1, 1))[:, 0],
            matmat=lambda V: self.matmat(np.asarray(V, float)),
            dtype=np.float64,
        )


# --- Dense ---------------------------------------------------------------------------


class DenseOperator(PairwiseOperator):
    """The matrix held in memory (optionally restricted to the rows and columns ``index``).

    ``A`` is used as given, never copied or modified: a user's precomputed
    matrix costs no extra memory. With ``index``, products read
    ``A[index][:, index]`` in bands of rows.
    """

    kind = "dense"

    def __init__(self, A: np.ndarray, index: np.ndarray | None = None, *, owned: bool = False, nbytes: int | None = None):
        self.A = A
        self.index = index
        self.n = A.shape[0] if index is None else index.shape[0]
        self.nbytes = nbytes if nbytes is not None else (A.nbytes if owned else 0)
        self.band = max(1, min(self.n, TILE * TILE // max(self.n, 1)))  # rows per read of A[index][:, index]
        self.tile = TILE
        self.threads = 1  # tiles are views, nothing to evaluate: one multi-threaded BLAS product at a time

    def _tile(self, a, b, c, e, out=None):
        if self.index is None:
            return self.A[a:b, c:e]
        return self.A[np.ix_(self.index[a:b], self.index[c:e])]

    def _matmat(self, Z):
        if self.index is None:
            return self.A @ Z
        out = np.empty((self.n, Z.shape[1]))
        for a in range(0, self.n, self.band):
            out[a : a + self.band] = self.A[np.ix_(self.index[a : a + self.band], self.index)] @ Z
        return out

    def rows(self, idx):
        if self.index is None:
            return self.A[idx]
        return np.take(self.A[self.index[idx]], self.index, axis=-1)

    def diagonal(self):
        return np.diag(self.A).copy() if self.index is None else self.A[self.index, self.index]

    def row_sums(self):
        if self._row_sums is None and self.index is None:
            self._row_sums = self.A.sum(axis=1)
        return super().row_sums()

    def product_bytes(self, m):
        return 8 * self.n * m + (8 * self.band * (self.n + m) if self.index is not None else 0)

    def restrict(self, idx):
        index = idx if self.index is None else self.index[idx]
        return DenseOperator(self.A, index, nbytes=self.nbytes)  # the whole matrix stays held


# --- Streamed ------------------------------------------------------------------------


class StreamedOperator(PairwiseOperator):
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

    def __init__(self, X: np.ndarray, semimetric: Semimetric, tile: int = TILE, threads: int | None = None):
        self.X = X
        self.semimetric = semimetric
        self.n = X.shape[0]
        self.tile = max(1, min(tile, self.n))
        self.threads = THREADS if threads is None else threads
        self.nbytes = _TILE_ENTRY_BYTES * self.tile**2 * self.threads

    def _threads_for(self, m: int) -> int:
        """Threads for a product with m columns. Sharing the tiles among threads pays when the
        semimetric is a large part of a tile's work and there are many tiles: measured on the
        benchmark machine, from 8 tiles a side for a few columns (k-groups, statistics) and from
        16 for hundreds (permutation batches); below, one multi-threaded BLAS product at a time
        is faster."""
        return self.threads if self.n >= (8 if m <= 32 else 16) * self.tile else 1

    def _tile(self, a, b, c, e, out=None):
        return self.semimetric(self.X[a:b], self.X[c:e], out=out)

    def _matmat(self, Z):
        n, m = self.n, Z.shape[1]
        want_rows = self._row_sums is None  # collected on the first pass
        if self._distributed():  # tasks of row bands, each returning its band of the product
            bands = [(a, min(a + self.tile, n)) for a in range(0, n, self.tile)]
            groups = self._shards(bands, self.tile * n * (m + self.X.shape[1]), m)
            out, rows = np.empty((n, m)), np.empty(n)
            for group, results in zip(groups, self._map("_band_products", groups, Z=Z, want_rows=want_rows)):
                for (a, b), (block, block_rows) in zip(group, results):
                    out[a:b] = block
                    if want_rows:
                        rows[a:b] = block_rows
        else:  # shares of the tiles on and above the diagonal, one per thread
            tiles = _upper_tiles(n, self.tile)
            shares = self._map("_symmetric_products", self._shards(tiles, self.tile**2 * m, m), Z=Z, want_rows=want_rows)
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
        if _scalar(idx):
            return self.semimetric(self.X[idx][None, :], self.X)[0]
        return self.semimetric(self.X[idx], self.X)

    def product_bytes(self, m):
        return self.threads * 8 * (self.n * m + 2 * self.tile * m)

    def restrict(self, idx):
        return StreamedOperator(self.X[idx], self.semimetric, self.tile, self.threads).with_jobs(self.n_jobs)


# --- Parallel: the same products as joblib tasks (Dask under parallel_config) ----------

#: Work of one task, in semimetric evaluations plus multiply-adds (about a quarter of a second
#: on one core of the benchmark machine): the scheduler's cost per task, milliseconds, stays a
#: few per cent (benchmarks/bench_dask.py).
TASK_WORK = 2**33
#: At least this many tasks per product, so that small problems still spread over workers.
MIN_TASKS = 8


def items_per_task(items: int, work_per_item: float) -> int:
    """Items (tiles, band pairs, projections) per distributed task: equal tasks of about
    :data:`TASK_WORK` (the last one shorter), at least :data:`MIN_TASKS` of them, and never
    less than one item (a band pair of a large problem is then one task)."""
    count = max(MIN_TASKS, int(np.ceil(items * work_per_item / TASK_WORK)))
    return max(1, items // count)


def _operator_task(operator: PairwiseOperator, shard, method: str, **arguments):
    """A joblib task: one shard of a product, on the worker's copy of the operator."""
    return getattr(operator, method)(shard, **arguments)


# --- Sorted (one dimension, |x - y|) --------------------------------------------------


class SortedOperator(PairwiseOperator):
    r"""D with :math:`\rho(x, y) = |x - y|` on the line, by prefix sums after one sort.

    For a column z, with :math:`B_i, B^P_i` the sums of :math:`z_j` and
    :math:`z_j x_j` over the points sorted before :math:`x_i` and
    :math:`S, S^P` their totals (França et al. eq. 60: |x - y| is x - y or
    y - x by the order of x and y),

    .. math::

        (D z)_i = x_i (2 B_i - S) + S^P - 2 B^P_i .

    Ties need no order (their distances are 0). The data are centred first,
    so an offset costs no precision. Time O(n m) per product after an
    O(n log n) sort; memory O(n m).
    """

    kind = "sorted"
    batch_cap = 64 * 2**20

    def __init__(self, x: np.ndarray):
        self.x = x
        self.n = x.shape[0]
        self.order = np.argsort(x)  # unstable is fine: ties contribute zero
        xs = x[self.order]
        self.xs = xs - xs.mean()
        self._ranks = np.arange(1.0, self.n + 1.0)  # t = 1..n, for eq. (62)

    def _matmat(self, Z):
        Zs = Z[self.order]
        ZP = Zs * self.xs[:, None]
        B = np.cumsum(Zs, axis=0)
        BP = np.cumsum(ZP, axis=0)
        S, SP = B[-1].copy(), BP[-1].copy()
        B -= Zs  # exclusive: the points sorted strictly before
        BP -= ZP
        B *= 2.0
        B -= S
        B *= self.xs[:, None]
        BP *= -2.0
        BP += SP
        B += BP
        out = np.empty_like(B)
        out[self.order] = B
        return out

    def rows(self, idx):
        if _scalar(idx):
            return np.abs(self.x[idx] - self.x)
        return np.abs(self.x[idx][:, None] - self.x[None, :])

    def _tile(self, a, b, c, e, out=None):
        return np.abs(np.subtract(self.x[a:b, None], self.x[None, c:e], out=out), out=out)

    def product_bytes(self, m):
        return 8 * self.n * m * 5

    def row_sums(self):
        """sum_j |x_i - x_j| in O(n) with three n-vectors: for the point of rank t (1-based)
        in sorted order, x_(t) (2 (t - 1) - n) + sum_s x_(s) - 2 sum_{s < t} x_(s) (the
        product formula above with z = 1)."""
        if self._row_sums is None:
            r = 2.0 * self._ranks
            r -= 2.0 + self.n
            r *= self.xs
            before = np.cumsum(self.xs)
            total = before[-1]
            before -= self.xs
            before *= -2.0
            before += total
            r += before
            del before
            self._row_sums = np.empty(self.n)
            self._row_sums[self.order] = r
        return self._row_sums

    def _pair_sum(self, members: np.ndarray) -> float:
        """sum_{x, y in C} |x - y| for the group C whose sorted positions are ``members``
        (increasing): 2 sum_t x_(t) (2 t - 1 - m) over its m members in order
        (França et al. eq. 62)."""
        m = members.size
        values = self.xs[members]
        return 2.0 * (2.0 * float(values @ self._ranks[:m]) - (1.0 + m) * float(values.sum()))

    def group_sums(self, codes, k, cross):
        """As :meth:`PairwiseOperator.group_sums`, by eq. (62) on the sorted data, O(n k) per
        labeling without a product: each group's members are taken in sorted order (the
        nonzero positions of its indicator in that order), so no cumulative sum is needed;
        cross sums come from the unions of groups."""
        B = codes.shape[0]
        M = np.zeros((B, k, k))
        for b in range(B):
            ordered = np.take(codes[b], self.order)
            for j in range(k):
                M[b, j, j] = self._pair_sum(np.flatnonzero(ordered == j))
            if cross:
                for i in range(k):
                    for j in range(i + 1, k):
                        both = self._pair_sum(np.flatnonzero((ordered == i) | (ordered == j)))
                        M[b, i, j] = M[b, j, i] = 0.5 * (both - M[b, i, i] - M[b, j, j])
        return M

    def group_sums_bytes(self, k):
        return self.n * 2 + 64 * k * k

    def restrict(self, idx):
        return SortedOperator(self.x[idx])


# --- Random projections: the Euclidean distance averaged over directions ----------------


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
    batch_cap = None  # each call sorts every projection once: as few calls as the budget allows

    def __init__(self, X: np.ndarray, directions: np.ndarray):
        self.X, self.directions = X, directions
        self.n = X.shape[0]
        self.scale = sphere_constant(X.shape[1]) / directions.shape[0]
        self.threads = THREADS

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
        L = self.directions.shape[0]
        items = list(range(L))
        if self._distributed():
            return self._shards(items, self.n * (np.log2(max(self.n, 2)) + columns), columns)
        threads = self._threads_for(held)
        return [items[r::threads] for r in range(threads)]

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
        single = _scalar(idx)
        rows = np.atleast_1d(np.arange(self.n)[idx])
        out = np.zeros((rows.size, self.n))
        for u in self.directions:
            y = self.X @ u  # the projections of the sorted operators, so that the diagonal is 0
            out += np.abs(y[rows, None] - y[None, :])
        out *= self.scale
        return out[0] if single else out

    def _tile(self, a, b, c, e, out=None):
        T = np.zeros((b - a, e - c)) if out is None else out
        T[...] = 0.0
        for u in self.directions:
            y = self.X @ u
            T += np.abs(y[a:b, None] - y[None, c:e])
        T *= self.scale
        return T

    def product_bytes(self, m):
        return self._threads_for(m) * 40 * self.n * m

    def restrict(self, idx):
        return ProjectionOperator(self.X[idx], self.directions).with_jobs(self.n_jobs)


def projection_operator(X: np.ndarray, semimetric: Semimetric, approximation, n_projections, rng, n_jobs=None) -> ProjectionOperator | None:
    """The :class:`ProjectionOperator` for ``approximation="projection"`` (``None`` for
    ``approximation=None``), after checking the arguments; directions drawn from ``rng``."""
    from ._validation import check_positive_int

    if approximation is None:
        return None
    if approximation != "projection":
        raise ValueError(f"`approximation` must be None or 'projection', got {approximation!r}.")
    if not (semimetric.is_euclidean_power and semimetric.exponent == 1.0):
        raise ValueError(
            "`approximation`='projection' estimates the Euclidean distance: it needs metric='euclidean' "
            f"with exponent=1, got metric={semimetric.metric!r}, exponent={semimetric.exponent:g}."
        )
    L = check_positive_int(n_projections, "n_projections")
    return ProjectionOperator(X, random_directions(L, X.shape[1], rng)).with_jobs(n_jobs)


# --- Nyström: a low-rank centred kernel -------------------------------------------------


class NystroemOperator(PairwiseOperator):
    r"""A centred kernel known through features: :math:`G \approx \Phi\Phi^\top`, Φ of n x r.

    Products cost O(n r m), a row O(n r), the diagonal O(n r); memory O(n r). Built by
    :func:`nystroem_features` (Wang, Gittens & Mahoney 2019). Products are shared among
    the threads, or joblib tasks with ``n_jobs``, by bands of rows.
    """

    kind = "nystroem"

    def __init__(self, features: np.ndarray):
        self.features = features
        self.n = features.shape[0]
        self.nbytes = 0  # the features are the data
        self.threads = THREADS

    def _bands(self, columns: int) -> list:
        step = max(1, min(2**16 // max(1, self.features.shape[1]), -(-self.n // MIN_TASKS)))
        bands = [(a, min(a + step, self.n)) for a in range(0, self.n, step)]
        return self._shards(bands, step * self.features.shape[1] * columns, columns)

    def _matmat(self, Z):
        parts = self._map("_band_inner", self._bands(Z.shape[1]), Z=Z)
        inner = sum(parts)  # Phi' Z, r x m
        return self.features @ inner

    def _band_inner(self, bands: list, Z: np.ndarray) -> np.ndarray:
        return sum(self.features[a:b].T @ Z[a:b] for a, b in bands)

    def rows(self, idx):
        return self.features[idx] @ self.features.T

    def diagonal(self):
        return np.einsum("ij,ij->i", self.features, self.features)

    def quadratic(self, Z):
        inner = self.matmat_inner(Z)
        M = inner.T @ inner
        return 0.5 * (M + M.T)

    def matmat_inner(self, Z: np.ndarray) -> np.ndarray:
        """Phi' Z (r x m): the sums of the features weighted by the columns of Z."""
        return sum(self._map("_band_inner", self._bands(Z.shape[1]), Z=Z))

    def _tile(self, a, b, c, e, out=None):
        return np.matmul(self.features[a:b], self.features[c:e].T, out=out)

    def product_bytes(self, m):
        return 8 * self.n * m + 8 * self.features.shape[1] * m * (1 + self.threads)

    def restrict(self, idx):
        features = self.features[idx]
        return NystroemOperator(features - features.mean(axis=0)).with_jobs(self.n_jobs)


def _landmarks(X: np.ndarray, semimetric: Semimetric, weights: np.ndarray | None, m: int, rng: np.random.Generator, how: str) -> np.ndarray:
    """m distinct landmark indices: drawn with probabilities proportional to the weights
    ("uniform"), or by D^2 sampling, each next one with probability proportional to
    w(x) times the semimetric to the nearest landmark so far (k-means++'s seeding in the
    kernel's feature space, where rho is the squared distance; "d2")."""
    n = X.shape[0]
    w = np.ones(n) if weights is None else weights
    if how == "uniform":
        return np.sort(rng.choice(n, size=m, replace=False, p=w / w.sum()))
    chosen = [int(rng.choice(n, p=w / w.sum()))]
    nearest = semimetric(X, X[chosen])[:, 0]
    for _ in range(1, m):
        potential = w * nearest
        potential[chosen] = 0.0
        total = potential.sum()
        if total <= 0:  # every point coincides with a landmark: the rest uniformly among the others
            free = np.setdiff1d(np.arange(n), chosen)
            chosen.extend(rng.choice(free, size=m - len(chosen), replace=False).tolist())
            break
        chosen.append(int(rng.choice(n, p=potential / total)))
        np.minimum(nearest, semimetric(X, X[chosen[-1:]])[:, 0], out=nearest)
    return np.sort(np.asarray(chosen))


def nystroem_features(
    X: np.ndarray, semimetric: Semimetric, weights: np.ndarray | None, m: int, rng: np.random.Generator, landmarks: str = "d2"
) -> tuple[np.ndarray, dict]:
    r"""Features Φ (n x r, r <= m) with :math:`\Phi\Phi^\top \approx G`, the centred kernel of
    eq. (7), from m landmarks (Nyström; Wang, Gittens & Mahoney 2019).

    With the landmarks' semimetric matrix :math:`\rho_{LL}` and the semimetric R from every
    point to them, the kernel centred at the landmarks' mean in feature space is
    :math:`K_{LL} = -\tfrac12 J \rho_{LL} J` and :math:`K_{XL} = -\tfrac12 (R - \bar r 1^\top -
    1 \bar\rho^\top + c)` (row and column means over the landmarks). With
    :math:`K_{LL} = V \Lambda V^\top` (eigenvalues above 1e-10 of the largest kept),
    :math:`\Phi = K_{XL} V \Lambda^{-1/2}` reproduces :math:`K_{LL}` on the landmarks; centring Φ
    by its weighted mean gives :math:`\Phi\Phi^\top \approx J K J^\top = G` (exact when every
    point is a landmark). A semimetric of negative type makes :math:`K_{LL}` positive
    semidefinite. Φ is built in bands of rows: memory O(n m). Returns Φ, what
    :func:`nystroem_transform` needs for new points, and each point's residual
    :math:`K(x_i, x_i) - \|\Phi_i\|^2 \ge 0` (Φ before its centring; see
    :func:`nystroem_transform`), the squared length of its feature vector outside the
    landmarks' span.
    """
    n = X.shape[0]
    m = min(m, n)
    idx = _landmarks(X, semimetric, weights, m, rng, landmarks)
    L = X[idx]
    rho_LL = semimetric(L, L)
    rho_LL = 0.5 * (rho_LL + rho_LL.T)
    col = rho_LL.mean(axis=0)
    c = float(col.mean())
    K_LL = -0.5 * (rho_LL - col[:, None] - col[None, :] + c)
    lam, V = np.linalg.eigh(K_LL)
    keep = lam > 1e-10 * max(lam.max(), np.finfo(float).tiny)
    projection = V[:, keep] / np.sqrt(lam[keep])
    state = {"landmarks": L, "col": col, "c": c, "projection": projection, "semimetric": semimetric}
    Phi, residual = nystroem_transform(X, state, residual=True)
    w = np.ones(n) if weights is None else weights
    mean = (w @ Phi) / w.sum()
    Phi -= mean
    state["mean"] = mean
    return Phi, state, residual


def nystroem_transform(X: np.ndarray, state: dict, residual: bool = False):
    r"""Features of points X with the landmarks of :func:`nystroem_features` (before its final
    centring when ``state`` has no ``"mean"`` yet), in bands of rows. With ``residual``,
    also :math:`\|\phi_\perp(x)\|^2 = K(x, x) - \|\Phi_x\|^2`, the part of each point's
    feature vector outside the landmarks' span (:math:`K(x, x) = \bar r_x - c/2` for the
    kernel centred at the landmarks' mean), which the features leave out."""
    L, projection = state["landmarks"], state["projection"]
    out = np.empty((X.shape[0], projection.shape[1]))
    rest = np.empty(X.shape[0])
    step = max(1, 2**17 // max(1, L.shape[0]))
    for a in range(0, X.shape[0], step):
        R = state["semimetric"](X[a : a + step], L)
        r = R.mean(axis=1, keepdims=True)
        K = -0.5 * (R - r - state["col"][None, :] + state["c"])
        out[a : a + step] = K @ projection
        if residual:
            rest[a : a + step] = r[:, 0] - 0.5 * state["c"] - np.einsum("ij,ij->i", out[a : a + step], out[a : a + step])
    if "mean" in state:
        out -= state["mean"]
    return (out, np.maximum(rest, 0.0)) if residual else out


# --- Centred kernel --------------------------------------------------------------------


class CentredKernel(PairwiseOperator):
    r"""The centred kernel :math:`G = -\tfrac12 J D J^\top`, :math:`J = I - \mathbf 1 p^\top`,
    :math:`p = w / s`, on top of a semimetric operator D.

    It is the Gram matrix of eq. (7) with the weighted mean in feature space as
    reference point: :math:`G_{ij} = -\tfrac12 (D_{ij} - r_i - r_j + c)` with
    :math:`r = D p` and :math:`c = p^\top r`, and
    :math:`G_{ii} + G_{jj} - 2 G_{ij} = D_{ij}`. Products and rows are formed
    from D's, so the kernel costs no memory beyond D's operator and two
    n-vectors; r costs one product with D.
    """

    def __init__(self, D: PairwiseOperator, weights: np.ndarray | None = None):
        self.D = D
        self.n = D.n
        self.nbytes = D.nbytes
        self.tile, self.threads = D.tile, D.threads
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
        R -= (self.r[idx] if _scalar(idx) else self.r[idx][:, None]) + self.r
        R += self.c
        R *= -0.5
        return R

    def diagonal(self):
        return self.r - 0.5 * self.c

    def _tile(self, a, b, c, e, out=None):
        T = self.D._tile(a, b, c, e, out)
        if isinstance(self.D, DenseOperator):  # a view of a held matrix: centre a copy
            T = np.array(T, dtype=float)
        T -= self.r[a:b, None] + self.r[None, c:e]
        T += self.c
        T *= -0.5
        return T

    def product_bytes(self, m):
        return self.D.product_bytes(m) + 8 * self.n * m

    def restrict(self, idx):
        raise NotImplementedError("restrict the semimetric operator, then centre it")


# --- Full matrices (for the dense operator and the functions that return one) --------


def _run_bands(n: int, work: Callable[[int, int], None], rows_per_band: int) -> None:
    """Call ``work(a, b)`` on row bands of an n x n matrix, shared among the cores
    (scipy's cdist and numpy's elementwise operations release the GIL)."""
    bands = [(a, min(a + rows_per_band, n)) for a in range(0, n, rows_per_band)]
    _run_tiles(lambda mine: [work(a, b) for a, b in mine], bands, THREADS)


def dense_bytes(n: int) -> int:
    """Memory of one n x n float64 matrix."""
    return 8 * n * n


def semimetric_matrix(X: np.ndarray, semimetric: Semimetric) -> np.ndarray:
    """The full symmetric n x n semimetric matrix of validated points (memory 8 n^2, checked).

    Evaluates the upper band of each block of rows once and mirrors it, so
    the matrix is exactly symmetric and each pair is computed once.
    """
    n = X.shape[0]
    check_fits(f"the {n} x {n} semimetric matrix", dense_bytes(n))
    D = np.empty((n, n))

    def fill(a: int, b: int) -> None:
        band = semimetric(X[a:b], X[a:])
        D[a:b, a:] = band
        D[a:, a:b] = band.T

    _run_bands(n, fill, max(1, TILE * TILE // max(n, 1)))
    return D


def condensed_semimetric(X: np.ndarray, semimetric: Semimetric, copies: int = 2) -> np.ndarray:
    """The semimetric of every pair i < j of validated points (or of a precomputed matrix),
    in scipy's condensed order (that of ``pdist``): n (n - 1) / 2 values.

    The budget is checked for ``copies`` such vectors: the caller's consumer may hold
    a working copy (scipy's ``linkage`` does)."""
    n = X.shape[0]
    pairs = n * (n - 1) // 2
    check_fits(
        f"the {pairs} pairs of {n} points ({copies} condensed vector(s) of pairwise values)",
        copies * 8 * pairs,
        "cluster a subsample",
    )
    if semimetric.precomputed:
        return squareform(X, checks=False)
    if semimetric.is_euclidean_power:
        # sum of squared differences (no cancellation), then the exponent alpha / 2
        values = pdist(X, "sqeuclidean")
        return np.sqrt(values, out=values) if semimetric.exponent == 1.0 else np.power(values, semimetric.exponent / 2.0, out=values)
    values = np.empty(pairs)
    start = 0
    for i in range(n - 1):
        values[start : start + n - 1 - i] = semimetric(X[i : i + 1], X[i + 1 :])[0]
        start += n - 1 - i
    return values


def centre_in_place(D: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Turn an owned semimetric matrix into the centred kernel G (same formula as
    :class:`CentredKernel`, elementwise: r_i + r_j first, so G is exactly symmetric)."""
    n = D.shape[0]
    p = np.full(n, 1.0 / n) if weights is None else weights / weights.sum()
    r = D @ p
    c = p @ r

    def centre(a: int, b: int) -> None:
        band = D[a:b]
        band -= r[a:b, None] + r[None, :]
        band += c
        band *= -0.5

    _run_bands(n, centre, max(1, 2**17 // max(n, 1)))  # bands that stay in cache
    return D


# --- Choosing an implementation ------------------------------------------------------


def _streamed(X: np.ndarray, semimetric: Semimetric) -> StreamedOperator:
    """A streamed operator whose tiles take at most a quarter of the budget."""
    tile = min(TILE, max(1, math.isqrt(memory_budget() // (4 * _TILE_ENTRY_BYTES * THREADS))))
    return StreamedOperator(X, semimetric, tile)


def semimetric_operator(
    X: np.ndarray, semimetric: Semimetric, *, repeated: bool, reserve: int = 0, n_jobs: int | None = None
) -> PairwiseOperator:
    """The operator of D for validated data (points, or the matrix when precomputed).

    Parameters
    ----------
    repeated : bool
        Whether the caller will use D more than once (several products, or
        rows). Only then is the matrix computed and held, and only when it
        fits the budget together with ``reserve`` bytes of the caller's own.
        A single product is streamed (it evaluates each pair once, in tiles
        that stay in cache, faster than filling the matrix) unless the
        matrix is at most four tiles.
    n_jobs : int or None
        joblib's ``n_jobs``: with more than one worker, points get a streamed
        operator whose products run as joblib tasks (a precomputed matrix and
        one-dimensional data with exponent 1 stay in this process: O(n^2) read
        or O(n log n)).
    """
    from ._parallel import n_workers

    if semimetric.precomputed:
        return DenseOperator(X)
    if semimetric.is_abs_difference(X):
        return SortedOperator(X[:, 0])
    if n_workers(n_jobs) > 1:  # tiles at most a quarter of the data a side: work for every worker
        return StreamedOperator(X, semimetric, min(TILE, max(1, -(-X.shape[0] // 4))), threads=1).with_jobs(n_jobs)
    n = X.shape[0]
    # a matrix of at most four tiles is one BLAS call, faster than tiling it
    if (repeated or n <= 2 * TILE) and dense_bytes(n) + reserve <= memory_budget():
        return DenseOperator(semimetric_matrix(X, semimetric), owned=True)
    return _streamed(X, semimetric)


def kernel_operator(
    X: np.ndarray, semimetric: Semimetric | None, weights: np.ndarray | None, *, reserve: int = 0, n_jobs: int | None = None
) -> PairwiseOperator:
    """The centred kernel G (eq. 7, reference point the weighted mean) of validated data.

    ``semimetric=None`` means ``X`` is a Gram matrix already (used as given).
    Points whose matrix fits the budget get G computed and centred in place
    (one n x n array); a precomputed D is wrapped without a copy; otherwise
    G is formed from a streamed (with ``n_jobs``: parallel) or sorted D.
    """
    if semimetric is None:
        return DenseOperator(X)
    n = X.shape[0]
    if not semimetric.precomputed and not semimetric.is_abs_difference(X) and dense_bytes(n) + reserve <= memory_budget():
        G = centre_in_place(semimetric_matrix(X, semimetric), weights)
        return DenseOperator(G, owned=True)
    return CentredKernel(semimetric_operator(X, semimetric, repeated=False, n_jobs=n_jobs), weights)
