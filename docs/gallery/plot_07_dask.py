"""
Running on a Dask cluster
=========================

The heavy functions take joblib's ``n_jobs``; inside ``joblib.parallel_config(backend="dask")``
their tasks run on a Dask cluster, with the same results as in one process. Here a
``LocalCluster`` with threads stands in for a real cluster (dask-jobqueue, Kubernetes, Coiled:
only the line that makes ``cluster`` changes). A script starting worker *processes* needs the
``if __name__ == "__main__":`` guard (see :doc:`/cluster`).
"""

import joblib
import numpy as np
from dask.distributed import Client, LocalCluster

import energystats as es

cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
client = Client(cluster)

rng = np.random.default_rng(0)
X = np.r_[rng.normal(0, 1, (1000, 5)), rng.normal(0.15, 1, (1000, 5))]
labels = np.repeat(["control", "treated"], 1000)

serial = es.energy_test(X, labels, n_resamples=99, rng=1)
with joblib.parallel_config(backend="dask"):
    distributed = es.energy_test(X, labels, n_resamples=99, rng=1, n_jobs=-1)
print(f"p-value on the cluster {distributed.pvalue:.3f}, in this process {serial.pvalue:.3f}")
print(
    "null distributions equal to 1e-10:",
    np.allclose(distributed.null_distribution, serial.null_distribution, rtol=1e-10),
)

client.close()
cluster.close()
