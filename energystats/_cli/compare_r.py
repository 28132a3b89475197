"""energystats and R's ``energy`` side by side (``energystats compare-r``, validation/compare_r.py).

:func:`compare_r` runs both on data sets with known groups and returns one agreement table:
each row is one quantity R reports, the largest relative difference between energystats and R
over its entries (for a Monte Carlo p-value: the absolute difference, allowed 4 binomial
standard errors), whether it agrees, and R's time over ours. Needs the optional extra ``r``
(rpy2) and R with ``energy``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

import numpy as np
import pandas as pd

from .._cluster import KGroups, energy_hclust
from .._gof import mvnorm_statistic, mvnorm_test
from .._homogeneity import dispersion, energy_test
from .._independence import dcor, dcor_ttest, dcov, dcov_test, pdcor
from .._progress import progress_bar
from .._rbridge import r_call, r_factor, r_field, r_matrix, to_numpy
from .._scale import pairwise
from .._semimetric import resolve_semimetric
from ..datasets import load_iris

__all__ = ["battery", "compare_r"]

#: Largest relative difference of a quantity that agrees with R's.
RTOL = 1e-10
#: Largest |value| R's ``energy`` takes: it computes Euclidean distances as square roots of sums
#: of squares, which overflow to Inf beyond about 1e154 (R then fails or returns NaN).
R_MAX_ABS = 1e150


def battery() -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """Iris by species, then normal data with unequal groups for k = 2..5 (seeded)."""
    iris = load_iris()
    yield "iris", iris.iloc[:, :4].to_numpy(), pd.factorize(iris["Species"])[0]
    rng = np.random.default_rng(7)
    for k in (2, 3, 4, 5):
        sizes = rng.integers(20, 200, size=k)
        codes = np.repeat(np.arange(k), sizes)
        yield (f"normal k={k} n={sizes.sum()}",
               rng.normal(size=(sizes.sum(), 5)) + 0.3 * codes[:, None], codes)


def _rel(a, b) -> float:
    """Largest relative difference; 0 where equal or both NaN, NaN where only one is not finite."""
    a, b = np.atleast_1d(np.asarray(a, float)), np.atleast_1d(np.asarray(b, float))
    with np.errstate(invalid="ignore"):
        d = np.abs(a - b) / np.maximum(np.abs(b), 1e-300)
    d = np.where((a == b) | (np.isnan(a) & np.isnan(b)), 0.0, d)
    return float(np.nan if np.isnan(d).any() else np.max(d))


def _timed(fn):
    """``fn()`` and the seconds it took."""
    t0 = time.perf_counter()
    return fn(), time.perf_counter() - t0


def _row(data, alpha, what, difference, agree, ratio) -> dict:
    """One row of the table."""
    return {"data": data, "alpha": alpha, "R quantity": what, "difference": difference,
            "agree": bool(agree), "R time / es time": round(ratio, 1)}


def _close(data, alpha, what, ours, theirs, ratio) -> dict:
    """The row of a quantity that must agree with R's to :data:`RTOL`."""
    d = _rel(ours, theirs)
    return _row(data, alpha, what, f"{d:.1e}", d <= RTOL, ratio)


def _same(data, what, ours, theirs) -> dict:
    """:func:`_close` on ``ours()`` and R's ``theirs()``, each timed."""
    (mine, t_es), (value, t_r) = _timed(ours), _timed(lambda: to_numpy(theirs())[0])
    return _close(data, 1.0, what, mine, value, t_r / t_es)


def _pvalue(data, what, p, r_p, n_resamples, ratio, allowed=None) -> dict:
    """The row of a Monte Carlo p-value, by default within 4 standard errors + 2 / (B + 1)."""
    if allowed is None:  # of the difference of two p-values of B resamples each, at their mean
        m = (p + r_p) / 2
        allowed = 4 * np.sqrt(2 * m * (1 - m) / (n_resamples + 1)) + 2 / (n_resamples + 1)
    return _row(data, 1.0, f"{what} p ({p:.3f} vs {r_p:.3f})", f"{abs(p - r_p):.3f}",
                abs(p - r_p) <= allowed, ratio)


def _dispersion_rows(name, X, xr, codes, sizes, a) -> list[dict]:
    """R's ``edist``, ``disco`` (S, W, T, F) and, for exponent 1, ``eqdist.e``."""
    iu = np.triu_indices(len(sizes), 1)
    ours, t_es = _timed(lambda: dispersion(X, codes, exponent=a))
    edist, t_edist = _timed(
        lambda: to_numpy(r_call("as.matrix", r_call("edist", xr, sizes, alpha=a))))
    disco, t_disco = _timed(lambda: r_call("disco", xr, r_factor(codes), index=a, R=0))
    checks = [("edist", ours.pairwise[iu], edist[iu], t_edist)]
    checks += [(f"disco {field} ({key})", getattr(ours, key), to_numpy(r_field(disco, field)),
                t_disco) for field, key in (("between", "S"), ("within", "W"), ("total", "T"),
                                            ("statistic", "F"))]
    if a == 1.0:
        e, t_e = _timed(lambda: to_numpy(r_call("eqdist.e", xr, sizes)))
        checks.append(("eqdist.e", ours.pairwise[iu].sum(), e, t_e))
    return [_close(name, a, what, mine, theirs, t_r / t_es) for what, mine, theirs, t_r in checks]


