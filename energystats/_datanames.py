"""What the data are called: an argument naming a column of the data frame passed beside it
(``energy_test(quakes, "stations")``, R's and statsmodels' formulas), an argument that *is* a
column left in the data (:func:`check_columns_left_in`), and the ``data_name`` of a
result (R's ``data.name``), written by the front door (:mod:`energystats._frontdoor`) from the
names the data carry (pandas Series and data frame columns) and the parameters' names.

Python has no ``substitute``: the caller's variables are never looked at (after ``y = x`` two
names hold one array); the caller says R's wording with ``data_name="..."``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ._missing import _caller_level
from ._rbridge import from_r, is_r_dist, is_r_object

__all__ = ["by_column_name", "check_columns_left_in", "data_name_of", "refuse_repeated_names"]

#: Columns of a data frame named in ``data_name`` before "... (k columns)".
_MAX_COLUMNS = 4


def _name(value, parameter: str) -> str:
    """What one argument is called: a Series' name, a data frame's columns (also R's), the names
    of several factors, else the parameter's name."""
    if type(value) is np.ndarray:
        return parameter
    if is_r_object(value):
        value = None if is_r_dist(value) else from_r(value)
    if isinstance(value, pd.Series) and value.name is not None:
        return str(value.name)
    if isinstance(value, pd.DataFrame) and value.shape[1] > 0:
        names = [str(c) for c in value.columns]
        if len(names) == 1:
            return names[0]
        if len(names) > _MAX_COLUMNS:
            return f"[{', '.join(names[:_MAX_COLUMNS - 1])}, ... ({len(names)} columns)]"
        return f"[{', '.join(names)}]"
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, pd.Series) for v in value):
        return " and ".join(_name(v, f"{parameter}[{i}]") for i, v in enumerate(value))
    return parameter


def data_name_of(arguments: dict, names: tuple[str, ...], by: str | None = None) -> str:
    """R's ``data.name`` of a call's (read) ``arguments``: ``"x and y"``, ``"x and y,
    controlling for z"`` (three names), ``"X by labels"``, or the samples of ``"*samples"``
    (``"a, b and c"``), each argument by its pandas name or else its parameter's name."""
    if names == ("*samples",):
        parts = [_name(s, f"samples[{i}]") for i, s in enumerate(arguments["samples"])]
        if len(parts) > _MAX_COLUMNS:
            return f"{len(parts)} samples"
        return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    parts = [_name(arguments.get(n), n) for n in names]
    text = parts[0]
    if len(parts) >= 2:
        text += f" and {parts[1]}"
    if len(parts) == 3:
        text += f", controlling for {parts[2]}"
    if by is not None and arguments.get(by) is not None:
        text += f" by {_name(arguments[by], by)}"
    return text


def _is_label(value) -> bool:
    """A string, an integer (not a bool), or a tuple of them (a column of a MultiIndex): what
    can name a data frame's column."""
    if isinstance(value, tuple):
        return bool(value) and all(map(_is_label, value))
    return isinstance(value, (str, int, np.integer)) and not isinstance(value, (bool, np.bool_))


def by_column_name(arguments: dict, data: str, columns: tuple[str, ...]) -> list[str]:
    """Replace the arguments of ``columns`` that name a column of the data frame
    ``arguments[data]`` by that column, and the data by the other columns (R's and statsmodels'
    formulas: ``energy_test(quakes, "stations")`` reads ``. ~ stations``). A string always
    names a column; an integer does when the data frame has it among its column names (an
    integer elsewhere is left to the function, which refuses a scalar). Returns the names
    replaced."""
    named = [name for name in columns if _is_label(arguments.get(name))]
    if not named:
        return []
    frame = from_r(arguments[data])
    numbered = isinstance(frame, pd.DataFrame) and any(_is_label(c) and not isinstance(c, str)
                                                       for c in frame.columns)
    levels = frame.columns.nlevels if isinstance(frame, pd.DataFrame) else 1
    named = [name for name in named if isinstance(arguments[name], str) or (
        len(arguments[name]) == levels > 1 if isinstance(arguments[name], tuple) else numbered)]
    if not named:
        return []
    if not isinstance(frame, pd.DataFrame):
        name = named[0]
        raise ValueError(
            f"`{name}`={arguments[name]!r} names a column, but `{data}` is not a data frame: "
            f"pass `{name}` as an array, or `{data}` as a pandas DataFrame."
        )
    for name in named:
        if arguments[name] not in frame.columns:
            raise ValueError(
                f"`{name}`={arguments[name]!r} is not a column of `{data}` (its columns: "
                f"{', '.join(map(repr, frame.columns))})."
            )
        if list(frame.columns).count(arguments[name]) > 1:
            raise ValueError(
                f"`{name}`={arguments[name]!r} names {list(frame.columns).count(arguments[name])} "
                f"columns of `{data}`: rename them so that the name says which one."
            )
    chosen = [arguments[name] for name in named]
    if len(set(chosen)) < len(chosen):
        both = " and ".join(f"`{name}`" for name in named)
        raise ValueError(f"{both} name the same column {chosen[0]!r}.")
    for name in named:
        arguments[name] = frame[arguments[name]]
    arguments[data] = frame.drop(columns=chosen)
    return named


