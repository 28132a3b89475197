"""The descriptive side of :func:`~energystats.choose_k`: W and S of ``KGroups(k)`` for
k = 1..k_max (the curve of W against k) and the gap statistic over uniform references on the
principal-axes box (Tibshirani, Walther & Hastie 2001, Sec. 3-4). Neither has an error
guarantee; the decision is the node tests' (:mod:`._k_tests`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._parallel import n_workers, run_tasks
from .kgroups import KGroups

__all__ = ["Curve", "gap_choice", "w_curve"]


def _fit(X, k: int, stream, options: dict) -> KGroups:
    """KGroups(k) on X (a joblib task)."""
    return KGroups(k, random_state=stream, **options).fit(X)


#: W below this share of T (= W at k = 1) is the rounding of W = T - S, not a dispersion.
W_ROUNDING = 1e-12


def _log(W) -> np.ndarray:
    """log W over k = 1, 2, ..., NaN where W is 0 to rounding (k at least the number of
    distinct points: nothing is left within the clusters, and the gap is undefined)."""
    W = np.asarray(W, dtype=float)
    out = np.full(W.shape, np.nan)
    np.log(W, out=out, where=W > W_ROUNDING * W[0])
    return out


def _reference_log_w(X, box, rotation, centre, stream, k_max: int, options: dict) -> np.ndarray:
    """log W of KGroups(k), k = 1..k_max, on one uniform sample of the principal-axes box
    (a joblib task)."""
    low, high = box
    Z = stream.uniform(low, high, size=(X.shape[0], low.size))
    R = Z @ rotation.T + centre
    streams = stream.spawn(k_max)
    fits = [
        KGroups(k, random_state=s, **options).fit(R) for k, s in zip(range(1, k_max + 1), streams)
    ]
    return _log([fit.W_ for fit in fits])


def gap_choice(gap: np.ndarray, se: np.ndarray, rule: str = "first") -> int | None:
    """The gap statistic's k over k = 1, 2, ...: ``"first"``, Tibshirani, Walther & Hastie
    (2001), Sec. 3, the smallest k with gap(k) >= gap(k + 1) - s(k + 1) (k_max when there is
    none); ``"global"``, the smallest k with gap(k) >= gap(k*) - s(k*), k* the largest gap
    (R's ``cluster::maxSE`` "globalSEmax"). None when no gap is defined (a NaN gap ends the
    curve: past it W is 0)."""
    defined = int(np.argmin(np.isfinite(gap))) if not np.isfinite(gap).all() else gap.size
    if defined == 0:
        return None
    gap, se = gap[:defined], se[:defined]
    if rule == "global":
        top = int(np.argmax(gap))
        return int(np.argmax(gap >= gap[top] - se[top])) + 1
    return next((i + 1 for i in range(defined - 1) if gap[i] >= gap[i + 1] - se[i + 1]), defined)


@dataclass(frozen=True)
class Curve:
    """W, S and the gap statistic of ``KGroups(k)``, k = 1..k_max, on the data: arrays over k
    (NaN without references, or where W is 0), the fits and the gap statistic's k by the
    first-SE-max and the global-SE-max rules."""

    models: list
    W: np.ndarray
    S: np.ndarray
    log_W: np.ndarray
    ref_log_W: np.ndarray
    gap: np.ndarray
    gap_se: np.ndarray
    k_gap: int | None
    k_gap_global: int | None


def _run(function, calls, shared, n_jobs, advance) -> list:
    """function(**shared, **call) for each call, as joblib tasks with more than one worker."""
    if n_workers(n_jobs) > 1:
        out = run_tasks(function, calls, n_jobs, shared=shared)
        advance(len(calls))
        return out
    out = []
    for call in calls:
        out.append(function(**shared, **call))
        advance()
    return out


def w_curve(X, k_max, fit_streams, reference_streams, options, n_jobs, advance) -> Curve:
    """The curve: ``KGroups(k)`` on X with the ``fit_streams``, and the gap statistic over one
    uniform sample of the principal-axes box per reference stream; ``advance()`` after each
    fit and each reference set (a progress bar)."""
    calls = [{"k": k, "stream": s} for k, s in zip(range(1, k_max + 1), fit_streams)]
    models = _run(_fit, calls, {"X": X, "options": options}, n_jobs, advance)
    W = np.array([m.W_ for m in models])
    S = np.array([m.objective_ for m in models])
    log_W = _log(W)
    nan = np.full(k_max, np.nan)
    if not reference_streams:
        return Curve(models, W, S, log_W, nan, nan, nan, None, None)
    centre = X.mean(axis=0)
    _, _, Vt = np.linalg.svd(X - centre, full_matrices=False)
    Z = (X - centre) @ Vt.T
    box = (Z.min(axis=0), Z.max(axis=0))
    shared = {
        "X": X,
        "box": box,
        "rotation": Vt.T,
        "centre": centre,
        "k_max": k_max,
        "options": options,
    }
    ref = np.array(
        _run(_reference_log_w, [{"stream": s} for s in reference_streams], shared, n_jobs, advance)
    )
    ref_log_W = ref.mean(axis=0)
    gap = ref_log_W - log_W
    gap_se = ref.std(axis=0) * np.sqrt(1.0 + 1.0 / len(reference_streams))
    choices = (gap_choice(gap, gap_se), gap_choice(gap, gap_se, "global"))
    return Curve(models, W, S, log_W, ref_log_W, gap, gap_se, *choices)
