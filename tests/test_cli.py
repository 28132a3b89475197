"""The command line (energystats._cli)."""

import json

import pytest

import energystats as es
from energystats._cli import main


def test_describe_iris_report(capsys):
    assert main(["describe", "--example", "iris", "--by", "Species"]) == 0
    out = capsys.readouterr().out
    res = es.dispersion(es.datasets.load_iris().iloc[:, :4], es.datasets.load_iris()["Species"])
    assert "grouped by 'Species'" in out
    assert f"W (within)      {res.W:.6f}" in out
    assert f"S (between)     {res.S:.6f}" in out
    assert f"T = S + W       {res.T:.6f}" in out
    assert f"{res.F:.6f}" in out
    assert "setosa versicolor" in out


def test_describe_json_and_csv(tmp_path, capsys):
    iris = es.datasets.load_iris()
    path = tmp_path / "iris.csv"
    iris.to_csv(path, index=False)
    assert main(["describe", str(path), "--by", "Species", "--columns", "Petal.Length", "Petal.Width", "--json", "--exponent", "0.5"]) == 0
    out = json.loads(capsys.readouterr().out)
    res = es.dispersion(iris[["Petal.Length", "Petal.Width"]], iris["Species"], exponent=0.5)
    assert out["W"] == pytest.approx(res.W, rel=1e-15)
    assert out["groups"] == {"setosa": 50, "versicolor": 50, "virginica": 50}
    assert len(out["pairs"]) == 3
    x = iris.loc[iris.Species == "setosa", ["Petal.Length", "Petal.Width"]]
    y = iris.loc[iris.Species == "virginica", ["Petal.Length", "Petal.Width"]]
    assert out["pairs"][1]["energy_distance"] == pytest.approx(es.energy_distance(x, y, exponent=0.5), rel=1e-15)


@pytest.mark.parametrize(
    "make,args,message",
    [
        (None, ["describe", "missing.csv", "--by", "g"], "file not found"),
        ("a,g\n1,x\n2,y\n", ["describe", "{path}", "--by", "h"], "no column 'h'"),
        ("a,g\n1,x\n2,y\n", ["describe", "{path}", "--by", "g", "--columns", "b"], "no column(s) 'b'"),
        ("a,b,g\n1,u,x\n2,v,y\n", ["describe", "{path}", "--by", "g", "--columns", "a", "b"], "'b' are not numeric"),
        ("a,g\n1,x\n,y\n3,y\n", ["describe", "{path}", "--by", "g"], "'a' have missing values"),
        ("a,g\n1,x\n2,x\n", ["describe", "{path}", "--by", "g"], "at least two groups"),
        (None, ["describe", "--by", "g"], "give a CSV file or --example iris"),
    ],
)
def test_describe_errors(tmp_path, capsys, make, args, message):
    path = tmp_path / "data.csv"
    if make is not None:
        path.write_text(make)
    args = [a.format(path=path) for a in args]
    if args[1] == "missing.csv":
        args[1] = str(tmp_path / "missing.csv")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("energystats describe: error:")
    assert message in err


