"""The ``energystats`` command line: each subcommand reads a CSV file with a header row (its
separator sniffed; ``-`` reads stdin) or an embedded data set (``--example iris``), calls the
library and prints a report, or strict JSON with ``--json`` (a NaN or infinite number is null,
listed with its value under ``"non_finite"``). Subcommands: ``describe``, ``test``,
``cluster``, ``split1d``, ``hclust``, ``normality`` and ``compare-r`` (the user guide's table
says what each prints). ``--working-memory MiB`` sets the memory budget of
:func:`energystats.set_config`.

Exit status: 0; 1 when ``compare-r`` finds a disagreement or an output cannot be written (stdout
closed or full, ``--plot`` or ``--out`` on a full disk); 2 for bad input, checked before
computing where it can be; 3 for an internal error (``ENERGYSTATS_DEBUG=1`` shows the
traceback); 130 on Ctrl-C. Errors are one line on stderr, never a traceback.

This module runs the subcommands; :mod:`.parser` holds their options, :mod:`.files` reads the
table and checks the output paths, :mod:`.compare_r` runs energystats and R side by side.
"""

from __future__ import annotations

import json
import math
import os
import sys
from itertools import combinations

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
from ..plotting import plot_dendrogram
from .compare_r import compare_r
from .files import (
    CLIError,
    OutputError,
    check_outputs,
    file_after_columns,
    finite_json,
    read_table,
    select,
    write_output,
)
from .parser import build_parser, cli_message

__all__ = ["main"]

#: Pairs of groups and group sizes a ``describe`` report prints (``--json`` has them all).
SHOWN_PAIRS, SHOWN_GROUPS = 100, 20


def _num(value: float) -> str:
    """A float in a text report: six significant digits, exponent notation when needed."""
    return f"{value:.6g}"


def _table(rows) -> str:
    """Records (a list of dicts) as a text table, floats to six significant digits."""
    return pd.DataFrame(rows).to_string(index=False, float_format=_num)


def _head(out: dict, title: str) -> None:
    """The report's first line, the data columns used and the rows dropped by ``--dropna``."""
    print(title)
    columns = out["columns"]
    if columns is None:  # compare-r's own battery
        return
    shown = columns if len(columns) <= 20 else [*columns[:19], f"... ({len(columns)} in all)"]
    print(f"variables: {', '.join(shown)}")
    if out["rows_dropped"]:
        print(f"dropped {out['rows_dropped']} of {out['rows_read']} rows with missing values "
              "(--dropna)")


def _size(out: dict) -> str:
    """"n points in d variables" of a report's first line."""
    n = sum(out["sizes"] if "sizes" in out else out["groups"].values())
    return f"{n} points in {len(out['columns'])} variables"


def _draws(args) -> dict:
    """The resampling options of a test: ``--n-resamples``, ``--seed``, the progress bar."""
    return {"n_resamples": args.n_resamples, "rng": args.seed, "progress": args.progress}


def _agreement(labels, groups) -> dict:
    """Accuracy (eq. 55) and adjusted Rand index of ``labels`` against the known ``groups``
    (nothing without ``--by``)."""
    if groups is None:
        return {}
    return {"accuracy": accuracy(labels, groups),
            "adjusted_rand_index": float(adjusted_rand_score(groups, labels))}


def _print_agreement(out: dict) -> None:
    if "accuracy" in out:
        print(f"against {out['by']!r}: accuracy {out['accuracy']:.6g}, adjusted Rand index "
              f"{out['adjusted_rand_index']:.6g}")


# --- subcommands: each returns a JSON-able dict, and its printer prints the report ------------


def _describe(args, data, groups) -> dict:
    res = dispersion(data, groups, exponent=args.exponent)
    names, sizes = [str(g) for g in res.groups], res.sizes.astype(float).tolist()
    # R's edist statistic n_i n_j / (n_i + n_j) E_ij of every pair is held by dispersion
    pairs = [{"group_a": names[i], "group_b": names[j],
              "energy_distance": float(edist * (sizes[i] + sizes[j]) / (sizes[i] * sizes[j])),
              "edist_statistic": float(edist)}
             for i, j in combinations(range(len(names)), 2) for edist in [res.pairwise[i, j]]]
    return {"groups": dict(zip(names, res.sizes.tolist())), "pairs": pairs,
            "W": res.W, "S": res.S, "T": res.T, "F": res.F}


