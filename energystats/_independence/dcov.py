r"""Distance covariance and distance correlation (Székely, Rizzo & Bakirov 2007), the
V-statistics of R's ``dcov``, ``dcor`` and ``DCOR`` and the unbiased U-statistics of
``dcovU``, ``bcdcor`` and ``dcovU_stats`` (Székely & Rizzo 2014).

With :math:`A` and :math:`B` the double-centred distance matrices of x and y (eq. 2.7),

.. math::

    \mathcal V_n^2(x, y) = \frac{1}{n^2} \sum_{i,j} A_{ij} B_{ij}, \qquad
    \mathcal R_n^2(x, y) = \frac{\mathcal V_n^2(x, y)}{\sqrt{\mathcal V_n^2(x)\,\mathcal V_n^2(y)}}

(eq. 2.8, 2.9); with the U-centred matrices :math:`\tilde A, \tilde B` instead,
:math:`(\tilde A \cdot \tilde B) = \frac{1}{n(n-3)} \sum_{i \ne j} \tilde A_{ij} \tilde B_{ij}`
is an unbiased estimator of :math:`\mathcal V^2(X, Y)` (Székely & Rizzo 2014, Prop. 1) and
:math:`\mathcal R^*_n = (\tilde A \cdot \tilde B) / \sqrt{(\tilde A \cdot \tilde A)(\tilde B
\cdot \tilde B)}` the bias-corrected squared distance correlation. Every sum comes from the
pairwise operators of x and y (:func:`~energystats._operator.centred_gram`): tiles, no n x n
array, or O(n log n) for two one-dimensional samples with exponent 1 (Huo & Székely 2016).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._frontdoor import door_of, front_door
from .._operator import CentredGram, PairwiseOperator, Repeated, centred_gram
from .._parallel import check_n_jobs
from .._random import as_generator, check_rng
from .._results import ResultMixin, _number
from .._semimetric import MetricLike, Scaling
from ._data import Variable, as_variables
from .projection import N_PROJECTIONS, ProjectedStatistics, check_variables, project

__all__ = [
    "DCovStatsResult",
    "dcor",
    "dcov",
    "dcov_stats",
    "gram_of",
    "operators",
    "stats_from_gram",
]

_ESTIMATORS = ("V", "U")
_ALGORITHMS = ("auto", "sorted", "pairwise")


@dataclass(frozen=True, repr=False)
class DCovStatsResult(ResultMixin):
    r"""Distance covariance, correlation and variances of two samples, from one pass.

    Every field is a squared quantity under both estimators (the V-statistic, or the
    unbiased U-statistic, which can be negative and has no square root), so that one name
    is one quantity; :meth:`r_names` gives the four numbers R prints.

    Attributes
    ----------
    dcov2 : float
        ``"V"``: :math:`\mathcal V_n^2(x, y)`, the V-statistic (R ``dcov(x, y)^2``).
        ``"U"``: the unbiased estimator of :math:`\mathcal V^2(X, Y)`, signed (R ``dcovU``).
    dcor2 : float
        ``"V"``: :math:`\mathcal R_n^2(x, y)` in [0, 1] (R ``dcor(x, y)^2``). ``"U"``: the
        bias-corrected squared distance correlation :math:`\mathcal R^*_n`, in [-1, 1]
        (R ``bcdcor``).
    dvar2_x, dvar2_y : float
        ``"V"``: :math:`\mathcal V_n^2(x)`, :math:`\mathcal V_n^2(y)` (the squares of R
        ``DCOR``'s ``dVarX``, ``dVarY``). ``"U"``: the unbiased estimators of
        :math:`\mathcal V^2(X)`, :math:`\mathcal V^2(Y)` (R ``dcovU_stats``' ``dVarXU``,
        ``dVarYU``).
    estimator : str
        ``"V"`` or ``"U"``.
    n_samples : int
        Sample size (after dropping rows with missing values).
    """

    dcov2: float
    dcor2: float
    dvar2_x: float
    dvar2_y: float
    estimator: str
    n_samples: int

    @property
    def _title(self) -> str:
        if self.estimator == "V":
            return "Distance covariance statistics, V-statistics (R DCOR)"
        return "Distance covariance statistics, unbiased U-statistics (R dcovU_stats)"

    def r_names(self) -> dict[str, float]:
        """The four numbers under the names R gives them: ``DCOR``'s ``dCov``, ``dCor``,
        ``dVarX``, ``dVarY`` (the square roots of the fields) for ``"V"``; ``dcovU_stats``'
        ``dCovU``, ``bcdcor``, ``dVarXU``, ``dVarYU`` (the fields) for ``"U"``."""
        values = (self.dcov2, self.dcor2, self.dvar2_x, self.dvar2_y)
        if self.estimator == "V":
            return dict(
                zip(("dCov", "dCor", "dVarX", "dVarY"), (float(np.sqrt(v)) for v in values))
            )
        return dict(zip(("dCovU", "bcdcor", "dVarXU", "dVarYU"), values))

    def _extra_lines(self) -> list[str]:
        return [
            "R's numbers: "
            + ", ".join(f"{name} = {_number(value)}" for name, value in self.r_names().items())
        ]


def _check_estimator(estimator, n: int) -> str:
    if estimator not in _ESTIMATORS:
        raise ValueError(f"`estimator` must be 'V' or 'U', got {estimator!r}.")
    if estimator == "U" and n < 4:
        raise ValueError(
            "`estimator`='U' needs at least 4 samples (the U-statistics divide by n(n - 3)), got "
            f"{n}."
        )
    return estimator


def _ratio(num: float, a: float, b: float) -> float:
    """num / sqrt(a b), 0 when a variable is constant (a b = 0), as R defines dCor then."""
    product = a * b
    return float(num / np.sqrt(product)) if product > 0 else 0.0


def operators(
    variables: list[Variable], algorithm: str = "auto", n_jobs=None
) -> list[PairwiseOperator]:
    """The pairwise operators of the variables (``algorithm`` as in :func:`dcov`)."""
    if algorithm not in _ALGORITHMS:
        raise ValueError(f"`algorithm` must be one of {_ALGORITHMS}, got {algorithm!r}.")
    one_dimensional = all(v.semimetric.is_abs_difference(v.data) for v in variables)
    if algorithm == "sorted" and not one_dimensional:
        raise ValueError(
            "`algorithm`='sorted' needs one-dimensional data with metric='euclidean' and "
            "exponent=1 for every variable."
        )
    ops = []
    for v in variables:  # each held matrix counts against the budget of the next ones
        use = Repeated(sum(op.nbytes for op in ops), sort=algorithm != "pairwise")
        ops.append(v.operator(use, n_jobs=n_jobs))
    return ops


def gram_of(
    variables: list[Variable], algorithm: str = "auto", n_jobs=None, unbiased: bool = True
) -> CentredGram:
    """The centred sums of the variables' operators (``algorithm`` as in :func:`dcov`; the U
    sums only with ``unbiased``)."""
    return centred_gram(operators(variables, algorithm, n_jobs), n_jobs=n_jobs, unbiased=unbiased)


@dataclass(frozen=True)
class _Squares:
    """dCov^2, dVar^2(x), dVar^2(y) of the rescaled data (V or U) and their log2 ``factors``;
    R's square roots are taken before scaling back, so that they stay representable where
    the squares are not."""

    xy: float
    xx: float
    yy: float
    estimator: str
    factors: tuple[float, float]
    n: int
    clip: bool = False  # a projected ratio of estimates can exceed 1

    def dcor2(self) -> float:
        ratio = _ratio(self.xy, self.xx, self.yy)
        return float(min(1.0, ratio)) if self.clip else ratio

    def result(self) -> DCovStatsResult:
        fx, fy = self.factors
        v = self.estimator == "V"
        return DCovStatsResult(
            dcov2=Scaling(0, fx + fy).result(float(self.xy), "dCov^2" if v else "dCovU"),
            dcor2=self.dcor2(),
            dvar2_x=Scaling(0, 2 * fx).result(float(self.xx), "dVar(x)^2" if v else "dVarXU"),
            dvar2_y=Scaling(0, 2 * fy).result(float(self.yy), "dVar(y)^2" if v else "dVarYU"),
            estimator=self.estimator,
            n_samples=self.n,
        )

    def r_value(self, name: str) -> float:
        """R's ``dcov`` or ``dcor`` (square roots, for "V"), ``dcovU`` or ``bcdcor`` ("U")."""
        fx, fy = self.factors
        if name == "dcor":
            return float(np.sqrt(self.dcor2())) if self.estimator == "V" else self.dcor2()
        if self.estimator == "V":
            return Scaling(0, (fx + fy) / 2).result(float(np.sqrt(self.xy)), "dCov")
        return Scaling(0, fx + fy).result(float(self.xy), "dCovU")


