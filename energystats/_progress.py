"""Progress bars: one per call, shown by default only where a person is watching.

Every long computation of energystats takes ``progress`` (``None``, ``True`` or ``False``)
and wraps its outer loop in :func:`progress_bar`, which draws one tqdm bar for the call and
none for a single step. ``progress=None`` (the default) asks :func:`watching`: a bar in a
terminal or a Jupyter/IPython kernel, none under pytest, in continuous integration or when
stderr goes to a file or a pipe (a subprocess, a batch job) or in a worker process (joblib,
Dask, multiprocessing: its parent draws the bars), and the environment variable
``ENERGYSTATS_PROGRESS`` (``0``/``1``) overrides the guess; a notebook executed by nbconvert or
papermill shows none (its saved output stays clean). An automatic bar appears only after
:data:`DELAY` seconds, so a short call prints nothing; ``progress=True`` draws it at once.

In a notebook the bar is a widget when ipywidgets is installed and tqdm's text bar otherwise,
chosen here rather than by ``tqdm.auto``, whose fallback warns ``IProgress not found``.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Iterable

import numpy as np

__all__ = ["DELAY", "ENV", "LONG", "announce", "check_progress", "duration", "progress_bar",
           "watching"]

#: Seconds an automatic bar (``progress=None``) waits before it appears: a call that ends
#: sooner shows none.
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
        raise TypeError(
            "`progress` must be True or False (or None: when a person is watching), got "
            f"{progress!r}."
        )
    return None if progress is None else bool(progress)


def _shell():
    """The IPython shell of a Jupyter/IPython kernel this process runs, or None."""
    if "ipykernel" not in sys.modules or "IPython" not in sys.modules:
        return None
    shell = sys.modules["IPython"].get_ipython()
    return shell if getattr(shell, "kernel", None) is not None else None


def watching() -> bool:
    """Whether a person is likely watching this process's output, so that a long call should
    show its progress: the answer of ``progress=None``.

    ``ENERGYSTATS_PROGRESS`` decides when set (``1``, ``true``, ``yes``, ``on`` or ``0``,
    ``false``, ``no``, ``off``); otherwise no under pytest, with the ``CI`` variable set or
    in a worker process (joblib's, Dask's, multiprocessing's), yes in a Jupyter/IPython
    kernel (a notebook, JupyterLab, VS Code, Colab) except in a notebook executed unattended
    (nbconvert, papermill: its requests allow no input, ``allow_stdin`` false, as nobody is
    there), else whether stderr is a terminal (not a file, a pipe or a closed stream).
    """
    setting = os.environ.get(ENV, "").strip().lower()
    if setting in _ON or setting in _OFF:
        return setting in _ON
    if setting:
        raise ValueError(
            f"The environment variable {ENV} must be 1 or 0 (or true/false, yes/no, on/off), got "
            f"{os.environ[ENV]!r}."
        )
    if "PYTEST_CURRENT_TEST" in os.environ or (
        os.environ.get("CI", "").strip().lower() not in ("", *_OFF)
    ):
        return False
    if multiprocessing.parent_process() is not None:
        return False
    shell = _shell()
    if shell is not None:  # a notebook run unattended (nbconvert, papermill) asks nobody for input
        return bool(getattr(shell, "parent_header", {}).get("content", {}).get("allow_stdin", True))
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


def _bar_class():
    """tqdm's widget bar in a notebook kernel with ipywidgets, its text bar everywhere else
    (a terminal; a kernel without ipywidgets, or a Qt console or Spyder, which draw no widgets)."""
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
    """``iterable`` with one progress bar over its ``total`` items, or ``iterable`` itself.

    ``enabled``: ``True`` draws the bar at once, ``None`` draws it after :data:`DELAY` seconds
    when :func:`watching` says so, ``False`` never. There is no bar for one item (a single
    batch): a call shows one bar, over its outer loop, or none.
    """
    if enabled is False or total <= 1 or (enabled is None and not watching()):
        return iterable
    # redrawn at most once every REDRAW seconds: a text bar in a notebook adds a line of saved
    # output per redraw
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
    """Before a call whose work is ``seconds`` on one core in the cost model
    (:mod:`energystats._cost`), at least :data:`LONG`: one line on stderr saying how long it
    will take and ``faster`` (a quicker way), where a bar would be drawn (``progress`` as
    :func:`progress_bar`'s ``enabled``), so that a call of hours does not start in silence."""
    if seconds < LONG or progress is False or progress is None and not watching():
        return
    print(f"energystats: {what} takes about {duration(seconds)} on one core (the cost model's "
          f"estimate from its sizes){faster}.", file=sys.stderr, flush=True)
