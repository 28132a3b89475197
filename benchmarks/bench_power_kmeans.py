"""Time PowerKMeans against scikit-learn's KMeans (n_init = 1, the same starting centres).

Run: .venv/bin/python benchmarks/bench_power_kmeans.py

Cases: n = 2,500, k = 50, d = 50 (the paper's simulation) and n = 100,000, k = 10,
d = 20, with s0 = -3; and n = 2,000, k = 40, d = 60, where annealing needs about a hundred MM
iterations before the weights are hard (a point almost equidistant from two centres, distance
ratio 1.01, needs |s| near 3,700 for its weight off the nearest to fall below 2^-53). Both
methods start from the same k-means++ centres; each time is the best of three fits, measured
in this run. Printed: MM iterations (annealing stops when the weights are hard), Lloyd
iterations after it, the time per MM iteration, the time ratio to KMeans, and the k-means
objective each reached.
"""

from __future__ import annotations

import numpy as np
import sklearn
from _timing import best_of
from sklearn.cluster import KMeans, kmeans_plusplus

import energystats as es
from energystats.datasets import make_power_kmeans_data


def main():
    print(f"scikit-learn {sklearn.__version__}, numpy {np.__version__}")
    rng = np.random.default_rng(1)
    for n, k, d in ((2500, 50, 50), (100_000, 10, 20), (2000, 40, 60)):
        X, _, _ = make_power_kmeans_data(n, k, d, rng=rng)
        init, _ = kmeans_plusplus(X, k, random_state=0, n_local_trials=1)
        t_pk, pk = best_of(lambda: es.PowerKMeans(k, s0=-3.0, init=init).fit(X), 3)
        t_km, km = best_of(lambda: KMeans(k, init=init, n_init=1).fit(X), 3)
        print(
            f"n={n:,}, k={k}, d={d}: PowerKMeans {t_pk:.3f} s ({pk.n_iter_} MM iterations, "
            f"{t_pk / max(pk.n_iter_, 1) * 1e3:.2f} ms each at most, then {pk.n_lloyd_iter_} "
            f"Lloyd), KMeans {t_km:.3f} s ({km.n_iter_} iterations); time ratio {t_pk / t_km:.1f}; "
            f"inertia power/KMeans {pk.inertia_ / km.inertia_:.6f}"
        )


if __name__ == "__main__":
    main()
