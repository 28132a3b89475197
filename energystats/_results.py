"""Results: frozen dataclasses printed as R prints an ``htest`` and in Jupyter as HTML tables;
:class:`ResultMixin` the root, :class:`TestResult` every test (it unpacks as scipy's results do),
:class:`ClusteringResult` every partition. A field is documented once, in the ``Attributes`` of
the class declaring it: a subclass's docstring gets its bases' entries when it is defined."""

from __future__ import annotations

import dataclasses
import html
import math
from dataclasses import dataclass, field, fields
from typing import Callable, NamedTuple

import numpy as np
import pandas as pd

__all__ = ["ClusteringResult", "FitPanel", "FittedReport", "NullPanel", "ReportsWhenFitted",
           "ResultMixin", "Sample", "Table", "TestResult", "attribute_entries",
           "compose_attributes", "format_pvalue", "shared_decimals", "table_html", "table_text"]

#: R's ``.Machine$double.eps`` (``format.pval`` prints smaller p-values as "< 2.2e-16"), the
#: rows of a table shown before "... more rows", the columns of a table formatted as p-values
_EPS, MAX_ROWS = float(np.finfo(float).eps), 20
_PVALUE_COLUMNS = ("pvalue", "pvalue_adjusted", "p-value", "adjusted p-value")
#: every HTML cell padded (the Sphinx theme gives cells none), numbers right-aligned, monospace
_CELL = "padding:0.15em 0.6em;white-space:nowrap;vertical-align:baseline"
_MONO = "font-family:var(--jp-code-font-family,monospace)"
_NUMBER_STYLE = f"{_CELL};text-align:right;{_MONO};font-variant-numeric:tabular-nums"
_TEXT_STYLE, _VALUE_STYLE = f"{_CELL};text-align:left", f"{_CELL};text-align:left;{_MONO}"
_TABLE = "<table style='border-collapse:collapse;margin:0.25em 0'>"
_BOLD = "<div style='font-weight:bold;margin-bottom:0.25em'>"


def format_pvalue(p: float) -> str:
    """R's ``format.pval(p, digits = 4)`` after "p-value": ``"= 0.001"`` or ``"< 2.2e-16"``."""
    return f"< {_EPS:.2g}" if p < _EPS else f"= {_number(p, 4)}"


def _number(value, digits: int = 5) -> str:
    """A number as R's ``format(value, digits)`` (significant digits, integers whole)."""
    if isinstance(value, (bool, np.bool_, int, np.integer)):
        return str(bool(value) if isinstance(value, (bool, np.bool_)) else int(value))
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        return "NaN" if math.isnan(value) else "Inf" if value > 0 else "-Inf"
    return f"{value:.{digits}g}"


def _format_value(value) -> str:
    if isinstance(value, (float, int, np.number, np.bool_, bool)):
        return _number(value)
    if isinstance(value, np.ndarray) and (value.ndim != 1 or value.size > 12):
        return f"array of shape {value.shape}"
    if isinstance(value, (tuple, list, np.ndarray)):
        return ", ".join(_format_value(v) for v in (
            value.tolist() if isinstance(value, np.ndarray) else value))
    if isinstance(value, dict):
        return ", ".join(f"{k} = {_format_value(v)}" for k, v in value.items())
    return str(value)


class Table(NamedTuple):
    """A result's table: its caption, the DataFrame, and the decimals of its number columns (an
    int for all: a matrix of one quantity; a dict for those it names: R's fixed decimals of
    ``disco``; else each column to the table's significant digits, aligned)."""

    caption: str
    frame: pd.DataFrame
    decimals: int | dict | None = None


def _decimals(value: float, digits: int) -> int:
    """Decimals showing ``value`` to ``digits`` significant digits, trailing zeros dropped."""
    target = float(f"{value:.{digits - 1}e}")
    sig = next(s for s in range(1, digits + 1) if float(f"{value:.{s - 1}e}") == target)
    return sig - 1 - math.floor(math.log10(abs(target)))


