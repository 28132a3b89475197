"""Equality of distributions: the energy distance, the DISCO decomposition T = S + W, and
the k-sample permutation test built on S (Székely & Rizzo; Rizzo & Székely 2010)."""

from .dispersion import DispersionResult, dispersion
from .distance import energy_distance
from .ksample import ksample_statistic
from .permutation import EnergyTestResult, energy_test, energy_test_samples, pairwise_energy_tests

__all__ = [
    "DispersionResult",
    "EnergyTestResult",
    "dispersion",
    "energy_distance",
    "energy_test",
    "energy_test_samples",
    "ksample_statistic",
    "pairwise_energy_tests",
]
