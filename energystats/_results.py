"""What every frozen ``...Result`` dataclass shares: unpacking, conversion and printing.

A result prints as R prints an ``htest``: a title, ``data:`` naming what was passed, the
statistic with its name and the p-value (R's ``format.pval``) with the resamples behind it,
then the fields that carry something (``None`` and default values are left out), the
result's tables and notes. In Jupyter the same content is HTML, its tables real
``<table>`` elements with right-aligned monospace numbers in padded cells.

:class:`ResultMixin` is the root of every result; the declared bases of
``_result_bases`` derive from it: ``TestResult`` (a test: statistic, p-value, null
distribution) and ``ClusteringResult`` (a partition: labels). A result is a test when it is
a ``TestResult``: it unpacks as scipy's results do (``statistic, pvalue = result``); any
other result refuses to unpack with a ``TypeError`` naming what to read instead.
``to_dict()`` gives every field; ``to_frame()`` one row of the scalar fields, or the
result's table where it has one.

A field is documented once, in the ``Attributes`` of the class that declares it: every
subclass's docstring receives its bases' entries (``_result_docs.compose_attributes``, run
when the subclass is defined), first (a base whose ``_doc_place`` is ``"head"``: a test's statistic
and p-value) or last (``"tail"``: the omitted rows, the data's name), except the entries
of the fields the subclass documents itself.

A result adds a table by overriding ``_tables()`` (a list of :class:`Table`, or of
``(caption, frame)`` pairs): :func:`table_text` and :func:`table_html` render it in both
forms, each column in one number format, p-value columns (``pvalue``, ``pvalue_adjusted``,
``p-value``) as R's ``format.pval``, missing cells blank (as R prints an analysis of
variance table).

``data_name`` (R's ``data.name``) is filled by the front door (:mod:`energystats._frontdoor`)
of every public function returning a result: pandas names and columns, else the parameter names.
"""

from __future__ import annotations

import dataclasses
import html
import math
from dataclasses import dataclass, field, fields
from typing import NamedTuple

import numpy as np
import pandas as pd

from ._result_docs import attribute_entries, compose_attributes

__all__ = [
    "FittedReport",
    "ReportsWhenFitted",
    "ResultMixin",
    "Table",
    "format_pvalue",
    "shared_decimals",
    "table_html",
    "table_text",
]

#: R's ``.Machine$double.eps``: ``format.pval`` prints smaller p-values as "< 2.2e-16".
_EPS = float(np.finfo(float).eps)
#: Columns of a table formatted as p-values.
_PVALUE_COLUMNS = ("pvalue", "pvalue_adjusted", "p-value", "adjusted p-value")
#: Rows of a table shown before "... more rows" (all of them are in ``to_frame()``).
MAX_ROWS = 20

#: every cell of the HTML tables: padded, so that neighbouring numbers never run together
#: where the page's style sheet gives cells no padding (the Sphinx theme)
_CELL = "padding:0.15em 0.6em;white-space:nowrap;vertical-align:baseline"
_NUMBER_STYLE = (
    f"{_CELL};text-align:right;font-family:var(--jp-code-font-family,monospace);"
    "font-variant-numeric:tabular-nums"
)
_TEXT_STYLE = f"{_CELL};text-align:left"
#: a number beside its name (the summary of a result): monospace, left-aligned
_VALUE_STYLE = f"{_CELL};text-align:left;font-family:var(--jp-code-font-family,monospace)"


def format_pvalue(p: float) -> str:
    """R's ``format.pval(p, digits = 4)`` after "p-value": ``"= 0.001"`` or ``"< 2.2e-16"``."""
    if p < _EPS:
        return f"< {_EPS:.2g}"
    return f"= {_number(p, 4)}"


