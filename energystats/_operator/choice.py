r"""Every choice of a path the operator layer makes, in one place, from the sizes of the problem
only (never from its values, never from timings taken at run time: the same call takes the same
path on every machine, and every path gives the same statistics to rounding).

* :func:`choose_backend`: the back-end of one matrix, from :class:`Sizes` (n, whether the
  matrix is the user's, whether the points lie on the line, the joblib workers, the memory
  budget) and what the caller will ask of it (:mod:`.options`);
* :func:`choose_engine`: the permutation engine of two operators (the independence tests'
  :math:`S(\pi)`), from their declared views and n.

:func:`~energystats._operator.make_operator` and
:func:`~energystats._operator.permuted_products` build what these return.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._parallel import THREADS
from ._base import TILE, PairwiseOperator
from ._tiled import labeling_bytes
from .matrices import dense_bytes
from .options import GroupSums, OnePass, Repeated, Use
from .streamed import TILE_ENTRY_BYTES

__all__ = [
    "BACKENDS",
    "ENGINES",
    "Choice",
    "Sizes",
    "choose_backend",
    "choose_engine",
    "distributed_tile",
    "streamed_tile",
]

#: The back-ends :func:`choose_backend` names: the user's matrix as given, the sorted points on
#: the line, tiles as joblib tasks, the matrix computed and held, tiles streamed in this
#: process, the centred kernel computed and held.
BACKENDS = ("given", "sorted", "distributed", "dense", "streamed", "dense kernel")
#: The permutation engines :func:`choose_engine` names: O(K n log n) per permutation for two
#: projection estimates, O(n log n) for two operators on the line, gathers of y's matrix.
ENGINES = ("projected", "sorted", "gather")


@dataclass(frozen=True)
class Sizes:
    """What the chooser knows of a problem: sizes and kinds, never values.

    Attributes
    ----------
    n : int
        Points.
    precomputed : bool
        The data are the user's matrix (a semimetric, or a Gram matrix when ``gram``).
    gram : bool
        The data are a Gram matrix (the kernel itself).
    on_line : bool
        Points on the line with |x - y|: the sorted back-end applies.
    workers : int
        joblib workers for the products (1: this process).
    budget : int
        Bytes of working memory.
    """

    n: int
    precomputed: bool
    gram: bool
    on_line: bool
    workers: int
    budget: int


@dataclass(frozen=True)
class Choice:
    """A back-end (one of :data:`BACKENDS`), and whether the centred kernel is formed on top of
    it (:class:`~.centred.CentredKernel`)."""

    backend: str
    centred: bool = False


def streamed_tile(budget: int) -> int:
    """The tile side of a streamed operator in this process: tiles of every thread within a
    quarter of the budget, at most :data:`TILE`."""
    return min(TILE, max(1, math.isqrt(budget // (4 * TILE_ENTRY_BYTES * THREADS))))


def distributed_tile(n: int) -> int:
    """The tile side of a distributed streamed operator: at most a quarter of the data a side
    (work for every worker), at most :data:`TILE`."""
    return min(TILE, max(1, -(-n // 4)))


def choose_backend(sizes: Sizes, use: Use, kernel: bool = False) -> Choice:
    """The back-end of the semimetric D (or with ``kernel`` of its centred kernel G) for
    ``use``, in this order:

    1. the user's matrix (precomputed D, a Gram matrix) is used as given, never copied;
    2. one-dimensional data with |x - y|: sorted, O(n log n) (unless ``use`` says otherwise);
    3. with more than one joblib worker: streamed, its products as tasks;
    4. a batch of relabelings: streamed when every labeling fits one pass over the tiles, else
       held when the matrix fits beside a batch, else streamed with one pass per batch;
    5. otherwise held when the caller will use it more than once (or it is at most four tiles)
       and it fits the budget beside the caller's ``reserve``, else streamed.

    The kernel of points whose matrix fits beside ``reserve`` is computed and centred in place;
    otherwise it is formed on top of the D this function chooses for one pass.
    """
    reserve = use.reserve if isinstance(use, Repeated) else 0
    fits = dense_bytes(sizes.n) + reserve <= sizes.budget
    if kernel:
        if sizes.gram:
            return Choice("given")
        if not sizes.precomputed and not sizes.on_line and fits:
            return Choice("dense kernel")
        return Choice(_semimetric(sizes, OnePass(), repeated=False), centred=True)
    return Choice(_semimetric(sizes, use, repeated=isinstance(use, Repeated)))


def _semimetric(sizes: Sizes, use: Use, repeated: bool) -> str:
    n, budget = sizes.n, sizes.budget
    reserve = use.reserve if isinstance(use, Repeated) else 0
    if sizes.precomputed:
        return "given"
    if sizes.on_line and (use.sort if isinstance(use, Repeated) else True):
        return "sorted"
    if sizes.workers > 1:
        return "distributed"
    # a matrix of at most four tiles is one BLAS call, faster than tiling it
    if (repeated or n <= 2 * TILE) and dense_bytes(n) + reserve <= budget:
        return "dense"
    if isinstance(use, GroupSums):
        tile = min(streamed_tile(budget), n)
        per = labeling_bytes(n, use.k, tile, THREADS)
        step = use.batch or (budget - TILE_ENTRY_BYTES * tile * tile) // per
        if step < use.count and dense_bytes(n) + per * (use.batch or 1) <= budget:
            return "dense"  # one pass per batch would cost more than holding the matrix
    return "streamed"


def choose_engine(op_x: PairwiseOperator, op_y: PairwiseOperator) -> str:
    r"""The permutation engine of :math:`S(\pi) = \sum_{ij} A_{ij} b_{\pi(i)\pi(j)}` for the
    operators of x and y (one of :data:`ENGINES`): the sum over the projection pairs of the
    one-dimensional engines for two projection estimates (their directions paired), the
    O(n log n) engine for two operators on the line, else gathers of y's matrix (O(n^2) per
    permutation, within the memory budget)."""
    if op_x.directions is not None and op_y.directions is not None:
        return "projected"
    if op_x.on_line and op_y.on_line:
        return "sorted"
    return "gather"
