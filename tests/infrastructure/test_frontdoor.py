"""The front door (``_frontdoor.front_door``): every public callable wears it; it binds the
arguments once, names the function and the close match in argument errors, names the data
from pandas names and parameter names (never the caller's variables), takes column names
(also integers) for labels, writes the shared docstring entries a docstring lacks, and is
skipped on calls made inside another public call (not on a worker thread's)."""

import inspect
import re
import threading

import numpy as np
import pandas as pd
import pytest

import energystats as es
import energystats.datasets
import energystats.plotting
from energystats import _frontdoor
from energystats._frontdoor import door_of

ESTIMATOR_METHODS = ("fit", "fit_predict", "predict")


def _public() -> dict:
    """``{name: callable}``: the functions of ``energystats.__all__``, of
    ``energystats.plotting`` and ``energystats.datasets``, the estimators (their ``__init__``)
    and the estimators' own methods."""
    out = {}
    for name in es.__all__:
        obj = getattr(es, name)
        if inspect.isfunction(obj) or (inspect.isclass(obj) and hasattr(obj, "fit")):
            out[name] = obj
        if inspect.isclass(obj) and hasattr(obj, "fit"):
            out.update({f"{name}.{m}": vars(obj)[m] for m in ESTIMATOR_METHODS if m in vars(obj)})
    for module in (energystats.plotting, energystats.datasets):
        out.update({f"{module.__name__}.{n}": getattr(module, n) for n in module.__all__})
    return out


PUBLIC = _public()


def test_every_public_callable_wears_the_door():
    assert len(PUBLIC) > 60
    bare = [name for name, obj in PUBLIC.items() if door_of(obj) is None]
    assert not bare, f"public callables without the front door: {bare}"
    methods = {"KGroups.fit", "KGroups.predict", "PowerKMeans.fit", "PowerKMeans.predict"}
    assert methods <= PUBLIC.keys()
    for name in es.__all__:  # nothing else in __all__ is callable but result and error types
        obj = getattr(es, name)
        assert name in PUBLIC or inspect.ismodule(obj) or name.endswith(("Result", "Error")), name


def _keywords(obj) -> list[str]:
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [name for name, p in inspect.signature(obj).parameters.items()
            if p.kind in kinds and name not in ("self", "data_name")]


#: callables whose ``**options`` go to a function of their choosing, checked in their body
_OPEN = {"cluster_test", "significant_clusters", "thinned_cluster_comparison",
         "energystats.plotting.plot_dendrogram"}
MISSPELT = [pytest.param(name, id=name) for name, obj in PUBLIC.items()
            if name not in _OPEN and _keywords(obj)]


@pytest.mark.parametrize("name", MISSPELT)
def test_an_unknown_keyword_names_the_function_and_the_close_match(name):
    """Each public callable, its longest parameter misspelt (one letter too many)."""
    obj = PUBLIC[name]
    right = max(_keywords(obj), key=len)
    wrong = right + "s"
    where = obj.__qualname__.removesuffix(".__init__")
    target = obj
    if not inspect.isclass(obj) and obj.__name__ in ESTIMATOR_METHODS:  # a method: on an estimator
        target = getattr(getattr(es, obj.__qualname__.split(".")[0])(2), obj.__name__)
    message = (rf"^{re.escape(where)}\(\) got an unexpected keyword argument '{wrong}'; "
               rf"did you mean '{right}'\?$")
    with pytest.raises(TypeError, match=message):
        target(**{wrong: 1})


UNEXPECTED = r"^{}\(\) got an unexpected keyword argument '{}'; did you mean '{}'\?$"


def test_argument_errors_name_the_function():
    x = np.arange(8.0)
    message = UNEXPECTED.format("energy_test", "nresamples", "n_resamples")
    with pytest.raises(TypeError, match=message):
        es.energy_test(x, x % 2, nresamples=9)
    with pytest.raises(TypeError, match=r"^energy_test\(\) got an unexpected keyword argument 'q'"):
        es.energy_test(x, x % 2, q=9)  # nothing close: no guess
    assert "did you mean" not in str(pytest.raises(TypeError, es.energy_test, x, x % 2, q=9).value)
    with pytest.raises(TypeError, match=r"^energy_test\(\) missing a required argument: 'labels'$"):
        es.energy_test(x)
    with pytest.raises(TypeError, match=r"^dcov\(\) too many positional arguments$"):
        es.dcov(x, x, 1.0)
    with pytest.raises(TypeError, match=r"^dcov\(\) multiple values for argument 'y'$"):
        es.dcov(x, x, y=x)
    # options passed on to energy_test: its keyword-only parameters, and the close match among them
    message = UNEXPECTED.format("pairwise_energy_tests", "nresamples", "n_resamples")
    with pytest.raises(TypeError, match=message):
        es.pairwise_energy_tests(x, x % 2, nresamples=9)
    message = UNEXPECTED.format("energy_test_samples", "exponnent", "exponent")
    with pytest.raises(TypeError, match=message):
        es.energy_test_samples(x, x, exponnent=0.5)
    message = UNEXPECTED.format(r"KGroups\.fit", "sample_weights", "sample_weight")
    with pytest.raises(TypeError, match=message):
        es.KGroups(2).fit(x[:, None], sample_weights=x)
    with pytest.raises(TypeError, match=r"^`data_name` must be a string or None, got int\.$"):
        es.dcor_test(x, x, data_name=1)


def _entries(monkeypatch) -> list:
    entered = []
    enter = _frontdoor._Door.enter

    def counting(door, args, kwargs):
        entered.append(door.where)
        return enter(door, args, kwargs)

    monkeypatch.setattr(_frontdoor._Door, "enter", counting)
    return entered


