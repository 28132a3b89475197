"""The interface every back-end of the pairwise operator implements: the contract between the
operator layer and the families of statistics.

A :class:`PairwiseOperator` is a symmetric n x n matrix A (the semimetric D, or a kernel
G) known only by what it does, as a :class:`scipy.sparse.linalg.LinearOperator` is:
products :meth:`~PairwiseOperator.matmat`, :meth:`~PairwiseOperator.rows`,
:meth:`~PairwiseOperator.diagonal`, :meth:`~PairwiseOperator.row_sums`, block sums
(:meth:`~PairwiseOperator.quadratic`), the block sums of many labelings at once
(:meth:`~PairwiseOperator.group_sums`) and blocks of its centred rows
(:meth:`~PairwiseOperator.centred_rows`). Callers ask it for these and for its
capabilities and views, never for its concrete type. Everything a family may ask is
declared here, public and with a default: a view that a back-end does not have is
``None`` (:attr:`~PairwiseOperator.features`, :attr:`~PairwiseOperator.feature_map`,
:attr:`~PairwiseOperator.residual`, :attr:`~PairwiseOperator.directions`,
:meth:`~PairwiseOperator.projections`, :attr:`~PairwiseOperator.line`), a capability it
does not have is ``False`` (:attr:`~PairwiseOperator.on_line`, :attr:`~PairwiseOperator.tiled`).
``tests/infrastructure/test_layout.py`` runs the public API with every operator wrapped in a proxy
that refuses any other attribute.

The names that start with an underscore belong to the operator layer: the whole matrix
(:meth:`~PairwiseOperator._held_matrix`, :meth:`~PairwiseOperator._dense`), tiles
(:meth:`~PairwiseOperator._tile`) and where shards run (:meth:`~PairwiseOperator._map`).

The interface is an abstract base class: a back-end must provide ``_matmat``,
:meth:`~PairwiseOperator.rows`, :meth:`~PairwiseOperator.group_sums`,
:meth:`~PairwiseOperator.group_sums_bytes` and :meth:`~PairwiseOperator.restrict`.
Everything else has a default computed from those.
"""

from __future__ import annotations

import abc
import copy
import functools
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.linalg import eigh
from scipy.sparse import diags
from scipy.sparse.linalg import LinearOperator, aslinearoperator, eigsh

from .._config import memory_budget, memory_error
from .._parallel import items_per_task, n_workers, round_robin, run_tasks, run_threads
from .feature_map import FeatureMap

__all__ = ["TILE", "Line", "PairwiseOperator", "indicator", "is_scalar"]

#: Side of the square tiles of a streamed product (2 MiB per tile): a streamed product then
#: runs at 80-90% of numpy's matrix-product rate on this package's benchmark machine
#: (benchmarks/bench_operator.py). A block of rows holds as many entries
#: (:meth:`PairwiseOperator.block_rows`).
TILE = 512


@dataclass(frozen=True)
class Line:
    """The view of an operator that is :math:`|x_i - x_j|` of points on the line, known by
    their sort (:attr:`PairwiseOperator.line`).

    Attributes
    ----------
    x : ndarray of shape (n,)
        The points, as given.
    order : ndarray of shape (n,)
        Their ascending order (``np.argsort(x)``; ties in any order).
    xs : ndarray of shape (n,)
        The sorted points, centred (``x[order] - x[order].mean()``): an offset costs no
        precision.
    """

    x: np.ndarray
    order: np.ndarray
    xs: np.ndarray


def indicator(codes: np.ndarray, k: int, weights: np.ndarray | None = None) -> np.ndarray:
    """n x k matrix with w_i (1 without weights) in column codes_i of row i: the weighted
    indicator Z of the groups, so that Z' D Z holds the block sums of eq. (13)."""
    Z = np.zeros((codes.shape[0], k))
    Z[np.arange(codes.shape[0]), codes] = 1.0 if weights is None else weights
    return Z


def is_scalar(idx) -> bool:
    """Whether a row index selects one row (an integer) rather than several (slice or array)."""
    return isinstance(idx, (int, np.integer))


