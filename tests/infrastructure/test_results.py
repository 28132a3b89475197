"""Every result type: its declared bases (a test, a clustering) and their fields documented
once, unpacking, to_dict/to_frame, R-style text and HTML tables, data_name; the fitted
estimators' reports."""

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import energystats as es
from energystats import _results
from energystats._results import (
    ResultMixin,
    attribute_entries,
    compose_attributes,
    format_pvalue,
    table_html,
    table_text,
)
from tests._declared import result_factories

RESULT_TYPES = sorted(name for name in es.__all__ if name.endswith("Result"))


def _data():
    gen = np.random.default_rng(0)
    X = pd.DataFrame(gen.normal(size=(40, 2)), columns=["lat", "long"])
    X.iloc[20:, 0] += 4.0
    return X, np.repeat([0, 1], 20)


def _frame():
    gen = np.random.default_rng(1)
    df = pd.DataFrame(gen.normal(size=(30, 3)), columns=["a", "b", "c"])
    df["d"] = df["a"] ** 2 + 0.3 * gen.normal(size=30)
    return df


# one call per result type (or RESULT_FACTORIES in the family's test module): a result type
# added to energystats without one fails test_every_result_type_is_covered
FACTORIES = {
    "ChooseKResult": lambda: es.choose_k(_data()[0], k_max=3, n_resamples=19, rng=0),
    "ClusterTestResult": lambda: es.cluster_test(_data()[0], 2, n_resamples=9, rng=0),
    "DCovStatsResult": lambda: es.dcov_stats(_frame()["a"], _frame()["d"]),
    "DipTestResult": lambda: es.dip_test(_data()[0]["lat"], n_resamples=19, rng=0),
    "DispersionResult": lambda: es.dispersion(*_data()),
    "EnergyGofResult": lambda: es.energy_gof(_frame()["a"], stats.norm, n_resamples=19, rng=0),
    "EnergyHClustResult": lambda: es.energy_hclust(_data()[0]),
    "EnergyTestResult": lambda: es.energy_test(*_data(), n_resamples=19, rng=0),
    "IndependenceTestResult": lambda: es.dcov_test(
        _frame()["a"], _frame()["d"], n_resamples=19, rng=0
    ),
    "MvnormTestResult": lambda: es.mvnorm_test(_frame(), n_resamples=19, rng=0),
    "NormalTestResult": lambda: es.normal_test(_frame()["a"], n_resamples=19, rng=0),
    "PairwiseDcorResult": lambda: es.pairwise_dcor(_frame()),
    "PairwiseEnergyTestsResult": lambda: es.pairwise_energy_tests(
        _data()[0], np.arange(40) % 3, n_resamples=19, rng=0
    ),
    "PoissonTestResult": lambda: es.poisson_test(
        pd.Series(np.random.default_rng(2).poisson(3, 30), name="counts"), n_resamples=19, rng=0
    ),
    "SignificantClustersResult": lambda: es.significant_clusters(_data()[0], n_resamples=19, rng=0),
    "Split1DResult": lambda: es.split_1d(_data()[0]["lat"]),
    "ThinnedComparisonResult": lambda: es.thinned_cluster_comparison(
        _data()[0], 2, cov=1.0, n_resamples=19, rng=0
    ),
}


ELSEWHERE = result_factories()
FACTORIES.update({name: factory for name, (factory, _) in ELSEWHERE.items()})
TESTS = {name for name, (_, kind) in ELSEWHERE.items() if kind == "test"} | {
    "ClusterTestResult", "DipTestResult", "EnergyGofResult", "EnergyTestResult",
    "IndependenceTestResult", "MvnormTestResult", "NormalTestResult", "PoissonTestResult",
    "ThinnedComparisonResult",
}
CLUSTERINGS = {name for name, (_, kind) in ELSEWHERE.items() if kind == "clustering"} | {
    "ChooseKResult", "ClusterTestResult", "SignificantClustersResult", "Split1DResult",
    "ThinnedComparisonResult",
}
#: the fields each base declares, once
BASE_FIELDS = {
    ResultMixin: {"data_name", "n_omitted"},
    _results.TestResult: {"statistic", "pvalue", "null_distribution", "n_resamples", "exact"},
    _results.ClusteringResult: {"labels"},
}
#: the results' tables, printed as <table> in HTML (beside the summary table every result has)
TABLES = {
    "ChooseKResult": 2, "DispersionResult": 2, "PairwiseDcorResult": 2,
    "PairwiseEnergyTestsResult": 1, "PoissonTestResult": 1,
    "SignificantClustersResult": 1,
}