def _column_numbers(values: np.ndarray, digits: int = 4, decimals: int | None = None) -> list[str]:
    """A column as R's ``format(values, digits = 4)``: ``digits`` significant digits with the
    decimals the most demanding value needs (or ``decimals``); scientific past six decimals, when
    ``decimals`` leave a value fewer than three digits, or from 1e15; NaN blank."""
    finite = values[np.isfinite(values) & (values != 0)]
    if finite.size == 0:
        zero = "0" if decimals is None else f"{0.0:.{decimals}f}"
        return [zero if v == 0 else "" if math.isnan(v) else _number(v) for v in values]
    if decimals is None:
        decimals = max(_decimals(float(v), digits) for v in finite)
        fits = decimals <= 6
    else:
        fits = np.abs(finite).min() >= 10.0 ** (2 - decimals)
    fits = fits and np.abs(finite).max() < 1e15
    form = f".{max(decimals, 0)}f" if fits else f".{digits - 1}e"
    return [f"{v:{form}}" if np.isfinite(v) else "" if math.isnan(v) else _number(v)
            for v in values]


def shared_decimals(values: np.ndarray, digits: int) -> int:
    """The decimals of a table of one quantity: those its most demanding value needs."""
    finite = values[np.isfinite(values) & (values != 0)]
    return max((_decimals(float(v), digits) for v in finite.ravel()), default=0)


def _cells(frame: pd.DataFrame, digits: int, decimals) -> dict:
    """Each column's cells (p-values as R's format.pval, numbers in one format, missing blank)
    and whether it is right-aligned (numbers, not booleans, and p-values)."""
    out = {}
    for name in frame.columns:
        column, kind = frame[name], frame[name].dtype
        fixed = decimals if isinstance(decimals, int) else (decimals or {}).get(str(name))
        number = pd.api.types.is_numeric_dtype(kind) and not pd.api.types.is_bool_dtype(kind)
        if str(name) in _PVALUE_COLUMNS and (column < _EPS).any():
            cells = ["" if pd.isna(v) else format_pvalue(float(v)).removeprefix("= ")
                     for v in column]
        elif not number:
            cells = ["" if v is None else str(v) for v in column]
        elif pd.api.types.is_integer_dtype(kind):
            cells = [str(v) for v in column.tolist()]
        else:
            cells = _column_numbers(np.asarray(column, dtype=float), digits, fixed)
        out[name] = (cells, number or str(name) in _PVALUE_COLUMNS)
    return out


def _grid(frame: pd.DataFrame, max_rows: int, digits: int, decimals):
    """The header and body rows of a table's cells, the index first unless it is the default
    0, 1, ... without a name; each column's alignment (right: numbers, not booleans, and
    p-values; None: the index); the note of the rows not shown."""
    more = len(frame) - max_rows
    more = f"... {more} more rows (all in to_frame())" if more > 0 else ""
    frame = frame.iloc[:max_rows]
    cells = _cells(frame, digits, decimals)
    index = [] if isinstance(frame.index, pd.RangeIndex) and frame.index.name is None else [
        str(frame.index.name or "")] + [str(v) for v in frame.index]
    rows = [[str(name) for name in frame.columns]] + [[cells[name][0][r] for name in frame.columns]
                                                      for r in range(len(frame))]
    right = [None] * bool(index) + [cells[name][1] for name in frame.columns]
    return [index[r:r + 1] + row for r, row in enumerate(rows)], right, more


def table_text(frame: pd.DataFrame, *, max_rows: int = MAX_ROWS, digits: int = 4,
               decimals=None) -> list[str]:
    """The lines of ``frame`` as an aligned text table (numbers right-aligned, one format a
    column, ``decimals`` as :class:`Table` takes it, p-values as R's, text left-aligned)."""
    rows, right, more = _grid(frame, max_rows, digits, decimals)
    widths = [max(len(row[j]) for row in rows) for j in range(len(right))]
    return ["  ".join(v.rjust(w) if r else v.ljust(w) for v, w, r in zip(row, widths, right))
            .rstrip() for row in rows] + ([more] if more else [])


