r"""Mean distances of the standard member of a ``scipy.stats`` continuous family: the two
expectations the one-dimensional energy goodness-of-fit statistic needs.

For Y with cdf F, mean :math:`\mu` and partial expectation :math:`G(z) = E[Y\,1\{Y \le z\}]`,

.. math::

    E|z - Y| = z\,(2F(z) - 1) + \mu - 2G(z) = 2\int_{-\infty}^z F(t)\,dt + \mu - z, \qquad
    E|Y - Y'| = 2\int F(t)\,(1 - F(t))\,dt .

Closed forms for the families below (Y with loc 0, scale 1; shape parameters as in scipy),
accurate to rounding (the tests check them against quadrature to 1e-11 and the definition);
every other family from one exact table per shape parameters (:mod:`._cdf_table`: panels of
Chebyshev series of the cdf and the survival function, resolved to rounding), shared by the
rows with those shapes: its accuracy is that of the family's ``cdf`` and ``sf``. The
statistic of x against loc + scale * Y uses z = (x - loc) / scale, so only the standard member
is needed.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from .._resampling import tie_scale
from ._cdf_table import mean_distances_by_table

__all__ = ["energy_scale", "mean_distances"]


def energy_scale(statistic: float, n: int, between: float, spread: float) -> float:
    r"""The tie rule (:func:`~energystats._resampling.tie_scale`) fed with the terms of an energy
    goodness-of-fit statistic :math:`t = n(2m - b - p)`, m the mean of the n distances
    :math:`E|y_i - Y|`, b = E|Y - Y'| (``between``) and p the mean of the n^2 distances
    :math:`|y_i - y_j|` (Székely & Rizzo 2005, eq. 3.1): all three are non-negative, so the
    terms sum in absolute value to :math:`n(2m + b + p) = t + 2n(b + p)`, and
    :math:`p \le \sqrt{2\,\mathrm{var}(y)}` (Cauchy-Schwarz; ``spread`` is
    :math:`\sqrt{\mathrm{var}(y)}`, or its bound). The pair sum runs through a cumulative sum
    of n terms: the run is n."""
    return tie_scale(abs(statistic) + 2.0 * n * (between + np.sqrt(2.0) * spread), run=n)


def _norm(z):
    return (
        2.0 * z * special.ndtr(z) + 2.0 * np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi) - z,
        2.0 / np.sqrt(np.pi),
    )


def _expon(z):
    inside = np.maximum(z, 0.0)
    return np.where(z > 0, z - 1.0 + 2.0 * np.exp(-inside), 1.0 - z), 1.0


def _uniform(z):
    return np.where((z >= 0) & (z <= 1), z * z - z + 0.5, np.abs(z - 0.5)), 1.0 / 3.0


def _gamma(z, a):
    # G(z) = a F_{a+1}(z): the partial mean of the gamma is a times the cdf with shape a + 1
    inside = np.maximum(z, 0.0)
    g = (
        inside * (2.0 * special.gammainc(a, inside) - 1.0) + a
        - 2.0 * a * special.gammainc(a + 1.0, inside)
    )
    between = 2.0 * np.exp(special.gammaln(a + 0.5) - special.gammaln(a)) / np.sqrt(np.pi)
    return np.where(z > 0, g, a - z), between


def _lognorm(z, s):
    # Y = exp(s N): mean exp(s^2 / 2), G(z) = exp(s^2 / 2) Phi((log z - s^2) / s)
    mean = np.exp(0.5 * s * s)
    with np.errstate(divide="ignore"):
        log_z = np.log(np.maximum(z, 0.0))
    g = (
        z * (2.0 * special.ndtr(log_z / s) - 1.0) + mean
        - 2.0 * mean * special.ndtr((log_z - s * s) / s)
    )
    return np.where(z > 0, g, mean - z), 2.0 * mean * (2.0 * special.ndtr(s / np.sqrt(2.0)) - 1.0)


def _weibull_min(z, c):
    # G(z) = Gamma(1 + 1/c) P(1 + 1/c, z^c), P the regularised lower incomplete gamma
    mean = special.gamma(1.0 + 1.0 / c)
    power = np.maximum(z, 0.0) ** c
    g = (
        z * (1.0 - 2.0 * np.exp(-power)) + mean
        - 2.0 * mean * special.gammainc(1.0 + 1.0 / c, power)
    )
    return np.where(z > 0, g, mean - z), 2.0 * mean * (1.0 - 2.0 ** (-1.0 / c))


def _fisk(z, c):
    # Y^c / (1 + Y^c) is uniform: G(z) = mu I_F(1 + 1/c, 1 - 1/c) (regularised incomplete beta),
    # mu = (pi / c) / sin(pi / c); E|Y - Y'| = 2 int (2u - 1) Q(u) du = 2 mu / c. Each side of
    # the median from the smaller of F and S (1 - I_x(a, b) = I_{1 - x}(b, a)): no cancellation.
    inside = np.maximum(z, 0.0)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        power = inside ** -c  # inf at 0: F = 0, S = 1
        F, S = 1.0 / (1.0 + power), np.where(np.isinf(power), 1.0, power / (1.0 + power))
    a, b = 1.0 + 1.0 / c, 1.0 - 1.0 / c
    mean = (np.pi / c) / np.sin(np.pi / c)
    rest = np.where(F <= 0.5, mean * (1.0 - 2.0 * special.betainc(a, b, np.minimum(F, 0.5))),
                    mean * (2.0 * special.betainc(b, a, np.minimum(S, 0.5)) - 1.0))
    return np.where(z > 0, inside * (F - S) + rest, mean - z), 2.0 * mean / c


def _logistic(z):
    # E|z - Y| = 2 log(1 + e^z) - z; E|Y - Y'| = 2 int F (1 - F) = 2 int f = 2
    a = np.abs(z)
    return a + 2.0 * np.log1p(np.exp(-a)), 2.0


def _laplace(z):
    a = np.abs(z)
    return a + np.exp(-a), 1.5


def _beta(z, a, b):
    # G(z) = mu I_z(a + 1, b), mu = a / (a + b), and I_z(a, b) - I_z(a + 1, b) = z f(z) (1 - z) / a
    # (DLMF 8.17.20), so E|z - Y| = (z - mu)(2F - 1) + 2 z (1 - z) f(z) / (a + b): at least
    # |z - mu| plus a non-negative term (F and f to rounding: the sum is). Beyond [0, 1] the
    # distance to it is added. E|Y - Y'| = 4 B(2a, 2b) / ((a + b) B(a, b)^2)
    # = 2 r(a) r(b) / (sqrt(pi) (a + b) r(a + b)) by Legendre's duplication formula, with
    # r(x) = Gamma(x + 1/2) / Gamma(x) (Pochhammer's symbol: no cancellation at large shapes).
    inside = np.clip(z, 0.0, 1.0)
    mean = a / (a + b)
    with np.errstate(divide="ignore", invalid="ignore"):  # f infinite at an end (a or b < 1)
        density = np.where((inside > 0) & (inside < 1), stats.beta.pdf(inside, a, b), 0.0)
    g = (inside - mean) * (2.0 * special.betainc(a, b, inside) - 1.0)
    g = g + 2.0 * inside * (1.0 - inside) * density / (a + b)
    ratio = special.poch(a, 0.5) * special.poch(b, 0.5) / special.poch(a + b, 0.5)
    return g + np.abs(z - inside), 2.0 * ratio / (np.sqrt(np.pi) * (a + b))


def _invgauss_distance(z, mu):
    # F = Phi(a) + B, G = mu (Phi(a) - B), a = (z - mu) / (mu sqrt z), B = exp(2 / mu) Phi(-w),
    # w = (z + mu) / (mu sqrt z); exp(2 / mu) phi(w) = phi(a), so B = phi(a) R(w) with the Mills
    # ratio R(w) = sqrt(pi / 2) erfcx(w / sqrt 2): no overflow. Then
    # E|z - Y| = z (2F - 1) + mu - 2G = (z - mu)(2F - 1) + 4 mu B (at least |z - mu|, plus a
    # non-negative term), 2F - 1 = erf(a / sqrt 2) + 2B.
    inside = np.where(z > 0, z, mu)
    root = np.sqrt(inside)
    a, w = (inside - mu) / (mu * root), (inside + mu) / (mu * root)
    B = 0.5 * np.exp(-0.5 * a * a) * special.erfcx(w / np.sqrt(2.0))
    g = (inside - mu) * (special.erf(a / np.sqrt(2.0)) + 2.0 * B) + 4.0 * mu * B
    return np.where(z > 0, g, mu - z)


#: Nodes of the trapezoid rule for the inverse Gaussian's E|Y - Y'| (see :func:`_invgauss`).
_IG_NODES, _IG_REACH = np.linspace(-1.0, 1.0, 129), 10.0


def _invgauss(z, mu):
    # E|Y - Y'| = E g(Y), g = E|. - Y|, by the trapezoid rule in l, Y = mu e^{2l}: there
    # (Y - mu) / (mu sqrt Y) = 2 sinh(l) / sqrt(mu) and f(Y) dY = 2 phi(2 sinh(l) / sqrt(mu))
    # e^{-l} / sqrt(mu) dl, smooth and with Gaussian tails in sinh(l), so the rule converges
    # exponentially; 129 nodes over |2 sinh(l) / sqrt(mu)| <= 10 (the tails beyond are below
    # phi(10) = 8e-23) agree with QUADPACK to 3e-13 for mu from 1e-6 to 1e5. The same nodes for
    # every shape: a bootstrap's shapes at once.
    mu_row = np.asarray(mu, dtype=float)
    mu_row = mu_row[..., :1, None] if mu_row.ndim else mu_row[None]  # constant along z's last axis
    reach = np.arcsinh(0.5 * _IG_REACH * np.sqrt(mu_row))
    ell = reach * _IG_NODES
    a = 2.0 * np.sinh(ell) / np.sqrt(mu_row)
    weight = 2.0 * np.exp(-0.5 * a * a - ell) / np.sqrt(2.0 * np.pi * mu_row)
    step = reach[..., 0] * (_IG_NODES[1] - _IG_NODES[0])
    between = step * (_invgauss_distance(mu_row * np.exp(2.0 * ell), mu_row) * weight).sum(axis=-1)
    return _invgauss_distance(z, mu), between


#: Closed forms by scipy family (the generator's class): z, *shapes -> (E|z - Y|, E|Y - Y'|).
CLOSED_FORMS = {
    type(stats.norm): _norm,
    type(stats.expon): _expon,
    type(stats.uniform): _uniform,
    type(stats.gamma): _gamma,
    type(stats.lognorm): _lognorm,
    type(stats.weibull_min): _weibull_min,
    type(stats.logistic): _logistic,
    type(stats.laplace): _laplace,
    type(stats.fisk): _fisk,
    type(stats.beta): _beta,
    type(stats.invgauss): _invgauss,
}


def mean_distances(family, shapes: tuple, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """E|z - Y| (z's shape) and E|Y - Y'| (z's shape without the last axis) for Y the standard
    member of ``family`` with ``shapes`` (each broadcastable to z, constant along its last
    axis): a closed form, or one table per distinct shape (:mod:`._cdf_table`) shared by
    the rows with that shape."""
    closed = CLOSED_FORMS.get(type(family))
    if closed is not None:
        g, between = closed(z, *shapes)
        return g, np.broadcast_to(between, z.shape)[..., 0]
    g = np.empty_like(z)
    between = np.empty(z.shape[:-1])
    row_shapes = [np.broadcast_to(s, z.shape)[..., 0] for s in shapes]
    rows: dict[tuple, list] = {}
    for index in np.ndindex(z.shape[:-1]):
        rows.setdefault(tuple(float(s[index]) for s in row_shapes), []).append(index)
    for key, indexes in rows.items():
        where = tuple(np.array(axis, dtype=np.intp) for axis in zip(*indexes))
        g[where], between[where] = mean_distances_by_table(family, key, z[where])
    return g, between
