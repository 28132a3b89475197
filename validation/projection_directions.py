"""How many random directions: the projected energy test's level, power and time for K = 50,
100 and 200, beside the exact test (the energy family's side of the one default number of
directions, ``energystats._scale.projection.N_PROJECTIONS``; the independence family's side is in
``validation/independence_gamma.py``).

Usage: python validation/projection_directions.py [--quick] [--out validation/results]

* level: the rejection rate at 0.05 under H0 (two samples of 1,000 standard normal points,
  d = 10, 99 relabelings), with its binomial 95% interval;
* power: the same with a location shift of 0.06 in every coordinate, and with the first
  coordinate's scale 1.4 (effects at which the exact test's power is about 0.5-0.8), the
  projected test's power as a share of the exact test's;
* time: one call of ``energy_test(..., approximation="projection", n_resamples=99)`` at
  n = 10^5 and 10^6 (d = 10, two groups), per K, on this machine.

Full mode: 200 data sets per setting (standard error of a power of 0.6 about 0.035);
--quick: 10 data sets and the time at n = 10^5 only (used in CI).
Writes projection_directions.csv and projection_directions.md.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import binomtest

import energystats as es

KS = (50, 100, 200)
N, D, B = 2000, 10, 99
SETTINGS = {
    "level (H0)": lambda X: X,
    "location, 0.06 in every coordinate": lambda X: (
        X + np.r_[np.zeros(N // 2), np.full(N // 2, 0.06)][:, None]
    ),
    "scale 1.4 in one coordinate of ten": lambda X: (
        X * np.where(np.arange(N)[:, None] >= N // 2, np.r_[1.4, np.ones(D - 1)], 1.0)
    ),
}


def rejections(reps: int) -> pd.DataFrame:
    labels = np.repeat([0, 1], N // 2)
    rows = []
    for name, alter in SETTINGS.items():
        hits = {"exact": 0, **{K: 0 for K in KS}}
        for rep in range(reps):
            X = alter(np.random.default_rng(rep).normal(size=(N, D)))
            hits["exact"] += es.energy_test(X, labels, n_resamples=B, rng=rep).pvalue <= 0.05
            for K in KS:
                res = es.energy_test(
                    X, labels, n_resamples=B, rng=rep, approximation="projection", n_projections=K
                )
                hits[K] += res.pvalue <= 0.05
        row = {"setting": name, "data sets": reps, "exact": hits["exact"] / reps}
        for K in KS:
            row[f"K = {K}"] = hits[K] / reps
        for K in KS:
            if name.startswith("level"):
                ci = binomtest(hits[K], reps).proportion_ci(0.95)
                row[f"K = {K} 95% interval"] = f"{ci.low:.3f}-{ci.high:.3f}"
            else:
                row[f"K = {K} / exact"] = hits[K] / max(hits["exact"], 1)
        rows.append(row)
    return pd.DataFrame(rows)


def timings(sizes) -> pd.DataFrame:
    rows = []
    for n in sizes:
        X = np.random.default_rng(n).normal(size=(n, D))
        labels = np.repeat([0, 1], n // 2)
        for K in KS:
            start = time.perf_counter()
            es.energy_test(
                X, labels, n_resamples=B, rng=0, approximation="projection", n_projections=K
            )
            rows.append({"n": n, "K": K, "seconds": time.perf_counter() - start})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    power = rejections(10 if args.quick else 200)
    times = timings((10**5,) if args.quick else (10**5, 10**6))
    power.to_csv(out / "projection_directions.csv", index=False)
    times.to_csv(out / "projection_directions_time.csv", index=False)
    text = report(power, times)
    (out / "projection_directions.md").write_text(text)
    print(text)


def report(power: pd.DataFrame, times: pd.DataFrame) -> str:
    """The level, the power and the time as three tables (the level's and the power's columns
    apart)."""
    level = power["setting"].str.startswith("level")
    tables = [
        power[level].dropna(axis=1, how="all"),
        power[~level].dropna(axis=1, how="all"),
        times.pivot(index="n", columns="K", values="seconds"),
    ]
    return (
        "# projection_directions\n\n```text\n"
        + "\n\n".join(t.to_string(index=t is tables[2], float_format="%.3f") for t in tables)
        + "\n```\n"
    )


if __name__ == "__main__":
    main()
