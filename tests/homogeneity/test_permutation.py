"""The k-sample energy permutation test (energystats._homogeneity.permutation) and its
relabelings (energystats._resample)."""

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from _calibration import LEVEL_REPS, rejection_interval
from conftest import brute_rho
from statsmodels.stats.multitest import multipletests

import energystats as es
from energystats._resample import all_relabelings, permutations, relabeling_count


def brute_statistic(X, labels, name, **kw):
    d = es.dispersion(X, labels, **kw)
    if name == "S":
        return d.S
    if name == "F":
        return d.F
    return d.pairwise[np.triu_indices(len(d.sizes), 1)].sum()


def unequal_groups(rng, sizes, d=2, shift=0.0):
    codes = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(codes.size, d)) + shift * codes[:, None]
    return X, rng.permutation(codes)


@pytest.mark.parametrize("name", ["S", "E", "F"])
@pytest.mark.parametrize("sizes", [(7, 12), (5, 9, 4), (6, 3, 8, 5), (4, 4, 6, 5, 3)])
@pytest.mark.parametrize("d", [1, 3])
def test_observed_and_null_match_brute_force(rng, name, sizes, d):
    """Observed statistic and every null value equal dispersion() on the same relabeling."""
    X, labels = unequal_groups(rng, sizes, d=d, shift=0.4)
    res = es.energy_test(X, labels, statistic=name, n_resamples=25, rng=5, exact=False)
    assert res.statistic == pytest.approx(brute_statistic(X, labels, name), rel=1e-12)
    codes = np.unique(labels, return_inverse=True)[1]
    perms = codes[permutations(np.random.default_rng(5), len(codes), 25)]  # codes[permutation]
    want = [brute_statistic(X, p, name) for p in perms]
    np.testing.assert_allclose(res.null_distribution, want, rtol=1e-10)
    np.testing.assert_array_equal(res.sizes, sizes)
    assert res.n_resamples == 25 and not res.exact and res.statistic_name == name


@pytest.mark.parametrize(
    "metric,kw", [("euclidean", dict(exponent=0.5)), ("gaussian", dict(sigma=1.0))]
)
def test_other_semimetrics_and_precomputed(rng, metric, kw):
    X, labels = unequal_groups(rng, (8, 10, 6), shift=0.5)
    a = es.energy_test(X, labels, metric=metric, n_resamples=40, rng=3, **kw)
    D = es.pairwise_semimetric(X, metric=metric, **kw)
    b = es.energy_test(D, labels, metric="precomputed", n_resamples=40, rng=3)
    assert a.statistic == pytest.approx(es.dispersion(X, labels, metric=metric, **kw).S, rel=1e-12)
    np.testing.assert_allclose(a.null_distribution, b.null_distribution, rtol=1e-12)
    assert a.pvalue == b.pvalue


def test_relabeling_enumeration():
    codes = np.repeat([0, 1, 2], [3, 2, 2])
    rows = all_relabelings(codes)
    assert relabeling_count([3, 2, 2]) == 210 == len(rows) == len({tuple(r) for r in rows})
    assert all(Counter(r) == {0: 3, 1: 2, 2: 2} for r in rows) and (rows[0] == codes).all()
    # above a cap the count is not formed: 10^6 points in two halves have 300,000 digits of them
    assert relabeling_count([3, 2, 2], cap=209) == 210
    assert relabeling_count([3, 2, 2], cap=100) == 101
    assert relabeling_count([500_000, 500_000], cap=10**6) == 10**6 + 1


