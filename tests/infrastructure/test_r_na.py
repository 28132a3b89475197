"""R's missing values, the same in every public function (issue 42, item 5): for each public
callable that takes data (found from the package's public names and the front door's
declarations, so that a new function is covered as soon as its arguments are), R's integer
``NA`` (through rpy2, and as reticulate hands it over: -2147483648), R's double ``NA`` and R's
character and factor ``NA`` (where an argument takes categories) are found: ``"raise"`` names
R's NA, ``"omit"`` gives the answer of the complete rows.

reticulate's calls are made as R makes them (:func:`from_r_session`): from a thread that C
starts, with no Python frame below the function, and reticulate's rpytools module loaded.
"""

import _thread
import dataclasses
import functools
import inspect
import itertools
import sys
import time
import types

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import energystats as es
from energystats._frontdoor import door_of

N = 24
#: The row given a missing value.
ROW = 3
R_NA = np.iinfo(np.int32).min
_gen = np.random.default_rng(42)
COLUMNS = ["a", "b", "c"]

#: Complete data for each data argument, by the name the door declares (integers, so that R's
#: integer NA has a place in them).
DATA = {
    "X": pd.DataFrame(_gen.integers(0, 40, size=(N, 3)) + np.repeat([0, 15, 30], N // 3)[:, None],
                      columns=COLUMNS),
    "x": _gen.integers(0, 30, size=N),
    "y": _gen.integers(0, 30, size=N),
    "z": _gen.integers(0, 30, size=N),
    "Y": _gen.integers(0, 40, size=(10, 3)),
    "labels": np.repeat(["lo", "mid", "hi"], N // 3),
    "sample_weight": _gen.uniform(0.5, 2.0, size=N),
    "x_weights": _gen.uniform(0.5, 2.0, size=N),
    "y_weights": _gen.uniform(0.5, 2.0, size=N),
}
_points = _gen.integers(0, 30, size=N)
DATA["D"] = np.abs(np.subtract.outer(_points, _points))
DATA["U"] = DATA["D"]
DATA["V"] = np.abs(np.subtract.outer(DATA["y"], DATA["y"]))

#: Arguments a call needs besides its data, and options that keep it cheap, by parameter name
#: (taken where the callable has the parameter).
OPTIONS = {"n_resamples": 19, "rng": 0, "n_references": 2, "k_max": 3, "n_init": 1}
#: Required arguments that are not data, by callable.
REQUIRED = {
    "cluster_test": {"n_clusters": 2},
    "thinned_cluster_comparison": {"n_clusters": 2, "cov": np.eye(3)},
    "energy_gof": {"dist": stats.norm},
    "energy_gof_statistic": {"dist": stats.norm()},
}
#: Estimators: how each is made (its methods are called on it).
ESTIMATORS = {"KGroups": lambda **kw: es.KGroups(2, random_state=0, **kw),
              "PowerKMeans": lambda **kw: es.PowerKMeans(2, random_state=0, **kw)}


def _callables() -> dict:
    """``{name: (callable or (estimator, method), door)}`` of every public callable with data."""
    out = {}
    for name in es.__all__:
        obj = getattr(es, name)
        if inspect.isfunction(obj) and door_of(obj) is not None and door_of(obj).data:
            out[name] = (obj, door_of(obj))
        if inspect.isclass(obj) and hasattr(obj, "fit"):
            for method in ("fit", "fit_predict", "predict"):
                if method in vars(obj) and door_of(vars(obj)[method]).data:
                    out[f"{name}.{method}"] = ((name, method), door_of(vars(obj)[method]))
    return out


CALLABLES = _callables()


def _samples(door) -> list[str]:
    """The data arguments a call passes: the declared ones that are required (weights and
    other optional arguments stay out), or the first."""
    names = [n for n in door.data if n == "*samples" or n in door.required]
    return names or door.data[:1]


def _call(name: str, values: dict, policy: str | None, names=()):
    """``(function, args, kwargs, result)``: the call of ``name`` on ``values`` (data by
    declared name; its required data arguments and ``names``) with ``nan_policy``, and what
    of its return value is compared."""
    target, door = CALLABLES[name]
    options = {k: v for k, v in OPTIONS.items() if k in door.keywords or k in door.forwarded}
    options.update(REQUIRED.get(name, {}))
    given = {} if policy is None or not door.takes_policy else {"nan_policy": policy}
    if isinstance(target, tuple):
        make = ESTIMATORS[target[0]]
        model = make(**given)
        if target[1] == "predict":
            model = make().fit(DATA["X"])  # fitted on complete data; nan_policy of predict's
            model.set_params(**given)
        fit = target[1] == "fit"
        return getattr(model, target[1]), (values["X"],), {}, (
            (lambda out: out.labels_) if fit else (lambda out: out))
    if "*samples" in door.data:
        return target, (values["x"], values["y"]), dict(options, **given), lambda out: out
    data = {n: values[n] for n in [*_samples(door), *names]}
    return target, (), dict(data, **options, **given), lambda out: out


def _run(name: str, values: dict, policy: str | None, names=(), session: bool = False):
    function, args, kwargs, result = _call(name, values, policy, names)
    if session:
        return result(from_r_session(function, *args, **kwargs))
    return result(function(*args, **kwargs))


def from_r_session(function, *args, **kwargs):
    """``function(*args, **kwargs)`` as R calls it through reticulate: from a thread started in
    C (``_thread``), so that no Python frame lies below it, with reticulate's module loaded.
    The thread runs C callables only (``list.extend`` of ``itertools.starmap``): a Python
    function there would be a Python frame."""
    results, errors = [], []
    hook, sys.unraisablehook = sys.unraisablehook, lambda report: errors.append(report.exc_value)
    sys.modules["rpytools"] = types.ModuleType("rpytools")
    try:
        call = functools.partial(function, **kwargs)
        _thread.start_new_thread(results.extend, (itertools.starmap(call, [args]),))
        deadline = time.monotonic() + 120
        while not results and not errors and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        del sys.modules["rpytools"]
        sys.unraisablehook = hook
    if errors:
        raise errors[0]
    assert results, "the call from the R session did not finish"
    return results[0]


def _with_na(name: str, value, kind: str):
    """``value`` (complete) with R's NA in row ROW, as ``kind`` hands it over: "reticulate"
    (int32 arrays, an int32 data frame, a list of ints: -2147483648; a list of strings:
    "NA"), "double" (NaN, as reticulate hands over R's double NA)."""
    if kind == "strings":
        out = [str(v) for v in value]
        out[ROW] = "NA"
        return out
    if isinstance(value, pd.DataFrame):
        out = value.astype(np.int32) if kind == "reticulate" else value.astype(float)
        out.iloc[ROW, 0] = R_NA if kind == "reticulate" else np.nan
        return out
    arr = np.array(value, dtype=np.int32 if kind == "reticulate" else float)
    arr[(ROW, 0) if arr.ndim == 2 else ROW] = R_NA if kind == "reticulate" else np.nan
    return arr.tolist() if arr.ndim == 1 and kind == "reticulate" else arr


def _complete(name: str, value):
    """``value`` without row ROW (a square matrix: without the point)."""
    keep = np.arange(len(value)) != ROW
    if isinstance(value, pd.DataFrame):
        return value.iloc[keep]
    if isinstance(value, list):
        return [v for i, v in enumerate(value) if keep[i]]
    arr = np.asarray(value)
    return arr[np.ix_(keep, keep)] if name in ("D", "U", "V") else arr[keep]


def _target(door) -> str:
    """The argument given a missing value: the first data argument."""
    first = _samples(door)[0]
    return "x" if first == "*samples" else first


def _text_target(door) -> str | None:
    """An argument that takes categories (labels, a variable of a test of independence)."""
    return next((n for n in door.columns if n in DATA), None)


def _rows_of(door, target: str) -> list[str]:
    """The arguments that lose row ROW with ``target``: its group of rows (paired data); of
    separate samples only the first."""
    if "*samples" in door.data:
        return ["x"]
    return [n for g in door.groups if target in g for n in g if n in DATA]


def assert_same(ours, theirs, where="result"):
    """The same answer to rounding, per-row outputs compared on the rows kept."""
    if isinstance(ours, (float, np.floating)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, err_msg=where)
    elif isinstance(ours, np.ndarray):
        if ours.shape != np.shape(theirs) and ours.shape[:1] == (N,):
            ours = ours[np.arange(N) != ROW]  # labels of every row, -1 where dropped
        if ours.dtype.kind == "f":
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, err_msg=where)
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=where)
    elif isinstance(ours, pd.DataFrame):
        pd.testing.assert_frame_equal(ours, theirs, rtol=1e-12, check_dtype=False, obj=where)
    elif dataclasses.is_dataclass(ours) and not isinstance(ours, type):
        for f in dataclasses.fields(ours):
            if f.name not in ("n_omitted", "data_name", "model"):
                assert_same(getattr(ours, f.name), getattr(theirs, f.name), f"{where}.{f.name}")
    elif isinstance(ours, (list, tuple)) and ours and not isinstance(ours[0], str):
        for a, b in zip(ours, theirs):
            assert_same(a, b, where)
    elif isinstance(ours, dict):
        for key in ours:
            assert_same(ours[key], theirs[key], f"{where}[{key!r}]")
    else:
        assert ours == theirs, where


