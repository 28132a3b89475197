r"""The energy goodness-of-fit test of any one-dimensional ``scipy.stats`` continuous
distribution, and its statistic as a callable for ``scipy.stats.goodness_of_fit``.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy import stats

from .._frontdoor import front_door
from .._progress import check_progress, progress_bar
from .._random import as_generator
from .._resample import check_observed, check_resamples, null_distribution, pvalue
from .._result_bases import FitPanel, NullPanel, Sample, TestResult
from .._semimetric import Scaling
from .._validation import unit_scale
from ._fits import fitter, parameter_names, usable
from ._standard import energy_statistic, mean_distances
from .normality import _check

__all__ = ["EnergyGofResult", "energy_gof", "energy_gof_statistic"]


@dataclass(frozen=True, repr=False)
class EnergyGofResult(TestResult):
    """Result of :func:`energy_gof`: the statistic :math:`Q_n` of :func:`energy_gof_statistic`
    and its values on the samples drawn (parameters re-estimated on each).

    Attributes
    ----------
    distribution : str
        The scipy name of the family.
    params : dict
        The parameters of the null distribution (shapes, loc, scale), given or estimated.
    estimated : tuple of str
        The names of the estimated parameters (empty for a fully specified distribution).
    n_samples : int
    """

    distribution: str
    params: dict
    estimated: tuple
    n_samples: int

    _statistic_label = "Q"
    _hidden = ("distribution",)  # in the title

    @property
    def _title(self) -> str:
        kind = "estimated parameters" if self.estimated else "known parameters"
        return f"Energy goodness-of-fit test of the {self.distribution} distribution, {kind}"

    @property
    def _kind(self) -> str:
        return "parametric bootstrap" if self.estimated else "Monte Carlo"

    def _pvalue_note(self) -> str:
        return f"{self.n_resamples} {self._kind} samples"

    def _null_panels(self) -> tuple[NullPanel, ...]:
        return (NullPanel(f"energy goodness-of-fit test of {self.distribution}",
                          "energy statistic Q\u2099", self.statistic, self.pvalue,
                          f"{self._kind} ({self.n_resamples:,} samples of {self.distribution})",
                          null=self.null_distribution),)

    def _fit_panel(self, sample: Sample) -> FitPanel:
        params = ", ".join(f"{name}={value:.4g}" for name, value in self.params.items())
        return FitPanel(sample.column(self.n_samples), sample.name,
                        getattr(stats, self.distribution)(**self.params),
                        f"fitted {self.distribution}({params})",
                        f"energy goodness-of-fit test of {self.distribution}: "
                        f"p = {self.pvalue:.3g}")


def _split(frozen) -> tuple[object, tuple, object, object]:
    """(family, shapes, loc, scale) of a frozen scipy distribution (array parameters kept)."""
    names = parameter_names(frozen.dist)
    values = {**dict(zip(names, frozen.args)), **frozen.kwds}
    return (frozen.dist, tuple(values[name] for name in names[:-2]), values.get("loc", 0.0),
            values.get("scale", 1.0))


def _statistic(family, params: tuple, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Q_n of each row of x (last axis) against loc + scale * (the standard member), params
    (shapes..., loc, scale) broadcast to x, and its tie scale; +inf where the parameters are
    not :func:`~._fits.usable` (a sample whose refit failed): more extreme than the data."""
    params = tuple(np.asarray(v, dtype=float) for v in params)
    fine = np.broadcast_to(usable(family, params), x.shape).all(axis=-1)
    if not fine.all():
        out = np.full(x.shape[:-1], np.inf), np.zeros(x.shape[:-1])
        keep = np.flatnonzero(fine.ravel())
        rows = _statistic(family, [np.broadcast_to(v, x.shape).reshape(-1, x.shape[-1])[keep, :1]
                                   for v in params], x.reshape(-1, x.shape[-1])[keep])
        for whole, part in zip(out, rows):
            whole.ravel()[keep] = part
        return out
    *shapes, loc, scale = params
    z = np.sort((x - loc) / scale, axis=-1)
    return energy_statistic(*mean_distances(family, tuple(shapes), z), z)


