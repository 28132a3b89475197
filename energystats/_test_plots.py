"""Plots of test results: the null or reference distribution with the observed statistic and
its p-value, and the goodness-of-fit picture (re-exported by :mod:`energystats.plotting`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._cluster import (
    ChooseKResult,
    ClusterTestResult,
    DipTestResult,
    SignificantClustersResult,
    ThinnedComparisonResult,
)
from ._frontdoor import front_door
from ._gof import EnergyGofResult, NormalityTestResult, NormalTestResult, PoissonTestResult
from ._gof._limit import normal_limit_pdf
from ._homogeneity import DispersionResult, EnergyTestResult
from ._independence import IndependenceTestResult, PairwiseDcorResult

__all__ = ["axes_of", "data_name", "plot_gof", "plot_null_distribution", "titled"]


def axes_of(ax):
    """``ax``, or the axes of a new figure when None (matplotlib imported here: an optional extra)."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ImportError("plotting needs matplotlib: pip install 'pyenergystats[plot]'") from None
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    return ax


def titled(name: str, data: str | None) -> str:
    """A title naming the test or method and, when known, the data (R's "data:" line)."""
    return name if not data else f"{name}\ndata: {data}"


def data_name(result) -> str | None:
    """R's ``data.name`` of the result (``data_name``), where the result type has it."""
    return getattr(result, "data_name", None)


# --- null and reference distributions -------------------------------------------------


@dataclass(frozen=True)
class _Panel:
    """What one panel of :func:`plot_null_distribution` draws: the observed statistic and
    its p-value against a resampled null (``null``) or a reference density (``reference``,
    with ``pdf``, drawn over ``support`` widened to the statistic)."""

    test: str
    statistic_label: str
    statistic: float
    pvalue: float
    null_label: str
    null: np.ndarray | None = None
    reference: object = None
    support: tuple[float, float] | None = None


class _NormalLimit:
    """The limit distribution of ``normal_test(method="limit")``: its density over (0, 2.5],
    beyond which it holds less than 1e-5."""

    pdf = staticmethod(normal_limit_pdf)


_ENERGY_STATISTICS = {
    "S": "between-sample energy S",
    "E": "sum of pairwise two-sample energy statistics",
    "F": "DISCO F ratio",
}
_INDEPENDENCE = {  # R's statistic name -> (test, axis label)
    "nV^2": ("distance covariance test of independence", "n V\u00b2 (distance covariance statistic)"),
    "dCor": ("distance correlation test of independence", "distance correlation dCor"),
    "T": ("distance correlation t-test of independence", "T (t statistic of the bias-corrected dCor\u00b2)"),
    "Sum(R*)": ("energy test of mutual independence", "sum of bias-corrected dCor\u00b2"),
    "n I^2": ("test of independence by the coefficient I", "n I\u00b2"),
    "n pdcov": ("partial distance covariance test", "n pdCov"),
    "pdcor": ("partial distance correlation test", "partial distance correlation pdCor"),
}
_POISSON = {"M-CvM": "mean distance Cramér-von Mises statistic", "M-AD": "mean distance Anderson-Darling statistic", "E": "energy statistic"}


def _permutations(result, unit: str) -> str:
    if getattr(result, "exact", False):
        return f"exact permutation null (all {result.n_resamples:,} {unit})"
    return f"permutation null ({result.n_resamples:,} {unit})"


def _energy_panels(result: EnergyTestResult, test: str | None = None) -> list[_Panel]:
    name = test or f"{len(result.sizes)}-sample energy test of equal distributions"
    return [_Panel(name, _ENERGY_STATISTICS[result.statistic_name], result.statistic, result.pvalue,
                   _permutations(result, "relabelings"), null=result.null_distribution)]


