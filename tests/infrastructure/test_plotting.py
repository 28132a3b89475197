"""Plotting helpers (energystats.plotting): labels from the data, titles naming the test and the
data, the observed statistic and the p-value of every test result marked where they are, each
drawn from what the result says it is (its null panels, its fitted distribution)."""

import dataclasses

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from scipy import stats  # noqa: E402
from scipy.integrate import trapezoid  # noqa: E402

import energystats as es  # noqa: E402
from energystats._gof._limit import normal_limit_pdf, normal_limit_sf, normal_trace  # noqa: E402
from energystats._results import NullPanel, TestResult  # noqa: E402
from energystats.plotting import (  # noqa: E402
    plot_choose_k,
    plot_clusters,
    plot_dcor_matrix,
    plot_dendrogram,
    plot_gof,
    plot_null_distribution,
    plot_w_curve,
)
from tests._declared import result_factories  # noqa: E402

DATA_NAME = "mag and stations"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _named(result):
    """The result as the results helper fills it: with R's ``data.name`` (set here, whether or
    not the result type has the field yet)."""
    object.__setattr__(result, "data_name", DATA_NAME)
    return result


def _xy(rng, n=40):
    x = rng.normal(size=n)
    return x, x**2 + rng.normal(size=n)


def _blobs(rng, n=30):
    return np.vstack([rng.normal(c, 1.0, size=(n, 2)) for c in ([0, 0], [6, 0])])


# Every test result: (the call, the type it returns, the test name the title carries, the kind of
# null: "null" a resampled one, "reference" a density).
CASES = {
    "energy_test": (
        lambda r: es.energy_test(_blobs(r), np.repeat([0, 1], 30), n_resamples=49, rng=0),
        "EnergyTestResult", "2-sample energy test of equal distributions", "null",
    ),
    "energy_test-F": (
        lambda r: es.energy_test_samples(
            r.normal(size=(20, 2)), r.normal(size=(15, 2)), r.normal(size=(10, 2)), statistic="F",
            n_resamples=49, rng=0,
        ),
        "EnergyTestResult",
        "3-sample energy test of equal distributions",
        "null",
    ),
    "dcov_test": (
        lambda r: es.dcov_test(*_xy(r), n_resamples=49, rng=0), "IndependenceTestResult",
        "distance covariance test of independence", "null",
    ),
    "dcov_test-exact": (
        lambda r: es.dcov_test(*_xy(r, 5)), "IndependenceTestResult",
        "distance covariance test of independence", "null",
    ),
    "dcov_test-gamma": (
        lambda r: es.dcov_test(*_xy(r), method="gamma"), "IndependenceTestResult",
        "distance covariance test of independence", "reference",
    ),
    "dcor_test-gamma": (
        lambda r: es.dcor_test(*_xy(r), method="gamma"), "IndependenceTestResult",
        "distance correlation test of independence", "reference",
    ),
    "dcor_test-projection-gamma": (
        lambda r: es.dcor_test(
            *_xy(r, 60), method="gamma", approximation="projection", n_projections=20, rng=0
        ),
        "IndependenceTestResult",
        "distance correlation test of independence",
        "reference",
    ),
    "dcov_test-projection-gamma": (
        lambda r: es.dcov_test(
            *_xy(r, 60), method="gamma", approximation="projection", n_projections=20, rng=0
        ),
        "IndependenceTestResult",
        "distance covariance test of independence",
        "reference",
    ),
    "dcor_ttest": (
        lambda r: es.dcor_ttest(r.normal(size=(30, 20)), r.normal(size=(30, 3))),
        "IndependenceTestResult", "distance correlation t-test of independence", "reference",
    ),
    "pdcor_test": (
        lambda r: es.pdcor_test(*_xy(r), r.normal(size=40), n_resamples=49, rng=0),
        "IndependenceTestResult", "partial distance correlation test", "null",
    ),
    "pdcov_test": (
        lambda r: es.pdcov_test(*_xy(r), r.normal(size=40), n_resamples=49, rng=0),
        "IndependenceTestResult", "partial distance covariance test", "null",
    ),
    "mvi_test": (
        lambda r: es.mvi_test(*_xy(r, 15), n_resamples=49, rng=0), "IndependenceTestResult",
        "test of independence by the coefficient I", "null",
    ),
    "mutual_independence_test": (
        lambda r: es.mutual_independence_test(r.normal(size=(30, 3)), n_resamples=49, rng=0),
        "IndependenceTestResult", "energy test of mutual independence", "null",
    ),
    "normal_test": (
        lambda r: es.normal_test(r.normal(size=40), n_resamples=99, rng=0), "NormalTestResult",
        "energy test of normality", "null",
    ),
    "normal_test-limit": (
        lambda r: es.normal_test(r.normal(size=40), method="limit"), "NormalTestResult",
        "energy test of normality", "reference",
    ),
    "mvnorm_test": (
        lambda r: es.mvnorm_test(r.normal(size=(40, 3)), n_resamples=49, rng=0), "MvnormTestResult",
        "energy test of 3-variate normality", "null",
    ),
    "poisson_test-E": (
        lambda r: es.poisson_test(r.poisson(3.0, 40), statistic="E", n_resamples=49, rng=0),
        "PoissonTestResult", "Poisson goodness-of-fit tests: E test", "null",
    ),
    "energy_gof": (
        lambda r: es.energy_gof(
            r.exponential(size=40), stats.expon, known_params={"loc": 0}, n_resamples=49, rng=0
        ),
        "EnergyGofResult",
        "energy goodness-of-fit test of expon",
        "null",
    ),
    "dip_test": (
        lambda r: es.dip_test(r.normal(size=50), n_resamples=49, rng=0), "DipTestResult",
        "Hartigan's dip test of unimodality", "null",
    ),
    "cluster_test": (
        lambda r: es.cluster_test(_blobs(r), 2, n_resamples=19, rng=0), "ClusterTestResult",
        "test of 2 clusters against one Gaussian", "null",
    ),
    "thinned_cluster_comparison": (
        lambda r: es.thinned_cluster_comparison(_blobs(r), 2, cov=1.0, n_resamples=49, rng=0),
        "ThinnedComparisonResult", "2 clusters found on one thinned part, tested on the other",
        "null",
    ),
}
#: Results that are not one test, and the plot that draws them instead.
NOT_ONE_TEST = {
    "PairwiseDcorResult": "plot_dcor_matrix",
    "PairwiseEnergyTestsResult": "its table lists them",
    "SignificantClustersResult": "plot_dendrogram",
    "ChooseKResult": "plot_choose_k",
    "DispersionResult": "energy_test",
}
#: Results with no statistic and p-value: descriptive quantities and fits.
NOT_TESTS = {"DCovStatsResult", "EnergyHClustResult", "Split1DResult"}


