"""The memory budget: set_config, get_config, config_context (energystats._config)."""

import threading

import numpy as np
import pytest

import energystats as es
from energystats import _config


def test_default_is_scikit_learns_1024_mib():
    assert es.get_config() == {"working_memory": 1024}


def test_set_config_changes_and_none_leaves_unchanged():
    with es.config_context():
        es.set_config(working_memory=64)
        assert es.get_config()["working_memory"] == 64
        es.set_config()
        es.set_config(working_memory=None)
        assert es.get_config()["working_memory"] == 64
    assert es.get_config()["working_memory"] == 1024


def test_get_config_returns_a_copy():
    es.get_config()["working_memory"] = 1
    assert es.get_config()["working_memory"] == 1024


def test_config_context_restores_on_exit_nested_and_after_an_exception():
    with es.config_context(working_memory=10):
        assert es.get_config()["working_memory"] == 10
        with es.config_context(working_memory=20):
            assert es.get_config()["working_memory"] == 20
        assert es.get_config()["working_memory"] == 10
    assert es.get_config()["working_memory"] == 1024
    with pytest.raises(RuntimeError, match="inside"):
        with es.config_context(working_memory=5):
            raise RuntimeError("inside")
    assert es.get_config()["working_memory"] == 1024


@pytest.mark.parametrize("bad", [0, -1, -0.5, float("nan"), float("inf"), "1024", True, [1], None])
def test_bad_working_memory_is_a_value_error_naming_it(bad):
    if bad is None:  # None means "unchanged", not an error
        es.set_config(working_memory=None)
        return
    with pytest.raises(ValueError, match="`working_memory` must be a positive number of MiB"):
        es.set_config(working_memory=bad)
    with pytest.raises(ValueError, match="`working_memory`"):
        with es.config_context(working_memory=bad):
            pass  # pragma: no cover
    assert es.get_config()["working_memory"] == 1024


def test_a_context_in_one_thread_does_not_change_another():
    seen = {}
    started, release = threading.Event(), threading.Event()

    def other():
        started.wait()
        seen["other"] = es.get_config()["working_memory"]
        release.set()

    thread = threading.Thread(target=other)
    thread.start()
    with es.config_context(working_memory=3):
        started.set()
        release.wait()
    thread.join()
    assert seen["other"] == 1024


def test_budget_is_capped_by_available_memory(monkeypatch):
    monkeypatch.setattr(_config, "_available_bytes", lambda: 5 * 2**20)
    assert _config.memory_budget() == 5 * 2**20
    monkeypatch.setattr(_config, "_available_bytes", lambda: None)
    assert _config.memory_budget() == 1024 * 2**20


def test_memory_error_says_what_was_needed_and_what_to_set(monkeypatch):
    monkeypatch.setattr(_config, "_available_bytes", lambda: 2**40)
    with es.config_context(working_memory=2):
        err = _config.memory_error("the thing", 3.5 * 2**20, "a smaller `batch`")
    assert isinstance(err, MemoryError) and isinstance(err, es.WorkingMemoryError)
    message = str(err)
    assert "the thing needs 3.5 MiB" in message
    assert "working memory of 2.0 MiB" in message
    assert "set_config(working_memory=5)" in message
    assert "a smaller `batch`" in message


def test_kernel_matrix_past_the_budget_is_a_clear_memory_error():
    x = np.random.default_rng(0).normal(size=(600, 2))
    with es.config_context(working_memory=1):
        with pytest.raises(
            es.WorkingMemoryError,
            match=r"the 600 x 600 semimetric matrix needs 2\.7 MiB.*working_memory=4",
        ):
            es.kernel_matrix(x)
        with pytest.raises(es.WorkingMemoryError, match="the 600 x 600 semimetric matrix"):
            es.pairwise_semimetric(x)
    assert es.kernel_matrix(x).shape == (600, 600)


def test_a_budget_beyond_any_machine_is_the_available_memory():
    with es.config_context(working_memory=1e308):
        assert es.energy_distance([0.0, 1.0], [2.0, 3.0]) == 3.0


def test_small_requests_are_checked_against_the_configured_budget_alone(monkeypatch):
    """Requests up to SURE_BYTES skip the system's reading (its cost, not its answer, matters
    there), yet a configured working_memory below them still refuses them; larger ones ask."""
    calls = []
    monkeypatch.setattr(_config, "_available_bytes", lambda: calls.append(1) or 2**40)
    _config.check_fits("a small thing", _config.SURE_BYTES)
    assert calls == []
    with es.config_context(working_memory=1):
        with pytest.raises(es.WorkingMemoryError, match="a small thing needs 2.0 MiB"):
            _config.check_fits("a small thing", 2 * 2**20)
    monkeypatch.setattr(_config, "_available_bytes", lambda: calls.append(1) or 20 * 2**20)
    with pytest.raises(es.WorkingMemoryError, match="a large thing needs 32.0 MiB"):
        _config.check_fits("a large thing", 32 * 2**20)
    assert calls


def test_available_memory_is_the_kernels_line():
    """MemAvailable of /proc/meminfo, in bytes (None where there is no such file)."""
    try:
        with open("/proc/meminfo") as fh:
            line = next(line for line in fh if line.startswith("MemAvailable:"))
    except (OSError, StopIteration):
        assert _config._available_bytes() is None
        return
    reported = int(line.split()[1]) * 1024
    assert abs(_config._available_bytes() - reported) <= 64 * 2**20  # other processes allocate


def test_budget_of_a_sure_stake_reads_no_memory(monkeypatch):
    """memory_budget(stake): working_memory alone for a stake check_fits accepts unread (at
    most 16 MiB and the working memory), else capped by the available memory."""
    MiB = 2**20
    with es.config_context(working_memory=64):
        monkeypatch.setattr(_config, "_available_bytes", lambda: pytest.fail("read"))
        assert _config.memory_budget(16 * MiB) == 64 * MiB
        monkeypatch.setattr(_config, "_available_bytes", lambda: 40 * MiB)
        assert _config.memory_budget(16 * MiB + 1) == _config.memory_budget() == 40 * MiB
    with es.config_context(working_memory=8):
        assert _config.memory_budget(8 * MiB + 1) == 8 * MiB


def test_set_config_in_a_thread_changes_that_thread_only():
    """As scikit-learn's: set_config in a thread (a Thread, a pool's thread, joblib's threading
    backend, asyncio's) leaves every other thread's configuration as it was (issue 48, item 7),
    and the thread itself keeps its own."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    import joblib

    def set_and_read(mib):
        es.set_config(working_memory=mib)
        return es.get_config()["working_memory"]

    thread = threading.Thread(target=set_and_read, args=(7,))
    thread.start()
    thread.join()
    with ThreadPoolExecutor(2) as pool:
        assert pool.submit(set_and_read, 5).result() == 5
    assert joblib.Parallel(n_jobs=2, backend="threading")(
        joblib.delayed(set_and_read)(m) for m in (6, 9)) == [6, 9]
    assert asyncio.run(asyncio.to_thread(set_and_read, 8)) == 8
    assert es.get_config()["working_memory"] == 1024