def _independence_panels(result: IndependenceTestResult) -> list[_Panel]:
    test, label = _INDEPENDENCE.get(result.statistic_name, ("test of independence", result.statistic_name))
    if result.null_distribution is not None:
        return [_Panel(test, label, result.statistic, result.pvalue, _permutations(result, "permutations"),
                       null=result.null_distribution)]
    reference = getattr(result, "reference_distribution", None)
    if reference is None:
        raise ValueError("`result`'s null distribution is a point mass (every permutation gives the same statistic, "
                         "p = 1): there is no distribution to draw.")
    if result.method == "t":
        null_label = f"Student t, {result.df:g} df"
    else:
        null_label = "gamma approximation of the null"
    support = (float(reference.ppf(0.0005)), float(reference.ppf(0.9995)))
    return [_Panel(test, label, result.statistic, result.pvalue, null_label, reference=reference, support=support)]


def _normal_panels(result: NormalTestResult) -> list[_Panel]:
    test, label = "energy test of normality", "energy statistic n E\u2099"
    if result.method == "limit":
        return [_Panel(test, label, result.statistic, result.pvalue, "limit distribution \u03a3 \u03bb\u2096 Z\u2096\u00b2",
                       reference=_NormalLimit(), support=(0.0, 2.5))]
    return [_Panel(test, label, result.statistic, result.pvalue,
                   f"parametric bootstrap ({result.n_resamples:,} normal samples)", null=result.null_distribution)]


def _normality_panels(result: NormalityTestResult) -> list[_Panel]:
    return [_Panel(f"energy test of {result.n_features}-variate normality", "energy statistic n E\u2099", result.statistic,
                   result.pvalue, f"parametric bootstrap ({result.n_resamples:,} normal samples)", null=result.null_distribution)]


def _poisson_panels(result: PoissonTestResult) -> list[_Panel]:
    null = np.asarray(result.null_distribution, dtype=float).reshape(-1, len(result.tests))
    return [
        _Panel(f"Poisson goodness-of-fit: {name} test", _POISSON[name], float(t), float(p),
               f"parametric bootstrap ({result.n_resamples:,} Poisson samples)", null=null[:, k])
        for k, (name, t, p) in enumerate(zip(result.tests, np.atleast_1d(result.statistic), np.atleast_1d(result.pvalue)))
    ]


def _gof_panels(result: EnergyGofResult) -> list[_Panel]:
    kind = "parametric bootstrap" if result.estimated else "Monte Carlo"
    return [_Panel(f"energy goodness-of-fit test of {result.distribution}", "energy statistic Q\u2099", result.statistic,
                   result.pvalue, f"{kind} ({result.n_resamples:,} samples of {result.distribution})", null=result.null_distribution)]


def _dip_panels(result: DipTestResult) -> list[_Panel]:
    return [_Panel("Hartigan's dip test of unimodality", "dip", result.statistic, result.pvalue,
                   f"dip of {result.n_resamples:,} uniform samples", null=result.null_distribution)]


def _cluster_panels(result: ClusterTestResult) -> list[_Panel]:
    return [_Panel(f"test of {result.n_clusters} clusters against one Gaussian", "S / T (share of the energy between clusters)",
                   result.statistic, result.pvalue, f"{result.n_resamples:,} Gaussian samples", null=result.null_distribution)]


def _thinned_panels(result: ThinnedComparisonResult) -> list[_Panel]:
    return _energy_panels(result.test, f"{result.n_clusters} clusters found on one thinned part, tested on the other")


#: Every test result type and how its null or reference distribution is drawn.
_PANELS = {
    EnergyTestResult: _energy_panels,
    IndependenceTestResult: _independence_panels,
    NormalTestResult: _normal_panels,
    NormalityTestResult: _normality_panels,
    PoissonTestResult: _poisson_panels,
    EnergyGofResult: _gof_panels,
    DipTestResult: _dip_panels,
    ClusterTestResult: _cluster_panels,
    ThinnedComparisonResult: _thinned_panels,
}
#: Results that hold many tests or none, and the plot that draws them.
_NOT_ONE_TEST = {
    PairwiseDcorResult: "holds one test per pair of variables: plot_dcor_matrix draws them",
    SignificantClustersResult: "holds one cluster test per node of the tree: plot_dendrogram draws the tree",
    ChooseKResult: "holds one test per split: plot_choose_k draws the decision",
    DispersionResult: "is a decomposition, not a test: energy_test gives the permutation null of S",
}


