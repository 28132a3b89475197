"""The energy distance of two samples, and the DISCO decomposition T = S + W of grouped data
by one factor or several (R ``edist``, ``disco``; Rizzo & Székely 2010; França, Rizzo &
Vogelstein 2020, eq. 1-4, 13-18)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._frontdoor import front_door
from .._missing import read_r
from .._parallel import check_n_jobs
from .._random import as_generator
from .._resample import check_resamples
from .._results import ResultMixin, Table, shared_decimals
from .._scale.projection import N_PROJECTIONS, check_projection, random_directions
from .._semimetric import MetricLike, Scaling, prepare_points, resolve_semimetric
from .._validation import as_groups, as_weights, weight_scale
from ._disco import decompose, edist, warn_of_overlap
from ._sums import block_sums
from .permutation import _prepared, relabeling_test

__all__ = ["DispersionResult", "as_factors", "dispersion", "energy_distance"]


@dataclass(frozen=True, repr=False)
class DispersionResult(ResultMixin):
    r"""Energy dispersion of a sample split into groups by one factor or several (DISCO).

    Attributes
    ----------
    W : float
        Within-sample dispersion, eq. (15), :math:`\sum_j \tfrac{s_j}{2} g(C_j, C_j)`; with
        several factors :math:`T - \sum_f S_f`. R ``disco(...)$within``.
    S : float
        Between-sample statistic, eq. (16); with several factors the sum of the factors'.
        R ``disco(...)$between``.
    T : float
        Total dispersion :math:`\tfrac{s}{2} g(X, X)`, eq. (18): S + W. R ``disco(...)$total``.
    F : float, or ndarray of shape (n_factors,)
        :math:`\frac{S / (k - 1)}{W / (s - k)}` (s the total weight, the number of points
        without weights), R ``disco(...)$statistic``; nan when s <= k or S = W = 0, inf when
        W = 0 < S. With several factors each factor's one-factor F (R's vector).
    within : ndarray of shape (k,)
        The terms :math:`W_j = \tfrac{s_j}{2} g(C_j, C_j)` of W.
    sizes : ndarray of shape (k,)
        Points in each group (a point of weight 0 counts in none).
    weights : ndarray of shape (k,)
        Total weight s_j of each group (``sizes`` without weights).
    pairwise : ndarray of shape (k, k)
        :math:`\frac{s_i s_j}{s_i + s_j} \mathcal E_{ij}`, R ``edist(x, sizes)``.
    groups : ndarray of shape (k,)
        Group labels, in the sorted order of every per-group field. With several factors,
        ``within``, ``sizes``, ``weights``, ``pairwise`` and ``groups`` are empty: see
        ``by_factor``.
    factor : str
        The factor's name (a column or Series name, else ``"labels"``); several joined by
        ``" + "``.
    pvalue : float, ndarray of shape (n_factors,), or None
        The permutation p-value of F (R ``disco(..., R)$p.value``), one per factor; None
        without ``n_resamples``.
    n_resamples : int or None
        Relabelings behind ``pvalue`` (each factor's own count in ``by_factor``).
    by_factor : tuple of DispersionResult
        With several factors, each one's one-factor decomposition, in the order given.
    """

    W: float
    S: float
    T: float
    F: float | np.ndarray
    within: np.ndarray
    sizes: np.ndarray
    weights: np.ndarray
    pairwise: np.ndarray = field(repr=False)
    groups: np.ndarray
    factor: str = "labels"
    pvalue: float | np.ndarray | None = None
    n_resamples: int | None = None
    by_factor: tuple = ()

    _title = "Distance components (DISCO)"
    _digits = 6  # the pairwise table's significant digits
    _decimals = {"Sum Dist": 5, "Mean Dist": 5, "F-ratio": 3}  # R's disco table's
    _hidden = ("W", "S", "T", "F", "within", "sizes", "weights", "groups", "factor", "pvalue",
               "n_resamples", "by_factor")  # shown by the disco table instead
    _not_one_test = "is a decomposition, not a test: energy_test gives the permutation null of S"

    @property
    def df_within(self) -> float:
        """Degrees of freedom of W: s - 1 less each factor's k - 1 (s - k for one factor; s is
        the total weight, the number of points without weights), R ``disco(...)$Df.e``."""
        factors = self.by_factor or (self,)
        return float(factors[0].weights.sum()) - 1.0 - sum(len(f.groups) - 1 for f in factors)

    def disco_table(self) -> pd.DataFrame:
        """R's ``disco`` table: a row per factor, then ``Within`` and ``Total``; columns ``Df``,
        ``Sum Dist``, ``Mean Dist`` (over Df), ``F-ratio`` and, with resamples, ``p-value``.
        R's blank cells are NaN, and print blank."""
        factors = self.by_factor or (self,)
        df = [len(f.groups) - 1 for f in factors]
        within_mean = self.W / self.df_within if self.df_within > 0 else np.nan
        rows = {"Df": df + [self.df_within, self.df_within + sum(df)],
                "Sum Dist": [f.S for f in factors] + [self.W, self.T],
                "Mean Dist": [f.S / d for f, d in zip(factors, df)] + [within_mean, np.nan],
                "F-ratio": [f.F for f in factors] + [np.nan, np.nan]}
        if self.pvalue is not None:
            rows["p-value"] = [f.pvalue for f in factors] + [np.nan, np.nan]
        index = pd.Index([f.factor for f in factors] + ["Within", "Total"], name="Source")
        table = pd.DataFrame(rows, index=index)
        if all(float(d).is_integer() for d in table["Df"]):  # R's integer Df
            table["Df"] = table["Df"].astype(np.int64)
        return table

    def _tables(self) -> list[Table]:
        tables = [Table("Distance components", self.disco_table(), self._decimals)]
        if not self.by_factor:  # one quantity: one format
            decimals = shared_decimals(self.pairwise, self._digits)
            tables.append(Table("Pairwise n_i n_j / (n_i + n_j) * E_ij (R edist)",
                                self.pairwise_frame(), decimals))
        return tables

    def _extra_lines(self) -> list[str]:
        if self.n_resamples is None:
            return []
        return [f"p-values: permutation test of each factor's F-ratio, {self.n_resamples} "
                "relabelings"]

    def pairwise_frame(self) -> pd.DataFrame:
        """The ``pairwise`` matrix as a DataFrame indexed by group."""
        labels = [str(g) for g in self.groups]
        return pd.DataFrame(self.pairwise, index=labels, columns=labels)

    def to_frame(self) -> pd.DataFrame:
        """A row per group: size, total weight and within term W_j (with several factors,
        indexed by factor and group)."""
        if self.by_factor:
            return pd.concat({f.factor: f.to_frame() for f in self.by_factor},
                             names=["factor", "group"])
        return pd.DataFrame({"size": self.sizes, "weight": self.weights, "within": self.within},
                            index=pd.Index([str(g) for g in self.groups], name="group"))


