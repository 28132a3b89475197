"""
A dependence Pearson's correlation misses
=========================================

y depends on x through its magnitude: y = x^2 plus noise. Pearson's correlation is about 0,
and its test sees nothing; distance correlation is clearly positive, and its permutation test
rejects independence. The bias-corrected distance correlation and the t-test for high
dimension say the same without permutations.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import pearsonr

import energystats as es

rng = np.random.default_rng(0)
x = rng.normal(size=200)
y = x**2 + rng.normal(scale=0.5, size=200)

r, p_pearson = pearsonr(x, y)
print(f"Pearson r = {r:.3f}, p = {p_pearson:.3f}")
print(f"dCor = {es.dcor(x, y):.3f}, bias-corrected dCor^2 = {es.dcor(x, y, estimator='U'):.3f}")

res = es.dcor_test(x, y, n_resamples=999, rng=1)
print(res)
print(es.dcor_ttest(x, y))

# %%
# The data and the permutation null of the distance correlation:

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
left.scatter(x, y, s=8)
left.set(xlabel="x", ylabel="y", title=f"Pearson r = {r:.2f}, dCor = {res.statistic:.2f}")
right.hist(res.null_distribution, bins=40, color="0.7")
right.axvline(res.statistic, color="C3")
right.set(xlabel="dCor under 999 permutations of y", title=f"permutation p = {res.pvalue:.3f}")
fig.tight_layout()
