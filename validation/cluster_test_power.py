"""Level and power of cluster_test against the dimension d and the sample size n.

Usage: python validation/cluster_test_power.py [--quick] [--out validation/results]

Alternative: two equal Gaussian groups, N(0, I_d) and N(4 e_1, I_d) (means 4
standard deviations apart along one axis). Null: one Gaussian N(0, I_d).
Each cell is the rejection rate at level 0.05 of cluster_test(X, 2,
n_resamples=39, n_init=3) over `reps` data sets (full: 40, --quick: 8), with
its binomial standard error.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

import energystats as es


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    reps = 8 if args.quick else 40
    rows = []
    gen = np.random.default_rng(20261122)
    for n in (60, 120):
        for d in (2, 5, 10):
            for setting in ("one Gaussian (H0)", "two groups 4 sd apart"):
                rejections = 0
                for _ in range(reps):
                    X = gen.normal(size=(n, d))
                    if setting.startswith("two"):
                        X[n // 2 :, 0] += 4.0
                    rejections += es.cluster_test(X, 2, n_resamples=39, rng=gen, n_init=3).pvalue <= 0.05
                rate = rejections / reps
                rows.append({"n": n, "d": d, "setting": setting, "rejection rate": rate,
                             "se": np.sqrt(rate * (1 - rate) / reps), "data sets": reps})
                print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "_quick" if args.quick else ""
    table.to_csv(args.out / f"cluster_test_power{suffix}.csv", index=False)
    cells = table.assign(cell=table.apply(lambda r: f"{r['rejection rate']:.2f} ({r['se']:.2f})", axis=1))
    wide = cells.pivot_table(index=["setting", "n"], columns="d", values="cell", aggfunc="first")
    text = (f"# cluster_test: rejection rate at level 0.05 (standard error), {reps} data sets per cell\n\n"
            f"```text\n{wide.to_string()}\n```\n")
    (args.out / f"cluster_test_power{suffix}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