def _squares_of_gram(
    G: CentredGram, estimator: str, factors: tuple[float, float], k: int = 0, l: int = 1
) -> _Squares:
    n = G.n
    if estimator == "V":
        v = np.where(np.abs(G.V) <= G.V_error, 0.0, G.V) / n**2  # zero to working precision
        if v[k, l] < 0:  # V_n^2 >= 0 for distances of negative type (Lyons 2013, Ann. Probab. 41)
            raise ValueError(
                f"`x` and `y` give V_n^2 = {v[k, l]:.4g} < 0 beyond rounding: their distances are "
                "not of negative type (as D**3 or a non-Euclidean dissimilarity), for which "
                "distance covariance is not defined. Pass distances of negative type: Euclidean "
                "distances, or their powers in (0, 2]."
            )
        # squares: negative by rounding only
        return _Squares(max(v[k, l], 0.0), max(v[k, k], 0.0), max(v[l, l], 0.0), "V", factors, n)
    u = np.where(np.abs(G.U) <= G.U_error, 0.0, G.U) / (n * (n - 3))
    return _Squares(float(u[k, l]), float(u[k, k]), float(u[l, l]), "U", factors, n)


def _squares_of_projection(
    P: ProjectedStatistics, estimator: str, factors: tuple[float, float]
) -> _Squares:
    n = P.n
    norm = n**2 if estimator == "V" else n * (n - 3)
    xy, xx, yy = (
        scale * float(np.mean(values)) / norm
        for scale, values in (
            (P.scale_xy, P.V_xy if estimator == "V" else P.U_xy),
            (P.scale_xx, P.V_xx if estimator == "V" else P.U_xx),
            (P.scale_yy, P.V_yy if estimator == "V" else P.U_yy),
        )
    )
    if estimator == "V":
        xy, xx, yy = max(xy, 0.0), max(xx, 0.0), max(yy, 0.0)
    return _Squares(xy, xx, yy, estimator, factors, n, clip=True)


