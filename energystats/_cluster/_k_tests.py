r"""The test of one cluster behind :func:`~energystats.choose_k` and
:func:`~energystats.cluster_test` without k: are these points more than one cluster?

The statistic. A coordinate with tied values (ratings, counts, rounded measurements) is first
spread uniformly over its rounding interval, so that k-means does not split the lattice. The
points are centred and rotated to their principal axes; J of them are kept
(:func:`~energystats.signal_dimension`: the axes that stand out from a spherical noise floor;
all of them, at most :data:`MAX_AXES`, when none stands out, as for clusters arranged
symmetrically). On these scores Z, for k = 2..K, the drop of the within sum of squares of
k-means,

.. math:: D_k = \log W_1(Z) - \log W_k(Z),

is computed, as the gap statistic computes it (Tibshirani, Walther & Hastie 2001), and the same
drops on the first principal axis alone (when J > 1): two clusters side by side split there
more clearly than in J dimensions. The same procedure (greedy k-means++ seeding, then Lloyd's
iterations) is applied to B reference samples of the same size, rotated to their own principal
axes. Each drop is standardised by its mean and standard deviation over the B + 1 samples, and
the statistic is the largest, :math:`t = \max z`: large when some k splits the points far better
than a reference of one cluster is split. Its p-value is (1 + #{references with t* >= t}) /
(B + 1): the data and the references are treated alike, so the p-value is exact whenever the
points are distributed as a reference.

The references (what "one cluster" means):

* ``"unimodal"``: uniform laws with the points' principal axes and variances: on the box, and
  (J >= 2) on the simplex. In one dimension the uniform splits most easily among log-concave
  laws (in the gap statistic's k-means sense; measured in ``docs/validation.md``), so a
  Gaussian, logistic, exponential or uniform cluster is split at most as often as the box; in
  J dimensions a uniform simplex splits into its corners more easily than the box, so the
  p-value is the larger of the two.
* ``"gaussian"``: the scores are whitened, and the references are whitened samples of
  N(0, I_J): for one Gaussian sample (any mean and covariance) the whitened scores are,
  given the covariance, distributed exactly as the references' (the argument of
  :func:`~energystats.cluster_test`), so the test is exact.

Beside the p-value, the test says into how many clusters the points split best: the gap
statistic's choice against its references (the smallest k >= 2 with
gap(k) >= gap(k + 1) - s(k + 1), Tibshirani et al. 2001, on the J-dimensional drops; for the
unimodal null the smaller of the box's and the simplex's choices).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy.stats import chi2

from .._frontdoor import front_door
from .._resample import null_distribution, pvalue
from .._semimetric import Scaling, resolve_semimetric
from .._validation import check_positive_int

__all__ = ["MAX_AXES", "TEST_POINTS", "NodeResult", "node_test", "signal_dimension"]

#: Level of each step of the sequential sphericity test that picks the signal dimension.
SPHERICITY_LEVEL = 0.05
#: The most principal axes the statistic looks at.
MAX_AXES = 10
#: Points tested: a larger node is tested on a random subset of this many (exact all the same:
#: the references have the subset's size).
TEST_POINTS = 500
#: Candidates of each centre of the greedy k-means++ seeding, and most Lloyd iterations.
CANDIDATES = 3
KMEANS_ITER = 20


def _check_eigenvalues(eigenvalues) -> np.ndarray:
    try:
        lam = np.asarray(eigenvalues, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("`eigenvalues` must be an array of numbers.") from None
    if lam.ndim != 1 or lam.size == 0:
        raise ValueError(f"`eigenvalues` must be a non-empty 1-D array, got shape {lam.shape}.")
    if not np.isfinite(lam).all() or (lam < 0).any():
        raise ValueError("`eigenvalues` must be finite and non-negative (a covariance matrix's).")
    if (np.diff(lam) > 0).any():
        raise ValueError(
            "`eigenvalues` must be in non-increasing order (the leading direction first)."
        )
    return lam


@front_door()
def signal_dimension(
    eigenvalues: np.ndarray, n_samples: int, *, minimum: int = 1, alpha: float = SPHERICITY_LEVEL
) -> int:
    r"""J: how many leading principal directions stand out from a spherical noise floor.

    For j = 0, 1, ..., d - 2, tests whether the last q = d - j eigenvalues of the sample
    covariance are equal (Lawley 1956; Anderson 1963), with the likelihood-ratio statistic
    and Lawley's correction,

    .. math::

        & \Big(n - 1 - j - \frac{2q^2 + q + 2}{6q}
        + \sum_{i \le j} \frac{\bar l^2}{(l_i - \bar l)^2}\Big) \\
        & \times \Big(q \log \bar l - \sum_{i > j} \log l_i\Big)
        \sim \chi^2_{(q + 2)(q - 1)/2},

    :math:`\bar l` the mean of the last q, each step at level ``alpha``. J is the first j not
    rejected, at least ``minimum``; when every step rejects, no noise floor is visible
    (e.g. d = 2) and J = d. J = 0 (with ``minimum=0``) says that the covariance is spherical:
    no direction stands out. J depends on the data only through the sample covariance.

    Parameters
    ----------
    eigenvalues : array_like of shape (d,)
        Eigenvalues of the sample covariance, non-negative, in non-increasing order.
    n_samples : int
        Sample size n, at least 2.
    minimum : int, default=1
        Smallest J returned (J is at most d); 0 lets J = 0 say that no direction stands out.
    alpha : float, default=0.05
        Level of each sphericity test, in (0, 1).

    Returns
    -------
    int
    """
    lam = _check_eigenvalues(eigenvalues)
    d = lam.size
    n = check_positive_int(n_samples, "n_samples", minimum=2)
    minimum = check_positive_int(minimum, "minimum", minimum=0)
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0.0 < alpha < 1.0:
        raise ValueError(f"`alpha` must be a number in (0, 1), got {alpha!r}.")
    for j in range(d - 1):
        q = d - j
        tail = lam[j:]
        mean = tail.mean()
        with np.errstate(divide="ignore"):
            correction = np.sum((mean / (lam[:j] - mean)) ** 2)
        factor = n - 1 - j - (2 * q * q + q + 2) / (6 * q) + correction
        statistic = factor * (q * np.log(mean) - np.log(tail).sum())
        if factor <= 0 or statistic <= chi2.ppf(1 - alpha, (q + 2) * (q - 1) / 2):
            return int(min(d, max(j, minimum)))
    return d


def _assign(Z: np.ndarray, C: np.ndarray) -> np.ndarray:
    """The nearest of the centres C (b, k, J) to each point of Z (b, m, J): labels (b, m)."""
    D = Z @ (-2.0 * C.transpose(0, 2, 1))
    D += (C**2).sum(-1)[:, None, :]
    return D.argmin(-1)


def _lloyd(Z: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Lloyd's iterations from the centres C until no label changes (at most KMEANS_ITER);
    each sample's iterations are its own, so a sample's fit does not depend on its batch.
    Returns the within sum of squares of each sample."""
    k = C.shape[1]
    Z1 = np.concatenate([Z, np.ones(Z.shape[:2] + (1,))], axis=2)  # a last column counts
    labels = np.full(Z.shape[:2], -1)
    active = np.arange(Z.shape[0])
    for _ in range(KMEANS_ITER):
        new = _assign(Z[active], C[active])
        moved = (new != labels[active]).any(1)
        labels[active] = new
        active, new = active[moved], new[moved]
        if active.size == 0:
            break
        sums = np.eye(k)[new].transpose(0, 2, 1) @ Z1[active]  # each centre's sum and count
        count = sums[:, :, -1:]
        C[active] = np.where(count > 0, sums[:, :, :-1] / np.maximum(count, 1.0), C[active])
    labels = _assign(Z, C)
    return ((Z - np.take_along_axis(C, labels[..., None], 1)) ** 2).sum((1, 2))


