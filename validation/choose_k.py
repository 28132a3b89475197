"""How many clusters: choose_k's two nulls beside R's cluster::clusGap and the silhouette.

Usage (from the repository root, so that this checkout is imported):
    PYTHONPATH=. python validation/choose_k.py [--quick] [--out validation/results] [--parts ...]

1. The five simulations of Tibshirani, Walther & Hastie (2001, Sec. 6), 50 data sets each:
   (1) 200 points uniform on the unit cube in 10-D (k = 1); (2) three N(0, I) clusters of 25,
   25, 50 points at (0, 0), (0, 5), (5, -3) in 2-D (k = 3); (3) four clusters in 3-D, each
   25 or 50 N(0, I) points (chosen at random), centres N(0, 5 I); (4) four such clusters in
   10-D, centres N(0, 1.9 I); in (3) and (4) a data set whose clusters come within 1.0 of
   each other (the smallest distance between points of two clusters) is discarded and drawn
   again, as in the paper; (5) two elongated clusters in 3-D: 100 values t equally spaced on
   [-0.5, 0.5], each coordinate t plus N(0, 0.1^2) noise, the second cluster shifted by 10 in
   every coordinate (k = 2).
2. One cluster of n = 200 points, 50 data sets per shape: the shapes the documentation names
   (Gaussian with unequal variances, uniform, t(3), exponential (skewed), a uniform triangle,
   an elongated cluster, Gaussian in 10-D, uniform in 10-D, a noisy half-circle, rating-scale
   data: N(3, I) in 3-D rounded to 1..5, and a Gaussian rounded to integers).
3. Seed stability: the same data, choose_k with ten seeds: the share of seeds that agree with
   the most frequent k, on five data sets of each simulation.
4. The clustering benchmark battery: the FCPS (Ultsch 2005) and SIPU (Fränti & Sieranoja 2018
   and earlier) sets of Gagolewski's suite (M. Gagolewski, "A framework for benchmarking
   clustering algorithms", SoftwareX 20, 2022, 101270) with n <= 1,500 and d <= 10, each
   set's every reference labelling (k counted without the noise points); a method is right
   when its k is the k of one of them. ``--battery-dir`` points at the suite's folders
   (default ``../shared/data/clustering-battery``, holding ``fcps`` and ``sipu``); another
   folder of the suite's batteries (the held-out ones) is read the same way, without
   tuning on it: ``--tag _heldout`` names its file ``choose_k_battery_heldout.csv``, which
   the report counts apart.

Methods, on the same data sets, all with k_max = 10:

- ``unimodal``, ``gaussian``: ``choose_k(X, 10, null=...)`` at its defaults (alpha = 0.05,
  199 references per test, ten reference sets of the gap statistic, ``n_init=10``);
- ``clusGap``: R's ``cluster::clusGap(x, kmeans, nstart = 20, K.max = 10, B = 50,
  spaceH0 = "scaledPCA")`` and ``maxSE(gap, SE.sim, "Tibs2001SEmax")`` through rpy2 (skipped,
  with a note, where R's cluster package cannot be loaded);
- ``silhouette``: the k in 2..10 of largest silhouette (scikit-learn) of ``KGroups(k)``
  (on the battery, of scikit-learn's ``KMeans(k, n_init=10)``); it cannot say 1;
- ``bic`` (battery only): the k in 1..10 of smallest BIC of scikit-learn's
  ``GaussianMixture(k, n_init=3)`` (full covariances).

Each cell is a count or a proportion over its data sets, with the binomial standard error.
``--quick`` (CI) runs three data sets per cell and no seed-stability part.
"""

from __future__ import annotations

import argparse
import gzip
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.spatial.distance import cdist
from sklearn.cluster import KMeans
from sklearn.metrics import silhouette_score
from sklearn.mixture import GaussianMixture

import energystats as es

K_MAX = 10
TRUE_K = {1: 1, 2: 3, 3: 4, 4: 4, 5: 2}
SETTING_NAMES = {
    1: "(1) uniform, 10-D",
    2: "(2) three clusters, 2-D",
    3: "(3) four clusters, 3-D",
    4: "(4) four clusters, 10-D",
    5: "(5) two elongated, 3-D",
}
SHAPES = [
    "gaussian",
    "uniform",
    "t3",
    "exponential",
    "triangle",
    "elongated",
    "gaussian 10-D",
    "uniform 10-D",
    "half-circle",
    "rating 1..5, 3-D",
    "rounded gaussian",
]


