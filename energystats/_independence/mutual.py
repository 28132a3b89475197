r"""Mutual independence of several variables (R ``mutualIndep.test``) and the first energy test
of independence, the coefficient :math:`\mathcal I_n` of Bakirov, Rizzo & Székely (2006) (R
``mvI``, ``mvI.test``)."""

from __future__ import annotations

import math

import numpy as np

from .._frontdoor import front_door
from .._parallel import check_n_jobs
from .._random import as_generator
from .._resample import (
    check_observed,
    check_resamples,
    null_distribution,
    permutation_draws,
    pvalue,
)
from .._validation import as_data
from .dcov import centred, gram, ratio
from .testing import IndependenceTestResult, _held, gathered, halved, item_bytes, use_exact
from .variables import as_variables

__all__ = ["mutual_independence_test", "mvi", "mvi_test"]


@front_door("X", names=("X",))
def mutual_independence_test(X, *, n_resamples: int = 999, exponent=1.0, rng=None,
                             exact="auto", progress: bool | None = None, n_jobs=None,
                             nan_policy: str = "raise") -> IndependenceTestResult:
    r"""Energy test of mutual independence of the d columns of X (R ``mutualIndep.test``).

    The coefficient :math:`\sum_{k=1}^{d-1} \mathcal R^2(X_k, [X_{k+1}, \dots, X_d])` is 0
    exactly under mutual independence; the statistic is its sample version, the sum of the
    d - 1 bias-corrected squared distance correlations (Székely & Rizzo 2014). Each
    replicate permutes the rows of :math:`X_k` against the rest in every term with one
    permutation, as R does.

    Parameters
    ----------
    X : array_like of shape (n, d) or DataFrame, d >= 2, n >= 4
        The variables, one per column.
    n_resamples : int, default=999
        Number of random permutations.
    exponent : float, default=1.0
        alpha in (0, 2] of the Euclidean distances.
    rng : {None, int, numpy.random.Generator}, default=None
        It draws the permutations.
    exact : {"auto", True, False}, default="auto"
        As in :func:`dcov_test`.
    progress : bool or None, default=None
        Show a progress bar over blocks of permutations.
    n_jobs : int, default=None
        joblib's ``n_jobs`` for the bands of streamed matrices.
    nan_policy : {"raise", "omit"}, default="raise"
        Rows with a missing value: an error, or dropped.
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.

    Returns
    -------
    IndependenceTestResult
        ``statistic``: the sum (R's ``Sum(R*)``); ``estimates``: the d - 1 terms (R's
        ``estimate``, which R rounds to 3 digits).

    Notes
    -----
    Time O(B d n^2), memory d - 1 n x n arrays (the U-centred matrices of the columns after
    each one; each column on the line takes the cumulative sums of :func:`dcov_test`).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3)); X[:, 2] = X[:, 0] * X[:, 1]
    >>> es.mutual_independence_test(X, n_resamples=199, rng=1).pvalue
    0.01
    """
    B = check_resamples(n_resamples)
    n_jobs = check_n_jobs(n_jobs)
    X = as_data(X.to_numpy() if hasattr(X, "to_numpy") else X, "X", min_samples=4)
    n, d = X.shape
    if d < 2:
        raise ValueError(f"`X` needs at least two columns (variables), got {d}.")
    exact = use_exact(exact, n, B)
    terms, parts, scale = [], [], 0.0
    for k in range(d - 1):
        column, rest = as_variables({"X_k": X[:, k], "X_rest": X[:, k + 1:]}, "euclidean",
                                    exponent)
        U = gram([column, rest], unbiased=True, n_jobs=n_jobs)
        terms.append(ratio(U[0, 1], U[0, 0], U[1, 1]))
        if U[0, 0] * U[1, 1] <= 0:
            continue  # a constant column: its term is 0 for every permutation
        # S_k(pi) = sum_ij U(rest)_ij U(X_k)_pi(i)pi(j), U(X_k)'s centring terms vanishing
        C, a = centred(_held(rest), unbiased=True), _held(column)
        weight = 1.0 / np.sqrt(U[0, 0] * U[1, 1])
        parts.append((weight, lambda P, U=halved(C), a=a: gathered(U, a, P)))
        scale += weight * 4.0 * math.sqrt(64.0 * n * np.vdot(C, C) * np.vdot(a, a))
    observed = check_observed(sum(terms), "the sum of the bias-corrected distance correlations")
    if parts:
        null = null_distribution(lambda P: sum(w * f(P) for w, f in parts),
                                 permutation_draws(as_generator(rng), n, exact),
                                 math.factorial(n) if exact else B, item_bytes(n) * len(parts),
                                 progress, "permutations")
        p = pvalue(observed, null, exact=exact, scale=scale,
                   what="the sum of the bias-corrected distance correlations")
    else:
        null, p = np.zeros(B), 1.0
    return IndependenceTestResult(
        statistic=float(observed), pvalue=float(p), null_distribution=null,
        n_resamples=int(null.size), statistic_name="Sum(R*)", estimate=float(observed),
        estimates=np.array(terms), method="permutation", n_samples=n, exact=exact)


