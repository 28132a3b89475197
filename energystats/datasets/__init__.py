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

import pandas as pd

__all__ = ["load_example", "load_iris"]

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
