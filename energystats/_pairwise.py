"""The public functions that return whole matrices: the semimetric between two sets of
points, the Gram matrix of the kernel a semimetric generates (França et al. eq. 7), and
the check that a matrix is of negative type. Each returns an array that grows as n^2,
so each checks the memory budget first; statistics never call them (they use
:func:`energystats._scale.pairwise`, which streams past the budget).
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from ._config import check_fits
from ._frontdoor import front_door
from ._scale import pairwise
from ._semimetric import MetricLike, Scaling, as_precomputed, prepare_points, resolve_semimetric
from ._validation import as_data, as_weights

__all__ = ["is_negative_type", "kernel_matrix", "pairwise_semimetric"]


def _matrix(X: np.ndarray, sm) -> np.ndarray:
    """The n x n matrix of ``sm`` on the points X (memory 8 n^2, checked)."""
    check_fits(f"the {len(X)} x {len(X)} semimetric matrix", 8.0 * len(X) ** 2)
    return pairwise(X, sm, held=True)


def _centre(D: np.ndarray, w) -> np.ndarray:
    r"""D (owned) turned into :math:`G = -\tfrac12 J D J^\top`, :math:`J = I - 1 p^\top`,
    p = w / s (uniform for None), in place by bands; r_i + r_j added first: G exactly
    symmetric."""
    p = np.full(len(D), 1.0 / len(D)) if w is None else w / w.sum()
    r = D @ p
    c = p @ r
    step = max(1, 2**17 // len(D))
    for a in range(0, len(D), step):
        band = D[a : a + step]
        band -= r[a : a + step, None] + r[None, :]
        band += c
        band *= -0.5
    return D


@front_door(("X", "Y"), tables=False)
def pairwise_semimetric(
    X, Y=None, *, metric: MetricLike = "euclidean", exponent=1.0, sigma=None, n_neighbors=None
) -> np.ndarray:
    r"""Matrix of semimetric values between the rows of ``X`` and ``Y``.

    Parameters
    ----------
    X : array_like of shape (n, d)
    Y : array_like of shape (m, d), default=None
        ``None`` means ``Y = X``.
    metric : str or callable, default="euclidean"
        ``"euclidean"``: :math:`\|x - y\|^\alpha` (eq. 52);
        ``"exponential"``: :math:`2 - 2 e^{-\|x-y\|/(2\sigma)}` (eq. 53);
        ``"gaussian"``: :math:`2 - 2 e^{-\|x-y\|^2/(2\sigma^2)}` (eq. 54);
        ``"nearest_neighbors"``: the semimetric of the points' graph (eq. 35),
        :math:`1/d_i + 1/d_j - 2 A_{ij} / (d_i d_j)` off the diagonal, with A the affinities of
        each point's ``n_neighbors`` nearest points (1/2 one way, 1 both ways) and d their
        sums (the degrees); ``Y`` must be None.
    exponent : float, default=1.0
        alpha in (0, 2], for ``"euclidean"`` only.
    sigma : float, default=None
        Scale of ``"exponential"`` and ``"gaussian"``; ``None``: half the median distance
        between the points (of X and Y together; over at most 1,000 of them, evenly spaced), at
        which both kernels are :math:`e^{-1/2}`.
    n_neighbors : int, default=None
        The neighbours of ``"nearest_neighbors"``; ``None``: ``ceil(ln n)``.

    Returns
    -------
    ndarray of shape (n, m), float64

    Notes
    -----
    Memory 8 n m bytes: this returns the full matrix, so it must fit
    ``working_memory`` (:func:`set_config`), else :class:`WorkingMemoryError`.
    Statistics never call it; they use :func:`energystats._scale.pairwise`, which streams.

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
    sm = resolve_semimetric(metric, exponent, sigma, n_neighbors)
    if sm.precomputed:
        raise ValueError("`metric`='precomputed' has nothing to compute; pass the matrix itself.")
    X = as_data(X, "X")
    if sm.on_graph:
        if Y is not None:
            raise ValueError("`Y` must be None for metric='nearest_neighbors': the graph's "
                             "semimetric is between the points of one sample.")
        return _matrix(X, sm)
    given = Y is not None
    Y = X if Y is None else as_data(Y, "Y")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"`X` and `Y` must have the same number of features, got {X.shape[1]} "
                         f"and {Y.shape[1]}.")
    check_fits(f"the {X.shape[0]} x {Y.shape[0]} semimetric matrix", 8 * X.shape[0] * Y.shape[0])
    scaling = Scaling.for_data(X, sm, Y)
    X, Y = scaling.data(X), scaling.data(Y)
    rho = scaling.semimetric(sm).for_data(np.vstack([X, Y]) if given else X)
    return scaling.result(rho(X, Y), "the semimetric matrix", inplace=True)


