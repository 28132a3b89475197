"""The energy test and kernel k-groups on a Dask cluster, through joblib.

A LocalCluster stands in for a real cluster here: with dask-jobqueue, Kubernetes or
Coiled, only the two lines that make ``cluster`` change. The results are the serial ones.
Worker processes are started by spawning, so the script needs the ``__main__`` guard.
"""

import joblib
import numpy as np
from dask.distributed import Client, LocalCluster

import energystats as es

if __name__ == "__main__":
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = Client(cluster)

    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (1500, 5)), rng.normal(0.15, 1, (1500, 5))]
    labels = np.repeat(["control", "treated"], 1500)

    serial = es.energy_test(X, labels, n_resamples=199, rng=1)
    with joblib.parallel_config(backend="dask"):  # n_jobs=None: every worker of the cluster
        distributed = es.energy_test(X, labels, n_resamples=199, rng=1)
        model = es.KGroups(2, n_init=4, random_state=0).fit(X)
    print(f"energy test: statistic {distributed.statistic:.4f}, p-value {distributed.pvalue:.3f}")
    print(f"same p-value as in this process: {distributed.pvalue == serial.pvalue}")
    print(
        f"k-groups on the cluster: cluster sizes {model.cluster_sizes_.tolist()}, W = "
        f"{model.W_:.2f}"
    )

    client.close()
    cluster.close()
