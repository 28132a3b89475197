r"""One resampling engine: what every Monte Carlo test of energystats shares.

Every test here compares an observed statistic t with its values :math:`t^*_1, \dots,
t^*_B` on resamples drawn under H0, and the families differ only in how a resample is made
and evaluated (their *engine*):

* relabelings of the pooled points (the k-sample energy tests, :mod:`._homogeneity`);
* pairings, permutations of y's rows against x's (every test of independence:
  :func:`permutation_null` here, the engines of :mod:`._independence`);
* parametric draws from the fitted null (the goodness-of-fit bootstraps, :mod:`._gof`);
* Gaussian samples re-clustered as the data were (:func:`~energystats.cluster_test`).

This module owns the rest, as ``scipy.stats._resampling`` does for scipy's resampling tests:
the validation of ``n_resamples``, ``exact``, ``batch`` and ``progress``
(:func:`check_options`); the choice between enumerating every distinct resample and drawing
at random, with its cap (:func:`use_exact`); the batch that fits the working memory
(:func:`batch_size`); one progress bar per call (:func:`progress_bar`, from :mod:`._progress`); and the one p-value
(:func:`pvalue`), with its tie tolerance derived once and a refusal of a statistic that is not
a number. A new test family brings an engine and calls these.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import permutations as all_orders
from numbers import Integral

import numpy as np

from ._config import check_fits, memory_budget, memory_error
from ._parallel import THREADS, n_workers, round_robin, run_tasks, run_threads, threads_within
from ._progress import check_progress, progress_bar
from ._random import as_generator
from ._validation import check_positive_int

__all__ = [
    "MAX_EXACT",
    "MAX_RESAMPLES",
    "TIE_RTOL",
    "Options",
    "batch_size",
    "check_observed",
    "check_options",
    "check_progress",
    "check_resamples",
    "permutation_null",
    "progress_bar",
    "pvalue",
    "use_exact",
]

#: The most resamples a Monte Carlo test draws. At 10**7 the standard error of a p-value
#: near 0.05 is 7e-5 (near 0.001, 1e-5): finer than any decision needs; more only costs time.
MAX_RESAMPLES = 10**7
#: Bytes each resample holds until the p-value: its statistic in the null distribution,
#: and the copy made when the blocks of statistics are joined.
RESAMPLE_BYTES = 16
#: Largest number of distinct resamples (relabelings, permutations) enumerated for an exact
#: p-value.
MAX_EXACT = 10**6
#: The relative tie tolerance of :func:`pvalue`, as a multiple of the scale of the terms summed.
TIE_RTOL = 100 * np.finfo(float).eps


def check_resamples(value, name: str = "n_resamples") -> int:
    """Check a number of Monte Carlo resamples: an integer from 1 to :data:`MAX_RESAMPLES`
    whose stored null distribution fits the memory budget (before anything is drawn)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
        raise TypeError(f"`{name}` must be a positive integer, got {type(value).__name__}.")
    if value < 1:
        raise ValueError(f"`{name}` must be a positive integer, got {value}.")
    B = int(value)
    if B > MAX_RESAMPLES:
        raise ValueError(
            f"`{name}` must be at most {MAX_RESAMPLES:,} (the Monte Carlo standard error of a p-value "
            f"is then below 1e-4; more changes no decision), got {B:,}."
        )
    check_fits(f"the null distribution of `{name}`={B:,} resamples", RESAMPLE_BYTES * B, f"a smaller `{name}`")
    return B


@dataclass(frozen=True)
class Options:
    """The validated options of a Monte Carlo test.

    Attributes
    ----------
    n_resamples : int
        B, the number of random resamples.
    exact : {"auto", True, False}
        Whether to enumerate every distinct resample (see :func:`use_exact`).
    batch : int or None
        Resamples evaluated at once; ``None``: as many as the working memory holds.
    progress : bool or None
        Whether to show a progress bar; ``None``: when a person is watching
        (:func:`~energystats._progress.watching`).
    """

    n_resamples: int
    exact: str | bool = "auto"
    batch: int | None = None
    progress: bool | None = None


def check_options(n_resamples, exact="auto", batch=None, progress=None) -> Options:
    """Validate the options every Monte Carlo test takes; messages name the argument."""
    B = check_resamples(n_resamples)
    if not (isinstance(exact, str) and exact == "auto") and not isinstance(exact, (bool, np.bool_)):
        raise ValueError(f"`exact` must be 'auto', True or False, got {exact!r}.")
    if batch is not None:
        batch = check_positive_int(batch, "batch")
    return Options(B, exact if isinstance(exact, str) else bool(exact), batch, check_progress(progress))


