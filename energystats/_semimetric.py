"""Semimetrics of negative type and the kernels they generate.

:class:`Semimetric` evaluates rho on two sets of points (:func:`energystats._scale.pairwise`
applies it to all pairs of a sample); :class:`Scaling` rescales data near the ends of float64
exactly; the public functions that return whole matrices are in :mod:`energystats._pairwise`.

References
----------
G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-Groups via Hartigan's
Method", IEEE TPAMI (2020). Equations (7), (13), (52)-(54).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace
from numbers import Integral, Real
from typing import Callable, Union

import numpy as np
from scipy.linalg import lapack
from scipy.spatial.distance import cdist

from ._config import memory_budget
from ._missing import _caller_level
from ._scale.graph import Graph, median_distance
from ._validation import as_data, check_exponent, check_symmetric

__all__ = ["NEGATIVE_TYPE_POINTS", "MetricLike", "Scaling", "Semimetric", "as_precomputed",
           "prepare_points", "resolve_semimetric"]

MetricLike = Union[str, Callable[[np.ndarray, np.ndarray], np.ndarray]]

_METRICS = ("euclidean", "exponential", "gaussian", "discrete", "precomputed", "nearest_neighbors")


@dataclass(frozen=True)
class Semimetric:
    """A validated semimetric specification.

    Attributes
    ----------
    metric : str or callable
        ``"euclidean"``, ``"exponential"``, ``"gaussian"``, ``"discrete"`` (0 for
        equal rows, 1 otherwise: the 0-1 distance R uses for factors),
        ``"precomputed"``, ``"nearest_neighbors"`` (the semimetric of the points'
        k-nearest-neighbour graph, eq. 35: :class:`~energystats._scale.graph.Graph`) or a
        callable ``f(A, B)`` returning the ``len(A) x len(B)`` matrix of semimetric values.
    exponent : float
        Exponent alpha of ``"euclidean"`` (eq. 52); 1.0 otherwise.
    sigma : float or None
        Scale of ``"exponential"`` (eq. 53) and ``"gaussian"`` (eq. 54); ``None``: half the
        points' median distance (:func:`~energystats._scale.graph.median_distance`), fixed by
        :meth:`for_data`.
    n_neighbors : int or None
        m of ``"nearest_neighbors"``; ``None``: ``ceil(ln n)``
        (:func:`~energystats._scale.graph.default_neighbors`).
    graph : Graph or None
        The graph of the points, once :meth:`for_data` has built it.
    """

    metric: MetricLike
    exponent: float = 1.0
    sigma: float | None = None
    n_neighbors: int | None = None
    graph: Graph | None = field(default=None, compare=False, repr=False)

    @property
    def precomputed(self) -> bool:
        return isinstance(self.metric, str) and self.metric == "precomputed"

    @property
    def is_euclidean_power(self) -> bool:
        return isinstance(self.metric, str) and self.metric == "euclidean"

    @property
    def on_graph(self) -> bool:
        """Whether rho is that of the points' k-nearest-neighbour graph (defined between the
        points of one sample only)."""
        return isinstance(self.metric, str) and self.metric == "nearest_neighbors"

    def for_data(self, X: np.ndarray) -> Semimetric:
        """The semimetric with what it takes from the data fixed on the (validated) points X:
        half the median distance as ``sigma`` of the exponential and Gaussian semimetrics given
        none, the graph of X for ``"nearest_neighbors"``; itself otherwise. Every statistic of one
        call uses one such semimetric (:func:`energystats._scale.pairwise` fixes it once)."""
        if self.metric in ("exponential", "gaussian") and self.sigma is None:
            return replace(self, sigma=0.5 * median_distance(X))
        if self.on_graph and self.graph is None:
            return replace(self, graph=Graph.of(X, self.n_neighbors))
        return self

    def is_abs_difference(self, X: np.ndarray) -> bool:
        """Whether rho(x, y) = |x - y| on the (validated) points X: the O(n log n) 1-D case."""
        return self.is_euclidean_power and self.exponent == 1.0 and X.shape[1] == 1

    def __call__(self, A: np.ndarray, B: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Matrix of rho(a, b) for rows a of ``A`` and b of ``B`` (float64), written into
        ``out`` (C-contiguous, len(A) x len(B)) when given."""
        metric = self.metric
        if callable(metric):
            values = np.asarray(metric(A, B), dtype=np.float64)
            if values.shape != (A.shape[0], B.shape[0]):
                raise ValueError("`metric` callable must return an array of shape "
                                 f"{(A.shape[0], B.shape[0])}, got {values.shape}.")
            if not np.isfinite(values).all():
                raise ValueError("`metric` callable returned NaN or infinite values.")
            if values.size and values.min() < 0:
                raise ValueError("`metric` callable returned a negative value "
                                 f"({values.min():.6g}): a semimetric is non-negative (rho(x, y) "
                                 ">= 0, rho(x, x) = 0).")
            if out is None:
                return values
            out[...] = values
            return out
        if metric == "euclidean":
            alpha = self.exponent
            if alpha == 1.0:
                return cdist(A, B, "euclidean", out=out)
            out = cdist(A, B, "sqeuclidean", out=out)
            if alpha != 2.0:
                np.power(out, alpha / 2.0, out=out)
            return out
        if metric == "nearest_neighbors":
            raise ValueError("metric='nearest_neighbors' has values only between the points of "
                             "one sample, from their graph: it applies where the statistic's "
                             "points are one sample.")
        if metric == "discrete":  # 1[a != b]: half the squared distance of the categories' corners
            out = cdist(A, B, "hamming", out=out)
            return np.greater(out, 0.0, out=out, casting="unsafe")
        # eq. (53), exponential: 2 - 2 exp(-||x - y|| / (2 sigma)); eq. (54), gaussian:
        # 2 - 2 exp(-||x - y||^2 / (2 sigma^2)), via expm1 for accuracy; divided by sigma (not
        # times 1 / sigma^2, which is inf or 0 at sigma = 1e-300 or 1e300): a tiny sigma
        # gives -inf, and 2 for every pair of distinct points, as the formula does
        out = cdist(A, B, "euclidean" if metric == "exponential" else "sqeuclidean", out=out)
        with np.errstate(over="ignore"):
            out /= -2.0 * self.sigma
            if metric == "gaussian":
                out /= self.sigma
        np.expm1(out, out=out)
        out *= -2.0
        return out


