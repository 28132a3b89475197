"""energystats against the R values committed in tests/data/r_reference.json.

The file is written by ``Rscript validation/r_reference.R`` (R and energy versions inside), so
these tests check agreement with R without needing R; the last test, marked ``r``, reruns the
script and checks the committed file is what it writes.
"""

import functools
import json
from pathlib import Path

import numpy as np
import pytest
from _r_reference import assert_script_writes
from scipy.spatial.distance import pdist

import energystats as es

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_PATH = ROOT / "tests" / "data" / "r_reference.json"
REFERENCE = json.loads(REFERENCE_PATH.read_text())
CASES = {case["name"]: case for case in REFERENCE["cases"]}
POINT_CASES = [name for name, case in CASES.items() if not case["distance"]]


def unpack(case):
    """Data, 0-based labels and the fit arguments of one case."""
    X = np.asarray(case["x"], dtype=float)
    labels = np.repeat(np.arange(len(case["sizes"])), case["sizes"])
    metric = {"metric": "precomputed"} if case["distance"] else {}
    return X, labels, metric


@functools.cache
def our_etest(name):
    """energystats' version of the case's eqdist.etest, with R's tie rule and resample count."""
    X, labels, metric = unpack(CASES[name])
    return es.energy_test(
        X, labels, statistic="E", n_resamples=CASES[name]["etest"]["R"], ties="strict", rng=0,
        **metric,
    )


def r_pair_order(k):
    """Indices of the upper triangle in R's column-major order, as m[upper.tri(m)]."""
    rows, cols = np.triu_indices(k, 1)
    order = np.lexsort((rows, cols))
    return rows[order], cols[order]


def test_reference_records_its_provenance():
    assert REFERENCE["generated_by"] == "validation/r_reference.R"
    assert REFERENCE["R"].count(".") == 2 and REFERENCE["energy"].count(".") >= 2
    assert len(CASES) == 5


def test_embedded_iris_is_rs_iris():
    iris = es.datasets.load_iris()
    np.testing.assert_array_equal(iris.iloc[:, :4].to_numpy(), np.asarray(CASES["iris"]["x"]))
    assert iris["Species"].value_counts(sort=False).tolist() == CASES["iris"]["sizes"]


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("which", [0, 1], ids=["alpha=1", "alpha=0.5"])
def test_edist_and_disco(name, which):
    case = CASES[name]
    X, labels, metric = unpack(case)
    ref = case["by_alpha"][which]
    if case["distance"]:  # R raises given distances to the power `index`; we take the matrix as is
        res = es.dispersion(X ** ref["alpha"], labels, **metric)
    else:
        res = es.dispersion(X, labels, exponent=ref["alpha"])
    np.testing.assert_allclose(
        res.pairwise[r_pair_order(len(case["sizes"]))], ref["edist"], rtol=1e-10
    )
    disco = ref["disco"]
    np.testing.assert_allclose(
        [res.S, res.W, res.T, res.F],
        [disco["between"], disco["within"], disco["total"], disco["statistic"]], rtol=1e-10,
    )


@pytest.mark.parametrize("name", CASES)
def test_eqdist_e_and_etest_statistic(name):
    case = CASES[name]
    X, labels, metric = unpack(case)
    total = es.dispersion(X, labels, **metric).pairwise[r_pair_order(len(case["sizes"]))].sum()
    np.testing.assert_allclose(total, case["eqdist_e"], rtol=1e-10)
    np.testing.assert_allclose(our_etest(name).statistic, case["etest"]["statistic"], rtol=1e-10)


@pytest.mark.parametrize("name", CASES)
def test_etest_pvalue_within_monte_carlo_error(name):
    """Different random streams: the p-values agree within 4 binomial standard errors of each."""
    B = CASES[name]["etest"]["R"]
    ours, theirs = our_etest(name).pvalue, CASES[name]["etest"]["p_value"]
    p = (ours + theirs) / 2
    # false failure: P(|Z| > 4) = 6.3e-5 (normal bound)
    assert abs(ours - theirs) <= 4 * np.sqrt(2 * p * (1 - p) / (B + 1)) + 2 / (B + 1)


