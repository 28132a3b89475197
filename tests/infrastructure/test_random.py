"""energystats._random.as_generator: what scipy and scikit-learn accept, one message otherwise."""

import numpy as np
import pytest

from energystats._random import as_generator, stream_source


def test_integers_and_seed_sequences_give_numpys_streams():
    assert as_generator(3).random() == np.random.default_rng(3).random()
    assert as_generator(np.int64(3)).random() == np.random.default_rng(3).random()
    assert as_generator([1, 2]).random() == np.random.default_rng([1, 2]).random()
    assert as_generator(np.random.SeedSequence(5)).random() == np.random.default_rng(5).random()
    assert as_generator(np.random.PCG64(5)).random() == np.random.default_rng(5).random()


@pytest.mark.parametrize("make", [lambda: 0, lambda: 7, lambda: np.int64(2**40), lambda: [1, 2],
                                  lambda: np.random.SeedSequence(5)])
def test_a_stream_source_spawns_the_streams_of_the_generator(make):
    """stream_source(seed).spawn(n) twice (as KGroups spawns), drawn from: the streams of
    as_generator(seed).spawn(n) twice, for seeds that skip the parent and seeds that do not."""
    ours, theirs = stream_source(make()), as_generator(make())  # one each: spawning advances it
    for n in (3, 1):
        for a, b in zip(ours.spawn(n), theirs.spawn(n), strict=True):
            np.testing.assert_array_equal(a.random(5), b.random(5))


def test_a_stream_source_refuses_what_as_generator_refuses():
    for bad in (True, -1, 1.5):
        with pytest.raises((TypeError, ValueError), match="`random_state` must"):
            stream_source(bad, "random_state")
    fresh = stream_source(None).spawn(2)
    assert fresh[0].random() != fresh[1].random()


def test_a_spawnable_generator_is_used_as_it_is():
    gen = np.random.default_rng(0)
    assert as_generator(gen) is gen


@pytest.mark.parametrize(
    "make",
    [lambda: np.random.RandomState(0), lambda: np.random.default_rng(np.random.RandomState(0))],
)
def test_legacy_states_become_spawnable_generators_that_advance_them(make):
    first, second = make(), make()
    gen = as_generator(first)
    assert len(gen.spawn(2)) == 2
    assert as_generator(second).random() == as_generator(make()).random()  # same state, same stream
    assert as_generator(first).random() != gen.random()  # drawing the seed advanced the state


@pytest.mark.parametrize("bad", ["abc", 1.5, True, b"1", object(), [1.5], [[1, 2]], []])
def test_other_values_are_refused_naming_the_argument(bad):
    with pytest.raises(
        TypeError, match="`random_state` must be None, a non-negative integer, a numpy Generator"
    ):
        as_generator(bad, "random_state")


@pytest.mark.parametrize("bad", [-1, [1, -2]])
def test_negative_seeds_are_refused_naming_the_argument(bad):
    with pytest.raises(ValueError, match="`rng` must .*non-negative integer seed"):
        as_generator(bad)