@pytest.fixture(scope="module", params=RESULT_TYPES)
def result(request):
    return request.param, FACTORIES[request.param]()


def test_every_result_type_is_covered():
    assert set(FACTORIES) == set(RESULT_TYPES) and len(RESULT_TYPES) >= 16
    assert TESTS <= set(RESULT_TYPES) and CLUSTERINGS <= set(RESULT_TYPES)


def test_a_test_is_a_test_by_type_and_fields_are_declared_once():
    for name in RESULT_TYPES:
        cls = getattr(es, name)
        assert issubclass(cls, _results.TestResult) == (name in TESTS), name
        assert issubclass(cls, _results.ClusteringResult) == (name in CLUSTERINGS), name
        own = set(vars(cls).get("__annotations__", {}))
        for base, declared in BASE_FIELDS.items():
            if issubclass(cls, base):
                assert not own & declared, (name, own & declared)
                assert declared <= {f.name for f in dataclasses.fields(cls)}
    # DispersionResult has p-values (one per factor), yet is a decomposition: it does not unpack
    assert not isinstance(es.dispersion(*_data(), n_resamples=9, rng=0), _results.TestResult)


def _documented(cls) -> list[str]:
    """The names of the Attributes entries of ``cls``'s docstring, as numpydoc reads them."""
    try:
        from numpydoc.docscrape import ClassDoc
    except ImportError:  # without the docs' extra: its grammar ("name, name : type"), read here
        heads = [body[0] for _, body in attribute_entries(cls.__doc__)]
    else:
        heads = [entry.name for entry in ClassDoc(cls)["Attributes"]]
    return [name.strip() for head in heads for name in head.split(" : ")[0].split(",")]


def test_attributes_document_every_field_once(result):
    name, res = result
    documented = _documented(type(res))
    assert sorted(documented) == sorted(f.name for f in dataclasses.fields(res)), name
    assert documented[-2:] == ["n_omitted", "data_name"]  # the root's entries last
    if name in TESTS:
        assert documented[:5] == [
            "statistic", "pvalue", "null_distribution", "n_resamples", "exact",
        ]


def test_composed_attributes_keep_a_base_entry_in_its_place():
    head = [(frozenset({"statistic"}), ["statistic : float", "    Base."]),
            (frozenset({"pvalue"}), ["pvalue : float"])]
    tail = [(frozenset({"data_name"}), ["data_name : str"])]
    doc = ("A test.\n\n    Attributes\n    ----------\n    size : int\n    pvalue : float\n"
           "        Its own.\n    ")
    assert compose_attributes(doc, head, tail) == (
        "A test.\n\n    Attributes\n    ----------\n    statistic : float\n        Base.\n"
        "    pvalue : float\n        Its own.\n    size : int\n    data_name : str\n    "
    )
    assert compose_attributes("Nothing.\n\n    More.\n    ", [], tail) == (
        "Nothing.\n\n    More.\n\n    Attributes\n    ----------\n    data_name : str\n    "
    )


def test_type_and_data_name(result):
    name, res = result
    assert type(res).__name__ == name and dataclasses.is_dataclass(res)
    assert isinstance(res.data_name, str) and res.data_name


def test_unpacking(result):
    name, res = result
    if name in TESTS:
        statistic, pvalue = res
        assert statistic is res.statistic and pvalue is res.pvalue
    else:
        refused = rf"{name} is not a test, so it does not unpack into a statistic and a p-value"
        with pytest.raises(TypeError, match=refused):
            statistic, pvalue = res