#: Data whose largest absolute value lies in [2^-LOG2_SAFE, 2^LOG2_SAFE] (points) or
#: [2^-4 LOG2_SAFE, 2^4 LOG2_SAFE] (a precomputed matrix) are used as they are: squared
#: differences and sums over all pairs stay far from overflow and underflow.
LOG2_SAFE = 128


@dataclass(frozen=True)
class Scaling:
    r"""Exact rescaling of data by a power of two, for data near the ends of float64.

    Every Euclidean energy statistic is homogeneous: scaling the data by c
    scales it by :math:`c^\alpha`. Data far from 1 in magnitude (1e-300 or
    1e300: squared differences underflow or overflow) are divided by
    :math:`2^e`, which is exact, the statistics are computed, and multiplied
    back by :math:`2^{e\alpha}`. A precomputed matrix is divided by
    :math:`2^e` and statistics multiplied by :math:`2^e`; the exponential and
    Gaussian semimetrics divide ``sigma`` by :math:`2^e` too and need no
    factor. A result that cannot be represented in float64 raises
    ``OverflowError`` (or ``ValueError`` on underflow) instead of becoming
    inf or 0.

    Attributes
    ----------
    shift : int
        e: the data are divided by 2^e (0: used as they are).
    log2_factor : float
        log2 of the factor the statistics are multiplied by.
    """

    shift: int = 0
    log2_factor: float = 0.0

    @classmethod
    def for_data(cls, X: np.ndarray, semimetric: "Semimetric", *more: np.ndarray) -> "Scaling":
        """The scaling of validated data (points, or the matrix when precomputed), shared
        with the arrays ``more`` (other points in the same space)."""
        if callable(semimetric.metric) or semimetric.metric == "discrete" or X.size == 0:
            return cls()
        if semimetric.on_graph:  # the graph's kernel depends on the neighbours only
            return cls()
        top = float(max(max(A.max(), -A.min()) for A in (X, *more)))
        if semimetric.sigma is not None and top > 0 and semimetric.sigma / top > 2.0**LOG2_SAFE:
            raise ValueError(f"`sigma`={semimetric.sigma:g} is more than 2^{LOG2_SAFE} times the "
                             f"largest |value| of the data ({top:.3g}): the {semimetric.metric} "
                             "semimetric is then below float64's resolution for every pair. "
                             "Choose sigma on the scale of the distances between the points "
                             "(their median is a common choice).")
        safe = LOG2_SAFE * (4 if semimetric.precomputed else 1)
        if top == 0.0 or -safe <= np.log2(top) <= safe:
            return cls()
        shift = int(np.frexp(top)[1])  # top / 2^shift in [0.5, 1)
        if semimetric.precomputed:
            return cls(shift, float(shift))
        return cls(shift, shift * semimetric.exponent if semimetric.is_euclidean_power else 0.0)

    def weighted(self, shift: int) -> "Scaling":
        """The scaling of statistics linear in weights that were divided by 2^shift."""
        return self if shift == 0 else Scaling(self.shift, self.log2_factor + shift)

    def data(self, X: np.ndarray) -> np.ndarray:
        """X / 2^e (a new array; X itself when e = 0)."""
        return X if self.shift == 0 else np.ldexp(X, -self.shift)

    def semimetric(self, semimetric: "Semimetric") -> "Semimetric":
        """The semimetric of the rescaled data: sigma / 2^e for the exponential and Gaussian."""
        if self.shift == 0 or semimetric.sigma is None:
            return semimetric
        return replace(semimetric, sigma=float(np.ldexp(semimetric.sigma, -self.shift)))

    def result(self, value, what: str, *, inplace: bool = False):
        """A statistic of the rescaled data, multiplied back to the data's scale; raises when the
        result cannot be represented. ``inplace`` overwrites the array ``value`` (n x n
        matrices)."""
        if self.log2_factor == 0.0:
            return value
        arr = np.asarray(value, dtype=float)
        big, small = _magnitudes(arr)
        if big > 0 and np.log2(big) + self.log2_factor >= 1024:
            raise OverflowError(f"{what} is about 2^{np.log2(big) + self.log2_factor:.0f}, beyond "
                                "float64 (largest about 2^1024): divide the data by a constant c "
                                f"and multiply {what} by c^exponent (or, with weights, divide the "
                                f"weights by c and multiply {what} by c).")
        if small > 0 and np.log2(small) + self.log2_factor < -1074:
            raise ValueError(f"{what} is about 2^{np.log2(small) + self.log2_factor:.0f}, below "
                             "float64's smallest number (about 2^-1074): multiply the data by a "
                             f"constant c and divide {what} by c^exponent (or, with weights, "
                             f"multiply the weights by c and divide {what} by c).")
        whole = int(np.floor(self.log2_factor))
        out = arr if inplace else arr.copy()
        out *= 2.0 ** (self.log2_factor - whole)
        np.ldexp(out, whole, out=out)
        return float(out) if np.ndim(value) == 0 else out


