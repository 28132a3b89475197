"""The variables of an independence statistic, as R's ``energy`` takes them: numeric data
(a vector, a matrix, a DataFrame; rows are observations), a distance matrix
(``metric="precomputed"``, R's ``dist`` objects), or a categorical variable (a pandas
categorical, or strings), which gets the 0-1 distance R uses for unordered factors; an
ordered categorical is its codes, as R's ``as.numeric`` of an ordered factor."""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np
import pandas as pd

from .._operator import PairwiseOperator, Repeated, make_operator
from .._semimetric import MetricLike, Scaling, Semimetric, prepare_points, resolve_semimetric
from .._validation import _as_array

__all__ = ["Variable", "as_variables", "check_same_n"]


@dataclass(frozen=True)
class Variable:
    """One validated variable: its data (rescaled by :attr:`scaling`), its semimetric and name.

    Attributes
    ----------
    data : ndarray
        Points (n x d), or the n x n matrix when precomputed.
    semimetric : Semimetric
    scaling : Scaling
        The exact power-of-two rescaling of the data (statistics of the variable scale back
        by ``2**scaling.log2_factor``).
    name : str
    """

    data: np.ndarray
    semimetric: Semimetric
    scaling: Scaling
    name: str

    @property
    def n(self) -> int:
        return self.data.shape[0]

    def operator(self, use: Repeated = Repeated(), n_jobs=None) -> PairwiseOperator:
        """The pairwise operator of this variable's semimetric matrix, for repeated use (held
        only when it fits the budget beside ``use.reserve`` bytes: the other variables'
        operators)."""
        return make_operator(self.data, self.semimetric, use, n_jobs=n_jobs)


def _is_categorical(x) -> bool:
    """Whether ``x`` is a categorical variable: strings (numpy, pandas ``"string"`` or object
    columns holding a string) or an unordered pandas categorical. Numbers are numbers
    whatever holds them (objects, ``Int64``, ``Float64``); so are booleans (0 and 1)."""
    if isinstance(x, pd.DataFrame):
        return any(_is_categorical(x.iloc[:, j]) for j in range(x.shape[1]))
    dtype = getattr(x, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype):
        return not dtype.ordered
    if isinstance(dtype, pd.StringDtype):
        return True
    if isinstance(dtype, pd.api.extensions.ExtensionDtype):
        return False
    arr = (
        x.to_numpy()
        if isinstance(x, pd.Series)
        else _as_array(x)
        if dtype is None
        else np.asarray(x)
    )
    if arr.dtype.kind in "US":
        return True
    return arr.dtype == object and any(isinstance(v, (str, bytes)) for v in arr.ravel())


def _codes(x, name: str) -> np.ndarray:
    """Integer codes of a categorical variable (n x 1, or n x columns for a DataFrame of
    categorical columns): equal codes for equal categories."""
    if isinstance(x, pd.DataFrame):
        columns = [x.iloc[:, j] for j in range(x.shape[1])]
        if not all(_is_categorical(c) for c in columns):
            raise ValueError(
                f"`{name}` mixes numeric and categorical columns; pass them as separate variables "
                "or encode them."
            )
        return np.column_stack([_codes(c, name)[:, 0] for c in columns])
    if np.ndim(x) == 2 and np.shape(x)[1] > 1:  # a matrix of categories (R's character matrix)
        return _codes(pd.DataFrame(np.asarray(x, dtype=object)), name)
    series = (
        x
        if isinstance(x, pd.Series)
        else pd.Series(np.asarray(x).ravel() if np.ndim(x) == 2 and np.shape(x)[1] == 1 else x)
    )
    if np.ndim(series.to_numpy()) != 1:
        raise ValueError(
            f"`{name}` must be a one-dimensional categorical variable or a DataFrame of them."
        )
    if series.isna().any():
        raise ValueError(f"`{name}` contains missing values.")
    try:
        codes, _ = pd.factorize(series, sort=True)
    except TypeError:
        raise ValueError(
            f"`{name}` mixes strings with other values: encode it as one type."
        ) from None
    return codes.astype(np.float64)[:, None]


