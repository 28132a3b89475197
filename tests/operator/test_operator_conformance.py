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
    Repeated,
    approximation_of,
    centred_gram,
    centred_kernel,
    feature_operator,
    gathered_products,
    make_operator,
    permuted,
    permuted_products,
    sphere_constant,
)
from energystats._operator.centred import CentredKernel
from energystats._operator.choice import choose_engine
from energystats._operator.dense import DenseOperator
from energystats._operator.nystroem import NystroemOperator
from energystats._operator.projection import ProjectionOperator, random_directions
from energystats._operator.sorted import SortedOperator
from energystats._operator.streamed import StreamedOperator
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
    return (
        sphere_constant(X.shape[1]) / U.shape[0] * np.abs(Y[:, None, :] - Y[None, :, :]).sum(axis=2)
    )


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
    return make_operator(X, resolve_semimetric(), Repeated()), _dense(X)


def _chosen_projection(seed):
    X = _points(seed)
    estimate = approximation_of("projection", n_projections=7, rng=np.random.default_rng(seed))
    op = make_operator(X, resolve_semimetric(), approximation=estimate)
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


def _u_centred(A: np.ndarray) -> np.ndarray:
    """The U-centred matrix by brute force (Székely & Rizzo 2014, eq. 3.1)."""
    n = A.shape[0]
    r = A.sum(axis=1)
    U = A - r[:, None] / (n - 2) - r[None, :] / (n - 2) + r.sum() / ((n - 1) * (n - 2))
    np.fill_diagonal(U, 0.0)
    return U


