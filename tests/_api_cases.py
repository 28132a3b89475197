"""The public API's outputs on fixed seeds, for every back-end: the behaviour that a
refactoring of the internals must keep.

``tests/infrastructure/test_api_identity.py`` recomputes every case and compares it with
``tests/data/api_snapshot.json``, which was written by this module *before* the
pairwise operator moved into its subpackage::

    python -m tests._api_cases --write

Each case returns a flat dict of named numbers or arrays (labels, statistics,
p-values, null distributions). Integers (labels, sizes, counts) and p-values must
match exactly; floating-point statistics to 1e-12 relative, which allows a
different order of the same additions and nothing else.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

import energystats as es

SNAPSHOT = Path(__file__).parent / "data" / "api_snapshot.json"
CASES: dict = {}


def case(function):
    CASES[function.__name__] = function
    return function


def _data(n=60, d=3, k=3, seed=0, shift=1.5):
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % k
    return rng.standard_normal((n, d)) + shift * labels[:, None], labels


def _test_fields(res) -> dict:
    return {
        "statistic": res.statistic, "pvalue": res.pvalue, "null": res.null_distribution,
        "n_resamples": res.n_resamples,
    }


# --- energy distance, dispersion -------------------------------------------------------


@case
def energy_distance_backends():
    X, labels = _data()
    x, y = X[labels == 0], X[labels == 1]
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=x.shape[0])
    out = {
        "euclid": es.energy_distance(x, y),
        "alpha05": es.energy_distance(x, y, exponent=0.5),
        "alpha2": es.energy_distance(x, y, exponent=2.0),
        "gaussian": es.energy_distance(x, y, metric="gaussian", sigma=1.3),
        "exponential": es.energy_distance(x, y, metric="exponential", sigma=0.7),
        "weighted": es.energy_distance(x, y, x_weights=w),
        "onedim": es.energy_distance(x[:, 0], y[:, 0]),
        "projection": es.energy_distance(x, y, approximation="projection", n_projections=7, rng=3),
        "tiny_scale": es.energy_distance(x * 1e-200, y * 1e-200),
    }
    with es.config_context(working_memory=0.05):
        out["streamed"] = es.energy_distance(np.tile(x, (20, 1)), np.tile(y, (20, 1)))
    return out


@case
def dispersion_backends():
    X, labels = _data(n=90)
    D = es.pairwise_semimetric(X, exponent=1.5)
    w = np.random.default_rng(2).uniform(0.0, 2.0, size=X.shape[0])
    out = {}
    for name, res in {
        "euclid": es.dispersion(X, labels),
        "alpha15": es.dispersion(X, labels, exponent=1.5),
        "precomputed": es.dispersion(D, labels, metric="precomputed"),
        "weighted": es.dispersion(X, labels, sample_weight=w),
        "onedim": es.dispersion(X[:, 0], labels),
        "gaussian": es.dispersion(X, labels, metric="gaussian", sigma=2.0),
        "projection": es.dispersion(X, labels, approximation="projection", n_projections=5, rng=4),
        "callable": es.dispersion(
            X, labels, metric=lambda a, b: np.abs(a[:, None, 0] - b[None, :, 0]) ** 0.7
        ),
    }.items():
        out.update(
            {
                f"{name}_W": res.W, f"{name}_S": res.S, f"{name}_T": res.T, f"{name}_F": res.F,
                f"{name}_pairwise": res.pairwise,
            }
        )
    with es.config_context(working_memory=0.2):
        big = np.tile(X, (10, 1))
        res = es.dispersion(big, np.tile(labels, 10))
    out.update({"streamed_W": res.W, "streamed_S": res.S})
    return out


# --- k-sample tests ----------------------------------------------------------------------


@case
def energy_test_backends():
    X, labels = _data(n=45, shift=0.4)
    out = {}
    for stat in ("S", "E", "F"):
        out.update(
            {
                f"{stat}_{key}": v
                for key, v in _test_fields(
                    es.energy_test(X, labels, statistic=stat, n_resamples=99, rng=5)
                ).items()
            }
        )
    out.update(
        {
            f"onedim_{k}": v
            for k, v in _test_fields(es.energy_test(X[:, 0], labels, n_resamples=99, rng=6)).items()
        }
    )
    out.update(
        {
            f"onedimE_{k}": v
            for k, v in _test_fields(
                es.energy_test(X[:, 0], labels, statistic="E", n_resamples=49, rng=6)
            ).items()
        }
    )
    D = es.pairwise_semimetric(X)
    out.update(
        {
            f"precomputed_{k}": v
            for k, v in _test_fields(
                es.energy_test(D, labels, metric="precomputed", n_resamples=99, rng=7)
            ).items()
        }
    )
    out.update(
        {
            f"projection_{k}": v
            for k, v in _test_fields(
                es.energy_test(
                    X, labels, approximation="projection", n_projections=6, n_resamples=99, rng=8
                )
            ).items()
        }
    )
    out.update(
        {
            f"gaussian_{k}": v
            for k, v in _test_fields(
                es.energy_test(X, labels, metric="gaussian", sigma=1.0, n_resamples=99, rng=9)
            ).items()
        }
    )
    out.update(
        {
            f"exact_{k}": v
            for k, v in _test_fields(
                es.energy_test(X[:8], [0, 0, 0, 0, 1, 1, 1, 1], n_resamples=999)
            ).items()
        }
    )
    out.update(
        {
            f"strict_{k}": v
            for k, v in _test_fields(
                es.energy_test(X, labels, ties="strict", n_resamples=99, rng=10)
            ).items()
        }
    )
    with es.config_context(working_memory=0.3):
        big = np.tile(X, (30, 1)) + np.random.default_rng(11).normal(0, 0.1, (1350, 3))
        out.update(
            {
                f"streamed_{k}": v
                for k, v in _test_fields(
                    es.energy_test(big, np.tile(labels, 30), n_resamples=19, rng=12)
                ).items()
            }
        )
    out.update(
        {
            f"samples_{k}": v
            for k, v in _test_fields(
                es.energy_test_samples(X[:10], X[10:25], n_resamples=49, rng=13)
            ).items()
        }
    )
    return out


@case
def pairwise_tests():
    X, labels = _data(n=45, shift=0.6)
    table = es.pairwise_energy_tests(X, labels, n_resamples=99, rng=14).table
    return {
        "statistic": table["statistic"].to_numpy(), "pvalue": table["pvalue"].to_numpy(),
        "adjusted": table["pvalue_adjusted"].to_numpy(),
    }


# --- clustering ------------------------------------------------------------------------


def _km_fields(prefix: str, km, X_new=None) -> dict:
    out = {
        f"{prefix}_labels": km.labels_, f"{prefix}_W": km.W_, f"{prefix}_objective": km.objective_,
        f"{prefix}_n_iter": km.n_iter_,
    }
    if X_new is not None:
        out[f"{prefix}_predict"] = km.predict(X_new)
    return out


@case
def kgroups_backends():
    X, _ = _data(n=120, d=2, k=3, shift=2.0)
    new = X[:17] + 0.3
    out = {}
    for algorithm in ("hartigan", "lloyd", "r-kgroups"):
        out.update(
            _km_fields(
                algorithm, es.KGroups(3, algorithm=algorithm, n_init=3, random_state=15).fit(X), new
            )
        )
    for init in ("random", "spectral", "power-kmeans"):
        out.update(
            _km_fields(f"init_{init}", es.KGroups(3, init=init, n_init=2, random_state=16).fit(X))
        )
    out.update(
        _km_fields("alpha05", es.KGroups(3, exponent=0.5, random_state=17, n_init=2).fit(X), new)
    )
    out.update(
        _km_fields(
            "gaussian",
            es.KGroups(3, metric="gaussian", sigma=1.0, random_state=18, n_init=2).fit(X), new,
        )
    )
    D = es.pairwise_semimetric(X)
    out.update(
        _km_fields(
            "precomputed", es.KGroups(3, metric="precomputed", random_state=19, n_init=2).fit(D),
            es.pairwise_semimetric(new, X),
        )
    )
    G = es.kernel_matrix(X)
    km = es.KGroups(3, metric="precomputed_kernel", random_state=20, n_init=2).fit(G)
    out.update({"gram_labels": km.labels_, "gram_W": km.W_})
    w = np.random.default_rng(21).uniform(0, 2, X.shape[0])
    w[:5] = 0.0
    out.update(
        _km_fields(
            "weighted", es.KGroups(3, random_state=22, n_init=2).fit(X, sample_weight=w), new
        )
    )
    out.update(
        _km_fields("onedim", es.KGroups(2, random_state=23, n_init=2).fit(X[:, :1]), new[:, :1])
    )
    out.update(
        _km_fields(
            "nystroem",
            es.KGroups(3, approximation="nystroem", n_landmarks=25, random_state=24, n_init=2).fit(
                X
            ),
            new,
        )
    )
    out.update(
        _km_fields(
            "nystroem_uniform",
            es.KGroups(
                3, approximation="nystroem", n_landmarks=30, landmarks="uniform", random_state=25,
                n_init=1,
            ).fit(X, sample_weight=w),
            new,
        )
    )
    out.update(
        _km_fields(
            "given_init", es.KGroups(3, init=np.arange(X.shape[0]) % 3, random_state=33).fit(X), new
        )
    )
    with es.config_context(working_memory=0.1):
        out.update(_km_fields("streamed", es.KGroups(3, random_state=26, n_init=2).fit(X), new))
    return out


@case
def power_kmeans():
    X, _ = _data(n=150, d=4, k=3, shift=3.0)
    pk = es.PowerKMeans(3, random_state=27).fit(X)
    return {
        "labels": pk.labels_, "centres": pk.cluster_centers_, "inertia": pk.inertia_,
        "predict": pk.predict(X[:10] + 0.1),
    }


@case
def split_and_hclust():
    X, labels = _data(n=40, d=2, k=2, shift=2.5)
    res = es.split_1d(X[:, 0])
    w = np.random.default_rng(28).uniform(0, 1, 40)
    resw = es.split_1d(X[:, 0], sample_weight=w)
    tree = es.energy_hclust(X)
    tree05 = es.energy_hclust(X, exponent=0.5)
    return {
        "split_labels": res.labels, "split_W": res.W, "split_S": res.S, "split_curve": res.W_curve,
        "splitw_labels": resw.labels, "splitw_W": resw.W,
        "merge": tree.merge, "height": tree.height, "order": tree.order, "height05": tree05.height,
    }


@case
def cluster_tests():
    X, _ = _data(n=60, d=3, k=2, shift=2.0)
    out = {}
    for method in ("conditional", "whitened"):
        res = es.cluster_test(X, 2, n_resamples=9, rng=29, directions=method)
        out.update(
            {
                f"{method}_statistic": res.statistic, f"{method}_pvalue": res.pvalue,
                f"{method}_null": res.null_distribution, f"{method}_labels": res.labels,
            }
        )
    sig = es.significant_clusters(X, n_resamples=9, rng=30)
    out["significant_labels"] = sig.labels
    thin = es.thinned_cluster_comparison(X, 2, cov=np.eye(3), n_resamples=49, rng=31)
    out.update(
        {
            "thin_labels": thin.labels, "thin_pvalue": thin.test.pvalue,
            "thin_statistic": thin.test.statistic,
        }
    )
    return out


@case
def normality_and_matrices():
    X, _ = _data(n=50, d=3, k=1)
    res = es.mvnorm_test(X, n_resamples=49, rng=32)
    return {
        "mvnorm_statistic": es.mvnorm_statistic(X),
        "mvnorm_pvalue": res.pvalue,
        "mvnorm_null": res.null_distribution,
        "kernel": es.kernel_matrix(X[:12], exponent=1.2),
        "kernel_x0": es.kernel_matrix(X[:12], x0=np.zeros(3)),
        "pairwise": es.pairwise_semimetric(X[:12], metric="exponential", sigma=0.5),
        "negative_type": es.is_negative_type(es.pairwise_semimetric(X[:12], exponent=1.5)),
    }


def compute() -> dict:
    """Every case's outputs, as {case: {name: value}}."""
    return {name: function() for name, function in CASES.items()}


