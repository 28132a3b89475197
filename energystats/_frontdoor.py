"""The front door: one decorator, :func:`front_door`, on every public function and estimator
method (as scikit-learn's ``validate_params`` and scipy's ``_axis_nan_policy``), declaring once
what the arguments are. A call made while no other public call runs on its thread (nested calls
run directly) is bound once (an unknown keyword is a ``TypeError`` naming the function and the
close match, or this package's name for a foreign one, :data:`FOREIGN_NAMES`; from R a whole
float is an int for an option whose default is not a float); its data are read once
(:mod:`._missing`: other libraries' data, R objects, pandas indexes, ``nan_policy``;
:mod:`._datanames`: columns by name, ``data_name``); a number becomes NaN under "propagate"
when rows were missing, a result gets ``data_name``, ``n_omitted`` and per-row ``labels`` on
every row passed. Numpy arrays of numbers without NaN take a short path.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import inspect
import threading
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd

from . import _datanames, _missing
from ._missing import drop_missing, expand_labels, is_matrix
from ._rbridge import called_from_r, is_r_object
from ._results import ResultMixin

__all__ = ["ALL_ROWS", "FOREIGN_NAMES", "Rows", "door_of", "front_door"]

#: Names from R, scipy or scikit-learn that this package spells otherwise: ``{name: (this
#: package's names for it, in order of preference)}``; and what each right name means.
FOREIGN_NAMES = {
    "random_state": ("rng",), "rng": ("random_state",), "seed": ("rng", "random_state"),
    "n_permutations": ("n_resamples",), "R": ("n_resamples",), "B": ("n_resamples",),
    "level": ("alpha",), "index": ("exponent",), "test": ("statistic",),
}
_RIGHT_NAMES = {
    "rng": "functions take `rng` (an int seed, a numpy Generator or None), estimators "
    "`random_state`",
    "random_state": "estimators take `random_state` as scikit-learn's do (an int seed, a numpy "
    "Generator or None); functions take `rng`",
    "n_resamples": "the number of resamples (permutations, bootstrap or Monte Carlo samples)",
    "alpha": "the level of the tests", "exponent": "the exponent of the Euclidean distances, R's "
    "`index`", "statistic": "the statistic (or statistics) the test computes",
}
@dataclass(frozen=True)
class Rows:
    """What the door kept of the rows of an estimator's ``fit`` (``self._rows`` while it runs):
    ``kept`` (None: every row) and ``values``, the per-row parameters on the kept rows."""

    kept: np.ndarray | None = None
    values: dict = field(default_factory=dict)


#: Every row kept: a fit called without the door (inside another public call).
ALL_ROWS = Rows()


class _State(threading.local):
    inside = False


_STATE = _State()


def _plain(value) -> bool:
    """None, or a numpy array of floats without NaN (then its minimum is not NaN) or of
    integers other than int32 (R's NA): nothing to read or drop."""
    if type(value) is not np.ndarray:
        return value is None
    if value.dtype.kind == "f":
        low = value.min() if value.size else 0.0
        return low == low
    return value.dtype.kind in "iub" and value.dtype != np.int32


def door_of(obj):
    """The front door a public callable wears (a class: its ``__init__``'s), or None."""
    return getattr(obj.__init__ if inspect.isclass(obj) else obj, "__front_door__", None)


def front_door(*rows: str | tuple[str, ...], distances: tuple[str, ...] = (),
               columns: tuple[str, ...] = (), names: tuple[str, ...] = (), by: str | None = None,
               propagate: bool = False, prepare: dict | None = None,
               forwards: Callable | None = None, tables: bool = True,
               indexes: dict | None = None, fits: bool = False) -> Callable:
    """The front door of a public function or estimator method (see the module's docstring)::

        @front_door(("X", "labels"), distances=("X",), columns=("labels",), names=("X",),
                    by="labels")
        def energy_test(X, labels, *, ..., metric="euclidean", ..., nan_policy="raise"): ...

    Parameters
    ----------
    *rows : str or tuple of str
        Groups of data arguments whose rows belong together (paired ``("x", "y")``; separate
        samples are separate groups; ``"*samples"`` a var-positional), read as R objects and
        losing their missing rows together. In a method, a name that is no parameter is the
        estimator's attribute of per-row values (found in ``self._rows.values``).
    distances : tuple of str
        The data arguments that may hold distances, in the order of a tuple ``metric``.
    columns : tuple of str
        Arguments that may name a column of the data frame of the first data argument.
    names, by : tuple of str, str
        The result's ``data_name`` ("x and y", "X by labels"); the keyword ``data_name``.
    propagate : bool
        The function returns a number: ``nan_policy="propagate"`` returns NaN.
    prepare : dict
        ``{name: function}`` applied to a data argument once read and named, its further
        parameters the call's arguments of those names (a method: an estimator's method name).
    forwards : callable
        The function ``**options`` go to: its keyword-only parameters are taken.
    tables : bool
        ``X`` gets the orientation check (more columns than rows warns).
    indexes : dict
        ``{name: function}``: an argument indexing the rows; given, "omit" is refused, and
        under "propagate" with rows missing the call returns ``function(arguments, n_rows)``.
    fits : bool
        An estimator's ``fit``: it sets ``n_omitted_``, ``labels_`` -1 on the rows dropped.

    Returns
    -------
    callable
        The decorator.
    """

    def decorate(func: Callable) -> Callable:
        door = _Door(func, rows, distances, columns, names, by, propagate, prepare or {},
                     forwards, tables, indexes or {}, fits)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if _STATE.inside:
                if door.names:  # the door's keyword, not the function's
                    kwargs.pop("data_name", None)
                return func(*args, **kwargs)
            _STATE.inside = True
            try:
                return door.enter(args, kwargs)
            finally:
                _STATE.inside = False

        wrapper.__front_door__ = door
        if door.names:
            params = list(door.signature.parameters.values())
            at = len(params) - (params[-1].kind is inspect.Parameter.VAR_KEYWORD)
            wrapper.__signature__ = door.signature.replace(parameters=params[:at] + [
                inspect.Parameter("data_name", inspect.Parameter.KEYWORD_ONLY, default=None,
                                  annotation="str | None")] + params[at:])
        return wrapper

    return decorate


class _Door:
    """One declaration, read once; :meth:`enter` runs a call through the door's steps."""

    def __init__(self, func, rows, distances, columns, names, by, propagate, prepare, forwards,
                 tables, indexes, fits):
        kinds, signature = inspect.Parameter, inspect.signature(func)
        params, own = list(signature.parameters.values()), set(signature.parameters)
        self.func, self.signature, self.names, self.by = func, signature, tuple(names), by
        self.method = bool(params) and params[0].name == "self"
        self.where = f"{func.__qualname__.removesuffix('.__init__')}()"
        kind = {p.name: p.kind for p in params}
        self.positional = [n for n, k in kind.items() if k <= kinds.POSITIONAL_OR_KEYWORD]
        self.position = {name: i for i, name in enumerate(self.positional)}
        self.keyword_only = [n for n, k in kind.items() if k is kinds.KEYWORD_ONLY]
        self.var_positional = next((n for n, k in kind.items() if k is kinds.VAR_POSITIONAL), None)
        self.var_keyword = next((n for n, k in kind.items() if k is kinds.VAR_KEYWORD), None)
        self.keywords = {n for n, k in kind.items() if k in (kinds.POSITIONAL_OR_KEYWORD,
                                                             kinds.KEYWORD_ONLY)}
        self.keywords |= {"data_name"} if self.names else set()
        self.defaults = {p.name: p.default for p in params if p.default is not kinds.empty}
        self.defaults.update({"data_name": None} if self.names else {})
        self.required = [p.name for p in params if p.default is kinds.empty
                         and p.kind not in (kinds.VAR_POSITIONAL, kinds.VAR_KEYWORD)]
        forwarded = inspect.signature(inspect.unwrap(forwards)).parameters if forwards else {}
        self.forwarded = {p.name: p.default for p in forwarded.values()
                          if p.kind is kinds.KEYWORD_ONLY}
        taken = self.keywords | set(self.forwarded)
        self.foreign = {wrong: next(n for n in rights if n in taken)
                        for wrong, rights in FOREIGN_NAMES.items()
                        if wrong not in own and any(n in taken for n in rights)}
        self.candidates = sorted(taken - {"self"})
        self.groups = [(group,) if isinstance(group, str) else tuple(group) for group in rows]
        self.attributes = {n for g in self.groups for n in g if self.method and n not in own}
        self.data = [n for g in self.groups for n in g if n not in self.attributes]
        self.plain = [n for n in self.data if n != "*samples"]
        self.distances, self.columns, self.propagate = tuple(distances), tuple(columns), propagate
        self.prepare, self.tables, self.indexes, self.fits = prepare, tables, indexes, fits
        self.prepare_takes = {name: list(inspect.signature(f).parameters)[1:]
                              for name, f in prepare.items() if not isinstance(f, str)}
        self.takes_policy = bool(self.groups) and ("nan_policy" in own or self.method)
        self.takes_metric = "metric" in own or "metric" in self.forwarded
        self.fast = bool(self.groups) and "*samples" not in self.data
        for name in (*self.plain, *self.distances, *self.columns, *self.names, *self.indexes):
            if name != "*samples" and name not in own:
                raise TypeError(f"{self.where} has no parameter {name!r}.")  # pragma: no cover

    def bind(self, args: tuple, kwargs: dict) -> dict:
        """The arguments by name, defaults filled; binding errors name the function."""
        arguments, count = dict(self.defaults), len(args)
        arguments.update(zip(self.positional, args))
        if count > len(self.positional) and self.var_positional is None:
            self._bind_error(args, kwargs)
        if self.var_positional is not None:
            arguments[self.var_positional] = args[len(self.positional):]
        options = {}
        for key, value in kwargs.items():
            if key in self.keywords:
                if self.position.get(key, count) < count:
                    self._bind_error(args, kwargs)
                arguments[key] = value
            elif key in self.foreign:
                right = self.foreign[key]
                raise TypeError(f"{self.where} takes `{right}`, not `{key}`: "
                                f"{_RIGHT_NAMES[right]}.")
            elif self.var_keyword is not None and (not self.forwarded or key in self.forwarded):
                options[key] = value
            else:
                close = difflib.get_close_matches(key, self.candidates, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise TypeError(f"{self.where} got an unexpected keyword argument {key!r}{hint}")
        if self.var_keyword is not None:
            arguments[self.var_keyword] = options
        if any(name not in arguments for name in self.required):
            self._bind_error(args, kwargs)
        return arguments

    def _bind_error(self, args: tuple, kwargs: dict):
        try:  # Python's own message, naming the function
            self.signature.bind(*args, **{k: v for k, v in kwargs.items() if k != "data_name"})
        except TypeError as exc:
            raise TypeError(f"{self.where} {exc}") from None
        raise AssertionError("the door's binding disagrees with the signature")  # pragma: no cover

    def call(self, arguments: dict):
        args = [arguments[name] for name in self.positional]
        args += arguments[self.var_positional] if self.var_positional is not None else ()
        kwargs = {name: arguments[name] for name in self.keyword_only}
        kwargs.update(arguments[self.var_keyword] if self.var_keyword is not None else {})
        return self.func(*args, **kwargs)

    def enter(self, args: tuple, kwargs: dict):
        arguments = self.bind(args, kwargs)
        if called_from_r():  # R's 3 is reticulate's 3.0: an int for an option not a float
            options = arguments.get(self.var_keyword, {}) if self.var_keyword else {}
            for values, defaults in ((arguments, self.defaults), (options, self.forwarded)):
                for name, value in values.items():
                    if type(value) is float and value.is_integer() and name not in self.data and (
                            not isinstance(defaults.get(name), float)):
                        values[name] = int(value)
        label = arguments.pop("data_name") if self.names else None
        if label is not None and not isinstance(label, str):
            raise TypeError(f"`data_name` must be a string or None, got {type(label).__name__}.")
        if not self.groups:
            return self.finish(self.call(arguments), self.named(arguments, label), 0, None)
        owner = arguments["self"] if self.method else None
        if self.fast and all(_plain(arguments[name]) for name in self.plain) and all(
                isinstance(getattr(owner, n), str) or _plain(getattr(owner, n))
                for n in self.attributes):
            return self.short(arguments, owner, label)
        return self.full(arguments, owner, label)

    def option(self, arguments: dict, name: str, default=None):
        """An argument of the function's own or of those ``**options`` pass on."""
        if name in arguments or name not in self.forwarded:
            return arguments.get(name, default)
        return arguments[self.var_keyword].get(name, self.forwarded[name])

    def matrix(self, name: str, metric) -> bool:
        """Whether the data argument ``name`` holds a precomputed matrix."""
        return name in self.distances and is_matrix(metric, self.distances.index(name))

    def policy(self, arguments: dict, owner) -> tuple[str, list]:
        """The checked ``nan_policy`` and the arguments of ``indexes`` given ("omit" refused)."""
        policy = _missing.check_nan_policy(owner.nan_policy, propagate=False, where=type(
            owner).__name__) if owner is not None else _missing.check_nan_policy(
            arguments["nan_policy"], propagate=self.propagate, where=self.where)
        given = [n for n in self.indexes if arguments.get(n) is not None]
        if given and policy == "omit":
            raise ValueError(
                f"`nan_policy`='omit' cannot be combined with `{given[0]}`, which index the rows "
                f"of `{self.data[0]}`: drop the rows with missing values before drawing the "
                f"{given[0]}.")
        return policy, given

    def named(self, arguments: dict, label):
        """The result's ``data_name``, from the data as given (before ``prepare``)."""
        if self.names:
            return label or _datanames.data_name_of(arguments, self.names, self.by)

    def preparations(self, owner, arguments: dict) -> dict:
        """``prepare``'s functions (given the arguments they take; a method by its name)."""
        return {name: getattr(owner, f) if isinstance(f, str) else functools.partial(
            f, **{p: arguments[p] for p in self.prepare_takes[name]})
            if self.prepare_takes[name] else f for name, f in self.prepare.items()}

    def apart(self, arguments: dict, metric, skip=(), from_r: bool = False) -> None:
        """Say so when an argument of ``columns`` is a column left in the data, except where
        the data or it hold distances (:func:`~._datanames.check_columns_left_in`)."""
        if not self.matrix(self.data[0], metric):
            _datanames.check_columns_left_in(arguments, self.data[0], [
                n for n in self.columns if n not in skip and not self.matrix(n, metric)],
                self.where, from_r=from_r)

    def short(self, arguments: dict, owner, label):
        """Arrays of numbers without NaN: nothing to read or drop."""
        if self.takes_policy:
            self.policy(arguments, owner)
        metric = getattr(owner, "metric", None) if owner is not None else self.option(
            arguments, "metric")
        if self.tables and "X" in self.plain and not self.matrix("X", metric):
            _missing.warn_if_transposed(arguments["X"], "X")
        name = self.named(arguments, label)
        for key, function in self.preparations(owner, arguments).items():
            arguments[key] = function(arguments[key])
        if self.columns:
            self.apart(arguments, metric)
        if owner is not None and self.fits:
            return self.fitted(arguments, owner, ALL_ROWS, 0)
        return self.finish(self.call(arguments), name, 0, None)

    def full(self, arguments: dict, owner, label):
        """Data of other libraries, R objects, pandas indexes and missing values."""
        r_session = called_from_r()
        samples = [f"samples[{i}]" for i in range(len(arguments["samples"]))] if (
            "*samples" in self.data) else []
        for name in self.plain:  # polars, xarray, dicts of columns: numpy or pandas
            arguments[name] = _missing.as_python(arguments.get(name), name, r_session)
        if samples:
            arguments["samples"] = tuple(_missing.as_python(value, name, r_session)
                                         for value, name in zip(arguments["samples"], samples))
        # data from R: rpy2's objects, or every argument of a call made from R (reticulate)
        values = [arguments.get(n) for n in self.plain] + list(arguments.get("samples", ()))[
            :len(samples)]
        from_r = {n for n, v in zip(self.plain + samples, values) if r_session or is_r_object(v)}
        if r_session:
            _datanames.refuse_repeated_names(arguments, self.plain)
        resolved = _datanames.by_column_name(arguments, self.data[0], self.columns) if (
            self.columns) else []
        if self.data[0] in from_r:
            from_r.update(resolved)
        name = self.named(arguments, label)
        metric = getattr(owner, "metric", None) if owner is not None else self.option(
            arguments, "metric")
        where = f"{type(owner).__name__}.{self.func.__name__}()" if owner is not None else (
            self.where)
        metric = _missing.read_arguments(
            arguments, self.data, self.distances, where, self.preparations(owner, arguments),
            metric=metric, takes_metric=self.takes_metric or owner is not None,
            exponent=self.option(arguments, "exponent", 1.0), tables=self.tables,
            fixed=owner is not None)
        if owner is None and self.takes_metric:
            if "metric" in arguments:
                arguments["metric"] = metric
            elif metric != self.forwarded["metric"] or "metric" in arguments[self.var_keyword]:
                arguments[self.var_keyword]["metric"] = metric
        if not self.takes_policy:  # missing values found all the same, each argument alone
            for n in self.plain:
                drop_missing("raise", {n: arguments.get(n)}, [n] * self.matrix(n, metric), from_r,
                             na_strings=r_session, hint=f"drop those rows first ({self.where} "
                             "takes no nan_policy).")
            return self.finish(self.call(arguments), name, 0, None)
        policy, given = self.policy(arguments, owner)
        # "propagate" computes the statistic of the complete rows (so that every other
        # argument is checked: NaN is the answer only to a valid call) and returns NaN
        propagating, policy = policy == "propagate", "omit" if policy == "propagate" else policy
        found, omitted, layout, values = False, 0, None, {}
        for group in self.groups:
            if group == ("*samples",):
                kept = [drop_missing(policy, {s: v}, (), from_r, na_strings=r_session)
                        for s, v in zip(samples, arguments["samples"])]
                arguments["samples"] = tuple(k[s] for (k, _), s in zip(kept, samples))
                omitted += sum(int((~keep).sum()) for _, keep in kept if keep is not None)
                found = found or any(keep is not None for _, keep in kept)
                continue
            matrices = [n for n in group if self.matrix(n, metric)]
            members = {n: getattr(owner, n) if n in self.attributes else arguments.get(n)
                       for n in group}
            members = {n: None if isinstance(v, str) else v for n, v in members.items()}
            if not r_session:  # R pairs by position: a data frame's row names are not labels
                members = _missing.align_rows(members, matrices)
            if given and propagating:
                _, keep = drop_missing("propagate", members, matrices, from_r,
                                       na_strings=r_session)
                if keep is not None:
                    return self.indexes[given[0]](arguments, keep.shape[0])
            kept, keep = drop_missing(policy, members, matrices, from_r, na_strings=r_session)
            for n in group:
                if n in self.attributes and members[n] is not None:
                    values[n] = kept[n]
                elif n in arguments:
                    arguments[n] = kept[n]
            if keep is not None:
                found, omitted = True, omitted + int((~keep).sum())
                layout = keep if len(self.groups) == 1 else None
        if self.columns:
            self.apart(arguments, metric, resolved, r_session)
        if owner is not None and self.fits:
            return self.fitted(arguments, owner, Rows(layout, values), omitted)
        result = self.call(arguments)
        if propagating and found:
            return np.nan
        if owner is not None and layout is not None and isinstance(result, np.ndarray):
            return expand_labels(result, layout)  # predict: one label per row passed
        return self.finish(result, name, omitted, layout)

    def fitted(self, arguments: dict, owner, rows: Rows, omitted: int):
        """An estimator's ``fit`` run with ``self._rows``; then ``n_omitted_``, and ``labels_``
        (and the labels ``fit_predict`` returns) on every row passed."""
        owner._rows = rows
        try:
            result = self.call(arguments)
        finally:
            del owner._rows
        owner.n_omitted_ = omitted
        if rows.kept is not None:
            owner.labels_ = expand_labels(owner.labels_, rows.kept)
            result = expand_labels(result, rows.kept) if isinstance(result, np.ndarray) else result
        return result

    def finish(self, result, name, omitted: int, keep):
        """``n_omitted`` and per-row ``labels`` on every row passed; ``data_name``."""
        if omitted and isinstance(result, pd.DataFrame):
            result.attrs["n_omitted"] = omitted  # a table made by this call
        if not isinstance(result, ResultMixin):
            return result
        changes = {"n_omitted": omitted} if omitted else {}
        labels = getattr(result, "labels", None)
        if omitted and keep is not None and isinstance(labels, np.ndarray) and (
                labels.shape == (int(keep.sum()),)):
            changes["labels"] = expand_labels(labels, keep)
        if name is not None:
            changes["data_name"] = name
        return dataclasses.replace(result, **changes) if changes else result

