"""All scheduling of energystats: this process's threads, and joblib tasks (Dask when the
user configures it).

Two levels, both decided here and nowhere else:

* **Threads** (:func:`run_threads`): independent shares of one computation (tiles of
  the pairwise operator, blocks of points) run on one persistent pool of
  :data:`THREADS` threads, each with one-thread BLAS, so that the semimetric's
  evaluation (scipy's cdist, numpy's elementwise operations, which release the GIL)
  and the products both use every core and no BLAS thread spins while a tile is
  evaluated. Shares are fixed before they run and results come back in share order,
  so sums of them are the same on every run.
* **Tasks** (:func:`run_tasks`): work that splits into independent tasks (row bands
  or tiles of the pairwise operator, restarts of a clustering, resamples of a test)
  goes to ``joblib.Parallel(n_jobs=...)``, with joblib's meaning of ``n_jobs``
  (``None``: 1 unless a ``joblib.parallel_config`` context says otherwise; ``-1``: all
  workers). Locally that is joblib's default backend (processes); inside
  ``joblib.parallel_config(backend="dask")`` with a ``dask.distributed.Client`` the same
  tasks run on the Dask cluster, as for scikit-learn. energystats has no scheduler of
  its own.

Large arrays every task needs (the data) are sent to the workers once per call: on
Dask they are scattered explicitly (``client.scatter(..., broadcast=True)``) and the
tasks receive futures, rather than relying on joblib's automatic scattering of large
arguments; joblib's process backend shares them by memory mapping. Each task runs on
one core (one BLAS thread) with the caller's memory budget, and returns a small
result that the caller combines in task order, so results do not depend on where or
when tasks ran. Randomness is drawn by the caller or from streams spawned per task
(``SeedSequence.spawn``), never from a worker's state. Tasks are sized by
:func:`items_per_task`: about :data:`TASK_WORK` each, so that the scheduler's cost per
task stays a few per cent. No more workers run than the cores (a Dask cluster's excepted)
and the tasks, and none is started for work of less than :data:`PROCESS_WORK` (about
two seconds on one core, the start of a worker process): such work runs here, in order.
"""

from __future__ import annotations

import contextvars
import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from numbers import Integral
from typing import Callable, Sequence

import joblib
import numpy as np
from threadpoolctl import OpenBLASController, ThreadpoolController

from ._config import config_context, get_config, memory_budget
from ._progress import progress_bar

__all__ = [
    "MIN_TASKS",
    "PROCESS_WORK",
    "TASK_WORK",
    "THREADS",
    "blas_controller",
    "check_n_jobs",
    "items_per_task",
    "n_workers",
    "one_blas_thread",
    "round_robin",
    "run_tasks",
    "run_threads",
    "threads_within",
]


def _threads() -> int:
    """The environment variable ``ENERGYSTATS_NUM_THREADS`` (a positive integer), else the
    cores this process may run on, at most 8."""
    setting = os.environ.get("ENERGYSTATS_NUM_THREADS")
    if setting is not None:
        if not setting.strip().isdigit() or int(setting) < 1:
            raise ValueError(
                f"ENERGYSTATS_NUM_THREADS must be a positive integer, got {setting!r}."
            )
        return int(setting)
    return max(
        1,
        min(
            8,
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else (os.cpu_count() or 1),
        ),
    )


#: Threads for shared computations (streamed products, filling and centring full n x n
#: matrices, power k-means' blocks), fixed when energystats is imported: the cores this
#: process may run on, at most 8, or ``ENERGYSTATS_NUM_THREADS`` (as ``OMP_NUM_THREADS``
#: for BLAS; the test suite sets both to 1 in each of its parallel workers).
THREADS = _threads()
#: Work of one task, in semimetric evaluations plus multiply-adds (about a quarter of a second
#: on one core of the benchmark machine): the scheduler's cost per task, milliseconds, stays a
#: few per cent (benchmarks/bench_dask.py).
TASK_WORK = 2**33
#: Products of less work than this many tasks (about :data:`PROCESS_WORK`) are one task, run
#: in this process: no worker is started for them.
MIN_TASKS = 8


# --- threads -------------------------------------------------------------------------------


_in_pool = threading.local()


def _pooled(work, share):
    """Run ``work(share)`` on a pool thread, marked so that it does not wait on the pool itself."""
    _in_pool.active = True
    return work(share)


@functools.cache
def _pool() -> ThreadPoolExecutor:
    """The package's worker threads, started once per process (starting threads costs about a
    millisecond)."""
    return ThreadPoolExecutor(THREADS, thread_name_prefix="energystats")


@functools.cache
def blas_controller() -> ThreadpoolController:
    """threadpoolctl's view of the loaded BLAS libraries, found once (finding them reads the
    process's maps: milliseconds per call)."""
    return ThreadpoolController()