def refuse_repeated_names(arguments: dict, names) -> None:
    """In a call made from R: refuse a data frame with a column name twice. reticulate hands
    an R data frame over by column name, and the columns of a repeated name arrive as the
    last of them, twice: the first is lost before energystats sees it."""
    for name in names:
        value = arguments.get(name)
        if isinstance(value, pd.DataFrame) and not value.columns.is_unique:
            twice = list(dict.fromkeys(value.columns[value.columns.duplicated()]))
            raise ValueError(
                f"`{name}` has the column name {', '.join(map(repr, twice))} more than once: "
                "reticulate hands an R data frame over by column name and keeps only the last "
                f"of those columns, under each of their names. Rename them in R "
                f"(names({name}) <- make.unique(names({name}))) before passing `{name}`."
            )


#: Rows on which an argument is first compared with the columns of the data (evenly spaced);
#: only the columns that pass are compared on every row.
SCREEN_ROWS = 64


class _Columns:
    """The columns of a table (a DataFrame by position, an array), read as they are asked."""

    def __init__(self, value):
        self.frame = value if isinstance(value, pd.DataFrame) else None
        if self.frame is None:
            arr = value if type(value) is np.ndarray else np.asarray(value)
            self.array = arr.reshape(-1, 1) if arr.ndim == 1 else arr
            self.shape = self.array.shape
        else:
            self.shape = value.shape

    def row(self, i: int) -> np.ndarray:
        if self.frame is not None:
            return self.frame.iloc[i].to_numpy(dtype=object)
        return _objects(self.array[i])

    def rows(self, index: np.ndarray) -> np.ndarray:
        if self.frame is not None:
            return self.frame.iloc[index].to_numpy(dtype=object)
        return _objects(self.array[index])

    def column(self, j: int) -> np.ndarray:
        return self.frame.iloc[:, j].to_numpy() if self.frame is not None else self.array[:, j]

    def called(self, j: int, data: str) -> str:
        if self.frame is not None:
            return f"the column {self.frame.columns[j]!r} of `{data}`"
        return f"column {j} of `{data}` (counting from 0)"


def _objects(arr: np.ndarray) -> np.ndarray:
    """Strings as objects: compared with numbers, unequal (numpy's strings may not compare)."""
    return arr.astype(object) if arr.dtype.kind in "US" else arr


def _same_groups(labels: np.ndarray, column: np.ndarray) -> bool:
    """Whether ``labels`` and ``column`` group the rows alike: equal values, or values in one
    to one correspondence with some group of two or more rows (the column recodes the labels:
    R's ``as.integer`` of a factor). Each row its own group is no grouping."""
    if np.array_equal(labels, column):
        return True
    codes, levels = pd.factorize(labels)
    mine, values = pd.factorize(column)
    if len(levels) != len(values) or len(levels) == len(labels):
        return False
    return np.unique(codes.astype(np.int64) * len(values) + mine).size == len(levels)


def _screen_rows(n: int) -> np.ndarray:
    return np.arange(n) if n <= SCREEN_ROWS else np.linspace(0, n - 1, SCREEN_ROWS).astype(np.intp)


def _equal_columns(other: _Columns, table: _Columns) -> dict:
    """``{k: j}``: column k of ``other`` equal to column j of ``table`` (the first such j).
    The first row rules out almost every pair (one comparison of each); the pairs left are
    compared on :data:`SCREEN_ROWS` rows, then on all."""
    mine, theirs = table.row(0), other.row(0)
    try:  # a value in common on the first row: almost never, for columns that differ
        if not set(mine.tolist()).intersection(theirs.tolist()):
            return {}
    except TypeError:  # values that cannot be hashed: compared below
        pass
    hits = mine[:, None] == theirs[None, :]
    rows = _screen_rows(table.shape[0])
    mine, theirs = table.rows(rows), other.rows(rows)
    found = {}
    for j, k in np.argwhere(hits):
        j, k = int(j), int(k)
        if k not in found and (mine[:, j] == theirs[:, k]).all() and np.array_equal(
                other.column(k), table.column(j)):
            found[k] = j
    return found


