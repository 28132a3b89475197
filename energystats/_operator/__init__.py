r"""The pairwise operator: the n x n semimetric matrix D, or the centred kernel G it
generates, known only by what it does. Every statistic, test and estimator of
energystats reaches its data through :func:`make_operator`, once.

Every statistic reduces to products of that matrix with tall matrices (França, Rizzo
& Vogelstein 2020):

* block sums :math:`Z^\top D Z` with the weighted group indicator Z give g(C_i, C_j)
  of eq. (13), hence W, S, T (eq. 15, 16, 18) and the energy distance (eq. 4);
* the block sums of a batch of relabelings give the permutation null;
* :math:`G Z` and single rows of G drive Hartigan's moves (eq. 48-50), Lloyd's
  steps (eq. 44), k-means++ in feature space and ``predict``.

So, as every solver in :mod:`scipy.sparse.linalg` is written against a
``LinearOperator``, every algorithm here asks a :class:`PairwiseOperator` for
``matmat(Z)``, ``rows(idx)``, ``row_sums()``, ``diagonal()`` and
``group_sums(codes)``, never for the array. The back-ends, one module each:

``dense``       :class:`DenseOperator`: holds the matrix (computed once, or the user's
                ``metric="precomputed"`` matrix, never copied).
``streamed``    :class:`StreamedOperator`: recomputes square tiles from the points on
                every product, each unordered pair once; memory O(n m + tile^2).
``sorted``      :class:`SortedOperator`: |x - y| on the line by prefix sums of the
                sorted data, O(n m) per product after one sort.
``projection``  :class:`ProjectionOperator`: the random-projection estimate of the
                Euclidean distance (Huang & Huo 2017), an average of sorted operators.
``nystroem``    :class:`NystroemOperator`: a centred kernel known through Nyström
                features (Wang, Gittens & Mahoney 2019).
``centred``     :class:`CentredKernel`: :math:`G = -\tfrac12 J D J^\top` on any D.
``matrices``    the full-matrix builders (dense operator, public matrix functions).
``permuted``    the permutation engines of two operators (:func:`permuted_products`), and
                of matrices known by blocks of rows (:func:`gathered_products`).
``pairs``       the centred products of several operators (:func:`centred_gram`).
``options``     what a caller tells :func:`make_operator` (typed options).
``choice``      every choice of a path, from the sizes of the problem.

Which one a computation gets is decided from the sizes of the problem in one place,
:func:`~energystats._operator.choice.choose_backend`, from what the caller will ask (typed
options of :mod:`.options`: one pass, repeated use, a batch of relabelings), the
approximation it names, and the memory budget of ``energystats.set_config(working_memory=...)``;
the permutation engine of two operators likewise (:func:`~.choice.choose_engine`). Every
allocation that grows with n is checked against the budget first; what cannot fit raises
:class:`~energystats.WorkingMemoryError` before allocating.

This package exports the door: what the families call (:func:`make_operator` and its
options, the functions of several operators, the interface :class:`PairwiseOperator` they are
written against). The back-end classes and their builders are the operator layer's own.
"""

from __future__ import annotations

import functools

import numpy as np

from .._config import memory_budget
from .._parallel import n_workers
from .._semimetric import Semimetric
from ._base import PairwiseOperator, indicator
from ._prefix import PackedLabelings
from .centred import CentredKernel
from .choice import Sizes, choose_backend, distributed_tile, stake, streamed_tile
from .dense import DenseOperator
from .feature_map import FeatureMap
from .graph import GraphKernel, GraphOperator
from .matrices import (
    centre_in_place,
    condensed_semimetric,
    condensed_values,
    dense_bytes,
    semimetric_matrix,
)
from .nystroem import NystroemOperator, nystroem_features, nystroem_map
from .options import (
    GroupSums,
    Kernel,
    Nystroem,
    OnePass,
    Projection,
    Repeated,
    Use,
    approximation_of,
)
from .pairs import CentredGram, centred_gram
from .permuted import gathered_products, permuted_products
from .projection import (
    N_PROJECTIONS,
    ProjectionOperator,
    check_projection,
    line_pair_sums,
    projected_pair_sums,
    random_directions,
    sphere_constant,
)
from .sorted import SortedOperator, sorted_pair_sums
from .streamed import StreamedOperator