class _OneBlasThread:
    """One-thread BLAS for as long as any thread of this process is inside the context.

    The first thread to enter limits the libraries and the last to leave restores what was
    there before, whichever threads they are. threadpoolctl's own limit restores what it found
    on entry, and (from 3.6) lets only the first thread that sets OpenBLAS's process-wide count
    change it; so limits that overlapped in several threads (joblib's threading backend runs
    tasks side by side; a user runs two calls in two threads) left BLAS on one thread for good.
    Here the limit is set and restored under one lock, as the controlling thread.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._depth = threading.local()  # how often this thread is inside
        self._holders = 0
        self._limiter = None

    @staticmethod
    def _as_controller(action: Callable):
        """``action()`` as the thread that controls OpenBLAS's count, released afterwards."""
        # threadpoolctl >= 3.6 lets one thread control OpenBLAS's count
        release = getattr(OpenBLASController, "clear_controlling_thread", None)
        if release is None:
            return action()
        release(force=True)
        try:
            return action()
        finally:
            release(force=True)

    def __enter__(self):
        with self._lock:
            if self._holders == 0:
                self._limiter = self._as_controller(
                    lambda: blas_controller().limit(limits=1, user_api="blas")
                )
            self._holders += 1
        self._depth.count = getattr(self._depth, "count", 0) + 1
        return self

    def __exit__(self, *exc):
        self._depth.count -= 1
        with self._lock:
            self._holders -= 1
            if self._holders == 0:
                self._restore()

    def _restore(self):
        self._as_controller(self._limiter.restore_original_limits)
        self._limiter = None

    def after_fork(self):
        """In a forked child only the forking thread lives: the limits the other threads held
        are gone with them (the parent's setting is restored when none is left), and the lock
        is new (another thread may have held it at the fork)."""
        self._lock = threading.Lock()
        self._holders = getattr(self._depth, "count", 0)
        if self._holders == 0 and self._limiter is not None:
            self._restore()


_BLAS_LIMIT = _OneBlasThread()


def one_blas_thread() -> _OneBlasThread:
    """A context in which BLAS runs on one thread: for work split over the package's threads
    or processes, and for products with few columns (memory bound), where more BLAS threads
    only spin (on a busy machine spinning threads slowed a cluster_test five-fold). Contexts
    of several threads overlap: BLAS is restored when the last one ends."""
    return _BLAS_LIMIT


def _after_fork() -> None:
    """In a child forked from this process (``multiprocessing``, joblib's fork backends, a
    Jupyter kernel's workers): forget the parent's thread pool, whose threads did not survive
    the fork (work queued on it would wait forever; the child starts its own on first use),
    and the BLAS limits of the threads that are not in the child."""
    _pool.cache_clear()
    _in_pool.active = False
    _BLAS_LIMIT.after_fork()


if hasattr(os, "register_at_fork"):  # POSIX; Windows has no fork
    os.register_at_fork(after_in_child=_after_fork)


