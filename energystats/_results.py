"""Shared printing for the frozen ``...Result`` dataclasses.

Each result lists its scalar fields in a short text block (terminal) and an
HTML table (Jupyter); array fields are shown by shape unless a result
formats them itself through ``_extra_lines``.
"""

from __future__ import annotations

import html
from dataclasses import fields

import numpy as np

__all__ = ["ResultMixin"]


def _format_value(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    if isinstance(value, np.ndarray):
        if value.size <= 8:
            return np.array2string(value, precision=6, separator=", ")
        return f"array(shape={value.shape}, dtype={value.dtype})"
    return str(value)


class ResultMixin:
    """Readable ``repr`` and ``_repr_html_`` for frozen result dataclasses."""

    _title: str = ""

    def _rows(self) -> list[tuple[str, str]]:
        # ``n_omitted`` (rows dropped for missing values) is shown only when rows were dropped
        return [
            (f.name, _format_value(getattr(self, f.name)))
            for f in fields(self)
            if f.repr and not (f.name == "n_omitted" and getattr(self, f.name) == 0)
        ]

    def _extra_lines(self) -> list[str]:
        return []

    def __repr__(self) -> str:
        rows = self._rows()
        width = max(len(name) for name, _ in rows)
        lines = [f"{type(self).__name__}" + (f": {self._title}" if self._title else "")]
        lines += [f"  {name:<{width}} = {value}" for name, value in rows]
        extra = self._extra_lines()
        if extra:
            lines += [""] + [f"  {line}" for line in extra]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(name)}</th>"
            f"<td style='text-align:left'><code>{html.escape(value)}</code></td></tr>"
            for name, value in self._rows()
        )
        title = html.escape(type(self).__name__ + (f": {self._title}" if self._title else ""))
        extra = self._extra_lines()
        pre = f"<pre>{html.escape(chr(10).join(extra))}</pre>" if extra else ""
        return f"<div><strong>{title}</strong><table>{body}</table>{pre}</div>"
