"""The front door: one decorator, :func:`front_door`, on every public function and estimator
method, as scikit-learn's ``validate_params`` and scipy's ``_axis_nan_policy`` are on theirs.
Each public callable declares once (checked and precomputed at import) what its arguments are::

    @front_door(("X", "labels"), distances=("X",), columns=("labels",), names=("X",), by="labels")
    def energy_test(X, labels, *, ..., metric="euclidean", ..., nan_policy="raise"): ...

says: the rows of ``X`` and ``labels`` belong together; ``X`` may hold distances (an R
``dist`` object makes ``metric`` "precomputed"); ``labels`` may name a column of the data frame
``X``; the result's ``data_name`` is "X by labels" in the words of the data. A call goes
through these steps, once:

1. a call made while another public call runs on the same thread (``choose_k`` calling
   ``cluster_test``) runs directly: the outer call has done all this (scikit-learn's
   ``prefer_skip_nested_validation``); a worker thread's calls go through the door again;
2. the arguments are bound once; a keyword the function does not take is a ``TypeError``
   naming the function and the close match, or the package's name for a foreign one
   (:data:`FOREIGN_NAMES`: ``random_state`` to a function, R's ``B``, ``index``); in a call
   made from R a whole float is an int for an option whose default is not a float (R's 3);
3. data of other libraries become numpy or pandas (:func:`energystats._missing.as_python`:
   polars, xarray; sparse and ragged data refused); a ``columns`` argument that names a column
   of the data frame is that column, and the data the other columns;
4. ``data_name`` is written from pandas names (R's data frames' too) and parameter names,
   never from the caller's variables (Python has no ``substitute``);
5. the data arguments are read (:func:`energystats._missing.read_arguments`: R objects from
   rpy2 and reticulate, an R ``dist`` object as distances, the orientation check of ``X``);
6. each group of rows is paired by its pandas indexes (:func:`energystats._missing.align_rows`;
   by position in a call made from R, as R pairs them), then ``nan_policy`` applied to it
   (:func:`energystats._missing.drop_missing`);
7. the function runs; a number becomes NaN under ``"propagate"`` when rows were missing, and a
   result reports ``n_omitted`` and lays per-row labels out on every input row (-1 where
   dropped). Estimator methods read ``nan_policy`` and ``metric`` from the estimator.

Numpy arrays of numbers without NaN take a short path (about 15 microseconds). The door
writes the shared entries of the docstring's Parameters section (``nan_policy``,
``data_name``, and ``rng`` where the docstring names it without a type).
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

from ._datanames import (
    by_column_name,
    check_columns_left_in,
    data_name_of,
    refuse_repeated_names,
)
from ._docentries import DATA_NAME_ENTRY, RNG_ENTRY, nan_policy_entry, write_entries
from ._missing import (
    align_rows,
    as_python,
    check_nan_policy,
    drop_missing,
    expand_labels,
    is_matrix,
    read_arguments,
    read_r,
    read_table,
    warn_if_transposed,
)
from ._rbridge import called_from_r, is_r_object
from ._results import ResultMixin

__all__ = ["ALL_ROWS", "FOREIGN_NAMES", "Rows", "door_of", "front_door"]

#: Names a statistician tries from other packages (R, scipy, scikit-learn) that this package
#: spells otherwise: ``{name: (this package's names for it, in order of preference)}``. A call
#: passing one of them gets a ``TypeError`` naming the right argument.
FOREIGN_NAMES = {
    "random_state": ("rng",), "rng": ("random_state",), "seed": ("rng", "random_state"),
    "n_permutations": ("n_resamples",), "R": ("n_resamples",), "B": ("n_resamples",),
    "level": ("alpha",), "index": ("exponent",),
}

#: What each right name of :data:`FOREIGN_NAMES` means, for the message.
_RIGHT_NAMES = {
    "rng": "functions take `rng` (an int seed, a numpy Generator or None), estimators "
    "`random_state`",
    "random_state": "estimators take `random_state` as scikit-learn's do (an int seed, a numpy "
    "Generator or None); functions take `rng`",
    "n_resamples": "the number of resamples (permutations, bootstrap or Monte Carlo samples)",
    "alpha": "the level of the tests",
    "exponent": "the exponent of the Euclidean distances, R's `index`",
}

@dataclass(frozen=True)
class Rows:
    """What the front door kept of the rows of an estimator's ``fit`` (on the estimator as
    ``_rows`` while the method runs): ``kept`` (None: every row), and ``values``, the
    estimator's per-row parameters (``KGroups``' ``init`` labels) on the kept rows."""

    kept: np.ndarray | None = None
    values: dict = field(default_factory=dict)


#: Every row kept: a fit called without the door (inside another public call).
ALL_ROWS = Rows()


class _State(threading.local):
    inside = False


_STATE = _State()


def _plain(value) -> bool:
    """Whether an argument needs no reading and holds no missing value: None, or a numpy array
    of floats without NaN (its minimum is NaN when one is) or of integers other than int32
    (R's NA)."""
    if type(value) is not np.ndarray:
        return value is None
    kind = value.dtype.kind
    if kind == "f":
        low = value.min() if value.size else 0.0
        return low == low
    return kind in "iub" and value.dtype != np.int32


def door_of(obj):
    """The front door a public callable wears (a class: its ``__init__``'s), or None."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    return getattr(target, "__front_door__", None)


def front_door(
    *rows: str | tuple[str, ...],
    distances: tuple[str, ...] = (),
    columns: tuple[str, ...] = (),
    names: tuple[str, ...] = (),
    by: str | None = None,
    propagate: bool = False,
    prepare: dict | None = None,
    forwards: Callable | None = None,
    tables: bool = True,
    indexes: dict | None = None,
    fits: bool = False,
) -> Callable:
    """The front door of a public function or estimator method (see the module's docstring).

    Parameters
    ----------
    *rows : str or tuple of str
        Groups of data arguments whose rows belong together (``("X", "labels",
        "sample_weight")``; paired ``("x", "y")``; separate samples as separate groups;
        ``"*samples"`` for a var-positional argument of samples). They are read as R objects,
        and with ``nan_policy`` lose their missing rows together. For an estimator method, a
        name that is not a parameter is the estimator's attribute of per-row values, which
        the method finds on the kept rows in ``self._rows.values``.
    distances : tuple of str
        The data arguments that may hold distances, in the order a tuple ``metric`` lists
        them (an all-distance argument such as ``D`` where the function takes no metric).
    columns : tuple of str
        Arguments that may name a column of the data frame given as the first data argument.
    names, by : tuple of str, str
        The result's ``data_name`` (:func:`data_name_of`); with them the function takes the
        keyword ``data_name``.
    propagate : bool
        The function returns a number: ``nan_policy="propagate"`` returns NaN.
    prepare : dict
        ``{name: function}`` applied to a data argument once it is read and named, before its
        missing rows are found (several factors as one DataFrame); for a method, the name of
        one of the estimator's methods.
    forwards : callable
        The function that ``**options`` are passed on to: its keyword-only parameters are
        taken (and its ``metric`` read for the data).
    tables : bool
        ``X`` gets the orientation check (more columns than rows warns).
    indexes : dict
        ``{name: function}``: an argument holding indices of the rows. With it given, rows
        cannot be dropped: ``"omit"`` is refused, and under ``"propagate"`` with rows missing
        the call returns ``function(arguments, n_rows)`` (which checks it and gives NaN).
    fits : bool
        An estimator's ``fit`` (or ``fit_predict``): it sets ``n_omitted_``, and ``labels_``
        gets -1 on the rows dropped.
    """

    def decorate(func: Callable) -> Callable:
        door = _Door(func, rows, distances, columns, names, by, propagate, prepare or {},
                     forwards, tables, indexes or {}, fits)
        state = _STATE

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if state.inside:
                if door.names and "data_name" in kwargs:  # the door's keyword, not the function's
                    kwargs.pop("data_name")
                return func(*args, **kwargs)
            state.inside = True
            try:
                return door.enter(args, kwargs)
            finally:
                state.inside = False

        wrapper.__front_door__ = door
        if door.names:
            wrapper.__signature__ = door.public_signature
        if func.__doc__:
            wrapper.__doc__ = door.document(func.__doc__)
        return wrapper

    return decorate


class _Door:
    """One declaration, read once: the function's signature as lists and sets, the foreign
    names it answers, the groups of rows; :meth:`enter` runs a call through the steps."""

    def __init__(self, func, rows, distances, columns, names, by, propagate, prepare, forwards,
                 tables, indexes, fits):
        self.func = func
        signature = inspect.signature(func)
        params = list(signature.parameters.values())
        self.method = bool(params) and params[0].name == "self"
        qualified = func.__qualname__.removesuffix(".__init__")
        self.where = f"{qualified}()"
        kinds = inspect.Parameter
        self.positional = [p.name for p in params
                           if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)]
        self.position = {name: i for i, name in enumerate(self.positional)}
        self.keyword_only = [p.name for p in params if p.kind is kinds.KEYWORD_ONLY]
        self.var_positional = next((p.name for p in params if p.kind is kinds.VAR_POSITIONAL), None)
        self.var_keyword = next((p.name for p in params if p.kind is kinds.VAR_KEYWORD), None)
        self.keywords = {p.name for p in params if p.kind in
                         (kinds.POSITIONAL_OR_KEYWORD, kinds.KEYWORD_ONLY)}
        self.defaults = {p.name: p.default for p in params if p.default is not kinds.empty}
        self.required = [p.name for p in params if p.default is kinds.empty
                         and p.kind not in (kinds.VAR_POSITIONAL, kinds.VAR_KEYWORD)]
        self.signature = signature
        forwarded = () if forwards is None else inspect.signature(inspect.unwrap(forwards))
        self.forwarded = {p.name: p.default for p in getattr(forwarded, "parameters", {}).values()
                          if p.kind is kinds.KEYWORD_ONLY}
        self.names, self.by = tuple(names), by
        if self.names:
            self.keywords = self.keywords | {"data_name"}
            self.defaults["data_name"] = None
            self.public_signature = _with_data_name(signature)
        taken = self.keywords | set(self.forwarded)
        own = set(signature.parameters)
        self.foreign = {wrong: next(n for n in rights if n in taken)
                        for wrong, rights in FOREIGN_NAMES.items()
                        if wrong not in own and any(n in taken for n in rights)}
        self.candidates = sorted(taken - {"self"})
        self.groups = [(group,) if isinstance(group, str) else tuple(group) for group in rows]
        self.attributes = {n for g in self.groups for n in g if self.method and n not in own}
        self.data = [n for g in self.groups for n in g if n not in self.attributes]
        self.distances, self.columns = tuple(distances), tuple(columns)
        self.propagate, self.prepare, self.tables = propagate, prepare, tables
        # a prepare function's further parameters are the call's arguments of those names
        self.prepare_takes = {name: list(inspect.signature(f).parameters)[1:]
                              for name, f in prepare.items() if not isinstance(f, str)}
        self.indexes, self.fits = indexes, fits
        self.takes_policy = bool(self.groups) and ("nan_policy" in own or self.method)
        self.takes_metric = "metric" in own or "metric" in self.forwarded
        self.plain = [n for n in self.data if n != "*samples"]
        self.fast = bool(self.groups) and "*samples" not in self.data
        for name in (*self.data, *self.distances, *self.columns, *self.names, *self.indexes):
            if name != "*samples" and name not in own:
                raise TypeError(f"{self.where} has no parameter {name!r}.")  # pragma: no cover

    # --- binding ---------------------------------------------------------------------

    def bind(self, args: tuple, kwargs: dict) -> dict:
        """The arguments by name, defaults filled; keyword errors name the function."""
        arguments = dict(self.defaults)
        positional = self.positional
        count = len(args)
        arguments.update(zip(positional, args))
        if count > len(positional):
            if self.var_positional is None:
                self._bind_error(args, kwargs)
            arguments[self.var_positional] = args[len(positional):]
        elif self.var_positional is not None:
            arguments[self.var_positional] = ()
        options = {}
        for key, value in kwargs.items():
            if key in self.keywords:
                if self.position.get(key, count) < count:
                    self._bind_error(args, kwargs)
                arguments[key] = value
            elif key in self.foreign:
                right = self.foreign[key]
                raise TypeError(
                    f"{self.where} takes `{right}`, not `{key}`: {_RIGHT_NAMES[right]}."
                )
            elif self.var_keyword is not None and (not self.forwarded or key in self.forwarded):
                options[key] = value
            else:
                close = difflib.get_close_matches(key, self.candidates, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise TypeError(f"{self.where} got an unexpected keyword argument {key!r}{hint}")
        if self.var_keyword is not None:
            arguments[self.var_keyword] = options
        for name in self.required:
            if name not in arguments:
                self._bind_error(args, kwargs)
        return arguments

    def _bind_error(self, args: tuple, kwargs: dict):
        kwargs = {k: v for k, v in kwargs.items() if k != "data_name"}
        try:
            self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.where} {exc}") from None
        raise AssertionError("the door's binding disagrees with the signature")  # pragma: no cover

    def call(self, arguments: dict):
        args = [arguments[name] for name in self.positional]
        if self.var_positional is not None:
            args += arguments[self.var_positional]
        kwargs = {name: arguments[name] for name in self.keyword_only}
        if self.var_keyword is not None:
            kwargs.update(arguments[self.var_keyword])
        return self.func(*args, **kwargs)

    # --- the call --------------------------------------------------------------------

    def enter(self, args: tuple, kwargs: dict):
        arguments = self.bind(args, kwargs)
        if called_from_r():
            self.whole_numbers(arguments)
        label = arguments.pop("data_name") if self.names else None
        if label is not None and not isinstance(label, str):
            raise TypeError(f"`data_name` must be a string or None, got {type(label).__name__}.")
        if not self.groups:
            return self.finish(self.call(arguments), self.named(arguments, label), 0, None)
        owner = arguments["self"] if self.method else None
        if self.fast and all(_plain(arguments[name]) for name in self.plain) and all(
            isinstance(v, str) or _plain(v) for v in (getattr(owner, n) for n in self.attributes)
        ):
            return self.short(arguments, owner, label)
        return self.full(arguments, owner, label)

    def whole_numbers(self, arguments: dict) -> None:
        """From R, whose 3 is reticulate's 3.0: a whole float is an int for every option whose
        default is not a float (``n_clusters``, ``rng``, ``n_jobs``)."""
        options = arguments.get(self.var_keyword, {}) if self.var_keyword else {}
        for values, defaults in ((arguments, self.defaults), (options, self.forwarded)):
            for name, value in values.items():
                if type(value) is float and value.is_integer() and name not in self.data and (
                        not isinstance(defaults.get(name), float)):
                    values[name] = int(value)

    def policy(self, arguments: dict, owner) -> str:
        if owner is not None:
            where = type(owner).__name__
            return check_nan_policy(owner.nan_policy, propagate=False, where=where)
        return check_nan_policy(arguments["nan_policy"], propagate=self.propagate, where=self.where)

    def option(self, arguments: dict, name: str, default=None):
        """An argument of the function's own or of those ``**options`` pass on."""
        if name in arguments or name not in self.forwarded:
            return arguments.get(name, default)
        return arguments[self.var_keyword].get(name, self.forwarded[name])

    def metric(self, arguments: dict, owner):
        if owner is not None:
            return getattr(owner, "metric", None)
        return self.option(arguments, "metric")

    def refuse_indexes(self, arguments: dict, policy: str) -> list[str]:
        """The arguments of ``indexes`` given; with one, ``"omit"`` is refused."""
        given = [n for n in self.indexes if arguments.get(n) is not None]
        if given and policy == "omit":
            raise ValueError(
                f"`nan_policy`='omit' cannot be combined with `{given[0]}`, which index the rows "
                f"of `{self.data[0]}`: drop the rows with missing values before drawing the "
                f"{given[0]}."
            )
        return given

    def named(self, arguments: dict, label):
        """The result's ``data_name``, from the data as given (before ``prepare``)."""
        if not self.names:
            return None
        return label or data_name_of(arguments, self.names, self.by)

    def preparations(self, owner, arguments: dict) -> dict:
        """``prepare``'s functions (an estimator's methods by their names), given the other
        arguments they take."""
        out = {}
        for name, f in self.prepare.items():
            if isinstance(f, str):
                out[name] = getattr(owner, f)
            elif self.prepare_takes[name]:
                out[name] = functools.partial(
                    f, **{p: arguments[p] for p in self.prepare_takes[name]})
            else:
                out[name] = f
        return out

    def prepared(self, arguments: dict, owner) -> None:
        for name, function in self.preparations(owner, arguments).items():
            arguments[name] = function(arguments[name])

    def apart(self, arguments: dict, metric, skip=(), from_r: bool = False) -> None:
        """Say so when an argument of ``columns`` is a column left in the data
        (:func:`check_columns_left_in`), except where the data or it are distances."""
        data = self.data[0]
        if self.distances and data in self.distances and is_matrix(
                metric, self.distances.index(data)):
            return
        names = [n for n in self.columns if n not in skip and not (
            n in self.distances and is_matrix(metric, self.distances.index(n)))]
        check_columns_left_in(arguments, data, names, self.where, from_r=from_r)

    def short(self, arguments: dict, owner, label):
        """Arrays of numbers without NaN: nothing to read or drop."""
        if self.takes_policy:
            self.refuse_indexes(arguments, self.policy(arguments, owner))
        if self.tables and "X" in self.plain:
            at = self.distances.index("X") if "X" in self.distances else None
            if at is None or not is_matrix(self.metric(arguments, owner), at):
                warn_if_transposed(arguments["X"], "X")
        name = self.named(arguments, label)
        self.prepared(arguments, owner)
        if self.columns:
            self.apart(arguments, self.metric(arguments, owner))
        if owner is not None and self.fits:
            return self.fitted(arguments, owner, ALL_ROWS, 0)
        return self.finish(self.call(arguments), name, 0, None)

    def full(self, arguments: dict, owner, label):
        where = self.where
        r_session = called_from_r()
        for name in self.plain:  # data of other libraries (polars, xarray) as numpy or pandas
            arguments[name] = as_python(arguments.get(name), name, r_session)
        if "*samples" in self.data:
            arguments["samples"] = tuple(as_python(sample, f"samples[{i}]", r_session)
                                         for i, sample in enumerate(arguments["samples"]))
        # data from R: rpy2's objects, or every argument of a call made from R (reticulate)
        from_r = {name for name in self.data if name != "*samples"
                  and (r_session or is_r_object(arguments.get(name)))}
        if "*samples" in self.data:
            from_r.update(f"samples[{i}]" for i, sample in enumerate(arguments["samples"])
                          if r_session or is_r_object(sample))
        if r_session:
            refuse_repeated_names(arguments, self.plain)
        resolved = []
        if self.columns:
            resolved = by_column_name(arguments, self.data[0], self.columns)
            if self.data[0] in from_r:
                from_r.update(resolved)
        name = self.named(arguments, label)
        if owner is None:
            metric = read_arguments(
                arguments, self.data, self.distances, where, self.preparations(None, arguments),
                metric=self.metric(arguments, None), takes_metric=self.takes_metric,
                exponent=self.option(arguments, "exponent", 1.0), tables=self.tables,
            )
            self.set_metric(arguments, metric)
        else:
            self.read_for(arguments, owner)
            self.prepared(arguments, owner)
            metric = self.metric(arguments, owner)
        if not self.takes_policy:  # missing values found all the same, each argument alone
            hint = f"drop those rows first ({where} takes no nan_policy)."
            for n in self.plain:
                matrix = n in self.distances and is_matrix(metric, self.distances.index(n))
                drop_missing("raise", {n: arguments.get(n)}, [n] if matrix else [], from_r,
                             na_strings=r_session, hint=hint)
            return self.finish(self.call(arguments), name, 0, None)
        policy = self.policy(arguments, owner)
        given = self.refuse_indexes(arguments, policy)
        # "propagate" computes the statistic of the complete rows (so that every other
        # argument is checked: NaN is the answer only to a valid call) and returns NaN
        propagating = policy == "propagate"
        policy = "omit" if propagating else policy
        found, omitted, layout, values = False, 0, None, {}
        for group in self.groups:
            if group == ("*samples",):
                samples = []
                for i, sample in enumerate(arguments["samples"]):
                    kept, keep = drop_missing(policy, {f"samples[{i}]": sample}, (), from_r,
                                              na_strings=r_session)
                    samples.append(kept[f"samples[{i}]"])
                    omitted += 0 if keep is None else int((~keep).sum())
                    found = found or keep is not None
                arguments["samples"] = tuple(samples)
                continue
            matrices = [n for n in group if n in self.distances
                        and is_matrix(metric, self.distances.index(n))]
            members = {n: (getattr(owner, n) if n in self.attributes else arguments.get(n))
                       for n in group}
            members = {n: (None if isinstance(v, str) else v) for n, v in members.items()}
            if not r_session:  # R pairs by position: a data frame's row names are not labels
                members = align_rows(members, matrices)
            if given and propagating:
                _, keep = drop_missing("propagate", members, matrices, from_r,
                                       na_strings=r_session)
                if keep is not None:
                    return self.indexes[given[0]](arguments, keep.shape[0])
            kept, keep = drop_missing(policy, members, matrices, from_r, na_strings=r_session)
            found = found or keep is not None
            for n in group:
                if n in self.attributes and members[n] is not None:
                    values[n] = kept[n]
                elif n in arguments:
                    arguments[n] = kept[n]
            if keep is not None:
                omitted += int((~keep).sum())
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

    def set_metric(self, arguments: dict, metric) -> None:
        if not self.takes_metric:
            return
        if "metric" in arguments:
            arguments["metric"] = metric
        elif metric != self.forwarded["metric"] or "metric" in arguments[self.var_keyword]:
            arguments[self.var_keyword]["metric"] = metric

    def read_for(self, arguments: dict, owner) -> None:
        """An estimator method's data: its own ``metric`` (an R ``dist`` object needs
        ``metric="precomputed"`` given to the estimator), the orientation check on ``fit``."""
        where = f"{type(owner).__name__}.{self.func.__name__}()"
        for name in self.data:
            value = arguments[name]
            if name == "X" and self.tables:
                metric = getattr(owner, "metric", None) if name in self.distances else None
                arguments[name], _ = read_table(value, name, where=where, metric=metric, fixed=True)
            else:
                arguments[name] = read_r(value, name, where=where)

    def fitted(self, arguments: dict, owner, rows: Rows, omitted: int):
        """Run an estimator's ``fit`` with ``self._rows``; then ``n_omitted_`` and
        ``labels_`` (and the labels ``fit_predict`` returns) on every row passed."""
        owner._rows = rows
        try:
            result = self.call(arguments)
        finally:
            del owner._rows
        owner.n_omitted_ = omitted
        if rows.kept is not None:
            owner.labels_ = expand_labels(owner.labels_, rows.kept)
            if isinstance(result, np.ndarray):
                result = expand_labels(result, rows.kept)
        return result

    def finish(self, result, name, omitted: int, keep):
        """``n_omitted`` and per-row ``labels`` on every row passed; ``data_name``."""
        if omitted and isinstance(result, pd.DataFrame):
            result.attrs["n_omitted"] = omitted  # a table made by this call
        if not isinstance(result, ResultMixin):
            return result
        changes = {}
        if omitted:
            changes["n_omitted"] = omitted
        labels = getattr(result, "labels", None)
        if omitted and keep is not None and isinstance(labels, np.ndarray):
            if labels.shape == (int(keep.sum()),):
                changes["labels"] = expand_labels(labels, keep)
        if name is not None:
            changes["data_name"] = name
        return dataclasses.replace(result, **changes) if changes else result

    # --- the docstring ---------------------------------------------------------------

    def document(self, doc: str) -> str:
        """``doc`` with the shared entries of its Parameters section (:mod:`._docentries`)."""
        entries = {}
        if self.takes_policy and not self.method:
            entries["nan_policy"] = nan_policy_entry(
                [n for n in self.data if n != "*samples"], separate=len(self.groups) > 1,
                propagate=self.propagate, matrices=bool(self.distances) and self.takes_metric,
                counted=bool(self.names),
            )
        if "rng" in self.signature.parameters:
            entries["rng"] = RNG_ENTRY
        if self.names:
            entries["data_name"] = DATA_NAME_ENTRY
        return write_entries(doc, entries, insert={"nan_policy", "data_name"})


def _with_data_name(signature: inspect.Signature) -> inspect.Signature:
    """The signature with the door's keyword-only ``data_name=None`` (before ``**options``)."""
    params = list(signature.parameters.values())
    extra = inspect.Parameter("data_name", inspect.Parameter.KEYWORD_ONLY, default=None,
                              annotation="str | None")
    at = len(params) - (params and params[-1].kind is inspect.Parameter.VAR_KEYWORD)
    return signature.replace(parameters=params[:at] + [extra] + params[at:])