@front_door("x")
def energy_gof_statistic(dist, x, axis: int = -1):
    r"""The energy goodness-of-fit statistic of ``x`` against a frozen distribution, as
    ``scipy.stats.goodness_of_fit(..., statistic=energy_gof_statistic)`` calls it.

    Parameters
    ----------
    dist : frozen scipy.stats continuous distribution
        With a finite mean, e.g. ``stats.gamma(2.0, scale=3.0)``; array parameters (one per
        sample) broadcast against ``x``.
    x : array_like
        Samples along ``axis``.
    axis : int, default=-1
        The axis of ``x`` along which a sample lies.

    Returns
    -------
    float or ndarray
        One statistic per sample (``x``'s shape without ``axis``).

    Notes
    -----
    With Y, Y' independent from ``dist``'s family at loc 0, scale 1 and the standardised
    :math:`z_i = (x_i - \text{loc}) / \text{scale}` (Székely & Rizzo 2005, eq. 3.1 with
    d = 1; 2013, sec. 5),

    .. math::

        Q_n = n\Big(\frac2n\sum_i E|z_i - Y| - E|Y - Y'| - \frac1{n^2}\sum_{i,j}|z_i - z_j|\Big):

    location and scale invariant; for ``norm`` at the sample mean and sd (n - 1) R's
    ``normal.e(x)``. :math:`E|z - Y| = z(2F(z) - 1) + \mu - 2E[Y 1\{Y \le z\}]` and
    :math:`E|Y - Y'| = 2\int F(1 - F)` are in closed form for ``norm``, ``expon``, ``uniform``,
    ``gamma``, ``lognorm``, ``weibull_min``, ``logistic``, ``laplace``, ``fisk``, ``beta``,
    ``invgauss`` (O(n log n) a sample); for other families from a table per shape of
    Chebyshev series of the cdf and sf (:mod:`energystats._gof._cdf_table`: milliseconds, as
    accurate as the family's ``cdf``: 1e-12 of QUADPACK for t, gumbel_r).

    References
    ----------
    As in :func:`energy_gof`.

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> from scipy import stats
    >>> x = np.random.default_rng(0).gamma(2.0, 3.0, size=50)
    >>> round(es.energy_gof_statistic(stats.gamma(2.0, scale=3.0), x), 4)
    0.5867
    >>> res = stats.goodness_of_fit(stats.gamma, x, known_params={"loc": 0},
    ...                             statistic=es.energy_gof_statistic, n_mc_samples=199, rng=1)
    >>> round(float(res.statistic), 4), float(res.pvalue)
    (0.3746, 0.77)
    """
    if not (hasattr(dist, "dist") and isinstance(dist.dist, stats.rv_continuous)):
        raise TypeError("`dist` must be a frozen scipy.stats continuous distribution, e.g. "
                        "stats.gamma(2.0).")
    family, shapes, loc, scale = _split(dist)
    if not np.all(np.isfinite(family.mean(*shapes))):
        raise _no_mean(family)
    if not (np.all(np.isfinite(loc)) and np.all(np.asarray(scale, dtype=float) > 0)):
        raise ValueError(f"`dist` has loc={loc} and scale={scale}: loc must be finite and "
                         "scale > 0.")
    # the parameters broadcast against the data as laid out, then every array's sample axis last
    x, loc, scale, *shapes = (np.moveaxis(a, axis, -1) for a in np.broadcast_arrays(
        np.asarray(x, dtype=float), loc, scale, *shapes))
    if x.shape[-1] == 0:
        raise ValueError("`x` must hold at least one value along `axis`, got none.")
    value = _statistic(family, (*shapes, loc, scale), x)[0]
    return float(value) if value.ndim == 0 else value