def _print_describe(out: dict) -> None:
    n, k = sum(out["groups"].values()), len(out["groups"])
    _head(out, f"Energy statistics of {_size(out)}, grouped by {out['by']!r}")
    print(f"semimetric: |x - y|^{out['exponent']:g} (Euclidean)")
    sizes = [f"{g} {m}" for g, m in out["groups"].items()][:SHOWN_GROUPS]
    more = f", ... ({k} groups; --json lists all)" if k > SHOWN_GROUPS else ""
    print(f"group sizes: {', '.join(sizes)}{more}\n")
    print(pd.DataFrame(out["pairs"][:SHOWN_PAIRS]).rename(columns={
        "group_a": "group a", "group_b": "group b", "energy_distance": "energy distance E",
        "edist_statistic": "n1 n2/(n1+n2) E (R edist)",
    }).to_string(index=False, float_format=_num))
    if len(out["pairs"]) > SHOWN_PAIRS:
        print(f"... the first {SHOWN_PAIRS} of {len(out['pairs'])} pairs; --json prints every pair")
    print("\nDISCO decomposition (R disco):")
    for label, key in (("W (within)", "W"), ("S (between)", "S"), ("T = S + W", "T")):
        print(f"  {label:<15} {out[key]:.6g}")
    print(f"  F = [S/(k-1)] / [W/(N-k)] = {out['F']:.6g}   (k = {k}, N = {n})")
    if not math.isfinite(out["F"]):  # JSON writes it as null
        whole = ", and so is the whole sample)" if out["S"] == 0 else ")"
        print(f"  (F is {out['F']:g}: W = 0, every group is one point repeated{whole}")


def _test(args, data, groups) -> dict:
    projected = ({} if args.projections is None
                 else {"approximation": "projection", "n_projections": args.projections})
    res = energy_test(data, groups, statistic=args.statistic, exponent=args.exponent,
                      **_draws(args), **projected)
    return {"groups": {str(g): int(n) for g, n in zip(res.groups, res.sizes)},
            "statistic_name": res.statistic_name, "statistic": res.statistic,
            "pvalue": res.pvalue, "n_resamples": res.n_resamples, "exact": res.exact,
            "n_projections": res.n_projections}


def _print_test(out: dict) -> None:
    _head(out, f"k-sample energy test of equal distributions, grouped by {out['by']!r}")
    print("group sizes: " + ", ".join(f"{g} {m}" for g, m in out["groups"].items()))
    kind = "exact, all distinct relabelings" if out["exact"] else "Monte Carlo"
    print(f"statistic {out['statistic_name']} = {out['statistic']:.6g}")
    print(f"p-value = {out['pvalue']:.6g}   ({out['n_resamples']} relabelings, {kind})")
    if out["n_projections"] is not None:
        print(f"distances estimated from {out['n_projections']} random projections (the test's "
              "level is exact)")


def _cluster(args, data, groups) -> dict:
    X = data.to_numpy(dtype=float)
    nystroem = ({} if args.nystroem is None
                else {"approximation": "nystroem", "n_landmarks": args.nystroem})
    options = {"algorithm": args.algorithm, "exponent": args.exponent, "n_init": args.n_init}
    model = KGroups(args.n_clusters, random_state=args.seed, **options, **nystroem).fit(X)
    out = {"n_clusters": args.n_clusters, "algorithm": args.algorithm,
           "n_landmarks": args.nystroem, "labels": model.labels_.tolist(),
           "sizes": model.cluster_sizes_.tolist(), "W": model.W_, "S": model.objective_,
           "converged": model.converged_, **_agreement(model.labels_, groups)}
    if args.cluster_test:
        ct = cluster_test(X, args.n_clusters, **_draws(args), **options)
        out["cluster_test"] = {"statistic": ct.statistic, "pvalue": ct.pvalue,
                               "n_resamples": ct.n_resamples, "directions": ct.directions,
                               "n_components": ct.n_components}
    if args.compare_r:
        ok, reason = r_available()
        out["r_agreement"] = {"available": False, "reason": reason} if not ok else {
            "available": True, **r_versions(), "rows": _ask_r(lambda: compare_r(
                [("clusters", X, model.labels_)], exponents=(args.exponent,), etest=False,
                seed=args.seed or 0)).to_dict(orient="records")}
    return out


def _ask_r(call):
    """``call()``, with an error raised inside R reported as bad input (one line, exit 2)."""
    try:
        return call()
    except Exception as exc:
        if type(exc).__name__ != "RRuntimeError":  # rpy2.rinterface_lib.embedded.RRuntimeError
            raise
        raise CLIError(f"R's energy failed on these data: {' '.join(str(exc).split())}") from None


