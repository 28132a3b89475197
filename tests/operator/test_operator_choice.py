"""The one chooser of the operator layer (energystats._operator.choice): the back-end from the
sizes of the problem only, decided without data, and the typed options it reads."""

import numpy as np
import pytest

from energystats._operator import (
    GroupSums,
    Kernel,
    OnePass,
    Repeated,
    approximation_of,
    make_operator,
)
from energystats._operator.choice import TILE, Choice, Sizes, choose_backend, streamed_tile
from energystats._operator.options import Nystroem, Projection
from energystats._semimetric import resolve_semimetric

MiB = 2**20


def sizes(n, budget=1024 * MiB, *, precomputed=False, gram=False, on_line=False, workers=1):
    return Sizes(n, precomputed or gram, gram, on_line, workers, budget)


@pytest.mark.parametrize(
    "problem,use,kernel,want",
    [
        (sizes(5000, precomputed=True), Repeated(), False, Choice("given")),
        (sizes(5000, gram=True), Repeated(), True, Choice("given")),
        (sizes(5000, precomputed=True), Repeated(), True, Choice("given", centred=True)),
        (sizes(10**6, on_line=True), OnePass(), False, Choice("sorted")),
        (sizes(500, on_line=True), Repeated(sort=False), False, Choice("dense")),
        (sizes(10**6, on_line=True), GroupSums(2, 1000), False, Choice("sorted")),
        (sizes(3000, workers=4), Repeated(), False, Choice("distributed")),
        (sizes(3000), Repeated(), False, Choice("dense")),  # 69 MiB of 1 GiB
        (sizes(3000), Repeated(reserve=1000 * MiB), False, Choice("streamed")),
        (sizes(3000), OnePass(), False, Choice("streamed")),  # one pass: each pair once
        (sizes(2 * TILE), OnePass(), False, Choice("dense")),  # at most four tiles: one product
        (sizes(2 * TILE, budget=MiB), OnePass(), False, Choice("streamed")),
        (sizes(3000), GroupSums(2, 200), False, Choice("streamed")),  # every labeling in one pass
        (sizes(3000, budget=80 * MiB), GroupSums(2, 10**6), False, Choice("dense")),
        (sizes(3000, budget=60 * MiB), GroupSums(2, 10**6), False, Choice("streamed")),  # no room
        (sizes(3000), GroupSums(2, 200, batch=1), False, Choice("dense")),  # 200 passes
        (sizes(3000), GroupSums(2, 200, batch=100), False, Choice("streamed")),  # 2 passes
        (sizes(3000), GroupSums(2, 200, batch=50), False, Choice("dense")),  # 4 passes
        (sizes(3000), Repeated(reserve=8 * MiB), True, Choice("dense kernel")),
        (sizes(3000, budget=60 * MiB), Repeated(), True, Choice("streamed", centred=True)),
        (sizes(3000, on_line=True), Repeated(), True, Choice("sorted", centred=True)),
    ],
)
def test_the_back_end_follows_from_the_sizes(problem, use, kernel, want):
    assert choose_backend(problem, use, kernel) == want


def test_streamed_tiles_take_a_quarter_of_the_budget():
    assert streamed_tile(1024 * MiB) == TILE
    assert 1 <= streamed_tile(MiB) < TILE and streamed_tile(0) == 1


def test_make_operator_builds_the_choice(rng):
    """The operator make_operator returns is the back-end the chooser names for its sizes."""
    sm = resolve_semimetric()
    X = rng.normal(size=(40, 2))
    kinds = {"given": "dense", "sorted": "sorted", "dense": "dense", "streamed": "streamed"}
    cases = ((X, Repeated(), None), (X[:, :1], OnePass(), None), (X, Repeated(), Kernel()))
    for data, use, kernel in cases:
        op = make_operator(data, sm, use, kernel=kernel)
        on_line = data.shape[1] == 1
        choice = choose_backend(sizes(40, on_line=on_line), use, kernel is not None)
        assert op.kind == kinds.get(choice.backend, "dense") and op.on_line == on_line


@pytest.mark.parametrize(
    "name,kernel,match",
    [
        ("nystroem", False, "`approximation` must be None or 'projection', got 'nystroem'"),
        ("projection", True, "`approximation` must be None or 'nystroem', got 'projection'"),
        ("random", False, "`approximation` must be None or 'projection', got 'random'"),
    ],
)
def test_approximation_of_the_users_name(name, kernel, match):
    with pytest.raises(ValueError, match=match):
        approximation_of(name, kernel=kernel)


def test_the_options_of_an_approximation():
    rng = np.random.default_rng(0)
    assert approximation_of(None) is None
    projection = approximation_of("projection", n_projections=7, rng=rng)
    assert isinstance(projection, Projection)
    assert projection.n_projections == 7 and projection.rng is rng
    nystroem = approximation_of("nystroem", kernel=True, n_landmarks=30, landmarks="uniform")
    assert isinstance(nystroem, Nystroem)
    assert (nystroem.n_landmarks, nystroem.landmarks) == (30, "uniform")
    X = rng.normal(size=(20, 2))
    with pytest.raises(ValueError, match="must be None or 'nystroem', got 'projection'"):
        make_operator(X, resolve_semimetric(), kernel=Kernel(), approximation=projection)
