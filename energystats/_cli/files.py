"""The command line's files: the output paths checked and the table read, its columns chosen
and checked, before anything is computed; the outputs written. A user error raises
:class:`CLIError` (one line on stderr, exit 2); an output that cannot be written
:class:`OutputError` (exit 1)."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import stat
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ..datasets import load_example

__all__ = ["CLIError", "OutputError", "prepare", "strict_json", "write_output"]

#: characters of the file read to sniff its delimiter
SNIFF_CHARS = 64 * 1024


class CLIError(Exception):
    """A user error reported as one line on stderr with exit status 2."""


class OutputError(Exception):
    """An output (a file, stdout) that cannot be written: one line on stderr, exit status 1."""


def prepare(args, *, need_by: bool):
    """The outputs checked, then the data, groups and rows kept (None for compare-r's battery)."""
    columns = args.columns
    # --columns a b data.csv: argparse gives the file's name to --columns; without a file or
    # --example, a last word that names an existing file (or -, stdin) is the file
    if args.csv is None and args.example is None and columns and len(columns) > 1:
        if columns[-1] == "-" or Path(columns[-1]).exists():
            args.csv = columns.pop()
    if getattr(args, "out", None) is not None:
        check_output(args.out, "--out", make_folders=True)
    if getattr(args, "plot", None) is not None:
        check_output(args.plot, "--plot")
        try:
            from matplotlib.backend_bases import FigureCanvasBase
        except ImportError:
            raise CLIError("--plot needs matplotlib (pip install matplotlib)") from None
        formats = FigureCanvasBase.get_supported_filetypes()
        if args.plot.suffix.lower().lstrip(".") not in formats:
            raise CLIError(f"--plot {args.plot}: name a file ending in one of "
                           f"{', '.join('.' + f for f in sorted(formats))}")
    table = read_table(args)
    return (None, None, None) if table is None else select(table, args, need_by=need_by)


def read_table(args) -> pd.DataFrame | None:
    """The table of a file, ``-`` (stdin), a pipe or device read to its end, or ``--example``."""
    if args.example is not None and args.csv is not None:
        raise CLIError("give either a CSV file or --example, not both")
    if args.example is not None:
        return load_example(args.example)
    if args.csv is None:
        if args.command != "compare-r":
            hint = f" (no file named {args.columns[-1]!r} was found)" if args.columns else ""
            raise CLIError(f"give a CSV file or --example iris{hint}")
        if args.by is not None or args.columns:
            raise CLIError("--by and --columns need a CSV file or --example")
        return None
    if args.csv == "-":
        return _parse_all(sys.stdin.read, "stdin")
    path = Path(args.csv)
    if path.is_dir():
        raise CLIError(f"{path} is a folder, not a CSV file")
    if not path.exists():
        link = " (a link to a missing file)" if path.is_symlink() else ""
        raise CLIError(f"file not found: {path}{link}")
    if not path.is_file():
        kind = {stat.S_IFSOCK: "a socket", stat.S_IFBLK: "a block device"}.get(
            stat.S_IFMT(path.stat().st_mode))
        if kind is not None:
            raise CLIError(f"{path} is {kind}, not a CSV file")
        return _parse_all(lambda: path.read_text(encoding="utf-8"), str(path))
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as file:
            sample = file.read(SNIFF_CHARS)
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror}") from None
    return _parse(path, sample, str(path))


def _parse_all(read, name: str) -> pd.DataFrame:
    """The table in the whole text ``read()`` returns (stdin, a pipe, a device)."""
    try:
        text = read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CLIError(f"cannot read {name}: {getattr(exc, 'strerror', None) or exc}") from None
    return _parse(io.StringIO(text), text[:SNIFF_CHARS], name)


def _parse(source, sample: str, name: str) -> pd.DataFrame:
    """The table in ``source``, its separator found in ``sample``."""
    try:
        return pd.read_csv(source, sep=_delimiter(sample, name))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, OSError) as exc:
        raise CLIError(f"cannot read {name} as CSV: {exc}") from None


def _delimiter(sample: str, name: str) -> str:
    """Tab for .tsv/.tab; else the sniffed one of , ; tab | space; else whitespace or comma."""
    if name.lower().endswith((".tsv", ".tab")):
        return "\t"
    if len(sample) == SNIFF_CHARS and "\n" in sample:
        sample = sample[: sample.rindex("\n")]  # whole lines only
    try:
        separator = csv.Sniffer().sniff(sample, delimiters=",;\t| ").delimiter
    except csv.Error:
        widths = {len(line.split()) for line in sample.splitlines() if line.strip()}
        return r"\s+" if len(widths) == 1 and widths.pop() > 1 else ","
    return r"\s+" if separator == " " else separator


