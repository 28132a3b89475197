"""Parallelism: BLAS's own threads, and joblib's tasks over independent units (bands of a
streamed matrix, restarts, pairs of variables; on a Dask cluster inside
``joblib.parallel_config(backend="dask")``), no thread pool of the package's own. Results come
back in task order and randomness is drawn by the caller: they do not depend on the workers."""

from __future__ import annotations

import contextlib
import functools
import threading
from numbers import Integral
from typing import Callable

import joblib
from threadpoolctl import OpenBLASController, ThreadpoolController

from ._config import config_context, get_config
from ._progress import progress_bar

__all__ = ["MAX_N_JOBS", "PROCESS_WORK", "SMALL_PRODUCTS", "blas_for", "check_n_jobs",
           "n_workers", "run_tasks"]

#: The largest |n_jobs|: joblib starts as many workers as asked (65,536 exhaust a workstation).
MAX_N_JOBS = 1024
#: Work, in elementary operations (distance evaluations, multiply-adds), below which no worker
#: starts: a joblib worker takes 1 to 2 s to start, in which one core does about 2e9 of them.
PROCESS_WORK = 2e9


#: Multiply-adds below which BLAS runs on one thread: a product of that size takes a few
#: milliseconds on one core, and its threads' wake-up cost it up to 10 times more on a busy
#: machine (benchmarks/bench_sweep.py: energy_test at n = 50, 0.1x R with two BLAS threads,
#: 1.2x with one).
SMALL_PRODUCTS = 1e9
_LOCK, _HOLDERS, _LIMITS = threading.Lock(), [0], [None]


@functools.cache
def _controller() -> ThreadpoolController:
    return ThreadpoolController()  # the loaded BLAS libraries, found once (milliseconds)


def _controlling(action: Callable):
    """``action()`` as the thread that sets OpenBLAS's count (threadpoolctl 3.6+ lets only one
    thread set it)."""
    release = getattr(OpenBLASController, "clear_controlling_thread", None)
    if release is not None:
        release(force=True)
    return action()


@contextlib.contextmanager
def blas_for(work: float):
    """BLAS on one thread for work of fewer than :data:`SMALL_PRODUCTS` multiply-adds, while
    any thread of this process is inside such a context (the first limits, the last restores);
    else as it is."""
    if work >= SMALL_PRODUCTS:
        yield
        return
    with _LOCK:
        if _HOLDERS[0] == 0:
            _LIMITS[0] = _controlling(lambda: _controller().limit(limits=1, user_api="blas"))
        _HOLDERS[0] += 1
    try:
        yield
    finally:
        with _LOCK:
            _HOLDERS[0] -= 1
            if _HOLDERS[0] == 0:
                _controlling(_LIMITS[0].restore_original_limits)


def check_n_jobs(n_jobs) -> int | None:
    """``n_jobs``: None or a non-zero integer of magnitude at most :data:`MAX_N_JOBS`."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral) or n_jobs == 0:
        raise ValueError(f"`n_jobs` must be None or a non-zero integer (-1: all workers), got "
                         f"{n_jobs!r}.")
    if abs(n_jobs) > MAX_N_JOBS:
        raise ValueError(f"`n_jobs` must lie between -{MAX_N_JOBS} and {MAX_N_JOBS} (-1: all "
                         f"workers), got {n_jobs}: joblib runs no more workers than that.")
    return int(n_jobs)


def n_workers(n_jobs, work: float | None = None) -> int:
    """Tasks that run at once for ``n_jobs`` (1: here, in order): joblib's count, at most the
    cores this process may use (joblib's ``cpu_count``) unless a Dask cluster runs them, and 1
    for ``work`` (the caller's estimate, in elementary operations) below :data:`PROCESS_WORK`."""
    if work is not None and work < PROCESS_WORK:
        return 1
    workers = int(joblib.effective_n_jobs(n_jobs))
    local = workers > 1 and _dask_client() is None
    return min(workers, joblib.cpu_count()) if local else workers


def _dask_client():
    """The Dask client of the active joblib backend, or None."""
    return getattr(joblib.parallel.get_active_backend()[0], "client", None)


def _task(function: Callable, shared: dict, call: dict, memory: float):
    """One task on a worker, with the caller's memory budget (a process has its own)."""
    with config_context(working_memory=memory):
        return function(**shared, **call)


def run_tasks(function: Callable, calls: list[dict], n_jobs, *, shared: dict | None = None,
              work: float | None = None, progress: bool | None = False, desc="tasks") -> list:
    """``[function(**shared, **call) for call in calls]`` as joblib tasks, results in order.

    Parameters
    ----------
    function : callable
        A module-level function (it is pickled to the workers).
    calls : list of dict
        The keyword arguments of each task (small: bands, seeds, labels).
    n_jobs : int or None
        joblib's ``n_jobs``: at most :func:`n_workers` workers and one per task (one: here).
    shared : dict, optional
        What every task needs (the data): sent to each worker once (scattered on Dask).
    work : float, optional
        The whole work in elementary operations (:func:`n_workers`); None: worth workers.
    progress : bool or None, default=False
        A bar over the finished tasks (:func:`~energystats._progress.progress_bar`).
    desc : str, default="tasks"
        What the bar counts.
    """
    shared, memory = dict(shared or {}), get_config()["working_memory"]
    jobs = min(n_workers(n_jobs, work), len(calls))
    if jobs <= 1:  # no worker started: the tasks here, in order
        return list(progress_bar((function(**shared, **call) for call in calls), len(calls),
                                 progress, desc))
    client = _dask_client()
    if client is not None and shared:
        shared = dict(zip(shared, client.scatter(list(shared.values()), broadcast=True,
                                                 hash=False)))
    # the callers size their tasks: joblib's automatic batching would group them again
    results = joblib.Parallel(n_jobs=jobs, return_as="generator", batch_size=1)(
        joblib.delayed(_task)(function, shared, call, memory) for call in calls)
    return list(progress_bar(results, len(calls), progress, desc))

