r"""Random projections: a statistic of Euclidean distances as the average of its values on
the line along random directions (Huang & Huo 2017).

For u uniform on the unit sphere of :math:`\mathbb R^d`, :math:`E_u |u^\top (x - y)| =
\|x - y\| / C_d` with :math:`C_d = \sqrt\pi\, \Gamma(\frac{d+1}2) / \Gamma(\frac d2)`. So

.. math::

    \hat D_{ij} = \frac{C_d}{L} \sum_{l=1}^L |u_l^\top x_i - u_l^\top x_j|

estimates D without bias, entry by entry, and a statistic linear in D (block sums, W, S, T,
the energy distance) is :math:`C_d` times the average of its values on the projected samples,
each computed exactly on the line (:mod:`.line`) in O(n log n). :math:`\hat D` is a sum of
distance matrices on the line, so it is of negative type itself: statistics of it keep their
properties (E >= 0, S + W = T), and a permutation test of it, the same directions for every
resample, has exact level for any L. A statistic of several samples (distance covariance) takes
one direction of each per term, and :math:`\prod_i C_{d_i}`.

:func:`random_directions` draws the directions, :func:`average` averages (the energy
statistics' block sums: :func:`block_sums`), and :func:`check_projection` validates
``approximation="projection"`` for every function that takes it.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from .._config import check_fits
from .._parallel import n_workers, run_tasks
from .._validation import check_positive_int
from . import line

__all__ = [
    "MAX_PROJECTIONS",
    "N_PROJECTIONS",
    "average",
    "block_sums",
    "check_projection",
    "random_directions",
    "sphere_constant",
]

#: The number of directions L of every projected statistic: chosen from the level, power and
#: time of both families' projected tests measured side by side (docs/validation.md, "How many
#: directions").
N_PROJECTIONS = 200
#: The most directions: the estimate's standard error falls as 1/sqrt(L), so 10**4 directions
#: make it 1% of one direction's (a seventh of the default's); more only costs time.
MAX_PROJECTIONS = 10**4


def check_projection(approximation, n_projections, semimetrics: dict, n_features: int) -> int:
    """L, the number of directions, validated for ``approximation="projection"``: each
    semimetric of ``semimetrics`` ({argument name or "": Semimetric}) must be the Euclidean
    distance (exponent 1), which the projections estimate, and the directions in ``n_features``
    dimensions (all variables together) must fit the memory budget. None for
    ``approximation=None``. Messages name the argument."""
    if approximation is None:
        return None
    if approximation != "projection":
        raise ValueError(f"`approximation` must be None or 'projection', got {approximation!r}.")
    for name, sm in semimetrics.items():
        if not (sm.is_euclidean_power and sm.exponent == 1.0):
            where = f" for `{name}`" if name else ""
            raise ValueError(
                "`approximation`='projection' estimates Euclidean distances: it needs numeric "
                f"data with metric='euclidean' and exponent=1, got metric={sm.metric!r}, "
                f"exponent={sm.exponent:g}{where}."
            )
    L = check_positive_int(n_projections, "n_projections")
    if L > MAX_PROJECTIONS:
        raise ValueError(
            f"`n_projections` must be at most {MAX_PROJECTIONS:,} (the estimate's standard error "
            f"is then 1% of one direction's, a seventh of the default {N_PROJECTIONS}'s; more only "
            f"costs time), got {L:,}."
        )
    check_fits(f"`n_projections`={L:,} directions in {n_features:,} dimensions",
               8.0 * L * (2 * n_features + 8), "a smaller `n_projections`")
    return L


def sphere_constant(d: int) -> float:
    r""":math:`C_d = \sqrt\pi\, \Gamma(\frac{d+1}2) / \Gamma(\frac d2)`, with :math:`\|x\| = C_d\,
    E_u |u^\top x|` for u uniform on the unit sphere of :math:`\mathbb R^d` (C_1 = 1, C_2 =
    pi/2, C_3 = 2)."""
    return float(np.sqrt(np.pi) * np.exp(gammaln((d + 1) / 2.0) - gammaln(d / 2.0)))


def random_directions(L: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """L directions on the unit sphere of R^d (L x d), in blocks of d orthonormal ones, each
    block a uniformly random rotation (the QR decomposition of a Gaussian matrix, signs fixed:
    Haar measure). Each direction is uniform, so estimates stay unbiased; the directions of a
    block are orthogonal, which made the projected statistics' standard deviation 3 to 5 times
    smaller than with independent directions (d = 2 to 50, L = 25 and 50)."""
    blocks = []
    for _ in range(-(-L // d)):
        Q, R = np.linalg.qr(rng.standard_normal((d, d)))
        blocks.append((Q * np.where(np.diag(R) < 0, -1.0, 1.0)).T)
    return np.vstack(blocks)[:L]


def _projected(statistic, pairs, share) -> list:
    """``statistic`` on the projections ``share`` of each (points, directions) pair, in order;
    a point's projection is a dot product of its own (einsum), the same number whatever rows
    are projected with it."""
    return [statistic(*(np.einsum("nd,d->n", X, U[l]) for X, U in pairs)) for l in share]


def average(statistic, pairs, n_jobs=None) -> tuple:
    r"""The projection estimate of a statistic linear in the distances of each sample:
    :math:`\prod_i C_{d_i}` times the average over l of ``statistic(X_1 @ U_1[l], X_2 @
    U_2[l], ...)``.

    Parameters
    ----------
    statistic : callable
        Of one projected sample (n,) per pair, returning a tuple of arrays (or floats).
    pairs : list of (ndarray (n, d_i), ndarray (L, d_i))
        Each sample's points and directions.
    n_jobs : int or None, default=None
        joblib's ``n_jobs``: shares of the directions as joblib tasks (Dask's inside
        ``joblib.parallel_config(backend="dask")``); None runs them here. The values are added
        in the order of the directions whatever runs them.

    Returns
    -------
    tuple
        The estimate of each output of ``statistic``.
    """
    L = pairs[0][1].shape[0]
    if L == 1 or n_workers(n_jobs) == 1:
        values = _projected(statistic, pairs, range(L))
    else:
        shares = np.array_split(np.arange(L), min(L, 4 * n_workers(n_jobs)))
        values = [v for part in run_tasks(_projected, [dict(share=s) for s in shares], n_jobs,
                                          shared=dict(statistic=statistic, pairs=pairs))
                  for v in part]
    total = list(values[0])
    for value in values[1:]:
        for i, part in enumerate(value):
            total[i] = total[i] + part
    scale = np.prod([sphere_constant(U.shape[1]) for _, U in pairs]) / L
    return tuple(scale * part for part in total)


def block_sums(X: np.ndarray, directions: np.ndarray, labelings: np.ndarray, groups: int,
               weights=None, *, n_jobs=None) -> tuple:
    """:func:`.line.block_sums` of the projection estimate :math:`\\hat D` of the Euclidean
    distance of the points X (n x d) along ``directions`` (L x d): each projection sorted
    once per call, O(L n log n), then O(L n g) per labeling, :data:`~.line.WORK` bytes of
    prefix sums at a time (the labelings held are all the memory a call grows with)."""
    def on_line(y):
        sorted_y, step = line.sort(y), max(1, line.WORK // (13 * groups + 9) // y.shape[0])
        parts = [line.block_sums(sorted_y, labelings[a : a + step], groups, weights)
                 for a in range(0, labelings.shape[0], step)]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]), \
            sorted_y.total

    return average(on_line, [(X, directions)], n_jobs)
