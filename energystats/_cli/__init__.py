"""The ``energystats`` command line: each subcommand reads a CSV file with a header row (its
separator sniffed; ``-`` reads stdin) or an embedded data set (``--example iris``), calls the
library and prints a report, or strict JSON with ``--json`` (a NaN or infinite number is null,
listed with its value under ``"non_finite"``); the user guide's table says what each prints.
``--working-memory MiB`` sets the memory budget of :func:`energystats.set_config`. Errors are
one line on stderr, never a traceback; :func:`main` lists the exit statuses.

This module holds the subcommands' options and runs them; :mod:`.files` reads the table and
writes the outputs, :mod:`.compare_r` runs energystats and R side by side.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import adjusted_rand_score

from .. import __version__
from .._cluster import KGroups, cluster_test, significant_clusters, split_1d
from .._config import WorkingMemoryError, config_context
from .._gof import mvnorm_test
from .._homogeneity import dispersion, energy_test
from .._metrics import accuracy
from .._rbridge import r_available, r_versions
from ..datasets import EXAMPLES
from ..plotting import plot_dendrogram
from .compare_r import compare_r
from .files import CLIError, OutputError, prepare, strict_json, write_output

__all__ = ["main"]

#: Pairs of groups and group sizes a ``describe`` report prints (``--json`` has them all).
SHOWN_PAIRS, SHOWN_GROUPS = 100, 20


def _mebibytes(text: str) -> float:
    """``--working-memory``: a number of MiB whose bytes a float can hold."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of MiB") from None
    if math.isfinite(value) and math.isinf(value * 2**20):
        raise argparse.ArgumentTypeError(f"{text} MiB is more memory than any machine has")
    return value


def _opt(*flags, **kwargs) -> tuple:
    """An option: its flags and the keyword arguments of ``add_argument``."""
    return flags, kwargs


def _resampling(default: int, what: str = "resamples", seed: int | None = None) -> list:
    """``--n-resamples``, ``--seed`` and ``--no-progress``."""
    return [_opt("--n-resamples", type=int, default=default, help=f"{what} (default {default})"),
            _opt("--seed", type=int, default=seed,
                 help="random seed" + ("" if seed is None else f" (default {seed})")),
            _opt("--no-progress", dest="progress", action="store_false", help="no progress bar")]


