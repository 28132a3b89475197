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

from .._operator.projection import check_projection, random_directions, sphere_constant
from .._resample import null_distribution, permutations, pvalue
from .._scale.concordance import abs_product_sum, abs_product_sums, line_row_sums
from .dcov import _line_gram
from .gamma import SquareRoot, gamma_pvalue, gamma_reference
from .variables import Variable

__all__ = ["projected_squares", "projected_test"]

#: Rows on which the covariances between projections of one sample are estimated.
CROSS_ROWS = 2048
#: Pairs of projections whose covariances are computed.
CROSS_PAIRS = 200


def _directions(v: Variable, K: int, rng) -> np.ndarray:
    """The variable's points on K random directions (n x K)."""
    return v.data @ random_directions(K, v.data.shape[1], rng).T


def _pair_sums(P: np.ndarray, Q: np.ndarray, unbiased: bool) -> np.ndarray:
    """The centred sum of each column pair (P[:, k], Q[:, k])."""
    return np.array([_line_gram([P[:, k], Q[:, k]], unbiased)[0, 1] for k in range(P.shape[1])])


def _check(variables: list[Variable], n_projections) -> int:
    return check_projection(n_projections, {v.name: v.semimetric for v in variables},
                            sum(v.data.shape[1] for v in variables))


def projected_squares(variables: list[Variable], estimator: str, approximation: str,
                      n_projections, rng) -> np.ndarray:
    """The 2 x 2 squares of :func:`~.dcov.estimates`, estimated from projections."""
    from .._random import as_generator

    if approximation != "projection":
        raise ValueError(f"`approximation` must be None or 'projection', got {approximation!r}.")
    x, y = variables
    n = x.n
    if estimator not in ("V", "U") or (estimator == "U" and n < 4):
        from .dcov import estimates

        estimates(variables, estimator)  # its messages
    K = _check(variables, n_projections)
    gen = as_generator(rng)
    Px, Py, Wx, Wy = (_directions(v, K, gen) for v in (x, y, x, y))
    cp, cq = sphere_constant(x.data.shape[1]), sphere_constant(y.data.shape[1])
    unbiased = estimator == "U"
    norm = n * (n - 3.0) if unbiased else float(n * n)
    S = np.empty((2, 2))
    S[0, 1] = S[1, 0] = cp * cq * _pair_sums(Px, Py, unbiased).mean() / norm
    S[0, 0] = cp * cp * _pair_sums(Px, Wx, unbiased).mean() / norm
    S[1, 1] = cq * cq * _pair_sums(Py, Wy, unbiased).mean() / norm
    return np.maximum(S, 0.0) if not unbiased else S


def projected_test(x: Variable, y: Variable, statistic: str, B: int, gen, progress,
                   method: str, n_projections):
    """:func:`~.testing.dcov_test` / ``dcor_test`` with ``approximation="projection"``: the
    projected statistic, its permutation null (the same permutation for every projection
    pair) or the gamma of the module's docstring."""
    from .testing import IndependenceTestResult

    n = x.n
    K = _check([x, y], n_projections)
    stream = gen.spawn(1)[0]  # the directions' own stream: the permutations are the test's
    Px, Py = _directions(x, K, stream), _directions(y, K, stream)
    scale = sphere_constant(x.data.shape[1]) * sphere_constant(y.data.shape[1]) / K
    observed = float(_pair_sums(Px, Py, False).sum())
    null, count, moments = None, 0, None
    if method == "gamma":
        p, *moments = _gamma(Px, Py, scale, stream)
    else:
        rx = [line_row_sums(Px[:, k]) for k in range(K)]
        ry = [line_row_sums(Py[:, k]) for k in range(K)]

        def evaluate(P):  # the same permutation for every projection pair
            return sum(abs_product_sums(Px[:, k], Py[P, k]) - 2.0 / n * (ry[k][P] @ rx[k])
                       + rx[k].sum() * ry[k].sum() / n**2 for k in range(K))

        null = null_distribution(evaluate, lambda m: permutations(gen, n, m), B, 8.0 * n * K,
                                 progress, "permutations")
        count = B
        bound = sum(abs_product_sum(Px[:, k], Px[:, k]) * abs_product_sum(Py[:, k], Py[:, k])
                    for k in range(K))
        p = pvalue(observed, null, scale=4.0 * np.sqrt(64.0 * n * bound),
                   what="the projected distance covariance")
    to_stat = lambda s: np.asarray(s) * scale / n  # noqa: E731  n V^2, projected
    reference = None if moments is None else gamma_reference(*moments)
    estimate = np.sqrt(max(float(to_stat(observed)) / n, 0.0))
    if statistic == "dCor":  # dCor^2 = n V^2 / (n sqrt(dVar^2(x) dVar^2(y)))
        Wx, Wy = _directions(x, K, stream), _directions(y, K, stream)
        cp, cq = sphere_constant(x.data.shape[1]), sphere_constant(y.data.shape[1])
        vx = cp * cp * _pair_sums(Px, Wx, False).mean() / n**2
        vy = cq * cq * _pair_sums(Py, Wy, False).mean() / n**2
        d = n * np.sqrt(vx * vy)
        to_stat = (lambda s: np.sqrt(np.clip(np.asarray(s) * scale / n / d, 0.0, 1.0))  # noqa: E731
                   ) if d > 0 else (lambda s: np.zeros_like(np.asarray(s, float)))
        estimate = float(to_stat(observed))
        if moments is not None:
            square = gamma_reference(moments[0] / d, moments[1] / d**2) if d > 0 else None
            reference = None if square is None else SquareRoot(square)
    return IndependenceTestResult(
        statistic=float(to_stat(observed)), pvalue=float(p),
        null_distribution=None if null is None else np.asarray(to_stat(null), dtype=float),
        n_resamples=count, statistic_name=statistic, estimate=float(estimate), estimates=None,
        method=method, n_samples=n, reference_distribution=reference)


def _gamma(Px: np.ndarray, Py: np.ndarray, scale: float, rng) -> tuple[float, float, float]:
    """The gamma p-value of n times the projected V-statistic, and that gamma's mean and
    variance (the module's docstring)."""
    n, K = Px.shape
    if n < 4:
        raise ValueError(f"the projection gamma test needs at least 4 samples, got {n}.")
    statistic = scale * _pair_sums(Px, Py, False).sum() / n**2 * n

    def mean_distance(P):
        return np.array([line_row_sums(P[:, k]).sum() / (n * (n - 1.0)) for k in range(K)])

    def dvar(P):
        return _pair_sums(P, P, True) / (n * (n - 3.0))

    mean = scale * K * float(np.mean(mean_distance(Px) * mean_distance(Py)))
    total = float(np.sum(dvar(Px) * dvar(Py)))
    pairs = [(k, l) for k in range(K) for l in range(k + 1, K)]
    if pairs:
        chosen = np.sort(rng.choice(len(pairs), size=min(len(pairs), CROSS_PAIRS), replace=False))
        rows = np.sort(rng.choice(n, size=min(n, CROSS_ROWS), replace=False))
        m = rows.size
        products = [_line_gram([Px[rows, k], Px[rows, l]], True)[0, 1]
                    * _line_gram([Py[rows, k], Py[rows, l]], True)[0, 1] / (m * (m - 3.0)) ** 2
                    for k, l in (pairs[i] for i in chosen)]
        total += 2.0 * len(pairs) * float(np.mean(products))
    variance = 2.0 * scale**2 * total
    return gamma_pvalue(statistic, mean, variance), mean, variance
