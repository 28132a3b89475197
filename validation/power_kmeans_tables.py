"""Reproduce the trend of Xu & Lange (2019), Tables 1 and 2, at a reduced Monte Carlo count.

Usage: python validation/power_kmeans_tables.py [--quick] [--out validation/results]

Data (the paper's simulation): n = 2,500 points from k = 50 standard-normal
clusters whose centres are uniform in a hypercube of side r ~ U(30, 60).
Methods, all from the same plain k-means++ centres (one D^2 draw per centre):
Lloyd (scikit-learn KMeans, n_init = 1), k-harmonic means (MM steps with s = -1
held fixed, no Lloyd finish) and power k-means (s0 in {-1, -3, -9}, eta = 1.05,
finished by Lloyd steps). Reported: the root quality ratio
sqrt(f(Theta) / f(Theta_opt)) (Theta_opt: Lloyd started from the true centres)
and the variation of information to the true labels, as mean (standard error).
Full mode: 10 data sets per dimension (the paper used 50); --quick: 2 data
sets and d in {2, 10, 50}.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans, kmeans_plusplus

import energystats as es
from energystats._metrics import variation_of_information
from energystats._power_kmeans import _sq_dist, mm_step
from energystats.datasets import make_power_kmeans_data


def khm(X, centres, tol=1e-6, max_iter=1000):
    """k-harmonic means: Algorithm 1 with s = -1 held fixed."""
    previous = np.inf
    for _ in range(max_iter):
        centres = mm_step(X, centres, -1.0)
        f = es._power_kmeans.power_objective(_sq_dist(X, centres), -1.0)
        if abs(previous - f) <= tol * abs(f):
            break
        previous = f
    return centres


def one_dataset(d, seed):
    n, k = 2500, 50
    X, truth, true_centres = make_power_kmeans_data(n, k, d, random_state=seed)
    f_opt = KMeans(k, init=true_centres, n_init=1).fit(X).inertia_
    init, _ = kmeans_plusplus(X, k, random_state=seed, n_local_trials=1)
    rows = []

    def record(name, centres):
        dist = _sq_dist(X, centres)
        labels = dist.argmin(axis=1)
        rows.append({"d": d, "seed": seed, "method": name,
                     "quality": float(np.sqrt(dist.min(axis=1).sum() / f_opt)),
                     "VI": variation_of_information(labels, truth)})

    record("Lloyd", KMeans(k, init=init, n_init=1).fit(X).cluster_centers_)
    record("KHM", khm(X, init.copy()))
    for s0 in (-1.0, -3.0, -9.0):
        record(f"power s0={s0:g}", es.PowerKMeans(k, s0=s0, init=init).fit(X).cluster_centers_)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    dims = (2, 10, 50) if args.quick else (2, 5, 10, 20, 50, 100, 200)
    reps = 2 if args.quick else 10
    rows = [row for d in dims for seed in range(reps) for row in one_dataset(d, 1000 * d + seed)]
    table = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "_quick" if args.quick else ""
    table.to_csv(args.out / f"power_kmeans{suffix}.csv", index=False)
    order = ["Lloyd", "KHM", "power s0=-1", "power s0=-3", "power s0=-9"]
    lines = [f"# Xu & Lange Tables 1-2 trend: {reps} data sets per d (n = 2,500, k = 50)", ""]
    for measure in ("quality", "VI"):
        summary = table.groupby(["method", "d"])[measure].agg(["mean", "sem"])
        cells = summary.apply(lambda r: f"{r['mean']:.3f} ({r['sem']:.3f})", axis=1).unstack("d").loc[order]
        title = "root k-means quality ratio" if measure == "quality" else "variation of information to the truth"
        lines += [f"## {title}, mean (standard error)", "", "```text", cells.to_string(), "```", ""]
    text = "\n".join(lines)
    (args.out / f"power_kmeans{suffix}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
