"""Agreement between a clustering and known classes (used by the CLI and validation/)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment
from scipy.stats import entropy
from sklearn.metrics import mutual_info_score

__all__ = ["accuracy", "variation_of_information"]


def accuracy(labels, truth) -> float:
    """Share of points in the best one-to-one matching of clusters to classes
    (França et al. eq. 55), found by the Hungarian method."""
    table = pd.crosstab(np.asarray(labels), np.asarray(truth)).to_numpy()
    rows, cols = linear_sum_assignment(-table)
    return float(table[rows, cols].sum() / table.sum())


def variation_of_information(labels, truth) -> float:
    """VI = H(labels) + H(truth) - 2 I(labels, truth) in nats (Meila 2007); 0 for equal
    partitions."""
    a = np.unique(labels, return_inverse=True)[1]
    b = np.unique(truth, return_inverse=True)[1]
    return float(entropy(np.bincount(a)) + entropy(np.bincount(b)) - 2 * mutual_info_score(a, b))
