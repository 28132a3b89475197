"""How many clusters: choose_k's two nulls beside the gap statistic and the silhouette.

Usage: python validation/choose_k.py [--quick] [--out validation/results]

1. Overestimation on one cluster: P(k̂ > 1) over data sets of n = 200 points from one
   population: Gaussian with unequal variances (standard deviations 1 to 3 across the
   coordinates), uniform on the cube, t with 3 degrees of freedom (each coordinate) and
   exponential (each coordinate, skewed), in d = 2 and 10.
2. The right k on mixtures: P(k̂ = k) on mixtures with k = 2..6 clusters in d = 2..20,
   unequal sizes and spreads, some clusters non-Gaussian (see ``MIXTURES``).
3. Iris (the 4 measurements; 3 species, two of them overlapping).
(cluster_test before and after its speed change: ``validation/cluster_test_starts.py``.)

Methods, on the same data sets:

- ``unimodal``: ``choose_k(X, k_max, null="unimodal")`` (999 uniform dips per node; the
  direction from one half of the node's points, the dip of the other half's projection).
- ``gaussian``: ``choose_k(X, k_max, null="gaussian", n_resamples=99)`` (fewer data sets:
  each node test is 100 k-groups fits; 99 resamples make nodes below 20% of the points
  untestable at alpha = 0.05, which caps k̂ on the mixtures).
- ``gap``: the gap statistic of the same choose_k call (KGroups W, 5 uniform reference
  sets over the principal-axes box, Tibshirani et al.'s one-standard-error rule).
- ``silhouette``: the k in 2..k_max of largest silhouette (scikit-learn, Euclidean) of
  ``KGroups(k)``; it cannot say 1, so it always overestimates one cluster.

Each cell is a proportion over its data sets with its binomial standard error.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import silhouette_score

import energystats as es

ALPHA = 0.05
K_MAX = 8
N_REFERENCES = 5
N_SINGLE = 200

#: (name, sizes, dimension, separation, spreads, shapes): clusters centred on orthogonal
#: axes (d >= k) or on a circle (d = 2), at distance ``separation`` from their neighbours.
MIXTURES = [
    ("k=2, d=2, 150/50", (150, 50), 2, 6.0, (1.0, 0.6), ("gauss", "gauss")),
    ("k=3, d=5, uniform", (120, 80, 60), 5, 6.0, (1.0, 1.5, 0.8), ("gauss", "uniform", "gauss")),
    ("k=4, d=10, t(5)", (80, 80, 60, 60), 10, 7.0, (1.0, 1.0, 1.2, 0.8), ("t5", "t5", "t5", "t5")),
    ("k=5, d=2, skewed", (100, 80, 60, 60, 40), 2, 8.0, (1.0, 1.2, 0.8, 1.0, 0.7), ("gauss", "exp", "gauss", "exp", "uniform")),
    ("k=6, d=20, unequal", (80, 60, 60, 50, 40, 40), 20, 7.0, (1.0, 1.3, 0.8, 1.0, 1.2, 0.9), ("gauss", "t5", "gauss", "exp", "gauss", "uniform")),
]


def shape_sample(shape: str, size: int, d: int, gen: np.random.Generator) -> np.ndarray:
    """``size`` points of one standardised-ish population (mean 0, spread about 1)."""
    if shape == "gauss":
        return gen.standard_normal((size, d))
    if shape == "gauss-unequal":
        return gen.standard_normal((size, d)) * np.linspace(1.0, 3.0, d)
    if shape == "uniform":
        return gen.uniform(-np.sqrt(3), np.sqrt(3), (size, d))
    if shape == "t3":
        return gen.standard_t(3, (size, d))
    if shape == "t5":
        return gen.standard_t(5, (size, d)) * np.sqrt(3 / 5)
    if shape == "exp":
        return gen.exponential(1.0, (size, d)) - 1.0
    raise ValueError(shape)


def mixture(sizes, d, separation, spreads, shapes, gen) -> tuple[np.ndarray, np.ndarray]:
    k = len(sizes)
    if d >= k:
        centres = np.eye(k, d) * separation / np.sqrt(2)
    else:  # d = 2: a regular polygon with sides ``separation``
        radius = separation / (2 * np.sin(np.pi / k))
        angle = 2 * np.pi * np.arange(k) / k
        centres = radius * np.column_stack([np.cos(angle), np.sin(angle)])
    X = np.vstack([c + s * shape_sample(h, m, d, gen) for c, m, s, h in zip(centres, sizes, spreads, shapes)])
    return X, np.repeat(np.arange(k), sizes)


def silhouette_k(X, k_max, seed) -> int:
    scores = [silhouette_score(X, es.KGroups(k, n_init=3, random_state=seed).fit(X).labels_) for k in range(2, k_max + 1)]
    return int(np.argmax(scores)) + 2


def choices(X, k_max, seed, gaussian: bool) -> dict:
    res = es.choose_k(X, k_max, alpha=ALPHA, n_references=N_REFERENCES, rng=seed)
    out = {"unimodal": res.k, "gap": res.k_gap, "silhouette": silhouette_k(X, k_max, seed)}
    if gaussian:
        out["gaussian"] = es.choose_k(X, k_max, alpha=ALPHA, null="gaussian", n_resamples=99, n_references=0, rng=seed).k
    return out


def summarise(rows, key, target, what):
    table = pd.DataFrame(rows)
    records = []
    for (setting, method), group in table.groupby(["setting", "method"], sort=False):
        hits = (group["k"] > 1) if what == "overestimate" else (group["k"] == group["true k"])
        rate = float(hits.mean())
        records.append({"setting": setting, "method": method, what: rate, "se": np.sqrt(rate * (1 - rate) / len(group)), "data sets": len(group),
                        "mean k": group["k"].mean()})
    return pd.DataFrame(records)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    reps_single, reps_gauss_single = (4, 2) if args.quick else (50, 16)
    reps_mix, reps_gauss_mix = (2, 1) if args.quick else (20, 4)
    root = np.random.SeedSequence(20261124)
    single_seq, mix_seq = root.spawn(2)
    started = time.perf_counter()

    single_rows = []
    shapes = ["gauss-unequal", "uniform", "t3", "exp"]
    cells = [(shape, d) for shape in shapes for d in (2, 10)]
    for (shape, d), seq in zip(cells, single_seq.spawn(len(cells))):
        for rep, s in enumerate(seq.spawn(reps_single)):
            data_seed, fit_seed = s.spawn(2)
            X = shape_sample(shape, N_SINGLE, d, np.random.default_rng(data_seed))
            for method, k in choices(X, 6, fit_seed, gaussian=rep < reps_gauss_single).items():
                single_rows.append({"setting": f"{shape}, d={d}", "method": method, "k": k})
        print(f"single {shape} d={d}: {time.perf_counter() - started:.0f} s", flush=True)
    single = summarise(single_rows, "k", 1, "overestimate")

    mix_rows = []
    for (name, sizes, d, sep, spreads, shapes_), seq in zip(MIXTURES, mix_seq.spawn(len(MIXTURES))):
        for rep, s in enumerate(seq.spawn(reps_mix)):
            data_seed, fit_seed = s.spawn(2)
            X, _ = mixture(sizes, d, sep, spreads, shapes_, np.random.default_rng(data_seed))
            for method, k in choices(X, K_MAX, fit_seed, gaussian=rep < reps_gauss_mix).items():
                mix_rows.append({"setting": name, "method": method, "k": k, "true k": len(sizes)})
        print(f"mixture {name}: {time.perf_counter() - started:.0f} s", flush=True)
    mix = summarise(mix_rows, "k", None, "P(right k)")

    iris = es.datasets.load_iris().iloc[:, :4].to_numpy()
    iris_k = choices(iris, K_MAX, 0, gaussian=True)
    print("iris", iris_k, flush=True)

    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "_quick" if args.quick else ""
    single.to_csv(args.out / f"choose_k_single{suffix}.csv", index=False)
    mix.to_csv(args.out / f"choose_k_mixtures{suffix}.csv", index=False)

    def wide(table, value):
        table = table.copy()
        table["cell"] = [f"{r:.2f} ({s:.2f}, {m})" for r, s, m in zip(table[value], table["se"], table["data sets"])]
        return table.pivot_table(index="setting", columns="method", values="cell", aggfunc="first", sort=False)

    text = (
        f"# choose_k: alpha = {ALPHA}; cell = proportion (standard error, data sets)\n\n"
        f"## P(k̂ > 1) on one cluster of n = {N_SINGLE} (k_max = 6)\n\n```text\n{wide(single, 'overestimate').to_string()}\n```\n\n"
        f"## P(k̂ = k) on mixtures (k_max = {K_MAX})\n\n```text\n{wide(mix, 'P(right k)').to_string()}\n```\n\n"
        f"Mean k̂ on mixtures:\n\n```text\n{mix.pivot_table(index='setting', columns='method', values='mean k', sort=False).round(2).to_string()}\n```\n\n"
        f"## Iris (3 species)\n\n{iris_k}\n\n"
        f"Total time {time.perf_counter() - started:.0f} s\n"
    )
    (args.out / f"choose_k{suffix}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
