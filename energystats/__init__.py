"""energystats: energy statistics and energy-based clustering, cross-checked against R.

Energy distance, the DISCO decomposition T = S + W, and the semimetrics of
negative type they are built on (Székely & Rizzo; França, Rizzo & Vogelstein).
"""

from . import datasets
from ._cluster import (
    ClusterTestResult,
    EnergyHClustResult,
    KGroups,
    PowerKMeans,
    SignificantClustersResult,
    Split1DResult,
    ThinnedComparisonResult,
    cluster_test,
    energy_hclust,
    signal_dimension,
    significant_clusters,
    split_1d,
    thinned_cluster_comparison,
)
from ._config import WorkingMemoryError, config_context, get_config, set_config
from ._gof import NormalityTestResult, mvnorm_statistic, mvnorm_test
from ._independence import (
    DCovStatsResult,
    IndependenceTestResult,
    d_center,
    dcor,
    dcor_test,
    dcor_ttest,
    dcov,
    dcov_stats,
    dcov_test,
    mutual_independence_test,
    mvi,
    mvi_test,
    pdcor,
    pdcor_test,
    pdcov,
    pdcov_test,
    u_center,
    u_product,
)
from ._homogeneity import (
    DispersionResult,
    EnergyTestResult,
    dispersion,
    energy_distance,
    energy_test,
    energy_test_samples,
    pairwise_energy_tests,
)
from ._pairwise import is_negative_type, kernel_matrix, pairwise_semimetric

__version__ = "0.1.0"

__all__ = [
    "ClusterTestResult",
    "DCovStatsResult",
    "DispersionResult",
    "EnergyHClustResult",
    "EnergyTestResult",
    "IndependenceTestResult",
    "KGroups",
    "NormalityTestResult",
    "PowerKMeans",
    "SignificantClustersResult",
    "Split1DResult",
    "ThinnedComparisonResult",
    "WorkingMemoryError",
    "cluster_test",
    "config_context",
    "d_center",
    "datasets",
    "dcor",
    "dcor_test",
    "dcor_ttest",
    "dcov",
    "dcov_stats",
    "dcov_test",
    "dispersion",
    "energy_distance",
    "energy_hclust",
    "energy_test",
    "energy_test_samples",
    "get_config",
    "is_negative_type",
    "kernel_matrix",
    "mutual_independence_test",
    "mvi",
    "mvi_test",
    "mvnorm_statistic",
    "mvnorm_test",
    "pairwise_energy_tests",
    "pairwise_semimetric",
    "pdcor",
    "pdcor_test",
    "pdcov",
    "pdcov_test",
    "set_config",
    "signal_dimension",
    "significant_clusters",
    "split_1d",
    "thinned_cluster_comparison",
    "u_center",
    "u_product",
]