def as_factors(labels):
    """``labels`` as one factor (as given) or several as a DataFrame of one column per factor:
    from a DataFrame, a list or tuple of 1-D label arrays, or a 2-D array (R's matrix)."""
    if isinstance(labels, pd.DataFrame):
        if labels.shape[1] == 0:
            raise ValueError("`labels` is a DataFrame without columns: give at least one factor.")
        return labels.set_axis([str(c) for c in labels.columns], axis=1)
    if isinstance(labels, np.ndarray) and labels.ndim == 2:
        return pd.DataFrame(labels, columns=[f"labels[{j}]" for j in range(labels.shape[1])])
    if not (isinstance(labels, (list, tuple)) and labels
            and all(np.ndim(f) == 1 and not isinstance(f, str) for f in labels)):
        return labels
    factors = [read_r(f) for f in labels]
    if len({len(f) for f in factors}) > 1:
        raise ValueError(f"`labels` must hold factors of equal length, got lengths "
                         f"{[len(f) for f in factors]}.")
    names = [f.name if isinstance(getattr(f, "name", None), str) else f"labels[{i}]"
             for i, f in enumerate(factors)]
    if len(set(names)) < len(names):
        names = [f"labels[{i}]" for i in range(len(factors))]
    return pd.DataFrame({name: f.reset_index(drop=True) if isinstance(f, pd.Series)
                         else pd.Series(f) for name, f in zip(names, factors)})


