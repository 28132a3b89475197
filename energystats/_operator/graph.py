r"""The semimetric of a k-nearest-neighbour graph (França et al. eq. 35) and its centred kernel,
from the sparse kernel :math:`K = \mathcal D^{-1}(A + \mathcal D)\mathcal D^{-1}` of
:class:`~energystats._neighbors.Graph`: exact at every n, in memory O(n m)."""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.linalg import eigh, null_space
from scipy.sparse.linalg import LinearOperator, eigsh, splu

from .._config import memory_budget
from ._base import PairwiseOperator, indicator, is_scalar
from .centred import CentredKernel

__all__ = ["GraphKernel", "GraphOperator"]


class GraphOperator(PairwiseOperator):
    r"""The semimetric :math:`\rho = \kappa \mathbf 1^\top + \mathbf 1 \kappa^\top - 2K` of a
    sparse kernel K with diagonal :math:`\kappa` (eq. 8; eq. 35 for a graph's K): products
    O(nnz(K) m), a row O(n), the block sums of B labelings O(B nnz(K))."""

    kind = "graph"

    def __init__(self, K: sparse.csr_matrix, components: np.ndarray | None = None, *,
                 recipe=None):
        self.K = K
        self.kappa = K.diagonal()
        self.n = K.shape[0]
        self.nbytes = 0  # O(n m), as the data
        self.components = components
        self.recipe = recipe

    def _matmat(self, Z):
        out = self.K @ Z
        out *= -2.0
        out += np.outer(self.kappa, Z.sum(axis=0))
        out += self.kappa @ Z
        return out

    def rows(self, idx):
        if is_scalar(idx):
            row = self.kappa + self.kappa[idx]
            a, b = self.K.indptr[idx], self.K.indptr[idx + 1]
            row[self.K.indices[a:b]] -= 2.0 * self.K.data[a:b]
            return row
        R = self.K[idx].toarray()
        R *= -2.0
        R += self.kappa[idx][:, None] + self.kappa
        return R

    def group_sums(self, codes, k, cross):
        r""":math:`M_b = s_b c_b^\top + c_b s_b^\top - 2 Z_b^\top K Z_b` with :math:`c_b` the
        counts and :math:`s_b` the sums of :math:`\kappa` of each group of labeling b; the
        last term sums K's nonzero entries by pair of groups."""
        B = codes.shape[0]
        self.check_beside(f"the permutation batch (graph {self.n} x {self.n} operator, "
                          f"{B} labelings)", self.group_sums_bytes(k) * B)
        Kc = self.K.tocoo()
        offset = (np.arange(B) * k)[:, None]
        by_group = (codes + offset).ravel()
        counts = np.bincount(by_group, minlength=B * k).reshape(B, k)
        kappas = np.bincount(by_group, weights=np.tile(self.kappa, B), minlength=B * k)
        kappas = kappas.reshape(B, k)
        pairs = (codes[:, Kc.row] * k + codes[:, Kc.col] + offset * k).ravel()
        M = np.bincount(pairs, weights=np.tile(Kc.data, B), minlength=B * k * k)
        M = M.reshape(B, k, k)
        M *= -2.0
        M += kappas[:, :, None] * counts[:, None, :] + counts[:, :, None] * kappas[:, None, :]
        return M

    def group_sums_bytes(self, k):
        """Per labeling: the group of each of K's nonzero entries and its value (16 bytes
        each), the codes of the points and the sums."""
        return 16 * self.K.nnz + 24 * self.n + 8 * k * (k + 2)

    def restrict(self, idx):
        return GraphOperator(self.K[idx][:, idx].tocsr())


class GraphKernel(CentredKernel):
    r"""The centred kernel :math:`G = J K J^\top` of a graph's :class:`GraphOperator`
    (:math:`-\tfrac12 J \rho J^\top`, :class:`CentredKernel`), whose top eigenvectors know the
    graph's connected components."""

    def top_eigenvectors(self, k, scale, rng):
        r"""The top eigenvectors of :math:`S G S = P (S K S) P`, S = diag(``scale``), P the
        projection off ``scale``. K has no entry between two connected components, so for
        ``scale`` the root degrees the c scaled indicators :math:`S \mathbf 1_C` span the
        eigenspace of the largest eigenvalue of S K S, 2, with multiplicity c, which Lanczos
        iterations (one vector per distinct eigenvalue) do not find: that span less ``scale``
        gives c - 1 exactly, and the top of S K S on its complement the rest: by Lanczos
        iterations (from ``rng``) on the shifted inverse :math:`(S K S - \sigma I)^{-1}`,
        :math:`\sigma` just above the spectrum (a sparse LU factor, used when even a full
        one, 8 n^2 bytes, fits the memory budget: the top eigenvalues of a graph crowd below
        2, which plain iterations separate slowly, 50 s against 3 s on SIPU a3), else on
        S K S itself; by LAPACK for few points. Returns n x max(k, c - 1) columns: with more
        components than groups, every component's direction (k-means then joins
        components). Other weights keep each component's direction whole, the rest likewise."""
        D, n = self.D, self.n
        E = indicator(D.components, int(D.components.max()) + 1) * scale[:, None]
        E /= np.linalg.norm(E, axis=0)
        known = np.linalg.qr(E - np.outer(scale, scale @ E) / (scale @ scale))[0]
        known = known[:, : E.shape[1] - 1]
        rest = k - known.shape[1]
        if rest <= 0:
            return known

        def off(V):  # the projection off the components' span
            return V - E @ (E.T @ V)

        M = (sparse.diags(scale) @ D.K @ sparse.diags(scale)).tocsc()
        if rest >= n - E.shape[1] - 1:  # too few points for Lanczos: the complement whole
            Q = null_space(E.T)
            return np.hstack([known, Q @ eigh(Q.T @ (M @ Q))[1][:, ::-1][:, :rest]])
        A = LinearOperator((n, n), matvec=lambda v: off(M @ off(v)), dtype=np.float64)
        v0 = off(rng.standard_normal(n))
        if 8 * n * n > memory_budget(8 * n * n):
            return np.hstack([known, eigsh(A, k=rest, which="LA", v0=v0)[1]])
        # S K S = U^1/2 (A^ + I) U^1/2, U = W D^-1 (A^ = D^-1/2 A D^-1/2): below 2 max U
        sigma = 2.02 * float((scale**2 * D.kappa).max())
        # negative definite: diagonal pivots, the ordering of a symmetric matrix
        lu = splu((M - sigma * sparse.identity(n, format="csc")).tocsc(),
                  permc_spec="MMD_AT_PLUS_A", options={"SymmetricMode": True})
        inverse = LinearOperator((n, n), matvec=lambda v: off(lu.solve(off(v))), dtype=np.float64)
        vecs = eigsh(A, k=rest, sigma=sigma, which="LM", OPinv=inverse, v0=v0)[1]
        return np.hstack([known, vecs])