@pytest.mark.parametrize("name", ["S", "E", "F"])
def test_exact_test_is_the_full_permutation_distribution(rng, name):
    X, labels = unequal_groups(rng, (3, 2, 2), shift=1.0)
    res = es.energy_test(X, labels, statistic=name, n_resamples=999, rng=0)
    assert res.exact and res.n_resamples == 210
    codes = np.unique(labels, return_inverse=True)[1]
    want = np.array([brute_statistic(X, r, name) for r in all_relabelings(codes)])
    np.testing.assert_allclose(np.sort(res.null_distribution), np.sort(want), rtol=1e-10)
    observed = brute_statistic(X, labels, name)
    assert res.pvalue == pytest.approx(np.mean(want >= observed * (1 - 1e-12)), abs=1e-15)
    # forcing Monte Carlo, or exact=True with few resamples
    assert not es.energy_test(X, labels, statistic=name, n_resamples=999, exact=False, rng=0).exact
    assert es.energy_test(X, labels, statistic=name, n_resamples=10, exact=True).n_resamples == 210
    assert not es.energy_test(X, labels, statistic=name, n_resamples=10, rng=0).exact


def test_exact_two_sample_separated_groups():
    # 3 + 3 points: 20 relabelings; the observed split and its mirror are the most extreme
    res = es.energy_test([0.0, 0.1, 0.2, 5.0, 5.1, 5.2], [0, 0, 0, 1, 1, 1])
    assert res.exact and res.pvalue == pytest.approx(2 / 20)


def test_same_seed_same_result_whatever_the_blocks(rng):
    X, labels = unequal_groups(rng, (20, 25, 15), d=3, shift=0.2)
    ref = es.energy_test(X, labels, n_resamples=101, rng=42)
    for budget in (0.015, 0.02, 0.025, 1):  # streamed, blocks of relabelings; held
        with es.config_context(working_memory=budget):
            other = es.energy_test(X, labels, n_resamples=101, rng=42)
        np.testing.assert_allclose(other.null_distribution, ref.null_distribution, rtol=1e-12)
        assert other.pvalue == ref.pvalue
    gen = np.random.default_rng(42)
    assert es.energy_test(X, labels, n_resamples=101, rng=gen).pvalue == ref.pvalue
    assert not np.array_equal(
        es.energy_test(X, labels, n_resamples=101, rng=43).null_distribution, ref.null_distribution
    )


def test_sorted_one_dimensional_engine_equals_dense(rng):
    x = np.round(rng.normal(size=70), 1)  # ties included
    labels = rng.integers(0, 3, size=70)
    for name in ("S", "E", "F"):
        fast = es.energy_test(x, labels, statistic=name, n_resamples=60, rng=9)
        dense = es.energy_test(
            brute_rho(x, x), labels, statistic=name, metric="precomputed", n_resamples=60, rng=9
        )
        assert fast.statistic == pytest.approx(dense.statistic, rel=1e-12)
        np.testing.assert_allclose(fast.null_distribution, dense.null_distribution, rtol=1e-9)


def test_two_samples_give_the_same_pvalue_for_all_statistics(rng):
    X, labels = unequal_groups(rng, (15, 22), d=2, shift=0.3)
    pvals = {
        name: es.energy_test(X, labels, statistic=name, n_resamples=199, rng=1).pvalue
        for name in "SEF"
    }
    assert len(set(pvals.values())) == 1


def test_ties_rules_on_constant_data():
    X = np.ones((10, 2))
    tolerant = es.energy_test(X, np.repeat([0, 1], 5), n_resamples=99, exact=False, rng=0)
    strict = es.energy_test(
        X, np.repeat([0, 1], 5), n_resamples=99, exact=False, rng=0, ties="strict"
    )
    assert tolerant.pvalue == 1.0
    # R: eqdist.etest(z, c(5, 5), R = 99)$p.value is 0.01
    assert strict.pvalue == pytest.approx(1 / 100)
    exact_strict = es.energy_test(X, np.repeat([0, 1], 5), ties="strict")
    assert exact_strict.exact and exact_strict.pvalue == pytest.approx(1 / 252)


