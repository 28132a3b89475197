"""The declared bases of results: a test and a clustering, each field and its documentation
written once, and what the plots ask of a result.

:class:`TestResult` is every hypothesis test's result (statistic, p-value, null distribution,
resamples, exact), whatever the family: "is a test" means ``isinstance(result, TestResult)``,
never a guess from field names. :class:`ClusteringResult` is every partition of the
observations (labels, -1 on rows dropped for missing values). Both derive from
:class:`~energystats._results.ResultMixin` (the omitted rows, the data's name, printing), and
a result that is both, a test of clusters, derives from both.

A plot asks the result what to draw, so that a new test brings its own picture:
``plot_null_distribution`` draws the :class:`NullPanel` s of ``result._null_panels()`` (the
resampled null or a reference density, the observed statistic, the upper tail the p-value
counts, the titles), and ``plot_gof`` the :class:`FitPanel` of ``result._fit_panel(sample)``
(the data against the fitted distribution), which is ``None`` for a test that fits none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ._results import ResultMixin, _number, format_pvalue

__all__ = ["ClusteringResult", "FitPanel", "NullPanel", "Sample", "TestResult"]


@dataclass(frozen=True)
class NullPanel:
    """What one panel of ``plot_null_distribution`` draws: the observed statistic and its
    p-value against a resampled null (``null``, a histogram whose values at or above the
    statistic, the ones the p-value counts, are shaded) or a reference density (``density``,
    drawn over ``support`` widened to the statistic, its upper tail shaded).

    ``test`` is the panel's title; ``name`` names the panel among several of one result (a
    Poisson test's ``"M-CvM"``), ``test`` then the figure's title.
    """

    test: str
    statistic_label: str
    statistic: float
    pvalue: float
    null_label: str
    null: np.ndarray | None = None
    density: Callable | None = None
    support: tuple[float, float] | None = None
    name: str | None = None


@dataclass(frozen=True)
class Sample:
    """The data passed to ``plot_gof``: its rows without missing values, the shape it was
    given in and its name (a column's or a Series' name, else the result's data name)."""

    values: np.ndarray
    shape: tuple
    name: str

    def _rows(self, n_samples: int) -> None:
        if self.values.shape[0] != n_samples:
            raise ValueError(
                f"`x` has {self.values.shape[0]} values without missing ones, `result` was "
                f"computed on {n_samples}: pass the data the test was run on."
            )

    def column(self, n_samples: int) -> np.ndarray:
        """The one variable of a univariate test, checked against its sample size."""
        if self.values.shape[1] != 1:
            raise ValueError(
                "`x` must be one-dimensional, the data the test was run on, "
                f"got shape {self.shape}."
            )
        self._rows(n_samples)
        return self.values[:, 0]

    def matrix(self, n_samples: int, n_features: int) -> np.ndarray:
        """The n x d data of a multivariate test, checked against its shape."""
        if self.values.shape[1] != n_features:
            raise ValueError(
                f"`x` must have the {n_features} columns the test was run on, "
                f"got shape {self.shape}."
            )
        self._rows(n_samples)
        return self.values


@dataclass(frozen=True)
class FitPanel:
    """What ``plot_gof`` draws: ``sample`` (named ``name``) against ``distribution`` (a frozen
    ``scipy.stats`` distribution, in the legend as ``label``): a QQ plot and the distribution
    functions, or for a ``discrete`` one the probabilities and the step functions; the
    figure's title is ``summary`` (the test and its p-value)."""

    sample: np.ndarray
    name: str
    distribution: object
    label: str
    summary: str
    discrete: bool = False


@dataclass(frozen=True, repr=False)
class TestResult(ResultMixin):
    """The result of a hypothesis test: it unpacks as ``statistic, pvalue = result`` (as
    scipy's results do) and prints as R's ``htest``.

    Attributes
    ----------
    statistic : float
        The test statistic, under the name its printed line gives it.
    pvalue : float
        The p-value. Against a null drawn at random:
        (1 + #{null >= statistic}) / (n_resamples + 1), never 0; when every distinct
        resample was enumerated (``exact``): the share of them at or above the statistic;
        values equal to the statistic up to rounding count as ties. Against a reference
        distribution: its upper tail at the statistic.
    null_distribution : ndarray of shape (n_resamples,) or None
        The statistic of each resample (relabeling, permutation or sample drawn under the
        null hypothesis); None where the p-value comes from a reference distribution.
    n_resamples : int or None
        Resamples in ``null_distribution`` (all the distinct ones when ``exact``); 0 or None
        where the p-value comes from a reference distribution.
    exact : bool
        Whether every distinct resample was enumerated, so that the p-value is exact.
    """

    __test__ = False  # not a pytest test class, although its name starts with "Test"

    statistic: float
    pvalue: float
    null_distribution: np.ndarray | None = field(repr=False)
    n_resamples: int | None
    exact: bool = field(default=False, kw_only=True)

    _doc_place = "head"
    _header = ("data_name", "statistic", "pvalue", "statistic_name", "n_resamples", "exact")
    #: the statistic's name on the printed line
    _statistic_label = "statistic"
    #: what ``n_resamples`` counts, for the p-value line
    _resamples = "permutations"

    def __iter__(self):
        """``statistic, pvalue = result``, as scipy's results unpack."""
        return iter((self.statistic, self.pvalue))

    def _pvalue_note(self) -> str:
        """What the p-value rests on, in brackets after it."""
        if not self.n_resamples:
            return ""
        if self.exact:
            return f"exact: all {self.n_resamples} {self._resamples}"
        return f"{self.n_resamples} {self._resamples}"

    def _statistic_line(self) -> str:
        if np.ndim(self.statistic) != 0:  # several statistics: the result's table shows them
            return ""
        note = self._pvalue_note()
        return (
            f"{self._statistic_label} = {_number(self.statistic)}, "
            f"p-value {format_pvalue(float(self.pvalue))}" + (f" ({note})" if note else "")
        )

    def _statistic_rows(self) -> list[tuple[str, str]]:
        if np.ndim(self.statistic) != 0:
            return []
        note = self._pvalue_note()
        p = format_pvalue(float(self.pvalue)).removeprefix("= ")
        return [
            (self._statistic_label, _number(self.statistic)),
            ("p-value", p + (f" ({note})" if note else "")),
        ]

    # --- what the plots draw -------------------------------------------------------------

    def _permutation_label(self, unit: str) -> str:
        """The legend of a permutation null of ``n_resamples`` ``unit``."""
        if self.exact:
            return f"exact permutation null (all {self.n_resamples:,} {unit})"
        return f"permutation null ({self.n_resamples:,} {unit})"

    def _null_panels(self) -> tuple[NullPanel, ...]:
        """What ``plot_null_distribution`` draws: here the null distribution against the
        statistic, titled by the test; a test says more by overriding it."""
        return (
            NullPanel(
                self._title or type(self).__name__,
                self._statistic_label,
                self.statistic,
                self.pvalue,
                self._pvalue_note(),
                null=self.null_distribution,
            ),
        )

    def _fit_panel(self, sample: Sample) -> FitPanel | None:
        """What ``plot_gof`` draws for a goodness-of-fit test; None for a test that fits no
        distribution."""
        return None


@dataclass(frozen=True, repr=False)
class ClusteringResult(ResultMixin):
    """A partition of the observations into clusters; printed with the clusters' sizes.

    Attributes
    ----------
    labels : ndarray of shape (n,)
        The cluster of each observation, numbered 0, 1, ...; -1 on the rows dropped for
        missing values (``nan_policy="omit"``), so that the labels align with the data.
    """

    labels: np.ndarray = field(kw_only=True, repr=False)

    def _details(self) -> list[tuple[str, str]]:
        sizes = np.bincount(self.labels[self.labels >= 0]).tolist()
        return super()._details() + [("cluster sizes", ", ".join(map(str, sizes)))]
