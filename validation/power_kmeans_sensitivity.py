"""What moves our Xu & Lange (2019) Tables 1-2 numbers: one change at a time from the protocol.

Usage: python validation/power_kmeans_sensitivity.py [--quick] [--out validation/results]

The protocol is that of ``power_kmeans_tables.py`` (50 data sets per d, 50 points per cluster,
centres uniform in [0, r]^d, plain k-means++ starts, Lloyd stopped on a relative change of f
below 1e-6, root quality ratio against Lloyd from the true centres). Each variant changes one
thing the paper leaves open, or that an earlier version of the script did differently, and
reruns Lloyd and power k-means (s0 = -3, the paper's best) on the same seeds:

- data sets: the mean over the first 10 data sets (the earlier count), and the lowest and
  highest mean over five disjoint blocks of 10 (computed from the protocol's runs);
- sizes: multinomial cluster sizes (each point's cluster uniform) instead of 50 each;
- separation: centres N(0, r I) (variance r) instead of uniform in [0, r]^d, with equal and
  with multinomial sizes; not the paper's text, a check of the hypothesis that its clusters
  were less separated than the text says;
- measure: the quality ratio not square-rooted, or with the objective at the true centres in
  the denominator (computed from the protocol's runs);
- start: k data points drawn at random, or k-means++ with scikit-learn's 2 + ln k local trials;
- stopping: Lloyd as scikit-learn ``KMeans`` (tol=1e-4 on the centres' movement);
- power k-means: a plain Algorithm 1 (stopped on the relative change of f_s, no Lloyd finish),
  and the annealing rate eta = 1.01 or 1.1 instead of 1.05.

Reported per variant and d: mean (standard deviation) of both methods' root ratio and VI, the
share of Lloyd's excess ratio that power k-means removes, (Lloyd - power) / (Lloyd - 1),
Lloyd's excess ratio per unit of VI, (ratio - 1) / VI: how much one mistake costs (large when
clusters are far apart; not meaningful at d = 2, where VI is mostly the clusters' overlap), and
each method's change of root ratio from the protocol, paired by seed (the same data for the
algorithm variants; the same r, and for sizes the same centres, for the data variants).

``--quick`` (CI): 2 data sets, d in {2, 10}, six of the variants.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from power_kmeans_tables import PAPER_SETS, K, N, one_dataset, paper

from energystats.datasets import make_power_kmeans_data

DIMS = (2, 10, 50, 200)
METHOD = "power s0=-3"


def gaussian_centres_data(n, k, d, random_state, equal_sizes=True):
    """As ``make_power_kmeans_data`` but with centres N(0, r I) (variance r ~ U(30, 60))."""
    rng = np.random.default_rng(random_state)
    r = rng.uniform(30, 60)
    centres = rng.normal(0.0, np.sqrt(r), size=(k, d))
    labels = rng.permutation(np.arange(n) % k) if equal_sizes else rng.integers(0, k, size=n)
    return centres[labels] + rng.normal(size=(n, d)), labels, centres


def uniform_data(equal_sizes):
    return lambda n, k, d, random_state: make_power_kmeans_data(
        n, k, d, rng=random_state, equal_sizes=equal_sizes
    )


# name: (data generator, options of one_dataset); "protocol" first, the others change one thing
VARIANTS = {
    "protocol": (uniform_data(True), {}),
    "sizes: multinomial": (uniform_data(False), {}),
    "separation: centres N(0, r I)": (
        lambda n, k, d, random_state: gaussian_centres_data(n, k, d, random_state),
        {},
    ),
    "separation: centres N(0, r I), multinomial sizes": (
        lambda n, k, d, random_state: gaussian_centres_data(n, k, d, random_state, False),
        {},
    ),
    "start: random data points": (uniform_data(True), {"start": "random"}),
    "start: greedy k-means++ (2 + ln k trials)": (
        uniform_data(True),
        {"start": "greedy k-means++"},
    ),
    "stopping: Lloyd as sklearn KMeans (tol=1e-4)": (uniform_data(True), {"lloyd_rule": "sklearn"}),
    "power: plain Algorithm 1, no Lloyd finish": (uniform_data(True), {"power": "plain"}),
    "power: eta = 1.01": (uniform_data(True), {"eta": 1.01}),
    "power: eta = 1.1": (uniform_data(True), {"eta": 1.1}),
}
QUICK = (
    "protocol",
    "sizes: multinomial",
    "separation: centres N(0, r I)",
    "start: random data points",
    "start: greedy k-means++ (2 + ln k trials)",
    "stopping: Lloyd as sklearn KMeans (tol=1e-4)",
)


def run(variant: str, dims, reps) -> pd.DataFrame:
    data, options = VARIANTS[variant]
    rows = []
    for d in dims:
        for i in range(reps):
            seed = 1000 * d + i  # the seeds of power_kmeans_tables.py
            X, truth, centres = data(N, K, d, random_state=seed)
            rows += one_dataset(X, truth, centres, d, seed, s0s=(-3.0,), with_khm=False, **options)
    table = pd.DataFrame(rows)
    table.insert(0, "variant", variant)
    return table


def cells(quality: pd.DataFrame, vi: pd.DataFrame, protocol: pd.DataFrame | None = None) -> dict:
    """One row of the summary from per-data-set measures (columns Lloyd and ``METHOD``, index the
    seed); with ``protocol`` (the protocol's root ratios), the change of each method's mean root
    ratio from the protocol, paired by seed: mean (standard error)."""
    q, v = quality.mean(), vi.mean()
    sd_q, sd_v = quality.std(), vi.std()
    excess = q["Lloyd"] - 1.0
    row = {
        "sets": len(quality),
        "Lloyd ratio": f"{q['Lloyd']:.3f} ({sd_q['Lloyd']:.3f})",
        "power ratio": f"{q[METHOD]:.3f} ({sd_q[METHOD]:.3f})",
        "share": f"{(q['Lloyd'] - q[METHOD]) / excess:.0%}" if excess > 1e-9 else "-",
        "Lloyd VI": f"{v['Lloyd']:.3f} ({sd_v['Lloyd']:.3f})",
        "power VI": f"{v[METHOD]:.3f} ({sd_v[METHOD]:.3f})",
        "Lloyd (ratio-1)/VI": f"{excess / v['Lloyd']:.1f}" if v["Lloyd"] > 0 else "-",
        "change Lloyd": "",
        "change power": "",
    }
    if protocol is not None:
        change = quality - protocol.loc[quality.index]
        for m, name in (("Lloyd", "change Lloyd"), (METHOD, "change power")):
            row[name] = f"{change[m].mean():+.3f} ({change[m].std() / np.sqrt(len(change)):.3f})"
    return row


def summarise(table: pd.DataFrame) -> pd.DataFrame:
    """The summary: per d, the paper's row, the protocol, the derived rows, then every variant."""
    t1, t2 = paper("quality"), paper("VI")
    out = {}
    for d in sorted(table["d"].unique()):
        pq = {m: float(t1.loc[(m, "mean"), d]) for m in ("Lloyd", METHOD)}
        pv = {m: float(t2.loc[(m, "mean"), d]) for m in ("Lloyd", METHOD)}
        out[(d, "paper (50 sets)")] = {
            "sets": PAPER_SETS,
            "Lloyd ratio": f"{t1.loc[('Lloyd', 'mean'), d]} ({t1.loc[('Lloyd', 'bracket'), d]})",
            "power ratio": f"{t1.loc[(METHOD, 'mean'), d]} ({t1.loc[(METHOD, 'bracket'), d]})",
            "share": f"{(pq['Lloyd'] - pq[METHOD]) / (pq['Lloyd'] - 1):.0%}",
            "Lloyd VI": f"{t2.loc[('Lloyd', 'mean'), d]} ({t2.loc[('Lloyd', 'bracket'), d]})",
            "power VI": f"{t2.loc[(METHOD, 'mean'), d]} ({t2.loc[(METHOD, 'bracket'), d]})",
            "Lloyd (ratio-1)/VI": f"{(pq['Lloyd'] - 1) / pv['Lloyd']:.1f}",
            "change Lloyd": "",
            "change power": "",
        }
        protocol = None
        for variant, part in table[table["d"] == d].groupby("variant", sort=False):
            wide = part.pivot_table(
                index="seed", columns="method", values=["quality", "VI", "f", "f_opt", "f_true"]
            )
            out[(d, variant)] = cells(wide["quality"], wide["VI"], protocol)
            if variant != "protocol":
                continue
            protocol = wide["quality"]
            seeds = wide.index.to_numpy() - 1000 * d
            if len(seeds) >= 20:
                first = seeds < 10
                out[(d, "data sets: the first 10")] = cells(
                    wide["quality"][first], wide["VI"][first]
                )
                blocks = wide["quality"].groupby(seeds // 10).mean()
                vi_blocks = wide["VI"].groupby(seeds // 10).mean()
                out[(d, "data sets: 5 blocks of 10, range")] = {
                    "sets": 10,
                    "Lloyd ratio": f"{blocks['Lloyd'].min():.3f}-{blocks['Lloyd'].max():.3f}",
                    "power ratio": f"{blocks[METHOD].min():.3f}-{blocks[METHOD].max():.3f}",
                    "share": "",
                    "Lloyd VI": f"{vi_blocks['Lloyd'].min():.3f}-{vi_blocks['Lloyd'].max():.3f}",
                    "power VI": f"{vi_blocks[METHOD].min():.3f}-{vi_blocks[METHOD].max():.3f}",
                    "Lloyd (ratio-1)/VI": "",
                    "change Lloyd": "",
                    "change power": "",
                }
            out[(d, "measure: ratio not square-rooted")] = cells(
                wide["f"] / wide["f_opt"], wide["VI"]
            )
            out[(d, "measure: true centres' f in the denominator")] = cells(
                np.sqrt(wide["f"] / wide["f_true"]), wide["VI"]
            )
    return pd.DataFrame.from_dict(out, orient="index").rename_axis(["d", "variant"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="2 data sets, d in {2, 10}, six variants"
    )
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    dims, reps = ((2, 10), 2) if args.quick else (DIMS, PAPER_SETS)
    variants = QUICK if args.quick else tuple(VARIANTS)
    start = time.perf_counter()
    seconds, parts = {}, []
    for variant in variants:
        t0 = time.perf_counter()
        parts.append(run(variant, dims, reps))
        seconds[variant] = time.perf_counter() - t0
        print(f"{variant}: {seconds[variant]:.0f} s", flush=True)
    table = pd.concat(parts, ignore_index=True)
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "_quick" if args.quick else ""
    table.to_csv(args.out / f"power_kmeans_sensitivity{suffix}.csv", index=False)
    text = "\n".join(
        [
            f"# Xu & Lange (2019) Tables 1-2: sensitivity, {reps} data sets per d (n = 2,500, k = "
            "50)",
            "",
            "Written by `validation/power_kmeans_sensitivity.py` (variants in its docstring): each "
            "row",
            "changes one thing from the protocol of `power_kmeans_tables.py` and reruns Lloyd and "
            "power",
            "k-means (s0 = -3) on the same seeds. Cells: mean (standard deviation over data sets); "
            "the",
            "paper's brackets are its standard deviations. share: (Lloyd - power) / (Lloyd - 1) of "
            "the",
            "mean root ratios. (ratio-1)/VI: Lloyd's excess root ratio per unit of VI, the cost of "
            "a",
            "mistake (meaningless at d = 2, where VI is mostly the clusters' overlap). change: the",
            "variant's root ratio minus the protocol's on the same seed, mean (standard error).",
            "",
            "```text",
            summarise(table).to_string(),
            "```",
            "",
            "Run time: "
            + ", ".join(f"{v} {s:.0f} s" for v, s in seconds.items())
            + f"; total {time.perf_counter() - start:.0f} s.",
            "",
        ]
    )
    (args.out / f"power_kmeans_sensitivity{suffix}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
