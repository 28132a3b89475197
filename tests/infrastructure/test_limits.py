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
    (
        "KGroups n_init r-kgroups",
        lambda: es.KGroups(2, n_init=10**4 + 1, algorithm="r-kgroups").fit(X), ValueError, CAP_INIT,
    ),
    ("PowerKMeans n_init", lambda: es.PowerKMeans(2, n_init=10**9).fit(X), ValueError, CAP_INIT),
    (
        "cluster_test n_init", lambda: es.cluster_test(X, 2, n_init=10**8, n_resamples=9, rng=0),
        ValueError, CAP_INIT,
    ),
    (
        "energy_distance", lambda: es.energy_distance(X, Y, **PROJECTION, n_projections=10**12),
        ValueError, CAP_L,
    ),
    (
        "energy_test",
        lambda: es.energy_test(X, G, **PROJECTION, n_projections=10**12, n_resamples=9), ValueError,
        CAP_L,
    ),
    (
        "dispersion", lambda: es.dispersion(X, G, **PROJECTION, n_projections=10**12), ValueError,
        CAP_L,
    ),
    ("dcov", lambda: es.dcov(X, Y, **PROJECTION, n_projections=10**12), ValueError, CAP_L),
    (
        "dcov_test", lambda: es.dcov_test(X, Y, **PROJECTION, n_projections=10**12, n_resamples=9),
        ValueError, CAP_L,
    ),
    ("dcor", lambda: es.dcor(X, Y, **PROJECTION, n_projections=10**4 + 1), ValueError, CAP_L),
    (
        "dcor_test", lambda: es.dcor_test(X, Y, **PROJECTION, n_projections=10**12, n_resamples=9),
        ValueError, CAP_L,
    ),
    (
        "energy_test 10**5",
        lambda: es.energy_test(X, G, **PROJECTION, n_projections=10**5, n_resamples=9), ValueError,
        CAP_L,
    ),
    (
        "make_power_kmeans_data",
        lambda: make_power_kmeans_data(10**12),
        es.WorkingMemoryError,
        r"make_power_kmeans_data of 1,000,000,000,000 points in 2 dimensions needs .* or a smaller "
        r"`n_samples`",
    ),
    (
        "poisson_statistic M range",
        lambda: es.poisson_statistic([0, 2**50], statistic="M-CvM"),
        ValueError,
        r"the M statistics of counts from 0 to 1,125,899,906,842,624 need a grid of .* more than "
        r"10,000,000 .*statistic='E'",
    ),
    (
        "poisson_test M range",
        lambda: es.poisson_test([0, 10**8], statistic="M", n_resamples=9, rng=0),
        ValueError, r"the M statistics of counts from 0 to 100,000,000 need .*statistic='E'",
    ),
    (
        "poisson_test near 1e12",
        lambda: es.poisson_test([10**12, 10**12 + 3, 10**12 - 7], n_resamples=9, rng=0), ValueError,
        r"counts from 999,999,999,993 to 1,000,000,000,003 need a grid of 25,396,395 counts",
    ),
]

BUDGET = [
    # at working_memory=1 (MiB): name, call, message
    (
        "KGroups n_init memory", lambda: es.KGroups(2, n_init=10**4).fit(X),
        r"`n_init`=10,000 restarts of 40 labels each needs .* a smaller `n_init`",
    ),
    (
        "PowerKMeans n_init memory", lambda: es.PowerKMeans(2, n_init=10**4).fit(X),
        r"`n_init`=10,000 restarts of 40 labels each needs",
    ),
    (
        "energy_distance directions",
        lambda: es.energy_distance(WIDE, WIDE + 1, **PROJECTION, n_projections=10**4),
        r"`n_projections`=10,000 directions in 1,000 dimensions needs .* a smaller `n_projections`",
    ),
    (
        "dcov directions", lambda: es.dcov(WIDE, WIDE, **PROJECTION, n_projections=10**4),
        r"`n_projections`=10,000 directions in 2,000 dimensions needs",
    ),
    (
        "make_power_kmeans_data", lambda: make_power_kmeans_data(10**5, 5, 2, rng=0),
        r"make_power_kmeans_data of 100,000 points in 2 dimensions",
    ),
    (
        "poisson_statistic M", lambda: es.poisson_statistic([0, 10**6], statistic="M-AD"),
        r"the M statistics of counts from 0 to 1,000,000",
    ),
]