_EXPONENT = _opt("--exponent", type=float, default=1.0, help="exponent alpha in (0, 2] (default 1)")
_GROUPS = "column holding the groups (required)"
_CLASSES = "column of known classes to score the {} against"
#: subcommand -> its help, the help of --by, its options after those every subcommand takes
_PARSERS = {
    "describe": ("energy distances between groups and the DISCO decomposition", _GROUPS,
                 [_EXPONENT]),
    "test": ("k-sample energy permutation test of equal distributions", _GROUPS, [
        _EXPONENT, _opt("--statistic", choices=("S", "E", "F"), default="S",
                        help="test statistic (default S)"),
        _opt("--projections", type=int, metavar="L", help="estimate distances from L random "
             "projections (large n; the level stays exact)"), *_resampling(999)]),
    "cluster": ("kernel k-groups clustering", _CLASSES.format("clusters"), [
        _opt("-k", "--n-clusters", type=int, required=True, help="number of clusters"),
        _opt("--algorithm", choices=("hartigan", "lloyd", "r-kgroups"), default="hartigan"),
        _opt("--n-init", type=int, default=10, help="restarts (default 10)"),
        _opt("--nystroem", type=int, metavar="M",
             help="cluster Nystroem features from M landmarks (large n)"),
        _opt("--cluster-test", action="store_true",
             help="also test for cluster structure against one Gaussian"),
        _opt("--compare-r", action="store_true",
             help="also compare with R's energy on the clusters found, when R is present"),
        _EXPONENT, *_resampling(199)]),
    "split1d": ("exact two-group split of one variable", _CLASSES.format("split"), []),
    "compare-r": ("energystats and R's energy side by side (a battery of data sets, or the CSV's "
                  "groups)", "column holding the groups (required with a CSV or --example)", [
        *_resampling(999, "resamples of eqdist.etest", seed=1),
        _opt("--out", type=Path, help="also write the table as markdown to this file")]),
    "hclust": ("energy hierarchical clustering and its significant splits",
               _CLASSES.format("clusters"), [
        _opt("--alpha", type=float, default=0.05, help="family-wise error rate (default 0.05)"),
        _opt("--plot", type=Path, metavar="FILE", help="write the dendrogram (PNG, SVG or PDF)"),
        _EXPONENT, *_resampling(199)]),
    "normality": ("energy test of multivariate normality",
                  "column of groups, each tested on its own", _resampling(999)),
}


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``energystats`` and its subcommands."""
    parser = argparse.ArgumentParser(
        prog="energystats", description="Energy statistics and energy-based clustering.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (what, by_help, options) in _PARSERS.items():
        p = sub.add_parser(name, help=what)
        for flags, kwargs in [
            _opt("csv", nargs="?", help="file with a header row, separated by commas, "
                 "semicolons, tabs, | or spaces ('-': stdin)"),
            _opt("--example", choices=EXAMPLES, help="use an embedded data set instead of a file"),
            _opt("--by", help=by_help),
            _opt("--columns", nargs="+", help="numeric data columns (default: every column "
                 "except --by; all must be numeric); a file named last is the file"),
            _opt("--dropna", action="store_true",
                 help="drop the rows with a missing value in the data or --by columns"),
            _opt("--json", action="store_true", help="print JSON instead of a report"),
            _opt("--working-memory", type=_mebibytes, metavar="MiB", help="memory budget in MiB "
                 "(default 1024): larger n x n matrices are streamed in tiles"), *options]:
            p.add_argument(*flags, **kwargs)
    return parser


#: The library's argument names and the options that set them: messages name the option.
OPTIONS = {"n_init": "--n-init", "n_resamples": "--n-resamples", "n_projections": "--projections",
           "n_landmarks": "--nystroem", "exponent": "--exponent", "alpha": "--alpha",
           "n_clusters": "-k", "rng": "--seed", "random_state": "--seed"}


def cli_message(message: str, args) -> str:
    """A library message in the command line's words (``--n-init`` for ```n_init```)."""
    message = re.sub(r"Set energystats\.set_config\(working_memory=(\d+)\) \(MiB\) or use "
                     r"energystats\.config_context", r"Give --working-memory \1 (MiB)", message)
    for name, option in OPTIONS.items():
        dest = "n_clusters" if option == "-k" else option.lstrip("-").replace("-", "_")
        if hasattr(args, dest):
            message = message.replace(f"`{name}`", option)
    return message


def _table(frame: pd.DataFrame) -> str:
    """A text table, floats to six significant digits."""
    return frame.to_string(index=False, float_format="{:.6g}".format)


def _draws(args) -> dict:
    """The resampling options of a test: ``--n-resamples``, ``--seed``, the progress bar."""
    return {"n_resamples": args.n_resamples, "rng": args.seed, "progress": args.progress}


def _agreement(labels, groups, by) -> tuple[dict, list[str]]:
    """Accuracy (eq. 55) and adjusted Rand index against ``--by``, and their report line."""
    if groups is None:
        return {}, []
    out = {"accuracy": accuracy(labels, groups),
           "adjusted_rand_index": float(adjusted_rand_score(groups, labels))}
    return out, [f"against {by!r}: accuracy {out['accuracy']:.6g}, adjusted Rand index "
                 f"{out['adjusted_rand_index']:.6g}"]


def _ask_r(datasets, **options) -> dict:
    """R's versions and :func:`compare_r`'s rows; an error inside R is bad input (exit 2)."""
    try:
        table = compare_r(datasets, **options)
    except Exception as exc:
        if type(exc).__name__ != "RRuntimeError":  # rpy2.rinterface_lib.embedded.RRuntimeError
            raise
        raise CLIError(f"R's energy failed on these data: {' '.join(str(exc).split())}") from None
    return {**r_versions(), "rows": table.to_dict(orient="records")}


# --- subcommands: each returns its JSON-able result and the lines of its report ---------------