def _panels(result) -> list[_Panel]:
    kind = type(result)
    if kind in _NOT_ONE_TEST:
        raise TypeError(f"`result` ({kind.__name__}) {_NOT_ONE_TEST[kind]}.")
    if kind not in _PANELS:
        supported = ", ".join(sorted(t.__name__ for t in _PANELS))
        raise TypeError(f"`result` must be the result of a test ({supported}), got {kind.__name__}.")
    return _PANELS[kind](result)


def _draw_panel(ax, panel: _Panel, bins) -> None:
    observed = panel.statistic
    if panel.null is not None:
        draws = np.asarray(panel.null, dtype=float)
        edges = np.histogram_bin_edges(draws, bins=bins)  # the null's range: the statistic may lie far beyond it
        ax.hist(draws, bins=edges, density=True, color="0.75", label=panel.null_label)
        tail = draws[draws >= observed]
        if tail.size:  # the null values counted in the p-value, on the same scale
            ax.hist(tail, bins=edges, weights=np.full(tail.size, 1.0 / (draws.size * np.diff(edges)[0])), color="C3",
                    alpha=0.45, label="null values as large as observed")
    else:
        low, high = panel.support
        if np.isfinite(observed):
            width = max(high, observed) - min(low, observed)
            low, high = min(low, observed - 0.05 * width), max(high, observed + 0.05 * width)
        grid = np.linspace(low, high, 400)
        density = panel.reference.pdf(grid)
        ax.plot(grid, density, color="0.3", lw=1.5, label=panel.null_label)
        if np.isfinite(observed):
            tail = grid >= observed
            ax.fill_between(grid[tail], density[tail], color="C3", alpha=0.35, label="tail area: the p-value")
    shown = observed if np.isfinite(observed) else ax.get_xlim()[1]
    ax.axvline(shown, color="C3", lw=2, label=f"observed {observed:.4g} (p = {panel.pvalue:.3g})")
    ax.set_xlabel(panel.statistic_label)
    ax.set_ylabel("density")
    ax.set_ylim(0.0, 1.3 * ax.get_ylim()[1])  # room for the legend above the bars or the curve
    ax.legend(fontsize="small", framealpha=0.9, edgecolor="none")


@front_door()
def plot_null_distribution(result, ax=None, *, test=None, bins=40):
    """The null distribution of a test with the observed statistic and its p-value marked.

    Every test result: the histogram of the permutation, Monte Carlo or bootstrap null where
    the test drew one (the null values as large as the statistic, which the p-value counts,
    in red); the density of the reference distribution where it did not: the gamma
    approximation of ``dcov_test`` / ``dcor_test(method="gamma")``, the Student t of
    :func:`dcor_ttest` (``reference_distribution``), the limit distribution of
    ``normal_test(method="limit")`` (its upper tail, the p-value, shaded). The title names
    the test and the data (``data_name``).

    Parameters
    ----------
    result : test result
        Of :func:`energy_test`, :func:`dcov_test`, :func:`dcor_test`, :func:`dcor_ttest`,
        :func:`pdcov_test`, :func:`pdcor_test`, :func:`mvi_test`,
        :func:`mutual_independence_test`, :func:`normal_test`, :func:`mvnorm_test`,
        :func:`poisson_test`, :func:`energy_gof`, :func:`dip_test`, :func:`cluster_test`
        or :func:`thinned_cluster_comparison` (its energy test on the held-out part).
    ax : matplotlib Axes, or a sequence of them, default=None
        Where to draw; one per test for a :class:`PoissonTestResult` of several tests
        (a new figure with a row of panels when None).
    test : str, default=None
        For a :class:`PoissonTestResult`: draw this test only (``"M-CvM"``, ``"M-AD"``, ``"E"``).
    bins : int or str, default=40
        Bins of the histogram (``numpy.histogram_bin_edges``).

    Returns
    -------
    matplotlib Axes, or an array of them (one per test) for several Poisson tests.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, energystats as es
    >>> from energystats.plotting import plot_null_distribution
    >>> x = np.random.default_rng(0).normal(size=(60, 2))
    >>> ax = plot_null_distribution(es.dcov_test(x[:, 0], x[:, 1], method="gamma"))
    >>> ax.get_title(), ax.get_xlabel()
    ('distance covariance test of independence\\ndata: x and y', 'n V² (distance covariance statistic)')
    """
    panels = _panels(result)
    if test is not None:
        tests = list(getattr(result, "tests", ()))
        if test not in tests:
            raise ValueError(f"`test` selects one test of a PoissonTestResult ({', '.join(map(repr, tests)) or 'none here'}), got {test!r}.")
        panels = [panels[tests.index(test)]]
    title = data_name(result)
    if len(panels) == 1:
        ax = axes_of(ax)
        _draw_panel(ax, panels[0], bins)
        ax.set_title(titled(panels[0].test, title))
        return ax
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 4), layout="constrained")
    axes = np.asarray(ax, dtype=object).ravel()
    if axes.size != len(panels):
        raise ValueError(f"`ax` must hold one Axes per test ({len(panels)}: {', '.join(result.tests)}), got {axes.size}; "
                         "or select one with `test`.")
    for a, panel, name in zip(axes, panels, result.tests):
        _draw_panel(a, panel, bins)
        a.set_title(f"{name} test")
    axes[0].figure.suptitle(titled("Poisson goodness-of-fit tests", title))
    return axes