def _closest(X: np.ndarray, y: np.ndarray) -> float:
    """The smallest distance between points of two different clusters."""
    k = y.max() + 1
    return min(cdist(X[y == a], X[y == b]).min() for a in range(k) for b in range(a + 1, k))


def tibshirani(setting: int, gen: np.random.Generator) -> np.ndarray:
    """One data set of the setting (module docstring)."""
    if setting == 1:
        return gen.uniform(size=(200, 10))
    if setting == 2:
        centres = np.array([[0.0, 0.0], [0.0, 5.0], [5.0, -3.0]])
        return np.vstack([gen.standard_normal((m, 2)) + c for m, c in zip((25, 25, 50), centres)])
    if setting in (3, 4):
        d, variance = (3, 5.0) if setting == 3 else (10, 1.9)
        while True:
            sizes = gen.choice([25, 50], size=4)
            centres = gen.normal(0.0, np.sqrt(variance), size=(4, d))
            X = np.vstack([gen.standard_normal((m, d)) + c for m, c in zip(sizes, centres)])
            if _closest(X, np.repeat(np.arange(4), sizes)) >= 1.0:
                return X
    t = np.linspace(-0.5, 0.5, 100)[:, None]
    return np.vstack([t + gen.normal(0.0, 0.1, size=(100, 3)) + shift for shift in (0.0, 10.0)])


def one_cluster(shape: str, gen: np.random.Generator, n: int = 200) -> np.ndarray:
    """One cluster of n points of the shape."""
    if shape == "gaussian":
        return gen.standard_normal((n, 2)) * [3.0, 1.0]
    if shape == "uniform":
        return gen.uniform(size=(n, 2))
    if shape == "t3":
        return gen.standard_t(3, size=(n, 2))
    if shape == "exponential":
        return gen.exponential(size=(n, 2))
    if shape == "triangle":
        u = gen.uniform(size=(n, 2))
        return np.where(u.sum(1, keepdims=True) > 1, 1 - u, u)
    if shape == "elongated":
        return np.linspace(-0.5, 0.5, n)[:, None] + gen.normal(0.0, 0.1, size=(n, 3))
    if shape == "gaussian 10-D":
        return gen.standard_normal((n, 10))
    if shape == "uniform 10-D":
        return gen.uniform(size=(n, 10))
    if shape == "half-circle":
        angle = gen.uniform(0.0, np.pi, n)
        return np.column_stack([np.cos(angle), np.sin(angle)]) + gen.normal(0.0, 0.3, size=(n, 2))
    if shape == "rating 1..5, 3-D":
        return np.clip(np.round(3.0 + gen.standard_normal((n, 3))), 1, 5)
    if shape == "rounded gaussian":
        return np.round(2.0 * gen.standard_normal((n, 2)))
    raise ValueError(shape)


class ClusGap:
    """R's cluster::clusGap with kmeans, as the module docstring says, or None without R."""

    def __init__(self):
        try:
            import rpy2.robjects as ro
            from rpy2.robjects import numpy2ri
            from rpy2.robjects.conversion import localconverter

            ro.r("suppressMessages(library(cluster))")
            ro.r("""choose_gap <- function(x, kmax, seed) {
                set.seed(seed)
                g <- suppressWarnings(clusGap(x, FUNcluster = kmeans, nstart = 20,
                                              K.max = kmax, B = 50, spaceH0 = "scaledPCA",
                                              verbose = FALSE))
                maxSE(g$Tab[, "gap"], g$Tab[, "SE.sim"], method = "Tibs2001SEmax") }""")
            self._call = ro.r["choose_gap"]
            self._convert = lambda: localconverter(ro.default_converter + numpy2ri.converter)
            self.note = ""
        except Exception as exc:  # R, rpy2 or the cluster package missing
            self._call = None
            self.note = f"clusGap not run: {type(exc).__name__}: {exc}"

    def __call__(self, X: np.ndarray, seed: int) -> float:
        if self._call is None:
            return np.nan
        with self._convert():
            return int(self._call(np.asarray(X, dtype=float), K_MAX, seed)[0])


def silhouette_k(X: np.ndarray, seed) -> int:
    """The k in 2..K_MAX of largest silhouette of KGroups(k)."""
    scores = []
    for k in range(2, K_MAX + 1):
        labels = es.KGroups(k, n_init=3, random_state=seed).fit(X).labels_
        scores.append(silhouette_score(X, labels) if np.unique(labels).size > 1 else -1.0)
    return int(np.argmax(scores)) + 2