__all__ = [
    "N_PROJECTIONS",
    "CentredGram",
    "FeatureMap",
    "GroupSums",
    "Kernel",
    "OnePass",
    "PackedLabelings",
    "PairwiseOperator",
    "Repeated",
    "approximation_of",
    "centre_in_place",
    "centred_gram",
    "centred_kernel",
    "check_projection",
    "condensed_semimetric",
    "dense_bytes",
    "feature_operator",
    "gathered_products",
    "indicator",
    "line_pair_sums",
    "make_operator",
    "nystroem_map",
    "permuted_products",
    "projected_pair_sums",
    "semimetric_matrix",
    "sorted_pair_sums",
    "sphere_constant",
    "stacked_pair_sums",
]


def make_operator(
    X: np.ndarray,
    semimetric: Semimetric | None,
    use: Use = OnePass(),
    *,
    kernel: Kernel | None = None,
    approximation: Projection | Nystroem | None = None,
    n_jobs: int | None = None,
) -> PairwiseOperator:
    """The pairwise operator of validated data: the one place that builds a back-end.

    Parameters
    ----------
    X : ndarray
        Points (n x d), or the matrix when ``semimetric.precomputed``, or a Gram matrix
        when ``kernel`` is given and ``semimetric is None``.
    semimetric : Semimetric or None
    use : OnePass, Repeated or GroupSums
        What the caller will ask of the operator (:mod:`.options`).
    kernel : Kernel or None
        The centred kernel G (eq. 7) instead of the semimetric D.
    approximation : Projection, Nystroem or None
        The estimate the user named (:func:`approximation_of`): random projections of D, or
        Nyström features of G.
    n_jobs : int or None
        joblib's ``n_jobs``: with more than one worker, points get a streamed operator
        whose products run as joblib tasks (a precomputed matrix and one-dimensional
        data with exponent 1 stay in this process: O(n^2) read or O(n log n)).

    Returns
    -------
    PairwiseOperator
        With ``recipe``: a picklable function of no arguments that builds the same
        operator in another process (a joblib task) from the data, never sending a
        held matrix.

    Notes
    -----
    The back-end is :func:`~.choice.choose_backend`'s, from the sizes of the problem only;
    the semimetric of a graph (``metric="nearest_neighbors"``) is always the sparse
    :class:`~.graph.GraphOperator` (its kernel :class:`~.graph.GraphKernel`), exact at every
    n. A semimetric that takes something from the data (the median distance, the graph) takes it
    here from X, once (:meth:`~energystats._semimetric.Semimetric.for_data`).
    """
    if semimetric is not None:
        semimetric = semimetric.for_data(X)
        if semimetric.on_graph:
            if approximation is not None:
                raise ValueError(
                    "`approximation` does not apply to metric='nearest_neighbors': its sparse "
                    "graph is exact at every n."
                )
            recipe = functools.partial(make_operator, X, semimetric, use, kernel=kernel)
            graph = semimetric.graph
            D = GraphOperator(graph.kernel(), graph.components)
            if kernel is None:
                return GraphOperator(D.K, graph.components, recipe=recipe)
            return GraphKernel(D, kernel.weights, recipe=recipe)
    if approximation is not None:
        return _approximate(X, semimetric, kernel, approximation).with_jobs(n_jobs)
    recipe = functools.partial(make_operator, X, semimetric, use, kernel=kernel)
    gram = semimetric is None
    precomputed = gram or semimetric.precomputed
    on_line = not precomputed and semimetric.is_abs_difference(X)
    n = X.shape[0]
    budget = memory_budget(stake(n, use))
    sizes = Sizes(n, precomputed, gram, on_line, n_workers(n_jobs), budget, d=X.shape[1])
    choice = choose_backend(sizes, use, kernel is not None)
    weights = None if kernel is None else kernel.weights
    if choice.centred:
        return CentredKernel(_build(choice.backend, X, semimetric, n_jobs), weights, recipe=recipe)
    if choice.backend == "dense kernel":
        G = centre_in_place(semimetric_matrix(X, semimetric), weights)
        return DenseOperator(G, owned=True, recipe=recipe)
    return _build(choice.backend, X, semimetric, n_jobs, recipe)


