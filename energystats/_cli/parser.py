"""The command line's options: the parser of every subcommand, and the library's messages in
its words (an option named where the library names an argument)."""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path

from ..datasets import EXAMPLES

__all__ = ["build_parser", "cli_message", "mebibytes"]


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``energystats`` and its subcommands."""
    parser = argparse.ArgumentParser(
        prog="energystats", description="Energy statistics and energy-based clustering."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p, by_help):
        p.add_argument(
            "csv",
            nargs="?",
            help="file with a header row, separated by commas, semicolons, tabs, | or spaces "
            "('-': stdin)",
        )
        p.add_argument(
            "--example", choices=EXAMPLES, help="use an embedded data set instead of a file"
        )
        p.add_argument("--by", help=by_help)
        p.add_argument("--columns", nargs="+", help="numeric data columns (default: every column "
                       "except --by; all must be numeric); a file named last is the file")
        p.add_argument(
            "--dropna",
            action="store_true",
            help="drop the rows with a missing value in the data or --by columns",
        )
        p.add_argument("--json", action="store_true", help="print JSON instead of a report")
        p.add_argument(
            "--working-memory",
            type=mebibytes,
            metavar="MiB",
            help="memory budget in MiB (default 1024): larger n x n matrices are streamed in tiles",
        )
        return p

    def exponent(p):
        p.add_argument(
            "--exponent", type=float, default=1.0, help="exponent alpha in (0, 2] (default 1)"
        )

    def resampling(p, default):
        p.add_argument(
            "--n-resamples", type=int, default=default, help=f"resamples (default {default})"
        )
        p.add_argument("--seed", type=int, default=None, help="random seed")
        p.add_argument(
            "--no-progress", dest="progress", action="store_false", help="no progress bar"
        )

    exponent(
        common(
            sub.add_parser(
                "describe", help="energy distances between groups and the DISCO decomposition"
            ),
            "column holding the groups (required)",
        )
    )
    t = common(
        sub.add_parser("test", help="k-sample energy permutation test of equal distributions"),
        "column holding the groups (required)",
    )
    exponent(t)
    t.add_argument(
        "--statistic", choices=("S", "E", "F"), default="S", help="test statistic (default S)"
    )
    t.add_argument(
        "--projections",
        type=int,
        metavar="L",
        help="estimate distances from L random projections (large n; the level stays exact)",
    )
    resampling(t, 999)
    c = common(
        sub.add_parser("cluster", help="kernel k-groups clustering"),
        "column of known classes to score the clusters against",
    )
    c.add_argument("-k", "--n-clusters", type=int, required=True, help="number of clusters")
    c.add_argument("--algorithm", choices=("hartigan", "lloyd", "r-kgroups"), default="hartigan")
    c.add_argument("--n-init", type=int, default=10, help="restarts (default 10)")
    c.add_argument(
        "--nystroem",
        type=int,
        metavar="M",
        help="cluster Nystroem features from M landmarks (large n)",
    )
    c.add_argument(
        "--cluster-test",
        action="store_true",
        help="also test for cluster structure against one Gaussian",
    )
    c.add_argument(
        "--compare-r",
        action="store_true",
        help="also compare with R's energy on the clusters found, when R is present",
    )
    exponent(c)
    resampling(c, 199)
    common(
        sub.add_parser("split1d", help="exact two-group split of one variable"),
        "column of known classes to score the split against",
    )
    r = common(
        sub.add_parser(
            "compare-r",
            help="energystats and R's energy side by side (a battery of data sets, or the CSV's "
            "groups)",
        ),
        "column holding the groups (required with a CSV or --example)",
    )
    r.add_argument(
        "--n-resamples", type=int, default=999, help="resamples of eqdist.etest (default 999)"
    )
    r.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    r.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    r.add_argument("--out", type=Path, help="also write the table as markdown to this file")
    h = common(
        sub.add_parser("hclust", help="energy hierarchical clustering and its significant splits"),
        "column of known classes to score the clusters against",
    )
    h.add_argument(
        "--alpha", type=float, default=0.05, help="family-wise error rate (default 0.05)"
    )
    h.add_argument(
        "--plot", type=Path, metavar="FILE", help="write the dendrogram (PNG, SVG or PDF)"
    )
    exponent(h)
    resampling(h, 199)
    m = common(
        sub.add_parser("normality", help="energy test of multivariate normality"),
        "column of groups, each tested on its own",
    )
    resampling(m, 999)
    return parser


def mebibytes(text: str) -> float:
    """``--working-memory``: a number of MiB whose bytes a float can hold (the library checks
    that it is positive)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of MiB") from None
    if math.isfinite(value) and math.isinf(value * 2**20):
        raise argparse.ArgumentTypeError(f"{text} MiB is more memory than any machine has")
    return value


#: The library's argument names and the options that set them: messages name the option.
OPTIONS = {
    "n_init": "--n-init", "n_resamples": "--n-resamples", "n_projections": "--projections",
    "n_landmarks": "--nystroem", "exponent": "--exponent", "alpha": "--alpha", "n_clusters": "-k",
    "rng": "--seed", "random_state": "--seed",
}
DESTS = {"n_projections": "projections", "n_landmarks": "nystroem", "rng": "seed",
         "random_state": "seed"}


def cli_message(message: str, args) -> str:
    """A library message in the command line's words: ``--working-memory N`` instead of
    ``set_config(working_memory=N)``, ``--n-init`` instead of ```n_init```."""
    message = re.sub(
        r"Set energystats\.set_config\(working_memory=(\d+)\) \(MiB\) or use "
        r"energystats\.config_context",
        r"Give --working-memory \1 (MiB)",
        message,
    )
    for name, option in OPTIONS.items():
        if hasattr(args, DESTS.get(name, name)):
            message = message.replace(f"`{name}`", option)
    return message
