r"""Where new points go (:meth:`KGroups.predict`, which also places the points of weight 0):
the group whose within dispersion grows least by adding the point, of weight u,

.. math::

    \frac{u}{s_l + u}\, c_l(x), \qquad
    \frac{c_l(x)}{s_l} = g(x, C_l) - \tfrac12 g(C_l, C_l) = \|\phi(x) - m_l\|^2

(the Hartigan gain of eq. 50 for a point joining group l; França, Rizzo & Vogelstein 2020),
from the semimetric values of x to the training points, from a graph's kernel, or in the
feature space of Nyström features; a new point has unit weight (``unit`` in the units of the
fitted weights)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._partition import indicator

__all__ = ["Assignment"]

#: Semimetric values of new points to the training points formed at a time (8 MiB).
BLOCK_VALUES = 2**20


@dataclass(frozen=True)
class Assignment:
    """The rule of a fitted model.

    Attributes
    ----------
    s : ndarray of shape (k,)
        The groups' weights.
    offset : ndarray of shape (k,)
        :math:`B_l / (2 s_l^2)` (semimetric values) or :math:`Q_l / s_l^2` (a kernel:
        the graph's, or the features' with ``Q_l = ||S_l||^2``).
    Zw : ndarray of shape (n, k) or None
        The weighted indicator of the training points (None for features).
    unit : float
        A new point's weight.
    points, semimetric, kept
        The training points and their semimetric (points None: ``predict`` takes the values);
        ``kept``: the columns of the training points of positive weight.
    graph, feature_map, S
        A graph's :class:`~energystats._scale.graph.Graph`; or the Nyström feature map and the
        groups' feature sums S (k x r).
    predicts : bool
        False for a Gram matrix (no values for new points; used for the points of weight 0).
    """

    s: np.ndarray
    offset: np.ndarray
    Zw: np.ndarray | None
    unit: float = 1.0
    points: np.ndarray | None = None
    semimetric: object = None
    kept: np.ndarray | None = None
    graph: object = None
    feature_map: object = None
    S: np.ndarray | None = None
    predicts: bool = True

    @classmethod
    def of(cls, D, labels, w, k, unit=1.0, **given):
        """The rule of a partition on D (the training points' semimetric matrix)."""
        Zw = indicator(labels, k, w)
        if given.get("graph") is not None:  # the kernel's Q_l (the rule is centring-free)
            K = given["graph"].kernel()
            s = Zw.sum(axis=0)
            return cls(s, np.einsum("nl,nl->l", Zw, K @ Zw) / s**2, Zw, unit, **given)
        s = Zw.sum(axis=0)
        return cls(s, np.einsum("nl,nl->l", Zw, D @ Zw) / (2.0 * s**2), Zw, unit, **given)

    @classmethod
    def of_features(cls, feature_map, S, s, unit=1.0):
        """The rule in feature space from the groups' feature sums S and weights s."""
        return cls(s, np.einsum("lr,lr->l", S, S) / s**2, None, unit, feature_map=feature_map,
                   S=S)

    def _argmin(self, energy, u) -> np.ndarray:
        s = self.s
        return np.argmin(s / (s + u) * energy, axis=1)

    def __call__(self, new: np.ndarray) -> np.ndarray:
        """Labels of ``new``: points, or semimetric values to every training point."""
        s, u = self.s, self.unit
        if self.feature_map is not None:
            Phi, residual = self.feature_map.transform(new, residual=True)
            base = np.einsum("ij,ij->i", Phi, Phi) + residual
            return self._argmin(base[:, None] - 2.0 * (Phi @ self.S.T) / s + self.offset, u)
        if self.graph is not None:
            Kx, Kxx = self.graph.new_points(new)  # the degree 1 / K(x, x) weighs the point
            cost = Kxx[:, None] - 2.0 * np.asarray(Kx @ self.Zw) / s + self.offset
            return self._argmin(cost, (u / Kxx)[:, None])
        if self.points is None:
            values = new if self.kept is None else new[:, self.kept]
            return self._argmin(values @ self.Zw / s - self.offset, u)
        step = max(1, BLOCK_VALUES // self.Zw.shape[0])
        return np.concatenate([self._argmin(self.semimetric(new[a : a + step], self.points)
                                            @ self.Zw / s - self.offset, u)
                               for a in range(0, new.shape[0], step)])
