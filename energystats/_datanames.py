"""What the data are called: an argument naming a column of the data frame beside it
(``energy_test(quakes, "stations")``, R's formulas), an argument that *is* a column left in the
data (:func:`check_columns_left_in`), and a result's ``data_name`` (R's ``data.name``) from the
names the data carry (pandas Series and columns) and the parameters' names. Python has no
``substitute``: the caller's variables are never read; R's wording is ``data_name="..."``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ._missing import _caller_level
from ._rbridge import from_r, is_r_dist, is_r_object

__all__ = ["by_column_name", "check_columns_left_in", "data_name_of", "refuse_repeated_names"]

#: Columns of a data frame named in ``data_name`` before "... (k columns)", and the rows on
#: which an argument is first compared with the data's columns (evenly spaced).
_MAX_COLUMNS, SCREEN_ROWS = 4, 64


def _name(value, parameter: str) -> str:
    """What one argument is called: a Series' name, a data frame's columns (also R's), the
    names of several factors, else the parameter's name."""
    if type(value) is np.ndarray:
        return parameter
    value = (None if is_r_dist(value) else from_r(value)) if is_r_object(value) else value
    if isinstance(value, pd.Series) and value.name is not None:
        return str(value.name)
    if isinstance(value, pd.DataFrame) and value.shape[1] > 0:
        names = [str(c) for c in value.columns]
        if len(names) > _MAX_COLUMNS:
            return f"[{', '.join(names[:_MAX_COLUMNS - 1])}, ... ({len(names)} columns)]"
        return names[0] if len(names) == 1 else f"[{', '.join(names)}]"
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, pd.Series) for v in value):
        return " and ".join(_name(v, f"{parameter}[{i}]") for i, v in enumerate(value))
    return parameter


def data_name_of(arguments: dict, names: tuple[str, ...], by: str | None = None) -> str:
    """R's ``data.name`` of a call's ``arguments``: ``"x and y"``, ``"x and y, controlling for
    z"``, ``"X by labels"``, or the samples of ``"*samples"`` (``"a, b and c"``)."""
    if names == ("*samples",):
        parts = [_name(s, f"samples[{i}]") for i, s in enumerate(arguments["samples"])]
        if len(parts) > _MAX_COLUMNS:
            return f"{len(parts)} samples"
        return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    parts = [_name(arguments.get(n), n) for n in names]
    text = parts[0] + "".join(f"{joint}{part}" for joint, part in zip(
        (" and ", ", controlling for "), parts[1:]))
    return text + (f" by {_name(arguments[by], by)}" if by is not None
                   and arguments.get(by) is not None else "")


def _is_label(value) -> bool:
    """A string, an integer (not a bool), or a tuple of them (a MultiIndex column)."""
    if isinstance(value, tuple):
        return bool(value) and all(map(_is_label, value))
    return isinstance(value, (str, int, np.integer)) and not isinstance(value, (bool, np.bool_))


def by_column_name(arguments: dict, data: str, columns: tuple[str, ...]) -> list[str]:
    """Replace the arguments of ``columns`` that name a column of the data frame
    ``arguments[data]`` by that column, and the data by the other columns (R's formula ``. ~
    stations``); returns the names replaced. A string always names a column, an integer when
    the frame's columns are numbered, a tuple when it has a level for each entry."""
    named = [name for name in columns if _is_label(arguments.get(name))]
    frame = from_r(arguments[data]) if named else None
    framed = isinstance(frame, pd.DataFrame)
    numbered = framed and any(_is_label(c) and not isinstance(c, str) for c in frame.columns)
    levels = frame.columns.nlevels if framed else 1
    named = [name for name in named if isinstance(arguments[name], str) or (
        len(arguments[name]) == levels > 1 if isinstance(arguments[name], tuple) else numbered)]
    if named and not framed:
        raise ValueError(
            f"`{named[0]}`={arguments[named[0]]!r} names a column, but `{data}` is not a data "
            f"frame: pass `{named[0]}` as an array, or `{data}` as a pandas DataFrame.")
    for name in named:
        if arguments[name] not in frame.columns:
            raise ValueError(f"`{name}`={arguments[name]!r} is not a column of `{data}` (its "
                             f"columns: {', '.join(map(repr, frame.columns))}).")
        if (count := list(frame.columns).count(arguments[name])) > 1:
            raise ValueError(f"`{name}`={arguments[name]!r} names {count} columns of `{data}`: "
                             "rename them so that the name says which one.")
    chosen = [arguments[name] for name in named]
    if len(set(chosen)) < len(chosen):
        raise ValueError(f"{' and '.join(f'`{n}`' for n in named)} name the same column "
                         f"{chosen[0]!r}.")
    if named:
        arguments.update({name: frame[arguments[name]] for name in named})
        arguments[data] = frame.drop(columns=chosen)
    return named


