"""
Large data: streamed exact statistics and the projection test
=============================================================

Exact energy statistics need all n^2 pairs, but not an n x n matrix: past the memory budget
(``working_memory``) the pairwise operator recomputes tiles on the fly. Past about 10^5
points, the random-projection test (Huang & Huo) estimates the distance from L directions in
O(L n log n) per relabeling and keeps exact level.
"""

import time

import matplotlib.pyplot as plt
import numpy as np

import energystats as es

rng = np.random.default_rng(0)
n = 20_000
X = rng.normal(size=(n, 5))
labels = np.repeat([0, 1], n // 2)
X[labels == 1, 0] += 0.05  # a small shift

with es.config_context(working_memory=64):  # the 3.0 GiB matrix does not fit 64 MiB: streamed
    start = time.perf_counter()
    exact = es.energy_test(X, labels, n_resamples=19, rng=1)
    print(
        f"exact, streamed in 64 MiB: p = {exact.pvalue:.3f} in {time.perf_counter() - start:.1f} s"
    )

start = time.perf_counter()
projected = es.energy_test(
    X, labels, n_resamples=99, approximation="projection", n_projections=50, rng=1
)
print(
    f"projection, L = 50:       p = {projected.pvalue:.3f} in {time.perf_counter() - start:.1f} s"
)

# %%
# The projection test at n = 200,000, and how its time grows with n:

sizes, seconds = [25_000, 50_000, 100_000, 200_000], []
for m in sizes:
    Y = rng.normal(size=(m, 10))
    start = time.perf_counter()
    es.energy_test(Y, np.arange(m) % 2, n_resamples=99, approximation="projection", rng=2)
    seconds.append(time.perf_counter() - start)
    print(f"n = {m:>7,}: {seconds[-1]:.2f} s")

fig, ax = plt.subplots(figsize=(5, 3.5))
ax.loglog(sizes, seconds, "o-")
ax.set_xlabel("n")
ax.set_ylabel("seconds (99 relabelings, L = 50)")
ax.set_title("projection test: about n log n")
fig.tight_layout()
