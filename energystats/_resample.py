r"""Resampling: every Monte Carlo test's draws, its exact enumeration and its p-value.

A test hands this module what it resamples (permutations of the rows, relabelings of groups,
signs) and a function that evaluates its statistic on a block of resamples at once; the
resamples are drawn here, all of a block in one vectorised call, so that a seed gives the same
null distribution on every path, block size and machine.

Draws. A block of B uniform permutations of n points is one sort of B x n random keys: each key
holds 48 random bits above the point's index, so that sorting a row orders the points by
their random bits, and ties (probability below :math:`n^2 2^{-49}` for a row, under 1e-5 for
every n this path takes) are broken by position. Past :data:`PACKED_LIMIT` points the
permutations are numpy's Fisher-Yates shuffles, one per resample.

The p-value (Davison & Hinkley 1997, eq. 4.11; Phipson & Smyth 2010)

.. math::

    p = \frac{1 + \#\{b : t^*_b \ge t - \gamma\}}{1 + B}

counts the observed data as one resample of the null, so p >= 1/(B + 1) and the level is
exact; over all M distinct resamples (the observed one among them) :math:`p = \#\{t^* \ge t -
\gamma\} / M`. The tie tolerance :math:`\gamma = 100\,\epsilon \max(|t|, s)` takes the scale s
of the sums the statistic is a difference of (S = T - W is tiny beside T): two resamples with
the same statistic then tie however their sums were rounded.
"""

from __future__ import annotations

import itertools
import math
from numbers import Integral, Real

import numpy as np

from ._config import check_fits
from ._parallel import blas_for
from ._progress import check_progress, progress_bar

__all__ = [
    "MAX_EXACT",
    "MAX_RESAMPLES",
    "all_relabelings",
    "all_signs",
    "check_resamples",
    "null_distribution",
    "permutation_draws",
    "permutations",
    "pvalue",
    "relabeling_count",
    "sign_draws",
    "signs",
]

#: The most resamples a test draws: the standard error of a p-value near 0.05 is then 7e-5.
MAX_RESAMPLES = 10**7
#: The most distinct resamples enumerated for an exact p-value.
MAX_EXACT = 10**6
#: Largest n whose permutations come from one sort of packed keys (16 bits of index).
PACKED_LIMIT = 2**16
#: Bytes of the temporaries a block of resamples may hold: a block then stays in cache-sized
#: pieces (more resamples per block gain nothing once the products are BLAS-3).
BLOCK_BYTES = 8 * 2**20
TIE_RTOL = 100 * np.finfo(float).eps