def select(table: pd.DataFrame, args, *, need_by: bool):
    """The numeric data columns, the ``--by`` column (or None) and the rows kept (``--dropna``)."""
    by, columns = args.by, args.columns
    if need_by and by is None:
        raise CLIError("--by is required")
    if by is not None and by not in table.columns:
        raise CLIError(f"no column {by!r} in the data (columns: "
                       f"{', '.join(map(str, table.columns))})")
    if columns:
        twice = next((c for i, c in enumerate(columns) if c in columns[:i]), None)
        if twice is not None:
            raise CLIError(f"--columns lists {twice!r} twice")
        missing = [c for c in columns if c not in table.columns]
        if missing:
            raise CLIError(f"no column(s) {', '.join(map(repr, missing))} in the data")
        if by in columns:
            raise CLIError(f"--by column {by!r} cannot also be a data column")
    else:
        columns = [c for c in table.columns if c != by]
        if not columns:
            raise CLIError("the data have no column besides the group column")
    if len(table) == 0:
        raise CLIError("the data have no rows")
    data = _numeric(table[list(columns)], chosen=bool(args.columns))
    groups = None if by is None else table[by]
    used = data if groups is None else pd.concat([data, groups], axis=1)
    missing = used.isna().to_numpy().any(axis=1)
    if missing.any() and not args.dropna:
        names = ", ".join(repr(c) for c in used.columns if used[c].isna().any())
        raise CLIError(f"column(s) {names} have missing values (in {missing.sum()} of "
                       f"{len(table)} rows); --dropna drops those rows")
    if missing.all():
        raise CLIError(f"no rows left: each of the {len(table)} rows has a missing value in the "
                       "columns used")
    return data[~missing], None if groups is None else groups[~missing], ~missing


def _numeric(table: pd.DataFrame, *, chosen: bool) -> pd.DataFrame:
    """``table`` as floats, or a CLIError naming each column that is not (booleans are not)."""
    columns, problems = {}, {}
    for name, column in table.items():
        if pd.api.types.is_bool_dtype(column):
            problems[name] = "True/False; write it as 0/1"
            continue
        values = pd.to_numeric(column, errors="coerce")
        bad = (values.isna() & column.notna()).to_numpy()
        if column.dtype == object:  # True/False among missing values: to_numeric takes them for 1/0
            bad = bad | column.map(lambda v: isinstance(v, (bool, np.bool_))).to_numpy(dtype=bool)
        if bad.any():
            row = int(np.argmax(bad))
            problems[name] = f"{column.iloc[row]!r} in row {row + 1}"
        else:
            columns[name] = values.astype(float)
    if not problems:
        return pd.DataFrame(columns, index=table.index)
    whys = "; ".join(f"{name!r}: {why}" for name, why in problems.items())
    message = (f"column {next(iter(problems))!r} is not numeric ({next(iter(problems.values()))})"
               if len(problems) == 1 else
               f"columns {', '.join(map(repr, problems))} are not numeric ({whys})")
    hint = "; choose the data columns with --columns, or name a column of labels with --by"
    raise CLIError(message + ("" if chosen else hint))


def check_output(path: Path, option: str, *, make_folders: bool = False) -> None:
    """A CLIError before computing if ``path`` cannot be written (tried: permissions don't tell)."""
    if path.is_dir():
        raise CLIError(f"{option} {path} is a folder, not a file")
    folder = path.parent
    while make_folders and not folder.exists():
        folder = folder.parent
    if not folder.exists():
        raise CLIError(f"{option} {path}: the folder {folder} does not exist")
    if not folder.is_dir():
        raise CLIError(f"{option} {path}: {folder} is not a folder")
    # leaving no trace: an existing file is opened to append nothing; a new one or a folder
    # removed; a device or a named pipe, which opening could block on, is left to the write
    try:
        if folder != path.parent:
            os.rmdir(tempfile.mkdtemp(dir=folder))
        elif not path.exists():
            open(path, "xb").close()
            path.unlink()
        elif path.is_file():
            open(path, "ab").close()
    except OSError as exc:
        raise CLIError(f"{option} {path}: cannot write there ({exc.strerror or exc})") from None


def write_output(path: Path, option: str, write) -> None:
    """Call ``write()``, which writes ``path``; an ``OSError`` becomes an :class:`OutputError`."""
    try:
        write()
    except OSError as exc:
        raise OutputError(f"{option} {path}: cannot write it ({exc.strerror or exc})") from None


def strict_json(out: dict) -> str:
    """``out`` as JSON, NaN and infinities as null, listed under ``"non_finite"`` by path."""
    found = {}

    def clean(value, path: str):
        if isinstance(value, dict):
            return {k: clean(v, f"{path}.{k}" if path else str(k)) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [clean(v, f"{path}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, (float, np.floating)) and not math.isfinite(value):
            found[path] = str(float(value))
            return None
        return value

    out = clean(out, "")
    if found:
        out["non_finite"] = found
    return json.dumps(out, indent=2, allow_nan=False,
                      default=lambda v: v.item() if isinstance(v, np.generic) else str(v))
