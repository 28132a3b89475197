"""The exact energy test on a Dask cluster: what distribution costs here, and what a real
cluster would take at n = 10^6.

Run: .venv/bin/python benchmarks/bench_dask.py [--quick]

On this 2-core machine numpy's BLAS already uses both cores, so a cluster cannot be faster;
what is measured is its overhead:

* n = 20,000, d = 10, k = 2, 199 relabelings: the serial test (both cores, threads) against
  the same test on a LocalCluster of two single-threaded worker processes, through
  ``joblib.parallel_config(backend="dask")``, in the same run (best of two each);
* the scheduler's cost per task (empty tasks through the same joblib backend), and the time
  to send the data and the relabelings to the workers (``client.scatter(broadcast=True)``);
* the compute rate of one task (a band of ``TILE`` rows of a streamed product,
  ``energystats._scale.streamed``) on one core, from which the wall time of the n = 10^6,
  d = 10, B = 199 test on 16, 64 and 256 workers is projected, with the model printed beside
  the table: the null is a few streamed products (as many relabelings per product as half the
  working memory holds), each one task per band, every band recomputing its distances.
"""

from __future__ import annotations

import argparse
import time

import joblib
import numpy as np
from threadpoolctl import threadpool_limits

import energystats as es
from energystats._parallel import run_tasks
from energystats._scale.streamed import TILE, _band
from energystats._semimetric import resolve_semimetric


def _empty(index):
    return index


def best_of(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def task_rate(n: int, d: int, B: int) -> float:
    """Work units (pairs of points times (columns + features)) per second of one band of a
    streamed product with the columns of B relabelings (k = 2) on one core."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    Z = rng.integers(0, 2, size=(n, B)).astype(float)
    units = TILE * n * (B + d)  # the first band: TILE rows against all n points
    with threadpool_limits(limits=1, user_api="blas"):
        seconds, _ = best_of(lambda: _band(X, resolve_semimetric(), 0, Z, False), 2)
    return units / seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 6,000 instead of 20,000")
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    n, d, B = (6_000 if args.quick else 20_000), 10, 199
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, d))
    labels = np.arange(n) % 2
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = Client(cluster)
    try:
        t_serial, serial = best_of(lambda: es.energy_test(X, labels, n_resamples=B, rng=0), 2)
        with joblib.parallel_config(backend="dask"):
            t_dask, dask = best_of(
                lambda: es.energy_test(X, labels, n_resamples=B, rng=0, n_jobs=-1), 2
            )
            tasks = 200
            t_empty, _ = best_of(
                lambda: run_tasks(_empty, [{"index": i} for i in range(tasks)], -1), 2
            )
        codes = np.tile(labels.astype(np.int8), (B + 1, 1))
        t_scatter, _ = best_of(lambda: client.scatter([X, codes], broadcast=True, hash=False), 2)
        same = serial.pvalue == dask.pvalue and np.allclose(
            serial.null_distribution, dask.null_distribution, rtol=1e-10
        )
        print(
            f"numpy {np.__version__}, dask {__import__('dask').__version__}, joblib "
            f"{joblib.__version__}"
        )
        print(
            f"n = {n:,}, d = {d}, k = 2, B = {B}: serial {t_serial:.2f} s; LocalCluster of 2 "
            f"single-threaded workers {t_dask:.2f} s; ratio {t_dask / t_serial:.2f}; same p-value "
            f"and null: {same}"
        )
        per_task = t_empty / tasks
        print(
            "scheduler cost per task (empty tasks through joblib's dask backend): "
            f"{per_task * 1e3:.1f} ms; sending the data and the relabelings to both workers: "
            f"{t_scatter * 1e3:.0f} ms = {t_scatter / t_dask:.1%} of the distributed test"
        )
    finally:
        client.close()
        cluster.close()

    # --- projection: the exact test at n = 10^6 on a real cluster --------------------------
    N, transfer_bw = 10**6, 1.25e9  # bytes per second out of the client (10 Gbit/s)
    # relabelings per product: half the working memory over a relabeling's 47 n bytes (k = 2)
    step = min(B + 1, int(es.get_config()["working_memory"] * 2**20 / 2 // (47 * N)))
    rate = task_rate(4096, d, step)  # a band with as many columns as the product has
    products = -(-(B + 1) // step)
    bands = -(-N // TILE)  # one task per band of TILE rows, per product
    units = products * N * N / 2 * (step + d)
    longest = TILE * N * (step + d) / rate  # the first band, against all N points
    t_draw, _ = best_of(
        lambda: np.random.default_rng(0).permuted(
            np.tile(np.arange(N, dtype=np.int8) % 2, (20, 1)), axis=1
        ),
        1,
    )
    draw = t_draw / 20 * B
    per_product_bytes = N * d * 8 + N * step * 8  # the points and the product's columns
    print(
        f"\none band on one core: {rate / 1e9:.2f} G work units/s (a unit is one semimetric "
        f"value times one column or feature)"
    )
    print(
        f"projection, n = {N:,}, d = {d}, k = 2, B = {B}: {products} products of {step} "
        f"relabelings, {bands:,} band tasks each ({units:.2e} units; the longest band "
        f"{longest:.1f} s on one core):"
    )
    print(
        f"{'workers':>8} {'compute s':>10} {'transfer s':>11} {'scheduler s':>12} {'draws s':>8} "
        f"{'wall s':>8} {'wall':>8}"
    )
    n_tasks = products * bands
    for workers in (16, 64, 256):
        compute = products * max(units / products / rate / workers, longest)
        transfer = products * workers * per_product_bytes / transfer_bw
        scheduler = n_tasks * per_task
        wall = compute + transfer + scheduler + draw
        print(
            f"{workers:>8} {compute:>10.0f} {transfer:>11.0f} {scheduler:>12.1f} {draw:>8.1f} "
            f"{wall:>8.0f} {wall / 60:>6.1f} min"
        )
    print(
        "model: wall = products x max(units per product / workers, longest band) / rate [compute, "
        "rate of one band on one core measured here; a lower bound]\n       + products x workers "
        f"x ({N * d * 8 / 1e6:.0f} MB data + {N * step * 8 / 1e6:.0f} MB of columns) / 10 Gbit/s "
        "[the client scatters both to every worker for every product]\n       + tasks x "
        f"{per_task * 1e3:.1f} ms [scheduler, measured here; "
        "conservative: counted serially]\n       + drawing the relabelings on the client "
        f"({draw:.1f} s, measured)"
    )


if __name__ == "__main__":
    main()
