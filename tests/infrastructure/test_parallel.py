"""n_jobs through joblib, locally and on a Dask cluster, and threads within the working memory
(energystats._parallel; the operator's shards, PairwiseOperator.with_jobs).

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
        "pairwise": es.pairwise_energy_tests(X, labels, n_resamples=39, rng=3, n_jobs=n_jobs),
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
    seconds of work, which the task paths' tests on small data would otherwise never run):
    a task per item, whatever its work."""
    from energystats import _parallel

    monkeypatch.setattr(_parallel, "PROCESS_WORK", 0.0)
    monkeypatch.setattr(_parallel, "TASK_WORK", 1)


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


@pytest.mark.slow  # starts worker processes
@pytest.mark.parametrize(
    "call",
    [
        lambda X, labels: es.energy_test(X, labels, n_resamples=19, rng=0),
        lambda X, labels: es.energy_test(
            X, labels, n_resamples=19, rng=0, approximation="projection", n_projections=8
        ),
        lambda X, labels: es.dispersion(X, labels),
        lambda X, labels: es.pairwise_energy_tests(X, labels, n_resamples=19, rng=0),
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


def test_threads_keep_the_callers_working_memory():
    """Shares running on the pool's threads see the caller's ``config_context``, so that
    their memory checks use the caller's budget."""
    from energystats._config import memory_budget
    from energystats._parallel import run_threads

    with es.config_context(working_memory=3):
        seen = run_threads(lambda share: memory_budget(), [0, 1, 2])
    assert seen == [3 * 2**20] * 3


def test_threads_within_the_budget_are_as_many_as_it_holds(monkeypatch):
    """threads_within: the configured threads, or as many as the budget holds beside the
    fixed part, never fewer than one (brute force over a grid)."""
    from energystats import _parallel

    monkeypatch.setattr(_parallel, "THREADS", 8)
    with es.config_context(working_memory=1):
        budget = 2**20
        for per in (1, 2**10, 2**17, 2**18, 3 * 2**17, 2**20, 2**22):
            for fixed in (0, 2**18, 2**19, 2**20, 2**21):
                want = max([1] + [t for t in range(1, 9) if fixed + t * per <= budget])
                assert _parallel.threads_within(per, fixed) == want, (per, fixed)


MINIBATCH_AT_EIGHT_THREADS = """
import sys
import numpy as np
import energystats as es
from energystats import _parallel
assert _parallel.THREADS == int(sys.argv[2])
rng = np.random.default_rng(5)
X = rng.normal(size=(8000, 3)) + 3.0 * (np.arange(8000) % 3)[:, None]
with es.config_context(working_memory=float(sys.argv[1])):
    km = es.KGroups(
        3, n_init=2, random_state=1, approximation="nystroem", n_landmarks=40, batch_size=200
    ).fit(X)
print(repr(km.W_), ",".join(map(str, km.labels_)))
"""


# subprocesses on other thread counts or BLAS kernels: the machine matrix, in make test-slow
@pytest.mark.slow
def test_eight_threads_run_fewer_threads_within_a_small_budget():
    """With ENERGYSTATS_NUM_THREADS=8 (a machine of 8 cores), mini-batch k-groups at a budget
    that holds the bands of two threads (3 MiB; eight need about 10 MiB) runs on fewer threads
    instead of raising, and gives what one thread gives at the default budget: the same
    labels, W to rounding."""
    import os

    def run(threads, memory):
        env = dict(os.environ, ENERGYSTATS_NUM_THREADS=str(threads))
        out = subprocess.run(
            [sys.executable, "-c", MINIBATCH_AT_EIGHT_THREADS, str(memory), str(threads)],
            capture_output=True, text=True, check=True, env=env,
        )
        W, labels = out.stdout.split()
        return float(W), labels

    W8, labels8 = run(8, 3)
    W1, labels1 = run(1, 1024)
    assert labels8 == labels1
    assert W8 == pytest.approx(W1, rel=1e-12)


SMALL_BUDGETS_AT_N_THREADS = """
import json, sys
import numpy as np
import energystats as es
from energystats import _parallel
assert _parallel.THREADS == int(sys.argv[1])
rng = np.random.default_rng(0)
X = rng.normal(size=(300, 2)); X[:100] += 4
out = {}
with es.config_context(working_memory=0.03):  # streamed tiles of the centred kernel
    km = es.KGroups(3, random_state=0).fit(X)
    out["kgroups"] = [km.labels_.tolist(), km.W_]
x = rng.normal(size=(60, 2)); y = x[:, 0] ** 2 + rng.normal(size=60)
with es.config_context(working_memory=0.4):  # centred products, then gathers of y's matrix
    res = es.dcor_test(x, y, rng=0, n_resamples=99)
    out["dcor_test"] = [res.pvalue, res.statistic]
Z = rng.normal(size=(100_000, 3)); labels = rng.integers(0, 2, 100_000)
with es.config_context(working_memory=2):  # the sorts of the projections
    res = es.energy_test(
        Z, labels, n_resamples=19, rng=0, approximation="projection", n_projections=4
    )
    out["projection"] = [res.pvalue, res.statistic]
print(json.dumps(out))
"""


# subprocesses on other thread counts or BLAS kernels: the machine matrix, in make test-slow
@pytest.mark.slow
def test_a_budget_that_one_thread_fits_runs_on_any_number_of_threads():
    """The streamed kernel products, the centred products and the permutation gathers of a test
    of independence, and the projection test's sorts, at budgets one thread fits: with
    ENERGYSTATS_NUM_THREADS=8 they run on as many threads as the budget holds instead of raising
    WorkingMemoryError, with one thread's labels and p-values, statistics to rounding."""
    import json
    import os

    def run(threads):
        env = dict(os.environ, ENERGYSTATS_NUM_THREADS=str(threads))
        done = subprocess.run(
            [sys.executable, "-c", SMALL_BUDGETS_AT_N_THREADS, str(threads)], capture_output=True,
            text=True, env=env,
        )
        assert done.returncode == 0, done.stderr[-600:]
        return json.loads(done.stdout)

    one, eight = run(1), run(8)
    assert eight["kgroups"][0] == one["kgroups"][0]
    assert eight["kgroups"][1] == pytest.approx(one["kgroups"][1], rel=1e-12)
    for name in ("dcor_test", "projection"):
        assert eight[name][0] == one[name][0]
        assert eight[name][1] == pytest.approx(one[name][1], rel=1e-12)


FORK_AFTER_THREADS = """
import multiprocessing, queue, sys, threading
import numpy as np
from threadpoolctl import threadpool_info
import energystats as es
from energystats import _parallel

def calls(results=None):
    X = np.random.default_rng(0).normal(size=(600, 3))
    blas = sorted(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")
    out = (es.dcor(X[:, :2], X[:, 2] ** 2), es.KGroups(3, random_state=0).fit(X).W_, blas)
    if results is None:
        return out
    results.put(out)

if __name__ == "__main__":
    parent = calls()
    assert _parallel._pool.cache_info().currsize == 1, "the parent did not use the thread pool"
    inside, leave = threading.Event(), threading.Event()
    def hold():  # another thread is inside the BLAS limit at the fork
        with _parallel.one_blas_thread():
            inside.set()
            leave.wait()
    holder = threading.Thread(target=hold)
    holder.start()
    inside.wait()
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=calls, args=(results,))
    child.start()
    leave.set()
    holder.join()
    try:
        got = results.get(timeout=60)
    except queue.Empty:
        child.kill()
        sys.exit("the forked child hung")
    child.join()
    print(got == parent, got, parent)
"""


def test_a_child_forked_after_threaded_calls_runs_them_again():
    """After dcor and KGroups.fit ran on the thread pool, the same calls in a child forked by
    multiprocessing (as joblib's fork backends and notebooks do) give the parent's results
    instead of waiting forever on the parent's pool threads, which the child does not have;
    a BLAS limit another thread held at the fork is not the child's (its BLAS threads are
    the parent's). The child is killed after 60 s, so a regression fails instead of hanging."""
    import os

    env = dict(os.environ, ENERGYSTATS_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2",
               OMP_NUM_THREADS="2")
    done = subprocess.run([sys.executable, "-c", FORK_AFTER_THREADS], capture_output=True,
                          text=True, env=env, timeout=240)
    assert done.returncode == 0, done.stderr[-600:]
    assert done.stdout.startswith("True"), done.stdout


OVERLAPPING_BLAS_LIMITS = """
import json, threading
from threadpoolctl import threadpool_info
from energystats._parallel import one_blas_thread

def blas():
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]

before = blas()
steps = [threading.Event() for _ in range(4)]
seen = []
def first():
    with one_blas_thread():
        steps[0].set(); steps[1].wait()
    steps[2].set()
def second():
    steps[0].wait()
    with one_blas_thread():
        steps[1].set(); steps[2].wait(); seen.append(blas())
threads = [threading.Thread(target=first), threading.Thread(target=second)]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps({"before": before, "during": seen[0], "after": blas()}))
"""


def test_overlapping_blas_limits_of_several_threads_restore_blas():
    """Two threads in the one-thread BLAS context, the first leaving while the second is
    inside (joblib's threading backend runs tasks so): BLAS stays on one thread until the
    last leaves, then has its threads back (threadpoolctl's limits left it on one thread for
    good: each restored what it found on entry, and only one thread may set OpenBLAS)."""
    import json
    import os

    env = dict(os.environ, OPENBLAS_NUM_THREADS="2", OMP_NUM_THREADS="2")
    done = subprocess.run([sys.executable, "-c", OVERLAPPING_BLAS_LIMITS], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-600:]
    counts = json.loads(done.stdout)
    assert counts["before"] and set(counts["before"]) == {2}
    assert counts["during"] == [1] * len(counts["before"]) and counts["after"] == counts["before"]


def _square(a):
    return a * a


def test_workers_are_capped_by_the_cores_and_the_tasks_and_small_work_starts_none(monkeypatch):
    """n_jobs=1000 on this machine runs on its cores at most (772 processes and 19 GB in the
    probe of issue 48, item 3), no more workers than tasks, and none at all for work of a few
    milliseconds: the same p-value without a joblib.Parallel."""
    from energystats import _parallel

    cores = joblib.cpu_count()
    assert _parallel.n_workers(1000) == cores and _parallel.n_workers(-1) == cores
    assert _parallel.n_workers(1000, seconds=1e-3) == 1
    assert _parallel.n_workers(2, seconds=10 * _parallel.PROCESS_WORK) == min(2, cores)
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
    assert started == [min(3, cores)]