def refuse_repeated_names(arguments: dict, names) -> None:
    """From R: refuse a data frame with a column name twice (reticulate hands an R data frame
    over by column name: the columns of a repeated name arrive as the last of them, twice)."""
    for name in names:
        value = arguments.get(name)
        if isinstance(value, pd.DataFrame) and not value.columns.is_unique:
            twice = list(dict.fromkeys(value.columns[value.columns.duplicated()]))
            raise ValueError(
                f"`{name}` has the column name {', '.join(map(repr, twice))} more than once: "
                "reticulate hands an R data frame over by column name and keeps only the last "
                f"of those columns, under each of their names. Rename them in R "
                f"(names({name}) <- make.unique(names({name}))) before passing `{name}`.")


def _table(value):
    """A data frame as it is, anything else as a 2-D array (1-D: one column); None if no table."""
    if isinstance(value, pd.DataFrame):
        return value
    try:
        arr = value if type(value) is np.ndarray else np.asarray(value)
    except (TypeError, ValueError):
        return None
    return arr.reshape(-1, 1) if arr.ndim == 1 else arr


def _rows(table, index) -> np.ndarray:
    """A row (an int) or rows of a table as an array whose values compare (strings as
    objects)."""
    rows = table.iloc[index].to_numpy(dtype=object) if isinstance(table, pd.DataFrame) else (
        table[index])
    return rows.astype(object) if rows.dtype.kind in "US" else rows


def _column(table, j: int) -> np.ndarray:
    return table.iloc[:, j].to_numpy() if isinstance(table, pd.DataFrame) else table[:, j]


def _same_groups(labels: np.ndarray, column: np.ndarray) -> bool:
    """Whether ``column`` groups the rows as ``labels`` do: the same values, or values in one
    to one correspondence with a group of two rows or more (R's ``as.integer`` of a factor)."""
    if np.array_equal(labels, column):
        return True
    (codes, levels), (mine, values) = pd.factorize(labels), pd.factorize(column)
    if len(levels) != len(values) or len(levels) == len(labels):
        return False
    return np.unique(codes.astype(np.int64) * len(values) + mine).size == len(levels)


def _found(other, table, groups: bool) -> dict:
    """``{k: j}``: column k of ``other`` equal to (``groups``: grouping the rows as) column j
    of ``table``, the first such j. The first row rules out almost every column (no value in
    common: nothing equal); the rest are screened on :data:`SCREEN_ROWS` rows, then compared
    on all."""
    first, head = _rows(table, 0), _rows(other, 0)
    try:
        if not groups and not set(first.tolist()).intersection(head.tolist()):
            return {}
    except TypeError:  # values that cannot be hashed: compared below
        pass
    n, found, mine = table.shape[0], {}, None
    screen = np.arange(n) if n <= SCREEN_ROWS else np.linspace(0, n - 1, SCREEN_ROWS).astype(
        np.intp)
    theirs = _rows(other, screen)
    for k in range(other.shape[1]):
        head = theirs[:, k]
        same = head == head[0]
        recoded = groups and 1 < same.sum() < len(screen)  # two rows of a group, another group
        candidates = np.arange(table.shape[1]) if recoded else np.flatnonzero(first == head[0])
        if not candidates.size:
            continue
        mine = _rows(table, screen) if mine is None else mine
        ok = (mine[:, candidates] == head[:, None]).all(axis=0)
        if recoded:
            block = mine[:, candidates]
            ok |= (block[same] == block[0]).all(axis=0) & (block[~same] != block[0]).all(axis=0)
        test = _same_groups if groups else np.array_equal
        j = next((j for j in candidates[ok] if test(np.asarray(_column(other, k)),
                                                    _column(table, int(j)))), None)
        if j is not None:
            found[k] = int(j)
    return found