def _cases(text: bool) -> list:
    out = []
    for name, (_, door) in CALLABLES.items():
        if text and _text_target(door) is None:
            continue
        for policy in ("raise", "omit") if door.takes_policy else ("raise",):
            out.append(pytest.param(name, policy, id=f"{name}-{policy}"))
    return out


def _expect(name: str, base: dict, target: str, value, policy: str, *, text: bool = False,
            session: bool = False, r_objects: bool = True):
    """Run the call with ``value`` (R's NA in row ROW) for ``target`` of the complete data
    ``base``, and check what ``policy`` says: ``"raise"`` names R's NA (and how reticulate
    hands it over where the call does not come from R), ``"omit"`` gives the answer of the
    complete rows."""
    door = CALLABLES[name][1]
    names = [target] if text else []
    with_na = dict(base, **{target: value})
    if policy == "raise":
        how = "" if session or r_objects else (
            ", which reticulate hands over as the integer -2147483648")
        hint = "pass nan_policy='omit'" if door.takes_policy else "drop those rows first"
        called = r"samples\[0\]" if "*samples" in door.data else target
        message = (
            rf"`{called}` contains missing values \(R's NA{how}\) in 1 of {N} row\(s\): {hint}"
        )
        with pytest.raises(ValueError, match=message):
            _run(name, with_na, policy, names, session)
        return
    complete = dict(base)
    for n in _rows_of(door, target):
        complete[n] = _complete(n, base[n])
    assert_same(
        _run(name, with_na, policy, names, session), _run(name, complete, None, names), name
    )


