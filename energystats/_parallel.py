"""Independent tasks through joblib: ``n_jobs``, and Dask when the user configures it.

energystats has no scheduler of its own. Work that splits into independent
tasks (row bands or tiles of the pairwise operator, restarts of a clustering,
resamples of a test) goes to ``joblib.Parallel(n_jobs=...)``, with joblib's
meaning of ``n_jobs`` (``None``: 1 unless a ``joblib.parallel_config`` context
says otherwise; ``-1``: all workers). Locally that is joblib's default backend
(processes); inside ``joblib.parallel_config(backend="dask")`` with a
``dask.distributed.Client`` the same tasks run on the Dask cluster, as for
scikit-learn.

Large arrays every task needs (the data) are sent to the workers once per call:
on Dask they are scattered explicitly (``client.scatter(..., broadcast=True)``)
and the tasks receive futures, rather than relying on joblib's automatic
scattering of large arguments; joblib's process backend shares them by memory
mapping. Each task runs on one core (one BLAS thread) with the caller's memory
budget, and returns a small result that the caller combines in task order, so
results do not depend on where or when tasks ran. Randomness is drawn by the
caller or from streams spawned per task (``SeedSequence.spawn``), never from a
worker's state.
"""

from __future__ import annotations

from numbers import Integral
from typing import Callable

import joblib

from ._config import config_context, get_config

__all__ = ["check_n_jobs", "n_workers", "run_tasks"]


def check_n_jobs(n_jobs) -> int | None:
    """Validate ``n_jobs``: None or a non-zero integer, as in joblib and scikit-learn."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral) or n_jobs == 0:
        raise ValueError(f"`n_jobs` must be None or a non-zero integer (-1: all workers), got {n_jobs!r}.")
    return int(n_jobs)


def n_workers(n_jobs) -> int:
    """How many tasks run at once for ``n_jobs`` in the current joblib configuration (1: serial)."""
    return int(joblib.effective_n_jobs(n_jobs))


def _dask_client():
    """The Dask client of the active joblib backend, or None."""
    backend, _ = joblib.parallel.get_active_backend()
    return getattr(backend, "client", None)


def _task(function: Callable, shared: dict, call: dict, working_memory: float):
    """One task on a worker: one core (one BLAS thread), the caller's memory budget."""
    from ._operator import _blas_controller

    with config_context(working_memory=working_memory), _blas_controller().limit(limits=1, user_api="blas"):
        return function(**shared, **call)


def run_tasks(function: Callable, calls: list[dict], n_jobs, *, shared: dict | None = None, progress: str | None = None) -> list:
    """``[function(**shared, **call) for call in calls]`` as joblib tasks, results in order.

    Parameters
    ----------
    function : callable
        A module-level function (it is pickled to the workers).
    calls : list of dict
        The keyword arguments of each task (small: bands, seeds, labels).
    n_jobs : int or None
        joblib's ``n_jobs``.
    shared : dict, optional
        Keyword arguments every task needs (the data): sent to each worker once.
    progress : str, optional
        A description: show a progress bar (tqdm) that advances as tasks finish,
        wherever they run.
    """
    shared = dict(shared or {})
    client = _dask_client()
    if client is not None and shared:
        names = list(shared)
        futures = client.scatter([shared[name] for name in names], broadcast=True, hash=False)
        shared = dict(zip(names, futures))
    working_memory = get_config()["working_memory"]
    # the callers size their tasks (shards of about TASK_WORK, chunks of restarts or
    # resamples): joblib's automatic batching would group them again, unevenly
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator", batch_size=1)
    results = parallel(joblib.delayed(_task)(function, shared, call, working_memory) for call in calls)
    if progress:
        from tqdm.auto import tqdm

        results = tqdm(results, total=len(calls), desc=progress)
    return list(results)