@pytest.mark.parametrize("name", ["S", "E", "F"])
def test_relabelings_equal_to_the_observed_up_to_rounding_tie(name):
    """Two groups of the same five values: the observed statistic is 0 in exact arithmetic,
    and so are those of the 31 relabelings that give each group one copy of each value; T - W
    rounds them to about 1e-16 T either side of 0, which the tie scale (k^2 T) absorbs: every
    relabeling counts (p = 1), and R's strict rule counts the 220 others and the observed one.
    Without the scale, 9 of them fall below the observed value."""
    x = np.array([0.0, 1.1, 2.3, 3.7, 5.2])
    labels = np.repeat([0, 1], 5)
    res = es.energy_test(np.r_[x, x], labels, statistic=name)
    assert res.exact and res.n_resamples == 252 and res.pvalue == 1.0
    assert es.energy_test(np.r_[x, x], labels, statistic=name, ties="strict").pvalue == 221 / 252


def test_exact_strict_counts_the_observed_labelling_once(rng):
    """Found by `energystats compare-r` on 4 points: rounding made the observed labelling count
    twice."""
    X = np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 1.0], [5.0, 5.0]])
    for ties in ("strict", "tolerant"):
        res = es.energy_test(X, [0, 0, 1, 0], statistic="E", ties=ties)
        # the singletons' statistics: 2.61, 1.68, 2.80 (observed), 5.56
        assert res.exact and res.pvalue == 0.5
    # continuous data have no ties but the observed labelling itself: both rules give the
    # brute-force p
    # unequal sizes: no label-swapped twins
    for d, sizes in ((1, (3, 4)), (2, (3, 4)), (3, (1, 2, 3))):
        X = rng.normal(size=(sum(sizes), d))
        labels = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
        results = [es.energy_test(X, labels, statistic="E", ties=t) for t in ("strict", "tolerant")]
        assert results[0].exact and results[0].pvalue == results[1].pvalue
        brute = np.mean(results[1].null_distribution >= results[1].statistic * (1 - 1e-9))
        assert results[0].pvalue == pytest.approx(brute, rel=1e-12)


def test_energy_test_samples_equals_pooled(rng):
    x, y, z = rng.normal(size=(9, 2)), rng.normal(size=(7, 2)), rng.normal(size=(11, 2))
    a = es.energy_test_samples(x, y, z, statistic="E", n_resamples=50, rng=2)
    b = es.energy_test(
        np.vstack([x, y, z]), np.repeat([0, 1, 2], [9, 7, 11]), statistic="E", n_resamples=50, rng=2
    )
    assert a.statistic == b.statistic and a.pvalue == b.pvalue


def test_result_repr(rng):
    res = es.energy_test(rng.normal(size=20), np.repeat([0, 1], 10), n_resamples=30, rng=0)
    text = repr(res)
    assert text.startswith(
        "Energy test of equal distributions (between-sample statistic S, R disco)"
    )
    assert (
        f"S = {res.statistic:.5g}, p-value = {res.pvalue:.4g} (30 permutations)" in text
        and "sizes: 0: 10, 1: 10" in text
    )
    assert "<table" in res._repr_html_()


def test_progress_bar_runs(rng, capsys):
    with es.config_context(working_memory=0.02):  # streamed: blocks of relabelings
        res = es.energy_test(rng.normal(size=(60, 2)), np.repeat([0, 1], 30), n_resamples=20,
                             rng=0, progress=True)
    assert res.n_resamples == 20
    assert "permutations" in capsys.readouterr().err


@pytest.mark.parametrize(
    "kwargs,err,match",
    [
        (dict(labels=np.zeros(6)), ValueError, "`labels` must define at least two groups"),
        (dict(labels=[0, 1, 0]), ValueError, r"`labels` must have one entry per sample \(6\)"),
        (dict(n_resamples=0), ValueError, "`n_resamples` must be a positive integer"),
        (dict(n_resamples=9.5), ValueError, "`n_resamples` must be a whole number"),
        (dict(statistic="T"), ValueError, "`statistic` must be one of"),
        (dict(exact="yes"), ValueError, "`exact` must be 'auto', True or False"),
        (dict(batch=5), TypeError, "unexpected keyword argument 'batch'"),
        (dict(ties="loose"), ValueError, "`ties` must be 'tolerant' or 'strict'"),
        (dict(progress="yes"), TypeError, "`progress` must be True or False"),
        (dict(exponent=2.5), ValueError, r"`exponent` must lie in \(0, 2\]"),
    ],
)
def test_bad_input(kwargs, err, match):
    args = dict(X=np.arange(12.0).reshape(6, 2), labels=[0, 0, 0, 1, 1, 1])
    args.update(kwargs)
    with pytest.raises(err, match=match):
        es.energy_test(args.pop("X"), args.pop("labels"), **args)