def _print_cluster(out: dict) -> None:
    _head(out, f"Kernel k-groups ({out['algorithm']}) of {_size(out)} into {out['n_clusters']} "
          "clusters")
    if out["n_landmarks"] is not None:
        print(f"on Nystroem features from {out['n_landmarks']} landmarks (W is an upper bound on "
              "the labels' exact W)")
    print(f"cluster sizes: {out['sizes']}")
    print(f"W (within) = {out['W']:.6g}   S (between) = {out['S']:.6g}   converged: "
          f"{out['converged']}")
    _print_agreement(out)
    if "cluster_test" in out:
        ct = out["cluster_test"]
        print(f"test of cluster structure against one Gaussian: S/T = {ct['statistic']:.6g}, "
              f"p-value = {ct['pvalue']:.6g} ({ct['n_resamples']} Gaussian resamples; "
              f"{ct['directions']} directions, on {ct['n_components']} principal direction(s))")
    r = out.get("r_agreement")
    if r is not None and not r["available"]:
        print(f"R agreement: not checked, R is not available ({r['reason']})")
    elif r is not None:
        rows = pd.DataFrame(r["rows"])
        print(f"\nR {r['R']}, energy {r['energy']} on these clusters: {rows['agree'].sum()} of "
              f"{len(rows)} quantities agree")
        print(rows.drop(columns="data").to_string(index=False, float_format=_num))


def _split1d(args, data, groups) -> dict:
    if data.shape[1] != 1:
        raise CLIError(f"split1d needs exactly one column (use --columns), got {data.shape[1]}")
    res = split_1d(data.iloc[:, 0])
    return {"column": str(data.columns[0]), "threshold": res.threshold,
            "sizes": np.bincount(res.labels, minlength=2).tolist(), "W": res.W, "S": res.S,
            "labels": res.labels.tolist(), **_agreement(res.labels, groups)}


def _print_split1d(out: dict) -> None:
    _head(out, f"Exact two-group energy split of {out['column']!r} (O(n log n))")
    print(f"threshold = {out['threshold']:.6g}: sizes below/above {out['sizes']}")
    print(f"W = {out['W']:.6g}   S = {out['S']:.6g}")
    _print_agreement(out)


def _hclust(args, data, groups) -> dict:
    res = significant_clusters(data.to_numpy(dtype=float), alpha=args.alpha,
                               exponent=args.exponent, **_draws(args))
    out = {"alpha": args.alpha, "n_clusters": res.n_clusters,
           "sizes": np.bincount(res.labels).tolist(), "labels": res.labels.tolist(),
           "nodes": res.nodes.to_dict(orient="records"), "height": res.tree.height.tolist(),
           **_agreement(res.labels, groups)}
    if args.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        ax = plot_dendrogram(res)
        ax.set_title(f"energy dendrogram: {res.n_clusters} significant cluster(s) at FWER "
                     f"{args.alpha}")
        write_output(args.plot, "--plot",
                     lambda: ax.figure.savefig(args.plot, dpi=120, bbox_inches="tight"))
        out["plot"] = str(args.plot)
    return out


def _print_hclust(out: dict) -> None:
    _head(out, f"Energy hierarchical clustering of {_size(out)} (exponent {out['exponent']:g})")
    print(f"significant splits at family-wise error {out['alpha']} (cluster test at each node, "
          "level alpha * size / n):")
    if out["nodes"]:
        print(_table(out["nodes"]))
    print(f"{out['n_clusters']} cluster(s), sizes {out['sizes']}")
    _print_agreement(out)
    if "plot" in out:
        print(f"dendrogram written to {out['plot']}")


def _normality(args, data, groups) -> dict:
    parts = ([("all rows", data)] if groups is None
             else [(str(g), data[groups == g]) for g in pd.unique(groups)])
    rows = []
    for name, part in parts:
        res = mvnorm_test(part.to_numpy(dtype=float), **_draws(args))
        rows.append({"group": name, "n": res.n_samples, "statistic": res.statistic,
                     "pvalue": res.pvalue})
    return {"n_resamples": args.n_resamples, "rows": rows}


def _print_normality(out: dict) -> None:
    _head(out, f"Energy test of multivariate normality of {len(out['columns'])} variables "
          f"({out['n_resamples']} Gaussian samples)")
    print(_table(out["rows"]))


