"""Semimetrics of negative type, the kernels they generate, and block sums.

This is the one place in the package that evaluates pairwise semimetrics.
Every statistic calls :func:`block_sums`, which never holds more than a
band of ``tile`` rows of the N x N semimetric matrix (memory O(N * tile)).

References
----------
G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-Groups via Hartigan's
Method", IEEE TPAMI (2020). Equations (7), (13), (52)-(54).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from numbers import Real
from typing import Callable, Union

import numpy as np
from scipy.spatial.distance import cdist

from ._onedim import block_sums_1d
from ._validation import as_data, as_weights, check_exponent

__all__ = [
    "Semimetric",
    "block_sums",
    "is_negative_type",
    "kernel_matrix",
    "pairwise_semimetric",
    "resolve_semimetric",
    "semimetric_matrix",
]

MetricLike = Union[str, Callable[[np.ndarray, np.ndarray], np.ndarray]]

_METRICS = ("euclidean", "exponential", "gaussian", "precomputed")

#: Bytes allowed for one band of the semimetric matrix in :func:`block_sums`.
TILE_BYTES = 32 * 2**20
#: Threads for filling and centring full n x n matrices.
THREADS = 2


@dataclass(frozen=True)
class Semimetric:
    """A validated semimetric specification.

    Attributes
    ----------
    metric : str or callable
        ``"euclidean"``, ``"exponential"``, ``"gaussian"``, ``"precomputed"``
        or a callable ``f(A, B)`` returning the ``len(A) x len(B)`` matrix of
        semimetric values.
    exponent : float
        Exponent alpha of ``"euclidean"`` (eq. 52); 1.0 otherwise.
    sigma : float or None
        Scale of ``"exponential"`` (eq. 53) and ``"gaussian"`` (eq. 54).
    """

    metric: MetricLike
    exponent: float = 1.0
    sigma: float | None = None

    @property
    def precomputed(self) -> bool:
        return isinstance(self.metric, str) and self.metric == "precomputed"

    @property
    def is_euclidean_power(self) -> bool:
        return isinstance(self.metric, str) and self.metric == "euclidean"

    def is_abs_difference(self, X: np.ndarray) -> bool:
        """Whether rho(x, y) = |x - y| on the (validated) points X: the O(n log n) 1-D case."""
        return self.is_euclidean_power and self.exponent == 1.0 and X.shape[1] == 1

    def __call__(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """Matrix of rho(a, b) for rows a of ``A`` and b of ``B`` (float64)."""
        metric = self.metric
        if callable(metric):
            out = np.asarray(metric(A, B), dtype=np.float64)
            if out.shape != (A.shape[0], B.shape[0]):
                raise ValueError(
                    f"`metric` callable must return an array of shape "
                    f"{(A.shape[0], B.shape[0])}, got {out.shape}."
                )
            if not np.isfinite(out).all():
                raise ValueError("`metric` callable returned NaN or infinite values.")
            return out
        if metric == "euclidean":
            alpha = self.exponent
            if alpha == 1.0:
                return cdist(A, B, "euclidean")
            out = cdist(A, B, "sqeuclidean")
            if alpha != 2.0:
                np.power(out, alpha / 2.0, out=out)
            return out
        if metric == "exponential":
            # eq. (53): 2 - 2 exp(-||x - y|| / (2 sigma)), via expm1 for accuracy
            out = cdist(A, B, "euclidean")
            out *= -1.0 / (2.0 * self.sigma)
        else:  # gaussian, eq. (54): 2 - 2 exp(-||x - y||^2 / (2 sigma^2))
            out = cdist(A, B, "sqeuclidean")
            out *= -1.0 / (2.0 * self.sigma**2)
        np.expm1(out, out=out)
        out *= -2.0
        return out


def resolve_semimetric(metric: MetricLike = "euclidean", exponent=1.0, sigma=None) -> Semimetric:
    """Validate ``metric``, ``exponent`` and ``sigma`` together."""
    if callable(metric):
        name = None
    elif isinstance(metric, str) and metric in _METRICS:
        name = metric
    else:
        raise ValueError(
            f"`metric` must be one of {_METRICS} or a callable, got {metric!r}."
        )
    exponent = check_exponent(exponent)
    if name != "euclidean" and exponent != 1.0:
        raise ValueError("`exponent` applies only to metric='euclidean'.")
    if name in ("exponential", "gaussian"):
        if sigma is None:
            raise ValueError(f"`sigma` is required for metric={name!r}.")
        if isinstance(sigma, bool) or not isinstance(sigma, Real):
            raise TypeError(f"`sigma` must be a real number, got {type(sigma).__name__}.")
        if not (np.isfinite(sigma) and sigma > 0):
            raise ValueError(f"`sigma` must be a positive finite number, got {sigma}.")
        sigma = float(sigma)
    elif sigma is not None:
        raise ValueError("`sigma` applies only to metric='exponential' or 'gaussian'.")
    return Semimetric(metric, exponent, sigma)


def as_precomputed(D, name: str = "X") -> np.ndarray:
    """Validate a square, symmetric, zero-diagonal, non-negative matrix."""
    D = as_data(D, name)
    n, m = D.shape
    if n != m:
        raise ValueError(f"`{name}` must be a square distance matrix for metric='precomputed', got shape {D.shape}.")
    if (D < 0).any():
        raise ValueError(f"`{name}` must be non-negative for metric='precomputed'.")
    if np.any(np.diag(D) != 0):
        raise ValueError(f"`{name}` must have a zero diagonal for metric='precomputed'.")
    scale = np.abs(D).max()
    if np.abs(D - D.T).max() > 1e-12 * scale:
        raise ValueError(f"`{name}` must be symmetric for metric='precomputed'.")
    return D


def prepare_points(X, semimetric: Semimetric, name: str = "X", *, min_samples: int = 1) -> np.ndarray:
    """Validate data for ``semimetric``: points, or a matrix when precomputed."""
    if semimetric.precomputed:
        D = as_precomputed(X, name)
        if D.shape[0] < min_samples:
            raise ValueError(f"`{name}` must hold at least {min_samples} sample(s), got {D.shape[0]}.")
        return D
    return as_data(X, name, min_samples=min_samples)


def _tile_rows(n: int, tile_bytes: int) -> int:
    return int(max(1, min(n, tile_bytes // (8 * max(n, 1)))))


def _band(X: np.ndarray, a: int, b: int, semimetric: Semimetric) -> np.ndarray:
    """Rows a:b, columns a:N of the semimetric matrix (upper band)."""
    if semimetric.precomputed:
        return X[a:b, a:]
    return semimetric(X[a:b], X[a:])


def block_sums(
    X: np.ndarray,
    codes: np.ndarray,
    n_groups: int,
    semimetric: Semimetric,
    weights: np.ndarray | None = None,
    *,
    tile_bytes: int = TILE_BYTES,
    fast_1d: bool = True,
) -> np.ndarray:
    r"""Weighted sums of the semimetric over every pair of groups.

    .. math::

        M_{ij} = \sum_{x \in C_i} \sum_{y \in C_j} w(x) w(y) \rho(x, y),

    the numerator of França et al. eq. (13): :math:`g(C_i, C_j) = M_{ij} /
    (s_i s_j)`.

    Parameters
    ----------
    X : ndarray of shape (N, d), or (N, N) when precomputed
        Validated float64 data.
    codes : ndarray of int, shape (N,)
        Group of each point, in ``0..n_groups-1``.
    n_groups : int
        Number of groups k.
    semimetric : Semimetric
    weights : ndarray of shape (N,), optional
        Point weights w(x); unit weights when ``None``.
    tile_bytes : int
        Memory allowed for one band of the semimetric matrix.
    fast_1d : bool
        For one-dimensional data with rho = |x - y| use the exact
        O(N log N + N k) sums of :func:`energystats._onedim.block_sums_1d`.

    Returns
    -------
    M : ndarray of shape (k, k)
        Symmetric matrix of block sums.

    Notes
    -----
    Only the upper band ``rows a:b, columns a:N`` is evaluated for each tile,
    so every unordered pair is computed once (a precomputed matrix is read
    in its upper triangle). Time O(N^2 (d + k)); memory O(N * tile + N k).
    One-dimensional data with exponent 1 take the O(N log N) path.
    """
    if fast_1d and semimetric.is_abs_difference(X):
        return block_sums_1d(X, codes, n_groups, weights)
    n = codes.shape[0]
    Z = np.zeros((n, n_groups))
    Z[np.arange(n), codes] = 1.0 if weights is None else weights
    M = np.zeros((n_groups, n_groups))
    step = _tile_rows(n, tile_bytes)
    for a in range(0, n, step):
        b = min(a + step, n)
        band = _band(X, a, b, semimetric)
        Za = Z[a:b]
        M += Za.T @ (band[:, : b - a] @ Za)
        if b < n:
            off = Za.T @ (band[:, b - a :] @ Z[b:])
            M += off + off.T
    return 0.5 * (M + M.T)  # exact symmetry; the diagonal tiles are symmetric only to rounding


def _run_bands(n: int, work: Callable[[int, int], None], tile_bytes: int = TILE_BYTES) -> None:
    """Call ``work(a, b)`` on row bands of an n x n matrix, on two threads
    (scipy's cdist and numpy's elementwise operations release the GIL)."""
    step = _tile_rows(n, tile_bytes)
    bands = [(a, min(a + step, n)) for a in range(0, n, step)]
    if len(bands) == 1:
        work(*bands[0])
        return
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        for future in [pool.submit(work, a, b) for a, b in bands]:
            future.result()


def semimetric_matrix(X: np.ndarray, semimetric: Semimetric) -> np.ndarray:
    """The full symmetric N x N semimetric matrix of validated points (memory N^2).

    Evaluates the upper band of each block of rows once and mirrors it, so
    the matrix is exactly symmetric and each pair is computed once.
    """
    n = X.shape[0]
    D = np.empty((n, n))

    def fill(a: int, b: int) -> None:
        band = semimetric(X[a:b], X[a:])
        D[a:b, a:] = band
        D[a:, a:b] = band.T

    _run_bands(n, fill, tile_bytes=TILE_BYTES // 4)
    return D


def pairwise_semimetric(X, Y=None, *, metric: MetricLike = "euclidean", exponent=1.0, sigma=None) -> np.ndarray:
    r"""Matrix of semimetric values between the rows of ``X`` and ``Y``.

    Parameters
    ----------
    X : array_like of shape (n, d)
    Y : array_like of shape (m, d), default=None
        ``None`` means ``Y = X``.
    metric : {"euclidean", "exponential", "gaussian"} or callable, default="euclidean"
        ``"euclidean"``: :math:`\|x - y\|^\alpha` (eq. 52);
        ``"exponential"``: :math:`2 - 2 e^{-\|x-y\|/(2\sigma)}` (eq. 53);
        ``"gaussian"``: :math:`2 - 2 e^{-\|x-y\|^2/(2\sigma^2)}` (eq. 54).
    exponent : float, default=1.0
        alpha in (0, 2], for ``"euclidean"`` only.
    sigma : float, default=None
        Scale, required for ``"exponential"`` and ``"gaussian"``.

    Returns
    -------
    ndarray of shape (n, m), float64

    Notes
    -----
    Memory O(n m): this returns the full matrix. Statistics never call it on
    the whole sample; they use tiled block sums.

    Examples
    --------
    >>> import energystats as es
    >>> es.pairwise_semimetric([[0.0, 0.0], [3.0, 4.0]])
    array([[0., 5.],
           [5., 0.]])
    >>> es.pairwise_semimetric([[0.0], [2.0]], exponent=0.5).round(6)
    array([[0.      , 1.414214],
           [1.414214, 0.      ]])
    """
    sm = resolve_semimetric(metric, exponent, sigma)
    if sm.precomputed:
        raise ValueError("`metric`='precomputed' has nothing to compute; pass the matrix itself.")
    X = as_data(X, "X")
    Y = X if Y is None else as_data(Y, "Y")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"`X` and `Y` must have the same number of features, got {X.shape[1]} and {Y.shape[1]}."
        )
    return sm(X, Y)


def kernel_matrix(
    X, *, metric: MetricLike = "euclidean", exponent=1.0, sigma=None, sample_weight=None, x0=None
) -> np.ndarray:
    r"""Gram matrix of the kernel a semimetric generates (França et al. eq. 7).

    .. math::

        K(x, y) = \tfrac12 \left[\rho(x, x_0) + \rho(y, x_0) - \rho(x, y)\right].

    Parameters
    ----------
    X : array_like of shape (n, d), or (n, n) when ``metric="precomputed"``
    metric, exponent, sigma
        As in :func:`pairwise_semimetric`; ``"precomputed"`` is allowed.
    sample_weight : array_like of shape (n,), default=None
        Weights defining the centre of the default centred form.
    x0 : array_like of shape (d,), default=None
        ``None`` (default): the centred form :math:`K = -\tfrac12 J D J^\top`
        with :math:`J = I - \mathbf 1 p^\top`, :math:`p = w / s`, i.e. the
        kernel centred at the (weighted) mean in feature space. Otherwise
        the reference point x0 of eq. (7); ``np.zeros(d)`` gives the paper's
        choice x0 = 0.

    Returns
    -------
    G : ndarray of shape (n, n)
        Symmetric Gram matrix with ``G_ii + G_jj - 2 G_ij = rho(x_i, x_j)``.

    Notes
    -----
    Every choice of x0 generates the same rho, so no clustering decision
    depends on it; but with x0 = 0 and data far from the origin the entries
    are huge and rho is recovered only through catastrophic cancellation.
    The centred form has entries of the size of rho itself. Memory O(n^2).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> G = es.kernel_matrix([[0.0], [1.0], [3.0]])
    >>> bool(np.allclose(G.sum(axis=0), 0))
    True
    >>> float(G[0, 0] + G[2, 2] - 2 * G[0, 2])
    3.0
    """
    sm = resolve_semimetric(metric, exponent, sigma)
    X = prepare_points(X, sm)
    n = X.shape[0]
    D = X.copy() if sm.precomputed else semimetric_matrix(X, sm)
    if x0 is None:
        w = as_weights(sample_weight, n, "sample_weight")
        p = np.full(n, 1.0 / n) if w is None else w / w.sum()
        r = D @ p
        c = p @ r

        def centre(a: int, b: int) -> None:
            band = D[a:b]
            band -= r[a:b, None] + r[None, :]  # r_i + r_j keeps G exactly symmetric
            band += c
            band *= -0.5

        _run_bands(n, centre, tile_bytes=2**20)  # bands that stay in cache
        return D
    if sm.precomputed:
        raise ValueError("`x0` cannot be used with metric='precomputed'; use the centred form (x0=None).")
    if sample_weight is not None:
        raise ValueError("`sample_weight` only defines the centre of the centred form; it has no effect with `x0`.")
    x0 = as_data(np.atleast_2d(np.asarray(x0, dtype=float)), "x0")
    if x0.shape != (1, X.shape[1]):
        raise ValueError(f"`x0` must be a single point with {X.shape[1]} coordinates, got shape {x0.shape}.")
    r0 = sm(X, x0)[:, 0]
    G = D
    G *= -1.0
    G += r0[:, None] + r0[None, :]
    G *= 0.5
    return G


def is_negative_type(D, *, tol: float = 1e-10) -> bool:
    r"""Whether a semimetric matrix is conditionally negative definite.

    ``D`` is of negative type when :math:`c^\top D c \le 0` for every ``c``
    with :math:`\sum_i c_i = 0`, i.e. when the centred Gram matrix
    :math:`-\tfrac12 J D J` is positive semidefinite.

    Parameters
    ----------
    D : array_like of shape (n, n)
        Symmetric matrix with zero diagonal.
    tol : float, default=1e-10
        Eigenvalues down to ``-tol * max(1, largest |eigenvalue|)`` count as zero.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.random.default_rng(0).normal(size=(20, 3))
    >>> es.is_negative_type(es.pairwise_semimetric(x, exponent=1.5))
    True
    >>> es.is_negative_type(es.pairwise_semimetric(x, exponent=2.0) ** 1.5)
    False
    """
    if isinstance(tol, bool) or not isinstance(tol, Real) or not tol >= 0:
        raise ValueError(f"`tol` must be a non-negative number, got {tol!r}.")
    D = as_precomputed(D, "D")
    G = kernel_matrix(D, metric="precomputed")
    eig = np.linalg.eigvalsh(G)
    scale = max(1.0, float(np.abs(eig).max()))
    return bool(eig.min() >= -tol * scale)
