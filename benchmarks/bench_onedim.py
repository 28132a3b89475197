"""One-dimensional benchmarks: split_1d and energy_distance with rho = |x - y|.

Run: .venv/bin/python benchmarks/bench_onedim.py [--no-r] [--hundred-million]

* split_1d against numpy.sort of the same data (n = 1e5, 1e6, 1e7);
* with ``--hundred-million``: split_1d and energy_distance at n = 1e8 (float64 data alone
  800 MB), each in a fresh process with a 4 GiB working memory, with its time, peak
  resident set and the floor measured in the same run (one np.sort of 1e8 doubles for
  the split; one argsort for the energy distance);
* split_1d against Algorithm 3 of França et al. (eq. 63 evaluated afresh for
  every split, O(n^2)) at n = 2,000 and 20,000;
* energy_distance against scipy.stats.energy_distance (which returns sqrt(E))
  at n = 1e6, and against R's edist (O(n^2), through rpy2) at the sizes R handles.
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import best_of, run_fresh, sort_seconds
from scipy.stats import energy_distance as scipy_energy_distance

import energystats as es

HUNDRED_MILLION = r"""
import json, sys, time
import numpy as np
import energystats as es
kind, n = sys.argv[1], int(sys.argv[2])
es.set_config(working_memory=4096)
x = np.empty(n)
rng = np.random.default_rng(1)
for a in range(0, n, 2**22):  # a two-component mixture, drawn in blocks (no n-sized temporaries)
    b = min(a + 2**22, n)
    t = rng.integers(0, 2, size=b - a)
    x[a:b] = np.where(t == 0, rng.normal(0, 1.5, b - a), rng.normal(1.5, 0.3, b - a))
before = _rss_mib()
t0 = time.perf_counter()
if kind == "split":
    res = es.split_1d(x)
    out = {"value": res.threshold}
else:
    out = {"value": es.energy_distance(x[: n // 2], x[n // 2 :])}
out.update(seconds=time.perf_counter() - t0, peak_mib=_peak_mib(), before_mib=before)
print(json.dumps(out))
"""


def algorithm3(x):
    """França et al. Algorithm 3: sort, then evaluate eq. (63) for every split (O(n^2))."""
    xs = np.sort(x)
    n = len(xs)
    W = np.empty(n - 1)
    for j in range(1, n):
        lo, hi = xs[:j], xs[j:]
        W[j - 1] = ((2 * np.arange(1, j + 1) - 1 - j) / j) @ lo + (
            (2 * np.arange(1, n - j + 1) - 1 - (n - j)) / (n - j)
        ) @ hi
    return int(np.argmin(W)) + 1, W.min()


def mixture(rng, n):
    t = rng.integers(0, 2, size=n)
    return np.where(t == 0, rng.normal(0, 1.5, n), rng.normal(1.5, 0.3, n))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-r", action="store_true", help="skip the comparison with R")
    parser.add_argument(
        "--hundred-million", action="store_true", help="split_1d and energy_distance at n = 1e8"
    )
    args = parser.parse_args()
    if args.hundred_million:
        n = 10**8
        floors = {"split": sort_seconds(n, 1, arg=False), "energy": sort_seconds(n, 1)}
        names = {"split": "split_1d", "energy": "energy_distance (two halves)"}
        for kind in ("split", "energy"):
            r = run_fresh(HUNDRED_MILLION, kind, n)
            print(
                f"{names[kind]}, n = 1e8, working memory 4 GiB: {r['seconds']:.1f} s, peak RSS "
                f"{r['peak_mib'] / 1024:.2f} GiB ({(r['peak_mib'] - r['before_mib']) / 1024:.2f} "
                "GiB beyond the data and modules); floor "
                f"({'np.sort' if kind == 'split' else 'np.argsort'} of 1e8 doubles) "
                f"{floors[kind]:.1f} s, achieved / floor {r['seconds'] / floors[kind]:.1f}; "
                f"{r['load']}"
            )
    rng = np.random.default_rng(1)
    print("split_1d vs numpy.sort")
    print(f"{'n':>10} {'split_1d s':>11} {'np.sort s':>10} {'ratio':>6}")
    for n in (10**5, 10**6, 10**7):
        x = mixture(rng, n)
        repeat = 5 if n < 10**7 else 3
        t_split, _ = best_of(lambda: es.split_1d(x), repeat)
        t_sort, _ = best_of(lambda: np.sort(x), repeat)
        print(f"{n:>10,} {t_split:>11.3f} {t_sort:>10.3f} {t_split / t_sort:>6.2f}")
    print("\nsplit_1d vs Algorithm 3 (O(n^2))")
    print(f"{'n':>10} {'split_1d s':>11} {'Alg. 3 s':>10} {'speed-up':>9} {'same split':>11}")
    for n in (2000, 20000):
        x = mixture(rng, n)
        t_split, res = best_of(lambda: es.split_1d(x), 3)
        t_alg, (m, W) = best_of(lambda: algorithm3(x), 1)
        same = m == res.split_index and np.isclose(W, res.W, rtol=1e-10)
        print(f"{n:>10,} {t_split:>11.4f} {t_alg:>10.3f} {t_alg / t_split:>9.0f} {str(same):>11}")
    print(
        "\nenergy_distance (1-D) vs scipy.stats.energy_distance (sqrt(E)) and R edist (n1 "
        "n2/(n1+n2) E)"
    )
    n = 10**6
    x, y = rng.normal(size=n // 2), rng.normal(0.1, 1, size=n // 2)
    t_es, e = best_of(lambda: es.energy_distance(x, y), 3)
    t_sp, e_sp = best_of(lambda: scipy_energy_distance(x, y), 3)
    print(f"n = {n:,}: energystats {t_es:.3f} s, scipy {t_sp:.3f} s (ratio {t_sp / t_es:.1f}); "
          f"E = {e:.10g}, scipy^2 = {e_sp**2:.10g}")
    if args.no_r:
        return
    from energystats._rbridge import r_call, r_matrix, to_numpy

    for n in (2000, 5000, 10000, 20000):
        z = rng.normal(size=n)
        half = n // 2
        zr = r_matrix(z)
        t_r, r = best_of(lambda: to_numpy(r_call("edist", zr, np.array([half, n - half])))[0], 1)
        t_es, e = best_of(lambda: es.energy_distance(z[:half], z[half:]), 3)
        ok = np.isclose(half * (n - half) / n * e, r, rtol=1e-9)
        print(f"n = {n:>6,}: energystats {t_es * 1e3:8.2f} ms, R edist {t_r:7.3f} s, "
              f"ratio {t_r / t_es:8.0f}, agree {ok}")


if __name__ == "__main__":
    main()
