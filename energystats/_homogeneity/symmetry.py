r"""The energy test of symmetry about a point (Székely & Móri 2001).

A random vector X in :math:`R^d` is (diagonally) symmetric about c when X - c and c - X have
the same distribution. With :math:`Y = X - c` and an exponent :math:`0 < \alpha < 2`,

.. math::

    E\|Y + Y'\|^\alpha - E\|Y - Y'\|^\alpha \ge 0,

with equality if and only if Y is symmetric about 0 (Székely & Móri 2001, Theorem 1): it is
half the energy distance between the distributions of Y and -Y. The statistic is n times its
V-statistic,

.. math::

    T_n = \frac1n \sum_{i,j} K_{ij}, \qquad K_{ij} = \|y_i + y_j\|^\alpha - \|y_i - y_j\|^\alpha,

and under symmetry the signs of the :math:`y_i` are exchangeable: with random signs
:math:`\varepsilon`, the sample :math:`(\varepsilon_i y_i)` has the distribution of the data,
and its statistic is :math:`T(\varepsilon) = \varepsilon^\top K \varepsilon / n` (a sign flip
of :math:`y_j` swaps the two terms of :math:`K_{ij}`; :math:`K_{ii} = \|2 y_i\|^\alpha` stays).
The p-value counts the statistic among B random sign vectors, or all :math:`2^n` of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial.distance import cdist

from .._config import check_fits
from .._frontdoor import front_door
from .._random import as_generator
from .._resample import check_observed, check_resamples, null_distribution, pvalue, sign_draws
from .._result_bases import TestResult
from .._validation import as_data

__all__ = ["SymmetryTestResult", "symmetry_test"]


@dataclass(frozen=True, repr=False)
class SymmetryTestResult(TestResult):
    """Result of :func:`symmetry_test`.

    Attributes
    ----------
    exponent : float
        alpha of the distances.
    n_samples : int
        Sample size (after dropping rows with missing values).
    """

    exponent: float
    n_samples: int

    _title = "Energy test of symmetry about the origin (Szekely & Mori 2001)"
    _statistic_label = "T"
    _resamples = "sign vectors"
    _hidden = ("exponent",)


def _kernel(Y: np.ndarray, exponent: float) -> np.ndarray:
    """K of the module's docstring (n x n)."""
    plus, minus = cdist(Y, -Y), cdist(Y, Y)
    if exponent != 1.0:
        plus, minus = plus**exponent, minus**exponent
    return plus - minus


@front_door("x", names=("x",))
def symmetry_test(x, *, n_resamples: int = 999, exponent: float = 1.0, rng=None, exact="auto",
                  progress: bool | None = None, nan_policy: str = "raise") -> SymmetryTestResult:
    r"""Energy test that the distribution of x is symmetric about the origin (Székely & Móri
    2001), by random signs; about a point c: ``symmetry_test(x - c)``.

    The statistic is :math:`T_n = \frac1n \sum_{i,j} (\|y_i + y_j\|^\alpha - \|y_i -
    y_j\|^\alpha)` with :math:`y_i = x_i`
    (Székely & Móri 2001, Theorem 1), n/2 times the energy
    distance between the sample and its reflection; large values reject symmetry. The point
    c must be known, not estimated from x: an estimate breaks the exchangeability of the
    signs.
    R's ``energy`` has no test of symmetry; the statistic is checked against its definition
    and the null against every sign vector.

    Parameters
    ----------
    x : array_like of shape (n,) or (n, d)
        The sample, one observation per row.
    n_resamples : int, default=999
        Number of random sign vectors.
    exponent : float, default=1.0
        alpha in (0, 2): the statistic characterises symmetry for these exponents (alpha = 2
        only compares the mean with the origin).
    rng : {None, int, numpy.random.Generator}, default=None
        It draws the signs.
    exact : {"auto", True, False}, default="auto"
        ``"auto"``: all 2^n sign vectors when there are at most ``n_resamples`` of them;
        ``True`` always (n <= 20); ``False`` never.
    progress : bool or None, default=None
        Show a progress bar over blocks of sign vectors.
    nan_policy : {"raise", "omit"}, default="raise"
        Rows with a missing value: an error, or dropped.
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.

    Returns
    -------
    SymmetryTestResult

    Notes
    -----
    Time O(n^2 d) for K, then O(n^2) per sign vector (one product for a block of them);
    memory the n x n matrix K, within ``working_memory``. The p-value is :math:`(1 +
    \#\{T(\varepsilon) \ge T\}) / (B + 1)`, or over all :math:`2^n` sign vectors the share at
    or above T, ties to rounding counted.

    References
    ----------
    G. J. Székely and T. F. Móri, "A characteristic measure of asymmetry and its application
    for testing diagonal symmetry", Communications in Statistics - Theory and Methods 30
    (2001), 1633-1639.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> es.symmetry_test(rng.normal(size=50), rng=1).pvalue > 0.05
    True
    >>> es.symmetry_test(rng.exponential(size=100) - np.log(2.0), rng=1).pvalue  # median 0
    0.001
    >>> res = es.symmetry_test([-1.0, 0.5, 1.0, 3.0])   # 16 sign vectors: exact
    >>> res.exact, res.n_resamples, res.pvalue
    (True, 16, 0.625)
    """
    X = as_data(x, "x", min_samples=2)
    n = X.shape[0]
    if not 0.0 < exponent < 2.0:
        raise ValueError(f"`exponent` must be in (0, 2), got {exponent!r}.")
    B = check_resamples(n_resamples)
    if isinstance(exact, str) and exact == "auto":
        exact = n < 63 and 2**n <= B
    elif not isinstance(exact, (bool, np.bool_)):
        raise ValueError(f"`exact` must be 'auto', True or False, got {exact!r}.")
    elif exact and n > 20:
        raise ValueError(f"`exact`=True needs 2^{n} sign vectors; use exact='auto' or False.")
    check_fits(f"the symmetry test's {n} x {n} matrix", 24.0 * n * n)
    K = _kernel(X, exponent)
    T = check_observed(float(K.sum()) / n, "the symmetry statistic")
    null = null_distribution(lambda E: np.einsum("bi,bi->b", E @ K, E) / n,
                             sign_draws(as_generator(rng), n, exact), 2**n if exact else B,
                             16.0 * n, progress, "sign vectors")
    p = pvalue(T, null, exact=bool(exact), scale=float(np.abs(K).sum()) / n,
               what="the symmetry statistic")
    return SymmetryTestResult(statistic=T, pvalue=p, null_distribution=null,
                              n_resamples=int(null.size), exact=bool(exact),
                              exponent=float(exponent), n_samples=n)
