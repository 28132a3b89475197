"""Goodness of fit: energy tests that a sample comes from a given family of distributions."""

from .normality import NormalityTestResult, mvnorm_statistic, mvnorm_test

__all__ = ["NormalityTestResult", "mvnorm_statistic", "mvnorm_test"]
