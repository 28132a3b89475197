"""Plotting helpers (optional extra ``plot``: matplotlib).

Each function draws on ``ax`` (a new figure's axes when ``None``) and
returns the axes, so plots compose in notebooks.
"""

from __future__ import annotations

import numpy as np

from ._validation import as_data

__all__ = ["plot_clusters", "plot_null_distribution", "plot_w_curve"]


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


def plot_clusters(X, labels, ax=None, *, columns=(0, 1)):
    """Scatter plot of two columns of ``X`` coloured by ``labels``."""
    ax = _axes(ax)
    X = as_data(X, "X")
    if X.shape[1] < 2:
        raise ValueError(f"`X` needs at least two columns to plot, got {X.shape[1]}.")
    labels = np.asarray(labels)
    if labels.shape != (X.shape[0],):
        raise ValueError(f"`labels` must have one entry per sample ({X.shape[0]}), got shape {labels.shape}.")
    i, j = columns
    for value in np.unique(labels):
        keep = labels == value
        ax.scatter(X[keep, i], X[keep, j], s=12, label=str(value))
    ax.set_xlabel(f"column {i}")
    ax.set_ylabel(f"column {j}")
    ax.legend(title="cluster", frameon=False)
    return ax


def plot_null_distribution(result, ax=None, *, bins=40):
    """Histogram of a test's null distribution with the observed statistic marked.

    Works for :class:`EnergyTestResult` and :class:`ClusterTestResult`.
    """
    ax = _axes(ax)
    ax.hist(result.null_distribution, bins=bins, color="0.7", label="null distribution")
    ax.axvline(result.statistic, color="C3", lw=2, label=f"observed (p = {result.pvalue:.3g})")
    ax.set_xlabel("statistic")
    ax.set_ylabel("count")
    ax.legend(frameon=False)
    return ax
