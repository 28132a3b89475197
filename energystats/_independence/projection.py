r"""Randomly projected distance covariance (Huang & Huo 2017): the multivariate statistics as
averages of one-dimensional ones along random directions, in O(K n log n) time and O(n) memory.

For u uniform on the unit sphere of :math:`R^p`, :math:`E_u |u^\top z| = \|z\| / C_p`. With
independent directions u for x and v for y, :math:`C_p C_q E\,|u^\top(x - x')|\,|v^\top(y - y')|
= \|x - x'\|\,\|y - y'\|`, so

.. math::

    \hat{\mathcal V}^2_{n,K} = \frac{C_p C_q}{K} \sum_{k=1}^K \mathcal V_n^2(u_k^\top x,
    v_k^\top y)

(and the same average of U-statistics) estimates :math:`\mathcal V_n^2(x, y)` without bias over
the directions. The distance variances use a second, independent set of directions per sample.

Without permutations (``method="gamma"``): :math:`n \hat{\mathcal V}^2_{n,K} \to \sum_j
\lambda_j Z_j^2` with :math:`\sum_j \lambda_j = \frac{C_p C_q}{K} \sum_k E|u_k^\top (X - X')|
E|v_k^\top (Y - Y')|` and :math:`2 \sum_j \lambda_j^2 = 2 (\frac{C_p C_q}{K})^2 \sum_{k,l}
\mathcal V^2(u_k^\top X, u_l^\top X)\, \mathcal V^2(v_k^\top Y, v_l^\top Y)`; the gamma with
that mean and variance gives the p-value (Huang & Huo 2017, Section 4). The K(K - 1)/2
covariances between projections of one sample are estimated without bias from
:data:`CROSS_PAIRS` pairs drawn from ``rng``, on at most :data:`CROSS_ROWS` rows.
"""

from __future__ import annotations

import numpy as np

from .._random import as_generator
from .._resample import null_distribution, permutations, pvalue
from .._scale.concordance import abs_product_sum, abs_product_sums, line_gram, line_row_sums
from .._scale.projection import check_projection, random_directions, sphere_constant
from .variables import Variable

__all__ = ["projected_null", "projected_squares"]

#: Rows on which the covariances between projections of one sample are estimated.
CROSS_ROWS = 2048
#: Pairs of projections whose covariances are computed.
CROSS_PAIRS = 200


def _directions(v: Variable, K: int, rng) -> np.ndarray:
    """The variable's points on K random directions (n x K)."""
    return v.data @ random_directions(K, v.data.shape[1], rng).T


def _pair_sums(P: np.ndarray, Q: np.ndarray, unbiased: bool) -> np.ndarray:
    """The centred sum of each column pair (P[:, k], Q[:, k])."""
    return np.array([line_gram([P[:, k], Q[:, k]], unbiased)[0, 1] for k in range(P.shape[1])])


def _check(variables: list[Variable], n_projections) -> int:
    return check_projection("projection", n_projections,
                            {v.name: v.semimetric for v in variables},
                            sum(v.data.shape[1] for v in variables))


def _constants(x: Variable, y: Variable) -> tuple[float, float]:
    return sphere_constant(x.data.shape[1]), sphere_constant(y.data.shape[1])


def projected_squares(variables: list[Variable], estimator: str, n_projections, rng):
    """The 2 x 2 squares of :func:`~.dcov.estimates` (V or U, sums over n^2 or n(n - 3)),
    estimated from projections."""
    x, y = variables
    n = x.n
    K = _check(variables, n_projections)
    gen = as_generator(rng)
    Px, Py, Wx, Wy = (_directions(v, K, gen) for v in (x, y, x, y))
    cp, cq = _constants(x, y)
    unbiased = estimator == "U"
    norm = n * (n - 3.0) if unbiased else float(n * n)
    S = np.empty((2, 2))
    S[0, 1] = S[1, 0] = cp * cq * _pair_sums(Px, Py, unbiased).mean() / norm
    S[0, 0] = cp * cp * _pair_sums(Px, Wx, unbiased).mean() / norm
    S[1, 1] = cq * cq * _pair_sums(Py, Wy, unbiased).mean() / norm
    return S if unbiased else np.maximum(S, 0.0)