def _build(backend: str, X: np.ndarray, semimetric, n_jobs, recipe=None) -> PairwiseOperator:
    """The operator of D (or of the user's matrix) on the chosen back-end."""
    if backend == "given":
        return DenseOperator(X, recipe=recipe)
    if backend == "sorted":
        return SortedOperator(X[:, 0], recipe=recipe)
    if backend == "distributed":
        tile = distributed_tile(X.shape[0])
        return StreamedOperator(X, semimetric, tile, threads=1, recipe=recipe).with_jobs(n_jobs)
    if backend == "dense":
        return DenseOperator(semimetric_matrix(X, semimetric), owned=True, recipe=recipe)
    return StreamedOperator(X, semimetric, streamed_tile(memory_budget()), recipe=recipe)


def _approximate(X, semimetric, kernel: Kernel | None, approximation) -> PairwiseOperator:
    """The operator of ``approximation``, after checking that it applies to the matrix."""
    expected = Nystroem if kernel is not None else Projection
    if not isinstance(approximation, expected):
        got = approximation.name
        raise ValueError(f"`approximation` must be None or {expected.name!r}, got {got!r}.")
    if isinstance(approximation, Nystroem):
        a = approximation
        m, weights = a.n_landmarks, kernel.weights
        features = nystroem_features(X, semimetric, weights, m, a.rng, a.landmarks)
        return NystroemOperator(*features, recipe=functools.partial(NystroemOperator, *features))
    directions = approximation.directions
    if directions is None:
        L = check_projection(approximation.n_projections, {"": semimetric}, X.shape[1])
        directions = random_directions(L, X.shape[1], approximation.rng)
    else:
        check_projection(directions.shape[0], {"": semimetric}, X.shape[1])
    given = Projection(directions=directions)
    recipe = functools.partial(make_operator, X, semimetric, approximation=given)
    return ProjectionOperator(X, directions, recipe=recipe)


def centred_kernel(op: PairwiseOperator, weights: np.ndarray | None = None) -> PairwiseOperator:
    r"""The centred kernel :math:`G = -\tfrac12 J D J^\top` (eq. 7, reference point the
    weighted mean with ``weights``) of an existing semimetric operator D, without forming it:
    products and rows of G from D's, one product with D for the centring."""
    return CentredKernel(op, weights)


def feature_operator(features: np.ndarray) -> PairwiseOperator:
    r"""The Gram matrix :math:`\Phi\Phi^\top` of given features Φ (n x r) as an operator:
    products O(n r m), memory O(n r) (the features themselves), as the Nyström back-end."""
    return NystroemOperator(features)



#: Samples of at most this many points get their pair sums from the whole matrix (scipy's
#: cdist, about 5 microseconds a call and 4.5 ns a pair), larger ones from each pair once
#: (pdist, about 25 microseconds a call and 2.5 ns a pair): the two meet near n = 100
#: (60 microseconds a sample at d = 3, measured with one thread on a loaded 2-core machine).
WHOLE_MATRIX_POINTS = 100


def stacked_pair_sums(samples: np.ndarray, semimetric: Semimetric) -> np.ndarray:
    r""":math:`\sum_{i, j} \rho(x_i, x_j)` of each sample of a stack of points (b x n x d): for
    a bootstrap's independent samples, not the pairs of one (on the line,
    :func:`sorted_pair_sums`). The row sums of each sample's operator added up, computed
    without building one: on the line from the sorted samples; up to
    :data:`WHOLE_MATRIX_POINTS` points from the sample's whole
    matrix (the values, and their sums, of its dense operator); beyond, from each pair once
    (a condensed vector of n (n - 1) / 2 values at a time, the budget checked once for the
    stack), or from the sample's operator when that vector does not fit (streamed)."""
    n = samples.shape[1]
    if semimetric.is_abs_difference(samples[0]):
        return sorted_pair_sums(np.sort(samples[:, :, 0], axis=1))
    if n <= WHOLE_MATRIX_POINTS:
        return np.array([semimetric(X, X).sum(axis=1).sum() for X in samples])
    if 4 * n * (n - 1) > memory_budget():  # one condensed vector of 8-byte values
        return np.array([make_operator(X, semimetric).total() for X in samples])
    return np.array([2.0 * condensed_values(X, semimetric).sum() for X in samples])
