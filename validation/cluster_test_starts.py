"""cluster_test before and after its speed change: ten k-groups starts per fit against three.

Usage: python validation/cluster_test_starts.py [--quick] [--out validation/results]

The test fits k-groups to the data and to every Gaussian sample; its level is exact for any
fixed fitting procedure, so fewer starts cannot break the level, only change the power. Each
setting draws its data sets once and tests every one with both procedures and the same
seed, so the two are compared pairwise (McNemar): ``b`` data sets rejected before and not
after, ``c`` after and not before; the difference in rejection rate is (c - b) / N with
standard error sqrt(b + c - (c - b)^2 / N) / N, and ``McNemar p`` the exact two-sided
binomial p-value of min(b, c) among b + c.

Settings (99 Gaussian samples per test, level 0.05; d = 2 with unequal spreads or clusters, so
that two principal directions are kept and the k-groups fit, where starts act, is used
rather than the exact one-dimensional split):

- level: one Gaussian, standard deviations 2 and 1, n = 100, k = 2;
- power, two clusters: n = 100, the second half shifted by 3 along the first axis, k = 2;
- power, three clusters: 30 points around each vertex of an equilateral triangle of side 2.5, k = 3.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import binomtest

import energystats as es

ALPHA = 0.05
N_RESAMPLES = 99
PROCEDURES = (("before: n_init=10", {"n_init": 10}), ("after: default (n_init=3)", {}))


def draw(setting: str, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    if setting == "level, one Gaussian (sd 2, 1)":
        return rng.standard_normal((100, 2)) * [2.0, 1.0], 2
    if setting == "power, two clusters":
        X = rng.standard_normal((100, 2))
        X[50:, 0] += 3.0
        return X, 2
    vertices = 2.5 * np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(0.75)]])
    return rng.standard_normal((90, 2)) + np.repeat(vertices, 30, axis=0), 3


def compare(setting: str, reps: int, seed: np.random.SeedSequence) -> dict:
    data_seed, test_seed = seed.spawn(2)
    data, seeds = np.random.default_rng(data_seed), test_seed.generate_state(reps)
    rejected = {label: np.zeros(reps, bool) for label, _ in PROCEDURES}
    seconds = dict.fromkeys(rejected, 0.0)
    for rep in range(reps):
        X, k = draw(setting, data)
        for label, options in PROCEDURES:  # the same data set and seed for both procedures
            start = time.perf_counter()
            rejected[label][rep] = (
                es.cluster_test(
                    X, k, n_resamples=N_RESAMPLES, rng=int(seeds[rep]), **options
                ).pvalue
                <= ALPHA
            )
            seconds[label] += time.perf_counter() - start
    (before_label, _), (after_label, _) = PROCEDURES
    before, after = rejected[before_label], rejected[after_label]
    b, c = int(np.sum(before & ~after)), int(np.sum(after & ~before))
    return {
        "setting": setting,
        "data sets": reps,
        "before": before.mean(),
        "after": after.mean(),
        "after - before": (c - b) / reps,
        "se of difference": np.sqrt(max(b + c - (c - b) ** 2 / reps, 0.0)) / reps,
        "b (before only)": b,
        "c (after only)": c,
        "McNemar p": binomtest(min(b, c), b + c, 0.5).pvalue if b + c else 1.0,
        "seconds per test before": seconds[before_label] / reps,
        "seconds per test after": seconds[after_label] / reps,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    reps = 4 if args.quick else 200
    settings = ("level, one Gaussian (sd 2, 1)", "power, two clusters", "power, three clusters")
    rows = []
    for setting, seed in zip(settings, np.random.SeedSequence(20261124).spawn(len(settings))):
        rows.append(compare(setting, reps, seed))
        print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    suffix = "_quick" if args.quick else ""
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / f"cluster_test_starts{suffix}.csv", index=False)
    text = table.to_string(index=False, float_format=lambda v: f"{v:.3f}")
    (args.out / f"cluster_test_starts{suffix}.md").write_text(
        f"# {__doc__.splitlines()[0]}\n\n```text\n{text}\n```\n"
    )
    print(text)


if __name__ == "__main__":
    main()
