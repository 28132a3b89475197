"""Goodness of fit: energy tests that a sample comes from a given family of distributions."""

from .normality import (
    MvnormTestResult,
    NormalTestResult,
    mvnorm_statistic,
    mvnorm_test,
    normal_statistic,
    normal_test,
)
from .poisson import PoissonTestResult, poisson_statistic, poisson_test
from .scipy_gof import EnergyGofResult, energy_gof, energy_gof_statistic

__all__ = ["EnergyGofResult", "MvnormTestResult", "NormalTestResult", "PoissonTestResult",
           "energy_gof", "energy_gof_statistic", "mvnorm_statistic", "mvnorm_test",
           "normal_statistic", "normal_test", "poisson_statistic", "poisson_test"]
