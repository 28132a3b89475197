"""Kernel k-groups (Hartigan) and weighted kernel k-means (Lloyd) for energy clustering.

Minimise the within dispersion W (eq. 15) over partitions into k groups, or
equivalently maximise Q = sum_j Q_j / s_j with
Q_j = sum_{x, y in C_j} w(x) w(y) K(x, y) (eq. 41), K the kernel that the
semimetric generates (eq. 7).

References
----------
G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-Groups via Hartigan's
Method", IEEE TPAMI (2020), Section 4, Algorithms 1 and 2, eq. (41)-(50).
"""

from __future__ import annotations

import functools
import warnings
from typing import Callable

import numpy as np
from scipy.linalg import eigh
from scipy.sparse import diags
from scipy.sparse.linalg import aslinearoperator, eigsh
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from ._config import memory_budget
from ._operator import (
    TILE,
    CentredKernel,
    DenseOperator,
    NystroemOperator,
    PairwiseOperator,
    check_fits,
    dense_bytes,
    indicator,
    kernel_operator,
    nystroem_features,
    nystroem_transform,
    semimetric_operator,
)
from ._parallel import check_n_jobs, n_workers, run_tasks
from ._power_kmeans import PowerKMeans
from ._semimetric import Scaling, prepare_points, resolve_semimetric
from ._validation import as_weights, check_n_clusters, check_positive_int, check_symmetric

__all__ = ["KGroups"]

_ALGORITHMS = ("hartigan", "lloyd", "r-kgroups")
_INITS = ("k-means++", "random", "spectral", "power-kmeans")
#: Gains below this fraction of the total dispersion T count as zero (round-off loops).
GAIN_RTOL = 1e-12


class _State:
    """Sufficient statistics of a partition (eq. 41-42), updated in O(n) per move.

    ``P[l, i] = sum_{y in C_l} w(y) K(x_i, y)``, so that Q_l(x_i) = w_i P[l, i]
    (eq. 42); ``Q[l]`` (eq. 41), ``s[l]`` the group weights, ``counts[l]``
    the number of points. ``G`` is the kernel's pairwise operator: P costs
    one product with it, a move one of its rows (O(n), or O(n d) streamed).
    """

    def __init__(self, G: PairwiseOperator, w: np.ndarray, labels: np.ndarray, k: int):
        Zw = indicator(labels, k, w)
        self.G, self.w, self.k = G, w, k
        self.labels = labels.copy()
        self.P = np.ascontiguousarray(G.matmat(Zw).T)  # k x n
        self.Q = np.einsum("ln,nl->l", self.P, Zw)
        self.s = Zw.sum(axis=0)
        self.counts = np.bincount(labels, minlength=k)
        self.diag = w * w * G.diagonal()  # (W G W)_ii

    def move(self, i: int, new: int) -> None:
        """Move point i to group ``new`` (eq. 48-49 for Q, O(n) for P)."""
        old = self.labels[i]
        wi = self.w[i]
        self.Q[old] += -2.0 * wi * self.P[old, i] + self.diag[i]
        self.Q[new] += 2.0 * wi * self.P[new, i] + self.diag[i]
        column = wi * self.G.rows(i)
        self.P[old] -= column
        self.P[new] += column
        self.s[old] -= wi
        self.s[new] += wi
        self.counts[old] -= 1
        self.counts[new] += 1
        self.labels[i] = new

    def objective(self) -> float:
        return float(np.sum(self.Q / self.s))

    def column(self, i: int) -> np.ndarray:
        """P[:, i]: point i's kernel sums to every group."""
        return self.P[:, i]

    def all(self) -> np.ndarray:
        """P (k x n)."""
        return self.P


class _FeatureState(_State):
    """The same statistics in a kernel's feature space (:class:`NystroemOperator`, G = Phi Phi'):
    ``S[l] = sum_{y in C_l} w(y) phi(y)`` (an r-vector), ``Q[l] = ||S[l]||^2`` (eq. 41) and
    P = S Phi' formed on demand, so a move costs O(r) and memory is O(k r) beyond Phi."""

    def __init__(self, G: NystroemOperator, w: np.ndarray, labels: np.ndarray, k: int):
        Zw = indicator(labels, k, w)
        self.G, self.features, self.w, self.k = G, G.features, w, k
        self.labels = labels.copy()
        self.S = G.matmat_inner(Zw).T  # k x r
        self.Q = np.einsum("lr,lr->l", self.S, self.S)
        self.s = Zw.sum(axis=0)
        self.counts = np.bincount(labels, minlength=k)
        self.diag = w * w * G.diagonal()

    def move(self, i: int, new: int) -> None:
        old = self.labels[i]
        v = self.w[i] * self.features[i]
        self.S[old] -= v
        self.S[new] += v
        self.Q[old] = self.S[old] @ self.S[old]
        self.Q[new] = self.S[new] @ self.S[new]
        self.s[old] -= self.w[i]
        self.s[new] += self.w[i]
        self.counts[old] -= 1
        self.counts[new] += 1
        self.labels[i] = new

    def column(self, i: int) -> np.ndarray:
        return self.S @ self.features[i]

    def all(self) -> np.ndarray:
        return self.S @ self.features.T


