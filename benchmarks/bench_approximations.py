"""Past 10^6 points: the random-projection energy test and Nyström kernel k-groups.

Run: .venv/bin/python benchmarks/bench_approximations.py [--quick] [--ten-million] [--no-r]

Each large case runs in a fresh process, which reports its time and peak resident set
(VmHWM):

* the projection test (L = 50 directions, 99 relabelings) at n = 10^5 and 10^6, d = 10,
  k = 2, and at n = 10^7 with ``--ten-million``, with the default working memory (1 GiB:
  one thread, the relabelings in four batches, each sorting the projections again) and
  with 4 GiB (otherwise its time is projected from the two measured sizes);
* one Nyström k-groups start (m = 300, k-means++ in feature space) at n = 10^6, d = 5,
  k = 4, its accuracy (eq. 55), and exact k-groups on a 20,000-point sample of the same
  distribution for comparison;
* R energy's eqdist.etest at n = 10,000 beside the exact and the projection test at that
  size (R holds the n x n distance matrix: it cannot reach 10^6).

``--quick`` divides the sizes by 10.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

CASE = r"""
import json, sys, time
import numpy as np
import energystats as es
from energystats._metrics import accuracy

def peak_mib():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 2**10

kind, n, memory = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
es.set_config(working_memory=memory)
rng = np.random.default_rng(1)
if kind == "projection":
    X = rng.normal(size=(n, 10))
    labels = np.arange(n) % 2
    X[labels == 1, 0] += 0.01
    t0 = time.perf_counter()
    res = es.energy_test(X, labels, n_resamples=99, rng=0, approximation="projection", n_projections=50)
    out = {"seconds": time.perf_counter() - t0, "pvalue": res.pvalue}
else:
    centres = rng.normal(0, 1.5, (4, 5))
    codes = rng.integers(0, 4, size=n)
    X = rng.normal(size=(n, 5)) + centres[codes]
    t0 = time.perf_counter()
    km = es.KGroups(4, n_init=1, random_state=0, approximation="nystroem", n_components=300).fit(X)
    out = {"seconds": time.perf_counter() - t0, "accuracy": accuracy(km.labels_, codes), "sweeps": km.n_iter_,
           "peak_mib": peak_mib()}
    sample = np.random.default_rng(2).integers(0, 4, size=20_000)
    Y = np.random.default_rng(3).normal(size=(20_000, 5)) + centres[sample]
    out["exact_sample_accuracy"] = accuracy(es.KGroups(4, n_init=1, random_state=0).fit(Y).labels_, sample)
out.setdefault("peak_mib", peak_mib())
print(json.dumps(out))
"""


def run_case(kind: str, n: int, memory: int = 1024) -> dict:
    out = subprocess.run([sys.executable, "-c", CASE, kind, str(n), str(memory)], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"the {kind} case at n = {n:,} failed:\n{out.stderr}")
    return json.loads(out.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes divided by 10")
    parser.add_argument("--ten-million", action="store_true", help="also run the projection test at n = 10^7")
    parser.add_argument("--no-r", action="store_true")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    print(f"numpy {np.__version__}")
    measured = {}
    sizes = [10**5 // scale, 10**6 // scale]
    runs = [(n, 1024) for n in sizes] + ([(10**7 // scale, 1024), (10**7 // scale, 4096)] if args.ten_million else [])
    for n, memory in runs:
        r = run_case("projection", n, memory)
        measured[n] = r["seconds"]
        print(f"projection test, n = {n:,}, d = 10, k = 2, L = 50, 99 relabelings, working memory {memory} MiB: "
              f"{r['seconds']:.1f} s, peak RSS {r['peak_mib']:.0f} MiB, p = {r['pvalue']:.3f}")
    if not args.ten_million:
        a, b = sizes[0], sizes[1]
        # fit t = c n log n over the two sizes (the sorts and the O(n) work per relabeling)
        c = measured[b] / (b * np.log(b))
        big = 10 * b
        print(f"projected for n = {big:,}: {c * big * np.log(big):.0f} s (from t = c n log n fitted at n = {b:,}; "
              f"n = {a:,} gives {measured[a] / (a * np.log(a)) / c:.2f} times that c)")
    r = run_case("nystroem", 10**6 // scale)
    print(f"Nystroem k-groups, n = {10**6 // scale:,}, d = 5, k = 4, m = 300, one start: {r['seconds']:.1f} s, "
          f"{r['sweeps']} sweeps, peak RSS {r['peak_mib']:.0f} MiB, accuracy {r['accuracy']:.4f}; exact k-groups on "
          f"a 20,000-point sample of the same distribution: {r['exact_sample_accuracy']:.4f}")
    if not args.no_r:
        import energystats as es
        from energystats._rbridge import r_available, r_call, r_matrix

        ok, reason = r_available()
        if not ok:
            print(f"R not measured: {reason}")
            return
        n = 10_000 // scale
        rng = np.random.default_rng(1)
        X = rng.normal(size=(n, 10))
        labels = np.arange(n) % 2
        xr = r_matrix(X[np.argsort(labels, kind="stable")])
        t0 = time.perf_counter()
        r_call("eqdist.etest", xr, np.array([n // 2, n // 2]), R=99)
        t_r = time.perf_counter() - t0
        t0 = time.perf_counter()
        es.energy_test(X, labels, n_resamples=99, rng=0)
        t_exact = time.perf_counter() - t0
        t0 = time.perf_counter()
        es.energy_test(X, labels, n_resamples=99, rng=0, approximation="projection", n_projections=50)
        t_proj = time.perf_counter() - t0
        print(f"n = {n:,}, 99 resamples: R eqdist.etest {t_r:.1f} s; energystats exact {t_exact:.2f} s "
              f"(R / exact = {t_r / t_exact:.0f}); projection, L = 50: {t_proj:.2f} s (R / projection = {t_r / t_proj:.0f})")


if __name__ == "__main__":
    main()
