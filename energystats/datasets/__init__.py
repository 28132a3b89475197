"""Small data sets shipped with energystats.

Examples
--------
>>> from energystats.datasets import load_iris
>>> iris = load_iris()
>>> iris.shape
(150, 5)
>>> iris["Species"].value_counts().to_dict()
{'setosa': 50, 'versicolor': 50, 'virginica': 50}
"""

from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

from .._config import check_fits
from .._validation import check_positive_int, vocabulary

__all__ = ["load_example", "load_iris", "make_power_kmeans_data"]

EXAMPLES = ("iris",)


def load_iris() -> pd.DataFrame:
    """Fisher's (Anderson's) iris data, identical to R's built-in ``iris``.

    Returns
    -------
    pandas.DataFrame of shape (150, 5)
        Columns ``Sepal.Length``, ``Sepal.Width``, ``Petal.Length``,
        ``Petal.Width`` (cm) and ``Species`` (``setosa``, ``versicolor``,
        ``virginica``; 50 each), rows in R's order.
    """
    with resources.files(__package__).joinpath("iris.csv").open("r") as fh:
        return pd.read_csv(fh)


def load_example(name: str) -> pd.DataFrame:
    """Load an embedded example data set by name (one of ``EXAMPLES``)."""
    if name == "iris":
        return load_iris()
    raise ValueError(f"`name` must be one of {EXAMPLES}, got {name!r}.")


@vocabulary
def make_power_kmeans_data(n_samples=2500, n_clusters=50, n_features=2, *, rng=None, equal_sizes=False):
    """Xu & Lange's (2019) simulation: standard-normal clusters around uniform centres.

    A side r ~ U(30, 60) is drawn, then ``n_clusters`` centres uniform in the cube
    [0, r]^``n_features``, then each point's cluster uniformly (or, with ``equal_sizes``, a
    random order of n/k points per cluster) and the point as its centre plus N(0, I) noise
    (Section 4 of the paper: n = 2,500, k = 50, d from 2 to 200).

    Parameters
    ----------
    n_samples, n_clusters, n_features : int
        Number of points n, clusters k and dimension d.
    rng : None, int or numpy.random.Generator, default=None
        Seed or generator (a generator is used, and advanced, in place).
    equal_sizes : bool, default=False
        Clusters of equal size (sizes differing by at most one when k does not divide n)
        instead of multinomial sizes; r and the centres are the same for the same seed.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    labels : ndarray of shape (n_samples,)
        The cluster of each point.
    centres : ndarray of shape (n_clusters, n_features)

    Examples
    --------
    >>> X, labels, centres = make_power_kmeans_data(100, 5, 3, rng=0)
    >>> X.shape, centres.shape, sorted(set(labels.tolist()))
    ((100, 3), (5, 3), [0, 1, 2, 3, 4])
    """
    n = check_positive_int(n_samples, "n_samples")
    k = check_positive_int(n_clusters, "n_clusters")
    d = check_positive_int(n_features, "n_features")
    if not isinstance(equal_sizes, (bool, np.bool_)):
        raise ValueError(f"`equal_sizes` must be True or False, got {equal_sizes!r}.")
    # the points, the noise added to them and the centres gathered by label, with the labels
    check_fits(f"make_power_kmeans_data of {n:,} points in {d:,} dimensions", 8 * (3 * n * d + n + k * d), "a smaller `n_samples`")
    rng = np.random.default_rng(rng)
    r = rng.uniform(30, 60)
    centres = rng.uniform(0, r, size=(k, d))
    labels = rng.permutation(np.arange(n) % k) if equal_sizes else rng.integers(0, k, size=n)
    return centres[labels] + rng.normal(size=(n, d)), labels, centres
