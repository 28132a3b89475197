"""Progress bars (energystats._progress): who is watching, which bar, one bar per call, none
for a single batch, none that flashes past in a short call."""

import io
import re
import sys
import types
import warnings

import numpy as np
import pytest
from scipy import stats
from tqdm import notebook as tqdm_notebook
from tqdm.std import tqdm as text_tqdm

import energystats as es
from energystats import _progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def person(monkeypatch):
    """Neither pytest nor CI nor the opt-out variable in sight; stderr a pipe (not a terminal).
    Applied when the test body starts, as pytest sets its variable and stderr at each phase."""

    def away():
        for name in ("PYTEST_CURRENT_TEST", "CI", _progress.ENV, "QT_API"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setattr(sys, "stderr", io.StringIO())
        return monkeypatch

    return away


def fake_kernel(monkeypatch, shell_name="ZMQInteractiveShell"):
    """Make this process look like a Jupyter kernel: ipykernel loaded, IPython's shell has one."""
    shell = type(shell_name, (), {"kernel": object()})()
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))


@pytest.fixture
def bars(monkeypatch):
    """Every bar drawn, recorded (tqdm's text bar, writing to a buffer)."""
    made = []

    class Recording(text_tqdm):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, file=io.StringIO(), **kwargs)
            made.append(self)

    monkeypatch.setattr(_progress, "_bar_class", lambda: Recording)
    return made


# --- who is watching ----------------------------------------------------------------------


def test_a_terminal_is_watched_a_pipe_or_file_is_not(person):
    person = person()
    assert not _progress.watching()  # a pipe
    person.setattr(sys, "stderr", Terminal())
    assert _progress.watching()
    person.setattr(sys, "stderr", None)  # pythonw, or a daemon with no stderr
    assert not _progress.watching()
    closed = io.StringIO()
    closed.close()
    person.setattr(sys, "stderr", closed)
    assert not _progress.watching()


def test_pytest_and_ci_are_not_watched_even_in_a_terminal(person):
    person = person()
    person.setattr(sys, "stderr", Terminal())
    person.setenv("PYTEST_CURRENT_TEST", "tests/infrastructure/test_progress.py::x (call)")
    assert not _progress.watching()
    person.delenv("PYTEST_CURRENT_TEST")
    person.setenv("CI", "true")
    assert not _progress.watching()
    person.setenv("CI", "0")  # CI=0 is no CI
    assert _progress.watching()


def test_a_worker_process_is_not_watched_even_in_a_terminal(person):
    person = person()
    person.setattr(sys, "stderr", Terminal())
    # a joblib (loky) worker
    person.setattr(_progress.multiprocessing, "parent_process", lambda: object())
    assert not _progress.watching()


@pytest.mark.slow  # starts worker processes
def test_a_worker_of_joblib_reports_it_is_not_watched():
    import joblib

    def probe():
        return _progress.multiprocessing.parent_process() is not None

    assert not probe()
    assert joblib.Parallel(n_jobs=2)(joblib.delayed(probe)() for _ in range(2)) == [True, True]


def test_a_jupyter_kernel_is_watched_though_stderr_is_no_terminal(person):
    person = person()
    fake_kernel(person)
    assert _progress.watching()


def test_ipython_without_a_kernel_is_judged_by_its_terminal(person):
    person = person()
    shell = type("TerminalInteractiveShell", (), {})()
    person.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    person.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    assert not _progress.watching()
    person.setattr(sys, "stderr", Terminal())
    assert _progress.watching()


@pytest.mark.parametrize(
    "value,expected", [("0", False), ("false", False), ("Off", False), ("1", True), (" yes ", True)]
)
def test_the_environment_variable_overrides_the_guess(person, value, expected):
    person = person()
    fake_kernel(person)  # watched ...
    person.setenv("PYTEST_CURRENT_TEST", "x")  # ... and not
    person.setenv(_progress.ENV, value)
    assert _progress.watching() is expected


def test_a_bad_environment_variable_is_named(person):
    person = person()
    person.setenv(_progress.ENV, "sometimes")
    with pytest.raises(
        ValueError,
        match="The environment variable ENERGYSTATS_PROGRESS must be 1 or 0.*got 'sometimes'",
    ):
        _progress.watching()


def test_check_progress():
    assert _progress.check_progress(None) is None
    assert _progress.check_progress(np.True_) is True
    assert _progress.check_progress(False) is False
    for bad in (1, "yes", 0.0):
        with pytest.raises(
            TypeError,
            match=r"`progress` must be True or False \(or None: when a person is watching\), got",
        ):
            _progress.check_progress(bad)


# --- which bar -------------------------------------------------------------------------------