def _grouping_column(labels: np.ndarray, table: _Columns) -> int | None:
    """The first column of ``table`` that groups the rows as ``labels`` do. The first row and
    another row of its group rule out almost every column (equal to the label there, or equal
    on the two rows); the columns left are screened on :data:`SCREEN_ROWS` rows, then checked
    on all."""
    head = labels[:SCREEN_ROWS].tolist()
    first, label = table.row(0).tolist(), head[0]
    candidates = {j for j, value in enumerate(first) if value == label}
    if label in head[1:]:  # another row of the first row's group: a column equal on both
        other = table.row(head.index(label, 1)).tolist()
        candidates.update(j for j, (a, b) in enumerate(zip(first, other)) if a == b)
    if not candidates:
        return None
    candidates = np.array(sorted(candidates))
    rows = _screen_rows(table.shape[0])
    block, head = table.rows(rows)[:, candidates], _objects(labels[rows])
    screened = (block == head[:, None]).all(axis=0)
    same = head == head[0]
    if 1 < same.sum() < len(rows):  # a group of two rows and another group seen
        screened |= (block[same] == block[0]).all(axis=0) & (block[~same] != block[0]).all(axis=0)
    for j in candidates[screened]:
        if _same_groups(labels, table.column(int(j))):
            return int(j)
    return None


def check_columns_left_in(
    arguments: dict, data: str, names, where: str, *, from_r: bool = False
) -> None:
    """Say so when an argument of ``names`` is a column left in the data ``arguments[data]``:
    ``labels`` that group the rows as a column of ``X`` does (the same values, or a recoding
    of them), a variable ``y`` (``z``) equal to a column of ``x``. Left in the data, that
    column separates the groups (makes the variables dependent) by construction, whatever
    the rest of the data say: ``energy_test(df, df["g"])`` gave p = 0.01 where
    ``energy_test(df, "g")`` gives 0.16.

    An argument that carries the column's name (a pandas Series, an R data frame's column)
    is that column: refused, with the fix (its name, which takes it out of the data as R's
    formula ``. ~ g`` does). Values alone cannot tell a column left in from data the groups
    separate perfectly (a binary outcome in a small sample): a ``UserWarning`` with the fix,
    and the data are used as given. A variable with the same columns as ``x`` (``dcov(x,
    x)``, the distance variance) is neither. Cheap: a screen of :data:`SCREEN_ROWS` rows,
    every row only for the columns that pass it."""
    value = arguments.get(data)
    if value is None or not names:
        return
    try:
        table = _Columns(value)
    except (TypeError, ValueError):  # not a table: the function's own validation names it
        return
    if len(table.shape) != 2 or table.shape[0] < 2 or table.shape[1] < 2:
        return  # a column is left in other data only: one column is the data themselves
    for name in names:
        given = arguments.get(name)
        if given is None or isinstance(given, str):
            continue
        groups = name == "labels"
        parts = [given.iloc[:, j] for j in range(given.shape[1])] if isinstance(
            given, pd.DataFrame) else [given]
        for part in parts:
            try:
                other = _Columns(part)
            except (TypeError, ValueError):
                continue
            if len(other.shape) != 2 or other.shape[0] != table.shape[0]:
                continue
            if groups:
                found = {k: _grouping_column(np.asarray(other.column(k)), table)
                         for k in range(other.shape[1])}
                found = {k: j for k, j in found.items() if j is not None}
            else:
                found = _equal_columns(other, table)
            if not found or (not groups and len(found) == other.shape[1] == table.shape[1]):
                continue  # nothing left in; or dcov(x, x): the distance variance
            j = next(iter(found.values()))
            message = _left_in_message(name, data, table, j, where, groups, from_r)
            named = getattr(part, "name", None)
            if table.frame is not None and named is not None and named == table.frame.columns[j]:
                raise ValueError(message)
            meant = ("the groups do separate that column (an outcome they determine)" if groups
                     else f"`{name}` is meant to be a column of `{data}`")
            warnings.warn(f"{message} If {meant}, ignore this warning.", UserWarning,
                          stacklevel=_caller_level())


def _left_in_message(name, data, table, j, where, groups, from_r) -> str:
    called = table.called(j, data)
    what = (f"`{name}` holds the groups of {called}: left in the data, that column separates "
            "the groups by construction, whatever the other columns say."
            if groups else
            f"`{name}` is {called}: left in `{data}`, it makes `{data}` and `{name}` dependent "
            "by construction, whatever the other columns say.")
    if table.frame is not None:
        column = table.frame.columns[j]
        formula = f" (as R's formula `. ~ {column}` does)" if groups else ""
        return (f"{what} Pass the column's name, `{name}`={column!r}, which takes it out of "
                f"`{data}`{formula}, or drop it from `{data}`.")
    drop = f"{data}[, -{j + 1}] in R" if from_r else f"np.delete({data}, {j}, axis=1)"
    return f"{what} Drop it from `{data}` ({drop}) and pass `{name}` beside it ({where})."