def _magnitudes(A: np.ndarray) -> tuple[float, float]:
    """Largest |a| and smallest nonzero |a| of an array, in bands of rows (no full temporary)."""
    flat = A.reshape(A.shape[0], -1) if A.ndim > 1 else A.reshape(-1, 1)
    big, small = 0.0, np.inf
    step = max(1, 2**16 // max(flat.shape[1], 1))
    for a in range(0, flat.shape[0], step):
        band = np.abs(flat[a : a + step])
        big = max(big, float(band.max(initial=0.0)))
        small = min(small, float(band.min(initial=np.inf, where=band > 0)))
    return big, (0.0 if small == np.inf else small)


def resolve_semimetric(
    metric: MetricLike = "euclidean", exponent=1.0, sigma=None, n_neighbors=None
) -> Semimetric:
    """Validate ``metric``, ``exponent``, ``sigma`` and ``n_neighbors`` together."""
    if callable(metric):
        name = None
    elif isinstance(metric, str) and metric in _METRICS:
        name = metric
    else:
        raise ValueError(f"`metric` must be one of {_METRICS} or a callable, got {metric!r}.")
    exponent = check_exponent(exponent)
    if name != "euclidean" and exponent != 1.0:
        raise ValueError("`exponent` applies only to metric='euclidean'.")
    if name in ("exponential", "gaussian"):
        if sigma is not None:
            if isinstance(sigma, bool) or not isinstance(sigma, Real):
                raise TypeError(f"`sigma` must be a real number, got {type(sigma).__name__}.")
            if not (np.isfinite(sigma) and sigma > 0):
                raise ValueError(f"`sigma` must be a positive finite number, got {sigma}.")
            sigma = float(sigma)
    elif sigma is not None:
        raise ValueError("`sigma` applies only to metric='exponential' or 'gaussian'.")
    if n_neighbors is not None:
        if name != "nearest_neighbors":
            raise ValueError("`n_neighbors` applies only to metric='nearest_neighbors'.")
        if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, Integral) or (
            n_neighbors < 1
        ):
            raise ValueError(f"`n_neighbors` must be a positive integer, got {n_neighbors!r}.")
        n_neighbors = int(n_neighbors)
    return Semimetric(metric, exponent, sigma, n_neighbors)


