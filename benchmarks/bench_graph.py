"""Time KGroups(metric="nearest_neighbors") against scikit-learn's
SpectralClustering(affinity="nearest_neighbors") on the same data, n = 10,000.

Run: .venv/bin/python benchmarks/bench_graph.py [--n 10000] [--repeat 3]

Cases (2-D): two rings and three blobs (k = 5, shapes), 30 Gaussian clusters (k = 30), and
the two in d = 10 (the shapes in the first two coordinates, noise in the others). Both methods
build a nearest-neighbour graph (ours ceil(ln n) = 10 neighbours, scikit-learn's default 10)
and run ten k-means starts on a spectral embedding; KGroups then refines each start by
Hartigan's moves on the normalized cut. Each time is the best of ``repeat`` fits, the two
methods interleaved in this run; printed: both times, the ratio (KGroups over scikit-learn,
below 1: faster), and the adjusted Rand index of each to the true labels. The load is printed
with the figures.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import sklearn
from _timing import best_of, load
from sklearn.cluster import SpectralClustering
from sklearn.metrics import adjusted_rand_score

import energystats as es


def shapes(n, rng):
    """Two rings around one centre and three blobs beside them: k = 5."""
    m = n // 5
    t = rng.uniform(0, 2 * np.pi, size=2 * m)
    r = np.repeat([1.0, 3.0], m)
    rings = np.c_[r * np.cos(t) - 6, r * np.sin(t)]
    blobs = rng.normal(scale=0.5, size=(n - 2 * m, 2)) + np.repeat(
        [[4.0, 0.0], [4.0, 4.0], [4.0, -4.0]], [m, m, n - 4 * m], axis=0
    )
    X = np.r_[rings, blobs] + rng.normal(scale=0.05, size=(n, 2))
    return X, np.repeat(np.arange(5), [m, m, m, m, n - 4 * m])


def clusters(n, rng, k=30):
    """k Gaussian clusters of unit spread, centres uniform in a square of side 12 sqrt(k)."""
    labels = rng.integers(0, k, size=n)
    centres = rng.uniform(0, 12 * np.sqrt(k), size=(k, 2))
    return centres[labels] + rng.normal(size=(n, 2)), labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"scikit-learn {sklearn.__version__}, numpy {np.__version__}, {load()}")
    rng = np.random.default_rng(0)
    warnings.simplefilter("ignore")  # scikit-learn: "Graph is not fully connected"
    cases = {"shapes": shapes(args.n, rng), "30 clusters": clusters(args.n, rng)}
    for name, (X, y) in cases.items():
        for d in (2, 10):
            data = X if d == 2 else np.c_[X, 0.1 * rng.normal(size=(len(X), d - 2))]
            k = int(y.max()) + 1
            ours, theirs = float("inf"), float("inf")
            for _ in range(args.repeat):  # interleaved: the same load for both
                t, km = best_of(lambda: es.KGroups(k, metric="nearest_neighbors",
                                                   random_state=0).fit(data))
                ours = min(ours, t)
                t, sc = best_of(lambda: SpectralClustering(
                    k, affinity="nearest_neighbors", random_state=0).fit(data))
                theirs = min(theirs, t)
            ari = adjusted_rand_score(y, km.labels_), adjusted_rand_score(y, sc.labels_)
            print(
                f"{name}, n={len(data):,}, d={d}, k={k}: KGroups {ours:.2f} s, SpectralClustering "
                f"{theirs:.2f} s, ratio {ours / theirs:.2f}; ARI {ari[0]:.3f} and {ari[1]:.3f}; "
                f"{load()}"
            )


if __name__ == "__main__":
    main()
