r"""The node tests of :func:`~energystats.choose_k`: is this node more than one cluster?

The statistic. The node's points are centred and projected on their J leading principal axes
(J from :func:`~energystats.signal_dimension`: the axes that stand out from a spherical noise
floor, at least one), where clusters put their variance; noise axes would only dilute it. On
these scores Z, for k = 2..K, the drop of the within sum of squares of k-means,

.. math:: D_k = \log W_1(Z) - \log W_k(Z),

is computed, as the gap statistic computes it (Tibshirani, Walther & Hastie 2001); the same
procedure (k-means++ starts, then Lloyd's iterations) is applied to B reference samples of the
same size. Each :math:`D_k` is standardised by its mean and standard deviation over the B + 1
samples, and the statistic is the largest standardised drop, :math:`t = \max_k z_k`: large when
some k splits the node far better than a reference of one cluster is split. Its p-value is
(1 + #{references with t* >= t}) / (B + 1): the data and the references are treated alike, so
the p-value is exact whenever the node's scores are distributed as a reference.

The references (what "one cluster" means):

* ``"unimodal"``: uniform laws with the node's principal axes and variances: on the box, and
  (J >= 2) on the simplex. Among log-concave laws in one dimension the uniform splits most
  easily (in the gap statistic's k-means sense; our measurements in ``docs/validation.md``), so a
  Gaussian, logistic, exponential or uniform cluster is split at most as often as the box; in
  J dimensions a uniform simplex splits into its corners more easily than the box, so the
  p-value is the larger of the two.
* ``"gaussian"``: the scores are whitened, and the references are whitened samples of
  N(0, I_J): for one Gaussian sample (any mean and covariance) the whitened scores are,
  given the covariance, distributed exactly as the references' (the argument of
  :func:`~energystats.cluster_test`), so the test is exact.

The node is split (when significant) into k̃ clusters by ``KGroups(k̃)`` on all its points,
k̃ the gap statistic's choice on the node against the box reference (the smallest k with
gap(k) >= gap(k + 1) - s(k + 1), at least 2).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from .._resampling import Draws, Options, null_distribution, pvalue
from .cluster_test import signal_dimension
from .kgroups import KGroups

__all__ = ["MAX_SPLIT", "TEST_POINTS", "node_test"]

#: The largest k of the node statistic, and the most children of a node.
MAX_SPLIT = 4
#: A node with more points is tested on a random subset of this many (exact all the same: the
#: references have the subset's size); its split uses all its points.
TEST_POINTS = 500
#: Starts and most iterations of the k-means fits of the statistic.
KMEANS_STARTS = 2
KMEANS_ITER = 30


def _distances(Z: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Squared distances (b, m, k) of the points Z (b, m, J) to the centres C (b, k, J)."""
    out = np.zeros(Z.shape[:2] + C.shape[1:2])
    for j in range(Z.shape[2]):  # J is small: no (b, m, k, J) temporary
        out += (Z[:, :, j, None] - C[:, None, :, j]) ** 2
    return out


