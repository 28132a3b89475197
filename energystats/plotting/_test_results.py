"""Plots of test results: the null or reference distribution with the observed statistic and
its p-value, and the goodness-of-fit picture (re-exported by :mod:`energystats.plotting`).

Neither keeps a list of result types: each asks the result what to draw
(:mod:`energystats._result_bases`): ``result._null_panels()`` the panels of
:func:`plot_null_distribution`, ``result._fit_panel(sample)`` the picture of
:func:`plot_gof`. A new test brings its own panels.
"""

from __future__ import annotations

import numpy as np

from .._frontdoor import front_door
from .._result_bases import FitPanel, NullPanel, Sample, TestResult

__all__ = ["axes_of", "data_name", "plot_gof", "plot_null_distribution", "titled"]


def axes_of(ax):
    """``ax``, or the axes of a new figure when None (matplotlib imported here: an optional
    extra)."""
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
    """R's ``data.name`` of the result (``data_name``); None for a plain table."""
    return getattr(result, "data_name", None)


# --- null and reference distributions -------------------------------------------------


def _draw_panel(ax, panel: NullPanel, bins) -> None:
    observed = panel.statistic
    if panel.null is not None:
        draws = np.asarray(panel.null, dtype=float)
        edges = np.histogram_bin_edges(
            draws, bins=bins
        )  # the null's range: the statistic may lie beyond it
        ax.hist(draws, bins=edges, density=True, color="0.75", label=panel.null_label)
        tail = draws[draws >= observed]
        if tail.size:  # the null values counted in the p-value, on the same scale
            weights = np.full(tail.size, 1.0 / (draws.size * np.diff(edges)[0]))
            ax.hist(
                tail,
                bins=edges,
                weights=weights,
                color="C3",
                alpha=0.45,
                label="null values as large as observed",
            )
    else:
        low, high = panel.support
        if np.isfinite(observed):
            width = max(high, observed) - min(low, observed)
            low, high = min(low, observed - 0.05 * width), max(high, observed + 0.05 * width)
        grid = np.linspace(low, high, 400)
        density = panel.density(grid)
        ax.plot(grid, density, color="0.3", lw=1.5, label=panel.null_label)
        if np.isfinite(observed):
            tail = grid >= observed
            ax.fill_between(
                grid[tail], density[tail], color="C3", alpha=0.35, label="tail area: the p-value"
            )
    shown = observed if np.isfinite(observed) else ax.get_xlim()[1]
    ax.axvline(shown, color="C3", lw=2, label=f"observed {observed:.4g} (p = {panel.pvalue:.3g})")
    ax.set_xlabel(panel.statistic_label)
    ax.set_ylabel("density")
    ax.set_ylim(0.0, 1.3 * ax.get_ylim()[1])  # room for the legend above the bars or the curve
    ax.legend(fontsize="small", framealpha=0.9, edgecolor="none")


def _panel_title(panel: NullPanel) -> str:
    return panel.test if panel.name is None else f"{panel.test}: {panel.name} test"


