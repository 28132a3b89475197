"""The variables of an independence statistic, as R's ``energy`` takes them: numbers (a vector,
a matrix, a DataFrame; rows are observations), a distance matrix (``metric="precomputed"``,
R's ``dist`` objects), or a categorical variable (a pandas categorical, or strings), which gets
the 0-1 distance R uses for unordered factors; an ordered categorical is its codes, as R's
``as.numeric`` of an ordered factor."""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np
import pandas as pd

from .._scale import pairwise
from .._semimetric import Scaling, Semimetric, prepare_points, resolve_semimetric
from .._validation import _as_array

__all__ = ["Variable", "as_variables"]


@dataclass(frozen=True)
class Variable:
    """One validated variable.

    Attributes
    ----------
    data : ndarray
        Points (n x d), or the n x n matrix when precomputed, divided by ``2**scaling.shift``.
    semimetric : Semimetric
    scaling : Scaling
        Statistics of the variable scale back by ``2**scaling.log2_factor``.
    name : str
    """

    data: np.ndarray
    semimetric: Semimetric
    scaling: Scaling
    name: str

    @property
    def n(self) -> int:
        return self.data.shape[0]

    @property
    def line(self) -> np.ndarray | None:
        """The points, when they are on the line with |x - y| (the O(n log n) paths)."""
        on_line = self.semimetric.is_abs_difference(self.data) if self.data.ndim == 2 else False
        return self.data[:, 0] if on_line and not self.semimetric.precomputed else None

    def matrix(self, n_jobs=None):
        """The n x n matrix of the semimetric, held or streamed (:func:`~.._scale.pairwise`)."""
        if self.semimetric.precomputed:
            return self.data
        return pairwise(self.data, self.semimetric, n_jobs=n_jobs)


def _is_categorical(x) -> bool:
    """Strings (numpy, pandas ``"string"``, object columns holding one) or an unordered pandas
    categorical; numbers are numbers whatever holds them, booleans too."""
    if isinstance(x, pd.DataFrame):
        return any(_is_categorical(x.iloc[:, j]) for j in range(x.shape[1]))
    dtype = getattr(x, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype):
        return not dtype.ordered
    if isinstance(dtype, pd.StringDtype):
        return True
    if isinstance(dtype, pd.api.extensions.ExtensionDtype):
        return False
    arr = x.to_numpy() if isinstance(x, pd.Series) else _as_array(x) if dtype is None else (
        np.asarray(x))
    if arr.dtype.kind in "US":
        return True
    return arr.dtype == object and any(isinstance(v, (str, bytes)) for v in arr.ravel())


def _codes(x, name: str) -> np.ndarray:
    """Integer codes of a categorical variable (n x 1, or one column per categorical column)."""
    if isinstance(x, pd.DataFrame):
        if not all(_is_categorical(x.iloc[:, j]) for j in range(x.shape[1])):
            raise ValueError(f"`{name}` mixes numeric and categorical columns; pass them as "
                             "separate variables or encode them.")
        return np.column_stack([_codes(x.iloc[:, j], name)[:, 0] for j in range(x.shape[1])])
    if np.ndim(x) == 2 and np.shape(x)[1] > 1:  # a matrix of categories (R's character matrix)
        return _codes(pd.DataFrame(np.asarray(x, dtype=object)), name)
    series = x if isinstance(x, pd.Series) else pd.Series(
        np.asarray(x).ravel() if np.ndim(x) == 2 else x)
    if np.ndim(series.to_numpy()) != 1:
        raise ValueError(
            f"`{name}` must be a one-dimensional categorical variable or a DataFrame of them.")
    if series.isna().any():
        raise ValueError(f"`{name}` contains missing values.")
    try:
        codes, _ = pd.factorize(series, sort=True)
    except TypeError:
        raise ValueError(
            f"`{name}` mixes strings with other values: encode it as one type.") from None
    return codes.astype(np.float64)[:, None]


def _one(x, name: str, metric, exponent, sigma, min_samples: int) -> Variable:
    if isinstance(metric, str) and metric == "precomputed":
        sm = resolve_semimetric("precomputed")
        data = prepare_points(x, sm, name, min_samples=min_samples)
        if exponent != 1.0:  # a precomputed matrix is used as it is
            raise ValueError(
                f"`exponent`={exponent:g} with metric='precomputed' for `{name}`: a precomputed "
                f"matrix is used as it is; pass the distances raised to the power ({name} ** "
                f"{exponent:g}, as R's dcov(x, y, index) raises a dist object's distances to "
                "index) with exponent=1.")
    elif _is_categorical(x):
        if not (isinstance(metric, str) and metric in ("euclidean", "discrete")) or (
                exponent != 1.0 or sigma is not None):
            raise ValueError(f"`{name}` is categorical: it takes the 0-1 distance "
                             f"(metric='discrete'), not metric={metric!r}.")
        sm = resolve_semimetric("discrete")
        data = prepare_points(_codes(x, name), sm, name, min_samples=min_samples)
    else:
        dtype = getattr(x, "dtype", None)
        if isinstance(dtype, pd.CategoricalDtype):  # ordered: its codes, as R's as.numeric
            codes = pd.Series(x).cat.codes.to_numpy()
            x = np.where(codes < 0, np.nan, codes.astype(np.float64))
        sm = resolve_semimetric(metric, exponent, sigma)
        data = prepare_points(x, sm, name, min_samples=min_samples)
    scaling = Scaling.for_data(data, sm)
    data = scaling.data(data)  # the semimetric fixed for these points (scale, graph)
    return Variable(data, scaling.semimetric(sm).for_data(data), scaling, name)


def _per_variable(value, count: int, what: str) -> list:
    """``value`` for each of ``count`` variables: one value, or a tuple/list of ``count``."""
    if isinstance(value, (tuple, list)):
        if len(value) != count:
            raise ValueError(f"`{what}` must be one value or {count} values (one per variable), "
                             f"got {len(value)}.")
        return list(value)
    return [value] * count


def as_variables(arrays: dict, metric="euclidean", exponent=1.0, sigma=None, *,
                 min_samples: int = 2) -> list[Variable]:
    """Validate the variables ``{name: data}`` (the same number of rows, at least
    ``min_samples``); ``metric``, ``exponent`` and ``sigma`` are one value for all or one per
    variable (``metric=("euclidean", "precomputed")``)."""
    names = list(arrays)
    exponents = _per_variable(exponent, len(names), "exponent")
    for e in exponents:
        if isinstance(e, bool) or not isinstance(e, Real):
            raise TypeError(f"`exponent` must be a real number, got {type(e).__name__}.")
    variables = [_one(arrays[k], k, m, float(e), s, min_samples) for k, m, e, s in zip(
        names, _per_variable(metric, len(names), "metric"), exponents,
        _per_variable(sigma, len(names), "sigma"))]
    for v in variables[1:]:
        if v.n != variables[0].n:
            raise ValueError(f"`{variables[0].name}` and `{v.name}` must have the same number of "
                             f"rows, got {variables[0].n} and {v.n}.")
    return variables
