r"""A partition of kernel k-groups and the moves that lower its within dispersion: Hartigan's
exact gain (Algorithm 2, eq. 50), Lloyd's steps (Algorithm 1, eq. 44) and R ``kgroups``' rule,
all written against the semimetric matrix D of the points (França, Rizzo & Vogelstein 2020).

For weights w, groups :math:`C_l` of weight :math:`s_l`, the point-to-group sums
:math:`A_{il} = \sum_{y \in C_l} w_y \rho(x_i, y)` (the columns of :math:`D Z_w`) and the group
sums :math:`B_l = \sum_{i \in C_l} w_i A_{il}`, the within dispersion is
:math:`W = \sum_l B_l / (2 s_l)` (eq. 15) and the energy of point i to group l

.. math::

    c_l(i) = A_{il} - \frac{B_l}{2 s_l} = s_l \|\phi(x_i) - m_l\|^2

(the kernel's feature-space distance to the weighted centroid, eq. 44). Moving i from j to l
lowers W by (eq. 50 in semimetric form)

.. math::

    \Delta_{j \to l}(i) = w_i \left[\frac{c_j(i)}{s_j - w_i} - \frac{c_l(i)}{s_l + w_i}\right],

and a move updates two rows of A by :math:`\pm w_i D_{i\cdot}` (O(n)) and
:math:`B_j \mathrel{-}= 2 w_i A_{ij}`, :math:`B_l \mathrel{+}= 2 w_i A_{il}`. With Nyström
features Φ (:class:`FeaturePartition`) the same energies are
:math:`s_l \|\phi_i\|^2 - 2 \phi_i^\top S_l + \|S_l\|^2 / s_l` of the group sums
:math:`S_l = \sum_{y \in C_l} w_y \phi_y`, and a move costs O(r).

References
----------
G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-Groups via Hartigan's Method", IEEE
TPAMI 43 (2021), Section 4, Algorithms 1 and 2, eq. (13)-(15), (41)-(50).
"""

from __future__ import annotations

import numpy as np

__all__ = ["GAIN_RTOL", "TINY", "FeaturePartition", "Partition", "canonical_order", "fit_once",
           "hartigan_gains", "indicator", "r_kgroups"]

#: Gains below this fraction of the total dispersion T count as zero (round-off loops).
GAIN_RTOL = 1e-12
#: The smallest normal float, the scale of the tolerance when T is 0.
TINY = float(np.finfo(float).tiny)


def indicator(labels: np.ndarray, k: int, w=None) -> np.ndarray:
    """The n x k (weighted) indicator of ``labels``."""
    Z = np.zeros((labels.shape[0], k))
    Z[np.arange(labels.shape[0]), labels] = 1.0 if w is None else w
    return Z


def canonical_order(labels: np.ndarray, w, k: int) -> np.ndarray:
    """The k groups by total weight, largest first, equal weights in the order of their first
    point, empty groups last: ``np.argsort(order)[labels]`` numbers a partition the same way
    whatever its start, rounding or path."""
    s = np.bincount(labels, weights=w, minlength=k)
    first = np.full(k, labels.size)
    np.minimum.at(first, labels, np.arange(labels.size))
    return np.lexsort((np.arange(k), first, -s))


class Partition:
    """The sums A (stored k x n) and B of the module's docstring for ``labels`` on D (an
    ndarray, :class:`~energystats._scale.Streamed` or :class:`~energystats._scale.GraphMatrix`)
    with weights w, from one product :math:`D Z_w`."""

    def __init__(self, D, w: np.ndarray, labels: np.ndarray, k: int):
        Zw = indicator(labels, k, w)
        self.D, self.w, self.k, self.labels = D, w, k, labels.copy()
        self.A = np.ascontiguousarray((D @ Zw).T)
        self.B = np.einsum("ln,nl->l", self.A, Zw)
        self.s = Zw.sum(axis=0)
        self.counts = np.bincount(labels, minlength=k)

    def energies(self) -> np.ndarray:
        """c (k x n)."""
        return self.A - (self.B / (2.0 * self.s))[:, None]

    def energy(self, i: int) -> list:
        """c(i) (k floats)."""
        return (self.A[:, i] - self.B / (2.0 * self.s)).tolist()

    def _shift(self, i: int, old: int, new: int, wi: float) -> None:
        row = self.D[i]
        row = row if wi == 1.0 else wi * row
        self.B[old] -= 2.0 * wi * self.A[old, i]
        self.B[new] += 2.0 * wi * self.A[new, i]
        self.A[old] -= row
        self.A[new] += row

    def move(self, i: int, new: int) -> None:
        """Point i to group ``new``."""
        old, wi = self.labels[i], float(self.w[i])
        self._shift(i, old, new, wi)
        self.s[old] -= wi
        self.s[new] += wi
        self.counts[old] -= 1
        self.counts[new] += 1
        self.labels[i] = new

    def W(self) -> float:
        """W (eq. 15)."""
        return float(np.sum(self.B / (2.0 * self.s)))

    def within(self) -> np.ndarray:
        """g(C_l, C_l) = B_l / s_l^2 (eq. 13)."""
        return self.B / self.s**2