#: Tests declared by their family's test module (tests/_declared.py), each drawn below.
DECLARED = {name: factory for name, (factory, kind) in result_factories().items()
            if kind == "test"}


def test_every_result_type_is_covered():
    """A new result type fails here until it is plotted (CASES, or declared by its family's
    tests) or said not to be a test."""
    results = {name for name in es.__all__ if name.endswith("Result")}
    covered = {case[1] for case in CASES.values()} | set(NOT_ONE_TEST) | NOT_TESTS | set(DECLARED)
    assert results == covered
    for name in results:
        one_test = name not in NOT_ONE_TEST and name not in NOT_TESTS
        assert issubclass(getattr(es, name), TestResult) == one_test


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_declared_tests_draw_their_null(name):
    ax = plot_null_distribution(DECLARED[name]())
    assert _observed_line(ax).get_xdata()[0] == DECLARED[name]().statistic


def _observed_line(ax):
    lines = [line for line in ax.get_lines() if line.get_label().startswith("observed")]
    assert len(lines) == 1
    return lines[0]


def _no_equation_numbers(*texts):
    assert not any("eq." in t or "eq " in t for t in texts), texts


@pytest.mark.parametrize("case", CASES)
def test_null_distribution_of_every_test(case, rng):
    call, type_name, test_name, kind = CASES[case]
    result = _named(call(rng))
    assert type(result).__name__ == type_name
    ax = plot_null_distribution(result)
    assert isinstance(ax, Axes)
    assert ax.get_title() == f"{test_name}\ndata: {DATA_NAME}"
    line = _observed_line(ax)
    # one Poisson test
    statistic, pvalue = (
        float(np.atleast_1d(result.statistic)[0]),
        float(np.atleast_1d(result.pvalue)[0]),
    )
    assert line.get_xdata()[0] == statistic
    assert f"p = {pvalue:.3g}" in line.get_label()
    assert ax.get_ylabel() == "density"
    _no_equation_numbers(
        ax.get_title(), ax.get_xlabel(), *[t.get_text() for t in ax.get_legend().get_texts()]
    )
    if kind == "null":
        null = (result.test if type_name == "ThinnedComparisonResult" else result).null_distribution
        null = np.asarray(null, dtype=float).ravel()
        grey, *red = ax.containers
        mass = sum(bar.get_height() * bar.get_width() for bar in grey)
        assert mass == pytest.approx(1.0, rel=1e-12)  # a density
        tail = sum(bar.get_height() * bar.get_width() for bar in red[0]) if red else 0.0
        # what the p-value counts
        assert tail == pytest.approx(np.mean(null >= statistic), rel=1e-12)
    else:
        curve = next(line for line in ax.get_lines() if not line.get_label().startswith("observed"))
        grid, density = curve.get_xdata(), curve.get_ydata()
        assert grid.min() <= result.statistic <= grid.max()
        reference = getattr(result, "reference_distribution", None)
        if reference is not None:
            np.testing.assert_allclose(density, reference.pdf(grid), rtol=1e-12)
        else:  # normal_test(method="limit")
            np.testing.assert_allclose(density, normal_limit_pdf(grid), rtol=1e-12)
        shaded = ax.collections[0].get_paths()[0].vertices
        tail = grid >= result.statistic
        assert shaded[:, 0].min() == pytest.approx(grid[tail][0])
        # the shaded area is the p-value, to the resolution of the grid
        assert trapezoid(density[tail], grid[tail]) == pytest.approx(result.pvalue, abs=0.02)