def projected_null(x: Variable, y: Variable, B: int, gen, progress, method: str,
                   n_projections) -> dict:
    """The projected test of independence: n times the projected V-statistic (``statistic``),
    its p-value from B permutations (the same one for every projection pair; ``null``) or
    the gamma's ``mean`` and ``variance`` (``method="gamma"``), and the distance variances'
    estimate ``dvar`` (its square root times n divides the statistic into dCor^2)."""
    n = x.n
    K = _check([x, y], n_projections)
    stream = gen.spawn(1)[0]  # the directions' own stream: the permutations are the test's
    Px, Py = _directions(x, K, stream), _directions(y, K, stream)
    cp, cq = _constants(x, y)
    scale = cp * cq / K / n  # sums -> n V^2
    out = {"statistic": float(_pair_sums(Px, Py, False).sum()) * scale, "null": None}
    if method == "gamma":
        if n < 4:
            raise ValueError(f"the projection gamma test needs at least 4 samples, got {n}.")
        out["mean"], out["variance"] = _gamma_moments(Px, Py, cp * cq / K, stream)
    else:
        rx, ry = [line_row_sums(Px[:, k]) for k in range(K)], [line_row_sums(Py[:, k])
                                                                for k in range(K)]

        def evaluate(P):  # the same permutation for every projection pair
            return scale * sum(abs_product_sums(Px[:, k], Py[P, k]) - 2.0 / n * (ry[k][P] @ rx[k])
                               + rx[k].sum() * ry[k].sum() / n**2 for k in range(K))

        out["null"] = null_distribution(evaluate, lambda m: permutations(gen, n, m), B,
                                        8.0 * n * K, progress, "permutations")
        bound = sum(abs_product_sum(Px[:, k], Px[:, k]) * abs_product_sum(Py[:, k], Py[:, k])
                    for k in range(K))
        out["pvalue"] = pvalue(out["statistic"], out["null"],
                               scale=4.0 * scale * np.sqrt(64.0 * n * bound),
                               what="the projected distance covariance")
    Wx, Wy = _directions(x, K, stream), _directions(y, K, stream)
    out["dvar"] = np.sqrt(cp * cp * _pair_sums(Px, Wx, False).mean()
                          * cq * cq * _pair_sums(Py, Wy, False).mean()) / n**2
    return out


def _gamma_moments(Px: np.ndarray, Py: np.ndarray, c: float, rng) -> tuple[float, float]:
    """Mean and variance of the limit of n times the projected V-statistic (the module's
    docstring; c = C_p C_q / K)."""
    n, K = Px.shape

    def mean_distance(P):
        return np.array([line_row_sums(P[:, k]).sum() / (n * (n - 1.0)) for k in range(K)])

    def dvar(P):
        return _pair_sums(P, P, True) / (n * (n - 3.0))

    mean = c * K * float(np.mean(mean_distance(Px) * mean_distance(Py)))
    total = float(np.sum(dvar(Px) * dvar(Py)))
    pairs = [(k, l) for k in range(K) for l in range(k + 1, K)]
    if pairs:
        chosen = np.sort(rng.choice(len(pairs), size=min(len(pairs), CROSS_PAIRS), replace=False))
        rows = np.sort(rng.choice(n, size=min(n, CROSS_ROWS), replace=False))
        m = rows.size
        products = [line_gram([Px[rows, k], Px[rows, l]], True)[0, 1]
                    * line_gram([Py[rows, k], Py[rows, l]], True)[0, 1] / (m * (m - 3.0)) ** 2
                    for k, l in (pairs[i] for i in chosen)]
        total += 2.0 * len(pairs) * float(np.mean(products))
    return mean, 2.0 * c**2 * total
