"""A small bridge to R's ``energy`` package through rpy2 (optional extra ``r``).

Only converts data and calls R; nothing here reimplements ``energy``.
rpy2 3.6 does not load against R 4.2 (undefined symbol ``R_getVar``); the
``r`` extra therefore pins ``rpy2>=3.5.17,<3.6``.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from typing import Any

import numpy as np
import pandas as pd
from scipy.spatial.distance import squareform

__all__ = [
    "RDist",
    "RNotAvailableError",
    "called_from_r",
    "from_r",
    "is_r_dist",
    "is_r_object",
    "r_available",
    "r_call",
    "r_dist",
    "r_factor",
    "r_field",
    "r_matrix",
    "r_versions",
    "reticulate_dist",
    "to_numpy",
    "condensed_matrix",
    "dist_matrix",
]

INSTALL_HINT = (
    "R with the 'energy' package and rpy2 3.5.x are needed: on Debian run "
    "`apt-get install -y r-base-core r-cran-energy` as root, then "
    "`pip install 'rpy2>=3.5.17,<3.6'` (or `make test`, which does both)."
)


class RNotAvailableError(RuntimeError):
    """R, its ``energy`` package or rpy2 cannot be loaded."""


#: Environment variables that starting R through rpy2 sets for this process. They are put
#: back afterwards: R's libraries are loaded by then, and a LD_LIBRARY_PATH pointing at the
#: system's libraries would make every child process (joblib's and Dask's workers) load
#: them in place of its own Python's.
_R_ENVIRONMENT = ("LD_LIBRARY_PATH", "KMP_DUPLICATE_LIB_OK", "KMP_INIT_AT_FORK")


@functools.lru_cache(maxsize=1)
def _load():
    saved = {name: os.environ.get(name) for name in _R_ENVIRONMENT}
    try:
        import rpy2.rinterface_lib.callbacks as callbacks
        import rpy2.robjects as ro
        from rpy2.robjects.packages import importr
    except Exception as exc:  # ImportError, or rpy2 failing to find libR
        raise RNotAvailableError(f"rpy2 cannot be imported ({exc}). {INSTALL_HINT}") from exc
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    callbacks.consolewrite_warnerror = lambda _msg: None  # keep R's start-up chatter off stderr
    try:
        energy = importr("energy")
    except Exception as exc:
        raise RNotAvailableError(
            f"R package 'energy' cannot be loaded ({exc}). {INSTALL_HINT}"
        ) from exc
    return ro, energy


def r_available() -> tuple[bool, str]:
    """Return ``(True, "")`` when R and ``energy`` load, else ``(False, reason)``."""
    try:
        _load()
    except RNotAvailableError as exc:
        return False, str(exc)
    return True, ""


def r_versions() -> dict[str, str]:
    """Versions of R, ``energy`` and rpy2 used by the bridge."""
    ro, _ = _load()
    import rpy2

    return {
        "R": str(ro.r("paste(R.version$major, R.version$minor, sep='.')")[0]),
        "energy": str(ro.r("as.character(packageVersion('energy'))")[0]),
        "rpy2": rpy2.__version__,
    }


def r_matrix(x) -> Any:
    """A numeric R matrix holding the float64 array ``x`` (1-D gives one column)."""
    ro, _ = _load()
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[:, None]
    return ro.r["matrix"](
        ro.FloatVector(arr.ravel(order="F")), nrow=arr.shape[0], ncol=arr.shape[1]
    )


def r_dist(D) -> Any:
    """An R ``dist`` object from a square distance matrix."""
    ro, _ = _load()
    return ro.r["as.dist"](r_matrix(D))


def r_factor(labels) -> Any:
    """An R factor from labels (levels sorted as strings)."""
    ro, _ = _load()
    return ro.FactorVector(ro.StrVector([str(v) for v in np.asarray(labels)]))


def r_call(name: str, *args, **kwargs) -> Any:
    """Call ``energy::<name>`` (or a base R function) with converted arguments.

    Python ints, floats and 1-D integer arrays are converted; keyword names
    use ``_`` for R's ``.`` (``iter_max`` -> ``iter.max``).
    """
    ro, energy = _load()

    def conv(v):
        if isinstance(v, (bool, np.bool_)):
            return ro.BoolVector([bool(v)])
        if isinstance(v, (int, np.integer)):
            return ro.IntVector([int(v)])
        if isinstance(v, (float, np.floating)):
            return ro.FloatVector([float(v)])
        if isinstance(v, str):
            return ro.StrVector([v])
        if isinstance(v, np.ndarray) and v.ndim == 1:
            if np.issubdtype(v.dtype, np.integer):
                return ro.IntVector([int(t) for t in v])
            return ro.FloatVector([float(t) for t in v])
        if isinstance(v, (list, tuple)):
            return conv(np.asarray(v))
        return v

    fn = getattr(energy, name.replace(".", "_"), None) or ro.r[name]
    return fn(*[conv(a) for a in args], **{k.replace("_", "."): conv(v) for k, v in kwargs.items()})


def to_numpy(obj) -> np.ndarray:
    """Convert an R vector or matrix to a float64 numpy array (matrices keep their shape)."""
    ro, _ = _load()
    dim = ro.r["dim"](obj)
    values = np.array(list(obj), dtype=np.float64)
    if dim is ro.NULL or len(dim) != 2:
        return values
    return values.reshape((int(dim[0]), int(dim[1])), order="F")


def r_field(obj, name: str) -> Any:
    """Component ``name`` of an R list (``obj$name``); KeyError when it has none."""
    if name not in list(obj.names):
        raise KeyError(f"R object has no component {name!r} (it has {list(obj.names)}).")
    return obj.rx2(name)


#: R's NA for integers and logicals, as rpy2 hands them to numpy.
R_NA_INTEGER = np.iinfo(np.int32).min


#: This package's directory: frames of its code are skipped when looking for the caller.
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep

#: Python modules of reticulate (R's package embedding Python): loaded in an R session only.
_RETICULATE = ("rpytools", "rpycall")


def called_from_r() -> bool:
    """Whether the public call running on this thread was made from R through reticulate:
    reticulate is loaded (its ``rpytools`` modules) and below this package's frames there is
    no Python code but reticulate's own, as when R calls ``es$energy_test(...)``. Its data
    are then R's as reticulate hands them over: the string "NA" is R's NA of a character
    vector or factor. A call made by Python code (a module, ``py_run_string``) is Python's,
    even in an R session: nothing in a string tells R's NA from a label "NA"."""
    if "rpytools" not in sys.modules:
        return False
    frame = sys._getframe(0)  # this function's: the package's frames are skipped
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    while frame is not None and frame.f_globals.get("__name__", "").startswith(_RETICULATE):
        frame = frame.f_back
    return frame is None


