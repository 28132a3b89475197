r"""Mutual independence of several variables (R ``mutualIndep.test``) and the first energy
test of independence, the coefficient :math:`\mathcal I_n` of Bakirov, Rizzo & Székely
(2006) (R ``mvI``, ``mvI.test``)."""

from __future__ import annotations

import functools

import numpy as np

from .._frontdoor import front_door
from .._operator import PairwiseOperator, Repeated, centred_gram, gathered_products, make_operator
from .._parallel import check_n_jobs
from .._resampling import (
    Pairings,
    check_observed,
    check_options,
    null_distribution,
    pvalue,
    tie_scale,
)
from .._validation import as_data
from ._data import as_variables
from .dcov import operators, stats_from_gram
from .testing import IndependenceTestResult, pairing_scale

__all__ = ["mutual_independence_test", "mvi", "mvi_test"]


class _SumEngine:
    """sum_k w_k S_k(pi) over several gather engines, one permutation for all."""

    def __init__(self, engines: list, weights: list[float]):
        self.engines, self.weights = engines, weights
        #: the engines' memory per thread and seconds per permutation, together
        self.thread_bytes = sum(engine.thread_bytes for engine in engines)
        self.seconds = sum(engine.seconds for engine in engines)

    def __call__(self, perms: np.ndarray) -> np.ndarray:
        return sum(w * engine(perms) for engine, w in zip(self.engines, self.weights))


@front_door("X", names=("X",))
def mutual_independence_test(
    X,
    *,
    n_resamples: int = 999,
    exponent=1.0,
    rng=None,
    exact="auto",
    progress: bool | None = None,
    n_jobs=None,
    nan_policy: str = "raise",
) -> IndependenceTestResult:
    r"""Energy test of mutual independence of the d columns of X (R ``mutualIndep.test``).

    The population coefficient :math:`\sum_{k=1}^{d-1} \mathcal R^2(X_k, [X_{k+1}, \dots,
    X_d])` is 0 exactly under mutual independence; the statistic is its sample version, the
    sum of the d - 1 bias-corrected squared distance correlations
    :math:`\mathcal R^*_n(X_k, [X_{k+1}, \dots, X_d])` (Székely & Rizzo 2014). Each
    replicate permutes the rows of :math:`X_k` against the rest in every term with one
    permutation, as R does.

    Parameters
    ----------
    X : array_like of shape (n, d) or DataFrame, d >= 2, n >= 4
        The variables, one per column.
    n_resamples : int, default=999
    exponent : float, default=1.0
        alpha in (0, 2] of the Euclidean distances.
    rng
    exact : {"auto", True, False}, default="auto"
    progress : bool or None, default=None
    n_jobs : int, default=None

    Returns
    -------
    IndependenceTestResult
        ``statistic``: the sum (R's ``Sum(R*)``); ``estimates``: the d - 1 terms (R's
        ``estimate``, which R rounds to 3 digits).

    Notes
    -----
    Time O(B d n^2), memory 2 (d - 1) n x n arrays (the U-centred matrices of each
    column and of the columns after it).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3)); X[:, 2] = X[:, 0] * X[:, 1]
    >>> es.mutual_independence_test(X, n_resamples=199, rng=1).pvalue
    0.005
    """
    options = check_options(n_resamples, exact, progress=progress)
    n_jobs = check_n_jobs(n_jobs)
    data = X.to_numpy() if hasattr(X, "to_numpy") else X
    X = as_data(data, "X", min_samples=4)
    n, d = X.shape
    if d < 2:
        raise ValueError(f"`X` needs at least two columns (variables), got {d}.")
    engines, weights, terms, scales = [], [], [], []
    for k in range(d - 1):
        variables = as_variables({"X_k": X[:, k], "X_rest": X[:, k + 1 :]}, "euclidean", exponent)
        op_k, op_rest = operators(variables)
        # of the rescaled data, as the engines'
        stats = stats_from_gram(centred_gram([op_k, op_rest]), "U")
        terms.append(stats.dcor2)
        if stats.dvar2_x * stats.dvar2_y <= 0:
            continue  # a constant column: its term is 0 for every permutation
        # S_k(pi) = sum_ij U(rest)_ij U(X_k)_pi(i)pi(j), from the operators' U-centred rows
        rest, column = (functools.partial(op.centred_rows, unbiased=True) for op in (op_rest, op_k))
        held = sum(e.nbytes for e in engines) + op_k.nbytes + op_rest.nbytes
        what = f"mutual_independence_test's matrices (d = {d})"
        engine = gathered_products(rest, column, n, reserve=held, what=what)
        engines.append(engine)
        weights.append(1.0 / (n * (n - 3) * np.sqrt(stats.dvar2_x * stats.dvar2_y)))
        scales.append(weights[-1] * pairing_scale(n, *engine.squares))
    check_observed(sum(terms), "the sum of the bias-corrected distance correlations")
    if not engines:
        null = np.zeros(options.n_resamples)
        return IndependenceTestResult(
            0.0, 1.0, null, options.n_resamples, "Sum(R*)", 0.0, np.array(terms), "permutation", n
        )
    res = null_distribution(Pairings(n, _SumEngine(engines, weights)), options, rng, n_jobs)
    observed, null, exact_used, count = res.observed, res.values, res.exact, res.count
    return IndependenceTestResult(
        statistic=float(sum(terms)),
        pvalue=pvalue(
            observed,
            null,
            exact=exact_used,
            scale=sum(scales),
            what="the sum of the bias-corrected distance correlations",
        ),
        null_distribution=null,
        n_resamples=int(count),
        statistic_name="Sum(R*)",
        estimate=float(sum(terms)),
        estimates=np.array(terms),
        method="permutation",
        n_samples=n,
        exact=exact_used,
    )


