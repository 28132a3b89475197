"""The pairwise operator at scale: streamed energy_test and KGroups at n = 100,000, the
cost of streaming against the dense matrix at n = 15,000, and R's eqdist.etest beside them.

Run: .venv/bin/python benchmarks/bench_operator.py [--quick] [--no-r]

Every case runs in a fresh Python process, which reports its wall time and its peak
resident set (VmHWM, which exec resets, so nothing of this parent process is counted).

* numpy's float64 matrix-product rate on this machine, measured first in this run, on
  a product shaped like the test's (4096 x 4096 times 4096 x 200);
* energy_test at n = 100,000, d = 10, k = 2, 199 relabelings with the default
  working_memory (1 GiB): the 8 n^2 = 75 GiB matrix cannot be held, so it is
  recomputed in tiles, once for all 199 relabelings. Achieved rate
  2 n^2 B (k - 1) / time against numpy's;
* one KGroups start (k-means++) at n = 100,000, d = 10, k = 5: time and sweeps;
* n = 15,000 (the 1.7 GiB matrix fits a 4 GiB budget, not the default 1 GiB):
  energy_test (199 relabelings) and one KGroups start, dense (working_memory=4096;
  energy_test made to hold the matrix, which it would not for one pass) against
  streamed (working_memory=256, a quarter of the matrix in --quick runs);
* R energy's eqdist.etest at n = 15,000 through rpy2 (19 resamples, per-resample ratio;
  R holds the 1.7 GiB distance matrix and cannot reach n = 100,000).

``--quick`` divides the sizes by 5 (for a smoke run).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

CASE = r"""
import json, sys, time
import numpy as np
import energystats as es

def peak_mib():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 2**10

kind, n, working_memory, path = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
if path == "dense":  # hold the matrix even where one streamed pass would do
    from energystats._homogeneity import permutation
    from energystats._operator import semimetric_matrix
    from energystats._operator.dense import DenseOperator
    def held(X, sm, *use, **options):
        return DenseOperator(semimetric_matrix(X, sm), owned=True)

    permutation.make_operator = held
rng = np.random.default_rng(1)
if kind == "test":
    X = rng.normal(size=(n, 10))
    labels = np.arange(n) % 2
    run = lambda: es.energy_test(X, labels, n_resamples=199, rng=0)
else:
    k = 5
    codes = rng.integers(0, k, size=n)
    X = rng.normal(size=(n, 10)) + rng.normal(0, 2.5, size=(k, 10))[codes]
    run = lambda: es.KGroups(k, n_init=1, random_state=0).fit(X)
before = peak_mib()
with es.config_context(working_memory=working_memory):
    t0 = time.perf_counter()
    out = run()
    seconds = time.perf_counter() - t0
result = {"seconds": seconds, "peak_mib": peak_mib(), "before_mib": before}
if kind == "test":
    result.update(pvalue=out.pvalue, statistic=out.statistic)
else:
    result.update(sweeps=out.n_iter_, W=out.W_)
print(json.dumps(result))
"""


def run_case(kind: str, n: int, working_memory: float, path: str = "auto") -> dict:
    """One case in a fresh process; ``path="dense"`` makes energy_test hold the matrix."""
    out = subprocess.run(
        [sys.executable, "-c", CASE, kind, str(n), str(working_memory), path],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def matmul_rate() -> float:
    """numpy's float64 GEMM rate (GFLOP/s) on a (4096 x 4096) @ (4096 x 200) product, best of 3."""
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(4096, 4096)), rng.normal(size=(4096, 200))
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        A @ B
        best = min(best, time.perf_counter() - t0)
    return 2 * 4096 * 4096 * 200 / best / 1e9


def r_etest_per_resample(n: int, resamples: int) -> float | None:
    from energystats._rbridge import r_available, r_call, r_matrix

    ok, reason = r_available()
    if not ok:
        print(f"R not measured: {reason}")
        return None
    rng = np.random.default_rng(1)
    xr = r_matrix(rng.normal(size=(n, 10)))
    t0 = time.perf_counter()
    r_call("eqdist.etest", xr, np.array([n // 2, n - n // 2]), R=resamples)
    return (time.perf_counter() - t0) / resamples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes divided by 5")
    parser.add_argument("--no-r", action="store_true", help="skip R's eqdist.etest")
    args = parser.parse_args()
    scale = 5 if args.quick else 1
    big, mid = 100_000 // scale, 15_000 // scale
    rate = matmul_rate()
    print(f"numpy {np.__version__}: float64 matrix product {rate:.1f} GFLOP/s on this machine")

    t = run_case("test", big, 1024)
    flops = 2 * big**2 * 199 / t["seconds"] / 1e9
    print(
        f"\nenergy_test n = {big:,}, d = 10, k = 2, 199 relabelings (streamed, default 1 GiB "
        f"budget): {t['seconds']:.1f} s, {flops:.1f} GFLOP/s = {flops / rate:.0%} of numpy's rate "
        "counting 2 n^2 B (k - 1) flops (the products done, on the tiles on and above the "
        f"diagonal: {flops / 2:.1f} GFLOP/s = {flops / 2 / rate:.0%}); peak RSS "
        f"{t['peak_mib']:.0f} MiB ({t['before_mib']:.0f} MiB before the call); the matrix would "
        f"need {8 * big**2 / 2**30:.0f} GiB"
    )
    k = run_case("kgroups", big, 1024)
    print(
        f"KGroups n = {big:,}, d = 10, k = 5, one k-means++ start (streamed): {k['seconds']:.1f} "
        f"s, {k['sweeps']} sweeps, peak RSS {k['peak_mib']:.0f} MiB"
    )

    small = min(256.0, 8 * mid**2 / 2**20 / 4)  # a budget that cannot hold the matrix
    print(
        f"\nn = {mid:,}: dense (working_memory 4096 MiB) against streamed ({small:.0f} MiB), each "
        "in a fresh process"
    )
    print(
        f"{'case':<28} {'dense s':>8} {'streamed s':>11} {'streamed/dense':>15} {'dense peak':>11} "
        f"{'streamed peak':>14}"
    )
    for kind, label in (
        ("test", "energy_test, 199 relabelings"),
        ("kgroups", "KGroups, one start, k = 5"),
    ):
        dense, streamed = run_case(kind, mid, 4096, "dense"), run_case(kind, mid, small)
        same = (
            (dense["pvalue"] == streamed["pvalue"])
            if kind == "test"
            else abs(dense["W"] - streamed["W"]) <= 1e-9 * dense["W"]
        )
        print(
            f"{label:<28} {dense['seconds']:>8.2f} {streamed['seconds']:>11.2f} "
            f"{streamed['seconds'] / dense['seconds']:>15.2f} {dense['peak_mib']:>8.0f} MiB "
            f"{streamed['peak_mib']:>10.0f} MiB   same result: {same}"
        )
    if not args.no_r:
        per_r = r_etest_per_resample(mid, 19)
        if per_r is not None:
            ours = run_case("test", mid, 1024)["seconds"] / 199
            print(
                f"\nR eqdist.etest n = {mid:,}, 19 resamples: {per_r:.3f} s per resample; "
                f"energystats {ours:.4f} s per resample (default budget): R / energystats = "
                f"{per_r / ours:.0f}"
            )


if __name__ == "__main__":
    main()