def test_a_public_call_inside_another_runs_directly(monkeypatch):
    """thinned_cluster_comparison fits KGroups and calls energy_test and
    pairwise_energy_tests; energy_test_samples calls energy_test: one door each."""
    X = np.random.default_rng(0).normal(size=(20, 2)) + np.repeat([[0.0], [4.0]], 10, axis=0)
    entered = _entries(monkeypatch)
    es.thinned_cluster_comparison(X, 2, cov=np.eye(2), n_resamples=9, rng=0)
    es.energy_test_samples(X[:10], X[10:], n_resamples=9, rng=0)
    assert entered == ["thinned_cluster_comparison()", "energy_test_samples()"]


def test_a_worker_thread_goes_through_the_door_again():
    """The flag is per thread: a public call made on another thread while a public call runs
    gets the door (its message names the close match); the same call on the calling thread
    runs directly (Python's own message)."""
    seen = {}

    def misspelt(where):
        try:
            es.dcov(np.arange(5.0), np.arange(5.0), nan_polic="omit")
        except TypeError as exc:
            seen[where] = str(exc)

    def metric(a, b):  # runs inside dispersion's call
        if not seen:
            misspelt("inside")
            worker = threading.Thread(target=misspelt, args=("thread",))
            worker.start()
            worker.join()
        return np.abs(a[:, None, 0] - b[None, :, 0])

    es.dispersion(np.arange(6.0), [0, 0, 0, 1, 1, 1], metric=metric)
    assert seen["thread"].endswith("did you mean 'nan_policy'?")
    assert "did you mean" not in seen["inside"]


def test_data_name_comes_from_pandas_and_parameter_names_or_the_caller():
    x = np.arange(10.0)
    y = x  # the caller's variables are never read: "y" is not the name of anything here
    labels = np.arange(10) % 2
    assert es.energy_test(y, labels, n_resamples=9, rng=0).data_name == "X by labels"
    frame = pd.DataFrame({"mag": x, "depth": x**2, "site": labels})
    assert es.energy_test(frame, "site", n_resamples=9, rng=0).data_name == "[mag, depth] by site"
    paired = es.dcor_test(frame["mag"], frame["depth"], n_resamples=9, rng=0)
    assert paired.data_name == "mag and depth"
    res = es.dcor_test(x, y, n_resamples=9, rng=0, data_name="quakes$mag and quakes$depth")
    assert res.data_name == "quakes$mag and quakes$depth"
    for name, obj in PUBLIC.items():
        door = door_of(obj)
        assert ("data_name" in inspect.signature(obj).parameters) == bool(door.names), name


def test_integer_column_names_are_labels():
    """A data frame whose columns are numbered takes the number as a column name (issue 42,
    item 15); elsewhere an integer is no column name and the function refuses a scalar."""
    gen = np.random.default_rng(1)
    values = np.c_[gen.normal(size=(12, 2)), np.repeat([0, 1, 2], 4)]
    values[8:, 0] += 3.0
    frame = pd.DataFrame(values)  # columns 0, 1, 2
    by_number = es.energy_test(frame, 2, n_resamples=19, rng=0)
    by_value = es.energy_test(frame[[0, 1]], frame[2], n_resamples=19, rng=0)
    assert (by_number.statistic, by_number.pvalue) == (by_value.statistic, by_value.pvalue)
    assert by_number.data_name == "[0, 1] by 2"
    assert es.dcor(frame, np.int64(1)) == es.dcor(frame[[0, 2]], frame[1])
    with pytest.raises(ValueError, match=r"^`labels`=5 is not a column of `X` \(its columns: 0, 1"):
        es.energy_test(frame, 5)
    with pytest.raises(ValueError, match=r"`labels` must be one-dimensional"):
        es.energy_test(values, 2)  # no data frame: a number, not a column
    with pytest.raises(ValueError, match=r"`labels` must be one-dimensional"):
        es.energy_test(pd.DataFrame(values, columns=list("abc")), 2)  # named columns: a number


def test_numpy_arrays_take_the_short_path(monkeypatch):
    """Arrays of numbers without NaN are neither read nor searched for missing values."""
    from energystats import _frontdoor as door
    from energystats import _missing

    def refuse(*args, **kwargs):
        raise AssertionError("the full path was taken")

    monkeypatch.setattr(door, "drop_missing", refuse)
    monkeypatch.setattr(_missing, "read_arguments", refuse)
    x = np.random.default_rng(0).normal(size=(20, 3))
    assert es.energy_distance(x, x + 1) > 0 and es.dcov(x, x) > 0
    assert es.energy_test(x, np.arange(20) % 2, n_resamples=9, rng=0).data_name == "X by labels"
    assert es.KGroups(2, random_state=0).fit(x).n_omitted_ == 0
    x[3, 0] = np.nan
    with pytest.raises(AssertionError, match="full path"):
        es.dcov(x, x)  # NaN: the full path


SHARED = ("nan_policy", "rng", "data_name")


@pytest.mark.parametrize("name", [n for n, obj in PUBLIC.items() if inspect.isfunction(obj)
                                  and obj.__name__ not in ESTIMATOR_METHODS])
def test_the_shared_docstring_entries_are_written(name):
    obj = PUBLIC[name]
    doc = obj.__doc__ or ""
    for parameter in SHARED:
        if parameter in inspect.signature(obj).parameters:
            assert re.search(rf"^\s+{parameter} : \S", doc, re.M), f"{name}: no `{parameter}` entry"
    if "data_name" in inspect.signature(obj).parameters:
        assert "else the parameter names" in doc
