r"""Permutation nulls of the independence statistics: the permutations drawn (or enumerated),
shared among threads or joblib tasks, and handed to an engine, a callable that returns the
statistic under each permutation of a block. The engines live in the operator layer
(:func:`energystats._operator.permuted_products`, :class:`energystats._operator.GatherEngine`).
"""

from __future__ import annotations

import math
from itertools import permutations as all_orders

import numpy as np

from .._config import check_fits, memory_budget
from .._parallel import THREADS, n_workers, round_robin, run_tasks, run_threads
from .._random import as_generator

__all__ = ["permutation_null"]

#: Largest number of permutations enumerated when ``exact=True``.
MAX_EXACT = 10**6


def _evaluate(engine, perms: np.ndarray) -> np.ndarray:
    """engine(perms), the permutations shared among this process's threads."""
    shares = round_robin(np.arange(perms.shape[0]), THREADS)
    parts = run_threads(lambda idx: engine(perms[idx]), shares)
    out = np.empty(perms.shape[0])
    for idx, values in zip(shares, parts):
        out[idx] = values
    return out


def _task(engine, perms: np.ndarray) -> np.ndarray:
    """A joblib task: a block of permutations on the worker's copy of the engine."""
    return _evaluate(engine, perms)


def _progress(iterable, total: int, enabled: bool):
    if not enabled:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc="permutations", unit="batch")


def permutation_null(engine, n: int, n_resamples: int, rng, exact, progress: bool, n_jobs, reserve: int = 0):
    """The engine's value for the identity and for ``n_resamples`` random permutations (or
    all n! when ``exact``): ``(observed, null, exact_used, count)``.

    The permutations are drawn here from ``rng`` in blocks (``Generator.permuted`` row by row:
    the same permutations whatever the block size), so the null does not depend on
    ``n_jobs`` or the memory budget; with more than one joblib worker the blocks run as
    tasks with the engine sent once."""
    count = math.factorial(n) if n <= 20 else None
    use_exact = (count is not None and count <= n_resamples) if exact == "auto" else bool(exact)
    if use_exact and (count is None or count > MAX_EXACT):
        raise ValueError(f"`exact`=True needs {n}! permutations, more than {MAX_EXACT}; use exact='auto' or False.")
    total = count if use_exact else n_resamples + 1
    check_fits(f"the null distribution of {total} permutations", reserve + 8 * total)
    step = int(max(1, min(total, 4096, (memory_budget() - reserve - 8 * total) // (8 * max(n, 1) * 2))))
    if use_exact:
        orders = np.array(list(all_orders(range(n))), dtype=np.intp)
        blocks = (orders[a : a + step] for a in range(0, total, step))
    else:
        blocks = _random_blocks(n, n_resamples, step, as_generator(rng))
    if n_workers(n_jobs) > 1:
        calls = [{"perms": b} for b in blocks]
        values = run_tasks(_task, calls, n_jobs, shared={"engine": engine}, progress="permutations" if progress else None)
    else:
        values = [_evaluate(engine, b) for b in _progress(blocks, -(-total // step), progress)]
    values = np.concatenate(values)
    if use_exact:
        identity = 0  # itertools.permutations starts with the identity
        return float(values[identity]), values, True, total
    return float(values[0]), values[1:], False, n_resamples


def _random_blocks(n: int, n_resamples: int, step: int, gen: np.random.Generator):
    """The identity, then ``n_resamples`` random permutations of 0..n-1, in blocks of ``step``."""
    todo, first = n_resamples + 1, True
    base = np.arange(n, dtype=np.intp)
    while todo > 0:
        size = min(step, todo)
        block = np.tile(base, (size, 1))
        gen.permuted(block[first:], axis=1, out=block[first:])
        yield block
        todo -= size
        first = False


def pvalue(observed: float, null: np.ndarray, exact: bool, n_resamples: int) -> float:
    r"""(1 + #{t* >= t}) / (B + 1), or #{t* >= t} / n! when exact (the identity among them),
    with null values equal to the observed one up to rounding (100 eps |t|) counted as ties."""
    gamma = 100 * np.finfo(float).eps * abs(observed)
    hits = int(np.count_nonzero(null >= observed - gamma))
    return hits / null.size if exact else (hits + 1) / (n_resamples + 1)
