"""
Which splits of a dendrogram are real
=====================================

``energy_hclust`` builds the energy dendrogram (R's ``energy.hclust``);
``significant_clusters`` tests its nodes from the root with the cluster test, at level
alpha * (node size) / n, and keeps the splits that are significant (Kimes et al. 2017).
"""

import numpy as np

import energystats as es
from energystats.plotting import plot_dendrogram

rng = np.random.default_rng(0)
centres = np.array([[0.0, 0.0], [7.0, 0.0], [0.0, 7.0]])
X = np.vstack([rng.normal(c, 1.0, size=(40, 2)) for c in centres])

res = es.significant_clusters(X, n_resamples=199, rng=1)
print(res)

ax = plot_dendrogram(res)
ax.set_title(f"{res.n_clusters} significant clusters (grey: significant splits)")
