"""The reading of every public function's data, once, at the front door: other libraries' data
as numpy or pandas (:func:`as_python`), R objects as Python data (:func:`read_r`), pandas rows
paired by their indexes (:func:`align_rows`), and missing values the scipy way
(:func:`drop_missing`): NaN, None, ``pandas.NA``/``NaT``, masked entries and R's NA (also as
reticulate hands it over: the integer -2147483648 in int32 data or a list of ints; from R, the
string "NA") are missing, infinities are not. ``"raise"`` refuses them naming the argument,
the rows and the kind the caller sees; ``"omit"`` drops the rows holding one (paired data the
row of both, a precomputed matrix its points, the one in the most missing entries first);
``"propagate"`` computes a number on the complete rows, then returns NaN. Nothing passed in is
modified.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Collection, Iterable

import numpy as np
import pandas as pd

from ._rbridge import R_NA_INTEGER, dist_matrix, from_r, is_r_dist

__all__ = ["NAN_POLICIES", "align_rows", "as_python", "check_nan_policy", "drop_missing",
           "expand_labels", "is_matrix", "read_arguments", "read_r", "warn_if_transposed"]

NAN_POLICIES = ("raise", "omit", "propagate")
#: R's NA of a character vector or factor as reticulate hands it over (missing from R only).
R_NA_STRING = "NA"
#: How to go on from missing values under ``"raise"``.
OMIT_HINT = "pass nan_policy='omit' to drop those rows."


def check_nan_policy(nan_policy, *, propagate: bool, where: str = "") -> str:
    """``nan_policy`` checked; ``propagate=False`` refuses ``"propagate"`` (no number)."""
    if not isinstance(nan_policy, str) or nan_policy not in NAN_POLICIES:
        raise ValueError(f"`nan_policy` must be 'raise', 'omit' or 'propagate', got "
                         f"{nan_policy!r}.")
    if nan_policy == "propagate" and not propagate:
        raise ValueError(
            f"`nan_policy`='propagate' is for statistics returned as a number; "
            f"{where or 'this function'} returns a result with no meaningful NaN form: use "
            "'omit' (drop rows with missing values) or 'raise'.")
    return nan_policy


def _as_array(values) -> np.ndarray:
    """``np.asarray``, but a list or tuple holding strings stays objects (numpy would turn a
    NaN or None among them into the string "nan" or "None")."""
    arr = np.asarray(values)
    if isinstance(values, (list, tuple)) and arr.dtype.kind in "US":
        arr = np.asarray(values, dtype=object)
    return arr


def _r_missing(arr: np.ndarray | None, na_strings: bool, ints: bool = False):
    """R's NA handed over as values: the int32 -2147483648 (any integers when ``ints``: a list
    of Python ints), and with ``na_strings`` the string "NA"."""
    if arr is None:
        return False
    if arr.dtype == np.int32 or ints and arr.dtype.kind == "i":
        return arr == R_NA_INTEGER
    if na_strings and arr.dtype.kind in "OU":
        return np.asarray(np.frompyfunc(lambda v: isinstance(v, str) and v == R_NA_STRING, 1, 1)(
            arr), dtype=bool)
    return np.zeros(arr.shape, dtype=bool)


def _missing_cells(obj, na_strings: bool = False) -> np.ndarray | None:
    """The missing cells of ``obj`` (None when it is no array: its function then names it)."""
    if isinstance(obj, pd.DataFrame):
        columns = [_missing_cells(obj.iloc[:, j], na_strings) for j in range(obj.shape[1])]
        return np.column_stack(columns) if columns else np.zeros(obj.shape, dtype=bool)
    if isinstance(obj, (pd.Series, pd.Index, pd.Categorical)):
        cells = np.asarray(pd.isna(obj), dtype=bool)
        values = obj if isinstance(obj, pd.Categorical) else obj.array
        if isinstance(obj.dtype, pd.CategoricalDtype):
            return cells | np.asarray(values == R_NA_STRING, dtype=bool) if na_strings else cells
        numpy_like = isinstance(obj.dtype, pd.StringDtype) or (
            isinstance(obj.dtype, np.dtype) and obj.dtype.kind in "iOU")
        return cells | _r_missing(np.asarray(values) if numpy_like else None, na_strings)
    if np.ma.isMaskedArray(obj):
        cells = _missing_cells(np.ma.getdata(obj), na_strings)
        return np.ma.getmaskarray(obj) | (False if cells is None else cells)
    try:
        arr = _as_array(obj)
    except (TypeError, ValueError):  # ragged nested lists
        return None
    if arr.dtype.kind in "fc":
        return np.isnan(arr)
    if arr.dtype.kind in "mM":
        return np.isnat(arr)
    cells = np.asarray(pd.isna(arr), dtype=bool) if arr.dtype.kind == "O" else False
    return cells | _r_missing(arr, na_strings, isinstance(obj, (list, tuple)))


def _missing_rows(obj, matrix: bool, name: str, na_strings: bool) -> np.ndarray | None:
    """The rows of ``obj`` with a missing value (of a square ``matrix``: its points dropped,
    greedily the one in the most missing entries until none is left among the others)."""
    cells = _missing_cells(obj, na_strings)
    if cells is None or cells.ndim not in (1, 2):
        return None
    if cells.ndim == 1 or not matrix:
        return cells if cells.ndim == 1 else cells.any(axis=1)
    if cells.shape[0] != cells.shape[1]:
        if not cells.any():
            return cells.any(axis=1)
        raise ValueError(
            f"`{name}` must be a square distance matrix for a precomputed metric, got shape "
            f"{cells.shape}: its rows and columns are the same points, dropped together.")
    cells = cells | cells.T
    counts, dropped = cells.sum(axis=1), np.zeros(cells.shape[0], dtype=bool)
    while counts.any():
        i = int(np.argmax(counts))
        dropped[i] = True
        counts -= cells[i]
        counts[i] = 0
    return dropped


def _take(obj, keep: np.ndarray, matrix: bool):
    """The rows ``keep`` of ``obj`` (of a matrix, its rows and columns), a new object."""
    if isinstance(obj, (pd.DataFrame, pd.Series)):
        out = obj.iloc[keep]
        return out.iloc[:, keep] if matrix and out.ndim == 2 else out
    if isinstance(obj, (pd.Index, pd.Categorical)):
        return obj[keep]
    out = (np.ma.getdata(obj) if np.ma.isMaskedArray(obj) else np.asarray(obj))[keep]
    return out[:, keep] if matrix and out.ndim == 2 else out


def _r_integer_na(obj) -> bool:
    """Whether ``obj`` holds R's integer NA as reticulate hands it over (for the message)."""
    for column in ([obj.iloc[:, j] for j in range(obj.shape[1])]
                   if isinstance(obj, pd.DataFrame) else [obj]):
        try:
            arr = np.asarray(column.array if isinstance(column, pd.Series) else column)
        except (TypeError, ValueError):
            continue
        if np.any(_r_missing(arr, False, isinstance(obj, (list, tuple)))):
            return True
    return False


