"""A valid test of cluster structure: energy clustering against a Gaussian null.

Testing found clusters with the permutation test on the same variables is
invalid: the labels were chosen to make the groups differ. This test asks
instead whether the data hold more cluster structure than one Gaussian would
show, in the spirit of SigClust (Liu, Hayes, Nobel & Marron 2008) with the
energy statistic in place of the 2-means index, and with an exact null: the
Monte Carlo null is drawn conditionally on the sample covariance, which is
what lets the statistic look only at the directions that carry signal.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from .._frontdoor import front_door
from .._linalg import centred_svd, whiten
from .._parallel import blas_for, check_n_jobs, n_workers, run_tasks
from .._progress import check_progress
from .._random import as_generator
from .._resample import check_observed, check_resamples, pvalue
from .._result_bases import ClusteringResult, NullPanel, TestResult
from .._semimetric import Scaling, resolve_semimetric
from .._validation import (
    as_data,
    as_labels,
    check_n_clusters,
    check_n_init,
    check_positive_int,
)
from ._k_tests import node_test, signal_dimension
from .kgroups import KGroups
from .split1d import split_1d

__all__ = ["ClusterTestResult", "check_kgroups_options", "cluster_test"]

#: Restarts of each k-groups fit of the test (the data's and every resample's) unless the
#: caller sets ``n_init``: the same procedure on the data and the null (measured on 200 paired
#: data sets: three starts kept the power of ten within 0.015, validation/cluster_test_starts.py).
N_INIT = 3


@dataclass(frozen=True, repr=False)
class ClusterTestResult(ClusteringResult, TestResult):
    """Result of :func:`cluster_test`.

    Attributes
    ----------
    statistic : float
        With k given: S / T of the partition fitted to the whitened scores of the data on
        ``n_components`` principal directions, the share of the total energy dispersion
        explained by the clusters (Lemma 1: T = S + W). Without k: the largest standardised
        drop of k-means' within sum of squares over k = 2..k_max (Notes of
        :func:`cluster_test`).
    null_distribution : ndarray of shape (n_resamples,)
        The statistic of the same procedure on the references: samples of N(0, I_J) of the
        same size (with k given; without k for ``null="gaussian"``), or uniform samples on
        the box or the simplex of the data's axes and variances, whichever gave the larger
        p-value (``null="unimodal"``).
    n_clusters : int
        Number of clusters fitted: k when given; without k, the gap statistic's choice
        against the test's references.
    directions : str
        ``"conditional"`` or ``"whitened"``.
    n_components : int
        J, the number of principal directions the statistic looks at (all d
        for ``"whitened"``).
    eigenvalues : ndarray of shape (d,)
        The sample covariance's eigenvalues, largest first (they fix J; without k, of the
        500 points tested when n is larger).
    null : str
        What one cluster is: ``"gaussian"`` with k given; without k, ``"unimodal"`` (the
        default) or ``"gaussian"``.
    k_max : int or None
        Without k: the largest k the statistic looks at; None with k given.
    labels : ndarray of shape (n,)
        The test's own clusters of the data (``model.labels_``): with k given, the partition
        of the whitened scores, not a fit to X itself; without k, ``KGroups(n_clusters)``
        fitted to X. With the user's fit given (``labels=``), renamed after the user's
        labels (their values) by maximum overlap.
    model : KGroups
        The estimator fitted to the whitened scores (n x J) with k given, to X without k.
    agreement : float
        With ``labels=``: the share of points whose (renumbered) test cluster is their
        cluster in the user's fit; NaN otherwise.
    """

    n_clusters: int
    directions: str
    n_components: int
    eigenvalues: np.ndarray = field(repr=False)
    null: str
    k_max: int | None
    model: KGroups = field(repr=False)
    agreement: float = field(default=float("nan"), repr=False)

    @property
    def _title(self) -> str:
        if self.k_max is None:
            return "Energy test of cluster structure against one Gaussian"
        return f"Test of cluster structure over k = 2..{self.k_max} against one {self.null} cluster"

    @property
    def _resamples(self) -> str:
        return "Gaussian samples" if self.null == "gaussian" else "uniform samples"

    @property
    def _statistic_label(self) -> str:
        return "S/T" if self.k_max is None else "largest standardised drop"

    def _extra_lines(self) -> list[str]:
        fit = "the whitened scores (not a fit to X)" if self.k_max is None else "X"
        if np.isnan(self.agreement):
            source = f"clusters of the test's own fit of {self.n_clusters} clusters to {fit}"
        else:
            source = (f"test's clusters renumbered to the given labels; they agree on "
                      f"{self.agreement:.1%} of the points")
        scores = f"{self.n_components} of {self.eigenvalues.size} principal directions"
        return [source, f"statistic on the scores of {scores}"]

    def _null_panels(self) -> tuple[NullPanel, ...]:
        if self.k_max is None:
            title = f"test of {self.n_clusters} clusters against one Gaussian"
            label = "S / T (share of the energy between clusters)"
        else:
            title = f"test of k = 2..{self.k_max} against one {self.null} cluster"
            label = "largest standardised drop of log W"
        return (NullPanel(title, label, self.statistic, self.pvalue,
                          f"{self.n_resamples:,} {self._resamples}", null=self.null_distribution),)


def _principal_scores(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Whitened principal component scores sqrt(n - 1) U (n x d, zero mean, identity
    covariance) and the sample covariance's eigenvalues, largest first, from the SVD of
    the centred data U D V'. Data near the ends of float64 are first divided by a power
    of two (exact; the scores do not depend on the scale)."""
    n = X.shape[0]
    U, D, _ = centred_svd(Scaling.for_data(X, resolve_semimetric()).data(X))
    return U * np.sqrt(n - 1.0), D**2 / (n - 1.0)


