"""Missing values the scipy way: ``nan_policy`` in {"raise", "omit", "propagate"}; and the one
reading of R objects that every public function's data arguments go through first
(:func:`read_r`: rpy2's data frames, matrices, vectors and factors as Python data, a ``dist``
object as the distances it holds where a function takes distances and refused elsewhere), with
the warning for a table ``X`` of more variables than observations (:func:`warn_if_transposed`).
The front door (:mod:`energystats._frontdoor`) applies both to every public function.

A value is missing when it is NaN, ``None``, ``pandas.NA``/``NaT``, or masked in a
``numpy.ma`` array (a mask means missing under every policy; a masked array
without masked entries is its data). Infinite values are not missing: they stay
errors. One rule for every function:

* ``"raise"`` (default): a ``ValueError`` naming the argument, the number of rows and the
  kind of missing value the caller sees (NaN, None or masked; R's NA for data from R), and
  saying how to go on;
* ``"omit"``: each row with a missing value in the data, its label or its weight
  is dropped; for paired data (``x`` and ``y`` of a distance covariance) the row
  of both. A precomputed matrix loses points (a point's row and column), one at
  a time, the point with the most missing entries first (ties: the first), until
  no missing entry is left among the kept points: a point whose distances are all
  missing goes and its neighbours stay. Separate samples (``energy_distance``'s ``x`` and ``y``)
  each lose their own rows. Results report the count in ``n_omitted``, and
  per-row outputs (``labels``) keep one entry per input row, ``-1`` where a row
  was dropped, so that they align with the caller's data frame;
* ``"propagate"``: a statistic returned as a number is NaN when a value is
  missing, once the call is known to be valid: the statistic of the complete rows is
  computed (it checks every other argument) and replaced by NaN, so the complete rows
  must be enough for it. Results with more structure (tests, clusterings, decompositions)
  refuse it, since a NaN p-value or partition carries nothing the caller can use.

R objects handed over by rpy2 are read first (:func:`energystats._rbridge.from_r`): a
factor is a categorical with R's levels, R's ``NA`` (also the integer one) is missing.
R's ``NA`` handed over by reticulate, which makes values of them, is missing too: the
integer -2147483648 (R's ``NA_integer_``) in an int32 array or column or in a list of Python
ints (numpy's int32 minimum is read as it; in int64 data it is a number), and, in a call
made from R (:func:`energystats._rbridge.called_from_r`), the string ``"NA"``, which is how
reticulate hands over a character or factor ``NA`` (and R's string "NA" alike). In Python
data ``"NA"`` is a label like any other, as ``pandas.isna("NA")`` says. reticulate turns a
logical ``NA`` into ``True``, which cannot be told apart.

Nothing the caller passed in is modified: rows are selected into new arrays
(``.iloc`` for pandas objects, so column names and categorical levels stay).
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Collection, Iterable

import numpy as np
import pandas as pd

from ._rbridge import R_NA_INTEGER, dist_matrix, from_r, is_r_dist

__all__ = [
    "NAN_POLICIES",
    "align_rows",
    "as_python",
    "check_nan_policy",
    "drop_missing",
    "expand_labels",
    "is_matrix",
    "read_arguments",
    "read_r",
    "read_table",
    "warn_if_transposed",
]

NAN_POLICIES = ("raise", "omit", "propagate")

#: Names under which a precomputed matrix is requested.
_MATRIX_METRICS = ("precomputed", "precomputed_kernel")


def check_nan_policy(nan_policy, *, propagate: bool, where: str = "") -> str:
    """Validate ``nan_policy``; ``propagate=False`` refuses ``"propagate"`` (results
    that are not a number)."""
    if not isinstance(nan_policy, str) or nan_policy not in NAN_POLICIES:
        raise ValueError(
            f"`nan_policy` must be 'raise', 'omit' or 'propagate', got {nan_policy!r}."
        )
    if nan_policy == "propagate" and not propagate:
        raise ValueError(
            f"`nan_policy`='propagate' is for statistics returned as a number; "
            f"{where or 'this function'} returns a result with no meaningful NaN form: use "
            "'omit' (drop rows with missing values) or 'raise'."
        )
    return nan_policy


def _as_array(values) -> np.ndarray:
    """``np.asarray``, except that a list or tuple holding strings stays objects: numpy would
    turn a NaN or None among them into the string "nan" or "None"."""
    arr = np.asarray(values)
    if isinstance(values, (list, tuple)) and arr.dtype.kind in "US":
        arr = np.asarray(values, dtype=object)
    return arr


def _missing_cells(obj, na_strings: bool = False) -> np.ndarray | None:
    """Boolean array of the missing cells of ``obj`` (None when it cannot be read as an
    array: the function's own validation then names the problem). ``na_strings``: the string
    "NA" is missing too (R's character NA in a call made from R through reticulate)."""
    if isinstance(obj, pd.DataFrame):
        columns = [_missing_cells(obj.iloc[:, j], na_strings) for j in range(obj.shape[1])]
        return np.column_stack(columns) if columns else np.zeros(obj.shape, dtype=bool)
    if isinstance(obj, (pd.Series, pd.Index, pd.Categorical)):
        cells = np.asarray(pd.isna(obj), dtype=bool)
        values = obj if isinstance(obj, pd.Categorical) else obj.array
        if isinstance(obj.dtype, pd.CategoricalDtype):
            return cells | np.asarray(values == R_NA_STRING, dtype=bool) if na_strings else cells
        numpy_like = isinstance(obj.dtype, pd.StringDtype) or (
            isinstance(obj.dtype, np.dtype) and obj.dtype.kind in "iOU"
        )
        return cells | _r_missing(np.asarray(values) if numpy_like else None, na_strings)
    if np.ma.isMaskedArray(obj):
        data = np.ma.getdata(obj)
        cells = _missing_cells(data, na_strings)
        mask = np.ma.getmaskarray(obj)
        return mask if cells is None else mask | cells
    try:
        arr = _as_array(obj)
    except (TypeError, ValueError):  # ragged nested lists
        return None
    if arr.dtype.kind in "fc":
        return np.isnan(arr)
    if arr.dtype.kind == "O":
        return np.asarray(pd.isna(arr), dtype=bool) | _r_missing(arr, na_strings)
    if arr.dtype.kind == "M" or arr.dtype.kind == "m":
        return np.isnat(arr)
    if isinstance(obj, (list, tuple)) and arr.dtype.kind == "i":  # R's integers via reticulate
        return arr == R_NA_INTEGER
    return _r_missing(arr, na_strings)


#: R's NA of a character vector or factor as reticulate hands it over: the string "NA" (as
#: R's ``read.csv`` and pandas' ``read_csv`` read it by default). Missing only in a call made
#: from R: in Python data "NA" is a label (North America), as ``pandas.isna("NA")`` says.
R_NA_STRING = "NA"


def _is_r_na_string(value) -> bool:
    return isinstance(value, str) and value == R_NA_STRING


def _r_missing(arr: np.ndarray | None, na_strings: bool) -> np.ndarray | bool:
    """R's missing values that reticulate hands over as values: NA_integer_ as the int32
    -2147483648 (in an int32 array, a pandas int32 column, or a list of Python ints), and
    with ``na_strings`` NA_character_ as the string "NA"."""
    if arr is None:
        return False
    if arr.dtype == np.int32:
        return arr == R_NA_INTEGER
    if na_strings and arr.dtype.kind in "OU":
        return np.asarray(np.frompyfunc(_is_r_na_string, 1, 1)(arr), dtype=bool)
    return np.zeros(arr.shape, dtype=bool)


def _r_integer_na(obj) -> bool:
    """Whether ``obj`` holds R's integer NA as reticulate hands it over (the integer
    -2147483648: for the message of ``"raise"``, the caller sees no NaN there)."""
    frame = isinstance(obj, pd.DataFrame)
    columns = [obj.iloc[:, j] for j in range(obj.shape[1])] if frame else [obj]
    for column in columns:
        try:
            arr = np.asarray(column.array if isinstance(column, pd.Series) else column)
        except (TypeError, ValueError):
            continue
        integers = arr.dtype == np.int32 or isinstance(obj, (list, tuple)) and arr.dtype.kind == "i"
        if integers and (arr == R_NA_INTEGER).any():
            return True
    return False


def _kinds(names: list[str], group: dict, r_objects: Collection[str]) -> str:
    """The missing values of the arguments ``names`` as the caller sees them: R's NA in data
    from R (rpy2's objects, a call from R, or reticulate's integer NA), else NaN, None or
    masked."""
    if any(name in r_objects for name in names):
        return "R's NA"
    if any(_r_integer_na(group[name]) for name in names):
        return "R's NA, which reticulate hands over as the integer -2147483648"
    return "NaN, None or masked"


def _missing_rows(obj, matrix: bool, name: str, na_strings: bool) -> np.ndarray | None:
    cells = _missing_cells(obj, na_strings)
    if cells is None or cells.ndim == 0 or cells.ndim > 2:
        return None
    if cells.ndim == 1:
        return cells
    if matrix and cells.shape[0] == cells.shape[1]:
        return _matrix_points(cells)
    if matrix and cells.any():
        raise ValueError(
            f"`{name}` must be a square distance matrix for a precomputed metric, got shape "
            f"{cells.shape}: its rows and columns are the same points, dropped together."
        )
    return cells.any(axis=1)


def _matrix_points(cells: np.ndarray) -> np.ndarray:
    """The points dropped from a square matrix with missing ``cells``: greedily the point in
    the most missing entries (its row and its column) until none is left among the others."""
    cells = cells | cells.T
    counts = cells.sum(axis=1)
    dropped = np.zeros(cells.shape[0], dtype=bool)
    while counts.any():
        i = int(np.argmax(counts))
        dropped[i] = True
        counts -= cells[i]
        counts[i] = 0
    return dropped


def _take(obj, keep: np.ndarray, matrix: bool):
    if isinstance(obj, (pd.DataFrame, pd.Series)):
        out = obj.iloc[keep]
        return out.iloc[:, keep] if matrix and out.ndim == 2 else out
    if isinstance(obj, (pd.Index, pd.Categorical)):
        return obj[keep]
    arr = np.ma.getdata(obj) if np.ma.isMaskedArray(obj) else np.asarray(obj)
    out = arr[keep]
    return out[:, keep] if matrix and out.ndim == 2 else out


#: How to go on from missing values under ``"raise"``.
OMIT_HINT = "pass nan_policy='omit' to drop those rows."


def drop_missing(
    nan_policy: str,
    group: dict,
    matrices: Iterable[str] = (),
    r_objects: Collection[str] = (),
    *,
    na_strings: bool = False,
    hint: str = OMIT_HINT,
) -> tuple[dict, np.ndarray | None]:
    """Apply a validated ``nan_policy`` to arguments whose rows belong together.

    Parameters
    ----------
    nan_policy : {"raise", "omit", "propagate"}
    group : dict
        ``{name: value}`` of arguments with one row per observation (data, labels,
        weights); ``None`` values are skipped.
    matrices : iterable of str
        Names in ``group`` that hold a precomputed square matrix.
    r_objects : collection of str
        Names in ``group`` whose value came from R (through rpy2, or in a call made from R):
        their missing values are R's NA in the message of ``"raise"``.
    na_strings : bool
        The string "NA" is missing (R's character NA in a call made from R, which
        reticulate hands over as that string); elsewhere it is a label.
    hint : str
        How to go on, the end of the message of ``"raise"``.

    Returns
    -------
    values : dict
        The arguments with missing rows dropped (``"omit"``), masked arrays as their
        data; unchanged objects otherwise.
    keep : ndarray of bool or None
        The rows kept when some were dropped (``"omit"``) or found missing
        (``"propagate"``: the caller returns NaN); ``None`` when nothing is missing.
    """
    matrices = set(matrices)
    group = {name: from_r(value) for name, value in group.items()}  # rpy2's objects as data
    rows = {
        name: _missing_rows(value, name in matrices, name, na_strings)
        for name, value in group.items()
        if value is not None
    }
    present = {name: r for name, r in rows.items() if r is not None}
    unmasked = {
        name: (np.ma.getdata(value) if np.ma.isMaskedArray(value) else value)
        for name, value in group.items()
    }
    if not any(r.any() for r in present.values()):
        return unmasked, None  # nothing missing: the function's own checks see the arguments
    if len({len(r) for r in present.values()}) > 1:
        names, sizes = [f"`{n}`" for n in present], [str(len(r)) for r in present.values()]
        raise ValueError(
            f"{', '.join(names[:-1])} and {names[-1]} must have the same number of rows, "
            f"got {', '.join(sizes[:-1])} and {sizes[-1]}."
        )
    missing = np.logical_or.reduce(list(present.values()))
    if nan_policy == "raise" or nan_policy == "omit" and missing.all():
        names = [name for name, r in present.items() if r.any()]
        count = int(missing.sum())
        left = "nan_policy='omit' leaves no row."
        raise ValueError(
            f"{', '.join(f'`{n}`' for n in names)} {'contains' if len(names) == 1 else 'contain'} "
            f"missing values ({_kinds(names, group, r_objects)}) in {count} of {len(missing)} "
            f"row(s): {hint if nan_policy == 'raise' else left}"
        )
    keep = ~missing
    if nan_policy == "propagate":
        return unmasked, keep
    values = {
        name: (None if value is None else _take(value, keep, name in matrices))
        for name, value in group.items()
    }
    return values, keep


def align_rows(members: dict, matrices) -> dict:
    """The rows of pandas arguments paired by their index labels, as pandas aligns them: one
    whose index holds the first pandas argument's labels in another order is reordered to it
    (a matrix's rows and columns); indexes that differ as sets (or repeat a label) are refused
    with the fix. An argument without an index (an array, a list) pairs by position, as do
    default indexes (0, 1, ...) on both sides (of other lengths: refused later for them)."""
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
                f"with .loc (rows = {first}.index.intersection({name}.index))."
            )
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
    return isinstance(metric, str) and metric in _MATRIX_METRICS


# --- data of other libraries, and R objects: the one conversion of every data argument ---

#: What needs no conversion: numpy's and pandas' containers, Python's sequences and numbers.
_NATIVE = (np.ndarray, pd.Series, pd.DataFrame, pd.Index, pd.Categorical, str, bytes, int, float,
           complex, np.generic)


def as_python(value, name: str, from_r: bool = False):
    """``value`` as numpy or pandas data: a dict of named columns (an R list through
    reticulate; in a call made from R, ``from_r``, a list of lists too: R's list is one of
    columns) or a data frame of another library (polars) with its column names, an object
    that converts itself to pandas (xarray's ``to_pandas``, its coordinates the index) or to
    an array (``__array__``, a named one a Series); a scipy sparse matrix and a ragged list
    (rows of different lengths; not ``labels``, whose lists are factors) are refused, naming
    ``name``. Anything else is returned as it is (lists, R objects: read later)."""
    if value is None or isinstance(value, _NATIVE) or type(value).__module__.startswith("rpy2."):
        return value
    if from_r and isinstance(value, list) and value and all(isinstance(v, list) for v in value):
        value = dict(enumerate(value))
    if isinstance(value, (list, tuple)):
        # rows are lists (a flat list has none); labels' lists are several factors, not rows
        rows = name != "labels" and value and isinstance(value[0], (list, tuple, np.ndarray))
        sizes = {len(v) if isinstance(v, (list, tuple, np.ndarray)) else -1 for v in value} if (
            rows) else ()
        if len(sizes) > 1:
            raise ValueError(
                f"`{name}` is a ragged list: its rows hold different numbers of values. Pass a "
                "table with one row per observation and the same variables in each (NaN where "
                "a value is missing)."
            )
        return value
    if type(value).__module__.startswith("scipy.sparse"):
        raise TypeError(
            f"`{name}` is a scipy sparse matrix: energystats computes with the points as a dense "
            f"array; pass {name}.toarray()."
        )
    if isinstance(value, dict):  # named columns (an R list through reticulate)
        try:
            return pd.DataFrame(value)
        except (TypeError, ValueError):
            raise ValueError(
                f"`{name}` is a dict, read as a table of named columns, but its values are no "
                "columns of one length: pass a data frame (in R, a list of vectors of one "
                "length, or a data.frame)."
            ) from None
    columns = getattr(value, "columns", None)
    if columns is not None and hasattr(value, "__getitem__") and not callable(columns):
        return pd.DataFrame({column: np.asarray(value[column]) for column in columns})
    try:
        return value.to_pandas()
    except Exception:  # none, or one that needs another library (pyarrow): the array
        pass
    if not hasattr(value, "__array__"):
        return value
    array = np.asarray(value)
    named = getattr(value, "name", None)
    return pd.Series(array, name=named) if array.ndim == 1 and named else array


def read_r(value, name: str = "", *, distances: bool = False, where: str = ""):
    """``value`` as Python data, whoever made it: the one conversion of R objects.

    An rpy2 object becomes the Python data it holds (:func:`energystats._rbridge.from_r`: a
    data frame a DataFrame with observations in rows, a matrix its array, a factor a
    categorical, R's NA missing); reticulate hands over Python objects already (a data frame
    as a DataFrame, a matrix as an array, a vector as a list), whose R ``NA`` values the
    missing-value rules read. An R ``dist`` object is its square matrix of distances where
    the argument takes distances (``distances``), else refused with a ``ValueError``: read as
    data it would give a meaningless number.
    """
    if is_r_dist(value) and not distances:
        raise ValueError(
            f"`{name}` is an R dist object (distances between points), but "
            f"{where or 'this function'} takes the points themselves here: pass the data the "
            "distances were computed from."
        )
    if is_r_dist(value):
        return dist_matrix(value, name)
    data, classes = from_r(value), list(getattr(value, "rclass", ()))
    if type(data).__module__.startswith("rpy2.") or "integer64" in classes:  # not read as data
        raise TypeError(
            f"`{name}` is an R object of class {', '.join(classes) or type(value).__name__}, which "
            "energystats does not read as data: pass a numeric vector or matrix, a data frame, "
            f"a factor or a dist object (as.data.frame({name}), as.numeric({name}))."
        )
    return data


def warn_if_transposed(value, name: str) -> None:
    """A ``UserWarning`` when the table ``value`` has more columns than rows: its rows are read
    as observations, and more variables than observations usually means a transposed table.
    Called from :func:`read_arguments` (in the front door of a public function) or
    :func:`read_table` (in a public function), so that the warning points at the caller's
    line."""
    shape = getattr(value, "shape", None)
    if shape is None:
        try:
            shape = np.asarray(value).shape  # lists, and array-likes that only convert
        except (TypeError, ValueError):  # ragged nested lists: the function's own validation
            return
    if len(shape) == 2 and 0 < shape[0] < shape[1]:
        warnings.warn(
            f"`{name}` has more variables (columns: {shape[1]}) than observations (rows: "
            f"{shape[0]}). Rows are read as observations: if the table is transposed, pass its "
            f"transpose ({name}.T); if it is meant, ignore this warning.",
            UserWarning,
            stacklevel=_caller_level(),
        )


def _caller_level() -> int:
    """``stacklevel`` of the first frame outside energystats, seen from the function that
    calls this one: a warning then points at the user's line whatever wrappers (the public
    function's front door) lie between."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    # the caller of warnings.warn's caller (None: R calling through reticulate)
    frame, level = sys._getframe(1).f_back, 2
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def read_table(value, name: str, *, where: str, metric=None, fixed: bool = False):
    """:func:`read_r` for a table of observations (``X`` of a clustering or of
    ``pairwise_dcor``): returns ``(value, metric)``. An R ``dist`` object is its
    matrix with ``metric`` ``"precomputed"`` when the function takes a metric (``metric`` not
    None; an estimator's own, ``fixed``, must say ``"precomputed"`` itself); anything not
    given as distances gets the orientation check of :func:`warn_if_transposed`."""
    if is_r_dist(value) and metric is not None:
        if fixed and metric != "precomputed":
            raise ValueError(
                f"`{name}` is an R dist object (distances between points): construct the "
                f"estimator with metric='precomputed' to use them in {where}."
            )
        return dist_matrix(value, name), _with_precomputed(metric, 0, 1, name)
    value = read_r(value, name, where=where)
    if not is_matrix(metric, 0):
        warn_if_transposed(value, name)
    return value, metric


def _with_precomputed(metric, position: int, count: int, name: str, exponent=1.0):
    """``metric`` with the data argument at ``position`` (of ``count``) made ``"precomputed"``:
    an R dist object holds distances, as R's functions read it. The Euclidean ``exponent`` of
    that argument (one, or one per data argument) cannot apply to distances given."""
    metrics = list(metric) if isinstance(metric, (tuple, list)) else [metric] * count
    current = metrics[position] if position < len(metrics) else None
    if not (isinstance(current, str) and current in ("euclidean", "precomputed")):
        raise ValueError(
            f"`{name}` is an R dist object, read as precomputed distances; `metric`={current!r} "
            "cannot apply to it."
        )
    power = exponent[position] if isinstance(exponent, (tuple, list)) else exponent
    if current == "euclidean" and isinstance(power, (int, float)) and power != 1.0:
        raise ValueError(
            f"`{name}` is an R dist object, read as the distances it holds; `exponent`={power!r} "
            f"applies to distances computed here from points: raise them to the power in R "
            f"(dist(x)^{power!r}), or pass the data the distances were computed from."
        )
    metrics[position] = "precomputed"
    return metrics[0] if count == 1 else tuple(metrics)


def read_arguments(
    arguments: dict,
    names: Iterable[str],
    distances: tuple[str, ...],
    where: str,
    prepare: dict | None = None,
    *,
    metric=None,
    takes_metric: bool = False,
    exponent=1.0,
    tables: bool = True,
):
    """Convert a public function's bound ``arguments`` named ``names`` in place by
    :func:`read_r`, and return its ``metric`` as the data make it. An R ``dist`` object given
    for an argument of ``distances`` is read as the distances it holds: for a function that
    ``takes_metric``, that argument's metric becomes ``"precomputed"`` (``distances`` lists
    the arguments in the order a tuple ``metric`` does; ``exponent``, one or one per argument,
    cannot apply to them). A table ``X`` not given as distances gets the orientation check
    (``tables``). ``prepare`` maps names to a further conversion of the argument read (e.g.
    several factors as one DataFrame)."""
    for name in names:
        if name == "*samples":
            arguments["samples"] = tuple(
                read_r(s, f"samples[{i}]", where=where) for i, s in enumerate(arguments["samples"])
            )
            continue
        value = arguments.get(name)
        dist = is_r_dist(value) and name in distances
        if dist and takes_metric:
            metric = _with_precomputed(
                metric, distances.index(name), len(distances), name, exponent
            )
        value = read_r(value, name, distances=dist, where=where)
        if prepare and name in prepare:
            value = prepare[name](value)
        if name in arguments:
            arguments[name] = value
    if tables and "X" in names:
        precomputed = takes_metric and "X" in distances and is_matrix(metric, distances.index("X"))
        if not precomputed:
            warn_if_transposed(arguments.get("X"), "X")
    return metric
