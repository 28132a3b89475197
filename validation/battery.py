"""Energy clustering on Gagolewski's benchmark battery: which kernel for which shapes.

Usage: python validation/battery.py [--quick] [--data DIR] [--results DIR]
       [--heldout DIR] [--out validation/results]

The data: FCPS (Ultsch 2005) and SIPU (Fränti & Sieranoja 2018 and earlier) as packaged in
M. Gagolewski's benchmark suite (clustering-data-v1; "A framework for benchmarking clustering
algorithms", SoftwareX 20, 2022, 101270), every set of at most 10,000 points (25 sets).
The protocol is the suite's: each set with the true k of each reference labelling, the
normalized clustering accuracy of the labels found (:func:`nca`), noise points excluded, the
best over the set's labellings. The data are read as the suite's published results read
them (constant columns removed, centred, divided by the standard deviation of all entries),
without its tiny jitter.

Methods (each fitted once per set and k, ``random_state=0``):

- ``energy``: ``KGroups(k)``, the energy distance (exponent 1), k-means++ starts;
- ``gaussian``: ``KGroups(k, metric="gaussian")``, sigma half the median distance;
- ``graph``: ``KGroups(k, metric="nearest_neighbors")``: the normalized cut of the points'
  ceil(ln n)-nearest-neighbour graph, spectral starts;
- ``power``: ``PowerKMeans(k)``;

beside the published labels of scikit-learn's k-means, Gaussian mixture and spectral clustering
(rbf, gamma 1) and of Genie (gini threshold 0.3), from the suite's results repository
(clustering-results-v1, ``--results``). Also: the Gaussian at the median distance times
2^-j (j = 0..4; the default is j = 1), on both batteries; and power k-means' k-means objective
against one k-means++ start (scikit-learn ``KMeans(n_init=1)``) from seeds 0..4 on every set
and k.

``--heldout DIR`` adds the suite's other batteries (wut, graves, uci, other; n <= 10,000) for the
same methods and peers: an out-of-sample check of the defaults, which were fixed on FCPS and
SIPU only. The suite's data and results are for research use and are not part of the package.

Writes ``battery.csv``/``.md``, ``battery_heldout.csv``/``.md``, ``battery_power.csv``/``.md``
(and ``battery_heldout_power``), ``battery_scales.csv``, ``battery.png`` (NCA per set and
method) and ``battery_shapes.png`` (sets where the kernels win and lose, coloured by each
method's labels).

``--quick`` (CI): four small sets, the energy and graph methods and the peers' labels.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment
from sklearn.cluster import KMeans

import energystats as es

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "shared" / "data" / "clustering-battery"
RESULTS = ROOT / "heldout" / "clustering-results-v1" / "original"
NMAX = 10_000
PEERS = {
    "k-means (sklearn)": ("sklearn_kmeans", "sklearn_kmeans"),
    "GMM (sklearn)": ("sklearn_gm", "sklearn_gm"),
    "spectral (sklearn)": ("sklearn_spectral", "sklearn_spectral_Arbf_G1"),
    "Genie 0.3": ("Genie", "Genie_G0.3"),
}
METHODS = {
    "energy": lambda X, k: es.KGroups(k, random_state=0).fit(X).labels_,
    "gaussian": lambda X, k: es.KGroups(k, metric="gaussian", random_state=0).fit(X).labels_,
    "graph": lambda X, k: es.KGroups(k, metric="nearest_neighbors", random_state=0).fit(X).labels_,
    "power": lambda X, k: es.PowerKMeans(k, random_state=0).fit(X).labels_,
}
QUICK_SETS = ("hepta", "lsun", "flame", "spiral")
SHAPES = ("lsun", "target", "spiral", "jain", "s4", "engytime")


def nca(reference: np.ndarray, labels: np.ndarray, k: int) -> float:
    r"""Normalized clustering accuracy (Gagolewski 2023): with :math:`c_{ij}` the points of
    reference cluster i (noise, label 0, left out) given label j, :math:`n_i` the size of
    cluster i and :math:`\sigma` the matching of clusters to labels that maximises the mean
    recall, :math:`(\frac1k \sum_i c_{i\sigma(i)} / n_i - \frac1k) / (1 - \frac1k)`: 1 for
    the reference partition, 0 for labels no better than chance on balanced clusters."""
    keep = reference > 0
    C = pd.crosstab(reference[keep] - 1, labels[keep]).to_numpy(dtype=float)
    C = np.pad(C, ((0, 0), (0, max(0, k - C.shape[1]))))
    recall = C / C.sum(axis=1, keepdims=True)
    rows, cols = linear_sum_assignment(-recall)
    return (recall[rows, cols].sum() / k - 1.0 / k) / (1.0 - 1.0 / k)


def load(root: Path, battery: str, names=None) -> list:
    """The sets of a battery with at most NMAX points: (battery, name, X, labellings)."""
    out = []
    for path in sorted((root / battery).glob("*.data.gz")):
        name = path.name[: -len(".data.gz")]
        if names is not None and name not in names:
            continue
        labellings = [np.loadtxt(p, dtype=int) for p in sorted(path.parent.glob(f"{name}.labels*"))]
        if labellings[0].size > NMAX:
            continue
        X = np.loadtxt(path, ndmin=2)
        X = X[:, X.var(axis=0) > 0]
        out.append((battery, name, (X - X.mean(axis=0)) / X.std(ddof=1), labellings))
    return out


def best_over_labellings(labellings, fit) -> float:
    """The suite's score of a method (``fit(k)``: labels) on a set: the best NCA over its
    reference labellings, each with its own k (one fit per distinct k)."""
    fits = {}
    for ref in labellings:
        k = int(ref.max())
        if k not in fits:
            fits[k] = fit(k)
    return max(nca(ref, fits[int(ref.max())], int(ref.max())) for ref in labellings)


def published(results: Path, method: str, column: str, battery: str, name: str, labellings):
    def fit(k):
        path = results / method / battery / f"{name}.result{k}.gz"
        return pd.read_csv(path)[column].to_numpy() - 1 if path.exists() else None

    fits = {int(ref.max()): fit(int(ref.max())) for ref in labellings}
    if any(f is None for f in fits.values()):
        return np.nan
    return max(nca(ref, fits[int(ref.max())], int(ref.max())) for ref in labellings)


def score_sets(sets, methods, results) -> pd.DataFrame:
    rows = []
    for battery, name, X, labellings in sets:
        row = {"battery": battery, "set": name, "n": X.shape[0], "d": X.shape[1],
               "k": "/".join(sorted({str(r.max()) for r in labellings}, key=int))}
        for method in methods:
            start = time.perf_counter()
            row[method] = best_over_labellings(labellings, lambda k: METHODS[method](X, k))
            row[f"{method} s"] = time.perf_counter() - start
        for peer, (folder, column) in PEERS.items():
            row[peer] = published(results, folder, column, battery, name, labellings)
        rows.append(row)
        print(f"{battery}/{name}: " + ", ".join(f"{m} {row[m]:.3f}" for m in methods), flush=True)
    return pd.DataFrame(rows)


def markdown(df: pd.DataFrame, digits: int = 3) -> str:
    """A pipe table, numbers to ``digits`` decimals (blank where missing)."""
    def cell(v):
        if isinstance(v, float):
            return "" if np.isnan(v) else f"{v:.{digits}f}"
        return str(v)

    lines = ["| " + " | ".join(map(str, df.columns)) + " |", "|" + "---|" * df.shape[1]]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def table(df: pd.DataFrame, methods) -> str:
    cols = list(methods) + list(PEERS)
    body = df[["set", "n", "d", "k", *cols]].copy()
    mean = {"set": f"**mean of {len(df)}**", "n": "", "d": "", "k": ""}
    mean.update({c: df[c].mean() for c in cols})
    body = pd.concat([body, pd.DataFrame([mean])], ignore_index=True)
    return markdown(body)


def power_vs_kmeans(sets, seeds=range(5)) -> pd.DataFrame:
    """PowerKMeans(k) at its defaults against one k-means++ start (scikit-learn KMeans,
    n_init=1), the same seed: the k-means objective (inertia) of each."""
    rows = []
    for battery, name, X, labellings in sets:
        for k in sorted({int(r.max()) for r in labellings}):
            for seed in seeds:
                power = es.PowerKMeans(k, random_state=seed).fit(X).inertia_
                lloyd = KMeans(k, n_init=1, random_state=seed).fit(X).inertia_
                rows.append({"set": name, "k": k, "seed": seed, "power": power, "k-means++": lloyd,
                             "ratio": power / lloyd})
    return pd.DataFrame(rows)


def power_report(power: pd.DataFrame, path: Path, what: str) -> None:
    """``path``.csv and .md: the ratios of :func:`power_vs_kmeans` and their summary."""
    power.to_csv(path.with_suffix(".csv"), index=False)
    worse, big = power["ratio"] > 1.0 + 1e-9, power["k"] >= 10
    path.with_suffix(".md").write_text(
        f"# PowerKMeans(k) against one k-means++ start ({what}), k-means objective\n\n"
        f"{len(power)} fits (every set and k, seeds 0-4, matched starts): no worse in "
        f"{(~worse).mean():.1%}, better in {(power['ratio'] < 1 - 1e-9).mean():.1%}; "
        f"mean ratio {power['ratio'].mean():.4f}, at k >= 10 {power.loc[big, 'ratio'].mean():.4f} "
        f"({big.sum()} fits), largest {power['ratio'].max():.3f}.\n\n"
        + markdown(power.groupby(["set", "k"])["ratio"].agg(["mean", "min", "max"])
                   .reset_index(), 4) + "\n"
    )


def gaussian_scales(sets, steps=range(5)) -> pd.DataFrame:
    """NCA of KGroups with the Gaussian at sigma = median distance / 2^j, default start."""
    rows = []
    for battery, name, X, labellings in sets:
        sigma = 2.0 * es.KGroups(2, metric="gaussian", n_init=1).fit(X).sigma_
        for j in steps:
            fit = lambda k, j=j: es.KGroups(  # noqa: E731
                k, metric="gaussian", sigma=sigma / 2**j, random_state=0
            ).fit(X).labels_
            rows.append({"battery": battery, "set": name, "j": j,
                         "nca": best_over_labellings(labellings, fit)})
    return pd.DataFrame(rows)


def figures(df: pd.DataFrame, sets, methods, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = list(methods) + ["Genie 0.3"]
    fig, ax = plt.subplots(figsize=(11, 4))
    x = np.arange(len(df))
    for i, c in enumerate(cols):
        ax.plot(x, df[c], ls="", ms=5, label=f"{c} ({df[c].mean():.3f})", alpha=0.8,
                marker="osD^v*"[i % 6])
    ax.set_xticks(x, df["set"], rotation=60, ha="right")
    ax.set_ylabel("NCA")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(ncol=3, fontsize=8, loc="lower left")
    ax.set_title("FCPS + SIPU (n <= 10,000): normalized clustering accuracy (mean)")
    fig.tight_layout()
    fig.savefig(out / "battery.png", dpi=110)

    shown = [s for s in sets if s[1] in SHAPES]
    kernels = [m for m in ("energy", "gaussian", "graph") if m in methods]
    fig, axes = plt.subplots(len(kernels), len(shown), figsize=(2.2 * len(shown),
                             2.2 * len(kernels)), squeeze=False)
    for j, (_, name, X, labellings) in enumerate(shown):
        reference = min(labellings, key=np.max)  # target: the ring and the centre, not 6 groups
        k = int(reference.max())
        for i, method in enumerate(kernels):
            labels = METHODS[method](X, k)
            ax = axes[i, j]
            ax.scatter(X[:, 0], X[:, 1], c=labels, s=2, cmap="tab10")
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_title(f"{name}: {nca(reference, labels, k):.2f}", fontsize=9)
            if j == 0:
                ax.set_ylabel(method)
    fig.tight_layout()
    fig.savefig(out / "battery_shapes.png", dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--heldout", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    names = QUICK_SETS if args.quick else None
    sets = load(args.data, "fcps", names) + load(args.data, "sipu", names)
    if not sets:
        parser.error(f"no FCPS or SIPU data under {args.data} (pass --data)")
    methods = ("energy", "graph") if args.quick else tuple(METHODS)
    start = time.perf_counter()
    df = score_sets(sets, methods, args.results)
    head = (f"# Battery: FCPS + SIPU, {len(df)} sets of at most {NMAX:,} points\n\n"
            f"Normalized clustering accuracy, the suite's protocol; {os.cpu_count()} cores, "
            f"load {os.getloadavg()[0]:.1f}, {time.perf_counter() - start:.0f} s.\n\n")
    df.to_csv(args.out / "battery.csv", index=False)
    (args.out / "battery.md").write_text(head + table(df, methods) + "\n")
    if args.quick:
        return
    figures(df, sets, methods, args.out)
    power_report(power_vs_kmeans(sets), args.out / "battery_power", "FCPS + SIPU")
    gaussian_scales(sets).to_csv(args.out / "battery_scales.csv", index=False)
    if args.heldout is not None:
        held = sum((load(args.heldout, b) for b in ("wut", "graves", "uci", "other")), [])
        hf = score_sets(held, methods, args.results)
        hf.to_csv(args.out / "battery_heldout.csv", index=False)
        by_battery = markdown(hf.groupby("battery", sort=False)[list(methods) + list(PEERS)]
                              .mean().reset_index())
        (args.out / "battery_heldout.md").write_text(
            f"# Held-out batteries (wut, graves, uci, other), {len(hf)} sets of at most "
            f"{NMAX:,} points\n\nNot used to choose a default (one change, bridging the graph's "
            "pieces, was reverted after this check: docs/kernels.md).\n\n" + table(hf, methods)
            + "\n\nMeans by battery:\n\n" + by_battery + "\n"
        )
        power_report(power_vs_kmeans(held), args.out / "battery_heldout_power", "held out")
        gaussian_scales(held).to_csv(args.out / "battery_heldout_scales.csv", index=False)


if __name__ == "__main__":
    main()