def test_the_reference_distribution_gives_the_p_value(rng):
    x, y = _xy(rng)
    for result in (
        es.dcov_test(x, y, method="gamma"), es.dcor_test(x, y, method="gamma"),
        es.dcov_test(x, y, method="gamma", approximation="projection", n_projections=20, rng=0),
        es.dcor_test(x, y, method="gamma", approximation="projection", n_projections=20, rng=0),
    ):
        assert float(result.reference_distribution.sf(result.statistic)) == pytest.approx(
            result.pvalue, rel=1e-10
        )
    ttest = es.dcor_ttest(x, y)
    assert ttest.reference_distribution.sf(ttest.statistic) == ttest.pvalue
    assert (ttest.reference_distribution.family, ttest.reference_distribution.shape) == (
        "t",
        ttest.df,
    )
    # compared by value
    assert es.dcov_test(x, y, method="gamma") == es.dcov_test(x, y, method="gamma")
    assert es.dcov_test(x, y, n_resamples=9, rng=0).reference_distribution is None


def test_square_root_distribution_of_dcor(rng):
    """dCor = sqrt(dCor^2): its pdf integrates to its cdf, and its quantiles are the roots."""
    x, y = _xy(rng)
    ref = es.dcor_test(x, y, method="gamma").reference_distribution
    a, b = ref.ppf(0.01), ref.ppf(0.99)
    grid = np.linspace(a, b, 20001)
    assert trapezoid(ref.pdf(grid), grid) == pytest.approx(0.98, abs=1e-6)
    assert ref.cdf(ref.ppf(0.3)) == pytest.approx(0.3, rel=1e-12)
    assert ref.sf(0.5) == pytest.approx(1.0 - ref.cdf(0.5), rel=1e-12)
    assert ref.cdf(-1.0) == 0.0 and ref.sf(-1.0) == 1.0 and ref.pdf(-1.0) == 0.0


def test_normal_limit_density():
    t = np.array([0.1, 0.3, 0.5, 1.0, 2.0])
    h, sf = 1e-3, normal_limit_sf
    # five points
    differences = np.array(
        [(sf(s - 2 * h) - 8 * sf(s - h) + 8 * sf(s + h) - sf(s + 2 * h)) / (-12 * h) for s in t]
    )
    np.testing.assert_allclose(normal_limit_pdf(t), differences, rtol=1e-6)
    grid = np.linspace(0.0, 6.0, 6001)
    density = normal_limit_pdf(grid)
    assert trapezoid(density, grid) == pytest.approx(1.0, abs=1e-6)
    # the mean is the trace
    assert trapezoid(grid * density, grid) == pytest.approx(normal_trace(), rel=1e-5)
    assert normal_limit_pdf(np.zeros((2, 3))).shape == (2, 3)


