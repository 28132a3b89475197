"""Goodness of fit: energy tests that a sample comes from a given family of distributions."""

from .normal import NormalTestResult, normal_statistic, normal_test
from .normality import NormalityTestResult, mvnorm_statistic, mvnorm_test
from .poisson import PoissonTestResult, poisson_statistic, poisson_test

__all__ = [
    "NormalTestResult",
    "NormalityTestResult",
    "PoissonTestResult",
    "mvnorm_statistic",
    "mvnorm_test",
    "normal_statistic",
    "normal_test",
    "poisson_statistic",
    "poisson_test",
]
