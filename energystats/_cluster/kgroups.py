"""Kernel k-groups (Hartigan) and weighted kernel k-means (Lloyd): the estimator. The partition
and its moves are in :mod:`._partition`, the starts in :mod:`._starts`, the rule for new points
in :mod:`._assignment`, the mini-batch path in :mod:`._minibatch`, the checks in
:mod:`._problem`.

References
----------
G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-Groups via Hartigan's Method", IEEE
TPAMI 43 (2021), Section 4, Algorithms 1 and 2, eq. (13)-(18), (41)-(50).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from .._config import check_fits
from .._frontdoor import ALL_ROWS, front_door
from .._homogeneity import dispersion
from .._parallel import n_workers, run_tasks
from .._random import stream_source
from .._results import ReportsWhenFitted
from .._scale import Streamed, pairwise
from .._scale.nystroem import nystroem_features, nystroem_map
from .._semimetric import Scaling, resolve_semimetric
from .._validation import numeric_columns
from ._assignment import Assignment
from ._minibatch import minibatch_fit, nystroem_path
from ._partition import GAIN_RTOL, TINY, FeaturePartition, Partition, canonical_order, indicator
from ._problem import fit_array, validate
from ._report import kgroups_report
from ._starts import restarts, spectral_embedding

__all__ = ["KGroups"]


class KGroups(ReportsWhenFitted, ClusterMixin, BaseEstimator):
    r"""Energy clustering: kernel k-groups (Hartigan) and weighted kernel k-means (Lloyd).

    Minimises the within-group dispersion :math:`W = \sum_j \frac{s_j}{2} g(C_j, C_j)`
    (eq. 15) over partitions into k groups, equivalently maximises the between-sample
    statistic S = T - W (eq. 16, Lemma 1), in the feature space of the kernel the semimetric
    generates (eq. 7).

    Parameters
    ----------
    n_clusters : int
        Number of groups k.
    algorithm : {"hartigan", "lloyd", "r-kgroups"}, default="hartigan"
        ``"hartigan"``: kernel k-groups, Algorithm 2 with the exact gain of eq. (50).
        ``"lloyd"``: weighted kernel k-means, Algorithm 1. ``"r-kgroups"``: R
        ``energy::kgroups``' rule (Euclidean, exponent 1, unit weights), which reproduces R's
        labels from the same start. The mini-batch path runs Lloyd's passes whatever this.
    metric : str or callable, default="euclidean"
        The semimetric (:func:`pairwise_semimetric`): ``"euclidean"``, ``"exponential"``,
        ``"gaussian"``, ``"nearest_neighbors"``, ``"precomputed"`` (a distance matrix),
        ``"precomputed_kernel"`` (a Gram matrix) or a callable. ``"nearest_neighbors"``: the
        points' nearest-neighbour graph (eq. 34-35), each point weighted by its degree (times
        ``sample_weight``), so that W is the normalized cut; sparse, exact at every n
        (``docs/kernels.md``: which kernel for which shapes).
    exponent : float, default=1.0
        alpha in (0, 2] of ``"euclidean"`` (eq. 52).
    sigma : float, default=None
        Scale of ``"exponential"`` (eq. 53) and ``"gaussian"`` (eq. 54); ``None``: half the
        median distance between the points (over at most 1,000 of them evenly spaced), where
        both kernels are :math:`e^{-1/2}` (``sigma_``).
    n_neighbors : int, default=None
        m of ``"nearest_neighbors"``; ``None``: ``ceil(ln n)`` (von Luxburg 2007).
    init : str or array of shape (n_samples,), default="auto"
        ``"auto"`` (``"spectral"`` on a graph, else ``"k-means++"``), greedy ``"k-means++"``
        in feature space, balanced ``"random"`` labels, ``"spectral"`` (weighted k-means on
        the rows of :math:`\mathcal W^{-1/2} U`, U the top-k eigenvectors of the centred
        weighted Gram matrix, eq. 29, computed once per fit), ``"power-kmeans"``
        (:class:`PowerKMeans` on the points), or labels: any k distinct values (R's 1-based
        clusters too), the sorted values becoming groups 0..k-1; one run.
    n_init : int, default=10
        Starts from independent random streams; the least W is kept. At most 10,000, their
        labels within the working memory.
    max_iter : int, default=300
        Most sweeps per run.
    random_state : int, numpy.random.Generator or None, default=None
    n_jobs : int, default=None
        joblib's ``n_jobs``: the starts run as joblib tasks (on a Dask cluster inside
        ``joblib.parallel_config(backend="dask")``) when their work is worth processes, each
        with its own stream, so the result is the same whatever ``n_jobs``; a single start
        spreads the products of a streamed matrix over the workers instead.
    approximation : {None, "nystroem"}, default=None
        ``"nystroem"``: fit on Nyström features Φ (n x m) of ``n_landmarks`` landmarks (Wang,
        Gittens & Mahoney 2019), for n beyond exact k-groups: memory O(n m), a move O(m).
        Needs the points and ``algorithm`` "hartigan" or "lloyd". When the features do not
        fit the working memory (:func:`set_config`), the mini-batch path runs (``path_``).
    n_landmarks : int, default=300
        m (at most n). At 300 the accuracy was within 0.005 of exact k-groups in every
        setting of ``docs/validation.md``; with every point a landmark the fit is exact.
    landmarks : {"d2", "uniform"}, default="d2"
        Landmarks by D^2 sampling in feature space (steadier at small m, measured) or
        uniformly, from ``random_state``.
    batch_size : int, default=None
        With ``approximation="nystroem"``: mini-batch steps of this many points (Sculley
        2010), then Lloyd's passes over all points, the features computed block by block and
        never held (memory O(n) beyond the data); the starts are compared on a sample of
        ``3 * batch_size`` points; ``max_iter`` bounds the epochs and the passes. ``None``:
        the features are held when they fit the working memory, else this path runs with
        the largest batch of at most 10,000 points that fits (``batch_size_``).
    nan_policy : {"raise", "omit"}, default="raise"
        A row with a missing value in X, its weight or its ``init`` label: ``"raise"`` an
        error, ``"omit"`` leave it out (label -1, counted in ``n_omitted_``; a precomputed
        matrix loses the row and the column).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Group of each point, 0..k-1 (-1: omitted). Groups are numbered by total weight,
        largest first, ties in the order of their first point, so a partition gets the same
        labels whatever the start, rounding or path; ``"r-kgroups"`` keeps R's numbering.
    W_ : float
        W of ``labels_`` (eq. 15) in R's scaling: ``dispersion(X, labels_).W``, R's
        ``sum(kgroups(...)$W)``. Data near the ends of float64 are fitted divided by a power
        of two and W_ scaled back (``OverflowError`` or ``ValueError`` when it cannot be
        represented). With ``approximation="nystroem"``, :math:`\hat W + \sum_i w_i e_i`:
        the features' W plus each point's residual outside the landmarks' span, an upper
        bound on the exact W (the features' W is a lower one), within 0.6% at the default
        ``n_landmarks``.
    objective_ : float
        S = T - W (eq. 16, 18), the between-sample statistic (Q of eq. 41); with Nyström
        features T carries the same residuals as ``W_``.
    n_iter_ : int
        Sweeps of the best run (R's ``iterations``; Lloyd's passes with ``batch_size``).
    converged_ : bool
        Whether the best run stopped with no improving move.
    cluster_sizes_ : ndarray of shape (k,)
    sigma_ : float or None
        The scale of ``"exponential"`` or ``"gaussian"``, given or from the data.
    sample_weight_ : ndarray of shape (n_fitted,) or None
        The weights of the points of positive weight (times the degrees on a graph): with
        them ``dispersion(X, labels_, ...).W`` is ``W_``.
    count_ : int
        ``"r-kgroups"`` only: moves in the last pass (R's ``count``).
    n_omitted_ : int
        Rows left out for missing values.
    path_ : {"exact", "nystroem", "nystroem-minibatch"}
        Exact k-groups on D (held, or streamed in tiles: the same result to rounding),
        held Nyström features, or the mini-batch path.
    batch_size_ : int or None
        The batch of the mini-batch path.

    Notes
    -----
    The fit runs on the semimetric matrix D of the points (:func:`energystats._scale.pairwise`:
    held when 8 n^2 bytes fit the working memory, else streamed, a move recomputing the row
    it needs), through the point-to-group sums :math:`A = D Z_w` (n x k) and the groups' pair
    sums B (:mod:`._partition`): a sweep evaluates every gain of eq. (50) at once in O(n k),
    then visits only the points that can improve, each move updating two rows of A in O(n);
    with Nyström features a move costs O(m). The Nyström path holds the features when
    8 n (m + 1) bytes and the partition's 8 n (4 k + 8) fit the working memory, else takes
    the mini-batch path with the largest batch that fits (:func:`._minibatch.minibatch_bytes`);
    :class:`WorkingMemoryError` only when not even one point does.

    ``"r-kgroups"`` leaves out the factors :math:`s_j / (s_j - w_i)` and
    :math:`s_l / (s_l + w_i)` of the exact gain (eq. 50): from the same start ``"hartigan"``
    can reach a lower W.

    Examples
    --------
    >>> import energystats as es
    >>> iris = es.datasets.load_iris()
    >>> km = es.KGroups(3, random_state=0).fit(iris.iloc[:, :4])
    >>> km.cluster_sizes_  # groups are numbered by size
    array([62, 50, 38])
    >>> round(km.W_, 4), round(km.objective_, 4)  # W + S = T = 189.5758 (Lemma 1)
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
        self.n_clusters, self.algorithm, self.metric = n_clusters, algorithm, metric
        self.exponent, self.sigma, self.n_neighbors = exponent, sigma, n_neighbors
        self.init, self.n_init, self.max_iter = init, n_init, max_iter
        self.random_state, self.n_jobs, self.approximation = random_state, n_jobs, approximation
        self.n_landmarks, self.landmarks = n_landmarks, landmarks
        self.batch_size, self.nan_policy = batch_size, nan_policy

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric in ("precomputed", "precomputed_kernel")
        return tags

    @front_door(("X", "sample_weight", "init"), distances=("X",), fits=True)
    def fit(self, X, y=None, sample_weight=None):
        """Cluster ``X`` (points, a distance matrix or a Gram matrix, by ``metric``).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features) or (n_samples, n_samples)
        y : ignored
        sample_weight : array_like of shape (n_samples,), default=None
            Non-negative point weights w(x) (eq. 13-15): a point of weight 0 is left out
            as if removed, then labelled by :meth:`predict`'s rule; integer weights act as
            repetitions.

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
        pb = validate(self, X, sample_weight, init)
        k, sm, kept, gram = pb.k, pb.semimetric, pb.kept, pb.semimetric is None
        # data near the ends of float64 are divided by a power of two (a Gram matrix as a
        # precomputed distance matrix)
        scaling = Scaling.for_data(pb.data, resolve_semimetric("precomputed") if gram else sm)
        full, sm = scaling.data(pb.data), (None if gram else scaling.semimetric(sm))
        if gram:  # its semimetric G_ii + G_jj - 2 G_ij (eq. 8), then as a precomputed matrix
            check_fits(f"the semimetric of the {len(full)} x {len(full)} Gram matrix",
                       8.0 * full.size)
            g = np.diag(full)
            full = np.maximum(g[:, None] + g[None, :] - 2.0 * full, 0.0)
            np.fill_diagonal(full, 0.0)
        matrix = gram or sm.precomputed
        data, w = full, pb.weights
        if kept is not None:
            data, w = (full[np.ix_(kept, kept)] if matrix else full[kept]), w[kept]
        self.sigma_ = None if gram else sm.sigma
        self.sample_weight_ = None if w is None else np.ldexp(w, pb.weight_shift)
        n = data.shape[0]
        w = np.ones(n) if w is None else w
        unit = float(np.ldexp(1.0, -pb.weight_shift))  # a new point's weight, as w is scaled
        gen = stream_source(self.random_state, "random_state")
        streams = gen.spawn(1 if pb.start is not None else pb.n_init)  # one per start
        self.path_, self.batch_size_ = "exact", None
        if self.approximation is not None:
            self.path_, self.batch_size_ = nystroem_path(
                n, k, min(self.n_landmarks, n), 8 * n * (4 * k + 8), self.batch_size,
                pb.start is not None)
        if self.path_ == "nystroem-minibatch":
            return self._fit_minibatch(full, data, sm, w, pb, streams, gen.spawn(1)[0], unit,
                                       scaling)
        # a start: about n moves of O(n) and sweeps of O(n k), 10^4 operations of the
        # interpreter per move; processes only for more than a few seconds of it
        work = len(streams) * n * (n * k + 1e4)
        distribute = len(streams) > 1 and n_workers(self.n_jobs, work) > 1
        Phi = None
        if self.path_ == "nystroem":
            Phi, fmap, residual = nystroem_features(data, sm, w, self.n_landmarks,
                                                    gen.spawn(1)[0], self.landmarks, self.n_jobs)
            D = Streamed(Phi, resolve_semimetric(exponent=2.0))  # rows for k-means++
            T = float(w @ np.einsum("ij,ij->i", Phi, Phi))
        else:
            D = data if matrix else pairwise(data, sm, n_jobs=None if distribute else self.n_jobs)
            T = float(w @ (D @ w) / (2.0 * w.sum()))  # eq. (18)
        tol = GAIN_RTOL * max(abs(T), TINY)
        start = pb.init if pb.start is None else pb.start
        points = None
        if isinstance(start, str) and start == "spectral":  # once per fit
            points = spectral_embedding(D, w, k, gen.spawn(1)[0], Phi)
        elif isinstance(start, str) and start == "power-kmeans":
            points = data if Phi is None else Phi
        options = dict(points=points, w=w, k=k, algorithm=self.algorithm, init=start,
                       max_iter=pb.max_iter, tol=tol, Phi=Phi)
        if distribute:  # the restarts as joblib tasks, each with its own stream
            chunks = np.array_split(np.arange(len(streams)),
                                    min(n_workers(self.n_jobs, work), len(streams)))
            parts = run_tasks(restarts, [{"streams": [streams[i] for i in c]} for c in chunks],
                              self.n_jobs, shared=dict(D=D, **options))
            results = [r for part in parts for r in part]
        else:
            results = restarts(D, streams=streams, **options)
        best = results[0]
        for r in results[1:]:  # a later start must be better by more than rounding
            if r[0] < best[0] - tol:
                best = r
        _, labels, iterations, converged, count = best
        st = Partition(D, w, labels, k) if Phi is None else FeaturePartition(Phi, w, labels, k)
        W, within_ = st.W(), st.within()
        if Phi is not None:
            # The features leave out each point's residual e_i outside the landmarks' span
            # (E = K - Phi Phi' is positive semidefinite): W = W_hat + sum_i w_i e_i -
            # sum_j w_j' E_jj w_j / s_j lies between W_hat and W_hat + sum w e, the upper
            # bound reported.
            extra = np.bincount(labels, weights=w * residual, minlength=k)
            W, T = W + extra.sum(), T + extra.sum()
            within_ = within_ + 2.0 * extra / st.s
        if self.algorithm != "r-kgroups":  # R's numbering is part of what r-kgroups reproduces
            order = canonical_order(labels, w, k)
            labels, within_ = np.argsort(order)[labels], within_[order]
        Zw = indicator(labels, k, w)
        s = Zw.sum(axis=0)
        if Phi is not None:
            self._assignment = Assignment.of_features(fmap, Zw.T @ Phi, s, unit)
        elif not gram and sm.on_graph:  # Q_l / s_l^2 of the graph's kernel: e_l / s_l - g / 2
            e = np.bincount(labels, weights=w * sm.graph.kernel().diagonal(), minlength=k)
            self._assignment = Assignment(s, e / s - within_ / 2.0, Zw, unit, graph=sm.graph)
        else:
            self._assignment = Assignment(
                s, within_ / 2.0, Zw, unit, points=None if matrix else data, semimetric=sm,
                kept=kept, predicts=not gram)
        if kept is not None:  # the points of weight 0 go where predict would put them
            labels = self._place_dropped(full, kept, labels)
        if self.algorithm == "r-kgroups":
            self.count_ = count
        # W_j = s_j / 2 g(C_j, C_j) of each cluster (eq. 15), R kgroups' `within`
        return self._fitted(labels, W, T, iterations, converged,
                            scaling.weighted(pb.weight_shift), k, s / 2.0 * within_)

    def _place_dropped(self, full, kept, labels):
        """All labels: the points of weight 0 placed by the rule of :meth:`predict`."""
        out = np.empty(full.shape[0], dtype=np.intp)
        out[kept] = labels
        dropped = np.setdiff1d(np.arange(full.shape[0]), kept)
        out[dropped] = self._assignment(full[dropped])
        return out

    def _fitted(self, labels, W, T, iterations, converged, scaling, k, within_W):
        """Set the fitted attributes; returns self."""
        if not converged:
            warnings.warn(f"KGroups did not converge within max_iter={self.max_iter} sweeps; "
                          "increase `max_iter`.", ConvergenceWarning, stacklevel=3)
        self.labels_ = labels
        self._scaling, self._statistics, self._within = scaling, (W, T - W), within_W
        self.n_iter_ = int(iterations)
        self.converged_ = bool(converged)
        self.cluster_sizes_ = np.bincount(labels, minlength=k)
        return self

    def _fit_minibatch(self, full, points, sm, w, pb, streams, stream, unit, scaling):
        """Mini-batch steps and Lloyd's passes on Nyström features computed block by block
        (:mod:`._minibatch`)."""
        k = pb.k
        fmap = nystroem_map(points, sm, w, self.n_landmarks, stream, self.landmarks)
        fit = minibatch_fit(points, w, fmap, k, pb.init, self.batch_size_, pb.max_iter,
                            streams, stream)
        order = canonical_order(fit.labels, w, k)
        labels = np.argsort(order)[fit.labels]
        s = np.bincount(labels, weights=w, minlength=k)
        self._assignment = Assignment.of_features(fit.feature_map, fit.S[order], s, unit)
        if pb.kept is not None:
            labels = self._place_dropped(full, pb.kept, labels)
        return self._fitted(labels, fit.W, fit.T, fit.passes, fit.converged,
                            scaling.weighted(pb.weight_shift), k, None)

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
        r"""Assign new points to the group whose W grows least by adding them: by
        :math:`\frac{s_l}{s_l + 1}\,[g(x, C_l) - \tfrac12 g(C_l, C_l)]` for a point of unit
        weight joining group l (eq. 50; :mod:`._assignment`).

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
        Time O(m n d); memory O(n) per new point, in blocks of new points.
        """
        check_is_fitted(self)
        if not self._assignment.predicts:
            raise ValueError("`predict` needs semimetric values to the training points; "
                             "metric='precomputed_kernel' has none.")
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