def test_poisson_tests_one_panel_each(rng):
    result = _named(es.poisson_test(rng.poisson(2.0, 40), n_resamples=49, rng=0))
    axes = plot_null_distribution(result)
    assert axes.shape == (3,)
    assert [a.get_title() for a in axes] == ["M-CvM test", "M-AD test", "E test"]
    assert axes[0].figure.get_suptitle() == f"Poisson goodness-of-fit tests\ndata: {DATA_NAME}"
    for a, t in zip(axes, result.statistic):
        assert _observed_line(a).get_xdata()[0] == t
    fig, given = plt.subplots(1, 3)
    assert plot_null_distribution(result, ax=given) is not None
    assert _observed_line(given[1]).get_xdata()[0] == result.statistic[1]
    one = plot_null_distribution(result, statistic="M-AD")
    assert isinstance(one, Axes) and _observed_line(one).get_xdata()[0] == result.statistic[1]
    with pytest.raises(
        ValueError,
        match=r"`ax` must hold one Axes per test \(3: M-CvM, M-AD, E\), got 1; or select one "
        r"with `statistic`",
    ):
        plot_null_distribution(result, ax=plt.subplots()[1])
    selects = r"`statistic` selects one of the result's statistics "
    with pytest.raises(ValueError, match=selects + r"\('M-CvM', 'M-AD', 'E'\), got 'X'"):
        plot_null_distribution(result, statistic="X")
    with pytest.raises(ValueError, match=selects + r"\(none here\), got 'E'"):
        plot_null_distribution(es.dip_test(rng.normal(size=20), n_resamples=9, rng=0),
                               statistic="E")


def test_results_that_are_not_one_test_are_refused(rng):
    X = _blobs(rng, 15)
    results = {
        "PairwiseDcorResult": es.pairwise_dcor(pd.DataFrame(X, columns=["a", "b"])),
        "PairwiseEnergyTestsResult": es.pairwise_energy_tests(X, np.arange(30) % 3,
                                                              n_resamples=9, rng=0),
        "SignificantClustersResult": es.significant_clusters(X, n_resamples=9, rng=0),
        "ChooseKResult": es.choose_k(X, k_max=2, n_resamples=9, n_references=0, rng=0),
        "DispersionResult": es.dispersion(X, np.repeat([0, 1], 15)),
    }
    for name, result in results.items():
        with pytest.raises(TypeError, match=rf"`result` \({name}\) .*{NOT_ONE_TEST[name]}"):
            plot_null_distribution(result)
    with pytest.raises(TypeError, match=r"`result` \(Split1DResult\) is not the result of a test"):
        plot_null_distribution(es.split_1d(X[:, 0]))


def test_a_new_test_result_brings_its_own_panel(rng):
    """No registry of types: a test result of a new kind is drawn as its _null_panels says."""

    class SignTestResult(TestResult):
        """A test this package does not have."""

        _title = "sign test"

        def _null_panels(self):
            density = stats.norm(10, np.sqrt(5)).pdf
            return (NullPanel("sign test of a zero median", "positive signs", self.statistic,
                              self.pvalue, "binomial(20, 1/2)", density=density,
                              support=(0.0, 20.0)),)

    result = SignTestResult(15.0, float(stats.binom(20, 0.5).sf(14)), None, None, data_name="x")
    statistic, pvalue = result
    ax = plot_null_distribution(result)
    assert ax.get_title() == "sign test of a zero median\ndata: x"
    assert ax.get_xlabel() == "positive signs"
    observed = _observed_line(ax)
    assert observed.get_xdata()[0] == statistic and f"p = {pvalue:.3g}" in observed.get_label()

    class PlainTestResult(TestResult):
        """A test that says no more than a base: its null drawn against its statistic."""

        _title = "plain test"
        _statistic_label = "T"
        _resamples = "draws"

    ax = plot_null_distribution(PlainTestResult(2.0, 0.5, np.array([0.0, 1.0, 3.0]), 3))
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert (ax.get_title(), ax.get_xlabel()) == ("plain test", "T") and "3 draws" in legend


def test_a_degenerate_gamma_null_is_refused():
    x = np.arange(10.0)
    result = es.dcov_test(x, np.ones(10), method="gamma")  # y constant: every permutation gives 0
    assert result.reference_distribution is None and result.pvalue == 1.0
    with pytest.raises(
        ValueError,
        match=r"`result`'s null distribution is a point mass \(every permutation gives the same "
        r"statistic",
    ):
        plot_null_distribution(result)


