"""Input validation shared by the public functions: each helper names the argument in its
message and never modifies what the caller passed (arrays are converted into new ones)."""

from __future__ import annotations

import datetime
from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.linalg import LinAlgError, cholesky

from ._config import check_fits
from ._missing import _as_array

__all__ = ["as_data", "as_groups", "as_labels", "as_weights", "check_correction", "check_exponent",
           "check_gram", "check_n_clusters", "check_n_init", "check_positive_int",
           "check_symmetric", "numeric_columns", "unit_scale", "weight_scale"]


def as_data(X, name: str, *, min_samples: int = 1) -> np.ndarray:
    """``X`` (array, list, pandas object of any real dtype) as a C-contiguous float64 array of
    shape (n, d), 1-D input as n points; dates, text, complex numbers, masked entries (missing:
    ``nan_policy`` drops them first), NaN and infinities are refused."""
    arr = X if type(X) is np.ndarray and X.dtype == np.float64 else _read_array(X, name)
    if arr.ndim == 0 or arr.ndim > 2:
        got = "a scalar" if arr.ndim == 0 else f"{arr.ndim} dimensions"
        raise ValueError(f"`{name}` must be a 1-D or 2-D array, got {got}.")
    arr = arr[:, None] if arr.ndim == 1 else arr
    if arr.shape[0] < min_samples:
        raise ValueError(f"`{name}` must hold at least {min_samples} sample(s), got "
                         f"{arr.shape[0]}.")
    if arr.shape[1] == 0:
        raise ValueError(f"`{name}` must have at least one feature (column).")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # a finite sum: every entry finite
        total = arr.sum()
    if not np.isfinite(total) and not np.isfinite(arr).all():
        raise ValueError(f"`{name}` contains NaN or infinite values.")
    return arr


def _read_array(X, name: str) -> np.ndarray:
    """:func:`as_data`'s reading of anything but a float64 array."""
    mask = np.ma.getmaskarray(X) if np.ma.isMaskedArray(X) else None
    if mask is not None and mask.any():
        rows = mask.reshape(mask.shape[0], -1).any(axis=1) if mask.ndim else mask.ravel()
        raise ValueError(f"`{name}` contains missing values (masked) in {int(rows.sum())} of "
                         f"{rows.size} row(s): drop those rows (a masked value is never used).")
    X = X if mask is None else np.ma.getdata(X)
    if hasattr(X, "to_numpy"):  # pandas, with any (extension) dtypes; pandas.NA as NaN
        numeric_columns(X, name)
        numbers = all(d.kind in "iufb" for d in (X.dtypes if X.ndim == 2 else [X.dtype]))
        X = X.to_numpy(dtype=np.float64, na_value=np.nan) if numbers else X.to_numpy()
    try:
        arr = np.asarray(X)
    except (TypeError, ValueError) as exc:  # ragged nested lists
        raise ValueError(f"`{name}` must be an array of numbers: {exc}") from None
    if arr.dtype.kind in "mM" or arr.dtype == object and _times(arr.ravel()):
        _refuse_times(name)
    if arr.dtype == object and arr.ndim:  # numbers held as objects; None and pandas.NA missing
        arr = np.where(pd.isna(arr), np.nan, arr)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"`{name}` must hold numbers only, got dtype {arr.dtype}.") from None
    if np.iscomplexobj(arr):
        raise ValueError(f"`{name}` must be real, got a complex array.")
    return arr


def numeric_columns(X, name: str) -> None:
    """Refuse a data frame with columns that hold no numbers, naming them (other inputs pass)."""
    if not isinstance(X, pd.DataFrame):
        return
    columns = [X.iloc[:, j] for j in range(X.shape[1])]  # names may repeat
    times = [c.name for c in columns if c.dtype.kind in "mM" or c.dtype == object
             and _times(c.to_numpy())]
    if times:
        _refuse_times(name, times)
    bad = [c.name for c in columns if not _numeric(c)]
    if bad:
        listed, one = ", ".join(map(repr, bad)), len(bad) == 1
        raise ValueError(
            f"`{name}` has {'a column' if one else 'columns'} {listed} that "
            f"{'is' if one else 'are'} not numeric: drop {'it' if one else 'them'} "
            f"({name}.drop(columns=[{listed}])), or pass a grouping column by name where a "
            "function takes labels.")