def _check_known(dist, known_params, fit) -> dict | None:
    """The known parameters of a family (None for a frozen distribution), checked."""
    frozen = hasattr(dist, "dist") and isinstance(dist.dist, stats.rv_continuous)
    if not (frozen or isinstance(dist, stats.rv_continuous)):
        raise TypeError("`dist` must be a scipy.stats continuous distribution: a family such as "
                        "stats.gamma (parameters estimated) or a frozen one such as "
                        "stats.gamma(2.0) (parameters known).")
    if frozen and (known_params is not None or fit is not None):
        raise ValueError("`known_params` and `fit` apply to a family (e.g. stats.gamma), not to "
                         "a frozen distribution.")
    if frozen:
        return None
    names, known = parameter_names(dist), dict(known_params or {})
    for name, value in known.items():
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.number)):
            raise TypeError(f"`known_params['{name}']` must be a real number, got "
                            f"{type(value).__name__} {value!r}.")
    unknown = sorted(set(known) - set(names))
    if unknown:
        raise ValueError(f"`known_params` has {', '.join(unknown)}, not parameters of "
                         f"{dist.name} ({', '.join(names)}).")
    bad = [f"{k}={v:g}" for k, v in known.items() if not np.isfinite(v) or k == "scale" and v <= 0]
    if bad:  # scipy's fit would fail on them (FitError) or stop in its solvers
        raise ValueError(f"`known_params` gave {', '.join(bad)}: known parameters of {dist.name} "
                         "must be finite, with scale > 0.")
    if fit is not None and not callable(fit):
        raise TypeError("`fit` must be a callable returning the parameters, or None.")
    return known


def _check_params(family, params: tuple, source: str) -> None:
    """Refuse parameters not finite, a scale not positive (naming ``source``), no finite mean."""
    values = np.asarray(params, dtype=float)
    if usable(family, params):
        return
    if np.all(np.isfinite(values)) and values[-1] > 0:
        raise _no_mean(family)
    given = ", ".join(f"{name}={value:g}" for name, value in zip(parameter_names(family), values))
    raise ValueError(f"{source} gave {family.name} parameters {given}: they must be finite, "
                     "with scale > 0.")


def _no_mean(family) -> ValueError:
    return ValueError(f"`dist` ({family.name}) has no finite mean: the energy statistic needs "
                      "E|X| finite.")


