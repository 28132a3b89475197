"""Where the line beats the matrix: energy_test (B = 999) and dispersion of one-dimensional data
with exponent 1, by the prefix sums after one sort (energystats._scale.line) and by the
products of the held n x n matrix, at n = 50 to 1,000. LINE_MIN (in _scale/line.py) is the
first n from which the line is at least as fast in every row.

Run: .venv/bin/python benchmarks/bench_line.py [--sizes 50 100 ...] [--repeats 5]

Each cell is the best of ``--repeats`` interleaved runs (line, matrix, then again) in this
process; the table prints matrix time over line time (above 1: the line is faster).
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import best_of, load

import energystats as es
from energystats._scale import line


def cases(n: int, rng):
    x = rng.normal(size=n)
    two, three = np.arange(n) % 2, np.arange(n) % 3
    return {
        "energy_test, 2 groups": lambda: es.energy_test(x, two, n_resamples=999, rng=0),
        "energy_test, 3 groups, E": lambda: es.energy_test(x, three, statistic="E", rng=0),
        "dispersion, 3 groups": lambda: es.dispersion(x, three),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 150, 200, 300, 1000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"LINE_MIN = {line.LINE_MIN}; {load()}")
    rows = {}
    for n in args.sizes:
        for name, call in cases(n, np.random.default_rng(n)).items():
            best = {"line": np.inf, "matrix": np.inf}
            for _ in range(args.repeats):
                for path, limit in (("line", 1), ("matrix", 10**9)):
                    line.LINE_MIN, saved = limit, line.LINE_MIN
                    try:
                        best[path] = min(best[path], best_of(call)[0])
                    finally:
                        line.LINE_MIN = saved
            rows.setdefault(name, {})[n] = best["matrix"] / best["line"]
            print(f"{name:28s} n = {n:5d}  line {best['line'] * 1e3:8.2f} ms  "
                  f"matrix {best['matrix'] * 1e3:8.2f} ms", flush=True)
    print("\n| matrix time / line time | " + " | ".join(f"n = {n}" for n in args.sizes) + " |")
    print("|---" * (len(args.sizes) + 1) + "|")
    for name, cells in rows.items():
        print(f"| {name} | " + " | ".join(f"{cells[n]:.2f}" for n in args.sizes) + " |")


if __name__ == "__main__":
    main()
