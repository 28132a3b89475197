"""Plotting helpers (optional extra ``plot``: matplotlib).

Each function draws on ``ax`` (a new figure's axes when ``None``) and
returns the axes, so plots compose in notebooks.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from scipy.cluster.hierarchy import dendrogram
from scipy.stats import t as student_t

from ._validation import as_data

__all__ = ["plot_choose_k", "plot_clusters", "plot_dcor_matrix", "plot_dendrogram", "plot_null_distribution", "plot_w_curve"]


def _axes(ax):
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ImportError("plotting needs matplotlib: pip install 'pyenergystats[plot]'") from None
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    return ax


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
    >>> ax.get_xlabel()
    'threshold'
    """
    ax = _axes(ax)
    ax.plot(result.curve_thresholds, result.W_curve, lw=1.2, label="W of the split")
    ax.axvline(result.threshold, color="C3", ls="--", label=f"optimum {result.threshold:.4g}")
    ax.set_xlabel("threshold")
    ax.set_ylabel("within dispersion W (eq. 63)")
    ax.legend(frameon=False)
    return ax


def plot_choose_k(result, ax=None):
    """W of ``KGroups(k)`` against k (a :class:`ChooseKResult`), the chosen k marked, and
    the gap statistic's choice when it was computed. The title names the rule.

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
    ax = _axes(ax)
    table = result.table
    ax.plot(table["k"], table["W"], marker="o", lw=1.2, color="0.3", label="W of KGroups(k)")
    chosen = table.loc[table["k"] == result.k, "W"].iloc[0]
    ax.plot([result.k], [chosen], marker="o", markersize=11, mfc="none", mec="C3", mew=2, ls="none")
    ax.axvline(result.k, color="C3", ls="--", label=f"chosen k = {result.k}")
    if result.k_gap is not None and result.k_gap != result.k:
        ax.axvline(result.k_gap, color="C0", ls=":", label=f"gap statistic: k = {result.k_gap}")
    ax.set_xticks(table["k"].tolist())
    ax.set_xlabel("number of clusters k")
    ax.set_ylabel("within dispersion W")
    null = "dip tests of unimodality" if result.null == "unimodal" else "cluster tests against one Gaussian"
    ax.set_title(f"choice of k: sequential {null}, family-wise error {result.alpha:g}")
    ax.legend(frameon=False)
    return ax


def plot_clusters(X, labels, ax=None, *, columns=(0, 1)):
    """Scatter plot of two columns of ``X`` coloured by ``labels``; the axes are named by
    the DataFrame's column names when ``X`` is one."""
    names = [str(c) for c in X.columns] if hasattr(X, "columns") else None
    X = as_data(X, "X")
    if X.shape[1] < 2:
        raise ValueError(f"`X` needs at least two columns to plot, got {X.shape[1]}.")
    labels = np.asarray(labels)
    if labels.shape != (X.shape[0],):
        raise ValueError(f"`labels` must have one entry per sample ({X.shape[0]}), got shape {labels.shape}.")
    if len(columns) != 2 or not all(isinstance(c, Integral) and not isinstance(c, bool) and -X.shape[1] <= c < X.shape[1] for c in columns):
        raise ValueError(f"`columns` must be two column indices of `X` (it has {X.shape[1]} columns), got {columns!r}.")
    ax = _axes(ax)
    i, j = columns
    for value in np.unique(labels):
        keep = labels == value
        ax.scatter(X[keep, i], X[keep, j], s=12, label=str(value))
    ax.set_xlabel(names[i] if names else f"column {i}")
    ax.set_ylabel(names[j] if names else f"column {j}")
    ax.legend(title="cluster", frameon=False)
    return ax