def choices(X: np.ndarray, seed: int, gap: ClusGap) -> dict:
    """k of every method on one data set, and choose_k's seconds."""
    out = {}
    for null in ("unimodal", "gaussian"):
        start = time.perf_counter()
        with warnings.catch_warnings():  # the Gaussian null warns when it reaches k_max
            warnings.simplefilter("ignore", UserWarning)
            out[null] = es.choose_k(X, K_MAX, null=null, rng=seed).k
        out[f"seconds {null}"] = time.perf_counter() - start
    out["clusGap"] = gap(X, seed)
    out["silhouette"] = silhouette_k(X, seed)
    return out


METHODS = ["unimodal", "gaussian", "clusGap", "silhouette"]
BATTERY_METHODS = ["unimodal", "gaussian", "clusGap", "silhouette", "bic"]


def battery_sets(root: Path, max_n: int = 1500, max_d: int = 10) -> list[tuple]:
    """(battery, name, path prefix, true ks) of every set of the suite's folders under
    ``root`` with n <= max_n and d <= max_d; the true ks are those of its labellings
    (``NAME.labelsK.gz``, 0 a noise point)."""
    found = []
    for data in sorted(root.glob("*/*.data.gz")):
        with gzip.open(data, "rt") as f, warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # a file not fetched is empty
            X = np.loadtxt(f, ndmin=2)
        if not 0 < X.shape[0] <= max_n or X.shape[1] > max_d:
            continue
        prefix = str(data)[: -len(".data.gz")]
        ks = set()
        for labels in sorted(data.parent.glob(f"{data.name[: -len('.data.gz')]}.labels*.gz")):
            y = np.loadtxt(labels, dtype=int)
            ks.add(len(set(y[y > 0].tolist())))
        found.append((data.parent.name, data.name[: -len(".data.gz")], prefix, sorted(ks)))
    return found


def silhouette_kmeans(X: np.ndarray, seed: int) -> int:
    """The k in 2..K_MAX of largest silhouette of scikit-learn's KMeans(k, n_init=10)."""
    scores = [
        silhouette_score(X, KMeans(k, n_init=10, random_state=seed).fit(X).labels_)
        for k in range(2, K_MAX + 1)
    ]
    return int(np.argmax(scores)) + 2


def bic_k(X: np.ndarray, seed: int) -> int:
    """The k in 1..K_MAX of smallest BIC of scikit-learn's GaussianMixture(k, n_init=3)."""
    bic = [
        GaussianMixture(k, n_init=3, random_state=seed).fit(X).bic(X) for k in range(1, K_MAX + 1)
    ]
    return int(np.argmin(bic)) + 1


