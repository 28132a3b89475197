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

import warnings
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import kmeans_plusplus
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from ._semimetric import Scaling, resolve_semimetric
from ._validation import as_data, check_n_clusters, check_positive_int

__all__ = ["PowerKMeans"]

#: Squared distances are floored here before logarithms: a point on a centre gets weight 1 there.
_TINY = np.finfo(float).tiny


def _sq_dist(X: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances (n x k) by BLAS, ||x||^2 + ||c||^2 - 2 x.c, floored at 0.

    Callers pass data centred at their mean, so the expansion loses no precision to an offset.
    """
    d = X @ centres.T
    d *= -2.0
    d += np.einsum("ij,ij->i", X, X)[:, None]
    d += np.einsum("ij,ij->i", centres, centres)[None, :]
    return np.maximum(d, 0.0, out=d)


def _logsumexp_rows(a: np.ndarray) -> np.ndarray:
    """log sum_j exp(a_ij) per row, shifted by the row maximum (finite rows only)."""
    top = a.max(axis=1)
    return top + np.log(np.exp(a - top[:, None]).sum(axis=1))


def _log_power_terms(d: np.ndarray, s: float) -> np.ndarray:
    """log sum_l d_il^s for every point, in log space (finite for s of -100 and far below)."""
    return _logsumexp_rows(s * np.log(np.maximum(d, _TINY)))


def _objective_from_lse(lse: np.ndarray, s: float, k: int) -> float:
    """f_s = sum_i M_s(d_i1, ..., d_ik), M_s(y) = ((1/k) sum y^s)^(1/s) (Xu & Lange eq. 8),
    from lse_i = log sum_l d_il^s."""
    return float(np.exp((lse - np.log(k)) / s).sum())


def power_objective(d: np.ndarray, s: float) -> float:
    """f_s(Theta) from the squared distances d (n x k)."""
    return _objective_from_lse(_log_power_terms(d, s), s, d.shape[1])


def mm_step(X: np.ndarray, centres: np.ndarray, s: float) -> np.ndarray:
    """One MM update of Algorithm 1 (steps 3-4) from the centres ``centres``."""
    logd = np.log(np.maximum(_sq_dist(X, centres), _TINY))
    return _mm_update(X, logd, _logsumexp_rows(s * logd), s)


def _mm_update(X: np.ndarray, logd: np.ndarray, lse: np.ndarray, s: float) -> np.ndarray:
    """Weights, then weighted means, from log d_ij and lse_i = log sum_l d_il^s.

    log w_ij = (1/s - 1) lse_i + (s - 1) log d_ij; each column is shifted by
    its maximum before exponentiating, which leaves the weighted means
    unchanged and keeps the weights finite.
    """
    logw = (1.0 / s - 1.0) * lse[:, None] + (s - 1.0) * logd
    logw -= logw.max(axis=0, keepdims=True)
    w = np.exp(logw)
    return (w.T @ X) / w.sum(axis=0)[:, None]


def _lloyd(X: np.ndarray, centres: np.ndarray, max_iter: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Lloyd steps to a k-means local minimum (an emptied cluster keeps its centre)."""
    labels = np.argmin(_sq_dist(X, centres), axis=1)
    for it in range(1, max_iter + 1):
        counts = np.bincount(labels, minlength=centres.shape[0])
        sums = np.zeros_like(centres)
        np.add.at(sums, labels, X)
        filled = counts > 0
        centres = centres.copy()
        centres[filled] = sums[filled] / counts[filled, None]
        new = np.argmin(_sq_dist(X, centres), axis=1)
        if np.array_equal(new, labels):
            return centres, labels, it
        labels = new
    return centres, labels, max_iter


class PowerKMeans(ClusterMixin, BaseEstimator):
    """Power k-means clustering (Xu & Lange 2019), a Euclidean baseline and initialiser.

    Parameters
    ----------
    n_clusters : int
        Number of clusters k.
    s0 : float, default=-1.0
        Initial power, < 0 (s0 = -1 starts at k-harmonic means).
    eta : float, default=1.05
        Annealing factor > 1: s_{m+1} = eta s_m.
    init : {"k-means++", "random"} or array of shape (k, n_features), default="k-means++"
        Initial centres (as scikit-learn's ``KMeans``).
    n_init : int, default=1
        Restarts; the lowest k-means objective is kept.
    max_iter : int, default=1000
        Maximum MM iterations.
    tol : float, default=1e-6
        Stop when the relative change of the power-mean objective is below
        ``tol`` and the nearest-centre labels did not change.
    random_state : int, numpy.random.Generator or None, default=None

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (k, n_features)
    labels_ : ndarray of shape (n_samples,)
        Nearest final centre.
    inertia_ : float
        The k-means objective sum_i min_j ||x_i - theta_j||^2. Data near the
        ends of float64 are fitted divided by a power of two (exact); reading
        ``inertia_`` raises ``OverflowError`` (``ValueError`` on underflow)
        when it cannot be represented (data around 1e300), while the labels
        and centres stay valid.
    n_iter_ : int
        MM iterations of the best run (the Lloyd finish not counted).
    s_ : float
        The final power.
    objective_path_ : ndarray
        f_{s_m}(Theta_m) along the MM iterations of the best run; never
        increasing (Proposition 2.1 with the power-mean inequality).

    Notes
    -----
    Each MM iteration costs O(n k d) like a Lloyd step. Weights are computed
    in log space, so they stay finite for powers s in the hundreds below zero, where the
    naive formula overflows; a point on a centre gets weight 1 there and 0
    elsewhere (the limit). After the MM stage, Lloyd steps finish at a
    k-means local minimum.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (50, 2)), rng.normal(8, 1, (50, 2))]
    >>> pkm = es.PowerKMeans(2, random_state=0).fit(X)
    >>> np.bincount(pkm.labels_).tolist(), bool(pkm.s_ < -1.0)
    ([50, 50], True)
    """

    def __init__(self, n_clusters: int, *, s0: float = -1.0, eta: float = 1.05, init="k-means++", n_init: int = 1, max_iter: int = 1000, tol: float = 1e-6, random_state=None):
        self.n_clusters = n_clusters
        self.s0 = s0
        self.eta = eta
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _validate(self, X):
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
        n_init = check_positive_int(self.n_init, "n_init")
        max_iter = check_positive_int(self.max_iter, "max_iter")
        if isinstance(self.init, str):
            if self.init not in ("k-means++", "random"):
                raise ValueError(f"`init` must be 'k-means++', 'random' or an array of centres, got {self.init!r}.")
            start = None
        else:
            start = as_data(self.init, "init")
            if start.shape != (k, d):
                raise ValueError(f"`init` centres must have shape ({k}, {d}), got {start.shape}.")
            n_init = 1
        return X, k, n_init, max_iter, start

    def _initial_centres(self, X, k, rng):
        if self.init == "random":
            return X[rng.choice(X.shape[0], size=k, replace=False)].copy()
        centres, _ = kmeans_plusplus(X, k, random_state=int(rng.integers(2**31 - 1)))
        return centres

    def _run(self, X, centres, max_iter):
        s = float(self.s0)
        k = centres.shape[0]
        d = _sq_dist(X, centres)
        labels = np.argmin(d, axis=1)
        path = []
        converged = stable = False
        for _ in range(max_iter):
            logd = np.log(np.maximum(d, _TINY))
            lse = _logsumexp_rows(s * logd)
            path.append(_objective_from_lse(lse, s, k))  # f_{s_m}(Theta_m), eq. (8)
            if len(path) > 1:
                change = abs(path[-2] - path[-1]) / max(abs(path[-2]), _TINY)
                if change < self.tol and stable:
                    converged = True
                    break
            centres = _mm_update(X, logd, lse, s)
            s *= self.eta  # Algorithm 1, step 5
            d = _sq_dist(X, centres)
            new = np.argmin(d, axis=1)
            stable = np.array_equal(new, labels)
            labels = new
        it = len(path) - 1
        return centres, it, s, np.array(path), converged

    def fit(self, X, y=None):
        """Fit power k-means to ``X`` (n_samples, n_features); returns self."""
        X, k, n_init, max_iter, start = self._validate(X)
        # data far from 1 in magnitude are divided by a power of two (exact); centres and
        # objectives are scaled back (Scaling)
        scaling = Scaling.for_data(X, resolve_semimetric(exponent=2.0))
        X = scaling.data(X)
        start = None if start is None else scaling.data(start)
        mean = X.mean(axis=0)
        X = X - mean  # every distance is computed on centred data
        rng = np.random.default_rng(self.random_state)
        best = None
        for _ in range(n_init):
            centres = start - mean if start is not None else self._initial_centres(X, k, rng)
            centres, n_iter, s, path, converged = self._run(X, centres, max_iter)
            centres, labels, _ = _lloyd(X, centres, max_iter)
            inertia = float(_sq_dist(X, centres).min(axis=1).sum())
            if best is None or inertia < best[0]:
                best = (inertia, centres, labels, n_iter, s, path, converged)
        inertia, centres, labels, n_iter, s, path, converged = best
        if not converged:
            warnings.warn(f"PowerKMeans did not converge within max_iter={max_iter}; increase `max_iter`.", ConvergenceWarning, stacklevel=2)
        self.cluster_centers_ = np.ldexp(centres + mean, scaling.shift)  # exact: a power of two
        self._centred = (scaling, mean, centres)
        self.labels_ = labels
        self._objectives = (scaling, inertia, path)
        self.n_iter_ = int(n_iter)
        self.s_ = float(s)
        return self

    @property
    def inertia_(self) -> float:
        """The k-means objective; see the class's Attributes."""
        check_is_fitted(self)
        scaling, inertia, _ = self._objectives
        return scaling.result(inertia, "inertia_")

    @property
    def objective_path_(self) -> np.ndarray:
        """f_{s_m}(Theta_m) along the MM iterations; see the class's Attributes."""
        check_is_fitted(self)
        scaling, _, path = self._objectives
        return scaling.result(path, "objective_path_")

    def predict(self, X):
        """Nearest fitted centre of each row of ``X``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        scaling, mean, centres = self._centred
        return np.argmin(_sq_dist(scaling.data(X) - mean, centres), axis=1)