def _describe(args, data, groups):
    res = dispersion(data, groups, exponent=args.exponent)
    names, sizes = [str(g) for g in res.groups], res.sizes.astype(float).tolist()
    # R's edist statistic n_i n_j / (n_i + n_j) E_ij of every pair is held by dispersion
    pairs = [{"group_a": names[i], "group_b": names[j],
              "energy_distance": float(edist * (sizes[i] + sizes[j]) / (sizes[i] * sizes[j])),
              "edist_statistic": float(edist)}
             for i, j in combinations(range(len(names)), 2) for edist in [res.pairwise[i, j]]]
    out = {"groups": dict(zip(names, res.sizes.tolist())), "pairs": pairs,
           "W": res.W, "S": res.S, "T": res.T, "F": res.F}
    n, k = len(data), len(names)
    shown = ", ".join(f"{g} {m}" for g, m in list(out["groups"].items())[:SHOWN_GROUPS])
    more = f", ... ({k} groups; --json lists all)" if k > SHOWN_GROUPS else ""
    table = pd.DataFrame(pairs[:SHOWN_PAIRS]).rename(columns={
        "group_a": "group a", "group_b": "group b", "energy_distance": "energy distance E",
        "edist_statistic": "n1 n2/(n1+n2) E (R edist)"})
    report = [f"Energy statistics of {n} points in {data.shape[1]} variables, grouped by "
              f"{args.by!r}", f"semimetric: |x - y|^{args.exponent:g} (Euclidean)",
              f"group sizes: {shown}{more}\n", _table(table)]
    if len(pairs) > SHOWN_PAIRS:
        report.append(f"... the first {SHOWN_PAIRS} of {len(pairs)} pairs; --json prints every "
                      "pair")
    report += ["\nDISCO decomposition (R disco):", f"  W (within)      {res.W:.6g}",
               f"  S (between)     {res.S:.6g}", f"  T = S + W       {res.T:.6g}",
               f"  F = [S/(k-1)] / [W/(N-k)] = {res.F:.6g}   (k = {k}, N = {n})"]
    if not math.isfinite(res.F):  # JSON writes it as null
        whole = ", and so is the whole sample)" if res.S == 0 else ")"
        report.append(f"  (F is {res.F:g}: W = 0, every group is one point repeated{whole}")
    return out, report


def _test(args, data, groups):
    projected = ({} if args.projections is None
                 else {"approximation": "projection", "n_projections": args.projections})
    res = energy_test(data, groups, statistic=args.statistic, exponent=args.exponent,
                      **_draws(args), **projected)
    out = {"groups": {str(g): int(n) for g, n in zip(res.groups, res.sizes)},
           "statistic_name": res.statistic_name, "statistic": res.statistic,
           "pvalue": res.pvalue, "n_resamples": res.n_resamples, "exact": res.exact,
           "n_projections": res.n_projections}
    kind = "exact, all distinct relabelings" if res.exact else "Monte Carlo"
    return out, [f"k-sample energy test of equal distributions, grouped by {args.by!r}",
                 "group sizes: " + ", ".join(f"{g} {m}" for g, m in out["groups"].items()),
                 f"statistic {res.statistic_name} = {res.statistic:.6g}",
                 f"p-value = {res.pvalue:.6g}   ({res.n_resamples} relabelings, {kind})",
                 *([] if res.n_projections is None else [
                     f"distances estimated from {res.n_projections} random projections (the "
                     "test's level is exact)"])]


def _cluster(args, data, groups):
    X = data.to_numpy(dtype=float)
    nystroem = ({} if args.nystroem is None
                else {"approximation": "nystroem", "n_landmarks": args.nystroem})
    options = {"algorithm": args.algorithm, "exponent": args.exponent, "n_init": args.n_init}
    model = KGroups(args.n_clusters, random_state=args.seed, **options, **nystroem).fit(X)
    scores, against = _agreement(model.labels_, groups, args.by)
    out = {"n_clusters": args.n_clusters, "algorithm": args.algorithm,
           "n_landmarks": args.nystroem, "labels": model.labels_.tolist(),
           "sizes": model.cluster_sizes_.tolist(), "W": model.W_, "S": model.objective_,
           "converged": model.converged_, **scores}
    report = [f"Kernel k-groups ({args.algorithm}) of {len(X)} points in {X.shape[1]} variables "
              f"into {args.n_clusters} clusters",
              *([] if args.nystroem is None else [
                  f"on Nystroem features from {args.nystroem} landmarks (W is an upper bound on "
                  "the labels' exact W)"]),
              f"cluster sizes: {out['sizes']}", f"W (within) = {model.W_:.6g}   S (between) = "
              f"{model.objective_:.6g}   converged: {model.converged_}", *against]
    if args.cluster_test:
        ct = cluster_test(X, args.n_clusters, **_draws(args), **options)
        out["cluster_test"] = {"statistic": ct.statistic, "pvalue": ct.pvalue,
                               "n_resamples": ct.n_resamples, "directions": ct.directions,
                               "n_components": ct.n_components}
        report.append(f"test of cluster structure against one Gaussian: S/T = "
                      f"{ct.statistic:.6g}, p-value = {ct.pvalue:.6g} ({ct.n_resamples} Gaussian "
                      f"resamples; {ct.directions} directions, on {ct.n_components} principal "
                      "direction(s))")
    if args.compare_r:  # the clusters' tests left out: found from the same data, not valid
        ok, reason = r_available()
        if not ok:
            out["r_agreement"] = {"available": False, "reason": reason}
            return out, [*report, f"R agreement: not checked, R is not available ({reason})"]
        r = out["r_agreement"] = {"available": True, **_ask_r(
            [("clusters", X, model.labels_)], etest=False, exponents=(args.exponent,),
            seed=args.seed or 0)}
        rows = pd.DataFrame(r["rows"])
        report += [f"\nR {r['R']}, energy {r['energy']} on these clusters: {rows['agree'].sum()} "
                   f"of {len(rows)} quantities agree", _table(rows.drop(columns="data"))]
    return out, report


