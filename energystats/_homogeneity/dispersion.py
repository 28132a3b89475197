"""The DISCO decomposition T = S + W of grouped data.

References
----------
G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-Groups via Hartigan's
Method", IEEE TPAMI (2020), eq. (1), (4), (13)-(16), (18).
M. L. Rizzo and G. J. Székely, "DISCO analysis: A nonparametric extension of
analysis of variance", Annals of Applied Statistics 4 (2010).
"""

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
from .permutation import relabeling_test

__all__ = ["DispersionResult", "as_factors", "dispersion"]


@dataclass(frozen=True, repr=False)
class DispersionResult(ResultMixin):
    r"""Energy dispersion of a sample split into groups by one factor or several (DISCO).

    With several factors, ``F`` and ``pvalue`` hold one value per factor, in the order the
    factors were given, as R's ``disco()$statistic`` and ``$p.value`` are vectors:
    ``d.pvalue < 0.05`` tests each factor (``d.pvalue[0]`` the first).

    Attributes
    ----------
    W : float
        Within-sample dispersion. One factor: eq. (15),
        :math:`\sum_j \tfrac{s_j}{2} g(C_j, C_j)`; several factors: the total less every
        factor's between-sample statistic, :math:`T - \sum_f S_f`. Equals R ``disco(...)$within``.
    S : float
        Between-sample statistic, eq. (16); with several factors the sum of theirs (each
        factor's in ``by_factor``). Equals R ``disco(...)$between`` (its sum).
    T : float
        Total dispersion :math:`\tfrac{s}{2} g(X, X)` (Lemma 1, eq. 18);
        ``S + W == T`` to rounding. Equals R ``disco(...)$total``.
    F : float, or ndarray of shape (n_factors,)
        DISCO ratio :math:`\frac{S / (k - 1)}{W / (s - k)}`, R ``disco(...)$statistic``.
        With weights, s is the total weight (weights count as frequencies);
        ``nan`` when ``s <= k``, where the ratio has no degrees of freedom; ``inf`` when
        W = 0 < S (every group constant, the groups apart); ``nan`` when S = W = 0 (every
        point the same: nothing to compare), which ``energy_test(statistic="F")`` refuses.
        With several factors each factor's one-factor ratio :math:`F_f` (R's vector).
    within : ndarray of shape (k,)
        Per-group terms :math:`W_j = \tfrac{s_j}{2} g(C_j, C_j)` (empty with several factors,
        as are ``sizes``, ``weights``, ``pairwise`` and ``groups``: see ``by_factor``).
    sizes : ndarray of shape (k,)
        Number of points in each group.
    weights : ndarray of shape (k,)
        Total weight s_j of each group (equal to ``sizes`` without weights).
    pairwise : ndarray of shape (k, k)
        :math:`\frac{s_i s_j}{s_i + s_j} \mathcal E_{ij}`, the two-sample
        statistic of R ``edist(x, sizes)`` (method ``"cluster"``).
    groups : ndarray of shape (k,)
        Group labels, in the (sorted) order of every per-group field.
    factor : str
        Name of the factor (a column or Series name, else ``"labels"``); with several
        factors, their names joined by ``" + "``.
    pvalue : float, ndarray of shape (n_factors,), or None
        Permutation p-value of F (``n_resamples`` given), as R ``disco(..., R)$p.value``;
        with several factors each factor's, of its own F (R's vector); ``None`` without
        resamples.
    n_resamples : int or None
        Relabelings behind ``pvalue`` (all distinct ones when they are fewer than asked); with
        several factors the number asked, each factor's own in ``by_factor``.
    by_factor : tuple of DispersionResult
        With several factors, the one-factor decomposition of each, in the order given:
        its S (R ``between``), W (R ``withins``), F (R ``statistic``) and p-value (R
        ``p.value``); empty for one factor.
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
    #: the decimals of R's disco table
    _decimals = {"Sum Dist": 5, "Mean Dist": 5, "F-ratio": 3}
    #: shown by the disco table and the notes instead
    _hidden = ("W", "S", "T", "F", "within", "sizes", "weights", "groups", "factor", "pvalue",
               "n_resamples", "by_factor")
    _not_one_test = "is a decomposition, not a test: energy_test gives the permutation null of S"

    @property
    def df_within(self) -> float:
        """Degrees of freedom of W: s - 1 less each factor's k - 1 (s - k for one factor; s is
        the total weight, the number of points without weights), R ``disco(...)$Df.e``."""
        factors = self.by_factor or (self,)
        return float(factors[0].weights.sum()) - 1.0 - sum(len(f.groups) - 1 for f in factors)

    def disco_table(self) -> pd.DataFrame:
        """R's ``disco`` table: one row per factor, then ``Within`` and ``Total``; columns
        ``Df``, ``Sum Dist``, ``Mean Dist`` (sum over Df), ``F-ratio`` and ``p-value`` (the
        last only with resamples). The cells R leaves blank (the mean of ``Total``, the
        ratio and p-value of ``Within`` and ``Total``) are NaN, and print blank."""
        factors = self.by_factor or (self,)
        df = [len(f.groups) - 1 for f in factors]
        within_mean = self.W / self.df_within if self.df_within > 0 else np.nan
        rows = {
            "Df": df + [self.df_within, self.df_within + sum(df)],
            "Sum Dist": [f.S for f in factors] + [self.W, self.T],
            "Mean Dist": [f.S / d for f, d in zip(factors, df)] + [within_mean, np.nan],
            "F-ratio": [f.F for f in factors] + [np.nan, np.nan],
        }
        if self.pvalue is not None:
            rows["p-value"] = [f.pvalue for f in factors] + [np.nan, np.nan]
        index = pd.Index([f.factor for f in factors] + ["Within", "Total"], name="Source")
        table = pd.DataFrame(rows, index=index)
        # no weights, or whole ones: R's integer Df
        if all(float(d).is_integer() for d in table["Df"]):
            table["Df"] = table["Df"].astype(np.int64)
        return table

    def _tables(self) -> list[Table]:
        tables = [Table("Distance components", self.disco_table(), self._decimals)]
        if not self.by_factor:
            caption = "Pairwise n_i n_j / (n_i + n_j) * E_ij (R edist)"
            decimals = shared_decimals(self.pairwise, self._digits)  # one quantity: one format
            tables.append(Table(caption, self.pairwise_frame(), decimals))
        return tables

    def _extra_lines(self) -> list[str]:
        if self.n_resamples is None:
            return []
        return [
            f"p-values: permutation test of each factor's F-ratio, {self.n_resamples} relabelings"
        ]

    def pairwise_frame(self) -> pd.DataFrame:
        """The ``pairwise`` matrix as a DataFrame indexed by group."""
        labels = [str(g) for g in self.groups]
        return pd.DataFrame(self.pairwise, index=labels, columns=labels)

    def to_frame(self) -> pd.DataFrame:
        """One row per group: size, total weight and within term W_j (with several factors,
        the groups of each factor, indexed by factor and group)."""
        if self.by_factor:
            return pd.concat(
                {f.factor: f.to_frame() for f in self.by_factor}, names=["factor", "group"]
            )
        return pd.DataFrame(
            {"size": self.sizes, "weight": self.weights, "within": self.within},
            index=pd.Index([str(g) for g in self.groups], name="group"),
        )


def as_factors(labels):
    """``labels`` as one factor (returned as given) or several factors as a DataFrame whose
    columns are the factors: a DataFrame (of two columns or more), a list or tuple of 1-D
    label arrays, or a 2-D array of one column per factor (R's matrix of factor labels)."""
    if isinstance(labels, pd.DataFrame):
        if labels.shape[1] == 0:
            raise ValueError("`labels` is a DataFrame without columns: give at least one factor.")
        return labels.set_axis([str(c) for c in labels.columns], axis=1)
    if (
        isinstance(labels, (list, tuple))
        and labels
        and all(np.ndim(f) == 1 and not isinstance(f, str) for f in labels)
    ):
        factors = [read_r(f) for f in labels]
        lengths = {len(f) for f in factors}
        if len(lengths) > 1:
            raise ValueError(
                "`labels` must hold factors of equal length, got lengths "
                f"{[len(f) for f in factors]}."
            )
        names = [
            f.name if isinstance(getattr(f, "name", None), str) else f"labels[{i}]"
            for i, f in enumerate(factors)
        ]
        if len(set(names)) < len(names):
            names = [f"labels[{i}]" for i in range(len(factors))]
        columns = {
            name: (f.reset_index(drop=True) if isinstance(f, pd.Series) else pd.Series(f))
            for name, f in zip(names, factors)
        }
        return pd.DataFrame(columns)
    if isinstance(labels, np.ndarray) and labels.ndim == 2:
        return pd.DataFrame(labels, columns=[f"labels[{j}]" for j in range(labels.shape[1])])
    return labels


@front_door(
    ("X", "labels", "sample_weight"), distances=("X",), columns=("labels",), names=("X",),
    by="labels", prepare={"labels": as_factors},
)
def dispersion(
    X,
    labels,
    *,
    exponent=1.0,
    metric: MetricLike = "euclidean",
    sigma=None,
    sample_weight=None,
    n_resamples: int | None = None,
    n_jobs=None,
    approximation: str | None = None,
    n_projections: int = N_PROJECTIONS,
    rng=None,
    nan_policy: str = "raise",
) -> DispersionResult:
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
    n_jobs : int, default=None
        joblib's ``n_jobs``, as in :func:`energy_test`.
    approximation : {None, "projection"}, default=None
        ``"projection"``: W, S, T from the random-projection estimate of the Euclidean
        distance (exponent 1; see :func:`energy_test`).
    n_projections : int, default=200
        L, the number of directions of ``approximation="projection"``.
    rng
        It draws the directions of ``approximation="projection"``, then the relabelings.

    Returns
    -------
    DispersionResult
        Printed as R prints ``disco`` (``disco_table()`` gives that table as a DataFrame).

    Notes
    -----
    Without weights the fields equal R ``energy``'s: ``disco(x, factors, index=alpha,
    R=0)``'s ``between`` (S), ``within`` (W), ``total`` (T), ``statistic`` (F);
    ``edist(x, sizes, alpha=alpha)`` (``pairwise``) and ``edist(..., method="discoB")``
    (``pairwise * (n_i + n_j) / (2 N)``); ``eqdist.e(x, sizes)`` is the sum of the upper
    triangle of ``pairwise``.

    With several factors (Rizzo & Székely 2010, section 5), factor f with k_f levels has its
    one-factor decomposition T = S_f + W_f, its ratio :math:`F_f = \frac{S_f / (k_f - 1)}{W_f
    / (N - k_f)}` and the p-value of F_f's permutation test, and the ``Within`` row is
    :math:`W = T - \sum_f S_f` on :math:`N - 1 - \sum_f (k_f - 1)` degrees of freedom, as in
    R. That W is a difference: aliased factors (the same grouping, or one nested in another)
    or associated ones (an unbalanced design) share between-group dispersion, which the sum
    counts once per factor, and W can be negative; energystats then warns, naming the aliased
    factors. The p-value is that of :func:`energy_test` with ``statistic="F"``.

    Data near the ends of float64 are rescaled by a power of two, exactly (see
    :func:`energy_distance`). Time O(N^2 (d + m k)) for m factors (O(N log N + N m k) for
    one-dimensional data with exponent 1), memory O(N k + k^2) beyond the matrix (held when
    it fits ``working_memory``, else streamed); each p-value costs what :func:`energy_test`
    costs.

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
    >>> iris["Large"] = iris["Sepal.Width"] > 3
    >>> print(es.dispersion(iris.iloc[:, :2], iris[["Species", "Large"]]))
    Distance components (DISCO)
    <BLANKLINE>
    data:  [Sepal.Length, Sepal.Width] by [Species, Large]
    <BLANKLINE>
    Distance components:
    Source    Df  Sum Dist  Mean Dist  F-ratio
    Species    2  31.42236   15.71118   42.368
    Large      1  10.67966   10.67966   21.003
    Within   146  43.83211    0.30022
    Total    149  85.93413
    >>> d = es.dispersion(iris.iloc[:, :2], iris[["Species", "Large"]], n_resamples=199, rng=0)
    >>> d.F.round(3).tolist(), d.pvalue.tolist()  # one per factor, as R's vectors
    ([42.368, 21.003], [0.005, 0.005])
    """
    sm = resolve_semimetric(metric, exponent, sigma)
    X = prepare_points(X, sm, "X")
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
            raise ValueError(
                "`n_resamples` (permutation p-values) takes no `sample_weight`: relabeling "
                "weighted points has no single definition; pass n_resamples=None.")
        n_resamples = check_resamples(n_resamples)
    L = check_projection(approximation, n_projections, {"": sm}, X.shape[1])
    scaling = Scaling.for_data(X, sm)
    gen = as_generator(rng)
    directions = None if L is None else random_directions(L, X.shape[1], gen)
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
        factor=" + ".join(r.factor for r in results),
        pvalue=None if n_resamples is None else np.array([r.pvalue for r in results]),
        n_resamples=n_resamples, by_factor=results,
    )


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
        test = relabeling_test(sums, codes, groups, sizes, "F", (n_resamples, "auto", None, None),
                               gen, "tolerant")
        pvalue, n_resamples = test.pvalue, test.n_resamples
    by_weight, result = Scaling().weighted(w_shift), scaling.weighted(w_shift)
    return DispersionResult(
        W=result.result(W, "W"), S=result.result(S, "S"), T=result.result(T, "T"),
        F=by_weight.result(float(F), "F") if np.isfinite(F) else float(F),
        within=result.result(within, "the within-group dispersions"), sizes=sizes,
        weights=by_weight.result(s, "the group weights"),
        pairwise=result.result(edist(E, s), "the pairwise statistics", inplace=True),
        groups=groups,
        factor=name, pvalue=pvalue, n_resamples=n_resamples,
    )