def test_a_terminal_gets_the_text_bar(person):
    person = person()
    assert _progress._bar_class() is text_tqdm


def test_a_notebook_with_ipywidgets_gets_the_widget(person):
    person = person()
    fake_kernel(person)
    person.setattr(tqdm_notebook, "IProgress", object)  # as when ipywidgets imports
    assert _progress._bar_class() is tqdm_notebook.tqdm
    person.setenv("QT_API", "pyqt5")  # a Qt console draws no widgets
    assert _progress._bar_class() is text_tqdm


def test_a_notebook_without_ipywidgets_gets_the_text_bar_and_no_warning(person):
    person = person()
    fake_kernel(person)
    person.setattr(tqdm_notebook, "IProgress", None)  # as when ipywidgets is missing
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # tqdm.auto would warn "IProgress not found"
        assert _progress._bar_class() is text_tqdm
        assert list(_progress.progress_bar(range(3), 3, True, "draws")) == [0, 1, 2]
    assert "draws: 100%" in sys.stderr.getvalue()


# --- when a bar is drawn ---------------------------------------------------------------------


def test_no_bar_for_one_batch_or_when_switched_off(bars):
    items = [1, 2, 3]
    assert _progress.progress_bar(items, 1, True, "x") is items
    assert _progress.progress_bar(items, 3, False, "x") is items
    assert bars == []


def test_automatic_bars_wait_forced_bars_do_not(person, bars):
    person = person()
    items = [1, 2, 3]
    assert _progress.progress_bar(items, 3, None, "x") is items  # nobody watching (a pipe)
    person.setattr(sys, "stderr", Terminal())
    assert list(_progress.progress_bar(items, 3, None, "auto")) == items
    assert list(_progress.progress_bar(items, 3, True, "forced")) == items
    assert [(b.desc, b.delay, b.n) for b in bars] == [
        ("auto", _progress.DELAY, 3),
        ("forced", 0.0, 3),
    ]


def test_a_short_automatic_bar_prints_nothing(person):
    person = person()
    person.setattr(sys, "stderr", Terminal())
    assert list(_progress.progress_bar(range(5), 5, None, "quick")) == list(range(5))
    assert sys.stderr.getvalue() == ""  # ended before DELAY: the bar never appeared


# --- one bar per call ------------------------------------------------------------------------


def test_dcor_test_draws_no_bar_for_its_single_batch(rng, bars):
    x = rng.normal(size=30)
    es.dcor_test(x, x + rng.normal(size=30), rng=0, progress=True)
    assert bars == []


def test_energy_test_draws_one_bar_over_its_blocks(rng, bars):
    with es.config_context(working_memory=0.02):  # streamed, a few relabelings per product
        es.energy_test(rng.normal(size=(60, 2)), np.repeat([0, 1], 30), n_resamples=20, rng=0,
                       progress=True)
    assert [(b.desc, b.n == b.total) for b in bars] == [("permutations", True)]
    assert bars[0].total > 1


def test_energy_gof_draws_a_bar_over_samples_fitted_one_by_one_and_none_when_vectorised(rng, bars):
    x = rng.gamma(2.0, size=30)
    fit_each = lambda sample: stats.gamma.fit(sample, floc=0)  # noqa: E731 (a fit per sample)
    es.energy_gof(
        x, stats.gamma, known_params={"loc": 0}, fit=fit_each, n_resamples=99, rng=0, progress=True
    )
    assert [(b.desc, b.total, b.n) for b in bars] == [("samples", 99, 99)]  # one tick a sample
    # one vectorised batch
    es.energy_gof(x, stats.gamma, known_params={"loc": 0}, n_resamples=99, rng=0, progress=True)
    assert len(bars) == 1


def test_significant_clusters_draws_one_bar_not_one_per_node(rng, bars, monkeypatch):
    # were the nodes' cluster tests left at None, they would draw
    monkeypatch.setenv(_progress.ENV, "1")
    X = np.vstack([rng.normal(c, 1.0, size=(20, 2)) for c in ([0, 0], [8, 0], [0, 8])])
    res = es.significant_clusters(X, n_resamples=99, rng=1, progress=None)
    assert len(res.nodes) > 1  # several nodes were tested
    assert [(b.desc, b.total, b.n) for b in bars] == [("points in final clusters", 60, 60)]


@pytest.mark.parametrize("null", ["unimodal", "gaussian"])
def test_choose_k_draws_one_bar(rng, bars, monkeypatch, null):
    monkeypatch.setenv(_progress.ENV, "1")
    X = np.vstack([rng.normal(c, 1.0, size=(20, 2)) for c in ([0, 0], [9, 0])])
    es.choose_k(X, k_max=3, n_references=2, null=null, n_resamples=19, rng=0, progress=None)
    assert len(bars) == 1 and bars[0].desc.startswith("choose_k") and bars[0].n == bars[0].total


