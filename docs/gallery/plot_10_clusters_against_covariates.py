"""
Do clusters depend on covariates they were not formed from?
===========================================================

Clusters found on some variables cannot be tested on those same variables (their
distributions differ by construction; see "Is there cluster structure?"). But whether the
clusters are related to *other* variables, covariates left out of the clustering, is a valid
question of independence: the labels are a categorical variable (the 0-1 distance, as R uses
for factors), the covariates numeric, and the distance covariance test applies.

Here 300 patients are clustered on two biomarkers; age influences the first biomarker, the
covariate "site" influences nothing.
"""

import numpy as np
import pandas as pd

import energystats as es

rng = np.random.default_rng(3)
n = 300
age = rng.uniform(20, 80, size=n)
site = rng.choice(["north", "south", "east"], size=n)
group = rng.integers(0, 2, size=n)
markers = np.c_[2.5 * group + 0.03 * (age - 50), rng.normal(size=n)] + rng.normal(size=(n, 2))

clusters = es.KGroups(2, random_state=0).fit_predict(markers)
labels = pd.Categorical(clusters)
print(pd.crosstab(labels, site))

# %%
# The labels against each covariate (labels: categorical, 0-1 distance):

for name, covariate in {"age": age, "site": site}.items():
    res = es.dcov_test(labels, covariate, n_resamples=999, rng=1)
    print(f"{name:5s} dCor = {np.sqrt(res.estimates.dcor2):.3f}, p = {res.pvalue:.3f}")

# %%
# Age is related to the clusters (through the first biomarker, which it shifts); the site is
# not. With several covariates, ``pairwise`` corrections apply as for any family of tests.