@pytest.mark.parametrize("name, call, error, message", CAPPED, ids=[row[0] for row in CAPPED])
def test_caps_refuse_before_computing(name, call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("name, call, message", BUDGET, ids=[row[0] for row in BUDGET])
def test_allocations_are_checked_against_the_working_memory(name, call, message):
    with es.config_context(working_memory=1), pytest.raises(es.WorkingMemoryError, match=message):
        call()


@pytest.mark.parametrize("x", [[0, 10**8], [0, 2**50], [10**12, 10**12 + 3, 10**12 - 7]])
def test_poisson_energy_statistic_needs_no_grid(x):
    """E|x - X| = 2xF(x) - 2 lambda F(x - 1) + lambda - x needs the cdf at the counts only: the
    wide ranges that took 82 s and 5.9 GB (or raised MemoryError, or hung) are immediate,
    and equal the formula evaluated by hand."""
    v = np.asarray(x, dtype=float)
    lam, n = v.mean(), v.size
    to_poisson = (
        2 * v * stats.poisson.cdf(v, lam) - 2 * lam * stats.poisson.cdf(v - 1, lam) + lam - v
    )
    from scipy import special

    between = 2 * lam * (special.i0e(2 * lam) + special.i1e(2 * lam))
    within = np.abs(v[:, None] - v[None, :]).sum()
    expected = n * (2 * to_poisson.mean() - between - within / n**2)
    assert es.poisson_statistic(x) == pytest.approx(expected, rel=1e-9)
    assert es.poisson_test(x, statistic="E", n_resamples=19, rng=0).n_resamples == 19


def test_the_caps_themselves_are_allowed():
    assert np.isfinite(es.energy_distance(X, Y, **PROJECTION, n_projections=10**4, rng=0))


@pytest.mark.parametrize(
    "family, shapes, rtol",
    [(stats.t, (5.0,), 1e-12), (stats.t, (2.5,), 1e-12), (stats.beta, (2.0, 3.0), 1e-12),
     (stats.gumbel_r, (), 1e-12), (stats.pareto, (3.0,), 1e-12), (stats.chi2, (3.0,), 1e-10),
     (stats.beta, (0.5, 0.7), 1e-12), (stats.invgauss, (0.4,), 1e-12)],
    ids=lambda v: getattr(v, "name", None),
)
def test_the_table_of_a_family_without_closed_form_against_quadrature(family, shapes, rtol):
    """The exact table (_gof/_cdf_table.py) against QUADPACK, also far in the tails and beside
    support ends where the density is singular (chi2(3), beta(0.5, 0.7))."""
    from _gof_reference import by_quadrature

    from energystats._gof._standard import mean_distances

    z = np.sort(np.r_[np.random.default_rng(3).normal(size=20) * 3, 0.5, 50.0, -50.0, 3e4, -3e4])
    g, between = mean_distances(family, shapes, z[None, :])
    with np.errstate(over="ignore", under="ignore"):  # the reference far in gumbel's tail
        g_quad, between_quad = by_quadrature(family, shapes, z)
    np.testing.assert_allclose(g[0], g_quad, rtol=rtol)
    assert between[0] == pytest.approx(between_quad, rel=rtol)
    if family is stats.chi2:  # QUADPACK only to 3e-11 beside the singular end: the closed form
        g_gamma, between_gamma = mean_distances(stats.gamma, (1.5,), z[None, :] / 2.0)
        np.testing.assert_allclose(g, 2.0 * g_gamma, rtol=1e-14)
        assert between[0] == pytest.approx(2.0 * between_gamma[0], rel=1e-14)


@pytest.mark.slow
def test_levy_stable_builds_one_table_for_the_whole_test():
    """energy_gof(x, levy_stable(1.8, 0)) took 12.7 s per statistic (quadrature of the cdf, itself
    an integral, per point): hours at the default B. Now the observed statistic and every
    resample share one table of the cdf (slow: the two tables cost about 30 s of scipy's
    levy_stable cdf, whatever the number of resamples)."""
    import warnings

    from energystats._gof._cdf_table import _cached

    x = np.random.default_rng(0).normal(size=30)
    before = _cached.cache_info().misses
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's levy_stable warns about its own integration
        res = es.energy_gof(x, stats.levy_stable(1.7, 0.1), n_resamples=99, rng=0)
    assert _cached.cache_info().misses <= before + 2  # the data's range, then the resamples'
    assert np.isfinite(res.statistic) and 0 < res.pvalue <= 1