@front_door("x", names=("x",))
def energy_gof(x, dist, *, known_params=None, fit=None, n_resamples: int = 999, rng=None,
               progress: bool | None = None, nan_policy: str = "raise") -> EnergyGofResult:
    r"""Energy goodness-of-fit test of any one-dimensional ``scipy.stats`` continuous distribution.

    H0: the values are i.i.d. from ``dist``, parameters as given or estimated. The statistic
    :func:`energy_gof_statistic` against its values on samples drawn from the null
    distribution, parameters re-estimated on each (a parametric bootstrap, as scipy's
    ``goodness_of_fit``; for ``stats.norm`` R's ``normal.test``).

    Parameters
    ----------
    x : array_like of shape (n,)
        Univariate data, at least two values, not all equal.
    dist : scipy.stats continuous distribution
        With a finite mean. Frozen (``stats.weibull_min(1.5, scale=2.0)``): every parameter
        known. A family (``stats.weibull_min``): those not in ``known_params`` estimated.
    known_params : dict, default=None
        Parameters of the family held fixed (``{"loc": 0}`` for the two-parameter gamma,
        Weibull, lognormal): finite, a scale positive.
    fit : callable, default=None
        ``fit(sample) -> (shapes..., loc, scale)`` for the data and every sample; None:
        maximum likelihood (see Notes).
    n_resamples : int, default=999
        Samples drawn from the null distribution.
    rng : int, numpy.random.Generator or None, default=None
        It seeds the samples: ``dist.rvs(size=(m, n))`` for each block of m.
    progress : bool or None, default=None
        A progress bar over samples fitted one by one, as in :func:`mvnorm_test`.
    nan_policy : {"raise", "omit"}, default="raise"
        Rows with a missing value in ``x``: as in :func:`mvnorm_test`.
    data_name : str, default=None
        The result's ``data_name``; None: the pandas names of the data, else the parameter names.

    Returns
    -------
    EnergyGofResult

    Notes
    -----
    :math:`Q_n` of eq. 3.1 of Székely & Rizzo (2005) with d = 1 (:func:`energy_gof_statistic`);
    p-value :math:`(1 + \#\{t^* \ge t\}) / (B + 1)` (:mod:`energystats._resample`). For
    location-scale families with equivariant estimates (normal; exponential, lognormal with
    loc known) an exact Monte Carlo test; for shape families approximate, as any parametric
    bootstrap. Maximum likelihood is vectorised for ``norm`` (mean and sd with n - 1, as
    scipy's ``goodness_of_fit`` and R's ``normal.e``), and for ``expon``, ``lognorm``,
    ``gamma``, ``weibull_min`` with ``loc`` known (closed forms, or Newton's method to machine
    precision); otherwise ``dist.fit`` on each sample. A sample whose fit has no finite mean
    (a free ``loc`` makes the likelihood unbounded near the smallest value: ``fisk``, one
    sample in 30) is fitted again from the data's estimate; one whose refit fails too counts
    as more extreme than the data (statistic +inf: conservative). Time O(B n log n) and the
    fits, and for families without a closed form a table per fitted shape (milliseconds).

    References
    ----------
    G. J. Székely and M. L. Rizzo, "Energy statistics: A class of statistics based on
    distances", J. Statistical Planning and Inference 143 (2013), sec. 5; "A new test for
    multivariate normality", J. Multivariate Analysis 93 (2005).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> from scipy import stats
    >>> x = np.random.default_rng(0).weibull(1.5, size=60) * 2.0
    >>> res = es.energy_gof(x, stats.weibull_min, known_params={"loc": 0}, n_resamples=199, rng=1)
    >>> res.estimated, round(res.params["c"], 3), res.pvalue
    (('c', 'scale'), 1.419, 0.825)
    >>> # all known
    >>> es.energy_gof(x, stats.weibull_min(1.5, scale=2.0), n_resamples=199, rng=1).pvalue
    0.935
    >>> es.energy_gof(x, stats.lognorm, known_params={"loc": 0}, n_resamples=199, rng=1).pvalue
    0.005
    """
    x, B = _check(x, True)[:, 0], check_resamples(n_resamples)
    known, progress = _check_known(dist, known_params, fit), check_progress(progress)
    n, gen = x.size, as_generator(rng)
    # Q_n of (x - loc) / scale is that of x / 2^e with equivariant estimates: fit data of any
    # magnitude without underflow or overflow, and multiply the parameters back.
    e = 0
    if known is not None and fit is None and "scale" not in known and known.get("loc", 0) == 0:
        x, e = unit_scale(x)
    estimate, bar, estimated = None, None, ()
    if known is None:  # a frozen distribution
        family, shapes, loc, scale = _split(dist)
        params = (*shapes, loc, scale)
        if any(np.ndim(p) for p in params):
            raise ValueError("`dist` must have scalar parameters (one distribution).")
    else:
        family, names = dist, parameter_names(dist)
        estimated = tuple(name for name in names if name not in known)
        params = tuple(float(known[name]) for name in names if name in known)
        if estimated:
            try:  # scipy's optimiser warns on its way to a FitError: the error says it
                with np.errstate(invalid="ignore"):
                    params = tuple(p[0] for p in fitter(family, known, fit)[0](x[None, :]))
            except stats.FitError as exc:
                raise ValueError(f"{family.name} cannot be fitted to `x` with `known_params`="
                                 f"{known} ({exc}): known parameters must leave the data inside "
                                 "the family's support; or leave them to be estimated.") from None
            estimate, each = fitter(family, known, fit, start=params)  # refits start there
            bar = progress_bar(None, B, progress, "samples") if each else None
    _check_params(family, params, "`dist`" if known is None else "`fit`" if fit is not None
                  else "the fit to `x`")
    statistic, scale = (float(v[0]) for v in _statistic(family, params, x[None, :]))
    check_observed(statistic, "the energy goodness-of-fit statistic")
    null_dist = family(*params)

    def evaluate(samples):
        p = params if estimate is None else [v[:, None] for v in estimate(samples, bar)]
        return _statistic(family, p, samples)[0]

    null = null_distribution(evaluate, lambda m: null_dist.rvs(size=(m, n), random_state=gen),
                             B, 64.0 * n, False)  # draws, fits, temporaries: 8 arrays of n
    if bar is not None:
        bar.close()
    params = {name: Scaling(0, float(e)).result(float(value), f"the estimated {name}")
              if name in ("loc", "scale") else float(value)
              for name, value in zip(parameter_names(family), params)}
    return EnergyGofResult(statistic=statistic, pvalue=pvalue(statistic, null, scale=scale,
                           what="the energy goodness-of-fit statistic"), distribution=family.name,
                           params=params, estimated=estimated, n_samples=n, n_resamples=B,
                           null_distribution=null)
