"""The memory budget of every computation's temporary arrays (scikit-learn's ``working_memory``,
in MiB), held in a :class:`contextvars.ContextVar`: a thread's setting is its own."""

from __future__ import annotations

import contextvars
import math
from contextlib import contextmanager
from numbers import Real
from pathlib import Path

from ._frontdoor import front_door

__all__ = ["WorkingMemoryError", "check_fits", "config_context", "get_config", "memory_budget",
           "memory_error", "set_config"]

_config = contextvars.ContextVar("energystats_config", default={"working_memory": 1024})
#: A mebibyte; stakes of at most SURE_BYTES skip reading the available memory (20 to 40 µs).
MiB, SURE_BYTES = 2**20, 2**24


class WorkingMemoryError(MemoryError):
    """More memory needed than ``working_memory`` (or the machine) allows; raised before."""


@front_door()
def get_config() -> dict:
    """Current configuration of energystats (see :func:`config_context`'s example).

    Returns
    -------
    dict
        ``{"working_memory": MiB}``; a copy, changing it changes nothing.
    """
    return dict(_config.get())


@front_door()
def set_config(working_memory=None) -> None:
    """Set energystats' configuration (``None``: unchanged; for a block: :func:`config_context`).

    Parameters
    ----------
    working_memory : float, default=None
        MiB for the temporary arrays of one computation (default 1024), as scikit-learn's
        option: the n x n matrix is held only when it fits, else recomputed in tiles from the
        data, with the same results; capped by the memory the system reports available.
    """
    value = working_memory
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value < math.inf:
            raise ValueError(f"`working_memory` must be a positive number of MiB, got {value!r}.")
        _config.set(dict(_config.get(), working_memory=float(value)))


@front_door()
@contextmanager
def config_context(*, working_memory=None):
    """:func:`set_config` for a block, the previous configuration restored on exit.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.random.default_rng(0).normal(size=(500, 3))
    >>> with es.config_context(working_memory=1):  # 1 MiB: the matrix is streamed in tiles
    ...     streamed = es.energy_test(x, np.arange(500) % 2, rng=0)
    ...     es.get_config()
    {'working_memory': 1.0}
    >>> streamed.pvalue == es.energy_test(x, np.arange(500) % 2, rng=0).pvalue
    True
    """
    old = _config.get()
    set_config(working_memory=working_memory)
    try:
        yield
    finally:
        _config.set(old)


def _available_bytes() -> int | None:
    """Memory the kernel reports available (Linux's MemAvailable), or None."""
    try:
        head = Path("/proc/meminfo").read_bytes().split(b"MemAvailable:")[1]
        return int(head[: head.index(b"kB")]) * 1024
    except (OSError, ValueError, IndexError):
        return None


def memory_budget(stake: float | None = None) -> int:
    """Bytes one computation may use: ``working_memory`` capped by the available memory, which
    is not read for a ``stake`` (the bytes the caller may allocate) within :data:`SURE_BYTES`."""
    budget = int(min(_config.get()["working_memory"] * MiB, 2.0**62))
    sure = stake is not None and stake <= min(SURE_BYTES, budget)
    available = None if sure else _available_bytes()
    return budget if available is None else min(budget, available)


def check_fits(what: str, needed: float, hint: str = "") -> None:
    """Raise :func:`memory_error` when ``needed`` bytes exceed :func:`memory_budget`."""
    if needed > memory_budget(needed):
        raise memory_error(what, needed, hint)


def format_bytes(nbytes: float) -> str:
    """``1.5 GiB``, ``12.0 MiB``, ``300 bytes``: a size for messages."""
    unit, size = next(((u, s) for u, s in (("GiB", 2**30), ("MiB", MiB), ("KiB", 2**10))
                       if nbytes >= s), ("bytes", 0))
    return f"{nbytes / size:.1f} {unit}" if size else f"{int(nbytes)} bytes"


def memory_error(what: str, needed: float, hint: str = "") -> WorkingMemoryError:
    """A :class:`WorkingMemoryError`: what needed how much, the budget, and what to set."""
    budget = memory_budget()
    cap = (f" (capped by the {format_bytes(budget)} the system reports available)"
           if budget < int(min(_config.get()["working_memory"] * MiB, 2.0**62)) else "")
    return WorkingMemoryError(
        f"{what} needs {format_bytes(needed)}, more than the working memory of "
        f"{format_bytes(budget)}{cap}. Set energystats.set_config(working_memory="
        f"{math.ceil(needed / MiB) + 1}) (MiB) or use energystats.config_context"
        + (f", or {hint}" if hint else "") + ".")
