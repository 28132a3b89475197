"""The ``energystats`` command line.

``energystats describe --example iris --by Species`` prints the energy
distance between every pair of groups and the DISCO decomposition.
"""

from __future__ import annotations

import argparse
import json
import sys
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from ._dispersion import dispersion, energy_distance
from .datasets import EXAMPLES, load_example

__all__ = ["main"]


class CLIError(Exception):
    """A user error reported as one line on stderr with exit status 2."""


def _read_table(args) -> pd.DataFrame:
    if args.example is not None and args.csv is not None:
        raise CLIError("give either a CSV file or --example, not both")
    if args.example is not None:
        return load_example(args.example)
    if args.csv is None:
        raise CLIError("give a CSV file or --example iris")
    path = Path(args.csv)
    if not path.is_file():
        raise CLIError(f"file not found: {path}")
    try:
        return pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise CLIError(f"cannot read {path} as CSV: {exc}") from None


def _select(table: pd.DataFrame, args) -> tuple[pd.DataFrame, pd.Series]:
    if args.by not in table.columns:
        raise CLIError(f"no column {args.by!r} in the data (columns: {', '.join(map(str, table.columns))})")
    groups = table[args.by]
    if groups.isna().any():
        raise CLIError(f"column {args.by!r} has missing values")
    if args.columns:
        missing = [c for c in args.columns if c not in table.columns]
        if missing:
            raise CLIError(f"no column(s) {', '.join(map(repr, missing))} in the data")
        data = table[args.columns]
    else:
        data = table.drop(columns=[args.by]).select_dtypes(include="number")
        if data.shape[1] == 0:
            raise CLIError("the data have no numeric column besides the group column")
    bad = [c for c in data.columns if not pd.api.types.is_numeric_dtype(data[c])]
    if bad:
        raise CLIError(f"column(s) {', '.join(map(repr, bad))} are not numeric")
    if data.isna().any().any():
        cols = [c for c in data.columns if data[c].isna().any()]
        raise CLIError(f"column(s) {', '.join(map(repr, cols))} have missing values")
    return data, groups


def _describe(args) -> dict:
    table = _read_table(args)
    data, groups = _select(table, args)
    res = dispersion(data, groups, exponent=args.exponent)
    X = data.to_numpy(dtype=float)
    labels = groups.to_numpy()
    pairs = []
    for i, j in combinations(range(len(res.groups)), 2):
        a, b = res.groups[i], res.groups[j]
        pairs.append(
            {
                "group_a": str(a),
                "group_b": str(b),
                "energy_distance": energy_distance(X[labels == a], X[labels == b], exponent=args.exponent),
                "edist_statistic": float(res.pairwise[i, j]),
            }
        )
    return {
        "columns": [str(c) for c in data.columns],
        "by": args.by,
        "exponent": args.exponent,
        "groups": {str(g): int(n) for g, n in zip(res.groups, res.sizes)},
        "pairs": pairs,
        "W": res.W,
        "S": res.S,
        "T": res.T,
        "F": res.F,
    }


def _print_describe(out: dict) -> None:
    n = sum(out["groups"].values())
    print(f"Energy statistics of {n} points in {len(out['columns'])} variables, grouped by {out['by']!r}")
    print(f"semimetric: |x - y|^{out['exponent']:g} (Euclidean)")
    print("group sizes: " + ", ".join(f"{g} {m}" for g, m in out["groups"].items()))
    print()
    pairs = pd.DataFrame(out["pairs"]).rename(
        columns={
            "group_a": "group a",
            "group_b": "group b",
            "energy_distance": "energy distance E",
            "edist_statistic": "n1 n2/(n1+n2) E (R edist)",
        }
    )
    print(pairs.to_string(index=False, float_format=lambda v: f"{v:.6f}"))
    print()
    print("DISCO decomposition (R disco):")
    print(f"  W (within)      {out['W']:.6f}")
    print(f"  S (between)     {out['S']:.6f}")
    print(f"  T = S + W       {out['T']:.6f}")
    k = len(out["groups"])
    print(f"  F = [S/(k-1)] / [W/(N-k)] = {out['F']:.6f}   (k = {k}, N = {n})")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="energystats", description="Energy statistics and energy-based clustering."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("describe", help="energy distances between groups and the DISCO decomposition")
    d.add_argument("csv", nargs="?", help="CSV file with a header row")
    d.add_argument("--example", choices=EXAMPLES, help="use an embedded data set instead of a file")
    d.add_argument("--by", required=True, help="column holding the groups")
    d.add_argument("--columns", nargs="+", help="numeric columns to use (default: all numeric ones)")
    d.add_argument("--exponent", type=float, default=1.0, help="exponent alpha in (0, 2] (default 1)")
    d.add_argument("--json", action="store_true", help="print JSON instead of a report")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        out = _describe(args)
    except (CLIError, ValueError) as exc:
        print(f"energystats {args.command}: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out, indent=2, default=lambda v: v.item() if isinstance(v, np.generic) else str(v)))
    else:
        _print_describe(out)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
