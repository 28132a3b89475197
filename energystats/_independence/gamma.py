r"""A p-value for the distance covariance test without permutations: the exact mean and
variance of the statistic over all n! permutations and the skewness of its limit, matched to
a three-parameter gamma (Pearson type III) distribution.

Under a permutation :math:`\pi` of y's rows the statistic of :func:`dcov_test` is
:math:`n^2 \mathcal V_n^2(x, y_\pi) = \Gamma(\pi) = \sum_{i \ne j} \alpha_{ij}
\beta_{\pi(i)\pi(j)}` with :math:`\alpha = A` (x's double-centred distances; the diagonal
drops out because y's raw distances :math:`\beta = b` have a zero diagonal). This is the
quadratic assignment statistic of Mantel (1967), whose permutation moments have closed forms
(Mantel 1967; Mielke 1979; Hubert 1987): with, for each matrix,
:math:`S_0 = \sum_{i \ne j} \alpha_{ij}`, :math:`S_1 = \sum_{i \ne j} \alpha_{ij}^2`,
:math:`S_2 = \sum_i (\sum_{j \ne i} \alpha_{ij})^2`, :math:`S_3 = S_0^2`, and
:math:`n_{(r)} = n (n-1) \cdots (n-r+1)`,

.. math::

    E\,\Gamma = \frac{S_0 S_0'}{n_{(2)}}, \qquad
    E\,\Gamma^2 = \frac{2 S_1 S_1'}{n_{(2)}}
      + \frac{4 (S_2 - S_1)(S_2' - S_1')}{n_{(3)}}
      + \frac{(S_3 + 2 S_1 - 4 S_2)(S_3' + 2 S_1' - 4 S_2')}{n_{(4)}}

(the three kinds of pairs of index pairs: the same pair, one shared index, none). For the
double-centred A the rows sum to zero, so :math:`\sum_{j \ne i} A_{ij} = -A_{ii}`: every sum
comes from the V-statistic sums and the row sums the statistic needs anyway, in O(n), after
the O(n^2) pass over the tiles (O(n log n) in one dimension) - no permutation, no n x n
array.

A gamma with these two moments (as Gretton et al. 2008 fit HSIC's null) is too light in the
upper tail (measured: 1.5-2 times the nominal rate at 0.01). So the third moment comes from
the limit: under independence :math:`n \mathcal V_n^2 \to \sum_{jk} \mu_j \nu_k Z_{jk}^2`
with :math:`\mu, \nu` the eigenvalues of the two centred distance operators, whose skewness is
:math:`\gamma = 8 \sum \mu^3 \sum \nu^3 / (2 \sum \mu^2 \sum \nu^2)^{3/2}`; the power sums
are traces of powers of the double-centred distance matrices of at most 300 rows
(:math:`\mathrm{tr} A^3 = \sum_{ij} (A^2)_{ij} A_{ij}`; all rows below 300, else 300 evenly
spaced ones, so that the p-value is deterministic), a fixed O(300^3) cost. The Pearson type III
distribution with the exact mean and variance and this skewness,
:math:`c + \mathrm{Gamma}(4/\gamma^2, \sigma\gamma/2)`, gives the upper-tail p-value. Its
calibration against the permutation p-value is measured in ``validation/independence_gamma.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = [
    "SKEW_ROWS",
    "Reference",
    "SquareRoot",
    "gamma_pvalue",
    "gamma_reference",
    "permutation_moments",
    "quadratic_assignment_moments",
    "skewness_of",
]


def quadratic_assignment_moments(
    n: int, alpha: tuple[float, float, float], beta: tuple[float, float, float]
) -> tuple[float, float]:
    r"""Mean and variance of :math:`\Gamma = \sum_{i \ne j} \alpha_{ij} \beta_{\pi(i)\pi(j)}`
    over uniform permutations, for symmetric zero-diagonal matrices given by their sums
    ``(S0, S1, S2)`` (see the module)."""
    a0, a1, a2 = alpha
    b0, b1, b2 = beta
    n2, n3, n4 = n * (n - 1.0), n * (n - 1.0) * (n - 2.0), n * (n - 1.0) * (n - 2.0) * (n - 3.0)
    mean = a0 * b0 / n2
    second = 2.0 * a1 * b1 / n2
    if n >= 3:
        second += 4.0 * (a2 - a1) * (b2 - b1) / n3
    if n >= 4:
        second += (a0 * a0 + 2.0 * a1 - 4.0 * a2) * (b0 * b0 + 2.0 * b1 - 4.0 * b2) / n4
    return mean, max(second - mean * mean, 0.0)


def permutation_moments(
    V_xx: float, rows_x: np.ndarray, squares_y: float, rows_y: np.ndarray
) -> tuple[float, float]:
    r"""Mean and variance over all permutations of :math:`n^2 \mathcal V_n^2(x, y_\pi)`, from
    :math:`\sum_{ij} A_{ij}^2` (``V_xx``), x's distance row sums, :math:`\sum_{ij} b_{ij}^2`
    (``squares_y``) and y's distance row sums."""
    n = rows_x.shape[0]
    diagonal = -2.0 * rows_x / n + rows_x.sum() / n**2  # A_ii; the off-diagonal row sums are -A_ii
    s2 = float(diagonal @ diagonal)
    alpha = (-float(diagonal.sum()), V_xx - s2, s2)
    beta = (float(rows_y.sum()), squares_y, float(rows_y @ rows_y))
    return quadratic_assignment_moments(n, alpha, beta)