def _hartigan_gains(st: _State) -> tuple[np.ndarray, np.ndarray]:
    """Best gain and target group of every point at once, eq. (50) (O(n k))."""
    z, w, s, Q = st.labels, st.w, st.s, st.Q
    n = z.shape[0]
    P = st.all()
    Pown = P[z, np.arange(n)]
    with np.errstate(divide="ignore", invalid="ignore"):
        own = (w / s[z] * Q[z] - 2.0 * w * Pown + st.diag) / (s[z] - w)
        other = (w[:, None] / s * Q - 2.0 * w[:, None] * P.T - st.diag[:, None]) / (s + w[:, None])
    gains = own[:, None] - other
    gains[np.arange(n), z] = -np.inf
    gains[st.counts[z] == 1] = -np.inf  # never empty a group
    target = np.argmax(gains, axis=1)
    return gains[np.arange(n), target], target


def _hartigan_point(st: _State, i: int) -> tuple[float, int]:
    """Eq. (50) for one point with the current sums, in scalar arithmetic (O(k))."""
    j = st.labels[i]
    if st.counts[j] == 1:
        return -np.inf, j
    wi, di, s, Q, P = st.w[i], st.diag[i], st.s, st.Q, st.column(i)
    own = (wi / s[j] * Q[j] - 2.0 * wi * P[j] + di) / (s[j] - wi)
    best, target = -np.inf, j
    for l in range(st.k):
        if l != j:
            gain = own - (wi / s[l] * Q[l] - 2.0 * wi * P[l] - di) / (s[l] + wi)
            if gain > best:
                best, target = gain, l
    return best, target


def _lloyd_costs(st: _State) -> np.ndarray:
    """Squared feature-space distance of every point to every weighted centroid,
    ||phi(x_i) - m_l||^2 - K_ii = Q_l / s_l^2 - 2 P[l, i] / s_l (eq. 44 divided by w_i)."""
    return (st.Q / st.s**2)[:, None] - 2.0 * st.all() / st.s[:, None]


def _fit_once(
    G: PairwiseOperator,
    w: np.ndarray,
    labels: np.ndarray,
    k: int,
    algorithm: str,
    max_iter: int,
    rng: np.random.Generator,
    tol: float,
    callback: Callable | None = None,
) -> tuple[_State, int, bool]:
    """Run Hartigan (Algorithm 2) or Lloyd (Algorithm 1) from ``labels``.

    Each sweep first evaluates every point at once (O(n k)); if no point can
    improve, the partition is a certified local optimum. Otherwise only the
    candidates are visited (Hartigan: in a random order; Lloyd: in data
    order), each re-evaluated with the current sums before it moves.
    ``callback(event, state)`` is called after every move ("move") and
    every sweep ("sweep") for tests.
    """
    st = (_FeatureState if isinstance(G, NystroemOperator) else _State)(G, w, labels, k)
    n = labels.shape[0]
    for sweep in range(1, max_iter + 1):
        if algorithm == "hartigan":
            gains, _ = _hartigan_gains(st)
            candidates = np.flatnonzero(gains > tol)
            if candidates.size == 0:
                return st, sweep, True
            order = rng.permutation(n)
            candidates = order[np.isin(order, candidates)]
        else:
            costs = _lloyd_costs(st)
            best = np.argmin(costs, axis=0)
            improve = costs[st.labels, np.arange(n)] - costs[best, np.arange(n)] > tol
            candidates = np.flatnonzero(improve & (st.counts[st.labels] > 1))
            if candidates.size == 0:
                return st, sweep, True
        moved = 0
        for i in candidates:
            if algorithm == "hartigan":
                gain, target = _hartigan_point(st, i)
                if gain <= tol:
                    continue
            else:
                j = st.labels[i]
                if st.counts[j] == 1:
                    continue
                cost = st.Q / st.s**2 - 2.0 * st.column(i) / st.s
                target = int(np.argmin(cost))
                if target == j or cost[j] - cost[target] <= tol:
                    continue
            st.move(i, target)
            moved += 1
            if callback is not None:
                callback("move", st)
        if callback is not None:
            callback("sweep", st)
        if moved == 0:
            return st, sweep, True
    return st, max_iter, False