def _number(value, digits: int = 5) -> str:
    """A number as R's ``format(value, digits)`` (significant digits, integers whole)."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    return f"{value:.{digits}g}"


def _format_value(value) -> str:
    if isinstance(value, (float, int, np.number, np.bool_, bool)):
        return _number(value)
    if isinstance(value, np.ndarray):
        if value.ndim == 1 and value.size <= 12:
            return ", ".join(_format_value(v) for v in value.tolist())
        return f"array of shape {value.shape}"
    if isinstance(value, (tuple, list)):
        return ", ".join(_format_value(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} = {_format_value(v)}" for k, v in value.items())
    return str(value)


def _is_scalar(value) -> bool:
    return value is None or isinstance(value, (str, bool, int, float, np.number, np.bool_))


# ---------------------------------------------------------------------------------------
# tables


class Table(NamedTuple):
    """A result's table: its caption, the DataFrame, and the decimals of its numbers.

    ``decimals`` fixes the format of number columns: an int for all of them (a matrix of one
    quantity, whose columns must read alike), a dict for the columns it names (R's fixed
    decimals of ``disco``). The other number columns show each value to the table's
    significant digits, all with the decimals that the most demanding value needs.
    """

    caption: str
    frame: pd.DataFrame
    decimals: int | dict | None = None


def _cells(frame: pd.DataFrame, digits: int = 4, decimals=None) -> dict[str, list[str]]:
    """The formatted cells of each column: p-values as R's format.pval, numbers in one
    format per column (:func:`_column_numbers`), missing values blank."""
    out = {}
    for name in frame.columns:
        column = frame[name]
        fixed = decimals if isinstance(decimals, int) else (decimals or {}).get(str(name))
        if str(name) in _PVALUE_COLUMNS and (column < _EPS).any():
            out[name] = ["" if pd.isna(v) else format_pvalue(float(v)).removeprefix("= ")
                         for v in column]
        elif (pd.api.types.is_bool_dtype(column.dtype)
              or not pd.api.types.is_numeric_dtype(column.dtype)):
            out[name] = ["" if v is None else str(v) for v in column]
        elif pd.api.types.is_integer_dtype(column.dtype):
            out[name] = [str(v) for v in column.tolist()]
        else:
            out[name] = _column_numbers(np.asarray(column, dtype=float), digits, fixed)
    return out


def _decimals(value: float, digits: int) -> int:
    """The decimals that show ``value`` to ``digits`` significant digits, trailing zeros
    dropped (R's ``formatReal``)."""
    target = float(f"{value:.{digits - 1}e}")
    for sig in range(1, digits + 1):
        if float(f"{value:.{sig - 1}e}") == target:
            break
    return sig - 1 - math.floor(math.log10(abs(target)))


def _special(value: float) -> str:
    """A value that is not a finite number: blank when missing, else R's ``Inf``."""
    return "" if math.isnan(value) else _number(value)


def _column_numbers(values: np.ndarray, digits: int = 4, decimals: int | None = None) -> list[str]:
    """A column of numbers in one format, as R's ``format(values, digits = 4)``: each value
    to ``digits`` significant digits, all with the decimals the most demanding one needs (so
    that the points align), or with the ``decimals`` given; scientific for all when that is
    more than six decimals, when the given decimals would leave a value fewer than three
    significant digits, or when a value is 1e15 or more."""
    finite = values[np.isfinite(values) & (values != 0)]
    if finite.size == 0:
        zero = "0" if decimals is None else f"{0.0:.{decimals}f}"
        return [zero if v == 0 else _special(v) for v in values]
    if decimals is None:
        decimals = max(_decimals(float(v), digits) for v in finite)
        fits = decimals <= 6
    else:
        fits = np.abs(finite).min() >= 10.0 ** (2 - decimals)
    if not fits or np.abs(finite).max() >= 1e15:
        return [f"{v:.{digits - 1}e}" if np.isfinite(v) else _special(v) for v in values]
    return [f"{v:.{max(decimals, 0)}f}" if np.isfinite(v) else _special(v) for v in values]


def shared_decimals(values: np.ndarray, digits: int) -> int:
    """The decimals of a table whose cells are one quantity: those that show its most
    demanding value to ``digits`` significant digits (the :class:`Table` of a matrix)."""
    finite = values[np.isfinite(values) & (values != 0)]
    return max((_decimals(float(v), digits) for v in finite.ravel()), default=0)


def _right_aligned(frame: pd.DataFrame, name) -> bool:
    """Whether a column is printed right-aligned: numbers (not booleans) and p-values."""
    column = frame[name]
    kind = column.dtype
    number = pd.api.types.is_numeric_dtype(kind) and not pd.api.types.is_bool_dtype(kind)
    return number or str(name) in _PVALUE_COLUMNS


def _shown(frame: pd.DataFrame, max_rows: int) -> tuple[pd.DataFrame, str]:
    if len(frame) <= max_rows:
        return frame, ""
    return frame.iloc[:max_rows], f"... {len(frame) - max_rows} more rows (all in to_frame())"


def _shows_index(frame: pd.DataFrame) -> bool:
    """An index is printed unless it is the default 0, 1, ... without a name."""
    return not (isinstance(frame.index, pd.RangeIndex) and frame.index.name is None)


def table_text(
    frame: pd.DataFrame, *, max_rows: int = MAX_ROWS, digits: int = 4, decimals=None
) -> list[str]:
    """The lines of ``frame`` as an aligned text table: numbers right-aligned, one format a
    column (``decimals`` as :class:`Table` takes it), p-value columns as R's
    ``format.pval``, text left-aligned, missing values blank."""
    frame, more = _shown(frame, max_rows)
    cells = _cells(frame, digits, decimals)
    show_index = _shows_index(frame)
    index = [str(v) for v in frame.index] if show_index else []
    head = [str(frame.index.name or "")] if show_index else []
    columns = [[str(name)] + cells[name] for name in frame.columns]
    widths = [max(len(v) for v in col) for col in columns]
    index_width = max((len(v) for v in head + index), default=0)
    lines = []
    for r in range(len(frame) + 1):
        parts = [((head + index)[r]).ljust(index_width)] if show_index else []
        for col, width, name in zip(columns, widths, frame.columns):
            value = col[r]
            parts.append(value.rjust(width) if _right_aligned(frame, name) else value.ljust(width))
        lines.append("  ".join(parts).rstrip())
    return lines + ([more] if more else [])


def table_html(
    frame: pd.DataFrame, *, max_rows: int = MAX_ROWS, digits: int = 4, decimals=None
) -> str:
    """``frame`` as an HTML ``<table>``: the cells of :func:`table_text`, padded, numbers
    right-aligned in a monospace font with tabular figures, so that columns align and
    neighbouring cells stay apart in JupyterLab and in the Sphinx docs."""
    frame, more = _shown(frame, max_rows)
    cells = _cells(frame, digits, decimals)
    show_index = _shows_index(frame)
    styles = {
        name: _NUMBER_STYLE if _right_aligned(frame, name) else _TEXT_STYLE
        for name in frame.columns
    }
    head = "".join(
        f"<th style='{styles[name]}'>{html.escape(str(name))}</th>" for name in frame.columns
    )
    if show_index:
        head = f"<th style='{_TEXT_STYLE}'>{html.escape(str(frame.index.name or ''))}</th>" + head
    rows = []
    for r in range(len(frame)):
        row = "".join(
            f"<td style='{styles[name]}'>{html.escape(cells[name][r])}</td>"
            for name in frame.columns
        )
        if show_index:
            row = f"<th style='{_TEXT_STYLE}'>{html.escape(str(frame.index[r]))}</th>" + row
        rows.append(f"<tr>{row}</tr>")
    foot = f"<div style='font-size:smaller'>{html.escape(more)}</div>" if more else ""
    return (
        "<table class='energystats-table' style='border-collapse:collapse;margin:0.25em 0'>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>{foot}"
    )


# ---------------------------------------------------------------------------------------
# the root


@dataclass(frozen=True, repr=False)
class ResultMixin:
    """The root of every result: unpacking, ``to_dict``, ``to_frame`` and R-style printing.

    Attributes
    ----------
    n_omitted : int
        Rows dropped for missing values (``nan_policy="omit"``); 0 when none was.
    data_name : str or None
        What was passed, as R's ``data.name``: ``"mag and stations"`` (pandas names and
        columns, else the parameter names, ``"x and y"``).

    Notes
    -----
    A result customises its printing with class attributes and methods: ``_title`` (the
    title, a str or a property: what the result is, no equation numbers); ``_hidden``
    (fields left out of the printed details, beyond ``None`` and defaults); ``_tables()``
    (:class:`Table` s printed as tables, numbers to ``_digits`` significant digits);
    ``_extra_lines()`` (notes printed last); ``_not_one_test`` (why
    ``plot_null_distribution`` draws nothing for it, and what draws it). A test adds its
    statistic line (``TestResult``).
    """

    data_name: str | None = field(default=None, kw_only=True)
    n_omitted: int = field(default=0, kw_only=True)

    _title = ""
    _hidden = ()
    #: significant digits of the numbers in the printed tables
    _digits = 4
    #: fields the title and data lines (and a test's statistic line) already show
    _header = ("data_name",)
    #: where the entries of this class's Attributes go in its subclasses' docstrings
    _doc_place = "tail"
    #: what plot_null_distribution says of a result that is not one test
    _not_one_test = "is not the result of a test"

    def __init_subclass__(cls, **kwargs):
        """Give the subclass's docstring the Attributes entries of its bases."""
        super().__init_subclass__(**kwargs)
        doc = cls.__dict__.get("__doc__") or ""
        cls._own_attributes = attribute_entries(doc)
        bases = [base for base in cls.__mro__[1:] if "_own_attributes" in vars(base)]
        if doc:
            head = [e for base in bases if base._doc_place == "head" for e in base._own_attributes]
            tail = [e for base in bases if base._doc_place == "tail" for e in base._own_attributes]
            cls.__doc__ = compose_attributes(doc, head, tail)

    # --- scipy's behaviour -------------------------------------------------------------

    def __iter__(self):
        """Only a test unpacks (``statistic, pvalue = result``): a ``TypeError`` here."""
        names = ", ".join(f.name for f in fields(self) if f.name != "data_name")
        raise TypeError(
            f"{type(self).__name__} is not a test, so it does not unpack into a statistic and a "
            f"p-value: read its fields ({names}) or call to_dict()."
        )

    def to_dict(self) -> dict:
        """Every field by name (arrays, tables and nested results as held, not copied)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def to_frame(self) -> pd.DataFrame:
        """One row of the scalar fields (numbers, strings, ``None``); the arrays, tables
        and nested results are in :meth:`to_dict`. Results with a table of their own
        return that table instead."""
        row = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.repr and _is_scalar(getattr(self, f.name))
        }
        return pd.DataFrame([row])

    # --- printing ----------------------------------------------------------------------

    def _statistic_line(self) -> str:
        """The statistic and p-value line of a test's text; none here."""
        return ""

    def _statistic_rows(self) -> list[tuple[str, str]]:
        """The statistic and p-value rows of a test's HTML summary; none here."""
        return []

    def _details(self) -> list[tuple[str, str]]:
        """The fields worth printing: not in the header, not hidden, not None, not default."""
        rows = []
        for f in fields(self):
            if not f.repr or f.name in self._header or f.name in self._hidden:
                continue
            value = getattr(self, f.name)
            if value is None or (f.default is not dataclasses.MISSING and _equal(value, f.default)):
                continue
            if isinstance(value, float) and math.isnan(value):
                continue
            rows.append((f.name, _format_value(value)))
        return rows

    def _tables(self) -> list:
        return []

    def _extra_lines(self) -> list[str]:
        return []

    def __repr__(self) -> str:
        lines = [self._title or type(self).__name__, ""]
        if self.data_name:
            lines.append(f"data:  {self.data_name}")
        statistic = self._statistic_line()
        if statistic:
            lines.append(statistic)
        lines += [f"{name}: {value}" for name, value in self._details()]
        for caption, frame, decimals in (Table(*table) for table in self._tables()):
            lines += ["", f"{caption}:"] + table_text(frame, digits=self._digits, decimals=decimals)
        extra = self._extra_lines()
        if extra:
            lines += [""] + extra
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        title = html.escape(self._title or type(self).__name__)
        rows = [("data", self.data_name, False)] if self.data_name else []
        rows += [(name, value, True) for name, value in self._statistic_rows()]
        rows += [(name, value, False) for name, value in self._details()]
        body = "".join(
            f"<tr><th style='{_TEXT_STYLE}'>{html.escape(name)}</th>"
            f"<td style='{_VALUE_STYLE if number else _TEXT_STYLE}'>{html.escape(value)}</td></tr>"
            for name, value, number in rows
        )
        parts = [
            f"<div class='energystats-result' title='{html.escape(type(self).__name__)}'>",
            f"<div style='font-weight:bold;margin-bottom:0.25em'>{title}</div>",
            f"<table style='border-collapse:collapse;margin:0.25em 0'><tbody>{body}</tbody></table>"
            if body
            else "",
        ]
        for caption, frame, decimals in (Table(*table) for table in self._tables()):
            table = table_html(frame, digits=self._digits, decimals=decimals)
            parts.append(f"<div style='margin-top:0.5em'>{html.escape(caption)}</div>{table}")
        parts += [f"<div>{html.escape(line)}</div>" for line in self._extra_lines()]
        return "".join(parts) + "</div>"


ResultMixin._own_attributes = attribute_entries(ResultMixin.__doc__)


def _equal(value, default) -> bool:
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False


# ---------------------------------------------------------------------------------------
# fitted estimators


class FittedReport:
    """How a fitted clustering estimator prints, as R's ``print.kgroups``: a title, the
    clusters' sizes (and per-cluster terms when known) and the lines of ``details``.

    The estimator keeps scikit-learn's parameter repr until it is fitted; then ``repr``
    and Jupyter's HTML show this report, the parameters on its last line.
    """

    def __init__(self, title: str, clusters: pd.DataFrame, details: list[tuple[str, str]],
                 parameters: str):
        self.title, self.clusters = title, clusters
        self.details, self.parameters = details, parameters

    def _headline(self) -> str:
        sizes = self.clusters["size"].tolist()
        return f"{len(sizes)} groups of sizes {', '.join(map(str, sizes))}"

    def text(self) -> str:
        lines = [self.title, "", self._headline()]
        lines += [f"{name}: {value}" for name, value in self.details]
        lines += ["", "Clusters:"] + table_text(self.clusters) + ["", self.parameters]
        return "\n".join(lines)

    def html(self) -> str:
        rows = [("groups", self._headline())] + self.details
        body = "".join(
            f"<tr><th style='{_TEXT_STYLE}'>{html.escape(name)}</th>"
            f"<td style='{_TEXT_STYLE}'>{html.escape(value)}</td></tr>"
            for name, value in rows
        )
        return (
            "<div class='energystats-result'>"
            f"<div style='font-weight:bold;margin-bottom:0.25em'>{html.escape(self.title)}</div>"
            "<table style='border-collapse:collapse;margin:0.25em 0'>"
            f"<tbody>{body}</tbody></table>"
            f"<div style='margin-top:0.5em'>Clusters</div>{table_html(self.clusters)}"
            f"<div style='margin-top:0.5em'><code>{html.escape(self.parameters)}</code></div>"
            "</div>"
        )


class ReportsWhenFitted:
    """Mixin for a scikit-learn estimator: once fitted (``labels_``), ``print(model)`` and
    Jupyter (and IPython, through ``_repr_mimebundle_``) show the :class:`FittedReport` of
    ``_report()``. ``repr`` stays scikit-learn's parameter repr, so that an estimator nested
    in a pipeline or a search prints as scikit-learn prints it."""

    def _is_fitted(self) -> bool:
        return hasattr(self, "labels_")

    def _parameters(self) -> str:
        return super().__repr__()

    def __str__(self) -> str:
        return self._report().text() if self._is_fitted() else repr(self)

    def _repr_mimebundle_(self, **kwargs):
        if not self._is_fitted():
            return super()._repr_mimebundle_(**kwargs)
        report = self._report()
        return {"text/plain": report.text(), "text/html": report.html()}
