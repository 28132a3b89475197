r"""The scale layer: the pairwise matrix of a semimetric, held or streamed, and the paths for
large n (the line, random projections, Nyström features).

Every statistic is written once, against the matrix D of its semimetric on the points
(França, Rizzo & Vogelstein 2020, eq. 13-18): products ``D @ Z``, row sums ``D.sum(axis=1)``,
rows ``D[idx]`` and the upper-triangle product :func:`upper_product`. :func:`pairwise` hands
out D as an ndarray when it fits the memory budget (``working_memory``) and otherwise as a
:class:`Streamed` matrix, which recomputes its tiles from the points for every product and
answers the same operations with the same numbers to rounding: one rule, from the sizes only.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import blas

from .._config import memory_budget
from .graph import GraphMatrix
from .streamed import TILE, Streamed

__all__ = ["TILE", "GraphMatrix", "Streamed", "fits", "pairwise", "upper_product"]


def fits(n: int, copies: int = 1) -> bool:
    """Whether ``copies`` n x n float64 matrices fit the memory budget."""
    return 8.0 * copies * n * n <= memory_budget(8.0 * copies * n * n)


def pairwise(X: np.ndarray, metric, *, n_jobs=None, held: bool | None = None):
    """The n x n matrix of ``metric`` (a :class:`~energystats._semimetric.Semimetric`) on the
    rows of X, the semimetric first fixed for these points (its scale from the data, or their
    nearest-neighbour graph: :meth:`~energystats._semimetric.Semimetric.for_data`): an ndarray
    when it fits the memory budget (or ``held=True``), else :class:`Streamed` (a graph's
    :class:`GraphMatrix`)."""
    metric = metric.for_data(X) if hasattr(metric, "for_data") else metric
    if held is None:
        held = fits(X.shape[0])
    if getattr(metric, "on_graph", False):
        D = GraphMatrix(metric.graph.kernel())
        return D.dense() if held else D
    return metric(X, X) if held else Streamed(X, metric, n_jobs)


def upper_product(D, Z: np.ndarray) -> np.ndarray:
    r""":math:`U Z` for the strict upper triangle U of the symmetric zero-diagonal D (n x n)
    and Z (n x m): each pair once, half the multiply-adds of ``D @ Z``. The quadratic forms
    of D follow: :math:`z_i^\top D z_j = (Z^\top U Z)_{ij} + (Z^\top U Z)_{ji}`."""
    if isinstance(D, (Streamed, GraphMatrix)):
        return D.upper(Z)
    return blas.dtrmm(1.0, D, np.asfortranarray(Z, dtype=float), lower=0)