class _Mvi:
    r""":math:`n \mathcal I_n^2` and its values under permutations of y's rows: of the four
    mean distances of Bakirov, Rizzo & Székely (2006) only :math:`z_d` (among the points
    :math:`(x_i, y_{\pi(i)})`, :math:`\sqrt{a_{ij}^2 + b_{\pi(i)\pi(j)}^2}` gathered) and
    :math:`\bar z` (n lookups in Q, :math:`Q_{km} = \sum_{i,j} \sqrt{a_{ki}^2 + b_{mj}^2}`)
    change; x and y share one power-of-two rescaling, as :math:`\mathcal I_n` is invariant to
    a common scale only."""

    def __init__(self, x, y):
        vx, vy = as_variables({"x": x, "y": y}, "euclidean", 1.0, min_samples=2)
        shift = max(vx.scaling.shift, vy.scaling.shift)
        points = [np.ldexp(v.data, v.scaling.shift - shift) for v in (vx, vy)]
        a2, b2 = (np.square(v.semimetric(p, p)) for v, p in zip((vx, vy), points))
        n = self.n = vx.n
        self.a2, self.b2 = a2, b2
        self.Q = np.zeros((n, n))
        step = max(1, 2**21 // (n * n))
        for k in range(n):  # the n^4 sums once, in temporaries of 2^21 values
            for i in range(0, n, step):
                self.Q[k] += np.sqrt(a2[k, i : i + step, None, None] + b2[None]).sum(axis=(0, 2))
        self.xbar, self.ybar = np.sqrt(a2).sum() / n**2, np.sqrt(b2).sum() / n**2
        self.z = self.Q.sum() / n**4
        self.iu, self.ju = np.triu_indices(n, 1)

    def __call__(self, P: np.ndarray) -> np.ndarray:
        n, a2 = self.n, self.a2[self.iu, self.ju]
        zd = np.array([2.0 * np.sqrt(a2 + self.b2[p[self.iu], p[self.ju]]).sum() for p in P])
        zbar = self.Q[np.arange(n), P].sum(axis=1) / n**3
        return n * (2.0 * zbar - zd / n**2 - self.z) / (self.xbar + self.ybar - self.z)

    def scale(self) -> float:
        """The tie scale: the three means of n I^2 are non-negative, so its terms sum in
        absolute value to n (2 zbar + zd + z) / |xbar + ybar - z| (at the identity), the roots
        in runs of 64 n."""
        n = self.n
        zd = 2.0 * np.sqrt(self.a2[self.iu, self.ju] + self.b2[self.iu, self.ju]).sum() / n**2
        terms = n * (2.0 * np.trace(self.Q) / n**3 + zd + self.z)
        return terms / abs(self.xbar + self.ybar - self.z) * math.sqrt(64.0 * n)


@front_door(("x", "y"), columns=("y",), propagate=True)
def mvi(x, y, *, nan_policy: str = "raise") -> float:
    r"""The independence coefficient :math:`\mathcal I_n` of Bakirov, Rizzo & Székely (2006):
    R ``mvI(x, y)``.

    With :math:`z_{kl} = (x_k, y_l)`, :math:`\mathcal I_n^2 = (2 \bar z - z_d - z) / (\bar x +
    \bar y - z)`, where :math:`z_d`, :math:`\bar z` and z are the mean distances among the n
    points :math:`z_{kk}`, between them and the n^2 points :math:`z_{ij}`, and among the
    latter, and :math:`\bar x`, :math:`\bar y` the mean distances within each sample: the
    energy distance between the joint empirical distribution and the product of the
    marginals, normalised to [0, 1]. Euclidean distances (R ignores ``index`` here).

    Parameters
    ----------
    x : array_like of shape (n,) or (n, p)
    y : array_like of shape (n,) or (n, q)
    nan_policy : {"raise", "omit", "propagate"}, default="raise"
        Rows with a missing value: an error, dropped, or a NaN result.

    Returns
    -------
    float

    Notes
    -----
    Time O(n^4) (the distances among the points :math:`z_{ij}`), memory O(n^2): for samples
    of a few hundred; :func:`dcov_test` is the faster test of independence.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.arange(8.0)
    >>> es.mvi(x, x) > es.mvi(x, np.cos(3 * x))
    True
    """
    engine = _Mvi(x, y)
    return float(np.sqrt(max(engine(np.arange(engine.n)[None])[0] / engine.n, 0.0)))


@front_door(("x", "y"), columns=("y",), names=("x", "y"))
def mvi_test(x, y, *, n_resamples: int = 999, rng=None, exact="auto",
             progress: bool | None = None, n_jobs=None,
             nan_policy: str = "raise") -> IndependenceTestResult:
    r"""Energy test of independence with the coefficient :math:`\mathcal I_n` (R ``mvI.test``):
    the statistic :math:`n \mathcal I_n^2` under B permutations of y's rows.

    Parameters
    ----------
    x : array_like of shape (n,) or (n, p)
    y : array_like of shape (n,) or (n, q)
    n_resamples : int, default=999
        Number of random permutations.
    rng : {None, int, numpy.random.Generator}, default=None
        It draws the permutations.
    exact : {"auto", True, False}, default="auto"
        As in :func:`dcov_test`.
    progress : bool or None, default=None
        Show a progress bar over blocks of permutations.
    n_jobs : int, default=None
        Accepted for a common signature; the test runs in this process.
    nan_policy : {"raise", "omit"}, default="raise"
        Rows with a missing value: an error, or dropped.
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.

    Returns
    -------
    IndependenceTestResult
        ``statistic`` :math:`n \mathcal I_n^2` (R's ``n I^2``), ``estimate`` :math:`\mathcal I_n`.

    Notes
    -----
    Time O(n^4) once, then O(n^2) per permutation; memory three n x n arrays.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(2)
    >>> x = rng.normal(size=30); y = np.abs(x) + rng.normal(scale=0.3, size=30)
    >>> es.mvi_test(x, y, n_resamples=199, rng=0).pvalue
    0.005
    """
    B = check_resamples(n_resamples)
    check_n_jobs(n_jobs)
    engine = _Mvi(x, y)
    n = engine.n
    exact = use_exact(exact, n, B)
    observed = check_observed(float(engine(np.arange(n)[None])[0]), "n I^2")
    null = null_distribution(engine, permutation_draws(as_generator(rng), n, exact),
                             math.factorial(n) if exact else B, 8.0 * n * n, progress,
                             "permutations")
    return IndependenceTestResult(
        statistic=observed, pvalue=pvalue(observed, null, exact=exact, scale=engine.scale(),
                                          what="n I^2"),
        null_distribution=null, n_resamples=int(null.size), statistic_name="n I^2",
        estimate=float(np.sqrt(max(observed / n, 0.0))), estimates=None, method="permutation",
        n_samples=n, exact=exact)