def use_exact(count: int, options: Options, what: str) -> bool:
    """Whether to enumerate every one of the ``count`` distinct resamples (``what`` names them,
    e.g. "relabelings"; a count above :data:`MAX_EXACT` may be given as MAX_EXACT + 1).

    ``"auto"``: when there are at most ``n_resamples`` of them and at most :data:`MAX_EXACT`
    (enumeration is then both exact and no more work than the draws); ``True``: always, up to
    :data:`MAX_EXACT`, past which a ``ValueError`` says so; ``False``: never."""
    if options.exact == "auto":
        return count <= min(options.n_resamples, MAX_EXACT)
    if options.exact and count > MAX_EXACT:
        raise ValueError(f"`exact`=True needs more than {MAX_EXACT} {what}; use exact='auto' or False.")
    return bool(options.exact)


def batch_size(per_item: int, total: int, what: str, *, held: int = 0, batch: int | None = None, cap: int | None = None) -> int:
    """Resamples per batch: ``batch`` when given (refused if it does not fit), else as many of
    the ``total`` as the working memory holds beside ``held`` bytes, at ``per_item`` bytes each
    (at most ``cap`` items). A budget that cannot hold one raises
    :class:`~energystats.WorkingMemoryError` before anything is allocated."""
    free = memory_budget() - held
    if batch is not None:
        if per_item * batch > free:
            raise memory_error(f"{what} with `batch`={batch}", held + per_item * batch, "a smaller `batch` (or batch=None, which fits the budget)")
        return batch
    if per_item > free:
        raise memory_error(f"{what} (one resample)", held + per_item)
    step = min(total, free // per_item)
    if cap is not None:
        step = min(step, cap)
    return int(max(1, step))


def check_observed(observed, what: str = "the test statistic"):
    """The observed statistic, or a ``ValueError`` when any value of it is NaN or infinite: a
    statistic that is not a number has no p-value."""
    values = np.asarray(observed, dtype=float)
    if not np.isfinite(values).all():
        bad = "NaN" if np.isnan(values).any() else "infinite"
        raise ValueError(
            f"{what} is {bad}, so it has no p-value: the data (or the parameters given) leave it undefined "
            "(constant data, a scale of 0, values beyond the range of float64, ...)."
        )
    return observed


def pvalue(observed, null: np.ndarray, *, exact: bool = False, scale=0.0, strict: bool = False, what: str = "the test statistic"):
    r"""The Monte Carlo (or exact) p-value of every test in energystats.

    .. math::

        p = \frac{1 + \#\{b : t^*_b \ge t - \gamma\}}{1 + B},

    over B random resamples drawn under H0 (the observed data count as one resample of the
    null, so p >= 1/(B + 1) and the test has level alpha exactly: Davison & Hinkley 1997,
    eq. 4.11; Phipson & Smyth 2010). When ``exact``, ``null`` holds the statistic on all M
    distinct resamples, the observed one among them, and :math:`p = \#\{t^* \ge t - \gamma\}
    / M`. With ``strict``, only :math:`t^* > t + \gamma` count (R's ``eqdist.etest`` rule),
    the observed one added once.

    The tie tolerance. Two resamples with the same value of the statistic (a relabeling
    and its swap of two equal groups; permutations that give the same contingency table)
    must tie, however their sums were added up (another BLAS kernel, thread count, tile
    or batch). A sum of N terms :math:`a_i` computed in floating point in any order, by
    recursive, pairwise or blocked summation, differs from the exact one by at most
    :math:`(N - 1)\,\epsilon \sum |a_i|` (Higham 2002, eq. 4.4), and in pairwise or blocked
    summation by a small multiple of :math:`\epsilon \sum |a_i|` times the length of the
    longest sequential run. So the tolerance is

    .. math::

        \gamma = 100\,\epsilon \max(|t|, s),

    with s, ``scale``, supplied by the family: a bound on :math:`\sum |a_i|` times the longest
    sequential run of additions in its engine (each engine states its s where it computes
    it). Relative to the statistic alone (s = 0) the tolerance would be too small whenever
    the statistic is a small difference of large sums (S = T - W; a centred
    cross-product). A value within :math:`\gamma` of t differs from it by rounding only,
    and counting it is what keeps the p-value the same on every machine.

    Parameters
    ----------
    observed : float or ndarray of shape (m,)
        t (one per test when several tests share their resamples).
    null : ndarray of shape (B,) or (B, m)
        The statistic on each resample.
    exact : bool, default=False
        Whether ``null`` holds every distinct resample, the observed one among them.
    scale : float or ndarray of shape (m,), default=0.0
        s above.
    strict : bool, default=False
        Count only null values above t.
    what : str
        Names the statistic in the error for a value that is not a number.

    Returns
    -------
    float or ndarray of shape (m,)

    Raises
    ------
    ValueError
        When t is NaN or infinite (it has no p-value), or when a null value is NaN (it
        could not be counted).
    """
    check_observed(observed, what)
    t = np.asarray(observed, dtype=float)
    null = np.asarray(null, dtype=float)
    if np.isnan(null).any():
        count = int(np.isnan(null).any(axis=tuple(range(1, null.ndim))).sum()) if null.ndim > 1 else int(np.isnan(null).sum())
        raise ValueError(f"{what} is NaN on {count} of the {null.shape[0]} resamples, which cannot be counted: no p-value.")
    gamma = TIE_RTOL * np.maximum(np.abs(t), np.abs(np.asarray(scale, dtype=float)))
    if strict:
        hits = np.count_nonzero(null > t + gamma, axis=0) + 1
    else:
        hits = np.count_nonzero(null >= t - gamma, axis=0) + (0 if exact else 1)
    p = hits / (null.shape[0] if exact else null.shape[0] + 1)
    return float(p) if np.ndim(p) == 0 else np.asarray(p, dtype=float)


# --- pairings: permutations of one sample's rows against the other's -----------------------


def _random_orders(n: int, n_resamples: int, step: int, gen: np.random.Generator) -> Iterator[np.ndarray]:
    """The identity, then ``n_resamples`` random permutations of 0..n-1, in blocks of ``step``
    (``Generator.permuted`` row by row: the same permutations whatever the block size)."""
    todo, first = n_resamples + 1, True
    base = np.arange(n, dtype=np.intp)
    while todo > 0:
        size = min(step, todo)
        block = np.tile(base, (size, 1))
        gen.permuted(block[first:], axis=1, out=block[first:])
        yield block
        todo -= size
        first = False


@dataclass(frozen=True)
class Null:
    """The statistic on the observed pairing and on the resamples (:func:`permutation_null`)."""

    observed: float
    values: np.ndarray
    exact: bool
    count: int


def permutation_null(engine: Callable[[np.ndarray], np.ndarray], n: int, options: Options, rng, n_jobs=None, *, held: int = 0) -> Null:
    """The engine's value for the identity and for ``n_resamples`` random permutations of the n
    rows (or for all n! when :func:`use_exact` says so): the null calculator of every test of
    independence. ``engine(perms)`` takes a block of permutations (B x n) and returns their
    statistics.

    The permutations are drawn here from ``rng`` in blocks, so the null does not depend on
    ``n_jobs`` or on the memory budget; with more than one joblib worker the blocks run as
    joblib tasks, the engine sent once. Memory: the null (8 bytes a value) and a block of
    permutations (16 n bytes a permutation, with its copy), beside ``held`` bytes."""
    gen = as_generator(rng)
    count = math.factorial(n) if n <= 10 else MAX_EXACT + 1
    exact = use_exact(count, options, f"permutations ({n}! of them)")
    total = count if exact else options.n_resamples + 1
    check_fits(f"the null distribution of {total} permutations", held + 8 * total)
    step = batch_size(16 * max(n, 1), min(total, 4096), "the permutations", held=held + 8 * total, batch=options.batch)
    if exact:
        orders = np.array(list(all_orders(range(n))), dtype=np.intp)
        blocks = (orders[a : a + step] for a in range(0, total, step))
    else:
        blocks = _random_orders(n, options.n_resamples, step, gen)
    n_blocks = -(-total // step)
    if n_workers(n_jobs) > 1:
        values = run_tasks(_task, [{"perms": b} for b in blocks], n_jobs, shared={"engine": engine}, progress=options.progress, desc="permutations")
    else:
        # as many threads as the budget holds beside the null and a block (an engine's
        # ``thread_bytes``: its work arrays per thread); fixed shares, so the same values
        threads = threads_within(getattr(engine, "thread_bytes", 0), held + 8 * total + 16 * max(n, 1) * step)
        values = [_evaluate(engine, b, threads) for b in progress_bar(blocks, n_blocks, options.progress, "permutations")]
    values = np.concatenate(values)
    if exact:  # itertools.permutations starts with the identity
        return Null(float(values[0]), values, True, total)
    return Null(float(values[0]), values[1:], False, options.n_resamples)


def _evaluate(engine, perms: np.ndarray, threads: int = THREADS) -> np.ndarray:
    """engine(perms), the permutations shared among ``threads`` of this process's threads (the
    engines' gathers and sorts release the GIL)."""
    shares = round_robin(np.arange(perms.shape[0]), threads)
    parts = run_threads(lambda idx: engine(perms[idx]), shares)
    out = np.empty(perms.shape[0])
    for idx, values in zip(shares, parts):
        out[idx] = values
    return out


def _task(engine, perms: np.ndarray) -> np.ndarray:
    """A joblib task: a block of permutations on the worker's copy of the engine."""
    return _evaluate(engine, perms)