def test_to_dict_and_to_frame(result):
    name, res = result
    d = res.to_dict()
    assert list(d) == [f.name for f in dataclasses.fields(res)] and "data_name" in d
    assert all(d[f.name] is getattr(res, f.name) for f in dataclasses.fields(res))
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) >= 1 and frame.shape[1] >= 1


def test_text_repr_is_r_like(result):
    name, res = result
    text = repr(res)
    assert "eq." not in text and "eq " not in text
    assert not re.search(r"(:|=) None\b", text), text  # None fields are hidden
    assert "n_omitted" not in text and "approximation" not in text and "n_projections" not in text
    assert not text.startswith(name)  # a title, not the type's name
    assert f"data:  {res.data_name}" in text
    if name in TESTS and np.ndim(res.statistic) == 0:
        assert re.search(r"^.+ = \S+, p-value (= \S+|< 2.2e-16)", text, re.M), text


def test_html_repr_has_tables(result):
    name, res = result
    page = res._repr_html_()
    assert "<pre" not in page and "eq." not in page
    assert page.count("<table") == 1 + TABLES.get(name, 0), page
    assert page.count("<table") == page.count("</table>")


def test_hidden_defaults_and_none():
    x = np.random.default_rng(3).normal(size=50)
    limit = repr(es.normal_test(x, method="limit"))
    assert "limit distribution" in limit and "n_resamples" not in limit and "None" not in limit
    t = repr(es.dcor_ttest(x[:, None], x[:, None] ** 2))
    assert "(t distribution, df = 1174)" in t and "df:" not in t
    permutation = repr(es.dcov_test(x, x**2, n_resamples=19, rng=0))
    assert (
        "df" not in permutation and "(19 permutations)" in permutation and "\ndCov: " in permutation
    )
    assert "exact" not in permutation and "method" not in permutation


def test_pvalue_as_r_format_pval():
    assert format_pvalue(1e-20) == "< 2.2e-16" and format_pvalue(0.0) == "< 2.2e-16"
    assert (
        format_pvalue(0.001) == "= 0.001"
        and format_pvalue(0.123456) == "= 0.1235"
        and format_pvalue(3.2e-7) == "= 3.2e-07"
    )
    gen = np.random.default_rng(0)
    x = gen.normal(size=(200, 3))
    res = es.dcor_ttest(x, x + 0.01 * gen.normal(size=(200, 3)))
    assert res.pvalue < 2.2e-16 and "p-value < 2.2e-16 (t distribution" in repr(res)
    exact = es.energy_test([0.0, 0.1, 5.0, 5.1], [0, 0, 1, 1])
    assert "S = 4.95, p-value = 0.3333 (exact: all 6 distinct relabelings)" in repr(exact)


def test_data_name_from_what_was_passed():
    df = pd.DataFrame(
        {
            "mag": [4.8, 4.2, 5.4, 4.1, 4.0, 4.3, 4.6, 5.0],
            "stations": [41, 15, 43, 19, 11, 12, 36, 28],
        }
    )
    assert (
        es.dcor_test(df["mag"], df["stations"], n_resamples=9, rng=0).data_name
        == "mag and stations"
    )
    assert (
        es.dcor_test(
            df["mag"].to_numpy(), df["stations"].to_numpy(), n_resamples=9, rng=0
        ).data_name
        == "x and y"
    )
    assert es.dcov_stats(df, df["mag"] ** 2).data_name == "[mag, stations] and mag"
    labels = pd.Series([0, 0, 0, 0, 1, 1, 1, 1], name="cluster")
    assert es.energy_test(df[["mag"]], labels, n_resamples=9, rng=0).data_name == "mag by cluster"
    assert (
        es.energy_test(df.to_numpy(), labels.to_numpy(), n_resamples=9, rng=0).data_name
        == "X by labels"
    )
    assert (
        es.energy_test_samples(df["mag"], df["stations"], n_resamples=9, rng=0).data_name
        == "mag and stations"
    )
    assert (
        es.energy_test_samples([1.0, 2, 3], [4.0, 5, 6], rng=0).data_name
        == "samples[0] and samples[1]"
    )
    assert (
        es.pdcov_test(
            df["mag"], df["stations"], (df["mag"] ** 2).to_numpy(), n_resamples=9, rng=0
        ).data_name
        == "mag and stations, controlling for z"
    )
    wide = pd.DataFrame(np.random.default_rng(0).normal(size=(10, 6)), columns=list("abcdef"))
    assert es.mvnorm_test(wide, n_resamples=9, rng=0).data_name == "[a, b, c, ... (6 columns)]"
    # nan_policy="propagate" returns a number, untouched
    assert np.isnan(es.dcov([1.0, np.nan, 3, 4], [1.0, 2, 3, 4], nan_policy="propagate"))