@dataclass(frozen=True)
class Reference:
    """A ``scipy.stats`` continuous distribution of one shape parameter, by name, compared by
    value (a result holding it compares equal to one computed the same way): ``pdf``, ``cdf``,
    ``sf`` and ``ppf`` of ``scipy.stats.<family>(shape, loc=loc, scale=scale)``."""

    family: str
    shape: float
    loc: float = 0.0
    scale: float = 1.0

    def _frozen(self):
        return getattr(stats, self.family)(self.shape, loc=self.loc, scale=self.scale)

    def pdf(self, x):
        return self._frozen().pdf(x)

    def cdf(self, x):
        return self._frozen().cdf(x)

    def sf(self, x):
        return self._frozen().sf(x)

    def ppf(self, q):
        return self._frozen().ppf(q)


def gamma_reference(
    mean: float, variance: float, skewness: float | None = None
) -> Reference | None:
    """The gamma with this mean and variance, or the Pearson type III distribution (a shifted
    gamma) with this mean, variance and (positive) skewness; None when the variance or the
    mean is 0 (every permutation gives the same statistic)."""
    if variance <= 0 or mean <= 0:
        return None
    if skewness is None or not skewness > 0:
        return Reference("gamma", float(mean * mean / variance), scale=float(variance / mean))
    shape = 4.0 / skewness**2
    scale = np.sqrt(variance) * skewness / 2.0
    return Reference("gamma", float(shape), loc=float(mean - shape * scale), scale=float(scale))


def gamma_pvalue(
    statistic: float, mean: float, variance: float, skewness: float | None = None
) -> float:
    """The upper tail at ``statistic`` of :func:`gamma_reference`; 1 when the variance is 0
    (every permutation gives the same statistic)."""
    reference = gamma_reference(mean, variance, skewness)
    return 1.0 if reference is None else float(reference.sf(statistic))


@dataclass(frozen=True)
class SquareRoot:
    r"""The distribution of :math:`\sqrt{\max(Y, 0)}` for a distribution Y (a :class:`Reference`)
    (the distance correlation when Y is its square), with Y's ``pdf``, ``cdf``, ``sf`` and
    ``ppf``."""

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


#: Rows of the double-centred matrices whose traces give the limit's skewness.
SKEW_ROWS = 300


def skewness_of(x_sums: tuple[float, float], y_sums: tuple[float, float]) -> float:
    r"""Skewness of :math:`\sum_{jk} \mu_j \nu_k Z_{jk}^2` from the power sums of x's and
    y's distance matrices on the same rows:
    :math:`8 \sum\mu^3 \sum\nu^3 / (2 \sum\mu^2 \sum\nu^2)^{3/2}` (0 when a sample is constant)."""
    (sx2, sx3), (sy2, sy3) = x_sums, y_sums
    if sx2 <= 0 or sy2 <= 0:
        return 0.0
    return float(8.0 * sx3 * sy3 / (2.0 * sx2 * sy2) ** 1.5)
