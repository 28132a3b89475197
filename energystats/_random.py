"""Randomness: what scipy's ``rng`` and scikit-learn's ``random_state`` accept (None, seeds, a
SeedSequence, BitGenerator, Generator or RandomState) as a Generator that can spawn streams."""

from __future__ import annotations

from numbers import Integral

import numpy as np

__all__ = ["as_generator", "check_rng", "stream_source"]

def check_rng(value, name: str = "rng") -> None:
    """Refuse what :func:`as_generator` refuses, naming ``name``, without drawing from it."""
    if value is None or isinstance(value, (np.random.SeedSequence, np.random.BitGenerator,
                                           np.random.Generator, np.random.RandomState)):
        return
    if isinstance(value, Integral) and not isinstance(value, (bool, np.bool_)):
        if value < 0:
            raise ValueError(f"`{name}` must be a non-negative integer seed, got {value}.")
        return
    seeds = np.asarray(value) if isinstance(value, (list, tuple, np.ndarray)) else None
    if seeds is None or seeds.ndim != 1 or seeds.size == 0 or seeds.dtype.kind not in "iu":
        raise TypeError(f"`{name}` must be None, a non-negative integer, a numpy Generator, "
                        f"RandomState, SeedSequence or BitGenerator, got {value!r}.")
    if (seeds < 0).any():
        raise ValueError(f"`{name}` must hold non-negative integer seeds, got {value!r}.")


def as_generator(value, name: str = "rng") -> np.random.Generator:
    """``value`` as a Generator that can spawn streams, or an error naming ``name``. A spawnable
    Generator is returned itself (the caller's stream is used, not copied); a RandomState (or a
    Generator seeded without a SeedSequence) seeds a new SeedSequence from 128 bits it draws,
    so that it advances as when used directly."""
    check_rng(value, name)
    gen = value if isinstance(value, (np.random.Generator, np.random.RandomState)) else (
        np.random.default_rng(int(value) if isinstance(value, Integral) else value))
    if isinstance(gen, np.random.RandomState):
        return np.random.default_rng(np.random.SeedSequence(
            gen.randint(0, 2**32, size=4, dtype=np.uint64)))
    if isinstance(gen.bit_generator.seed_seq, np.random.SeedSequence):
        return gen
    return np.random.default_rng(np.random.SeedSequence(
        gen.integers(0, 2**32, size=4, dtype=np.uint64)))


class _Seeds:
    """An integer seed's (or fresh entropy's) SeedSequence with ``spawn``: the children of
    ``np.random.default_rng(seed).spawn(n)``, without the parent's bit generator (about 30
    microseconds, and nothing would draw from it)."""

    def __init__(self, seed: int | None):
        self.seed_seq = np.random.SeedSequence(seed)

    def spawn(self, n_children: int) -> list[np.random.Generator]:
        return [np.random.Generator(np.random.PCG64(s)) for s in self.seed_seq.spawn(n_children)]


def stream_source(value, name: str = "rng"):
    """:func:`as_generator` for a caller that only spawns streams: the same streams in the same
    order, for None or an integer seed without building the parent."""
    check_rng(value, name)
    if value is None or isinstance(value, Integral):
        return _Seeds(None if value is None else int(value))
    return as_generator(value, name)
