"""Conformance of every back-end of the pairwise operator to the interface (issue 32): each
capability a back-end claims equals the dense back-end's on the same matrix, to 1e-12
relative, within the memory budget. A new back-end is one module and one entry of BACKENDS.

The reference of each back-end is its own matrix, formed by brute force: |x_i - x_j| for
the sorted back-end, the average over its own projections for the projection back-end
(:math:`\\frac{C_d}{L} \\sum_l |u_l^\\top (x_i - x_j)|`, Huang & Huo 2017), Φ Φ' for Nyström
features, :math:`-\\tfrac12 J D J^\\top` for the centred kernel."""

import numpy as np
import pytest
from conftest import brute_rho

import energystats as es
from energystats._operator import (
    CentredKernel,
    DenseOperator,
    NystroemOperator,
    ProjectionOperator,
    SortedOperator,
    StreamedOperator,
    centred_gram,
    centred_kernel,
    feature_operator,
    make_operator,
    permuted_products,
    random_directions,
    sphere_constant,
)
from energystats._semimetric import resolve_semimetric

N = 40
#: MiB: every matrix of these tests fits, as it would in the default budget
BUDGET = 4


def _points(seed: int, d: int = 3) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(N, d))


def _dense(X: np.ndarray) -> np.ndarray:
    return brute_rho(X, X, exponent=1.0, metric="euclidean", sigma=None)


def _centre(D: np.ndarray, w: np.ndarray) -> np.ndarray:
    J = np.eye(N) - np.outer(np.ones(N), w / w.sum())
    return -0.5 * J @ D @ J.T


def _projected(X: np.ndarray, U: np.ndarray) -> np.ndarray:
    Y = X @ U.T
    return sphere_constant(X.shape[1]) / U.shape[0] * np.abs(Y[:, None, :] - Y[None, :, :]).sum(axis=2)


def _dense_backend(seed):
    D = _dense(_points(seed))
    return DenseOperator(D), D


def _streamed(seed):
    X = _points(seed)
    return StreamedOperator(X, resolve_semimetric(), 7, 2), _dense(X)


def _sorted(seed):
    x = np.round(_points(seed, 1), 1)  # ties
    return SortedOperator(x[:, 0]), _dense(x)


def _projection(seed):
    X = _points(seed)
    U = random_directions(9, 3, np.random.default_rng(seed + 1))
    return ProjectionOperator(X, U), _projected(X, U)


def _nystroem(seed):
    Phi = np.random.default_rng(seed).normal(size=(N, 4))
    return NystroemOperator(Phi), Phi @ Phi.T


def _feature_operator(seed):
    Phi = np.random.default_rng(seed).normal(size=(N, 4))
    return feature_operator(Phi), Phi @ Phi.T


def _centred(seed):
    X = _points(seed)
    w = np.random.default_rng(seed + 2).uniform(0.5, 2.0, size=N)
    return CentredKernel(StreamedOperator(X, resolve_semimetric(), 7, 2), w), _centre(_dense(X), w)


def _centred_kernel_of_sorted(seed):
    x = np.round(_points(seed, 1), 1)
    return centred_kernel(SortedOperator(x[:, 0])), _centre(_dense(x), np.ones(N))


def _chosen(seed):
    """What make_operator chooses for points in the default budget (with its recipe)."""
    X = _points(seed)
    return make_operator(X, resolve_semimetric(), repeated=True), _dense(X)


def _chosen_projection(seed):
    X = _points(seed)
    op = make_operator(X, resolve_semimetric(), approximation="projection", n_projections=7, rng=np.random.default_rng(seed))
    return op, _projected(X, op.directions)


BACKENDS = {
    "dense": _dense_backend,
    "streamed": _streamed,
    "sorted": _sorted,
    "projection": _projection,
    "nystroem": _nystroem,
    "feature_operator": _feature_operator,
    "centred": _centred,
    "centred_kernel of sorted": _centred_kernel_of_sorted,
    "make_operator": _chosen,
    "make_operator projection": _chosen_projection,
}


def close(actual, desired, scale: float):
    """Equal to 1e-12 relative (entries near zero relative to the matrix's scale)."""
    np.testing.assert_allclose(actual, desired, rtol=1e-12, atol=1e-12 * scale)


@pytest.fixture(params=sorted(BACKENDS))
def backend(request):
    with es.config_context(working_memory=BUDGET):
        op, A = BACKENDS[request.param](7)
        yield op, A, DenseOperator(A)


def test_products_rows_and_sums(backend):
    op, A, ref = backend
    with es.config_context(working_memory=BUDGET):
        scale = np.abs(A).sum()
        Z = np.random.default_rng(1).normal(size=(N, 3))
        assert op.shape == ref.shape == (N, N) and op.exact == (op.approximation is None)
        close(op.matmat(Z), ref.matmat(Z), scale)
        close(op.row_sums(), ref.row_sums(), scale)
        close(op.total(), ref.total(), scale)
        close(op.diagonal(), ref.diagonal(), scale)
        for idx in (5, slice(2, 9), np.array([0, 22, 7])):
            close(op.rows(idx), ref.rows(idx), scale)
        close(op.quadratic(Z), ref.quadratic(Z), scale)
        close(op.aslinearoperator() @ Z, A @ Z, scale)


