"""The constants of the cost model (energystats/_cost.py) measured on this machine, and each
exact path's modelled time beside its measured time.

Run: .venv/bin/python benchmarks/bench_cost.py [--repeats 9] [--sizes 20 50 100 ...]

Every figure is the best of ``--repeats`` runs of CPU time on one core (``time.thread_time``,
BLAS limited to one thread), so that a busy machine slows it less than a wall clock would:

* the constants of energystats/_cost.py: the primitives timed alone (``CALL``, one numpy call
  on small arrays, Python included; ``STREAM``, an element of a contiguous pass in cache;
  ``MAC``, a multiply-add of a BLAS product on one thread; ``EVAL``, a coordinate of a
  semimetric entry by scipy's cdist), and the per-entry costs of the paths at their reference
  sizes, their calls' share taken out (``FLAT``, ``ROWS_ENTRY``, ``FAR``, ``LINE``, ``PACK``,
  ``PREFIX``: see each constant's comment);
* the paths: the independence tests' engines of S(pi) (flat and rows gathers, the sorted
  O(n log n) engine on the line) per permutation, and the k-sample tests' block sums of 1,000
  relabelings into two groups (the held matrix's product; the prefix sums on the line), each
  measured and modelled, with the path the model chooses and the one measured fastest.

The constants in energystats/_cost.py are these figures, rounded; the model decides by their
ratios only, so a machine that is uniformly faster makes the same choices.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from _timing import load
from threadpoolctl import threadpool_limits

from energystats import _cost
from energystats._operator import GroupSums, Repeated, make_operator
from energystats._operator.choice import choose_gather, choose_line_sums
from energystats._operator.permuted import GatherEngine, SortedEngine
from energystats._resampling.engines import _packed
from energystats._semimetric import resolve_semimetric


def cpu(fn, repeats: int) -> float:
    """Best CPU time of ``fn()`` on this thread, seconds."""
    fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.thread_time()
        fn()
        best = min(best, time.thread_time() - t0)
    return best


def constants(repeats: int) -> dict[str, float]:
    """The constants of energystats/_cost.py: the primitives timed alone (CALL, STREAM, MAC,
    EVAL), the per-entry costs of the paths timed at their reference sizes with the calls'
    share taken out (FLAT at n = 50, ROWS_ENTRY at n = 200, FAR from the flat path at
    n = 500 over n = 50, LINE at n = 3,000, PACK at n = 50 and PREFIX at n = 3,000)."""
    rng = np.random.default_rng(0)
    small = np.arange(64.0)
    idx = rng.permutation(64)
    calls = 2000

    def many_calls():
        for _ in range(calls):
            np.take(small, idx)

    m = 2**13  # 64 KiB of float64: in cache
    a, b, c = rng.random(m), rng.random(m), np.empty(m)
    A, B = rng.random((512, 512)), rng.random((512, 256))
    X, Y = rng.random((512, 3)), rng.random((512, 3))
    sm = resolve_semimetric()
    out = {
        "CALL": cpu(many_calls, repeats) / calls,
        "STREAM": cpu(lambda: [np.add(a, b, out=c) for _ in range(64)], repeats) / (64 * m),
        "MAC": cpu(lambda: A @ B, repeats) / (512 * 512 * 256),
        "EVAL": cpu(lambda: sm(X, Y), repeats) / (512 * 512 * 3),
    }
    call = out["CALL"]
    t50 = pairing_paths(50, repeats, ("flat",))["flat"][0]
    out["FLAT"] = (t50 - 3 * call / _cost.flat_chunk(50)) / 50**2
    t500 = pairing_paths(500, repeats, ("flat",))["flat"][0]
    out["FAR"] = (t500 - 3 * call / _cost.flat_chunk(500)) / 500**2 / out["FLAT"]
    t200 = pairing_paths(200, repeats, ("rows",))["rows"][0]
    blocks = -(-200 // _cost.ROWS)
    out["ROWS_ENTRY"] = (t200 - (5 * blocks - 2) * call) / (200 * (200 + _cost.ROWS) / 2)
    t3000 = pairing_paths(3000, repeats, ("sorted",))["sorted"][0]
    bits = math.ceil(math.log2(3000))
    calls3000 = (bits * _cost.LINE_CALLS + _cost.SORTED_CALLS) * call
    out["LINE"] = (t3000 - calls3000) / (bits * 3000)
    t50 = relabeling_paths(50, max(3, repeats // 3), ("sorted",))["sorted"][0]
    t3000 = relabeling_paths(3000, max(3, repeats // 3), ("sorted",))["sorted"][0]
    out["PREFIX"] = (t3000 - t50) / 1000 / ((3000 - 50) * 2)
    out["PACK"] = t50 / 1000 - 50 * 2 * out["PREFIX"]
    return out


def pairing_paths(n: int, repeats: int, paths=("flat", "rows", "sorted")) -> dict:
    """{path: (measured, modelled)} seconds per permutation of S(pi), n points."""
    rng = np.random.default_rng(n)
    x, y = rng.normal(size=(n, 1)), rng.normal(size=(n, 1))
    sm = resolve_semimetric()
    op_x, op_y = make_operator(x, sm, Repeated()), make_operator(y, sm, Repeated())
    count = max(20, min(1000, 2 * 10**7 // (n * n)))
    perms = np.array([rng.permutation(n) for _ in range(count)])
    G = op_y._dense()
    model = _cost.pairing_costs(n, on_line=True)
    out = {}
    for path in ("flat", "rows"):
        if path in paths:
            engine = GatherEngine(op_x.centred_rows, G, False, path, _cost.flat_chunk(n))
            out[path] = (cpu(lambda e=engine: e(perms), repeats) / count, model[path])
    if "sorted" in paths:
        engine = SortedEngine(x[:, 0], y[:, 0])
        few = perms[: max(5, count // 20)]
        out["sorted"] = (cpu(lambda e=engine: e(few), repeats) / few.shape[0], model["sorted"])
    return out


def relabeling_paths(n: int, repeats: int, paths=("dense", "sorted")) -> dict:
    """{path: (measured, modelled)} seconds of the block sums of 1,000 relabelings into two
    groups of n points on the line (their draw included for the prefix sums, which pack them
    one by one)."""
    rng = np.random.default_rng(n)
    x = rng.normal(size=(n, 1))
    codes = np.repeat([0, 1], [n // 2, n - n // 2]).astype(np.int8)
    sizes = np.bincount(codes)
    count = 1000
    block = np.tile(codes, (count, 1))
    rng.permuted(block, axis=1, out=block)
    op = make_operator(x, resolve_semimetric(), GroupSums(2, count))
    model = _cost.relabeling_costs(n, 2, count, on_line=True)

    def dense():
        op.sums = "dense"
        op.group_sums(block, 2, False)

    def prefix():
        op.sums = "sorted"
        for packed in _packed(codes, sizes, count - 1, count, np.random.default_rng(0)):
            op.group_sums(packed, 2, False)

    timed = {"dense": dense, "sorted": prefix}
    return {p: (cpu(timed[p], repeats), model[p]) for p in paths}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--sizes", type=int, nargs="+",
                        default=[20, 50, 100, 200, 300, 500, 1000, 3000])
    args = parser.parse_args()
    print(f"{load()}; CPU time on one core, best of {args.repeats}")
    with threadpool_limits(1, user_api="blas"):
        measured = constants(args.repeats)
        print("constant    measured    in _cost.py")
        for name, value in measured.items():
            unit, scale = ("", 1.0) if name == "FAR" else ("ns", 1e9)
            stated = getattr(_cost, name) * scale
            print(f"{name:10s} {value * scale:9.3f} {unit:2s} {stated:9.3f} {unit}")
        print("\nS(pi), microseconds per permutation: measured / modelled; chosen by the model "
              "(choose_gather, and sorted on the line) / fastest measured")
        for n in args.sizes:
            paths = pairing_paths(n, args.repeats)
            cells = "  ".join(f"{p} {m * 1e6:9.1f} / {c * 1e6:9.1f}" for p, (m, c) in paths.items())
            chosen = _cost.cheapest({p: c for p, (_, c) in paths.items()})
            fastest = min(paths, key=lambda p: paths[p][0])
            print(f"n = {n:5d}  {cells}  model {chosen} (gathers: {choose_gather(n)}), "
                  f"fastest {fastest}")
        print("\nblock sums of 1,000 relabelings on the line, ms: measured / modelled")
        for n in args.sizes:
            paths = relabeling_paths(n, max(3, args.repeats // 3))
            cells = "  ".join(f"{p} {m * 1e3:8.2f} / {c * 1e3:8.2f}" for p, (m, c) in paths.items())
            fastest = min(paths, key=lambda p: paths[p][0])
            print(f"n = {n:5d}  {cells}  model {choose_line_sums(n)}, fastest {fastest}")


if __name__ == "__main__":
    main()
