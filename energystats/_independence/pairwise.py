r"""Distance correlation between every two variables of a data set, with p-values corrected
for multiple testing: the screening many-variable data sets need (a thousand genes, a hundred
survey items)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd
from scipy.stats import t as student_t

from .._frontdoor import front_door
from .._parallel import check_n_jobs, n_workers, run_tasks
from .._random import as_generator
from .._resample import check_observed, check_resamples, pvalue
from .._results import ResultMixin
from .._validation import check_correction
from .dcov import gram, ratio
from .gamma import gamma_pvalue, moments, power_sums
from .testing import pair_null
from .variables import Variable, as_variables

__all__ = ["PairwiseDcorResult", "pairwise_dcor"]

_METHODS = ("gamma", "permutation", "t")


@dataclass(frozen=True, repr=False)
class PairwiseDcorResult(ResultMixin):
    """Result of :func:`pairwise_dcor`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per pair: ``x``, ``y``, ``dcor`` (V-statistic, R ``dcor``), ``bcdcor`` (the
        bias-corrected dCor^2, R ``bcdcor``), ``statistic`` (n V_n^2 for the gamma and
        permutation methods, the t statistic for ``"t"``), ``pvalue``, ``pvalue_adjusted``,
        ``reject``; sorted by p-value.
    matrix : pandas.DataFrame
        The distance correlations as a square matrix (1 on the diagonal).
    method : str
    correction : str
    alpha : float
    n_samples : int
        Sample size (rows without a missing value in the columns used).
    """

    table: pd.DataFrame = field(repr=False)
    matrix: pd.DataFrame = field(repr=False)
    method: str
    correction: str
    alpha: float
    n_samples: int

    _title = "Distance correlation of every pair of variables"
    _not_one_test = "holds one test per pair of variables: plot_dcor_matrix draws them"
    #: the matrix is printed up to this many variables
    _MATRIX_PRINTED = 10

    def to_frame(self) -> pd.DataFrame:
        """The table: one row per pair, sorted by p-value."""
        return self.table

    def _extra_lines(self) -> list[str]:
        return [
            f"{int(self.table['reject'].sum())} of {len(self.table)} pairs rejected at alpha = "
            f"{self.alpha:g} ({self.correction} correction)"
        ]

    def _tables(self) -> list[tuple[str, pd.DataFrame]]:
        tables = [("Pairs, by p-value", self.table)]
        if len(self.matrix) <= self._MATRIX_PRINTED:
            tables.append(("Distance correlation matrix", self.matrix))
        return tables


def _group_columns(groups) -> dict:
    """``{name: [column names]}`` of ``groups`` (None: every column its own variable)."""
    if not isinstance(groups, dict) or not groups:
        raise TypeError("`groups` must be a non-empty dict {name: list of columns}.")
    return {str(name): [str(c) for c in ([columns] if isinstance(columns, (str, int)) else columns)]
            for name, columns in groups.items()}


def _used_columns(X, groups) -> pd.DataFrame:
    """The columns of X (a DataFrame or an array) that the variables use, as a DataFrame
    named by strings, numbers whatever holds them: what the front door then finds the
    missing values of (R's integer NA, -2147483648 in an int32 column, included), so that
    rows are complete in the columns used."""
    if np.ma.isMaskedArray(X):  # a mask means missing
        X = np.ma.filled(np.ma.asarray(X, dtype=float), np.nan)
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
    frame = frame.rename(columns=str)
    repeated = sorted({c for c in frame.columns if list(frame.columns).count(c) > 1})
    if repeated:
        raise ValueError(f"`X` has duplicate column names ({', '.join(map(repr, repeated))}): "
                         "the variables are named by their columns; rename them.")
    if groups is not None:
        used = _group_columns(groups)
        for name, columns in used.items():
            missing = [c for c in columns if c not in frame.columns]
            if missing:
                raise ValueError(f"`groups`[{name!r}] names column(s) not in `X`: "
                                 f"{', '.join(missing)}.")
        frame = frame[list(dict.fromkeys(c for columns in used.values() for c in columns))]
    # numbers are numbers whatever holds them (objects with None among them, Int64, Float64)
    frame = frame.apply(lambda c: pd.to_numeric(c) if c.dtype == object and not any(
        isinstance(v, (str, bytes)) for v in c) else c)
    bad = [c for c in frame.columns if not (pd.api.types.is_numeric_dtype(frame[c])
                                            or pd.api.types.is_bool_dtype(frame[c]))]
    if bad:
        raise ValueError(f"`X` must have numeric columns only; column(s) "
                         f"{', '.join(map(repr, bad))} are not numeric.")
    return frame


def _variables_of(frame: pd.DataFrame, groups) -> dict:
    """``{name: data}`` from the columns used (:func:`_used_columns`) and ``groups``."""
    if groups is None:
        return {name: frame[name].to_numpy(dtype=float, na_value=np.nan) for name in frame.columns}
    return {name: frame[columns].to_numpy(dtype=float, na_value=np.nan)
            for name, columns in _group_columns(groups).items()}


def _pair(x: Variable, y: Variable, method: str, B: int, stream, sums) -> dict:
    """The statistics and the p-value of one pair of variables."""
    n = x.n
    G, U = gram([x, y]), gram([x, y], unbiased=True)
    dcor, bcdcor = ratio(G[0, 1], G[0, 0], G[1, 1]) ** 0.5, ratio(U[0, 1], U[0, 0], U[1, 1])
    statistic = float(G[0, 1]) / n
    if method == "gamma":
        p = gamma_pvalue(check_observed(float(G[0, 1]), "the distance covariance"),
                         *moments(x, y, G), _skewness(sums))
    elif method == "t":
        df = n * (n - 3) / 2.0 - 1.0
        statistic = np.inf if bcdcor >= 1 else float(np.sqrt(df) * bcdcor / np.sqrt(1 - bcdcor**2))
        p = float(student_t.sf(statistic, df))
    else:
        null, scale = pair_null(x, y, B, False, stream, False)
        p = pvalue(float(G[0, 1]), null, scale=scale, what="the distance covariance")
    return {"x": x.name, "y": y.name, "dcor": dcor, "bcdcor": bcdcor, "statistic": statistic,
            "pvalue": p}


def _skewness(sums) -> float:
    """The limit's skewness from the two variables' power sums (:func:`~.gamma.skewness`)."""
    (sx2, sx3), (sy2, sy3) = sums
    return float(8.0 * sx3 * sy3 / (2.0 * sx2 * sy2) ** 1.5) if sx2 > 0 and sy2 > 0 else 0.0


def _pairs_task(pairs: list, variables: list[Variable], method: str, B: int, streams: list,
                sums: list) -> list[dict]:
    """A share of the pairs (a joblib task's, with the variables sent once)."""
    return [_pair(variables[i], variables[j], method, B, streams[k], (sums[i], sums[j]))
            for k, (i, j) in pairs]


@front_door("X", names=("X",), prepare={"X": _used_columns})
def pairwise_dcor(
    X,
    *,
    groups: dict | None = None,
    method: str = "gamma",
    correction: str = "holm",
    alpha: float = 0.05,
    n_resamples: int = 999,
    exponent=1.0,
    rng=None,
    n_jobs=None,
    nan_policy: str = "raise",
) -> PairwiseDcorResult:
    r"""Distance correlation and a test of independence for every pair of variables.

    Parameters
    ----------
    X : DataFrame or array_like of shape (n, p)
        The data; numeric columns only.
    groups : dict, default=None
        ``{name: [columns]}``: variables made of several columns (each compared as one
        vector); ``None``: every column is a variable.
    method : {"gamma", "permutation", "t"}, default="gamma"
        The p-value of each pair: ``"gamma"`` without permutations (the exact permutation
        mean and variance and the limit's skewness, :func:`dcov_test`'s ``method="gamma"``);
        ``"permutation"`` with ``n_resamples`` permutations per pair; ``"t"`` the
        distance correlation t-test (:func:`dcor_ttest`). The default is not
        :func:`dcor_test`'s (permutations) because a table multiplies the cost by its
        pairs: on a 1,000 x 5 table, 999 permutations per pair took 11 s for the 10 pairs
        (about 1 s a pair: 45 s for 10 columns, 20 minutes for 50), the gamma p-values
        0.4 s (see Notes).
    correction : str, default="holm"
        Any ``method`` of ``statsmodels.stats.multitest.multipletests`` (``"holm"``,
        ``"fdr_bh"``, ``"bonferroni"``, ...).
    alpha : float, default=0.05
        Family-wise level (or FDR) of the ``reject`` column.
    n_resamples : int, default=999
        For ``method="permutation"``.
    exponent : float, default=1.0
        alpha in (0, 2] of the Euclidean distances.
    rng : int, numpy.random.Generator or None, default=None
        The seed: an int, a Generator (advanced in place) or None (fresh entropy).
        It draws the permutations of ``method="permutation"`` (one stream per pair).
    n_jobs : int, default=None
        joblib's ``n_jobs``: shares of the pairs as joblib tasks (Dask inside
        ``joblib.parallel_config(backend="dask")``), the data sent once; otherwise the pairs
        are shared among this process's threads.
    nan_policy : {"raise", "omit"}, default="raise"
        Rows with a missing value (NaN, None, pandas NA, masked, or R's NA) in a column
        used: an error, or dropped for every pair (complete cases, so that all pairs
        describe the same rows and the p-values are corrected as one family;
        ``n_omitted`` counts them).
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.

    Returns
    -------
    PairwiseDcorResult

    Notes
    -----
    One-dimensional variables with exponent 1 take the O(n log n) path: a pair costs
    O(n log n) (milliseconds at n = 10,000), p variables p (p - 1) / 2 of them; several
    columns in a group cost O(n^2) per pair through the pairwise operator. Memory O(n) per
    thread for one-dimensional variables.

    ``method="gamma"`` is the default as a screen of every pair at the cost of computing
    the statistics: the gamma distribution has the permutation distribution's exact mean
    and variance, so its p-value needs no resamples and can be far smaller than any
    permutation p-value (whose smallest is 1 / (n_resamples + 1)): p = 4e-205 means the
    statistic lies far in the tail, not that 4e-205 is known to that precision. Confirm
    the pairs that matter with ``method="permutation"`` or :func:`dcor_test`.

    Examples
    --------
    >>> import numpy as np, pandas as pd, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(rng.normal(size=(200, 4)), columns=list("abcd"))
    >>> df["e"] = df["a"] ** 2 + rng.normal(scale=0.3, size=200)
    >>> res = es.pairwise_dcor(df)
    >>> first = res.table.iloc[0]
    >>> first["x"], first["y"], bool(first["reject"])
    ('a', 'e', True)
    >>> int(res.table["reject"].sum())
    1
    """
    from statsmodels.stats.multitest import multipletests

    correction, alpha = check_correction(correction, alpha)
    if method not in _METHODS:
        raise ValueError(f"`method` must be one of {_METHODS}, got {method!r}.")
    B = check_resamples(n_resamples)
    n_jobs = check_n_jobs(n_jobs)
    variables = as_variables(_variables_of(X, groups), "euclidean", exponent, min_samples=4)
    if len(variables) < 2:
        raise ValueError(f"`X` must have at least two variables, got {len(variables)}.")
    sums = [power_sums(v) if method == "gamma" else None for v in variables]
    pairs = list(enumerate(combinations(range(len(variables)), 2)))
    streams = as_generator(rng).spawn(len(pairs))
    task = functools.partial(_pairs_task, method=method, B=B, streams=streams, sums=sums)
    if n_workers(n_jobs) > 1:
        size = max(1, len(pairs) // 64)
        parts = run_tasks(task, [{"pairs": pairs[a : a + size]} for a in range(0, len(pairs),
                                                                                 size)],
                          n_jobs, shared={"variables": variables})
    else:
        parts = [task(pairs, variables)]
    table = pd.DataFrame([row for part in parts for row in part])
    reject, adjusted, _, _ = multipletests(
        table["pvalue"].to_numpy(), alpha=alpha, method=correction
    )
    table["pvalue_adjusted"], table["reject"] = adjusted, reject
    table = table.sort_values(["pvalue", "x", "y"], kind="stable").reset_index(drop=True)
    names = [v.name for v in variables]
    matrix = pd.DataFrame(np.eye(len(names)), index=names, columns=names)
    for x, y, value in zip(table["x"], table["y"], table["dcor"]):
        matrix.loc[x, y] = matrix.loc[y, x] = value
    return PairwiseDcorResult(table=table, matrix=matrix, method=method, correction=correction,
                              alpha=float(alpha), n_samples=variables[0].n)
