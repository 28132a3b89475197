"""scikit-learn's estimator checks on KGroups and PowerKMeans (energystats._cluster.kgroups,
energystats._cluster.power_kmeans).

Every check of ``sklearn.utils.estimator_checks`` runs, with no exclusions; among them
fitting with integer and zero ``sample_weight`` equals fitting on repeated and removed
points (KGroups numbers its clusters by size, so equal partitions get equal labels). The
array-API check needs SCIPY_ARRAY_API=1 before scipy is imported, so it runs in a fresh
process.
"""

import os
import subprocess
import sys

import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import energystats as es

#: On a graph (metric="nearest_neighbors") a point's weight is its degree times sample_weight,
#: and repeating a point changes the graph: integer weights are not repetitions there.
GRAPH = es.KGroups(3, metric="nearest_neighbors")


def _expected_failures(estimator) -> dict:
    if estimator is not GRAPH:
        return {}
    return {"check_sample_weight_equivalence_on_dense_data": "the graph of repeated points is "
            "not the graph of the points with integer weights (degrees times weights)"}


@parametrize_with_checks([es.KGroups(3), es.PowerKMeans(3), GRAPH],
                         expected_failed_checks=_expected_failures)
def test_scikit_learn_estimator_checks(estimator, check):
    if (
        getattr(check, "func", check).__name__ == "check_array_api_input"
        and os.environ.get("SCIPY_ARRAY_API") != "1"
    ):
        # scipy reads SCIPY_ARRAY_API when it is imported: this check needs a fresh process
        metric = {k: v for k, v in estimator.get_params().items() if k == "metric"}
        code = (
            "import energystats as es\n"
            "from sklearn.utils.estimator_checks import check_array_api_input\n"
            f"check_array_api_input({type(estimator).__name__!r}, "
            f"es.{type(estimator).__name__}(3, **{metric!r}), "
            f"**{check.keywords!r})\n"
        )
        subprocess.run(
            [sys.executable, "-c", code], env={**os.environ, "SCIPY_ARRAY_API": "1"}, check=True
        )
        return
    check(estimator)


def test_kgroups_in_a_pipeline_and_a_grid_search():
    iris = es.datasets.load_iris()
    X = iris.iloc[:, :4]
    pipe = make_pipeline(StandardScaler(), es.KGroups(3, n_init=2, random_state=0))
    labels = pipe.fit_predict(X)
    assert labels.shape == (150,) and set(labels) == {0, 1, 2}
    assert clone(pipe).get_params()["kgroups__n_clusters"] == 3
    search = GridSearchCV(
        es.KGroups(2, n_init=1, random_state=0), {"n_clusters": [2, 3]}, cv=2,
        scoring="adjusted_rand_score",
    )
    search.fit(X, iris["Species"])
    assert search.best_params_["n_clusters"] in (2, 3)


@pytest.mark.parametrize("Estimator", [es.KGroups, es.PowerKMeans])
def test_feature_names_are_kept_and_checked(Estimator):
    iris = es.datasets.load_iris().iloc[:, :4]
    est = Estimator(3, random_state=0).fit(iris)
    assert est.feature_names_in_.tolist() == iris.columns.tolist()
    assert est.n_features_in_ == 4
    with pytest.raises(ValueError, match="feature names"):
        est.predict(iris.rename(columns={iris.columns[0]: "other"}))
