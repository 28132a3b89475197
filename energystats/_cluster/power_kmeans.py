"""Power k-means (Xu & Lange, ICML 2019): k-means annealed through power means.

The power-mean objective for power s < 0 is

    f_s(Theta) = sum_i M_s(||x_i - theta_1||^2, ..., ||x_i - theta_k||^2),
    M_s(y) = ((1/k) sum_j y_j^s)^(1/s),

which tends to the k-means objective as s -> -infinity. Majorisation-
minimisation (Algorithm 1) alternates the weights
w_ij = (sum_l d_il^s)^(1/s - 1) d_ij^(s - 1) with weighted means, and anneals
s_{m+1} = eta s_m.

Reference: J. Xu and K. Lange, "Power k-Means Clustering", ICML 2019.
"""

from __future__ import annotations

import functools
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import kmeans_plusplus
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._frontdoor import front_door
from .._parallel import check_n_jobs, n_workers, run_tasks
from .._random import as_generator, check_rng
from .._results import ReportsWhenFitted
from .._semimetric import Scaling, resolve_semimetric
from .._validation import (
    as_data,
    check_n_clusters,
    check_n_init,
    check_positive_int,
    numeric_columns,
)
from ._partition import canonical_order
from ._report import power_kmeans_report

__all__ = ["PowerKMeans"]

#: Squared distances are floored here: a point on a centre gets weight 1 there.
_TINY = np.finfo(float).tiny
#: exp(-708) is float64's smallest normal exponential: below it exp leaves its fast path.
_EXP_ARG_FLOOR = -708.0
_EXP_FLOOR = float(np.exp(_EXP_ARG_FLOOR))
#: Entries of a block's k x rows arrays: small enough to stay in cache.
BLOCK = 2**17


