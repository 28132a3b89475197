"""dispersion with several factors, as R's disco(x, factors): each factor's between-sample
statistic, F-ratio and permutation p-value, the within dispersion T - sum S_f, R's table."""

import itertools
import re

import numpy as np
import pandas as pd
import pytest

import energystats as es

MTCARS = pd.DataFrame(
    {
        "mpg": [
            21, 21, 22.8, 21.4, 18.7, 18.1, 14.3, 24.4, 22.8, 19.2, 17.8, 16.4, 17.3, 15.2, 10.4,
            10.4, 14.7, 32.4, 30.4, 33.9, 21.5, 15.5, 15.2, 13.3, 19.2, 27.3, 26, 30.4, 15.8, 19.7,
            15, 21.4,
        ],
        "disp": [
            160, 160, 108, 258, 360, 225, 360, 146.7, 140.8, 167.6, 167.6, 275.8, 275.8, 275.8, 472,
            460, 440, 78.7, 75.7, 71.1, 120.1, 318, 304, 350, 400, 79, 120.3, 95.1, 351, 145, 301,
            121,
        ],
        "hp": [
            110, 110, 93, 110, 175, 105, 245, 62, 95, 123, 123, 180, 180, 180, 205, 215, 230, 66,
            52, 65, 97, 150, 150, 245, 175, 66, 91, 113, 264, 175, 335, 109,
        ],
        "drat": [
            3.9, 3.9, 3.85, 3.08, 3.15, 2.76, 3.21, 3.69, 3.92, 3.92, 3.92, 3.07, 3.07, 3.07, 2.93,
            3, 3.23, 4.08, 4.93, 4.22, 3.7, 2.76, 3.15, 3.73, 3.08, 4.08, 4.43, 3.77, 4.22, 3.62,
            3.54, 4.11,
        ],
        "qsec": [
            16.46, 17.02, 18.61, 19.44, 17.02, 20.22, 15.84, 20, 22.9, 18.3, 18.9, 17.4, 17.6, 18,
            17.98, 17.82, 17.42, 19.47, 18.52, 19.9, 20.01, 16.87, 17.3, 15.41, 17.05, 18.9, 16.7,
            16.9, 14.5, 15.5, 14.6, 18.6,
        ],
        "cyl": [
            6, 6, 4, 6, 8, 6, 8, 4, 4, 6, 6, 8, 8, 8, 8, 8, 8, 4, 4, 4, 4, 8, 8, 8, 8, 4, 4, 4, 8,
            6, 8, 4,
        ],
        "am": [
            1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1,
            1, 1, 1,
        ],
        "gear": [
            4, 4, 4, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 4, 4, 4, 3, 3, 3, 3, 3, 4, 5, 5, 5,
            5, 5, 4,
        ],
        "carb": [
            4, 4, 1, 1, 2, 1, 4, 2, 2, 4, 4, 3, 3, 3, 4, 4, 4, 1, 2, 1, 1, 2, 2, 4, 2, 1, 2, 2, 4,
            6, 8, 2,
        ],
    }
)  # R's datasets::mtcars, the columns used here


def test_three_factors_equal_rs_disco():
    # R 4.2.2, energy 1.7-11, print(..., digits = 17):
    # x <- as.matrix(mtcars[, c("mpg", "disp", "hp")])
    # d <- disco(x, data.frame(cyl = factor(mtcars$cyl), am = factor(mtcars$am),
    #                         gear = factor(mtcars$gear)),
    #            index = 0.5, R = 0)
    res = es.dispersion(MTCARS[["mpg", "disp", "hp"]], MTCARS[["cyl", "am", "gear"]], exponent=0.5)
    between = [f.S for f in res.by_factor]
    np.testing.assert_allclose(
        between, [72.521168818486032, 24.625794260547082, 48.345300836433921], rtol=1e-13
    )
    # R's withins
    np.testing.assert_allclose(
        [f.W for f in res.by_factor], [116.83532943991416, 164.73070399785311, 141.01119742196627],
        rtol=1e-13,
    )
    # R's within: a difference, 1/4 of T
    np.testing.assert_allclose(res.W, 43.864234342933145, rtol=1e-12)
    np.testing.assert_allclose(res.T, 189.35649825840019, rtol=1e-13)
    # R's statistic
    np.testing.assert_allclose(
        [f.F for f in res.by_factor], [9.0003336568571068, 4.4847366634579586, 4.9712850819256378],
        rtol=1e-13,
    )
    assert res.df_within == 26.0  # R's Df.e
    table = res.disco_table()
    assert table.index.tolist() == ["cyl", "am", "gear", "Within", "Total"]
    assert table["Df"].tolist() == [2, 1, 2, 26, 31]  # R's Df.trt, Df.e and N - 1
    np.testing.assert_allclose(
        table["Mean Dist"].iloc[:4],
        [36.26058440924302, 24.625794260547082, 24.17265041821696, 1.6870859362666594], rtol=1e-12,
    )
    assert res.S + res.W == pytest.approx(res.T, rel=1e-15)
    assert res.factor == "cyl + am + gear" and res.pvalue is None
    # R's statistic is a vector, one F-ratio per factor, and so is F
    np.testing.assert_array_equal(res.F, [f.F for f in res.by_factor])