def _jsonable(value):
    array = np.asarray(value)
    if array.dtype == object:
        raise TypeError(f"cannot snapshot {value!r}")
    return {"dtype": array.dtype.kind, "shape": list(array.shape), "values": array.ravel().tolist()}


def write(path: Path = SNAPSHOT) -> None:
    outputs = compute()
    path.write_text(
        json.dumps(
            {c: {k: _jsonable(v) for k, v in fields.items()} for c, fields in outputs.items()},
            indent=0,
        )
        + "\n"
    )


def load(path: Path = SNAPSHOT) -> dict:
    raw = json.loads(path.read_text())
    return {
        c: {
            k: np.array(
                v["values"], dtype={"f": float, "i": np.int64, "u": np.int64, "b": bool}[v["dtype"]]
            ).reshape(v["shape"])
            for k, v in fields.items()
        }
        for c, fields in raw.items()
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--write", action="store_true", help="record the snapshot (only before a refactoring)"
    )
    parser.add_argument(
        "--out", type=Path, help="write the outputs of today's code here (for the test)"
    )
    args = parser.parse_args()
    if args.write:
        write()
        print(f"wrote {SNAPSHOT}")
    elif args.out:
        outputs = compute()
        args.out.write_text(
            json.dumps(
                {c: {k: _jsonable(v) for k, v in fields.items()} for c, fields in outputs.items()}
            )
        )
