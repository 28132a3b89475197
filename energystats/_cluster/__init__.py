"""Energy clustering: kernel k-groups, power k-means, the exact one-dimensional split,
energy hierarchical clustering, and the valid tests of cluster structure."""

from ._k_tests import signal_dimension
from .choose_k import ChooseKResult, choose_k
from .cluster_test import ClusterTestResult, cluster_test
from .dip import DipTestResult, dip_statistic, dip_test
from .hclust import (
    EnergyHClustResult,
    SignificantClustersResult,
    energy_hclust,
    significant_clusters,
)
from .kgroups import KGroups
from .power_kmeans import PowerKMeans
from .split1d import Split1DResult, split_1d
from .thinning import ThinnedComparisonResult, thinned_cluster_comparison

__all__ = [
    "ChooseKResult",
    "ClusterTestResult",
    "DipTestResult",
    "EnergyHClustResult",
    "KGroups",
    "PowerKMeans",
    "SignificantClustersResult",
    "Split1DResult",
    "ThinnedComparisonResult",
    "choose_k",
    "cluster_test",
    "dip_statistic",
    "dip_test",
    "energy_hclust",
    "signal_dimension",
    "significant_clusters",
    "split_1d",
    "thinned_cluster_comparison",
]