# --- goodness of fit ------------------------------------------------------------------


def _sample(x, result) -> tuple[np.ndarray, str]:
    """The values of ``x`` without missing ones and their name, checked against ``result``."""
    if hasattr(x, "columns"):
        if x.shape[1] != 1:
            raise ValueError(f"`x` must be the one column the test was run on, got {x.shape[1]} columns.")
        name = str(x.columns[0])
    else:
        name = str(x.name) if getattr(x, "name", None) is not None else (data_name(result) or "x")
    try:
        sample = np.asarray(x.to_numpy(dtype=float, na_value=np.nan) if hasattr(x, "to_numpy") else x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("`x` must be an array of numbers, the data the test was run on.") from None
    if sample.ndim > 1 and sample.shape[1:] != (1,) * (sample.ndim - 1):
        raise ValueError(f"`x` must be one-dimensional, the data the test was run on, got shape {sample.shape}.")
    sample = sample.ravel()
    sample = sample[~np.isnan(sample)]
    if sample.size != result.n_samples:
        raise ValueError(f"`x` has {sample.size} values without missing ones, `result` was computed on {result.n_samples}: "
                         "pass the data the test was run on.")
    return sample, name


def _fitted(result, values: np.ndarray):
    """(fitted frozen distribution, its label, the test's name) of a goodness-of-fit result."""
    if isinstance(result, NormalTestResult):
        if not np.isclose(values.mean(), result.mean, rtol=1e-9, atol=1e-12 * (1 + abs(result.mean))):
            raise ValueError(f"`x` has mean {values.mean():.6g}, `result` estimated {result.mean:.6g}: pass the data the test was run on.")
        return stats.norm(result.mean, result.sd), f"N({result.mean:.4g}, {result.sd:.4g}\u00b2)", "energy test of normality"
    if isinstance(result, EnergyGofResult):
        params = ", ".join(f"{name}={value:.4g}" for name, value in result.params.items())
        return getattr(stats, result.distribution)(**result.params), f"{result.distribution}({params})", \
            f"energy goodness-of-fit test of {result.distribution}"
    if not np.isclose(values.mean(), result.estimate, rtol=1e-12):
        raise ValueError(f"`x` has mean {values.mean():.6g}, `result` estimated {result.estimate:.6g}: pass the data the test was run on.")
    return stats.poisson(result.estimate), f"Poisson({result.estimate:.4g})", "Poisson goodness-of-fit tests"


@front_door()
def plot_gof(x, result, axes=None):
    """The data against the fitted distribution of a goodness-of-fit test, side by side.

    For :func:`normal_test` (the normal with the estimated mean and sd) and
    :func:`energy_gof` (the distribution with its given or estimated parameters): a QQ plot
    (the sorted data against the fitted quantiles at (i - 1/2)/n, with the line y = x) and
    the empirical distribution function against the fitted cdf. For :func:`poisson_test`
    (counts, Poisson with the estimated mean): the observed relative frequency of each count
    against the fitted Poisson probability, and the empirical distribution function's steps
    against the Poisson cdf's. The figure's title names the test, its p-value and the data.

    The results do not keep the data, so the data come first, as the test took them.

    Parameters
    ----------
    x : array_like of shape (n,), Series or one-column DataFrame
        The data the test was run on (missing values are dropped, as ``nan_policy="omit"``
        did); a Series' or column's name labels the axes.
    result : NormalTestResult, EnergyGofResult or PoissonTestResult
    axes : pair of matplotlib Axes, default=None
        Where to draw (a new figure of two panels when None).

    Returns
    -------
    ndarray of two matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import energystats as es
    >>> from energystats.plotting import plot_gof
    >>> x = es.datasets.load_iris()["Sepal.Length"][:50]
    >>> qq, ecdf = plot_gof(x, es.normal_test(x, n_resamples=199, rng=0))
    >>> qq.get_ylabel(), ecdf.get_xlabel()
    ('sample quantiles of Sepal.Length', 'Sepal.Length')
    """
    if not isinstance(result, (NormalTestResult, EnergyGofResult, PoissonTestResult)):
        raise TypeError(f"`result` must be a NormalTestResult, EnergyGofResult or PoissonTestResult, got {type(result).__name__}.")
    values, name = _sample(x, result)
    dist, label, test = _fitted(result, values)
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    axes = np.asarray(axes, dtype=object).ravel()
    if axes.size != 2:
        raise ValueError(f"`axes` must be two Axes (the two panels), got {axes.size}.")
    left, right = axes
    n = values.size
    sorted_values = np.sort(values)
    if isinstance(result, PoissonTestResult):
        counts = np.arange(0, int(max(sorted_values[-1], dist.ppf(0.999))) + 1)
        observed = np.bincount(sorted_values.astype(np.int64), minlength=counts.size)[: counts.size] / n
        left.bar(counts, observed, width=0.8, color="0.75", label="observed relative frequency")
        left.plot(counts, dist.pmf(counts), "o-", color="C3", lw=1, ms=4, label=f"fitted {label}")
        left.set_xlabel(name)
        left.set_ylabel("probability")
        left.set_title("observed and fitted probabilities")
        steps = np.r_[counts, counts[-1] + 1]
        right.step(steps, np.searchsorted(sorted_values, steps, side="right") / n, where="post", color="0.2", label="empirical")
        right.step(steps, dist.cdf(steps), where="post", color="C3", ls="--", label=f"fitted {label}")
        pvalues = ", ".join(f"{p:.3g} ({t})" for t, p in zip(result.tests, np.atleast_1d(result.pvalue)))
        summary = f"{test}: p = {pvalues}"
    else:
        theoretical = dist.ppf((np.arange(1, n + 1) - 0.5) / n)
        left.plot(theoretical, sorted_values, "o", ms=3.5, color="0.2", label="data")
        ends = [min(theoretical[0], sorted_values[0]), max(theoretical[-1], sorted_values[-1])]
        left.plot(ends, ends, color="C3", lw=1, label="y = x")
        left.set_xlabel(f"quantiles of the fitted {label}")
        left.set_ylabel(f"sample quantiles of {name}")
        left.set_title("QQ plot")
        grid = np.linspace(*dist.ppf([0.001, 0.999]), 400)
        grid = np.linspace(min(grid[0], sorted_values[0]), max(grid[-1], sorted_values[-1]), 400)
        right.step(np.r_[sorted_values[0], sorted_values], np.arange(n + 1) / n, where="post", color="0.2", label="empirical")
        right.plot(grid, dist.cdf(grid), color="C3", ls="--", label=f"fitted {label}")
        summary = f"{test}: p = {result.pvalue:.3g}"
    right.set_xlabel(name)
    right.set_ylabel("cumulative probability")
    right.set_title("empirical and fitted distribution functions")
    for a in axes:
        a.legend(frameon=False, fontsize="small")
    left.figure.suptitle(titled(summary, data_name(result) or name))
    return axes
