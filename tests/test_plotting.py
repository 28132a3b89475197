"""Plotting helpers (energystats.plotting)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import energystats as es  # noqa: E402
from energystats.plotting import plot_clusters, plot_null_distribution, plot_w_curve  # noqa: E402


def test_w_curve_marks_the_optimum(rng):
    res = es.split_1d(np.r_[rng.normal(0, 1, 50), rng.normal(5, 1, 50)])
    ax = plot_w_curve(res)
    line = ax.get_lines()[0]
    np.testing.assert_array_equal(line.get_ydata(), res.W_curve)
    assert ax.get_lines()[1].get_xdata()[0] == res.threshold
    plt.close("all")


def test_clusters_and_null_distribution(rng):
    X = rng.normal(size=(40, 3))
    labels = np.repeat([0, 1], 20)
    fig, (a, b) = plt.subplots(1, 2)
    assert plot_clusters(X, labels, ax=a, columns=(0, 2)) is a
    assert len(a.collections) == 2
    res = es.energy_test(X, labels, n_resamples=50, rng=0)
    assert plot_null_distribution(res, ax=b) is b
    assert b.get_lines()[0].get_xdata()[0] == res.statistic
    with pytest.raises(ValueError, match="`X` needs at least two columns"):
        plot_clusters(X[:, :1], labels)
    with pytest.raises(ValueError, match="`labels` must have one entry per sample"):
        plot_clusters(X, labels[:5])
    plt.close("all")