def _whiten(X: np.ndarray) -> np.ndarray:
    """:func:`~energystats._linalg.whiten`, after dividing data near the ends of float64 by a
    power of two (exact; the whitened data do not depend on the scale)."""
    return whiten(Scaling.for_data(X, resolve_semimetric()).data(X))


def _exact_split(k: int, options: dict) -> bool:
    """Whether the partition of one-dimensional scores is the exact optimal split of
    :func:`split_1d`: two clusters and |x - y| (the default semimetric)."""
    return (
        k == 2
        and options.get("metric", "euclidean") == "euclidean"
        and options.get("exponent", 1.0) == 1.0
    )


def _share(
    X: np.ndarray, n_clusters: int, seed: np.random.Generator, options: dict, model: bool = False
):
    """S / T of the partition of the whitened X (and the fitted KGroups with ``model``).
    One-dimensional data with two clusters and |x - y| get the exact optimal split."""
    Y = _whiten(X)
    if Y.shape[1] == 1 and _exact_split(n_clusters, options):
        split = split_1d(Y[:, 0])
        share = split.S / (split.S + split.W)
        if not model:
            return share
        fit_options = {
            name: value for name, value in options.items() if name not in ("init", "n_init")
        }
        return share, KGroups(2, init=split.labels, random_state=seed, **fit_options).fit(Y)
    fit = KGroups(n_clusters, random_state=seed, **options).fit(Y)
    share = fit.objective_ / (fit.objective_ + fit.W_)
    return (share, fit) if model else share


def align_labels(labels: np.ndarray, reference) -> tuple[np.ndarray, float]:
    """``labels`` (clusters numbered by the test) renamed after the ``reference`` labels: each
    cluster takes the reference label it shares the most points with (the assignment of
    largest total overlap: Hungarian algorithm, ``scipy.optimize.linear_sum_assignment``),
    and the share of points on which they then agree.

    The reference labels may be of any kind (integers, R's numeric codes, strings, pandas
    categories): they are compared as values, never converted to integers. Clusters left
    without a partner (more clusters than reference labels) take numbers after the largest
    reference label when those are numbers, else the name ``"cluster <i>"``, i the test's
    own number of the cluster. Labels that are not numbers come back as an object array."""
    ours, mine = np.unique(labels, return_inverse=True)
    mine = mine.ravel()
    yours, theirs = as_labels(reference, mine.size, "labels")
    overlap = np.zeros((ours.size, theirs.size), dtype=np.int64)
    np.add.at(overlap, (mine, yours), 1)
    rows, cols = linear_sum_assignment(overlap, maximize=True)
    partner = np.full(ours.size, -1)
    partner[rows] = cols
    spare = np.flatnonzero(partner < 0)
    if theirs.dtype.kind in "iuf":  # widened: the spare numbers after the largest must fit
        wide = {"i": np.int64, "u": np.uint64, "f": np.float64}[theirs.dtype.kind]
        names = np.empty(ours.size, dtype=wide)
        names[spare] = theirs.max() + 1 + np.arange(spare.size)
    else:
        names = np.empty(ours.size, dtype=object)
        taken = set(theirs.tolist())
        for i in spare:
            name = f"cluster {ours[i]}"
            while name in taken:
                name += "'"
            names[i] = name
    names[rows] = theirs[cols]
    return names[mine], float(np.mean(partner[mine] == yours))