class FeaturePartition(Partition):
    """The same energies from features Φ (n x r; module docstring): group sums S (k x r)."""

    def __init__(self, Phi: np.ndarray, w: np.ndarray, labels: np.ndarray, k: int):
        Zw = indicator(labels, k, w)
        self.Phi, self.w, self.k, self.labels = Phi, w, k, labels.copy()
        self.norms = np.einsum("ij,ij->i", Phi, Phi)
        self.S = Zw.T @ Phi
        self.s = Zw.sum(axis=0)
        self.counts = np.bincount(labels, minlength=k)

    def _q(self) -> np.ndarray:
        return np.einsum("lr,lr->l", self.S, self.S) / self.s

    def energies(self):
        return self.s[:, None] * self.norms - 2.0 * (self.S @ self.Phi.T) + self._q()[:, None]

    def energy(self, i):
        return (self.s * self.norms[i] - 2.0 * (self.S @ self.Phi[i]) + self._q()).tolist()

    def _shift(self, i, old, new, wi):
        v = wi * self.Phi[i]
        self.S[old] -= v
        self.S[new] += v

    def W(self):
        return float(self.w @ self.norms - self._q().sum())

    def within(self):
        d = np.bincount(self.labels, weights=self.w * self.norms, minlength=self.k)
        return 2.0 * (d - self._q()) / self.s


def hartigan_gains(st: Partition) -> np.ndarray:
    """The best gain of eq. (50) of every point (n), all at once in O(n k); -inf for a point
    alone in its group (groups never empty)."""
    c, z, w, s = st.energies(), st.labels, st.w, st.s
    every, alone = np.arange(z.shape[0]), st.counts[z] == 1
    own = c[z, every] / np.where(alone, 1.0, s[z] - w)  # s_j - w_i = 0 alone: masked below
    gains = w * (own - c / (s[:, None] + w))
    gains[z, every] = -np.inf
    gains[:, alone] = -np.inf
    return gains.max(axis=0)


def _point_gain(st: Partition, i: int) -> tuple[float, int]:
    """Eq. (50) for point i with the current sums, in Python floats (O(k)): gain, target."""
    j = int(st.labels[i])
    if st.counts[j] == 1:
        return -np.inf, j
    c, s, wi = st.energy(i), st.s.tolist(), float(st.w[i])
    own = c[j] / (s[j] - wi)
    best, target = -np.inf, j
    for l in range(st.k):
        if l != j:
            gain = wi * (own - c[l] / (s[l] + wi))
            if gain > best:
                best, target = gain, l
    return best, target


def fit_once(st: Partition, algorithm: str, max_iter: int, rng: np.random.Generator,
             tol: float, callback=None) -> tuple[Partition, int, bool]:
    """Hartigan (Algorithm 2) or Lloyd (Algorithm 1) from the partition ``st`` (updated):
    each sweep evaluates every point at once (O(n k)); none improving by more than ``tol``
    is a certified local optimum; else the candidates are visited (Hartigan: in a random order
    from ``rng``; Lloyd: in data order), each re-evaluated with the current sums before it
    moves. ``callback(event, st)`` after every "move" and "sweep" (for tests). Returns the
    partition, the sweeps and whether it converged."""
    n = st.labels.shape[0]
    for sweep in range(1, max_iter + 1):
        if algorithm == "hartigan":
            better = hartigan_gains(st) > tol
            order = rng.permutation(n) if better.any() else None
            candidates = [] if order is None else order[better[order]].tolist()
        else:  # Lloyd: the nearest centroid, c_l(i) / s_l (eq. 44)
            cost = st.energies() / st.s[:, None]
            z = st.labels
            gap = cost[z, np.arange(n)] - cost.min(axis=0)
            candidates = np.flatnonzero((gap > tol) & (st.counts[z] > 1)).tolist()
        if not candidates:
            return st, sweep, True
        moved = 0
        for i in candidates:
            if algorithm == "hartigan":
                gain, target = _point_gain(st, i)
                if gain <= tol:
                    continue
            else:
                j = st.labels[i]
                if st.counts[j] == 1:
                    continue
                cost = np.array(st.energy(i)) / st.s
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


def r_kgroups(D, labels: np.ndarray, k: int, max_iter: int):
    """R ``energy::kgroups``' documented rule (unit weights): points in data order, a point
    alone in its group skipped; :math:`e_J = \\frac{2}{n_J} (r_J - p_J / n_J)` with r_J the
    point's distances summed over J and p_J the sum over the pairs of J (= B_J / 2); the
    point goes to the first argmin, and the sums follow at once. Returns labels, passes
    (the last included), moves in the last pass (R's ``count``) and convergence."""
    labels = labels.copy()
    n = labels.shape[0]
    Z = indicator(labels, k)
    pairs = 0.5 * np.einsum("nl,nl->l", Z, D @ Z)
    sizes = Z.sum(axis=0)
    step = n if isinstance(D, np.ndarray) else 512
    for iteration in range(1, max_iter + 1):
        count = 0
        for a in range(0, n, step):
            band = D[a : a + step] if isinstance(D, np.ndarray) else D[np.arange(a, min(a + step,
                                                                                      n))]
            for i in range(a, min(a + step, n)):
                j = labels[i]
                if sizes[j] == 1:
                    continue
                r = np.bincount(labels, weights=band[i - a], minlength=k)
                target = int(np.argmin(2.0 / sizes * (r - pairs / sizes)))
                if target != j:
                    pairs[j] -= r[j]
                    pairs[target] += r[target]
                    sizes[j] -= 1
                    sizes[target] += 1
                    labels[i] = target
                    count += 1
        if count == 0:
            return labels, iteration, count, True
    return labels, max_iter, count, False