def test_block_and_group_sums(backend):
    op, A, ref = backend
    rng = np.random.default_rng(2)
    codes = rng.integers(0, 3, size=N)
    w = rng.uniform(0.5, 2.0, size=N)
    labelings = np.array([rng.permutation(codes) for _ in range(5)])
    with es.config_context(working_memory=BUDGET):
        scale = np.abs(A).sum()
        close(op.block_sums(codes, 3), ref.block_sums(codes, 3), scale)
        close(op.block_sums(codes, 3, w), ref.block_sums(codes, 3, w), scale)
        close(op.group_sums(labelings, 3, True), ref.group_sums(labelings, 3, True), scale)
        assert op.group_sums_bytes(3) > 0


def test_matrices_asked_of_the_operator(backend):
    """The whole-matrix capabilities (a held matrix, features, the U-centred matrix, the power
    sums) where the back-end claims them, within the budget."""
    op, A, ref = backend
    scale = np.abs(A).max() * N
    with es.config_context(working_memory=BUDGET):
        held = op.held_matrix()
        if held is not None:
            close(held, A, scale)
        if op.features is not None:
            close(op.features @ op.features.T, A, scale)
        close(op.u_centred(), ref.u_centred(), scale)
        close(op.power_sums(), ref.power_sums(), scale**3)


def test_restriction(backend):
    op, A, ref = backend
    idx = np.array([3, 0, 17, 9, 30, 31])
    with es.config_context(working_memory=BUDGET):
        try:
            sub = op.restrict(idx)
        except NotImplementedError:  # the centred kernel: restrict its semimetric, then centre
            assert op.kind.startswith("centred")
            return
        if op.kind == "nystroem":  # the features of the subset, centred again
            Phi = op.features[idx] - op.features[idx].mean(axis=0)
            expected = Phi @ Phi.T
        else:
            expected = A[np.ix_(idx, idx)]
        close(sub.matmat(np.eye(idx.size)), expected, np.abs(expected).sum())


def test_recipe_rebuilds_the_same_operator(backend):
    op, A, _ = backend
    with es.config_context(working_memory=BUDGET):
        if op.recipe is None:
            return
        again = op.recipe()
        Z = np.random.default_rng(3).normal(size=(N, 2))
        close(again.matmat(Z), op.matmat(Z), np.abs(A).sum())


def test_centred_products_and_permutation_engines(backend):
    """centred_gram and permuted_products of two operators of the back-end's kind against the
    dense back-end's, where the back-end gives them (tiles or the line: centred products; an
    exact semimetric: the engine of S(pi); projections pair their directions instead, a
    different statistic, checked in tests/test_projection_dcov.py)."""
    op, A, ref = backend
    other, B = BACKENDS["sorted" if op.on_line else "streamed"](11)
    with es.config_context(working_memory=BUDGET):
        if op.tiled or op.on_line:
            G, H = centred_gram([op, other]), centred_gram([ref, DenseOperator(B)])
            scale = np.abs(A).sum() * np.abs(B).sum()
            close(G.V, H.V, scale)
            close(G.U, H.U, scale)
        if op.exact and not op.diagonal().any():
            perms = np.array([np.random.default_rng(s).permutation(N) for s in range(4)])
            close(permuted_products(op, other)(perms), permuted_products(ref, DenseOperator(B))(perms), np.abs(A).sum() * np.abs(B).sum())


def test_the_interface_is_abstract():
    """A back-end that leaves out a required method cannot be built; capabilities not claimed
    have their declared defaults."""

    class Incomplete(es._operator.PairwiseOperator):
        def rows(self, idx):
            return np.zeros(3)

    with pytest.raises(TypeError, match="abstract"):
        Incomplete()
    op = DenseOperator(np.zeros((3, 3)))
    assert op.on_line is False and op.features is None and op.recipe is None and op.tiled is True


def test_top_eigenvectors(backend):
    """The k leading eigenvectors of S A S span the same space as the dense back-end's (LAPACK):
    equal Rayleigh quotients. Lanczos (a back-end without a held matrix) converges to rounding
    of the eigenvalues times the spread of the spectrum, hence 1e-10 rather than 1e-12. On the
    line with ties, |x - y| has a multiple eigenvalue 0 after its leading one: k = 1 there."""
    op, A, ref = backend
    k = 1 if op.on_line else 3
    scale = np.sqrt(np.random.default_rng(4).uniform(0.5, 2.0, size=N))
    SAS = scale[:, None] * A * scale[None, :]
    with es.config_context(working_memory=BUDGET):
        V = op.top_eigenvectors(k, scale, np.random.default_rng(5))
        W = ref.top_eigenvectors(k, scale, np.random.default_rng(5))
    top = np.linalg.eigvalsh(SAS)[-k:]
    np.testing.assert_allclose(np.sort(np.diag(V.T @ SAS @ V)), top, rtol=1e-10, atol=1e-10 * np.abs(top).max())
    np.testing.assert_allclose(np.sort(np.diag(W.T @ SAS @ W)), top, rtol=1e-12, atol=1e-12 * np.abs(top).max())


def test_the_matrices_of_the_default_capabilities_by_brute_force():
    """u_centred is eq. 3.1 of Székely & Rizzo (2014) and power_sums the sums of the squared and
    cubed eigenvalues of the double-centred matrix, on the dense back-end that every other one
    is compared with above."""
    A = _dense(_points(3))
    op = DenseOperator(A)
    n = N
    r = A.sum(axis=1)
    U = A - r[:, None] / (n - 2) - r[None, :] / (n - 2) + r.sum() / ((n - 1) * (n - 2))
    np.fill_diagonal(U, 0.0)
    close(op.u_centred(), U, np.abs(A).max())
    J = np.eye(n) - 1.0 / n
    lam = np.linalg.eigvalsh(J @ A @ J)
    close(op.power_sums(), ((lam**2).sum(), (lam**3).sum()), np.abs(lam).max() ** 3 * n)