def check_kgroups_options(options: dict, where: str) -> None:
    """Refuse, naming ``where``, a keyword that is neither the function's own nor an option of
    :class:`KGroups` (where it would be passed on), with the name meant when it is a known
    one (``method`` of cluster_test was renamed ``directions``)."""
    unknown = sorted(set(options) - set(inspect.signature(KGroups).parameters))
    if unknown:
        hint = (
            " Which principal directions cluster_test looks at is `directions` (e.g. "
            "directions='whitened')."
            if "method" in unknown
            else ""
        )
        raise TypeError(
            f"{where}() got unexpected keyword argument(s) {', '.join(map(repr, unknown))}: it "
            f"takes its own options and those of KGroups, which it passes on.{hint}"
        )


def _null_shares(streams, n: int, d: int, k: int, options: dict) -> np.ndarray:
    """S / T of the procedure on one sample of N(0, I_d) of size n per stream (a block of the
    resampling loop, in this process or as a joblib task)."""
    return np.array([_share(s.standard_normal((n, d)), k, s, options) for s in streams])


@front_door(("X", "labels"), columns=("labels",), names=("X",))
def cluster_test(
    X,
    n_clusters: int | None = None,
    *,
    k_max: int = 10,
    null: str = "unimodal",
    directions: str = "conditional",
    n_components: int | None = None,
    n_resamples: int = 199,
    rng=None,
    progress: bool | None = None,
    n_jobs=None,
    labels=None,
    nan_policy: str = "raise",
    **kgroups_options,
) -> ClusterTestResult:
    r"""Test whether data hold more cluster structure than one cluster would show.

    Without k (``n_clusters=None``): is there cluster structure at all? The drops of k-means'
    within sum of squares over k = 2..k_max, standardised, are compared with those of
    references of one cluster of the same size, axes and variances (``null``); this is the
    first test of :func:`choose_k` (the same p-value for the same ``rng``, ``k_max``,
    ``null`` and ``n_resamples``).

    With k: clusters the whitened principal component scores of the data with
    :class:`KGroups` and takes the share of energy the partition explains, S / T
    (eq. 16, 18). The p-value compares it with the same procedure applied to samples
    of N(0, I_J) of the same size, and is exact for Gaussian data, whatever their mean
    and covariance.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Data; needs n > d + 1.
    n_clusters : int, default=None
        Number of clusters k >= 2; None: the test over k = 2..k_max.
    k_max : int, default=10
        Without k: the largest k the statistic looks at (2 <= k_max < n).
    null : {"unimodal", "gaussian"}, default="unimodal"
        Without k: what one cluster is, as in :func:`choose_k`: uniform references on the
        box and the simplex of the data's principal axes and variances (a Gaussian, uniform,
        skewed or rounded cluster is one cluster), or whitened Gaussian samples (exact for
        one Gaussian). With k the null is one Gaussian.
    directions : {"conditional", "whitened"}, default="conditional"
        With k: which principal directions the statistic looks at. ``"conditional"``: it looks at
        the J leading principal directions that stand out from a spherical noise floor
        (:func:`signal_dimension`, at least k - 1), where clusters put their variance;
        powerful in 5-10 dimensions.
        ``"whitened"``: all d directions (J = d), affine invariant; it detects
        clusters along any direction, however small its variance, but loses power
        quickly as d grows. Both have exact level.
    n_components : int, default=None
        With k: J, overriding the choice of ``"conditional"`` (1 <= J <= d; J = d is
        ``"whitened"``). Fix it before looking at the data for the level to hold.
    n_resamples : int, default=199
        Number of reference samples (199, not 999: each one is clustered as the data are).
    rng : int, numpy.random.Generator or None, default=None
        The seed: an int, a Generator (advanced in place) or None (fresh entropy).
        It seeds the clustering of X and every reference sample and its clustering.
    progress : bool or None, default=None
        Show a progress bar (tqdm).
    n_jobs : int, default=None
        With k: joblib's ``n_jobs``: the Gaussian resamples, independent fits each with
        its own random stream, run as joblib tasks (on a Dask cluster inside
        ``joblib.parallel_config(backend="dask")``); the result is the same
        whatever ``n_jobs``.
    labels : array_like of shape (n,), default=None
        The user's clusters of X (e.g. ``KGroups(k).fit(X).labels_``, or a column of known
        classes such as iris' ``"Species"``, by name or as values). The test clusters
        the whitened scores, not X, so its partition is its own; given ``labels``, the
        test's clusters are renamed after them by maximum overlap (Hungarian
        algorithm) and ``agreement`` says on what share of the points they agree. Labels
        of any kind are labels (integers, R's numeric codes ``c(1.5, 2.5)``, strings,
        categories): compared as values, never truncated to integers. The p-value does
        not depend on them.
    data_name : str, default=None
        The result's ``data_name`` (R's ``data.name``); None: the pandas names of the data,
        else the parameter names.
    **kgroups_options
        Options of :class:`KGroups` (without k, of the one fit that gives ``labels``:
        ``algorithm``, ``exponent``, ``metric``
        among "euclidean", "exponential", "gaussian", ``sigma``, ``init``,
        ``n_init``, ``max_iter``). Each resample is a full fit. ``n_init``
        defaults to 3 here (KGroups' own default is 10): three k-means++ starts per
        fit, on the data and on every resample alike, which keeps the level exact
        (see Notes). With J = 1, k = 2 and
        :math:`|x - y|` the partition is the exact optimal split
        (:func:`split_1d`) instead.
    nan_policy : {"raise", "omit"}, default="raise"
        A row with a missing value (NaN, None, pandas NA, masked, or R's NA) in ``X`` or
        ``labels``: ``"raise"`` an error, ``"omit"`` drop the row of both; the result's
        ``n_omitted`` counts them.
        ``labels`` is -1 on the rows dropped.

    Returns
    -------
    ClusterTestResult

    Notes
    -----
    Without k. The data's J principal scores (:func:`signal_dimension`; all axes, at most
    ten, when no axis stands out, as for clusters arranged symmetrically) give the drops
    :math:`D_k = \log W_1 - \log W_k` of k-means, k = 2..k_max, in J dimensions and on the
    first axis alone; each is standardised by its mean and standard deviation over the data
    and B references, and the statistic is the largest. The references are drawn and
    treated alike, so the p-value is exact when the data are distributed as a reference: one
    uniform box of the data's variances (``"unimodal"``; a convex cluster that splits no
    more easily is called clustered at most as often), or one Gaussian (``"gaussian"``, by
    the argument below). One test over all k, not a test per k: clusters arranged
    symmetrically, which no split in two separates better than one Gaussian is split, are
    found by the k that does separate them.

    With k. Exactness. Under H0 the rows of X are independent N(mu, Sigma). With
    :math:`X - \mathbf 1\bar x^\top = U D V^\top` (thin SVD), the sample covariance
    is :math:`S = V D^2 V^\top / (n - 1)`, and the centred data are invariant in
    distribution under every rotation of :math:`\mathbb R^n` that fixes
    :math:`\mathbf 1`, while S is unchanged by it. So, conditionally on S, the frame U
    is uniformly distributed (Haar) on the orthonormal d-frames orthogonal to
    :math:`\mathbf 1`, whatever mu and Sigma. J and the principal directions are
    functions of S; the first J whitened scores :math:`\sqrt{n-1}\,U_J` are then a
    uniform J-frame, distributed exactly as the whitened scores of a sample of
    N(0, I_J) of size n. The statistic is a function of these scores, so its
    conditional null distribution, given S, is the one simulated, and the Monte Carlo
    p-value :math:`(1 + \#\{t^* \ge t\}) / (B + 1)` has exact level conditionally on
    S, hence unconditionally: for isotropic and spiked covariances alike. SigClust
    instead plugs estimated eigenvalues into its simulation, and its level is only
    approximate.

    Power. Two clusters add their between-cluster variance to the direction that
    separates them, which becomes a leading principal direction; ``"conditional"``
    looks there and ignores the d - J directions of noise, which dilute the
    statistic of ``"whitened"`` (measured power in the user guide). Clusters along a
    direction of small variance, hidden below Gaussian directions of larger variance
    and not selected by :func:`signal_dimension`, are missed by ``"conditional"``:
    ``"whitened"`` or a larger ``n_components`` looks at every direction.

    Speed. Each resample is a k-groups fit of n points, so the test costs about
    n_resamples + 1 fits. A fit's restarts only sharpen the statistic, a maximum over
    starts; the level is exact for any fixed procedure applied alike to the data and to
    the resamples, so three starts per fit (the default ``n_init=3``, where it was ten)
    keep it exact at about a third of the cost (the kernel is built once per fit either
    way). Power, measured pairwise on the same 200 data sets with the same seeds: 0.850 with
    ten starts and 0.835 with three on two clusters 3 apart (n = 100), 0.815 and 0.810 on
    three clusters (n = 90), the level 0.075 and 0.065 (``docs/validation.md``).
    ``n_init=10`` restores the previous procedure. A fit's products have k columns, so the
    resamples run with one BLAS thread (more threads only spin); ``n_jobs`` spreads them over
    processes.

    Limitation: with k, a unimodal but non-Gaussian population (skewed, heavy tailed) can be
    called clustered; that test is against one Gaussian, not against unimodality (without k,
    ``null="unimodal"`` is).

    Comparing the found clusters on *other* variables, not used to form them, is
    valid with :func:`energy_test` (or, on the same variables with known noise
    covariance, with :func:`thinned_cluster_comparison`).

    References
    ----------
    Y. Liu, D. N. Hayes, A. Nobel and J. S. Marron, "Statistical significance of
    clustering for high-dimension, low-sample size data", JASA 103 (2008).
    D. N. Lawley, "Tests of significance for the latent roots of covariance and
    correlation matrices", Biometrika 43 (1956).

    Examples
    --------
    >>> import numpy as np, energystats as es
    >>> rng = np.random.default_rng(0)
    >>> two = rng.normal(size=(60, 10)); two[30:, 0] += 4.0
    >>> res = es.cluster_test(two, 2, rng=1)
    >>> res.pvalue, res.n_components, res.model.cluster_sizes_.tolist()
    (0.005, 1, [30, 30])
    >>> es.cluster_test(two, 2, directions="whitened", rng=1).pvalue  # all 10 directions
    0.12

    Without k, against one unimodal cluster over k = 2..10 (and the clusters it finds):

    >>> res = es.cluster_test(two, rng=1)
    >>> res.pvalue, res.n_clusters
    (0.005, 2)

    The clusters may then be compared validly on an outcome that was not
    used to form them (here unrelated to the clusters):

    >>> outcome = rng.normal(size=60)
    >>> p = es.energy_test(outcome, res.labels, rng=2).pvalue
    >>> bool(p > 0.05)
    True
    """
    X = as_data(X, "X")
    n, d = X.shape
    B, progress = check_resamples(n_resamples), check_progress(progress)
    if directions not in ("conditional", "whitened"):
        raise ValueError(f"`directions` must be 'conditional' or 'whitened', got {directions!r}.")
    if n <= d + 1:
        raise ValueError(f"`X` needs more samples than features + 1 (n = {n}, d = {d}).")
    if n_clusters is None:
        return _omnibus(X, k_max, null, directions, n_components, (B, progress), rng, labels,
                        kgroups_options)
    k = check_n_clusters(n_clusters, n, minimum=2)
    if n_components is not None:
        J = check_positive_int(n_components, "n_components")
        if J > d:
            raise ValueError(
                f"`n_components` must be at most the number of features ({d}), got {J}."
            )
        if directions == "whitened" and J != d:
            raise ValueError(
                f"`directions`='whitened' uses all {d} directions; `n_components`={J} needs "
                "directions='conditional'."
            )
    check_kgroups_options(kgroups_options, "cluster_test")
    metric = kgroups_options.get("metric", "euclidean")
    if not (isinstance(metric, str) and metric in ("euclidean", "exponential", "gaussian")):
        raise ValueError(
            "`metric` must be 'euclidean', 'exponential' or 'gaussian': the null needs a "
            "rotation-invariant semimetric."
        )
    # checked here too: the exact split of one direction takes no restarts
    if "n_init" in kgroups_options:
        check_n_init(kgroups_options["n_init"], n)
    n_jobs = check_n_jobs(n_jobs)
    if labels is not None:
        as_labels(labels, n, "labels")  # refused before any fit
    kgroups_options = {"n_init": N_INIT, **kgroups_options}
    scores, eigenvalues = _principal_scores(X)
    if n_components is None:
        n_components = (
            d if directions == "whitened" else signal_dimension(eigenvalues, n, minimum=k - 1)
        )
    J = int(n_components)
    gen = as_generator(rng)
    # the data's stream, then one per resample: spawned as gen.spawn(B + 1) at once would be
    statistic, model = _share(scores[:, :J], k, gen.spawn(1)[0], kgroups_options, model=True)
    # each resample a whole fit with its own stream: joblib tasks of a few when n_jobs gives
    # workers (worth it from PROCESS_WORK), with one BLAS thread: a fit's products are thin
    work = B * n * n * (J + k * kgroups_options["n_init"])
    workers = n_workers(n_jobs, work)  # one: a resample a call, so that a bar moves with each
    calls = [dict(streams=part) for part in np.array_split(
        np.array(gen.spawn(B), dtype=object), B if workers == 1 else min(B, 4 * workers))]
    with blas_for(0.0):
        null = np.concatenate(run_tasks(_null_shares, calls, n_jobs, work=work,
                                        shared=dict(n=n, d=J, k=k, options=kgroups_options),
                                        progress=progress, desc="Gaussian resamples"))
    check_observed(statistic, "the cluster test's statistic S / T")
    found, agreement = (model.labels_, float("nan"))
    if labels is not None:
        found, agreement = align_labels(model.labels_, labels)
    return ClusterTestResult(
        statistic=float(statistic),
        # S / T in [0, 1]: a ratio of sums over the n^2 pairs, sqrt of the run of their
        # additions (Higham 2002, eq. 4.4) the scale of its rounding
        pvalue=pvalue(statistic, null, scale=float(n),
                      what="the cluster test's statistic S / T"),
        null_distribution=null,
        n_resamples=B,
        n_clusters=k,
        directions=directions,
        n_components=J,
        eigenvalues=eigenvalues,
        null="gaussian",
        k_max=None,
        labels=found,
        model=model,
        agreement=agreement,
    )


