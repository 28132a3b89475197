"""Plotting helpers (optional extra ``plot``: matplotlib).

Each function draws on ``ax`` (a new figure's axes when ``None``) and returns the axes, so
plots compose in notebooks; the two-panel :func:`plot_gof` returns its pair of axes. Axis
labels come from the data (DataFrame column names, a Series' name); titles name the test or
method and, when the result knows it (``data_name``), the data. W against k is
:func:`plot_choose_k`.

The plots of test results (:func:`plot_null_distribution`, :func:`plot_gof`) are in
``_test_results.py``: each asks the result for its panels; the plots of clusterings and
matrices are here.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from scipy.cluster.hierarchy import dendrogram

from .._frontdoor import front_door
from .._validation import as_data
from ._test_results import axes_of, data_name, plot_gof, plot_null_distribution, titled

__all__ = [
    "plot_choose_k",
    "plot_clusters",
    "plot_dcor_matrix",
    "plot_dendrogram",
    "plot_gof",
    "plot_null_distribution",
    "plot_w_curve",
]


@front_door()
def plot_w_curve(result, ax=None):
    """W against the threshold of every admissible split (a :class:`Split1DResult`).

    The chosen split, the minimum of the curve, is marked.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import energystats as es
    >>> from energystats.plotting import plot_w_curve
    >>> ax = plot_w_curve(es.split_1d([0.1, 0.3, 0.2, 5.0, 5.2, 4.9]))
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('threshold', 'within dispersion W')
    """
    ax = axes_of(ax)
    ax.plot(result.curve_thresholds, result.W_curve, lw=1.2, label="W of the split")
    ax.axvline(result.threshold, color="C3", ls="--", label=f"optimum {result.threshold:.4g}")
    ax.set_xlabel("threshold")
    ax.set_ylabel("within dispersion W")
    ax.set_title(titled("split into two groups at the threshold of least W", data_name(result)))
    ax.legend(frameon=False)
    return ax


@front_door()
def plot_choose_k(result, ax=None):
    """W of ``KGroups(k)`` against k (a :class:`ChooseKResult`), the chosen k marked, and
    the gap statistic's choice when it was computed. The title names the rule.

    This is the package's W-against-k picture: the curve of W alone (an "elbow") says
    nothing about which k the data support; :func:`choose_k` tests each split.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, energystats as es
    >>> from energystats.plotting import plot_choose_k
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 1.0, size=(40, 2)) for c in ([0, 0], [8, 0])])
    >>> ax = plot_choose_k(es.choose_k(X, k_max=4, n_references=0, rng=1))
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('number of clusters k', 'within dispersion W')
    """
    ax = axes_of(ax)
    table = result.table
    ax.plot(table["k"], table["W"], marker="o", lw=1.2, color="0.3", label="W of KGroups(k)")
    chosen = table.loc[table["k"] == result.k, "W"].iloc[0]
    ax.plot([result.k], [chosen], marker="o", markersize=11, mfc="none", mec="C3", mew=2, ls="none")
    ax.axvline(
        result.k,
        color="C3",
        ls="--",
        label=f"chosen k = {result.k} (family-wise error {result.alpha:g})",
    )
    row = result.deciding
    if row is not None:  # the test that refused k + 1, at the chosen k
        ax.annotate(
            f"node {int(row['node'])} ({int(row['size'])} points): "
            f"p = {row['pvalue']:.3g} > {row['threshold']:.3g}",
            (result.k, chosen),
            xytext=(8, 8),
            textcoords="offset points",
            color="C3",
        )
    if result.k_gap is not None and result.k_gap != result.k:
        ax.axvline(result.k_gap, color="C0", ls=":", label=f"gap statistic: k = {result.k_gap}")
    ax.set_xticks(table["k"].tolist())
    ax.set_xlabel("number of clusters k")
    ax.set_ylabel("within dispersion W")
    null = "uniform clusters" if result.null == "unimodal" else "Gaussian clusters"
    ax.set_title(titled(f"choice of k: sequential k-means tests against {null}", data_name(result)))
    ax.legend(frameon=False)
    return ax


@front_door()
def plot_clusters(X, labels, ax=None, *, columns=(0, 1)):
    """Scatter plot of two columns of ``X`` coloured by ``labels``.

    The axes are named by the DataFrame's column names when ``X`` is one ("column 0" and
    "column 1" for an array), the legend by the name of ``labels`` when it is a Series
    ("cluster" otherwise).

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
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import energystats as es
    >>> from energystats.plotting import plot_clusters
    >>> iris = es.datasets.load_iris()
    >>> ax = plot_clusters(iris, iris["Species"], columns=("Petal.Length", "Petal.Width"))
    >>> ax.get_xlabel(), ax.get_ylabel(), ax.get_legend().get_title().get_text()
    ('Petal.Length', 'Petal.Width', 'Species')
    """
    legend = str(labels.name) if getattr(labels, "name", None) is not None else "cluster"
    names = [str(c) for c in X.columns] if hasattr(X, "columns") else None
    if names is None:
        X = as_data(X, "X")
        i, j = _column_positions(columns, list(range(X.shape[1])), by_name=False)
    else:
        i, j = _column_positions(columns, list(X.columns), by_name=True)
        X = as_data(X.iloc[:, [i, j]], "X")
        names, i, j = [names[i], names[j]], 0, 1
    labels = np.asarray(labels)
    if labels.shape != (X.shape[0],):
        raise ValueError(
            f"`labels` must have one entry per sample ({X.shape[0]}), got shape {labels.shape}."
        )
    ax = axes_of(ax)
    for value in np.unique(labels):
        keep = labels == value
        ax.scatter(X[keep, i], X[keep, j], s=12, label=str(value))
    ax.set_xlabel(names[i] if names else f"column {i % X.shape[1]}")
    ax.set_ylabel(names[j] if names else f"column {j % X.shape[1]}")
    ax.legend(title=legend, frameon=False)
    return ax


def _column_positions(columns, labels: list, *, by_name: bool) -> tuple[int, int]:
    """The positions of the two ``columns`` of :func:`plot_clusters` among ``labels``, the
    columns of ``X``: names of a data frame's columns (``by_name``) or positions."""
    width = len(labels)
    if width < 2:
        raise ValueError(f"`X` needs at least two columns to plot, got {width}.")
    pair = list(columns) if isinstance(columns, (tuple, list)) and len(columns) == 2 else []
    positions = []
    for c in pair:
        named = [k for k, label in enumerate(labels) if by_name and _is_label(label, c)]
        if len(named) == 1:  # a column's name, as X[c] reads it
            positions.append(named[0])
        elif isinstance(c, Integral) and not isinstance(c, bool) and -width <= c < width:
            positions.append(int(c))
    if len(positions) != 2:
        shown = ", ".join(map(str, labels[:8])) + (", ..." if width > 8 else "")
        which = f"names or indices of the columns of `X` ({shown})" if by_name else \
            f"column indices of `X` (it has {width} columns)"
        raise ValueError(f"`columns` must be two {which}, got {columns!r}.")
    return positions[0], positions[1]


