"""The reference of the goodness-of-fit tests: E|z - Y| and E|Y - Y'| of a scipy family by
QUADPACK with tight tolerances (``E|z - Y| = 2 int_{-inf}^z F + E Y - z``, a formula other
than the package's), to check its closed forms and tables against."""

import numpy as np
from scipy import integrate


def by_quadrature(family, shapes: tuple, z: np.ndarray) -> tuple[np.ndarray, float]:
    """E|z - Y| for a vector z and E|Y - Y'|, for scalar shapes, by quadrature of the cdf:
    the integral of F up to the smallest point by ``quad``, then over the gaps between
    sorted points all at once by ``quad_vec`` (each gap mapped to [0, 1])."""
    Y = family(*shapes)
    low, high = (float(v) for v in Y.support())
    mean = float(Y.mean())
    order = np.argsort(z)
    zs = np.clip(z[order], low, high)  # F is 0 below the support and 1 above it
    first = 0.0 if zs[0] <= low else integrate.quad(Y.cdf, low, zs[0], epsabs=1e-13, epsrel=1e-12,
                                                    limit=200)[0]
    gaps = np.diff(zs)
    if gaps.size:
        inner = integrate.quad_vec(lambda s: Y.cdf(zs[:-1] + s * gaps) * gaps, 0.0, 1.0,
                                   epsabs=1e-13, epsrel=1e-12)[0]
    else:
        inner = np.zeros(0)
    below = np.empty_like(zs)  # int_low^z F, then the part of z above the support
    below[0] = first
    below[1:] = first + np.cumsum(inner)
    below += np.maximum(z[order] - zs, 0.0)
    g = np.empty_like(below)
    g[order] = 2.0 * below + mean - z[order]
    median = float(Y.median())
    spread = sum(integrate.quad(lambda t: Y.cdf(t) * Y.sf(t), a, b, epsabs=1e-13, epsrel=1e-12,
                                limit=200)[0] for a, b in ((low, median), (median, high)))
    return g, 2.0 * spread
