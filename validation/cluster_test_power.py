"""Level and power of cluster_test, side by side with SigClust.

Usage: python validation/cluster_test_power.py [--quick] [--out validation/results]

The setting of the cluster-test issue: n = 60, two groups of 30, the second shifted
by 4 along the first axis, identity covariance, d = 2, 5, 10, level 0.05. Nulls: one
Gaussian, isotropic or spiked (first variance 16, the others 1), n = 60 and 200.
Three clusters: 30 points around each vertex of an equilateral triangle of side 4
in the first two coordinates (k = 3).

Methods, each with 99 Gaussian samples and the p-value (1 + #{null as extreme}) / 100:

- ``conditional``: ``cluster_test(X, k)``, the default (exact level).
- ``whitened``: ``cluster_test(X, k, directions="whitened")`` (exact level).
- ``SigClust soft`` and ``SigClust sample``: SigClust (Liu, Hayes, Nobel & Marron
  2008), implemented here as a comparison only: the 2-means cluster index CI =
  within-cluster / total sum of squares, against CI of samples of N(0, diag(l)),
  l the sample covariance's eigenvalues (``sample``, R ``sigclust`` icovest = 2) or
  their soft-thresholded version (``soft``, icovest = 1; Huang, Liu, Yuan & Marron
  2015, JCGS): l_j = max(lhat_j - tau, s2) with s2 the background variance (squared
  MAD of all entries, scaled to the normal) and tau >= 0 the smallest shift that keeps
  the total variance sum(lhat). 2-means is Lloyd's algorithm from the split at the
  sign of the first principal component, the same on data and null samples. SigClust
  is for k = 2 only.

Each cell is the rejection rate over its data sets (200; 100 for the slower whitened test)
with its binomial standard error.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import brentq

import energystats as es

N_RESAMPLES = 99
LEVEL = 0.05


def two_means_index(Y: np.ndarray, iterations: int = 30) -> np.ndarray:
    """CI = within / total sum of squares of 2-means on each of the data sets Y[b]
    (shape (b, n, d)): Lloyd's algorithm from the sign of the first principal score."""
    Y = Y - Y.mean(axis=1, keepdims=True)
    n = Y.shape[1]
    total = np.einsum("bnd,bnd->b", Y, Y)
    _, _, Vt = np.linalg.svd(Y, full_matrices=False)
    member = np.einsum("bnd,bd->bn", Y, Vt[:, 0]) > 0
    for _ in range(iterations):
        size = np.clip(member.sum(axis=1), 1, n - 1)[:, None]
        first = np.einsum("bn,bnd->bd", member, Y)  # the data are centred: the other sum is -first
        centres = (first / size)[:, None], (-first / (n - size))[:, None]
        new = ((Y - centres[0]) ** 2).sum(axis=-1) < ((Y - centres[1]) ** 2).sum(axis=-1)
        if np.array_equal(new, member):
            break
        member = new
    size = member.sum(axis=1)
    first = np.einsum("bn,bnd->bd", member, Y)
    between = np.einsum("bd,bd->b", first, first) * (
        1.0 / np.clip(size, 1, None) + 1.0 / np.clip(n - size, 1, None)
    )
    within = total - between
    return within / total


def soft_threshold(eigenvalues: np.ndarray, background: float) -> np.ndarray:
    """Huang, Liu, Yuan & Marron (2015): max(l - tau, s2), tau >= 0 keeping sum(l)."""
    total = eigenvalues.sum()

    def excess(tau):
        return np.maximum(eigenvalues - tau, background).sum() - total

    if excess(0.0) <= 0:
        return np.maximum(eigenvalues, background)
    if eigenvalues.size * background >= total:  # the background alone exceeds the total
        return np.full_like(eigenvalues, background)
    return np.maximum(eigenvalues - brentq(excess, 0.0, eigenvalues.max()), background)


def sigclust_pvalue(X: np.ndarray, covariance: str, rng: np.random.Generator) -> float:
    n, d = X.shape
    eigenvalues = np.linalg.eigvalsh(np.cov(X.T))[::-1]
    if covariance == "soft":
        entries = X.ravel()
        background = (1.4826 * np.median(np.abs(entries - np.median(entries)))) ** 2
        eigenvalues = soft_threshold(eigenvalues, background)
    observed = two_means_index(X[None])[0]
    null = two_means_index(rng.standard_normal((N_RESAMPLES, n, d)) * np.sqrt(eigenvalues))
    return (1 + np.count_nonzero(null <= observed)) / (N_RESAMPLES + 1)