def _is_label(label, name) -> bool:
    """Whether a column label is ``name`` (``True`` is not the label 1)."""
    if isinstance(label, (bool, np.bool_)) or isinstance(name, (bool, np.bool_)):
        return False
    try:
        return bool(label == name)
    except (TypeError, ValueError):
        return False


# --- trees and matrices ---------------------------------------------------------------


@front_door()
def plot_dendrogram(result, ax=None, *, n_clusters=None, **dendrogram_options):
    """Dendrogram of :func:`energy_hclust`, heights the energy merge costs.

    ``result`` is an :class:`EnergyHClustResult` (branches coloured by the clusters of
    ``labels(n_clusters)`` when ``n_clusters`` is given) or a
    :class:`SignificantClustersResult` (coloured by its final clusters; the splits
    found significant in grey). Further options go to
    ``scipy.cluster.hierarchy.dendrogram``.
    """
    tree = getattr(result, "tree", result)
    if tree is not result:
        labels = result.labels
    elif n_clusters is not None:
        labels = tree.labels(n_clusters)
    else:
        labels = np.zeros(tree.n_samples, dtype=int)
    n = tree.n_samples
    # the cluster holding all members of each merge, or -1 for a merge across clusters
    owner = np.concatenate([labels, np.empty(n - 1, dtype=int)])
    for step, (a, b) in enumerate(tree.linkage[:, :2].astype(int)):
        owner[n + step] = owner[a] if owner[a] == owner[b] else -1
    colours = [f"C{code % 10}" for code in range(labels.max() + 1)]

    def colour(link: int) -> str:
        return (
            "0.4"
            if owner[link] < 0 or (tree is result and n_clusters is None)
            else colours[owner[link]]
        )

    ax = axes_of(ax)
    options = {"no_labels": n > 60, "link_color_func": colour}
    options.update(dendrogram_options)
    dendrogram(tree.linkage, ax=ax, **options)
    ax.set_ylabel(r"merge cost $\frac{n_A n_B}{n_A + n_B}\,\mathcal{E}(A, B)$")
    name = (
        "energy hierarchical clustering"
        if tree is result
        else f"significant splits of the energy dendrogram, \u03b1 = {result.alpha:g}"
    )
    ax.set_title(titled(name, data_name(result)))
    return ax


