"""energystats: energy statistics and energy-based clustering, cross-checked against R.

Energy distance, the DISCO decomposition T = S + W, and the semimetrics of
negative type they are built on (Székely & Rizzo; França, Rizzo & Vogelstein).
"""

from . import datasets
from ._cluster_test import ClusterTestResult, cluster_test, signal_dimension
from ._config import WorkingMemoryError, config_context, get_config, set_config
from ._dispersion import DispersionResult, dispersion, energy_distance
from ._hclust import (
    EnergyHClustResult,
    SignificantClustersResult,
    energy_hclust,
    significant_clusters,
)
from ._kgroups import KGroups
from ._normality import NormalityTestResult, mvnorm_statistic, mvnorm_test
from ._onedim import Split1DResult, split_1d
from ._permutation import (
    EnergyTestResult,
    energy_test,
    energy_test_samples,
    pairwise_energy_tests,
)
from ._power_kmeans import PowerKMeans
from ._semimetric import is_negative_type, kernel_matrix, pairwise_semimetric
from ._thinning import ThinnedComparisonResult, thinned_cluster_comparison

__version__ = "0.1.0"

__all__ = [
    "ClusterTestResult",
    "DispersionResult",
    "EnergyHClustResult",
    "EnergyTestResult",
    "KGroups",
    "NormalityTestResult",
    "PowerKMeans",
    "SignificantClustersResult",
    "Split1DResult",
    "ThinnedComparisonResult",
    "WorkingMemoryError",
    "cluster_test",
    "config_context",
    "datasets",
    "dispersion",
    "energy_distance",
    "energy_hclust",
    "energy_test",
    "energy_test_samples",
    "get_config",
    "is_negative_type",
    "kernel_matrix",
    "mvnorm_statistic",
    "mvnorm_test",
    "pairwise_energy_tests",
    "pairwise_semimetric",
    "set_config",
    "signal_dimension",
    "significant_clusters",
    "split_1d",
    "thinned_cluster_comparison",
]