def threads_within(per_thread: float, fixed: float = 0.0) -> int:
    """Threads for a computation that needs ``fixed`` bytes plus ``per_thread`` bytes for each
    thread: :data:`THREADS`, or as many as the memory budget holds, at least one (the
    caller's :func:`~energystats._config.check_fits` of ``fixed + threads * per_thread`` then
    says whether even one fits). Callers share their work in fixed shares whose results are
    combined in share order, so the result does not depend on the count; the memory a call
    needs then does not grow with the machine's cores beyond its budget."""
    budget = memory_budget(fixed + THREADS * per_thread)
    return max(1, min(THREADS, int((budget - fixed) // max(per_thread, 1))))


def round_robin(items: Sequence, parts: int) -> list:
    """``items`` dealt into ``parts`` fixed shares (at least one, at most one per item)."""
    parts = max(1, min(parts, len(items)))
    return [items[r::parts] for r in range(parts)]


def run_threads(work: Callable, shares: list, blas: bool = True) -> list:
    """``[work(share) for share in shares]``, results in share order: on the pool's threads,
    one share each, with the caller's configuration (the memory budget of its
    ``config_context``) and, when the shares call BLAS (``blas``), one-thread BLAS; in order
    on the calling thread when there is one share or the caller is a pool thread itself
    (one level of threads only). Shares without BLAS (semimetric evaluations, elementwise
    work) skip the limit, whose first use finds the loaded libraries (tens of milliseconds)."""
    if len(shares) <= 1 or getattr(_in_pool, "active", False):
        return [work(share) for share in shares]
    # a context is entered by one thread at a time
    contexts = [contextvars.copy_context() for _ in shares]

    def run() -> list:
        return list(
            _pool().map(lambda context, share: context.run(_pooled, work, share), contexts, shares)
        )

    if not blas:
        return run()
    with one_blas_thread():
        return run()


# --- joblib tasks ----------------------------------------------------------------------------


#: The largest |n_jobs|: joblib starts as many processes or threads as asked (65,536 of them
#: exhaust a workstation) and refuses a dispatch queue (2 n_jobs tasks) past 10^6; a Dask
#: cluster of more workers is reached with n_jobs=-1.
MAX_N_JOBS = 1024


def check_n_jobs(n_jobs) -> int | None:
    """Validate ``n_jobs``: None or a non-zero integer, as in joblib and scikit-learn, of
    magnitude at most :data:`MAX_N_JOBS`."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral) or n_jobs == 0:
        raise ValueError(
            f"`n_jobs` must be None or a non-zero integer (-1: all workers), got {n_jobs!r}."
        )
    if abs(n_jobs) > MAX_N_JOBS:
        raise ValueError(
            f"`n_jobs` must lie between -{MAX_N_JOBS} and {MAX_N_JOBS} (-1: all workers), got "
            f"{n_jobs}: joblib runs no more workers than that."
        )
    return int(n_jobs)


#: Work, in seconds on one core, below which no worker process is started: a joblib worker
#: (Python with numpy, scipy, pandas and energystats imported) takes 1 to 2 s to start on the
#: benchmark machine, more than such work takes here (a test of 99 permutations at n = 30,
#: 0.2 ms of work, took 4 s with n_jobs=2 and 19 s with n_jobs=8).
PROCESS_WORK = 2.0


def n_workers(n_jobs, seconds: float | None = None) -> int:
    """How many tasks run at once for ``n_jobs`` in the current joblib configuration (1:
    serial): at most the cores this process may use (joblib's ``cpu_count``: its affinity and
    cgroup quota) unless the tasks go to a Dask cluster; 1 for work of ``seconds`` (its time on
    one core in the cost model) below :data:`PROCESS_WORK`."""
    if seconds is not None and seconds < PROCESS_WORK:
        return 1
    workers = int(joblib.effective_n_jobs(n_jobs))
    if workers == 1 or _dask_client() is not None:
        return workers
    return min(workers, joblib.cpu_count())


def items_per_task(items: int, work_per_item: float) -> int:
    """Items (tiles, band pairs, projections) per distributed task: equal tasks of about
    :data:`TASK_WORK` (the last one shorter), never less than one item (a band pair of a large
    problem is then one task); work of fewer than :data:`MIN_TASKS` such tasks (about
    :data:`PROCESS_WORK`) is one task, run in this process."""
    count = int(np.ceil(items * work_per_item / TASK_WORK))
    return max(1, items if count < MIN_TASKS else items // count)


def _dask_client():
    """The Dask client of the active joblib backend, or None."""
    backend, _ = joblib.parallel.get_active_backend()
    return getattr(backend, "client", None)


def _task(function: Callable, shared: dict, call: dict, working_memory: float):
    """One task on a worker: one core (one BLAS thread), the caller's memory budget."""
    with config_context(working_memory=working_memory), one_blas_thread():
        return function(**shared, **call)


def run_tasks(
    function: Callable,
    calls: list[dict],
    n_jobs,
    *,
    shared: dict | None = None,
    progress: bool | None = False,
    desc: str = "tasks",
) -> list:
    """``[function(**shared, **call) for call in calls]`` as joblib tasks, results in order.

    Parameters
    ----------
    function : callable
        A module-level function (it is pickled to the workers).
    calls : list of dict
        The keyword arguments of each task (small: bands, seeds, labels).
    n_jobs : int or None
        joblib's ``n_jobs``, at most :func:`n_workers` of them and one per task (one: the
        tasks run here, in order).
    shared : dict, optional
        Keyword arguments every task needs (the data): sent to each worker once.
    progress : bool or None, default=False
        Show a progress bar that advances as tasks finish, wherever they run
        (:func:`~energystats._progress.progress_bar`: ``None`` when a person is watching).
    desc : str, default="tasks"
        What the bar counts.
    """
    shared = dict(shared or {})
    working_memory = get_config()["working_memory"]
    jobs = min(n_workers(n_jobs), len(calls))
    if jobs <= 1:  # one worker: the tasks in order here, no process started
        results = (_task(function, shared, call, working_memory) for call in calls)
        return list(progress_bar(results, len(calls), progress, desc))
    client = _dask_client()
    if client is not None and shared:
        names = list(shared)
        futures = client.scatter([shared[name] for name in names], broadcast=True, hash=False)
        shared = dict(zip(names, futures))
    # the callers size their tasks (shards of about TASK_WORK, chunks of restarts or
    # resamples): joblib's automatic batching would group them again, unevenly
    parallel = joblib.Parallel(n_jobs=jobs, return_as="generator", batch_size=1)
    results = parallel(
        joblib.delayed(_task)(function, shared, call, working_memory) for call in calls
    )
    return list(progress_bar(results, len(calls), progress, desc))