def stats_from_gram(
    G: CentredGram,
    estimator: str,
    factors: tuple[float, float] = (0.0, 0.0),
    k: int = 0,
    l: int = 1,
) -> DCovStatsResult:
    """The statistics of variables k and l (``x`` and ``y``) of the sums G; ``factors``: their
    log2 rescalings. A negative V-statistic beyond rounding is refused: the distances are
    not of negative type."""
    return _squares_of_gram(G, estimator, factors, k, l).result()


def stats_from_projection(
    P: ProjectedStatistics, estimator: str, factors: tuple[float, float]
) -> DCovStatsResult:
    """The statistics of projected sums (:mod:`.projection`): averages over the directions,
    times the sphere constants; dCor is clipped to 1 (a ratio of estimates can exceed it)."""
    return _squares_of_projection(P, estimator, factors).result()


def _pair(
    x, y, metric, exponent, sigma, estimator, algorithm, n_jobs, approximation=None,
    n_projections=N_PROJECTIONS, rng=None,
) -> _Squares:
    check_rng(rng)  # on every path; only the projections draw from it
    variables = as_variables({"x": x, "y": y}, metric, exponent, sigma)
    estimator = _check_estimator(estimator, variables[0].n)
    factors = tuple(v.scaling.log2_factor for v in variables)
    if approximation is None:
        return _squares_of_gram(
            gram_of(variables, algorithm, check_n_jobs(n_jobs), unbiased=estimator == "U"),
            estimator,
            factors,
        )
    if approximation != "projection":
        raise ValueError(f"`approximation` must be None or 'projection', got {approximation!r}.")
    K = check_variables(variables, n_projections)
    return _squares_of_projection(
        project(*variables, K, as_generator(rng), variances=True), estimator, factors
    )