def _split1d(args, data, groups):
    if data.shape[1] != 1:
        raise CLIError(f"split1d needs exactly one column (use --columns), got {data.shape[1]}")
    res = split_1d(data.iloc[:, 0])
    scores, against = _agreement(res.labels, groups, args.by)
    sizes = np.bincount(res.labels, minlength=2).tolist()
    return ({"column": str(data.columns[0]), "threshold": res.threshold, "sizes": sizes,
             "W": res.W, "S": res.S, "labels": res.labels.tolist(), **scores},
            [f"Exact two-group energy split of {str(data.columns[0])!r} (O(n log n))",
             f"threshold = {res.threshold:.6g}: sizes below/above {sizes}",
             f"W = {res.W:.6g}   S = {res.S:.6g}", *against])


def _hclust(args, data, groups):
    res = significant_clusters(data.to_numpy(dtype=float), alpha=args.alpha,
                               exponent=args.exponent, **_draws(args))
    scores, against = _agreement(res.labels, groups, args.by)
    sizes = np.bincount(res.labels).tolist()
    out = {"alpha": args.alpha, "n_clusters": res.n_clusters, "sizes": sizes,
           "labels": res.labels.tolist(), "nodes": res.nodes.to_dict(orient="records"),
           "height": res.tree.height.tolist(), **scores}
    report = [f"Energy hierarchical clustering of {len(data)} points in {data.shape[1]} "
              f"variables (exponent {args.exponent:g})", "significant splits at family-wise "
              f"error {args.alpha} (cluster test at each node, level alpha * size / n):",
              *([_table(pd.DataFrame(out["nodes"]))] if out["nodes"] else []),
              f"{res.n_clusters} cluster(s), sizes {sizes}", *against]
    if args.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        ax = plot_dendrogram(res)
        ax.set_title(f"energy dendrogram: {res.n_clusters} significant cluster(s) at FWER "
                     f"{args.alpha}")
        write_output(args.plot, "--plot",
                     lambda: ax.figure.savefig(args.plot, dpi=120, bbox_inches="tight"))
        out["plot"] = str(args.plot)
        report.append(f"dendrogram written to {args.plot}")
    return out, report


def _normality(args, data, groups):
    parts = ([("all rows", data)] if groups is None
             else [(str(g), data[groups == g]) for g in pd.unique(groups)])
    rows = [{"group": name, "n": res.n_samples, "statistic": res.statistic, "pvalue": res.pvalue}
            for name, part in parts
            for res in [mvnorm_test(part.to_numpy(dtype=float), **_draws(args))]]
    return {"n_resamples": args.n_resamples, "rows": rows}, [
        f"Energy test of multivariate normality of {data.shape[1]} variables "
        f"({args.n_resamples} Gaussian samples)", _table(pd.DataFrame(rows))]


def _compare(args, data, groups):
    ok, reason = r_available()
    if not ok:
        raise CLIError(reason)
    datasets = None if data is None else [
        (str(args.by), data.to_numpy(dtype=float), pd.factorize(groups, sort=True)[0])]
    out = _ask_r(datasets, n_resamples=args.n_resamples, seed=args.seed, progress=args.progress)
    rows = out.pop("rows")
    out.update(agree=sum(row["agree"] for row in rows), total=len(rows), rows=rows)
    header = (f"energystats {__version__} vs R {out['R']}, energy {out['energy']} (rpy2 "
              f"{out['rpy2']})")
    if args.out is not None:
        text = f"# {header}\n\n```text\n{pd.DataFrame(rows).to_string(index=False)}\n```\n"
        write_output(args.out, "--out", lambda: (
            args.out.parent.mkdir(parents=True, exist_ok=True), args.out.write_text(text)))
    return out, [header, _table(pd.DataFrame(rows)),
                 f"\n{out['agree']} of {out['total']} comparisons agree"]


