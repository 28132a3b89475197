"""Input validation shared by every public function.

Each helper names the offending argument in its message and never modifies
what the caller passed in: arrays are copied to float64 (``np.asarray`` with a
dtype conversion, or an explicit copy when the input already is float64 and
will be changed later by the caller).
"""

from __future__ import annotations

import datetime
from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.linalg import LinAlgError, cholesky

from ._config import check_fits
from ._missing import _as_array

__all__ = [
    "as_data",
    "as_groups",
    "as_labels",
    "as_weights",
    "unit_scale",
    "weight_scale",
    "check_correction",
    "check_exponent",
    "check_n_clusters",
    "check_n_init",
    "check_positive_int",
    "check_symmetric",
    "numeric_columns",
]


def as_data(X, name: str, *, min_samples: int = 1) -> np.ndarray:
    """Return ``X`` as a C-contiguous float64 array of shape (n, d).

    One-dimensional input is read as n points in one dimension. Lists,
    pandas DataFrames/Series and any real dtype are accepted. A masked array with masked
    entries is refused (a mask means missing: the functions with ``nan_policy`` drop
    those rows before this check).
    """
    # a float64 ndarray (the exact type) has nothing to read or convert: it is its own array
    arr = X if type(X) is np.ndarray and X.dtype == np.float64 else _read_array(X, name)
    if arr.ndim == 0:
        raise ValueError(f"`{name}` must be a 1-D or 2-D array, got a scalar.")
    if arr.ndim > 2:
        raise ValueError(f"`{name}` must be a 1-D or 2-D array, got {arr.ndim} dimensions.")
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.shape[0] < min_samples:
        raise ValueError(
            f"`{name}` must hold at least {min_samples} sample(s), got {arr.shape[0]}."
        )
    if arr.shape[1] == 0:
        raise ValueError(f"`{name}` must have at least one feature (column).")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    # a finite sum proves every entry finite without an n x d temporary; else look closer
    with np.errstate(over="ignore", invalid="ignore"):  # a sum past float64 only means: look closer
        total = arr.sum()
    if not np.isfinite(total) and not np.isfinite(arr).all():
        raise ValueError(f"`{name}` contains NaN or infinite values.")
    return arr


def _read_array(X, name: str) -> np.ndarray:
    """:func:`as_data`'s reading of anything else: a masked array with masked entries, dates and
    times, non-numbers and complex numbers refused; data frames and other dtypes converted."""
    if np.ma.isMaskedArray(X) and np.ma.getmaskarray(X).any():
        rows = (
            np.ma.getmaskarray(X).reshape(np.shape(X)[0], -1).any(axis=1)
            if np.ndim(X)
            else np.ones(1, bool)
        )
        raise ValueError(
            f"`{name}` contains missing values (masked) in {int(rows.sum())} of {rows.size} "
            "row(s): drop those rows (a masked value is never used)."
        )
    if np.ma.isMaskedArray(X):
        X = np.ma.getdata(X)
    if hasattr(X, "to_numpy"):  # pandas DataFrame or Series, with any (extension) dtypes
        X = _pandas_numbers(X, name)
    try:
        arr = np.asarray(X)
    except (TypeError, ValueError) as exc:  # ragged nested lists
        raise ValueError(f"`{name}` must be an array of numbers: {exc}") from None
    if arr.dtype.kind in "mM" or arr.dtype == object and _times(arr.ravel()):
        _refuse_times(name)
    if arr.dtype == object:  # numbers held as objects; None and pandas.NA are missing
        arr = np.where(pd.isna(arr), np.nan, arr) if arr.ndim else arr
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or arr.dtype == bool
    ):
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"`{name}` must hold numbers only, got dtype {arr.dtype}."
            ) from None
    if np.iscomplexobj(arr):
        raise ValueError(f"`{name}` must be real, got a complex array.")
    return arr


def numeric_columns(X, name: str) -> None:
    """Refuse a data frame with columns that do not hold numbers (strings, categories of
    strings; dates and times with their own message), naming them. Other inputs pass
    unchecked."""
    if not isinstance(X, pd.DataFrame):
        return
    columns = [X.iloc[:, j] for j in range(X.shape[1])]  # names may repeat
    times = [c.name for c in columns if c.dtype.kind in "mM" or c.dtype == object
             and _times(c.to_numpy())]
    if times:
        _refuse_times(name, times)
    bad = [c.name for c in columns if not _numeric(c)]
    if bad:
        listed = ", ".join(repr(column) for column in bad)
        one = len(bad) == 1
        raise ValueError(
            f"`{name}` has {'a column' if one else 'columns'} {listed} that "
            f"{'is' if one else 'are'} not numeric: drop {'it' if one else 'them'} "
            f"({name}.drop(columns=[{listed}])), or pass a grouping column by name where a "
            "function takes labels."
        )