def as_precomputed(D, name: str = "X") -> np.ndarray:
    """Validate a square, symmetric, zero-diagonal, non-negative matrix (used as given, not copied).

    The checks run in bands of rows, so they need no n x n temporary.
    """
    D = as_data(D, name)
    n, m = D.shape
    if n != m:
        raise ValueError(f"`{name}` must be a square distance matrix for metric='precomputed', "
                         f"got shape {D.shape}.")
    if D.min() < 0:
        raise ValueError(f"`{name}` must be non-negative for metric='precomputed'.")
    if np.any(np.diag(D) != 0):
        raise ValueError(f"`{name}` must have a zero diagonal for metric='precomputed'.")
    check_symmetric(D, name, "metric='precomputed'")
    return D


#: Points of a precomputed matrix whose negative type every function checks: all of them up to
#: this many, else this many evenly spaced ones. The check is a Cholesky factorisation of
#: m - 1 rows, m^3 / 3 multiply-adds: about 60 ms at m = 1,000 on one core (measured on a
#: busy machine), where the eigenvalues of :func:`energystats.is_negative_type` take four
#: times as long.
NEGATIVE_TYPE_POINTS = 1000


def _of_negative_type(D: np.ndarray, tol: float = 1e-10) -> bool:
    r"""Whether the semimetric matrix D is of negative type, to rounding.

    D is of negative type when :math:`c^\top D c \le 0` for every c with
    :math:`\sum_i c_i = 0`, that is (Schoenberg 1935) when the Gram matrix
    :math:`K_{ij} = (D_{i0} + D_{j0} - D_{ij}) / 2` of the points less point 0 is positive
    semidefinite. It is when K plus ``tol`` times its trace on the diagonal has a Cholesky
    factor (eigenvalues of K above about -``tol`` trace(K) count as zero).
    """
    top = float(D.max())
    if D.shape[0] < 3 or not top > 0:
        return True
    unit = D / top  # entries in [0, 1]: nothing overflows
    K = unit[1:, :1] + unit[:1, 1:] - unit[1:, 1:]  # twice the Gram matrix
    K[np.diag_indices_from(K)] += tol * np.trace(K)
    info = lapack.dpotrf(K, lower=True, overwrite_a=True, clean=False)[1]
    return info == 0


def _check_negative_type(D: np.ndarray, name: str) -> None:
    """Warn, naming ``name``, when the precomputed matrix D is not of negative type: checked on
    all its points up to :data:`NEGATIVE_TYPE_POINTS` (and as many as three m x m arrays of the
    memory budget hold), else on that many evenly spaced points (a subset of points of
    negative type is of negative type: a failure there is a failure of D)."""
    n = D.shape[0]
    m = min(n, NEGATIVE_TYPE_POINTS, int(np.sqrt(memory_budget() / 24.0)))
    if m < 3:
        return
    rows = np.unique(np.linspace(0, n - 1, m).round().astype(np.intp)) if m < n else None
    if _of_negative_type(D if rows is None else D[np.ix_(rows, rows)]):
        return
    which = "" if rows is None else f" (found on {rows.size} of its {n} points, evenly spaced)"
    warnings.warn(
        f"`{name}` holds distances that are not of negative type{which}: energy statistics of them "
        "are not distances between distributions, they can be negative or zero for different "
        "ones (R's energy computes the same numbers without a word). Euclidean distances to a "
        "power in (0, 2] are of negative type (R's dist(x), dist(x)^a); an R dist of method "
        '"maximum" or the shortest paths of a graph may not be. Pass the points and a metric, '
        "or distances of negative type (es.is_negative_type checks a matrix).",
        UserWarning,
        stacklevel=_caller_level(),
    )


def prepare_points(
    X, semimetric: Semimetric, name: str = "X", *, min_samples: int = 1
) -> np.ndarray:
    """Validate data for ``semimetric``: points, or a matrix when precomputed (which is
    checked for negative type, with a warning when it is not)."""
    if semimetric.precomputed:
        D = as_precomputed(X, name)
        if D.shape[0] < min_samples:
            raise ValueError(f"`{name}` must hold at least {min_samples} sample(s), got "
                             f"{D.shape[0]}.")
        _check_negative_type(D, name)
        return D
    return as_data(X, name, min_samples=min_samples)
