"""Maximum likelihood fits of a ``scipy.stats`` family to the rows of a B x n array for
:func:`~energystats.energy_gof`: the parameter tuple (shapes..., loc, scale) of arrays (B,).
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

__all__ = ["fitter", "parameter_names", "usable"]


def parameter_names(family) -> list[str]:
    """scipy's names of the family's parameters: shapes, then loc and scale."""
    shapes = [name.strip() for name in family.shapes.split(",")] if family.shapes else []
    return shapes + ["loc", "scale"]


def _newton(step, start: np.ndarray, what: str) -> np.ndarray:
    """Newton's method on each row until every relative step is below 1e-8, then two more."""
    value = start
    for _ in range(100):
        delta = step(value)
        value = value - delta
        if np.all(np.abs(delta) <= 1e-8 * np.abs(value)):
            for _ in range(2):
                value = value - step(value)
            return value
    raise RuntimeError(f"the maximum likelihood {what} did not converge in 100 Newton steps.")


def _gamma(Y):
    # log a - digamma(a) = log mean(y) - mean(log y) =: s, started at Minka's approximation
    s = np.log(Y.mean(axis=1)) - np.log(Y).mean(axis=1)
    start = (3.0 - s + np.sqrt((s - 3.0) ** 2 + 24.0 * s)) / (12.0 * s)
    a = _newton(lambda a: (np.log(a) - special.digamma(a) - s)
                / (1.0 / a - special.polygamma(1, a)), start, "gamma shape")
    return a, Y.mean(axis=1) / a


def _weibull_min(Y):
    # profile equation of the shape c: sum y^c log y / sum y^c - 1/c - mean(log y) = 0, on y
    # divided by its geometric mean (the same c; y^c stays in range)
    logs = np.log(Y)
    logs -= logs.mean(axis=1, keepdims=True)

    def step(c):
        w = np.exp(c[:, None] * logs)
        a, b, d = (w * logs).sum(axis=1), w.sum(axis=1), (w * logs * logs).sum(axis=1)
        return (a / b - 1.0 / c) / ((d * b - a * a) / (b * b) + 1.0 / (c * c))

    c = _newton(step, np.pi / (np.sqrt(6.0) * logs.std(axis=1)), "Weibull shape")  # from Menon's
    return c, np.exp(np.log(Y).mean(axis=1)) * np.mean(np.exp(c[:, None] * logs), 1) ** (1.0 / c)


#: Vectorised maximum likelihood of y = x - loc > 0, loc known: (shapes..., scale) of Y.
_LOC_KNOWN = {type(stats.expon): lambda Y: (Y.mean(axis=1),), type(stats.gamma): _gamma,
              type(stats.lognorm): lambda Y: (np.log(Y).std(axis=1), np.exp(np.log(Y).mean(1))),
              type(stats.weibull_min): _weibull_min}


def usable(family, params: tuple) -> np.ndarray:
    """Where the parameters (shapes..., loc, scale; arrays broadcast) are finite, the scale
    positive and the mean finite (the energy statistic needs E|X|)."""
    *shapes, loc, scale = (np.asarray(v, dtype=float) for v in params)
    with np.errstate(all="ignore"):
        fine = np.isfinite(family.mean(*shapes)) & np.isfinite(loc) & (scale > 0)
    for v in shapes:
        fine = fine & np.isfinite(v)
    return fine


def _scipy_fit(family, row: np.ndarray, fixed: dict, start: tuple | None) -> tuple:
    """``family.fit`` of one sample, fitted again from ``start`` (the parameters the sample was
    drawn from) when not usable (a free loc's likelihood is unbounded near the minimum)."""
    params = family.fit(row, **fixed)
    if start is None or usable(family, params).all():
        return params
    free = {"loc": start[-2], "scale": start[-1]}
    return family.fit(row, *start[:-2], **{**free, **fixed})


def fitter(family, known: dict, fit=None, start: tuple | None = None):
    """``(estimate, each)``: ``estimate(X, bar=None)``, the parameters of the rows of X: ``fit``,
    else the vectorised maximum likelihood, else :func:`_scipy_fit` with ``known`` fixed, on
    each row; ``each``: whether rows are fitted one by one (``bar`` counting them)."""
    names = parameter_names(family)
    if fit is None and type(family) is type(stats.norm) and not known:
        # the sample sd (n - 1) as scale, as scipy.stats.goodness_of_fit does and R's normal.e
        return (lambda X, bar=None: (X.mean(axis=1), X.std(axis=1, ddof=1))), False
    if fit is None and type(family) in _LOC_KNOWN and list(known) == ["loc"]:
        def loc_known(X, bar=None):
            Y = X - known["loc"]
            if np.any(Y <= 0):
                raise ValueError(f"`x` must exceed the known loc = {known['loc']:g} for this "
                                 "family (its support).")
            *shapes, scale = _LOC_KNOWN[type(family)](Y)
            return (*shapes, np.full(len(X), float(known["loc"])), scale)
        return loc_known, False
    fixed = {f"f{name}": value for name, value in known.items()}

    def each(X, bar=None):
        rows = []
        for row in X:
            rows.append(tuple(np.ravel(fit(row))) if fit is not None
                        else _scipy_fit(family, row, fixed, start))
            if bar is not None:
                bar.update()
        wrong = [len(r) for r in rows if len(r) != len(names)]
        if wrong:
            raise ValueError(f"`fit` must return the {len(names)} parameters ({', '.join(names)}), "
                             f"got {wrong[0]}.")
        return tuple(np.array(column, dtype=float) for column in zip(*rows))

    return each, True