class _Points:
    """Centred points in blocks of rows, and their transpose extended by a row of ones and a
    row of squared norms (computed once per fit): one product of it with the extended
    centres :meth:`augment` gives the squared distances."""

    def __init__(self, X: np.ndarray, k: int = 1):
        self.X = X
        n = X.shape[0]
        self.extended = np.empty((X.shape[1] + 2, n))
        self.extended[:-2] = X.T
        self.extended[-2] = 1.0
        self.extended[-1] = np.einsum("ij,ij->i", X, X)
        rows = max(256, BLOCK // max(k, 1))
        self.blocks = [(a, min(a + rows, n)) for a in range(0, n, rows)]
        self._scratch = (None, None)

    def scratch(self, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """Two work arrays of ``shape``, allocated once per fit: fresh arrays of a block's size
        would be mapped anew, page by page, on every step."""
        if self._scratch[0] != shape:
            self._scratch = (shape, (np.empty(shape), np.empty(shape)))
        return self._scratch[1]

    @staticmethod
    def augment(centres: np.ndarray) -> np.ndarray:
        """[-2 c, ||c||^2, 1] for every centre c."""
        return np.hstack([
            -2.0 * centres, np.einsum("ij,ij->i", centres, centres)[:, None],
            np.ones((centres.shape[0], 1)),
        ])

    def map(self, work) -> list:
        """``[work(a, b) for each block]``, in block order."""
        return [work(a, b) for a, b in self.blocks]


def _distances(
    P: _Points, a: int, b: int, augmented: np.ndarray, floor: float = 0.0, out=None
) -> np.ndarray:
    """Squared distances of the centres to rows a:b (k x (b - a): the reductions over the
    centres then run along contiguous rows): ||x||^2 + ||c||^2 - 2 x.c in one product,
    floored at ``floor`` (the data are centred at their mean, so the expansion loses no
    precision to an offset)."""
    d = np.matmul(augmented, P.extended[:, a:b], out=out)
    return np.maximum(d, floor, out=d)


def _sq_dist(X: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances (n x k) of centred data to the centres."""
    return _distances(_Points(X), 0, X.shape[0], _Points.augment(centres)).T


def _mm_block(P: _Points, a: int, b: int, augmented, s: float):
    r"""One block's share of an MM step (Algorithm 1, steps 3-4) with power s.

    With :math:`\delta_i = \min_j d_{ij}` and :math:`E_{ij} = (d_{ij}/\delta_i)^s \in [0, 1]`
    (exactly 1 at the nearest centre), :math:`\sum_l d_{il}^s = \delta_i^s R_i` with
    :math:`R_i = \sum_l E_{il}`, so the weights are
    :math:`w_{ij} = (\sum_l d_{il}^s)^{1/s - 1} d_{ij}^{s - 1}
    = R_i^{1/s - 1} E_{ij} \delta_i / d_{ij} \in [0, 1]`, which cannot overflow for any
    s < 0, and the power mean is
    :math:`M_s(d_i) = \delta_i (R_i / k)^{1/s}` (Xu & Lange eq. 8). One logarithm and one
    exponential per entry; an exponential below float64's normal range is 0
    (:func:`_exp_normal`). Returns the weighted sums of the points and the weights per
    centre, the block's part of f_s, and the largest R_i: 1.0 exactly when every point's
    weights off its nearest centre are below float64's resolution there (hard weights).
    """
    k = augmented.shape[0]
    d, E = P.scratch((k, b - a))
    _distances(P, a, b, augmented, _TINY, out=d)
    dmin = d.min(axis=0)
    np.log(d, out=E)
    E -= np.log(dmin)  # log(d_ij / dmin_i) >= 0, 0 at the nearest
    E *= s
    _exp_normal(E)
    R = E.sum(axis=0)
    log_r = np.log(R)
    objective = float(dmin @ np.exp((log_r - np.log(k)) / s))
    np.divide(dmin * np.exp((1.0 / s - 1.0) * log_r), d, out=d)
    E *= d
    return E @ P.X[a:b], E.sum(axis=1), objective, float(R.max())


def _exp_normal(A: np.ndarray) -> np.ndarray:
    """exp(A) in place, with results below float64's normal range (arguments below -708) set
    to exactly 0: exp keeps its fast path and nothing downstream computes with subnormals."""
    np.maximum(A, _EXP_ARG_FLOOR, out=A)
    np.exp(A, out=A)
    A -= _EXP_FLOOR
    return A


def _mm_step(P: _Points, centres: np.ndarray, s: float):
    """An MM step: the new centres, f_s of the old ones, and whether the weights are hard.
    A centre whose weights all underflow (the nearest of no point, with |s| in the hundreds)
    stays, as an empty cluster does in Lloyd's algorithm."""
    augmented = P.augment(centres)
    parts = P.map(lambda a, b: _mm_block(P, a, b, augmented, s))
    sums = sum(p[0] for p in parts)
    weights = sum(p[1] for p in parts)
    new = centres.copy()
    moved = weights > 0
    new[moved] = sums[moved] / weights[moved, None]
    return new, sum(p[2] for p in parts), max(p[3] for p in parts) == 1.0


def _nearest(P: _Points, centres: np.ndarray) -> np.ndarray:
    """The nearest centre of every point."""
    augmented = P.augment(centres)
    return np.concatenate(P.map(lambda a, b: _distances(P, a, b, augmented).argmin(axis=0)))


def mm_step(X: np.ndarray, centres: np.ndarray, s: float) -> np.ndarray:
    """One MM update of Algorithm 1 (steps 3-4) from the centres ``centres`` (centred data)."""
    return _mm_step(_Points(X), centres, s)[0]


def power_objective(d: np.ndarray, s: float) -> float:
    """f_s(Theta) = sum_i ((1/k) sum_j d_ij^s)^(1/s) from the squared distances d (n x k), s < 0,
    as dmin_i ((1/k) sum_j (dmin_i / d_ij)^(-s))^(1/s): the ratios lie in [0, 1], so a point on
    a centre (d_ij = 0, exactly 0 or not depending on the BLAS kernel's rounding) overflows
    nothing and contributes 0."""
    dmin = np.maximum(d.min(axis=1), _TINY)
    R = (dmin[:, None] / np.maximum(d, _TINY)) ** -s
    return float(dmin @ (R.sum(axis=1) / d.shape[1]) ** (1.0 / s))


def _lloyd_block(P: _Points, a: int, b: int, augmented):
    d = _distances(P, a, b, augmented)
    labels = d.argmin(axis=0)
    Z = np.zeros((augmented.shape[0], b - a))
    Z[labels, np.arange(b - a)] = 1.0
    return Z @ P.X[a:b], Z.sum(axis=1), labels, float(d[labels, np.arange(b - a)].sum())


def _lloyd(P: _Points, centres: np.ndarray, max_iter: int):
    """Lloyd steps to a k-means local minimum (an emptied cluster keeps its centre): the
    centres, labels, inertia and the number of centre updates."""
    labels = None
    for it in range(max_iter + 1):
        augmented = P.augment(centres)
        parts = P.map(lambda a, b: _lloyd_block(P, a, b, augmented))
        new = np.concatenate([p[2] for p in parts])
        if labels is not None and np.array_equal(new, labels) or it == max_iter:
            return centres, new, sum(p[3] for p in parts), it
        labels = new
        sums, counts = sum(p[0] for p in parts), sum(p[1] for p in parts)
        centres = centres.copy()
        filled = counts > 0
        centres[filled] = sums[filled] / counts[filled, None]
    raise AssertionError("unreachable")  # pragma: no cover


def _power_restarts(X, estimator, k, max_iter, starts, P=None) -> list:
    """Power k-means from each start (centres), each finished by Lloyd: (inertia, centres,
    labels, MM iterations, Lloyd iterations, s, path, converged) per start. A joblib task when
    ``P`` is None (it prepares the centred points)."""
    P = P if P is not None else _Points(X, k)
    out = []
    for centres in starts:
        centres, n_iter, s, path, converged = estimator._anneal(P, centres, max_iter)
        centres, labels, inertia, n_lloyd = _lloyd(P, centres, max_iter)
        out.append((inertia, centres, labels, n_iter, n_lloyd, s, path, converged))
    return out


class PowerKMeans(ReportsWhenFitted, ClusterMixin, BaseEstimator):
    """Power k-means clustering (Xu & Lange 2019), a Euclidean baseline and initialiser.

    Parameters
    ----------
    n_clusters : int
        Number of clusters k.
    s0 : float, default=-3.0
        Initial power, < 0 (s0 = -1 starts at k-harmonic means; -3 is the paper's best in
        its Table 1).
    eta : float, default=1.02
        Annealing factor > 1: s_{m+1} = eta s_m (Algorithm 1, step 5). The paper's 1.05
        anneals 2.4 times faster; measured slower annealing ends lower (``docs/kernels.md``,
        the battery: from the same k-means++ start as ``KMeans`` no worse in 96.8% of the
        fits against 94.2%).
    init : {"k-means++", "random"} or array of shape (k, n_features), default="k-means++"
        Initial centres, drawn as scikit-learn's ``KMeans`` draws them: from the same
        ``random_state``, ``PowerKMeans(k, n_init=r)`` starts from the r starts of
        ``KMeans(k, n_init=r)`` (Xu & Lange compare the two from matched starts).
    n_init : int, default=1
        Restarts; the lowest k-means objective is kept (at most 10,000).
    max_iter : int, default=1000
        Maximum MM iterations.
    tol : float, default=1e-6
        Stop when the power-mean objective changes by less than ``tol`` (relative) and the
        nearest centres do not.
    random_state : int, numpy.random.Generator, RandomState or None, default=None
        The starts are drawn one after the other from scikit-learn's ``RandomState`` of it
        (an integer below 2^32 seeds it, as in ``KMeans``; anything else gives it a seed).
    n_jobs : int, default=None
        joblib's ``n_jobs``: restarts as joblib tasks when their work is worth processes
        (on Dask inside ``joblib.parallel_config(backend="dask")``); the same result.
    nan_policy : {"raise", "omit"}, default="raise"
        Rows with a missing value in ``fit`` and ``predict``: ``"raise"`` an error,
        ``"omit"`` leave them out (label -1).

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (k, n_features)
        The final centres, in the order of the clusters' labels.
    labels_ : ndarray of shape (n_samples,)
        Nearest final centre (-1: omitted), numbered as :class:`KGroups` numbers its groups
        (by size, ties by first point): the same partition, the same labels.
    n_omitted_ : int
        Rows left out for missing values.
    inertia_ : float
        The k-means objective sum_i min_j ||x_i - theta_j||^2 (data near the ends of float64
        are fitted divided by a power of two; ``OverflowError`` or ``ValueError`` when it
        cannot be represented).
    n_iter_ : int
        MM iterations of the best run (the Lloyd finish not counted).
    n_lloyd_iter_ : int
        Lloyd centre updates after the MM stage.
    s_ : float
        The final power.
    objective_path_ : ndarray
        f_{s_m}(Theta_m) along the MM iterations of the best run; never increasing
        (Proposition 2.1 with the power-mean inequality).

    Notes
    -----
    An MM iteration costs O(n k d) like a Lloyd step (one product, one logarithm and one
    exponential per point and centre, in blocks of rows that stay in cache). The weights are
    formed relative to each point's nearest centre, so they lie in [0, 1] for every s < 0
    (the naive formula overflows at s = -300). Annealing stops as soon as the weights are
    hard (those off each point's nearest centre below half a unit in the last place of its
    weight there: an MM step is then a Lloyd step to float64's resolution); Lloyd steps then
    finish at a k-means local minimum.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (50, 2)), rng.normal(8, 1, (50, 2))]
    >>> pkm = es.PowerKMeans(2, random_state=0).fit(X)
    >>> np.bincount(pkm.labels_).tolist(), bool(pkm.s_ < -1.0)
    ([50, 50], True)
    """

    @front_door()
    def __init__(
        self,
        n_clusters: int,
        *,
        s0: float = -3.0,
        eta: float = 1.02,
        init="k-means++",
        n_init: int = 1,
        max_iter: int = 1000,
        tol: float = 1e-6,
        random_state=None,
        n_jobs=None,
        nan_policy: str = "raise",
    ):
        self.n_clusters, self.s0, self.eta, self.init = n_clusters, s0, eta, init
        self.n_init, self.max_iter, self.tol = n_init, max_iter, tol
        self.random_state, self.n_jobs, self.nan_policy = random_state, n_jobs, nan_policy

    def _validate(self, X):
        numeric_columns(X, "X")
        X = validate_data(self, X, dtype=np.float64)
        n, d = X.shape
        k = check_n_clusters(self.n_clusters, n)
        for name, value in (("s0", self.s0), ("eta", self.eta), ("tol", self.tol)):
            if isinstance(value, bool) or not isinstance(value, Real) or not np.isfinite(value):
                raise ValueError(f"`{name}` must be a finite real number, got {value!r}.")
        if self.s0 >= 0:
            raise ValueError(f"`s0` must be negative, got {self.s0}.")
        if self.eta <= 1:
            raise ValueError(f"`eta` must be greater than 1, got {self.eta}.")
        if self.tol < 0:
            raise ValueError(f"`tol` must be non-negative, got {self.tol}.")
        n_init = check_n_init(self.n_init, X.shape[0])
        max_iter = check_positive_int(self.max_iter, "max_iter")
        check_n_jobs(self.n_jobs)
        if isinstance(self.init, str):
            if self.init not in ("k-means++", "random"):
                raise ValueError("`init` must be 'k-means++', 'random' or an array of centres, "
                                 f"got {self.init!r}.")
            start = None
        else:
            start = as_data(self.init, "init")
            if start.shape != (k, d):
                raise ValueError(f"`init` centres must have shape ({k}, {d}), got {start.shape}.")
            n_init = 1
        return X, k, n_init, max_iter, start

    def _initial_centres(self, X, k, n_init: int) -> list:
        """``n_init`` starts drawn one after the other from one ``RandomState``, as
        scikit-learn's ``KMeans`` draws them on the same centred data: greedy k-means++
        (2 + ln k trials) or k distinct points."""
        state = self.random_state
        if not (state is None or isinstance(state, np.random.RandomState)
                or isinstance(state, Integral) and state < 2**32):
            state = int(as_generator(state, "random_state").integers(2**31 - 1))
        state = check_random_state(state)
        if self.init == "random":
            return [X[state.permutation(X.shape[0])[:k]] for _ in range(n_init)]
        return [kmeans_plusplus(X, k, random_state=state)[0] for _ in range(n_init)]

    def _anneal(self, P: _Points, centres: np.ndarray, max_iter: int, stop_when_hard: bool = True):
        """The MM iterations of Algorithm 1 with s_{m+1} = eta s_m, until the weights are hard
        (``stop_when_hard``; an MM step is then a Lloyd step) or f_s and the nearest centres
        settle. Returns the centres, the number of MM updates, the final power, the path
        f_{s_m}(Theta_m) and whether it stopped before ``max_iter``."""
        s = float(self.s0)
        path, previous = [], None
        for updates in range(max_iter):
            new, f, hard = _mm_step(P, centres, s)
            path.append(f)  # f_{s_m}(Theta_m), eq. (8)
            if stop_when_hard and hard:
                return centres, updates, s, np.array(path), True
            if previous is not None and (
                abs(path[-2] - path[-1]) < self.tol * max(abs(path[-2]), _TINY)
            ):
                # rarely reached: computed then
                if np.array_equal(_nearest(P, centres), _nearest(P, previous)):
                    return centres, updates, s, np.array(path), True
            previous, centres = centres, new
            s *= self.eta  # Algorithm 1, step 5
        return centres, max_iter, s, np.array(path), False

    @front_door("X", fits=True)
    def fit(self, X, y=None):
        """Fit power k-means to ``X`` (n_samples, n_features); returns self."""
        X, k, n_init, max_iter, start = self._validate(X)
        # data far from 1 in magnitude are divided by a power of two (exact); centres and
        # objectives are scaled back (Scaling)
        scaling = Scaling.for_data(X, resolve_semimetric(exponent=2.0))
        X = scaling.data(X)
        start = None if start is None else scaling.data(start)
        mean = X.mean(axis=0)
        P = _Points(X - mean, k)  # every distance is computed on centred data
        check_rng(self.random_state, "random_state")
        starts = self._initial_centres(P.X, k, n_init) if start is None else [start - mean]
        # a start: a few hundred steps of O(n k d) (the annealing of s at eta = 1.02)
        jobs = n_workers(self.n_jobs, work=500.0 * n_init * X.shape[0] * k * (X.shape[1] + 2))
        if jobs > 1 and n_init > 1:
            chunks = np.array_split(np.arange(n_init), min(jobs, n_init))
            parts = run_tasks(
                functools.partial(_power_restarts, estimator=self, k=k, max_iter=max_iter),
                [{"starts": [starts[i] for i in c]} for c in chunks], self.n_jobs,
                shared={"X": P.X})
            runs = [r for part in parts for r in part]
        else:
            runs = _power_restarts(P.X, self, k, max_iter, starts, P)
        best = runs[0]
        for run in runs[1:]:  # restarts in order: a later one only when strictly better
            if run[0] < best[0]:
                best = run
        inertia, centres, labels, n_iter, n_lloyd, s, path, converged = best
        order = canonical_order(labels, None, k)  # the same partition, the same numbering
        centres, labels = centres[order], np.argsort(order)[labels]
        if not converged:
            warnings.warn(f"PowerKMeans did not converge within max_iter={max_iter}; increase "
                          "`max_iter`.", ConvergenceWarning, stacklevel=2)
        self.cluster_centers_ = np.ldexp(centres + mean, scaling.shift)  # exact: a power of two
        empty = k - np.unique(labels).size
        if empty:
            warnings.warn(
                f"PowerKMeans left {empty} of the n_clusters={k} clusters empty (no point is "
                f"nearest their centre; the data have {np.unique(X, axis=0).shape[0]} distinct "
                "rows): fit fewer clusters.", ConvergenceWarning, stacklevel=2)
        self._centred = (scaling, mean, centres)
        self.labels_ = labels
        self._objectives = (scaling, inertia, path)
        self.n_iter_, self.n_lloyd_iter_, self.s_ = int(n_iter), int(n_lloyd), float(s)
        return self

    @property
    def inertia_(self) -> float:
        """The k-means objective; see the class's Attributes."""
        check_is_fitted(self)
        scaling, inertia, _ = self._objectives
        return scaling.result(inertia, "inertia_")

    def _report(self):
        return power_kmeans_report(self)

    @property
    def objective_path_(self) -> np.ndarray:
        """f_{s_m}(Theta_m) along the MM iterations; see the class's Attributes."""
        check_is_fitted(self)
        scaling, _, path = self._objectives
        return scaling.result(path, "objective_path_")

    @front_door("X", tables=False)
    def predict(self, X):
        """Nearest fitted centre of each row of ``X``."""
        check_is_fitted(self)
        numeric_columns(X, "X")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        scaling, mean, centres = self._centred
        return np.argmin(_sq_dist(scaling.data(X) - mean, centres), axis=1)
