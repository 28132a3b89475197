"""Linear algebra on the data: the centred SVD with its singular-covariance check, and the
two whitenings built on the sample covariance (Cholesky for the cluster test, the
symmetric root for the normality test)."""

from __future__ import annotations

import numpy as np
from scipy.linalg import cholesky, solve_triangular

__all__ = ["centred_svd", "standardise", "whiten"]

_SINGULAR = "`X` has a singular sample covariance (a column is constant or collinear with others)."


def centred_svd(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The thin SVD U D V' of the centred data X - 1 mean', after checking that the sample
    covariance V D^2 V' / (n - 1) is non-singular (a ``ValueError`` naming ``X`` if not).
    ``X`` (n x d) or a stack of samples (b x n x d), each centred and decomposed alone (one
    LAPACK call each, as numpy loops over a stack)."""
    centred = X - X.mean(axis=-2, keepdims=True)
    U, D, Vt = np.linalg.svd(centred, full_matrices=False)
    if np.any(D[..., -1] <= D[..., 0] * np.sqrt(X.shape[-2]) * np.finfo(float).eps):
        raise ValueError(_SINGULAR)
    return U, D, Vt


def whiten(X: np.ndarray) -> np.ndarray:
    """(X - mean) L^-T with L L' the sample covariance (Cholesky): zero mean, identity
    covariance."""
    centred = X - X.mean(axis=0)
    cov = centred.T @ centred / (X.shape[0] - 1)
    try:
        L = cholesky(cov, lower=True)
    except np.linalg.LinAlgError:
        raise ValueError(_SINGULAR) from None
    return solve_triangular(L, centred.T, lower=True).T


def standardise(X: np.ndarray) -> np.ndarray:
    """(x - mean) S^(-1/2), S the sample covariance (n - 1 denominator), by the symmetric root;
    of each sample of a stack (b x n x d) alike."""
    U, _, Vt = centred_svd(X)
    # centred V D^-1 V' sqrt(n - 1): the symmetric root
    return np.sqrt(X.shape[-2] - 1.0) * U @ Vt
