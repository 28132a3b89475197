"""The arithmetic of the DISCO decomposition: from the block sums of groups to W, S, T, the
energy distances of every pair of groups and R's ``edist`` statistics (França, Rizzo &
Vogelstein 2020, eq. (13)-(18)), within the memory of the k x k block sums; and the warning
when several factors' W = T - sum S_f is no within dispersion (Rizzo & Székely 2010)."""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass

import numpy as np

from .._missing import _caller_level

__all__ = [
    "Decomposition",
    "decompose",
    "decomposition_bytes",
    "pairwise_statistics",
    "warn_of_overlap",
]


@dataclass(frozen=True)
class Decomposition:
    """W, S, T and per-group quantities from a matrix of block sums."""

    W: float
    S: float
    T: float
    within: np.ndarray
    energy: np.ndarray  # k x k matrix of E_ij = 2 g_ij - g_ii - g_jj


#: Values of a band of rows of a k x k matrix worked on at once (1 MiB): the temporaries of
#: :func:`decompose` and :func:`pairwise_statistics` are a few such bands, not k x k arrays.
BAND_VALUES = 2**17


def _bands(k: int):
    rows = max(1, BAND_VALUES // max(k, 1))
    return ((a, min(a + rows, k)) for a in range(0, k, rows))


def decomposition_bytes(k: int) -> int:
    """Memory :func:`decompose` and :func:`pairwise_statistics` need for k groups: the k x k
    block sums, which become the energies and then the pairwise statistics in place, and
    three bands of temporaries."""
    return 8 * k * k + 3 * 8 * min(k * k, max(k, BAND_VALUES))


def decompose(M: np.ndarray, s: np.ndarray) -> Decomposition:
    """Evaluate eq. (13), (15), (16) and (18) from block sums ``M`` and group weights ``s``.

    ``M`` is overwritten: it becomes ``energy``, band by band of rows (no k x k temporary).
    """
    total = s.sum()
    T = float(M.sum() / (2.0 * total))  # eq. (18): T = s/2 g(X, X)
    gd = np.diag(M) / (s * s)  # g(C_i, C_i), eq. (13)
    pair_sum = 0.0
    for a, b in _bands(len(s)):
        band = M[a:b]
        band /= np.outer(s[a:b], s)  # g(C_i, C_j), eq. (13)
        band *= 2.0
        band -= gd[a:b, None] + gd[None, :]  # summed first: exactly symmetric
        pair_sum += float(s[a:b] @ (band * s).sum(axis=1))  # over i != j of s_i s_j E_ij
    np.fill_diagonal(M, 0.0)
    within = 0.5 * s * gd  # eq. (15), one term per group
    S = float(pair_sum / (4.0 * total))  # eq. (16): half the sum (over i < j), over 2 s
    return Decomposition(W=float(within.sum()), S=S, T=T, within=within, energy=M)


def pairwise_statistics(energy: np.ndarray, s: np.ndarray) -> np.ndarray:
    """R's ``edist``: s_i s_j / (s_i + s_j) E_ij, in place of ``energy``, band by band."""
    for a, b in _bands(len(s)):
        energy[a:b] *= np.outer(s[a:b], s) / (s[a:b, None] + s[None, :])
    return energy


def _aliased(names: list[str], codes: list[np.ndarray]) -> list[str]:
    """The pairs of factors of which one is a function of the other (the same groups, or the
    groups of one nested in those of the other), described: codes f and g with
    #{distinct (g, f)} = #{levels of g} have one level of f in each level of g."""
    found = []
    for (i, f), (j, g) in itertools.combinations(enumerate(codes), 2):
        kf, kg = int(f.max()) + 1, int(g.max()) + 1
        cells = np.unique(g.astype(np.int64) * kf + f).size
        if cells == kf == kg:
            found.append(f"{names[i]!r} and {names[j]!r} are the same grouping")
        elif cells == kg:
            found.append(f"{names[j]!r} is nested in {names[i]!r}")
        elif cells == kf:
            found.append(f"{names[i]!r} is nested in {names[j]!r}")
    return found


def warn_of_overlap(names: list[str], codes: list[np.ndarray], W: float, S: float, T: float):
    """Warn when W = T - sum S_f of several factors does not measure a within dispersion: some
    factors are aliased (named), or W is negative beyond rounding. Each S_f is the factor's
    own (marginal) between-group dispersion, so what factors share is counted once per
    factor, and W subtracts from T more than it holds."""
    aliased = _aliased(names, codes)
    if aliased:
        message = (f"`labels`: factors are aliased ({'; '.join(aliased)}): W = T - sum of the "
                   f"factors' S = {W:.6g} counts the between-group dispersion they share once per "
                   "factor and is no within-group dispersion (R's disco computes W the same way). "
                   "Drop one factor of each pair; each factor's own T = S_f + W_f is in by_factor.")
    elif W < -1e-12 * (abs(T) + abs(S)):
        message = (f"`labels`: W = T - sum of the factors' S = {W:.6g} < 0: the factors are "
                   "associated (not orthogonal, as in a balanced design), so the between-group "
                   "dispersion they share is counted once per factor and W is no within-group "
                   "dispersion (R's disco computes W the same way). Each factor's own "
                   "T = S_f + W_f is in by_factor; one factor of their combined levels has a W.")
    else:
        return
    warnings.warn(message, UserWarning, stacklevel=_caller_level())
