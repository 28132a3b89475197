r"""The cost model of the permutation tests: the time of every exact path, from the sizes of
the problem, written down in one place.

A test evaluates its statistic on B resamples, and each family has several exact ways to do
it that give the same values to rounding: the independence tests' sum
:math:`S(\pi) = \sum_{ij} A_{ij} b_{\pi(i)\pi(j)}` by gathers over whole blocks of
permutations (``"flat"``), by gathers of blocks of rows of one permutation (``"rows"``), or
in O(n log n) on the line (``"sorted"``); the k-sample tests' block sums by a product with a
held matrix (``"dense"``), by tiles streamed from the points (``"streamed"``) or by prefix
sums on the line (``"sorted"``). The path that wins at n = 10^6 rarely wins at n = 50: at
n = 50 the O(n log n) concordance sum spends its time in numpy's per-call cost (about twenty
calls per bit of n), where the gathers of all 2,500 products of a permutation cost a few
microseconds. So each path's time is modelled here as

.. math::

    t = c_{\text{call}}\,(\text{numpy calls}) + c_{\text{gather}}\,(\text{elements gathered})
        + c_{\text{stream}}\,(\text{elements streamed}) + c_{\text{mac}}\,(\text{multiply-adds
        in BLAS})

with the machine constants below, and the choosers of the operator layer
(:mod:`energystats._operator.choice`) and the resampling loop's :func:`~energystats.
_resampling.plan` ask it which path and how many threads. The constants are fixed numbers,
never timings taken at run time: the same call takes the same path on every machine, and
every path gives the same statistic to rounding and the same p-value (the tie tolerance of
:func:`~energystats._resampling.pvalue` covers the order of the additions of each).

The constants were measured by ``benchmarks/bench_cost.py`` (which prints them, and each
path's modelled time beside its measured time) on the package's benchmark machine: two cores
of an AMD EPYC (Zen 3, 512 KiB L2 per core) under KVM, numpy 2.4 with OpenBLAS 0.3.31, the
best of repeated runs on one core. On another machine they are off by a common factor, which
moves no choice; only their ratios decide.
"""

from __future__ import annotations

import math

__all__ = [
    "CACHE",
    "CALL",
    "EVAL",
    "FAR",
    "FLAT",
    "FLAT_BYTES",
    "LINE",
    "MAC",
    "PACK",
    "PARALLEL_WORK",
    "PREFIX",
    "PROJECTED",
    "ROWS",
    "ROWS_ENTRY",
    "STREAM",
    "cheapest",
    "flat_chunk",
    "pairing_costs",
    "relabeling_costs",
    "worth_threads",
]

# --- the machine's constants (benchmarks/bench_cost.py) -------------------------------------

#: Seconds of one numpy call on small arrays, the Python around it included (a ``take`` of 64
#: elements).
CALL = 1.5e-6
#: Seconds per product of the flat path of :math:`S(\pi)` (its index, its gather from G in
#: cache, its multiply-add), measured at n = 50.
FLAT = 1.9e-9
#: Seconds per product gathered by the rows path of :math:`S(\pi)` (the column gather and
#: the dot product, the rows' copies shared out), measured at n = 200.
ROWS_ENTRY = 1.35e-9
#: How much slower a gather is from a matrix larger than the last private cache
#: (:data:`CACHE` bytes), measured at n = 500: both gather paths pay it.
FAR = 2.7
#: Seconds per point and bit of n of the sorted engine's concordance sum (its masked
#: cumulative sums, its pair terms, its stable split), measured at n = 3,000.
LINE = 69e-9
#: Seconds per element of a contiguous pass (an indicator, a comparison, a reduction).
STREAM = 0.6e-9
#: Seconds per multiply-add of a BLAS product on one thread (float64, dgemm and dtrmm).
MAC = 0.076e-9
#: Seconds per coordinate of a semimetric entry (scipy's cdist).
EVAL = 1.0e-9
#: Seconds to pack one relabeling as bits for the prefix sums on the line (one Python step
#: each: its draw and its bits), measured at n = 50.
PACK = 9e-6
#: Seconds per point and group of one relabeling's prefix sums on the line, measured at
#: n = 3,000.
PREFIX = 12e-9

#: Seconds per point, group, direction and relabeling of the random-projection test's block
#: sums (measured at n = 40,000, 3 groups, 50 directions, 200 relabelings: 2.7 s).
PROJECTED = 2.2e-9

#: Bytes of the last cache private to a core (512 KiB of L2 on the benchmark machine).
CACHE = 2**19
#: Work, in seconds on one core, below which a computation stays on the calling thread:
#: handing work to another thread (this package's pool, or OpenBLAS's) wakes it, which on a
#: busy machine waits for the scheduler's next slice (milliseconds; 25 ms measured for one
#: threaded product at n = 100 with the other core busy, against 0.4 ms on one thread).
PARALLEL_WORK = 4e-3

