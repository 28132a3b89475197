"""Past 10^6 points: the random-projection energy test and Nyström kernel k-groups, each
figure beside the floor of this machine measured in the same run.

Run: .venv/bin/python benchmarks/bench_approximations.py [--quick] [--ten-million] [--no-r]

First the floors of this machine: its memory read bandwidth, one ``np.argsort`` of n
doubles, numpy's float64 matrix-product rate on every core. Then each large case runs in
a fresh process, which reports its time, its peak resident set (VmHWM) and its resident
set just before the call (the data and the imported modules), all with the default
configuration (working memory 1 GiB) unless said:

* the projection test (L = 50 directions, 99 relabelings, d = 10, k = 2) at n = 10^5 and
  10^6, and 10^7 with ``--ten-million``. Its floor: one argsort of n doubles per
  projection, on both cores, and per relabeling and projection one pass over n one-byte
  labels at the measured bandwidth. The relabelings themselves (numpy's ``permuted``,
  the same ones as before, so the same p-value) are drawn one after the other on one
  core: their time is measured here too and printed beside the floor;
* Nyström kernel k-groups (m = 300 landmarks, one start, k-means++) on a mixture of 5
  Gaussians in d = 10 with known labels: at n = 10^6 held (Hartigan on the features,
  which need 2.4 GB: working memory 4 GiB) and mini-batch (``algorithm="lloyd"``,
  ``batch_size=10_000``, default working memory), and mini-batch at n = 10^7 with
  ``--ten-million``. Floor of the mini-batch fit: each pass over all points forms the
  kernel rows to the landmarks and their products with the centres, 2 n m (d + k) flops
  at the matrix-product rate;
* R energy's eqdist.etest at n = 10,000 beside the exact and the projection test at that
  size (R holds the n x n distance matrix: it cannot reach 10^6).

``--quick`` divides the sizes by 10.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from _timing import bandwidth, best_of, gemm_rate, load, run_fresh, sort_seconds

PROJECTION = r"""
import json, sys, time
import numpy as np
import energystats as es
n = int(sys.argv[1])
rng = np.random.default_rng(1)
X = rng.normal(size=(n, 10))
labels = np.arange(n) % 2
X[labels == 1, 0] += 0.01
before = _rss_mib()
t0 = time.perf_counter()
res = es.energy_test(X, labels, n_resamples=99, rng=0, approximation="projection", n_projections=50)
print(json.dumps({"seconds": time.perf_counter() - t0, "pvalue": res.pvalue,
                  "peak_mib": _peak_mib(), "before_mib": before}))
"""

NYSTROEM = r"""
import json, sys, time
import numpy as np
import energystats as es
from energystats._metrics import accuracy
n, batch, memory = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
es.set_config(working_memory=memory)
rng = np.random.default_rng(1)
centres = rng.normal(0, 1.0, (5, 10))
codes = rng.integers(0, 5, size=n).astype(np.int8)
X = rng.standard_normal((n, 10))
for a in range(0, n, 2**20):
    X[a : a + 2**20] += centres[codes[a : a + 2**20]]
options = dict(algorithm="lloyd", batch_size=batch) if batch else {}
before = _rss_mib()
t0 = time.perf_counter()
km = es.KGroups(5, n_init=1, random_state=0, approximation="nystroem", n_landmarks=300,
               **options).fit(X)
print(json.dumps({"seconds": time.perf_counter() - t0, "accuracy": accuracy(km.labels_, codes),
                  "passes": km.n_iter_, "converged": km.converged_, "peak_mib": _peak_mib(),
                  "before_mib": before}))
