"""ksample_statistic (R ksample.e): the statistics of dispersion and energy_test, the permuted
data, batches of permutations, and R (live; the committed values are in test_r_reference_gof.py)."""

import numpy as np
import pytest

import energystats as es


@pytest.fixture
def grouped(rng):
    sizes = np.array([14, 9, 11])
    labels = np.repeat(np.arange(3), sizes)
    X = rng.normal(size=(sizes.sum(), 3)) + 0.7 * labels[:, None]
    return X, labels


def test_the_statistics_of_dispersion(grouped):
    X, labels = grouped
    res = es.dispersion(X, labels)
    assert es.ksample_statistic(X, labels, statistic="E") == pytest.approx(
        res.pairwise[np.triu_indices(3, 1)].sum(), rel=1e-12
    )
    assert es.ksample_statistic(X, labels, statistic="S") == pytest.approx(res.S, rel=1e-12)
    assert es.ksample_statistic(X, labels, statistic="F") == pytest.approx(res.F, rel=1e-12)


@pytest.mark.parametrize("statistic", ["E", "S", "F"])
def test_the_observed_statistic_of_energy_test(grouped, statistic):
    X, labels = grouped
    test = es.energy_test(X, labels, statistic=statistic, n_resamples=9, rng=0)
    assert es.ksample_statistic(X, labels, statistic=statistic) == pytest.approx(
        test.statistic, rel=1e-12
    )


@pytest.mark.parametrize("kw", [{}, {"exponent": 0.5}, {"metric": "gaussian", "sigma": 1.0}])
def test_a_permutation_is_the_statistic_of_the_permuted_data(grouped, rng, kw):
    X, labels = grouped
    perms = np.array([rng.permutation(len(X)) for _ in range(5)])
    got = es.ksample_statistic(X, labels, permutations=perms, **kw)
    want = [es.ksample_statistic(X[ix], labels, **kw) for ix in perms]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert got.shape == (5,)
    assert isinstance(es.ksample_statistic(X, labels, permutations=perms[0], **kw), float)


def test_budgets_paths_and_precomputed_matrices_agree(grouped, rng):
    """Any memory budget (held or streamed), the sorted line (1-D) and a precomputed matrix
    give the same values."""
    X, labels = grouped
    perms = np.array([rng.permutation(len(X)) for _ in range(7)])
    full = es.ksample_statistic(X, labels, permutations=perms)
    with es.config_context(working_memory=0.01):  # streamed, a few permutations per product
        np.testing.assert_allclose(es.ksample_statistic(X, labels, permutations=perms), full,
                                   rtol=1e-12)
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    np.testing.assert_allclose(
        es.ksample_statistic(D, labels, permutations=perms, metric="precomputed"), full, rtol=1e-12
    )
    x = X[:, 0]
    line = es.ksample_statistic(x, labels, permutations=perms, statistic="E")
    np.testing.assert_allclose(
        line, [es.dispersion(x[ix], labels).pairwise[np.triu_indices(3, 1)].sum() for ix in perms],
        rtol=1e-12,
    )


def test_tiny_and_huge_scales(grouped):
    X, labels = grouped
    base = es.ksample_statistic(X, labels)
    assert es.ksample_statistic(X * 2.0**-600, labels) == pytest.approx(base * 2.0**-600, rel=1e-12)
    assert es.ksample_statistic(X * 2.0**-600, labels, statistic="F") == pytest.approx(
        es.ksample_statistic(X, labels, statistic="F"), rel=1e-12)


@pytest.mark.parametrize(
    "kwargs,err,match",
    [
        ({"statistic": "original"}, ValueError, r"`statistic` must be one of \('S', 'E', 'F'\)"),
        (
            {"permutations": np.arange(33)}, ValueError,
            r"`permutations` must have shape \(34,\) or \(B, 34\)",
        ),
        ({"permutations": np.zeros((2, 2, 34), int)}, ValueError, "`permutations` must have shape"),
        (
            {"permutations": np.arange(34.0)}, TypeError,
            "`permutations` must hold integer row indices",
        ),
        (
            {"permutations": np.r_[np.arange(33), 0]}, ValueError,
            r"permutations of 0..33 .*row 0 is not one",
        ),
        ({"permutations": np.arange(1, 35)}, ValueError, "row 0 is not one"),
        ({"permutations": np.zeros((0, 34), int)}, ValueError, "at least one permutation"),
    ],
)
def test_bad_input(grouped, kwargs, err, match):
    X, labels = grouped
    with pytest.raises(err, match=match):
        es.ksample_statistic(X, labels, **kwargs)


def test_bad_labels(grouped):
    X, labels = grouped
    with pytest.raises(ValueError, match="`labels` must define at least two groups"):
        es.ksample_statistic(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match=r"`labels` must have one entry per sample \(34\)"):
        es.ksample_statistic(X, labels[:-1])
    with pytest.raises(ValueError, match="`X` contains missing values"):
        es.ksample_statistic(np.where(labels[:, None] == 0, np.nan, X), labels)


@pytest.mark.r
@pytest.mark.parametrize("statistic,method", [("E", "original"), ("S", "discoB"), ("F", "discoF")])
def test_live_r_ksample_e(rng, statistic, method):
    """Points with R's ix; a distance matrix permuted before it reaches R, because R's
    ksample.e(d, sizes, distance = TRUE, ix = ix) permutes the rows of d only (d[ix, ]):
    with ix = sample(10) on ten points it gives 1.700 where d[ix, ix] and x[ix, ] give 1.661
    and the points 1.277 (R 4.2.2, energy 1.7-11)."""
    from energystats._rbridge import r_call, r_matrix, to_numpy

    sizes = np.array([20, 13, 17])
    labels = np.repeat(np.arange(3), sizes)
    X = rng.standard_t(4, size=(50, 2)) + labels[:, None]
    D = np.abs(X[:, None, :] - X[None]).sum(-1)  # L1 distances
    for ix in (np.arange(50), rng.permutation(50)):
        want = to_numpy(r_call("ksample.e", r_matrix(X), sizes, method=method, ix=ix + 1))[0]
        assert (
            es.ksample_statistic(X, labels, permutations=ix, statistic=statistic)
            == pytest.approx(want, rel=1e-10)
        )
        want = to_numpy(
            r_call("ksample.e", r_matrix(D[np.ix_(ix, ix)]), sizes, distance=True, method=method)
        )[0]
        got = es.ksample_statistic(
            D, labels, permutations=ix, statistic=statistic, metric="precomputed"
        )
        assert got == pytest.approx(want, rel=1e-10)