@front_door()
def plot_dcor_matrix(result, ax=None, *, annotate: bool | None = None, mark_rejected: bool = True):
    """Heatmap of the distance correlations of :func:`pairwise_dcor` (a
    :class:`PairwiseDcorResult`, or a square DataFrame of values in [0, 1]).

    With ``mark_rejected`` the pairs whose corrected test rejects independence are marked
    with a dot; ``annotate`` writes the values in the cells (default: at most 15 variables).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, pandas as pd, energystats as es
    >>> from energystats.plotting import plot_dcor_matrix
    >>> df = pd.DataFrame(np.random.default_rng(0).normal(size=(60, 3)), columns=list("abc"))
    >>> ax = plot_dcor_matrix(es.pairwise_dcor(df))
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['a', 'b', 'c']
    """
    import matplotlib

    ax = axes_of(ax)
    matrix = getattr(result, "matrix", result)
    values = matrix.to_numpy(dtype=float)
    names = [str(c) for c in matrix.columns]
    # the diagonal (1) in grey
    shown = np.ma.masked_array(values, mask=np.eye(len(names), dtype=bool))
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="0.85")
    image = ax.imshow(shown, vmin=0.0, vmax=1.0, cmap=cmap)
    ax.figure.colorbar(image, ax=ax, label="distance correlation")
    ax.set_xticks(range(len(names)), names, rotation=90)
    ax.set_yticks(range(len(names)), names)
    if annotate if annotate is not None else len(names) <= 15:
        for i in range(len(names)):
            for j in range(len(names)):
                if i != j:
                    ax.text(
                        j,
                        i,
                        f"{values[i, j]:.2f}",
                        ha="center",
                        va="center",
                        fontsize=7,
                        color="w" if values[i, j] < 0.5 else "k",
                    )
    table = getattr(result, "table", None)
    if mark_rejected and table is not None:
        index = {name: k for k, name in enumerate(names)}
        for x, y in zip(table.loc[table["reject"], "x"], table.loc[table["reject"], "y"]):
            for i, j in ((index[x], index[y]), (index[y], index[x])):
                ax.plot(j, i + 0.3, marker=".", color="C3", markersize=6)
    name = "distance correlation" + (
        " (dots: independence rejected)" if mark_rejected and table is not None else ""
    )
    ax.set_title(titled(name, data_name(result)))
    return ax
