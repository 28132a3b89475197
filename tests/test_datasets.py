"""Embedded data sets (energystats.datasets)."""

import numpy as np
import pytest

from energystats.datasets import load_example, load_iris


def test_iris_is_fishers_data():
    iris = load_iris()
    assert iris.shape == (150, 5)
    assert list(iris.columns) == ["Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width", "Species"]
    assert iris["Species"].value_counts().to_dict() == {"setosa": 50, "versicolor": 50, "virginica": 50}
    # column means of R's iris, as printed by colMeans(iris[, 1:4])
    np.testing.assert_allclose(iris.iloc[:, :4].mean().to_numpy(), [5.843333, 3.057333, 3.758000, 1.199333], atol=5e-7)


def test_load_example():
    assert load_example("iris").equals(load_iris())
    with pytest.raises(ValueError, match="`name` must be one of"):
        load_example("mnist")


@pytest.mark.r
def test_iris_equals_rs_builtin_copy():
    from energystats._rbridge import r_call, to_numpy

    r_iris = to_numpy(r_call("data.matrix", r_call("get", "iris")))  # Species as codes 1..3
    iris = load_iris()
    np.testing.assert_array_equal(r_iris[:, :4], iris.iloc[:, :4].to_numpy())
    np.testing.assert_array_equal(r_iris[:, 4], iris["Species"].astype("category").cat.codes + 1)