# --- goodness of fit --------------------------------------------------------------------


def test_gof_normal_qq_and_ecdf(rng):
    x = pd.Series(rng.normal(10.0, 2.0, size=50), name="Sepal.Length")
    result = es.normal_test(x, n_resamples=49, rng=0)
    axes = plot_gof(x, result)
    assert axes.shape == (2,) and all(isinstance(a, Axes) for a in axes)
    qq, ecdf = axes
    assert (
        qq.get_ylabel() == "sample quantiles of Sepal.Length"
        and ecdf.get_xlabel() == "Sepal.Length"
    )
    assert qq.get_xlabel() == f"quantiles of the fitted N({result.mean:.4g}, {result.sd:.4g}\u00b2)"
    fitted = stats.norm(result.mean, result.sd)
    points = qq.get_lines()[0]
    np.testing.assert_allclose(
        points.get_xdata(), fitted.ppf((np.arange(1, 51) - 0.5) / 50), rtol=1e-12
    )
    np.testing.assert_array_equal(points.get_ydata(), np.sort(x))
    empirical, curve = ecdf.get_lines()
    np.testing.assert_array_equal(empirical.get_ydata(), np.arange(51) / 50)
    np.testing.assert_allclose(curve.get_ydata(), fitted.cdf(curve.get_xdata()), rtol=1e-12)
    assert (
        qq.figure.get_suptitle()
        == f"energy test of normality: p = {result.pvalue:.3g}\ndata: Sepal.Length"
    )
    _no_equation_numbers(
        qq.figure.get_suptitle(), *(a.get_xlabel() + a.get_ylabel() + a.get_title() for a in axes)
    )
    # the result's data name wins over the Series' name
    assert plot_gof(x, _named(result))[0].figure.get_suptitle().endswith(f"data: {DATA_NAME}")


def test_gof_energy_gof_and_missing_values(rng):
    x = rng.weibull(1.5, size=40) * 2.0
    x[3] = np.nan
    frame = pd.DataFrame({"lifetime": x})
    result = es.energy_gof(
        frame, stats.weibull_min, known_params={"loc": 0}, n_resamples=49, rng=0, nan_policy="omit"
    )
    qq, ecdf = plot_gof(frame, result)
    fitted = stats.weibull_min(**result.params)
    np.testing.assert_allclose(
        qq.get_lines()[0].get_xdata(), fitted.ppf((np.arange(1, 40) - 0.5) / 39), rtol=1e-12
    )
    assert ecdf.get_xlabel() == "lifetime"
    assert qq.figure.get_suptitle().startswith(
        f"energy goodness-of-fit test of weibull_min: p = {result.pvalue:.3g}"
    )
    assert "c=" in qq.get_xlabel() and "scale=" in qq.get_xlabel()


def test_gof_poisson_probabilities_and_cdf(rng):
    counts = rng.poisson(3.0, size=60)
    result = _named(es.poisson_test(counts, n_resamples=49, rng=0))
    probabilities, ecdf = plot_gof(counts, result)
    bars = probabilities.containers[0]
    observed = np.bincount(counts, minlength=len(bars)) / 60
    np.testing.assert_array_equal([b.get_height() for b in bars], observed[: len(bars)])
    fitted = probabilities.get_lines()[0]
    np.testing.assert_allclose(
        fitted.get_ydata(), stats.poisson.pmf(fitted.get_xdata(), counts.mean()), rtol=1e-12
    )
    empirical, cdf = ecdf.get_lines()
    np.testing.assert_allclose(
        cdf.get_ydata(), stats.poisson.cdf(cdf.get_xdata(), counts.mean()), rtol=1e-12
    )
    np.testing.assert_array_equal(
        empirical.get_ydata(), [np.mean(counts <= k) for k in empirical.get_xdata()]
    )
    # no Series name: the data name
    assert probabilities.get_xlabel() == DATA_NAME and probabilities.get_ylabel() == "probability"
    unnamed = plot_gof(counts, es.poisson_test(counts, n_resamples=9, rng=0))[0]
    assert unnamed.get_xlabel() == "x"  # the parameter's name: the caller's variables are not read
    title = probabilities.figure.get_suptitle()
    assert (
        title.startswith("Poisson goodness-of-fit tests: p = ")
        and title.endswith(f"data: {DATA_NAME}")
    )
    assert all(f"({t})" in title for t in result.statistic_names)