def test_one_factor_keeps_its_numbers_and_each_factor_is_its_one_factor_decomposition():
    X = MTCARS[["mpg", "disp", "hp"]]
    several = es.dispersion(X, [MTCARS["cyl"], MTCARS["am"]])
    for factor, column in zip(several.by_factor, ["cyl", "am"]):
        alone = es.dispersion(X, MTCARS[column])
        assert (factor.S, factor.W, factor.T, factor.F) == (alone.S, alone.W, alone.T, alone.F)
        np.testing.assert_array_equal(factor.pairwise, alone.pairwise)
        assert alone.factor == column and alone.by_factor == ()
    plain = es.dispersion(X.to_numpy(), MTCARS["cyl"].to_numpy())
    assert plain.factor == "labels" and plain.S == several.by_factor[0].S
    assert several.W == several.T - (several.by_factor[0].S + several.by_factor[1].S)


@pytest.mark.parametrize(
    "factors",
    [
        lambda f: f,  # a DataFrame
        lambda f: [f["cyl"], f["am"]],  # a list of Series (names kept)
        lambda f: (f["cyl"].to_numpy(), pd.Categorical(f["am"])),  # a tuple of arrays
        lambda f: f.to_numpy(),  # R's matrix of factor labels
    ],
)
def test_every_form_of_several_factors_gives_the_same_decomposition(factors):
    frame = MTCARS[["cyl", "am"]]
    res = es.dispersion(MTCARS[["mpg", "hp"]], factors(frame))
    ref = es.dispersion(MTCARS[["mpg", "hp"]], frame)
    assert [f.S for f in res.by_factor] == [f.S for f in ref.by_factor] and res.W == ref.W
    assert res.df_within == 28.0


def test_unnamed_factors_are_named_by_position_in_the_table():
    res = es.dispersion(MTCARS[["mpg"]], [MTCARS["cyl"].to_numpy(), MTCARS["am"].to_numpy()])
    assert res.disco_table().index.tolist() == ["labels[0]", "labels[1]", "Within", "Total"]


def _brute_pvalue(x, labels):
    """The exact permutation p-value of F: every distinct relabeling, brute force."""
    observed = es.dispersion(x, labels).F
    values = set()
    null = []
    for perm in itertools.permutations(range(len(labels))):
        relabeled = tuple(np.asarray(labels)[list(perm)])
        if relabeled not in values:
            values.add(relabeled)
            null.append(es.dispersion(x, list(relabeled)).F)
    null = np.array(null)
    return np.mean(null >= observed * (1 - 1e-12)), len(null)


def test_exact_pvalues_equal_brute_force_enumeration():
    x = np.array([0.0, 0.3, 2.1, 2.0, 5.2, 4.0, 1.1])
    first = [0, 0, 1, 1, 2, 2, 2]  # 210 distinct relabelings
    second = ["a", "b", "a", "b", "a", "b", "b"]  # 35
    res = es.dispersion(x, [first, second], n_resamples=999)
    for factor, labels in zip(res.by_factor, (first, second)):
        p, count = _brute_pvalue(x, labels)
        assert factor.n_resamples == count
        assert factor.pvalue == pytest.approx(p, rel=1e-12)
    assert "p-value" in res.disco_table().columns


def test_pvalues_agree_with_rs_disco_within_monte_carlo_error():
    # R: set.seed(1); disco(as.matrix(mtcars[, c("drat", "qsec")]),
    #                       data.frame(am = factor(mtcars$am), carb = factor(mtcars$carb)),
    #                       R = 1999)
    # p.value 0.038 0.001. Two independent Monte Carlo p-values of B = 1999 each differ by at
    # most 4.5 standard errors of their difference, sqrt(2 p (1 - p) / 2000) (false failure
    # below 1e-5): 0.027 at p = 0.038, so a test of the wrong factor (carb's 0.001 for am's)
    # or of labels that ignore the factor (p near 0.5) fails it.
    res = es.dispersion(MTCARS[["drat", "qsec"]], MTCARS[["am", "carb"]], n_resamples=1999, rng=1)
    # R prints 3 decimals
    np.testing.assert_allclose([f.F for f in res.by_factor], [2.496, 2.713], atol=5e-4)
    for factor, reference in zip(res.by_factor, (0.038, 0.001)):
        allowed = 4.5 * np.sqrt(2 * reference * (1 - reference) / 2000) + 2 / 2000
        assert abs(factor.pvalue - reference) <= allowed
    assert res.n_resamples == 1999
    # R's p.value is a vector, one per factor, and so is pvalue: d.pvalue < 0.05 tests each factor
    assert isinstance(res.pvalue, np.ndarray)
    assert res.pvalue.tolist() == [f.pvalue for f in res.by_factor]
    assert (res.pvalue < 0.05).tolist() == [True, True]
    assert res.F.tolist() == [f.F for f in res.by_factor]


