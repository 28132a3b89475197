"""Caps and memory checks: every argument that an allocation or a loop grows with is capped
(with the reason in the message, as ``n_resamples`` is) and checked against the working memory
before anything is allocated. Each row is a hostile call from the probe of issue 35 (it hung,
was killed at 21 GB or raised a raw ``MemoryError``), the error it now raises and its message.
A new function is probed by adding a row."""

import numpy as np
import pytest
from scipy import stats

import energystats as es
from energystats.datasets import make_power_kmeans_data

RNG = np.random.default_rng(35)
X = RNG.normal(size=(40, 2))
Y = RNG.normal(size=(40, 2))
G = np.arange(40) % 2
WIDE = RNG.normal(size=(40, 1000))  # directions in 1,000 dimensions take 16 KB each

PROJECTION = dict(approximation="projection")
CAP_L = r"`n_projections` must be at most 10,000 \(the estimate's standard error"
CAP_INIT = r"`n_init` must be at most 10,000 \(the best of that many starts"

CAPPED = [
    # name, call, error, message
    ("KGroups n_init", lambda: es.KGroups(2, n_init=10**9).fit(X), ValueError, CAP_INIT),
    ("KGroups n_init r-kgroups", lambda: es.KGroups(2, n_init=10**4 + 1, algorithm="r-kgroups").fit(X), ValueError, CAP_INIT),
    ("PowerKMeans n_init", lambda: es.PowerKMeans(2, n_init=10**9).fit(X), ValueError, CAP_INIT),
    ("cluster_test n_init", lambda: es.cluster_test(X, 2, n_init=10**8, n_resamples=9, rng=0), ValueError, CAP_INIT),
    ("energy_distance", lambda: es.energy_distance(X, Y, **PROJECTION, n_projections=10**12), ValueError, CAP_L),
    ("energy_test", lambda: es.energy_test(X, G, **PROJECTION, n_projections=10**12, n_resamples=9), ValueError, CAP_L),
    ("dispersion", lambda: es.dispersion(X, G, **PROJECTION, n_projections=10**12), ValueError, CAP_L),
    ("dcov", lambda: es.dcov(X, Y, **PROJECTION, n_projections=10**12), ValueError, CAP_L),
    ("dcov_test", lambda: es.dcov_test(X, Y, **PROJECTION, n_projections=10**12, n_resamples=9), ValueError, CAP_L),
    ("dcor", lambda: es.dcor(X, Y, **PROJECTION, n_projections=10**4 + 1), ValueError, CAP_L),
    ("make_power_kmeans_data", lambda: make_power_kmeans_data(10**12), es.WorkingMemoryError,
     r"make_power_kmeans_data of 1,000,000,000,000 points in 2 dimensions needs .* or a smaller `n_samples`"),
    ("poisson_statistic M range", lambda: es.poisson_statistic([0, 2**50], test="M-CvM"), es.WorkingMemoryError,
     r"the M statistics of counts from 0 to 1,125,899,906,842,624 .*test='E'"),
    ("poisson_test M range", lambda: es.poisson_test([0, 10**8], test="M", n_resamples=9, rng=0), es.WorkingMemoryError,
     r"the M statistics of counts from 0 to 100,000,000 .*test='E'"),
]

BUDGET = [
    # at working_memory=1 (MiB): name, call, message
    ("KGroups n_init memory", lambda: es.KGroups(2, n_init=10**4).fit(X), r"`n_init`=10,000 restarts of 40 labels each needs .* a smaller `n_init`"),
    ("PowerKMeans n_init memory", lambda: es.PowerKMeans(2, n_init=10**4).fit(X), r"`n_init`=10,000 restarts of 40 labels each needs"),
    ("energy_distance directions", lambda: es.energy_distance(WIDE, WIDE + 1, **PROJECTION, n_projections=10**4),
     r"`n_projections`=10,000 directions in 1,000 dimensions needs .* a smaller `n_projections`"),
    ("dcov directions", lambda: es.dcov(WIDE, WIDE, **PROJECTION, n_projections=10**4), r"`n_projections`=10,000 directions in 2,000 dimensions needs"),
    ("make_power_kmeans_data", lambda: make_power_kmeans_data(10**5, 5, 2, random_state=0), r"make_power_kmeans_data of 100,000 points in 2 dimensions"),
    ("poisson_statistic M", lambda: es.poisson_statistic([0, 10**6], test="M-AD"), r"the M statistics of counts from 0 to 1,000,000"),
]


@pytest.mark.parametrize("name, call, error, message", CAPPED, ids=[row[0] for row in CAPPED])
def test_caps_refuse_before_computing(name, call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("name, call, message", BUDGET, ids=[row[0] for row in BUDGET])
def test_allocations_are_checked_against_the_working_memory(name, call, message):
    with es.config_context(working_memory=1), pytest.raises(es.WorkingMemoryError, match=message):
        call()


def test_the_caps_themselves_are_allowed():
    assert np.isfinite(es.energy_distance(X, Y, **PROJECTION, n_projections=10**4, rng=0))
