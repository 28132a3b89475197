"""Time the distance covariance family against R's energy and the dcor package, same data,
same run.

Run: .venv/bin/python benchmarks/bench_independence.py [--quick]

Cases (issue 24):

1. dcor_test at n = 1,000, d = 5 (x and y), B = 999 permutations: energystats against
   R ``dcor.test(x, y, R = 999)`` (through rpy2, data converted before timing) and
   ``dcor.independence.distance_covariance_test(x, y, num_resamples=999)``; first call
   and best of three.
2. One-dimensional dcor at n = 10^6: energystats' O(n log n) path against dcor's compiled
   merge-sort algorithm (``method="mergesort"``, numba; warmed up on small data first)
   and R's ``dcor2d`` (the same O(n log n) algorithm in C).
3. One-dimensional dcor_test at n = 10^5, B = 199: energystats alone (R's dcov.test
   would build the 10^5 x 10^5 matrix).

Each line prints the seconds and the ratio peer / energystats (above 1: energystats is
faster). ``--quick`` runs smaller cases (n = 300, n = 10^5, n = 10^4).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _timing import best_of

import energystats as es
from energystats._rbridge import r_available, r_call, r_matrix, r_versions, to_numpy

try:
    import dcor
except ImportError:  # dcor is an optional peer
    dcor = None


def line(label, ours, peers):
    cells = [f"energystats {ours:8.3f} s"]
    for name, seconds in peers:
        if seconds is not None:
            cells.append(f"{name} {seconds:8.3f} s ({seconds / ours:5.1f}x)")
    print(f"{label:<44}" + "   ".join(cells), flush=True)


def permutation_case(n, B, repeat):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 5))
    y = rng.normal(size=(n, 5)) + 0.3 * x**2
    first = time.perf_counter()
    res = es.dcor_test(x, y, n_resamples=B, rng=1)
    first = time.perf_counter() - first
    ours, _ = best_of(lambda: es.dcor_test(x, y, n_resamples=B, rng=1), repeat)
    peers = []
    if r_available()[0]:
        X, Y = r_matrix(x), r_matrix(y)
        r_seconds, r_res = best_of(lambda: r_call("dcor.test", X, Y, R=B), repeat)
        peers.append(("R dcor.test", r_seconds))
        assert abs(to_numpy(r_res.rx2("statistic"))[0] - res.statistic) < 1e-10
    if dcor is not None:
        seconds, _ = best_of(
            lambda: dcor.independence.distance_covariance_test(x, y, num_resamples=B), 1
        )
        peers.append(("dcor", seconds))
    line(f"dcor_test n = {n:,}, d = 5, B = {B} (first call)", first, peers)
    line(f"dcor_test n = {n:,}, d = 5, B = {B} (best of {repeat})", ours, peers)


def one_dimensional_case(n):
    rng = np.random.default_rng(2)
    x = rng.normal(size=n)
    y = x**2 + rng.normal(size=n)
    ours, value = best_of(lambda: es.dcor(x, y), 2)
    peers = []
    if dcor is not None:
        dcor.distance_correlation(x[:100], y[:100], method="mergesort")  # numba compiles here
        seconds, theirs = best_of(lambda: dcor.distance_correlation(x, y, method="mergesort"), 2)
        assert abs(theirs - value) < 1e-8, (theirs, value)
        peers.append(("dcor mergesort", seconds))
    if r_available()[0]:
        seconds, r_value = best_of(lambda: r_call("dcor2d", x, y), 2)
        assert abs(np.sqrt(to_numpy(r_value)[0]) - value) < 1e-8
        peers.append(("R dcor2d", seconds))
    line(f"one-dimensional dcor, n = {n:,}", ours, peers)


def one_dimensional_test(n, B):
    rng = np.random.default_rng(3)
    x = rng.normal(size=n)
    y = np.cos(3 * x) + rng.normal(size=n)
    seconds, res = best_of(lambda: es.dcor_test(x, y, n_resamples=B, rng=0), 1)
    line(f"one-dimensional dcor_test, n = {n:,}, B = {B}", seconds, [])
    print(f"    p-value {res.pvalue:.4g}, statistic {res.statistic:.6g}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    versions = r_versions() if r_available()[0] else {}
    print(
        f"energystats {es.__version__}; R {versions.get('R', 'absent')}, energy "
        f"{versions.get('energy', '-')}; dcor {getattr(dcor, '__version__', 'absent')}"
    )
    if args.quick:
        permutation_case(300, 199, 1)
        one_dimensional_case(10**5)
        one_dimensional_test(10**4, 99)
    else:
        permutation_case(1000, 999, 3)
        one_dimensional_case(10**6)
        one_dimensional_test(10**5, 199)


if __name__ == "__main__":
    main()