def run_battery(root: Path, gap: ClusGap, path: Path, seed: int = 0) -> pd.DataFrame:
    """Every method on every set of ``root`` (``battery_sets``), the rows kept in ``path``."""
    rows = []
    for battery, name, prefix, ks in battery_sets(root):
        X = np.loadtxt(prefix + ".data.gz", ndmin=2)
        row = {
            "battery": battery,
            "data set": name,
            "n": X.shape[0],
            "d": X.shape[1],
            "true k": " ".join(map(str, ks)),
        }
        for null in ("unimodal", "gaussian"):
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                res = es.choose_k(X, K_MAX, null=null, rng=seed)
            row[null] = res.k
            row[f"seconds {null}"] = time.perf_counter() - start
            row[f"first p {null}"] = res.nodes["pvalue"].iloc[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            row.update(
                clusGap=gap(X, seed), silhouette=silhouette_kmeans(X, seed), bic=bic_k(X, seed)
            )
        rows.append(row)
        pd.DataFrame(rows).to_csv(path, index=False)
        print(f"{battery}/{name} done", flush=True)
    return pd.DataFrame(rows)


def battery_table(runs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each set's true k(s) and every method's k (a star where right), and the counts."""
    truth = runs["true k"].astype(str).str.split().apply(lambda ks: {int(k) for k in ks})
    table = runs[["battery", "data set", "n", "d", "true k"]].copy()
    counts = {}
    for method in BATTERY_METHODS:
        k = runs[method]
        if k.isna().all():
            continue  # not run (R's clusGap without R)
        right = [kk in t for kk, t in zip(k, truth)]
        table[method] = [f"{int(kk)}*" if r else f"{int(kk)}" for kk, r in zip(k, right)]
        counts[method] = {"right k": int(sum(right)), "says 1": int((k == 1).sum())}
    return table, pd.DataFrame(counts).T.rename_axis(f"of {len(runs)} data sets")


def run_cells(
    cells: dict, chosen, make, reps: range, gap: ClusGap, root, path: Path
) -> pd.DataFrame:
    """Every method on data set ``rep`` of every cell, rep by rep (so that a run stopped early
    has as many data sets in every cell), the rows kept in ``path`` as the run goes. ``cells``
    maps a cell's column values to its argument of ``make(argument, gen)``; data set ``rep``
    of a cell is drawn from the ``rep``-th child of the cell's seed, whatever ``reps``."""
    streams = {key: seq.spawn(max(reps) + 1) for key, seq in zip(cells, root.spawn(len(cells)))}
    rows = []
    for rep in reps:
        for key, (values, argument) in cells.items():
            if key not in chosen:
                continue
            X = make(argument, np.random.default_rng(streams[key][rep]))
            rows.append({**values, "rep": rep, **choices(X, rep, gap)})
            pd.DataFrame(rows).to_csv(path, index=False)
        print(f"data set {rep} done", flush=True)
    return pd.DataFrame(rows)


def settings_cells() -> dict:
    return {s: ({"setting": s, "true k": TRUE_K[s]}, s) for s in range(1, 6)}


def shapes_cells() -> dict:
    return {shape: ({"shape": shape}, shape) for shape in SHAPES}


def run_stability(
    data_sets: int, seeds: int, root: np.random.SeedSequence, path: Path
) -> pd.DataFrame:
    rows = []
    for setting, seq in zip(range(1, 6), root.spawn(5)):
        for rep, s in enumerate(seq.spawn(data_sets)):
            X = tibshirani(setting, np.random.default_rng(s))
            for null in ("unimodal", "gaussian"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    ks = [es.choose_k(X, K_MAX, null=null, rng=seed).k for seed in range(seeds)]
                modal = np.bincount(ks).argmax()
                rows.append(
                    {
                        "setting": setting,
                        "rep": rep,
                        "null": null,
                        "ks": " ".join(map(str, ks)),
                        "agree": float(np.mean(np.array(ks) == modal)),
                    }
                )
        pd.DataFrame(rows).to_csv(path, index=False)
        print(f"stability {setting} done", flush=True)
    return pd.DataFrame(rows)


def _cell(hits: int, total: int) -> str:
    rate = hits / total
    return f"{hits}/{total} ({rate:.2f} ± {np.sqrt(rate * (1 - rate) / total):.2f})"


def settings_table(runs: pd.DataFrame) -> pd.DataFrame:
    out = {}
    for setting, group in runs.groupby("setting"):
        row = {}
        for method in METHODS:
            k = group[method]
            if k.isna().all():
                row[method] = "not run"
                continue
            right, over = int((k == group["true k"]).sum()), int((k > group["true k"]).sum())
            row[method] = f"{right}/{int(k.notna().sum())} (over {over})"
        out[SETTING_NAMES[setting]] = row
    return pd.DataFrame(out).T.rename_axis("right k / data sets (k > true k)")


def shapes_table(runs: pd.DataFrame) -> pd.DataFrame:
    out = {}
    for shape, group in runs.groupby("shape", sort=False):
        out[shape] = {
            m: (
                "not run" if group[m].isna().all() else _cell(int((group[m] > 1).sum()), len(group))
            )
            for m in METHODS
        }
    return pd.DataFrame(out).T.rename_axis("P(k > 1) on one cluster")


def report(out: Path, suffix: str) -> str:
    """The tables of every CSV in ``out`` (the parts of one or several runs), as Markdown."""
    text = [f"# choose_k beside clusGap and the silhouette (k_max = {K_MAX}, alpha = 0.05)\n"]
    found = {
        part: sorted(
            f for f in out.glob(f"choose_k_{part}{suffix}*.csv") if "heldout" not in f.name
        )
        for part in ("settings", "shapes", "stability", "battery")
    }
    found["heldout"] = sorted(out.glob(f"choose_k_battery{suffix}*heldout*.csv"))
    read = {
        part: pd.concat([pd.read_csv(f) for f in files]) for part, files in found.items() if files
    }
    if "settings" in read:
        runs = read["settings"]
        earlier = sorted(out.glob("choose_k_clusgap*.csv"))
        if earlier:  # clusGap's choices from an earlier run on the same data sets
            kept = pd.concat([pd.read_csv(f) for f in earlier]).set_index(["setting", "rep"])
            index = pd.MultiIndex.from_frame(runs[["setting", "rep"]])
            runs = runs.assign(
                clusGap=runs["clusGap"].fillna(
                    pd.Series(kept["clusGap"].reindex(index).to_numpy(), index=runs.index)
                )
            )
        seconds = runs[["seconds unimodal", "seconds gaussian"]].mean().round(2).to_dict()
        text += [
            "## Tibshirani, Walther & Hastie (2001), Sec. 6: the right k\n",
            "```text",
            settings_table(runs).to_string(),
            "```\n",
            f"choose_k's mean seconds per data set: {seconds}\n",
        ]
    if "shapes" in read:
        text += [
            "## One cluster, n = 200: P(k > 1) (standard error)\n",
            "```text",
            shapes_table(read["shapes"]).to_string(),
            "```\n",
        ]
    if "stability" in read:
        runs = read["stability"]
        summary = runs.pivot_table(
            index="setting", columns="null", values="agree", aggfunc=["mean", "min"]
        )
        sets = runs.groupby("setting")["rep"].nunique().min()
        text += [
            "## The same data, ten seeds: share of seeds agreeing with the most frequent k"
            f" ({sets} data sets per setting)\n",
            "```text",
            summary.round(2).to_string(),
            "```\n",
        ]
    titles = {
        "battery": "FCPS and SIPU (n <= 1,500, d <= 10)",
        "heldout": "Held out (wut, graves, uci, other; n <= 1,500, d <= 10; never tuned on)",
    }
    for part, title in titles.items():
        if part in read:
            table, counts = battery_table(read[part])
            text += [
                f"## {title}: k of each method, * where right\n",
                "```text",
                table.to_string(index=False),
                "```\n",
                "```text",
                counts.to_string(),
                "```\n",
            ]
    return "\n".join(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--parts", default="settings,shapes,stability,battery")
    parser.add_argument("--reps", type=int, default=None, help="data sets per cell (50)")
    parser.add_argument("--first", type=int, default=0, help="the first data set's number")
    parser.add_argument("--settings", default="1,2,3,4,5", help="which of the five to run")
    parser.add_argument(
        "--shapes", default=";".join(SHAPES), help="which single clusters (; between)"
    )
    parser.add_argument("--stability-sets", type=int, default=5, help="data sets per setting")
    parser.add_argument("--no-clusgap", action="store_true", help="skip R's clusGap")
    parser.add_argument(
        "--battery-dir",
        type=Path,
        default=Path(__file__).resolve().parents[2] / "shared" / "data" / "clustering-battery",
        help="a folder of the suite's batteries (fcps, sipu, ...)",
    )
    parser.add_argument("--tag", default="", help="suffix of this run's CSV files")
    parser.add_argument(
        "--report",
        action="store_true",
        help="only write the tables of the CSV files already in --out",
    )
    args = parser.parse_args()
    parts = args.parts.split(",")
    reps = args.reps or (3 if args.quick else 50)
    suffix = "_quick" if args.quick else ""
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.report:
        # the simulations' data are those of the audit in the issue
        setting_seq, shape_seq, stability_seq = (np.random.SeedSequence(s) for s in (41, 42, 43))
        gap = ClusGap()
        if args.no_clusgap:
            gap._call, gap.note = None, "clusGap not run (--no-clusgap)"
        if gap.note:
            print(gap.note, flush=True)
        started = time.perf_counter()
        tag = suffix + args.tag
        first = args.first
        if "settings" in parts:
            chosen = [int(v) for v in args.settings.split(",")]
            run_cells(
                settings_cells(),
                chosen,
                tibshirani,
                range(first, first + reps),
                gap,
                setting_seq,
                args.out / f"choose_k_settings{tag}.csv",
            )
        if "shapes" in parts:
            chosen = args.shapes.split(";")
            run_cells(
                shapes_cells(),
                chosen,
                one_cluster,
                range(first, first + reps),
                gap,
                shape_seq,
                args.out / f"choose_k_shapes{tag}.csv",
            )
        if "battery" in parts and not args.quick:
            run_battery(args.battery_dir, gap, args.out / f"choose_k_battery{tag}.csv")
        if "stability" in parts and not args.quick:
            run_stability(
                args.stability_sets, 10, stability_seq, args.out / f"choose_k_stability{tag}.csv"
            )
        print(f"Total time {time.perf_counter() - started:.0f} s", flush=True)
    text = report(args.out, suffix)
    (args.out / f"choose_k{suffix}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