@front_door(("X", "sample_weight", "x0"), tables=False)
def kernel_matrix(
    X, *, metric: MetricLike = "euclidean", exponent=1.0, sigma=None, n_neighbors=None,
    sample_weight=None, x0=None
) -> np.ndarray:
    r"""Gram matrix of the kernel a semimetric generates (França et al. eq. 7).

    .. math::

        K(x, y) = \tfrac12 \left[\rho(x, x_0) + \rho(y, x_0) - \rho(x, y)\right].

    Parameters
    ----------
    X : array_like of shape (n, d), or (n, n) when ``metric="precomputed"``
    metric, exponent, sigma, n_neighbors
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
    The centred form has entries of the size of rho itself.

    Memory 8 n^2 bytes: the matrix is returned, so it must fit
    ``working_memory`` (:func:`set_config`), else
    :class:`WorkingMemoryError`. The estimators and tests never call this;
    they use :func:`energystats._scale.pairwise`, which streams.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> G = es.kernel_matrix([[0.0], [1.0], [3.0]])
    >>> bool(np.allclose(G.sum(axis=0), 0))
    True
    >>> float(G[0, 0] + G[2, 2] - 2 * G[0, 2])
    3.0
    """
    sm = resolve_semimetric(metric, exponent, sigma, n_neighbors)
    X = prepare_points(X, sm)
    n = X.shape[0]
    if x0 is None:
        w = as_weights(sample_weight, n, "sample_weight")
        scaling = Scaling.for_data(X, sm)
        if sm.precomputed:
            check_fits(f"the {n} x {n} kernel matrix", 8.0 * n * n)
            D = scaling.data(X) if scaling.shift else X.copy()
        else:
            D = _matrix(scaling.data(X), scaling.semimetric(sm))
        return scaling.result(_centre(D, w), "the kernel matrix", inplace=True)
    if sm.precomputed or sm.on_graph:
        raise ValueError(f"`x0` cannot be used with metric={sm.metric!r}; use the centred form "
                         "(x0=None).")
    if sample_weight is not None:
        raise ValueError("`sample_weight` only defines the centre of the centred form; it has no "
                         "effect with `x0`.")
    x0 = as_data(np.atleast_2d(np.asarray(x0, dtype=float)), "x0")
    if x0.shape != (1, X.shape[1]):
        raise ValueError(f"`x0` must be a single point with {X.shape[1]} coordinates, got shape "
                         f"{x0.shape}.")
    scaling = Scaling.for_data(X, sm, x0)
    X, x0 = scaling.data(X), scaling.data(x0)
    rho = scaling.semimetric(sm).for_data(X)
    r0 = rho(X, x0)[:, 0]
    G = _matrix(X, rho)
    G *= -1.0
    G += r0[:, None] + r0[None, :]
    G *= 0.5
    return scaling.result(G, "the kernel matrix", inplace=True)


@front_door("D", distances=("D",))
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
    n = D.shape[0]
    check_fits(f"the eigenvalues of the {n} x {n} kernel (two n x n arrays)", 2 * 8.0 * n * n)
    # the signs are scale-free
    scaled = Scaling.for_data(D, resolve_semimetric("precomputed")).data(D)
    G = _centre(scaled.copy() if scaled is D else scaled, None)
    eig = np.linalg.eigvalsh(G)
    scale = max(1.0, float(np.abs(eig).max()))
    return bool(eig.min() >= -tol * scale)
