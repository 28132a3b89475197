"""The front door's cost per call (issue 40: at most 0.1 ms): small public calls (n = 20,
d = 3) with the door and without it (``inspect.unwrap``, the function's own body), interleaved,
the fastest of many rounds; then the door alone, on functions that do nothing with the
declarations of ``dcov`` (a number) and ``dcov_stats`` (a result), called from a frame with
5,000 names (a notebook's namespace), which the door never reads.

    PYTHONPATH=. python benchmarks/bench_frontdoor.py [rounds]
"""

from __future__ import annotations

import inspect
import sys
import time
from dataclasses import dataclass

import numpy as np

import energystats as es
from energystats._frontdoor import front_door
from energystats._results import ResultMixin

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _timing import load  # noqa: E402

CALLS = ("energy_distance", "dcov", "dcov_stats", "dcor_ttest")


@dataclass(frozen=True, repr=False)
class _Result(ResultMixin):
    statistic: float = 0.0
    n_omitted: int = 0


def _number(x, y, *, exponent=1.0, metric="euclidean", sigma=None, nan_policy="raise"):
    return 0.0


def _result(x, y, *, exponent=1.0, metric="euclidean", sigma=None, nan_policy="raise"):
    return _Result(1.0)


def _per_call(function, x, y, reps: int, names: dict | None = None) -> float:
    """Seconds per call of ``function(x, y)``, looped in a frame holding ``names``."""
    frame = dict(names or {}, f=function, x=x, y=y, reps=reps)
    start = time.perf_counter()
    exec("for _ in range(reps): f(x, y)", frame)
    return (time.perf_counter() - start) / reps


def main(rounds: int = 20) -> None:
    gen = np.random.default_rng(0)
    x, y = gen.normal(size=(20, 3)), gen.normal(size=(20, 3))
    notebook = {f"v{i}": float(i) for i in range(5000)}
    cases = {name: (inspect.unwrap(getattr(es, name)), getattr(es, name)) for name in CALLS}
    door = front_door(("x", "y"), distances=("x", "y"), columns=("y",), propagate=True)
    cases["door alone, a number"] = (_number, door(_number))
    door = front_door(("x", "y"), distances=("x", "y"), columns=("y",), names=("x", "y"))
    cases["door alone, a result"] = (_result, door(_result))
    best = {name: [np.inf, np.inf] for name in cases}
    for _ in range(rounds):
        for name, pair in cases.items():
            reps = 300 if name in CALLS else 3000
            for i, function in enumerate(pair):
                best[name][i] = min(best[name][i], _per_call(function, x, y, reps, notebook))
    print(f"front door per call, n = 20, d = 3, fastest of {rounds} rounds ({load()})")
    for name, (bare, door) in best.items():
        print(f"  {name:24s} without {bare * 1e3:7.4f} ms  with {door * 1e3:7.4f} ms  "
              f"door {(door - bare) * 1e3:+.4f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