def is_r_object(obj) -> bool:
    """Whether ``obj`` is an R object from rpy2 (checked without importing rpy2), or an R
    ``dist`` object from reticulate (:class:`RDist`)."""
    return type(obj).__module__.startswith("rpy2.") or isinstance(obj, RDist)


def is_r_dist(obj) -> bool:
    """Whether ``obj`` is an R ``dist`` object (the distances between points), from rpy2 or
    from reticulate."""
    return isinstance(obj, RDist) or is_r_object(obj) and "dist" in list(getattr(obj, "rclass", ()))


class RDist(np.ndarray):
    """An R ``dist`` object as reticulate hands it to energystats: its n(n - 1)/2 distances in
    R's order, an array that says it holds distances (:func:`_hand_over_dist`)."""


def reticulate_dist(values) -> RDist:
    """The :class:`RDist` of R's ``dist`` values (called from R by ``r_to_py.dist``)."""
    return np.asarray(values, dtype=np.float64).reshape(-1).view(RDist)


#: R's method that reticulate applies to a ``dist`` object passed to Python.
_R_TO_PY_DIST = (
    "registerS3method('r_to_py', 'dist', function(x, convert = FALSE) "
    "reticulate::import('energystats._rbridge', convert = FALSE)$reticulate_dist("
    "array(as.numeric(x))), envir = asNamespace('reticulate'))"
)


def _hand_over_dist() -> None:
    """In an R session (energystats imported through reticulate, whose ``r`` object evaluates
    R code): register R's S3 method ``r_to_py.dist``, so that an R ``dist`` object reaches
    Python as an :class:`RDist`, read as the distances it holds wherever a function takes
    distances, as R's functions read it. reticulate alone hands it over as a plain list of
    numbers, its class lost: data of n(n - 1)/2 points."""
    r = getattr(sys.modules.get("__main__"), "r", None)
    if r is None:
        return
    try:
        r[_R_TO_PY_DIST]
    except Exception as exc:  # an R session that refuses: dist objects then come as numbers
        warnings.warn(
            f"energystats could not register R's r_to_py method for dist objects ({exc}): pass "
            "distances from R as as.matrix(d) with metric='precomputed'.",
            UserWarning,
            stacklevel=2,
        )


if "rpytools" in sys.modules:  # imported by reticulate, in an R session
    _hand_over_dist()


def condensed_matrix(values, name: str) -> np.ndarray:
    """The square matrix of the n(n - 1)/2 distances of an R ``dist`` object, in R's order:
    the lower triangle column by column, d(2, 1), d(3, 1), ..., d(n, 1), d(3, 2), ..., which
    is ``scipy.spatial.distance.squareform``'s for a symmetric matrix (the caller's own
    distances laid out, no pair computed)."""
    values = np.asarray(values, dtype=np.float64)
    n = int(round((1.0 + np.sqrt(1.0 + 8.0 * values.size)) / 2.0))
    if values.ndim != 1 or n * (n - 1) // 2 != values.size:
        raise ValueError(
            f"`{name}` must hold the n(n - 1)/2 distances of n points, got {values.size} values."
        )
    return squareform(values, checks=False)