@pytest.mark.parametrize("name, policy", _cases(text=False))
def test_rs_integer_na_as_reticulate_hands_it_over(name, policy):
    target = _target(CALLABLES[name][1])
    value = _with_na(target, DATA[target], "reticulate")
    _expect(name, DATA, target, value, policy, r_objects=False)


@pytest.mark.parametrize("name, policy", _cases(text=False))
def test_rs_double_na_in_a_call_from_r(name, policy):
    target = _target(CALLABLES[name][1])
    _expect(name, DATA, target, _with_na(target, DATA[target], "double"), policy, session=True)


def _texts(target: str) -> dict:
    """The data with ``target`` as strings (R's character vector as reticulate hands it over)."""
    return dict(DATA, **{target: [str(v) for v in DATA[target]]})


@pytest.mark.parametrize("name, policy", _cases(text=True))
def test_rs_character_na_in_a_call_from_r(name, policy):
    target = _text_target(CALLABLES[name][1])
    base = _texts(target)
    value = _with_na(target, base[target], "strings")
    _expect(name, base, target, value, policy, text=True, session=True)


@pytest.mark.r
@pytest.mark.parametrize("kind", ["integer", "double"])
@pytest.mark.parametrize("name, policy", _cases(text=False))
def test_rs_na_through_rpy2(name, policy, kind):
    from energystats._rbridge import _load

    target = _target(CALLABLES[name][1])
    _expect(name, DATA, target, _rpy2(_load()[0], DATA[target], kind), policy)


@pytest.mark.r
@pytest.mark.parametrize("kind", ["character", "factor"])
@pytest.mark.parametrize("name, policy", _cases(text=True))
def test_rs_character_and_factor_na_through_rpy2(name, policy, kind):
    from energystats._rbridge import _load

    ro = _load()[0]
    target = _text_target(CALLABLES[name][1])
    base = _texts(target)
    strings = ro.StrVector(base[target])
    strings[ROW] = ro.NA_Character
    value = strings if kind == "character" else ro.r["factor"](strings)
    _expect(name, base, target, value, policy, text=True)