def test_gof_refuses_other_results_and_data(rng):
    x = rng.normal(size=30)
    result = es.normal_test(x, method="limit")
    gof = r"`result` must be the result of a goodness-of-fit test "
    with pytest.raises(TypeError, match=gof + r"\(normal_test, mvnorm_test, energy_gof or "
                                              r"poisson_test\), got DipTestResult"):
        plot_gof(x, es.dip_test(x, n_resamples=9, rng=0))
    with pytest.raises(TypeError, match=r"goodness-of-fit test .*got DispersionResult"):
        plot_gof(x, es.dispersion(x, np.arange(30) % 2))
    with pytest.raises(
        ValueError,
        match=r"`x` has 29 values without missing ones, `result` was computed on 30: pass the data",
    ):
        plot_gof(x[1:], result)
    with pytest.raises(
        ValueError,
        match=r"`x` has mean .*, `result` estimated .*: pass the data the test was run on",
    ):
        plot_gof(x + 1.0, result)
    with pytest.raises(
        ValueError,
        match=r"`x` has mean .*, `result` estimated .*: pass the data the test was run on",
    ):
        plot_gof(np.arange(30) % 4, es.poisson_test(np.arange(30) % 3, n_resamples=9, rng=0))
    with pytest.raises(ValueError, match=r"`x` must be one-dimensional, the data the test was "
                                         r"run on, got shape \(30, 2\)"):
        plot_gof(pd.DataFrame({"a": x, "b": x}), result)
    with pytest.raises(
        ValueError,
        match=r"`x` must be one-dimensional, the data the test was run on, got shape \(15, 2\)",
    ):
        plot_gof(x.reshape(15, 2), result)
    with pytest.raises(
        ValueError, match=r"`x` must be an array of numbers, the data the test was run on"
    ):
        plot_gof(["a"] * 30, result)
    with pytest.raises(ValueError, match=r"`axes` must be two Axes \(the two panels\), got 3"):
        plot_gof(x, result, axes=plt.subplots(1, 3)[1])
    fig, given = plt.subplots(1, 2)
    assert list(plot_gof(x, result, axes=given)) == list(given)


def test_gof_mvnorm_mahalanobis_distances_against_their_beta_law(rng):
    """mvnorm_test's picture: the squared Mahalanobis distances D^2 of the rows against their
    exact law under normality, n D^2 / (n - 1)^2 ~ Beta(d/2, (n - d - 1)/2); their mean is
    d (n - 1) / n exactly (the trace of S^-1 S, summed over the rows)."""
    mixing = np.array([[2.0, 0, 0], [1, 1, 0], [0, 0.5, 3]])
    X = pd.DataFrame(rng.normal(size=(40, 3)) @ mixing, columns=["a", "b", "c"])
    X.iloc[5, 1] = np.nan
    result = es.mvnorm_test(X, n_resamples=19, rng=0, nan_policy="omit")
    qq, ecdf = plot_gof(X, result)
    complete = X.dropna().to_numpy()
    centred = complete - complete.mean(axis=0)
    brute = np.array([row @ np.linalg.inv(np.cov(complete, rowvar=False)) @ row for row in centred])
    points = qq.get_lines()[0]
    np.testing.assert_allclose(points.get_ydata(), np.sort(brute), rtol=1e-10)
    assert np.mean(brute) == pytest.approx(3 * 38 / 39, rel=1e-12)
    law = stats.beta(1.5, (39 - 4) / 2, scale=38**2 / 39)
    quantiles = law.ppf((np.arange(1, 40) - 0.5) / 39)
    np.testing.assert_allclose(points.get_xdata(), quantiles, rtol=1e-12)
    assert ecdf.get_xlabel() == "Mahalanobis D\u00b2"
    assert qq.get_xlabel() == "quantiles of the scaled Beta(1.5, 17.5) law of D\u00b2"
    title = f"energy test of 3-variate normality: p = {result.pvalue:.3g}\ndata: [a, b, c]"
    assert qq.figure.get_suptitle() == title
    with pytest.raises(ValueError, match=r"`x` must have the 3 columns the test was run on, "
                                         r"got shape \(40, 2\)"):
        plot_gof(X.iloc[:, :2], result)
    with pytest.raises(ValueError, match=r"`x` has 40 values without missing ones, `result` was "
                                         r"computed on 39"):
        plot_gof(X.fillna(0.0), result)