_PARAMETERS = """
    Parameters
    ----------
    x : array_like of shape (n,) or (n, p), DataFrame, categorical, or (n, n) distances
        First sample, one observation per row. Strings or an unordered pandas categorical
        get the 0-1 distance (R's unordered factors); an ordered categorical is its codes.
    y : array_like of shape (n,) or (n, q), DataFrame, categorical, or (n, n) distances
        Second sample, the same number of rows.
    exponent : float or pair of floats, default=1.0
        alpha in (0, 2] of :math:`\\|x - x'\\|^\\alpha` (R's ``index``); 2 gives the squared
        product-moment covariances (no longer a characterisation of independence). A
        precomputed matrix is used as it is and refuses alpha != 1: R's ``dcov(Dx, Dy,
        index = a)`` of ``dist`` objects is ``dcov(Dx ** a, Dy ** a,
        metric="precomputed")``. Distances not of negative type (V_n^2 < 0
        beyond rounding, as for D**3) raise a ``ValueError``.
    metric : str, callable, or pair of them, default="euclidean"
        The semimetric of each sample (:func:`pairwise_semimetric`): ``"euclidean"``,
        ``"gaussian"`` or ``"exponential"`` (with ``sigma``; distance covariance is then
        the HSIC of the kernel, Sejdinovic et al. 2013), ``"discrete"`` (0-1),
        ``"precomputed"`` (a distance matrix, as R's ``dist`` objects), or a callable. A
        pair gives x and y different ones, e.g. ``("euclidean", "precomputed")``.
    sigma : float or pair of floats, default=None
        Scale of ``"gaussian"`` and ``"exponential"``.
    estimator : {"V", "U"}, default="V"
        ``"V"``: the V-statistics of Székely, Rizzo & Bakirov (2007); ``"U"``: the unbiased
        U-statistics of Székely & Rizzo (2014), n >= 4.
    algorithm : {"auto", "sorted", "pairwise"}, default="auto"
        ``"sorted"``: the O(n log n) algorithm for two one-dimensional samples with
        exponent 1 (Huo & Székely 2016), which ``"auto"`` picks for them; ``"pairwise"``:
        every pair through the pairwise operator, O(n^2).
    n_jobs : int, default=None
        joblib's ``n_jobs`` for the pass over the tiles (Dask inside
        ``joblib.parallel_config(backend="dask")``).
    approximation : {None, "projection"}, default=None
        ``"projection"``: the randomly projected distance covariance of Huang & Huo (2017),
        the average of ``n_projections`` one-dimensional statistics along random directions
        times the sphere constants (Euclidean distance, exponent 1): unbiased over the
        directions, O(K n log n) time and O(n) memory, for n past what O(n^2) allows. The
        distance variances use a second set of directions per sample; dCor is clipped to 1.
    n_projections : int, default=200
        K, the number of random directions, for ``approximation="projection"``: the one
        default of every projected statistic (``N_PROJECTIONS``; measured level, power and
        time of both families in the validation page, "How many directions").
    rng
        It draws the directions of ``approximation="projection"``.
"""


@front_door(("x", "y"), distances=("x", "y"), columns=("y",), propagate=True)
def dcov(
    x,
    y,
    *,
    exponent=1.0,
    metric: MetricLike | tuple = "euclidean",
    sigma=None,
    estimator: str = "V",
    algorithm: str = "auto",
    n_jobs=None,
    approximation: str | None = None,
    n_projections: int = N_PROJECTIONS,
    rng=None,
    nan_policy: str = "raise",
) -> float:
    r"""Distance covariance of two samples.

    ``estimator="V"`` gives :math:`\mathcal V_n(x, y)`, the square root of the
    V-statistic :math:`\mathcal V_n^2 = \frac{1}{n^2}\sum_{ij} A_{ij} B_{ij}` (Székely,
    Rizzo & Bakirov 2007, eq. 2.8): R ``dcov(x, y, index)``; squared, it is R
    ``dcov2d(x, y)`` for one-dimensional samples. ``estimator="U"`` gives the unbiased
    estimator of :math:`\mathcal V^2(X, Y)` from U-centred matrices (Székely & Rizzo
    2014), signed and not square-rooted: R ``dcovU(x, y)``, and ``dcov2d(x, y, "U")``.
    {parameters}
    Returns
    -------
    float

    Notes
    -----
    Time O(n^2 (p + q)) and memory O(n) beyond the data: two passes over tiles of the two
    distance matrices (the row sums, then the centred products), within
    ``working_memory``; O(n log n) time for two one-dimensional samples with exponent 1.
    The V-statistic is computed from the centred tiles (no cancellation between large
    sums); the O(n log n) path expands the centring, as R's ``dcov2d`` does.

    References
    ----------
    G. J. Székely, M. L. Rizzo and N. K. Bakirov, "Measuring and testing dependence by
    correlation of distances", Ann. Statist. 35 (2007). G. J. Székely and M. L. Rizzo,
    "Partial distance correlation with methods for dissimilarities", Ann. Statist. 42
    (2014). X. Huo and G. J. Székely, "Fast computing for distance covariance",
    Technometrics 58 (2016).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0]); y = x**2
    >>> round(es.dcov(x, y), 6)   # R: dcov(1:5, (1:5)^2)
    2.701111
    >>> round(es.dcov(x, y, estimator="U"), 6)   # R: dcovU(1:5, (1:5)^2)
    6.4
    """
    return _pair(
        x, y, metric, exponent, sigma, estimator, algorithm, n_jobs, approximation, n_projections,
        rng,
    ).r_value("dcov")


