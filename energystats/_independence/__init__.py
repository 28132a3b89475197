"""Independence: distance covariance and correlation (V and U statistics), their tests,
partial distance correlation, mutual independence and the independence coefficient I_n
(Székely, Rizzo & Bakirov 2007; Székely & Rizzo 2013, 2014; Bakirov, Rizzo & Székely 2006)."""

from .dcov import DCovStatsResult, d_center, dcor, dcov, dcov_stats, u_center, u_product
from .mutual import mutual_independence_test, mvi, mvi_test
from .pairwise import PairwiseDcorResult, pairwise_dcor
from .partial import pdcor, pdcor_test, pdcov, pdcov_test
from .testing import IndependenceTestResult, dcor_test, dcor_ttest, dcov_test

__all__ = [
    "DCovStatsResult",
    "IndependenceTestResult",
    "PairwiseDcorResult",
    "d_center",
    "dcor",
    "dcor_test",
    "dcor_ttest",
    "dcov",
    "dcov_stats",
    "dcov_test",
    "mutual_independence_test",
    "mvi",
    "mvi_test",
    "pairwise_dcor",
    "pdcor",
    "pdcor_test",
    "pdcov",
    "pdcov_test",
    "u_center",
    "u_product",
]