def plot_null_distribution(result, ax=None, *, bins=40):
    """Histogram of a test's null distribution with the observed statistic marked.

    Works for every result with a ``null_distribution`` (permutation, Monte Carlo and
    bootstrap tests; one histogram per test of :func:`poisson_test`); for the t-test
    (:func:`dcor_ttest`) it draws the Student t density of its null. Results of methods
    that keep no null distribution (``method="gamma"``, ``method="limit"``) are refused.
    """
    null = getattr(result, "null_distribution", None)
    if null is None and getattr(result, "method", None) == "t":
        ax = _axes(ax)
        reach = max(4.0, 1.2 * abs(result.statistic)) if np.isfinite(result.statistic) else 4.0
        grid = np.linspace(-reach, reach, 400)
        ax.plot(grid, student_t.pdf(grid, result.df), color="0.4", label=f"null: Student t, {result.df:g} df")
        ax.axvline(min(result.statistic, reach), color="C3", lw=2, label=f"observed (p = {result.pvalue:.3g})")
        ax.set_xlabel("statistic")
        ax.set_ylabel("density")
        ax.legend(frameon=False)
        return ax
    if null is None or np.size(null) == 0:
        method = getattr(result, "method", None)
        raise ValueError(
            f"`result` keeps no null distribution to plot{f' (method={method!r})' if method else ''}: its p-value comes "
            "from an approximation; run the test with permutations (method='permutation' or 'bootstrap') to plot one."
        )
    ax = _axes(ax)
    null = np.asarray(null, dtype=float)
    observed = np.atleast_1d(result.statistic)
    pvalues = np.atleast_1d(result.pvalue)
    names = list(getattr(result, "tests", ())) if null.ndim == 2 else []
    columns = null.T if null.ndim == 2 else null[None, :]
    for k, (values, t, p) in enumerate(zip(columns, observed, pvalues)):
        name = f"{names[k]}: " if names else ""
        ax.hist(values, bins=bins, color=f"C{k}" if names else "0.7", alpha=0.5 if names else 1.0, label=f"{name}null distribution")
        ax.axvline(t, color=f"C{k}" if names else "C3", lw=2, label=f"{name}observed (p = {p:.3g})")
    ax.set_xlabel("statistic")
    ax.set_ylabel("count")
    ax.legend(frameon=False)
    return ax


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
        return "0.4" if owner[link] < 0 or (tree is result and n_clusters is None) else colours[owner[link]]

    ax = _axes(ax)
    options = {"no_labels": n > 60, "link_color_func": colour}
    options.update(dendrogram_options)
    dendrogram(tree.linkage, ax=ax, **options)
    ax.set_ylabel("merge cost (n_A n_B / (n_A + n_B)) E(A, B)")
    return ax


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

    ax = _axes(ax)
    matrix = getattr(result, "matrix", result)
    values = matrix.to_numpy(dtype=float)
    names = [str(c) for c in matrix.columns]
    shown = np.ma.masked_array(values, mask=np.eye(len(names), dtype=bool))  # the diagonal (1) in grey
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="0.85")
    image = ax.imshow(shown, vmin=0.0, vmax=1.0, cmap=cmap)
    ax.figure.colorbar(image, ax=ax, label="distance correlation")
    ax.set_xticks(range(len(names)), names, rotation=90)
    ax.set_yticks(range(len(names)), names)
    if annotate if annotate is not None else len(names) <= 15:
        for i in range(len(names)):
            for j in range(len(names)):
                if i != j:
                    ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center", fontsize=7, color="w" if values[i, j] < 0.5 else "k")
    table = getattr(result, "table", None)
    if mark_rejected and table is not None:
        index = {name: k for k, name in enumerate(names)}
        for x, y in zip(table.loc[table["reject"], "x"], table.loc[table["reject"], "y"]):
            for i, j in ((index[x], index[y]), (index[y], index[x])):
                ax.plot(j, i + 0.3, marker=".", color="C3", markersize=6)
    ax.set_title("distance correlation" + (" (dots: independence rejected)" if mark_rejected and table is not None else ""))
    return ax
