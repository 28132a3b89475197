"""energy_hclust and the normality test against R's energy.hclust, mvnorm.e and mvnorm.test.

Run: .venv/bin/python benchmarks/bench_hclust_normality.py [--quick]

Both sides run in this process (R through rpy2) on the same data; each time is the best of
three runs (one for the bootstrap tests). Prints R's time over energystats' time, and checks
the answers agree (merge identical, heights and statistics to 1e-10).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import energystats as es
from energystats._rbridge import r_available, r_call, r_field, r_matrix, to_numpy


def best_of(fn, repeat: int = 3) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    args = parser.parse_args()
    ok, reason = r_available()
    if not ok:
        raise SystemExit(f"R is needed for this benchmark: {reason}")
    rng = np.random.default_rng(0)
    print("energy_hclust(X, exponent=1) vs R energy.hclust(dist(x)), d = 5")
    for n in (500, 1000) if args.quick else (1000, 2000, 4000):
        X = rng.normal(size=(n, 5))
        xr = r_matrix(X)
        t_es, ours = best_of(lambda: es.energy_hclust(X))
        t_r, tree = best_of(lambda: r_call("energy.hclust", r_call("dist", xr)))
        same = np.array_equal(ours.merge, to_numpy(r_field(tree, "merge")))
        rel = np.max(np.abs(ours.height / to_numpy(r_field(tree, "height")) - 1))
        print(f"  n = {n:>5}: energystats {t_es:.3f} s, R {t_r:.3f} s, R / es = {t_r / t_es:.1f}; "
              f"merge identical: {same}, heights to {rel:.1e}")
    print("mvnorm_statistic vs R mvnorm.e")
    for n, d in ((500, 2), (1000, 5)) if args.quick else ((1000, 2), (2000, 5), (4000, 10)):
        X = rng.standard_t(5, size=(n, d))
        xr = r_matrix(X)
        t_es, ours = best_of(lambda: es.mvnorm_statistic(X))
        t_r, theirs = best_of(lambda: to_numpy(r_call("mvnorm.e", xr))[0])
        print(
            f"  n = {n:>5}, d = {d:>2}: energystats {t_es:.4f} s, R {t_r:.4f} s, R / es = "
            f"{t_r / t_es:.1f}; relative difference {abs(ours / theirs - 1):.1e}"
        )
    print("mvnorm_test vs R mvnorm.test, 199 Gaussian samples")
    for n, d in ((100, 2),) if args.quick else ((100, 2), (500, 5)):
        X = rng.standard_t(5, size=(n, d))
        xr = r_matrix(X)
        t_es, ours = best_of(lambda: es.mvnorm_test(X, n_resamples=199, rng=1), repeat=1)
        t_r, theirs = best_of(lambda: r_call("mvnorm.test", xr, R=199), repeat=1)
        print(
            f"  n = {n:>5}, d = {d:>2}: energystats {t_es:.3f} s, R {t_r:.3f} s, R / es = "
            f"{t_r / t_es:.1f}; p {ours.pvalue:.3f} vs R "
            f"{to_numpy(r_field(theirs, 'p.value'))[0]:.3f}"
        )


if __name__ == "__main__":
    main()
