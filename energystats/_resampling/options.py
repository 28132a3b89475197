"""The options every Monte Carlo test takes, validated once, and the choice between enumerating
every distinct resample and drawing at random."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from .._config import check_fits
from .._progress import check_progress
from .._validation import check_positive_int

__all__ = [
    "MAX_EXACT",
    "MAX_RESAMPLES",
    "RESAMPLE_BYTES",
    "Options",
    "check_options",
    "check_resamples",
    "use_exact",
]

#: The most resamples a Monte Carlo test draws. At 10**7 the standard error of a p-value
#: near 0.05 is 7e-5 (near 0.001, 1e-5): finer than any decision needs; more only costs time.
MAX_RESAMPLES = 10**7
#: Bytes each resample holds until the p-value: its statistic in the null distribution,
#: and the copy made when the blocks of statistics are joined.
RESAMPLE_BYTES = 16
#: Largest number of distinct resamples (relabelings, permutations) enumerated for an exact
#: p-value.
MAX_EXACT = 10**6


def check_resamples(value, name: str = "n_resamples") -> int:
    """Check a number of Monte Carlo resamples: a whole number from 1 to :data:`MAX_RESAMPLES`
    whose stored null distribution fits the memory budget (before anything is drawn).

    A float that is a whole number is a count (``999.0``, as R writes ``999`` without ``L``
    and as ``scipy.stats.permutation_test`` accepts); ``999.5`` is refused."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(f"`{name}` must be a positive integer, got {type(value).__name__}.")
    if not isinstance(value, Integral) and not (math.isfinite(value) and float(value).is_integer()):
        raise ValueError(f"`{name}` must be a whole number (a count of resamples), got {value!r}.")
    if value < 1:
        raise ValueError(f"`{name}` must be a positive integer, got {value}.")
    B = int(value)
    if B > MAX_RESAMPLES:
        raise ValueError(
            f"`{name}` must be at most {MAX_RESAMPLES:,} (the Monte Carlo standard error of a "
            f"p-value is then below 1e-4; more changes no decision), got {B:,}."
        )
    check_fits(f"the null distribution of `{name}`={B:,} resamples", RESAMPLE_BYTES * B,
               f"a smaller `{name}`")
    return B


@dataclass(frozen=True)
class Options:
    """The validated options of a Monte Carlo test.

    Attributes
    ----------
    n_resamples : int
        B, the number of random resamples.
    exact : {"auto", True, False}
        Whether to enumerate every distinct resample (see :func:`use_exact`).
    batch : int or None
        Resamples evaluated at once; ``None``: as many as the working memory holds.
    progress : bool or None
        Whether to show a progress bar; ``None``: when a person is watching
        (:func:`~energystats._progress.watching`).
    """

    n_resamples: int
    exact: str | bool = "auto"
    batch: int | None = None
    progress: bool | None = None


def check_options(n_resamples, exact="auto", batch=None, progress=None) -> Options:
    """Validate the options every Monte Carlo test takes; messages name the argument."""
    B = check_resamples(n_resamples)
    auto = isinstance(exact, str) and exact == "auto"
    if not auto and not isinstance(exact, (bool, np.bool_)):
        raise ValueError(f"`exact` must be 'auto', True or False, got {exact!r}.")
    if batch is not None:
        batch = check_positive_int(batch, "batch")
    return Options(B, "auto" if auto else bool(exact), batch, check_progress(progress))


def use_exact(count: Callable[[int], int], options: Options, what: str) -> bool:
    """Whether to enumerate every distinct resample. ``count(cap)`` is their number, or any
    number above ``cap`` when there are more (a count found without its millions of digits);
    ``what`` names them ("relabelings").

    ``"auto"``: when there are at most ``n_resamples`` of them and at most :data:`MAX_EXACT`
    (enumeration is then both exact and no more work than the draws); ``True``: always, up to
    :data:`MAX_EXACT`, past which a ``ValueError`` says so; ``False``: never."""
    if options.exact is False:
        return False
    number = count(MAX_EXACT)
    if options.exact == "auto":
        return number <= min(options.n_resamples, MAX_EXACT)
    if number > MAX_EXACT:
        raise ValueError(
            f"`exact`=True needs more than {MAX_EXACT} {what}; use exact='auto' or False."
        )
    return True
