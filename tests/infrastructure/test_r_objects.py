"""Every public function reads R objects from rpy2 by one path (``_missing.read_r``): a data
frame, a matrix, a vector, a factor and a ``dist`` object give the result of the same data
passed from Python (a DataFrame, an array, a categorical, a distance matrix with
metric="precomputed"), and a ``dist`` object is refused where distances cannot be used.
Also the orientation warning of a table with more variables than observations (not marked r)."""

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.spatial.distance import pdist, squareform

import energystats as es
from energystats._rbridge import from_r

N = 24
_rng = np.random.default_rng(34)
TABLE = pd.DataFrame(
    _rng.normal(size=(N, 3)) + np.repeat(np.eye(3), N // 3, axis=0), columns=["a", "b", "c"]
)
VECTOR = _rng.normal(size=N)
LEVELS = np.repeat(["high", "low", "mid"], N // 3)
COUNTS = _rng.poisson(3.0, size=N)


@pytest.fixture(scope="module")
def ro():
    from energystats._rbridge import _load

    return _load()[0]


def _inputs(ro, kind: str, table: str) -> dict:
    """The data of every case from Python, or the same data as R objects from rpy2."""
    matrix = TABLE.to_numpy()
    if kind == "python":
        return {
            "X": TABLE if table == "frame" else matrix, "x": VECTOR, "y": matrix[:, 1:],
            "z": matrix[:, 0], "labels": pd.Categorical(LEVELS), "counts": COUNTS,
        }
    from energystats._rbridge import r_matrix

    X = ro.r["as.data.frame"](r_matrix(matrix))
    X.names = ro.StrVector(list(TABLE.columns))
    return {
        "X": X if table == "frame" else r_matrix(matrix), "x": ro.FloatVector(VECTOR),
        "y": r_matrix(matrix[:, 1:]), "z": ro.FloatVector(matrix[:, 0]),
        "labels": ro.FactorVector(ro.StrVector(list(LEVELS))),
        "counts": ro.IntVector([int(c) for c in COUNTS]),
    }


def _fit(estimator, X) -> dict:
    return _fit_attributes(estimator.fit(X))


#: (name, call): every public function that takes data, on the data of ``_inputs``.
CASES = [
    ("choose_k", lambda i: es.choose_k(i["X"], 3, n_references=2, n_init=1, rng=0)),
    ("cluster_test", lambda i: es.cluster_test(i["X"], 2, n_resamples=19, rng=0)),
    ("dcor", lambda i: es.dcor(i["x"], i["y"])),
    ("dcor_test", lambda i: es.dcor_test(i["x"], i["y"], n_resamples=19, rng=0)),
    ("dcor_ttest", lambda i: es.dcor_ttest(i["x"], i["y"])),
    ("dcov", lambda i: es.dcov(i["x"], i["y"])),
    ("dcov_stats", lambda i: es.dcov_stats(i["x"], i["y"])),
    ("dcov_test", lambda i: es.dcov_test(i["x"], i["y"], n_resamples=19, rng=0)),
    ("dip_statistic", lambda i: es.dip_statistic(i["x"])),
    ("dip_test", lambda i: es.dip_test(i["x"], n_resamples=19, rng=0)),
    ("dispersion", lambda i: es.dispersion(i["X"], i["labels"])),
    ("energy_distance", lambda i: es.energy_distance(i["x"], i["z"])),
    ("energy_gof", lambda i: es.energy_gof(i["x"], stats.norm, n_resamples=19, rng=0)),
    ("energy_gof_statistic", lambda i: es.energy_gof_statistic(stats.norm(), i["x"])),
    ("energy_hclust", lambda i: es.energy_hclust(i["X"])),
    ("energy_test", lambda i: es.energy_test(i["X"], i["labels"], n_resamples=19, rng=0)),
    (
        "energy_test_samples",
        lambda i: es.energy_test_samples(i["x"], i["z"], n_resamples=19, rng=0),
    ),
    ("kernel_matrix", lambda i: es.kernel_matrix(i["X"])),
    ("ksample_statistic", lambda i: es.ksample_statistic(i["X"], i["labels"])),
    (
        "mutual_independence_test",
        lambda i: es.mutual_independence_test(i["X"], n_resamples=19, rng=0),
    ),
    ("mvi", lambda i: es.mvi(i["x"], i["y"])),
    ("mvi_test", lambda i: es.mvi_test(i["x"], i["y"], n_resamples=19, rng=0)),
    ("mvnorm_statistic", lambda i: es.mvnorm_statistic(i["X"])),
    ("mvnorm_test", lambda i: es.mvnorm_test(i["X"], n_resamples=19, rng=0)),
    ("normal_statistic", lambda i: es.normal_statistic(i["x"])),
    ("normal_test", lambda i: es.normal_test(i["x"], n_resamples=19, rng=0)),
    ("pairwise_dcor", lambda i: es.pairwise_dcor(i["X"])),
    (
        "pairwise_energy_tests",
        lambda i: es.pairwise_energy_tests(i["X"], i["labels"], n_resamples=19, rng=0),
    ),
    ("pairwise_semimetric", lambda i: es.pairwise_semimetric(i["X"])),
    ("pdcor", lambda i: es.pdcor(i["x"], i["y"], i["z"])),
    ("pdcor_test", lambda i: es.pdcor_test(i["x"], i["y"], i["z"], n_resamples=19, rng=0)),
    ("pdcov", lambda i: es.pdcov(i["x"], i["y"], i["z"])),
    ("pdcov_test", lambda i: es.pdcov_test(i["x"], i["y"], i["z"], n_resamples=19, rng=0)),
    ("poisson_statistic", lambda i: es.poisson_statistic(i["counts"])),
    ("poisson_test", lambda i: es.poisson_test(i["counts"], n_resamples=19, rng=0)),
    ("significant_clusters", lambda i: es.significant_clusters(i["X"], n_resamples=19, rng=0)),
    ("split_1d", lambda i: es.split_1d(i["x"])),
    (
        "thinned_cluster_comparison",
        lambda i: es.thinned_cluster_comparison(i["X"], 2, cov=np.eye(3), n_resamples=19, rng=0),
    ),
    ("KGroups.fit", lambda i: _fit(es.KGroups(3, random_state=0), i["X"])),
    ("PowerKMeans.fit", lambda i: _fit(es.PowerKMeans(3, random_state=0), i["X"])),
]

#: (name, call with a distance matrix from Python, the same call with an R dist object).
DIST_CASES = [
    (
        "dcov", lambda d, i: es.dcov(d, i["y"], metric=("precomputed", "euclidean")),
        lambda d, i: es.dcov(d, i["y"]),
    ),
    (
        "dcor_test",
        lambda d, i: es.dcor_test(
            i["x"], d, metric=("euclidean", "precomputed"), n_resamples=19, rng=0
        ),
        lambda d, i: es.dcor_test(i["x"], d, n_resamples=19, rng=0),
    ),
    (
        "pdcor",
        lambda d, i: es.pdcor(d, d, i["z"], metric=("precomputed", "precomputed", "euclidean")),
        lambda d, i: es.pdcor(d, d, i["z"]),
    ),
    (
        "dispersion", lambda d, i: es.dispersion(d, i["labels"], metric="precomputed"),
        lambda d, i: es.dispersion(d, i["labels"]),
    ),
    (
        "energy_test",
        lambda d, i: es.energy_test(d, i["labels"], metric="precomputed", n_resamples=19, rng=0),
        lambda d, i: es.energy_test(d, i["labels"], n_resamples=19, rng=0),
    ),
    (
        "energy_hclust", lambda d, i: es.energy_hclust(d, metric="precomputed"),
        lambda d, i: es.energy_hclust(d),
    ),
    (
        "ksample_statistic",
        lambda d, i: es.ksample_statistic(d, i["labels"], metric="precomputed"),
        lambda d, i: es.ksample_statistic(d, i["labels"]),
    ),
    (
        "pairwise_energy_tests",
        lambda d, i: es.pairwise_energy_tests(
            d, i["labels"], metric="precomputed", n_resamples=19, rng=0
        ),
        lambda d, i: es.pairwise_energy_tests(d, i["labels"], n_resamples=19, rng=0),
    ),
    (
        "KGroups.fit", lambda d, i: _fit(es.KGroups(3, metric="precomputed", random_state=0), d),
        lambda d, i: _fit(es.KGroups(3, metric="precomputed", random_state=0), d),
    ),
    ("d_center", lambda d, i: es.d_center(d), lambda d, i: es.d_center(d)),
    ("u_center", lambda d, i: es.u_center(d), lambda d, i: es.u_center(d)),
    ("is_negative_type", lambda d, i: es.is_negative_type(d), lambda d, i: es.is_negative_type(d)),
]

#: Functions that take points only: an R dist object is refused, naming the argument.
REFUSED = [
    ("mvnorm_statistic", lambda d, i: es.mvnorm_statistic(d), "`X` is an R dist object"),
    ("cluster_test", lambda d, i: es.cluster_test(d, 2), "`X` is an R dist object"),
    ("mvi", lambda d, i: es.mvi(d, i["y"]), "`x` is an R dist object"),
    ("energy_distance", lambda d, i: es.energy_distance(d, i["x"]), "`x` is an R dist object"),
    ("pairwise_dcor", lambda d, i: es.pairwise_dcor(d), "`X` is an R dist object"),
    ("PowerKMeans.fit", lambda d, i: es.PowerKMeans(2).fit(d), "`X` is an R dist object"),
    (
        "KGroups.fit", lambda d, i: es.KGroups(2).fit(d),
        r"`X` is an R dist object .* metric='precomputed'",
    ),
    (
        "dcov with a gaussian metric", lambda d, i: es.dcov(d, i["y"], metric="gaussian"),
        "`metric`='gaussian' cannot apply",
    ),
    # an exponent applies to distances computed here, not to R's (issue 42, item 15)
    (
        "energy_test with an exponent",
        lambda d, i: es.energy_test(d, i["labels"], exponent=0.5),
        r"^`X` is an R dist object, read as the distances it holds; `exponent`=0\.5 applies to "
        r"distances computed here from points: raise them to the power in R \(dist\(x\)\^0\.5\)",
    ),
    (
        "dcov with an exponent for x", lambda d, i: es.dcov(d, i["y"], exponent=(1.5, 1.0)),
        r"^`x` is an R dist object, read as the distances it holds; `exponent`=1\.5",
    ),
    ("pairwise_semimetric", lambda d, i: es.pairwise_semimetric(d), "`X` is an R dist object"),
]


def assert_same(ours, theirs, where=""):
    """Equal results: dataclasses field by field, arrays and frames entry by entry (exactly:
    the same float64 values went in)."""
    if dataclasses.is_dataclass(ours) and not isinstance(ours, type):
        assert type(ours) is type(theirs), where
        for f in dataclasses.fields(ours):
            assert_same(getattr(ours, f.name), getattr(theirs, f.name), f"{where}.{f.name}")
    elif isinstance(ours, dict):
        assert ours.keys() == theirs.keys(), where
        for key in ours:
            assert_same(ours[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(ours, pd.DataFrame):
        pd.testing.assert_frame_equal(ours, theirs, obj=where)
    elif isinstance(ours, (tuple, list)):
        assert len(ours) == len(theirs), where
        for a, b in zip(ours, theirs):
            assert_same(a, b, where)
    elif isinstance(ours, (np.ndarray, float, int, np.floating, np.integer, bool, np.bool_)):
        np.testing.assert_array_equal(ours, theirs, err_msg=where)
    elif hasattr(ours, "get_params"):  # a fitted estimator inside a result
        assert_same(_fit_attributes(ours), _fit_attributes(theirs), where)
    else:
        assert ours == theirs, where


def _fit_attributes(model) -> dict:
    return {
        name: value
        for name, value in vars(model).items()
        if name.endswith("_") and not name.startswith("_")
    }


#: The cases whose call takes the table ``X``: run with an R data frame and with an R matrix.
TABLE_CASES = {
    "choose_k", "cluster_test", "dispersion", "energy_hclust", "energy_test", "kernel_matrix",
    "ksample_statistic", "mutual_independence_test", "mvnorm_statistic", "mvnorm_test",
    "pairwise_dcor", "pairwise_energy_tests", "pairwise_semimetric", "significant_clusters",
    "thinned_cluster_comparison", "KGroups.fit", "PowerKMeans.fit",
}
PARAMETERS = [
    pytest.param(name, call, table, id=f"{name}-{table}")
    for name, call in CASES
    for table in (("frame", "matrix") if name in TABLE_CASES else ("vector",))
]


@pytest.mark.r
@pytest.mark.parametrize("name,call,table", PARAMETERS)
def test_r_objects_give_the_result_of_the_same_data_from_python(ro, name, call, table):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no orientation warning: 24 rows, 3 columns
        ours = call(_inputs(ro, "r", table))
    assert_same(ours, call(_inputs(ro, "python", table)), name)


@pytest.mark.r
@pytest.mark.parametrize("name,python_call,r_call", DIST_CASES, ids=[c[0] for c in DIST_CASES])
def test_an_r_dist_object_is_read_as_precomputed_distances(ro, name, python_call, r_call):
    from energystats._rbridge import r_dist

    D = squareform(pdist(TABLE.to_numpy()))
    assert_same(
        r_call(r_dist(D), _inputs(ro, "r", "matrix")),
        python_call(D, _inputs(ro, "python", "matrix")), name,
    )


@pytest.mark.r
@pytest.mark.parametrize("name,call,match", REFUSED, ids=[c[0] for c in REFUSED])
def test_an_r_dist_object_is_refused_where_points_are_needed(ro, name, call, match):
    from energystats._rbridge import r_dist

    with pytest.raises(ValueError, match=match):
        call(r_dist(squareform(pdist(TABLE.to_numpy()))), _inputs(ro, "r", "matrix"))


@pytest.mark.r
def test_pairwise_dcor_reads_an_r_data_frame_by_its_columns(ro):
    quakes = ro.r("quakes")
    res = es.pairwise_dcor(quakes)
    # 5 variables of 1,000 quakes, not 1,000 variables
    assert res.n_samples == 1000 and len(res.table) == 10
    assert list(res.matrix.columns) == ["lat", "long", "depth", "mag", "stations"]
    dcor = float(ro.r("energy::dcor(quakes$mag, quakes$stations)")[0])
    pair = res.table[(res.table["x"] == "mag") & (res.table["y"] == "stations")]
    assert float(pair["dcor"].iloc[0]) == pytest.approx(dcor, rel=1e-12)


@pytest.mark.r
def test_a_dist_object_gives_rs_dcov(ro):
    ours = es.dcov(ro.r("dist(quakes[1:50, 1:2])"), ro.r("quakes[1:50, 3:4]"))
    theirs = float(ro.r("energy::dcov(dist(quakes[1:50, 1:2]), quakes[1:50, 3:4])")[0])
    assert ours == pytest.approx(theirs, rel=1e-12)


def test_more_variables_than_observations_warns_to_check_orientation():
    wide = np.random.default_rng(0).normal(size=(4, 6))
    message = (
        r"`X` has more variables \(columns: 6\) than observations \(rows: 4\).*transpose \(X\.T\)"
    )
    calls = [
        lambda: es.energy_test(wide, [0, 0, 1, 1], n_resamples=9, rng=0),
        lambda: es.dispersion(wide, [0, 0, 1, 1]),
        lambda: es.mutual_independence_test(wide, n_resamples=9, rng=0),
        lambda: es.pairwise_dcor(pd.DataFrame(np.random.default_rng(0).normal(size=(5, 6)))),
        lambda: es.KGroups(2, random_state=0).fit(wide),
        lambda: es.PowerKMeans(2, random_state=0).fit(wide),
        lambda: es.pairwise_energy_tests(wide, [0, 0, 1, 1], n_resamples=9, rng=0),
    ]
    for call in calls:
        with pytest.warns(
            UserWarning, match=message.replace("6", r"\d+").replace("4", r"\d+")
        ) as record:
            call()
        assert record[0].filename == __file__  # the warning points at the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        # a matrix
        es.energy_test(
            squareform(pdist(wide)), [0, 0, 1, 1], metric="precomputed", n_resamples=9, rng=0
        )
        # six observations of four variables
        es.energy_test(wide.T, [0, 0, 1, 1, 0, 1], n_resamples=9, rng=0)
        es.dcov(wide, wide[:, ::-1])  # paired variables of many dimensions: no table


def test_a_dist_object_through_reticulate_is_distances_everywhere_as_in_r():
    """Imported in an R session, energystats registers R's r_to_py method for dist objects, and
    reticulate hands a dist over as an RDist (its values in R's order) instead of a list of
    numbers: distances wherever a function takes distances, as R reads them (issue 48, item 2;
    tests/from_r.R checks it from R), refused where points are needed."""
    from energystats._rbridge import reticulate_dist

    points = TABLE.to_numpy()[:10]
    D, Dy = squareform(pdist(points[:, :2])), squareform(pdist(points[:, 2:]))
    d, dy = reticulate_dist(pdist(points[:, :2])), reticulate_dist(pdist(points[:, 2:]).tolist())
    labels = np.repeat([0, 1], 5)
    assert es.dcor(d, dy) == es.dcor(D, Dy, metric="precomputed")  # R's dcor(Dx, Dy)
    assert es.dcov(d, points[:, 2:]) == es.dcov(D, points[:, 2:], metric=("precomputed",
                                                                          "euclidean"))
    assert es.energy_hclust(d).n_samples == 10  # R's energy.hclust: the points, not 45 values
    assert es.dispersion(d, labels).W == es.dispersion(D, labels, metric="precomputed").W
    fit = es.KGroups(2, metric="precomputed", random_state=0).fit(d)
    np.testing.assert_array_equal(
        fit.labels_, es.KGroups(2, metric="precomputed", random_state=0).fit(D).labels_)
    with pytest.raises(ValueError, match=r"^`X` is an R dist object .* construct the estimator "
                                         r"with metric='precomputed'"):
        es.KGroups(2).fit(d)
    with pytest.raises(ValueError, match=r"^`X` is an R dist object .* takes the points"):
        es.mvnorm_statistic(d)
    # a plain list of 45 numbers (an R vector) is data, as before
    assert es.normal_statistic(pdist(points).tolist()) == es.normal_statistic(pdist(points))


@pytest.mark.r
def test_an_r_data_frame_of_factors_gives_rs_disco(ro):
    factors = ro.r("data.frame(cyl = factor(mtcars$cyl), am = factor(mtcars$am))")
    res = es.dispersion(ro.r('mtcars[, c("mpg", "hp")]'), factors)
    theirs = ro.r['disco'](ro.r('mtcars[, c("mpg", "hp")]'), factors, R=0)
    between = np.asarray(theirs.rx2("between"))
    np.testing.assert_allclose([f.S for f in res.by_factor], between, rtol=1e-13)
    assert res.W == pytest.approx(float(theirs.rx2("within")[0]), rel=1e-12)
    assert res.disco_table().index.tolist() == ["cyl", "am", "Within", "Total"]


# ---------------------------------------------------------------------------------------------
# R's data as they come through rpy2 (issue 42, items 4, 5, 6, 8, 18): each row (id, call,
# expected) is a call on live R objects whose answer equals `expected` (both functions of
# rpy2's `ro`); each row (id, call, error, match) of R_REFUSED an error naming the argument.
# ---------------------------------------------------------------------------------------------

R_SETUP = """
set.seed(42)
rows <- data.frame(x = rnorm(30), y = rnorm(30), g = rep(c("a", "b", "c"), each = 10))
regions <- rep(c(NA, "EU", "AS"), each = 10)
named_na <- rep(c("NA", "EU", "AS"), each = 10)
dose <- factor(rep(c("hi", "lo", "mid"), c(8, 10, 12)), levels = c("lo", "mid", "hi"),
               ordered = TRUE)
level_na <- factor(c(NA, rep(c("NA", "EU"), c(14, 15))))
dated <- data.frame(x = rows$x, when = as.Date("2024-03-01") + 0:29)
timed <- data.frame(x = rows$x, at = as.POSIXct("2024-03-01", tz = "UTC") + 3600 * 0:29)
lagged <- data.frame(x = rows$x, lag = as.difftime(0:29, units = "hours"))
numbers <- matrix(as.character(round(rows$x, 3)), 10)
letters3 <- matrix(sample(c("u", "v", "w"), 30, TRUE), 15)
twice <- data.frame(a = rows$x, a = rows$y, check.names = FALSE)
coded <- data.frame(x = rows$x, y = rows$y, g = rep(1:3, each = 10))
"""


@pytest.fixture(scope="module")
def r(ro):
    """R's evaluator, with the data of R_SETUP defined."""
    ro.r(R_SETUP)
    return ro.r


def _summary(res) -> tuple:
    return res.groups.tolist(), res.sizes.tolist(), res.n_omitted


def _statistic(X, labels) -> float:
    return es.energy_test(X, labels, n_resamples=9, rng=0).statistic


DAYS = [f"2024-03-0{i}T00:00:00.000000" for i in (1, 2, 3)]

R_AS_IT_COMES = [
    ("character-NA-is-missing",
     lambda r: _summary(es.dispersion(r("rows$x"), r("regions"), nan_policy="omit")),
     lambda r: (["AS", "EU"], [10, 10], 10)),
    ("the-string-NA-is-a-label",
     lambda r: _summary(es.dispersion(r("rows$x"), r("named_na"), nan_policy="omit")),
     lambda r: (["AS", "EU", "NA"], [10, 10, 10], 0)),
    ("a-factor-level-NA-is-a-label",
     lambda r: _summary(es.dispersion(r("rows$x"), r("level_na"), nan_policy="omit")),
     lambda r: (["EU", "NA"], [15, 14], 1)),
    ("ordered-factor-in-level-order", lambda r: _summary(es.dispersion(r("rows$x"), r("dose"))),
     lambda r: (["lo", "mid", "hi"],
                [int(v) for v in r("disco(rows$x, dose, R = 0)$sample.sizes")], 0)),
    ("ordered-factor-gives-rs-disco", lambda r: es.dispersion(r("rows$x"), r("dose")).W,
     lambda r: pytest.approx(r("disco(rows$x, dose, R = 0)$within")[0], rel=1e-12)),
    ("ordered-factor-pairs-in-level-order", lambda r: es.pairwise_energy_tests(
        r("rows$x"), r("dose"), n_resamples=9, rng=0).table["group_a"].tolist(),
     lambda r: ["lo", "lo", "mid"]),
    ("dates-as-labels-group-by-day", lambda r: es.dispersion(
        r("rows$x"), r("rep(dated$when[1:3], each = 10)")).groups.astype(str).tolist(),
     lambda r: DAYS),
    ("character-matrix-of-numbers-is-a-matrix",
     lambda r: _statistic(r("numbers"), np.repeat([0, 1], 5)),
     lambda r: _statistic(np.asarray(r("matrix(as.numeric(numbers), 10)")), np.repeat([0, 1], 5))),
    ("character-matrix-is-categories", lambda r: es.dcor(r("letters3"), r("rows$y[1:15]")),
     lambda r: es.dcor(pd.DataFrame(np.asarray(r("letters3")).reshape(15, 2, order="F")),
                       np.asarray(r("rows$y[1:15]")))),
    ("repeated-names-keep-both-columns", lambda r: _statistic(r("twice"), np.repeat([0, 1, 2], 10)),
     lambda r: _statistic(np.asarray(r("as.matrix(twice)")), np.repeat([0, 1, 2], 10))),
    ("pairwise_dcor-omits-rs-integer-na", lambda r: es.pairwise_dcor(
        r("airquality[, 1:4]"), nan_policy="omit").matrix.loc["Ozone", "Temp"],
     lambda r: pytest.approx(r("with(na.omit(airquality), energy::dcor(Ozone, Temp))")[0],
                             rel=1e-12)),
    ("pairwise_dcor-groups-omit-the-columns-used", lambda r: es.pairwise_dcor(
        r("airquality[, 1:4]"), groups={"o": "Ozone", "tw": ["Temp", "Wind"]},
        nan_policy="omit").n_samples, lambda r: 116),
    # the probe's calls on swiss (issue 48, item 2): dist objects from rpy2 as distances
    ("dcor-of-two-dists", lambda r: es.dcor(r("dist(swiss[, 1:2])"), r("dist(swiss[, 3:5])")),
     lambda r: pytest.approx(r("energy::dcor(dist(swiss[, 1:2]), dist(swiss[, 3:5]))")[0],
                             rel=1e-12)),
    ("hclust-of-a-dist-precomputed", lambda r: es.energy_hclust(
        r("dist(scale(swiss))"), metric="precomputed").height.tolist(),
     lambda r: pytest.approx(sorted(r("energy::energy.hclust(dist(scale(swiss)))$height")),
                             rel=1e-12)),
    # a list of columns of one length is read as R's data frame is (it is one)
    ("list-of-columns-is-a-data-frame", lambda r: es.dispersion(
        r("rows$x"), r("list(g = rows$g, h = rep(1:2, 15))")).W,
     lambda r: pytest.approx(r("disco(rows$x, data.frame(g = factor(rows$g), "
                               "h = factor(rep(1:2, 15))), R = 0)$within")[0], rel=1e-12)),
    ("label-column-by-name", lambda r: _statistic(r("coded"), "g"),
     lambda r: _statistic(np.asarray(r("as.matrix(coded[, 1:2])")), np.repeat([1, 2, 3], 10))),
]


@pytest.mark.r
@pytest.mark.parametrize("call, expected", [c[1:] for c in R_AS_IT_COMES],
                         ids=[c[0] for c in R_AS_IT_COMES])
def test_rs_data_as_they_come_through_rpy2(r, call, expected):
    assert call(r) == expected(r)


R_REFUSED = [
    ("character-NA-raise", lambda r: es.energy_test(r("rows$x"), r("regions")), ValueError,
     r"^`labels` contains missing values \(R's NA\) in 10 of 30 row\(s\): pass nan_policy="),
    ("pairwise_dcor-integer-NA-raise", lambda r: es.pairwise_dcor(r("airquality[, 1:4]")),
     ValueError, r"^`X` contains missing values \(R's NA\) in 42 of 153 row\(s\)"),
    *[(f"{column}-column", (lambda frame: lambda r: es.energy_test(r(frame), r("rows$g")))(frame),
       TypeError, rf"^`X` has a column '{column}' of dates, times or durations, whose distances "
       rf"depend on their unit: drop it \(X\.drop\(columns=\[\"{column}\"\]\)")
      for frame, column in [("dated", "when"), ("timed", "at"), ("lagged", "lag")]],
    ("POSIXlt-as-data", lambda r: es.dcor(r("as.POSIXlt(timed$at)"), r("rows$y")), TypeError,
     r"^`x` holds dates, times or durations"),
    ("Date-vector-as-data", lambda r: es.normal_statistic(r("dated$when")), TypeError,
     r"^`x` holds dates, times or durations"),
    ("character-matrix-of-letters-as-data",
     lambda r: es.energy_test(r("letters3"), np.repeat([0, 1], [7, 8])), ValueError,
     r"^`X` must hold numbers only"),
    ("repeated-names-in-pairwise_dcor", lambda r: es.pairwise_dcor(r("twice")), ValueError,
     r"^`X` has duplicate column names \('a'\)"),
    # R objects that are no data (issue 48, item 2: an object read as a scalar): named, with
    # the fix; bit64's integer64 holds its integers in a double's bits
    *[(f"{cls}-as-data", (lambda code: lambda r: es.energy_hclust(r(code)))(code), TypeError,
       rf"^`X` is an R object of class {cls}, which energystats does not read as data: pass a "
       r"numeric vector or matrix, a data frame, a factor or a dist object")
      for cls, code in [("list", "list(a = 1:5, b = 1:3)"), ("environment", "new.env()"),
                        ("formula", "y ~ x"), ("NULL", "NULL"),
                        ("integer64", "structure(as.numeric(1:30), class = 'integer64')")]],
    ("label-column-left-in-as-a-Series",
     lambda r: (lambda frame: es.energy_test(frame, frame["g"]))(from_r(r("coded"))), ValueError,
     r"^`labels` holds the groups of the column 'g' of `X`"),
]


@pytest.mark.r
@pytest.mark.parametrize("call, error, match", [c[1:] for c in R_REFUSED],
                         ids=[c[0] for c in R_REFUSED])
def test_rs_data_that_cannot_be_used_are_refused_naming_the_argument(r, call, error, match):
    with pytest.raises(error, match=match):
        call(r)


@pytest.mark.r
def test_a_label_column_left_in_an_r_data_frame_warns(r):
    """An R vector has no name: the values say it is the column `g` of the data frame."""
    with pytest.warns(UserWarning, match=r"^`labels` holds the groups of the column 'g' of `X`.*"
                                         r"Pass the column's name, `labels`='g'"):
        es.energy_test(r("coded"), r("coded$g"), n_resamples=9, rng=0)


# ---------------------------------------------------------------------------------------------
# The fourth probe (issue 48): R's data through rpy2 without rpy2's warnings, R's numbers as
# reticulate hands them over (3 for 3L), R's pairing by position.
# ---------------------------------------------------------------------------------------------


@pytest.mark.r
def test_rpy2_factors_are_read_without_rpy2s_deprecation_warning(r):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        res = es.dispersion(r("rows$x"), r("dose"))
    assert res.groups.tolist() == ["lo", "mid", "hi"]


def _from_r(function, *args, **kwargs):
    from test_r_na import from_r_session

    return from_r_session(function, *args, **kwargs)


def test_whole_numbers_from_r_are_counts_and_seeds():
    """R writes 3 for 3L and reticulate hands it over as 3.0: in a call made from R a whole
    float is an int for every option whose default is not a float (issue 48, item 6); from
    Python, 1.0 stays a float (a seed is an integer, as numpy's default_rng says)."""
    X = TABLE.to_numpy()
    fit = _from_r(es.KGroups, 3.0, random_state=0.0, n_init=2.0)
    assert (fit.n_clusters, fit.random_state, fit.n_init) == (3, 0, 2)
    assert fit.fit(X).labels_.tolist() == es.KGroups(3, random_state=0, n_init=2).fit(
        X).labels_.tolist()
    test = _from_r(es.dcor_test, X[:, 0], X[:, 1], rng=1.0, n_resamples=99.0, n_jobs=-1.0)
    assert test.pvalue == es.dcor_test(X[:, 0], X[:, 1], rng=1, n_resamples=99).pvalue
    # a float option stays a float, a fraction is refused as before
    assert _from_r(es.dcor, X[:, 0], X[:, 1], exponent=1.0) == es.dcor(X[:, 0], X[:, 1])
    with pytest.raises(TypeError, match=r"^`rng` must be None, a non-negative integer"):
        es.dcor_test(X[:, 0], X[:, 1], rng=1.0)
    with pytest.raises(TypeError, match=r"^`rng` must be None"):
        _from_r(es.dcor_test, X[:, 0], X[:, 1], rng=1.5)


def test_an_r_list_through_reticulate_is_a_table_of_columns():
    """reticulate hands a named R list over as a dict and an unnamed one as a list of lists:
    both are columns, as R's data frame (a list) is; from Python a list of lists is rows."""
    a, b = TABLE["a"].tolist(), TABLE["b"].tolist()
    columns = es.energy_hclust(TABLE[["a", "b"]].to_numpy()).height
    np.testing.assert_array_equal(_from_r(es.energy_hclust, [a, b]).height, columns)
    np.testing.assert_array_equal(_from_r(es.energy_hclust, {"a": a, "b": b}).height, columns)
    with pytest.warns(UserWarning, match="more variables"):
        assert es.energy_hclust([a, b]).n_samples == 2  # rows, from Python


def test_r_data_frames_pair_rows_by_position_as_r_does():
    """reticulate hands an R data frame over with its row names as the index; R pairs rows by
    position, and so does a call made from R, where from Python the indexes align."""
    frame = TABLE.set_axis([f"r{i}" for i in range(N)])
    backwards = frame.iloc[::-1]
    from_r = _from_r(es.dcor, backwards[["a"]], frame[["b"]])
    assert from_r == es.dcor(backwards[["a"]].to_numpy(), frame[["b"]].to_numpy())
    assert es.dcor(backwards[["a"]], frame[["b"]]) == pytest.approx(
        es.dcor(frame[["a"]].to_numpy(), frame[["b"]].to_numpy()), rel=1e-12)
