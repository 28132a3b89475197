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
``permuted``    the permutation engines of two operators (:func:`permuted_products`).
``pairs``       the centred products of several operators (:func:`centred_gram`).

Which one a computation gets is decided in :func:`make_operator` from what the
caller will ask (one pass, several, a batch of relabelings), the approximation it
names, and the memory budget of ``energystats.set_config(working_memory=...)``:
dense when the matrix fits and will be used more than once, streamed otherwise.
Every allocation that grows with n is checked against the budget first; what cannot
fit raises :class:`~energystats.WorkingMemoryError` before allocating.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .._config import memory_budget
from .._parallel import THREADS, n_workers
from .._semimetric import Semimetric
from ._base import PairwiseOperator, indicator
from ._prefix import PackedLabelings
from ._tiled import TILE
from .centred import CentredKernel
from .dense import DenseOperator
from .matrices import centre_in_place, condensed_semimetric, dense_bytes, semimetric_matrix
from .nystroem import FeatureMap, NystroemOperator, band_rows, nystroem_features, nystroem_map
from .pairs import CentredGram, centred_gram
from .permuted import GatherEngine, permuted_products
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
from .streamed import TILE_ENTRY_BYTES, StreamedOperator

__all__ = [
    "N_PROJECTIONS",
    "TILE",
    "CentredGram",
    "CentredKernel",
    "DenseOperator",
    "FeatureMap",
    "GatherEngine",
    "NystroemOperator",
    "PackedLabelings",
    "PairwiseOperator",
    "ProjectionOperator",
    "SortedOperator",
    "StreamedOperator",
    "band_rows",
    "centre_in_place",
    "check_projection",
    "centred_gram",
    "centred_kernel",
    "condensed_semimetric",
    "dense_bytes",
    "feature_operator",
    "indicator",
    "line_pair_sums",
    "make_operator",
    "nystroem_features",
    "nystroem_map",
    "permuted_products",
    "projected_pair_sums",
    "random_directions",
    "semimetric_matrix",
    "sorted_pair_sums",
    "sphere_constant",
]

_APPROXIMATIONS = {False: "projection", True: "nystroem"}


def make_operator(
    X: np.ndarray,
    semimetric: Semimetric | None,
    *,
    kernel: bool = False,
    weights: np.ndarray | None = None,
    approximation: str | None = None,
    n_projections: int = N_PROJECTIONS,
    directions: np.ndarray | None = None,
    n_landmarks: int = 300,
    landmarks: str = "d2",
    rng: np.random.Generator | None = None,
    repeated: bool = False,
    permutations: tuple[int, int, int | None] | None = None,
    reserve: int = 0,
    sort: bool = True,
    n_jobs: int | None = None,
) -> PairwiseOperator:
    """The pairwise operator of validated data: the one place that picks a back-end.

    Parameters
    ----------
    X : ndarray
        Points (n x d), or the matrix when ``semimetric.precomputed``, or a Gram matrix
        when ``kernel`` and ``semimetric is None``.
    semimetric : Semimetric or None
    kernel : bool
        The centred kernel G (eq. 7, reference point the weighted mean, ``weights``)
        instead of the semimetric D.
    approximation : {None, "projection", "nystroem"}
        ``"projection"`` (D only; Euclidean distance with exponent 1): the average of
        ``n_projections`` one-dimensional distances along directions drawn from ``rng``
        (or along the given ``directions``, L x d).
        ``"nystroem"`` (G only): features from ``n_landmarks`` landmarks drawn from
        ``rng`` by ``landmarks`` ("d2" or "uniform").
    repeated : bool
        Whether the caller will use the operator more than once (several products, or
        rows). Only then is the matrix computed and held, and only when it fits the
        budget together with ``reserve`` bytes of the caller's own. A single product is
        streamed (it evaluates each pair once, in tiles that stay in cache, faster than
        filling the matrix) unless the matrix is at most four tiles.
    permutations : (k, labelings, batch) or None
        The caller will ask for the block sums of ``labelings`` labelings into k groups,
        ``batch`` at a time (``None``: as many as fit): streamed when every labeling
        fits one pass over the tiles, else the held matrix when it fits beside a batch,
        else streamed with one pass per batch.
    sort : bool
        Whether one-dimensional data with |x - y| get the sorted back-end (else the
        matrix's, as any other data).
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
    """
    if approximation is not None:
        op = _approximate(X, semimetric, kernel, weights, approximation, n_projections, directions, n_landmarks, landmarks, rng)
        return op.with_jobs(n_jobs)
    recipe = functools.partial(
        make_operator, X, semimetric, kernel=kernel, weights=weights, repeated=repeated, permutations=permutations, reserve=reserve, sort=sort
    )
    if kernel:
        return _kernel(X, semimetric, weights, reserve, n_jobs, recipe)
    if permutations is not None:
        return _for_permutations(X, semimetric, *permutations, n_jobs, recipe)
    return _semimetric(X, semimetric, repeated, reserve, n_jobs, sort, recipe)


