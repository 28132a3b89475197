r"""The block sums of labelings, :math:`M = Z^\top D Z` for the group indicator Z (n x k) of a
labeling and the matrix D of the semimetric on the pooled points (França, Rizzo & Vogelstein
2020, eq. 13): every statistic of the family is a function of them. One rule chooses the path:

* ``approximation="projection"``: averages over random directions (:mod:`.._scale.projection`);
* |x - y| on the line from :data:`~.._scale.line.LINE_MIN` points: one sort and prefix sums,
  O(n k) per labeling (:mod:`.._scale.line`);
* otherwise D, held when it fits ``working_memory`` and else streamed (:mod:`.._scale`), times
  the indicators of a whole block of labelings.

For a permutation null only the first k - 1 groups are formed: with the row sums r of D,
:math:`\sum_j M_{ij} = z_i^\top r` gives the last group's sums (:func:`complete`).
"""

from __future__ import annotations

from functools import partial
from itertools import combinations_with_replacement
from typing import Callable, NamedTuple

import numpy as np
from scipy import sparse

from .._config import check_fits
from .._scale import fits, pairwise, upper_product
from .._scale import line as _line
from .._scale import projection as _projection

__all__ = ["UPPER_MIN", "Sums", "block_sums", "complete"]

#: Points from which a held matrix multiplies by its upper triangle (scipy's BLAS dtrmm: half
#: the multiply-adds, which halved the product from here on); below, numpy's whole product
#: costs as little and starts no BLAS threads for the smallest matrices, where dtrmm does.
UPPER_MIN = 100


class Sums(NamedTuple):
    """The block sums of labelings of n points, by one path (:func:`block_sums`)."""

    #: ``of(labelings, g, weights=None)``: for labelings (b x n codes), the block sums (b x g
    #: x g) of groups 0..g-1 (indicators weighted by ``weights``), each group's sum of the
    #: row sums of D (b x g), and the sum of D
    of: Callable
    #: "held", "streamed", "line" or "projection" (whose calls recompute tiles or sorts)
    kind: str


def _matrix_sums(D, r: np.ndarray, labelings: np.ndarray, g: int, weights=None):
    """:attr:`Sums.of` on D (held or streamed) with row sums r: one product Y with the
    indicators Z of all the labelings, Y = U Z for the upper triangle U of D from
    :data:`UPPER_MIN` points, else Y = D Z; then :math:`z_i^\\top D z_j = z_i^\\top y_j +
    z_j^\\top y_i` (or :math:`z_i^\\top y_j`) a pair of groups at a time (faster than stacked
    g x g products for the few groups of a test). One labeling of more than 64 groups of a
    held D takes sparse indicators: O(n^2) whatever g (faster from 64 on), memory O(n g)."""
    b, n = labelings.shape
    if b == 1 and g > 64 and isinstance(D, np.ndarray):
        keep = np.flatnonzero(labelings[0] < g)
        w = np.ones(n) if weights is None else weights
        Z = sparse.csr_array((w[keep], (labelings[0, keep], keep)), shape=(g, n))
        C = Z @ (Z @ D).T
        C = C + C.T
        C *= 0.5  # exactly symmetric
        return C[None], (Z @ r)[None], float(r.sum())
    Z = labelings[:, None, :] == np.arange(g, dtype=labelings.dtype)[:, None]  # b x g x n
    Z = (Z * weights if weights is not None else Z.astype(float)).reshape(b * g, n)
    whole = n < UPPER_MIN and isinstance(D, np.ndarray)
    Y = (Z @ D if whole else upper_product(D, Z.T).T).reshape(b, g, n)
    zr, Z = np.einsum("mn,n->m", Z, r).reshape(b, g), Z.reshape(b, g, n)
    C = np.empty((b, g, g))
    for i, j in combinations_with_replacement(range(g), 2):
        c = np.einsum("bn,bn->b", Z[:, i], Y[:, j])
        if not whole:
            c += np.einsum("bn,bn->b", Z[:, j], Y[:, i])
        C[:, i, j] = C[:, j, i] = c
    return C, zr, float(r.sum())


def block_sums(X: np.ndarray, sm, *, directions=None, n_jobs=None, groups=None) -> Sums:
    """The block sums of the semimetric ``sm`` on the points X (the matrix when ``sm`` is
    precomputed) by the module's rule; ``directions`` (L x d) for the projection estimate.
    With ``groups``, the memory one labeling of that many groups needs is checked first."""
    n = X.shape[0]
    if directions is not None:
        kind = "projection"
    elif sm.is_abs_difference(X) and n >= _line.LINE_MIN:
        kind = "line"
    else:
        kind = "held" if sm.precomputed or fits(n) else "streamed"
    if groups is not None:  # products or prefix sums, the block sums and a copy
        check_fits(f"the block sums of {groups} groups",
                   8.0 * groups * (n + 2 * groups) * (1 if kind == "held" else 2))
    if kind == "projection":
        return Sums(partial(_projection.block_sums, X, directions, n_jobs=n_jobs), kind)
    if kind == "line":
        return Sums(partial(_line.block_sums, _line.sort(X[:, 0])), kind)
    D = X if sm.precomputed else pairwise(X, sm, n_jobs=n_jobs, held=kind == "held")
    if kind == "held":  # its transpose (D is symmetric): what BLAS takes without a copy
        D = D.T if D.flags.c_contiguous else np.asfortranarray(D)
    return Sums(partial(_matrix_sums, D, D.sum(axis=1)), kind)


def complete(C: np.ndarray, zr: np.ndarray, total: float) -> np.ndarray:
    """The k x k block sums of each labeling (b x k x k) from those of its first k - 1 groups
    (C), their sums of the row sums (zr) and the sum of D: :math:`M_{ik} = z_i^\\top r -
    \\sum_{j<k} M_{ij}`, :math:`M_{kk} = 1^\\top D 1 - 2 \\sum_i z_i^\\top r + \\sum_{i,j<k}
    M_{ij}`."""
    b, g, _ = C.shape
    M = np.empty((b, g + 1, g + 1))
    M[:, :g, :g] = C
    rows = (C.reshape(b * g, g) @ np.ones(g)).reshape(b, g)  # sums of short axes: products
    M[:, :g, g] = M[:, g, :g] = zr - rows
    M[:, g, g] = total + (rows - 2.0 * zr) @ np.ones(g)
    return M
