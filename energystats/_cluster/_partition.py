"""The partition of kernel k-groups and the moves that improve it: Hartigan's exact gain
(Algorithm 2, eq. 50), Lloyd's steps (Algorithm 1, eq. 44), and R ``kgroups``' rule.

A partition's sufficient statistics (eq. 41-42) live in a :class:`_State` (kernel sums
to every group, from products and rows of the kernel's pairwise operator) or, for a
kernel known by features (Nyström), a :class:`_FeatureState` (group sums in feature
space); :func:`partition_state` picks by asking the operator for its features.

References
----------
G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-Groups via Hartigan's
Method", IEEE TPAMI (2020), Section 4, Algorithms 1 and 2, eq. (41)-(50).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .._operator import PairwiseOperator, indicator

__all__ = [
    "GAIN_RTOL", "TINY", "canonical_order", "fit_once", "partition_state", "r_kgroups", "within",
]

#: Gains below this fraction of the total dispersion T count as zero (round-off loops).
GAIN_RTOL = 1e-12
#: The smallest normal float, the scale of the tolerance when T is 0 (np.finfo, read once).
TINY = float(np.finfo(float).tiny)


def canonical_order(labels: np.ndarray, w: np.ndarray | None, k: int) -> np.ndarray:
    """The k clusters in canonical order: by total weight (size), largest first, clusters of
    equal total weight in the order of their first point in the data, empty clusters last.
    ``np.argsort(order)[labels]`` numbers them so. The order depends on the partition (and the
    weights, summed in the order of the points: the same sums on every machine) and on
    nothing computed in floating point from the data, so the same partition gets the same
    labels whatever the start, BLAS kernel, thread count or memory budget."""
    s = np.bincount(labels, weights=w, minlength=k)
    first = np.full(k, labels.size)
    np.minimum.at(first, labels, np.arange(labels.size))  # each cluster's first point
    return np.lexsort((np.arange(k), first, -s))


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
        self.every, self.twice = np.arange(labels.shape[0]), 2.0 * w  # for the gains of all

    def move(self, i: int, new: int) -> None:
        """Move point i to group ``new`` (eq. 48-49 for Q, O(n) for P)."""
        old = self.labels[i]
        # scalar arithmetic in Python floats (the same IEEE operations, faster)
        wi, di = float(self.w[i]), float(self.diag[i])
        self.Q[old] += -2.0 * wi * float(self.P[old, i]) + di
        self.Q[new] += 2.0 * wi * float(self.P[new, i]) + di
        column = self.G.rows(i) if wi == 1.0 else wi * self.G.rows(i)
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

    def __init__(self, G: PairwiseOperator, w: np.ndarray, labels: np.ndarray, k: int):
        Zw = indicator(labels, k, w)
        self.G, self.features, self.w, self.k = G, G.features, w, k
        self.labels = labels.copy()
        self.S = G.feature_sums(Zw).T  # k x r
        self.Q = np.einsum("lr,lr->l", self.S, self.S)
        self.s = Zw.sum(axis=0)
        self.counts = np.bincount(labels, minlength=k)
        self.diag = w * w * G.diagonal()
        self.every, self.twice = np.arange(labels.shape[0]), 2.0 * w

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


def partition_state(G: PairwiseOperator, w: np.ndarray, labels: np.ndarray, k: int) -> _State:
    """The sufficient statistics of ``labels`` on the kernel G: in feature space when G is
    known by features (G = Phi Phi'), else from G's products and rows."""
    return (_State if G.features is None else _FeatureState)(G, w, labels, k)


def _hartigan_gains(st: _State) -> np.ndarray:
    """Best gain of every point at once, eq. (50) (O(n k)): (w_i / s_j Q_j - 2 w_i P_ji + d_i)
    / (s_j - w_i) for its group j less the same with + d_i / (s_l + w_i) for each other group l,
    every operation in that order (in place: the same values, fewer temporaries)."""
    z, w, s, Q, every, twice = st.labels, st.w, st.s, st.Q, st.every, st.twice
    P = st.all()  # k x n: the gains are formed k x n, each point a column
    size = s[z]
    with np.errstate(divide="ignore", invalid="ignore"):
        own = w / size
        own *= Q[z]
        own -= twice * P[z, every]
        own += st.diag
        own /= size - w
        gains = w / s[:, None]
        gains *= Q[:, None]
        gains -= twice * P
        gains -= st.diag
        gains /= s[:, None] + w
    np.subtract(own, gains, out=gains)
    gains[z, every] = -np.inf
    if (st.counts == 1).any():
        gains[:, st.counts[z] == 1] = -np.inf  # never empty a group
    return gains.max(axis=0)


def _hartigan_point(st: _State, i: int) -> tuple[float, int]:
    """Eq. (50) for one point with the current sums, in scalar arithmetic (O(k))."""
    j = st.labels[i]
    if st.counts[j] == 1:
        return -np.inf, j
    # Python floats: the same IEEE operations as numpy's scalars, several times faster
    wi, di, s, Q, P = (
        float(st.w[i]), float(st.diag[i]), st.s.tolist(), st.Q.tolist(), st.column(i).tolist()
    )
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


def fit_once(
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
    st = partition_state(G, w, labels, k)
    n = labels.shape[0]
    for sweep in range(1, max_iter + 1):
        if algorithm == "hartigan":
            better = _hartigan_gains(st) > tol
            if not better.any():
                return st, sweep, True
            order = rng.permutation(n)
            candidates = order[better[order]]
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


def r_kgroups(
    D: PairwiseOperator, labels: np.ndarray, k: int, max_iter: int
) -> tuple[np.ndarray, int, int, bool]:
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
    step = min(n, D.block_rows())
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


def within(
    G: PairwiseOperator, diag: np.ndarray, w: np.ndarray, labels: np.ndarray, k: int
) -> tuple[float, np.ndarray]:
    """W = sum_i w_i K_ii - sum_j Q_j / s_j (eq. 23) from one product with the kernel, and
    g(C_l, C_l) = 2 (d_l - Q_l / s_l) / s_l with d_l = sum_{i in C_l} w_i K_ii (eq. 13 in
    kernel form: rho(x, y) = K(x, x) + K(y, y) - 2 K(x, y))."""
    Zw = indicator(labels, k, w)
    Q = np.diag(G.quadratic(Zw))
    s = Zw.sum(axis=0)
    d = np.bincount(labels, weights=w * diag, minlength=k)
    return float(w @ diag - np.sum(Q / s)), 2.0 * (d - Q / s) / s