def _etest_rows(name, X, codes, xr, sizes, n_resamples, seed) -> list[dict]:
    """R's ``eqdist.etest``: the statistic, and the p-value sampled as R samples."""
    test, t_es = _timed(lambda: energy_test(X, codes, statistic="E", n_resamples=n_resamples,
                                            exact=False, ties="strict", rng=seed, progress=False))
    r_call("set.seed", seed)
    etest, t_r = _timed(lambda: r_call("eqdist.etest", xr, sizes, R=n_resamples))
    r_p = to_numpy(r_field(etest, "p.value"))[0]
    return [_close(name, 1.0, "eqdist.etest statistic", test.statistic,
                   to_numpy(r_field(etest, "statistic"))[0], t_r / t_es),
            _pvalue(name, "eqdist.etest", test.pvalue, r_p, n_resamples, t_r / t_es)]


def _kgroups_rows(name, X, xr, k: int, start) -> list[dict]:
    """R's ``kgroups`` from ``start``: the same labels, and from R's a Hartigan W no larger."""
    ours, t_es = _timed(lambda: KGroups(k, algorithm="r-kgroups", init=start).fit(X))
    kg, t_r = _timed(lambda: r_call("kgroups", xr, k, iter_max=100, cluster=start + 1))
    same = bool(np.array_equal(ours.labels_ + 1, to_numpy(r_field(kg, "cluster"))))
    r_W = float(to_numpy(r_field(kg, "W"))[0])
    hart, t_hart = _timed(lambda: KGroups(k, init=ours.labels_, random_state=0).fit(X))
    return [_row(name, 1.0, "kgroups labels (r-kgroups mode)", "identical" if same else "differ",
                 same, t_r / t_es),
            _row(name, 1.0, f"kgroups W: hartigan {hart.W_:.4f} vs R {r_W:.4f}",
                 f"{(hart.W_ - r_W) / max(abs(r_W), 1e-300):.1e}", hart.W_ <= r_W * (1 + 1e-12),
                 t_r / t_hart)]


def _hclust_rows(name, X, xr, exponents) -> list[dict]:
    """R's ``energy.hclust``: merge and order identical (unless tied), heights to RTOL."""
    rows = []
    for a in exponents:
        ours, t_es = _timed(lambda: energy_hclust(X, exponent=a))
        tree, t_r = _timed(lambda: r_call("energy.hclust", r_call("dist", xr), alpha=a))
        same = (np.array_equal(ours.merge, to_numpy(r_field(tree, "merge")))
                and np.array_equal(ours.order, to_numpy(r_field(tree, "order"))))
        d = _rel(ours.height, to_numpy(r_field(tree, "height")))
        # equal merge costs may be taken in either order: then the heights must still agree
        tied = not same and bool((np.diff(np.sort(pairwise(X, resolve_semimetric(), held=True)[
            np.triu_indices(len(X), 1)])) == 0).any())
        what = "identical" if same else "differ (tied distances)" if tied else "differ"
        rows += [_row(name, a, "energy.hclust merge and order", what, same or (tied and d <= RTOL),
                      t_r / t_es),
                 _row(name, a, "energy.hclust height", f"{d:.1e}", d <= RTOL, t_r / t_es)]
    return rows