def _compare(args, data, groups) -> dict:
    ok, reason = r_available()
    if not ok:
        raise CLIError(reason)
    datasets = None
    if data is not None:
        datasets = [(str(args.by), data.to_numpy(dtype=float),
                     pd.factorize(groups, sort=True)[0])]
    table = _ask_r(lambda: compare_r(datasets, n_resamples=args.n_resamples, seed=args.seed,
                                     progress=args.progress))
    out = {**r_versions(), "agree": int(table["agree"].sum()), "total": len(table),
           "rows": table.to_dict(orient="records")}
    if args.out is not None:
        text = f"# {_compare_header(out)}\n\n```text\n{table.to_string(index=False)}\n```\n"
        write_output(args.out, "--out", lambda: (
            args.out.parent.mkdir(parents=True, exist_ok=True), args.out.write_text(text)))
    return out


def _compare_header(out: dict) -> str:
    return f"energystats {__version__} vs R {out['R']}, energy {out['energy']} (rpy2 {out['rpy2']})"


def _print_compare(out: dict) -> None:
    _head(out, _compare_header(out))
    print(_table(out["rows"]))
    print(f"\n{out['agree']} of {out['total']} comparisons agree")


#: subcommand -> (compute, print the report, whether --by is required)
_COMMANDS = {
    "describe": (_describe, _print_describe, True),
    "test": (_test, _print_test, True),
    "cluster": (_cluster, _print_cluster, False),
    "split1d": (_split1d, _print_split1d, False),
    "compare-r": (_compare, _print_compare, True),
    "hclust": (_hclust, _print_hclust, False),
    "normality": (_normality, _print_normality, False),
}


def _run(args) -> int:
    compute, report, need_by = _COMMANDS[args.command]
    with config_context(working_memory=args.working_memory):
        check_outputs(args)
        table = read_table(args)
        data, groups, kept = (None, None, None) if table is None else select(table, args,
                                                                              need_by=need_by)
        out = compute(args, data, groups)
    read = {} if kept is None else {"rows_read": len(kept), "rows_dropped": int((~kept).sum())}
    out = {"columns": None if data is None else [str(c) for c in data.columns], "by": args.by,
           **read, **({"exponent": args.exponent} if hasattr(args, "exponent") else {}), **out}
    if read.get("rows_dropped") and "labels" in out:
        labels = [None] * len(kept)  # one per row read, null for a dropped row
        for row, label in zip(np.flatnonzero(kept), out["labels"]):
            labels[row] = label
        out["labels"] = labels
    try:
        if args.json:
            clean, non_finite = finite_json(out)
            if non_finite:
                clean["non_finite"] = non_finite
            default = lambda v: v.item() if isinstance(v, np.generic) else str(v)  # noqa: E731
            print(json.dumps(clean, indent=2, default=default, allow_nan=False))
        else:
            report(out)
        sys.stdout.flush()  # a closed pipe shows here, inside main
    except BrokenPipeError:
        raise
    except OSError as exc:  # stdout full (> /dev/full) or gone
        _discard_stdout()
        raise OutputError(f"cannot write to stdout ({exc.strerror or exc})") from None
    return 1 if args.command == "compare-r" and out["agree"] < out["total"] else 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    0 on success; 1 if ``compare-r`` found a disagreement, or stdout was closed early (as by
    ``| head``: the rest of the output is discarded quietly, as Python's documentation of
    SIGPIPE advises); 2 for bad input, with one line on stderr; 3 for an internal error; 130
    on Ctrl-C.
    """
    args = build_parser().parse_args(argv)
    file_after_columns(args)
    if hasattr(args, "progress"):  # None: a bar when a person is watching
        args.progress = None if args.progress and not args.json else False
    if sys.stdout is None:  # started with stdout closed (>&-): nowhere to write the result
        return _fail(args, "stdout is closed, nowhere to write the output", 1)
    try:
        return _run(args)
    except (CLIError, ValueError, TypeError, OverflowError, WorkingMemoryError) as exc:
        return _fail(args, cli_message(str(exc), args), 2)
    except MemoryError as exc:
        return _fail(args, f"the machine ran out of memory ({exc or 'MemoryError'}); give a "
                     "smaller --working-memory (MiB)", 2)
    except OutputError as exc:
        return _fail(args, str(exc), 1)
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
        return _fail(args, f"internal error, please report it: {type(exc).__name__}: {exc} "
                     "(ENERGYSTATS_DEBUG=1 shows the traceback)", 3)


def _fail(args, message: str, status: int) -> int:
    """One line on stderr (whatever the message's line breaks); returns ``status``."""
    print(f"energystats {args.command}: error: {' '.join(message.split())}", file=sys.stderr)
    return status


def _discard_stdout() -> None:
    """Point stdout at devnull, so that the output still buffered does not fail again at exit."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
