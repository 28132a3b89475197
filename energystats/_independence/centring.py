r"""Double centring, U-centring and the inner product of U-centred matrices, for matrices
the caller holds: R's ``D_center``, ``U_center`` and ``U_product`` (Székely & Rizzo 2014,
eq. 3.1). The statistics themselves never form these matrices: they reach the data
through the pairwise operator (:func:`~energystats._operator.centred_gram`)."""

from __future__ import annotations

import numpy as np

from .._config import check_fits
from .._frontdoor import front_door
from .._semimetric import Scaling
from .._validation import as_data, unit_scale

__all__ = ["d_center", "u_center", "u_product"]


def _square(D, name: str) -> tuple[np.ndarray, Scaling]:
    """``D`` validated and divided by 2^e (exact; :func:`unit_scale`), so that the sums of the
    centrings and products neither overflow nor underflow at any magnitude, and the scaling
    that multiplies a result back (``OverflowError`` naming ``name`` when it cannot be held)."""
    D = as_data(D, name)
    if D.shape[0] != D.shape[1]:
        raise ValueError(f"`{name}` must be a square matrix, got shape {D.shape}.")
    D, e = unit_scale(D)
    if not np.allclose(D, D.T, rtol=1e-12, atol=0.0):
        raise ValueError(f"`{name}` must be symmetric.")
    return D, Scaling(0, float(e))


@front_door("D", distances=("D",))
def d_center(D) -> np.ndarray:
    r"""The double-centred matrix :math:`A_{ij} = a_{ij} - \bar a_{i\cdot} - \bar a_{\cdot j} +
    \bar a_{\cdot\cdot}` (Székely, Rizzo & Bakirov 2007, eq. 2.7): R ``D_center(Dx)``.

    Parameters
    ----------
    D : array_like of shape (n, n)
        A symmetric matrix (distances, or any dissimilarities).

    Returns
    -------
    ndarray of shape (n, n)

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> D = np.abs(np.subtract.outer([0.0, 1.0, 3.0], [0.0, 1.0, 3.0]))
    >>> bool(np.allclose(es.d_center(D).sum(axis=0), 0))
    True
    """
    D, back = _square(D, "D")
    n = D.shape[0]
    check_fits(f"the {n} x {n} double-centred matrix", 8 * n * n)
    row = D.mean(axis=1)
    return back.result(
        D - row[:, None] - row[None, :] + row.mean(),
        "the double-centred matrix of `D`",
        inplace=True,
    )


@front_door("D", distances=("D",))
def u_center(D) -> np.ndarray:
    r"""The U-centred matrix :math:`\tilde A_{ij} = a_{ij} - \frac{a_{i\cdot}}{n-2} -
    \frac{a_{\cdot j}}{n-2} + \frac{a_{\cdot\cdot}}{(n-1)(n-2)}` for :math:`i \ne j`, 0 on the
    diagonal (Székely & Rizzo 2014, eq. 3.1): R ``U_center(Dx)``. U-centring is idempotent
    and ``d_center`` leaves its result unchanged.

    Parameters
    ----------
    D : array_like of shape (n, n), n >= 3
        A symmetric matrix (distances, or any dissimilarities).

    Returns
    -------
    ndarray of shape (n, n)

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.array([0.0, 1.0, 3.0, 6.0])
    >>> U = es.u_center(np.abs(np.subtract.outer(x, x)))
    >>> bool(np.allclose(es.u_center(U), U)), bool(np.allclose(U.sum(axis=1), 0))
    (True, True)
    """
    D, back = _square(D, "D")
    n = D.shape[0]
    if n < 3:
        raise ValueError(
            f"`D` must be at least 3 x 3 for U-centring (it divides by n - 2), got {n} x {n}."
        )
    check_fits(f"the {n} x {n} U-centred matrix", 8 * n * n)
    row = D.sum(axis=1)
    U = D - row[:, None] / (n - 2) - row[None, :] / (n - 2) + row.sum() / ((n - 1) * (n - 2))
    np.fill_diagonal(U, 0.0)
    return back.result(U, "the U-centred matrix of `D`", inplace=True)


@front_door(("U", "V"))
def u_product(U, V) -> float:
    r"""The inner product :math:`(\tilde A \cdot \tilde B) = \frac{1}{n(n-3)} \sum_{i \ne j}
    \tilde A_{ij} \tilde B_{ij}` of two U-centred matrices (Székely & Rizzo 2014, eq. 3.2):
    R ``U_product(U, V)``. Of U-centred distance matrices it is the unbiased estimator of
    :math:`\mathcal V^2(X, Y)` (R ``dcovU``).

    Parameters
    ----------
    U, V : array_like of shape (n, n), n >= 4
        U-centred matrices (:func:`u_center`).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> U = es.u_center(np.abs(np.subtract.outer(x, x)))
    >>> V = es.u_center(np.abs(np.subtract.outer(x**2, x**2)))
    >>> bool(np.isclose(es.u_product(U, V), es.dcov(x, x**2, estimator="U")))
    True
    """
    U, back_u = _square(U, "U")
    V, back_v = _square(V, "V")
    n = U.shape[0]
    if V.shape != U.shape:
        raise ValueError(f"`U` and `V` must have the same shape, got {U.shape} and {V.shape}.")
    if n < 4:
        raise ValueError(
            f"`U` must be at least 4 x 4 (the product divides by n(n - 3)), got {n} x {n}."
        )
    total = float(np.vdot(U, V)) - float(np.diagonal(U) @ np.diagonal(V))
    return Scaling(0, back_u.log2_factor + back_v.log2_factor).result(
        total / (n * (n - 3)), "U_product(`U`, `V`)"
    )
