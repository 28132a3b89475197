"""n_jobs through joblib, locally and on a Dask cluster (energystats._parallel: run_tasks, no
thread pool of the package's own).

Every heavy function gives the serial result whatever n_jobs and backend: p-values and
labels identical, statistics, null values and W equal to 1e-10.
"""

import subprocess
import sys
import textwrap

import joblib
import numpy as np
import pytest

import energystats as es

BAD_N_JOBS = [0, 1.5, "2", True]


def blobs(seed, n=120, d=3):
    rng = np.random.default_rng(seed)
    labels = np.repeat([0, 1, 2], n // 3)
    return rng.normal(size=(n, d)) + 1.5 * labels[:, None], labels


def same_test(a, b):
    assert a.pvalue == b.pvalue and a.exact == b.exact
    assert a.statistic == pytest.approx(b.statistic, rel=1e-10)
    np.testing.assert_allclose(a.null_distribution, b.null_distribution, rtol=1e-10)


def same_fit(a, b):
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.W_ == pytest.approx(b.W_, rel=1e-10) and a.n_iter_ == b.n_iter_


def every_function(n_jobs):
    """Each heavy function on small data, with ``n_jobs``."""
    X, labels = blobs(0)
    # a single KGroups start streams: its passes are tasks
    with es.config_context(working_memory=0.05):
        single = es.KGroups(3, n_init=1, random_state=2, n_jobs=n_jobs).fit(X)
    return {
        "energy_test": es.energy_test(
            X, labels, statistic="E", n_resamples=59, rng=1, n_jobs=n_jobs
        ),
        "energy_test_samples": es.energy_test_samples(
            X[:40], X[40:90], n_resamples=29, rng=2, n_jobs=n_jobs
        ),
        # the random-projection operator: its shards (groups of directions) are tasks as well
        "projection_test": es.energy_test(
            X, labels, n_resamples=39, rng=8, approximation="projection", n_projections=12,
            n_jobs=n_jobs,
        ),
        "pairwise": es.pairwise_energy_tests(X, labels, n_resamples=39, rng=3, n_jobs=n_jobs).table,
        "dispersion": es.dispersion(X, labels, exponent=0.5, n_jobs=n_jobs),
        "energy_distance": es.energy_distance(X[:50], X[50:], n_jobs=n_jobs),
        "kgroups": es.KGroups(3, n_init=4, random_state=1, n_jobs=n_jobs).fit(X),
        "kgroups_lloyd": es.KGroups(
            3, algorithm="lloyd", n_init=3, random_state=4, n_jobs=n_jobs
        ).fit(X),
        "r_kgroups": es.KGroups(
            3, algorithm="r-kgroups", n_init=3, random_state=5, n_jobs=n_jobs
        ).fit(X),
        "kgroups_single": single,
        # the Nyström operator: restarts are tasks on the shared features
        "nystroem": es.KGroups(
            3, n_init=3, random_state=9, approximation="nystroem", n_landmarks=30, n_jobs=n_jobs
        ).fit(X),
        "cluster_test": es.cluster_test(X[:60], 2, n_resamples=9, rng=6, n_init=2, n_jobs=n_jobs),
        "power_kmeans": es.PowerKMeans(3, n_init=3, random_state=7, n_jobs=n_jobs).fit(X),
        # independence: blocks of permutations, the tiles of the centred pass, pairs of columns
        "dcov_test": es.dcov_test(X[:, :2], X[:, 2:], n_resamples=39, rng=10, n_jobs=n_jobs),
        "dcov_test_1d": es.dcov_test(X[:, 0], X[:, 1], n_resamples=39, rng=11, n_jobs=n_jobs),
        "dcor": es.dcor(X[:, :2], labels.astype(str), n_jobs=n_jobs),
        "pairwise_dcor": es.pairwise_dcor(
            X, method="permutation", n_resamples=19, rng=12, n_jobs=n_jobs
        ),
    }


def assert_same(a, b):
    same_test(a["energy_test"], b["energy_test"])
    same_test(a["energy_test_samples"], b["energy_test_samples"])
    same_test(a["projection_test"], b["projection_test"])
    np.testing.assert_array_equal(a["pairwise"]["pvalue"], b["pairwise"]["pvalue"])
    np.testing.assert_allclose(a["pairwise"]["statistic"], b["pairwise"]["statistic"], rtol=1e-10)
    for field in ("W", "S", "T", "F"):
        assert getattr(a["dispersion"], field) == pytest.approx(
            getattr(b["dispersion"], field), rel=1e-10
        )
    assert a["energy_distance"] == pytest.approx(b["energy_distance"], rel=1e-10)
    for name in ("kgroups", "kgroups_lloyd", "r_kgroups", "kgroups_single", "nystroem"):
        same_fit(a[name], b[name])
    assert a["cluster_test"].pvalue == b["cluster_test"].pvalue
    np.testing.assert_allclose(
        a["cluster_test"].null_distribution, b["cluster_test"].null_distribution, rtol=1e-10
    )
    np.testing.assert_array_equal(a["power_kmeans"].labels_, b["power_kmeans"].labels_)
    np.testing.assert_allclose(
        a["power_kmeans"].cluster_centers_, b["power_kmeans"].cluster_centers_, rtol=1e-10
    )
    same_test(a["dcov_test"], b["dcov_test"])
    same_test(a["dcov_test_1d"], b["dcov_test_1d"])
    assert a["dcor"] == pytest.approx(b["dcor"], rel=1e-10)
    np.testing.assert_array_equal(
        a["pairwise_dcor"].table["pvalue"], b["pairwise_dcor"].table["pvalue"]
    )


@pytest.fixture(scope="module")
def serial():
    return every_function(None)


@pytest.fixture
def small_tasks(monkeypatch):
    """Small problems as tasks all the same (no worker is started for less than about two
    seconds of work, which the task paths' tests on small data would otherwise never run)."""
    from energystats import _parallel

    monkeypatch.setattr(_parallel, "PROCESS_WORK", 0.0)


@pytest.mark.slow  # starts worker processes
def test_joblib_processes_give_the_serial_results(serial, small_tasks):
    assert_same(every_function(2), serial)
    assert_same(every_function(-1), serial)


def test_threads_give_the_serial_results(serial, small_tasks):
    with joblib.parallel_config(backend="threading"):
        assert_same(every_function(2), serial)


@pytest.fixture(scope="module")
def dask_client():
    import distributed  # the extra [dask], installed by `make test`

    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.mark.slow  # starts worker processes
def test_dask_cluster_gives_the_serial_results_on_both_workers(serial, dask_client, small_tasks):
    from distributed import get_task_stream

    with joblib.parallel_config(backend="dask"), get_task_stream(dask_client) as stream:
        results = every_function(None)  # n_jobs=None: all the cluster's workers, as in scikit-learn
    assert_same(results, serial)
    workers = {task["worker"] for task in stream.data}
    assert len(workers) == 2, workers


def streamed(call):
    """``call`` with the matrix streamed in bands (the tasks; a held matrix's relabelings are
    BLAS products in this process)."""
    with es.config_context(working_memory=0.02):
        return call()


@pytest.mark.slow  # starts worker processes
@pytest.mark.parametrize(
    "call",
    [
        lambda X, labels: streamed(lambda: es.energy_test(X, labels, n_resamples=19, rng=0)),
        lambda X, labels: es.energy_test(
            X, labels, n_resamples=19, rng=0, approximation="projection", n_projections=8
        ),
        lambda X, labels: streamed(lambda: es.dispersion(X, labels)),
        lambda X, labels: streamed(
            lambda: es.pairwise_energy_tests(X, labels, n_resamples=19, rng=0)),
        lambda X, labels: es.KGroups(3, n_init=4, random_state=0).fit(X),
        lambda X, labels: es.cluster_test(X, 2, n_resamples=5, rng=0, n_init=1),
        lambda X, labels: es.KGroups(
            3, n_init=1, random_state=0, approximation="nystroem", n_landmarks=20
        ).fit(X),
    ],
    ids=[
        "energy_test", "projection_test", "dispersion", "pairwise", "kgroups", "cluster_test",
        "nystroem_single",
    ],
)
def test_each_function_sends_its_tasks_to_the_cluster(dask_client, call, small_tasks):
    """At least two tasks ran on the cluster's workers. Which worker runs which task is the
    scheduler's choice (a few short tasks may all go to one worker); that both workers take
    part is checked on the many tasks of every function at once, above."""
    from distributed import get_task_stream

    X, labels = blobs(3, n=90)
    with joblib.parallel_config(backend="dask"), get_task_stream(dask_client) as stream:
        call(X, labels)
    workers = set(dask_client.scheduler_info()["workers"])
    assert len(stream.data) >= 2 and {task["worker"] for task in stream.data} <= workers


@pytest.mark.slow  # starts worker processes
def test_progress_follows_remote_tasks(dask_client, capsys):
    X, _ = blobs(1)
    with joblib.parallel_config(backend="dask"):
        res = es.cluster_test(X[:45], 2, n_resamples=7, rng=0, n_init=1, progress=True)
    err = capsys.readouterr().err
    assert "Gaussian resamples" in err and "100%" in err
    assert res.null_distribution.shape == (7,)


@pytest.mark.parametrize("bad", BAD_N_JOBS)
def test_bad_n_jobs_is_a_value_error_naming_it(bad):
    X, labels = blobs(2, n=30)
    match = "`n_jobs` must be None or a non-zero integer"
    for call in (
        lambda: es.energy_test(X, labels, n_jobs=bad),
        lambda: es.pairwise_energy_tests(X, labels, n_jobs=bad),
        lambda: es.dispersion(X, labels, n_jobs=bad),
        lambda: es.energy_distance(X[:10], X[10:], n_jobs=bad),
        lambda: es.cluster_test(X, 2, n_jobs=bad),
        lambda: es.KGroups(2, n_jobs=bad).fit(X),
        lambda: es.PowerKMeans(2, n_jobs=bad).fit(X),
    ):
        with pytest.raises(ValueError, match=match):
            call()


@pytest.mark.slow  # starts worker processes
def test_n_jobs_works_without_dask(tmp_path):
    script = tmp_path / "no_dask.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            sys.modules["dask"] = sys.modules["distributed"] = None  # importing either now fails
            import numpy as np
            import energystats as es

            if __name__ == "__main__":
                rng = np.random.default_rng(0)
                X = rng.normal(size=(90, 2))
                labels = np.arange(90) % 3
                a = es.energy_test(X, labels, n_resamples=19, rng=1)
                b = es.energy_test(X, labels, n_resamples=19, rng=1, n_jobs=2)
                assert a.pvalue == b.pvalue
                fit = es.KGroups(3, n_init=2, random_state=0, n_jobs=2).fit(X)
                assert fit.labels_.shape == (90,)
                print("ok")
            """
        )
    )
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


@pytest.mark.slow  # starts worker processes
def test_the_documented_local_cluster_example_runs():
    from pathlib import Path

    script = Path(__file__).parents[2] / "docs" / "examples" / "dask_local_cluster.py"
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True, timeout=300
    )
    assert "same p-value as in this process: True" in out.stdout


def _square(a):
    return a * a


def test_workers_are_capped_by_the_cores_and_the_tasks_and_small_work_starts_none(monkeypatch):
    """n_jobs=1000 on this machine runs on its cores at most (772 processes and 19 GB in the
    probe of issue 48, item 3), no more workers than tasks, and none at all for work of a few
    milliseconds: the same p-value without a joblib.Parallel."""
    from energystats import _parallel

    cores = joblib.cpu_count()
    assert _parallel.n_workers(1000) == cores and _parallel.n_workers(-1) == cores
    assert _parallel.n_workers(1000, work=1e6) == 1
    assert _parallel.n_workers(2, work=10 * _parallel.PROCESS_WORK) == min(2, cores)
    started = []

    class Spy(joblib.Parallel):
        def __init__(self, n_jobs=None, **options):
            started.append(n_jobs)
            super().__init__(n_jobs=n_jobs, **options)

    monkeypatch.setattr(_parallel.joblib, "Parallel", Spy)
    X, labels = blobs(4, n=30)
    serial = es.dcor_test(X[:, :2], X[:, 2], n_resamples=99, rng=0)
    for n_jobs in (2, -1, 1000):
        assert es.dcor_test(X[:, :2], X[:, 2], n_resamples=99, rng=0, n_jobs=n_jobs).pvalue == (
            serial.pvalue)
        same_test(es.energy_test(X, labels, n_resamples=99, rng=0, n_jobs=n_jobs),
                  es.energy_test(X, labels, n_resamples=99, rng=0))
    assert started == []
    with joblib.parallel_config(backend="threading"):
        assert _parallel.run_tasks(_square, [{"a": a} for a in range(3)], 1000) == [0, 1, 4]
        assert _parallel.run_tasks(_square, [{"a": 5}], 1000) == [25]
        assert _parallel.run_tasks(_square, [{"a": a} for a in range(3)], 1000, work=1e6) == [
            0, 1, 4]
    assert started == [min(3, cores)]
