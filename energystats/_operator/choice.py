r"""Every choice of a path the operator layer makes, in one place, from the sizes of the problem
only (never from its values, never from timings taken at run time: the same call takes the same
path on every machine, and every path gives the same statistics to rounding).

* :func:`choose_backend`: the back-end of one matrix, from :class:`Sizes` (n, whether the
  matrix is the user's, whether the points lie on the line, the joblib workers, the memory
  budget) and what the caller will ask of it (:mod:`.options`);
* :func:`choose_engine`: the permutation engine of two operators (the independence tests'
  :math:`S(\pi)`), from their declared views and n, and :func:`choose_gather`: the path of
  the gathers of a matrix.

Where several exact paths apply, the one of least time in the cost model of
:mod:`energystats._cost` is taken (the O(n log n) paths on the line win from a few hundred
points, the matrix below).

:func:`~energystats._operator.make_operator` and
:func:`~energystats._operator.permuted_products` build what these return.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._config import memory_budget
from .._cost import cheapest, pairing_costs, relabeling_costs
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
    "choose_gather",
    "choose_line_sums",
    "distributed_tile",
    "stake",
    "streamed_tile",
]

#: The back-ends :func:`choose_backend` names: the user's matrix as given, the sorted points on
#: the line, tiles as joblib tasks, the matrix computed and held, tiles streamed in this
#: process, the centred kernel computed and held.
BACKENDS = ("given", "sorted", "distributed", "dense", "streamed", "dense kernel")
#: The permutation engines :func:`choose_engine` names: O(K n log n) per permutation for two
#: projection estimates, O(n log n) for two operators on the line, gathers of y's matrix.
ENGINES = ("projected", "sorted", "gather")
#: The paths of the gathers (:func:`choose_gather`): whole blocks of permutations at once, or
#: blocks of rows of one permutation (:data:`energystats._cost.pairing_costs`).
GATHERS = ("flat", "rows")


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
    d : int, default=1
        Coordinates of a point (the work of one entry of the matrix).
    """

    n: int
    precomputed: bool
    gram: bool
    on_line: bool
    workers: int
    budget: int
    d: int = 1


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


def stake(n: int, use: Use) -> int:
    """The most bytes :func:`choose_backend`'s decision for n points and ``use`` involves (the
    matrix, the caller's reserve, a batch of every labeling): the memory budget is read
    against the machine only above :data:`~energystats._config.SURE_BYTES`."""
    reserve = use.reserve if isinstance(use, Repeated) else 0
    labelings = 0
    if isinstance(use, GroupSums):
        labelings = labeling_bytes(n, use.k, TILE, THREADS) * (use.batch or use.count)
    return dense_bytes(n) + reserve + labelings


def choose_backend(sizes: Sizes, use: Use, kernel: bool = False) -> Choice:
    """The back-end of the semimetric D (or with ``kernel`` of its centred kernel G) for
    ``use``, in this order:

    1. the user's matrix (precomputed D, a Gram matrix) is used as given, never copied;
    2. one-dimensional data with |x - y|: sorted, O(n log n) (unless ``use`` says otherwise;
       its block sums of relabelings take the path :func:`choose_line_sums` names);
    3. with more than one joblib worker: streamed, its products as tasks;
    4. a batch of relabelings: held when that costs less than the passes over the tiles the
       batches need (:func:`energystats._cost.relabeling_costs`: from three or four passes, by
       the points' dimension) and the matrix fits beside a batch, else streamed;
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
        passes = -(-use.count // max(step, 1))
        costs = relabeling_costs(n, use.k, use.count, d=sizes.d, passes=passes)
        if costs["dense"] < costs["streamed"] and dense_bytes(n) + per * (use.batch or 1) <= budget:
            return "dense"  # one pass per batch would cost more than holding the matrix
    return "streamed"


#: The paths of the block sums of relabelings on the line (:func:`choose_line_sums`).
LINE_SUMS = ("dense", "sorted")
#: The relabelings and groups :func:`choose_line_sums` prices (a test's default 999 and the
#: observed labeling, two groups): its choice depends on n alone, so that the labelings are
#: drawn in the form the path takes.
_LINE_LABELINGS, _LINE_GROUPS = 1000, 2


def choose_line_sums(n: int) -> str:
    """The path of the block sums of relabelings of n points on the line (one of
    :data:`LINE_SUMS`): the sorted back-end's prefix sums, O(n k) a labeling packed as bits
    (one Python step each), or below a few hundred points the matrix |x_i - x_j| formed for
    the call and its products, as the held back-end's (:func:`energystats._cost.
    relabeling_costs`), when the matrix fits a quarter of the budget."""
    costs = relabeling_costs(n, _LINE_GROUPS, _LINE_LABELINGS, on_line=True)
    if costs["dense"] < costs["sorted"] and 4 * dense_bytes(n) <= memory_budget(4 * dense_bytes(n)):
        return "dense"
    return "sorted"


def choose_gather(n: int) -> str:
    r"""The path of the gathers of :math:`S(\pi) = \sum_{ij} F_{ij} G_{\pi(i)\pi(j)}` for
    n x n matrices (one of :data:`GATHERS`): whole blocks of permutations in a few numpy calls
    (``"flat"``, small n), or blocks of rows of one permutation, the upper triangle only
    (``"rows"``), whichever costs less (:func:`energystats._cost.pairing_costs`)."""
    costs = pairing_costs(n)
    return cheapest({path: costs[path] for path in GATHERS})


def choose_engine(op_x: PairwiseOperator, op_y: PairwiseOperator) -> str:
    r"""The permutation engine of :math:`S(\pi) = \sum_{ij} A_{ij} b_{\pi(i)\pi(j)}` for the
    operators of x and y (one of :data:`ENGINES`): the sum over the projection pairs of the
    one-dimensional engines for two projection estimates (their directions paired); for two
    operators on the line, the O(n log n) engine unless gathers of y's matrix cost less
    (:func:`energystats._cost.pairing_costs`: below a few hundred points) and its two n x n
    matrices fit the budget; else gathers of y's matrix (O(n^2) per permutation, within the
    memory budget)."""
    if op_x.directions is not None and op_y.directions is not None:
        return "projected"
    if op_x.on_line and op_y.on_line:
        n = op_x.n
        costs = pairing_costs(n, on_line=True)
        if cheapest(costs) == "sorted" or 3 * dense_bytes(n) > memory_budget(3 * dense_bytes(n)):
            return "sorted"
    return "gather"
