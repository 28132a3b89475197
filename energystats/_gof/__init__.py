"""Goodness of fit: energy tests that a sample comes from a given family of distributions."""

from .normal import NormalTestResult, normal_statistic, normal_test
from .normality import NormalityTestResult, mvnorm_statistic, mvnorm_test

__all__ = [
    "NormalTestResult",
    "NormalityTestResult",
    "mvnorm_statistic",
    "mvnorm_test",
    "normal_statistic",
    "normal_test",
]