"""


def relabeling_seconds(n: int, count: int) -> float:
    """Time to draw ``count`` relabelings of n int8 codes as the test does (one core)."""
    codes = (np.arange(n) % 2).astype(np.int8)
    gen = np.random.default_rng(0)
    rows = min(count, 5)
    t0 = time.perf_counter()
    for _ in range(rows):
        row = codes.copy()
        gen.permuted(row, out=row)
    return (time.perf_counter() - t0) * count / rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes divided by 10")
    parser.add_argument("--ten-million", action="store_true", help="also run n = 10^7")
    parser.add_argument("--no-r", action="store_true")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    cores = os.cpu_count()
    print(f"numpy {np.__version__}; {load()}")
    bw = bandwidth()
    rate = gemm_rate()
    print(
        f"floors of this machine: memory read bandwidth {bw / 1e9:.1f} GB/s (one core); float64 "
        f"matrix products {rate / 1e9:.0f} GFLOP/s (every core)"
    )

    L, B = 50, 99
    sizes = [10**5 // scale, 10**6 // scale] + ([10**7 // scale] if args.ten_million else [])
    for n in sizes:
        t_sort = sort_seconds(n)
        floor = L * t_sort / cores + L * (B + 1) * n / bw
        t_rng = relabeling_seconds(n, B + 1)
        r = run_fresh(PROJECTION, n)
        print(
            f"projection test, n = {n:,}, d = 10, k = 2, L = {L}, {B} relabelings: "
            f"{r['seconds']:.1f} s, p = {r['pvalue']:.3f}; peak RSS {r['peak_mib']:.0f} MiB "
            f"({r['peak_mib'] - r['before_mib']:.0f} MiB beyond the data and modules, "
            f"{r['before_mib']:.0f} MiB); {r['load']}"
        )
        print(
            f"  floor {floor:.1f} s ({L} argsorts of {t_sort:.2f} s on {cores} cores, "
            f"{L * (B + 1)} passes over {n / 2**20:.1f} MiB of labels); the relabelings alone "
            f"{t_rng:.1f} s on one core; achieved / floor {r['seconds'] / floor:.1f}, / (floor + "
            f"relabelings) {r['seconds'] / (floor + t_rng):.1f}"
        )

    m, d, k = 300, 10, 5
    cases = [(10**6 // scale, 0, 4096), (10**6 // scale, 10_000 // scale, 1024)]
    if args.ten_million:
        cases.append((10**7 // scale, 10_000 // scale, 1024))
    for n, batch, memory in cases:
        r = run_fresh(NYSTROEM, n, batch, memory)
        method = (
            f"mini-batch (batches of {batch:,}, {r['passes']} passes over all points)"
            if batch
            else f"held features, Hartigan ({r['passes']} sweeps)"
        )
        line = (
            f"Nystroem k-groups, n = {n:,}, d = {d}, k = {k}, m = {m}, {method}, working memory "
            f"{memory} MiB: {r['seconds']:.1f} s, accuracy {r['accuracy']:.4f}, peak RSS "
            f"{r['peak_mib']:.0f} MiB ({r['peak_mib'] - r['before_mib']:.0f} MiB beyond the data "
            f"and modules); {r['load']}"
        )
        if batch:
            floor = (r["passes"]) * 2.0 * n * m * (d + k) / rate
            line += (
                f"\n  floor of its passes {floor:.1f} s; "
                f"achieved / floor {r['seconds'] / floor:.1f}"
            )
        else:
            floor = 2.0 * n * m * (d + m) / rate
            line += (
                f"\n  floor of forming the features {floor:.1f} s; "
                f"achieved / floor {r['seconds'] / floor:.1f}"
            )
        print(line)

    if not args.no_r:
        import energystats as es
        from energystats._rbridge import r_available, r_call, r_matrix

        ok, reason = r_available()
        if not ok:
            print(f"R not measured: {reason}")
            return
        n = 10_000 // scale
        rng = np.random.default_rng(1)
        X = rng.normal(size=(n, 10))
        labels = np.arange(n) % 2
        xr = r_matrix(X[np.argsort(labels, kind="stable")])
        t_r, _ = best_of(lambda: r_call("eqdist.etest", xr, np.array([n // 2, n // 2]), R=99))
        t_exact, _ = best_of(lambda: es.energy_test(X, labels, n_resamples=99, rng=0))
        t_proj, _ = best_of(
            lambda: es.energy_test(
                X, labels, n_resamples=99, rng=0, approximation="projection", n_projections=50
            )
        )
        print(
            f"n = {n:,}, 99 resamples: R eqdist.etest {t_r:.1f} s; energystats exact {t_exact:.2f} "
            f"s (R / exact = {t_r / t_exact:.0f}); projection, L = 50: {t_proj:.2f} s (R / "
            f"projection = {t_r / t_proj:.0f}); {load()}"
        )


if __name__ == "__main__":
    main()
