"""Progress bars: one tqdm bar per long call (over its outer loop), by default only where a
person is watching (:func:`watching`), after :data:`DELAY` seconds; ``progress=True`` draws it
at once, ``False`` never. In a notebook the bar is a widget when ipywidgets is installed, else
tqdm's text bar (chosen here: ``tqdm.auto``'s fallback warns ``IProgress not found``).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Iterable

import numpy as np

__all__ = ["DELAY", "ENV", "LONG", "announce", "check_progress", "duration", "progress_bar",
           "watching"]

#: Seconds an automatic bar (``progress=None``) waits before it appears.
DELAY = 1.5
#: Seconds of modelled work from which a call says how long it will take before it starts.
LONG = 60.0
#: Seconds between redraws of a bar.
REDRAW = 1.0
#: The environment variable that turns automatic bars on (``1``) or off (``0``) everywhere.
ENV = "ENERGYSTATS_PROGRESS"
_OFF = ("0", "false", "no", "off")
_ON = ("1", "true", "yes", "on")


def check_progress(progress) -> bool | None:
    """``progress`` checked: ``None`` (when a person is watching), ``True`` or ``False``."""
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise TypeError("`progress` must be True or False (or None: when a person is watching), "
                        f"got {progress!r}.")
    return None if progress is None else bool(progress)


def _shell():
    """The IPython shell of a Jupyter/IPython kernel this process runs, or None."""
    if "ipykernel" not in sys.modules or "IPython" not in sys.modules:
        return None
    shell = sys.modules["IPython"].get_ipython()
    return shell if getattr(shell, "kernel", None) is not None else None


def watching() -> bool:
    """Whether a person likely watches this process's output (``progress=None``'s answer).

    ``ENERGYSTATS_PROGRESS`` decides when set (``1``, ``true``, ``yes``, ``on`` or ``0``,
    ``false``, ``no``, ``off``); otherwise no under pytest, with ``CI`` set or in a worker
    process (joblib's, Dask's, multiprocessing's), yes in a Jupyter/IPython kernel except in a
    notebook executed unattended (nbconvert, papermill: ``allow_stdin`` false), else whether
    stderr is a terminal (not a file, a pipe or a closed stream).
    """
    setting = os.environ.get(ENV, "").strip().lower()
    if setting in _ON or setting in _OFF:
        return setting in _ON
    if setting:
        raise ValueError(f"The environment variable {ENV} must be 1 or 0 (or true/false, yes/no, "
                         f"on/off), got {os.environ[ENV]!r}.")
    ci = os.environ.get("CI", "").strip().lower() not in ("", *_OFF)
    if ci or "PYTEST_CURRENT_TEST" in os.environ or multiprocessing.parent_process() is not None:
        return False
    shell = _shell()
    if shell is not None:  # a notebook run unattended (nbconvert, papermill) asks nobody for input
        return bool(getattr(shell, "parent_header", {}).get("content", {}).get("allow_stdin", True))
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


def _bar_class():
    """tqdm's widget bar in a notebook kernel with ipywidgets, its text bar elsewhere (also in
    a Qt console or Spyder, which draw no widgets)."""
    shell = _shell()
    if shell is not None and not any(
        key == "QT_API" or key.startswith("SPYDER") for key in os.environ
    ):
        from tqdm.notebook import IProgress
        from tqdm.notebook import tqdm as notebook_tqdm

        if IProgress is not None and "qt" not in type(shell).__name__.lower():
            return notebook_tqdm
    from tqdm.std import tqdm

    return tqdm


def progress_bar(iterable: Iterable, total: int, enabled: bool | None, desc: str) -> Iterable:
    """``iterable`` with a bar over its ``total`` items (none for one item), or ``iterable``:
    ``enabled`` True draws it at once, None after :data:`DELAY` s if :func:`watching`, False
    never."""
    if enabled is False or total <= 1 or (enabled is None and not watching()):
        return iterable
    # redrawn at most every REDRAW seconds: a text bar in a notebook saves a line per redraw
    return _bar_class()(
        iterable, total=total, desc=desc, delay=0.0 if enabled else DELAY, mininterval=REDRAW
    )


def duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3.5 h``, ``4 days``: a modelled time, as a person reads it."""
    for unit, size, limit in (("s", 1, 90), ("min", 60, 5400), ("h", 3600, 172800)):
        if seconds < limit:
            return f"{seconds / size:.2g} {unit}" if unit == "h" else f"{seconds / size:.0f} {unit}"
    return f"{seconds / 86400:.0f} days"


def announce(seconds: float, what: str, faster: str = "", progress: bool | None = None) -> None:
    """Before a call of ``seconds`` (the caller's estimate on one core), at least :data:`LONG`,
    where a bar would be drawn (``progress`` as :func:`progress_bar`'s ``enabled``): one line
    on stderr saying how long it takes and ``faster`` (a quicker way)."""
    if seconds < LONG or progress is False or progress is None and not watching():
        return
    print(f"energystats: {what} takes about {duration(seconds)} on one core (an estimate "
          f"from its sizes){faster}.", file=sys.stderr, flush=True)
