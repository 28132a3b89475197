"""Calibration of the tests of independence without permutations, and the power of the
projected test against the exact one.

Usage: python validation/independence_gamma.py [--quick] [--out validation/results]

1. Level of ``dcov_test(method="gamma")`` (exact permutation mean and variance, the limit's
   skewness: a Pearson III p-value) beside the permutation p-value (B = 199) under
   independence: rejection rates at 0.05 and 0.01 on normal data (n = 30, 100, 1,000),
   heavy tails (t with 2 degrees of freedom, one-dimensional and multivariate), discrete data
   (a categorical x against Poisson counts) and a binary x against a skewed y; the
   two-moment gamma (as Gretton et al. 2008 fit HSIC) beside it, to show what the third
   moment buys.
2. Agreement of the gamma and permutation p-values on dependent data (median |difference|).
3. The projected test (Huang & Huo 2017; the default K = 200 directions, its asymptotic gamma
   p-value, beside K = 50): level on
   independent heavy-tailed data (t(3), n = 2,000, d = 10 and 5) and power beside the exact
   test (gamma p-value) on two nonlinear alternatives, one whose dependence is spread over
   five coordinates of x and one where it sits in one coordinate of ten.

Each level cell is a rejection rate over its data sets with its binomial 99% interval;
``--quick`` runs few data sets (CI); ``--tables projection`` recomputes that table only (the
others are read from their CSV files).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import binom

import energystats as es
from energystats._independence import testing
from energystats._scale.projection import N_PROJECTIONS

NULLS = {
    "normal n=30 (d 3, 2)": lambda g: (g.normal(size=(30, 3)), g.normal(size=(30, 2))),
    "normal n=100 (d 3, 2)": lambda g: (g.normal(size=(100, 3)), g.normal(size=(100, 2))),
    "normal n=1000 (d 5, 5)": lambda g: (g.normal(size=(1000, 5)), g.normal(size=(1000, 5))),
    "t(2) n=100 (1-d)": lambda g: (g.standard_t(2, size=100), g.standard_t(2, size=100)),
    "t(2) n=100 (d 3, 3)": lambda g: (
        g.standard_t(2, size=(100, 3)),
        g.standard_t(2, size=(100, 3)),
    ),
    "categorical x, Poisson y, n=100": lambda g: (
        g.integers(0, 4, size=100).astype(str),
        g.poisson(1.5, size=(100, 2)),
    ),
    "binary x, exponential y, n=60": lambda g: (
        g.integers(0, 2, size=60).astype(str),
        g.exponential(size=60),
    ),
}


def band(reps: int, level: float) -> str:
    lo, hi = binom.ppf([0.005, 0.995], reps, level) / reps
    return f"[{lo:.3f}, {hi:.3f}]"


def two_moment_pvalue(x, y) -> float:
    """The gamma p-value with the exact mean and variance only (no skewness)."""
    original = testing.gamma_pvalue
    testing.gamma_pvalue = lambda s, m, v, k: original(s, m, v, None)
    try:
        return es.dcov_test(x, y, method="gamma").pvalue
    finally:
        testing.gamma_pvalue = original


def calibration(reps: int, perm_reps: int, seed: int) -> pd.DataFrame:
    rows = []
    for name, draw in NULLS.items():
        gen = np.random.default_rng([seed, len(name)])
        start = time.perf_counter()
        data = [draw(gen) for _ in range(reps)]
        pg = np.array([es.dcov_test(x, y, method="gamma").pvalue for x, y in data])
        seconds = (time.perf_counter() - start) / reps
        p2 = np.array([two_moment_pvalue(x, y) for x, y in data])
        pp = np.array(
            [es.dcov_test(x, y, n_resamples=199, rng=gen).pvalue for x, y in data[:perm_reps]]
        )
        for method, p in (
            ("gamma (Pearson III)", pg),
            ("gamma, two moments", p2),
            ("permutation, B = 199", pp),
        ):
            rows.append(
                {
                    "null": name,
                    "method": method,
                    "data sets": p.size,
                    "rate at 0.05": (p <= 0.05).mean(),
                    "99% band at 0.05": band(p.size, 0.05),
                    "rate at 0.01": (p <= 0.01).mean(),
                    "99% band at 0.01": band(p.size, 0.01),
                    "ms per gamma p-value": round(1e3 * seconds, 2)
                    if method.startswith("gamma (")
                    else None,
                }
            )
        print(rows[-3], flush=True)
    return pd.DataFrame(rows)


def agreement(reps: int, seed: int) -> pd.DataFrame:
    gen = np.random.default_rng(seed)
    rows = []
    for strength in (0.5, 1.0, 2.0):
        diffs, pvals = [], []
        for _ in range(reps):
            x = gen.normal(size=(150, 2))
            y = np.abs(x[:, :1]) + strength * gen.normal(size=(150, 1))
            g = es.dcov_test(x, y, method="gamma").pvalue
            p = es.dcov_test(x, y, n_resamples=1999, rng=gen).pvalue
            diffs.append(abs(g - p))
            pvals.append(p)
        rows.append({"y = |x1| + s noise, s": strength, "median permutation p": np.median(pvals),
                     "median |gamma - permutation|": np.median(diffs), "data sets": reps})
    return pd.DataFrame(rows)


ALTERNATIVES = {
    # dependence spread over five coordinates of x: every direction sees some of it
    "y = x_1..5 ^ 2 + 8 noise (dense)": lambda x, g: (
        x[:, :5] ** 2 + 8.0 * g.normal(size=(x.shape[0], 5))
    ),
    # dependence on one coordinate of ten: a random direction sees a tenth of it
    "y = |x_1| + 1.5 noise (sparse)": lambda x, g: np.c_[
        np.abs(x[:, 0]) + 1.5 * g.normal(size=x.shape[0]), g.normal(size=(x.shape[0], 4))
    ],
}


#: The numbers of directions compared: the default and a quarter of it.
KS = (N_PROJECTIONS, 50)


def projection(reps: int, seed: int, n: int) -> pd.DataFrame:
    gen = np.random.default_rng(seed)

    def projected(x, y, K) -> float:
        return es.dcov_test(
            x, y, approximation="projection", n_projections=K, method="gamma", rng=gen
        ).pvalue

    level = {K: [] for K in KS}
    for _ in range(reps):
        x, y = gen.standard_t(3, size=(n, 10)), gen.standard_t(3, size=(n, 5))
        for K in KS:
            level[K].append(projected(x, y, K) <= 0.05)
    rows = [
        {
            "case": f"level, independent t(3), n = {n}, d = 10 and 5",
            "exact test": None,
            **{f"projected, K = {K}": np.mean(level[K]) for K in KS},
            **{f"K = {K} / exact": None for K in KS},
            "99% band": band(reps, 0.05),
            "data sets": reps,
        }
    ]
    for name, alternative in ALTERNATIVES.items():
        exact, power = [], {K: [] for K in KS}
        for _ in range(reps):
            x = gen.normal(size=(n, 10))
            y = alternative(x, gen)
            exact.append(es.dcov_test(x, y, method="gamma").pvalue <= 0.05)
            for K in KS:
                power[K].append(projected(x, y, K) <= 0.05)
        e = np.mean(exact)
        rows.append(
            {
                "case": f"power, {name}, x of d = 10, n = {n}",
                "exact test": e,
                **{f"projected, K = {K}": np.mean(power[K]) for K in KS},
                **{f"K = {K} / exact": np.mean(power[K]) / e if e > 0 else None for K in KS},
                "99% band": "",
                "data sets": reps,
            }
        )
    return pd.DataFrame(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument(
        "--tables",
        nargs="+",
        choices=("calibration", "agreement", "projection"),
        default=["calibration", "agreement", "projection"],
        help="the tables to recompute",
    )
    args = parser.parse_args()
    reps, perm_reps, agree_reps, proj_reps, n = (
        (20, 10, 3, 4, 300) if args.quick else (2000, 500, 100, 200, 2000)
    )
    suffix = "_quick" if args.quick else ""
    runs = {
        "calibration": lambda: calibration(reps, perm_reps, 20261123),
        "agreement": lambda: agreement(agree_reps, 7),
        "projection": lambda: projection(proj_reps, 11, n),
    }
    tables = {
        name: run()
        if name in args.tables
        else pd.read_csv(args.out / f"independence_{name}{suffix}.csv", keep_default_na=False)
        for name, run in runs.items()
    }
    args.out.mkdir(parents=True, exist_ok=True)
    parts = [f"# Tests of independence without permutations{' (quick)' if args.quick else ''}", ""]
    titles = {
        "calibration": "Level under independence (rejection rates)",
        "agreement": "Gamma against permutation p-values, dependent data",
        "projection": f"The projected test (K = {KS[0]} and {KS[1]}): level and power against the "
        "exact test",
    }
    for name, table in tables.items():
        table.to_csv(args.out / f"independence_{name}{suffix}.csv", index=False)
        parts += [f"## {titles[name]}", "", "```text", table.to_string(index=False), "```", ""]
    text = "\n".join(parts)
    (args.out / f"independence_gamma{suffix}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