def _numeric(column: pd.Series) -> bool:
    """Whether a data frame column holds numbers (or values that read as numbers; missing
    values count as numbers)."""
    if column.dtype.kind in "iufbc":
        return True
    values = column.to_numpy(dtype=object)
    values = values[~np.asarray(pd.isna(values), dtype=bool)]
    try:
        values.astype(np.float64)
    except (TypeError, ValueError):
        return False
    return True


#: What holds a date, a time or a duration (R's Date and POSIXct through reticulate arrive as
#: ``datetime.date`` and numpy datetimes).
_TIME_TYPES = (datetime.date, datetime.time, datetime.timedelta, np.datetime64, np.timedelta64)


def _times(values: np.ndarray) -> bool:
    """Whether an object array holds dates, times or durations (its first value that is not
    missing says: a column holds one kind)."""
    for value in values:
        if value is not None and value is not pd.NaT and not (isinstance(value, float)
                                                              and value != value):
            return isinstance(value, _TIME_TYPES)
    return False


def _refuse_times(name: str, columns=()) -> None:
    """A ``TypeError``: dates, times and durations (pandas', numpy's, Python's, R's ``Date``,
    ``POSIXct`` and ``difftime``) have no distance without a unit."""
    where = (f"`{name}` has {'a column' if len(columns) == 1 else 'columns'} "
             f"{', '.join(map(repr, columns))} of dates, times or durations"
             if columns else f"`{name}` holds dates, times or durations")
    listed = ", ".join(f'"{c}"' for c in columns)
    drop = (f": drop {'it' if len(columns) == 1 else 'them'} ({name}.drop(columns=[{listed}]), "
            f"in R {name}[setdiff(names({name}), c({listed}))]), or convert"
            if columns else ": convert them")
    raise TypeError(
        f"{where}, whose distances depend on their unit{drop} to numbers in the unit you "
        "mean (days since a date: (d - d.min()).dt.days in pandas, as.numeric(d - min(d)) "
        "in R)."
    )


def _pandas_numbers(X, name: str) -> np.ndarray:
    """A pandas DataFrame or Series as a numpy array: nullable numbers (``Int64``,
    ``Float64``, ``boolean``) as float64 with NaN for ``pandas.NA``, other columns as they
    are; datetimes are refused."""
    numeric_columns(X, name)
    columns = [X.iloc[:, j] for j in range(X.shape[1])] if isinstance(X, pd.DataFrame) else [X]
    dtypes = [c.dtype for c in columns]
    if any(d.kind in "mM" for d in dtypes):  # a Series (a data frame's columns are named above)
        _refuse_times(name)
    if all(d.kind in "iufb" for d in dtypes):  # numpy's numbers and bools, pandas' nullable ones
        return X.to_numpy(dtype=np.float64, na_value=np.nan)
    return X.to_numpy()


def as_labels(labels, n: int, name: str = "labels") -> tuple[np.ndarray, np.ndarray]:
    """Encode group labels as integer codes 0..k-1.

    Returns ``(codes, levels)`` where ``levels`` holds the distinct labels in the order
    used for every per-group output: a categorical's (pandas', an R factor's, ordered or
    not) in the order of its categories, R's level order, as R's ``disco`` reports them
    (levels no row has are left out); other labels sorted. Integral floats (R's numeric
    vectors, ``c(1, 2, 1)``) are integer labels; NaN or None is refused.
    """
    if isinstance(getattr(labels, "dtype", None), pd.CategoricalDtype) and np.ndim(labels) == 1:
        return _categorical_labels(pd.Categorical(labels), n, name)
    if hasattr(labels, "to_numpy"):
        labels = labels.to_numpy()
    arr = _as_array(labels)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be one-dimensional, got shape {arr.shape}.")
    if arr.shape[0] != n:
        raise ValueError(f"`{name}` must have one entry per sample ({n}), got {arr.shape[0]}.")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"`{name}` contains NaN or infinite values.")
    if arr.dtype.kind == "O" and pd.isna(arr).any():
        raise ValueError(
            f"`{name}` contains missing values (NaN or None) in {int(pd.isna(arr).sum())} of {n} "
            "row(s)."
        )
    if arr.dtype.kind == "f" and arr.size and max(arr.max(), -arr.min()) < 2**53 and _integral(arr):
        arr = arr.astype(np.int64)
    if arr.dtype.kind in "iub" and arr.size:
        return _integer_labels(arr)
    try:
        levels, codes = np.unique(arr, return_inverse=True)
    except TypeError:
        raise ValueError(f"`{name}` must hold sortable values of a single type.") from None
    return codes.astype(_code_dtype(len(levels))), levels