def _lloyd(Z: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Lloyd's iterations from the centres C until no label changes (at most KMEANS_ITER);
    each sample's iterations are its own, so a sample's fit does not depend on its batch.
    Returns the within sum of squares of each sample."""
    b, m, J = Z.shape
    k = C.shape[1]
    labels = np.full((b, m), -1)
    active = np.arange(b)
    for _ in range(KMEANS_ITER):
        new = _distances(Z[active], C[active]).argmin(-1)
        moved = (new != labels[active]).any(1)
        labels[active] = new
        active, new = active[moved], new[moved]
        if active.size == 0:
            break
        flat = (np.arange(active.size)[:, None] * k + new).ravel()
        count = np.bincount(flat, minlength=active.size * k).reshape(active.size, k)
        for j in range(J):
            sums = np.bincount(flat, weights=Z[active, :, j].ravel(), minlength=active.size * k)
            sums = sums.reshape(active.size, k)
            C[active, :, j] = np.where(count > 0, sums / np.maximum(count, 1), C[active, :, j])
    return _distances(Z, C).min(-1).sum(1)


def _kmeans_w(Z: np.ndarray, k: int, draws: np.ndarray) -> np.ndarray:
    """The within sum of squares of k-means on each sample of Z (b, m, J): the best of the
    starts, each k-means++ seeding (Arthur & Vassilvitskii 2007) then Lloyd's iterations.
    ``draws`` (b, starts, k) are the uniform numbers of the seedings, drawn beforehand so that
    a sample's fit does not depend on the batch it is in."""
    b, m, J = Z.shape
    rows = np.arange(b)
    best = np.full(b, np.inf)
    for start in range(draws.shape[1]):
        u = draws[:, start]
        C = np.empty((b, k, J))
        C[:, 0] = Z[rows, np.minimum((u[:, 0] * m).astype(np.intp), m - 1)]
        D = ((Z - C[:, :1]) ** 2).sum(-1)
        for j in range(1, k):  # the next centre with probability proportional to D
            cum = np.cumsum(D, axis=1)
            pick = np.minimum((cum < (u[:, j] * cum[:, -1])[:, None]).sum(1), m - 1)
            C[:, j] = Z[rows, pick]
            D = np.minimum(D, ((Z - C[:, j : j + 1]) ** 2).sum(-1))
        best = np.minimum(best, _lloyd(Z, C))
    return best


def _drops(Z: np.ndarray, K: int, draws: np.ndarray) -> np.ndarray:
    """D_k = log W_1 - log W_k, k = 2..K, of each sample of Z (b, m, J) (W_k floored at a
    relative 1e-300 of W_1: fewer distinct points than k leave nothing within)."""
    W1 = ((Z - Z.mean(1, keepdims=True)) ** 2).sum((1, 2))
    Wk = np.column_stack([_kmeans_w(Z, k, draws[:, :, :k]) for k in range(2, K + 1)])
    return np.log(W1)[:, None] - np.log(np.maximum(Wk, 1e-300 * W1[:, None]))


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


def _whitened(Z: np.ndarray) -> np.ndarray:
    """sqrt(m - 1) U of each centred sample Z (b, m, J) = U D V'."""
    Z = Z - Z.mean(1, keepdims=True)
    return np.linalg.svd(Z, full_matrices=False)[0] * np.sqrt(Z.shape[1] - 1.0)


def _reference_drops(streams: list, kind: str, scale: np.ndarray, m: int, K: int) -> np.ndarray:
    """The drops (b, K - 1) of one block of references, each drawn from its own stream (its
    points, then the uniform numbers of its k-means++ seedings): a reference does not depend
    on the block it is in."""
    J = scale.size
    R = np.empty((len(streams), m, J))
    draws = np.empty((len(streams), KMEANS_STARTS, K))
    for i, stream in enumerate(streams):
        R[i] = _reference(kind, stream, m, J) * scale
        draws[i] = stream.random((KMEANS_STARTS, K))
    return _drops(_whitened(R) if kind == "gaussian" else R, K, draws)


def statistic_and_pvalue(drops: np.ndarray, null: np.ndarray) -> tuple[float, float]:
    """The node statistic, max over k of the drop D_k standardised by the mean and standard
    deviation of D_k over the data and its B references, and its Monte Carlo p-value."""
    D = np.vstack([drops[None], null])
    spread = D.std(0)
    z = (D - D.mean(0)) / np.where(spread > 0, spread, 1.0)
    t = z.max(1)
    # t is a max of standardised drops, of order 1: rounding at the scale of 1
    return float(t[0]), pvalue(t[0], t[1:], scale=1.0, what="the node statistic")


def _against(kind: str, scores: np.ndarray, K: int, B: int, gen: np.random.Generator):
    """The statistic t of the scores (m, J) and its p-value against B references of ``kind``,
    and the gap statistic's k̃ on the way: one node's Monte Carlo test, on the engine."""
    m, J = scores.shape
    data_gen, ref_gen = gen.spawn(2)
    data = scores if kind != "gaussian" else _whitened(scores[None])[0]
    scale = scores.std(0) if kind != "gaussian" else np.ones(J)
    drops = _drops(data[None], K, data_gen.random((1, KMEANS_STARTS, K)))[0]
    evaluate = functools.partial(_reference_drops, kind=kind, scale=scale, m=m, K=K)
    # per reference: its points, distances and labels of k-means
    engine = Draws(
        lambda g, size: g.spawn(size),
        evaluate,
        item_bytes=8 * m * (3 * K + 2 * J + 4),
        what=f"a node test of choose_k (m = {m})",
        desc="reference clusters",
    )
    null = null_distribution(engine, Options(B, progress=False), ref_gen).values
    statistic, p = statistic_and_pvalue(drops, null)
    gap, se = drops - null.mean(0), null.std(0) * np.sqrt(1.0 + 1.0 / B)
    k_split = next((i + 2 for i in range(K - 2) if gap[i] >= gap[i + 1] - se[i + 1]), K)
    return statistic, p, k_split


def _scores(points: np.ndarray) -> tuple[np.ndarray, int]:
    """The node's scores on its J leading principal axes (m, J), and J (0 for constant data).
    The points are first divided by a power of two (exact), so that no square overflows or
    underflows whatever their scale."""
    centred = points - points.mean(axis=0)
    top = np.max(np.abs(centred))
    # equal points: their centred values are the rounding of the mean, not a spread
    if not np.isfinite(top) or np.ptp(points, axis=0).max() == 0:
        return centred[:, :0], 0
    centred = np.ldexp(centred, -np.frexp(top)[1])
    U, s, _ = np.linalg.svd(centred, full_matrices=False)
    lam = s**2 / (points.shape[0] - 1.0)
    rank = int(np.sum(lam > lam[0] * 1e-12))
    J = 1 if rank == 1 else signal_dimension(lam[:rank], points.shape[0], minimum=1)
    return U[:, :J] * s[:J], J


def node_test(
    points: np.ndarray, null: str, n_resamples: int, room: int | None, gen, split_options: dict
):
    """Test one node (its points, m x d) against one cluster, as the module docstring says.

    Returns (fields of the node's row, p-value, children maker): ``children(indices)`` ->
    the node's ``indices`` split into k̃ groups by ``KGroups(k̃, **split_options)``."""
    sub_gen, test_gen, box_gen, split_gen = gen.spawn(4)
    m = points.shape[0]
    tested = (
        points
        if m <= TEST_POINTS
        else points[np.sort(sub_gen.choice(m, TEST_POINTS, replace=False))]
    )
    scores, J = _scores(tested)
    K = min(MAX_SPLIT, tested.shape[0] - 1, MAX_SPLIT if room is None else room)
    if J == 0:  # every point the same: nothing to split
        return {"statistic": 0.0, "components": 0, "k": 1}, 1.0, None
    if null == "gaussian":
        statistic, p, _ = _against("gaussian", scores, K, n_resamples, test_gen)
        _, _, k_split = _against("box", scores, K, n_resamples, box_gen)
    else:
        kinds = ("box",) if J == 1 else ("box", "simplex")
        found = [
            _against(kind, scores, K, n_resamples, g) for kind, g in zip(kinds, (box_gen, test_gen))
        ]
        statistic, p, _ = max(found, key=lambda item: item[1])  # the least favourable reference
        k_split = min(item[2] for item in found)

    def children(indices: np.ndarray) -> list[np.ndarray]:
        with warnings.catch_warnings():  # a small node in many dimensions is expected here
            warnings.filterwarnings("ignore", message=".*more variables", category=UserWarning)
            labels = KGroups(k_split, random_state=split_gen, **split_options).fit(points).labels_
        return [indices[labels == code] for code in np.unique(labels)]

    return {"statistic": statistic, "components": J, "k": k_split}, p, children