def test_same_seed_same_pvalues_and_one_factors_pvalue_is_energy_tests():
    X = MTCARS[["mpg", "hp"]]
    a = es.dispersion(X, MTCARS[["cyl", "gear"]], n_resamples=99, rng=3)
    b = es.dispersion(X, MTCARS[["cyl", "gear"]], n_resamples=99, rng=3)
    assert [f.pvalue for f in a.by_factor] == [f.pvalue for f in b.by_factor]
    one = es.dispersion(X, MTCARS["cyl"], n_resamples=99, rng=3)
    assert (
        one.pvalue == es.energy_test(X, MTCARS["cyl"], statistic="F", n_resamples=99, rng=3).pvalue
    )


def test_prints_rs_disco_table_in_text_and_html():
    res = es.dispersion(MTCARS[["drat", "qsec"]], MTCARS[["am", "carb"]], n_resamples=99, rng=0)
    text = repr(res)
    lines = text.splitlines()
    assert (
        lines[0] == "Distance components (DISCO)"
        and lines[2] == "data:  [drat, qsec] by [am, carb]"
    )
    # R 4.2.2: set.seed(1); print(disco(as.matrix(mtcars[, c("drat", "qsec")]),
    #   data.frame(am = factor(mtcars$am), carb = factor(mtcars$carb)), R = 99))
    # Source            Df   Sum Dist  Mean Dist   F-ratio   p-value
    # am                 1    2.62326    2.62326     2.496      0.03
    # carb               5   11.70993    2.34199     2.713      0.01
    # Within            25   19.82303    0.79292
    # Total             31   34.15623
    # (R's fixed decimals: 5 for the sums and means, 3 for the ratios; blank where no value)
    assert re.match(r"^Source +Df +Sum Dist +Mean Dist +F-ratio +p-value$", lines[5])
    assert re.match(r"^am +1 +2\.62326 +2\.62326 +2\.496 +0\.\d+$", lines[6])
    assert re.match(r"^carb +5 +11\.70993 +2\.34199 +2\.713 +0\.\d+$", lines[7])
    assert re.match(r"^Within +25 +19\.82303 +0\.79292$", lines[8])
    assert re.match(r"^Total +31 +34\.15623$", lines[9])
    assert "99 relabelings" in text and "eq." not in text and "Pairwise" not in text
    assert "NaN" not in text
    page = res._repr_html_()
    assert (
        page.count("</table>") == 2
        and ">F-ratio</th>" in page
        and ">Source</th>" in page
        and "eq." not in page
    )
    assert ">Within</th>" in page and ">0.79292</td>" in page and "NaN" not in page
    # R's blank cells: Total's mean, Within's and Total's ratio and p-value
    assert page.count("'></td>") == 5
    assert "<pre>" not in page
    one = repr(es.dispersion(MTCARS[["mpg"]], MTCARS["am"]))
    assert "p-value" not in one and "Pairwise n_i n_j" in one


def test_pairwise_table_is_one_quantity_in_one_format():
    res = es.dispersion(es.datasets.load_iris().iloc[:, :4], np.repeat([0, 1, 2], 50))
    text = repr(res)
    table = text[text.index("Pairwise"):].splitlines()[1:]
    cells = [cell for line in table[1:] for cell in line.split()[1:]]
    assert len(cells) == 9 and len({len(cell.split(".")[1]) for cell in cells}) == 1  # decimals
    both = f"{res.pairwise[0, 1]:.4f}"
    assert both in table[1] and both in table[2]  # one number, printed alike in both halves


def test_to_frame_of_several_factors_has_a_row_per_group_of_each():
    res = es.dispersion(MTCARS[["mpg"]], MTCARS[["cyl", "am"]])
    frame = res.to_frame()
    assert frame.index.names == ["factor", "group"]
    assert (
        frame.loc["cyl", "size"].tolist() == [11, 7, 14]
        and frame.loc["am", "size"].tolist() == [19, 13]
    )


