"""The declared bases of results, defined in :mod:`energystats._results` (imported from here by
the modules not yet ported to the lean core)."""

from ._results import ClusteringResult, FitPanel, NullPanel, Sample, TestResult

__all__ = ["ClusteringResult", "FitPanel", "NullPanel", "Sample", "TestResult"]
