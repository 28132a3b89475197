"""R: its objects as Python data (:func:`from_r`; a ``dist`` object as distances, :class:`RDist`
through reticulate), the calls made from R (:func:`called_from_r`), and a bridge to R's
``energy`` through rpy2 that converts data and calls R (optional extra ``r``, pinned to
``rpy2>=3.5.17,<3.6``: rpy2 3.6 does not load against R 4.2)."""

from __future__ import annotations

import functools
import os
import sys
import warnings
from typing import Any

import numpy as np
import pandas as pd
from scipy.spatial.distance import squareform

__all__ = ["R_NA_INTEGER", "RDist", "RNotAvailableError", "called_from_r", "condensed_matrix",
           "dist_matrix", "from_r", "is_r_dist", "is_r_object", "r_available", "r_call", "r_dist",
           "r_factor", "r_field", "r_matrix", "r_versions", "reticulate_dist", "to_numpy"]

INSTALL_HINT = (
    "R with the 'energy' package and rpy2 3.5.x are needed: on Debian run "
    "`apt-get install -y r-base-core r-cran-energy` as root, then "
    "`pip install 'rpy2>=3.5.17,<3.6'` (or `make test`, which does both)."
)
#: R's NA for integers and logicals, as rpy2 and reticulate hand them to numpy.
R_NA_INTEGER = np.iinfo(np.int32).min


class RNotAvailableError(RuntimeError):
    """R, its ``energy`` package or rpy2 cannot be loaded."""


@functools.lru_cache(maxsize=1)
def _load():
    """rpy2's robjects and R's ``energy``, loaded once. The environment variables starting R
    sets are put back: a LD_LIBRARY_PATH of the system's libraries would make every child
    process (joblib's and Dask's workers) load them in place of its own Python's."""
    saved = {name: os.environ.get(name)
             for name in ("LD_LIBRARY_PATH", "KMP_DUPLICATE_LIB_OK", "KMP_INIT_AT_FORK")}
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
    callbacks.consolewrite_warnerror = lambda _msg: None  # R's start-up chatter off stderr
    try:
        return ro, importr("energy")
    except Exception as exc:
        raise RNotAvailableError(
            f"R package 'energy' cannot be loaded ({exc}). {INSTALL_HINT}") from exc


def r_available() -> tuple[bool, str]:
    """``(True, "")`` when R and ``energy`` load, else ``(False, reason)``."""
    try:
        _load()
    except RNotAvailableError as exc:
        return False, str(exc)
    return True, ""


def r_versions() -> dict[str, str]:
    """Versions of R, ``energy`` and rpy2 used by the bridge."""
    r = _load()[0].r
    return {"R": str(r("paste(R.version$major, R.version$minor, sep='.')")[0]),
            "energy": str(r("as.character(packageVersion('energy'))")[0]),
            "rpy2": sys.modules["rpy2"].__version__}


def r_matrix(x) -> Any:
    """A numeric R matrix holding the float64 array ``x`` (1-D gives one column)."""
    ro, _ = _load()
    arr = np.asarray(x, dtype=np.float64)
    arr = arr[:, None] if arr.ndim == 1 else arr
    return ro.r["matrix"](ro.FloatVector(arr.ravel(order="F")), nrow=arr.shape[0],
                          ncol=arr.shape[1])


def r_dist(D) -> Any:
    """An R ``dist`` object from a square distance matrix."""
    return _load()[0].r["as.dist"](r_matrix(D))


def r_factor(labels) -> Any:
    """An R factor from labels (levels sorted as strings)."""
    ro, _ = _load()
    return ro.FactorVector(ro.StrVector([str(v) for v in np.asarray(labels)]))