def test_bad_input_samples_and_exact_limit():
    with pytest.raises(ValueError, match="`samples` must be at least two arrays"):
        es.energy_test_samples(np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"`samples\[1\]` has 3 features; `samples\[0\]` has 2"):
        es.energy_test_samples(np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"`samples\[1\]` must hold at least 1 sample"):
        es.energy_test_samples(np.zeros((3, 2)), np.zeros((0, 2)))
    with pytest.raises(ValueError, match="`exact`=True needs"):
        es.energy_test(np.arange(40.0), np.repeat([0, 1], 20), exact=True)
    with pytest.raises(ValueError, match="`statistic`='F' is undefined"):
        es.energy_test(np.r_[np.zeros(5), np.ones(5)], np.repeat([0, 1], 5), statistic="F")


def test_pairwise_tests_table(rng):
    X, labels = unequal_groups(rng, (12, 15, 10), d=2, shift=1.0)
    names = np.array(["c", "a", "b"])[labels]
    res = es.pairwise_energy_tests(X, names, n_resamples=99, rng=4)
    table = res.table
    assert res.to_frame() is table and res.statistic_name == "S" and res.n_resamples == 99
    assert "pairs rejected at alpha = 0.05 (holm correction)" in str(res)
    assert list(table.columns) == [
        "group_a", "group_b", "n_a", "n_b", "statistic", "pvalue", "pvalue_adjusted", "reject",
    ]
    assert list(zip(table.group_a, table.group_b)) == [("a", "b"), ("a", "c"), ("b", "c")]
    keep = np.isin(names, ["a", "c"])
    assert table.statistic[1] == pytest.approx(es.dispersion(X[keep], names[keep]).S, rel=1e-12)
    reject, adjusted, _, _ = multipletests(table.pvalue, alpha=0.05, method="holm")
    np.testing.assert_array_equal(table.pvalue_adjusted, adjusted)
    np.testing.assert_array_equal(table.reject, reject)
    again = es.pairwise_energy_tests(X, names, n_resamples=99, rng=4).table
    pd.testing.assert_frame_equal(table, again)
    D = brute_rho(X, X)
    pre = es.pairwise_energy_tests(
        D, names, metric="precomputed", n_resamples=99, rng=4, correction="bonferroni"
    ).table
    np.testing.assert_allclose(pre.statistic, table.statistic, rtol=1e-12)
    with pytest.raises(ValueError, match="`labels` must define at least two groups"):
        es.pairwise_energy_tests(X, np.zeros(len(X)))


# --- Calibration and power (Monte Carlo; marked slow, run in CI) --------------------


@pytest.mark.slow
@pytest.mark.parametrize("distribution", ["normal", "t2"])
def test_level_under_h0(distribution):
    """Under H0 the level-0.05 test rejects inside the binomial interval around 0.05 of
    false-failure probability 8.2e-5, over 700 data sets (LEVEL_REPS: the interval then
    catches a true level of 0.10 with probability 0.91); B = 19, so that p <= 0.05 exactly when
    no relabeling reaches the observed statistic."""
    reps = LEVEL_REPS
    gen = np.random.default_rng(2024 if distribution == "normal" else 2025)
    labels = np.repeat([0, 1, 2], [12, 15, 18])
    rejections = 0
    for _ in range(reps):
        X = (
            gen.normal(size=(45, 2))
            if distribution == "normal"
            else gen.standard_t(2, size=(45, 2))
        )
        rejections += es.energy_test(X, labels, n_resamples=19, rng=gen).pvalue <= 0.05
    lo, hi = rejection_interval(reps)
    # false failure: P(Binom(700, 0.05) outside [15, 59]) = 8.2e-5 (tests/_calibration.py)
    assert lo <= rejections / reps <= hi, (rejections / reps, lo, hi)


