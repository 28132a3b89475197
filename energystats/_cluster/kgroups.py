"""Kernel k-groups (Hartigan) and weighted kernel k-means (Lloyd) for energy clustering:
the estimator. The partition and its moves are in :mod:`._partition`, the starts and the
runs from them in :mod:`._starts`, the rule for new points in :mod:`._assignment`, the
mini-batch path and the choice of the Nyström path in :mod:`._minibatch`, the checks of the
parameters and the data in :mod:`._problem`.

Minimise the within dispersion W (eq. 15) over partitions into k groups, or
equivalently maximise Q = sum_j Q_j / s_j with
Q_j = sum_{x, y in C_j} w(x) w(y) K(x, y) (eq. 41), K the kernel that the
semimetric generates (eq. 7).

References
----------
G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-Groups via Hartigan's
Method", IEEE TPAMI (2020), Section 4, Algorithms 1 and 2, eq. (41)-(50).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from .._config import check_fits
from .._frontdoor import ALL_ROWS, front_door
from .._homogeneity import dispersion
from .._operator import (
    Kernel,
    PairwiseOperator,
    Repeated,
    approximation_of,
    dense_bytes,
    indicator,
    make_operator,
    nystroem_map,
)
from .._parallel import n_workers, run_tasks
from .._random import stream_source
from .._results import ReportsWhenFitted
from .._semimetric import Scaling, resolve_semimetric
from .._validation import numeric_columns
from ._assignment import feature_assignment, make_assignment
from ._inputs import fit_array
from ._minibatch import minibatch_fit, nystroem_path
from ._partition import GAIN_RTOL, TINY, canonical_order, within
from ._problem import Problem, validate
from ._report import kgroups_report
from ._starts import restarts, start_points

__all__ = ["KGroups"]

# --- Estimator -----------------------------------------------------------------------


class KGroups(ReportsWhenFitted, ClusterMixin, BaseEstimator):
    r"""Energy clustering: kernel k-groups (Hartigan) and weighted kernel k-means (Lloyd).

    Minimises the within-group energy dispersion W (eq. 15), equivalently
    maximises Q = sum_j Q_j / s_j (eq. 41) in the feature space of the
    kernel that the semimetric generates (eq. 7).

    Parameters
    ----------
    n_clusters : int
        Number of groups k.
    algorithm : {"hartigan", "lloyd", "r-kgroups"}, default="hartigan"
        ``"hartigan"``: kernel k-groups, Algorithm 2 with the exact gain of
        eq. (50). ``"lloyd"``: weighted kernel k-means, Algorithm 1 with q
        maintained exactly (eq. 48-49). ``"r-kgroups"``: R
        ``energy::kgroups``'s update rule (Euclidean, exponent 1, unit
        weights), which reproduces R's labels from the same start. The
        mini-batch Nyström path (``path_``) ends with Lloyd's passes whatever
        ``algorithm``.
    metric : str or callable, default="euclidean"
        The semimetric (see :func:`pairwise_semimetric`): ``"euclidean"``,
        ``"exponential"``, ``"gaussian"``, ``"nearest_neighbors"``, ``"precomputed"``,
        ``"precomputed_kernel"`` or a callable; ``"precomputed"`` takes a distance matrix,
        ``"precomputed_kernel"`` a Gram matrix. ``"nearest_neighbors"``: the points'
        nearest-neighbour graph (eq. 34-35), each point weighted by its degree (times
        ``sample_weight``): W is the normalized cut; sparse, exact at every n
        (``docs/kernels.md``: which kernel for which shapes).
    exponent : float, default=1.0
        alpha in (0, 2] for ``"euclidean"`` (eq. 52).
    sigma : float, default=None
        Scale of ``"exponential"`` (eq. 53) and ``"gaussian"`` (eq. 54); ``None``: half the
        median distance between the points (over at most 1,000 of them evenly spaced), at
        which both kernels are :math:`e^{-1/2}` (``sigma_``; measured in ``docs/kernels.md``).
    n_neighbors : int, default=None
        m of ``"nearest_neighbors"``; ``None``: ``ceil(ln n)`` (von Luxburg 2007).
    init : str or array of shape (n_samples,), default="auto"
        Start: ``"auto"`` (``"spectral"`` on a graph, ``"k-means++"`` otherwise), greedy
        ``"k-means++"`` in feature space, balanced ``"random"`` labels, ``"spectral"`` (the
        top-k eigenvectors U of the centred weighted Gram matrix, eq. 29, once per fit, each
        start's weighted k-means on the rows of :math:`\mathcal W^{-1/2} U`),
        ``"power-kmeans"`` (the labels of :class:`PowerKMeans` on the points), or labels (one
        run): any k distinct values, such as R's 1-based clusters, the sorted values becoming
        groups 0..k-1 (so ``labels_ + 1`` compares with R's ``cluster``).
    n_init : int, default=10
        Restarts from independent random streams; the best objective is kept. At most
        10,000, with the n labels of every restart within the working memory.
    max_iter : int, default=300
        Maximum number of sweeps per run.
    random_state : int, numpy.random.Generator or None, default=None
    n_jobs : int, default=None
        joblib's ``n_jobs``: the restarts run as joblib tasks (on a Dask
        cluster inside ``joblib.parallel_config(backend="dask")``), each with
        its own random stream, so the result is the same whatever ``n_jobs``;
        a single start spreads the passes of a streamed operator over the
        workers instead.
    approximation : {None, "nystroem"}, default=None
        ``"nystroem"``: fit on Nyström features Φ (n x m) with
        :math:`\Phi\Phi^\top \approx G` from ``n_landmarks`` landmarks
        (Wang, Gittens & Mahoney 2019), for n beyond what exact k-groups can
        afford: memory O(n m), a Hartigan move O(m k). Needs the points (no
        precomputed matrix) and ``algorithm`` "hartigan" or "lloyd". When the
        features do not fit the working memory (:func:`set_config`), the fit
        takes the mini-batch path of ``batch_size`` by itself (``path_``).
    n_landmarks : int, default=300
        m, the number of landmarks for ``approximation="nystroem"``
        (capped at n). At 300 the accuracy was within 0.005 of exact k-groups
        in every setting of ``docs/validation.md``; with every point a
        landmark the fit is the exact one.
    landmarks : {"d2", "uniform"}, default="d2"
        How the landmarks are drawn from ``random_state``: k-means++-style D^2
        sampling in the kernel's feature space, or uniformly. D^2 is steadier
        at small m (measured; see ``docs/validation.md``).
    batch_size : int, default=None
        With ``approximation="nystroem"``: mini-batch steps of this many points
        (Sculley 2010), then Lloyd's steps on every point (whatever
        ``algorithm``), the features computed block by block from the landmarks
        and never held (memory O(n) beyond the data instead of 8 n m bytes: for
        samples whose features do not fit the memory budget). The ``n_init``
        starts are compared on a sample of ``3 * batch_size`` points and only
        the best is refined on all of them; ``max_iter`` bounds both the epochs
        of mini-batch steps and the passes over all points. ``None``: the
        features are held when they fit the working memory, else this path
        runs with the largest batch of at most 10,000 points that fits
        (``batch_size_``).
    nan_policy : {"raise", "omit"}, default="raise"
        A row with a missing value (NaN, None, pandas NA, masked) in X, its weight
        or its ``init`` label: ``"raise"`` an error, ``"omit"`` leave it out of the
        fit (label -1 in ``labels_`` and from :meth:`predict`, counted in
        ``n_omitted_``). A precomputed matrix loses the point's row and column.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Group of each point, 0..k-1 (-1 for a row left out for a missing
        value). Groups are numbered by size (total weight), largest first,
        groups of equal size in the order of their first point in the data
        (:func:`._partition.canonical_order`). So a partition gets the same
        labels whatever the start, BLAS kernel, thread count or working memory;
        ``cluster_sizes_`` and :meth:`predict` follow the same numbering.
        ``"r-kgroups"`` keeps R's numbering.
    W_ : float
        Within dispersion of ``labels_`` (eq. 15), in R's scaling:
        equals ``dispersion(X, labels_).W`` and R ``sum(kgroups(...)$W)``.
        For data near the ends of float64 the fit runs on the data divided
        by a power of two (exact) and W_ is scaled back; reading it raises
        ``OverflowError`` (``ValueError`` on underflow) when it cannot be
        represented, while ``labels_`` stay valid. With
        ``approximation="nystroem"`` it is :math:`\hat W + \sum_i w_i e_i`,
        the features' W plus each point's residual outside the landmarks'
        span: an upper bound on the exact W (the features' W is a lower
        bound), measured within 0.6% of it at the default ``n_landmarks``;
        ``dispersion(X, labels_).W`` gives the exact value at O(n^2) cost.
    objective_ : float
        Q = sum_j Q_j / s_j (eq. 41) of the centred kernel; it equals the
        between-sample statistic S (eq. 16), since Q + W = T (Lemma 1).
        With ``approximation="nystroem"``, T is corrected by the same
        residuals as ``W_``, so ``objective_`` is the features' Q.
    n_iter_ : int
        Sweeps of the best run (R's ``iterations`` in ``"r-kgroups"`` mode; with
        ``batch_size``, Lloyd's passes over all points).
    converged_ : bool
        Whether the best run stopped with no improving move.
    cluster_sizes_ : ndarray of shape (k,)
        Number of points per group.
    sigma_ : float or None
        The scale of ``"exponential"`` or ``"gaussian"``, given or from the data.
    sample_weight_ : ndarray of shape (n_fitted,) or None
        The weights of the points of positive weight: ``sample_weight`` (times the degrees on
        a graph); with them ``dispersion(X, labels_, ...).W`` is ``W_``.
    count_ : int
        ``"r-kgroups"`` only: moves in the last pass (R's ``count``).
    n_omitted_ : int
        Rows left out for missing values (``nan_policy="omit"``).
    path_ : {"exact", "nystroem", "nystroem-minibatch"}
        The path that ran: exact k-groups on the centred kernel (held as a
        matrix or streamed in tiles, with the same result to rounding); Nyström
        features held; or mini-batch steps and Lloyd's passes on features
        computed block by block (``batch_size``, or chosen because the features
        did not fit the working memory).
    batch_size_ : int or None
        The batch of the ``"nystroem-minibatch"`` path (``batch_size``, or the
        largest of at most 10,000 points that fits the working memory); ``None``
        on the other paths.

    Notes
    -----
    The centred kernel is a pairwise operator (see the user guide, "Large
    data"): held as an n x n matrix, shared by all restarts, when it fits the
    working memory (:func:`set_config`), otherwise streamed, a move then
    recomputing the two rows it needs. A run keeps the n x k matrix of
    point-to-group kernel sums and updates two of its columns in O(n) per
    move; every sweep starts with one vectorised O(n k) evaluation of all
    gains and visits only the points that can improve, so a sweep costs
    O(n k + n * moves) and Python-level work scales with the moves. With
    Nyström features the group sums are k x m and a move costs O(m); the
    features take 8 n m bytes (checked against the budget), and with
    ``batch_size`` none are held: memory O(n + b m) beyond the data, O(n m d)
    per pass over all points.

    The path is chosen before anything large is allocated: the exact
    path when no ``approximation`` is asked for (its operator streams when
    the matrix does not fit); with ``approximation="nystroem"``, held
    features when 8 n (m + 1) bytes and the partition's state (8 n (4 k + 8)
    bytes) fit the working memory, otherwise the mini-batch path with the
    largest batch b <= 10,000 that fits (with r = m features, about
    8 b (8 m + k) + 9 n bytes and a band of kernel rows:
    :func:`._minibatch.minibatch_bytes`); :class:`WorkingMemoryError` only when
    not even a batch of one point fits, naming ``working_memory`` and
    ``n_landmarks``.

    ``"r-kgroups"`` follows R's rule, which ignores the factors
    n_j / (n_j - 1) and n_l / (n_l + 1) of the exact Hartigan gain
    (eq. 50); from the same start ``"hartigan"`` can reach a lower W.

    Examples
    --------
    >>> import energystats as es
    >>> iris = es.datasets.load_iris()
    >>> km = es.KGroups(3, random_state=0).fit(iris.iloc[:, :4])
    >>> km.cluster_sizes_  # groups are numbered by size
    array([62, 50, 38])
    >>> round(km.W_, 4), round(km.objective_, 4)  # W + Q = T = 189.5758 (Lemma 1)
    (67.5288, 122.047)
    """

    @front_door()
    def __init__(
        self,
        n_clusters: int,
        *,
        algorithm: str = "hartigan",
        metric="euclidean",
        exponent: float = 1.0,
        sigma: float | None = None,
        n_neighbors: int | None = None,
        init="auto",
        n_init: int = 10,
        max_iter: int = 300,
        random_state=None,
        n_jobs=None,
        approximation: str | None = None,
        n_landmarks: int = 300,
        landmarks: str = "d2",
        batch_size: int | None = None,
        nan_policy: str = "raise",
    ):
        self.n_clusters = n_clusters
        self.algorithm = algorithm
        self.metric = metric
        self.exponent = exponent
        self.sigma = sigma
        self.n_neighbors = n_neighbors
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.landmarks = landmarks
        self.batch_size = batch_size
        self.nan_policy = nan_policy

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = (
            isinstance(self.metric, str) and self.metric in ("precomputed", "precomputed_kernel")
        )
        return tags

    # fitting -----------------------------------------------------------------------

    @front_door(("X", "sample_weight", "init"), distances=("X",), fits=True)
    def fit(self, X, y=None, sample_weight=None):
        """Cluster ``X`` (points, a distance matrix or a Gram matrix, by ``metric``).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features) or (n_samples, n_samples)
        y : ignored
        sample_weight : array_like of shape (n_samples,), default=None
            Non-negative point weights w(x) (eq. 13-15). A point of weight 0 is
            left out of the clustering, exactly as if it were removed, and
            then labelled by :meth:`predict`'s rule; integer weights act as
            repetitions of the points.

        Returns
        -------
        self
        """
        rows = getattr(self, "_rows", ALL_ROWS)  # the front door's (ALL_ROWS inside a call)
        numeric_columns(X, "X")
        init = rows.values.get("init", self.init)
        self._fit(fit_array(self, X), sample_weight, init)
        # predict on a precomputed matrix takes distances to every row passed to fit
        self._columns = rows.kept if self.metric == "precomputed" else None
        return self

    def _fit(self, X, sample_weight, init):
        """Fit to complete rows (see :meth:`fit`)."""
        problem = validate(self, X, sample_weight, init)
        k, sm, kept = problem.k, problem.semimetric, problem.kept
        # a Gram matrix scales like a precomputed distance matrix
        scaling = Scaling.for_data(
            problem.data, sm if sm is not None else resolve_semimetric("precomputed")
        )
        full, sm_fit = scaling.data(problem.data), (None if sm is None else scaling.semimetric(sm))
        fit_data, fit_w = full, problem.weights
        if kept is not None:
            fit_w = fit_w[kept]
            if sm is not None and not sm.precomputed:
                fit_data = full[kept]
            else:
                check_fits(
                    f"the {kept.size} x {kept.size} matrix of the points of positive weight",
                    dense_bytes(kept.size),
                )
                fit_data = full[np.ix_(kept, kept)]
        self.sigma_ = None if sm is None else sm.sigma
        self.sample_weight_ = None if fit_w is None else np.ldexp(fit_w, problem.weight_shift)
        n = fit_data.shape[0]
        gen = stream_source(self.random_state, "random_state")
        streams = gen.spawn(1 if problem.start is not None else problem.n_init)  # one per start
        # partition state, indicators and products beside the matrix or features
        reserve = 8 * n * (4 * k + 8)
        path, batch = ("exact", None)
        if self.approximation is not None:
            path, batch = nystroem_path(
                n, k, min(self.n_landmarks, n), reserve, self.batch_size, problem.start is not None
            )
        self.path_, self.batch_size_ = path, batch
        if path == "nystroem-minibatch":
            labels, W, T, passes, converged = self._fit_minibatch(
                full, fit_data, sm_fit, fit_w, problem, streams, gen.spawn(1)[0], batch
            )
            return self._fitted(
                labels, W, T, passes, converged, scaling.weighted(problem.weight_shift), k, None
            )
        distribute = len(streams) > 1 and n_workers(self.n_jobs) > 1  # restarts as joblib tasks
        kernel = Kernel(fit_w) if self.algorithm != "r-kgroups" else None
        estimate = approximation_of(
            self.approximation, kernel=kernel is not None, n_landmarks=self.n_landmarks,
            landmarks=self.landmarks, rng=gen.spawn(1)[0] if self.approximation else None,
        )
        jobs = None if distribute else self.n_jobs  # else one start's passes may use the workers
        op = make_operator(fit_data, sm_fit, Repeated(reserve), kernel=kernel,
                           approximation=estimate, n_jobs=jobs)
        labels, W, T, within_, iterations, converged, count = self._fit_operator(
            op, fit_data, fit_w, problem, streams, distribute, gen.spawn(1)[0]
        )
        if op.features is not None:
            # The features leave out each point's residual e_i = E_ii outside the landmarks'
            # span (E = K - Phi Phi' is positive semidefinite). With D_il = K_ii + K_ll - 2 K_il,
            # W = W_hat + sum_i w_i e_i - sum_j w_j' E_jj w_j / s_j, so
            # W_hat <= W <= W_hat + sum w e: the upper bound, which drops only the residual's
            # group means, is reported.
            unit_w = np.ones(n) if fit_w is None else fit_w
            extra = np.bincount(labels, weights=unit_w * op.residual, minlength=k)
            W, T = W + extra.sum(), T + extra.sum()
            within_ = within_ + 2.0 * extra / np.bincount(labels, weights=unit_w, minlength=k)
        if self.algorithm != "r-kgroups":  # R's numbering is part of what r-kgroups reproduces
            order = canonical_order(labels, fit_w, k)
            labels, within_ = np.argsort(order)[labels], within_[order]
        # W_j = s_j / 2 g(C_j, C_j) of each cluster (eq. 15), R kgroups' `within`; they sum to W
        within_W = (
            np.bincount(labels, weights=np.ones(n) if fit_w is None else fit_w, minlength=k)
            / 2.0 * within_
        )
        # a new point's weight, as the fitted weights are scaled
        unit = float(np.ldexp(1.0, -problem.weight_shift))
        # the rule for new points (predict's), which also places the points of weight 0;
        # it keeps the points of positive weight and g(C_l, C_l), or the Nyström map and the
        # feature sums: no n x n array
        self._assignment = make_assignment(
            op, sm_fit, fit_data, kept, labels, np.ones(n) if fit_w is None else fit_w, within_, k,
            unit,
        )
        if kept is not None:  # the points of weight 0 go where predict would put them
            dropped = np.setdiff1d(np.arange(full.shape[0]), kept)
            all_labels = np.empty(full.shape[0], dtype=np.intp)
            all_labels[kept] = labels
            all_labels[dropped] = self._assignment(
                full[dropped], np.diag(full)[dropped] if sm is None else None
            )
            labels = all_labels
        if self.algorithm == "r-kgroups":
            self.count_ = count
        return self._fitted(
            labels, W, T, iterations, converged, scaling.weighted(problem.weight_shift), k, within_W
        )

    def _fitted(self, labels, W, T, iterations, converged, scaling, k, within_W):
        """Set the fitted attributes; returns self."""
        if not converged:
            warnings.warn(
                f"KGroups did not converge within max_iter={self.max_iter} sweeps; increase "
                "`max_iter`.",
                ConvergenceWarning, stacklevel=3,
            )
        self.labels_ = labels
        self._scaling, self._statistics, self._within = scaling, (W, T - W), within_W
        self.n_iter_ = int(iterations)
        self.converged_ = bool(converged)
        self.cluster_sizes_ = np.bincount(labels, minlength=k)
        return self

    def _fit_minibatch(
        self, full, points, sm, w, problem: Problem, streams: list, stream, batch: int
    ):
        """Mini-batch steps of ``batch`` points and Lloyd's passes on Nystroem features computed
        block by block (:mod:`._minibatch`): labels, W, T, passes, converged."""
        k, kept = problem.k, problem.kept
        feature_map = nystroem_map(points, sm, w, self.n_landmarks, stream, self.landmarks)
        fit = minibatch_fit(
            points, w, feature_map, k, problem.init, batch, problem.max_iter, streams, stream
        )
        order = canonical_order(fit.labels, w, k)
        labels = np.argsort(order)[fit.labels]
        s = np.bincount(labels, weights=w, minlength=k)
        self._assignment = feature_assignment(
            fit.feature_map, fit.S[order], s, float(np.ldexp(1.0, -problem.weight_shift))
        )
        if kept is not None:  # the points of weight 0 go where predict would put them
            all_labels = np.empty(full.shape[0], dtype=np.intp)
            all_labels[kept] = labels
            dropped = np.setdiff1d(np.arange(full.shape[0]), kept)
            all_labels[dropped] = self._assignment(full[dropped])
            labels = all_labels
        return labels, fit.W, fit.T, fit.passes, fit.converged

    @property
    def W_(self) -> float:
        """Within dispersion of ``labels_`` (eq. 15); see the class's Attributes."""
        check_is_fitted(self)
        return self._scaling.result(self._statistics[0], "W_")

    @property
    def objective_(self) -> float:
        """Q = S of ``labels_`` (eq. 41, 16); see the class's Attributes."""
        check_is_fitted(self)
        return self._scaling.result(self._statistics[1], "objective_")

    def _report(self):
        return kgroups_report(self)

    def _fit_operator(
        self, op: PairwiseOperator, points: np.ndarray, w, problem: Problem, streams: list,
        distribute: bool, stream,
    ):
        """Fit to the points of positive weight on their operator ``op``: labels, W, T,
        g(C_l, C_l), sweeps, converged, count.

        Every start has its own random stream (spawned from ``random_state``), so the
        restarts can run as joblib tasks (``distribute``), each building its own copy of
        the operator from its recipe, with the same results as in order here; the best
        start is chosen in start order, a later one only when better by more than rounding.
        The spectral embedding is computed once (``stream`` starts its Lanczos iterations).
        """
        n, k = op.n, problem.k
        init = problem.init if problem.start is None else problem.start
        unit_w = np.ones(n) if w is None else w
        points = start_points(init, op, points, unit_w, k, stream, self.algorithm == "r-kgroups")
        options = dict(
            weights=w, k=k, algorithm=self.algorithm, init=init, max_iter=problem.max_iter
        )
        if distribute:
            chunks = np.array_split(
                np.arange(len(streams)), min(n_workers(self.n_jobs), len(streams))
            )
            calls = [{"streams": [streams[i] for i in c]} for c in chunks]
            parts = run_tasks(
                functools.partial(restarts, **options), calls, self.n_jobs,
                shared={"build": op.recipe, "points": points},
            )
            results = [r for part in parts for r in part]
        else:
            results = restarts(op.recipe, points, streams=streams, operator=op, **options)
        if self.algorithm == "r-kgroups":
            best = results[0]
            for r in results[1:]:  # a later start must be better by more than rounding
                if r[0] < best[0] - GAIN_RTOL * abs(best[0]):
                    best = r
            _, labels, iterations, count, converged = best
            M = op.quadratic(np.hstack([indicator(labels, k), np.ones((n, 1))]))
            W = float(np.sum(np.diag(M)[:k] / (2.0 * np.bincount(labels, minlength=k))))  # eq. (15)
            T = M[k, k] / (2.0 * n)  # eq. (18)
            # g(C_l, C_l), eq. (13)
            within_ = np.diag(M)[:k] / np.bincount(labels, minlength=k) ** 2
            return labels, W, T, within_, iterations, converged, count
        diag = op.diagonal()
        T = float(unit_w @ diag)
        tol = GAIN_RTOL * max(abs(T), TINY)
        best = results[0]
        for r in results[1:]:  # a later start must be better by more than rounding
            if r[0] > best[0] + tol:
                best = r
        _, labels, iterations, converged = best
        W, within_ = within(op, diag, unit_w, labels, k)
        return labels, W, T, within_, iterations, converged, None

    @front_door(("X", "sample_weight", "init"), distances=("X",), fits=True)
    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit and return ``labels_``."""
        return self.fit(X, sample_weight=sample_weight).labels_

    def _kept_columns(self, X):
        """``predict``'s distances (a precomputed metric) to the rows ``fit`` kept."""
        columns = getattr(self, "_columns", None)
        if columns is None:
            return X
        if np.shape(X)[-1] != columns.size:
            raise ValueError(f"`X` must hold distances to the {columns.size} rows passed to fit, "
                             f"got {np.shape(X)[-1]} columns.")
        if hasattr(X, "iloc"):
            return X.iloc[:, columns]
        return (X if np.ma.isMaskedArray(X) else np.asarray(X))[:, columns]

    @front_door("X", tables=False, prepare={"X": "_kept_columns"})
    def predict(self, X):
        r"""Assign new points to the group whose energy grows least by adding them.

        Adding a point x of unit weight to group l raises W by
        :math:`\frac{s_l}{s_l + 1}\,[g(x, C_l) - \tfrac12 g(C_l, C_l)]`,
        the kernel form of the squared feature-space distance to the group's
        centroid, scaled as in the Hartigan gain (eq. 50).

        Parameters
        ----------
        X : array_like of shape (m, n_features), or (m, n_samples) of
            semimetric values to the training points when ``metric="precomputed"``.

        Returns
        -------
        ndarray of shape (m,)
            The group of each row; -1 for a row with a missing value
            (``nan_policy="omit"``).

        Notes
        -----
        Time O(m n d); memory O(n) per new point, in blocks: the semimetric
        values of a block of new points to the training points, never the
        m x n matrix (a precomputed ``X`` is that matrix already).
        """
        check_is_fitted(self)
        if not self._assignment.predicts:
            raise ValueError(
                "`predict` needs semimetric values to the training points; "
                "metric='precomputed_kernel' has none."
            )
        numeric_columns(X, "X")
        X = self._scaling.data(validate_data(self, X, dtype=np.float64, reset=False))
        if self.metric == "precomputed" and X.min() < 0:
            raise ValueError("`X` must be non-negative for metric='precomputed'.")
        return self._assignment(X)

    def score(self, X, y=None, sample_weight=None) -> float:
        """Minus the objective on ``X``: the within dispersion W of ``X`` grouped by
        :meth:`predict` (``-W_`` on the data fitted), as KMeans' score is minus its inertia,
        so that ``GridSearchCV`` and ``cross_val_score`` need no scorer (greater is better).

        Parameters
        ----------
        X : array_like of shape (m, n_features), or (m, m) when ``metric="precomputed"``
        y : ignored
        sample_weight : array_like of shape (m,), default=None

        Returns
        -------
        float
        """
        labels = self.predict(X)  # -1 on the rows nan_policy="omit" drops, dropped again
        one = np.unique(labels[labels >= 0]).size < 2
        if one:  # W of one group is the total dispersion T, which any two groups give
            labels = (np.arange(labels.size) == np.argmax(labels >= 0)).astype(int)
        res = dispersion(X, labels, metric=self.metric, exponent=self.exponent, sigma=self.sigma,
                         sample_weight=sample_weight, nan_policy=self.nan_policy)
        return -(res.T if one else res.W)
