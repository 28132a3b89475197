"""Embedded data sets (energystats.datasets)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from energystats import datasets
from energystats.datasets import load_example, load_iris

# R's name -> (shape, {column: dtype}, categories of each factor in R's order, row names?)
R_DATASETS = {
    "iris": (
        (150, 5),
        {
            "Sepal.Length": "float64", "Sepal.Width": "float64", "Petal.Length": "float64",
            "Petal.Width": "float64", "Species": "category",
        },
        {"Species": ["setosa", "versicolor", "virginica"]},
        False,
    ),
    "quakes": (
        (1000, 5),
        {
            "lat": "float64", "long": "float64", "depth": "int64", "mag": "float64",
            "stations": "int64",
        },
        {},
        False,
    ),
    "faithful": ((272, 2), {"eruptions": "float64", "waiting": "float64"}, {}, False),
    "USArrests": (
        (50, 4), {"Murder": "float64", "Assault": "int64", "UrbanPop": "int64", "Rape": "float64"},
        {}, True,
    ),
    "mtcars": (
        (32, 11),
        dict.fromkeys(
            ["mpg", "cyl", "disp", "hp", "drat", "wt", "qsec", "vs", "am", "gear", "carb"],
            "float64",
        ),
        {},
        True,
    ),
    "PlantGrowth": (
        (30, 2), {"weight": "float64", "group": "category"}, {"group": ["ctrl", "trt1", "trt2"]},
        False,
    ),
    "chickwts": (
        (71, 2), {"weight": "float64", "feed": "category"},
        {"feed": ["casein", "horsebean", "linseed", "meatmeal", "soybean", "sunflower"]}, False,
    ),
    "ToothGrowth": (
        (60, 3), {"len": "float64", "supp": "category", "dose": "float64"}, {"supp": ["OJ", "VC"]},
        False,
    ),
    "warpbreaks": (
        (54, 3), {"breaks": "float64", "wool": "category", "tension": "category"},
        {"wool": ["A", "B"], "tension": ["L", "M", "H"]}, False,
    ),
}


def loader(name):
    return getattr(datasets, f"load_{name.lower()}")


def test_every_loader_is_exported_and_documented():
    loaders = sorted(n for n in datasets.__all__ if n.startswith("load_") and n != "load_example")
    assert loaders == sorted(f"load_{name.lower()}" for name in R_DATASETS)
    api = (Path(__file__).resolve().parents[2] / "docs" / "api.rst").read_text()
    for name in loaders:
        assert f"   datasets.{name}\n" in api


@pytest.mark.parametrize("name", sorted(R_DATASETS))
def test_loader_shape_dtypes_levels_and_index(name):
    shape, dtypes, levels, row_names = R_DATASETS[name]
    frame = loader(name)()
    assert frame.shape == shape
    assert {c: str(t) for c, t in frame.dtypes.items()} == dtypes
    for column, categories in levels.items():
        assert list(frame[column].cat.categories) == categories and not frame[column].cat.ordered
        assert not frame[column].isna().any()  # every value one of R's levels
    assert frame.index.name is None
    if row_names:
        assert frame.index.is_unique and isinstance(frame.index[0], str)
    else:
        assert frame.index.equals(pd.RangeIndex(shape[0]))
    assert loader(name)() is not frame and loader(name)().equals(frame)  # a fresh copy each call


def test_iris_is_fishers_data():
    iris = load_iris()
    assert iris.shape == (150, 5)
    assert list(iris.columns) == [
        "Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width", "Species",
    ]
    assert iris["Species"].value_counts().to_dict() == {
        "setosa": 50, "versicolor": 50, "virginica": 50,
    }
    # column means of R's iris, as printed by colMeans(iris[, 1:4])
    np.testing.assert_allclose(
        iris.iloc[:, :4].mean().to_numpy(), [5.843333, 3.057333, 3.758000, 1.199333], atol=5e-7
    )


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


@pytest.mark.r
@pytest.mark.parametrize("name", sorted(R_DATASETS))
def test_loader_equals_rs_copy_exactly(name):
    """Every value as R holds it (doubles to the last bit), factors' levels and codes, R's
    row names, R's column types."""
    from energystats._rbridge import r_call, to_numpy

    r_frame = r_call("get", name)
    frame = loader(name)()
    assert list(frame.columns) == list(r_call("names", r_frame))
    if R_DATASETS[name][3]:
        assert frame.index.tolist() == list(r_call("rownames", r_frame))
    for i, column in enumerate(frame.columns, start=1):
        r_column = r_call("[[", r_frame, i)
        if to_numpy(r_call("is.factor", r_column))[0]:
            assert list(frame[column].cat.categories) == list(r_call("levels", r_column))
            np.testing.assert_array_equal(
                frame[column].cat.codes.to_numpy() + 1, to_numpy(r_call("as.integer", r_column))
            )
        else:
            kind = r_call("typeof", r_column)[0]
            assert frame[column].dtype == {"double": np.float64, "integer": np.int64}[kind]
            np.testing.assert_array_equal(frame[column].to_numpy(), to_numpy(r_column))


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


def test_every_example_loads_by_name_and_others_are_refused():
    for name in datasets.EXAMPLES:
        pd.testing.assert_frame_equal(load_example(name), getattr(datasets, f"load_{name}")())
    with pytest.raises(ValueError, match="`name` must be one of"):
        load_example("airquality")