def drop_missing(nan_policy: str, group: dict, matrices: Iterable[str] = (),
                 r_objects: Collection[str] = (), *, na_strings: bool = False,
                 hint: str = OMIT_HINT) -> tuple[dict, np.ndarray | None]:
    """Apply a checked ``nan_policy`` to ``group``, ``{name: value}`` of arguments whose rows
    belong together (None values skipped); ``matrices`` name square precomputed matrices,
    ``r_objects`` the values from R (their missing values are "R's NA" in the message),
    ``na_strings`` makes the string "NA" missing, ``hint`` ends the message of ``"raise"``.

    Returns the values (rows dropped under ``"omit"``, masked arrays as their data) and the
    rows kept (None when nothing is missing; under ``"propagate"`` the caller returns NaN)."""
    matrices = set(matrices)
    group = {name: from_r(value) for name, value in group.items()}  # rpy2's objects as data
    present = {name: rows for name, value in group.items() if value is not None and (
        rows := _missing_rows(value, name in matrices, name, na_strings)) is not None}
    unmasked = {name: np.ma.getdata(value) if np.ma.isMaskedArray(value) else value
                for name, value in group.items()}
    if not any(rows.any() for rows in present.values()):
        return unmasked, None  # nothing missing: the function's own checks see the arguments
    if len({len(rows) for rows in present.values()}) > 1:
        names, sizes = [f"`{n}`" for n in present], [str(len(r)) for r in present.values()]
        raise ValueError(f"{', '.join(names[:-1])} and {names[-1]} must have the same number of "
                         f"rows, got {', '.join(sizes[:-1])} and {sizes[-1]}.")
    missing = np.logical_or.reduce(list(present.values()))
    if nan_policy == "raise" or nan_policy == "omit" and missing.all():
        names = [name for name, rows in present.items() if rows.any()]
        kind = ("R's NA" if any(name in r_objects for name in names) else
                "R's NA, which reticulate hands over as the integer -2147483648" if any(
                    _r_integer_na(group[name]) for name in names) else "NaN, None or masked")
        then = hint if nan_policy == "raise" else "nan_policy='omit' leaves no row."
        raise ValueError(
            f"{', '.join(f'`{n}`' for n in names)} {'contains' if len(names) == 1 else 'contain'} "
            f"missing values ({kind}) in {int(missing.sum())} of {len(missing)} row(s): {then}")
    if nan_policy == "propagate":
        return unmasked, ~missing
    return {name: None if value is None else _take(value, ~missing, name in matrices)
            for name, value in group.items()}, ~missing


