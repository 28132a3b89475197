"""Sequential tests down a tree of clusters, with family-wise error control: the walk of
:func:`~energystats.significant_clusters`.

The rule of Kimes, Liu, Hayes & Marron (2017, Sec. 3.2). Start from the root (all n points).
A node of m points is tested, at level :math:`\\alpha\\, m / n`, only if its parent was
significant; significant, it is replaced by its children; not significant, it is a final
cluster. The nodes tested at any stage belong to disjoint sets of points, so their levels sum
to at most alpha: when every node that is one cluster is tested validly, the probability of
splitting one of them is at most alpha.

A node is final without a test when it has fewer than ``min_size`` points, or when its level
is below the smallest Monte Carlo p-value 1 / (B + 1) (its test could not be significant, so
the result is the same and the time is saved).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["REASONS", "NodeTest", "Walk", "walk_tree"]

#: Why a cluster is final, as the walk records it.
REASONS = {
    "not significant": "test not significant",
    "min_size": "fewer points than min_size",
    "untestable": "level alpha m / n below 1 / (n_resamples + 1)",
}


@dataclass(frozen=True)
class NodeTest:
    """What a node's test returns to the walk.

    Attributes
    ----------
    pvalue : float
    fields : dict
        Further columns of the node's row (``statistic``, ...), in order.
    children : callable
        ``children()`` -> the child nodes, called only when the node is significant.
    """

    pvalue: float
    fields: dict = field(default_factory=dict)
    children: Callable[[], list] = list


@dataclass(frozen=True)
class Walk:
    """The outcome of :func:`walk_tree`.

    Attributes
    ----------
    rows : list of dict
        One per tested node, in the order of testing: ``node``, ``parent``, ``size``, the test's
        fields, ``pvalue``, ``threshold``, ``significant``.
    final : list of ndarray
        The points of each final cluster, in the order they became final.
    reasons : list of str
        Why each final cluster is final (a key of :data:`REASONS`).
    """

    rows: list
    final: list
    reasons: list

    def frame(self, columns: list[str]) -> pd.DataFrame:
        """The tested nodes as a DataFrame with the given columns."""
        return pd.DataFrame(self.rows, columns=columns)

    def labels(self, n: int) -> np.ndarray:
        """The final clusters as labels 0, 1, ... in the order they became final."""
        labels = np.empty(n, dtype=np.int64)
        for code, points in enumerate(self.final):
            labels[points] = code
        return labels

    def stop(self) -> str:
        """Why the search stopped, in one sentence."""
        counts = {key: self.reasons.count(key) for key in REASONS if key in self.reasons}
        parts = [
            f"{count} cluster{'s' if count > 1 else ''}: {REASONS[key]}"
            for key, count in counts.items()
        ]
        refused = [str(row["node"]) for row in self.rows if not row["significant"]]
        if refused:
            parts[list(counts).index("not significant")] += f" (node {', '.join(refused)})"
        return "; ".join(parts)


def walk_tree(
    root,
    *,
    points_of: Callable,
    test: Callable,
    n: int,
    alpha: float,
    n_resamples: int,
    min_size: int,
    key: Callable = lambda node, index: index,
    on_final: Callable | None = None,
) -> Walk:
    """Walk the tree from ``root`` by the sequential rule (module docstring).

    Parameters
    ----------
    root
        The root node (any object ``points_of`` and ``test`` understand).
    points_of : callable
        ``points_of(node)`` -> the indices (0..n-1) of the node's points.
    test : callable
        ``test(node, points)`` -> :class:`NodeTest`.
    n, alpha, n_resamples, min_size
        The number of points, the family-wise level, the resamples of each test (a node is
        untestable when ``(n_resamples + 1) * alpha * m < n``) and the smallest testable node.
    key : callable
        ``key(node, index)`` -> the node's id in the rows (``index``: its row number).
    on_final : callable, optional
        ``on_final(points)`` when a cluster becomes final (a progress bar).
    """
    rows: list[dict] = []
    final: list[np.ndarray] = []
    reasons: list[str] = []
    pending = [(root, -1)]
    while pending:
        node, parent = pending.pop(0)
        points = points_of(node)
        m = points.size
        reason = None
        if m < min_size:
            reason = "min_size"
        elif (n_resamples + 1) * alpha * m < n:
            reason = "untestable"
        if reason is None:
            outcome = test(node, points)
            threshold = alpha * m / n
            significant = bool(outcome.pvalue <= threshold)
            node_id = key(node, len(rows))
            row = {"node": node_id, "parent": parent, "size": m, **outcome.fields}
            rows.append(
                {
                    **row,
                    "pvalue": outcome.pvalue,
                    "threshold": threshold,
                    "significant": significant,
                }
            )
            if significant:
                pending += [(child, node_id) for child in outcome.children()]
                continue
            reason = "not significant"
        final.append(points)
        reasons.append(reason)
        if on_final is not None:
            on_final(points)
    return Walk(rows, final, reasons)
