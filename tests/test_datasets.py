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


def test_power_kmeans_data_sizes():
    from energystats.datasets import make_power_kmeans_data

    X, labels, centres = make_power_kmeans_data(2500, 50, 3, rng=7, equal_sizes=True)
    assert X.shape == (2500, 3) and centres.shape == (50, 3)
    assert np.bincount(labels, minlength=50).tolist() == [50] * 50
    assert labels[:50].tolist() != sorted(labels[:50].tolist())  # a random order, not sorted
    # the same side and centres as the multinomial draw with the same seed; only the labels differ
    _, multinomial, same_centres = make_power_kmeans_data(2500, 50, 3, rng=7)
    np.testing.assert_array_equal(centres, same_centres)
    assert len(set(np.bincount(multinomial, minlength=50).tolist())) > 1
    # N(0, I) noise around each label's centre; false failure: 0.05 is 6.1 standard errors of the
    # sd of 7,500 normal values (1 / sqrt(2 x 7500)): P(|Z| > 6.1) = 1e-9
    assert abs((X - centres[labels]).std() - 1.0) < 0.05
    _, uneven, _ = make_power_kmeans_data(103, 10, 2, rng=0, equal_sizes=True)
    assert sorted(np.bincount(uneven).tolist()) == [10] * 7 + [11] * 3


def test_power_kmeans_data_follows_the_documented_draws():
    from energystats.datasets import make_power_kmeans_data

    # the default (multinomial sizes) keeps its random stream: r, the centres, the labels, the noise
    rng = np.random.default_rng(3)
    r = rng.uniform(30, 60)
    centres = rng.uniform(0, r, size=(4, 2))
    labels = rng.integers(0, 4, size=40)
    X = centres[labels] + rng.normal(size=(40, 2))
    got = make_power_kmeans_data(40, 4, 2, rng=3)
    for a, b in zip(got, (X, labels, centres)):
        np.testing.assert_array_equal(a, b)


def test_power_kmeans_data_rejects_a_non_boolean_size_option():
    from energystats.datasets import make_power_kmeans_data

    with pytest.raises(ValueError, match="`equal_sizes` must be True or False"):
        make_power_kmeans_data(100, 5, 2, equal_sizes="yes")
