r"""The one p-value of every Monte Carlo test, and the one rule of its tie tolerance."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["TIE_RTOL", "check_observed", "pvalue", "tie_scale"]

#: The relative tie tolerance of :func:`pvalue`, as a multiple of the scale of the terms summed.
TIE_RTOL = 100 * np.finfo(float).eps


def tie_scale(terms, run: int = 1):
    r"""The scale s of :func:`pvalue`'s tie tolerance: the one rule, fed by each engine.

    .. math::

        s = \Big(\text{a bound on } \sum_i |a_i|\Big) \sqrt{r},

    where the :math:`a_i` are the terms the engine adds up to get the statistic and r the
    longest run of them it adds one after another (a dot product of r terms, a cumulative sum
    of r values). A sum of N terms computed in floating point in any order, by recursive,
    pairwise or blocked summation, differs from the exact one by at most :math:`(N - 1)\,
    \epsilon \sum |a_i|` (Higham 2002, eq. 4.4), and in pairwise or blocked summation by a
    small multiple of :math:`\epsilon \sum |a_i|` times the length of the longest sequential
    run, whose error grows as its square root on average; the factor 100 of
    :data:`TIE_RTOL` covers the rest.

    Parameters
    ----------
    terms : float or ndarray
        The engine's bound on :math:`\sum_i |a_i|` (one per statistic when several share
        their resamples).
    run : int, default=1
        r; 1 where the bound already covers the order of the additions.

    Returns
    -------
    float or ndarray
        s, to pass to :func:`pvalue` as ``scale``.
    """
    if np.ndim(terms) == 0:
        return float(terms) * math.sqrt(run)
    return np.asarray(terms, dtype=float) * math.sqrt(run)


def check_observed(observed, what: str = "the test statistic"):
    """The observed statistic, or a ``ValueError`` when any value of it is NaN or infinite: a
    statistic that is not a number has no p-value."""
    values = np.asarray(observed, dtype=float)
    if not np.isfinite(values).all():
        bad = "NaN" if np.isnan(values).any() else "infinite"
        raise ValueError(
            f"{what} is {bad}, so it has no p-value: the data (or the parameters given) leave it "
            "undefined (constant data, a scale of 0, values beyond the range of float64, ...)."
        )
    return observed


def pvalue(observed, null: np.ndarray, *, exact: bool = False, scale=0.0, strict: bool = False,
           what: str = "the test statistic"):
    r"""The Monte Carlo (or exact) p-value of every test in energystats.

    .. math::

        p = \frac{1 + \#\{b : t^*_b \ge t - \gamma\}}{1 + B},

    over B random resamples drawn under H0 (the observed data count as one resample of the
    null, so p >= 1/(B + 1) and the test has level alpha exactly: Davison & Hinkley 1997,
    eq. 4.11; Phipson & Smyth 2010). When ``exact``, ``null`` holds the statistic on all M
    distinct resamples, the observed one among them, and :math:`p = \#\{t^* \ge t - \gamma\}
    / M`. With ``strict``, only :math:`t^* > t + \gamma` count (R's ``eqdist.etest`` rule),
    the observed one added once.

    The tie tolerance. Two resamples with the same value of the statistic (a relabeling
    and its swap of two equal groups; permutations that give the same contingency table)
    must tie, however their sums were added up (another BLAS kernel, thread count, tile
    or batch). So the tolerance is

    .. math::

        \gamma = 100\,\epsilon \max(|t|, s),

    with s, ``scale``, from :func:`tie_scale`, the one rule, fed by the family with what its
    engine adds (each engine states its terms and its run where it computes them). Relative
    to the statistic alone (s = 0) the tolerance would be too small whenever the statistic
    is a small difference of large sums (S = T - W; a centred cross-product). A value within
    :math:`\gamma` of t differs from it by rounding only, and counting it is what keeps the
    p-value the same on every machine.

    Parameters
    ----------
    observed : float or ndarray of shape (m,)
        t (one per test when several tests share their resamples).
    null : ndarray of shape (B,) or (B, m)
        The statistic on each resample.
    exact : bool, default=False
        Whether ``null`` holds every distinct resample, the observed one among them.
    scale : float or ndarray of shape (m,), default=0.0
        s above, from :func:`tie_scale`.
    strict : bool, default=False
        Count only null values above t.
    what : str
        Names the statistic in the error for a value that is not a number.

    Returns
    -------
    float or ndarray of shape (m,)

    Raises
    ------
    ValueError
        When t is NaN or infinite (it has no p-value), or when a null value is NaN (it
        could not be counted).
    """
    check_observed(observed, what)
    t = np.asarray(observed, dtype=float)
    null = np.asarray(null, dtype=float)
    missing = np.isnan(null)
    if missing.any():
        count = int(missing.any(axis=tuple(range(1, null.ndim))).sum())
        raise ValueError(f"{what} is NaN on {count} of the {null.shape[0]} resamples, which cannot "
                         "be counted: no p-value.")
    gamma = TIE_RTOL * np.maximum(np.abs(t), np.abs(np.asarray(scale, dtype=float)))
    if strict:
        hits = np.count_nonzero(null > t + gamma, axis=0) + 1
    else:
        hits = np.count_nonzero(null >= t - gamma, axis=0) + (0 if exact else 1)
    p = hits / (null.shape[0] if exact else null.shape[0] + 1)
    return float(p) if np.ndim(p) == 0 else np.asarray(p, dtype=float)