# --- the sizes the engines work in -----------------------------------------------------------

#: Bytes of the index and value arrays of one chunk of the flat path.
FLAT_BYTES = 2**20
#: Rows of G per block of the rows path (64 rows of a 10,000-point matrix are 5 MiB).
ROWS = 64
#: numpy calls per bit of n of the O(n log n) concordance sum, and of one permutation of the
#: sorted engine outside it (:func:`energystats._operator.concordance.concordant_sum`).
LINE_CALLS = 29
SORTED_CALLS = 12


def cheapest(costs: dict[str, float]) -> str:
    """The path of least modelled time (the first named on a tie)."""
    return min(costs, key=costs.__getitem__)


def worth_threads(seconds: float) -> bool:
    """Whether work of ``seconds`` on one core is worth sharing among threads
    (:data:`PARALLEL_WORK`)."""
    return seconds >= PARALLEL_WORK


# --- the independence tests: S(pi) for permutations of y's rows --------------------------------


def flat_chunk(n: int) -> int:
    """Permutations per chunk of the flat path: their index and value arrays (16 bytes a
    product) within :data:`FLAT_BYTES`, at least one."""
    return max(1, FLAT_BYTES // (16 * n * n))


def _far(nbytes: float) -> float:
    """1 for gathers from a matrix of ``nbytes`` that fits :data:`CACHE`, else :data:`FAR`."""
    return 1.0 if nbytes <= CACHE else FAR


def _flat(n: int) -> float:
    """One permutation by the flat path: for a chunk of permutations, the flat indices
    p_i n + p_j of all n^2 products (one broadcast addition), the gather of G's entries at
    them and one matrix-vector product with F: three calls a chunk."""
    return n * n * FLAT * _far(8 * n * n) + 3 * CALL / flat_chunk(n)


def _rows(n: int) -> float:
    """One permutation by the rows path: for each block of :data:`ROWS` rows, G's rows at
    p[a:b] (whole rows copied), their columns at p[a:b] and p[b:] (gathered: the upper
    triangle) and two dot products with F's pieces: five calls a block."""
    blocks = -(-n // ROWS)
    return (5 * blocks - 2) * CALL + n * (n + ROWS) / 2 * ROWS_ENTRY * _far(8 * n * n)


def _sorted(n: int) -> float:
    """One permutation by the O(n log n) engine on the line: the concordance sum, bit by bit,
    and the rest of the expansion."""
    bits = max(1, math.ceil(math.log2(max(n, 2))))
    return bits * (LINE_CALLS * CALL + n * LINE) + SORTED_CALLS * CALL


def pairing_costs(n: int, on_line: bool = False) -> dict[str, float]:
    r"""Seconds per permutation of each exact path of :math:`S(\pi)` for n points:
    ``"flat"`` and ``"rows"`` (gathers of y's n x n matrix, any data) and, for two samples on
    the line with |x - y|, ``"sorted"`` (O(n log n), no matrix).

    Examples
    --------
    >>> from energystats._cost import cheapest, pairing_costs
    >>> [cheapest(pairing_costs(n, on_line=True)) for n in (20, 300, 1000, 10**5)]
    ['flat', 'rows', 'sorted', 'sorted']
    """
    costs = {"flat": _flat(n), "rows": _rows(n)}
    if on_line:
        costs["sorted"] = _sorted(n)
    return costs


# --- the k-sample tests: block sums of relabelings ---------------------------------------------


def relabeling_costs(n: int, k: int, count: int, d: int = 1, passes: int = 1,
                     on_line: bool = False) -> dict[str, float]:
    r"""Seconds of each exact path of the block sums of ``count`` relabelings of n points of d
    coordinates into k groups: ``"dense"`` (the matrix computed once and held; a triangular
    product with the one-hot indicators of k - 1 groups a labeling), ``"streamed"`` (the
    tiles recomputed from the points in each of ``passes`` passes, the same products) and,
    on the line, ``"sorted"`` (prefix sums after one sort, O(n k) a labeling after packing it
    as bits, one Python step a labeling).

    Examples
    --------
    >>> from energystats._cost import relabeling_costs
    >>> costs = [relabeling_costs(n, 2, 1000, on_line=True) for n in (50, 300, 10**4)]
    >>> [min(("dense", "sorted"), key=c.get) for c in costs]
    ['dense', 'dense', 'sorted']
    """
    products = n * n / 2 * (k - 1) * count * MAC
    indicators = count * n * (k - 1) * (2 + k) * STREAM + 8 * CALL
    costs = {
        "dense": n * n * (d * EVAL + STREAM) + products + indicators,
        "streamed": passes * n * n / 2 * d * EVAL + products + indicators,
    }
    if on_line:
        costs["sorted"] = count * (PACK + n * k * PREFIX)
    return costs