def test_data_name_is_never_guessed_from_the_callers_variables():
    # Python has no substitute(): after y = x both names hold one array, so arrays are named
    # by the parameters, and data_name= says it in the caller's words (R's data.name)
    response, group = np.r_[np.zeros(4), np.ones(4)] + np.arange(8) / 10, np.repeat(["a", "b"], 4)
    y = response
    assert es.energy_test(response, group, n_resamples=9, rng=0).data_name == "X by labels"
    assert es.energy_test(y, group, n_resamples=9, rng=0).data_name == "X by labels"
    named = es.energy_test(y, group, n_resamples=9, rng=0, data_name="response by group")
    assert named.data_name == "response by group" and "data:  response by group" in repr(named)
    height, weight = np.arange(8.0), np.arange(8.0) ** 2
    assert es.dcor_test(height, weight, n_resamples=9, rng=0).data_name == "x and y"
    assert es.energy_test_samples(height, weight, rng=0).data_name == "samples[0] and samples[1]"


def test_dcov_stats_fields_are_squares_under_both_estimators():
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    v, u = es.dcov_stats(x, x**2), es.dcov_stats(x, x**2, estimator="U")
    assert (
        v.dcov2 == pytest.approx(es.dcov(x, x**2) ** 2, rel=1e-14)
        and u.dcov2 == es.dcov(x, x**2, estimator="U")
    )
    assert (
        v.dcor2 == pytest.approx(es.dcor(x, x**2) ** 2, rel=1e-14)
        and u.dcor2 == es.dcor(x, x**2, estimator="U")
    )
    assert v.n_samples == u.n_samples == 5
    assert "R's numbers: dCov = 2.7011, dCor = 0.98692, dVarX = 1.1027, dVarY = 6.7929" in repr(v)


def test_sample_size_is_n_samples_everywhere():
    for name in RESULT_TYPES:
        names = {f.name for f in dataclasses.fields(getattr(es, name))}
        assert "n" not in names, name


def test_table_columns_have_one_format_and_missing_cells_are_blank():
    frame = pd.DataFrame({"a": [0.0, 143.61764, 44.473512], "b": [143.61764, 0.0, np.nan]},
                         index=["x", "y", "z"])
    # each column's decimals by its own most demanding value: one number as 143.6176 and 143.618
    assert table_text(frame, digits=6) == [
        "          a        b", "x    0.0000  143.618", "y  143.6176    0.000", "z   44.4735",
    ]
    shared = table_text(frame, digits=6, decimals=4)  # a matrix of one quantity: one format
    assert shared == [
        "          a         b", "x    0.0000  143.6176", "y  143.6176    0.0000", "z   44.4735",
    ]
    fixed = table_text(pd.DataFrame({"v": [123.456789, 0.5]}), decimals={"v": 5})
    assert fixed == ["        v", "123.45679", "  0.50000"]
    tiny = table_text(pd.DataFrame({"v": [1e-7, 2.5]}), decimals={"v": 5})  # 0.00000 would lose it
    assert tiny == ["        v", "1.000e-07", "2.500e+00"]
    page = table_html(frame, digits=6, decimals=4)
    cells = re.findall(r"<t[dh] style='([^']*)'", page)
    assert len(cells) == 3 * 4 and all("padding:" in style for style in cells)
    assert ">143.6176</td>" in page and "NaN" not in page and "<td style='" in page


