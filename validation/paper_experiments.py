"""Reproduce experiments of França, Rizzo & Vogelstein (2020), "Kernel k-Groups via Hartigan's
Method".

Usage: python validation/paper_experiments.py [--quick] [--only NAME ...]
       [--out validation/results] [--replot]

Experiments (each writes <name>.csv, <name>.md with means and standard errors, and <name>.png,
a figure titled by what it shows; --replot redraws the figures from the CSV files):

* table1: one-dimensional mixtures (1/2) N(0, 1.5) + (1/2) N(1.5, 0.3) (standard deviations)
  and its exponential, n = 2,000 (Table 1);
* fig1: the same mixtures, accuracy against n (Fig. 1a-b);
* fig3a: eq. (56), two Gaussians, signal in 10 coordinates, n = 200, accuracy against D;
* fig3b: eq. (57), unequal diagonal covariance, n = 200, accuracy against D;
* fig3c, fig3d: eq. (58), normal and lognormal, accuracy against n, kernel k-groups with
  rho_1, rho_1/2 and the exponential semimetric with sigma = 1;
* fig3e: eq. (59), unbalanced clusters of n1 = N - m and n2 = N + m points (N = 300),
  accuracy against m (the sizes are fixed, not drawn from the mixture);
* table2: Table 2, parallel cigars (Fig. 4a, exponential semimetric eq. 53 with sigma = 2) and
  two concentric circles (Fig. 4b, Gaussian semimetric eq. 54 with sigma = 1), 800 points,
  kernel methods started at random; kernel k-groups with rho_1 and rho_1/2 added (Table 1 of
  "Clustering via Generalized Energy Statistics");
* digits: Table 2 of "Clustering via Generalized Energy Statistics" with the 8 x 8 digits bundled
  with scikit-learn in place of MNIST: 100 images per class from the classes {0..4}, {0..6},
  {0..8}, {0..9}; sigma^2 = mean squared distance over the images not sampled (the paper's
  "separate training set"); metrics rho_1, rho_1/2, exponential and Gaussian with that sigma;
* realdata: iris, wine and breast cancer (standardised), the standard methods.

Methods: scikit-learn KMeans (k-means++), GaussianMixture (initialised by k-means),
SpectralClustering (precomputed affinity from the same semimetric: the kernel 1 - rho/2 for the
exponential and Gaussian semimetrics, exp(-rho / median rho) for rho_alpha),
weighted kernel k-means (KGroups algorithm="lloyd"), kernel k-groups (KGroups), the exact
one-dimensional splitter, and power k-means. Every method keeps the best of 5 starts, as in the
paper. Accuracy is eq. (55) (Hungarian matching); the adjusted Rand index and the variation of
information are recorded too. Full mode: 20 Monte Carlo runs per point (the paper: 100), 30 for
table2 (as the paper), 10 for digits (as the paper); --quick: 3 runs on fewer points (used in CI).
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans, SpectralClustering
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.metrics import adjusted_rand_score
from sklearn.mixture import GaussianMixture
from sklearn.preprocessing import StandardScaler

import energystats as es
from energystats._metrics import accuracy, variation_of_information

# --- methods ---------------------------------------------------------------------------


def kmeans(X, k, seed):
    return KMeans(k, n_init=5, random_state=seed).fit_predict(X)


def gmm(X, k, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (
            GaussianMixture(k, n_init=5, init_params="kmeans", random_state=seed).fit(X).predict(X)
        )


def spectral(X, k, seed, **metric):
    rho = es.pairwise_semimetric(X, **metric)
    if metric.get("metric") in ("exponential", "gaussian"):
        # the kernel itself: exp(-|x-y|/(2 sigma)) or exp(-|x-y|^2/(2 sigma^2))
        affinity = 1 - rho / 2
    else:
        affinity = np.exp(-rho / np.median(rho[rho > 0]))
    return SpectralClustering(k, affinity="precomputed", n_init=5, random_state=seed).fit_predict(
        affinity
    )


def kernel_kmeans(X, k, seed, **metric):
    return es.KGroups(k, algorithm="lloyd", n_init=5, random_state=seed, **metric).fit_predict(X)


def kernel_kgroups(X, k, seed, **metric):
    return es.KGroups(k, n_init=5, random_state=seed, **metric).fit_predict(X)


def power_kmeans(X, k, seed):
    return es.PowerKMeans(k, s0=-3.0, n_init=5, random_state=seed).fit_predict(X)


def splitter(X, k, seed):
    return es.split_1d(X[:, 0]).labels


STANDARD = {
    "k-means": kmeans,
    "GMM": gmm,
    "spectral": spectral,
    "kernel k-means": kernel_kmeans,
    "kernel k-groups": kernel_kgroups,
    "power k-means": power_kmeans,
}
RHO_HALF = {"exponent": 0.5}
EXPONENTIAL = {"metric": "exponential", "sigma": 1.0}
EQ58 = {
    "k-means": kmeans,
    "GMM": gmm,
    "spectral rho_1/2": partial(spectral, **RHO_HALF),
    "kernel k-groups rho_1": kernel_kgroups,
    "kernel k-groups rho_1/2": partial(kernel_kgroups, **RHO_HALF),
    "kernel k-groups exponential": partial(kernel_kgroups, **EXPONENTIAL),
}


def score(rows, labels, truth, **keys):
    rows.append(
        {
            **keys,
            "accuracy": accuracy(labels, truth),
            "ARI": adjusted_rand_score(truth, labels),
            "VI": variation_of_information(labels, truth),
        }
    )


def two_gaussians(rng, n, mu2, sd1, sd2):
    truth = rng.integers(0, 2, size=n)
    X = np.where(
        truth[:, None] == 0,
        rng.normal(size=(n, len(mu2))) * sd1,
        mu2 + rng.normal(size=(n, len(mu2))) * sd2,
    )
    return X, truth


# --- experiments -----------------------------------------------------------------------


ONE_DIM = {
    "k-means": kmeans,
    "GMM": gmm,
    "1-D splitter": splitter,
    "kernel k-groups": kernel_kgroups,
}


def one_dim_mixture(rng, n):
    """(1/2) N(0, 1.5^2) + (1/2) N(1.5, 0.3^2): the points and their classes."""
    truth = rng.integers(0, 2, size=n)
    return np.where(truth == 0, rng.normal(0, 1.5, n), rng.normal(1.5, 0.3, n)), truth


def table1(reps, quick):
    rows = []
    for run in range(reps):
        x, truth = one_dim_mixture(np.random.default_rng(run), 2000)
        for name, data in (("normal", x), ("lognormal", np.exp(x))):
            for method, fn in ONE_DIM.items():
                score(rows, fn(data[:, None], 2, run), truth, mixture=name, method=method, run=run)
    return pd.DataFrame(rows)


def fig1(reps, quick):
    rows = []
    for n in (100, 1000) if quick else (50, 100, 200, 500, 1000, 2000):
        for run in range(reps):
            x, truth = one_dim_mixture(np.random.default_rng(4000 * n + run), n)
            for name, data in (("normal", x), ("lognormal", np.exp(x))):
                for method, fn in ONE_DIM.items():
                    score(
                        rows,
                        fn(data[:, None], 2, run),
                        truth,
                        n=n,
                        method=f"{method} ({name})",
                        run=run,
                    )
    return pd.DataFrame(rows)


def fig3a(reps, quick):
    dims = (10, 50, 100) if quick else (10, 25, 50, 100, 150, 200, 300)
    rows = []
    for D in dims:
        mu2 = np.r_[0.7 * np.ones(10), np.zeros(D - 10)]
        for run in range(reps):
            rng = np.random.default_rng(1000 * D + run)
            X, truth = two_gaussians(rng, 200, mu2, 1.0, 1.0)
            for method, fn in STANDARD.items():
                score(rows, fn(X, 2, run), truth, D=D, method=method, run=run)
    return pd.DataFrame(rows)


SIGMA57 = np.sqrt([1.367, 3.175, 3.247, 4.403, 1.249, 1.969, 4.035, 4.237, 2.813, 3.637])


def fig3b(reps, quick):
    dims = (10, 50, 100) if quick else (10, 25, 50, 100, 150, 200, 300)
    rows = []
    for D in dims:
        mu2 = np.r_[np.ones(10), np.zeros(D - 10)]
        sd2 = np.r_[SIGMA57, np.ones(D - 10)]
        for run in range(reps):
            rng = np.random.default_rng(2000 * D + run)
            X, truth = two_gaussians(rng, 200, mu2, 1.0, sd2)
            for method, fn in STANDARD.items():
                score(rows, fn(X, 2, run), truth, D=D, method=method, run=run)
    return pd.DataFrame(rows)


def _eq58(reps, quick, lognormal):
    sizes = (50, 200) if quick else (20, 50, 100, 200, 300, 400)
    mu2 = np.r_[0.5 * np.ones(5), np.zeros(15)]
    rows = []
    for n in sizes:
        for run in range(reps):
            rng = np.random.default_rng(3000 * n + run + (7 if lognormal else 0))
            X, truth = two_gaussians(rng, n, mu2, np.sqrt(0.5), 1.0)  # 2 Sigma_1 = Sigma_2 = I
            if lognormal:
                X = np.exp(X)
            for method, fn in EQ58.items():
                score(rows, fn(X, 2, run), truth, n=n, method=method, run=run)
    return pd.DataFrame(rows)


def fig3c(reps, quick):
    return _eq58(reps, quick, lognormal=False)


def fig3d(reps, quick):
    return _eq58(reps, quick, lognormal=True)


def fig3e(reps, quick):
    N = 300
    ms = (0, 120, 240) if quick else (0, 40, 80, 120, 160, 200, 240)
    mu2 = 1.5 * np.array([1.0, 1.0, 0.0, 0.0])
    sd2 = np.sqrt([0.5, 0.5, 1.0, 1.0])
    rows = []
    for m in ms:
        truth = np.repeat([0, 1], [N - m, N + m])
        for run in range(reps):
            rng = np.random.default_rng(5000 * m + run)
            X = rng.normal(size=(2 * N, 4)) * np.where(truth[:, None] == 0, 1.0, sd2) + np.outer(
                truth, mu2
            )
            for method, fn in STANDARD.items():
                score(rows, fn(X, 2, run), truth, m=m, method=method, run=run)
    return pd.DataFrame(rows)


def cigars(rng, n):
    truth = rng.integers(0, 2, size=n)
    return rng.normal(size=(n, 2)) * [1.0, np.sqrt(20.0)] + np.outer(truth, [6.5, 0.0]), truth


def circles(rng, n):
    truth = rng.integers(0, 2, size=n)
    angle = rng.uniform(0, 2 * np.pi, size=n)
    radius = np.where(truth == 0, 1.0, 3.0)
    X = radius[:, None] * np.c_[np.cos(angle), np.sin(angle)] + 0.2 * rng.normal(size=(n, 2))
    return X, truth


def table2(reps, quick):
    settings = {
        "cigars (Fig. 4a)": (cigars, {"metric": "exponential", "sigma": 2.0}),
        "circles (Fig. 4b)": (circles, {"metric": "gaussian", "sigma": 1.0}),
    }
    rows = []
    for data, (generate, metric) in settings.items():
        methods = {
            "k-means": kmeans,
            "GMM": gmm,
            "spectral": partial(spectral, **metric),
            "kernel k-means": partial(kernel_kmeans, init="random", **metric),
            "kernel k-groups": partial(kernel_kgroups, init="random", **metric),
            "kernel k-groups rho_1": partial(kernel_kgroups, init="random"),
            "kernel k-groups rho_1/2": partial(kernel_kgroups, init="random", **RHO_HALF),
        }
        for run in range(reps):
            X, truth = generate(np.random.default_rng(9000 + run), 800)
            for method, fn in methods.items():
                score(rows, fn(X, 2, run), truth, data=data, method=method, run=run)
    return pd.DataFrame(rows)


def digits(reps, quick):
    images, classes = load_digits(return_X_y=True)
    subsets = (5, 10) if quick else (5, 7, 9, 10)
    rows = []
    for k in subsets:
        for run in range(reps):
            rng = np.random.default_rng(7000 + 100 * k + run)
            chosen = np.concatenate(
                [rng.choice(np.flatnonzero(classes == c), 100, replace=False) for c in range(k)]
            )
            rest = np.setdiff1d(np.flatnonzero(classes < k), chosen)
            sigma = float(np.sqrt(np.mean(es.pairwise_semimetric(images[rest], exponent=2.0))))
            X, truth = images[chosen], classes[chosen]
            methods = {
                "k-means": kmeans,
                "GMM": gmm,
                "spectral Gaussian": partial(spectral, metric="gaussian", sigma=sigma),
                "kernel k-groups rho_1": kernel_kgroups,
                "kernel k-groups rho_1/2": partial(kernel_kgroups, **RHO_HALF),
                "kernel k-groups exponential": partial(
                    kernel_kgroups, metric="exponential", sigma=sigma
                ),
                "kernel k-groups Gaussian": partial(kernel_kgroups, metric="gaussian", sigma=sigma),
            }
            for method, fn in methods.items():
                score(
                    rows,
                    fn(X, k, run),
                    truth,
                    classes=f"0..{k - 1}",
                    method=method,
                    run=run,
                    sigma=sigma,
                )
    return pd.DataFrame(rows)


def realdata(reps, quick):
    iris = es.datasets.load_iris()
    sets = {
        "iris": (iris.iloc[:, :4].to_numpy(), iris["Species"].to_numpy()),
        "wine": load_wine(return_X_y=True),
        "breast cancer": load_breast_cancer(return_X_y=True),
    }
    rows = []
    for name, (X, truth) in sets.items():
        X = StandardScaler().fit_transform(X)
        k = len(np.unique(truth))
        for run in range(reps):
            for method, fn in STANDARD.items():
                score(rows, fn(X, k, run), truth, data=name, method=method, run=run)
    return pd.DataFrame(rows)


class Experiment(NamedTuple):
    run: Callable  # (reps, quick) -> one row per method, run and setting
    axis: str  # the column of the setting that varies
    bayes: float | None  # the Bayes accuracy, drawn as a line when known
    title: str  # what the figure shows


EXPERIMENTS = {
    "table1": Experiment(table1, "mixture", None, "One-dimensional mixtures, n = 2,000"),
    "fig1": Experiment(fig1, "n", None, "One-dimensional normal and lognormal mixtures"),
    "fig3a": Experiment(fig3a, "D", 0.86, "Two Gaussians, signal in 10 of D coordinates"),
    "fig3b": Experiment(fig3b, "D", 0.95, "Two Gaussians, unequal diagonal covariances"),
    "fig3c": Experiment(fig3c, "n", 0.90, "Normal mixture in 20 dimensions"),
    "fig3d": Experiment(fig3d, "n", 0.90, "Lognormal mixture in 20 dimensions"),
    "fig3e": Experiment(fig3e, "m", None, "Unbalanced clusters of 300 - m and 300 + m points"),
    "table2": Experiment(
        table2, "data", None, "Parallel cigars and concentric circles, 800 points"
    ),
    "digits": Experiment(digits, "classes", None, "8 x 8 digits, 100 images per class"),
    "realdata": Experiment(realdata, "data", None, "iris, wine and breast cancer, standardised"),
}
#: the label of each setting's axis
AXIS_LABELS = {"n": "sample size n", "D": "dimension D", "m": "imbalance m", "mixture": "mixture",
               "data": "data set", "classes": "digit classes"}
REPS = {"table2": 30, "digits": 10}


def summarise(frame, axis):
    """Accuracy as "mean (standard error)", methods by values of ``axis``."""
    summary = frame.groupby(["method", axis])["accuracy"].agg(["mean", "sem"])
    return summary.apply(lambda r: f"{r['mean']:.3f} ({r['sem']:.3f})", axis=1).unstack(axis)


def plot(frame, axis, bayes, title, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    means = frame.groupby(["method", axis])["accuracy"].mean().unstack(axis)
    if pd.api.types.is_numeric_dtype(means.columns):
        for method, row in means.iterrows():
            ax.plot(row.index, row.values, marker="o", label=method)
        ax.set_xlabel(AXIS_LABELS[axis])
    else:
        means.T.plot.bar(ax=ax, rot=0, xlabel=AXIS_LABELS[axis])
    if bayes is not None:
        ax.axhline(bayes, color="k", ls="--", lw=1, label="Bayes accuracy")
    ax.set_ylabel("accuracy")
    ax.set_title(title)
    ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", nargs="+", choices=list(EXPERIMENTS))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument(
        "--replot",
        action="store_true",
        help="redraw the figures from the saved CSV files, running nothing",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "_quick" if args.quick else ""
    for name in args.only or EXPERIMENTS:
        experiment = EXPERIMENTS[name]
        figure = args.out / f"paper_{name}{suffix}.png"
        if args.replot:
            plot(
                pd.read_csv(args.out / f"paper_{name}{suffix}.csv"),
                experiment.axis,
                experiment.bayes,
                experiment.title,
                figure,
            )
            continue
        reps = 3 if args.quick else REPS.get(name, 20)
        frame = experiment.run(reps, args.quick)
        frame.to_csv(args.out / f"paper_{name}{suffix}.csv", index=False)
        acc = summarise(frame, experiment.axis)
        text = (
            f"# {name}: accuracy (eq. 55), mean (standard error) over {frame['run'].nunique()} "
            f"runs\n\n```text\n{acc.to_string()}\n```\n"
        )
        (args.out / f"paper_{name}{suffix}.md").write_text(text)
        plot(frame, experiment.axis, experiment.bayes, experiment.title, figure)
        print(text, flush=True)


if __name__ == "__main__":
    main()