def _ordered_codes(x) -> np.ndarray | None:
    """The codes of an ordered categorical (R uses an ordered factor's integer codes)."""
    dtype = getattr(x, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered:
        codes = pd.Series(x).cat.codes.to_numpy()
        return np.where(codes < 0, np.nan, codes.astype(np.float64))
    return None


def _one(x, name: str, metric, exponent, sigma, min_samples: int) -> Variable:
    if isinstance(metric, str) and metric == "precomputed":
        sm = resolve_semimetric("precomputed")
        data = prepare_points(x, sm, name, min_samples=min_samples)
        if exponent != 1.0:  # the package's one rule: a precomputed matrix is taken as it is
            raise ValueError(
                f"`exponent`={exponent:g} with metric='precomputed' for `{name}`: a precomputed "
                f"matrix is used as it is; pass the distances raised to the power ({name} ** "
                f"{exponent:g}, as R's dcov(x, y, index) raises a dist object's distances to "
                "index) with exponent=1."
            )
    elif _is_categorical(x):
        if (
            not (isinstance(metric, str) and metric in ("euclidean", "discrete"))
            or exponent != 1.0
            or sigma is not None
        ):
            raise ValueError(
                f"`{name}` is categorical: it takes the 0-1 distance (metric='discrete'), not "
                f"metric={metric!r}."
            )
        sm = resolve_semimetric("discrete")
        data = prepare_points(_codes(x, name), sm, name, min_samples=min_samples)
    else:
        ordered = _ordered_codes(x)
        sm = resolve_semimetric(metric, exponent, sigma)
        if sm.precomputed:
            raise ValueError("`metric`='precomputed' needs the matrix itself.")  # pragma: no cover
        data = prepare_points(
            ordered if ordered is not None else x, sm, name, min_samples=min_samples
        )
    scaling = Scaling.for_data(data, sm)
    return Variable(scaling.data(data), scaling.semimetric(sm), scaling, name)


def _per_variable(value, count: int, what: str) -> list:
    """``value`` for each of ``count`` variables: one value, or a tuple/list of ``count``."""
    if isinstance(value, (tuple, list)):
        if len(value) != count:
            raise ValueError(
                f"`{what}` must be one value or {count} values (one per variable), got "
                f"{len(value)}."
            )
        return list(value)
    return [value] * count


def check_same_n(variables: list[Variable]) -> int:
    """The common number of rows, or a ``ValueError`` naming the variables that differ."""
    n = variables[0].n
    for v in variables[1:]:
        if v.n != n:
            raise ValueError(
                f"`{variables[0].name}` and `{v.name}` must have the same number of rows, got {n} "
                f"and {v.n}."
            )
    return n


def as_variables(
    arrays: dict,
    metric: MetricLike | tuple = "euclidean",
    exponent=1.0,
    sigma=None,
    *,
    min_samples: int = 2,
) -> list[Variable]:
    """Validate the variables ``{name: data}`` with the same number of rows, at least
    ``min_samples``. ``metric``, ``exponent`` and ``sigma`` are one value for all or one
    per variable (e.g. ``metric=("euclidean", "precomputed")``)."""
    names = list(arrays)
    metrics = _per_variable(metric, len(names), "metric")
    exponents = _per_variable(exponent, len(names), "exponent")
    sigmas = _per_variable(sigma, len(names), "sigma")
    for e in exponents:
        if isinstance(e, bool) or not isinstance(e, Real):
            raise TypeError(f"`exponent` must be a real number, got {type(e).__name__}.")
    variables = [
        _one(arrays[k], k, m, float(e), s, min_samples)
        for k, m, e, s in zip(names, metrics, exponents, sigmas)
    ]
    check_same_n(variables)
    return variables