def _categorical_labels(labels: pd.Categorical, n: int, name: str):
    """Codes and levels of a categorical, its categories in their order (those present)."""
    if len(labels) != n:
        raise ValueError(f"`{name}` must have one entry per sample ({n}), got {len(labels)}.")
    codes = np.asarray(labels.codes)
    if (codes < 0).any():
        raise ValueError(f"`{name}` contains missing values (NaN or None) in "
                         f"{int((codes < 0).sum())} of {n} row(s).")
    present = np.bincount(codes, minlength=len(labels.categories)) > 0
    levels = np.asarray(labels.categories)[present]
    if not present.all():
        codes = (np.cumsum(present) - 1)[codes]
    if levels.dtype.kind == "f" and levels.size and _integral(levels) and (
            max(levels.max(), -levels.min()) < 2**53):
        levels = levels.astype(np.int64)
    return codes.astype(_code_dtype(len(levels))), levels


def _integral(arr: np.ndarray) -> bool:
    """Whether every float of ``arr`` is an integer, in blocks (no n-sized temporary)."""
    return all(
        (block == np.round(block)).all()
        for block in (arr[a : a + _LABEL_BLOCK] for a in range(0, arr.shape[0], _LABEL_BLOCK))
    )


def _code_dtype(k: int) -> np.dtype:
    """The smallest signed integer type of codes 0..k-1."""
    return np.dtype(
        np.int8 if k <= 127 else np.int16 if k <= 32767 else np.int32 if k < 2**31 else np.int64
    )


#: Labels per block when integer labels are counted rather than sorted.
_LABEL_BLOCK = 2**20


