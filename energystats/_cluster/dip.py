"""Hartigan's dip statistic of unimodality and its test against the uniform law.

The dip of a distribution function F is its sup-distance to the closest unimodal
distribution function (Hartigan & Hartigan 1985). Among unimodal laws the uniform is
asymptotically the least favourable (their Theorem 5: its dip is of the largest order,
n^{-1/2}, as for any law with a flat stretch), so a dip test calibrated on uniform samples
is conservative for every unimodal law, asymptotically. The computation follows the
algorithm of P. M. Hartigan (1985, Applied Statistics AS 217), written here in numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._frontdoor import front_door
from .._progress import check_progress
from .._random import as_generator
from .._resample import check_resamples, null_distribution, pvalue
from .._result_bases import NullPanel, TestResult
from .._validation import as_data

__all__ = ["DipTestResult", "dip_statistic", "dip_test"]


def _minorant_links(x: list) -> list:
    """mn[j] (1-based): the previous change point of the greatest convex minorant of the
    points (x_i, i), i <= j, ending at j (plain lists: this loop is the algorithm's cost)."""
    n = len(x) - 1
    mn = [0] * (n + 1)
    mn[1] = 1
    for j in range(2, n + 1):
        m = j - 1
        xj = x[j]
        while m != 1:
            mm = mn[m]
            if (xj - x[m]) * (m - mm) < (x[m] - x[mm]) * (j - m):
                break
            m = mm
        mn[j] = m
    return mn


def _majorant_links(x: list) -> list:
    """mj[k] (1-based): the next change point of the least concave majorant of the
    points (x_i, i), i >= k, starting at k."""
    n = len(x) - 1
    mj = [0] * (n + 1)
    mj[n] = n
    for k in range(n - 1, 0, -1):
        m = k + 1
        xk = x[k]
        while m != n:
            mm = mj[m]
            if (xk - x[m]) * (m - mm) < (x[m] - x[mm]) * (k - m):
                break
            m = mm
        mj[k] = m
    return mj


def _segment_gap(x: np.ndarray, b: int, e: int, n: int, lower: bool) -> float:
    """Largest distance between the empirical distribution function and the chord of
    the minorant (``lower``) or majorant from the b-th to the e-th order statistic, at
    least 1 / n."""
    if e - b <= 1 or x[e] == x[b]:
        return 1.0 / n
    r = np.arange(b, e + 1)
    slope = (e - b) / (n * (x[e] - x[b]))
    if lower:
        t = (r - b + 1) / n - (x[r] - x[b]) * slope
    else:
        t = (x[r] - x[b]) * slope - (r - b - 1) / n
    return max(1.0 / n, float(t.max()))


def _dip_sorted(values: np.ndarray) -> float:
    """The dip of sorted values (Hartigan 1985, AS 217)."""
    n = values.size
    if n < 4 or values[0] == values[-1]:
        return 0.0
    x = np.concatenate([[np.nan], values])  # 1-based, as the algorithm's indices
    links = x.tolist()
    mn, mj = _minorant_links(links), _majorant_links(links)
    low, high, dip = 1, n, 1.0 / n
    while True:
        gcm = [high]  # change points of the minorant, from high down to low
        while gcm[-1] > low:
            gcm.append(mn[gcm[-1]])
        lcm = [low]  # change points of the majorant, from low up to high
        while lcm[-1] < high:
            lcm.append(mj[lcm[-1]])
        gcm, lcm = [0] + gcm, [0] + lcm  # 1-based lists
        icx, icv = len(gcm) - 1, len(lcm) - 1
        ig, ih = icx, icv
        # the largest vertical distance between minorant and majorant on [low, high]
        ix, iv, d = icx - 1, 2, 0.0
        if icx != 2 or icv != 2:
            while True:
                g, v = gcm[ix], lcm[iv]
                if g > v:
                    g1 = gcm[ix + 1]
                    chord = (links[v] - links[g1]) * (g - g1) / (n * (links[g] - links[g1]))
                    dx = (v - g1 + 1) / n - chord
                    iv += 1
                    if dx >= d:
                        d, ig, ih = dx, ix + 1, iv - 1
                else:
                    v1 = lcm[iv - 1]
                    chord = (links[g] - links[v1]) * (v - v1) / (n * (links[v] - links[v1]))
                    dx = chord - (g - v1 - 1) / n
                    ix -= 1
                    if dx >= d:
                        d, ig, ih = dx, ix + 1, iv
                ix = max(ix, 1)
                iv = min(iv, icv)
                if gcm[ix] == lcm[iv]:
                    break
        else:
            d = 1.0 / n
        if d < dip:
            break
        lows = (_segment_gap(x, gcm[j + 1], gcm[j], n, True) for j in range(ig, icx))
        highs = (_segment_gap(x, lcm[j], lcm[j + 1], n, False) for j in range(ih, icv))
        dip_low, dip_high = max(lows, default=0.0), max(highs, default=0.0)
        dip = max(dip, dip_low, dip_high)
        if low == gcm[ig] and high == lcm[ih]:
            break
        low, high = gcm[ig], lcm[ih]
    return dip / 2.0


def _as_values(x) -> np.ndarray:
    """x as sorted finite float64 values, or an error naming `x`."""
    X = as_data(x, "x")
    if X.shape[1] != 1:
        raise ValueError(f"`x` must be one-dimensional, got shape {np.shape(x)}.")
    return np.sort(X[:, 0])


@front_door("x")
def dip_statistic(x) -> float:
    r"""Hartigan's dip: the sup-distance from the empirical distribution function of x to
    the closest unimodal distribution function.

    Parameters
    ----------
    x : array_like of shape (n,)
        Values (sorted here).

    Returns
    -------
    float
        In [1 / (2n), 1 / 4] (0 for n < 4 or constant data). R: ``diptest::dip(x)``.

    Notes
    -----
    P. M. Hartigan's algorithm (AS 217), time O(n) after the sort, with a few cycles over
    the modal interval.

    References
    ----------
    J. A. Hartigan and P. M. Hartigan, "The dip test of unimodality", Ann. Statist. 13
    (1985). P. M. Hartigan, "Computation of the dip statistic to test for unimodality",
    Appl. Statist. 34 (1985).

    Examples
    --------
    >>> import energystats as es
    >>> es.dip_statistic([1, 1, 2, 2])  # two point masses: the largest dip
    0.25
    >>> es.dip_statistic([0, 1, 3, 6])  # unimodal: 1 / (2n)
    0.125
    """
    return _dip_sorted(_as_values(x))


def _sorted_dips(block: np.ndarray) -> np.ndarray:
    """The dip of each row of a block of samples (the engine's evaluation)."""
    return np.array([_dip_sorted(row) for row in np.sort(block, axis=1)])


@dataclass(frozen=True, repr=False)
class DipTestResult(TestResult):
    """Result of :func:`dip_test`.

    Attributes
    ----------
    statistic : float
        The dip of x.
    null_distribution : ndarray of shape (n_resamples,)
        The dip of uniform samples of the same size.
    """

    _title = "Hartigan's dip test of unimodality, calibrated on the uniform"
    _statistic_label = "D"
    _resamples = "uniform samples"

    def _null_panels(self) -> tuple[NullPanel, ...]:
        return (NullPanel("Hartigan's dip test of unimodality", "dip", self.statistic, self.pvalue,
                          f"dip of {self.n_resamples:,} uniform samples",
                          null=self.null_distribution),)


@front_door("x", names=("x",))
def dip_test(x, *, n_resamples: int = 1999, rng=None,
             progress: bool | None = None) -> DipTestResult:
    r"""Test unimodality with Hartigan's dip, calibrated on uniform samples.

    Parameters
    ----------
    x : array_like of shape (n,)
    n_resamples : int, default=1999
        Uniform samples of size n (1999, not 999: R's ``dip.test`` uses 2000).
    rng : int, numpy.random.Generator or None, default=None
    progress : bool or None, default=None
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.

    Returns
    -------
    DipTestResult

    Notes
    -----
    The uniform is the least favourable unimodal law, asymptotically (Hartigan &
    Hartigan 1985, Theorem 5), so the level is at most alpha, asymptotically, for every
    unimodal law; it is alpha exactly (up to Monte Carlo) for uniform data, and far below it
    for laws with one sharp mode (Gaussian: about 0.001 at alpha = 0.05). R:
    ``diptest::dip.test(x, simulate.p.value = TRUE, B = 1999)`` has the same statistic and
    the same kind of p-value, from its own uniform draws.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> two = np.concatenate([rng.normal(0, 1, 100), rng.normal(5, 1, 100)])
    >>> res = es.dip_test(two, n_resamples=199, rng=1)
    >>> round(res.statistic, 4), res.pvalue
    (0.0747, 0.005)
    """
    values = _as_values(x)
    B, progress = check_resamples(n_resamples), check_progress(progress)
    gen = as_generator(rng)
    statistic = _dip_sorted(values)
    # uniform samples drawn in rows: the same numbers whatever the block size
    null = null_distribution(_sorted_dips, lambda m: gen.random((m, values.size)), B,
                             16.0 * values.size, progress, "uniform samples")
    # the dip is a maximum of differences of values k / n: its rounding is that of 1
    p = pvalue(statistic, null, scale=1.0, what="the dip")
    return DipTestResult(statistic, p, null, B)
