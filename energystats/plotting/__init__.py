"""Plotting helpers (optional extra ``plot``: matplotlib). Each function draws on ``ax`` (a new
figure's axes when None) and returns it; labels come from the data (column names, a Series'
name), titles name the test or method and, when the result knows it (``data_name``), the data.
The plots of test results keep no list of result types: each asks the result what to draw
(``result._null_panels()``, ``result._fit_panel(sample)``), so a new test brings its own."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from scipy.cluster.hierarchy import dendrogram

from .._frontdoor import front_door
from .._results import NullPanel, Sample, TestResult
from .._validation import as_data

__all__ = ["plot_choose_k", "plot_clusters", "plot_dcor_matrix", "plot_dendrogram", "plot_gof",
           "plot_null_distribution", "plot_w_curve"]


def axes_of(ax, ncols: int = 1, width: float = 6.0):
    """``ax``, or the axes of a new figure when None (``ncols`` panels of ``width`` inches in a
    row, or one); matplotlib is imported here: an optional extra."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ImportError("plotting needs matplotlib: pip install 'pyenergystats[plot]'") from None
    if ax is None:
        _, ax = plt.subplots(1, ncols, figsize=(width * ncols, 4), layout="constrained")
    return ax


def titled(name: str, result, data: str | None = None) -> str:
    """``name`` and, when known, the data (R's "data:" line): ``data_name``, else ``data``."""
    data = getattr(result, "data_name", None) or data
    return name if not data else f"{name}\ndata: {data}"


def _draw_panel(ax, panel: NullPanel, bins) -> None:
    """One null (or reference) distribution, the statistic and the tail its p-value counts."""
    observed = panel.statistic
    if panel.null is not None:
        draws = np.asarray(panel.null, dtype=float)
        edges = np.histogram_bin_edges(draws, bins=bins)  # the null's: the statistic may be out
        ax.hist(draws, bins=edges, density=True, color="0.75", label=panel.null_label)
        tail = draws[draws >= observed]
        if tail.size:  # the null values counted in the p-value, on the same scale
            weight = 1.0 / (draws.size * np.diff(edges)[0])
            ax.hist(tail, bins=edges, weights=np.full(tail.size, weight), color="C3", alpha=0.45,
                    label="null values as large as observed")
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
            ax.fill_between(grid[tail], density[tail], color="C3", alpha=0.35,
                            label="tail area: the p-value")
    shown = observed if np.isfinite(observed) else ax.get_xlim()[1]
    ax.axvline(shown, color="C3", lw=2, label=f"observed {observed:.4g} (p = {panel.pvalue:.3g})")
    # room for the legend above the bars or the curve
    ax.set(xlabel=panel.statistic_label, ylabel="density", ylim=(0.0, 1.3 * ax.get_ylim()[1]))
    ax.legend(fontsize="small", framealpha=0.9, edgecolor="none")