def _omnibus(X, k_max, null, directions, n_components, options, rng, labels, options_):
    """cluster_test without k: the test of one cluster over k = 2..k_max (:func:`node_test`,
    the first test of :func:`choose_k`), and ``KGroups`` with the k its references point to
    fitted to X."""
    n = X.shape[0]
    k_max = check_positive_int(k_max, "k_max", minimum=2)
    if k_max >= n:
        raise ValueError(f"`k_max` must be below the number of samples ({n}), got {k_max}.")
    if null not in ("unimodal", "gaussian"):
        raise ValueError(f"`null` must be 'unimodal' or 'gaussian', got {null!r}.")
    if directions != "conditional" or n_components is not None:
        raise ValueError(
            "`directions` and `n_components` choose the directions of the test of a given "
            "`n_clusters`; without it the test chooses its own."
        )
    check_kgroups_options(options_, "cluster_test")
    if labels is not None:
        as_labels(labels, n, "labels")  # refused before any fit
    gen = as_generator(rng)
    # the stream of choose_k's first test
    res = node_test(X, null, options[0], k_max, gen.spawn(1)[0].spawn(1)[0],
                    progress=options[1])
    k = max(res.k_split, 2)
    model = KGroups(k, random_state=gen.spawn(1)[0], **options_).fit(X)
    found, agreement = (model.labels_, float("nan"))
    if labels is not None:
        found, agreement = align_labels(model.labels_, labels)
    return ClusterTestResult(
        statistic=res.statistic,
        pvalue=res.pvalue,
        null_distribution=res.null,
        n_resamples=options[0],
        n_clusters=k,
        directions=directions,
        n_components=res.components,
        eigenvalues=res.eigenvalues,
        null=null,
        k_max=k_max,
        labels=found,
        model=model,
        agreement=agreement,
    )
