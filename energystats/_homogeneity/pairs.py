"""Energy tests of every pair of groups, with a multiple-testing correction."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from .._frontdoor import front_door
from .._parallel import check_n_jobs
from .._progress import progress_bar
from .._results import ResultMixin
from .._scale import fits
from .._scale.projection import N_PROJECTIONS
from .._semimetric import resolve_semimetric
from .._validation import as_groups, check_correction
from ._sums import block_sums
from .permutation import _energy_test_iv, _prepared, _rescaled, energy_test, relabeling_test

__all__ = ["PairwiseEnergyTestsResult", "pairwise_energy_tests"]


@dataclass(frozen=True, repr=False)
class PairwiseEnergyTestsResult(ResultMixin):
    """Result of :func:`pairwise_energy_tests`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per pair of groups, in the groups' order: ``group_a``, ``group_b``, ``n_a``,
        ``n_b``, ``statistic``, ``pvalue``, ``pvalue_adjusted``, ``reject``.
    statistic_name : str
        The statistic of every test (``"S"``, ``"E"`` or ``"F"``).
    n_resamples : int
        Relabelings per test (each exact when its distinct relabelings are fewer).
    correction : str
    alpha : float
    """

    table: pd.DataFrame = field(repr=False)
    statistic_name: str
    n_resamples: int
    correction: str
    alpha: float

    _title = "Energy tests of equal distributions for every pair of groups"
    _not_one_test = "holds one test per pair of groups: its table lists them"

    def to_frame(self) -> pd.DataFrame:
        """The table: one row per pair of groups."""
        return self.table

    def _extra_lines(self) -> list[str]:
        return [f"{int(self.table['reject'].sum())} of {len(self.table)} pairs rejected at "
                f"alpha = {self.alpha:g} ({self.correction} correction)"]

    def _tables(self) -> list[tuple[str, pd.DataFrame]]:
        return [("Pairs of groups", self.table)]


@front_door(("X", "labels"), distances=("X",), columns=("labels",), names=("X",),
            by="labels", forwards=energy_test)
def pairwise_energy_tests(X, labels, *, correction: str = "holm", alpha: float = 0.05, rng=None,
                          nan_policy: str = "raise",
                          **energy_test_options) -> PairwiseEnergyTestsResult:
    """Energy tests of every pair of groups, with a multiple-testing correction.

    Parameters
    ----------
    X : array_like of shape (N, d), or (N, N) when ``metric="precomputed"``
    labels : array_like of shape (N,)
    correction : str, default="holm"
        A ``method`` of ``statsmodels.stats.multitest.multipletests`` (``"holm"``,
        ``"bonferroni"``, ``"fdr_bh"``, ...).
    alpha : float, default=0.05
        Family-wise level (or FDR) of the ``reject`` column.
    rng : int, numpy.random.Generator or None, default=None
        The seed: an int, a Generator (advanced in place) or None (fresh entropy).
        Each pair gets an independent stream spawned from it.
    nan_policy : {"raise", "omit"}, default="raise"
        A row with a missing value (NaN, None, pandas NA, masked, or R's NA) in ``X`` or
        ``labels``: ``"raise"`` an error, ``"omit"`` drop the row of both (a precomputed
        matrix loses the point's row and column); the result's ``n_omitted`` counts them.
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.
    **energy_test_options
        Keyword options of :func:`energy_test`.

    Returns
    -------
    PairwiseEnergyTestsResult
        ``table`` (and ``to_frame()``): a row per pair of groups, with the p-values and the
        corrected decisions.

    Notes
    -----
    Valid as :func:`energy_test` is. The matrix, when it fits ``working_memory``, is computed
    once for all pairs.

    Examples
    --------
    >>> import energystats as es
    >>> iris = es.datasets.load_iris()
    >>> res = es.pairwise_energy_tests(iris.iloc[:, :4], iris["Species"], n_resamples=199, rng=0)
    >>> res.table[["group_a", "group_b", "pvalue_adjusted", "reject"]]
          group_a     group_b  pvalue_adjusted  reject
    0      setosa  versicolor            0.015    True
    1      setosa   virginica            0.015    True
    2  versicolor   virginica            0.015    True
    """
    from statsmodels.stats.multitest import multipletests

    correction, alpha = check_correction(correction, alpha)
    o = {"statistic": "S", "n_resamples": 999, "exponent": 1.0, "metric": "euclidean",
         "sigma": None, "exact": "auto", "progress": None, "ties": "tolerant",
         "n_jobs": None, "approximation": None, "n_projections": N_PROJECTIONS,
         **energy_test_options}  # energy_test's defaults
    B, exact, progress = _energy_test_iv(o["statistic"], o["n_resamples"], o["exact"],
                                         o["progress"], o["ties"])
    n_jobs = check_n_jobs(o["n_jobs"])
    X, sm, scaling, directions, gen = _prepared(X, o["metric"], o["exponent"], o["sigma"],
                                                o["approximation"], o["n_projections"], rng, True)
    codes, groups, _ = as_groups(labels, X.shape[0])
    pairs = list(combinations(range(len(groups)), 2))
    points, rho = scaling.data(X), scaling.semimetric(sm)
    if (len(pairs) > 1 and directions is None and not rho.precomputed
            and not rho.is_abs_difference(points) and fits(X.shape[0])):  # once, for all pairs
        points, rho = rho(points, points), resolve_semimetric("precomputed")
    rows = []
    for (i, j), stream in progress_bar(list(zip(pairs, gen.spawn(len(pairs)))), len(pairs),
                                       progress, "pairs of groups"):
        keep = np.flatnonzero((codes == i) | (codes == j))
        pair = (codes[keep] == j).astype(np.int8)
        sizes = np.bincount(pair, minlength=2)
        sums = block_sums(points[np.ix_(keep, keep)] if rho.precomputed else points[keep], rho,
                          directions=directions, n_jobs=n_jobs)
        res = _rescaled(relabeling_test(sums, pair, groups[[i, j]], sizes, o["statistic"],
                                        (B, exact, False), stream, o["ties"]), scaling)
        rows.append({"group_a": groups[i], "group_b": groups[j], "n_a": int(sizes[0]),
                     "n_b": int(sizes[1]), "statistic": res.statistic, "pvalue": res.pvalue})
    table = pd.DataFrame(rows)
    reject, adjusted = multipletests(table["pvalue"].to_numpy(), alpha=alpha, method=correction)[:2]
    table["pvalue_adjusted"], table["reject"] = adjusted, reject
    return PairwiseEnergyTestsResult(table=table, statistic_name=o["statistic"], n_resamples=B,
                                     correction=correction, alpha=alpha)