@front_door()
def plot_null_distribution(result, ax=None, *, statistic=None, bins=40):
    """The null distribution of a test with the observed statistic and its p-value marked.

    The histogram of the permutation, Monte Carlo or bootstrap null where the test drew one
    (the null values as large as the statistic, which the p-value counts, in red); else the
    density of the reference distribution (``reference_distribution``: the gamma of
    ``dcov_test(method="gamma")``, the Student t of :func:`dcor_ttest`; the limit law of
    ``normal_test(method="limit")``), its upper tail, the p-value, shaded. The title names
    the test and the data (``data_name``). A test result of another kind is drawn as it
    describes itself.

    Parameters
    ----------
    result : test result
        Of any test: :func:`energy_test`, :func:`dcov_test`, :func:`dcor_ttest`,
        :func:`normal_test`, :func:`poisson_test`, :func:`dip_test`, :func:`cluster_test`,
        :func:`thinned_cluster_comparison` (its test on the held-out part), ...
    ax : matplotlib Axes, or a sequence of them, default=None
        Where to draw; one per test for a result of several tests (a
        :class:`PoissonTestResult`; a new figure with a row of panels when None).
    statistic : str, default=None
        For a result of several tests: draw this statistic's only (``"M-CvM"``, ``"M-AD"``
        or ``"E"`` of a :class:`PoissonTestResult`).
    bins : int or str, default=40
        Bins of the histogram (``numpy.histogram_bin_edges``).

    Returns
    -------
    matplotlib Axes, or an array of them (one per test) for several Poisson tests.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
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
    names = [panel.name for panel in panels if panel.name is not None]
    if statistic is not None:
        if statistic not in names:
            listed = ", ".join(map(repr, names)) or "none here"
            raise ValueError(f"`statistic` selects one of the result's statistics ({listed}), "
                             f"got {statistic!r}.")
        panels = tuple(panel for panel in panels if panel.name == statistic)
    if len(panels) == 1:
        ax = axes_of(ax)
        _draw_panel(ax, panels[0], bins)
        test, name = panels[0].test, panels[0].name
        ax.set_title(titled(test if name is None else f"{test}: {name} test", result))
        return ax
    axes = np.asarray(axes_of(ax, len(panels), 4.5), dtype=object).ravel()
    if axes.size != len(panels):
        raise ValueError(f"`ax` must hold one Axes per test ({len(panels)}: {', '.join(names)}), "
                         f"got {axes.size}; or select one with `statistic`.")
    for a, panel in zip(axes, panels):
        _draw_panel(a, panel, bins)
        a.set_title(f"{panel.name} test")
    axes[0].figure.suptitle(titled(panels[0].test, result))
    return axes


@front_door()
def plot_gof(x, result, axes=None):
    """The data against the fitted distribution of a goodness-of-fit test, side by side.

    For :func:`normal_test` and :func:`energy_gof` (the distribution with its given or
    estimated parameters): a QQ plot (the sorted data against the fitted quantiles at
    (i - 1/2)/n, with the line y = x) and the empirical distribution function against the
    fitted cdf. For :func:`mvnorm_test`: the same for the squared Mahalanobis distances of the
    rows from their mean (covariance with n - 1) against their exact law under normality,
    n D^2 / (n - 1)^2 ~ Beta(d / 2, (n - d - 1) / 2) (Gnanadesikan & Kettenring 1972). For
    :func:`poisson_test`: the observed relative frequency of each count against the fitted
    Poisson probability, and the two distribution functions' steps. The figure's title names
    the test, its p-value and the data. The results do not keep the data: they come first.

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
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import energystats as es
    >>> from energystats.plotting import plot_gof
    >>> x = es.datasets.load_iris()["Sepal.Length"][:50]
    >>> qq, ecdf = plot_gof(x, es.normal_test(x, n_resamples=199, rng=0))
    >>> qq.get_ylabel(), ecdf.get_xlabel()
    ('sample quantiles of Sepal.Length', 'Sepal.Length')
    """
    # the name of the data: a Series' or one column's name, else the result's data name
    name = (x.columns[0] if x.shape[1] == 1 else None) if hasattr(x, "columns") else getattr(
        x, "name", None)
    name = (None if name is None else str(name)) or getattr(result, "data_name", None) or "x"
    try:
        values = np.asarray(x.to_numpy(dtype=float, na_value=np.nan) if hasattr(x, "to_numpy")
                            else x, dtype=float)
    except (TypeError, ValueError):
        values = None
    if values is None or values.ndim == 0:
        raise ValueError("`x` must be an array of numbers, the data the test was run on"
                         + (", got one number." if values is not None else "."))
    rows = values.reshape(values.shape[0], -1)
    sample = Sample(rows[~np.isnan(rows).any(axis=1)], values.shape, name)
    panel = result._fit_panel(sample) if isinstance(result, TestResult) else None
    if panel is None:
        raise TypeError("`result` must be the result of a goodness-of-fit test (normal_test, "
                        f"mvnorm_test, energy_gof or poisson_test), got {type(result).__name__}.")
    axes = np.asarray(axes_of(axes, 2, 5.0), dtype=object).ravel()
    if axes.size != 2:
        raise ValueError(f"`axes` must be two Axes (the two panels), got {axes.size}.")
    left, right = axes
    values, dist, n = np.sort(panel.sample), panel.distribution, panel.sample.size
    if panel.discrete:  # counts: observed and fitted probabilities, the two cdfs' steps
        counts = np.arange(0, int(max(values[-1], dist.ppf(0.999))) + 1)
        observed = np.bincount(values.astype(np.int64), minlength=counts.size)[: counts.size]
        left.bar(counts, observed / n, width=0.8, color="0.75", label="observed relative frequency")
        left.plot(counts, dist.pmf(counts), "o-", color="C3", lw=1, ms=4, label=panel.label)
        left.set(xlabel=panel.name, ylabel="probability", title="observed and fitted probabilities")
        steps = np.r_[counts, counts[-1] + 1]
        right.step(steps, np.searchsorted(values, steps, side="right") / n, where="post",
                   color="0.2", label="empirical")
        right.step(steps, dist.cdf(steps), where="post", color="C3", ls="--", label=panel.label)
    else:  # a QQ plot against the fitted quantiles at (i - 1/2)/n; the empirical and fitted cdf
        theoretical = dist.ppf((np.arange(1, n + 1) - 0.5) / n)
        left.plot(theoretical, values, "o", ms=3.5, color="0.2", label="data")
        ends = [min(theoretical[0], values[0]), max(theoretical[-1], values[-1])]
        left.plot(ends, ends, color="C3", lw=1, label="y = x")
        left.set(xlabel=f"quantiles of the {panel.label}", title="QQ plot",
                 ylabel=f"sample quantiles of {panel.name}")
        grid = np.linspace(*dist.ppf([0.001, 0.999]), 400)
        grid = np.linspace(min(grid[0], values[0]), max(grid[-1], values[-1]), 400)
        right.step(np.r_[values[0], values], np.arange(n + 1) / n, where="post", color="0.2",
                   label="empirical")
        right.plot(grid, dist.cdf(grid), color="C3", ls="--", label=panel.label)
    right.set(xlabel=panel.name, ylabel="cumulative probability",
              title="empirical and fitted distribution functions")
    for a in axes:
        a.legend(frameon=False, fontsize="small")
    left.figure.suptitle(titled(panel.summary, result, panel.name))
    return axes


@front_door()
def plot_w_curve(result, ax=None):
    """W against the threshold of every admissible split, the chosen split (the minimum of the
    curve) marked.

    Parameters
    ----------
    result : Split1DResult
        Of :func:`split_1d`.
    ax : matplotlib Axes, default=None
        Where to draw (a new figure's axes when None).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import energystats as es
    >>> from energystats.plotting import plot_w_curve
    >>> ax = plot_w_curve(es.split_1d([0.1, 0.3, 0.2, 5.0, 5.2, 4.9]))
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('threshold', 'within dispersion W')
    """
    ax = axes_of(ax)
    ax.plot(result.curve_thresholds, result.W_curve, lw=1.2, label="W of the split")
    ax.axvline(result.threshold, color="C3", ls="--", label=f"optimum {result.threshold:.4g}")
    ax.set(xlabel="threshold", ylabel="within dispersion W",
           title=titled("split into two groups at the threshold of least W", result))
    ax.legend(frameon=False)
    return ax


@front_door()
def plot_choose_k(result, ax=None):
    """W of ``KGroups(k)`` against k, the chosen k marked (with the test that refused k + 1),
    and the gap statistic's choice when it was computed; the title names the rule.

    This is the package's W-against-k picture: the curve of W alone (an "elbow") says
    nothing about which k the data support; :func:`choose_k` tests each split.

    Parameters
    ----------
    result : ChooseKResult
        Of :func:`choose_k`.
    ax : matplotlib Axes, default=None
        Where to draw (a new figure's axes when None).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, energystats as es
    >>> from energystats.plotting import plot_choose_k
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 1.0, size=(40, 2)) for c in ([0, 0], [8, 0])])
    >>> ax = plot_choose_k(es.choose_k(X, k_max=4, n_references=0, rng=1))
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('number of clusters k', 'within dispersion W')
    """
    ax = axes_of(ax)
    table, k = result.table, result.k
    ax.plot(table["k"], table["W"], marker="o", lw=1.2, color="0.3", label="W of KGroups(k)")
    chosen = table.loc[table["k"] == k, "W"].iloc[0]
    ax.plot([k], [chosen], marker="o", markersize=11, mfc="none", mec="C3", mew=2, ls="none")
    ax.axvline(k, color="C3", ls="--", label=f"chosen k = {k} (family-wise error {result.alpha:g})")
    if (row := result.deciding) is not None:  # the test that refused k + 1, at the chosen k
        ax.annotate(f"node {int(row['node'])} ({int(row['size'])} points): p = "
                    f"{row['pvalue']:.3g} > {row['threshold']:.3g}", (k, chosen), xytext=(8, 8),
                    textcoords="offset points", color="C3")
    if result.k_gap is not None and result.k_gap != k:
        ax.axvline(result.k_gap, color="C0", ls=":", label=f"gap statistic: k = {result.k_gap}")
    ax.set_xticks(table["k"].tolist())
    null = "uniform clusters" if result.null == "unimodal" else "Gaussian clusters"
    ax.set(xlabel="number of clusters k", ylabel="within dispersion W", title=titled(
        f"choice of k: sequential k-means tests against {null}", result))
    ax.legend(frameon=False)
    return ax


@front_door()
def plot_clusters(X, labels, ax=None, *, columns=(0, 1)):
    """Scatter plot of two columns of ``X`` coloured by ``labels``: the axes named by the
    DataFrame's column names ("column 0" for an array), the legend by the name of a Series of
    ``labels`` ("cluster" otherwise).

    Parameters
    ----------
    X : array_like of shape (n, d) or DataFrame
        The data, at least two columns.
    labels : array_like of shape (n,)
        The cluster (or group) of each row.
    ax : matplotlib Axes, default=None
        Where to draw (a new figure's axes when None).
    columns : pair of int or str, default=(0, 1)
        The two columns drawn: positions (negative from the end), or column names of a
        DataFrame (``("Petal.Length", "Petal.Width")``; a name that is also a position is
        read as the name, as ``X[name]`` reads it).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import energystats as es
    >>> from energystats.plotting import plot_clusters
    >>> iris = es.datasets.load_iris()
    >>> ax = plot_clusters(iris, iris["Species"], columns=("Petal.Length", "Petal.Width"))
    >>> ax.get_xlabel(), ax.get_ylabel(), ax.get_legend().get_title().get_text()
    ('Petal.Length', 'Petal.Width', 'Species')
    """
    legend = str(labels.name) if getattr(labels, "name", None) is not None else "cluster"
    framed = hasattr(X, "columns")
    X = X if framed else as_data(X, "X")
    width = X.shape[1]
    if width < 2:
        raise ValueError(f"`X` needs at least two columns to plot, got {width}.")
    names = list(X.columns) if framed else list(range(width))
    pair = list(columns) if isinstance(columns, (tuple, list)) and len(columns) == 2 else []
    positions = []
    for c in pair:  # a column's name first, as X[c] reads it, then a position
        named = [k for k, name in enumerate(names) if framed and _is_label(name, c)]
        if len(named) == 1:
            positions.append(named[0])
        elif isinstance(c, Integral) and not isinstance(c, bool) and -width <= c < width:
            positions.append(int(c) % width)
    if len(positions) != 2:
        shown = ", ".join(map(str, names[:8])) + (", ..." if width > 8 else "")
        which = (f"names or indices of the columns of `X` ({shown})" if framed
                 else f"column indices of `X` (it has {width} columns)")
        raise ValueError(f"`columns` must be two {which}, got {columns!r}.")
    data = as_data(X.iloc[:, positions], "X") if framed else X[:, positions]
    labels = np.asarray(labels)
    if labels.shape != (data.shape[0],):
        raise ValueError(f"`labels` must have one entry per sample ({data.shape[0]}), got shape "
                         f"{labels.shape}.")
    ax = axes_of(ax)
    for value in np.unique(labels):
        ax.scatter(data[labels == value, 0], data[labels == value, 1], s=12, label=str(value))
    ax.set(xlabel=str(names[positions[0]]) if framed else f"column {positions[0]}",
           ylabel=str(names[positions[1]]) if framed else f"column {positions[1]}")
    ax.legend(title=legend, frameon=False)
    return ax


def _is_label(label, name) -> bool:
    """Whether a column label is ``name`` (``True`` is not the label 1)."""
    try:
        return not isinstance(label, (bool, np.bool_)) and not isinstance(
            name, (bool, np.bool_)) and bool(label == name)
    except (TypeError, ValueError):
        return False


@front_door()
def plot_dendrogram(result, ax=None, *, n_clusters=None, **dendrogram_options):
    """Dendrogram of :func:`energy_hclust`, heights the energy merge costs.

    Parameters
    ----------
    result : EnergyHClustResult or SignificantClustersResult
        The tree of :func:`energy_hclust`, or the significant splits of
        :func:`significant_clusters` (branches coloured by its final clusters; the splits
        found significant in grey).
    ax : matplotlib Axes, default=None
        Where to draw (a new figure's axes when None).
    n_clusters : int, default=None
        For a tree: colour the branches by the clusters of ``result.labels(n_clusters)``
        (all grey when None).
    **dendrogram_options
        Passed to ``scipy.cluster.hierarchy.dendrogram`` (labels hidden beyond 60 points).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import energystats as es
    >>> from energystats.plotting import plot_dendrogram
    >>> ax = plot_dendrogram(es.energy_hclust(es.datasets.load_iris().iloc[:, 2:4]), n_clusters=3)
    >>> ax.get_title()
    'energy hierarchical clustering\\ndata: [Petal.Length, Petal.Width]'
    """
    tree = getattr(result, "tree", result)
    n = tree.n_samples
    labels = (result.labels if tree is not result else np.zeros(n, dtype=int) if n_clusters
              is None else tree.labels(n_clusters))
    # the cluster holding all members of each merge, or -1 for a merge across clusters
    owner = np.concatenate([labels, np.empty(n - 1, dtype=int)])
    for step, (a, b) in enumerate(tree.linkage[:, :2].astype(int)):
        owner[n + step] = owner[a] if owner[a] == owner[b] else -1
    grey = tree is result and n_clusters is None
    ax = axes_of(ax)
    dendrogram(tree.linkage, ax=ax, **{"no_labels": n > 60, "link_color_func": lambda link: "0.4"
                                       if owner[link] < 0 or grey else f"C{owner[link] % 10}",
                                       **dendrogram_options})
    ax.set_ylabel(r"merge cost $\frac{n_A n_B}{n_A + n_B}\,\mathcal{E}(A, B)$")
    name = ("energy hierarchical clustering" if tree is result else
            f"significant splits of the energy dendrogram, \u03b1 = {result.alpha:g}")
    ax.set_title(titled(name, result))
    return ax


@front_door()
def plot_dcor_matrix(result, ax=None, *, annotate: bool | None = None, mark_rejected: bool = True):
    """Heatmap of the distance correlations of :func:`pairwise_dcor`, the diagonal in grey.

    Parameters
    ----------
    result : PairwiseDcorResult or DataFrame
        Of :func:`pairwise_dcor`, or a square DataFrame of values in [0, 1].
    ax : matplotlib Axes, default=None
        Where to draw (a new figure's axes when None).
    annotate : bool, default=None
        Write the values in the cells (None: when there are at most 15 variables).
    mark_rejected : bool, default=True
        Mark with a dot the pairs whose corrected test rejects independence (a result's
        ``table``).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, pandas as pd, energystats as es
    >>> from energystats.plotting import plot_dcor_matrix
    >>> df = pd.DataFrame(np.random.default_rng(0).normal(size=(60, 3)), columns=list("abc"))
    >>> ax = plot_dcor_matrix(es.pairwise_dcor(df))
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['a', 'b', 'c']
    """
    ax = axes_of(ax)
    matrix = getattr(result, "matrix", result)
    values, names = matrix.to_numpy(dtype=float), [str(c) for c in matrix.columns]
    off = ~np.eye(len(names), dtype=bool)
    image = ax.imshow(np.ma.masked_array(values, mask=~off), vmin=0.0, vmax=1.0, cmap="viridis")
    image.set_cmap(image.get_cmap().with_extremes(bad="0.85"))  # the diagonal in grey
    ax.figure.colorbar(image, ax=ax, label="distance correlation")
    ax.set_xticks(range(len(names)), names, rotation=90)
    ax.set_yticks(range(len(names)), names)
    if annotate if annotate is not None else len(names) <= 15:
        for i, j in zip(*np.nonzero(off)):
            ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center", fontsize=7,
                    color="w" if values[i, j] < 0.5 else "k")
    table = getattr(result, "table", None) if mark_rejected else None
    if table is not None:
        index = {name: k for k, name in enumerate(names)}
        for x, y in zip(table.loc[table["reject"], "x"], table.loc[table["reject"], "y"]):
            for i, j in ((index[x], index[y]), (index[y], index[x])):
                ax.plot(j, i + 0.3, marker=".", color="C3", markersize=6)
    extra = " (dots: independence rejected)" if table is not None else ""
    ax.set_title(titled("distance correlation" + extra, result))
    return ax