@front_door(("x", "y"), distances=("x", "y"), columns=("y",), propagate=True)
def dcor(
    x,
    y,
    *,
    exponent=1.0,
    metric: MetricLike | tuple = "euclidean",
    sigma=None,
    estimator: str = "V",
    algorithm: str = "auto",
    n_jobs=None,
    approximation: str | None = None,
    n_projections: int = N_PROJECTIONS,
    rng=None,
    nan_policy: str = "raise",
) -> float:
    r"""Distance correlation of two samples.

    ``estimator="V"`` gives :math:`\mathcal R_n(x, y) \in [0, 1]`, the square root of
    :math:`\mathcal V_n^2(x, y) / \sqrt{\mathcal V_n^2(x) \mathcal V_n^2(y)}` (Székely,
    Rizzo & Bakirov 2007, eq. 2.9): R ``dcor(x, y, index)``; squared, R ``dcor2d(x, y)``.
    ``estimator="U"`` gives the bias-corrected squared distance correlation of Székely &
    Rizzo (2014), which can be negative: R ``bcdcor(x, y)`` and ``dcor2d(x, y, "U")``.
    A constant sample gives 0, as in R.
    {parameters}
    Returns
    -------
    float

    Notes
    -----
    Time and memory as :func:`dcov` (one pass serves the three sums).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> round(es.dcor(x, x**2), 6), es.dcor(x, 3 * x - 1)   # R: dcor(1:5, (1:5)^2) 0.986916
    (0.986916, 1.0)
    """
    return _pair(
        x, y, metric, exponent, sigma, estimator, algorithm, n_jobs, approximation, n_projections,
        rng,
    ).r_value("dcor")


@front_door(("x", "y"), distances=("x", "y"), columns=("y",), names=("x", "y"))
def dcov_stats(
    x,
    y,
    *,
    exponent=1.0,
    metric: MetricLike | tuple = "euclidean",
    sigma=None,
    estimator: str = "V",
    algorithm: str = "auto",
    n_jobs=None,
    approximation: str | None = None,
    n_projections: int = N_PROJECTIONS,
    rng=None,
    nan_policy: str = "raise",
) -> DCovStatsResult:
    r"""Distance covariance, correlation and both distance variances at once.

    ``estimator="V"``: R ``DCOR(x, y, index)`` (``dCov``, ``dCor``, ``dVarX``,
    ``dVarY``); ``estimator="U"``: R ``dcovU_stats(Dx, Dy)`` (``dCovU``, ``bcdcor``,
    ``dVarXU``, ``dVarYU``).
    {parameters}
    Returns
    -------
    DCovStatsResult

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> res = es.dcov_stats(x, x**2)
    >>> {name: round(value, 6) for name, value in res.r_names().items()}   # R: DCOR(1:5, (1:5)^2)
    {'dCov': 2.701111, 'dCor': 0.986916, 'dVarX': 1.102724, 'dVarY': 6.792938}
    >>> round(res.dcov2, 6), round(res.dcor2, 6)   # their squares
    (7.296, 0.974003)
    """
    return _pair(
        x, y, metric, exponent, sigma, estimator, algorithm, n_jobs, approximation, n_projections,
        rng,
    ).result()


for _f in (dcov, dcor, dcov_stats):
    _f.__doc__ = door_of(_f).document(_f.__doc__.replace("{parameters}", _PARAMETERS))
del _f
