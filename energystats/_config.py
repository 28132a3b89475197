"""Package configuration: the memory budget that every pairwise computation keeps to.

Modelled on scikit-learn's ``set_config(working_memory=...)``: one user-visible
number, in MiB, bounds the temporary arrays of every statistic, test and
clustering algorithm. The pairwise operator (:mod:`energystats._operator`)
holds the n x n matrix only when it fits this budget and streams it
otherwise; a computation that cannot fit even streamed raises
:class:`WorkingMemoryError` before allocating anything.

The configuration is held in a :class:`contextvars.ContextVar`, so
``config_context`` in one thread does not change another thread's setting.
"""

from __future__ import annotations

import contextvars
import math
import os
from contextlib import contextmanager
from numbers import Real

from ._frontdoor import front_door

__all__ = [
    "WorkingMemoryError",
    "check_fits",
    "config_context",
    "get_config",
    "memory_budget",
    "set_config",
]

_DEFAULTS = {"working_memory": 1024}
_config: contextvars.ContextVar[dict] = contextvars.ContextVar(
    "energystats_config", default=_DEFAULTS
)

MiB = 2**20
#: Requests of at most this many bytes are checked against ``working_memory`` alone, without
#: asking the system what is available (reading /proc/meminfo costs 20 to 40 microseconds, more
#: than the work of a small call that checks several allocations): every machine that runs
#: Python has that much to spare.
SURE_BYTES = 16 * MiB


class WorkingMemoryError(MemoryError):
    """A computation needs more memory than ``working_memory`` (or the machine) allows.

    Raised before anything large is allocated, so the process and whatever
    else it holds (a Jupyter session) survive. The message says how much was
    needed and what to change.
    """


def _check_working_memory(value) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, Real)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise ValueError(f"`working_memory` must be a positive number of MiB, got {value!r}.")
    return float(value)


@front_door()
def get_config() -> dict:
    """Current configuration of energystats.

    Returns
    -------
    dict
        ``{"working_memory": MiB}``; a copy, changing it changes nothing.

    Examples
    --------
    >>> import energystats as es
    >>> es.get_config()["working_memory"]
    1024
    """
    return dict(_config.get())


@front_door()
def set_config(working_memory=None) -> None:
    """Set energystats' configuration (``None`` leaves a setting unchanged).

    Parameters
    ----------
    working_memory : float, default=None
        Memory budget in MiB for the temporary arrays of one computation,
        as scikit-learn's option of the same name (default 1024). The n x n
        semimetric or kernel matrix is held only when it fits; otherwise it
        is recomputed in tiles from the data, with the same results. The
        budget is also capped by the memory the operating system reports
        as available when a computation starts.

    See Also
    --------
    config_context : the same, restored on exit.
    """
    config = dict(_config.get())
    if working_memory is not None:
        config["working_memory"] = _check_working_memory(working_memory)
    _config.set(config)


@front_door()
@contextmanager
def config_context(*, working_memory=None):
    """Context manager for :func:`set_config`; the previous configuration is restored on exit,
    also when the block raises.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.random.default_rng(0).normal(size=(500, 3))
    >>> with es.config_context(working_memory=1):  # 1 MiB: the matrix is streamed in tiles
    ...     streamed = es.energy_test(x, np.arange(500) % 2, rng=0)
    >>> dense = es.energy_test(x, np.arange(500) % 2, rng=0)
    >>> streamed.pvalue == dense.pvalue
    True
    """
    old = _config.get()
    set_config(working_memory=working_memory)
    try:
        yield
    finally:
        _config.set(old)


def _available_bytes() -> int | None:
    """Memory the kernel reports as available to new allocations (Linux MemAvailable, the third
    line of /proc/meminfo), or None. Read as bytes, without a text file object: half the
    30 microseconds of a line-by-line read, most of the rest the kernel's."""
    try:
        fd = os.open("/proc/meminfo", os.O_RDONLY)
        try:
            head = os.read(fd, 512)
        finally:
            os.close(fd)
    except OSError:
        return None
    at = head.find(b"MemAvailable:")
    if at < 0:
        return None
    return int(head[at + len(b"MemAvailable:") : head.index(b"kB", at)]) * 1024


def memory_budget(stake: float | None = None) -> int:
    """Bytes one computation may use: ``working_memory``, capped by the available memory.

    ``stake``: the most bytes the caller's decision can involve (what it would allocate with
    no limit). When that is at most :data:`SURE_BYTES` (and the configured budget), the
    available memory cannot change the decision and is not read."""
    # 2**62 bytes = 4 EiB: more than any machine
    budget = int(min(_config.get()["working_memory"] * MiB, 2.0**62))
    if stake is not None and stake <= min(SURE_BYTES, budget):
        return budget
    available = _available_bytes()
    return budget if available is None else min(budget, available)


def check_fits(what: str, needed: float, hint: str = "") -> None:
    """Raise :class:`WorkingMemoryError` when ``needed`` bytes exceed the memory budget (the
    available memory is read only for more than :data:`SURE_BYTES`)."""
    if needed > memory_budget(needed):
        raise memory_error(what, needed, hint)


def format_bytes(nbytes: float) -> str:
    """``1.5 GiB``, ``12.0 MiB``: a size for error messages."""
    for unit, size in (("GiB", 2**30), ("MiB", MiB), ("KiB", 2**10)):
        if nbytes >= size:
            return f"{nbytes / size:.1f} {unit}"
    return f"{int(nbytes)} bytes"


def memory_error(what: str, needed: float, hint: str = "") -> WorkingMemoryError:
    """A :class:`WorkingMemoryError` saying what needed how much, against the budget, and what
    to set."""
    budget = memory_budget()
    available = _available_bytes()
    configured = min(_config.get()["working_memory"] * MiB, 2.0**62)
    capped = available is not None and available < configured
    cap = f" (capped by the {format_bytes(budget)} the system reports available)" if capped else ""
    wanted = math.ceil(needed / MiB) + 1
    return WorkingMemoryError(
        f"{what} needs {format_bytes(needed)}, more than the working memory of "
        f"{format_bytes(budget)}{cap}. Set energystats.set_config(working_memory={wanted}) (MiB) "
        "or use energystats.config_context"
        + (f", or {hint}" if hint else "")
        + "."
    )