def test_missing_values_in_a_factor_drop_the_row():
    factors = MTCARS[["cyl", "am"]].astype(float)
    factors.iloc[3, 1] = np.nan
    res = es.dispersion(MTCARS[["mpg", "hp"]], factors, nan_policy="omit")
    ref = es.dispersion(MTCARS[["mpg", "hp"]].drop(index=3), MTCARS[["cyl", "am"]].drop(index=3))
    assert res.n_omitted == 1 and res.W == pytest.approx(ref.W, rel=1e-14)


@pytest.mark.parametrize(
    "call,match",
    [
        (
            lambda: es.dispersion(np.zeros((4, 1)), [[0, 0, 1, 1], [0, 1, 0]]),
            r"`labels` must hold factors of equal length",
        ),
        (
            lambda: es.dispersion(np.zeros((4, 1)), pd.DataFrame(index=range(4))),
            r"`labels` is a DataFrame without columns",
        ),
        (
            lambda: es.dispersion(
                np.arange(4.0), pd.DataFrame({"f": [0, 0, 1, 1], "g": [1, 1, 1, 1]})
            ),
            r"`labels\['g'\]` must define at least two groups",
        ),
        (
            lambda: es.dispersion(
                np.arange(4.0), [0, 0, 1, 1], sample_weight=[1, 2, 1, 1], n_resamples=9
            ),
            r"`n_resamples` \(permutation p-values\) takes no `sample_weight`",
        ),
        (
            lambda: es.dispersion(np.array([0.0, 0, 1, 1]), [0, 0, 1, 1], n_resamples=9),
            r"`n_resamples`: factor 'labels' has no finite F-ratio",
        ),
        (
            lambda: es.dispersion(np.arange(4.0), [0, 0, 1, 1], n_resamples=0),
            r"`n_resamples` must be a positive integer",
        ),
    ],
)
def test_bad_factors_are_refused_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# R 4.2.2, energy 1.7-11: x <- as.matrix(mtcars[, c("mpg", "disp", "hp")]);
# disco(x, data.frame(...), R = 0)$within, print(..., digits = 17)
OVERLAPPING_FACTORS = [
    # the same factor twice: R's within -448.08320635454311
    ("identical", {"cyl": "cyl", "cyl2": "cyl"}, -448.08320635454311,
     r"factors are aliased \('cyl' and 'cyl2' are the same grouping\): W = T - sum of the "
     r"factors' S = -448\.083 counts"),
    # cyl x am combined is nested in each: a finer grouping holds the coarser one's dispersion
    ("nested", {"cyl": "cyl", "cyl_am": None, "am": "am"}, None,
     r"factors are aliased \('cyl_am' is nested in 'cyl'; 'cyl_am' is nested in 'am'\)"),
    # associated, unbalanced: R's within -823.19553555302809
    ("associated", {"cyl": "cyl", "gear": "gear", "carb": "carb"}, -823.19553555302809,
     r"W = T - sum of the factors' S = -823\.196 < 0: the factors are associated"),
]


@pytest.mark.parametrize("columns, within, match", [case[1:] for case in OVERLAPPING_FACTORS],
                         ids=[case[0] for case in OVERLAPPING_FACTORS])
def test_aliased_or_overlapping_factors_warn_that_w_is_no_within_dispersion(columns, within, match):
    """W = T - sum S_f, as R's disco computes it: with aliased factors (one a function of the
    other) or associated ones it is negative, and the warning names the aliased factors."""
    X = MTCARS[["mpg", "disp", "hp"]]
    combined = MTCARS["cyl"].astype(str) + "/" + MTCARS["am"].astype(str)
    factors = pd.DataFrame({name: combined if column is None else MTCARS[column]
                            for name, column in columns.items()})
    with pytest.warns(UserWarning, match=match):
        res = es.dispersion(X, factors)
    assert res.W < 0 and res.W == pytest.approx(res.T - sum(f.S for f in res.by_factor), rel=1e-12)
    if within is not None:
        assert res.W == pytest.approx(within, rel=1e-12)
    for factor in res.by_factor:  # each factor's own decomposition holds
        assert factor.S + factor.W == pytest.approx(factor.T, rel=1e-13) and factor.W > 0


def test_orthogonal_or_unrelated_factors_do_not_warn():
    import warnings

    X = MTCARS[["mpg", "disp", "hp"]]
    balanced = pd.DataFrame({"a": np.repeat([0, 1], 16), "b": np.tile([0, 1], 16)})  # orthogonal
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        within = es.dispersion(X, MTCARS[["cyl", "am"]]).W
        assert within == pytest.approx(570.03737585957015, rel=1e-12)  # R's
        assert es.dispersion(X, balanced).W > 0