@pytest.mark.slow
def test_power_under_a_clear_shift():
    gen = np.random.default_rng(7)
    labels = np.repeat([0, 1], 20)
    rejections = sum(
        es.energy_test(
            gen.normal(size=(40, 2)) + 1.5 * labels[:, None], labels, n_resamples=199, rng=gen
        ).pvalue
        <= 0.05
        for _ in range(100)
    )
    # false failure: P(Binom(100, 0.9978) < 97) = 7.6e-5, 0.9978 the 99% lower confidence bound
    # on the power from 2,100 of 2,100 data sets rejected in a pilot; a test with power 0.7
    # passes with probability 4e-12
    assert rejections >= 97


# --- Cross-checks against R (R 4.2.2, energy 1.7-11) --------------------------------


def _r_sets():
    rng = np.random.default_rng(31)
    sets = []
    for sizes in [(20, 31), (10, 25, 17), (8, 12, 9, 15), (6, 11, 7, 9, 13)]:
        codes = np.repeat(np.arange(len(sizes)), sizes)
        sets.append((rng.normal(size=(codes.size, 3)) + 0.3 * codes[:, None], codes))
    iris = es.datasets.load_iris()
    sets.append((iris.iloc[:, :4].to_numpy(), pd.factorize(iris["Species"])[0]))
    return sets


@pytest.mark.r
@pytest.mark.parametrize("X,codes", _r_sets())
def test_statistics_equal_r(X, codes):
    from energystats._rbridge import r_call, r_factor, r_field, r_matrix, to_numpy

    sizes = np.bincount(codes)
    xr, fac = r_matrix(X), r_factor(codes)
    r_E = to_numpy(r_field(r_call("eqdist.etest", xr, sizes, R=0), "statistic"))[0]
    r_F = to_numpy(r_field(r_call("disco", xr, fac, R=0), "statistic"))[0]
    # with R = 0 it returns the bare statistic
    r_S = to_numpy(r_call("disco.between", xr, fac, R=0))[0]
    for name, ref in (("E", r_E), ("F", r_F), ("S", r_S)):
        assert (
            es.energy_test(X, codes, statistic=name, n_resamples=1, rng=0).statistic
            == pytest.approx(ref, rel=1e-10)
        )


@pytest.mark.r
@pytest.mark.parametrize(
    "case",
    ["p~0.01", "p~0.2", "p~0.65"],
)
def test_pvalues_agree_with_r_within_monte_carlo_error(case):
    """Both p-values estimate the same permutation p-value with B = 999 resamples, so
    their difference has standard deviation sqrt(2 p (1 - p) / 1000); we allow 4 of
    them plus 2/1000 for the different +1 conventions (a false alarm rate P(|Z| > 4) = 6.3e-5,
    normal bound; both seeds are fixed, so each case is deterministic)."""
    from energystats._rbridge import r_call, r_field, r_matrix, to_numpy

    rng = np.random.default_rng(11)
    if case == "p~0.65":
        X, sizes = rng.normal(size=(60, 2)), np.array([20, 20, 20])
    else:
        X, sizes = rng.normal(size=(60, 2)), np.array([30, 30])
        X[30:, 0] += 0.7 if case == "p~0.01" else 0.35
    codes = np.repeat(np.arange(len(sizes)), sizes)
    ours = es.energy_test(X, codes, statistic="E", n_resamples=999, rng=8).pvalue
    r_call("set.seed", 8)
    theirs = to_numpy(r_field(r_call("eqdist.etest", r_matrix(X), sizes, R=999), "p.value"))[0]
    p = (ours + theirs) / 2
    # false failure: P(|Z| > 4) = 6.3e-5
    assert abs(ours - theirs) <= 4 * np.sqrt(2 * p * (1 - p) / 1000) + 2 / 1000, (ours, theirs)