@pytest.mark.slow  # starts a Jupyter kernel
def test_a_real_kernel_without_ipywidgets_shows_a_text_bar_and_no_warning(tmp_path):
    """In a notebook executed by nbclient (nbconvert, papermill; this environment has no
    ipywidgets): progress=None shows nothing, so that the saved output holds no bar (issue 48,
    item 6: red stderr boxes); progress=True draws tqdm's text bar on stderr; nothing warns."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    if pytest.importorskip("importlib.util").find_spec("ipywidgets") is not None:
        pytest.skip("ipywidgets is installed")
    cells = [
        "import os, warnings\nfor k in ('PYTEST_CURRENT_TEST', 'CI', 'ENERGYSTATS_PROGRESS'):\n    "
        "os.environ.pop(k, None)\nwarnings.simplefilter('always')",
        "from energystats._progress import progress_bar, watching\nprint(watching())",
        "_ = list(progress_bar(range(4), 4, True, 'draws'))",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    watched = nb.cells[1].outputs
    assert [o.get("text") for o in watched] == ["False\n"]
    streams = nb.cells[2].outputs
    assert (
        [o.name for o in streams] == ["stderr"] * len(streams)
        and "draws: 100%" in "".join(o.text for o in streams)
    )
    assert "IProgress" not in str(nb.cells)


def test_a_live_notebook_kernel_is_watched():
    """A kernel whose requests allow input (JupyterLab, VS Code, Colab: someone is there)
    shows automatic bars; the same kernel asked without input (nbclient) does not."""
    manager = pytest.importorskip("jupyter_client.manager")
    pytest.importorskip("ipykernel")
    km, kc = manager.start_new_kernel(kernel_name="python3")
    code = ("import os\nfor k in ('PYTEST_CURRENT_TEST', 'CI', 'ENERGYSTATS_PROGRESS'):\n    "
            "os.environ.pop(k, None)\nfrom energystats._progress import watching\n"
            "print(watching())")
    seen = []
    try:
        for allow in (True, False):
            sent = kc.execute(code, allow_stdin=allow)
            while True:
                message = kc.get_iopub_msg(timeout=120)
                if message["parent_header"].get("msg_id") != sent:
                    continue
                if message["msg_type"] == "stream":
                    seen.append(message["content"]["text"].strip())
                if message["msg_type"] == "status" and message["content"]["execution_state"] == (
                        "idle"):
                    break
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert seen == ["True", "False"]


def test_a_call_of_minutes_says_so_before_it_starts(monkeypatch, capsys):
    """The probe's 1.3 million rows (issue 48, item 5): the exact test's time from the cost
    model, and what random projections would take, on stderr before anything is computed;
    nothing for a short call or with progress=False."""
    from energystats._homogeneity.permutation import _announce
    from energystats._semimetric import resolve_semimetric

    euclidean = resolve_semimetric("euclidean")
    _announce(np.zeros((1_300_000, 2)), euclidean, 3, 1000, None, True)
    err = capsys.readouterr().err
    assert re.fullmatch(
        r"energystats: energy_test of 1,300,000 points in 3 groups, 1,000 relabelings takes "
        r"about [\d.]+ h on one core \(an estimate from its sizes\); "
        r"approximation='projection' \(--projections on the command line\) estimates the "
        r"distances from 200 random directions, the test's level exact, in about \d+ min\.\n",
        err,
    ), err
    _announce(np.zeros((1_300_000, 1)), euclidean, 3, 1000, None, True)  # the line: a minute
    _announce(np.zeros((1_300_000, 2)), euclidean, 3, 1000, None, False)
    x = np.random.default_rng(0).normal(size=(30, 2))
    es.energy_test(x, np.arange(30) % 3, n_resamples=9, rng=0, progress=True)
    assert "energystats:" not in capsys.readouterr().err
    monkeypatch.setattr(_progress, "LONG", 0.0)
    es.energy_test(x, np.arange(30) % 3, n_resamples=9, rng=0, progress=True)
    assert capsys.readouterr().err.startswith(
        "energystats: energy_test of 30 points in 3 groups, 10 relabelings takes about 0 s")


def test_durations_read_as_a_person_reads_them():
    assert [_progress.duration(s) for s in (45, 89, 600, 5399, 12600, 172799, 4e5)] == [
        "45 s", "89 s", "10 min", "90 min", "3.5 h", "48 h", "5 days"]