def test_test_subcommand_json(capsys):
    assert main(["test", "--example", "iris", "--by", "Species", "--statistic", "E", "--n-resamples", "99", "--seed", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    iris = es.datasets.load_iris()
    ref = es.energy_test(iris.iloc[:, :4], iris["Species"], statistic="E", n_resamples=99, rng=1)
    assert out["statistic"] == pytest.approx(ref.statistic, rel=1e-15)
    assert out["pvalue"] == ref.pvalue == 0.01
    assert out["exact"] is False and out["n_resamples"] == 99


def test_working_memory_option_streams_and_reports_what_cannot_fit(capsys, monkeypatch):
    from energystats._operator import StreamedOperator

    argv = ["test", "--example", "iris", "--by", "Species", "--n-resamples", "99", "--seed", "1", "--json"]
    assert main(argv) == 0
    dense = json.loads(capsys.readouterr().out)
    products = []
    original = StreamedOperator._tile
    monkeypatch.setattr(StreamedOperator, "_tile", lambda self, *tile: products.append(tile) or original(self, *tile))
    assert main(argv + ["--working-memory", "0.1"]) == 0
    streamed = json.loads(capsys.readouterr().out)
    assert products and streamed["pvalue"] == dense["pvalue"]
    assert streamed["statistic"] == pytest.approx(dense["statistic"], rel=1e-12)
    assert es.get_config()["working_memory"] == 1024  # restored
    assert main(argv + ["--working-memory", "0.0005"]) == 2  # 512 bytes: not one relabeling, whatever the threads
    err = capsys.readouterr().err
    assert err.startswith("energystats test: error: energy_test with n = 150, k = 3") and "set_config(working_memory=" in err
    assert main(argv + ["--working-memory", "-5"]) == 2
    assert "`working_memory` must be a positive number of MiB" in capsys.readouterr().err


def test_cluster_subcommand_report_and_json(capsys):
    assert main(["cluster", "--example", "iris", "--by", "Species", "-k", "3", "--seed", "0"]) == 0
    text = capsys.readouterr().out
    assert "Kernel k-groups (hartigan) of 150 points in 4 variables into 3 clusters" in text
    assert "accuracy (eq. 55)" in text
    assert main(["cluster", "--example", "iris", "--by", "Species", "-k", "3", "--seed", "0", "--json",
                 "--cluster-test", "--n-resamples", "9", "--n-init", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    iris = es.datasets.load_iris()
    km = es.KGroups(3, n_init=2, random_state=0).fit(iris.iloc[:, :4])
    assert out["W"] == pytest.approx(km.W_, rel=1e-12)
    assert out["sizes"] == km.cluster_sizes_.tolist()
    assert 0 < out["accuracy"] <= 1 and -1 <= out["adjusted_rand_index"] <= 1
    assert out["cluster_test"]["n_resamples"] == 9 and 0 < out["cluster_test"]["pvalue"] <= 1


def test_large_data_options(capsys):
    iris = es.datasets.load_iris()
    argv = ["test", "--example", "iris", "--by", "Species", "--n-resamples", "99", "--seed", "1"]
    assert main(argv + ["--projections", "20"]) == 0
    assert "distances estimated from 20 random projections (the test's level is exact)" in capsys.readouterr().out
    assert main(argv + ["--projections", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ref = es.energy_test(iris.iloc[:, :4], iris["Species"], n_resamples=99, rng=1, approximation="projection", n_projections=20)
    assert out["statistic"] == pytest.approx(ref.statistic, rel=1e-15) and out["n_projections"] == 20
    assert main(argv + ["--projections", "0"]) == 2
    assert "`n_projections`" in capsys.readouterr().err
    argv = ["cluster", "--example", "iris", "-k", "3", "--seed", "0", "--n-init", "2", "--nystroem", "40"]
    assert main(argv) == 0
    assert "on Nystroem features from 40 landmarks" in capsys.readouterr().out
    assert main(argv + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    km = es.KGroups(3, n_init=2, random_state=0, approximation="nystroem", n_components=40).fit(iris.iloc[:, :4])
    assert out["labels"] == km.labels_.tolist() and out["W"] == pytest.approx(km.W_, rel=1e-12)


def test_split1d_subcommand(capsys):
    assert main(["split1d", "--example", "iris", "--columns", "Petal.Length", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    res = es.split_1d(es.datasets.load_iris()["Petal.Length"])
    assert out["threshold"] == res.threshold and out["sizes"] == [51, 99]  # one versicolor has petal length 3.0
    assert main(["split1d", "--example", "iris"]) == 2
    assert "split1d needs exactly one column" in capsys.readouterr().err


@pytest.mark.r
def test_compare_r_on_user_groups(tmp_path, capsys):
    iris = es.datasets.load_iris()
    path = tmp_path / "iris.csv"
    iris.sample(frac=1, random_state=0).to_csv(path, index=False)  # groups not contiguous
    md = tmp_path / "out" / "table.md"
    assert main(["compare-r", str(path), "--by", "Species", "--n-resamples", "99", "--json", "--out", str(md)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["agree"] == out["total"] == 30
    assert {row["R quantity"] for row in out["rows"]} >= {"edist", "disco between (S)", "eqdist.e", "kgroups labels (r-kgroups mode)", "energy.hclust height", "mvnorm.e", "dcov", "bcdcor", "pdcor removing the groups"}
    assert md.read_text().startswith(f"# energystats {es.__version__} vs R {out['R']}, energy {out['energy']}")


@pytest.mark.r
def test_cluster_reports_r_agreement_without_the_invalid_test(capsys):
    assert main(["cluster", "--example", "iris", "--by", "Species", "-k", "3", "--seed", "0", "--n-init", "2", "--compare-r"]) == 0
    text = capsys.readouterr().out
    assert "on these clusters: 10 of 10 quantities agree" in text
    assert "eqdist.etest" not in text  # a test of clusters found from the same data is not valid


def test_compare_r_errors(monkeypatch, capsys):
    from energystats import _cli

    assert main(["compare-r", "--columns", "a"]) == 2
    assert "--by and --columns need a CSV file or --example" in capsys.readouterr().err
    assert main(["compare-r", "--example", "iris"]) == 2
    assert "--by is required" in capsys.readouterr().err
    monkeypatch.setattr(_cli, "r_available", lambda: (False, "R is not here"))
    assert main(["compare-r"]) == 2
    assert capsys.readouterr().err == "energystats compare-r: error: R is not here\n"
    assert main(["cluster", "--example", "iris", "-k", "2", "--n-init", "1", "--compare-r"]) == 0
    assert "R agreement: not checked, R is not available (R is not here)" in capsys.readouterr().out


def test_hclust_json_and_plot(tmp_path, capsys):
    path = tmp_path / "blobs.csv"
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 1.0, size=(40, 2)) for c in ([0, 0], [8, 0], [0, 8])])
    pd.DataFrame(X, columns=["x", "y"]).assign(truth=np.repeat(["a", "b", "c"], 40)).to_csv(path, index=False)
    plot = tmp_path / "tree.png"
    assert main(["hclust", str(path), "--by", "truth", "--seed", "1", "--n-resamples", "99", "--plot", str(plot), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_clusters"] == 3 and out["sizes"] == [40, 40, 40] and out["accuracy"] == 1.0
    assert out["nodes"][0]["significant"] and plot.stat().st_size > 1000
    assert main(["hclust", str(path), "--seed", "1", "--n-resamples", "99"]) == 0
    report = capsys.readouterr().out
    assert "3 cluster(s), sizes [40, 40, 40]" in report and "threshold" in report


def test_normality_by_group(capsys):
    assert main(["normality", "--example", "iris", "--by", "Species", "--n-resamples", "49", "--seed", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    iris = es.datasets.load_iris()
    setosa = iris[iris["Species"] == "setosa"].iloc[:, :4]
    assert [row["group"] for row in out["rows"]] == ["setosa", "versicolor", "virginica"]
    assert out["rows"][0]["statistic"] == pytest.approx(es.mvnorm_statistic(setosa), rel=1e-12)
    assert main(["normality", "--example", "iris", "--columns", "Sepal.Length", "--n-resamples", "9"]) == 0
    assert "all rows" in capsys.readouterr().out


def test_hclust_bad_alpha(capsys):
    assert main(["hclust", "--example", "iris", "--alpha", "2"]) == 2
    assert "`alpha`" in capsys.readouterr().err
