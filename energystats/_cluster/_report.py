"""What a fitted clustering estimator prints (:class:`~energystats._results.FittedReport`):
``KGroups`` as R's ``print.kgroups``, ``PowerKMeans`` likewise."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._results import FittedReport, _number

__all__ = ["kgroups_report", "power_kmeans_report"]

#: PowerKMeans prints its centres up to this many features
CENTRES_PRINTED = 6


def kgroups_report(model) -> FittedReport:
    """The sizes, the within dispersion W_j of each cluster (R ``kgroups``' ``within``; not on
    the mini-batch path, which has only their sum), W, S and the iterations."""
    sizes = model.cluster_sizes_
    clusters = pd.DataFrame({"size": sizes}, index=pd.RangeIndex(sizes.size, name="cluster"))
    if model._within is not None:
        clusters["within W_j"] = model._scaling.result(model._within, "the within dispersions")
    sweeps = f"{model.n_iter_}, " + (
        "converged" if model.converged_ else "not converged (increase max_iter)"
    )
    details = [
        ("within dispersion W", _number(model.W_)),
        ("between-sample S", _number(model.objective_)),
        (
            "iterations",
            sweeps + (f", count {model.count_}" if model.algorithm == "r-kgroups" else ""),
        ),
    ]
    if model.n_omitted_:
        details.append(("rows omitted", str(model.n_omitted_)))
    if model.path_ != "exact":
        details.append(("path", model.path_))
    return FittedReport("K-groups cluster analysis", clusters, details, model._parameters())


def power_kmeans_report(model) -> FittedReport:
    """The sizes (and centres, up to ``CENTRES_PRINTED`` features), the k-means objective,
    the iterations and the final power s."""
    k, d = model.cluster_centers_.shape
    sizes = np.bincount(model.labels_[model.labels_ >= 0], minlength=k)
    clusters = pd.DataFrame({"size": sizes}, index=pd.RangeIndex(k, name="cluster"))
    if d <= CENTRES_PRINTED:
        names = getattr(model, "feature_names_in_", [f"centre {j}" for j in range(d)])
        for j, name in enumerate(names):
            clusters[str(name)] = model.cluster_centers_[:, j]
    details = [
        ("k-means objective (inertia)", _number(model.inertia_)),
        (
            "iterations",
            f"{model.n_iter_} MM, {model.n_lloyd_iter_} Lloyd; final power s = {_number(model.s_)}",
        ),
    ]
    if model.n_omitted_:
        details.append(("rows omitted", str(model.n_omitted_)))
    return FittedReport("Power k-means cluster analysis", clusters, details, model._parameters())
