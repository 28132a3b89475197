"""
R users' quickstart
===================

Each call of R's ``energy`` package next to its energystats line, on the same data, with
both numbers side by side. R runs live through rpy2 when it is installed (the documentation
build installs it); without R the table shows energystats alone.
"""

import numpy as np
import pandas as pd

import energystats as es
from energystats._rbridge import r_available, r_call, r_factor, r_field, r_matrix, to_numpy

iris = es.datasets.load_iris()
X = iris.iloc[:, :4].to_numpy()
species, groups = pd.factorize(iris["Species"])
sizes = np.bincount(species)

res = es.dispersion(X, species)
rows = [
    ("edist(x, sizes)[1, 2]", "dispersion(X, labels).pairwise[0, 1]", res.pairwise[0, 1], "edist"),
    ("disco(x, f, R = 0)$between", "dispersion(X, labels).S", res.S, "between"),
    ("disco(x, f, R = 0)$within", "dispersion(X, labels).W", res.W, "within"),
    (
        "mvnorm.e(x[setosa, ])",
        "mvnorm_statistic(X[setosa])",
        es.mvnorm_statistic(X[species == 0]),
        "mvnorm",
    ),
    (
        "energy.hclust(dist(x))$height[149]",
        "energy_hclust(X).height[-1]",
        es.energy_hclust(X).height[-1],
        "hclust",
    ),
]

available, reason = r_available()
if available:
    xr, fac = r_matrix(X), r_factor(species)
    disco = r_call("disco", xr, fac, R=0)
    r_values = {
        "edist": to_numpy(r_call("as.matrix", r_call("edist", xr, sizes)))[0, 1],
        "between": to_numpy(r_field(disco, "between"))[0],
        "within": to_numpy(r_field(disco, "within"))[0],
        "mvnorm": to_numpy(r_call("mvnorm.e", r_matrix(X[species == 0])))[0],
        "hclust": to_numpy(r_field(r_call("energy.hclust", r_call("dist", xr)), "height"))[-1],
    }
else:
    print(f"R is not available ({reason}): energystats' numbers only")
    r_values = {}

table = pd.DataFrame(
    [
        {
            "R energy": r_call_text,
            "energystats": es_text,
            "energystats value": value,
            "R value": r_values.get(key, np.nan),
        }
        for r_call_text, es_text, value, key in rows
    ]
)
table["relative difference"] = (table["energystats value"] - table["R value"]).abs() / table[
    "R value"
].abs()
pd.set_option("display.width", 160)
print(table.to_string(index=False))

# %%
# The permutation test: R's ``eqdist.etest`` and its energystats line. The p-values come from
# different random streams, so they agree within Monte Carlo error, not digit for digit.

test = es.energy_test(X, species, statistic="E", n_resamples=999, ties="strict", rng=1)
print(f"energystats: statistic {test.statistic:.6f}, p-value {test.pvalue:.4f}")
if available:
    etest = r_call("eqdist.etest", xr, sizes, R=999)
    print(f"R eqdist.etest: statistic {to_numpy(r_field(etest, 'statistic'))[0]:.6f}, "
          f"p-value {to_numpy(r_field(etest, 'p.value'))[0]:.4f}")
