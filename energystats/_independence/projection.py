r"""Randomly projected distance covariance (Huang & Huo 2017): the multivariate statistics as
averages of one-dimensional ones along random directions, in O(K n log n) time and O(n) memory.

For u uniform on the unit sphere of :math:`R^p`, :math:`E_u |u^\top z| = \|z\| / C_p`
(:func:`~energystats._operator.sphere_constant`). With independent directions u for x and v
for y, :math:`C_p C_q\, E\,|u^\top(x - x')|\,|v^\top(y - y')| = \|x - x'\|\,\|y - y'\|`, so

.. math::

    \hat{\mathcal V}^2_{n,K} = \frac{C_p C_q}{K} \sum_{k=1}^K \mathcal V_n^2(u_k^\top x, v_k^\top y)

(and the same average of U-statistics) estimates :math:`\mathcal V_n^2(x, y)` without bias over
the directions; each term is the O(n log n) one-dimensional statistic. The distance variances
of :func:`dcor` use a second, independent set of directions for each sample (the same
direction twice would estimate :math:`E|u^\top z|^2`, not :math:`\|z\|^2 / C_p^2`). The
directions come in blocks of orthonormal frames, as in the projection energy test.

The test without permutations (``method="gamma"``): under independence
:math:`n \hat{\mathcal V}^2_{n,K}` tends to :math:`\sum_j \lambda_j Z_j^2` with
:math:`\sum_j \lambda_j = \frac{C_p C_q}{K} \sum_k E|u_k^\top (X - X')|\, E|v_k^\top (Y - Y')|`
and :math:`2 \sum_j \lambda_j^2 = 2 \big(\frac{C_p C_q}{K}\big)^2 \sum_{k,l}
\mathcal V^2(u_k^\top X, u_l^\top X)\, \mathcal V^2(v_k^\top Y, v_l^\top Y)` (the kernel of the
projected statistic is :math:`\frac1K \sum_k \tilde a_k \tilde b_k`; SRB 2007, Theorem 5); the
gamma with that mean and variance gives the p-value (Huang & Huo 2017, Section 4). The mean
distances and the K distance variances (k = l) come from all the data (O(K n log n)); the
K(K - 1)/2 distance covariances between different projections of one sample are estimated
without bias from 200 pairs drawn from ``rng``, each on at most 2,048 rows (unbiased
U-statistics): a fixed cost, whatever n and K.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._operator import (
    N_PROJECTIONS,
    PairwiseOperator,
    approximation_of,
    check_projection,
    line_pair_sums,
    make_operator,
    projected_pair_sums,
    sphere_constant,
)
from .._parallel import THREADS, round_robin, run_threads
from ._data import Variable
from .gamma import gamma_pvalue

__all__ = ["N_PROJECTIONS", "ProjectedStatistics", "check_variables", "project", "projection_gamma"]

#: Rows on which the distance covariances between projections of one sample are estimated.
CROSS_ROWS = 2048
#: Pairs of projections (of the K (K - 1) / 2) whose distance covariances are computed.
CROSS_PAIRS = 200


def check_variables(variables: list[Variable], n_projections) -> int:
    """Check that ``approximation="projection"`` applies to the variables (Euclidean, exponent 1)
    and ``n_projections``, by the operator layer's one validation."""
    features = (
        sum(v.data.shape[1] for v in variables)
        if all(v.data.ndim == 2 for v in variables)
        else None
    )
    return check_projection(n_projections, {v.name: v.semimetric for v in variables}, features)


@dataclass(frozen=True)
class ProjectedStatistics:
    """The projected sums of :func:`project` (see the module)."""

    n: int
    # the projection operators of x (u_k) and y (v_k)
    operators: tuple[PairwiseOperator, PairwiseOperator]
    scale_xy: float
    V_xy: np.ndarray  # per projection pair: n^2 V_n^2(u'x, v'y)
    U_xy: np.ndarray  # per projection pair: sum over i != j of the U-centred products
    mean_x: np.ndarray  # per projection: mean distance of u'x over i != j
    mean_y: np.ndarray
    dvar_x: np.ndarray  # per projection: the unbiased distance variance of u'x (U sum / n(n - 3))
    dvar_y: np.ndarray
    V_xx: np.ndarray | None = None  # independent direction pairs, for the distance variances
    V_yy: np.ndarray | None = None
    U_xx: np.ndarray | None = None
    U_yy: np.ndarray | None = None
    scale_xx: float = 1.0
    scale_yy: float = 1.0

    @property
    def directions(self) -> tuple[np.ndarray, np.ndarray]:
        """u_k for x and v_k for y (K x p, K x q)."""
        return self.operators[0].directions, self.operators[1].directions


