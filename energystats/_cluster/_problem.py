"""A validated call of :meth:`KGroups.fit` (:class:`Problem`): the data as scikit-learn reads
them (:func:`fit_array`) and the checks of the estimator's parameters (:func:`validate`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils.validation import validate_data

from .._parallel import check_n_jobs
from .._semimetric import Semimetric, prepare_points, resolve_semimetric
from .._validation import (
    as_labels,
    as_weights,
    check_gram,
    check_n_clusters,
    check_n_init,
    check_positive_int,
    check_symmetric,
    weight_scale,
)

__all__ = ["Problem", "fit_array", "validate"]

_ALGORITHMS = ("hartigan", "lloyd", "r-kgroups")
_INITS = ("auto", "k-means++", "random", "spectral", "power-kmeans")


@dataclass(frozen=True)
class Problem:
    """A validated call of :meth:`KGroups.fit`: k, ``n_init``, ``max_iter``; the semimetric
    (None for a Gram matrix) with what it takes from the points of positive weight fixed (the
    median distance, the graph); the data (points or matrix); the weights (``sample_weight``,
    times the degrees on a graph) divided by 2^``weight_shift``; ``kept``, the points of
    positive weight when some weights are 0; ``start``, their starting labels (``init``
    labels); ``init`` ("auto" resolved)."""

    k: int
    n_init: int
    max_iter: int
    semimetric: Semimetric | None
    data: np.ndarray
    weights: np.ndarray | None
    kept: np.ndarray | None
    start: np.ndarray | None
    init: str | np.ndarray
    weight_shift: int


def validate(model, X, sample_weight, init) -> Problem:
    """Check the parameters of ``model`` (a :class:`KGroups`) and the data; X has passed
    scikit-learn's ``validate_data``."""
    if model.algorithm not in _ALGORITHMS:
        raise ValueError(f"`algorithm` must be one of {_ALGORITHMS}, got {model.algorithm!r}.")
    n_init = check_n_init(model.n_init, X.shape[0])
    max_iter = check_positive_int(model.max_iter, "max_iter")
    check_n_jobs(model.n_jobs)
    if model.approximation not in (None, "nystroem"):
        raise ValueError("`approximation` must be None or 'nystroem', got "
                         f"{model.approximation!r}.")
    if model.approximation == "nystroem":
        check_positive_int(model.n_landmarks, "n_landmarks")
        if model.landmarks not in ("d2", "uniform"):
            raise ValueError(f"`landmarks` must be 'd2' or 'uniform', got {model.landmarks!r}.")
        if model.algorithm == "r-kgroups":
            raise ValueError("`algorithm`='r-kgroups' is R's rule on the distances themselves: it "
                             "takes no `approximation`.")
        if isinstance(model.metric, str) and (
            model.metric in ("precomputed", "precomputed_kernel")
        ):
            raise ValueError("`approximation`='nystroem' needs the points: a precomputed matrix "
                             "already holds every pair.")
        if model.metric == "nearest_neighbors":
            raise ValueError("`approximation`='nystroem' does not apply to "
                             "metric='nearest_neighbors': its sparse graph is exact at every n.")
    if model.batch_size is not None:
        check_positive_int(model.batch_size, "batch_size")
        if model.approximation != "nystroem":
            raise ValueError("`batch_size` runs mini-batch Lloyd steps on Nystroem features: it "
                             "needs approximation='nystroem'.")
        if not isinstance(init, str):
            raise ValueError("`batch_size` starts from `init` on a sample of the points: `init` "
                             "must be a string, not labels.")
    kernel_given = isinstance(model.metric, str) and model.metric == "precomputed_kernel"
    if kernel_given:
        if model.exponent != 1.0 or model.sigma is not None or model.n_neighbors is not None:
            raise ValueError("`exponent`, `sigma` and `n_neighbors` do not apply to "
                             "metric='precomputed_kernel'.")
        if X.shape[0] != X.shape[1]:
            raise ValueError("`X` must be a square Gram matrix for metric='precomputed_kernel', "
                             f"got shape {X.shape}.")
        check_symmetric(X, "X", "metric='precomputed_kernel'")
        check_gram(X, "X")
        sm = None
    else:
        sm = resolve_semimetric(model.metric, model.exponent, model.sigma, model.n_neighbors)
        X = prepare_points(X, sm, "X")
    n = X.shape[0]
    w, w_shift = weight_scale(as_weights(sample_weight, n, "sample_weight"))
    kept = None if w is None or (w > 0).all() else np.flatnonzero(w > 0)
    k = check_n_clusters(model.n_clusters, n if kept is None else kept.size)
    if sm is not None:  # what it takes from the points fitted: the median distance, the graph
        sm = sm.for_data(X if kept is None else X[kept])
        if sm.on_graph:  # degree weights: the normalized cut (eq. 34)
            w = np.ones(n) if w is None else w.copy()
            w[slice(None) if kept is None else kept] *= sm.graph.degrees
    if model.algorithm == "r-kgroups":
        if kernel_given or not (sm.is_euclidean_power or sm.precomputed) or sm.exponent != 1.0:
            raise ValueError("`algorithm`='r-kgroups' needs metric='euclidean' with exponent=1 (or "
                             "'precomputed').")
        if w is not None:
            raise ValueError("`algorithm`='r-kgroups' takes no `sample_weight` (R's kgroups has "
                             "none).")
    start = None
    if isinstance(init, str):
        if init not in _INITS:
            raise ValueError(f"`init` must be one of {_INITS} or an array of labels, got {init!r}.")
        if init == "power-kmeans" and (kernel_given or sm.precomputed):
            raise ValueError("`init`='power-kmeans' needs the points themselves, not a "
                             "precomputed matrix.")
        if init == "auto":
            init = "spectral" if sm is not None and sm.on_graph else "k-means++"
    else:
        start, levels = as_labels(init, n, "init")
        if len(levels) != k:
            raise ValueError(f"`init` labels must take k = {k} distinct values, got {len(levels)}.")
        start = start.astype(np.intp) if kept is None else start[kept].astype(np.intp)
        empty = np.flatnonzero(np.bincount(start, minlength=k) == 0)
        if empty.size:
            raise ValueError(
                f"`init` labels leave cluster {int(empty[0])} empty"
                + ("." if kept is None else " among the points of positive weight.")
            )
    return Problem(k, n_init, max_iter, sm, X, w, kept, start, init, w_shift)


def fit_array(estimator, X) -> np.ndarray:
    """``validate_data(estimator, X, dtype=np.float64)`` of a ``fit``, done directly for a
    plain finite float64 ndarray (the array itself, ``n_features_in_`` recorded, an earlier
    ``feature_names_in_`` forgotten): scikit-learn's generic path costs about 100 µs."""
    plain = (type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2 and X.size > 0
             and np.isfinite(X.sum()))
    if not plain:
        return validate_data(estimator, X, dtype=np.float64)
    estimator.n_features_in_ = X.shape[1]
    if hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_
    return X