def table_html(frame: pd.DataFrame, *, max_rows: int = MAX_ROWS, digits: int = 4,
               decimals=None) -> str:
    """``frame`` as an HTML ``<table>``: :func:`table_text`'s cells, padded, numbers
    right-aligned in a monospace font with tabular figures."""
    rows, right, more = _grid(frame, max_rows, digits, decimals)
    html_rows = ["<tr>" + "".join(
        f"<{tag} style='{_NUMBER_STYLE if r else _TEXT_STYLE}'>{html.escape(v)}</{tag}>"
        for v, r in zip(row, right) for tag in ["th" if i == 0 or r is None else "td"])
        + "</tr>" for i, row in enumerate(rows)]
    foot = f"<div style='font-size:smaller'>{html.escape(more)}</div>" if more else ""
    return ("<table class='energystats-table' style='border-collapse:collapse;margin:0.25em 0'>"
            f"<thead>{html_rows[0]}</thead><tbody>{''.join(html_rows[1:])}</tbody></table>{foot}")


def _summary(rows) -> str:
    """The HTML table of a result's ``(name, value, monospace)`` rows."""
    return "".join(f"<tr><th style='{_TEXT_STYLE}'>{html.escape(name)}</th><td style='"
                   f"{_VALUE_STYLE if number else _TEXT_STYLE}'>{html.escape(value)}</td></tr>"
                   for name, value, number in rows)


# --- the Attributes of a docstring, composed from the bases' entries --------------------------

def _section(doc: str):
    """``doc``'s lines with an ``Attributes`` section (added at the end when it has none), the
    first and last lines of its entries and its indentation."""
    lines = doc.rstrip().splitlines()
    heads = [i for i in range(len(lines) - 1)
             if lines[i].strip() and set(lines[i + 1].strip()) == {"-"}]
    at = next((i for i in heads if lines[i].strip() == "Attributes"), None)
    if at is None:
        indent = next((line[: len(line) - len(line.lstrip())] for line in lines[1:]
                       if line.strip()), "")
        lines, at = lines + ["", f"{indent}Attributes", f"{indent}----------"], len(lines) + 1
    end = next((i for i in heads if i > at), len(lines))
    while end > at + 2 and not lines[end - 1].strip():
        end -= 1
    return lines, at + 2, end, lines[at][: len(lines[at]) - len(lines[at].lstrip())]


def attribute_entries(doc: str) -> list[tuple[frozenset, list[str]]]:
    """The entries of ``doc``'s ``Attributes``: the names each documents (``"mean, sd : float"``
    two) and its lines, without the section's indentation."""
    lines, start, end, indent = _section(doc)
    entries = []
    for line in lines[start:end]:
        if line.strip() and not line[len(indent) : len(indent) + 1].isspace():
            entries.append((frozenset(n.strip() for n in line.split(" : ")[0].split(",")),
                            [line[len(indent) :]]))
        elif entries:
            entries[-1][1].append(line[len(indent) :] if line.strip() else "")
    return entries


def compose_attributes(doc: str, head: list, tail: list) -> str:
    """``doc`` with the entries ``head`` first in its ``Attributes`` and ``tail`` last (the
    section added when it has none); an entry of ``doc`` for a base's field takes its place."""
    (lines, start, end, indent), own, used = _section(doc), attribute_entries(doc), []

    def placed(entries):
        out = []
        for names, body in entries:
            mine = [k for k, (theirs, _) in enumerate(own) if theirs & names and k not in used]
            used.extend(mine)
            out += [own[k] for k in mine] if mine else [(names, body)]
        return out

    first, last = placed(head), placed(tail)
    entries = first + [entry for k, entry in enumerate(own) if k not in used] + last
    body = [indent + line if line else "" for _, entry in entries for line in entry]
    return "\n".join(lines[:start] + body + lines[end:]) + doc[len(doc.rstrip()) :]


