r"""Mean distances of the standard member Y (loc 0, scale 1) of a ``scipy.stats`` family, and
the one-dimensional energy statistic built on them: :math:`E|z - Y| = z(2F(z) - 1) + \mu -
2G(z)` (:math:`G(z) = E[Y 1\{Y \le z\}]`), :math:`E|Y - Y'| = 2\int F(1 - F)`, in closed form
below (checked against quadrature to 1e-11), any other family from a table (:mod:`._cdf_table`).
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from ._cdf_table import mean_distances_by_table

__all__ = ["CLOSED_FORMS", "energy_statistic", "mean_distances"]


def energy_statistic(g: np.ndarray, between, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`n\mathcal E_n = n(\frac2n\sum_i g_i - b - \frac1{n^2}\sum_{i,j}|z_i - z_j|)`
    (Székely & Rizzo 2005, eq. 3.1 with d = 1) of each row of the sorted z (last axis),
    :math:`g_i = E|z_i - Y|`, b = E|Y - Y'|, the pair sum :math:`2\sum_t (2t - n - 1)z_{(t)}`;
    and :math:`n(2m + b + p)`, the size of the sums it is a difference of (the tie rule's
    scale). Rows reduced alone, centred first: equal rows give equal values in any block."""
    n = z.shape[-1]
    weights = 2.0 * np.arange(1, n + 1) - (n + 1.0)
    pairs = 2.0 * ((z - z.mean(axis=-1, keepdims=True)) * weights).sum(axis=-1) / (n * n)
    twice = 2.0 * g.mean(axis=-1)
    return n * (twice - between - pairs), n * (twice + between + pairs)


def _norm(z):
    return 2.0 * z * special.ndtr(z) + 2.0 * np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi) - z, (
        2.0 / np.sqrt(np.pi))


def _positive(z, mean, cdf, partial):
    """E|z - Y| for Y >= 0: ``cdf`` F and ``partial`` G / mu as functions of z > 0."""
    inside = np.maximum(z, 0.0)
    with np.errstate(divide="ignore"):  # log(0) of the lognormal at z <= 0, not used
        g = inside * (2.0 * cdf(inside) - 1.0) + mean * (1.0 - 2.0 * partial(inside))
    return np.where(z > 0, g, mean - z)


def _gamma(z, a):
    # G(z) = a P(a + 1, z), P the regularised lower incomplete gamma function
    between = 2.0 * np.exp(special.gammaln(a + 0.5) - special.gammaln(a)) / np.sqrt(np.pi)
    return _positive(z, a, lambda t: special.gammainc(a, t),
                     lambda t: special.gammainc(a + 1.0, t)), between


def _lognorm(z, s):
    # Y = exp(s N): mu = exp(s^2 / 2), G(z) = mu Phi((log z - s^2) / s)
    mean = np.exp(0.5 * s * s)
    g = _positive(z, mean, lambda t: special.ndtr(np.log(t) / s),
                  lambda t: special.ndtr((np.log(t) - s * s) / s))
    return g, 2.0 * mean * special.erf(s / 2)


def _weibull_min(z, c):
    # G(z) = mu P(1 + 1/c, z^c), mu = Gamma(1 + 1/c)
    mean = special.gamma(1.0 + 1.0 / c)
    return _positive(z, mean, lambda t: -np.expm1(-(t**c)),
                     lambda t: special.gammainc(1.0 + 1.0 / c, t**c)), (
        2.0 * mean * (1.0 - 2.0 ** (-1.0 / c)))


def _fisk(z, c):
    # G(z) = mu I_F(1 + 1/c, 1 - 1/c), mu = (pi / c) / sin(pi / c), E|Y - Y'| = 2 mu / c; each
    # side of the median from the smaller of F and S (1 - I_x(a, b) = I_{1 - x}(b, a))
    inside = np.maximum(z, 0.0)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        power = inside**-c  # inf at 0: F = 0, S = 1
        F, S = 1.0 / (1.0 + power), np.where(np.isinf(power), 1.0, power / (1.0 + power))
    a, b = 1.0 + 1.0 / c, 1.0 - 1.0 / c
    mean = (np.pi / c) / np.sin(np.pi / c)
    rest = np.where(F <= 0.5, mean * (1.0 - 2.0 * special.betainc(a, b, np.minimum(F, 0.5))),
                    mean * (2.0 * special.betainc(b, a, np.minimum(S, 0.5)) - 1.0))
    return np.where(z > 0, inside * (F - S) + rest, mean - z), 2.0 * mean / c


