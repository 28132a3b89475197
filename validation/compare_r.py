"""Run energystats and R's energy side by side and print one agreement table.

Usage: python validation/compare_r.py [--out validation/results/compare_r.md]

Data sets: iris by species; random normal data with unequal groups, k = 2..5;
exponents 1 and 0.5. Each row gives the largest relative difference between
energystats and R over the entries compared (for p-values: the absolute
difference, against 4 binomial standard errors), and R's time over ours.
kgroups rows: "r-kgroups" mode must give R's labels from the same start;
"hartigan" mode, started from R's result, a W no larger.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

import energystats as es
from energystats._rbridge import (
    r_call,
    r_factor,
    r_field,
    r_matrix,
    r_versions,
    to_numpy,
)


def datasets():
    iris = es.datasets.load_iris()
    yield "iris", iris.iloc[:, :4].to_numpy(), pd.factorize(iris["Species"])[0]
    rng = np.random.default_rng(7)
    for k in (2, 3, 4, 5):
        sizes = rng.integers(20, 200, size=k)
        codes = np.repeat(np.arange(k), sizes)
        yield f"normal k={k} n={sizes.sum()}", rng.normal(size=(sizes.sum(), 5)) + 0.3 * codes[:, None], codes


def rel(a, b) -> float:
    a, b = np.atleast_1d(np.asarray(a, float)), np.atleast_1d(np.asarray(b, float))
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


def row(data, alpha, what, difference, agree, ratio) -> dict:
    return {"data": data, "alpha": alpha, "R quantity": what, "difference": difference,
            "agree": bool(agree), "R time / es time": round(ratio, 1)}


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="also write the table as markdown")
    args = parser.parse_args()
    rows = []
    for name, X, codes in datasets():
        sizes = np.bincount(codes)
        xr, fac = r_matrix(X), r_factor(codes)
        for a in (1.0, 0.5):
            ours, t_es = timed(lambda: es.dispersion(X, codes, exponent=a))
            edist, t_edist = timed(lambda: to_numpy(r_call("as.matrix", r_call("edist", xr, sizes, alpha=a))))
            disco, t_disco = timed(lambda: r_call("disco", xr, fac, index=a, R=0))
            iu = np.triu_indices(len(sizes), 1)
            checks = {
                "edist": (ours.pairwise[iu], edist[iu], t_edist),
                "disco between (S)": (ours.S, to_numpy(r_field(disco, "between")), t_disco),
                "disco within (W)": (ours.W, to_numpy(r_field(disco, "within")), t_disco),
                "disco total (T)": (ours.T, to_numpy(r_field(disco, "total")), t_disco),
                "disco statistic (F)": (ours.F, to_numpy(r_field(disco, "statistic")), t_disco),
            }
            if a == 1.0:
                e, t_e = timed(lambda: to_numpy(r_call("eqdist.e", xr, sizes)))
                checks["eqdist.e"] = (ours.pairwise[iu].sum(), e, t_e)
            for what, (mine, theirs, t_r) in checks.items():
                rows.append(row(name, a, what, f"{rel(mine, theirs):.1e}", rel(mine, theirs) <= 1e-10, t_r / t_es))
        # the permutation test: statistic to 1e-10, p-value within Monte Carlo error
        test, t_es = timed(lambda: es.energy_test(X, codes, statistic="E", n_resamples=999, rng=1))
        r_call("set.seed", 1)
        etest, t_r = timed(lambda: r_call("eqdist.etest", xr, sizes, R=999))
        r_stat, r_p = to_numpy(r_field(etest, "statistic"))[0], to_numpy(r_field(etest, "p.value"))[0]
        rows.append(row(name, 1.0, "eqdist.etest statistic", f"{rel(test.statistic, r_stat):.1e}", rel(test.statistic, r_stat) <= 1e-10, t_r / t_es))
        p = (test.pvalue + r_p) / 2
        tol = 4 * np.sqrt(2 * p * (1 - p) / 1000) + 2 / 1000
        rows.append(row(name, 1.0, f"eqdist.etest p ({test.pvalue:.3f} vs {r_p:.3f})", f"{abs(test.pvalue - r_p):.3f}", abs(test.pvalue - r_p) <= tol, t_r / t_es))
        # kgroups from the same balanced random start
        k = len(sizes)
        start = np.random.default_rng(0).permutation(np.arange(len(codes)) % k)
        ours_kg, t_es = timed(lambda: es.KGroups(k, algorithm="r-kgroups", init=start).fit(X))
        kg, t_r = timed(lambda: r_call("kgroups", xr, k, iter_max=100, cluster=start + 1))
        same = bool(np.array_equal(ours_kg.labels_ + 1, to_numpy(r_field(kg, "cluster"))))
        rows.append(row(name, 1.0, "kgroups labels (r-kgroups mode)", "identical" if same else "differ", same, t_r / t_es))
        r_W = to_numpy(r_field(kg, "W"))[0]
        hart, t_es = timed(lambda: es.KGroups(k, init=ours_kg.labels_, random_state=0).fit(X))
        rows.append(row(name, 1.0, f"kgroups W: hartigan {hart.W_:.4f} vs R {r_W:.4f}", f"{(hart.W_ - r_W) / r_W:.1e}", hart.W_ <= r_W * (1 + 1e-12), t_r / t_es))
    table = pd.DataFrame(rows)
    versions = r_versions()
    header = f"energystats {es.__version__} vs R {versions['R']}, energy {versions['energy']} (rpy2 {versions['rpy2']})"
    print(header)
    print(table.to_string(index=False))
    print(f"\n{table['agree'].sum()} of {len(table)} comparisons agree")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(f"# {header}\n\n```text\n{table.to_string(index=False)}\n```\n")


if __name__ == "__main__":
    main()