@front_door(
    ("X", "labels", "sample_weight"), distances=("X",), columns=("labels",), names=("X",),
    by="labels", prepare={"labels": as_factors},
)
def dispersion(X, labels, *, exponent=1.0, metric: MetricLike = "euclidean", sigma=None,
               sample_weight=None, n_resamples: int | None = None, n_jobs=None,
               approximation: str | None = None, n_projections: int = N_PROJECTIONS, rng=None,
               nan_policy: str = "raise") -> DispersionResult:
    r"""Within, between and total energy dispersion of grouped data (R ``disco``).

    The DISCO decomposition T = S + W (França et al. Lemma 1, eq. 18), W from eq. (15), S from
    eq. (16), T = s/2 g(X, X); with several factors, as R ``disco(x, factors)``, each factor's
    S_f and the within dispersion W = T - sum_f S_f.

    Parameters
    ----------
    X : array_like of shape (N, d), or (N, N) when ``metric="precomputed"``
        Data, or a symmetric zero-diagonal matrix of semimetric values (an R ``dist`` object
        is one). Distances not of negative type (an R ``dist`` of method ``"maximum"``) give
        R's numbers, which can be negative, with a warning.
    labels : array_like of shape (N,), or several factors
        Group of each point; at least two distinct values, reported in sorted order. Several
        factors: a DataFrame of two columns or more, a list of label arrays, or an N x m array.
    exponent : float, default=1.0
        alpha in (0, 2] of :math:`\|x - y\|^\alpha` (eq. 52).
    metric : str or callable, default="euclidean"
        ``"euclidean"``, ``"exponential"``, ``"gaussian"``, ``"precomputed"`` or a callable; see
        :func:`pairwise_semimetric`.
    sigma : float, default=None
        Scale of ``"exponential"`` and ``"gaussian"``.
    sample_weight : array_like of shape (N,), default=None
        Non-negative point weights w(x) (eq. 13-16); a point of weight 0 counts as removed
        (also in ``sizes``).
    n_resamples : int, default=None
        Relabelings of the permutation test of each factor's F (R ``disco(..., R)``), all
        distinct ones when there are no more; ``None``: no p-values. Takes no
        ``sample_weight``.
    n_jobs, approximation, n_projections
        As in :func:`energy_test`: W, S, T of the projection estimate of the distance.
    rng : int, numpy.random.Generator or None, default=None
        The seed: an int, a Generator (advanced in place) or None (fresh entropy).
        It draws the directions of ``approximation="projection"``, then the relabelings.
    nan_policy : {"raise", "omit"}, default="raise"
        A row with a missing value (NaN, None, pandas NA, masked, or R's NA) in ``X``,
        ``labels`` or ``sample_weight``: ``"raise"`` an error, ``"omit"`` drop the row of
        all of them (a precomputed matrix loses the point's row and column); the result's
        ``n_omitted`` counts them.
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.

    Returns
    -------
    DispersionResult
        Printed as R prints ``disco`` (``disco_table()`` gives that table as a DataFrame).

    Notes
    -----
    Without weights the fields equal R ``energy``'s: ``disco(x, factors, index=alpha, R=0)``'s
    ``between``, ``within``, ``total``, ``statistic``; ``edist(x, sizes, alpha=alpha)``
    (``pairwise``); ``edist(..., method="discoB")`` is ``pairwise * (n_i + n_j) / (2 N)``,
    ``eqdist.e(x, sizes)`` the sum of the upper triangle of ``pairwise``.

    With several factors (Rizzo & Székely 2010, section 5) each factor f of k_f levels has
    its one-factor T = S_f + W_f and :math:`F_f`, and the ``Within`` row is :math:`W = T -
    \sum_f S_f` on :math:`N - 1 - \sum_f (k_f - 1)` degrees of freedom, as in R. Aliased
    factors (the same grouping, or one nested in another) or associated ones (an unbalanced
    design) share between-group dispersion, which that sum counts once per factor: W can be
    negative, and energystats warns. The p-values are :func:`energy_test`'s with
    ``statistic="F"``.

    Time O(N^2 (d + m k)) for m factors (O(N log N + N m k) on the line), memory O(N k + k^2)
    beyond the matrix (held when it fits ``working_memory``, else streamed). Data near the
    ends of float64 are rescaled by a power of two, exactly.

    References
    ----------
    M. L. Rizzo and G. J. Székely, "DISCO analysis: A nonparametric extension of analysis
    of variance", Annals of Applied Statistics 4 (2010).

    Examples
    --------
    >>> import energystats as es
    >>> iris = es.datasets.load_iris()
    >>> res = es.dispersion(iris.iloc[:, :4], iris["Species"])
    >>> round(res.S, 4), round(res.W, 4), round(res.T, 4)
    (119.2373, 70.3385, 189.5758)
    >>> round(res.F, 4)
    124.5967
    >>> iris["Large"] = iris["Sepal.Width"] > 3  # two factors; print(d) shows R's disco table
    >>> d = es.dispersion(iris.iloc[:, :2], iris[["Species", "Large"]], n_resamples=199, rng=0)
    >>> d.F.round(3).tolist(), d.pvalue.tolist()  # one per factor, as R's vectors
    ([42.368, 21.003], [0.005, 0.005])
    """
    X, sm, scaling, directions, gen = _prepared(X, metric, exponent, sigma, approximation,
                                                n_projections, rng, spawn=False)
    n = X.shape[0]
    if isinstance(labels, pd.DataFrame):
        factors = [(name, labels.iloc[:, j]) for j, name in enumerate(labels.columns)]
    else:
        factors = [(labels.name if isinstance(getattr(labels, "name", None), str) else "labels",
                    labels)]
    several = len(factors) > 1
    coded = [as_groups(f, n, (name if name.startswith("labels[") else f"labels[{name!r}]")
                       if several else "labels") for name, f in factors]
    w, w_shift = weight_scale(as_weights(sample_weight, n, "sample_weight"))
    if n_resamples is not None:
        if w is not None:
            raise ValueError("`n_resamples` (permutation p-values) takes no `sample_weight`: "
                             "relabeling weighted points has no single definition; pass "
                             "n_resamples=None.")
        n_resamples = check_resamples(n_resamples)
    sums = block_sums(scaling.data(X), scaling.semimetric(sm), directions=directions,
                      n_jobs=check_n_jobs(n_jobs), groups=max(len(c[1]) for c in coded))
    results = tuple(_one_factor(sums, name, *c, w, w_shift, scaling, n_resamples, gen)
                    for (name, _), c in zip(factors, coded))
    if not several:
        return results[0]
    S, T = sum(r.S for r in results), results[0].T
    warn_of_overlap([r.factor for r in results], [c[0] for c in coded], T - S, S, T)
    empty = np.zeros(0)
    return DispersionResult(
        W=T - S, S=S, T=T, F=np.array([r.F for r in results]), within=empty,
        sizes=np.zeros(0, dtype=np.int64), weights=empty, pairwise=np.zeros((0, 0)), groups=empty,
        factor=" + ".join(r.factor for r in results), n_resamples=n_resamples, by_factor=results,
        pvalue=None if n_resamples is None else np.array([r.pvalue for r in results]))