def _beta(z, a, b):
    # G(z) = mu I_z(a + 1, b) (DLMF 8.17.20): E|z - Y| = (z - mu)(2F - 1) + 2 z (1 - z) f(z) /
    # (a + b), plus the distance to [0, 1] beyond it; E|Y - Y'| = 4 B(2a, 2b) / ((a + b)
    # B(a, b)^2) = 2 r(a) r(b) / (sqrt(pi) (a + b) r(a + b)), r(x) = Gamma(x + 1/2) / Gamma(x)
    inside = np.clip(z, 0.0, 1.0)
    mean = a / (a + b)
    with np.errstate(divide="ignore", invalid="ignore"):  # f infinite at an end (a or b < 1)
        density = np.where((inside > 0) & (inside < 1), stats.beta.pdf(inside, a, b), 0.0)
    g = (inside - mean) * (2.0 * special.betainc(a, b, inside) - 1.0)
    g = g + 2.0 * inside * (1.0 - inside) * density / (a + b)
    ratio = special.poch(a, 0.5) * special.poch(b, 0.5) / special.poch(a + b, 0.5)
    return g + np.abs(z - inside), 2.0 * ratio / (np.sqrt(np.pi) * (a + b))


def _invgauss_distance(z, mu):
    # F = Phi(a) + B, G = mu (Phi(a) - B), a = (z - mu) / (mu sqrt z), B = exp(2 / mu) Phi(-w)
    # = phi(a) sqrt(pi / 2) erfcx(w / sqrt 2) (no overflow), w = (z + mu) / (mu sqrt z):
    # E|z - Y| = (z - mu)(2F - 1) + 4 mu B
    inside = np.where(z > 0, z, mu)
    root = np.sqrt(inside)
    a, w = (inside - mu) / (mu * root), (inside + mu) / (mu * root)
    B = 0.5 * np.exp(-0.5 * a * a) * special.erfcx(w / np.sqrt(2.0))
    g = (inside - mu) * (special.erf(a / np.sqrt(2.0)) + 2.0 * B) + 4.0 * mu * B
    return np.where(z > 0, g, mu - z)


_IG_NODES, _IG_REACH = np.linspace(-1.0, 1.0, 129), 10.0


def _invgauss(z, mu):
    # E|Y - Y'| = E g(Y) by the trapezoid rule in l, Y = mu e^{2l}, f(Y) dY = 2 phi(2 sinh(l) /
    # sqrt(mu)) e^{-l} / sqrt(mu) dl (Gaussian tails in sinh(l): exponential convergence); 129
    # nodes over |2 sinh(l) / sqrt(mu)| <= 10: QUADPACK to 3e-13 for mu from 1e-6 to 1e5.
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
    type(stats.expon): lambda z: _gamma(z, 1.0),
    type(stats.uniform): lambda z: (np.where((z >= 0) & (z <= 1), z * z - z + 0.5,
                                             np.abs(z - 0.5)), 1.0 / 3.0),
    type(stats.gamma): _gamma,
    type(stats.lognorm): _lognorm,
    type(stats.weibull_min): _weibull_min,
    # E|z - Y| = 2 log(1 + e^z) - z, E|Y - Y'| = 2 int F (1 - F) = 2 int f = 2
    type(stats.logistic): lambda z: (np.abs(z) + 2.0 * np.log1p(np.exp(-np.abs(z))), 2.0),
    type(stats.laplace): lambda z: (np.abs(z) + np.exp(-np.abs(z)), 1.5),
    type(stats.fisk): _fisk,
    type(stats.beta): _beta,
    type(stats.invgauss): _invgauss,
}


def mean_distances(family, shapes: tuple, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """E|z - Y| (z's shape) and E|Y - Y'| (without z's last axis) for Y the standard member of
    ``family`` with ``shapes`` (broadcastable to z, constant along its last axis): a closed
    form, or one table per distinct shape (:mod:`._cdf_table`)."""
    closed = CLOSED_FORMS.get(type(family))
    if closed is not None:
        g, between = closed(z, *shapes)
        return g, np.broadcast_to(between, z.shape)[..., 0]
    g, between = np.empty_like(z), np.empty(z.shape[:-1])
    row_shapes = [np.broadcast_to(s, z.shape)[..., 0] for s in shapes]
    rows: dict[tuple, list] = {}
    for index in np.ndindex(z.shape[:-1]):
        rows.setdefault(tuple(float(s[index]) for s in row_shapes), []).append(index)
    for key, indexes in rows.items():
        where = tuple(np.array(axis, dtype=np.intp) for axis in zip(*indexes))
        g[where], between[where] = mean_distances_by_table(family, key, z[where])
    return g, between
