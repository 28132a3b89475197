r"""What the points say about their own scale: the k-nearest-neighbour graph of
``metric="nearest_neighbors"`` (França, Rizzo & Vogelstein 2020, Section 3.1), its semimetric as
a matrix known by its products, and the scale the Gaussian and exponential semimetrics take
when no ``sigma`` is given.

The graph: the m nearest neighbours of every point, affinities
:math:`A = \tfrac12 (C + C^\top)` with C the 0-1 matrix of the neighbours (no self-loops),
degrees :math:`d = A \mathbf 1`, and the kernel

.. math::

    K = \mathcal D^{-1} (A + \mathcal D) \mathcal D^{-1}, \qquad \mathcal D = \mathrm{diag}(d),

eq. (34) with the vertices weighted by their degrees plus the diagonal shift
:math:`\mathcal D^{-1}` of Dhillon, Guan & Kulis (2004): :math:`A + \mathcal D` is the signless
Laplacian, positive semidefinite, so K is a kernel and its semimetric (eq. 35, 8),
:math:`\rho = \kappa 1^\top + 1 \kappa^\top - 2K` with :math:`\kappa` K's diagonal, is of
negative type. With the degrees as weights, weighted kernel k-means on K maximises
:math:`\sum_j \mathrm{links}(C_j, C_j) / \mathrm{vol}(C_j)` plus the constant k: the
normalized cut (Shi & Malik 2000; Dhillon et al. 2004). :class:`GraphMatrix` answers the
operations a statistic asks of rho (``@``, ``sum``, rows, the upper triangle's product) in
O(nnz(K) + n m) per product, exact at every n.

References
----------
U. von Luxburg, "A tutorial on spectral clustering", Statistics and Computing 17 (2007),
Section 8.1 (m of the order of log n). I. S. Dhillon, Y. Guan and B. Kulis, "Kernel k-means,
spectral clustering and normalized cuts", KDD 2004. A. Gretton, K. M. Borgwardt, M. J. Rasch,
B. Schölkopf and A. Smola, "A kernel two-sample test", JMLR 13 (2012) (the median heuristic).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph
from scipy.spatial.distance import pdist
from sklearn.neighbors import NearestNeighbors

__all__ = ["Graph", "GraphMatrix", "default_neighbors", "median_distance"]


def default_neighbors(n: int) -> int:
    r"""The neighbourhood size m of n points: :math:`\lceil \ln n \rceil` (of the order of
    log n, von Luxburg 2007, Section 8.1: the graph stays connected within clusters as n
    grows, without edges across clusters), between 1 and n - 1."""
    return max(1, min(n - 1, math.ceil(math.log(max(n, 1)))))


def _shift(X: np.ndarray) -> int:
    """e such that X / 2^e has its largest |value| in [0.5, 1): neighbours and ratios of
    distances are unchanged, and no squared distance overflows or underflows."""
    top = float(np.abs(X).max(initial=0.0))
    return 0 if top == 0.0 else int(np.frexp(top)[1])


#: The median distance is taken over the pairs of at most this many points, evenly spaced
#: through the sample (all of them up to this many): 499,500 distances, 4 MiB.
SCALE_POINTS = 1000


def median_distance(X: np.ndarray) -> float:
    r"""The median distance between two points, over the pairs of at most
    :data:`SCALE_POINTS` points evenly spaced through the sample; its half is the scale sigma
    of the Gaussian and exponential semimetrics when none is given (both kernels then equal
    :math:`e^{-1/2}` at half the median distance). Measured on the clustering battery
    (``docs/kernels.md``, KGroups from k-means++, sigma = median / 2^j): mean NCA 0.816 at the
    median itself (Gretton et al.'s heuristic: the kernel is nearly linear over a cluster, the
    clusters those of the energy distance), 0.855 at half, 0.806 at a quarter, less below; out
    of sample (the suite's other batteries) 0.615 at the median, 0.667 at half. No multiple
    suits every shape (rings want a quarter, compact groups the median): for shapes, the graph
    of ``metric="nearest_neighbors"``. The pairs' zero distances (duplicated points) are
    skipped; 2.0 when every point coincides (sigma 1)."""
    n = X.shape[0]
    picked = X[np.unique(np.linspace(0, n - 1, min(n, SCALE_POINTS)).round().astype(np.intp))]
    shift = _shift(picked)
    dist = pdist(np.ldexp(picked, -shift))
    dist = dist[dist > 0]
    return float(np.ldexp(np.median(dist), shift)) if dist.size else 2.0


@dataclass(frozen=True, eq=False)
class Graph:
    """The m-nearest-neighbour graph of n points and its kernel (see the module).

    Attributes
    ----------
    index : sklearn.neighbors.NearestNeighbors
        Fitted on the (rescaled) points: the neighbours of new points.
    affinity : scipy.sparse.csr_matrix
        A (n x n): 1 between mutual neighbours, 1/2 where one is among the other's m nearest.
    degrees : ndarray of shape (n,)
        d = A 1, at least m / 2.
    n_neighbors : int
        m.
    components : ndarray of shape (n,)
        The connected component of each point (0, 1, ...).
    shift : int
        The index holds the points divided by 2^shift.
    """

    index: NearestNeighbors
    affinity: sparse.csr_matrix
    degrees: np.ndarray
    n_neighbors: int
    components: np.ndarray
    shift: int

    @classmethod
    def of(cls, X: np.ndarray, n_neighbors: int | None = None) -> Graph:
        """The graph of the points X (n x d) with m = ``n_neighbors`` (default
        :func:`default_neighbors`, at most n - 1). Time O(n m log n) for low d (trees),
        O(n^2 d) beyond; memory O(n m)."""
        n = X.shape[0]
        if n < 2:
            raise ValueError("metric='nearest_neighbors' needs at least 2 points: the graph of 1 "
                             "sample has no edge.")
        m = min(n - 1, default_neighbors(n) if n_neighbors is None else n_neighbors)
        shift = _shift(X)
        index = NearestNeighbors(n_neighbors=m).fit(np.ldexp(X, -shift))
        idx = index.kneighbors(return_distance=False)  # each point's neighbours, not itself
        C = sparse.csr_matrix((np.ones(n * m), idx.ravel(), np.arange(0, n * m + 1, m)), (n, n))
        A = ((C + C.T) * 0.5).tocsr()
        components = csgraph.connected_components(A, directed=False)[1]
        return cls(index, A, np.asarray(A.sum(axis=1)).ravel(), m, components, shift)

    def kernel(self) -> sparse.csr_matrix:
        r""":math:`K = \mathcal D^{-1} (A + \mathcal D) \mathcal D^{-1}` (n x n, sparse)."""
        inv = sparse.diags(1.0 / self.degrees)
        return (inv @ (self.affinity + sparse.diags(self.degrees)) @ inv).tocsr()

    def new_points(self, X: np.ndarray) -> tuple[sparse.csr_matrix, np.ndarray]:
        r"""The kernel of new points with the graph's points: each new point x is joined to
        its m nearest points with affinity 1/2 (it is among nobody's neighbours), so
        :math:`d_x = m / 2`, :math:`K(x, i) = A_{xi} / (d_x d_i)` (a sparse len(X) x n
        matrix) and :math:`K(x, x) = 1 / d_x`; returns both (the degree d_x is the new
        point's weight)."""
        m, n, rows = self.n_neighbors, self.degrees.shape[0], X.shape[0]
        idx = self.index.kneighbors(np.ldexp(X, -self.shift), return_distance=False)
        d_x = 0.5 * m
        values = 0.5 / (d_x * self.degrees[idx])
        indptr = np.arange(0, rows * m + 1, m)
        K = sparse.csr_matrix((values.ravel(), idx.ravel(), indptr), (rows, n))
        return K, np.full(rows, 1.0 / d_x)


class GraphMatrix:
    """rho of the graph kernel K (n x n, sparse) as a matrix known by its products."""

    def __init__(self, K: sparse.csr_matrix):
        self.K = K.tocsr()
        self.kappa = self.K.diagonal()
        self.shape = self.K.shape

    def __matmul__(self, Z: np.ndarray) -> np.ndarray:
        Z2 = Z.reshape(Z.shape[0], -1)
        out = -2.0 * (self.K @ Z2)
        out += np.outer(self.kappa, Z2.sum(axis=0))
        out += self.kappa @ Z2
        return out.reshape(Z.shape)

    def upper(self, Z: np.ndarray) -> np.ndarray:
        """The strict upper triangle of rho times Z: row i gathers its columns j > i, by suffix
        sums of Z and of kappa Z, and K's strict upper entries."""
        after = np.cumsum(Z[::-1], axis=0)[::-1] - Z  # sum over j > i of Z_j
        kz = self.kappa[:, None] * Z
        kafter = np.cumsum(kz[::-1], axis=0)[::-1] - kz
        return self.kappa[:, None] * after + kafter - 2.0 * (sparse.triu(self.K, 1) @ Z)

    def sum(self, axis=None):
        rows = self.shape[0] * self.kappa + self.kappa.sum() - 2.0 * np.asarray(
            self.K.sum(axis=1)).ravel()
        return rows.sum() if axis is None else rows

    def __getitem__(self, rows) -> np.ndarray:
        if np.ndim(rows) == 0:
            return self[np.array([rows])][0]
        R = -2.0 * self.K[rows].toarray()
        R += self.kappa[rows][:, None] + self.kappa[None, :]
        return R

    def dense(self) -> np.ndarray:
        """rho itself (n x n)."""
        return self[np.arange(self.shape[0])]