def _test_rows(name, X, xr, codes, n_resamples, seed) -> list[dict]:
    """``mvnorm.e`` and ``mvnorm.test``, then the distance covariance family of the first two
    columns and the others (or of the data and the groups, for one column) and ``dcov.test``."""
    rows = [_same(name, "mvnorm.e", lambda: mvnorm_statistic(X), lambda: r_call("mvnorm.e", xr))]
    test, t_es = _timed(lambda: mvnorm_test(X, n_resamples=n_resamples, rng=seed, progress=False))
    r_test, t_r = _timed(lambda: r_call("mvnorm.test", xr, R=n_resamples))
    r_p = to_numpy(r_field(r_test, "p.value"))[0]
    rows.append(_pvalue(name, "mvnorm.test", test.pvalue, r_p, n_resamples, t_r / t_es,
                        4 * np.sqrt(max(r_p * (1 - r_p), 1 / n_resamples) / n_resamples)))
    fac, labels = r_factor(codes), np.asarray(codes).astype(str)
    factor = ("dcor with the groups (factor)", lambda: dcor(X, labels),
              lambda: r_call("dcor", r_matrix(X), fac))
    if X.shape[1] == 1:  # no second variable: only dcor with the groups
        return rows + [_same(name, *factor)]
    split = min(2, X.shape[1] - 1)
    x, y = X[:, :split], X[:, split:]
    xr, yr = r_matrix(x), r_matrix(y)
    rows += [_same(name, *check) for check in [
        ("dcov", lambda: dcov(x, y), lambda: r_call("dcov", xr, yr)),
        ("dcor", lambda: dcor(x, y), lambda: r_call("dcor", xr, yr)),
        ("dcor index 0.5", lambda: dcor(x, y, exponent=0.5),
         lambda: r_call("dcor", xr, yr, index=0.5)),
        ("dcovU", lambda: dcov(x, y, estimator="U"), lambda: r_call("dcovU", xr, yr)),
        ("bcdcor", lambda: dcor(x, y, estimator="U"), lambda: r_call("bcdcor", xr, yr)),
        ("dcorT", lambda: dcor_ttest(x, y).statistic, lambda: r_call("dcorT", xr, yr)), factor,
        ("pdcor removing the groups", lambda: pdcor(x, y, labels),
         lambda: r_call("pdcor", xr, yr, fac))]]  # pdcor last, as R's table
    test, t_es = _timed(lambda: dcov_test(x, y, n_resamples=n_resamples, rng=seed,
                                          progress=False))
    r_test, t_r = _timed(lambda: r_call("dcov.test", xr, yr, R=n_resamples))
    r_p = to_numpy(r_field(r_test, "p.value"))[0]
    return rows + [_pvalue(name, "dcov.test", test.pvalue, r_p, n_resamples, t_r / t_es)]


def compare_r(datasets: Iterable[tuple[str, np.ndarray, np.ndarray]] | None = None, *,
              exponents: tuple[float, ...] = (1.0, 0.5), n_resamples: int = 999, seed: int = 1,
              etest: bool = True, progress: bool = False) -> pd.DataFrame:
    """Agreement table of energystats and R on ``(name, X, group codes)`` triples.

    Compared: ``edist`` (pairwise statistics), ``disco`` (between S, within W, total T and the
    F ratio) for each exponent, ``eqdist.e``, the ``eqdist.etest`` statistic (to 1e-10) and
    p-value (within Monte Carlo error: the random streams differ), and ``kgroups`` from a
    balanced random start (the ``"r-kgroups"`` mode must give R's labels, exact Hartigan from
    R's result a W no larger), ``energy.hclust`` (merge and order identical, heights to 1e-10)
    for each exponent, ``mvnorm.e`` (to 1e-10) with the ``mvnorm.test`` p-value of the
    pooled data (within Monte Carlo error), and the distance covariance family (``dcov``,
    ``dcor``, ``dcovU``, ``bcdcor``, ``dcorT``, ``dcor`` against the groups as a factor,
    ``pdcor`` removing them, to 1e-10; the ``dcov.test`` p-value within Monte Carlo error).
    ``datasets`` defaults to :func:`battery`. Group codes are integers 0..k-1. ``etest=False``
    leaves out the tests, whose p-values mean nothing when the groups are clusters found from
    the same data.
    """
    rows, items = [], list(battery() if datasets is None else datasets)
    for name, X, _ in items:  # what R's energy cannot compare, refused before any R call
        largest = float(np.abs(np.asarray(X, dtype=float)).max())
        if not np.isfinite(largest):
            raise ValueError(f"compare-r needs finite values in {name!r}.")
        if largest > R_MAX_ABS:
            raise ValueError(
                "compare-r: R's energy squares the values to compute distances, which overflows "
                f"beyond about 1e154 (largest |value| in {name!r} is {largest:.3g}): divide the "
                "data by a constant first.")
    for name, X, codes in progress_bar(items, len(items), progress, "compare-r"):
        order = np.argsort(codes, kind="stable")  # by group: edist, eqdist.* take sizes
        codes, X = np.asarray(codes)[order], np.asarray(X, dtype=float)[order]
        sizes, xr = np.bincount(codes), r_matrix(X)
        for a in exponents:
            rows += _dispersion_rows(name, X, xr, codes, sizes, a)
        if etest:
            rows += _etest_rows(name, X, codes, xr, sizes, n_resamples, seed)
        start = np.random.default_rng(seed).permutation(np.arange(len(codes)) % len(sizes))
        rows += _kgroups_rows(name, X, xr, len(sizes), start)
        rows += _hclust_rows(name, X, xr, exponents)
        if etest:
            rows += _test_rows(name, X, xr, codes, n_resamples, seed)
    return pd.DataFrame(rows)