def r_call(name: str, *args, **kwargs) -> Any:
    """Call ``energy::<name>`` (or a base R function) with Python scalars, strings, lists and
    1-D arrays converted; keyword names use ``_`` for R's ``.`` (``iter_max``: ``iter.max``)."""
    ro, energy = _load()

    def conv(v):
        if isinstance(v, (list, tuple)):
            v = np.asarray(v)
        if isinstance(v, np.ndarray) and v.ndim == 1:
            integer = np.issubdtype(v.dtype, np.integer)
            return (ro.IntVector if integer else ro.FloatVector)([(int if integer else float)(t)
                                                                  for t in v])
        for kinds, vector, cast in (((bool, np.bool_), ro.BoolVector, bool),
                                    ((int, np.integer), ro.IntVector, int),
                                    ((float, np.floating), ro.FloatVector, float),
                                    (str, ro.StrVector, str)):
            if isinstance(v, kinds):
                return vector([cast(v)])
        return v

    fn = getattr(energy, name.replace(".", "_"), None) or ro.r[name]
    return fn(*map(conv, args), **{k.replace("_", "."): conv(v) for k, v in kwargs.items()})


def to_numpy(obj) -> np.ndarray:
    """An R vector or matrix as a float64 numpy array (matrices keep their shape)."""
    ro, _ = _load()
    dim, values = ro.r["dim"](obj), np.array(list(obj), dtype=np.float64)
    if dim is ro.NULL or len(dim) != 2:
        return values
    return values.reshape((int(dim[0]), int(dim[1])), order="F")


def r_field(obj, name: str) -> Any:
    """Component ``name`` of an R list (``obj$name``), or a KeyError."""
    if name not in list(obj.names):
        raise KeyError(f"R object has no component {name!r} (it has {list(obj.names)}).")
    return obj.rx2(name)


#: This package's directory, and the modules of reticulate (R's package embedding Python).
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_RETICULATE = ("rpytools", "rpycall")


def called_from_r() -> bool:
    """Whether the public call running on this thread was made from R through reticulate:
    reticulate is loaded and below this package's frames there is no Python code but
    reticulate's own. Its data are R's as reticulate hands them over (the string "NA" is R's
    NA of a character vector or factor); a call made by Python code is Python's, even in an R
    session."""
    if "rpytools" not in sys.modules:
        return False
    frame = sys._getframe(0)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    while frame is not None and frame.f_globals.get("__name__", "").startswith(_RETICULATE):
        frame = frame.f_back
    return frame is None


class RDist(np.ndarray):
    """An R ``dist`` object through reticulate: its n(n - 1)/2 distances in R's order."""


def is_r_object(obj) -> bool:
    """Whether ``obj`` is an R object from rpy2 (without importing rpy2) or an :class:`RDist`."""
    return type(obj).__module__.startswith("rpy2.") or isinstance(obj, RDist)


def is_r_dist(obj) -> bool:
    """Whether ``obj`` is an R ``dist`` object, from rpy2 or from reticulate."""
    return isinstance(obj, RDist) or is_r_object(obj) and "dist" in list(getattr(obj, "rclass",
                                                                                 ()))


def reticulate_dist(values) -> RDist:
    """The :class:`RDist` of R's ``dist`` values (called from R by ``r_to_py.dist``)."""
    return np.asarray(values, dtype=np.float64).reshape(-1).view(RDist)


if "rpytools" in sys.modules and getattr(sys.modules.get("__main__"), "r", None) is not None:
    # imported in an R session through reticulate: R's S3 method r_to_py.dist hands a dist
    # object over as an RDist (reticulate alone makes it a plain list of numbers, class lost)
    try:
        sys.modules["__main__"].r[
            "registerS3method('r_to_py', 'dist', function(x, convert = FALSE) "
            "reticulate::import('energystats._rbridge', convert = FALSE)$reticulate_dist("
            "array(as.numeric(x))), envir = asNamespace('reticulate'))"]
    except Exception as exc:  # an R session that refuses: dist objects then come as numbers
        warnings.warn(f"energystats could not register R's r_to_py method for dist objects "
                      f"({exc}): pass distances from R as as.matrix(d) with "
                      "metric='precomputed'.", UserWarning, stacklevel=2)


def condensed_matrix(values, name: str) -> np.ndarray:
    """The square matrix of the n(n - 1)/2 distances of an R ``dist`` object, in R's order
    (the lower triangle column by column: ``squareform``'s for a symmetric matrix)."""
    values = np.asarray(values, dtype=np.float64)
    n = int(round((1.0 + np.sqrt(1.0 + 8.0 * values.size)) / 2.0))
    if values.ndim != 1 or n * (n - 1) // 2 != values.size:
        raise ValueError(
            f"`{name}` must hold the n(n - 1)/2 distances of n points, got {values.size} values.")
    return squareform(values, checks=False)


