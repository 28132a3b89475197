r"""A p-value for the distance covariance test without permutations: the exact mean and variance
of the statistic over all n! permutations and the skewness of its limit, matched to a Pearson
type III (shifted gamma) distribution.

Under a permutation :math:`\pi` of y's rows, :math:`n^2 \mathcal V_n^2(x, y_\pi) = \Gamma(\pi)
= \sum_{i \ne j} \alpha_{ij} \beta_{\pi(i)\pi(j)}` with :math:`\alpha = A` (x's double-centred
distances) and :math:`\beta = b` (y's raw ones, zero diagonal): the quadratic assignment
statistic of Mantel (1967), whose permutation moments have closed forms (Mantel 1967; Mielke
1979; Hubert 1987). With, for each matrix, :math:`S_0 = \sum_{i \ne j} \alpha_{ij}`,
:math:`S_1 = \sum_{i \ne j} \alpha_{ij}^2`, :math:`S_2 = \sum_i (\sum_{j \ne i} \alpha_{ij})^2`
and :math:`n_{(r)} = n (n-1) \cdots (n-r+1)`,

.. math::

    E\,\Gamma = \frac{S_0 S_0'}{n_{(2)}}, \qquad
    E\,\Gamma^2 = \frac{2 S_1 S_1'}{n_{(2)}} + \frac{4 (S_2 - S_1)(S_2' - S_1')}{n_{(3)}}
      + \frac{(S_0^2 + 2 S_1 - 4 S_2)(S_0'^2 + 2 S_1' - 4 S_2')}{n_{(4)}}.

For the double-centred A, :math:`\sum_{j \ne i} A_{ij} = -A_{ii}`: every sum comes from the
statistic's sums and the row sums, in O(n). Two moments make the gamma's upper tail too light
(1.5-2 times the nominal rate at 0.01), so the third comes from the limit :math:`n \mathcal
V_n^2 \to \sum_{jk} \mu_j \nu_k Z_{jk}^2`, whose skewness is :math:`8 \sum \mu^3 \sum \nu^3 /
(2 \sum \mu^2 \sum \nu^2)^{3/2}`, with power sums the traces of powers of the double-centred
matrices of at most :data:`SKEW_ROWS` rows (all below, else that many evenly spaced ones: the
p-value stays deterministic). Calibration: ``validation/independence_gamma.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._scale import GraphMatrix, Streamed
from .._scale.concordance import line_row_sums
from .dcov import centred
from .variables import Variable

__all__ = ["SKEW_ROWS", "Reference", "SquareRoot", "gamma_pvalue", "gamma_reference",
           "moments", "raw_terms", "skewness"]

#: Rows of the double-centred matrices whose traces give the limit's skewness.
SKEW_ROWS = 300


def raw_terms(v: Variable, D=None) -> tuple[np.ndarray, float]:
    r"""The row sums :math:`a_{i\cdot}` and :math:`\sum_{ij} a_{ij}^2` of the variable's raw
    distance matrix (``D``, when held already)."""
    if v.line is not None and D is None:
        x = v.line - v.line.mean()
        return line_row_sums(v.line), 2.0 * x.size * float(x @ x) - 2.0 * float(x.sum()) ** 2
    D = v.matrix() if D is None else D
    if isinstance(D, Streamed):  # in bands of 2^21 values
        n, step = D.shape[0], max(1, 2**21 // D.shape[0])
        bands = (D[np.arange(a, min(a + step, n))] for a in range(0, n, step))
        return D.sum(axis=1), float(sum(np.vdot(T, T) for T in bands))
    return D.sum(axis=1), float(np.vdot(D, D))


def qap_moments(n: int, alpha, beta) -> tuple[float, float]:
    r"""Mean and variance of :math:`\Gamma = \sum_{i \ne j} \alpha_{ij} \beta_{\pi(i)\pi(j)}`
    over uniform permutations, from the sums (S0, S1, S2) of two symmetric zero-diagonal
    matrices (the module's formulas)."""
    (a0, a1, a2), (b0, b1, b2) = alpha, beta
    n2, n3, n4 = n * (n - 1.0), n * (n - 1.0) * (n - 2.0), n * (n - 1.0) * (n - 2.0) * (n - 3.0)
    mean = a0 * b0 / n2
    second = 2.0 * a1 * b1 / n2
    if n >= 3:
        second += 4.0 * (a2 - a1) * (b2 - b1) / n3
    if n >= 4:
        second += (a0 * a0 + 2.0 * a1 - 4.0 * a2) * (b0 * b0 + 2.0 * b1 - 4.0 * b2) / n4
    return mean, max(second - mean * mean, 0.0)


def moments(x: Variable, y: Variable, G: np.ndarray, held=(None, None)) -> tuple[float, float]:
    r"""Mean and variance over all permutations of :math:`n^2 \mathcal V_n^2(x, y_\pi)`, from
    G (:func:`~.dcov.gram`: :math:`\sum_{ij} A_{ij}^2` is G[0, 0]) and the raw terms."""
    rows_x, _ = raw_terms(x, held[0])
    rows_y, squares_y = raw_terms(y, held[1])
    n = rows_x.shape[0]
    diagonal = -2.0 * rows_x / n + rows_x.sum() / n**2  # A_ii; A's off-diagonal row sums: -A_ii
    s2 = float(diagonal @ diagonal)
    alpha = (-float(diagonal.sum()), float(G[0, 0]) - s2, s2)
    beta = (float(rows_y.sum()), squares_y, float(rows_y @ rows_y))
    return qap_moments(n, alpha, beta)


def power_sums(v: Variable) -> tuple[float, float]:
    """tr C^2 and tr C^3 of the double-centred distance matrix C on the skewness rows."""
    n = v.n
    rows = np.arange(n) if n <= SKEW_ROWS else np.unique(
        np.linspace(0, n - 1, SKEW_ROWS).round().astype(np.intp))
    if v.semimetric.precomputed:
        D = v.data[np.ix_(rows, rows)]
    elif v.semimetric.on_graph:  # the whole graph's semimetric on these rows
        D = GraphMatrix(v.semimetric.graph.kernel())[rows][:, rows]
    else:
        D = v.semimetric(v.data[rows], v.data[rows])
    C = centred(D)
    return float(np.vdot(C, C)), float(np.vdot(C @ C, C))


def skewness(x: Variable, y: Variable) -> float:
    r"""Skewness :math:`8 \sum\mu^3 \sum\nu^3 / (2 \sum\mu^2 \sum\nu^2)^{3/2}` of the limit (0
    when a sample is constant)."""
    (sx2, sx3), (sy2, sy3) = power_sums(x), power_sums(y)
    if sx2 <= 0 or sy2 <= 0:
        return 0.0
    return float(8.0 * sx3 * sy3 / (2.0 * sx2 * sy2) ** 1.5)


@dataclass(frozen=True)
class Reference:
    """A ``scipy.stats`` distribution of one shape parameter, by name, compared by value:
    ``pdf``, ``cdf``, ``sf`` and ``ppf`` of ``scipy.stats.<family>(shape, loc, scale)``."""

    family: str
    shape: float
    loc: float = 0.0
    scale: float = 1.0

    def __getattr__(self, name):
        if name not in ("pdf", "cdf", "sf", "ppf"):
            raise AttributeError(name)
        return getattr(getattr(stats, self.family)(self.shape, loc=self.loc, scale=self.scale),
                       name)


def gamma_reference(mean: float, variance: float, skew: float | None = None):
    """The gamma with this mean and variance, or the Pearson type III with this (positive)
    skewness too; None when the variance or the mean is 0 (a point mass)."""
    if variance <= 0 or mean <= 0:
        return None
    if skew is None or not skew > 0:
        return Reference("gamma", float(mean * mean / variance), scale=float(variance / mean))
    shape, scale = 4.0 / skew**2, np.sqrt(variance) * skew / 2.0
    return Reference("gamma", float(shape), loc=float(mean - shape * scale), scale=float(scale))


def gamma_pvalue(statistic: float, mean: float, variance: float, skew: float | None = None):
    """The upper tail of :func:`gamma_reference` at ``statistic``; 1 for a point mass."""
    reference = gamma_reference(mean, variance, skew)
    return 1.0 if reference is None else float(reference.sf(statistic))


@dataclass(frozen=True)
class SquareRoot:
    r"""The distribution of :math:`\sqrt{\max(Y, 0)}` for Y a :class:`Reference` (dCor when Y
    is dCor^2's)."""

    base: Reference

    def pdf(self, r):
        r = np.asarray(r, dtype=float)
        return np.where(r > 0, 2.0 * r * self.base.pdf(r * r), 0.0)

    def cdf(self, r):
        r = np.asarray(r, dtype=float)
        return np.where(r < 0, 0.0, self.base.cdf(r * r))

    def sf(self, r):
        r = np.asarray(r, dtype=float)
        return np.where(r < 0, 1.0, self.base.sf(r * r))

    def ppf(self, q):
        return np.sqrt(np.maximum(self.base.ppf(q), 0.0))
