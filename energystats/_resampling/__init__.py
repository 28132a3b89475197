r"""One resampling engine: what every Monte Carlo test of energystats shares.

Every test here compares an observed statistic t with its values :math:`t^*_1, \dots,
t^*_B` on resamples drawn under H0, and the families differ only in how a resample is made
and evaluated, their *engine* (:mod:`.engines`):

* :class:`Relabelings` of the pooled points (the k-sample energy tests, :mod:`._homogeneity`);
* :class:`Pairings`, permutations of y's rows against x's (every test of independence,
  :mod:`._independence`);
* :class:`Draws` from the fitted null (the goodness-of-fit bootstraps, :mod:`._gof`; the
  Gaussian samples :func:`~energystats.cluster_test` re-clusters).

This package owns the rest, as ``scipy.stats._resampling`` does for scipy's resampling tests:
the validation of ``n_resamples``, ``exact``, ``batch`` and ``progress`` (:func:`check_options`);
the one loop over resamples (:func:`null_distribution`): the choice between enumerating every
distinct resample and drawing at random, with its cap (:func:`use_exact`), the blocks within
the working memory, threads or joblib tasks (:func:`plan`, the one place they are decided),
one progress bar per call (:func:`progress_bar`, from :mod:`._progress`); and the one p-value
(:func:`pvalue`), with the one rule of its tie tolerance (:func:`tie_scale`) and a refusal of a
statistic that is not a number. A new test family brings an engine and calls these; outside
this package no module runs its own loop over resamples (``tests/resampling/test_resampling.py``).
"""

from .._progress import check_progress, progress_bar
from .engines import Draws, Pairings, Relabelings, all_relabelings, count_relabelings
from .loop import (
    Null,
    Plan,
    batch_size,
    evaluate_resamples,
    null_distribution,
    plan,
    relabeling_count,
)
from .options import MAX_EXACT, MAX_RESAMPLES, Options, check_options, check_resamples, use_exact
from .pvalues import TIE_RTOL, check_observed, pvalue, tie_scale

__all__ = [
    "MAX_EXACT",
    "MAX_RESAMPLES",
    "TIE_RTOL",
    "Draws",
    "Null",
    "Options",
    "Pairings",
    "Plan",
    "Relabelings",
    "all_relabelings",
    "batch_size",
    "check_observed",
    "check_options",
    "check_progress",
    "check_resamples",
    "count_relabelings",
    "evaluate_resamples",
    "null_distribution",
    "plan",
    "progress_bar",
    "pvalue",
    "relabeling_count",
    "tie_scale",
    "use_exact",
]