def _projection_operator(
    v: Variable, n_projections: int, rng: np.random.Generator
) -> PairwiseOperator:
    estimate = approximation_of("projection", n_projections=n_projections, rng=rng)
    return make_operator(v.data, v.semimetric, approximation=estimate)


def project(
    x: Variable, y: Variable, n_projections: int, rng: np.random.Generator, *, variances: bool
) -> ProjectedStatistics:
    """The projected statistics of two samples; with ``variances``, those of each sample with
    itself along independent direction pairs too."""
    n, p, q = x.n, x.data.shape[1], y.data.shape[1]
    ox, oy = (
        _projection_operator(x, n_projections, rng),
        _projection_operator(y, n_projections, rng),
    )
    xy = projected_pair_sums(ox, oy)
    extra = {}
    if variances:
        wx, wy = (
            _projection_operator(x, n_projections, rng),
            _projection_operator(y, n_projections, rng),
        )
        xx, yy = projected_pair_sums(ox, wx), projected_pair_sums(oy, wy)
        cp, cq = sphere_constant(p), sphere_constant(q)
        extra = dict(
            V_xx=xx[:, 0],
            U_xx=xx[:, 1],
            V_yy=yy[:, 0],
            U_yy=yy[:, 1],
            scale_xx=cp * cp,
            scale_yy=cq * cq,
        )
    norm = n * (n - 3) if n > 3 else np.nan
    return ProjectedStatistics(
        n, (ox, oy), sphere_constant(p) * sphere_constant(q), xy[:, 0], xy[:, 1], xy[:, 2],
        xy[:, 3], xy[:, 4] / norm, xy[:, 5] / norm, **extra,
    )


def _u_dcov_pairs(P: np.ndarray, pairs: list) -> np.ndarray:
    """The unbiased distance covariance of the columns (k, l) of P for each pair, on threads."""
    n = P.shape[0]
    parts = run_threads(
        lambda share: [(i, line_pair_sums(P[:, k], P[:, l])[1]) for i, (k, l) in share],
        round_robin(list(enumerate(pairs)), THREADS),
    )
    out = np.empty(len(pairs))
    for part in parts:
        for i, u in part:
            out[i] = u / (n * (n - 3))
    return out


def projection_gamma(
    x: Variable, y: Variable, stats: ProjectedStatistics, rng: np.random.Generator
) -> tuple[float, float, float, float]:
    """n times the projected V-statistic, its gamma p-value, and the gamma's mean and variance
    (see the module): the K diagonal
    terms of the variance from all rows, the K(K - 1)/2 others estimated without bias from at
    most CROSS_PAIRS of them, drawn from ``rng``, on at most CROSS_ROWS rows."""
    n = stats.n
    if n < 4:
        raise ValueError(f"the projection gamma test needs at least 4 samples, got {n}.")
    K = stats.V_xy.shape[0]
    statistic = stats.scale_xy * stats.V_xy.mean() / n
    mean = stats.scale_xy * float(np.mean(stats.mean_x * stats.mean_y))
    total = float(np.sum(stats.dvar_x * stats.dvar_y))  # k = l
    pairs = [(k, l) for k in range(K) for l in range(k + 1, K)]
    if pairs:
        chosen = [
            pairs[i]
            for i in np.sort(
                rng.choice(len(pairs), size=min(len(pairs), CROSS_PAIRS), replace=False)
            )
        ]
        rows = np.sort(rng.choice(n, size=min(n, CROSS_ROWS), replace=False))
        Px, Py = (op.projections(rows) for op in stats.operators)
        products = _u_dcov_pairs(Px, chosen) * _u_dcov_pairs(Py, chosen)
        total += 2.0 * len(pairs) * float(products.mean())
    variance = 2.0 * (stats.scale_xy / K) ** 2 * total
    return statistic, gamma_pvalue(statistic, mean, variance), mean, variance
