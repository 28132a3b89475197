"""Every Monte Carlo test family against R's energy (and dcor and hyppo where they have the test)
across the sizes a notebook holds: n = 20, 50, 100, 300, 1,000 and 3,000, B = 999.

Run: .venv/bin/python benchmarks/bench_sweep.py [--sizes 20 50 ...] [--tests energy_test_2 ...]
     [--repeats 3] [--out benchmarks/results/sweep.csv] [--plot docs/_static/sweep.png]
Redraw from a saved run: ... --from-csv benchmarks/results/sweep.csv [--plot ...]

Each cell is the minimum over ``--repeats`` interleaved runs (energystats, R, dcor, hyppo, then
again) in this one process, with the package's default threads and each peer's defaults (R: one
thread; dcor ``n_jobs=1``; hyppo ``workers=1``). A cell whose slowest tool took more than
``--budget`` seconds is run once. The table prints R's time over energystats' (and dcor's and
hyppo's), so that a ratio above 1 means energystats is faster; energystats' own time is in the
CSV. Every tool computes the same test on the same data with B = 999 resamples, except:

* ``energy_gof`` (normal family, parameters estimated): R's ``energy`` has no generic
  goodness-of-fit test; R's ``normal.test`` computes the same statistic for this family and is
  its equivalent here;
* ``dcor_ttest`` has no resamples (R's ``dcorT.test``, dcor's ``distance_correlation_t_test``);
* one ``KGroups`` start is ``KGroups(3, n_init=1).fit`` against ``kgroups(x, 3, nstart = 1)``.

R is embedded through rpy2 in this process (``energy`` loaded once); the data cross into R
before the clock starts.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.stats

import energystats as es

SIZES = (20, 50, 100, 300, 1000, 3000)
B = 999


def _peers():
    try:
        import dcor
    except ImportError:  # optional peer
        dcor = None
    try:
        import hyppo.independence as hyppo_independence
        import hyppo.ksample as hyppo_ksample
    except ImportError:  # optional peer
        hyppo_independence = hyppo_ksample = None
    return dcor, hyppo_independence, hyppo_ksample


def _r():
    """R with ``energy`` loaded, and a converter of numpy arrays to R matrices/vectors."""
    import rpy2.rinterface_lib.callbacks as callbacks
    import rpy2.robjects as ro
    from rpy2.robjects.packages import importr

    callbacks.consolewrite_warnerror = lambda text: None  # R's start-up notes are not results

    energy = importr("energy")

    def matrix(a):
        a = np.asarray(a, dtype=float)
        if a.ndim == 1:
            return ro.FloatVector(a)
        return ro.r.matrix(ro.FloatVector(a.ravel(order="F")), nrow=a.shape[0], ncol=a.shape[1])

    return ro, energy, matrix


def cases(n: int, rng: np.random.Generator):
    """{test name: (energystats call, R call, dcor call or None, hyppo call or None)}, the data
    drawn here and converted for R once."""
    ro, energy, rm = _r()
    dcor, hyi, hyk = _peers()
    out = {}

    X = rng.normal(size=(n, 3))
    two = np.repeat([0, 1], [n // 2, n - n // 2])
    X2 = X + 0.3 * two[:, None]
    X2r, sizes2 = rm(X2), ro.IntVector([n // 2, n - n // 2])
    groups2 = [X2[two == 0], X2[two == 1]]
    out["energy_test, 2 groups, d = 3"] = (
        lambda: es.energy_test(X2, two, n_resamples=B, rng=0),
        lambda: energy.eqdist_etest(X2r, sizes2, R=B),
        dcor and (lambda: dcor.homogeneity.energy_test(*groups2, num_resamples=B, random_state=0)),
        hyk and (lambda: hyk.Energy().test(*groups2, reps=B, auto=False, random_state=0)),
    )
    k3 = np.repeat([0, 1, 2], [n // 3, n // 3, n - 2 * (n // 3)])
    X3 = X + 0.3 * k3[:, None]
    X3r = rm(X3)
    sizes3 = ro.IntVector(np.bincount(k3).tolist())
    factor3 = ro.FactorVector(ro.IntVector(k3.tolist()))
    groups3 = [X3[k3 == j] for j in range(3)]
    out["energy_test, 3 groups, d = 3"] = (
        lambda: es.energy_test(X3, k3, n_resamples=B, rng=0),
        lambda: energy.eqdist_etest(X3r, sizes3, R=B),
        dcor and (lambda: dcor.homogeneity.energy_test(*groups3, num_resamples=B, random_state=0)),
        # hyppo's DISCO takes equal sample sizes only
        hyk and len({g.shape[0] for g in groups3}) == 1
        and (lambda: hyk.DISCO().test(*groups3, reps=B, auto=False, random_state=0)),
    )
    out["dispersion with resamples, 3 groups"] = (
        lambda: es.dispersion(X3, k3, n_resamples=B, rng=0),
        lambda: energy.disco(X3r, factor3, R=B),
        None,
        None,
    )
    x1 = rng.normal(size=n)
    y1 = np.cos(2 * x1) + rng.normal(size=n)
    x1r, y1r = rm(x1), rm(y1)
    out["dcor_test, x and y 1-D"] = (
        lambda: es.dcor_test(x1, y1, n_resamples=B, rng=0),
        lambda: energy.dcor_test(x1r, y1r, R=B),
        dcor and (lambda: dcor.independence.distance_covariance_test(
            x1, y1, num_resamples=B, random_state=0)),
        hyi and (lambda: hyi.Dcorr().test(x1, y1, reps=B, auto=False, random_state=0)),
    )
    x3 = rng.normal(size=(n, 3))
    y2 = np.column_stack([x3[:, 0] ** 2, x3[:, 1]]) + rng.normal(size=(n, 2))
    x3r, y2r = rm(x3), rm(y2)
    out["dcor_test, d = 3 and 2"] = (
        lambda: es.dcor_test(x3, y2, n_resamples=B, rng=0),
        lambda: energy.dcor_test(x3r, y2r, R=B),
        dcor and (lambda: dcor.independence.distance_covariance_test(
            x3, y2, num_resamples=B, random_state=0)),
        hyi and (lambda: hyi.Dcorr().test(x3, y2, reps=B, auto=False, random_state=0)),
    )
    z2 = rng.normal(size=(n, 2))
    z2r = rm(z2)
    out["pdcor_test, d = 3, 2 and 2"] = (
        lambda: es.pdcor_test(x3, y2, z2, n_resamples=B, rng=0),
        lambda: energy.pdcor_test(x3r, y2r, z2r, R=B),
        dcor and (lambda: dcor.independence.partial_distance_covariance_test(
            x3, y2, z2, num_resamples=B, random_state=0)),
        None,
    )
    out["dcor_ttest, d = 3 and 2"] = (
        lambda: es.dcor_ttest(x3, y2),
        lambda: energy.dcorT_test(x3r, y2r),
        dcor and (lambda: dcor.independence.distance_correlation_t_test(x3, y2)),
        None,
    )
    out["mvnorm_test, d = 3"] = (
        lambda: es.mvnorm_test(x3, n_resamples=B, rng=0),
        lambda: energy.mvnorm_test(x3r, R=B),
        None,
        None,
    )
    out["normal_test"] = (
        lambda: es.normal_test(x1, n_resamples=B, rng=0),
        lambda: energy.normal_test(x1r, R=B),
        None,
        None,
    )
    counts = rng.poisson(3.0, size=n)
    countsr = ro.IntVector(counts.tolist())
    out["poisson_test"] = (
        lambda: es.poisson_test(counts, n_resamples=B, rng=0),
        lambda: energy.poisson_tests(countsr, R=B),
        None,
        None,
    )
    out["energy_gof, normal (R: normal.test)"] = (
        lambda: es.energy_gof(x1, scipy.stats.norm, n_resamples=B, rng=0),
        lambda: energy.normal_test(x1r, R=B),
        None,
        None,
    )
    out["mutual_independence_test, d = 3"] = (
        lambda: es.mutual_independence_test(x3, n_resamples=B, rng=0),
        lambda: energy.mutualIndep_test(x3r, R=B),
        None,
        None,
    )
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    C = rng.normal(size=(n, 2)) + centres[np.arange(n) % 3]
    Cr = rm(C)
    out["one KGroups start, k = 3"] = (
        lambda: es.KGroups(3, n_init=1, random_state=0).fit(C),
        lambda: energy.kgroups(Cr, 3, nstart=1),
        None,
        None,
    )
    return out


def _seconds(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run(sizes, tests, repeats: int, budget: float, out_rows: list, peers=("dcor", "hyppo")):
    ro, _, _ = _r()
    for n in sizes:
        rng = np.random.default_rng(n)
        table = cases(n, rng)
        for name, calls in table.items():
            if tests and not any(t in name for t in tests):
                continue
            tools = dict(zip(("energystats", "R", "dcor", "hyppo"), calls))
            tools = {k: v for k, v in tools.items() if v and k in ("energystats", "R", *peers)}
            ro.r("set.seed(1)")
            best = {k: _seconds(v) for k, v in tools.items()}  # the first call warms up
            rounds = 1 if max(best.values()) > budget else repeats
            for _ in range(rounds):
                for k, v in tools.items():
                    best[k] = min(best[k], _seconds(v))
            row = {"test": name, "n": n, **{f"{k}_s": best[k] for k in best}}
            for k in ("R", "dcor", "hyppo"):
                if k in best:
                    row[f"{k}_ratio"] = best[k] / best["energystats"]
            out_rows.append(row)
            shown = "  ".join(f"{k} {row[f'{k}_ratio']:7.2f}x" for k in ("R", "dcor", "hyppo")
                              if f"{k}_ratio" in row)
            ours = best["energystats"] * 1e3
            print(f"{name:40s} n = {n:5d}  energystats {ours:9.2f} ms  {shown}", flush=True)


def _table(rows, sizes):
    names = list(dict.fromkeys(r["test"] for r in rows))
    lines = ["| R time / energystats time | " + " | ".join(f"n = {n:,}" for n in sizes) + " |",
             "|---" * (len(sizes) + 1) + "|"]
    for name in names:
        cells = []
        for n in sizes:
            match = [r for r in rows if r["test"] == name and r["n"] == n]
            cells.append(f"{match[0]['R_ratio']:.2f}" if match and "R_ratio" in match[0] else "")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for peer in ("dcor", "hyppo"):
        peer_names = [m for m in names if any(f"{peer}_ratio" in r for r in rows if r["test"] == m)]
        if not peer_names:
            continue
        lines += ["", f"| {peer} time / energystats time | "
                  + " | ".join(f"n = {n:,}" for n in sizes) + " |", "|---" * (len(sizes) + 1) + "|"]
        for name in peer_names:
            cells = []
            for n in sizes:
                match = [r for r in rows if r["test"] == name and r["n"] == n]
                cells.append(f"{match[0][f'{peer}_ratio']:.2f}"
                             if match and f"{peer}_ratio" in match[0] else "")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows, path: str):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 5))
    colours = plt.get_cmap("tab20").colors
    for i, name in enumerate(dict.fromkeys(r["test"] for r in rows)):
        pts = sorted((r["n"], r["R_ratio"]) for r in rows if r["test"] == name and "R_ratio" in r)
        ax.plot(*zip(*pts), marker="osD^v<>"[i % 7], color=colours[2 * (i % 10) + i // 10],
                linestyle="-" if i < 7 else "--", label=name)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(2.0, color="grey", linewidth=0.8, linestyle="--")
    ax.set(xscale="log", yscale="log", xlabel="n (points)",
           ylabel="R's time / energystats' time (above 1: energystats faster)",
           title="energystats against R's energy, B = 999")
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _read(path: str) -> list[dict]:
    """The rows of a CSV written by ``--out``: numbers as numbers, empty cells left out."""
    with open(path, newline="") as fh:
        rows = [{k: v for k, v in r.items() if v != ""} for r in csv.DictReader(fh)]
    for r in rows:
        for k in r:
            if k != "test":
                r[k] = int(r[k]) if k == "n" else float(r[k])
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--tests", nargs="*", default=[], help="substrings of the test names")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=30.0,
                        help="seconds above which a cell runs once")
    parser.add_argument("--out", help="CSV of every cell (times and ratios)")
    parser.add_argument("--plot", help="PNG of R's time over energystats' against n")
    parser.add_argument("--peers", nargs="*", default=["dcor", "hyppo"],
                        help="the peers run beside R (hyppo takes minutes a cell from n = 1,000)")
    parser.add_argument("--from-csv", help="print (and --plot) a saved run instead of running")
    args = parser.parse_args()
    if args.from_csv:
        rows = _read(args.from_csv)
        print(_table(rows, sorted({r["n"] for r in rows})))
        if args.plot:
            plot(rows, args.plot)
        return 0
    warnings.filterwarnings("ignore", message="The number of replications is low")  # hyppo, B = 999
    try:
        commit = subprocess.run(["git", "-C", os.path.dirname(es.__file__), "rev-parse", "--short",
                                 "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    dcor, hyi, _ = _peers()
    print(f"energystats {es.__version__} ({commit}, {es.__file__}); dcor "
          f"{getattr(dcor, '__version__', 'absent')}; hyppo {'present' if hyi else 'absent'}; "
          f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    rows = []
    run(args.sizes, args.tests, args.repeats, args.budget, rows, tuple(args.peers))
    print()
    print(_table(rows, args.sizes))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        keys = list(dict.fromkeys(k for r in rows for k in r))
        with open(args.out, "w", newline="") as fh:
            writer = csv.DictWriter(fh, keys)
            writer.writeheader()
            writer.writerows(rows)
    if args.plot:
        plot(rows, args.plot)


if __name__ == "__main__":
    sys.exit(main())
