"""The one loop over resamples: every Monte Carlo test of the package runs its resamples here.

A family hands :func:`null_distribution` an engine (:mod:`.engines`: relabelings, pairings or
draws) and its validated options; the loop decides whether to enumerate every distinct
resample or to draw them (:func:`~.options.use_exact`), how to run them (:func:`plan`: blocks
within the memory budget, threads, joblib tasks), shows one progress bar, and returns the null
distribution with the observed value when it is one of the resamples. The resamples are drawn
here, in order, from the caller's generator, so the null does not depend on the blocks, the
threads, ``n_jobs`` or the memory budget.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial

import numpy as np

from .._config import memory_budget, memory_error
from .._cost import worth_threads
from .._parallel import (
    THREADS,
    n_workers,
    one_blas_thread,
    round_robin,
    run_tasks,
    run_threads,
    threads_within,
)
from .._progress import progress_bar
from .._random import as_generator
from .engines import count_relabelings
from .options import Options, use_exact

__all__ = [
    "Null",
    "Plan",
    "batch_size",
    "evaluate_resamples",
    "null_distribution",
    "plan",
    "relabeling_count",
]

#: Bytes each value of a null distribution takes while the blocks run.
VALUE_BYTES = 8
#: Tasks per joblib worker: enough for the workers to finish together.
TASKS_PER_WORKER = 4


def batch_size(per_item: int, total: int, what: str, *, held: int = 0, batch: int | None = None,
               cap: int | None = None) -> int:
    """Resamples per batch: ``batch`` when given (refused if it does not fit), else as many of
    the ``total`` as the working memory holds beside ``held`` bytes, at ``per_item`` bytes each
    (at most ``cap`` items). A budget that cannot hold one raises
    :class:`~energystats.WorkingMemoryError` before anything is allocated."""
    free = memory_budget(held + per_item * (total if batch is None else batch)) - held
    if batch is not None:
        if per_item * batch > free:
            raise memory_error(f"{what} with `batch`={batch}", held + per_item * batch,
                               "a smaller `batch` (or batch=None, which fits the budget)")
        return batch
    if per_item > free:
        raise memory_error(f"{what} (one resample)", held + per_item)
    step = min(total, free // per_item)
    if cap is not None:
        step = min(step, cap)
    return int(max(1, step))


@dataclass(frozen=True)
class Plan:
    """How the loop runs (:func:`plan`).

    Attributes
    ----------
    step : int
        Resamples per block.
    blocks : int
        Number of blocks.
    threads : int
        Threads of this process sharing each block (1: the calling thread alone).
    tasks : bool
        Whether the blocks run as joblib tasks.
    """

    step: int
    blocks: int
    threads: int
    tasks: bool


def plan(total: int, item_bytes: int, what: str, *, held: int = 0, batch: int | None = None,
         cap: int | None = None, thread_bytes: int | None = None, workers: int = 1,
         seconds: float | None = None) -> Plan:
    """How to run ``total`` resamples: the one place where the blocks, the threads and the
    joblib tasks are chosen, from the sizes of the problem (never from timings, so that a call
    runs alike on every machine; the values do not depend on the choice).

    Parameters
    ----------
    total : int
        Resamples to evaluate.
    item_bytes : int
        Memory per resample of a block while it is evaluated.
    what : str
        The work, as a memory error names it.
    held : int, default=0
        Bytes held beside the blocks (an operator, the null distribution).
    batch : int or None, default=None
        The user's block size (``batch``), refused when it does not fit.
    cap : int or None, default=None
        Most resamples per block evaluated in this process.
    thread_bytes : int or None, default=None
        Work memory per thread when a block may be shared among this process's threads;
        ``None``: it is evaluated on the calling thread (its engine runs its own threads).
    workers : int, default=1
        joblib workers (:func:`~energystats._parallel.n_workers`); more than one runs the
        blocks as tasks, :data:`TASKS_PER_WORKER` per worker.
    seconds : float or None, default=None
        The work of the ``total`` resamples on one core in the cost model
        (:mod:`energystats._cost`): below :data:`~energystats._cost.PARALLEL_WORK` they stay
        on the calling thread (waking a pool costs more than it saves); ``None``: unknown.

    Returns
    -------
    Plan
        One block and one thread when the whole fits and is small (no thread pool, progress
        bar or task started).
    """
    tasks = workers > 1
    step = batch_size(item_bytes, total, what, held=held, batch=batch, cap=None if tasks else cap)
    if tasks and batch is None:
        step = min(step, -(-total // (TASKS_PER_WORKER * workers)))
    threads = 1
    shared = seconds is None or worth_threads(seconds)
    if not tasks and thread_bytes is not None and shared:
        threads = threads_within(thread_bytes, held + item_bytes * step)
    return Plan(step, -(-total // step), threads, tasks)


@dataclass(frozen=True)
class Null:
    """The null distribution of a test (:func:`null_distribution`).

    Attributes
    ----------
    observed : float or None
        The statistic of the observed data when they are one of the resamples (relabelings,
        pairings); None for draws, whose family computes it.
    values : ndarray of shape (count,) or (count, m)
        The statistic on each resample: every distinct one, the observed one among them, when
        ``exact``; else the ``n_resamples`` drawn.
    exact : bool
        Whether every distinct resample was enumerated.
    count : int
        The number of resamples in ``values``.
    """

    observed: float | None
    values: np.ndarray
    exact: bool
    count: int


def null_distribution(engine, options: Options, rng=None, n_jobs=None) -> Null:
    """The statistic on the resamples of ``engine`` (a :class:`~.engines.Relabelings`,
    :class:`~.engines.Pairings` or :class:`~.engines.Draws`): all distinct ones when
    :func:`~.options.use_exact` says so, else ``n_resamples`` drawn from ``rng`` (after the
    observed relabeling or pairing), run as :func:`plan` says, with one progress bar.

    Memory: the null distribution (8 bytes a value) and a block of resamples, beside what the
    engine holds. A relabeling engine's ``undefined`` message is raised as soon as the
    observed value is found not to be a number (after the first block of random ones)."""
    gen = as_generator(rng)
    exact = engine.enumerable and use_exact(engine.count, options, engine.name)
    if exact:
        everything, mine = engine.enumerated()
        total = everything.shape[0]
    else:
        total = options.n_resamples + engine.observed_first
    seconds = None if engine.seconds is None else engine.seconds * total
    workers = n_workers(n_jobs, seconds) if engine.tasks else 1
    how = plan(total, engine.item_bytes, engine.what, held=engine.held + VALUE_BYTES * total,
               batch=options.batch, cap=engine.cap, thread_bytes=engine.thread_bytes,
               workers=workers, seconds=seconds)
    if exact:
        blocks = (everything[a : a + how.step] for a in range(0, total, how.step))
    else:
        blocks = engine.drawn(options.n_resamples, how.step, gen)

    def refuse(value: float) -> None:
        if engine.undefined is not None and not np.isfinite(value):
            raise ValueError(engine.undefined)

    first = None if exact or not engine.observed_first else (lambda values: refuse(values[0]))
    values = _run(engine, blocks, how, options.progress, n_jobs, first)
    if exact:
        refuse(values[mine])
        return Null(float(values[mine]), values, True, total)
    if engine.observed_first:
        return Null(float(values[0]), values[1:], False, options.n_resamples)
    return Null(None, values, False, options.n_resamples)


def evaluate_resamples(engine, resamples: np.ndarray, batch: int | None = None) -> np.ndarray:
    """The engine's values on given resamples (a user's permutations), in blocks within the
    memory budget (``batch`` when given), in this process, without a bar."""
    total = resamples.shape[0]
    how = plan(total, engine.item_bytes, engine.what, held=engine.held + VALUE_BYTES * total,
               batch=batch, cap=engine.cap)
    blocks = (resamples[a : a + how.step] for a in range(0, total, how.step))
    return _run(engine, blocks, how, False)


def relabeling_count(sizes: np.ndarray, options: Options) -> int:
    """How many labelings the loop evaluates for groups of these sizes (what the pairwise
    operator is built for): every distinct one when it enumerates them, else the observed one
    and the ``n_resamples`` drawn."""
    if use_exact(partial(count_relabelings, sizes), options, "relabelings"):
        return count_relabelings(sizes)
    return options.n_resamples + 1


def _run(engine, blocks: Iterable, how: Plan, progress: bool | None, n_jobs=None,
         first: Callable | None = None) -> np.ndarray:
    """The loop: the engine's values on every block, in order, joined."""
    if how.tasks:
        calls = [{"block": block} for block in blocks]
        shared = {"evaluate": engine.evaluate, "shared": engine.thread_bytes is not None}
        parts = run_tasks(_task, calls, n_jobs, shared=shared, progress=progress, desc=engine.desc)
        return np.concatenate(parts)
    parts = []
    with one_blas_thread() if engine.one_blas_thread else nullcontext():
        for block in progress_bar(blocks, how.blocks, progress, engine.desc):
            parts.append(_evaluate(engine.evaluate, block, how.threads))
            if first is not None and len(parts) == 1:
                first(parts[0])
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _evaluate(evaluate, block, threads: int = 1) -> np.ndarray:
    """evaluate(block), its rows shared among ``threads`` of this process's threads (the
    engines' gathers and sorts release the GIL); each row's value is computed alone, so the
    values do not depend on the count."""
    if threads <= 1:
        return evaluate(block)
    shares = round_robin(np.arange(block.shape[0]), threads)
    parts = run_threads(lambda idx: evaluate(block[idx]), shares)
    out = np.empty(block.shape[0])
    for idx, values in zip(shares, parts):
        out[idx] = values
    return out


def _task(evaluate, block, shared: bool) -> np.ndarray:
    """A joblib task: a block on the worker's copy of the engine (shared among its threads)."""
    return _evaluate(evaluate, block, THREADS if shared else 1)