def check_columns_left_in(arguments: dict, data: str, names, where: str, *,
                          from_r: bool = False) -> None:
    """Say so when an argument of ``names`` is a column left in ``arguments[data]``: ``labels``
    grouping the rows as a column does (its values, or a recoding of them), or a variable
    (``y``, ``z``) equal to a column of ``x``. Left in, that column separates the groups (makes
    the variables dependent) by construction: ``energy_test(df, df["g"])`` gave p = 0.01 where
    ``energy_test(df, "g")`` gives 0.16. An argument carrying the column's name is that column:
    refused with the fix; values alone cannot tell it from data the groups separate perfectly:
    a ``UserWarning``. A variable with the same columns as ``x`` (``dcov(x, x)``) is neither."""
    table = _table(arguments.get(data)) if arguments.get(data) is not None and names else None
    if table is None or table.ndim != 2 or table.shape[0] < 2 or table.shape[1] < 2:
        return  # a column is left in other data only: one column is the data themselves
    for name in names:
        given, groups = arguments.get(name), name == "labels"
        if given is None or isinstance(given, str):
            continue
        for part in ([given.iloc[:, j] for j in range(given.shape[1])]
                     if isinstance(given, pd.DataFrame) else [given]):
            other = _table(part)
            if other is None or other.ndim != 2 or other.shape[0] != table.shape[0]:
                continue
            found = _found(other, table, groups)
            if not found or (not groups and len(found) == other.shape[1] == table.shape[1]):
                continue  # nothing left in; or dcov(x, x): the distance variance
            j = next(iter(found.values())) if groups else min(found.values())
            message = _left_in_message(name, data, table, j, where, groups, from_r)
            column = table.columns[j] if isinstance(table, pd.DataFrame) else None
            if column is not None and getattr(part, "name", None) is not None and (
                    part.name == column):
                raise ValueError(message)
            meant = ("the groups do separate that column (an outcome they determine)" if groups
                     else f"`{name}` is meant to be a column of `{data}`")
            warnings.warn(f"{message} If {meant}, ignore this warning.", UserWarning,
                          stacklevel=_caller_level())


def _left_in_message(name, data, table, j, where, groups, from_r) -> str:
    framed = isinstance(table, pd.DataFrame)
    called = (f"the column {table.columns[j]!r} of `{data}`" if framed
              else f"column {j} of `{data}` (counting from 0)")
    what = (f"`{name}` holds the groups of {called}: left in the data, that column separates "
            "the groups by construction, whatever the other columns say." if groups else
            f"`{name}` is {called}: left in `{data}`, it makes `{data}` and `{name}` dependent "
            "by construction, whatever the other columns say.")
    if framed:
        formula = f" (as R's formula `. ~ {table.columns[j]}` does)" if groups else ""
        return (f"{what} Pass the column's name, `{name}`={table.columns[j]!r}, which takes it "
                f"out of `{data}`{formula}, or drop it from `{data}`.")
    drop = f"{data}[, -{j + 1}] in R" if from_r else f"np.delete({data}, {j}, axis=1)"
    return f"{what} Drop it from `{data}` ({drop}) and pass `{name}` beside it ({where})."
