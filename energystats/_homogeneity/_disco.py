r"""The DISCO arithmetic (França, Rizzo & Vogelstein 2020, eq. 4, 13-18; Rizzo & Székely
2010): from the block sums :math:`M_{ij} = \sum_{x \in C_i, y \in C_j} w(x) w(y) \rho(x, y)`
and the group weights :math:`s_j` (sizes without weights), :math:`g(C_i, C_j) = M_{ij} / (s_i
s_j)` (eq. 13), :math:`\mathcal E_{ij} = 2 g(C_i, C_j) - g(C_i, C_i) - g(C_j, C_j)` (eq. 4),

.. math::

    W = \sum_j \frac{s_j}{2} g(C_j, C_j), \quad
    S = \sum_{i<j} \frac{s_i s_j}{2 s} \mathcal E_{ij}, \quad
    T = \frac{s}{2} g(X, X) = S + W

(eq. 15, 16, 18 and Lemma 1, :math:`s = \sum_j s_j`); and the warning when several factors'
W = T - sum S_f is no within dispersion.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np

from .._missing import _caller_level

__all__ = ["decompose", "edist", "statistics", "tie_scale", "warn_of_overlap"]


def _bands(k: int):
    """Bands of rows of a k x k array of 1 MiB: with as many groups as points, the
    temporaries are bands, not k x k arrays."""
    rows = max(1, 2**17 // k)
    return (slice(a, a + rows) for a in range(0, k, rows))


def decompose(M: np.ndarray, s: np.ndarray):
    """(W, S, T, within, E) from the block sums M (k x k, symmetric) and group weights s:
    eq. (15), (16), (18), the terms of W and the energy distances :math:`\\mathcal E_{ij}`,
    which overwrite M band by band."""
    total = s.sum()
    T = float(M.sum() / (2.0 * total))  # eq. (18)
    gd = np.diag(M) / (s * s)  # g(C_j, C_j), eq. (13)
    for rows in _bands(len(s)):
        E = M[rows]
        E /= np.outer(s[rows], s)  # eq. (13)
        E *= 2.0
        E -= gd[rows, None] + gd[None, :]  # eq. (4), summed first: exactly symmetric
    np.fill_diagonal(M, 0.0)
    within = 0.5 * s * gd  # eq. (15)
    return float(within.sum()), float(s @ (M @ s) / (4.0 * total)), T, within, M  # eq. (16)


def edist(E: np.ndarray, s: np.ndarray) -> np.ndarray:
    """R's ``edist``, :math:`\\frac{s_i s_j}{s_i + s_j} \\mathcal E_{ij}`, in place of E."""
    for rows in _bands(len(s)):
        E[rows] *= np.outer(s[rows], s) / (s[rows, None] + s[None, :])
    return E


def statistics(M: np.ndarray, total: float, sizes: np.ndarray, name: str) -> np.ndarray:
    """S, E or F of each labeling from its block sums M (b x k x k) and the sum of D: S = T -
    W (eq. 15, 16, 18); E, the sum over pairs of groups of :math:`\\frac{n_i n_j}{n_i + n_j}
    \\mathcal E_{ij}` (R ``eqdist.e``); F = (S / (k - 1)) / (W / (n - k))."""
    n, k = sizes.sum(), sizes.shape[0]
    diag = M.reshape(-1, k * k)[:, :: k + 1]
    W = diag @ (0.5 / sizes)  # eq. (15)
    S = total / (2.0 * n) - W  # eq. (18) less eq. (15): eq. (16)
    if name == "S":
        return S
    if name == "F":
        with np.errstate(divide="ignore", invalid="ignore"):
            return (S / (k - 1)) / (W / (n - k))
    g = diag / sizes**2
    E = np.zeros(M.shape[0])
    for i, j in itertools.combinations(range(k), 2):
        E += sizes[i] * sizes[j] / (sizes[i] + sizes[j]) * (
            2.0 * M[:, i, j] / (sizes[i] * sizes[j]) - g[:, i] - g[:, j])
    return E


def tie_scale(observed: float, T: float, sizes: np.ndarray, name: str) -> float:
    """s of the tie tolerance :math:`100 \\epsilon \\max(|t|, s)`
    (:func:`~energystats._resample.pvalue`): the magnitude of the block sums the statistic is
    a difference of, :math:`k^2 T`, in the statistic's units (a labeling and its swap of two
    equal-sized groups give the same S exactly, and must tie however the sums were added).
    S and E take it as it is; F = (S / (k-1)) / (W / (n-k)) through S and W: :math:`k^2
    \\frac{n-k}{k-1} (T / W)^2`, with T / W = 1 + F (k-1) / (n-k)."""
    n, k = float(sizes.sum()), sizes.shape[0]
    if name == "F":
        return k * k * (n - k) / (k - 1) * (1.0 + abs(observed) * (k - 1) / (n - k)) ** 2
    return k * k * abs(T)


def warn_of_overlap(names: list[str], codes: list[np.ndarray], W: float, S: float, T: float):
    """Warn when W = T - sum S_f of several factors is no within dispersion (each factor's own
    T = S_f + W_f is): factors are aliased (codes f, g with #{distinct (g, f)} = #{levels of
    g}: one level of f in each of g), or W < 0 beyond rounding."""
    found = []
    for (i, f), (j, g) in itertools.combinations(enumerate(codes), 2):
        kf, kg = int(f.max()) + 1, int(g.max()) + 1
        cells = np.unique(g.astype(np.int64) * kf + f).size
        if cells == kf == kg:
            found.append(f"{names[i]!r} and {names[j]!r} are the same grouping")
        elif cells in (kf, kg):
            inner, outer = (i, j) if cells == kf else (j, i)
            found.append(f"{names[inner]!r} is nested in {names[outer]!r}")
    if found:
        message = (f"`labels`: factors are aliased ({'; '.join(found)}): W = T - sum of the "
                   f"factors' S = {W:.6g} counts the between-group dispersion they share once per "
                   "factor (as R's disco does) and is no within-group dispersion; drop one factor "
                   "of each pair (each factor's own T = S_f + W_f is in by_factor).")
    elif W < -1e-12 * (abs(T) + abs(S)):
        message = (f"`labels`: W = T - sum of the factors' S = {W:.6g} < 0: the factors are "
                   "associated (not orthogonal, as in a balanced design): the between-group "
                   "dispersion they share is counted once per factor (as R's disco does), and W is "
                   "no within-group dispersion (each factor's own T = S_f + W_f is in by_factor).")
    else:
        return
    warnings.warn(message, UserWarning, stacklevel=_caller_level())