def _one_factor(sums, name: str, codes, groups, sizes, w, w_shift: int, scaling: Scaling,
                n_resamples, gen) -> DispersionResult:
    """The one-factor decomposition from the block sums ``sums`` of the (rescaled) data, with
    the permutation p-value of F when ``n_resamples`` is given."""
    k = len(groups)
    if w is not None:
        s = np.bincount(codes, weights=w, minlength=k)
        if np.any(s <= 0):
            raise ValueError(f"`sample_weight` gives group {groups[s <= 0][0].item()!r} zero "
                             "total weight.")
        sizes = np.bincount(codes[w > 0], minlength=k)  # a point of weight 0 counts as removed
    else:
        s = sizes.astype(float)
    W, S, T, within, E = decompose(sums.of(codes[None], k, w)[0][0], s)
    total, k_scaled = s.sum(), np.ldexp(float(k), -w_shift)  # k in the rescaled weights' units
    with np.errstate(divide="ignore", invalid="ignore"):
        F = (S / (k - 1)) / (W / (total - k_scaled)) if total > k_scaled else np.nan
    pvalue = None
    if n_resamples is not None:
        if not np.isfinite(F):
            raise ValueError(f"`n_resamples`: factor {name!r} has no finite F-ratio (W = 0: every "
                             "group constant, or too few points), so it has no permutation "
                             "p-value.")
        test = relabeling_test(sums, codes, groups, sizes, "F", (n_resamples, "auto", None),
                               gen, "tolerant")
        pvalue, n_resamples = test.pvalue, test.n_resamples
    by_weight, result = Scaling().weighted(w_shift), scaling.weighted(w_shift)
    return DispersionResult(
        W=result.result(W, "W"), S=result.result(S, "S"), T=result.result(T, "T"),
        F=by_weight.result(float(F), "F") if np.isfinite(F) else float(F),
        within=result.result(within, "the within-group dispersions"), sizes=sizes,
        weights=by_weight.result(s, "the group weights"),
        pairwise=result.result(edist(E, s), "the pairwise statistics", inplace=True),
        groups=groups, factor=name, pvalue=pvalue, n_resamples=n_resamples)