#: subcommand -> (its function, whether --by is required)
_COMMANDS = {"describe": (_describe, True), "test": (_test, True), "cluster": (_cluster, False),
             "split1d": (_split1d, False), "compare-r": (_compare, True),
             "hclust": (_hclust, False), "normality": (_normality, False)}


def _run(args) -> int:
    """Read and check the data, compute, print the report or JSON; the exit status."""
    compute, need_by = _COMMANDS[args.command]
    with config_context(working_memory=args.working_memory):
        data, groups, kept = prepare(args, need_by=need_by)
        out, report = compute(args, data, groups)
    columns = None if data is None else [str(c) for c in data.columns]
    read = {} if kept is None else {"rows_read": len(kept), "rows_dropped": int((~kept).sum())}
    out = {"columns": columns, "by": args.by, **read,
           **({"exponent": args.exponent} if hasattr(args, "exponent") else {}), **out}
    if columns is not None:  # the data used, after the report's first line
        shown = columns if len(columns) <= 20 else [*columns[:19], f"... ({len(columns)} in all)"]
        report.insert(1, f"variables: {', '.join(shown)}")
    if read.get("rows_dropped"):
        report.insert(2, f"dropped {read['rows_dropped']} of {len(kept)} rows with missing "
                      "values (--dropna)")
        if "labels" in out:  # one per row read, null for a dropped row
            labels = np.full(len(kept), None, dtype=object)
            labels[kept] = out["labels"]
            out["labels"] = labels.tolist()
    try:
        print(strict_json(out) if args.json else "\n".join(report))
        sys.stdout.flush()  # a closed pipe shows here, inside main
    except BrokenPipeError:
        raise
    except OSError as exc:  # stdout full (> /dev/full) or gone
        _discard_stdout()
        raise OutputError(f"cannot write to stdout ({exc.strerror or exc})") from None
    return 1 if args.command == "compare-r" and out["agree"] < out["total"] else 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    0 on success; 1 if ``compare-r`` found a disagreement, an output (``--plot``, ``--out``)
    could not be written, or stdout was closed or full (closed early, as by ``| head``: the rest
    of the output is discarded quietly, as Python's documentation of SIGPIPE advises); 2 for bad
    input, checked before computing where it can be; 3 for an internal error
    (``ENERGYSTATS_DEBUG=1`` shows the traceback); 130 on Ctrl-C.
    """
    args = build_parser().parse_args(argv)
    if hasattr(args, "progress"):  # None: a bar when a person is watching
        args.progress = None if args.progress and not args.json else False
    try:
        if sys.stdout is None:  # started with stdout closed (>&-): nowhere to write the result
            raise OutputError("stdout is closed, nowhere to write the output")
        return _run(args)
    except (CLIError, ValueError, TypeError, OverflowError, WorkingMemoryError) as exc:
        message, status = cli_message(str(exc), args), 2
    except MemoryError as exc:
        message, status = (f"the machine ran out of memory ({exc or 'MemoryError'}); give a "
                           "smaller --working-memory (MiB)"), 2
    except OutputError as exc:
        message, status = str(exc), 1
    except BrokenPipeError:
        # the reader is gone: send the output still buffered to devnull, so that the
        # interpreter's last flush does not raise again (docs.python.org, signal, "Note on SIGPIPE")
        _discard_stdout()
        return 1
    except KeyboardInterrupt:
        print(f"energystats {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: one line, the traceback on request
        if os.environ.get("ENERGYSTATS_DEBUG"):
            raise
        message, status = (f"internal error, please report it: {type(exc).__name__}: {exc} "
                           "(ENERGYSTATS_DEBUG=1 shows the traceback)"), 3
    # one line, whatever the message's line breaks
    print(f"energystats {args.command}: error: {' '.join(message.split())}", file=sys.stderr)
    return status


def _discard_stdout() -> None:
    """Point stdout at devnull, so that the output still buffered does not fail again at exit."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