def _rpy2(ro, value, kind: str):
    """``value`` as an R object with R's NA (``NA_integer_`` or ``NA_real_``) in row ROW: a
    data frame for a table, a matrix, or a vector."""
    make = ro.IntVector if kind == "integer" else ro.FloatVector
    na = ro.NA_Integer if kind == "integer" else ro.NA_Real
    if isinstance(value, pd.DataFrame):
        columns = []
        for j, column in enumerate(value.columns):
            vector = make([int(v) if kind == "integer" else float(v) for v in value[column]])
            if j == 0:
                vector[ROW] = na
            columns.append((column, vector))
        return ro.DataFrame(dict(columns))
    arr = np.asarray(value)
    flat = make([int(v) if kind == "integer" else float(v) for v in arr.ravel(order="F")])
    flat[ROW] = na  # row ROW of the first column
    if arr.ndim == 1:
        return flat
    return ro.r["matrix"](flat, nrow=arr.shape[0])


def test_every_public_callable_with_data_is_covered():
    """The calls are built from the door's declarations: a callable whose required arguments
    the tables above do not give fails here (add them to REQUIRED)."""
    assert len(CALLABLES) >= 45
    for name, (_, door) in CALLABLES.items():
        missing = [n for n in door.required if n not in DATA and n != "self"
                   and n not in REQUIRED.get(name, {}) and n not in door.data]
        assert not missing, f"{name}: no value for {missing}"
        assert all(n in DATA or n == "*samples" for n in _samples(door)), name


def test_a_call_from_r_is_told_from_a_call_from_python():
    """The string "NA" is R's NA in a call from R, a label in Python (issue 42, item 4)."""
    v = np.arange(30.0) + np.repeat([0.0, 20.0, 0.0], 10)
    regions = np.repeat(["NA", "EU", "AS"], 10)
    python = es.dispersion(v, regions, nan_policy="omit")
    assert python.groups.tolist() == ["AS", "EU", "NA"] and python.n_omitted == 0
    from_r = from_r_session(es.dispersion, v, regions.tolist(), nan_policy="omit")
    assert from_r.groups.tolist() == ["AS", "EU"] and from_r.n_omitted == 10
    with pytest.raises(
        ValueError, match=r"`labels` contains missing values \(R's NA\) in 10 of 30"
    ):
        from_r_session(es.dispersion, v, regions.tolist())
    assert "rpytools" not in sys.modules


def test_a_call_from_r_is_one_with_no_python_caller_and_reticulate_loaded(monkeypatch):
    """called_from_r: reticulate's modules loaded and no Python code below the package's own
    frames (reticulate calls from C); a Python caller in an R session (py_run_string) is
    Python's."""
    from energystats._rbridge import called_from_r

    assert not called_from_r()
    assert from_r_session(called_from_r)
    monkeypatch.setitem(sys.modules, "rpytools", types.ModuleType("rpytools"))
    assert not called_from_r()  # this test's frame is Python code
    results = []
    _thread.start_new_thread(results.extend, (itertools.starmap(called_from_r, [()]),))
    deadline = time.monotonic() + 60
    while not results and time.monotonic() < deadline:
        time.sleep(0.01)
    assert results == [True]
    monkeypatch.delitem(sys.modules, "rpytools")
    results.clear()
    _thread.start_new_thread(results.extend, (itertools.starmap(called_from_r, [()]),))
    while not results and time.monotonic() < deadline:
        time.sleep(0.01)
    assert results == [False]  # no reticulate: another embedding of Python


def test_a_repeated_column_name_from_r_is_refused():
    """reticulate keeps the last of two columns named alike, under both names."""
    twice = pd.DataFrame([[1.0, 4.0], [2.0, 5.0], [3.0, 6.0], [4.0, 7.0]], columns=["a", "a"])
    message = (r"^`X` has the column name 'a' more than once: reticulate hands an R data frame "
               r"over by column name .* \(names\(X\) <- make\.unique\(names\(X\)\)\)")
    with pytest.raises(ValueError, match=message):
        from_r_session(es.energy_test, twice, [0, 0, 1, 1], n_resamples=9, rng=0)
    assert es.energy_test(twice, [0, 0, 1, 1], n_resamples=9, rng=0).statistic > 0  # Python's
