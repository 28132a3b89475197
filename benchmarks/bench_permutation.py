"""Time energy_test against R's eqdist.etest and dcor's energy_test (same data, same run).

Run: .venv/bin/python benchmarks/bench_permutation.py

Cases (from the issue): n = 1,000 in three groups, d = 5, 999 resamples;
n = 4,000 in two groups, d = 5, 199 resamples (with the peak memory of the
call, from tracemalloc); one-dimensional data with exponent 1, n = 10,000 in
two groups, 999 resamples. R computes its statistic on the same data through
rpy2 with the data already converted. Times are the best of three runs for
both energystats and R (one run for the one-dimensional case and for dcor,
whose runs are long). For the one-dimensional case R is run with fewer
resamples (its cost is O(n^2) per resample) and the ratio is per resample.
dcor is timed when it is installed, with R's number of resamples.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
from _timing import best_of

import energystats as es
from energystats._rbridge import r_call, r_field, r_matrix, r_versions, to_numpy

try:
    import dcor
except ImportError:  # dcor is an optional peer
    dcor = None


def peak_memory(fn):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def run_case(label, X, sizes, n_resamples, r_resamples, repeat=3):
    codes = np.repeat(np.arange(len(sizes)), sizes)
    t_es, res = best_of(lambda: es.energy_test(X, codes, statistic="E", n_resamples=n_resamples, rng=0), repeat)
    xr = r_matrix(X)
    r_call("set.seed", 1)
    t_r, r_out = best_of(lambda: r_call("eqdist.etest", xr, np.asarray(sizes), R=r_resamples), repeat)
    r_stat = to_numpy(r_field(r_out, "statistic"))[0]
    r_p = to_numpy(r_field(r_out, "p.value"))[0]
    per_es, per_r = t_es / n_resamples, t_r / r_resamples
    line = (
        f"{label:<34} energystats {t_es:7.2f} s ({n_resamples} resamples), R {t_r:7.2f} s ({r_resamples}); "
        f"R/es per resample {per_r / per_es:7.1f}; statistic rel. diff {abs(res.statistic - r_stat) / r_stat:.1e}; "
        f"p {res.pvalue:.3f} vs R {r_p:.3f}"
    )
    if dcor is not None:
        samples = [X[codes == j] for j in range(len(sizes))]
        t_d, _ = best_of(lambda: dcor.homogeneity.energy_test(*samples, num_resamples=r_resamples, random_state=0), 1)
        line += f"; dcor {t_d:.2f} s ({r_resamples}), dcor/es per resample {t_d / r_resamples / per_es:.1f}"
    print(line)
    return res


def main():
    print(f"versions: {r_versions()}; dcor {getattr(dcor, '__version__', 'not installed')}")
    rng = np.random.default_rng(2026)
    X = rng.normal(size=(1000, 5))
    run_case("n=1,000, k=3, d=5", X, [333, 333, 334], 999, 999)
    X = rng.normal(size=(4000, 5))
    run_case("n=4,000, k=2, d=5", X, [2000, 2000], 199, 199)
    codes = np.repeat([0, 1], 2000)
    mem = peak_memory(lambda: es.energy_test(X, codes, statistic="E", n_resamples=199, rng=0))
    print(f"  peak memory of energy_test at n=4,000: {mem:.0f} MiB (distance matrix alone: {4000**2 * 8 / 2**20:.0f} MiB)")
    x = rng.normal(size=10_000)
    run_case("1-D exponent 1, n=10,000, k=2", x[:, None], [5000, 5000], 999, 20, repeat=1)


if __name__ == "__main__":
    main()