def align_rows(members: dict, matrices) -> dict:
    """The rows of pandas arguments paired by their index labels, as pandas aligns them: one
    whose index holds the first pandas argument's labels in another order is reordered to it
    (a matrix's rows and columns); indexes that differ as sets (or repeat a label) are refused
    with the fix. Arguments without an index pair by position, as do default indexes (0, 1,
    ...) on both sides (of other lengths: refused later for them)."""
    framed = [(n, v) for n, v in members.items() if isinstance(v, (pd.Series, pd.DataFrame))]
    out = dict(members)
    for name, value in framed[1:]:
        first, lead = framed[0][0], framed[0][1].index
        if value.index.equals(lead) or len(value) != len(lead) and _default(value.index) and (
                _default(lead)):
            continue
        at = value.index.get_indexer(lead) if value.index.is_unique and lead.is_unique else None
        if at is None or (at < 0).any() or len(value) != len(lead):
            why = ("repeat a label" if at is None else f"differ ({int((at < 0).sum())} of the "
                   f"{len(lead)} row labels of `{first}` are not among the {len(value)} of "
                   f"`{name}`)")
            raise ValueError(
                f"`{name}` and `{first}` are pandas objects, whose rows are paired by their index "
                f"labels as pandas aligns them, but their indexes {why}: pass "
                f"`{name}.to_numpy()` to pair the rows by position, or select the rows both have "
                f"with .loc (rows = {first}.index.intersection({name}.index)).")
        out[name] = value.iloc[at, at] if name in matrices else value.iloc[at]
    return out


def _default(index: pd.Index) -> bool:
    """Whether ``index`` is pandas' default: 0, 1, ..., n - 1."""
    return isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1