def test_tables_align():
    frame = pd.DataFrame(
        {"x": ["a", "bb"], "value": [1.5, 10.25], "pvalue": [0.5, 1e-20], "count": [3, 12]}
    )
    lines = table_text(frame)
    assert lines == [
        "x   value     pvalue  count",
        "a    1.50        0.5      3",
        "bb  10.25  < 2.2e-16     12",
    ]
    page = table_html(frame)
    assert page.count("<tr>") == 3 and "monospace" in page and "text-align:right" in page
    long = pd.DataFrame({"v": np.arange(30.0)})
    assert table_text(long, max_rows=5)[-1] == "... 25 more rows (all in to_frame())"
    assert table_html(long, max_rows=5).count("<tr>") == 6


def test_kgroups_reports_as_r_kgroups():
    iris = es.datasets.load_iris().iloc[:, :4]
    model = es.KGroups(3, random_state=0)
    # scikit-learn's until fitted
    assert repr(model) == str(model) == "KGroups(n_clusters=3, random_state=0)"
    assert (
        "text/html" in model._repr_mimebundle_()
        and "K-groups" not in model._repr_mimebundle_()["text/html"]
    )
    model.fit(iris)
    # as scikit-learn prints it nested in a pipeline
    assert repr(model) == "KGroups(n_clusters=3, random_state=0)"
    text = str(model)
    assert text.startswith("K-groups cluster analysis\n\n3 groups of sizes 62, 50, 38\n")
    assert f"within dispersion W: {model.W_:.5g}" in text and "iterations: 4, converged" in text
    within = es.dispersion(iris, model.labels_).within  # R kgroups' `within`: W_j of each cluster
    assert within.sum() == pytest.approx(model.W_, rel=1e-12)
    for j, w in enumerate(within):
        assert re.search(rf"^{j} +{model.cluster_sizes_[j]} +{w:.2f}$", text, re.M), text
    assert text.endswith("KGroups(n_clusters=3, random_state=0)")
    bundle = model._repr_mimebundle_()
    assert bundle["text/plain"] == text and bundle["text/html"].count("<table") == 2
    r_mode = str(es.KGroups(3, algorithm="r-kgroups", random_state=0).fit(iris))
    assert "iterations: 5, converged, count 0" in r_mode


def test_power_kmeans_reports_when_fitted():
    iris = es.datasets.load_iris().iloc[:, :4]
    model = es.PowerKMeans(3, random_state=0)
    assert repr(model) == "PowerKMeans(n_clusters=3, random_state=0)"
    text = str(model.fit(iris))
    assert text.startswith("Power k-means cluster analysis\n\n3 groups of sizes 62, 50, 38\n")
    assert f"k-means objective (inertia): {model.inertia_:.5g}" in text and "Sepal.Length" in text
    assert model._repr_mimebundle_()["text/html"].count("<table") == 2


def test_data_name_of_an_r_data_frame():
    ro = pytest.importorskip("rpy2.robjects")
    try:
        quakes = ro.r(
            "data.frame(lat = c(-20.4, -20.6, -26, -18, -20.4, -19.7, -11.7, -28.1), mag = c(4.8, "
            "4.2, 5.4, 4.1, 4, 4, 4.8, 4.4))"
        )
    except Exception as exc:  # rpy2 installed without a working R
        pytest.skip(f"R is not available: {exc}")
    assert es.mvnorm_test(quakes, n_resamples=9, rng=0).data_name == "[lat, mag]"
    # R vectors have no names
    assert (
        es.dcor_test(quakes.rx2("lat"), quakes.rx2("mag"), n_resamples=9, rng=0).data_name
        == "x and y"
    )