def _integer_labels(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes and levels of integer (or boolean) labels: when their range is small, counted in
    blocks and looked up in a table (no sorted copy, no n-sized temporaries: ten million
    labels take their codes' memory only), else by ``np.unique``."""
    values = arr.view(np.uint8) if arr.dtype == bool else arr
    lo, hi = int(values.min()), int(values.max())
    if hi - lo >= 2**16:
        levels, codes = np.unique(arr, return_inverse=True)
        return codes.astype(_code_dtype(len(levels))), levels
    counts = np.zeros(hi - lo + 1, dtype=np.int64)
    wide = np.uint64 if values.dtype.kind == "u" else np.int64  # offsets exact for any integer type
    low = wide(lo)
    for a in range(0, values.shape[0], _LABEL_BLOCK):
        counts += np.bincount(
            (values[a : a + _LABEL_BLOCK].astype(wide) - low).astype(np.intp), minlength=hi - lo + 1
        )
    present = counts > 0
    levels = (np.flatnonzero(present).astype(wide) + low).astype(values.dtype)
    table = (np.cumsum(present) - 1).astype(_code_dtype(len(levels)))
    codes = np.empty(values.shape[0], dtype=table.dtype)
    for a in range(0, values.shape[0], _LABEL_BLOCK):
        np.take(
            table,
            (values[a : a + _LABEL_BLOCK].astype(wide) - low).astype(np.intp),
            out=codes[a : a + _LABEL_BLOCK],
        )
    return codes, levels.view(bool) if arr.dtype == bool else levels


def as_groups(labels, n: int, name: str = "labels") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`as_labels` for grouped data: at least two groups; returns (codes, levels, sizes)."""
    codes, levels = as_labels(labels, n, name)
    if len(levels) < 2:
        raise ValueError(f"`{name}` must define at least two groups, got {len(levels)}.")
    return codes, levels, np.bincount(codes, minlength=len(levels))


def as_weights(weights, n: int, name: str) -> np.ndarray | None:
    """Return non-negative float64 weights of length ``n`` (``None`` stays ``None``)."""
    if weights is None:
        return None
    if hasattr(weights, "to_numpy"):
        weights = weights.to_numpy()
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must be an array of numbers.") from None
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(
            f"`{name}` must be one-dimensional with one weight per sample ({n}), "
            f"got shape {w.shape}."
        )
    if not np.isfinite(w).all():
        raise ValueError(f"`{name}` contains NaN or infinite values.")
    if (w < 0).any():
        raise ValueError(f"`{name}` must be non-negative.")
    if not (w > 0).any():
        raise ValueError(
            f"`{name}` is zero for every sample: at least one weight must be positive."
        )
    return w


#: Weights whose largest value lies beyond 2^±WEIGHT_LOG2_SAFE are divided by a power of two.
WEIGHT_LOG2_SAFE = 64


def weight_scale(w: np.ndarray | None) -> tuple[np.ndarray | None, int]:
    """``(w / 2^e, e)``: weights near the ends of float64 (1e160, 1e-200) divided by a power
    of two, which is exact, so that the sums of w_i w_j rho_ij neither overflow nor
    underflow; ``e = 0`` (the weights as they are) for weights of ordinary size. Statistics
    that are means are unchanged by it; those linear in the weights (W, S, T) are multiplied
    back by 2^e."""
    if w is None:
        return None, 0
    e = int(np.frexp(w.max())[1])
    if abs(e) <= WEIGHT_LOG2_SAFE:
        return w, 0
    return np.ldexp(w, -e), e


def unit_scale(X: np.ndarray) -> tuple[np.ndarray, int]:
    """``(X / 2^e, e)``, e the binary exponent of the largest |X| (0 for zeros): data of any
    magnitude, 1e-300 or 1e300, brought to [0.5, 1) exactly (a power of two), for statistics
    that standardise the data and are therefore unchanged by it, so that their squares
    neither overflow nor underflow."""
    top = float(max(X.max(), -X.min())) if X.size else 0.0
    e = int(np.frexp(top)[1]) if top > 0 else 0
    return (np.ldexp(X, -e) if e else X), e


def check_exponent(exponent) -> float:
    """Check the Euclidean exponent alpha in (0, 2] (França et al. eq. 52)."""
    if isinstance(exponent, bool) or not isinstance(exponent, Real):
        raise TypeError(f"`exponent` must be a real number, got {type(exponent).__name__}.")
    exponent = float(exponent)
    if not 0.0 < exponent <= 2.0:
        raise ValueError(f"`exponent` must lie in (0, 2], got {exponent}.")
    return exponent


def check_correction(correction, alpha) -> tuple[str, float]:
    """Check a multiple-testing ``correction`` (a ``method`` of statsmodels'
    ``multipletests``) and the family-wise level ``alpha`` in (0, 1)."""
    from statsmodels.stats.multitest import multipletests

    if isinstance(alpha, bool) or not isinstance(alpha, Real):
        raise TypeError(
            f"`alpha` must be a real number in (0, 1), got {type(alpha).__name__} {alpha!r}."
        )
    if not 0.0 < float(alpha) < 1.0:  # also refuses NaN
        raise ValueError(f"`alpha` must lie in (0, 1), got {alpha}.")
    if not isinstance(correction, str):
        raise TypeError(
            "`correction` must be the name of a statsmodels multipletests method (e.g. 'holm'), "
            f"got {correction!r}."
        )
    try:
        multipletests([0.5], alpha=0.05, method=correction)
    except ValueError:
        raise ValueError(
            "`correction` must be a method of statsmodels' multipletests ('holm', 'bonferroni', "
            f"'fdr_bh', ...), got {correction!r}."
        ) from None
    return correction, float(alpha)


def check_positive_int(value, name: str, *, minimum: int = 1) -> int:
    """Check that ``value`` is an integer no smaller than ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"`{name}` must be an integer, got {type(value).__name__}.")
    if value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}, got {value}.")
    return int(value)


#: The most restarts of a clustering estimator (``n_init``). If one start in a thousand reaches
#: the best partition, the best of 10**4 starts misses it with probability (1 - 1e-3)**1e4 < 5e-5;
#: more only costs time (each restart is a whole fit).
MAX_INIT = 10**4


