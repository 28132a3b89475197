"""choose_k, cluster_test and significant_clusters at n = 1,000, d = 2, beside one KGroups fit.

Run: .venv/bin/python benchmarks/bench_choose_k.py [--before] [--n-jobs 2]

The data are R's ``quakes`` (lat, long; n = 1,000) when R is installed, else a look-alike:
a curved band of 800 points and a compact group of 200. Each time is one run (the calls
are seconds long). ``--before`` also times the previous procedure of cluster_test (ten
k-groups restarts per fit, ``n_init=10``) and of significant_clusters, which took 56 s
(k = 2), 69 s (k = 3) and 375 s on this machine when the issue was filed.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _timing import load

import energystats as es


def quakes() -> tuple[np.ndarray, str]:
    """R's quakes[, c("lat", "long")], or a look-alike when R is missing."""
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "quakes.csv"
            subprocess.run(
                [
                    "Rscript",
                    "-e",
                    f'write.csv(quakes[, c("lat", "long")], "{path}", row.names = FALSE)',
                ],
                check=True,
                capture_output=True,
                timeout=60,
            )
            return pd.read_csv(path).to_numpy(), "R's quakes (lat, long)"
    except (OSError, subprocess.SubprocessError):
        gen = np.random.default_rng(0)
        t = gen.uniform(0, 1, 800)
        band = np.column_stack([-35 + 20 * t, 180 + 4 * np.sin(3 * t)]) + gen.normal(
            0, 1.0, (800, 2)
        )
        group = gen.normal([-18, 168], [2.0, 1.5], (200, 2))
        return np.vstack([band, group]), "a look-alike of R's quakes (R not found)"


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--before", action="store_true", help="also time the previous procedures (minutes)"
    )
    parser.add_argument("--n-jobs", type=int, default=2, help="n_jobs of the parallel runs")
    args = parser.parse_args()
    X, name = quakes()
    print(f"{name}: n = {X.shape[0]}, d = {X.shape[1]}; {load()}")
    t2, _ = timed(lambda: es.KGroups(2, random_state=0).fit(X))
    t3, _ = timed(lambda: es.KGroups(3, random_state=0).fit(X))
    print(f"one KGroups fit (n_init=10): k = 2 {t2:.2f} s, k = 3 {t3:.2f} s")
    rows = []

    def record(what, seconds, result, unit):
        rows.append((what, seconds, seconds / unit))
        print(
            f"  {what:<58} {seconds:7.1f} s  ({seconds / unit:5.0f} KGroups fits)  {result}",
            flush=True,
        )

    for k, unit in ((2, t2), (3, t3)):
        for jobs in (None, args.n_jobs):
            seconds, res = timed(lambda: es.cluster_test(X, k, rng=0, n_jobs=jobs))
            record(
                f"cluster_test k = {k}, n_jobs = {jobs}",
                seconds,
                f"p = {res.pvalue:.3g}, J = {res.n_components}",
                unit,
            )
        if args.before:
            seconds, res = timed(lambda: es.cluster_test(X, k, rng=0, n_init=10))
            record(
                f"cluster_test k = {k}, before (n_init=10)", seconds, f"p = {res.pvalue:.3g}", unit
            )
    for jobs in (None, args.n_jobs):
        seconds, res = timed(lambda: es.choose_k(X, rng=0, n_jobs=jobs))
        record(
            f"choose_k k_max = 10 (unimodal), n_jobs = {jobs}",
            seconds,
            f"k = {res.k}, gap's k = {res.k_gap}",
            t2,
        )
    seconds, res = timed(
        lambda: es.choose_k(X, null="gaussian", n_references=0, rng=0, n_jobs=args.n_jobs)
    )
    record(f"choose_k k_max = 10 (gaussian), n_jobs = {args.n_jobs}", seconds, f"k = {res.k}", t2)
    for jobs in (None, args.n_jobs):
        seconds, res = timed(lambda: es.significant_clusters(X, rng=0, n_jobs=jobs))
        record(
            f"significant_clusters, n_jobs = {jobs}",
            seconds,
            f"{res.n_clusters} clusters, {len(res.nodes)} tests",
            t2,
        )
    if args.before:
        seconds, res = timed(lambda: es.significant_clusters(X, rng=0, n_init=10))
        record(
            "significant_clusters, before (n_init=10)", seconds, f"{res.n_clusters} clusters", t2
        )


if __name__ == "__main__":
    main()