def _lloyd_1d(x: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Lloyd's iterations in one dimension, on sorted values x (b, m) from the centres C
    (b, k): a cluster is an interval of the sorted values (cut at the midpoints of the
    centres), its sum read from prefix sums. Returns the within sum of squares."""
    b, m = x.shape
    s1 = np.hstack([np.zeros((b, 1)), np.cumsum(x, 1)])
    edges = np.zeros((b, C.shape[1] + 1), dtype=np.intp)
    active = np.arange(b)
    for _ in range(KMEANS_ITER):
        C[active] = np.sort(C[active], 1)
        cuts = (C[active, 1:] + C[active, :-1]) / 2.0
        new = np.array([np.searchsorted(x[i], cut) for i, cut in zip(active, cuts)])
        new = np.hstack([np.zeros((active.size, 1), np.intp), new, np.full((active.size, 1), m)])
        moved = (new != edges[active]).any(1)
        edges[active] = new
        active = active[moved]
        if active.size == 0:
            break
        e = edges[active]
        count = np.diff(e, axis=1)
        sums = np.diff(s1[active[:, None], e], axis=1)
        C[active] = np.where(count > 0, sums / np.maximum(count, 1), C[active])
    labels = (np.arange(m)[None, :, None] >= edges[:, None, 1:-1]).sum(-1)
    return ((x - np.take_along_axis(C, labels, 1)) ** 2).sum(1)


def _kmeans_w(Z: np.ndarray, k: int, draws: np.ndarray) -> np.ndarray:
    """The within sum of squares of k-means on each sample of Z (b, m, J): greedy k-means++
    seeding (Arthur & Vassilvitskii 2007; each centre the best of ``CANDIDATES`` drawn with
    probability proportional to the squared distance, as scikit-learn's), then Lloyd's
    iterations (in one dimension on the sorted values). ``draws`` (b, k, CANDIDATES) are the
    uniform numbers of the seeding, drawn beforehand so that a sample's fit does not depend
    on the batch it is in."""
    b, m, J = Z.shape
    rows = np.arange(b)
    if J == 1:
        Z = np.take_along_axis(Z, np.argsort(Z[:, :, :1], axis=1, kind="stable"), 1)
    C = np.empty((b, k, J))
    C[:, 0] = Z[rows, np.minimum((draws[:, 0, 0] * m).astype(np.intp), m - 1)]
    D = ((Z - C[:, :1]) ** 2).sum(-1)
    for j in range(1, k):
        cum = np.cumsum(D, axis=1)
        picks = (cum[:, None, :] < (draws[:, j] * cum[:, -1:])[:, :, None]).sum(-1)
        candidates = Z[rows[:, None], np.minimum(picks, m - 1)]  # (b, CANDIDATES, J)
        near = np.minimum(D[:, None, :], ((Z[:, None] - candidates[:, :, None]) ** 2).sum(-1))
        best = near.sum(-1).argmin(1)  # the candidate that leaves the least
        C[:, j] = candidates[rows, best]
        D = near[rows, best]
    return _lloyd_1d(Z[:, :, 0], C[:, :, 0]) if J == 1 else _lloyd(Z, C)


def _drops(Z: np.ndarray, K: int, draws: np.ndarray) -> np.ndarray:
    """D_k = log W_1 - log W_k, k = 2..K, of each sample of Z (b, m, J) (W_k floored at a
    relative 1e-300 of W_1: fewer distinct points than k leave nothing within)."""
    W1 = ((Z - Z.mean(1, keepdims=True)) ** 2).sum((1, 2))
    Wk = np.column_stack([_kmeans_w(Z, k, draws[:, :k]) for k in range(2, K + 1)])
    return np.log(W1)[:, None] - np.log(np.maximum(Wk, 1e-300 * W1[:, None]))


def _features(P: np.ndarray, K: int, draws: np.ndarray) -> np.ndarray:
    """The drops of the statistic on principal scores P (b, m, J), the first axis first: in J
    dimensions, then (J > 1) on the first axis alone; shape (b, K - 1) or (b, 2 (K - 1))."""
    D = _drops(P, K, draws)
    return D if P.shape[2] == 1 else np.hstack([D, _drops(P[:, :, :1], K, draws)])


def _principal(Z: np.ndarray, whiten: bool) -> np.ndarray:
    """The principal scores U D of each centred sample Z (b, m, J) = U D V', or its whitened
    scores sqrt(m - 1) U."""
    U, s, _ = np.linalg.svd(Z - Z.mean(1, keepdims=True), full_matrices=False)
    return U * (np.sqrt(Z.shape[1] - 1.0) if whiten else s[:, None, :])


def _reference(kind: str, gen: np.random.Generator, m: int, J: int) -> np.ndarray:
    """One sample of m points in J dimensions: uniform on the box or the regular simplex,
    with identity covariance, or N(0, I_J)."""
    if kind == "gaussian":
        return gen.standard_normal((m, J))
    if kind == "box":
        return gen.uniform(-np.sqrt(3.0), np.sqrt(3.0), size=(m, J))
    weights = gen.dirichlet(np.ones(J + 1), size=m)
    vertices = np.eye(J + 1) - 1.0 / (J + 1)  # a regular simplex in the plane sum = 0 ...
    basis = np.linalg.svd(vertices)[2][:J]  # ... written in J coordinates
    # identity covariance: the uniform law on the standard simplex has covariance
    # (I - 11'/(J + 1)) / ((J + 1)(J + 2)) on that plane
    return weights @ (vertices @ basis.T) * np.sqrt((J + 1) * (J + 2))


def _reference_features(streams: list, kind: str, scale: np.ndarray, m: int, K: int):
    """The features (b, ...) of one block of references, each drawn from its own stream (its
    points, then the uniform numbers of its k-means++ seedings): a reference does not depend
    on the block it is in."""
    J = scale.size
    R = np.empty((len(streams), m, J))
    draws = np.empty((len(streams), K, CANDIDATES))
    for i, stream in enumerate(streams):
        R[i] = _reference(kind, stream, m, J) * scale
        draws[i] = stream.random((K, CANDIDATES))
    return _features(_principal(R, kind == "gaussian"), K, draws)


def statistic_and_pvalue(features: np.ndarray, null: np.ndarray):
    """The statistic, the largest of the features standardised by their mean and standard
    deviation over the data and its B references, its Monte Carlo p-value and the
    references' statistics."""
    D = np.vstack([features[None], null])
    spread = D.std(0)
    t = ((D - D.mean(0)) / np.where(spread > 0, spread, 1.0)).max(1)
    # t is a max of standardised drops, of order 1: rounding at the scale of 1
    return float(t[0]), pvalue(t[0], t[1:], scale=1.0, what="the node statistic"), t[1:]


def _against(kind: str, scores: np.ndarray, K: int, B: int, gen, progress: bool | None):
    """The statistic of the scores (m, J), its p-value against B references of ``kind``, the
    references' statistics, and the gap statistic's k on the way."""
    m, J = scores.shape
    data_gen, ref_gen = gen.spawn(2)
    data = _principal(scores[None], whiten=True) if kind == "gaussian" else scores[None]
    features = _features(data, K, data_gen.random((1, K, CANDIDATES)))[0]
    scale = np.ones(J) if kind == "gaussian" else scores.std(0)
    evaluate = functools.partial(_reference_features, kind=kind, scale=scale, m=m, K=K)
    # per reference a stream (spawned in order): its points and scores, k-means' distances
    null = null_distribution(evaluate, ref_gen.spawn, B, 8.0 * m * (2 * K + 3 * J + 4),
                             progress, "reference clusters")
    statistic, p, t_null = statistic_and_pvalue(features, null)
    gap = features[: K - 1] - null[:, : K - 1].mean(0)
    se = null[:, : K - 1].std(0) * np.sqrt(1.0 + 1.0 / B)
    k_split = next((k for k in range(2, K) if gap[k - 2] >= gap[k - 1] - se[k - 1]), K)
    return statistic, p, t_null, k_split


def _unround(points: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """The points with each rounded coordinate spread uniformly over its rounding interval:
    a coordinate whose values are tied and lie on a grid (at least three distinct values, each
    a whole number of steps h from the smallest, h the smallest gap) reads as the rounding of
    a continuous law (ratings, counts), whose lattice k-means would otherwise split. A
    log-concave law stays log-concave (its convolution with a uniform)."""
    out = np.array(points, dtype=float)
    for j, column in enumerate(out.T):
        values = np.unique(column)
        if 3 <= values.size < column.size:
            h = np.diff(values).min()
            steps = (values - values[0]) / h
            if np.allclose(steps, np.round(steps), rtol=0.0, atol=1e-6):
                out[:, j] += gen.uniform(-0.5, 0.5, column.size) * h
    return out


def _scores(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points' scores on their J principal axes (m, J), and the sample covariance's
    eigenvalues (J = 0 for constant points). Points near the ends of float64 are first divided
    by a power of two (exact), so that no square overflows or underflows."""
    centred = points - points.mean(axis=0)
    # equal points: their centred values are the rounding of the mean, not a spread
    if np.ptp(points, axis=0).max() == 0:
        return centred[:, :0], np.zeros(points.shape[1])
    centred = Scaling.for_data(centred, resolve_semimetric()).data(centred)
    U, s, _ = np.linalg.svd(centred, full_matrices=False)
    lam = s**2 / (points.shape[0] - 1.0)
    rank = int(np.sum(lam > lam[0] * 1e-12))
    # no axis standing out of a spherical floor (J = 0): every axis, as clusters arranged
    # symmetrically leave the covariance spherical
    J = signal_dimension(lam[:rank], points.shape[0], minimum=0) if rank > 1 else rank
    J = min(J or rank, MAX_AXES)
    return U[:, :J] * s[:J], lam


@dataclass(frozen=True)
class NodeResult:
    """The test of one set of points (:func:`node_test`).

    Attributes
    ----------
    statistic, pvalue : float
    null : ndarray of shape (B,)
        The references' statistics (for the unimodal null, of the reference with the larger
        p-value).
    components : int
        J, the principal axes looked at (0 for constant points).
    k_split : int
        The gap statistic's k (>= 2; 1 for constant points).
    eigenvalues : ndarray
        The sample covariance's eigenvalues, largest first.
    """

    statistic: float
    pvalue: float
    null: np.ndarray
    components: int
    k_split: int
    eigenvalues: np.ndarray


def node_test(
    points: np.ndarray, null: str, n_resamples: int, K: int, gen, progress: bool | None = False
) -> NodeResult:
    """Test whether ``points`` (m x d) are one cluster, with the drops of k = 2..K, against
    ``null`` ("unimodal" or "gaussian"), as the module docstring says (``progress``: a bar
    per reference law)."""
    sub_gen, *kind_gens = gen.spawn(3)
    m = points.shape[0]
    if m > TEST_POINTS:
        points = points[np.sort(sub_gen.choice(m, TEST_POINTS, replace=False))]
    scores, lam = _scores(_unround(points, sub_gen))
    J = scores.shape[1]
    K = min(K, points.shape[0] - 1)
    if J == 0 or K < 2:  # every point the same, or too few to split
        return NodeResult(0.0, 1.0, np.zeros(n_resamples), J, 1, lam)
    kinds = ("gaussian",) if null == "gaussian" else ("box",) if J == 1 else ("box", "simplex")
    found = [
        _against(kind, scores, K, n_resamples, g, progress) for kind, g in zip(kinds, kind_gens)
    ]
    statistic, p, t_null, _ = max(found, key=lambda item: item[1])  # the least favourable
    return NodeResult(statistic, p, t_null, J, min(item[3] for item in found), lam)