# --- the root, and the declared bases ---------------------------------------------------------

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
    A result prints ``_title`` (no equation numbers), its fields but ``_hidden`` ones, None and
    defaults, a test's ``_statistic_rows()``, ``_tables()`` (:class:`Table` s) and
    ``_extra_lines()``; ``_not_one_test`` says why ``plot_null_distribution`` draws nothing.
    """

    data_name: str | None = field(default=None, kw_only=True)
    n_omitted: int = field(default=0, kw_only=True)

    _title, _hidden, _digits = "", (), 4
    #: fields the title and data lines (and a test's statistic line) already show
    _header = ("data_name",)
    #: where this class's Attributes entries go in its subclasses' docstrings
    _doc_place = "tail"
    _not_one_test = "is not the result of a test"

    def __init_subclass__(cls, **kwargs):
        """Give the subclass's docstring the Attributes entries of its bases."""
        super().__init_subclass__(**kwargs)
        doc = cls.__dict__.get("__doc__") or ""
        cls._own_attributes = attribute_entries(doc)
        bases = [base for base in cls.__mro__[1:] if "_own_attributes" in vars(base)]
        if doc:
            cls.__doc__ = compose_attributes(doc, *(
                [e for base in bases if base._doc_place == place for e in base._own_attributes]
                for place in ("head", "tail")))

    def __iter__(self):
        """Only a test unpacks (``statistic, pvalue = result``): a ``TypeError`` here."""
        names = ", ".join(f.name for f in fields(self) if f.name != "data_name")
        raise TypeError(f"{type(self).__name__} is not a test, so it does not unpack into a "
                        f"statistic and a p-value: read its fields ({names}) or call to_dict().")

    def to_dict(self) -> dict:
        """Every field by name (arrays, tables and nested results as held, not copied)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def to_frame(self) -> pd.DataFrame:
        """One row of the scalar fields (numbers, strings, ``None``); the rest is in
        :meth:`to_dict`. Results with a table of their own return that table instead."""
        scalar = (str, bool, int, float, np.number, np.bool_)
        return pd.DataFrame([{f.name: getattr(self, f.name) for f in fields(self) if f.repr and (
            getattr(self, f.name) is None or isinstance(getattr(self, f.name), scalar))}])

    def _statistic_rows(self) -> list[tuple[str, str]]:
        """A test's statistic and p-value as ``(name, value)`` rows; none here."""
        return []

    def _statistic_line(self) -> str:
        """The line of :meth:`_statistic_rows` in the text, R's ``statistic, p-value``."""
        rows = self._statistic_rows()
        if not rows:
            return ""
        (label, value), (_, p) = rows
        return f"{label} = {value}, p-value {p if p.startswith('<') else '= ' + p}"

    def _details(self) -> list[tuple[str, str]]:
        """The fields worth printing: not in the header, not hidden, not None, not default."""
        values = [(f, getattr(self, f.name)) for f in fields(self) if f.repr
                  and f.name not in self._header and f.name not in self._hidden]
        return [(f.name, _format_value(v)) for f, v in values if v is not None
                and not (isinstance(v, float) and math.isnan(v)) and not _default(f, v)]

    def _tables(self) -> list:
        return []

    def _extra_lines(self) -> list[str]:
        return []

    def __repr__(self) -> str:
        lines = [self._title or type(self).__name__, ""]
        lines += [f"data:  {self.data_name}"] if self.data_name else []
        lines += [line for line in [self._statistic_line()] if line]
        lines += [f"{name}: {value}" for name, value in self._details()]
        for caption, frame, decimals in (Table(*table) for table in self._tables()):
            lines += ["", f"{caption}:"] + table_text(frame, digits=self._digits, decimals=decimals)
        extra = self._extra_lines()
        return "\n".join(lines + ([""] + extra if extra else []))

    def _repr_html_(self) -> str:
        rows = [("data", self.data_name, False)] if self.data_name else []
        rows += [(name, value, True) for name, value in self._statistic_rows()]
        body = _summary(rows + [(name, value, False) for name, value in self._details()])
        parts = [f"<div class='energystats-result' title='{html.escape(type(self).__name__)}'>",
                 f"{_BOLD}{html.escape(self._title or type(self).__name__)}</div>",
                 f"{_TABLE}<tbody>{body}</tbody></table>" if body else ""]
        for caption, frame, decimals in (Table(*table) for table in self._tables()):
            table = table_html(frame, digits=self._digits, decimals=decimals)
            parts.append(f"<div style='margin-top:0.5em'>{html.escape(caption)}</div>{table}")
        parts += [f"<div>{html.escape(line)}</div>" for line in self._extra_lines()]
        return "".join(parts) + "</div>"