def dist_matrix(obj, name: str = "X") -> np.ndarray:
    """The square matrix of an R ``dist`` object from rpy2 (:func:`condensed_matrix`)."""
    return condensed_matrix(np.asarray(obj, dtype=np.float64), name)


def from_r(obj):
    """An R object from rpy2 as the Python data it holds, R's missing values as missing.

    A factor becomes a ``pandas.Categorical`` with R's levels in R's order (ordered for an
    ordered factor), a data frame (or a list of columns of one length) a ``pandas.DataFrame`` of
    such columns (every column, also those whose names repeat), an integer or logical vector (or
    matrix) with ``NA`` a float array with NaN there (R's NA integer is -2147483648 in numpy), a
    character vector an object array with ``None`` for ``NA`` (a character matrix keeps its
    shape), a numeric vector or matrix its float64 array. R's times stay times: a ``Date`` or
    ``POSIXct`` (``POSIXlt``) vector becomes ``datetime64`` values and a ``difftime``
    ``timedelta64`` values in its units (NaT for ``NA``), which no statistic takes as numbers
    (their distances depend on a unit) and labels may. Anything else is returned unchanged,
    except a ``dist`` object, refused with a ``ValueError``: it holds distances, which only an
    argument that takes them reads (:func:`energystats._missing.read_r`), never as data.
    """
    if not is_r_object(obj):
        return obj
    if is_r_dist(obj):
        raise ValueError(
            "An R dist object (distances between points) was given where data are read: pass "
            "the data the distances were computed from, or the distances with "
            "metric='precomputed' where a function takes them."
        )
    kind = type(obj).__name__
    columns_of_one_length = kind == "ListVector" and list(obj.rclass) == ["list"] and len(
        {len(c) for c in obj}) == 1  # a plain list of columns, as R's data frame is one
    if kind == "DataFrame" or columns_of_one_length:
        columns = [from_r(column) for column in obj]
        frame = pd.concat([pd.Series(c) for c in columns], axis=1) if columns else pd.DataFrame()
        names = [str(name) for name in obj.names] if "names" in obj.list_attrs() else []
        frame.columns = names or range(len(columns))  # names may repeat: every column kept
        return frame
    classes = list(getattr(obj, "rclass", ()))
    if "POSIXlt" in classes:  # a list of fields: R's own conversion makes it the instants
        obj, classes = _load()[0].r["as.POSIXct"](obj), ["POSIXct"]
    times = _times(obj, classes)
    if times is not None:
        return times
    if kind == "FactorVector":
        codes = np.asarray(obj).astype(np.int64)
        codes = np.where(codes == R_NA_INTEGER, -1, codes - 1)
        ordered = "ordered" in classes
        levels = list(obj.do_slot("levels"))  # not obj.levels: rpy2 3.5 warns of its conversion
        return pd.Categorical.from_codes(codes, categories=levels, ordered=ordered)
    if kind in ("IntVector", "BoolVector", "IntMatrix", "BoolMatrix"):
        values = np.asarray(obj)
        missing = values == R_NA_INTEGER
        if missing.any():
            return np.where(missing, np.nan, values.astype(np.float64))
        return values.astype(bool) if kind.startswith("Bool") else values
    if kind in ("StrVector", "StrMatrix"):
        import rpy2.robjects as ro

        values = np.array([None if value is ro.NA_Character else str(value) for value in obj],
                          dtype=object)
        dim = obj.do_slot("dim") if "dim" in obj.list_attrs() else None
        return values if dim is None else values.reshape(tuple(dim), order="F")
    if kind in ("FloatVector", "FloatMatrix"):
        return np.asarray(obj, dtype=np.float64)
    return obj


#: Microseconds in one unit of an R ``difftime``.
_DIFFTIME_UNITS = {"secs": 1e6, "mins": 6e7, "hours": 3.6e9, "days": 8.64e10, "weeks": 6.048e11}


def _times(obj, classes: list[str]) -> np.ndarray | None:
    """An R ``Date`` (days since 1970-01-01), ``POSIXct`` (seconds since then) or
    ``difftime`` (in its ``units``) as ``datetime64[us]`` or ``timedelta64[us]`` values, NaT
    for ``NA``; None for anything else."""
    if "Date" in classes:
        scale, kind = _DIFFTIME_UNITS["days"], "datetime64[us]"
    elif "POSIXct" in classes:
        scale, kind = _DIFFTIME_UNITS["secs"], "datetime64[us]"
    elif "difftime" in classes and "units" in obj.list_attrs():
        scale = _DIFFTIME_UNITS.get(str(obj.do_slot("units")[0]))
        if scale is None:
            return None
        kind = "timedelta64[us]"
    else:
        return None
    values = np.asarray(obj, dtype=np.float64)
    values = np.where(values == R_NA_INTEGER, np.nan, values)  # an integer Date's NA
    out = np.full(values.shape, np.datetime64("NaT") if kind[0] == "d" else np.timedelta64("NaT"),
                  dtype=kind)
    known = np.isfinite(values)
    out[known] = np.round(values[known] * scale).astype(np.int64).astype(kind)
    return out
