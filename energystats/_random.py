"""Randomness: one entry point turning what scipy and scikit-learn accept into a Generator.

``rng`` (scipy's name) and ``random_state`` (scikit-learn's) take the same values:
``None`` (fresh entropy), a non-negative integer or sequence of them, a
``numpy.random.SeedSequence`` or ``BitGenerator``, a ``numpy.random.Generator`` or a
legacy ``numpy.random.RandomState``. Work is split into independent streams with
``Generator.spawn``, which needs a generator built on a ``SeedSequence``; a
``RandomState`` (or a Generator around a bit generator seeded without one) seeds a
new ``SeedSequence`` from 128 bits it draws, so that it advances as it would when
used directly and the same state gives the same result.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

__all__ = ["as_generator", "check_rng", "stream_source"]


def _refuse(value, name: str) -> TypeError:
    return TypeError(
        f"`{name}` must be None, a non-negative integer, a numpy Generator, RandomState, "
        f"SeedSequence or BitGenerator, got {value!r}."
    )


def _spawnable(gen: np.random.Generator) -> bool:
    return isinstance(gen.bit_generator.seed_seq, np.random.SeedSequence)


def check_rng(value, name: str = "rng") -> None:
    """Refuse what :func:`as_generator` refuses, naming ``name``, without drawing from it:
    for a call whose path draws nothing (a ``rng`` accepted is checked on every path)."""
    if value is None or isinstance(value, (np.random.SeedSequence, np.random.BitGenerator,
                                           np.random.Generator, np.random.RandomState)):
        return
    if isinstance(value, (bool, np.bool_)) or isinstance(value, (str, bytes, float)):
        raise _refuse(value, name)
    if isinstance(value, Integral):
        if value < 0:
            raise ValueError(f"`{name}` must be a non-negative integer seed, got {value}.")
        return
    seeds = np.asarray(value) if isinstance(value, (list, tuple, np.ndarray)) else None
    if seeds is None or seeds.ndim != 1 or seeds.size == 0 or seeds.dtype.kind not in "iu":
        raise _refuse(value, name)
    if (seeds < 0).any():
        raise ValueError(f"`{name}` must hold non-negative integer seeds, got {value!r}.")


def as_generator(value, name: str = "rng") -> np.random.Generator:
    """Return a ``numpy.random.Generator`` that can spawn streams, or raise naming ``name``.

    A spawnable Generator is returned as it is (the caller's stream is used, not copied).
    """
    check_rng(value, name)
    if isinstance(value, np.random.Generator):
        gen = value
    elif isinstance(value, np.random.RandomState):
        return np.random.default_rng(
            np.random.SeedSequence(value.randint(0, 2**32, size=4, dtype=np.uint64))
        )
    else:  # None, a SeedSequence or BitGenerator, an integer seed or a sequence of them
        gen = np.random.default_rng(int(value) if isinstance(value, Integral) else value)
    if _spawnable(gen):
        return gen
    return np.random.default_rng(
        np.random.SeedSequence(gen.integers(0, 2**32, size=4, dtype=np.uint64))
    )


class _Seeds:
    """An integer seed's (or fresh entropy's) ``SeedSequence`` with ``Generator.spawn``: the
    children ``np.random.default_rng(seed).spawn(n)`` gives (a PCG64 on each spawned
    sequence), without the parent's bit generator, whose state costs about 30 microseconds
    and from which nothing would draw."""

    def __init__(self, seed: int | None):
        self.seed_seq = np.random.SeedSequence(seed)

    def spawn(self, n_children: int) -> list[np.random.Generator]:
        return [np.random.Generator(np.random.PCG64(s)) for s in self.seed_seq.spawn(n_children)]


def stream_source(value, name: str = "rng"):
    """``as_generator(value, name)`` for a caller that only spawns streams from it: the same
    streams, in the same order; for None or an integer seed, without building the parent."""
    check_rng(value, name)
    if value is None:
        return _Seeds(None)
    if isinstance(value, Integral):
        return _Seeds(int(value))
    return as_generator(value, name)