def _operator_task(operator: PairwiseOperator, shard, method: str, **arguments):
    """A joblib task: one shard of a product, on the worker's copy of the operator."""
    return getattr(operator, method)(shard, **arguments)


class PairwiseOperator(abc.ABC):
    """A symmetric n x n matrix A known by its products (the semimetric D or a kernel G).

    Implementations provide ``_matmat``, :meth:`rows`, :meth:`group_sums`,
    :meth:`group_sums_bytes` and :meth:`restrict` (abstract); the rest follows. Returned
    arrays are new unless documented; rows of a held matrix may be read-only views.

    Every implementation splits its products into independent shards (groups of
    tiles, bands of rows, groups of projections) and hands them to :meth:`_map`, the
    one place that decides where shards run (this process's threads, or joblib tasks
    with ``n_jobs``), so a scheduling back-end applies to every implementation alike.
    """

    #: number of points n
    n: int
    #: bytes the operator itself holds beyond the data (the matrix, for dense)
    nbytes: int = 0
    #: a short name for messages: "dense", "streamed", "sorted", "projection", ...
    kind: str = ""
    #: ``None`` for the exact matrix, else the approximation's name ("projection",
    #: "nystroem"): statistics on it estimate those of the exact matrix
    approximation: str | None = None
    #: features Φ (n x r) with A = Φ Φ' when the operator is a Gram matrix known by
    #: features (Nyström), else ``None``: a caller may then work in feature space
    features: np.ndarray | None = None
    #: the map that gives new points their features with the same landmarks, when the
    #: features came from one (Nyström), else ``None``
    feature_map: FeatureMap | None = None
    #: each point's squared length outside the span of the features,
    #: :math:`K(x_i, x_i) - \|\Phi_i\|^2 \ge 0`, which the features leave out (Nyström), else
    #: ``None``
    residual: np.ndarray | None = None
    #: the directions u_l (L x d) when A is the random-projection estimate
    #: :math:`\frac{C_d}{L} \sum_l |u_l^\top x_i - u_l^\top x_j|`, else ``None``
    #: (:meth:`projections` gives the projected points)
    directions: np.ndarray | None = None
    #: the points on the line, known by their sort, when A is :math:`|x_i - x_j|`, else
    #: ``None``: pair sums, centred products and permutation engines then take O(n log n)
    line: Line | None = None
    #: bytes of labelings per :meth:`group_sums` call beyond which larger batches gain
    #: nothing (they leave the cache); ``None``: as many as the budget holds
    batch_cap: int | None = 256 * 2**20
    #: whether :meth:`group_sums` prefers its labelings packed as bits
    #: (:class:`~energystats._operator._prefix.PackedLabelings`), all in one call: the
    #: operators on the line, whose cost per call is a sort
    packed_labelings: bool = False
    #: whether the operator gives any square tile A[a:b, c:e] (:meth:`_tile`): centred
    #: products of several operators are then formed tile by tile
    tiled: bool = False
    #: side of the tiles of its tiled products
    tile: int = TILE
    #: whether :meth:`_tile` returns views of a held matrix (to be copied before changing)
    tile_views: bool = False
    #: a picklable function of no arguments that builds the same operator in another process
    #: (a joblib task) from the data, never sending a held matrix: given by
    #: :func:`~energystats._operator.make_operator` to the operator's constructor; ``None``
    #: for an operator built otherwise (a restriction, a test's own)
    recipe: Callable[[], PairwiseOperator] | None = None
    #: threads that share this operator's products in this process
    threads: int = 1
    #: joblib's ``n_jobs`` for the products (:meth:`with_jobs`): more than one worker runs
    #: their shards as joblib tasks (on Dask inside ``joblib.parallel_config(backend="dask")``,
    #: where ``None`` means every worker); 1 (the default): in this process
    n_jobs: int | None = 1
    _row_sums: np.ndarray | None = None

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.n)

    @property
    def exact(self) -> bool:
        """Whether the operator is the matrix itself rather than an approximation of it."""
        return self.approximation is None

    @property
    def on_line(self) -> bool:
        """Whether A is :math:`|x_i - x_j|` of points on the line, known by their sort
        (:attr:`line`)."""
        return self.line is not None

    def projections(self, rows: np.ndarray | None = None, direction: int | None = None):
        r"""The projected points :math:`u_l^\top x_i` of the random-projection estimate (rows
        ``rows``, all without; len(rows) x L, or the vector of one ``direction`` l, the same
        numbers in every call), else ``None``."""
        return None

    def feature_sums(self, Z: np.ndarray) -> np.ndarray | None:
        """Φ' Z (r x m), the sums of the features weighted by the columns of Z, when the operator
        is known by :attr:`features` (then A Z = Φ (Φ' Z)), else ``None``."""
        return None

    def block_rows(self) -> int:
        """Rows of A per block of rows (:meth:`rows`, :meth:`centred_rows`): TILE^2 entries,
        2 MiB, so that a block stays in cache; at least one."""
        return max(1, TILE * TILE // max(self.n, 1))

    def fits_beside(self, extra: float) -> bool:
        """Whether ``extra`` bytes fit beside the operator's own :attr:`nbytes`, which are
        allocated already: both together within ``working_memory``, ``extra`` alone within
        the memory the system reports available (which excludes the operator's)."""
        return self.nbytes + extra <= memory_budget(0) and extra <= memory_budget(extra)

    def check_beside(self, what: str, extra: float) -> None:
        """Raise :class:`~energystats.WorkingMemoryError`, naming ``what``, unless ``extra``
        bytes fit beside the operator (:meth:`fits_beside`)."""
        if not self.fits_beside(extra):
            raise memory_error(what, self.nbytes + extra)

    def centred_rows(self, a: int, b: int, unbiased: bool = False) -> np.ndarray:
        r"""Rows a:b of the centred matrix ((b - a) x n, new, within the memory budget): the
        double-centred :math:`A_{ij} = a_{ij} - a_{i\cdot}/n - a_{\cdot j}/n +
        a_{\cdot\cdot}/n^2` (Székely, Rizzo & Bakirov 2007, eq. 2.7), or with ``unbiased``
        the U-centred :math:`\tilde A_{ij} = a_{ij} - a_{i\cdot}/(n-2) - a_{\cdot j}/(n-2) +
        a_{\cdot\cdot}/((n-1)(n-2))` for :math:`i \ne j`, 0 on the diagonal (Székely & Rizzo
        2014, eq. 3.1; n >= 4), from :meth:`row_sums` (one product, computed once)."""
        n = self.n
        what = f"rows {a}:{b} of the centred matrix ({self.kind} {n} x {n} operator)"
        self.check_beside(what, 8 * (b - a) * n)
        sums = self.row_sums()
        total = float(sums.sum())
        R = np.array(self.rows(slice(a, b)), dtype=float)  # a copy: held rows are views
        if unbiased:
            R -= sums[a:b, None] / (n - 2)
            R -= sums[None, :] / (n - 2)
            R += total / ((n - 1) * (n - 2))
            R[np.arange(b - a), np.arange(a, b)] = 0.0
        else:
            mean = sums / n
            R -= mean[a:b, None]
            R -= mean[None, :]
            R += total / n**2
        return R

    # -- the operator layer's own ---------------------------------------------------------

    def _held_matrix(self) -> np.ndarray | None:
        """The whole matrix when the operator holds it in memory (no copy), else ``None``."""
        return None

    def _dense(self, what: str = "the matrix") -> np.ndarray:
        """The whole matrix: the held one (no copy, do not modify it), else assembled from
        bands of rows after checking that 8 n^2 bytes fit the memory budget."""
        held = self._held_matrix()
        if held is not None:
            return held
        self.check_beside(
            f"{what} ({self.kind} {self.n} x {self.n} operator as an array)", 8 * self.n * self.n
        )
        out = np.empty((self.n, self.n))
        step = max(1, 2**18 // max(self.n, 1))
        for a in range(0, self.n, step):
            out[a : a + step] = self.rows(slice(a, min(a + step, self.n)))
        return out

    def _tile(self, a: int, b: int, c: int, e: int, out: np.ndarray | None = None) -> np.ndarray:
        """The block A[a:b, c:e] of an operator that gives tiles (:attr:`tiled`): a view when the
        matrix is held, else computed, into ``out`` (a C-contiguous (b - a) x (e - c) array)
        when given."""
        raise NotImplementedError(f"the {self.kind} operator gives no tiles")

    def _pair_cost(self) -> int:
        """Work of evaluating one entry of a tile, in multiply-adds (for task sizes)."""
        return 1

    def power_sums(self) -> tuple[float, float]:
        r"""(tr C^2, tr C^3) of the double-centred matrix C = J A J (SRB 2007, eq. 2.7): the
        power sums of its eigenvalues, which give the skewness of the distance covariance's
        limit (:func:`~energystats._independence.gamma.skewness_of`). Forms C (n x n) within
        the memory budget."""
        self.check_beside(
            f"the power sums ({self.kind} {self.n} x {self.n} operator)", 3 * 8 * self.n * self.n
        )
        D = self._dense("the power sums' matrix")
        A = D - D.mean(axis=0) - D.mean(axis=1)[:, None] + D.mean()
        A2 = A @ A
        return float(np.trace(A2)), float(np.vdot(A2, A))

    def top_eigenvectors(self, k: int, scale: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        r"""The eigenvectors (n x k) of the k largest eigenvalues of :math:`S A S`,
        S = diag(``scale``) (:math:`W^{1/2} G W^{1/2}` of França et al. eq. 29 for ``scale`` the
        root weights): LAPACK on a scaled copy of the held matrix when the copy fits the memory
        budget beside it, else Lanczos iterations (ARPACK ``eigsh``) on the operator, one product
        per iteration and no n x n array, started from a vector drawn from ``rng`` (drawn only on
        that path). Needs k < n - 1."""
        n = self.n
        held = self._held_matrix()
        if held is not None and self.fits_beside(8 * n * n):
            scaled = held * scale[:, None]
            scaled *= scale[None, :]
            return eigh(scaled, subset_by_index=[n - k, n - 1], overwrite_a=True)[1]
        S = aslinearoperator(diags(scale))
        return eigsh(S @ self.aslinearoperator() @ S, k=k, which="LA", v0=rng.standard_normal(n))[1]

    def with_jobs(self, n_jobs: int | None) -> PairwiseOperator:
        """The same operator whose products run as joblib tasks with ``n_jobs``."""
        op = copy.copy(self)
        op.n_jobs = n_jobs
        return op

    # -- where shards run -------------------------------------------------------------

    def _distributed(self) -> bool:
        """Whether products run as joblib tasks (``n_jobs`` gives more than one worker)."""
        return n_workers(self.n_jobs) > 1

    def _map(self, method: str, shards: list, **arguments) -> list:
        """``[self.<method>(shard, **arguments) for shard in shards]``, results in shard order:
        as joblib tasks when distributed (the operator and the array arguments are sent to
        each worker once), else on this process's threads (one BLAS thread each)."""
        if self._distributed():
            arrays = {
                name: value for name, value in arguments.items() if isinstance(value, np.ndarray)
            }
            small = {name: value for name, value in arguments.items() if name not in arrays}
            return run_tasks(
                functools.partial(_operator_task, method=method, **small),
                [{"shard": shard} for shard in shards],
                self.n_jobs,
                shared={"operator": self, **arrays},
            )
        work = getattr(self, method)
        return run_threads(lambda shard: work(shard, **arguments), shards)

    def _shards(self, items: list, work_per_item: float, columns: int) -> list[list]:
        """``items`` (tiles, bands, projections) in shards: round-robin among this process's
        threads, or, when distributed, consecutive groups of about ``TASK_WORK`` (at least
        ``MIN_TASKS``), independent of ``n_jobs`` so that sums come out the same."""
        if self._distributed():
            per = items_per_task(len(items), work_per_item)
            return [items[a : a + per] for a in range(0, len(items), per)]
        return round_robin(items, self._threads_for(columns))

    def _threads_for(self, m: int) -> int:
        """Threads sharing a product with m columns."""
        return self.threads

    # -- what every operator provides ------------------------------------------------

    def matmat(self, Z: np.ndarray, what: str = "a product") -> np.ndarray:
        """A @ Z for Z of shape (n, m), after checking that the output and the operator's
        temporaries fit the memory budget (``what`` names the product in the error)."""
        self.check_beside(
            f"{what} ({self.kind} {self.n} x {self.n} operator times {Z.shape[1]} columns)",
            self.product_bytes(Z.shape[1]),
        )
        return self._matmat(Z)

    @abc.abstractmethod
    def _matmat(self, Z: np.ndarray) -> np.ndarray:
        """A @ Z, the memory budget already checked by :meth:`matmat`."""

    @abc.abstractmethod
    def rows(self, idx) -> np.ndarray:
        """A[idx]: one row (1-D) for an integer, else len(idx) x n."""

    def diagonal(self) -> np.ndarray:
        """diag(A): zero for a semimetric."""
        return np.zeros(self.n)

    def product_bytes(self, m: int) -> int:
        """Memory of one product with m columns: its output plus the operator's temporaries."""
        return 8 * self.n * m

    def row_sums(self) -> np.ndarray:
        """A @ 1, computed once."""
        if self._row_sums is None:
            self._row_sums = self.matmat(np.ones((self.n, 1)), "the row sums")[:, 0]
        return self._row_sums

    def total(self) -> float:
        """1' A 1: the sum over all ordered pairs."""
        return float(self.row_sums().sum())

    def block_sums(
        self, codes: np.ndarray, k: int, weights: np.ndarray | None = None
    ) -> np.ndarray:
        """Z' A Z (k x k, exactly symmetric) for the weighted indicator Z of ``codes`` (weights
        w, or 1): the block sums M_ij of França et al. eq. (13). The indicator (n x k), the
        product and the two k x k arrays of :meth:`quadratic` are checked against the budget
        first (k near n: several n x n arrays)."""
        self.check_beside(
            f"the block sums of {k} groups ({self.kind} {self.n} x {self.n} operator)",
            8 * self.n * k + self.product_bytes(k) + 2 * 8 * k * k,
        )
        return self.quadratic(indicator(codes, k, weights))

    def quadratic(self, Z: np.ndarray) -> np.ndarray:
        """Z' A Z (m x m), exactly symmetric: for a weighted group indicator Z the block
        sums M_ij of França et al. eq. (13), g(C_i, C_j) = M_ij / (s_i s_j)."""
        M = Z.T @ self.matmat(Z, "a block sum")
        M += M.T  # numpy reads the overlapping transpose from one m x m copy
        M *= 0.5
        return M

    @abc.abstractmethod
    def group_sums(self, codes: np.ndarray, k: int, cross: bool) -> np.ndarray:
        """Block sums of B labelings at once: ``M[b, i, j] = sum_{x in C_i, y in C_j} A(x, y)``
        under labeling ``codes[b]`` (B x n, values 0..k-1). The diagonal is always
        computed; the off-diagonal blocks are meaningful only when ``cross``."""

    @abc.abstractmethod
    def group_sums_bytes(self, k: int) -> int:
        """Memory :meth:`group_sums` needs per labeling."""

    @abc.abstractmethod
    def restrict(self, idx: np.ndarray) -> PairwiseOperator:
        """The operator of the submatrix A[idx][:, idx]."""

    def aslinearoperator(self) -> LinearOperator:
        """A :class:`scipy.sparse.linalg.LinearOperator` view (for iterative eigensolvers)."""
        return LinearOperator(
            self.shape,
            matvec=lambda v: self.matmat(np.asarray(v, float).reshape(-1, 1))[:, 0],
            matmat=lambda V: self.matmat(np.asarray(V, float)),
            dtype=np.float64,
        )