# --- clusters, curves, trees --------------------------------------------------------------


def test_clusters_take_their_labels_from_the_data(rng):
    frame = pd.DataFrame(rng.normal(size=(40, 3)), columns=["lat", "long", "depth"])
    labels = pd.Series(np.repeat(["a", "b"], 20), name="cluster of quakes")
    ax = plot_clusters(frame[["lat", "long"]], labels)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("lat", "long")
    assert ax.get_legend().get_title().get_text() == "cluster of quakes"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b"]
    ax = plot_clusters(frame.to_numpy(), labels.to_numpy(), columns=(2, -3))
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("column 2", "column 0")
    assert ax.get_legend().get_title().get_text() == "cluster"
    np.testing.assert_array_equal(ax.collections[0].get_offsets(), frame.to_numpy()[:20][:, [2, 0]])
    # names; a column of text left out
    ax = plot_clusters(frame.assign(name=["q"] * 40), labels, columns=("depth", "lat"))
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("depth", "lat")
    np.testing.assert_array_equal(ax.collections[1].get_offsets(), frame.to_numpy()[20:][:, [2, 0]])
    assert plot_clusters(frame, labels, columns=("long", -1)).get_ylabel() == "depth"  # name, index
    numbered = pd.DataFrame(frame.to_numpy(), columns=[10, 20, 30])
    # a label first, as X[30] reads it
    assert plot_clusters(numbered, labels, columns=(30, 0)).get_xlabel() == "30"
    with pytest.raises(ValueError, match=r"`columns` must be two names or indices of the columns "
                                         r"of `X` "
                                         r"\(lat, long, depth\), got \('lat', 'Lat'\)"):
        plot_clusters(frame, labels, columns=("lat", "Lat"))
    with pytest.raises(ValueError, match=r"`columns` must be two column indices of `X` "
                                         r"\(it has 3 columns\), got \(0, 3\)"):
        plot_clusters(frame.to_numpy(), labels, columns=(0, 3))
    with pytest.raises(ValueError, match="`X` needs at least two columns"):
        plot_clusters(frame[["lat"]], labels)
    with pytest.raises(ValueError, match="`labels` must have one entry per sample"):
        plot_clusters(frame, labels[:5])


def test_w_curve_marks_the_optimum(rng):
    res = _named(es.split_1d(np.r_[rng.normal(0, 1, 50), rng.normal(5, 1, 50)]))
    ax = plot_w_curve(res)
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), res.W_curve)
    assert ax.get_lines()[1].get_xdata()[0] == res.threshold
    assert ax.get_ylabel() == "within dispersion W"
    assert ax.get_title() == f"split into two groups at the threshold of least W\ndata: {DATA_NAME}"


def test_trees_matrices_and_k_carry_the_data_name(rng):
    X = _blobs(rng, 15)
    assert (
        plot_dendrogram(_named(es.energy_hclust(X))).get_title()
        == f"energy hierarchical clustering\ndata: {DATA_NAME}"
    )
    ax = plot_dendrogram(_named(es.significant_clusters(X, n_resamples=9, rng=0)))
    assert (
        ax.get_title()
        == f"significant splits of the energy dendrogram, \u03b1 = 0.05\ndata: {DATA_NAME}"
    )
    ax = plot_dcor_matrix(_named(es.pairwise_dcor(pd.DataFrame(X, columns=["a", "b"]))))
    assert (
        ax.get_title() == f"distance correlation (dots: independence rejected)\ndata: {DATA_NAME}"
    )
    ax = plot_choose_k(_named(es.choose_k(X, k_max=3, n_resamples=9, n_references=0, rng=0)))
    title = "choice of k: sequential k-means tests against uniform clusters"
    assert ax.get_title() == f"{title}\ndata: {DATA_NAME}"
    # the parameter's name
    assert (
        plot_dendrogram(es.energy_hclust(X)).get_title()
        == "energy hierarchical clustering\ndata: X"
    )
    assert (
        plot_dendrogram(dataclasses.replace(es.energy_hclust(X), data_name=None)).get_title()
        == "energy hierarchical clustering"
    )
