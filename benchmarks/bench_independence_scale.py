"""Independence at any n and for many variables (issue 25): each case in a fresh process,
with its time and peak resident memory (VmHWM).

Run: .venv/bin/python benchmarks/bench_independence_scale.py [--quick]

1. Exact dcor at n = 100,000, d = 10 (x and y), the default 1 GiB working memory: two
   passes over tiles of the two distance matrices (no n x n array); beside it, in the same
   run, the exact k-sample energy test at the same n (d = 10, k = 2, 199 relabelings).
2. dcov_test with ``approximation="projection"`` (the default K = 200 directions) and
   ``method="gamma"`` at n = 10^6, d = 10 and 5.
3. The gamma p-value at n = 1,000, d = 5, against R's dcor.test(x, y, R = 999) in the same
   process (R through rpy2, data converted before timing).
4. pairwise_dcor on 100 columns x 10,000 rows with gamma p-values and Holm's correction.

``--quick`` divides the sizes by 10.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CASE = r"""
import json, sys, time
import numpy as np
import pandas as pd
import energystats as es

def peak_mib():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 2**10

kind, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)
before = peak_mib()
t0 = time.perf_counter()
if kind == "dcor":
    x = rng.normal(size=(n, 10)); y = rng.normal(size=(n, 10)) + 0.1 * np.abs(x)
    t0 = time.perf_counter()
    out = {"value": es.dcor(x, y)}
elif kind == "energy_test":
    x = rng.normal(size=(n, 10)); labels = np.arange(n) % 2
    t0 = time.perf_counter()
    out = {"pvalue": es.energy_test(x, labels, n_resamples=199, rng=0).pvalue}
elif kind == "projection":
    x = rng.normal(size=(n, 10))
    y = np.c_[np.abs(x[:, :2]) + rng.normal(size=(n, 2)), rng.normal(size=(n, 3))]
    t0 = time.perf_counter()
    res = es.dcov_test(x, y, approximation="projection", method="gamma", rng=1)
    out = {"pvalue": res.pvalue, "statistic": res.statistic}
elif kind == "pairwise":
    X = pd.DataFrame(rng.normal(size=(n, 100)), columns=[f"v{i}" for i in range(100)])
    X["v1"] = X["v0"] ** 2 + rng.normal(size=n)
    t0 = time.perf_counter()
    res = es.pairwise_dcor(X)
    out = {"rejected": int(res.table["reject"].sum()), "pairs": len(res.table)}
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "peak_mib": peak_mib(), "before_mib": before, **out}))
"""


def fresh(kind: str, n: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CASE, kind, str(n)], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def gamma_against_r(n: int):
    import numpy as np
    from _timing import best_of

    import energystats as es
    from energystats._rbridge import r_available, r_call, r_matrix

    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 5))
    y = rng.normal(size=(n, 5)) + 0.3 * x**2
    first, _ = best_of(lambda: es.dcor_test(x, y, method="gamma"), 1)
    ours, res = best_of(lambda: es.dcor_test(x, y, method="gamma"), 5)
    line = (
        f"gamma p-value, n = {n:,}, d = 5: energystats {ours * 1e3:.1f} ms "
        f"(first call {first * 1e3:.1f} ms), p = {res.pvalue:.3g}"
    )
    if r_available()[0]:
        X, Y = r_matrix(x), r_matrix(y)
        r_seconds, _ = best_of(lambda: r_call("dcor.test", X, Y, R=999), 2)
        line += (
            f"; R dcor.test(R = 999) {r_seconds:.3f} s: {r_seconds / ours:.0f}x "
            f"({r_seconds / first:.0f}x the first call)"
        )
    print(line, flush=True)


def main():
    from energystats._scale.projection import N_PROJECTIONS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    d = fresh("dcor", 100_000 // scale)
    e = fresh("energy_test", 100_000 // scale)
    print(
        f"exact dcor, n = {100_000 // scale:,}, d = 10: {d['seconds']:.1f} s, peak "
        f"{d['peak_mib']:.0f} MiB (before the call {d['before_mib']:.0f} MiB); exact energy_test "
        f"at the same n (B = 199): {e['seconds']:.1f} s, peak {e['peak_mib']:.0f} MiB; ratio dcor "
        f"/ energy_test {d['seconds'] / e['seconds']:.2f}",
        flush=True,
    )
    p = fresh("projection", 10**6 // scale)
    print(
        f"projection dcov_test (K = {N_PROJECTIONS}, gamma), n = {10**6 // scale:,}, d = 10 and 5: "
        f"{p['seconds']:.1f} s, peak {p['peak_mib']:.0f} MiB, p = {p['pvalue']:.3g}",
        flush=True,
    )
    gamma_against_r(1000)
    w = fresh("pairwise", 10_000 // scale)
    print(
        f"pairwise_dcor, 100 columns x {10_000 // scale:,} rows, gamma p-values: "
        f"{w['seconds']:.1f} s, peak {w['peak_mib']:.0f} MiB, {w['rejected']} of {w['pairs']} "
        "pairs rejected (Holm)",
        flush=True,
    )


if __name__ == "__main__":
    main()
