"""Where new points go: the rule of :meth:`KGroups.predict`, which also labels the points
of weight 0 in ``fit``. One object per fitted model, built from the fit's pairwise
operator: from semimetric values to the training points, from a Gram matrix, in the
feature space of a kernel known by features (Nyström), or through a graph's neighbours."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._config import check_fits
from .._neighbors import Graph
from .._operator import FeatureMap, PairwiseOperator, indicator
from .._semimetric import Semimetric

__all__ = ["Assignment", "feature_assignment", "make_assignment"]


class Assignment:
    r"""Each new point goes to the group whose energy grows least by adding it: the group l
    that minimises :math:`\frac{s_l}{s_l + 1}\,\|\phi(x) - m_l\|^2`, the squared
    feature-space distance to the weighted centroid scaled as in the Hartigan gain (eq. 50);
    in semimetric form :math:`\frac{s_l}{s_l + 1}\,[g(x, C_l) - \tfrac12 g(C_l, C_l)]`.
    A new point has unit weight: ``unit`` in the units of the fitted weights (which
    :func:`weight_scale` may have divided by a power of two)."""

    #: whether :meth:`KGroups.predict` can use it (a Gram matrix gives no values for new points)
    predicts: bool = True

    def __call__(self, new: np.ndarray, self_kernel: np.ndarray | None = None) -> np.ndarray:
        """Labels of new points: ``new`` is what ``predict`` takes (points, or semimetric
        values to every training point); for a Gram matrix, kernel values to every training
        point and ``self_kernel`` K(x, x)."""
        raise NotImplementedError  # pragma: no cover


@dataclass(frozen=True)
class _SemimetricAssignment(Assignment):
    """The rule from semimetric values to the training points (of positive weight,
    ``kept``): given (precomputed), or computed from the ``points`` in blocks of ``block``
    new points (the fit operator's :meth:`~energystats._operator.PairwiseOperator.block_rows`)."""

    semimetric: Semimetric
    points: np.ndarray | None
    kept: np.ndarray | None
    Zw: np.ndarray
    within: np.ndarray
    block: int
    unit: float = 1.0

    def __call__(self, new, self_kernel=None):
        s = self.Zw.sum(axis=0)
        m, n = new.shape[0], self.Zw.shape[0]
        k = self.Zw.shape[1]
        values = None
        if self.points is None:
            values = new if self.kept is None else new[:, self.kept]
        step = m if values is not None else max(1, min(m, self.block))
        check_fits(
            f"predict on {m} points ({step} x {n} semimetric values at a time)",
            8 * (step * n + m * k),
        )
        out = np.empty(m, dtype=np.intp)
        for a in range(0, m, step):
            block = (
                values[a : a + step]
                if values is not None
                else self.semimetric(new[a : a + step], self.points)
            )
            cost = s / (s + self.unit) * (block @ self.Zw / s - 0.5 * self.within)
            out[a : a + step] = np.argmin(cost, axis=1)
        return out


@dataclass(frozen=True)
class _GramAssignment(Assignment):
    """The rule from a Gram matrix: K(x, x) - 2 g_l(x) / s_l + Q_l / s_l^2, times
    s_l / (s_l + 1)."""

    kept: np.ndarray | None
    Zw: np.ndarray
    Q: np.ndarray
    unit: float = 1.0
    predicts = False

    def __call__(self, new, self_kernel=None):
        Gx = new if self.kept is None else new[:, self.kept]
        s = self.Zw.sum(axis=0)
        cost = (
            s / (s + self.unit) * (self_kernel[:, None] - 2.0 * (Gx @ self.Zw) / s + self.Q / s**2)
        )
        return np.argmin(cost, axis=1)


@dataclass(frozen=True)
class _GraphAssignment(Assignment):
    """The rule on a graph's kernel (``metric="nearest_neighbors"``): a new point joins the
    graph through its nearest points (:meth:`Graph.new_points`), with its degree as its
    weight (times ``unit``); then as from a Gram matrix, with the groups' Q_l of the
    uncentred kernel K (the rule is the same in any centring)."""

    graph: Graph
    Zw: np.ndarray
    Q: np.ndarray
    unit: float = 1.0

    def __call__(self, new, self_kernel=None):
        Kx, Kxx = self.graph.new_points(new)
        s, w_x = self.Zw.sum(axis=0), self.unit / Kxx  # d_x = 1 / K(x, x)
        cost = s / (s + w_x[:, None]) * (
            Kxx[:, None] - 2.0 * np.asarray(Kx @ self.Zw) / s + self.Q / s**2
        )
        return np.argmin(cost, axis=1)


@dataclass(frozen=True)
class _FeatureAssignment(Assignment):
    """The rule in feature space: ||phi(x)||^2 - 2 phi(x).S_l / s_l + Q_l / s_l^2 with the
    group sums S_l of the features, where ||phi(x)||^2 includes the residual outside the
    landmarks' span (the centroids lie in it), so that the rule is exact when every
    training point is a landmark."""

    feature_map: FeatureMap
    S: np.ndarray
    Q: np.ndarray
    s: np.ndarray
    unit: float = 1.0

    def __call__(self, new, self_kernel=None):
        Phi, residual = self.feature_map.transform(new, residual=True)
        norms = np.einsum("ij,ij->i", Phi, Phi) + residual
        s = self.s
        return np.argmin(
            s / (s + self.unit) * (norms[:, None] - 2.0 * (Phi @ self.S.T) / s + self.Q / s**2),
            axis=1,
        )


def feature_assignment(
    feature_map: FeatureMap, S: np.ndarray, s: np.ndarray, unit: float = 1.0
) -> Assignment:
    """The rule in feature space from the groups' feature sums S (k x r, centred by the map's
    mean) and weights s; ``unit``, a new point's weight."""
    return _FeatureAssignment(feature_map, S, np.einsum("lr,lr->l", S, S), s, unit)


def make_assignment(
    op: PairwiseOperator,
    semimetric: Semimetric | None,
    points: np.ndarray,
    kept: np.ndarray | None,
    labels: np.ndarray,
    w: np.ndarray,
    within: np.ndarray,
    k: int,
    unit: float = 1.0,
) -> Assignment:
    """The rule for a model fitted on the operator ``op`` (the kernel, or D for R's rule)
    of ``points`` (the training points of positive weight, or their matrix), with groups
    ``labels``, weights ``w`` and g(C_l, C_l) ``within``; ``unit``, a new point's weight."""
    Zw = indicator(labels, k, w)
    if semimetric is not None and semimetric.on_graph:
        K = semimetric.graph.kernel()
        return _GraphAssignment(semimetric.graph, Zw, np.einsum("nl,nl->l", Zw, K @ Zw), unit)
    if op.features is not None:
        return feature_assignment(op.feature_map, Zw.T @ op.features, Zw.sum(axis=0), unit)
    if semimetric is None:
        return _GramAssignment(kept, Zw, np.diag(op.quadratic(Zw)), unit)
    points = None if semimetric.precomputed else points
    return _SemimetricAssignment(semimetric, points, kept, Zw, within, op.block_rows(), unit)