def _approximate(X, semimetric, kernel, weights, approximation, n_projections, directions, n_landmarks, landmarks, rng) -> PairwiseOperator:
    """The operator of ``approximation``, after checking that it applies."""
    if approximation != _APPROXIMATIONS[kernel]:
        raise ValueError(f"`approximation` must be None or {_APPROXIMATIONS[kernel]!r}, got {approximation!r}.")
    if kernel:
        features = nystroem_features(X, semimetric, weights, n_landmarks, rng, landmarks)
        return NystroemOperator(*features, recipe=functools.partial(NystroemOperator, *features))
    if directions is None:
        directions = random_directions(check_projection(n_projections, {"": semimetric}, X.shape[1]), X.shape[1], rng)
    else:
        check_projection(directions.shape[0], {"": semimetric}, X.shape[1])
    return ProjectionOperator(X, directions, recipe=functools.partial(make_operator, X, semimetric, approximation="projection", directions=directions))


def _streamed(X: np.ndarray, semimetric: Semimetric, recipe=None) -> StreamedOperator:
    """A streamed operator whose tiles take at most a quarter of the budget."""
    tile = min(TILE, max(1, math.isqrt(memory_budget() // (4 * TILE_ENTRY_BYTES * THREADS))))
    return StreamedOperator(X, semimetric, tile, recipe=recipe)


def _semimetric(X, semimetric, repeated: bool, reserve: int, n_jobs, sort: bool = True, recipe=None) -> PairwiseOperator:
    """D: the user's matrix, sorted in one dimension, distributed, held, or streamed
    (``recipe``: what rebuilds it, for its constructor)."""
    if semimetric.precomputed:
        return DenseOperator(X, recipe=recipe)
    if sort and semimetric.is_abs_difference(X):
        return SortedOperator(X[:, 0], recipe=recipe)
    if n_workers(n_jobs) > 1:  # tiles at most a quarter of the data a side: work for every worker
        return StreamedOperator(X, semimetric, min(TILE, max(1, -(-X.shape[0] // 4))), threads=1, recipe=recipe).with_jobs(n_jobs)
    n = X.shape[0]
    # a matrix of at most four tiles is one BLAS call, faster than tiling it
    if (repeated or n <= 2 * TILE) and dense_bytes(n) + reserve <= memory_budget():
        return DenseOperator(semimetric_matrix(X, semimetric), owned=True, recipe=recipe)
    return _streamed(X, semimetric, recipe)


def _for_permutations(X, semimetric, k: int, labelings: int, batch: int | None, n_jobs, recipe) -> PairwiseOperator:
    """D for the block sums of many labelings: streamed when every labeling fits one pass
    over the tiles, else held when the matrix fits beside a batch, else streamed with one
    pass per batch (distributed with more than one worker)."""
    op = _semimetric(X, semimetric, False, 0, n_jobs, recipe=recipe)
    if isinstance(op, StreamedOperator) and not op._distributed():
        per = op.group_sums_bytes(k)
        step = batch or (memory_budget() - op.nbytes) // per
        if step < labelings:
            op = _semimetric(X, semimetric, True, per * (batch or 1), None, recipe=recipe)
    return op


def _kernel(X, semimetric, weights, reserve: int, n_jobs, recipe) -> PairwiseOperator:
    """G: a given Gram matrix as it is; points whose matrix fits the budget get G computed
    and centred in place (one n x n array); a precomputed D is wrapped without a copy;
    otherwise G is formed from a streamed (with ``n_jobs``: distributed) or sorted D."""
    if semimetric is None:
        return DenseOperator(X, recipe=recipe)
    n = X.shape[0]
    if not semimetric.precomputed and not semimetric.is_abs_difference(X) and dense_bytes(n) + reserve <= memory_budget():
        return DenseOperator(centre_in_place(semimetric_matrix(X, semimetric), weights), owned=True, recipe=recipe)
    return CentredKernel(_semimetric(X, semimetric, False, 0, n_jobs), weights, recipe=recipe)


def centred_kernel(op: PairwiseOperator, weights: np.ndarray | None = None) -> PairwiseOperator:
    r"""The centred kernel :math:`G = -\tfrac12 J D J^\top` (eq. 7, reference point the
    weighted mean with ``weights``) of an existing semimetric operator D, without forming it:
    products and rows of G from D's, one product with D for the centring."""
    return CentredKernel(op, weights)


def feature_operator(features: np.ndarray) -> PairwiseOperator:
    r"""The Gram matrix :math:`\Phi\Phi^\top` of given features Φ (n x r) as an operator:
    products O(n r m), memory O(n r) (the features themselves), as the Nyström back-end."""
    return NystroemOperator(features)