def _squared_rows(op: PairwiseOperator):
    """Rows a:b of the operator's matrix, squared (new arrays)."""
    return lambda a, b: np.square(op.rows(slice(a, b)))


def _row_pair_sums(op_x: PairwiseOperator, op_y: PairwiseOperator) -> np.ndarray:
    r""":math:`Q_{km} = \sum_i \sum_j \sqrt{a_{ki}^2 + b_{mj}^2} = \sum_{i,j} |z_{km} - z_{ij}|`
    (n x n, the n^4 sums once), from blocks of rows of x's and y's distance matrices a and b
    (:meth:`~energystats._operator.PairwiseOperator.block_rows`), in temporaries of 2^21
    values."""
    n = op_x.n
    Q = np.zeros((n, n))
    for c in range(0, n, op_y.block_rows()):
        B2 = np.square(op_y.rows(slice(c, min(c + op_y.block_rows(), n))))  # rows m = c:e of b^2
        e = c + B2.shape[0]
        step = max(1, 2**21 // B2.size)  # rows i per temporary (step x (e - c) x n)
        for a in range(0, n, op_x.block_rows()):
            A2 = np.square(op_x.rows(slice(a, min(a + op_x.block_rows(), n))))
            for k in range(A2.shape[0]):
                for i in range(0, n, step):
                    block = np.sqrt(A2[k, i : i + step, None, None] + B2[None, :, :])
                    Q[a + k, c:e] += block.sum(axis=(0, 2))
    return Q


class _MviEngine:
    r"""n I_n^2 under permutations of y's rows: of the four means of Bakirov, Rizzo & Székely
    (2006) only :math:`z_d`, the mean distance among the points :math:`(x_i, y_{\pi(i)})` (the
    square root of the sum of the squared distances a^2 and b^2, gathered by the operator
    layer's engine: n^2 / 2 gathers) and :math:`\bar z` (n lookups in Q) change."""

    def __init__(self, op_x: PairwiseOperator, op_y: PairwiseOperator):
        n = op_x.n
        self.n = n
        # beside the operators, Q and its temporaries
        held = op_x.nbytes + op_y.nbytes + 8 * n * n + 8 * 2**21
        a2, b2 = _squared_rows(op_x), _squared_rows(op_y)
        self.zd = gathered_products(a2, b2, n, root=True, reserve=held, what="mvI's matrices")
        self.Q = _row_pair_sums(op_x, op_y)
        self.xbar, self.ybar = op_x.total() / n**2, op_y.total() / n**2
        self.z = self.Q.sum() / n**4
        self.rows = np.arange(n)

    def scale(self) -> float:
        """The scale s of :func:`~energystats._resampling.pvalue`'s tie tolerance: the three
        means of n I^2 = n (2 zbar - zd - z) / (xbar + ybar - z) are non-negative, so its terms
        sum in absolute value to n (2 zbar + zd + z) / |xbar + ybar - z| (at the identity: a
        permutation changes zbar and zd little); zd sums n^2 roots in runs of 64 n (the run of
        :func:`~energystats._resampling.tie_scale`)."""
        n = self.n
        zd = self.zd.one(self.rows) / n**2
        zbar = float(np.trace(self.Q)) / n**3
        terms = n * (2.0 * zbar + zd + self.z) / abs(self.xbar + self.ybar - self.z)
        return tie_scale(terms, run=64 * n)

    def value(self, p: np.ndarray) -> float:
        n = self.n
        zd = self.zd.one(p) / n**2
        zbar = float(self.Q[self.rows, p].sum()) / n**3
        return n * (2.0 * zbar - zd - self.z) / (self.xbar + self.ybar - self.z)

    def __call__(self, perms: np.ndarray) -> np.ndarray:
        return np.array([self.value(p) for p in perms])


def _mvi_engine(x, y) -> _MviEngine:
    """The engine of n I_n^2 on x and y, rescaled by one power of two: I_n is invariant to a
    common scale of x and y, not to separate ones (z_kl = (x_k, y_l) joins the two), so they
    must not be rescaled by their own powers as the distance covariances' variables are."""
    vx, vy = as_variables({"x": x, "y": y}, "euclidean", 1.0, min_samples=2)
    shift = max(vx.scaling.shift, vy.scaling.shift)
    op_x, op_y = (
        make_operator(np.ldexp(v.data, v.scaling.shift - shift), v.semimetric, Repeated(sort=False))
        for v in (vx, vy)
    )
    return _MviEngine(op_x, op_y)


@front_door(("x", "y"), columns=("y",), propagate=True)
def mvi(x, y, *, nan_policy: str = "raise") -> float:
    r"""The independence coefficient :math:`\mathcal I_n` of Bakirov, Rizzo & Székely (2006):
    R ``mvI(x, y)``.

    With :math:`z_{kl} = (x_k, y_l)` in :math:`R^{p+q}`,
    :math:`\mathcal I_n^2 = (2 \bar z - z_d - z) / (\bar x + \bar y - z)`, where
    :math:`z_d`, :math:`\bar z` and z are the mean distances among the n points
    :math:`z_{kk}`, between them and the n^2 points :math:`z_{ij}`, and among the latter,
    and :math:`\bar x`, :math:`\bar y` the mean distances within each sample: the energy
    distance between the joint empirical distribution and the product of the marginal ones,
    normalised to [0, 1]. Euclidean distances (R ignores ``index`` for this test).

    Parameters
    ----------
    x : array_like of shape (n,) or (n, p)
    y : array_like of shape (n,) or (n, q)

    Returns
    -------
    float

    Notes
    -----
    Time O(n^4) (the n^4 distances among the points :math:`z_{ij}`), memory O(n^2): for
    samples of a few hundred; :func:`dcov_test` is the faster test of independence.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.arange(8.0)
    >>> es.mvi(x, x) > es.mvi(x, np.cos(3 * x))
    True
    """
    engine = _mvi_engine(x, y)
    return float(np.sqrt(max(engine.value(np.arange(engine.n)) / engine.n, 0.0)))


@front_door(("x", "y"), columns=("y",), names=("x", "y"))
def mvi_test(
    x,
    y,
    *,
    n_resamples: int = 999,
    rng=None,
    exact="auto",
    progress: bool | None = None,
    n_jobs=None,
    nan_policy: str = "raise",
) -> IndependenceTestResult:
    r"""Energy test of independence with the coefficient :math:`\mathcal I_n` (R ``mvI.test``):
    the statistic :math:`n \mathcal I_n^2` under B permutations of y's rows.

    Parameters
    ----------
    x : array_like of shape (n,) or (n, p)
    y : array_like of shape (n,) or (n, q)
    n_resamples : int, default=999
    rng
    exact : {"auto", True, False}, default="auto"
    progress : bool or None, default=None
    n_jobs : int, default=None

    Returns
    -------
    IndependenceTestResult
        ``statistic`` :math:`n \mathcal I_n^2` (R's ``n I^2``), ``estimate`` :math:`\mathcal I_n`.

    Notes
    -----
    Time O(n^4) once, then O(n^2) per permutation; memory four n x n arrays.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(2)
    >>> x = rng.normal(size=30); y = np.abs(x) + rng.normal(scale=0.3, size=30)
    >>> es.mvi_test(x, y, n_resamples=199, rng=0).pvalue
    0.005
    """
    options = check_options(n_resamples, exact, progress=progress)
    engine = _mvi_engine(x, y)
    res = null_distribution(Pairings(engine.n, engine), options, rng, check_n_jobs(n_jobs))
    observed, null, exact_used, count = (
        check_observed(res.observed, "n I^2"),
        res.values,
        res.exact,
        res.count,
    )
    return IndependenceTestResult(
        statistic=float(observed),
        pvalue=pvalue(observed, null, exact=exact_used, scale=engine.scale(), what="n I^2"),
        null_distribution=null,
        n_resamples=int(count),
        statistic_name="n I^2",
        estimate=float(np.sqrt(max(observed / engine.n, 0.0))),
        estimates=None,
        method="permutation",
        n_samples=engine.n,
        exact=exact_used,
    )