def _numeric(column: pd.Series) -> bool:
    """Whether a column holds numbers, or values that read as numbers (missing ones count)."""
    if column.dtype.kind in "iufbc":
        return True
    try:
        column.dropna().to_numpy(dtype=object).astype(np.float64)
    except (TypeError, ValueError):
        return False
    return True


def _times(values: np.ndarray) -> bool:
    """Whether an object array holds dates, times or durations (its first value not missing)."""
    first = next((v for v in values if v is not None and v is not pd.NaT
                  and not (isinstance(v, float) and v != v)), None)
    return isinstance(first, (datetime.date, datetime.time, datetime.timedelta, np.datetime64,
                              np.timedelta64))


def _refuse_times(name: str, columns=()) -> None:
    """A ``TypeError``: dates, times and durations have no distance without a unit."""
    listed = ", ".join(f'"{c}"' for c in columns)
    where = (f"`{name}` has {'a column' if len(columns) == 1 else 'columns'} "
             f"{', '.join(map(repr, columns))} of dates, times or durations"
             if columns else f"`{name}` holds dates, times or durations")
    drop = (f": drop {'it' if len(columns) == 1 else 'them'} ({name}.drop(columns=[{listed}]), "
            f"in R {name}[setdiff(names({name}), c({listed}))]), or convert"
            if columns else ": convert them")
    raise TypeError(
        f"{where}, whose distances depend on their unit{drop} to numbers in the unit you "
        "mean (days since a date: (d - d.min()).dt.days in pandas, as.numeric(d - min(d)) "
        "in R).")


def as_labels(labels, n: int, name: str = "labels") -> tuple[np.ndarray, np.ndarray]:
    """``(codes, levels)``: labels coded 0..k-1 (smallest signed type); ``levels`` in the order of
    a categorical's (an R factor's) categories present, as R's ``disco`` reports them, else
    sorted. Whole floats (R's ``c(1, 2, 1)``) are integers; NaN or None is refused."""
    categorical = isinstance(getattr(labels, "dtype", None), pd.CategoricalDtype) and (
        np.ndim(labels) == 1)
    if categorical:
        labels = pd.Categorical(labels)
        codes = np.asarray(labels.codes)
        present = np.bincount(codes[codes >= 0], minlength=len(labels.categories)) > 0
        levels = np.asarray(labels.categories)[present]
        codes = codes if present.all() else np.where(codes < 0, -1, np.cumsum(present)[codes] - 1)
        arr, missing = codes, codes < 0
    else:
        arr = _as_array(labels.to_numpy() if hasattr(labels, "to_numpy") else labels)
        missing = pd.isna(arr) if arr.dtype.kind == "O" else None
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be one-dimensional, got shape {arr.shape}.")
    if arr.shape[0] != n:
        raise ValueError(f"`{name}` must have one entry per sample ({n}), got {arr.shape[0]}.")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"`{name}` contains NaN or infinite values.")
    if missing is not None and missing.any():
        raise ValueError(f"`{name}` contains missing values (NaN or None) in "
                         f"{int(missing.sum())} of {n} row(s).")
    if categorical:
        return arr.astype(np.min_scalar_type(-len(levels) - 1)), _whole(levels)
    arr = _whole(arr)
    if arr.dtype.kind in "iub" and arr.size and int(arr.max()) - int(arr.min()) < 2**16:
        values = arr.view(np.uint8) if arr.dtype == bool else arr
        wide = np.uint64 if values.dtype.kind == "u" else np.int64  # offsets exact for any type
        offsets = (values.astype(wide) - wide(values.min())).astype(np.intp)
        present = np.bincount(offsets) > 0  # counted, not sorted: small ranges of integers
        levels = (np.flatnonzero(present).astype(wide) + wide(values.min())).astype(values.dtype)
        table = (np.cumsum(present) - 1).astype(np.min_scalar_type(-len(levels) - 1))
        return table[offsets], levels.view(bool) if arr.dtype == bool else levels
    try:
        levels, codes = np.unique(arr, return_inverse=True)
    except TypeError:
        raise ValueError(f"`{name}` must hold sortable values of a single type.") from None
    return codes.astype(np.min_scalar_type(-len(levels) - 1)), levels


