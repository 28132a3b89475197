"""What the data are called: an argument naming a column of the data frame passed beside it
(``energy_test(quakes, "stations")``, R's and statsmodels' formulas), and the ``data_name`` of a
result (R's ``data.name``), written by the front door (:mod:`energystats._frontdoor`) from the
names the data carry (pandas Series and data frame columns) and the parameters' names.

Python has no ``substitute``: the caller's variables are never looked at (after ``y = x`` two
names hold one array); the caller says R's wording with ``data_name="..."``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._rbridge import from_r, is_r_dist, is_r_object

__all__ = ["by_column_name", "data_name_of"]

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
    """A string, or an integer (not a bool): what can name a data frame's column."""
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
    named = [name for name in named if isinstance(arguments[name], str) or numbered]
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
    chosen = [arguments[name] for name in named]
    if len(set(chosen)) < len(chosen):
        both = " and ".join(f"`{name}`" for name in named)
        raise ValueError(f"{both} name the same column {chosen[0]!r}.")
    for name in named:
        arguments[name] = frame[arguments[name]]
    arguments[data] = frame.drop(columns=chosen)
    return named
