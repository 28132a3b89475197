"""Time energy_distance and dispersion against R's edist and disco (same data, same run).

Run: .venv/bin/python benchmarks/bench_dispersion.py [--skip-memory]

R is called through rpy2 on data already converted to an R matrix, so the R
times are R's own computation. Peak memory for N = 100,000 is measured in a
fresh subprocess (resident set size, including the interpreter and numpy).
"""

from __future__ import annotations

import argparse
import subprocess
import sys

import numpy as np
from _timing import best_of

import energystats as es
from energystats._rbridge import r_available, r_call, r_factor, r_matrix, r_versions

# VmHWM (peak resident set of this process image) is reset by exec, unlike ru_maxrss,
# which a child inherits from the parent that forked it.
MEMORY_SCRIPT = """
import sys, time, numpy as np, energystats as es
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 2**10
n = int(sys.argv[1])
rng = np.random.default_rng(1)
X = rng.normal(size=(n, 10))
labels = rng.integers(0, 3, size=n)
base = hwm()
t0 = time.perf_counter()
res = es.dispersion(X, labels)
t = time.perf_counter() - t0
print(f"{t:.1f} {base:.0f} {hwm():.0f} {res.W:.6g}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--skip-memory", action="store_true", help="skip the N = 100,000 memory run"
    )
    args = parser.parse_args()
    ok, reason = r_available()
    if not ok:
        sys.exit(f"R is needed for this benchmark: {reason}")
    print(f"versions: {r_versions()}, numpy {np.__version__}")
    rng = np.random.default_rng(2026)
    print(f"{'N':>6} {'statistic':<28} {'energystats s':>14} {'R s':>10} {'R / es':>8}")
    for n in (2000, 8000):
        X = rng.normal(size=(n, 10))
        labels = np.repeat(np.arange(3), [n // 3, n // 3, n - 2 * (n // 3)])
        sizes = np.bincount(labels)
        half = n // 2
        xr = r_matrix(X)
        fac = r_factor(labels)
        repeat = 3 if n <= 2000 else 1
        cases = [
            (
                "energy_distance / edist k=2",
                lambda: es.energy_distance(X[:half], X[half:]),
                lambda: r_call("edist", xr, np.array([half, n - half])),
            ),
            (
                "dispersion / disco(R=0) k=3",
                lambda: es.dispersion(X, labels),
                lambda: r_call("disco", xr, fac, R=0),
            ),
            (
                "dispersion / edist k=3",
                lambda: es.dispersion(X, labels),
                lambda: r_call("edist", xr, sizes),
            ),
        ]
        for name, ours, theirs in cases:
            t_es, _ = best_of(ours, repeat)
            t_r, _ = best_of(theirs, repeat)
            print(f"{n:>6} {name:<28} {t_es:>14.3f} {t_r:>10.3f} {t_r / t_es:>8.1f}")
    if not args.skip_memory:
        n = 100_000
        out = subprocess.run(
            [sys.executable, "-c", MEMORY_SCRIPT, str(n)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        t, base, peak = float(out[0]), float(out[1]), float(out[2])
        print(
            f"N = {n:,}, d = 10, k = 3: dispersion took {t:.1f} s; peak RSS {peak:.0f} MiB "
            f"({peak - base:.0f} MiB above the {base:.0f} MiB before the call; "
            f"a full distance matrix would need {n * n * 8 / 2**30:.0f} GiB)"
        )


if __name__ == "__main__":
    main()