def _whole(arr: np.ndarray) -> np.ndarray:
    """Floats that are all whole numbers (below 2^53) as int64; anything else as it is."""
    if arr.dtype.kind == "f" and arr.size and max(arr.max(), -arr.min()) < 2**53 and (
            arr == np.round(arr)).all():
        return arr.astype(np.int64)
    return arr


def as_groups(labels, n: int, name: str = "labels") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`as_labels` for grouped data, at least two groups: ``(codes, levels, sizes)``."""
    codes, levels = as_labels(labels, n, name)
    if len(levels) < 2:
        raise ValueError(f"`{name}` must define at least two groups, got {len(levels)}.")
    return codes, levels, np.bincount(codes, minlength=len(levels))


def as_weights(weights, n: int, name: str) -> np.ndarray | None:
    """Non-negative float64 weights of length ``n``, not all zero (None stays None)."""
    if weights is None:
        return None
    try:
        w = np.asarray(weights.to_numpy() if hasattr(weights, "to_numpy") else weights,
                       dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must be an array of numbers.") from None
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"`{name}` must be one-dimensional with one weight per sample ({n}), "
                         f"got shape {w.shape}.")
    if not np.isfinite(w).all():
        raise ValueError(f"`{name}` contains NaN or infinite values.")
    if (w < 0).any():
        raise ValueError(f"`{name}` must be non-negative.")
    if not w.any():
        raise ValueError(f"`{name}` is zero for every sample: at least one weight must be "
                         "positive.")
    return w


def weight_scale(w: np.ndarray | None) -> tuple[np.ndarray | None, int]:
    """``(w / 2^e, e)`` (exact) for weights whose largest lies beyond 2^±64, so that sums of
    w_i w_j rho_ij stay in float64, else ``(w, 0)``; statistics linear in w are times 2^e."""
    e = 0 if w is None else int(np.frexp(w.max())[1])
    return (w, 0) if abs(e) <= 64 else (np.ldexp(w, -e), e)


def unit_scale(X: np.ndarray) -> tuple[np.ndarray, int]:
    """``(X / 2^e, e)``: the largest |X| brought to [0.5, 1) exactly (e = 0 for zeros)."""
    top = float(max(X.max(), -X.min())) if X.size else 0.0
    e = int(np.frexp(top)[1]) if top > 0 else 0
    return (np.ldexp(X, -e) if e else X), e


def check_exponent(exponent) -> float:
    """The Euclidean exponent alpha in (0, 2] (França et al. eq. 52)."""
    if isinstance(exponent, bool) or not isinstance(exponent, Real):
        raise TypeError(f"`exponent` must be a real number, got {type(exponent).__name__}.")
    if not 0.0 < float(exponent) <= 2.0:
        raise ValueError(f"`exponent` must lie in (0, 2], got {float(exponent)}.")
    return float(exponent)


def check_correction(correction, alpha) -> tuple[str, float]:
    """A ``method`` of statsmodels' ``multipletests`` and the family-wise level in (0, 1)."""
    from statsmodels.stats.multitest import multipletests

    if isinstance(alpha, bool) or not isinstance(alpha, Real):
        raise TypeError(f"`alpha` must be a real number in (0, 1), got {type(alpha).__name__} "
                        f"{alpha!r}.")
    if not 0.0 < float(alpha) < 1.0:  # also refuses NaN
        raise ValueError(f"`alpha` must lie in (0, 1), got {alpha}.")
    if not isinstance(correction, str):
        raise TypeError("`correction` must be the name of a statsmodels multipletests method "
                        f"(e.g. 'holm'), got {correction!r}.")
    try:
        multipletests([0.5], alpha=0.05, method=correction)
    except ValueError:
        raise ValueError("`correction` must be a method of statsmodels' multipletests ('holm', "
                         f"'bonferroni', 'fdr_bh', ...), got {correction!r}.") from None
    return correction, float(alpha)