def expand_labels(labels: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Per-row labels of the kept rows laid out on all rows, ``-1`` on dropped rows."""
    out = np.full(keep.shape[0], -1, dtype=labels.dtype)
    out[keep] = labels
    return out


def is_matrix(metric, position: int) -> bool:
    """Whether ``metric`` (one, or one per data argument) makes the data argument at
    ``position`` a precomputed matrix."""
    if isinstance(metric, (tuple, list)):
        metric = metric[position] if position < len(metric) else None
    return isinstance(metric, str) and metric in ("precomputed", "precomputed_kernel")


#: What needs no conversion: numpy's and pandas' containers, Python's sequences and numbers.
_NATIVE = (np.ndarray, pd.Series, pd.DataFrame, pd.Index, pd.Categorical, str, bytes, int, float,
           complex, np.generic)


def as_python(value, name: str, from_r: bool = False):
    """``value`` as numpy or pandas data: a dict of named columns (an R list through reticulate;
    from R, ``from_r``, a list of lists too) or another library's data frame (polars) with its
    column names, an object that converts itself to pandas (xarray's ``to_pandas``) or to an
    array (``__array__``, a named one a Series); a scipy sparse matrix and a ragged list (not
    ``labels``, whose lists are factors) are refused. Lists and R objects stay (read later)."""
    if value is None or isinstance(value, _NATIVE) or type(value).__module__.startswith("rpy2."):
        return value
    if from_r and isinstance(value, list) and value and all(isinstance(v, list) for v in value):
        value = dict(enumerate(value))
    if isinstance(value, (list, tuple)):
        rows = name != "labels" and value and isinstance(value[0], (list, tuple, np.ndarray))
        if rows and len({len(v) if isinstance(v, (list, tuple, np.ndarray)) else -1
                         for v in value}) > 1:
            raise ValueError(
                f"`{name}` is a ragged list: its rows hold different numbers of values. Pass a "
                "table with one row per observation and the same variables in each (NaN where "
                "a value is missing).")
        return value
    if type(value).__module__.startswith("scipy.sparse"):
        raise TypeError(f"`{name}` is a scipy sparse matrix: energystats computes with the points "
                        f"as a dense array; pass {name}.toarray().")
    if isinstance(value, dict):  # named columns (an R list through reticulate)
        try:
            return pd.DataFrame(value)
        except (TypeError, ValueError):
            raise ValueError(
                f"`{name}` is a dict, read as a table of named columns, but its values are no "
                "columns of one length: pass a data frame (in R, a list of vectors of one "
                "length, or a data.frame).") from None
    columns = getattr(value, "columns", None)
    if columns is not None and hasattr(value, "__getitem__") and not callable(columns):
        return pd.DataFrame({column: np.asarray(value[column]) for column in columns})
    try:
        return value.to_pandas()
    except Exception:  # none, or one that needs another library (pyarrow): the array
        pass
    if not hasattr(value, "__array__"):
        return value
    array, named = np.asarray(value), getattr(value, "name", None)
    return pd.Series(array, name=named) if array.ndim == 1 and named else array


def read_r(value, name: str = "", *, distances: bool = False, where: str = ""):
    """``value`` as Python data: an rpy2 object by :func:`~energystats._rbridge.from_r`
    (reticulate hands over Python objects already); an R ``dist`` object its square matrix of
    distances where the argument takes them (``distances``), else refused."""
    if is_r_dist(value):
        if distances:
            return dist_matrix(value, name)
        raise ValueError(
            f"`{name}` is an R dist object (distances between points), but "
            f"{where or 'this function'} takes the points themselves here: pass the data the "
            "distances were computed from.")
    data, classes = from_r(value), list(getattr(value, "rclass", ()))
    if type(data).__module__.startswith("rpy2.") or "integer64" in classes:  # not read as data
        raise TypeError(
            f"`{name}` is an R object of class {', '.join(classes) or type(value).__name__}, which "
            "energystats does not read as data: pass a numeric vector or matrix, a data frame, "
            f"a factor or a dist object (as.data.frame({name}), as.numeric({name})).")
    return data


def warn_if_transposed(value, name: str) -> None:
    """A ``UserWarning`` when the table ``value`` has more columns than rows (its rows are read
    as observations: usually a transposed table), pointing at the caller's line."""
    shape = getattr(value, "shape", None)
    try:
        shape = np.asarray(value).shape if shape is None else shape
    except (TypeError, ValueError):  # ragged nested lists: the function's own validation
        return
    if len(shape) == 2 and 0 < shape[0] < shape[1]:
        warnings.warn(
            f"`{name}` has more variables (columns: {shape[1]}) than observations (rows: "
            f"{shape[0]}). Rows are read as observations: if the table is transposed, pass its "
            f"transpose ({name}.T); if it is meant, ignore this warning.",
            UserWarning, stacklevel=_caller_level())


def _caller_level() -> int:
    """``stacklevel`` of the first frame outside energystats seen from the function calling
    this one: a warning then points at the user's line (from R: past the last frame)."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame, level = sys._getframe(1).f_back, 2
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _precomputed(metric, position: int, count: int, name: str, exponent=1.0):
    """``metric`` with the data argument at ``position`` (of ``count``) made "precomputed": an
    R dist object holds distances; a Euclidean ``exponent`` other than 1 cannot apply to them."""
    metrics = list(metric) if isinstance(metric, (tuple, list)) else [metric] * count
    current = metrics[position] if position < len(metrics) else None
    if not (isinstance(current, str) and current in ("euclidean", "precomputed")):
        raise ValueError(f"`{name}` is an R dist object, read as precomputed distances; "
                         f"`metric`={current!r} cannot apply to it.")
    power = exponent[position] if isinstance(exponent, (tuple, list)) else exponent
    if current == "euclidean" and isinstance(power, (int, float)) and power != 1.0:
        raise ValueError(
            f"`{name}` is an R dist object, read as the distances it holds; `exponent`={power!r} "
            f"applies to distances computed here from points: raise them to the power in R "
            f"(dist(x)^{power!r}), or pass the data the distances were computed from.")
    metrics[position] = "precomputed"
    return metrics[0] if count == 1 else tuple(metrics)


def read_arguments(arguments: dict, names: Iterable[str], distances: tuple[str, ...],
                   where: str, prepare: dict | None = None, *, metric=None,
                   takes_metric: bool = False, exponent=1.0, tables: bool = True,
                   fixed: bool = False):
    """Read the arguments ``names`` of a call in place by :func:`read_r` (then ``prepare``'s
    function of a name) and return the call's ``metric``: an R ``dist`` object given for an
    argument of ``distances`` (listed in the order of a tuple ``metric``) is its distances, and
    that argument's metric "precomputed" in a function that ``takes_metric`` (an estimator's
    own, ``fixed``, must say so itself). A table ``X`` not given as distances gets the
    orientation check (``tables``)."""
    for name in names:
        if name == "*samples":
            arguments["samples"] = tuple(read_r(s, f"samples[{i}]", where=where)
                                         for i, s in enumerate(arguments["samples"]))
            continue
        value = arguments.get(name)
        dist = is_r_dist(value) and name in distances
        if dist and fixed and metric != "precomputed":
            raise ValueError(
                f"`{name}` is an R dist object (distances between points): construct the "
                f"estimator with metric='precomputed' to use them in {where}.")
        if dist and takes_metric and not fixed:
            metric = _precomputed(metric, distances.index(name), len(distances), name, exponent)
        value = read_r(value, name, distances=dist, where=where)
        if prepare and name in prepare:
            value = prepare[name](value)
        if name in arguments:
            arguments[name] = value
    if tables and "X" in names and not (takes_metric and "X" in distances
                                        and is_matrix(metric, distances.index("X"))):
        warn_if_transposed(arguments.get("X"), "X")
    return metric
