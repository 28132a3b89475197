"""Full matrices: for the dense operator, and for the public functions that return one
(:func:`energystats.pairwise_semimetric`, :func:`energystats.kernel_matrix`,
:func:`energystats.energy_hclust`'s condensed distances). Every one checks the memory
budget before allocating."""

from __future__ import annotations

from typing import Callable

import numpy as np
from scipy.spatial.distance import pdist, squareform

from .._config import check_fits
from .._parallel import THREADS, round_robin, run_threads
from .._semimetric import Semimetric
from ._tiled import TILE
from .graph import GraphOperator

__all__ = ["centre_in_place", "condensed_semimetric", "condensed_values", "dense_bytes",
           "semimetric_matrix"]


def _run_bands(n: int, work: Callable[[int, int], None], rows_per_band: int) -> None:
    """Call ``work(a, b)`` on row bands of an n x n matrix, shared among the cores
    (scipy's cdist and numpy's elementwise operations release the GIL; no BLAS)."""
    bands = [(a, min(a + rows_per_band, n)) for a in range(0, n, rows_per_band)]
    run_threads(lambda mine: [work(a, b) for a, b in mine], round_robin(bands, THREADS), blas=False)


def dense_bytes(n: int) -> int:
    """Memory of one n x n float64 matrix."""
    return 8 * n * n


def semimetric_matrix(X: np.ndarray, semimetric: Semimetric) -> np.ndarray:
    """The full symmetric n x n semimetric matrix of validated points (memory 8 n^2, checked).

    Evaluates the upper band of each block of rows once and mirrors it, so
    the matrix is exactly symmetric and each pair is computed once.
    """
    n = X.shape[0]
    check_fits(f"the {n} x {n} semimetric matrix", dense_bytes(n))
    semimetric = semimetric.for_data(X)
    if semimetric.on_graph:
        return GraphOperator(semimetric.graph.kernel()).rows(slice(None))
    D = np.empty((n, n))

    def fill(a: int, b: int) -> None:
        band = semimetric(X[a:b], X[a:])
        D[a:b, a:] = band
        D[a:, a:b] = band.T

    _run_bands(n, fill, max(1, TILE * TILE // max(n, 1)))
    return D


def condensed_semimetric(X: np.ndarray, semimetric: Semimetric, copies: int = 2) -> np.ndarray:
    """The semimetric of every pair i < j of validated points (or of a precomputed matrix),
    in scipy's condensed order (that of ``pdist``): n (n - 1) / 2 values.

    The budget is checked for ``copies`` such vectors: the caller's consumer may hold
    a working copy (scipy's ``linkage`` does)."""
    n = X.shape[0]
    pairs = n * (n - 1) // 2
    check_fits(
        f"the {pairs} pairs of {n} points ({copies} condensed vector(s) of pairwise values)",
        copies * 8 * pairs,
        "cluster a subsample",
    )
    return condensed_values(X, semimetric)


def condensed_values(X: np.ndarray, semimetric: Semimetric) -> np.ndarray:
    """:func:`condensed_semimetric` without its budget check (the caller's)."""
    if semimetric.precomputed:
        return squareform(X, checks=False)
    semimetric = semimetric.for_data(X)
    if semimetric.on_graph:
        return squareform(semimetric_matrix(X, semimetric), checks=False)
    if semimetric.is_euclidean_power:
        # sum of squared differences (no cancellation), then the exponent alpha / 2
        values = pdist(X, "sqeuclidean")
        if semimetric.exponent == 1.0:
            return np.sqrt(values, out=values)
        return np.power(values, semimetric.exponent / 2.0, out=values)
    n = X.shape[0]
    values = np.empty(n * (n - 1) // 2)
    start = 0
    for i in range(n - 1):
        values[start : start + n - 1 - i] = semimetric(X[i : i + 1], X[i + 1 :])[0]
        start += n - 1 - i
    return values


def centre_in_place(D: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Turn an owned semimetric matrix into the centred kernel G (same formula as
    :class:`~energystats._operator.centred.CentredKernel`, elementwise: r_i + r_j first,
    so G is exactly symmetric)."""
    n = D.shape[0]
    p = np.full(n, 1.0 / n) if weights is None else weights / weights.sum()
    r = D @ p
    c = p @ r

    def centre(a: int, b: int) -> None:
        band = D[a:b]
        band -= r[a:b, None] + r[None, :]
        band += c
        band *= -0.5

    _run_bands(n, centre, max(1, 2**17 // max(n, 1)))  # bands that stay in cache
    return D
