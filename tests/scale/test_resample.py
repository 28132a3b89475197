"""Resampling (energystats._resample): the count of resamples, the draws (uniform permutations,
exact enumeration with the observed arrangement first), the blocks of the null distribution,
and the one p-value with its tie rule, used by every Monte Carlo test of the package."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import energystats as es
from energystats import _resample as rs

# --- the p-value ---------------------------------------------------------------------------


def test_pvalue_counts_the_observed_resample_once():
    null = np.array([0.5, 1.0, 2.0, 3.0])
    assert rs.pvalue(2.0, null) == 3 / 5  # 1 + #{2, 3}
    assert rs.pvalue(10.0, null) == 1 / 5  # never 0
    assert rs.pvalue(-1.0, null) == 1.0
    assert rs.pvalue(2.0, null, strict=True) == 2 / 5  # 1 + #{3}
    # exact: the observed value is among the M enumerated ones
    assert rs.pvalue(2.0, null, exact=True) == 2 / 4
    assert rs.pvalue(2.0, null, exact=True, strict=True) == 2 / 4  # 1 + #{3}


def test_pvalue_of_several_statistics_sharing_their_resamples():
    null = np.array([[1.0, 5.0], [2.0, 6.0], [3.0, 7.0]])
    p = rs.pvalue(np.array([2.0, 8.0]), null)
    np.testing.assert_array_equal(p, [3 / 4, 1 / 4])


def test_a_value_equal_up_to_rounding_ties_and_one_beyond_the_tolerance_does_not():
    """A planted tie: the same terms added in two orders round apart; the tolerance 100 eps s
    with s the sum of the terms' magnitudes counts the null value as equal, and nothing further
    away than that."""
    rng = np.random.default_rng(1)
    a = rng.normal(size=500) * 1e3
    terms = rng.permutation(np.r_[a, -a, 1.0])  # a small sum of large terms: exactly 1
    forward, backward = float(np.sum(terms)), float(sum(terms[::-1].tolist()))
    scale = float(np.abs(terms).sum())
    low, high = sorted([forward, backward])
    assert low != high  # rounding alone separates them
    assert rs.pvalue(high, np.array([low]), scale=scale) == 1.0  # counted: a tie
    assert rs.pvalue(high, np.array([low]), scale=0.0) == 0.5  # relative to t alone: missed
    assert rs.pvalue(high, np.array([low]), scale=scale, strict=True) == 0.5  # not above
    beyond = high - 2 * rs.TIE_RTOL * scale
    assert rs.pvalue(high, np.array([beyond]), scale=scale) == 0.5
    assert rs.pvalue(low, np.array([high + 2 * rs.TIE_RTOL * scale]), scale=scale,
                     strict=True) == 1.0


@pytest.mark.parametrize(
    "observed, word", [(np.nan, "NaN"), (np.inf, "infinite"), (-np.inf, "infinite")]
)
def test_a_statistic_that_is_not_a_number_gets_no_pvalue(observed, word):
    with pytest.raises(ValueError, match=f"the test statistic is {word}, so it has no p-value"):
        rs.pvalue(observed, np.zeros(9))
    with pytest.raises(ValueError, match=f"dCov is {word}"):
        rs.pvalue(np.array([1.0, observed]), np.zeros((9, 2)), what="dCov")
    with pytest.raises(ValueError, match=f"dCor is {word}, so it has no p-value"):
        rs.check_observed(observed, "dCor")
    assert rs.check_observed(2.5) == 2.5


def test_a_null_value_that_is_nan_cannot_be_counted():
    with pytest.raises(ValueError, match="is NaN on some resamples, which cannot be counted"):
        rs.pvalue(1.0, np.array([0.0, np.nan, 2.0, np.nan, 1.0]))


# --- the count of resamples ----------------------------------------------------------------


@pytest.mark.parametrize(
    "value, error, match",
    [
        (0, ValueError, "`n_resamples` must be a positive integer, got 0"),
        (9.5, ValueError, r"`n_resamples` must be a whole number \(a .*, got 9.5"),
        (np.nan, ValueError, "`n_resamples` must be a whole number"),
        (-9.0, ValueError, "`n_resamples` must be a positive integer, got -9.0"),
        ("9", TypeError, "`n_resamples` must be a positive integer, got str"),
        (True, TypeError, "`n_resamples` must be a positive integer, got bool"),
        (10**8, ValueError, "`n_resamples` must be at most 10,000,000"),
    ],
)
def test_the_count_is_checked_with_messages_naming_the_argument(value, error, match):
    with pytest.raises(error, match=match):
        rs.check_resamples(value)


def test_a_count_written_as_a_whole_float_is_a_count():
    """R users write 999 (a double) where a count is asked, as scipy accepts 999.0."""
    assert rs.check_resamples(999.0) == 999 and type(rs.check_resamples(np.float64(99.0))) is int
    x = np.r_[np.zeros(6), np.ones(6)] + np.arange(12) / 100
    labels = np.repeat([0, 1], 6)
    as_float, as_int = (es.energy_test(x, labels, n_resamples=B, rng=1) for B in (99.0, 99))
    assert as_float.pvalue == as_int.pvalue and as_float.n_resamples == 99
    np.testing.assert_array_equal(as_float.null_distribution, as_int.null_distribution)
    with pytest.raises(ValueError, match="`n_resamples` must be a whole number .* got 99.5"):
        es.dcor_test(x, labels, n_resamples=99.5)


# --- the draws -----------------------------------------------------------------------------


def test_permutations_are_uniform():
    """24,000 permutations of 4 points, each of the 24 expected 1,000 times. A chi-square test
    at level 1e-6 (23 degrees of freedom, critical value 70.5; false failure 1e-6 for a uniform
    draw, and the seed is fixed) fails a draw that gives one permutation 1.3 times its share
    (non-centrality 84: power 0.98) or never keeps the first point in place (Sattolo's
    shuffle: six counts of 0); the positions' marginals likewise."""
    perms = rs.permutations(np.random.default_rng(3), 4, 24_000)
    assert perms.shape == (24_000, 4)
    np.testing.assert_array_equal(np.sort(perms, axis=1), np.tile(np.arange(4), (24_000, 1)))
    index = (perms * np.array([64, 16, 4, 1])).sum(axis=1)
    counts = np.unique(index, return_counts=True)[1]
    assert counts.size == 24
    assert stats.chisquare(counts).pvalue > 1e-6
    # each point at each position equally often (the marginal a biased shuffle gets wrong)
    for j in range(4):
        assert stats.chisquare(np.bincount(perms[:, j], minlength=4)).pvalue > 1e-6
    # past the packed keys: numpy's shuffles, rows still permutations
    big = rs.permutations(np.random.default_rng(0), rs.PACKED_LIMIT, 2)
    np.testing.assert_array_equal(np.sort(big, axis=1)[1], np.arange(rs.PACKED_LIMIT))
    assert rs.permutations(np.random.default_rng(0), 5, 0).shape == (0, 5)