def check_resamples(value, name: str = "n_resamples") -> int:
    """A number of resamples: a whole number (``999.0`` too, as R writes it) from 1 to
    :data:`MAX_RESAMPLES`."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(f"`{name}` must be a positive integer, got {type(value).__name__}.")
    if not isinstance(value, Integral) and not (math.isfinite(value) and float(value).is_integer()):
        raise ValueError(f"`{name}` must be a whole number (a count of resamples), got {value!r}.")
    if value < 1:
        raise ValueError(f"`{name}` must be a positive integer, got {value}.")
    if value > MAX_RESAMPLES:
        raise ValueError(f"`{name}` must be at most {MAX_RESAMPLES:,} (the standard error of a "
                         f"p-value is then below 1e-4), got {int(value):,}.")
    return int(value)


def permutations(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """``size`` independent uniform permutations of ``range(n)``, shape (size, n)."""
    if n >= PACKED_LIMIT:
        return np.stack([rng.permutation(n) for _ in range(size)]) if size else np.empty((0, n),
                                                                                         np.intp)
    keys = rng.bit_generator.random_raw((size, n)).view(np.int64)
    keys >>= 16  # 48 random bits above 16 bits of index
    keys <<= 16
    keys |= np.arange(n)
    keys.sort(axis=1)
    keys &= 0xFFFF
    return keys


def permutation_draws(rng, n: int, exact: bool = False):
    """``draw(m)``: the next m of all n! permutations (the identity first) with ``exact``,
    else m random ones (:func:`permutations`)."""
    if not exact:
        return lambda m: permutations(rng, n, m)
    return _sequence(np.array(list(itertools.permutations(range(n))), dtype=np.intp))


def sign_draws(rng, n: int, exact: bool = False):
    """``draw(m)``: the next m of all 2^n sign vectors (all plus first) with ``exact``, else m
    random ones (:func:`signs`)."""
    return _sequence(all_signs(n)) if exact else (lambda m: signs(rng, n, m))


def _sequence(rows: np.ndarray):
    """``draw(m)`` over consecutive rows of ``rows``."""
    position = 0

    def draw(m: int) -> np.ndarray:
        nonlocal position
        position += m
        return rows[position - m : position]

    return draw


def signs(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """``size`` rows of n independent random signs (+1.0 or -1.0), shape (size, n)."""
    bits = rng.integers(0, 2, size=(size, n), dtype=np.int8)
    return 1.0 - 2.0 * bits


def relabeling_count(sizes, cap: int = MAX_EXACT) -> int:
    """The number of distinct relabelings of groups of ``sizes`` (the multinomial coefficient),
    or ``cap + 1`` when it exceeds ``cap``."""
    count, rest = 1, 0
    for m in sizes:
        rest += int(m)
        count = count * math.comb(rest, int(m))
        if count > cap:
            return cap + 1
    return count


def all_relabelings(codes: np.ndarray) -> np.ndarray:
    """Every distinct arrangement of the labels ``codes`` (integers 0..k-1) over the n points,
    the observed one first, shape (M, n)."""
    codes = np.asarray(codes)
    k = int(codes.max()) + 1
    rows = [np.full(codes.shape[0], k - 1, dtype=codes.dtype)]
    free = [np.arange(codes.shape[0])]
    for j in range(k - 1):  # place group j on the positions left free, every way
        m = int((codes == j).sum())
        new_rows, new_free = [], []
        for row, places in zip(rows, free):
            for chosen in itertools.combinations(range(places.shape[0]), m):
                r = row.copy()
                r[places[list(chosen)]] = j
                new_rows.append(r)
                new_free.append(np.delete(places, chosen))
        rows, free = new_rows, new_free
    out = np.stack(rows)
    first = np.flatnonzero((out == codes).all(axis=1))[0]
    out[[0, first]] = out[[first, 0]]
    return out


def all_signs(n: int) -> np.ndarray:
    """All 2^n sign vectors, the all-plus one first, shape (2^n, n)."""
    bits = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    return 1.0 - 2.0 * bits


def null_distribution(evaluate, draw, count: int, item_bytes: float, progress=None,
                      what: str = "resamples", *, block: int | None = None,
                      work: float = 0.0) -> np.ndarray:
    """The statistic on ``count`` resamples: ``draw(m)`` gives m resamples (rows),
    ``evaluate(block)`` their statistics (m values, or m rows of several statistics sharing
    their resamples), ``block`` resamples at a time (None: as many as :data:`BLOCK_BYTES` of
    temporaries hold, ``item_bytes`` per resample). ``progress``: True, False or None (a bar
    over the blocks when a person is watching, :func:`~._progress.progress_bar`). ``work``: the
    multiply-adds of the whole null; below :data:`~._parallel.SMALL_PRODUCTS` BLAS runs on one
    thread (:func:`~._parallel.blas_for`)."""
    check_fits(f"the null distribution of {count:,} resamples", 8.0 * count)
    step = block or int(max(1, min(count, BLOCK_BYTES // max(item_bytes, 1.0))))
    out = None
    starts = range(0, count, step)
    with blas_for(work):
        for start in progress_bar(starts, len(starts), check_progress(progress), what):
            m = min(step, count - start)
            values = evaluate(draw(m))
            if out is None:
                out = np.empty((count, *np.shape(values)[1:]))
            out[start : start + m] = values
    return out


def check_observed(observed, what: str = "the test statistic"):
    """``observed``, or a ``ValueError`` when a value of it is NaN or infinite (a statistic
    that is not a number has no p-value)."""
    if not np.isfinite(observed).all():
        bad = "NaN" if np.isnan(observed).any() else "infinite"
        raise ValueError(f"{what} is {bad}, so it has no p-value: the data (or the parameters "
                         "given) leave it undefined (constant data, a scale of 0, ...).")
    return observed


def pvalue(observed, null, *, exact: bool = False, scale=0.0, strict: bool = False,
           what: str = "the test statistic"):
    """The p-value of the module's docstring: ``null`` holds B random resamples, or with
    ``exact`` all M distinct ones (the observed among them); ``scale`` is s of the tolerance;
    ``strict`` counts only values above t + gamma (R's ``eqdist.etest`` rule), the observed
    one added once. Vectorised over a last axis of ``observed`` (several statistics sharing
    their resamples)."""
    check_observed(observed, what)
    t = np.asarray(observed, dtype=float)
    null = np.asarray(null, dtype=float)
    if np.isnan(null).any():
        raise ValueError(f"{what} is NaN on some resamples, which cannot be counted: no p-value.")
    gamma = TIE_RTOL * np.maximum(np.abs(t), np.abs(scale))
    if strict:
        hits = np.count_nonzero(null > t + gamma, axis=0) + 1
    else:
        hits = np.count_nonzero(null >= t - gamma, axis=0) + (0 if exact else 1)
    p = hits / (null.shape[0] + (0 if exact else 1))
    return float(p) if np.ndim(p) == 0 else p