@front_door()
def plot_null_distribution(result, ax=None, *, test=None, bins=40):
    """The null distribution of a test with the observed statistic and its p-value marked.

    Every test result: the histogram of the permutation, Monte Carlo or bootstrap null where
    the test drew one (the null values as large as the statistic, which the p-value counts,
    in red); the density of the reference distribution where it did not: the gamma
    approximation of ``dcov_test`` / ``dcor_test(method="gamma")``, the Student t of
    :func:`dcor_ttest` (``reference_distribution``), the limit distribution of
    ``normal_test(method="limit")`` (its upper tail, the p-value, shaded). The title names
    the test and the data (``data_name``). The result says what to draw: a test result of
    another kind is drawn as it describes itself.

    Parameters
    ----------
    result : test result
        Of :func:`energy_test`, :func:`dcov_test`, :func:`dcor_test`, :func:`dcor_ttest`,
        :func:`pdcov_test`, :func:`pdcor_test`, :func:`mvi_test`,
        :func:`mutual_independence_test`, :func:`normal_test`, :func:`mvnorm_test`,
        :func:`poisson_test`, :func:`energy_gof`, :func:`dip_test`, :func:`cluster_test`
        or :func:`thinned_cluster_comparison` (its energy test on the held-out part).
    ax : matplotlib Axes, or a sequence of them, default=None
        Where to draw; one per test for a result of several tests (a
        :class:`PoissonTestResult`; a new figure with a row of panels when None).
    test : str, default=None
        For a result of several tests: draw this one only (``"M-CvM"``, ``"M-AD"`` or
        ``"E"`` of a :class:`PoissonTestResult`).
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
    >>> ax.get_title()
    'distance covariance test of independence\\ndata: x and y'
    >>> ax.get_xlabel()
    'n V² (distance covariance statistic)'
    """
    if not isinstance(result, TestResult):
        why = getattr(result, "_not_one_test", "is not the result of a test")
        raise TypeError(f"`result` ({type(result).__name__}) {why}.")
    panels = result._null_panels()
    if test is not None:
        names = [panel.name for panel in panels if panel.name is not None]
        if test not in names:
            listed = ", ".join(map(repr, names)) or "none here"
            raise ValueError(f"`test` selects one of the result's tests ({listed}), got {test!r}.")
        panels = tuple(panel for panel in panels if panel.name == test)
    title = data_name(result)
    if len(panels) == 1:
        ax = axes_of(ax)
        _draw_panel(ax, panels[0], bins)
        ax.set_title(titled(_panel_title(panels[0]), title))
        return ax
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 4), layout="constrained")
    axes = np.asarray(ax, dtype=object).ravel()
    names = ", ".join(panel.name for panel in panels)
    if axes.size != len(panels):
        raise ValueError(
            f"`ax` must hold one Axes per test ({len(panels)}: {names}), got {axes.size}; "
            "or select one with `test`."
        )
    for a, panel in zip(axes, panels):
        _draw_panel(a, panel, bins)
        a.set_title(f"{panel.name} test")
    axes[0].figure.suptitle(titled(panels[0].test, title))
    return axes


# --- goodness of fit ------------------------------------------------------------------


def _sample(x, result) -> Sample:
    """The rows of ``x`` without missing values, and their name (a column's or Series' name,
    else the result's data name)."""
    if hasattr(x, "columns"):
        name = str(x.columns[0]) if x.shape[1] == 1 else None
    else:
        name = str(x.name) if getattr(x, "name", None) is not None else None
    try:
        values = np.asarray(
            x.to_numpy(dtype=float, na_value=np.nan) if hasattr(x, "to_numpy") else x, dtype=float
        )
    except (TypeError, ValueError):
        raise ValueError("`x` must be an array of numbers, the data the test was run on.") from None
    if values.ndim == 0:
        raise ValueError(
            "`x` must be an array of numbers, the data the test was run on, got one number."
        )
    rows = values.reshape(values.shape[0], -1)
    rows = rows[~np.isnan(rows).any(axis=1)]
    return Sample(rows, values.shape, name or data_name(result) or "x")