def test_views_and_matrices_asked_of_the_operator(backend):
    """What a back-end claims of the declared views (a held matrix, features, projections, the
    line) and the centred rows and power sums every back-end gives, within the budget."""
    op, A, ref = backend
    scale = np.abs(A).max() * N
    with es.config_context(working_memory=BUDGET):
        held = op._held_matrix()
        if held is not None:
            close(held, A, scale)
        if op.features is not None:
            close(op.features @ op.features.T, A, scale)
        if op.directions is not None:  # A = C_d / L sum_l |u_l'x_i - u_l'x_j|
            P = op.projections()
            assert P.shape == (N, op.directions.shape[0])
            close(op.projections(np.array([4, 1])), P[[4, 1]], np.abs(P).max())
            close(op.projections(direction=2), P[:, 2], np.abs(P).max())
            C = sphere_constant(op.directions.shape[1]) / P.shape[1]
            close(C * np.abs(P[:, None, :] - P[None, :, :]).sum(axis=2), A, scale)
        else:
            assert op.projections() is None
        if op.on_line:  # A = |x_i - x_j|, the points known by their sort
            line = op.line
            close(np.abs(line.x[:, None] - line.x[None, :]), A, scale)
            assert np.all(np.diff(line.x[line.order]) >= 0)
            close(line.xs, line.x[line.order] - line.x.mean(), scale)
        double = A - A.mean(0) - A.mean(1)[:, None] + A.mean()
        for a, b in ((0, N), (3, 11), (N - 1, N)):
            close(op.centred_rows(a, b), double[a:b], scale)
            close(op.centred_rows(a, b, unbiased=True), _u_centred(A)[a:b], scale)
        assert op.block_rows() >= 1
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
    different statistic, checked in tests/independence/test_projection_dcov.py)."""
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
            close(
                permuted_products(op, other)(perms),
                permuted_products(ref, DenseOperator(B))(perms), np.abs(A).sum() * np.abs(B).sum(),
            )


def test_every_permutation_engine_gives_the_gathered_products(monkeypatch):
    """Each engine choose_engine names gives S(pi) = sum_ij A_ij B_pi(i)pi(j), A centred, as the
    gather engine on the same matrices (the projected engine: the sum over its pairs of
    directions, against the gathers of each pair's one-dimensional matrices). Points on the
    line take the gathers at N (cheaper in the cost model) and the sorted engine when forced."""
    rng = np.random.default_rng(3)
    perms = np.array([rng.permutation(N) for _ in range(5)])
    x, y = _points(1), _points(2, 2)
    sm = resolve_semimetric()

    def line(v: np.ndarray) -> np.ndarray:
        return np.abs(v[:, None] - v[None, :])

    def gathered(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        F = DenseOperator(a)
        return gathered_products(F.centred_rows, lambda i, j: b[i:j], N)(perms)

    on_line = SortedOperator(x[:, 0]), SortedOperator(y[:, 0])
    assert choose_engine(*on_line) == "gather"
    for op_x, op_y, want in (
        (*on_line, "sorted"),
        (*on_line, "gather"),
        (make_operator(x, sm, Repeated()), make_operator(y, sm, Repeated()), "gather"),
    ):
        monkeypatch.setattr(permuted, "choose_engine", lambda *ops, name=want: name)
        a, b = (line(o.line.x) if o.on_line else o._dense() for o in (op_x, op_y))
        scale = np.abs(a).sum() * np.abs(b).sum()
        close(permuted_products(op_x, op_y)(perms), gathered(a, b), scale)
    monkeypatch.undo()
    U, V = random_directions(4, 3, rng), random_directions(4, 2, rng)
    px, py = ProjectionOperator(x, U), ProjectionOperator(y, V)
    assert choose_engine(px, py) == "projected"
    want = sum(gathered(line(x @ u), line(y @ v)) for u, v in zip(U, V))
    close(permuted_products(px, py)(perms), want, np.abs(want).max())


def test_gathered_root_sums_and_squares():
    """The root engine gives sum_ij sqrt(F_ij + G_pi(i)pi(j)) by brute force, and squares the
    sums of the squares of F's and G's entries."""
    rng = np.random.default_rng(4)
    F, G = (_dense(_points(s)) ** 2 for s in (5, 6))
    perms = np.array([rng.permutation(N) for _ in range(3)])
    for root in (False, True):
        rows_F, rows_G = (lambda a, b: F[a:b].copy()), (lambda a, b: G[a:b].copy())
        engine = gathered_products(rows_F, rows_G, N, root=root)
        permuted = [G[np.ix_(p, p)] for p in perms]
        want = [np.sqrt(F + Gp).sum() if root else (F * Gp).sum() for Gp in permuted]
        close(engine(perms), want, np.abs(want).max())
        close(engine.squares, ((F * F).sum(), (G * G).sum()), (F * F).sum() + (G * G).sum())
    too_small = pytest.raises(es.WorkingMemoryError, match=r"the matrices \(n = 40\)")
    with es.config_context(working_memory=0.01), too_small:
        gathered_products(lambda a, b: F[a:b], lambda a, b: G[a:b], N, what="the matrices")


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
    assert op.line is None and op.directions is None and op.projections() is None
    assert op.feature_map is None and op.residual is None


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
    np.testing.assert_allclose(
        np.sort(np.diag(V.T @ SAS @ V)), top, rtol=1e-10, atol=1e-10 * np.abs(top).max()
    )
    np.testing.assert_allclose(
        np.sort(np.diag(W.T @ SAS @ W)), top, rtol=1e-12, atol=1e-12 * np.abs(top).max()
    )


def test_the_matrices_of_the_default_capabilities_by_brute_force():
    """centred_rows are eq. 2.7 of Székely, Rizzo & Bakirov (2007) and eq. 3.1 of Székely & Rizzo
    (2014) and power_sums the sums of the squared and cubed eigenvalues of the double-centred
    matrix, on the dense back-end that every other one is compared with above."""
    A = _dense(_points(3))
    op = DenseOperator(A)
    n = N
    r = A.sum(axis=1)
    U = A - r[:, None] / (n - 2) - r[None, :] / (n - 2) + r.sum() / ((n - 1) * (n - 2))
    np.fill_diagonal(U, 0.0)
    close(op.centred_rows(0, n, unbiased=True), U, np.abs(A).max())
    J = np.eye(n) - 1.0 / n
    close(op.centred_rows(0, n), J @ A @ J, np.abs(A).max())
    lam = np.linalg.eigvalsh(J @ A @ J)
    close(op.power_sums(), ((lam**2).sum(), (lam**3).sum()), np.abs(lam).max() ** 3 * n)