@front_door(("x", "x_weights"), ("y", "y_weights"), propagate=True)
def energy_distance(x, y, *, exponent=1.0, metric: MetricLike = "euclidean", sigma=None,
                    x_weights=None, y_weights=None, n_jobs=None, approximation: str | None = None,
                    n_projections: int = N_PROJECTIONS, rng=None, estimator: str = "V",
                    nan_policy: str = "raise") -> float:
    r"""Energy distance between two samples (V-statistic, or the unbiased U-statistic).

    .. math::

        \mathcal E(X, Y) = 2 g(X, Y) - g(X, X) - g(Y, Y),

    g the (weighted) mean of the semimetric over pairs (França et al. eq. 1, 4, 13). With
    ``estimator="U"`` the within-sample means leave out the pairs of a point with itself,
    :math:`\frac{1}{n_1 (n_1 - 1)} \sum_{i \ne j} \rho(x_i, x_j)` (and y's alike): unbiased
    for :math:`2E\rho(X, Y) - E\rho(X, X') - E\rho(Y, Y')`, and negative for some samples;
    ``dcor.energy_distance(x, y, estimation_stat="u_statistic")``.

    Parameters
    ----------
    x : array_like of shape (n1, d) or (n1,)
        First sample; a 1-D array is n1 points on the line.
    y : array_like of shape (n2, d) or (n2,)
        Second sample.
    exponent, metric, sigma
        The semimetric, as in :func:`dispersion` (which takes a precomputed matrix).
    x_weights, y_weights : array_like, default=None
        Non-negative point weights; a point of weight 0 counts as removed.
    n_jobs, approximation, n_projections
        As in :func:`energy_test` (the projection estimate in O(L n log n)).
    rng : int, numpy.random.Generator or None, default=None
        The seed: an int, a Generator (advanced in place) or None (fresh entropy).
        It draws the directions of ``approximation="projection"``.
    estimator : {"V", "U"}, default="V"
        ``"U"`` needs two points in each sample and takes no weights (frequency and
        probability weights give different denominators).
    nan_policy : {"raise", "omit", "propagate"}, default="raise"
        A row with a missing value (NaN, None, pandas NA, masked, or R's NA) in ``x``,
        ``x_weights``, ``y`` or ``y_weights``: ``"raise"`` an error, ``"omit"`` drop it from
        its own sample, ``"propagate"`` return NaN.

    Returns
    -------
    float
        :math:`\mathcal E \ge 0` for semimetrics of negative type; :math:`\mathcal E_U` can
        be negative.

    Notes
    -----
    R ``energy::edist(rbind(x, y), c(n1, n2))`` returns :math:`\frac{n_1 n_2}{n_1 + n_2}
    \mathcal E`, a test statistic; ``scipy.stats.energy_distance(u, v)`` (on the line)
    :math:`\sqrt{\mathcal E}`. Data near 1e-300 or 1e300 are rescaled by a power of two,
    exactly; a distance float64 cannot hold raises ``OverflowError`` (``ValueError`` below
    its range). Time O((n1 + n2)^2 d) (O(n log n) on the line with exponent 1), memory
    O(n1 + n2) beyond the matrix, held when it fits ``working_memory``, else streamed.

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
        raise ValueError("`estimator`='U' takes no `x_weights` or `y_weights`: use the "
                         "V-statistic for weighted samples.")
    sm = resolve_semimetric(metric, exponent, sigma)
    if sm.precomputed:
        raise ValueError("`metric`='precomputed' is not available for two separate samples; "
                         "use dispersion(D, labels, metric='precomputed').pairwise.")
    x, y = prepare_points(x, sm, "x"), prepare_points(y, sm, "y")
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"`x` and `y` must have the same number of features, got {x.shape[1]} "
                         f"and {y.shape[1]}.")
    n1, n2 = x.shape[0], y.shape[0]
    for name, size in (("x", n1), ("y", n2)):
        if estimator == "U" and size < 2:
            raise ValueError(f"`{name}` needs at least two points for `estimator`='U', got {size}.")
    # E is a difference of weighted means: each sample's weights are scale-free
    wx, _ = weight_scale(as_weights(x_weights, n1, "x_weights"))
    wy, _ = weight_scale(as_weights(y_weights, n2, "y_weights"))
    w = None if wx is None and wy is None else np.concatenate(
        [np.ones(n1) if wx is None else wx, np.ones(n2) if wy is None else wy])
    s = np.array([n1, n2], float) if w is None else np.array([w[:n1].sum(), w[n1:].sum()])
    pooled = np.vstack([x, y])
    L = check_projection(approximation, n_projections, {"": sm}, pooled.shape[1])
    scaling = Scaling.for_data(pooled, sm)
    gen = as_generator(rng)
    directions = None if L is None else random_directions(L, pooled.shape[1], gen)
    sums = block_sums(scaling.data(pooled), scaling.semimetric(sm), directions=directions,
                      n_jobs=check_n_jobs(n_jobs))
    M = sums.of(np.repeat(np.array([0, 1], dtype=np.int8), [n1, n2])[None], 2, w)[0][0]
    if estimator == "U":  # the diagonal of D is 0: only the denominators change
        value = (2.0 * M[0, 1] / (n1 * n2) - M[0, 0] / (n1 * (n1 - 1.0))
                 - M[1, 1] / (n2 * (n2 - 1.0)))
    else:
        value = decompose(M, s)[4][0, 1]
    return scaling.result(float(value), "the energy distance")