def test_a_seed_gives_the_same_permutations_whatever_the_blocks():
    one = rs.permutations(np.random.default_rng(7), 30, 40)
    again = rs.permutations(np.random.default_rng(7), 30, 40)
    np.testing.assert_array_equal(one, again)
    draw = rs.permutation_draws(np.random.default_rng(7), 30)
    np.testing.assert_array_equal(np.vstack([draw(40)]), one)


@pytest.mark.parametrize("codes", [[1, 0, 1, 0], [0, 0, 1, 1, 1], [2, 0, 1, 0, 2, 1, 1]])
def test_all_relabelings_are_each_arrangement_once_the_observed_first(codes):
    codes = np.array(codes)
    sizes = np.bincount(codes)
    out = rs.all_relabelings(codes)
    count = math.factorial(len(codes)) // math.prod(math.factorial(m) for m in sizes)
    assert out.shape == (count, len(codes)) == (rs.relabeling_count(sizes), len(codes))
    np.testing.assert_array_equal(out[0], codes)
    assert len({tuple(r) for r in out}) == count  # distinct
    np.testing.assert_array_equal(np.sort(out, axis=1), np.tile(np.sort(codes), (count, 1)))
    assert rs.relabeling_count(sizes, cap=count - 1) == count  # past the cap: cap + 1
    assert rs.relabeling_count([50, 50]) == rs.MAX_EXACT + 1