ResultMixin._own_attributes = attribute_entries(ResultMixin.__doc__)


def _default(f: dataclasses.Field, value) -> bool:
    """Whether ``value`` is the field's default (``_details`` leaves it out)."""
    try:
        return f.default is not dataclasses.MISSING and bool(value == f.default)
    except (TypeError, ValueError):
        return False


@dataclass(frozen=True)
class NullPanel:
    """One panel of ``plot_null_distribution``: the statistic and its p-value against a resampled
    ``null`` or a reference ``density`` over ``support``, titled ``test``; ``name`` names it
    among several panels of one result (``test`` then titles the figure)."""

    test: str
    statistic_label: str
    statistic: float
    pvalue: float
    null_label: str
    null: np.ndarray | None = None
    density: Callable | None = None
    support: tuple[float, float] | None = None
    name: str | None = None


@dataclass(frozen=True)
class Sample:
    """The data passed to ``plot_gof``: its rows without missing values, the shape it was given
    in and its name (a column's or Series' name, else the result's data name)."""

    values: np.ndarray
    shape: tuple
    name: str

    def column(self, n_samples: int) -> np.ndarray:
        """The one variable of a univariate test, checked against its sample size."""
        return self.matrix(n_samples, None)[:, 0]

    def matrix(self, n_samples: int, n_features: int | None) -> np.ndarray:
        """The n x d data of a multivariate test (None: univariate), checked against its shape."""
        if self.values.shape[1] != (n_features or 1):
            raise ValueError("`x` must be one-dimensional, the data the test was run on, got "
                             f"shape {self.shape}." if n_features is None else f"`x` must have "
                             f"the {n_features} columns the test was run on, got shape "
                             f"{self.shape}.")
        if self.values.shape[0] != n_samples:
            raise ValueError(f"`x` has {self.values.shape[0]} values without missing ones, "
                             f"`result` was computed on {n_samples}: pass the data the test was "
                             "run on.")
        return self.values


@dataclass(frozen=True)
class FitPanel:
    """What ``plot_gof`` draws: ``sample`` (named ``name``) against ``distribution`` (frozen
    scipy.stats, ``label`` in the legend), QQ plot and distribution functions (``discrete``:
    probabilities and steps), titled ``summary``."""

    sample: np.ndarray
    name: str
    distribution: object
    label: str
    summary: str
    discrete: bool = False


