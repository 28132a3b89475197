r"""What a caller tells :func:`~energystats._operator.make_operator`, as small typed options: what
it will ask of the operator (:class:`OnePass`, :class:`Repeated`, :class:`GroupSums`), which
matrix (the semimetric D, or the centred kernel G of :class:`Kernel`) and the approximation the
user named (:class:`Projection`, :class:`Nystroem`; :func:`approximation_of` reads the user's
``approximation=`` argument). The back-end is then chosen from the sizes of the problem in one
place, :func:`~energystats._operator.choice.choose_backend`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "N_PROJECTIONS",
    "GroupSums",
    "Kernel",
    "Nystroem",
    "OnePass",
    "Projection",
    "Repeated",
    "Use",
    "approximation_of",
]


#: The default number K of random directions of every function that takes ``n_projections``
#: (energy_distance, dispersion, energy_test, pairwise_energy_tests, dcov, dcor, dcov_stats,
#: dcov_test, dcor_test, ...): chosen from the level, power and time of both families'
#: projected tests measured side by side (docs/validation.md, "How many directions").
N_PROJECTIONS = 200


@dataclass(frozen=True)
class OnePass:
    """The caller asks for one product or one set of block sums: the matrix is streamed (each
    pair evaluated once, in tiles that stay in cache, faster than filling the matrix), unless it
    is at most four tiles and fits the budget."""


@dataclass(frozen=True)
class Repeated:
    """The caller asks for several products, or rows: the matrix is computed and held when it
    fits the budget beside ``reserve`` bytes of the caller's own (other operators, its state).

    Attributes
    ----------
    reserve : int
        Bytes the caller holds beside the operator.
    sort : bool
        Whether one-dimensional data with |x - y| get the sorted back-end (O(n log n));
        ``False``: the matrix's path, as any other data (the user's ``algorithm="pairwise"``).
    """

    reserve: int = 0
    sort: bool = True


@dataclass(frozen=True)
class GroupSums:
    """The caller asks for the block sums of ``count`` labelings of the points into ``k``
    groups, ``batch`` at a time (``None``: as many as fit): streamed when every labeling fits one
    pass over the tiles, else held when the matrix fits beside a batch, else streamed with one
    pass per batch."""

    k: int
    count: int
    batch: int | None = None


#: What the caller will ask of the operator.
Use = OnePass | Repeated | GroupSums


@dataclass(frozen=True, eq=False)
class Kernel:
    r"""The centred kernel :math:`G = -\tfrac12 J D J^\top` (eq. 7, reference point the mean
    weighted by ``weights``) instead of the semimetric D; with ``semimetric=None`` the data are a
    Gram matrix, used as given."""

    weights: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class Projection:
    """The random-projection estimate of the Euclidean distance (D only; exponent 1): the
    average of one-dimensional distances along ``n_projections`` directions drawn from ``rng``,
    or along the given ``directions`` (L x d)."""

    n_projections: int = N_PROJECTIONS
    rng: np.random.Generator | None = None
    directions: np.ndarray | None = None
    name = "projection"


@dataclass(frozen=True, eq=False)
class Nystroem:
    """The Nyström estimate of the centred kernel (G only): features from ``n_landmarks``
    landmarks drawn from ``rng`` by ``landmarks`` ("d2" or "uniform")."""

    n_landmarks: int = 300
    landmarks: str = "d2"
    rng: np.random.Generator | None = None
    name = "nystroem"


def approximation_of(
    name: str | None,
    *,
    kernel: bool = False,
    n_projections: int = N_PROJECTIONS,
    n_landmarks: int = 300,
    landmarks: str = "d2",
    rng: np.random.Generator | None = None,
) -> Projection | Nystroem | None:
    """The approximation the user named (``approximation=``), with its parameters: ``None``, or
    the one that applies to the matrix (``"projection"`` to D, ``"nystroem"`` to the kernel G
    when ``kernel``); any other name raises ``ValueError`` naming the argument."""
    if name is None:
        return None
    expected = "nystroem" if kernel else "projection"
    if name != expected:
        raise ValueError(f"`approximation` must be None or {expected!r}, got {name!r}.")
    return Nystroem(n_landmarks, landmarks, rng) if kernel else Projection(n_projections, rng)