def test_exact_draws_enumerate_everything_in_order():
    draw = rs.permutation_draws(None, 4, exact=True)
    perms = np.vstack([draw(5), draw(19)])
    np.testing.assert_array_equal(perms[0], np.arange(4))
    assert len({tuple(p) for p in perms}) == 24
    signs = rs.all_signs(3)
    np.testing.assert_array_equal(signs[0], np.ones(3))
    assert len({tuple(s) for s in signs}) == 8 and set(np.unique(signs)) == {-1.0, 1.0}
    sdraw = rs.sign_draws(None, 3, exact=True)
    np.testing.assert_array_equal(np.vstack([sdraw(3), sdraw(5)]), signs)
    random = rs.signs(np.random.default_rng(0), 5, 7)
    assert random.shape == (7, 5) and set(np.unique(random)) == {-1.0, 1.0}


# --- the null distribution in blocks -------------------------------------------------------


def test_the_null_does_not_depend_on_the_blocks():
    """The resamples are drawn in order, a block at a time: blocks of 7 or one block give the
    same null; a null of several statistics keeps its columns."""
    def null(block):
        draw = rs.permutation_draws(np.random.default_rng(2), 30)
        return rs.null_distribution(lambda p: p[:, :2].astype(float), draw, 199, 240,
                                    block=block)

    whole, small = null(None), null(7)
    assert whole.shape == (199, 2)
    np.testing.assert_array_equal(small, whole)
    np.testing.assert_array_equal(whole, rs.permutations(np.random.default_rng(2), 30, 199)[:, :2])


def test_a_null_that_cannot_fit_raises_before_allocating():
    with es.config_context(working_memory=1.0):  # MiB: 10^6 resamples take 7.6 MiB
        with pytest.raises(es.WorkingMemoryError, match="the null distribution of 1,000,000"):
            rs.null_distribution(lambda p: p[:, 0], lambda m: np.zeros((m, 2)), 10**6, 16)


def test_one_progress_bar_over_the_blocks(capsys):
    draw = rs.permutation_draws(np.random.default_rng(0), 5)
    rs.null_distribution(lambda p: p[:, 0], draw, 50, 8, progress=True, what="resamples",
                         block=10)
    assert "resamples" in capsys.readouterr().err
    rs.null_distribution(lambda p: p[:, 0], draw, 50, 8, progress=False, block=10)
    assert capsys.readouterr().err == ""


# --- the families: ties tie ------------------------------------------------------------------


def test_categorical_ties_count_as_the_contingency_tables_say():
    """Two binary variables: S(pi) depends on the permutation only through the 2 x 2 table, so
    permutations with the observed table tie it exactly. The p-value equals the one counted in
    integers from the tables of the same permutations (the test draws them as below)."""
    rng = np.random.default_rng(5)
    n, B = 400, 199
    x = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)  # independent: the observed table lies among the null ones
    res = es.dcov_test(x.astype(str), pd.Categorical(y), n_resamples=B, rng=0)
    perms = np.vstack([np.arange(n), rs.permutations(np.random.default_rng(0), n, B)])
    # dCov^2 of two binary variables is a function of |n n_11 - n_1. n_.1| (the table's determinant)
    det = np.abs(n * ((x == 1) & (y[perms] == 1)).sum(axis=1) - (x == 1).sum() * (y == 1).sum())
    expected = (1 + np.count_nonzero(det[1:] >= det[0])) / (B + 1)
    assert np.count_nonzero(det[1:] == det[0]) > 0  # ties there are
    assert res.pvalue == expected