def _r_kgroups(D: PairwiseOperator, labels: np.ndarray, k: int, max_iter: int) -> tuple[np.ndarray, int, int, bool]:
    """R ``energy::kgroups``'s documented update rule, for unit weights.

    Points are visited in data order; a point alone in its cluster is skipped;
    for every cluster J, e_J = (2 / n_J) (r_J - w_J) with r_J the sum of
    distances from the point to J's members and w_J = (sum over pairs of J of
    d) / n_J; the point moves to argmin_J e_J (lowest index on ties) and the
    pair sums and sizes are updated at once. Returns labels, iterations
    (passes including the last), count (moves in the last pass), converged.

    A point's distances do not depend on the partition, so each pass reads
    D in bands of consecutive rows (views of a dense D, or recomputed).
    """
    labels = labels.copy()
    n = labels.shape[0]
    sizes = np.bincount(labels, minlength=k).astype(float)
    pair_sums = 0.5 * np.diag(D.quadratic(indicator(labels, k)))
    step = max(1, min(n, TILE * TILE // n))
    count = 0
    for iteration in range(1, max_iter + 1):
        count = 0
        for a in range(0, n, step):
            band = D.rows(slice(a, min(a + step, n)))
            for i in range(a, min(a + step, n)):
                j = labels[i]
                if sizes[j] == 1:
                    continue
                r = np.bincount(labels, weights=band[i - a], minlength=k)
                e = 2.0 / sizes * (r - pair_sums / sizes)
                target = int(np.argmin(e))
                if target != j:
                    pair_sums[j] -= r[j]
                    pair_sums[target] += r[target]
                    sizes[j] -= 1
                    sizes[target] += 1
                    labels[i] = target
                    count += 1
        if count == 0:
            return labels, iteration, count, True
    return labels, max_iter, count, False


# --- Initialisation ------------------------------------------------------------------


def _kmeanspp(G: PairwiseOperator, w: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Greedy k-means++ in the kernel's feature space (D^2 sampling, rho = ||phi_x - phi_y||^2).

    Needs the kernel's diagonal and one row per candidate centre.
    """
    n = G.n
    diag = G.diagonal()
    trials = 2 + int(np.log(k))

    def rho_to(idx):  # rho from every point to the points idx (n x len(idx))
        return np.maximum(diag[:, None] + diag[idx][None, :] - 2.0 * G.rows(np.asarray(idx)).T, 0.0)

    centres = [int(rng.choice(n, p=w / w.sum()))]
    closest = rho_to(centres)[:, 0]
    for _ in range(1, k):
        potential = w @ closest
        if potential > 0:
            candidates = rng.choice(n, size=trials, p=w * closest / potential)
        else:  # every point coincides with a centre: pick unused points
            unused = np.setdiff1d(np.arange(n), centres)
            candidates = rng.choice(unused, size=min(trials, unused.size), replace=False)
        dist = np.minimum(closest[:, None], rho_to(candidates))
        best = int(np.argmin(w @ dist))
        if candidates[best] in centres:  # duplicate of a centre: take any unused point
            candidates[best] = np.setdiff1d(np.arange(n), centres)[0]
        centres.append(int(candidates[best]))
        closest = dist[:, best]
    labels = np.argmin(rho_to(centres), axis=1)
    labels[centres] = np.arange(k)  # each centre in its own group: none is empty
    return labels


def _spectral(G: PairwiseOperator, w: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Top-k eigenvectors of W^1/2 G W^1/2 (eq. 29), then k-means on the rows.

    A dense G whose weighted copy fits the memory budget is decomposed
    directly (LAPACK); otherwise the eigenvectors come from Lanczos
    iterations (ARPACK ``eigsh``) on the operator, one product with G per
    iteration and no n x n array.
    """
    n = G.n
    root = np.sqrt(w)
    if k >= n - 1:  # Lanczos needs k < n - 1; so few points need no spectrum
        return _random_labels(n, k, rng)
    if isinstance(G, DenseOperator) and G.index is None and 2 * dense_bytes(n) <= memory_budget():
        _, vecs = eigh(root[:, None] * G.A * root[None, :], subset_by_index=[n - k, n - 1])
    else:
        R = aslinearoperator(diags(root))
        _, vecs = eigsh(R @ G.aslinearoperator() @ R, k=k, which="LA", v0=rng.standard_normal(n))
    km = KMeans(k, n_init=1, random_state=int(rng.integers(2**31 - 1))).fit(vecs, sample_weight=w)
    labels = km.labels_
    if np.unique(labels).size < k:  # degenerate spectrum (e.g. duplicates): fall back to balanced labels
        labels = _random_labels(n, k, rng)
    return labels


def _random_labels(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    return rng.permutation(np.arange(n) % k)


def _initial_labels(init: str, points, G: PairwiseOperator, w: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """The starting labels of one run (``init`` of :class:`KGroups`)."""
    if init == "random":
        return _random_labels(points.shape[0], k, rng)
    if init == "spectral":
        return _spectral(G, w, k, rng)
    if init == "power-kmeans":
        labels = PowerKMeans(k, random_state=rng).fit(points).labels_
        if np.unique(labels).size == k:
            return labels
        # power k-means left a cluster empty (duplicated points): k-means++ instead
    return _kmeanspp(G, w, k, rng)


def _restart_operator(data, semimetric, weights, algorithm: str, reserve: int, n_jobs) -> PairwiseOperator:
    """The operator a fit works on: D for R's rule, else the centred kernel G (from Nyström
    features when ``semimetric == "features"``)."""
    if isinstance(semimetric, str) and semimetric == "features":
        return NystroemOperator(data).with_jobs(n_jobs)
    if algorithm == "r-kgroups":
        return semimetric_operator(data, semimetric, repeated=True, reserve=reserve, n_jobs=n_jobs)
    return kernel_operator(data, semimetric, weights, reserve=reserve, n_jobs=n_jobs)


def _restarts(data, semimetric, weights, k, algorithm, init, max_iter, reserve, streams, operator=None) -> list:
    """Run one start per stream (a joblib task when ``operator`` is None: it builds its own).

    Returns, per start, (objective Q, labels, sweeps, converged), or for R's rule
    (W, labels, iterations, count, converged).
    """
    op = operator if operator is not None else _restart_operator(data, semimetric, weights, algorithm, reserve, None)
    n = data.shape[0]
    w = np.ones(n) if weights is None else weights
    given = not isinstance(init, str)
    if algorithm == "r-kgroups":
        G = None if given or init == "random" else CentredKernel(op)
        out = []
        for stream in streams:
            labels0 = init if given else _initial_labels(init, data, G, w, k, stream)
            labels, iterations, count, converged = _r_kgroups(op, labels0, k, max_iter)
            M = op.quadratic(indicator(labels, k))
            W = float(np.sum(np.diag(M) / (2.0 * np.bincount(labels, minlength=k))))  # eq. (15)
            out.append((W, labels, iterations, count, converged))
        return out
    T = float(w @ op.diagonal())
    tol = GAIN_RTOL * max(abs(T), np.finfo(float).tiny)
    out = []
    for stream in streams:
        labels0 = init if given else _initial_labels(init, data, op, w, k, stream)
        st, iterations, converged = _fit_once(op, w, labels0, k, algorithm, max_iter, stream, tol)
        out.append((st.objective(), st.labels, iterations, converged))
    return out


# --- Estimator -----------------------------------------------------------------------


class KGroups(ClusterMixin, BaseEstimator):
    r"""Energy clustering: kernel k-groups (Hartigan) and weighted kernel k-means (Lloyd).

    Minimises the within-group energy dispersion W (eq. 15), equivalently
    maximises Q = sum_j Q_j / s_j (eq. 41) in the feature space of the
    kernel that the semimetric generates (eq. 7).

    Parameters
    ----------
    n_clusters : int
        Number of groups k.
    algorithm : {"hartigan", "lloyd", "r-kgroups"}, default="hartigan"
        ``"hartigan"``: kernel k-groups, Algorithm 2 with the exact gain of
        eq. (50). ``"lloyd"``: weighted kernel k-means, Algorithm 1 with q
        maintained exactly (eq. 48-49). ``"r-kgroups"``: R
        ``energy::kgroups``'s update rule (Euclidean, exponent 1, unit
        weights), which reproduces R's labels from the same start.
    metric : {"euclidean", "exponential", "gaussian", "precomputed", "precomputed_kernel"} or callable, default="euclidean"
        The semimetric (see :func:`pairwise_semimetric`); ``"precomputed"``
        takes a distance matrix, ``"precomputed_kernel"`` a Gram matrix
        (e.g. a graph's affinity matrix, eq. 34-35).
    exponent : float, default=1.0
        alpha in (0, 2] for ``"euclidean"`` (eq. 52).
    sigma : float, default=None
        Scale of ``"exponential"`` (eq. 53) and ``"gaussian"`` (eq. 54).
    init : {"k-means++", "random", "spectral", "power-kmeans"} or array of shape (n_samples,), default="k-means++"
        Start: greedy k-means++ in feature space; balanced random labels;
        spectral (top-k eigenvectors of the centred weighted Gram matrix,
        eq. 29, then k-means); the labels of :class:`PowerKMeans` on the
        points (Euclidean, unweighted); or starting labels in 0..k-1 (then
        one run).
    n_init : int, default=10
        Restarts from independent random streams; the best objective is kept.
    max_iter : int, default=300
        Maximum number of sweeps per run.
    random_state : int, numpy.random.Generator or None, default=None
    n_jobs : int, default=None
        joblib's ``n_jobs``: the restarts run as joblib tasks (on a Dask
        cluster inside ``joblib.parallel_config(backend="dask")``), each with
        its own random stream, so the result is the same whatever ``n_jobs``;
        a single start spreads the passes of a streamed operator over the
        workers instead.
    approximation : {None, "nystroem"}, default=None
        ``"nystroem"``: fit on Nyström features Φ (n x m) with
        :math:`\Phi\Phi^\top \approx G` from ``n_components`` landmarks
        (Wang, Gittens & Mahoney 2019), for n beyond what exact k-groups can
        afford: memory O(n m), a Hartigan move O(m k). Needs the points (no
        precomputed matrix) and ``algorithm`` "hartigan" or "lloyd".
    n_components : int, default=300
        m, the number of landmarks for ``approximation="nystroem"``
        (capped at n). At 300 the accuracy was within 0.005 of exact k-groups
        in every setting of ``docs/validation.md``; with every point a
        landmark the fit is the exact one.
    landmarks : {"d2", "uniform"}, default="d2"
        How the landmarks are drawn from ``random_state``: k-means++-style D^2
        sampling in the kernel's feature space, or uniformly. D^2 is steadier
        at small m (measured; see ``docs/validation.md``).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Group of each point, 0..k-1. Groups are numbered by size (total
        weight), largest first; ties by the within-group mean semimetric
        g(C_l, C_l), smallest first. So a partition gets the same labels
        whatever the start; ``"r-kgroups"`` keeps R's numbering.
    W_ : float
        Within dispersion of ``labels_`` (eq. 15), in R's scaling:
        equals ``dispersion(X, labels_).W`` and R ``sum(kgroups(...)$W)``.
        For data near the ends of float64 the fit runs on the data divided
        by a power of two (exact) and W_ is scaled back; reading it raises
        ``OverflowError`` (``ValueError`` on underflow) when it cannot be
        represented, while ``labels_`` stay valid. With
        ``approximation="nystroem"`` it is :math:`\hat W + \sum_i w_i e_i`,
        the features' W plus each point's residual outside the landmarks'
        span: an upper bound on the exact W (the features' W is a lower
        bound), measured within 0.6% of it at the default ``n_components``;
        ``dispersion(X, labels_).W`` gives the exact value at O(n^2) cost.
    objective_ : float
        Q = sum_j Q_j / s_j (eq. 41) of the centred kernel; it equals the
        between-sample statistic S (eq. 16), since Q + W = T (Lemma 1).
        With ``approximation="nystroem"``, T is corrected by the same
        residuals as ``W_``, so ``objective_`` is the features' Q.
    n_iter_ : int
        Sweeps of the best run (R's ``iterations`` in ``"r-kgroups"`` mode).
    converged_ : bool
        Whether the best run stopped with no improving move.
    cluster_sizes_ : ndarray of shape (k,)
        Number of points per group.
    count_ : int
        ``"r-kgroups"`` only: moves in the last pass (R's ``count``).

    Notes
    -----
    The centred kernel is a pairwise operator (see the user guide, "Large
    data"): held as an n x n matrix, shared by all restarts, when it fits the
    working memory (:func:`set_config`), otherwise streamed, a move then
    recomputing the two rows it needs. A run keeps the n x k matrix of
    point-to-group kernel sums and updates two of its columns in O(n) per
    move; every sweep starts with one vectorised O(n k) evaluation of all
    gains and visits only the points that can improve, so a sweep costs
    O(n k + n * moves) and Python-level work scales with the moves. With
    Nyström features the group sums are k x m and a move costs O(m).

    ``"r-kgroups"`` follows R's rule, which ignores the factors
    n_j / (n_j - 1) and n_l / (n_l + 1) of the exact Hartigan gain
    (eq. 50); from the same start ``"hartigan"`` can reach a lower W.

    Examples
    --------
    >>> import energystats as es
    >>> iris = es.datasets.load_iris()
    >>> km = es.KGroups(3, random_state=0).fit(iris.iloc[:, :4])
    >>> km.cluster_sizes_  # groups are numbered by size
    array([62, 50, 38])
    >>> round(km.W_, 4), round(km.objective_, 4)  # W + Q = T = 189.5758 (Lemma 1)
    (67.5288, 122.047)
    """

    def __init__(
        self,
        n_clusters: int,
        *,
        algorithm: str = "hartigan",
        metric="euclidean",
        exponent: float = 1.0,
        sigma: float | None = None,
        init="k-means++",
        n_init: int = 10,
        max_iter: int = 300,
        random_state=None,
        n_jobs=None,
        approximation: str | None = None,
        n_components: int = 300,
        landmarks: str = "d2",
    ):
        self.n_clusters = n_clusters
        self.algorithm = algorithm
        self.metric = metric
        self.exponent = exponent
        self.sigma = sigma
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.approximation = approximation
        self.n_components = n_components
        self.landmarks = landmarks

    # validation --------------------------------------------------------------------

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = isinstance(self.metric, str) and self.metric in ("precomputed", "precomputed_kernel")
        return tags

    def _validate(self, X, sample_weight):
        """Check the parameters and the data; X has passed scikit-learn's ``validate_data``."""
        if self.algorithm not in _ALGORITHMS:
            raise ValueError(f"`algorithm` must be one of {_ALGORITHMS}, got {self.algorithm!r}.")
        n_init = check_positive_int(self.n_init, "n_init")
        max_iter = check_positive_int(self.max_iter, "max_iter")
        check_n_jobs(self.n_jobs)
        if self.approximation not in (None, "nystroem"):
            raise ValueError(f"`approximation` must be None or 'nystroem', got {self.approximation!r}.")
        if self.approximation == "nystroem":
            check_positive_int(self.n_components, "n_components")
            if self.landmarks not in ("d2", "uniform"):
                raise ValueError(f"`landmarks` must be 'd2' or 'uniform', got {self.landmarks!r}.")
            if self.algorithm == "r-kgroups":
                raise ValueError("`algorithm`='r-kgroups' is R's rule on the distances themselves: it takes no `approximation`.")
            if isinstance(self.metric, str) and self.metric in ("precomputed", "precomputed_kernel"):
                raise ValueError("`approximation`='nystroem' needs the points: a precomputed matrix already holds every pair.")
        kernel_given = isinstance(self.metric, str) and self.metric == "precomputed_kernel"
        if kernel_given:
            if self.exponent != 1.0 or self.sigma is not None:
                raise ValueError("`exponent` and `sigma` do not apply to metric='precomputed_kernel'.")
            if X.shape[0] != X.shape[1]:
                raise ValueError(f"`X` must be a square Gram matrix for metric='precomputed_kernel', got shape {X.shape}.")
            check_symmetric(X, "X", "metric='precomputed_kernel'")
            sm = None
        else:
            sm = resolve_semimetric(self.metric, self.exponent, self.sigma)
            X = prepare_points(X, sm, "X")
        n = X.shape[0]
        w = as_weights(sample_weight, n, "sample_weight")
        kept = None if w is None or (w > 0).all() else np.flatnonzero(w > 0)
        k = check_n_clusters(self.n_clusters, n if kept is None else kept.size)
        if self.algorithm == "r-kgroups":
            if kernel_given or not (sm.is_euclidean_power or sm.precomputed) or sm.exponent != 1.0:
                raise ValueError("`algorithm`='r-kgroups' needs metric='euclidean' with exponent=1 (or 'precomputed').")
            if w is not None:
                raise ValueError("`algorithm`='r-kgroups' takes no `sample_weight` (R's kgroups has none).")
        start = None
        if isinstance(self.init, str):
            if self.init not in _INITS:
                raise ValueError(f"`init` must be one of {_INITS} or an array of labels, got {self.init!r}.")
            if self.init == "power-kmeans" and (kernel_given or sm.precomputed):
                raise ValueError("`init`='power-kmeans' needs the points themselves, not a precomputed matrix.")
        else:
            start = np.asarray(self.init)
            if start.shape != (n,):
                raise ValueError(f"`init` labels must have shape ({n},), got {start.shape}.")
            if not np.issubdtype(start.dtype, np.integer) or start.min() < 0 or start.max() >= k:
                raise ValueError(f"`init` labels must be integers in 0..{k - 1}.")
            start = start.astype(np.intp) if kept is None else start[kept].astype(np.intp)
            empty = np.flatnonzero(np.bincount(start, minlength=k) == 0)
            if empty.size:
                raise ValueError(f"`init` labels leave cluster {int(empty[0])} empty" + ("." if kept is None else " among the points of positive weight."))
        return k, n_init, max_iter, sm, X, w, kept, start

    # fitting -----------------------------------------------------------------------

    def fit(self, X, y=None, sample_weight=None):
        """Cluster ``X`` (points, a distance matrix or a Gram matrix, by ``metric``).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features) or (n_samples, n_samples)
        y : ignored
        sample_weight : array_like of shape (n_samples,), default=None
            Non-negative point weights w(x) (eq. 13-15). A point of weight 0 is
            left out of the clustering, exactly as if it were removed, and
            then labelled by :meth:`predict`'s rule; integer weights act as
            repetitions of the points.

        Returns
        -------
        self
        """
        X = validate_data(self, X, dtype=np.float64)
        k, n_init, max_iter, sm, data, w, kept, start = self._validate(X, sample_weight)
        scaling = Scaling() if sm is None else Scaling.for_data(data, sm)
        if sm is None:  # a Gram matrix scales like a precomputed distance matrix
            scaling = Scaling.for_data(data, resolve_semimetric("precomputed"))
        data, sm_fit = scaling.data(data), (None if sm is None else scaling.semimetric(sm))
        full, fit_data, fit_w = data, data, w
        if kept is not None:
            fit_w = w[kept]
            if sm is not None and not sm.precomputed:
                fit_data = data[kept]
            else:
                check_fits(f"the {kept.size} x {kept.size} matrix of the points of positive weight", dense_bytes(kept.size))
                fit_data = data[np.ix_(kept, kept)]
        gen = np.random.default_rng(self.random_state)
        streams = gen.spawn(1 if start is not None else n_init)  # one per start
        nystroem = None
        if self.approximation == "nystroem":  # the fit works on the features: G = Phi Phi'
            Phi, nystroem, residual = nystroem_features(fit_data, sm_fit, fit_w, self.n_components, gen.spawn(1)[0], self.landmarks)
            labels, W, T, within, iterations, converged, count = self._fit_kept(Phi, "features", fit_w, k, max_iter, start, streams)
            # The features leave out each point's residual e_i = E_ii outside the landmarks'
            # span (E = K - Phi Phi' is positive semidefinite). With D_il = K_ii + K_ll - 2 K_il,
            # W = W_hat + sum_i w_i e_i - sum_j w_j' E_jj w_j / s_j, so W_hat <= W <= W_hat + sum w e:
            # the upper bound, which drops only the residual's group means, is reported.
            unit_w = np.ones(Phi.shape[0]) if fit_w is None else fit_w
            extra = np.bincount(labels, weights=unit_w * residual, minlength=k)
            W, T = W + extra.sum(), T + extra.sum()
            within = within + 2.0 * extra / np.bincount(labels, weights=unit_w, minlength=k)
        else:
            labels, W, T, within, iterations, converged, count = self._fit_kept(fit_data, sm_fit, fit_w, k, max_iter, start, streams)
        if self.algorithm != "r-kgroups":  # R's numbering is part of what r-kgroups reproduces
            order = _canonical_order(labels, fit_w, within, k)
            labels, within = np.argsort(order)[labels], within[order]
        if not converged:
            warnings.warn(
                f"KGroups did not converge within max_iter={max_iter} sweeps; increase `max_iter`.",
                ConvergenceWarning,
                stacklevel=2,
            )
        n = full.shape[0]
        unit = fit_w is None
        w_fit = np.ones(labels.shape[0]) if unit else fit_w
        if kept is not None:  # the points of weight 0 go where predict would put them
            dropped = np.setdiff1d(np.arange(n), kept)
            all_labels = np.empty(n, dtype=np.intp)
            all_labels[kept] = labels
            if nystroem is not None:
                all_labels[dropped] = _feature_costs(*nystroem_transform(full[dropped], nystroem, residual=True), *_feature_sums(Phi, labels, w_fit, k)).argmin(axis=1)
            elif sm is None:
                all_labels[dropped] = _kernel_assign(full[np.ix_(dropped, kept)], np.diag(full)[dropped], fit_data, labels, w_fit, k)
            else:
                values = full[np.ix_(dropped, kept)] if sm.precomputed else None
                all_labels[dropped] = _assign(values, full[dropped], sm_fit, fit_data, labels, w_fit, within, k)
            labels = all_labels
        if self.algorithm == "r-kgroups":
            self.count_ = count
        self.labels_ = labels
        self._statistics = (scaling, W, T - W)
        self.n_iter_ = int(iterations)
        self.converged_ = bool(converged)
        self.cluster_sizes_ = np.bincount(labels, minlength=k)
        # for predict: the scaling, the points of positive weight and g(C_l, C_l) (or the
        # Nyström map and the feature sums); no n x n array
        fit_labels = labels if kept is None else labels[kept]
        if nystroem is not None:
            nystroem = (nystroem, *_feature_sums(Phi, fit_labels, w_fit, k))
        self._fit_data = (sm_fit, scaling, None if sm is None or sm.precomputed else fit_data, kept, w_fit, fit_labels, within, nystroem)
        return self

    @property
    def W_(self) -> float:
        """Within dispersion of ``labels_`` (eq. 15); see the class's Attributes."""
        check_is_fitted(self)
        scaling, W, _ = self._statistics
        return scaling.result(W, "W_")

    @property
    def objective_(self) -> float:
        """Q = S of ``labels_`` (eq. 41, 16); see the class's Attributes."""
        check_is_fitted(self)
        scaling, _, S = self._statistics
        return scaling.result(S, "objective_")

    def _fit_kept(self, data, sm, w, k, max_iter, start, streams):
        """Fit to the points of positive weight: labels, W, T, g(C_l, C_l), sweeps, converged, count.

        Every start has its own random stream (spawned from ``random_state``), so the
        restarts can run as joblib tasks (``n_jobs``), each building its own pairwise
        operator, with the same results as in order here; the best start is chosen in start
        order, a later one only when better by more than rounding.
        """
        n = data.shape[0]
        reserve = 8 * n * (4 * k + 8)  # partition state, indicators and products beside the matrix
        options = dict(semimetric=sm, weights=w, k=k, algorithm=self.algorithm, init=self.init if start is None else start, max_iter=max_iter, reserve=reserve)
        jobs = n_workers(self.n_jobs)
        if jobs > 1 and len(streams) > 1:
            chunks = np.array_split(np.arange(len(streams)), min(jobs, len(streams)))
            parts = run_tasks(functools.partial(_restarts, **options), [{"streams": [streams[i] for i in c]} for c in chunks], self.n_jobs, shared={"data": data})
            results = [r for part in parts for r in part]
            op = _restart_operator(data, sm, w, self.algorithm, reserve, None)
        else:  # one start may still spread its passes over the workers
            op = _restart_operator(data, sm, w, self.algorithm, reserve, self.n_jobs if jobs > 1 else None)
            results = _restarts(data, streams=streams, operator=op, **options)
        unit_w = np.ones(n) if w is None else w
        if self.algorithm == "r-kgroups":
            best = results[0]
            for r in results[1:]:  # a later start must be better by more than rounding
                if r[0] < best[0] - GAIN_RTOL * abs(best[0]):
                    best = r
            _, labels, iterations, count, converged = best
            M = op.quadratic(np.hstack([indicator(labels, k), np.ones((n, 1))]))
            W = float(np.sum(np.diag(M)[:k] / (2.0 * np.bincount(labels, minlength=k))))  # eq. (15)
            T = M[k, k] / (2.0 * n)  # eq. (18)
            within = np.diag(M)[:k] / np.bincount(labels, minlength=k) ** 2  # g(C_l, C_l), eq. (13)
            return labels, W, T, within, iterations, converged, count
        diag = op.diagonal()
        T = float(unit_w @ diag)
        tol = GAIN_RTOL * max(abs(T), np.finfo(float).tiny)
        best = results[0]
        for r in results[1:]:  # a later start must be better by more than rounding
            if r[0] > best[0] + tol:
                best = r
        _, labels, iterations, converged = best
        W, within = _within(op, diag, unit_w, labels, k)
        return labels, W, T, within, iterations, converged, None

    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit and return ``labels_``."""
        return self.fit(X, sample_weight=sample_weight).labels_

    def predict(self, X):
        r"""Assign new points to the group whose energy grows least by adding them.

        Adding a point x of unit weight to group l raises W by
        :math:`\frac{s_l}{s_l + 1}\,[g(x, C_l) - \tfrac12 g(C_l, C_l)]`,
        the kernel form of the squared feature-space distance to the group's
        centroid, scaled as in the Hartigan gain (eq. 50).

        Parameters
        ----------
        X : array_like of shape (m, n_features), or (m, n_samples) of
            semimetric values to the training points when ``metric="precomputed"``.

        Returns
        -------
        ndarray of shape (m,)

        Notes
        -----
        Time O(m n d); memory O(n) per new point, in blocks: the semimetric
        values of a block of new points to the training points, never the
        m x n matrix (a precomputed ``X`` is that matrix already).
        """
        check_is_fitted(self)
        sm, scaling, points, kept, w, labels, within, nystroem = self._fit_data
        if nystroem is not None:
            state, S, Q, s = nystroem
            Phi, residual = nystroem_transform(scaling.data(validate_data(self, X, dtype=np.float64, reset=False)), state, residual=True)
            return _feature_costs(Phi, residual, S, Q, s).argmin(axis=1)
        if sm is None:
            raise ValueError("`predict` needs semimetric values to the training points; metric='precomputed_kernel' has none.")
        X = scaling.data(validate_data(self, X, dtype=np.float64, reset=False))
        values = None
        if sm.precomputed:
            if X.min() < 0:
                raise ValueError("`X` must be non-negative for metric='precomputed'.")
            values = X if kept is None else X[:, kept]
        k = self.cluster_sizes_.shape[0]
        return _assign(values, X, sm, points, labels, w, within, k)


def _canonical_order(labels: np.ndarray, w: np.ndarray | None, within: np.ndarray, k: int) -> np.ndarray:
    """The clusters in canonical order: by total weight (size), largest first, then by
    within-cluster mean semimetric g(C_l, C_l), smallest first, then by first member in
    the data. A partition then gets the same labels whatever the start, the data's order,
    or whether weights or repeated points express the same sample."""
    s = np.bincount(labels, weights=w, minlength=k)
    first = np.unique(labels, return_index=True)[1]
    return np.lexsort((first, within, -s))


def _assign(values, X, sm, points, labels, w, within, k) -> np.ndarray:
    """:meth:`KGroups.predict`'s rule for new points: semimetric ``values`` to the training
    points (precomputed), or the points ``X``, whose values are computed in blocks."""
    Zw = indicator(labels, k, w)
    s = Zw.sum(axis=0)
    m, n = X.shape[0], labels.shape[0]
    step = m if values is not None else max(1, min(m, TILE * TILE // n))
    check_fits(f"predict on {m} points ({step} x {n} semimetric values at a time)", 8 * (step * n + m * k))
    out = np.empty(m, dtype=np.intp)
    for a in range(0, m, step):
        block = values[a : a + step] if values is not None else sm(X[a : a + step], points)
        cost = s / (s + 1.0) * (block @ Zw / s - 0.5 * within)
        out[a : a + step] = np.argmin(cost, axis=1)
    return out


def _kernel_assign(Gx: np.ndarray, Gxx: np.ndarray, G: np.ndarray, labels, w, k) -> np.ndarray:
    """The same rule from a Gram matrix: the squared feature-space distance of each new point
    to each weighted centroid, K(x, x) - 2 g_l(x) / s_l + Q_l / s_l^2, times s_l / (s_l + 1)."""
    Zw = indicator(labels, k, w)
    s = Zw.sum(axis=0)
    Q = np.diag(DenseOperator(G).quadratic(Zw))
    cost = s / (s + 1.0) * (Gxx[:, None] - 2.0 * (Gx @ Zw) / s + Q / s**2)
    return np.argmin(cost, axis=1)


def _feature_sums(Phi: np.ndarray, labels: np.ndarray, w: np.ndarray, k: int):
    """S_l = sum_{y in C_l} w(y) phi(y), Q_l = ||S_l||^2 and s_l for the groups of ``labels``."""
    Zw = indicator(labels, k, w)
    S = Zw.T @ Phi
    return S, np.einsum("lr,lr->l", S, S), Zw.sum(axis=0)


def _feature_costs(Phi_new: np.ndarray, residual: np.ndarray, S: np.ndarray, Q: np.ndarray, s: np.ndarray) -> np.ndarray:
    """predict's rule in feature space: s_l / (s_l + 1) times the squared distance of each
    new point to each weighted centroid, ||phi(x)||^2 - 2 phi(x).S_l / s_l + Q_l / s_l^2, where
    ||phi(x)||^2 includes the ``residual`` outside the landmarks' span (the centroids lie in
    it), so that the rule is exact when every training point is a landmark."""
    norms = np.einsum("ij,ij->i", Phi_new, Phi_new) + residual
    return s / (s + 1.0) * (norms[:, None] - 2.0 * (Phi_new @ S.T) / s + Q / s**2)


def _within(G: PairwiseOperator, diag: np.ndarray, w: np.ndarray, labels: np.ndarray, k: int) -> tuple[float, np.ndarray]:
    """W = sum_i w_i K_ii - sum_j Q_j / s_j (eq. 23) from one product with the kernel, and
    g(C_l, C_l) = 2 (d_l - Q_l / s_l) / s_l with d_l = sum_{i in C_l} w_i K_ii (eq. 13 in
    kernel form: rho(x, y) = K(x, x) + K(y, y) - 2 K(x, y))."""
    Zw = indicator(labels, k, w)
    Q = np.diag(G.quadratic(Zw))
    s = Zw.sum(axis=0)
    d = np.bincount(labels, weights=w * diag, minlength=k)
    return float(w @ diag - np.sum(Q / s)), 2.0 * (d - Q / s) / s