def check_n_init(value, n_samples: int) -> int:
    """Check ``n_init``: an integer from 1 to :data:`MAX_INIT` whose restarts' labels (n each,
    all kept until the best is chosen) fit the memory budget. Each restart also holds a random
    stream (a spawned Generator, 1 KiB measured: 10 MiB at the cap, bounded by it)."""
    n_init = check_positive_int(value, "n_init")
    if n_init > MAX_INIT:
        raise ValueError(
            f"`n_init` must be at most {MAX_INIT:,} (the best of that many starts misses a "
            "partition that one start in a thousand finds with probability below 5e-5; more only "
            f"costs time), got {n_init:,}."
        )
    check_fits(
        f"`n_init`={n_init:,} restarts of {n_samples:,} labels each",
        8 * n_init * n_samples,
        "a smaller `n_init`",
    )
    return n_init


def check_n_clusters(value, n_samples: int, *, minimum: int = 1) -> int:
    """Check ``n_clusters``: an integer from ``minimum`` to ``n_samples``."""
    k = check_positive_int(value, "n_clusters", minimum=minimum)
    if k > n_samples:
        raise ValueError(f"`n_clusters` must be at most n_samples ({n_samples}), got {k}.")
    return k


def check_symmetric(A: np.ndarray, name: str, context: str) -> None:
    """Check that the square matrix ``A`` is symmetric to 1e-12 of its largest entry,
    in bands of rows (no n x n temporary)."""
    n = A.shape[0]
    tol = 1e-12 * max(A.max(), -A.min(), 1e-300)  # largest |entry|, without a temporary
    step = max(1, 2**16 // n)
    for a in range(0, n, step):
        if np.abs(A[a : a + step] - A[:, a : a + step].T).max() > tol:
            raise ValueError(f"`{name}` must be symmetric for {context}.")


#: Largest Gram matrix whose positive semidefiniteness is checked by a Cholesky factorisation
#: (n^3 / 3 multiply-adds: 0.3 s at 4,096); larger ones get the O(n^2) necessary conditions.
GRAM_CHOLESKY_MAX = 4096

#: Violations of positive semidefiniteness up to this fraction of the largest diagonal entry
#: pass: a centred kernel of rank < n has eigenvalues at the rounding level of the uncentred
#: kernel it came from (-2e-8 of its diagonal for data offset by 1e3), which the matrix
#: itself does not show; a matrix that is not a Gram matrix breaks it by far more.
GRAM_RTOL = 1e-6


def check_gram(G: np.ndarray, name: str) -> None:
    """Refuse a symmetric matrix that is not a Gram matrix (positive semidefinite) beyond
    rounding (:data:`GRAM_RTOL` of its largest diagonal entry, delta): a diagonal entry below
    -delta, or a pair with G_ij^2 > (G_ii + delta)(G_jj + delta) (Cauchy-Schwarz), in bands of
    rows of the matrix divided by a power of two (no overflow of the squares); up to
    :data:`GRAM_CHOLESKY_MAX` points also a Cholesky factorisation of G + delta I, which fails
    when an eigenvalue lies below -delta."""
    n = G.shape[0]
    if n == 0:
        return
    top = max(float(G.max()), -float(G.min()))  # the largest |G_ij|, without an n x n temporary
    if top == 0.0:
        raise ValueError(
            f"`{name}` is zero everywhere: a Gram matrix, but of points that all coincide (at the "
            "origin), which leave nothing to cluster."
        )
    shift = int(np.frexp(max(top, 1e-300))[1])
    diag = np.ldexp(np.diag(G), -shift)
    delta = GRAM_RTOL * max(float(diag.max()), 0.0)
    if (diag < -delta).any() or diag.max() <= 0 < top:
        i = int(np.argmin(diag))
        raise ValueError(
            f"`{name}` is not positive semidefinite: its diagonal entry {i} is {np.diag(G)[i]:.3g} "
            "<= 0."
        )
    d = np.maximum(diag, 0.0) + delta
    step = max(1, 2**16 // n)
    for a in range(0, n, step):
        band = np.ldexp(G[a : a + step], -shift)
        excess = band * band - np.outer(d[a : a + step], d)
        if (excess > 0).any():
            i, j = np.unravel_index(int(np.argmax(excess)), excess.shape)
            raise ValueError(
                f"`{name}` is not positive semidefinite: entry ({a + i}, {j}) breaks the "
                "Cauchy-Schwarz inequality G_ij^2 <= G_ii G_jj of a Gram matrix."
            )
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
                "a Gram matrix, or a distance matrix with metric='precomputed'."
            ) from None
