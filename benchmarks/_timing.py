"""Timing helper shared by the benchmark scripts."""

from __future__ import annotations

import time


def best_of(fn, repeat: int = 1):
    """Run ``fn`` ``repeat`` times; return (fastest wall time in seconds, last result)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out