def pvalue(method: str, X: np.ndarray, k: int, rng: np.random.Generator) -> float:
    if method.startswith("SigClust"):
        return sigclust_pvalue(X, method.split()[1], rng)
    return es.cluster_test(X, k, directions=method, n_resamples=N_RESAMPLES, rng=rng).pvalue


def draw(setting: str, n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    X = rng.standard_normal((n, d))
    if setting == "spiked null":
        X[:, 0] *= 4.0
    elif setting == "random null":
        X = X @ rng.normal(size=(d, d)).T + rng.normal(size=d) * 10
    elif setting == "two groups":
        X[n // 2 :, 0] += 4.0
    elif setting == "three groups":
        vertices = 4.0 * np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(0.75)]])
        X[:, :2] += np.repeat(vertices, n // 3, axis=0)
    return X


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="SETTING",
        help="run these settings only, replacing their rows in the table",
    )
    args = parser.parse_args()
    reps = 10 if args.quick else 200
    # the whitened test fits k-groups in all d directions for each of its 99 samples:
    # half the data sets keep the full run within an hour
    reps_of = {"whitened": reps // 2}
    methods = ["conditional", "whitened", "SigClust soft", "SigClust sample"]
    cells = [("isotropic null", n, d, 2, methods) for n in (60, 200) for d in (2, 5, 10)]
    cells += [("spiked null", n, d, 2, methods) for n in (60, 200) for d in (2, 5, 10)]
    cells += [("two groups", 60, d, 2, methods) for d in (2, 5, 10)]
    cells += [("three groups", 90, d, 3, methods[:2]) for d in (2, 5, 10)]
    # last: the seeds above stay
    cells += [("random null", n, d, 2, methods) for n in (60, 200) for d in (2, 5, 10)]
    rows = []
    seeds = np.random.SeedSequence(20261122).spawn(len(cells))
    for (setting, n, d, k, names), seed in zip(cells, seeds):
        if args.only and setting not in args.only:
            continue
        for method, stream in zip(names, np.random.default_rng(seed).spawn(len(names))):
            start = time.perf_counter()
            data = np.random.default_rng(seed.spawn(1)[0])  # the same data sets for every method
            count = reps_of.get(method, reps)
            rejections = sum(
                pvalue(method, draw(setting, n, d, data), k, stream) <= LEVEL for _ in range(count)
            )
            rate = rejections / count
            rows.append(
                {
                    "setting": setting,
                    "n": n,
                    "d": d,
                    "k": k,
                    "method": method,
                    "rejection rate": rate,
                    "se": np.sqrt(rate * (1 - rate) / count),
                    "data sets": count,
                    "seconds per test": (time.perf_counter() - start) / count,
                }
            )
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "_quick" if args.quick else ""
    if args.only:  # the other settings' rows from the table on disk
        kept = pd.read_csv(args.out / f"cluster_test_power{suffix}.csv")
        table = pd.concat([kept[~kept["setting"].isin(args.only)], table], ignore_index=True)
    table.to_csv(args.out / f"cluster_test_power{suffix}.csv", index=False)
    table["cell"] = [f"{r:.3f} ({s:.3f})" for r, s in zip(table["rejection rate"], table["se"])]
    wide = table.pivot_table(
        index=["setting", "n", "method"], columns="d", values="cell", aggfunc="first", sort=False
    )
    timing = table.pivot_table(
        index="method", columns="d", values="seconds per test", aggfunc="mean", sort=False
    )
    text = (
        f"# Cluster tests: rejection rate at level {LEVEL} (standard error), {reps} data sets per "
        f"cell ({reps_of['whitened']} for the whitened test), {N_RESAMPLES} Gaussian samples per "
        f"test\n\n```text\n{wide.to_string()}\n```\n\nMean seconds per test, by "
        f"d:\n\n```text\n{timing.round(3).to_string()}\n```\n"
    )
    (args.out / f"cluster_test_power{suffix}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
