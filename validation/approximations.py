"""Validity of the large-data approximations: the random-projection test and Nyström k-groups.

Usage: python validation/approximations.py [--quick] [--only NAME ...] [--out validation/results]

Sections (each writes approx_<name>.csv and approx_<name>.md with standard errors):

* sphere: C_d in closed form and by Monte Carlo (10^6 directions);
* unbiased: the mean of the projection statistics over many draws of the directions
  against the exact statistics (S, W and the energy distance), with Monte Carlo errors;
* level: rejection rate at 0.05 under H0 with heavy tails (t with 3 and 5 degrees of
  freedom, d = 8, n = 100), L = 25, 50, 100, with the binomial 95% interval;
* power: location, scale and correlation alternatives in d = 2, 10, 50 (n = 100, two
  groups of 50), the exact test against the projection test with L = 25, 50, 100, and
  the projection test's power as a share of the exact test's;
* nystroem: accuracy (eq. 55), the exact W (dispersion of the labels found) and the
  estimator's own W_ against it, of Nyström kernel k-groups with m = 100, 300, 1000
  landmarks drawn uniformly or by D^2 sampling, against exact kernel k-groups, on the
  paper's Fig. 3a-3d settings (eq. 56-58) and on overlapping Gaussian blobs (n = 20,000,
  d = 5, k = 4).

Full mode: 300 data sets for the level, 200 for the power, 500 draws of the directions,
10 runs per Nyström setting (3 for the blobs); --quick: a few (used in CI).
"""

from __future__ import annotations

import argparse
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
from paper_experiments import SIGMA57, two_gaussians
from scipy.stats import binomtest

import energystats as es
from energystats._metrics import accuracy
from energystats._scale.projection import random_directions, sphere_constant


def sphere(quick):
    rows = []
    for d in (1, 2, 3, 5, 10, 50):
        U = random_directions(10**5 if quick else 10**6, d, np.random.default_rng(d))
        x = np.random.default_rng(1000 + d).normal(size=d)
        a = sphere_constant(d) * np.abs(U @ x) / np.linalg.norm(x)
        rows.append(
            {
                "d": d,
                "C_d closed form": sphere_constant(d),
                "Monte Carlo C_d": sphere_constant(d) / a.mean(),
                "relative error": abs(a.mean() - 1),
                "standard error": a.std() / np.sqrt(a.size),
            }
        )
    return pd.DataFrame(rows)


def unbiased(quick):
    draws = 50 if quick else 500
    rows = []
    rng = np.random.default_rng(7)
    for d in (2, 10, 50):
        X = rng.normal(size=(200, d))
        labels = np.repeat([0, 1], 100)
        X[labels == 1, 0] += 0.5
        exact = es.dispersion(X, labels)
        exact_e = es.energy_distance(X[:100], X[100:])
        for L in (1, 10):
            sample = [
                es.dispersion(X, labels, approximation="projection", n_projections=L, rng=s)
                for s in range(draws)
            ]
            e = [
                es.energy_distance(
                    X[:100], X[100:], approximation="projection", n_projections=L, rng=s
                )
                for s in range(draws)
            ]
            for name, value, values in (
                ("S", exact.S, [r.S for r in sample]),
                ("W", exact.W, [r.W for r in sample]),
                ("E", exact_e, e),
            ):
                values = np.asarray(values)
                rows.append(
                    {
                        "d": d,
                        "L": L,
                        "statistic": name,
                        "exact": value,
                        "mean of projections": values.mean(),
                        "relative error": values.mean() / value - 1,
                        "Monte Carlo se (relative)": values.std() / np.sqrt(draws) / value,
                        "sd of one draw (relative)": values.std() / value,
                    }
                )
    return pd.DataFrame(rows)


def level(quick):
    reps = 40 if quick else 300
    rows = []
    for df in (3, 5):
        for L in (25, 50, 100):
            rejections = 0
            for rep in range(reps):
                g = np.random.default_rng(10_000 * df + rep)
                X = g.standard_t(df, size=(100, 8))
                res = es.energy_test(
                    X,
                    np.arange(100) % 2,
                    n_resamples=99,
                    rng=g,
                    approximation="projection",
                    n_projections=L,
                )
                rejections += res.pvalue <= 0.05
            ci = binomtest(rejections, reps).proportion_ci(0.95)
            rows.append(
                {
                    "t df": df,
                    "L": L,
                    "rejection rate": rejections / reps,
                    "95% interval low": ci.low,
                    "95% interval high": ci.high,
                    "data sets": reps,
                }
            )
            print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def alternative(kind, d, g):
    """Two groups of 50: N(0, I) against a location, scale or correlation change."""
    x = g.normal(size=(50, d))
    y = g.normal(size=(50, d))
    # effect sizes where the exact test's power is about 0.6-0.8 (calibrated on 60 data sets)
    if kind == "location":
        y[:, 0] += {2: 0.6, 10: 0.8, 50: 1.0}[d]
    elif kind == "scale":
        y *= {2: 1.7, 10: 1.35, 50: 1.2}[d]
    else:  # correlation: a common factor, equal variances
        rho = {2: 0.95, 10: 0.65, 50: 0.45}[d]
        y = np.sqrt(1 - rho) * y + np.sqrt(rho) * g.normal(size=(50, 1))
    return np.vstack([x, y]), np.repeat([0, 1], 50)


