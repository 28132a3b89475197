"""The energy distance of two samples (V- or U-statistic, weighted, exact or projected).

References
----------
G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-Groups via Hartigan's
Method", IEEE TPAMI (2020), eq. (1), (4), (13).
"""

from __future__ import annotations

import numpy as np

from .._frontdoor import front_door
from .._parallel import check_n_jobs
from .._random import as_generator
from .._scale.projection import N_PROJECTIONS, check_projection, random_directions
from .._semimetric import MetricLike, Scaling, prepare_points, resolve_semimetric
from .._validation import as_weights, weight_scale
from ._disco import decompose
from ._sums import block_sums

__all__ = ["energy_distance"]


def _check_same_features(x: np.ndarray, y: np.ndarray) -> None:
    if x.shape[1] != y.shape[1]:
        raise ValueError(
            f"`x` and `y` must have the same number of features, got {x.shape[1]} and {y.shape[1]}."
        )


@front_door(("x", "x_weights"), ("y", "y_weights"), propagate=True)
def energy_distance(
    x,
    y,
    *,
    exponent=1.0,
    metric: MetricLike = "euclidean",
    sigma=None,
    x_weights=None,
    y_weights=None,
    n_jobs=None,
    approximation: str | None = None,
    n_projections: int = N_PROJECTIONS,
    rng=None,
    estimator: str = "V",
    nan_policy: str = "raise",
) -> float:
    r"""Energy distance between two samples (V-statistic, or the unbiased U-statistic).

    .. math::

        \mathcal E(X, Y) = 2 g(X, Y) - g(X, X) - g(Y, Y),

    with g the (weighted) mean of the semimetric over pairs, França et al.
    eq. (1)/(4), weighted as eq. (13). With ``estimator="U"`` the two
    within-sample means leave out the pairs of a point with itself:

    .. math::

        \mathcal E_U(X, Y) = {}& \frac{2}{n_1 n_2} \sum_{i, j} \rho(x_i, y_j)
        - \frac{1}{n_1 (n_1 - 1)} \sum_{i \ne j} \rho(x_i, x_j) \\
        & - \frac{1}{n_2 (n_2 - 1)} \sum_{i \ne j} \rho(y_i, y_j),

    the U-statistic of ``dcor.energy_distance(x, y,
    estimation_stat="u_statistic")``: unbiased for
    :math:`2E\rho(X, Y) - E\rho(X, X') - E\rho(Y, Y')`, and negative for
    some samples of equal distributions.

    Parameters
    ----------
    x : array_like of shape (n1, d) or (n1,)
        First sample; a 1-D array is n1 points on the line.
    y : array_like of shape (n2, d) or (n2,)
        Second sample.
    exponent : float, default=1.0
        alpha in (0, 2] of :math:`\|x - y\|^\alpha` (eq. 52).
    metric : {"euclidean", "exponential", "gaussian"} or callable, default="euclidean"
        See :func:`pairwise_semimetric`. For a precomputed matrix use
        :func:`dispersion`, whose ``pairwise`` field holds every pair.
    sigma : float, default=None
        Scale of ``"exponential"`` and ``"gaussian"``.
    x_weights, y_weights : array_like, default=None
        Non-negative point weights of each sample; a point of weight 0
        counts as removed.
    n_jobs : int, default=None
        joblib's ``n_jobs``: bands of the distance matrix as joblib tasks (on
        a Dask cluster inside ``joblib.parallel_config(backend="dask")``).
    approximation : {None, "projection"}, default=None
        ``"projection"``: the unbiased random-projection estimate of E (Euclidean
        distance, exponent 1; see :func:`energy_test`), in O(L n log n).
    n_projections : int, default=200
        L, the number of random directions, for ``approximation="projection"``: the one
        default of every projected statistic (``N_PROJECTIONS``; measured level, power and
        time of both families in the validation page, "How many directions").
    rng
        It draws the directions of ``approximation="projection"``.
    estimator : {"V", "U"}, default="V"
        ``"V"``: the V-statistic (every pair, a point with itself included);
        ``"U"``: the unbiased U-statistic above. Each sample needs at least two
        points for ``"U"``, which takes no weights (a weighted U-statistic has
        no single definition: frequency and probability weights give
        different denominators).

    Returns
    -------
    float
        :math:`\mathcal E \ge 0` for semimetrics of negative type (``"V"``);
        :math:`\mathcal E_U` (``"U"``) can be negative.

    Notes
    -----
    Scalings differ between packages:

    * R ``energy::edist(rbind(x, y), c(n1, n2))`` returns
      :math:`\frac{n_1 n_2}{n_1 + n_2} \mathcal E`, a test statistic;
    * ``scipy.stats.energy_distance(u, v)`` (one dimension, exponent 1)
      returns :math:`\sqrt{\mathcal E}`.

    Data near the ends of float64 (1e-300, 1e300) are rescaled by a power
    of two, exactly; a distance that cannot be represented raises
    ``OverflowError`` (``ValueError`` on underflow) rather than returning
    inf or 0.

    Time O((n1 + n2)^2 d), memory O(n1 + n2): one streamed pass of the
    pairwise operator over tiles of the distance matrix, which is never held
    whole (one-dimensional data with exponent 1: O(n log n) by sorting).

    Examples
    --------
    >>> import energystats as es
    >>> es.energy_distance([0.0, 1.0], [2.0, 3.0])
    3.0
    >>> es.energy_distance([[0, 0], [1, 1]], [[0, 0], [1, 1]])
    0.0
    >>> es.energy_distance([0.0, 1.0], [2.0, 3.0], estimator="U")  # 2 * 2 - 1 - 1
    2.0
    """
    if estimator not in ("V", "U"):
        raise ValueError(f"`estimator` must be 'V' or 'U', got {estimator!r}.")
    if estimator == "U" and (x_weights is not None or y_weights is not None):
        raise ValueError(
            "`estimator`='U' takes no `x_weights` or `y_weights`: use the V-statistic for weighted "
            "samples."
        )
    sm = resolve_semimetric(metric, exponent, sigma)
    if sm.precomputed:
        raise ValueError(
            "`metric`='precomputed' is not available for two separate samples; "
            "use dispersion(D, labels, metric='precomputed').pairwise."
        )
    x = prepare_points(x, sm, "x")
    y = prepare_points(y, sm, "y")
    _check_same_features(x, y)
    n1, n2 = x.shape[0], y.shape[0]
    if estimator == "U":
        for name, size in (("x", n1), ("y", n2)):
            if size < 2:
                raise ValueError(
                    f"`{name}` needs at least two points for `estimator`='U', got {size}."
                )
    # E is a difference of weighted means: each sample's weights are scale-free
    wx, _ = weight_scale(as_weights(x_weights, n1, "x_weights"))
    wy, _ = weight_scale(as_weights(y_weights, n2, "y_weights"))
    if wx is None and wy is None:
        w = None
        s = np.array([n1, n2], dtype=float)
    else:
        wx = np.ones(n1) if wx is None else wx
        wy = np.ones(n2) if wy is None else wy
        w = np.concatenate([wx, wy])
        s = np.array([wx.sum(), wy.sum()])
    codes = np.repeat(np.array([0, 1], dtype=np.int8), [n1, n2])
    pooled = np.vstack([x, y])
    L = check_projection(approximation, n_projections, {"": sm}, pooled.shape[1])
    scaling = Scaling.for_data(pooled, sm)
    gen = as_generator(rng)
    directions = None if L is None else random_directions(L, pooled.shape[1], gen)
    sums = block_sums(scaling.data(pooled), scaling.semimetric(sm), directions=directions,
                      n_jobs=check_n_jobs(n_jobs))
    M = sums.of(codes[None], 2, w)[0][0]
    if estimator == "U":  # the diagonal of D is 0: only the denominators change
        value = (
            2.0 * M[0, 1] / (n1 * n2) - M[0, 0] / (n1 * (n1 - 1.0)) - M[1, 1] / (n2 * (n2 - 1.0))
        )
    else:
        value = decompose(M, s)[4][0, 1]
    return scaling.result(float(value), "the energy distance")