def check_positive_int(value, name: str, *, minimum: int = 1) -> int:
    """``value``, an integer no smaller than ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"`{name}` must be an integer, got {type(value).__name__}.")
    if value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}, got {value}.")
    return int(value)


#: The most restarts (the best of 10**4 misses what one start in 1000 finds with p < 5e-5).
MAX_INIT = 10**4


def check_n_init(value, n_samples: int) -> int:
    """``n_init``, from 1 to :data:`MAX_INIT`, whose restarts' labels (n each, all kept until the
    best is chosen) fit the memory budget."""
    n_init = check_positive_int(value, "n_init")
    if n_init > MAX_INIT:
        raise ValueError(
            f"`n_init` must be at most {MAX_INIT:,} (the best of that many starts misses a "
            "partition that one start in a thousand finds with probability below 5e-5; more only "
            f"costs time), got {n_init:,}.")
    check_fits(f"`n_init`={n_init:,} restarts of {n_samples:,} labels each",
               8 * n_init * n_samples, "a smaller `n_init`")
    return n_init


def check_n_clusters(value, n_samples: int, *, minimum: int = 1) -> int:
    """``n_clusters``, an integer from ``minimum`` to ``n_samples``."""
    k = check_positive_int(value, "n_clusters", minimum=minimum)
    if k > n_samples:
        raise ValueError(f"`n_clusters` must be at most n_samples ({n_samples}), got {k}.")
    return k


def check_symmetric(A: np.ndarray, name: str, context: str) -> None:
    """The square ``A`` symmetric to 1e-12 of its largest entry, in bands of rows."""
    n, tol = A.shape[0], 1e-12 * max(A.max(), -A.min(), 1e-300)
    step = max(1, 2**16 // n)
    for a in range(0, n, step):
        if np.abs(A[a : a + step] - A[:, a : a + step].T).max() > tol:
            raise ValueError(f"`{name}` must be symmetric for {context}.")


#: Gram matrices of at most GRAM_CHOLESKY_MAX points also get a Cholesky check (0.3 s at most);
#: violations up to GRAM_RTOL of the largest diagonal entry pass (a centred kernel of rank < n
#: has eigenvalues at the rounding level of the kernel it came from).
GRAM_CHOLESKY_MAX, GRAM_RTOL = 4096, 1e-6


def check_gram(G: np.ndarray, name: str) -> None:
    """Refuse a symmetric ``G`` that is not a Gram matrix beyond rounding (delta = GRAM_RTOL of
    its largest diagonal entry): a diagonal entry below -delta, G_ij^2 > (G_ii + delta)(G_jj +
    delta) (in bands of rows of G / 2^e), or a failed Cholesky factorisation of G + delta I."""
    n = G.shape[0]
    if n == 0:
        return
    top = max(float(G.max()), -float(G.min()))
    if top == 0.0:
        raise ValueError(f"`{name}` is zero everywhere: a Gram matrix, but of points that all "
                         "coincide (at the origin), which leave nothing to cluster.")
    shift = int(np.frexp(max(top, 1e-300))[1])
    diag = np.ldexp(np.diag(G), -shift)
    delta = GRAM_RTOL * max(float(diag.max()), 0.0)
    if (diag < -delta).any() or diag.max() <= 0:
        i = int(np.argmin(diag))
        raise ValueError(f"`{name}` is not positive semidefinite: its diagonal entry {i} is "
                         f"{np.diag(G)[i]:.3g} <= 0.")
    d, step = np.maximum(diag, 0.0) + delta, max(1, 2**16 // n)
    for a in range(0, n, step):
        band = np.ldexp(G[a : a + step], -shift)
        excess = band * band - np.outer(d[a : a + step], d)
        if (excess > 0).any():
            i, j = np.unravel_index(int(np.argmax(excess)), excess.shape)
            raise ValueError(f"`{name}` is not positive semidefinite: entry ({a + i}, {j}) breaks "
                             "the Cauchy-Schwarz inequality G_ij^2 <= G_ii G_jj of a Gram matrix.")
    if n <= GRAM_CHOLESKY_MAX:
        check_fits(f"the Cholesky check of the {n} x {n} Gram matrix", 8 * n * n)
        scaled = np.ldexp(G, -shift)
        scaled[np.diag_indices(n)] += delta
        try:
            cholesky(scaled, lower=True, check_finite=False, overwrite_a=True)
        except LinAlgError:
            raise ValueError(
                f"`{name}` is not positive semidefinite (an eigenvalue below -{GRAM_RTOL:g} of its "
                "largest diagonal entry): a kernel k-groups objective on it can be negative. Pass "
                "a Gram matrix, or a distance matrix with metric='precomputed'.") from None
