"""Time PowerKMeans against scikit-learn's KMeans (n_init = 1, same starting centres).

Run: .venv/bin/python benchmarks/bench_power_kmeans.py

Cases: n = 2,500, k = 50, d = 50 (the paper's simulation) and n = 100,000,
k = 10, d = 20. Both methods start from the same k-means++ centres; times
are per fit; the k-means objective reached is printed beside them.
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
    for n, k, d, repeat in ((2500, 50, 50, 3), (100_000, 10, 20, 1)):
        X, _, _ = make_power_kmeans_data(n, k, d, random_state=rng)
        init, _ = kmeans_plusplus(X, k, random_state=0, n_local_trials=1)
        t_pk, pk = best_of(lambda: es.PowerKMeans(k, s0=-3.0, init=init).fit(X), repeat)
        t_km, km = best_of(lambda: KMeans(k, init=init, n_init=1).fit(X), repeat)
        print(
            f"n={n:,}, k={k}, d={d}: PowerKMeans {t_pk:.2f} s ({pk.n_iter_} MM iterations), "
            f"KMeans {t_km:.3f} s ({km.n_iter_} iterations); time ratio {t_pk / t_km:.0f}; "
            f"inertia power/Lloyd {pk.inertia_ / km.inertia_:.4f}"
        )


if __name__ == "__main__":
    main()
