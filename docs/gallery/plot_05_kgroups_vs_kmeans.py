"""
Kernel k-groups against k-means on the parallel cigars
======================================================

Two long parallel Gaussian "cigars" (variance 20 along the cigar, 1 across, centres 6.5
apart; the paper's Fig. 4a). k-means cuts across the long axis; kernel k-groups with the
exponential semimetric (eq. 53, sigma = 2) separates the cigars.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.cluster import KMeans

import energystats as es
from energystats._metrics import accuracy
from energystats.plotting import plot_clusters

rng = np.random.default_rng(1)
truth = rng.integers(0, 2, size=400)
X = rng.normal(size=(400, 2)) * [1.0, np.sqrt(20.0)] + np.outer(truth, [6.5, 0.0])

kmeans = KMeans(2, n_init=10, random_state=0).fit(X)
kgroups = es.KGroups(2, metric="exponential", sigma=2.0, random_state=0).fit(X)
print(
    f"k-means accuracy {accuracy(kmeans.labels_, truth):.3f}, kernel k-groups accuracy "
    f"{accuracy(kgroups.labels_, truth):.3f}"
)

fig, axes = plt.subplots(1, 2, figsize=(9, 4), sharey=True)
plot_clusters(X, kmeans.labels_, ax=axes[0]).set_title("k-means")
plot_clusters(X, kgroups.labels_, ax=axes[1]).set_title("kernel k-groups, exponential semimetric")
fig.tight_layout()
