"""Time energy_test against R's eqdist.etest and dcor's energy_test (same data, same run),
beside the floor of this machine.

Run: .venv/bin/python benchmarks/bench_permutation.py

* n = 1,000 in three groups, d = 5, 999 resamples, statistic E (R's): in a fresh process,
  after a warm-up call on 200 points, the first call at n = 1,000 (what a session's first
  test costs) and the best of five repeated calls, with R's eqdist.etest timed in the same
  process (best of three). Floor: the block sums of 1,000 labelings need z_i' D z_j for the
  k - 1 = 2 indicator columns of each, n^2 (k - 1) multiply-adds a labeling on the upper
  triangle, at numpy's float64 matrix-product rate measured in this run, plus the draw of
  the relabelings (numpy's permuted, one core), timed here;
* n = 4,000 in two groups, d = 5, 199 resamples (with the peak memory of the call, from
  tracemalloc);
* one-dimensional data with exponent 1, n = 10,000 in two groups, 999 resamples (R with 20
  resamples, its cost being O(n^2) per resample; the ratio is per resample).

dcor is timed when it is installed, with R's number of resamples.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
from _timing import best_of, gemm_rate, load, run_fresh

import energystats as es
from energystats._rbridge import r_call, r_field, r_matrix, r_versions, to_numpy

try:
    import dcor
except ImportError:  # dcor is an optional peer
    dcor = None

FIRST = r"""
import json, time
import numpy as np
import energystats as es
rng = np.random.default_rng(2026)
X = rng.normal(size=(1000, 5))
sizes = [333, 333, 334]
codes = np.repeat(np.arange(3), sizes)
es.energy_test(X[::5], codes[::5], statistic="E", n_resamples=99, rng=0)  # warm-up on smaller data
times = []
for _ in range(6):
    t0 = time.perf_counter()
    res = es.energy_test(X, codes, statistic="E", n_resamples=999, rng=0)
    times.append(time.perf_counter() - t0)
# R loaded after our calls: embedding it slows the first BLAS call
from energystats._rbridge import r_call, r_matrix
xr = r_matrix(X)
r_call("set.seed", 1)
r_times = []
for _ in range(3):
    t0 = time.perf_counter()
    r_call("eqdist.etest", xr, np.asarray(sizes), R=999)
    r_times.append(time.perf_counter() - t0)
print(json.dumps({"first": times[0], "repeated": min(times[1:]), "r": min(r_times),
                  "pvalue": res.pvalue}))
"""


def peak_memory(fn):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def run_case(label, X, sizes, n_resamples, r_resamples, repeat=3):
    codes = np.repeat(np.arange(len(sizes)), sizes)
    t_es, res = best_of(
        lambda: es.energy_test(X, codes, statistic="E", n_resamples=n_resamples, rng=0), repeat
    )
    xr = r_matrix(X)
    r_call("set.seed", 1)
    t_r, r_out = best_of(
        lambda: r_call("eqdist.etest", xr, np.asarray(sizes), R=r_resamples), repeat
    )
    r_stat = to_numpy(r_field(r_out, "statistic"))[0]
    r_p = to_numpy(r_field(r_out, "p.value"))[0]
    per_es, per_r = t_es / n_resamples, t_r / r_resamples
    line = (
        f"{label:<34} energystats {t_es:7.2f} s ({n_resamples} resamples), R {t_r:7.2f} s "
        f"({r_resamples}); R/es per resample {per_r / per_es:7.1f}; statistic rel. diff "
        f"{abs(res.statistic - r_stat) / r_stat:.1e}; p {res.pvalue:.3f} vs R {r_p:.3f}"
    )
    if dcor is not None:
        samples = [X[codes == j] for j in range(len(sizes))]
        t_d, _ = best_of(
            lambda: dcor.homogeneity.energy_test(
                *samples, num_resamples=r_resamples, random_state=0
            ),
            1,
        )
        line += (
            f"; dcor {t_d:.2f} s ({r_resamples}), "
            f"dcor/es per resample {t_d / r_resamples / per_es:.1f}"
        )
    print(line + f"; {load()}")
    return res


def floor_seconds(n: int, k: int, labelings: int) -> tuple[float, float]:
    """The floor of the k-sample test: its products at numpy's float64 rate, and the draw of
    its relabelings (one core)."""
    products = 2.0 * n * n / 2 * (k - 1) * labelings / gemm_rate()
    block = np.tile(np.repeat(np.arange(k), n // k + 1)[:n].astype(np.int8), (labelings, 1))
    t0 = time.perf_counter()
    np.random.default_rng(0).permuted(block, axis=1, out=block)
    return products, time.perf_counter() - t0


def main():
    print(f"versions: {r_versions()}; dcor {getattr(dcor, '__version__', 'not installed')}")
    products, draw = floor_seconds(1000, 3, 1000)
    r = run_fresh(FIRST)
    floor = products + draw
    print(
        f"n=1,000, k=3, d=5, 999 resamples, in a fresh process: first call {r['first'] * 1e3:.0f} "
        f"ms, repeated {r['repeated'] * 1e3:.0f} ms; R eqdist.etest {r['r'] * 1e3:.0f} ms in the "
        f"same process: R / first call {r['r'] / r['first']:.1f}, R / repeated "
        f"{r['r'] / r['repeated']:.1f}; p {r['pvalue']:.3f}; {r['load']}"
    )
    print(
        f"  floor {floor * 1e3:.0f} ms (products {products * 1e3:.0f} ms at numpy's float64 rate "
        f"on the upper triangle, relabelings {draw * 1e3:.0f} ms): first call / floor "
        f"{r['first'] / floor:.1f}, repeated / floor {r['repeated'] / floor:.1f}"
    )
    rng = np.random.default_rng(2026)
    X = rng.normal(size=(1000, 5))
    run_case("n=1,000, k=3, d=5", X, [333, 333, 334], 999, 999)
    X = rng.normal(size=(4000, 5))
    run_case("n=4,000, k=2, d=5", X, [2000, 2000], 199, 199)
    codes = np.repeat([0, 1], 2000)
    mem = peak_memory(lambda: es.energy_test(X, codes, statistic="E", n_resamples=199, rng=0))
    print(
        f"  peak memory of energy_test at n=4,000: {mem:.0f} MiB (distance matrix alone: "
        f"{4000**2 * 8 / 2**20:.0f} MiB)"
    )
    x = rng.normal(size=10_000)
    run_case("1-D exponent 1, n=10,000, k=2", x[:, None], [5000, 5000], 999, 20, repeat=1)


if __name__ == "__main__":
    main()