@dataclass(frozen=True, repr=False)
class TestResult(ResultMixin):
    """The result of a hypothesis test: it unpacks as ``statistic, pvalue = result`` (as
    scipy's results do) and prints as R's ``htest``.

    Attributes
    ----------
    statistic : float
        The test statistic, under the name its printed line gives it.
    pvalue : float
        The p-value. Against a null drawn at random:
        (1 + #{null >= statistic}) / (n_resamples + 1), never 0; when every distinct
        resample was enumerated (``exact``): the share of them at or above the statistic;
        values equal to the statistic up to rounding count as ties. Against a reference
        distribution: its upper tail at the statistic.
    null_distribution : ndarray of shape (n_resamples,) or None
        The statistic of each resample (relabeling, permutation or sample drawn under the
        null hypothesis); None where the p-value comes from a reference distribution.
    n_resamples : int or None
        Resamples in ``null_distribution`` (all the distinct ones when ``exact``); 0 or None
        where the p-value comes from a reference distribution.
    exact : bool
        Whether every distinct resample was enumerated, so that the p-value is exact.
    """

    __test__ = False  # not a pytest test class, although its name starts with "Test"

    statistic: float
    pvalue: float
    null_distribution: np.ndarray | None = field(repr=False)
    n_resamples: int | None
    exact: bool = field(default=False, kw_only=True)

    _doc_place = "head"
    _header = ("data_name", "statistic", "pvalue", "statistic_name", "n_resamples", "exact")
    #: the statistic's name on the printed line, and what ``n_resamples`` counts
    _statistic_label, _resamples = "statistic", "permutations"

    def __iter__(self):
        """``statistic, pvalue = result``, as scipy's results unpack."""
        return iter((self.statistic, self.pvalue))

    def _pvalue_note(self) -> str:
        """What the p-value rests on, in brackets after it."""
        if not self.n_resamples:
            return ""
        return (f"exact: all {self.n_resamples} {self._resamples}" if self.exact
                else f"{self.n_resamples} {self._resamples}")

    def _statistic_rows(self) -> list[tuple[str, str]]:
        if np.ndim(self.statistic) != 0:  # several statistics: the result's table shows them
            return []
        note = self._pvalue_note()
        p = format_pvalue(float(self.pvalue)).removeprefix("= ") + (f" ({note})" if note else "")
        return [(self._statistic_label, _number(self.statistic)), ("p-value", p)]

    def _permutation_label(self, unit: str) -> str:
        """The legend of a permutation null of ``n_resamples`` ``unit``."""
        return (f"exact permutation null (all {self.n_resamples:,} {unit})" if self.exact
                else f"permutation null ({self.n_resamples:,} {unit})")

    def _null_panels(self) -> tuple[NullPanel, ...]:
        """What ``plot_null_distribution`` draws: the null distribution against the statistic,
        titled by the test; a test says more by overriding it."""
        return (NullPanel(self._title or type(self).__name__, self._statistic_label,
                          self.statistic, self.pvalue, self._pvalue_note(),
                          null=self.null_distribution),)

    def _fit_panel(self, sample: Sample) -> FitPanel | None:
        """What ``plot_gof`` draws for a goodness-of-fit test; None for one that fits none."""
        return None


@dataclass(frozen=True, repr=False)
class ClusteringResult(ResultMixin):
    """A partition of the observations into clusters; printed with the clusters' sizes.

    Attributes
    ----------
    labels : ndarray of shape (n,)
        The cluster of each observation, numbered 0, 1, ...; -1 on the rows dropped for
        missing values (``nan_policy="omit"``), so that the labels align with the data.
    """

    labels: np.ndarray = field(kw_only=True, repr=False)

    def _details(self) -> list[tuple[str, str]]:
        sizes = np.bincount(self.labels[self.labels >= 0]).tolist()
        return super()._details() + [("cluster sizes", ", ".join(map(str, sizes)))]


# --- fitted estimators ------------------------------------------------------------------------

class FittedReport(NamedTuple):
    """How a fitted clustering estimator prints, as R's ``print.kgroups``: a title, the
    clusters' sizes (and per-cluster terms), the lines of ``details`` and the parameters."""

    title: str
    clusters: pd.DataFrame
    details: list
    parameters: str

    def _rows(self) -> list[tuple[str, str]]:
        sizes = ", ".join(map(str, self.clusters["size"].tolist()))
        return [("groups", f"{len(self.clusters)} groups of sizes {sizes}")] + self.details

    def text(self) -> str:
        (_, headline), *details = self._rows()
        lines = [self.title, "", headline] + [f"{name}: {value}" for name, value in details]
        return "\n".join(lines + ["", "Clusters:", *table_text(self.clusters), "",
                                  self.parameters])

    def html(self) -> str:
        rows = [(name, value, False) for name, value in self._rows()]
        return (f"<div class='energystats-result'>{_BOLD}{html.escape(self.title)}</div>{_TABLE}"
                f"<tbody>{_summary(rows)}</tbody></table><div style='margin-top:0.5em'>Clusters"
                f"</div>{table_html(self.clusters)}<div style='margin-top:0.5em'><code>"
                f"{html.escape(self.parameters)}</code></div></div>")


class ReportsWhenFitted:
    """Mixin for a scikit-learn estimator: once fitted (``labels_``), ``print(model)`` and
    Jupyter show the :class:`FittedReport` of ``_report()``; ``repr`` stays scikit-learn's, so
    that an estimator nested in a pipeline or a search prints as scikit-learn prints it."""

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