def dist_matrix(obj, name: str = "X") -> np.ndarray:
    """The square matrix of an R ``dist`` object from rpy2 (:func:`condensed_matrix`)."""
    return condensed_matrix(np.asarray(obj, dtype=np.float64), name)


#: Microseconds in one unit of an R ``difftime`` (and of a Date's days, a POSIXct's seconds).
_UNITS = {"secs": 1e6, "mins": 6e7, "hours": 3.6e9, "days": 8.64e10, "weeks": 6.048e11}


def from_r(obj):
    """An rpy2 object as the Python data it holds, R's NA missing: a factor a
    ``pandas.Categorical`` with R's levels in R's order (ordered for an ordered factor), a data
    frame (or a list of columns of one length) a DataFrame of such columns (names may repeat),
    an integer or logical vector or matrix with NA a float array with NaN there, a character
    vector an object array with None for NA, a numeric one its float64 array, a ``Date``,
    ``POSIXct`` (``POSIXlt``) or ``difftime`` vector ``datetime64`` or ``timedelta64`` values
    (NaT for NA). Anything else is returned unchanged, except a ``dist`` object, refused: it
    holds distances, which only an argument that takes them reads."""
    if not is_r_object(obj):
        return obj
    if is_r_dist(obj):
        raise ValueError(
            "An R dist object (distances between points) was given where data are read: pass "
            "the data the distances were computed from, or the distances with "
            "metric='precomputed' where a function takes them.")
    kind, classes = type(obj).__name__, list(getattr(obj, "rclass", ()))
    if kind == "DataFrame" or kind == "ListVector" and classes == ["list"] and len(
            {len(c) for c in obj}) == 1:  # a plain list of columns, as R's data frame is one
        columns = [pd.Series(from_r(column)) for column in obj]
        frame = pd.concat(columns, axis=1) if columns else pd.DataFrame()
        names = [str(name) for name in obj.names] if "names" in obj.list_attrs() else []
        frame.columns = names or range(len(columns))  # names may repeat: every column kept
        return frame
    if "POSIXlt" in classes:  # a list of fields: R's own conversion makes it the instants
        obj, classes = _load()[0].r["as.POSIXct"](obj), ["POSIXct"]
    unit = ("days" if "Date" in classes else "secs" if "POSIXct" in classes else str(
        obj.do_slot("units")[0]) if "difftime" in classes and "units" in obj.list_attrs() else "")
    if unit in _UNITS:
        kind = "timedelta64[us]" if "difftime" in classes else "datetime64[us]"
        values = np.asarray(obj, dtype=np.float64)
        values = np.where(values == R_NA_INTEGER, np.nan, values)  # an integer Date's NA
        out = np.full(values.shape, np.datetime64("NaT") if kind[0] == "d" else (
            np.timedelta64("NaT")), dtype=kind)
        known = np.isfinite(values)
        out[known] = np.round(values[known] * _UNITS[unit]).astype(np.int64).astype(kind)
        return out
    if kind == "FactorVector":
        codes = np.asarray(obj).astype(np.int64)
        levels = list(obj.do_slot("levels"))  # not obj.levels: rpy2 3.5 warns of its conversion
        return pd.Categorical.from_codes(np.where(codes == R_NA_INTEGER, -1, codes - 1),
                                         categories=levels, ordered="ordered" in classes)
    if kind in ("IntVector", "BoolVector", "IntMatrix", "BoolMatrix"):
        values = np.asarray(obj)
        missing = values == R_NA_INTEGER
        if missing.any():
            return np.where(missing, np.nan, values.astype(np.float64))
        return values.astype(bool) if kind.startswith("Bool") else values
    if kind in ("StrVector", "StrMatrix"):
        import rpy2.robjects as ro

        values = np.array([None if v is ro.NA_Character else str(v) for v in obj], dtype=object)
        dim = obj.do_slot("dim") if "dim" in obj.list_attrs() else None
        return values if dim is None else values.reshape(tuple(dim), order="F")
    return np.asarray(obj, dtype=np.float64) if kind in ("FloatVector", "FloatMatrix") else obj