@pytest.mark.parametrize("name", POINT_CASES)
def test_kgroups_r_mode_reproduces_r(name):
    case = CASES[name]
    X, _, _ = unpack(case)
    ref = case["kgroups"]
    k = len(case["sizes"])
    model = es.KGroups(
        k, algorithm="r-kgroups", init=np.asarray(ref["start"]) - 1, max_iter=100
    ).fit(X)
    np.testing.assert_array_equal(model.labels_ + 1, ref["cluster"])
    np.testing.assert_array_equal(model.cluster_sizes_, ref["sizes"])
    np.testing.assert_allclose(model.W_, ref["W"], rtol=1e-10)
    assert model.n_iter_ == ref["iterations"]


@pytest.mark.parametrize("name", POINT_CASES)
def test_kgroups_hartigan_from_rs_result_is_no_worse(name):
    case = CASES[name]
    X, _, _ = unpack(case)
    ref = case["kgroups"]
    model = es.KGroups(len(case["sizes"]), init=np.asarray(ref["cluster"]) - 1).fit(X)
    assert model.W_ <= ref["W"] * (1 + 1e-12)


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("which", [0, 1, 2], ids=["alpha=0.5", "alpha=1", "alpha=1.5"])
def test_energy_hclust_matches_r(name, which):
    """merge, order and heights of energy.hclust; data with tied distances (iris; data rounded
    to 4 decimals in 1-D or L1) may take equal merge costs in another order, and then only the
    heights are compared."""
    case = CASES[name]
    X, _, metric = unpack(case)
    ref = case["hclust"][which]
    alpha = ref["alpha"]
    tree = (
        es.energy_hclust(X**alpha, **metric)
        if case["distance"]
        else es.energy_hclust(X, exponent=alpha)
    )
    np.testing.assert_allclose(tree.height, ref["height"], rtol=1e-10)
    same = np.array_equal(tree.merge, ref["merge"]) and np.array_equal(tree.order, ref["order"])
    distances = np.sort(X[np.triu_indices(len(X), 1)] if case["distance"] else pdist(X))
    assert (
        same
        or (np.diff(distances) == 0).any()
    ), "merges differ from R's on data without tied distances"


NORMALITY = {case["name"]: case for case in REFERENCE["normality"]}


@functools.cache
def our_mvnorm_test(name):
    return es.mvnorm_test(
        np.asarray(NORMALITY[name]["x"], dtype=float), n_resamples=NORMALITY[name]["test"]["R"],
        rng=0,
    )


@pytest.mark.parametrize("name", NORMALITY)
def test_mvnorm_statistic_matches_r(name):
    case = NORMALITY[name]
    X = np.asarray(case["x"], dtype=float)
    np.testing.assert_allclose(es.mvnorm_statistic(X), case["mvnorm_e"], rtol=1e-10)
    np.testing.assert_allclose(
        our_mvnorm_test(name).statistic, case["test"]["statistic"], rtol=1e-10
    )


@pytest.mark.parametrize("name", NORMALITY)
def test_mvnorm_pvalue_within_monte_carlo_error(name):
    """R's p-value is #{null >= t} / B, ours (1 + #{null >= t}) / (B + 1): within 4 binomial
    standard errors of each, plus the one count."""
    B = NORMALITY[name]["test"]["R"]
    ours, theirs = our_mvnorm_test(name).pvalue, NORMALITY[name]["test"]["p_value"]
    p = (ours + theirs) / 2
    # false failure: P(|Z| > 4) = 6.3e-5 (normal bound)
    assert abs(ours - theirs) <= 4 * np.sqrt(2 * p * (1 - p) / (B + 1)) + 2 / (B + 1)


@pytest.mark.r
def test_committed_reference_is_what_the_r_script_writes(tmp_path):
    assert_script_writes(ROOT / "validation" / "r_reference.R", REFERENCE, tmp_path)
