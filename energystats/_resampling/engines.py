"""The three kinds of resamples of the package's Monte Carlo tests, each with its engine: how
a resample is made, and how a block of them is evaluated.

* :class:`Relabelings`: the pooled points relabeled among groups of fixed sizes (the
  k-sample energy tests and DISCO);
* :class:`Pairings`: permutations of y's rows against x's (every test of independence);
* :class:`Draws`: samples drawn from the null model and evaluated (the goodness-of-fit
  bootstraps; the Gaussian samples :func:`~energystats.cluster_test` re-clusters).

Each kind says how many distinct resamples there are (``count``; ``enumerable`` is false for
draws), lists them all (``enumerated``) or draws ``n_resamples`` of them from a generator in
blocks (``drawn``), always the same resamples whatever the block size; its ``evaluate`` turns a
block into the statistic's values, and its memory is declared by ``item_bytes`` (per resample
of a block), ``held`` (beside the blocks), ``cap`` (most resamples per block) and
``thread_bytes`` (per thread sharing a block; ``None``: a block is not shared). The loop of
:mod:`.loop` runs them all alike, as scipy's ``null_calculators`` are run by
``permutation_test``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations
from itertools import permutations as all_orders
from typing import Any, ClassVar

import numpy as np

from .._operator import PackedLabelings

__all__ = ["Draws", "Pairings", "Relabelings", "all_relabelings", "count_relabelings"]


# --- relabelings of the pooled points ------------------------------------------------------


def count_relabelings(sizes: np.ndarray, cap: int | None = None) -> int:
    """Multinomial coefficient N! / prod n_j!: the number of distinct relabelings; with
    ``cap``, a count above it is returned as cap + 1, found from log-gamma functions without
    the exact integer (millions of digits for large samples)."""
    if cap is not None:
        log_count = math.lgamma(int(sizes.sum()) + 1) - sum(math.lgamma(int(m) + 1) for m in sizes)
        if log_count > math.log(cap) + 1.0:  # far above the rounding of the log-gammas
            return cap + 1
    count, remaining = 1, int(sizes.sum())
    for m in sizes[:-1]:
        count *= math.comb(remaining, int(m))
        remaining -= int(m)
    return count if cap is None else min(count, cap + 1)


def all_relabelings(sizes: np.ndarray) -> np.ndarray:
    """Every assignment of the labels 0..k-1 with the given sizes (count x n)."""
    n = int(sizes.sum())
    out = np.full((1, n), -1, dtype=np.intp)
    for j, m in enumerate(sizes[:-1]):
        rows = []
        for row in out:
            free = np.flatnonzero(row < 0)
            for chosen in combinations(free, int(m)):
                new = row.copy()
                new[list(chosen)] = j
                rows.append(new)
        out = np.array(rows)
    out[out < 0] = len(sizes) - 1
    return out


def _compact(codes: np.ndarray) -> np.ndarray:
    """The codes as int8 (int16 from 127 groups): the same permutations, less memory."""
    return codes.astype(np.int8 if codes.max() < 127 else np.int16)


def _shuffled(start: np.ndarray, n_resamples: int, step: int,
              gen: np.random.Generator) -> Iterator[np.ndarray]:
    """``start``, then ``n_resamples`` random permutations of it, in blocks of ``step`` rows:
    ``Generator.permuted`` shuffles the rows of a block one after another from the same
    stream, in place, so the permutations are the same whatever ``step`` is."""
    todo, first = n_resamples + 1, True
    while todo > 0:
        size = min(step, todo)
        block = np.tile(start, (size, 1))
        gen.permuted(block[first:], axis=1, out=block[first:])
        yield block
        todo -= size
        first = False


def _packed(codes: np.ndarray, sizes: np.ndarray, n_resamples: int, step: int,
            gen: np.random.Generator) -> Iterator[PackedLabelings]:
    """The labelings of :func:`_shuffled` (the same relabelings), each block packed as bits one
    relabeling at a time: memory the block's bits and one labeling, not step x n."""
    row = np.empty_like(codes)
    todo, first = n_resamples + 1, True
    while todo > 0:
        size = min(step, todo)
        block = PackedLabelings.empty(codes.shape[0], size, sizes.shape[0])
        for b in range(size):
            row[:] = codes
            if not (first and b == 0):
                gen.permuted(row, out=row)
            block.put(b, row, sizes)
        yield block
        todo -= size
        first = False