@front_door()
def plot_gof(x, result, axes=None):
    """The data against the fitted distribution of a goodness-of-fit test, side by side.

    For :func:`normal_test` (the normal with the estimated mean and sd) and
    :func:`energy_gof` (the distribution with its given or estimated parameters): a QQ plot
    (the sorted data against the fitted quantiles at (i - 1/2)/n, with the line y = x) and
    the empirical distribution function against the fitted cdf. For :func:`mvnorm_test`: the
    same two panels for the squared Mahalanobis distances of the rows from their mean
    (covariance with n - 1), against their exact law under normality, n D^2 / (n - 1)^2 ~
    Beta(d / 2, (n - d - 1) / 2) (Gnanadesikan & Kettenring 1972). For :func:`poisson_test`
    (counts, Poisson with the estimated mean): the observed relative frequency of each count
    against the fitted Poisson probability, and the empirical distribution function's steps
    against the Poisson cdf's. The figure's title names the test, its p-value and the data.

    The results do not keep the data, so the data come first, as the test took them.

    Parameters
    ----------
    x : array_like of shape (n,) or (n, d), Series or DataFrame
        The data the test was run on (rows with a missing value are dropped, as
        ``nan_policy="omit"`` did); a Series' or one column's name labels the axes.
    result : NormalTestResult, MvnormTestResult, EnergyGofResult or PoissonTestResult
    axes : pair of matplotlib Axes, default=None
        Where to draw (a new figure of two panels when None).

    Returns
    -------
    ndarray of two matplotlib Axes

    References
    ----------
    R. Gnanadesikan and J. R. Kettenring, "Robust estimates, residuals, and outlier
    detection with multiresponse data", Biometrics 28 (1972).

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
    panel = result._fit_panel(_sample(x, result)) if isinstance(result, TestResult) else None
    if panel is None:
        raise TypeError(
            "`result` must be the result of a goodness-of-fit test (normal_test, mvnorm_test, "
            f"energy_gof or poisson_test), got {type(result).__name__}."
        )
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    axes = np.asarray(axes, dtype=object).ravel()
    if axes.size != 2:
        raise ValueError(f"`axes` must be two Axes (the two panels), got {axes.size}.")
    (_draw_discrete if panel.discrete else _draw_continuous)(*axes, panel)
    right = axes[1]
    right.set_xlabel(panel.name)
    right.set_ylabel("cumulative probability")
    right.set_title("empirical and fitted distribution functions")
    for a in axes:
        a.legend(frameon=False, fontsize="small")
    axes[0].figure.suptitle(titled(panel.summary, data_name(result) or panel.name))
    return axes


def _draw_discrete(left, right, panel: FitPanel) -> None:
    """Counts: observed and fitted probabilities; the empirical and fitted cdf's steps."""
    values, dist = np.sort(panel.sample), panel.distribution
    n = values.size
    counts = np.arange(0, int(max(values[-1], dist.ppf(0.999))) + 1)
    observed = np.bincount(values.astype(np.int64), minlength=counts.size)[: counts.size] / n
    left.bar(counts, observed, width=0.8, color="0.75", label="observed relative frequency")
    left.plot(counts, dist.pmf(counts), "o-", color="C3", lw=1, ms=4, label=panel.label)
    left.set_xlabel(panel.name)
    left.set_ylabel("probability")
    left.set_title("observed and fitted probabilities")
    steps = np.r_[counts, counts[-1] + 1]
    right.step(
        steps,
        np.searchsorted(values, steps, side="right") / n,
        where="post",
        color="0.2",
        label="empirical",
    )
    right.step(steps, dist.cdf(steps), where="post", color="C3", ls="--", label=panel.label)


def _draw_continuous(left, right, panel: FitPanel) -> None:
    """A QQ plot against the fitted quantiles at (i - 1/2)/n; the empirical and fitted cdf."""
    values, dist = np.sort(panel.sample), panel.distribution
    n = values.size
    theoretical = dist.ppf((np.arange(1, n + 1) - 0.5) / n)
    left.plot(theoretical, values, "o", ms=3.5, color="0.2", label="data")
    ends = [min(theoretical[0], values[0]), max(theoretical[-1], values[-1])]
    left.plot(ends, ends, color="C3", lw=1, label="y = x")
    left.set_xlabel(f"quantiles of the {panel.label}")
    left.set_ylabel(f"sample quantiles of {panel.name}")
    left.set_title("QQ plot")
    grid = np.linspace(*dist.ppf([0.001, 0.999]), 400)
    grid = np.linspace(min(grid[0], values[0]), max(grid[-1], values[-1]), 400)
    right.step(
        np.r_[values[0], values], np.arange(n + 1) / n, where="post", color="0.2", label="empirical"
    )
    right.plot(grid, dist.cdf(grid), color="C3", ls="--", label=panel.label)