def power(quick):
    reps = 20 if quick else 200
    rows = []
    for kind in ("location", "scale", "correlation"):
        for d in (2, 10, 50):
            rejections = {"exact": 0, 25: 0, 50: 0, 100: 0}
            for rep in range(reps):
                g = np.random.default_rng([zlib.crc32(kind.encode()), d, rep])
                X, labels = alternative(kind, d, g)
                seed = int(g.integers(2**31))
                rejections["exact"] += (
                    es.energy_test(X, labels, n_resamples=99, rng=seed).pvalue <= 0.05
                )
                for L in (25, 50, 100):
                    res = es.energy_test(
                        X,
                        labels,
                        n_resamples=99,
                        rng=seed,
                        approximation="projection",
                        n_projections=L,
                    )
                    rejections[L] += res.pvalue <= 0.05
            exact = rejections["exact"] / reps
            row = {"alternative": kind, "d": d, "exact": exact}
            for L in (25, 50, 100):
                row[f"L = {L}"] = rejections[L] / reps
            row["L = 50 / exact"] = row["L = 50"] / exact if exact else np.nan
            row["se"] = np.sqrt(exact * (1 - exact) / reps)
            row["data sets"] = reps
            rows.append(row)
            print(row, flush=True)
    return pd.DataFrame(rows)


def blobs(rng, n, centres):
    truth = rng.integers(0, len(centres), size=n)
    return rng.normal(size=(n, centres.shape[1])) + centres[truth], truth


def nystroem(quick):
    runs = 2 if quick else 10
    settings = {
        "fig3a (eq. 56, D = 10)": lambda g: two_gaussians(
            g, 200, np.r_[0.7 * np.ones(10)], 1.0, 1.0
        ),
        "fig3b (eq. 57, D = 10)": lambda g: two_gaussians(g, 200, np.ones(10), 1.0, SIGMA57),
        "fig3c (eq. 58, n = 400)": lambda g: two_gaussians(
            g, 400, np.r_[0.5 * np.ones(5), np.zeros(15)], np.sqrt(0.5), 1.0
        ),
        "fig3d (eq. 58 lognormal, n = 400)": lambda g: (lambda X, t: (np.exp(X), t))(
            *two_gaussians(g, 400, np.r_[0.5 * np.ones(5), np.zeros(15)], np.sqrt(0.5), 1.0)
        ),
    }
    centres = np.random.default_rng(1).normal(0, 1.5, (4, 5))
    n_blobs = 4000 if quick else 20_000
    settings[f"blobs (n = {n_blobs:,}, d = 5, k = 4)"] = lambda g: blobs(g, n_blobs, centres)
    rows = []
    for name, make in settings.items():
        for run in range(
            1 if name.startswith("blobs") and quick else (3 if name.startswith("blobs") else runs)
        ):
            g = np.random.default_rng([zlib.crc32(name.encode()), run])
            X, truth = make(g)
            k = len(np.unique(truth))
            exact = es.KGroups(k, n_init=5 if len(X) < 5000 else 1, random_state=run).fit(X)
            base = {"setting": name, "run": run}
            rows.append(
                {
                    **base,
                    "method": "exact",
                    "accuracy": accuracy(exact.labels_, truth),
                    "exact W": exact.W_,
                    "W_ / its exact W": 1.0,
                }
            )
            for m in (100, 300, 1000):
                for how in ("d2", "uniform"):
                    fit = es.KGroups(
                        k,
                        n_init=5 if len(X) < 5000 else 1,
                        random_state=run,
                        approximation="nystroem",
                        n_landmarks=m,
                        landmarks=how,
                    ).fit(X)
                    W = es.dispersion(X, fit.labels_).W
                    rows.append(
                        {
                            **base,
                            "method": f"m = {m}, {how}",
                            "accuracy": accuracy(fit.labels_, truth),
                            "exact W": W,
                            "W_ / its exact W": fit.W_ / W,
                        }
                    )
            print(name, run, flush=True)
    table = pd.DataFrame(rows)
    exact = table[table["method"] == "exact"].set_index(["setting", "run"])
    table["accuracy - exact"] = (
        table["accuracy"].to_numpy()
        - exact.loc[list(zip(table["setting"], table["run"])), "accuracy"].to_numpy()
    )
    table["W / exact W"] = (
        table["exact W"].to_numpy()
        / exact.loc[list(zip(table["setting"], table["run"])), "exact W"].to_numpy()
    )
    return table


SECTIONS = {
    "sphere": sphere,
    "unbiased": unbiased,
    "level": level,
    "power": power,
    "nystroem": nystroem,
}


def summary(name, table):
    if name == "nystroem":
        grouped = table.groupby(["setting", "method"])
        mean = grouped[["accuracy", "accuracy - exact", "W / exact W", "W_ / its exact W"]].mean()
        se = grouped[["accuracy - exact"]].std().fillna(0.0) / np.sqrt(
            grouped.size().to_numpy()[:, None]
        )
        mean["se of difference"] = se["accuracy - exact"]
        return mean.round(4).to_string()
    return table.round(4).to_string(index=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", nargs="+", choices=list(SECTIONS))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "_quick" if args.quick else ""
    for name in args.only or SECTIONS:
        table = SECTIONS[name](args.quick)
        table.to_csv(args.out / f"approx_{name}{suffix}.csv", index=False)
        text = f"# {name}\n\n```text\n{summary(name, table)}\n```\n"
        (args.out / f"approx_{name}{suffix}.md").write_text(text)
        print(text, flush=True)


if __name__ == "__main__":
    main()
