"""Equality of distributions: the energy distance, the DISCO decomposition T = S + W, and
the k-sample permutation test built on S (Székely & Rizzo; Rizzo & Székely 2010)."""

from .dispersion import DispersionResult, dispersion, energy_distance
from .pairs import PairwiseEnergyTestsResult, pairwise_energy_tests
from .permutation import (
    EnergyTestResult,
    energy_test,
    energy_test_samples,
    ksample_statistic,
)

__all__ = ["DispersionResult", "EnergyTestResult", "PairwiseEnergyTestsResult", "dispersion",
           "energy_distance", "energy_test", "energy_test_samples", "ksample_statistic",
           "pairwise_energy_tests"]
