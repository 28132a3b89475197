"""Timing helpers shared by the benchmark scripts: best-of timing, the machine's floors
(memory bandwidth, sort, matrix-product rate) measured in the same run, the load, and cases
run in fresh processes with their peak resident set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np


def best_of(fn, repeat: int = 1):
    """Run ``fn`` ``repeat`` times; return (fastest wall time in seconds, last result)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def load() -> str:
    """The 1-minute load average and the cores, for the line a figure is printed on."""
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def bandwidth(n_bytes: int = 2**28, repeat: int = 5) -> float:
    """Memory read bandwidth in bytes per second: the best sum of a float64 array of ``n_bytes``
    (far larger than the caches) on one core."""
    a = np.ones(n_bytes // 8)
    seconds, _ = best_of(a.sum, repeat)
    return n_bytes / seconds


def sort_seconds(n: int, repeat: int = 3, arg: bool = True) -> float:
    """Best time of one ``np.argsort`` (or ``np.sort``) of n normal doubles on one core."""
    x = np.random.default_rng(0).normal(size=n)
    seconds, _ = best_of((lambda: np.argsort(x)) if arg else (lambda: np.sort(x)), repeat)
    return seconds


def gemm_rate(n: int = 2048, dtype=np.float64, repeat: int = 3) -> float:
    """numpy's matrix-product rate (flops per second, every core) on an n x n x n product."""
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(n, n)).astype(dtype), rng.normal(size=(n, n)).astype(dtype)
    seconds, _ = best_of(lambda: A @ B, repeat)
    return 2.0 * n**3 / seconds


PEAK = r"""
def _peak_mib():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 2**10

def _rss_mib():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 2**10
"""


def run_fresh(code: str, *args) -> dict:
    """Run ``code`` (which prints one JSON line last) in a fresh Python process with ``args``
    as ``sys.argv[1:]``; ``_peak_mib()`` (VmHWM, reset by exec) and ``_rss_mib()`` are defined
    for it. Returns the JSON with the process's load average added."""
    out = subprocess.run(
        [sys.executable, "-c", PEAK + code, *map(str, args)], capture_output=True, text=True
    )
    if out.returncode:
        raise SystemExit(f"case {args} failed:\n{out.stderr}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["load"] = load()
    return result