@dataclass(frozen=True)
class Relabelings:
    """The pooled points relabeled among groups of the observed sizes (the k-sample tests).

    Attributes
    ----------
    codes : ndarray of shape (n,)
        The observed labeling, codes 0..k-1.
    sizes : ndarray of shape (k,)
        The group sizes.
    evaluate : callable
        ``evaluate(block) -> values``: the statistic of each labeling of a block (B x n codes,
        or :class:`~energystats._operator.PackedLabelings` when ``packed``).
    item_bytes : int
        Memory ``evaluate`` needs per labeling.
    held : int, default=0
        Bytes held beside the blocks (the pairwise operator).
    cap : int or None, default=None
        Most labelings per block.
    packed : bool, default=False
        Hand the random labelings to ``evaluate`` packed as bits.
    undefined : str or None, default=None
        The message of the ``ValueError`` raised as soon as the observed labeling's value is
        found not to be a number.
    what : str, default="the relabelings"
        The work, as a memory error names it.
    """

    codes: np.ndarray
    sizes: np.ndarray
    evaluate: Callable[[Any], np.ndarray]
    item_bytes: int
    held: int = 0
    cap: int | None = None
    packed: bool = False
    undefined: str | None = None
    what: str = "the relabelings"

    name: ClassVar[str] = "relabelings"
    desc: ClassVar[str] = "permutations"
    enumerable: ClassVar[bool] = True
    observed_first: ClassVar[bool] = True
    thread_bytes: ClassVar[None] = None
    seconds: ClassVar[None] = None
    #: the operator runs its products as joblib tasks itself
    tasks: ClassVar[bool] = False
    one_blas_thread: ClassVar[bool] = False

    def count(self, cap: int | None = None) -> int:
        return count_relabelings(self.sizes, cap)

    def enumerated(self) -> tuple[np.ndarray, int]:
        """Every distinct labeling, and the row of the observed one among them."""
        everything = all_relabelings(self.sizes)
        return everything, int(np.flatnonzero((everything == self.codes).all(axis=1))[0])

    def drawn(self, n_resamples: int, step: int, gen: np.random.Generator) -> Iterator:
        codes = _compact(self.codes)
        if self.packed:
            return _packed(codes, self.sizes, n_resamples, step, gen)
        return _shuffled(codes, n_resamples, step, gen)


# --- pairings: permutations of one sample's rows against the other's -----------------------


@dataclass(frozen=True)
class Pairings:
    """Permutations of y's n rows against x's (the tests of independence).

    Attributes
    ----------
    n : int
        The number of rows.
    evaluate : callable
        The engine: ``evaluate(perms) -> values`` for a block of permutations (B x n); its
        ``thread_bytes`` attribute, when it has one, is its work memory per thread (a block is
        shared among as many threads as the budget holds).
    held : int, default=0
        Bytes held beside the blocks.
    """

    n: int
    evaluate: Callable[[np.ndarray], np.ndarray]
    held: int = 0

    desc: ClassVar[str] = "permutations"
    what: ClassVar[str] = "the permutations"
    enumerable: ClassVar[bool] = True
    observed_first: ClassVar[bool] = True
    #: permutations per block: enough to amortise a block, few enough for a bar to move
    cap: ClassVar[int] = 4096
    undefined: ClassVar[None] = None
    tasks: ClassVar[bool] = True
    one_blas_thread: ClassVar[bool] = False

    @property
    def name(self) -> str:
        return f"permutations ({self.n}! of them)"

    @property
    def item_bytes(self) -> int:
        return 16 * max(self.n, 1)  # a permutation and its copy

    @property
    def thread_bytes(self) -> int:
        return getattr(self.evaluate, "thread_bytes", 0)

    @property
    def seconds(self) -> float | None:
        """The engine's seconds per permutation in the cost model (its ``seconds`` attribute,
        :mod:`energystats._cost`), or None."""
        return getattr(self.evaluate, "seconds", None)

    def count(self, cap: int | None = None) -> int:
        """n!, or cap + 1 once the product passes ``cap``."""
        count = 1
        for m in range(2, self.n + 1):
            count *= m
            if cap is not None and count > cap:
                return cap + 1
        return count

    def enumerated(self) -> tuple[np.ndarray, int]:
        """All n! orders; the identity first (``itertools.permutations``' order)."""
        return np.array(list(all_orders(range(self.n))), dtype=np.intp), 0

    def drawn(self, n_resamples: int, step: int, gen: np.random.Generator) -> Iterator:
        """The identity, then ``n_resamples`` random permutations of 0..n-1."""
        return _shuffled(np.arange(self.n, dtype=np.intp), n_resamples, step, gen)


# --- parametric draws ------------------------------------------------------------------------


@dataclass(frozen=True)
class Draws:
    """Samples drawn from the null model, each evaluated (a parametric bootstrap).

    Attributes
    ----------
    sample : callable
        ``sample(gen, size)``: a block of ``size`` samples from the generator, drawn in order
        (the same samples whatever the block size): an array of ``size`` rows, or ``size``
        random streams (``gen.spawn(size)``) for samples drawn where they are evaluated.
    evaluate : callable
        ``evaluate(block) -> values`` of shape (size,) or (size, m) for m statistics of the
        same samples. A module-level callable (or a ``functools.partial`` of one) when
        ``tasks``.
    item_bytes : int
        Memory per sample while a block is drawn and evaluated.
    what : str
        The work, as a memory error names it ("normal_test (n = 50)").
    desc : str, default="samples"
        What a progress bar counts.
    cap : int or None, default=None
        Most samples per block evaluated in this process (1 for a statistic computed sample
        by sample, so that a bar moves with each).
    tasks : bool, default=False
        Whether blocks may run as joblib tasks (``n_jobs``).
    one_blas_thread : bool, default=False
        Evaluate with one BLAS thread (products with few columns, where more threads only
        spin).
    """

    sample: Callable[[np.random.Generator, int], Any]
    evaluate: Callable[[Any], np.ndarray]
    item_bytes: int
    what: str
    desc: str = "samples"
    cap: int | None = None
    tasks: bool = False
    one_blas_thread: bool = False

    name: ClassVar[str] = "samples"
    enumerable: ClassVar[bool] = False
    observed_first: ClassVar[bool] = False
    held: ClassVar[int] = 0
    thread_bytes: ClassVar[None] = None
    seconds: ClassVar[None] = None
    undefined: ClassVar[None] = None

    def drawn(self, n_resamples: int, step: int, gen: np.random.Generator) -> Iterator:
        for start in range(0, n_resamples, step):
            yield self.sample(gen, min(step, n_resamples - start))
