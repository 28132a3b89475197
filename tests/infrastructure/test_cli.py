"""The command line (energystats._cli)."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import energystats as es
from energystats import _cli
from energystats._cli import main

#: five variables of R's airquality, rows 1-8 (NA in Ozone and Solar.R as in R's data)
AIRQUALITY = """Ozone,Solar.R,Wind,Temp,Month
41,190,7.4,67,5
36,118,8,72,5
12,149,12.6,74,5
18,313,11.5,62,6
NA,NA,14.3,56,6
28,NA,14.9,66,6
23,299,8.6,65,7
19,99,13.8,59,7
"""


def write(tmp_path, text, name="data.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_describe_iris_report(capsys):
    assert main(["describe", "--example", "iris", "--by", "Species"]) == 0
    out = capsys.readouterr().out
    res = es.dispersion(es.datasets.load_iris().iloc[:, :4], es.datasets.load_iris()["Species"])
    assert "grouped by 'Species'" in out
    assert f"W (within)      {res.W:.6g}" in out
    assert f"S (between)     {res.S:.6g}" in out
    assert f"T = S + W       {res.T:.6g}" in out
    assert f"{res.F:.6g}" in out
    assert "setosa versicolor" in out
    assert (
        "variables: Sepal.Length, Sepal.Width, Petal.Length, Petal.Width\n" in out
        and "dropped" not in out
    )


def test_describe_json_and_csv(tmp_path, capsys):
    iris = es.datasets.load_iris()
    path = tmp_path / "iris.csv"
    iris.to_csv(path, index=False)
    assert (
        main(
            [
                "describe", str(path), "--by", "Species", "--columns", "Petal.Length",
                "Petal.Width", "--json", "--exponent", "0.5",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    res = es.dispersion(iris[["Petal.Length", "Petal.Width"]], iris["Species"], exponent=0.5)
    assert out["W"] == pytest.approx(res.W, rel=1e-15)
    assert out["groups"] == {"setosa": 50, "versicolor": 50, "virginica": 50}
    assert len(out["pairs"]) == 3
    x = iris.loc[iris.Species == "setosa", ["Petal.Length", "Petal.Width"]]
    y = iris.loc[iris.Species == "virginica", ["Petal.Length", "Petal.Width"]]
    # from dispersion's block sums: the same sums as energy_distance's, added in another order
    direct = es.energy_distance(x, y, exponent=0.5)
    assert out["pairs"][1]["energy_distance"] == pytest.approx(direct, rel=1e-13)


@pytest.mark.parametrize(
    "make,args,message",
    [
        (None, ["describe", "missing.csv", "--by", "g"], "file not found"),
        ("a,g\n1,x\n2,y\n", ["describe", "{path}", "--by", "h"], "no column 'h'"),
        (
            "a,g\n1,x\n2,y\n", ["describe", "{path}", "--by", "g", "--columns", "b"],
            "no column(s) 'b'",
        ),
        (
            "a,b,g\n1,u,x\n2,v,y\n", ["describe", "{path}", "--by", "g", "--columns", "a", "b"],
            "column 'b' is not numeric ('u' in row 1)\n",
        ),
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
    assert (
        main(
            [
                "test", "--example", "iris", "--by", "Species", "--statistic", "E", "--n-resamples",
                "99", "--seed", "1", "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    iris = es.datasets.load_iris()
    ref = es.energy_test(iris.iloc[:, :4], iris["Species"], statistic="E", n_resamples=99, rng=1)
    assert out["statistic"] == pytest.approx(ref.statistic, rel=1e-15)
    # deterministic: fixed seed; the smallest p-value of B = 99 (iris' species)
    assert out["pvalue"] == ref.pvalue == 0.01
    assert out["exact"] is False and out["n_resamples"] == 99


def test_working_memory_option_streams_and_reports_what_cannot_fit(capsys, monkeypatch):
    from energystats._scale.streamed import Streamed

    argv = [
        "test", "--example", "iris", "--by", "Species", "--n-resamples", "99", "--seed", "1",
        "--json",
    ]
    assert main(argv) == 0
    dense = json.loads(capsys.readouterr().out)
    products = []
    original = Streamed.upper
    monkeypatch.setattr(
        Streamed, "upper", lambda self, Z: products.append(Z.shape) or original(self, Z)
    )
    assert main(argv + ["--working-memory", "0.1"]) == 0
    streamed = json.loads(capsys.readouterr().out)
    assert products and streamed["pvalue"] == dense["pvalue"]
    assert streamed["statistic"] == pytest.approx(dense["statistic"], rel=1e-12)
    assert es.get_config()["working_memory"] == 1024  # restored
    # 512 bytes: not one relabeling, whatever the threads
    assert main(argv + ["--working-memory", "0.0005"]) == 2
    err = capsys.readouterr().err
    # the 99 resamples' null distribution (1.5 KiB) is refused first, before any relabeling
    assert (
        err.startswith("energystats test: error: the null distribution of --n-resamples=99")
        and "Give --working-memory 2 (MiB), or a smaller --n-resamples." in err
    )
    assert "set_config" not in err  # the library's advice, not the command line's
    assert main(argv + ["--working-memory", "-5"]) == 2
    assert "`working_memory` must be a positive number of MiB" in capsys.readouterr().err


def test_cluster_subcommand_report_and_json(capsys):
    assert main(["cluster", "--example", "iris", "--by", "Species", "-k", "3", "--seed", "0"]) == 0
    text = capsys.readouterr().out
    assert "Kernel k-groups (hartigan) of 150 points in 4 variables into 3 clusters" in text
    assert "accuracy 0." in text and "eq." not in text
    assert (
        main(
            [
                "cluster", "--example", "iris", "--by", "Species", "-k", "3", "--seed", "0",
                "--json", "--cluster-test", "--n-resamples", "9", "--n-init", "2",
            ]
        )
        == 0
    )
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
    assert (
        "distances estimated from 20 random projections (the test's level is exact)"
        in capsys.readouterr().out
    )
    assert main(argv + ["--projections", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ref = es.energy_test(
        iris.iloc[:, :4], iris["Species"], n_resamples=99, rng=1, approximation="projection",
        n_projections=20,
    )
    assert (
        out["statistic"] == pytest.approx(ref.statistic, rel=1e-15) and out["n_projections"] == 20
    )
    assert main(argv + ["--projections", "0"]) == 2
    assert "--projections must be an integer >= 1, got 0." in capsys.readouterr().err
    argv = [
        "cluster", "--example", "iris", "--by", "Species", "-k", "3", "--seed", "0", "--n-init",
        "2", "--nystroem", "40",
    ]
    assert main(argv) == 0
    assert "on Nystroem features from 40 landmarks" in capsys.readouterr().out
    assert main(argv + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    km = es.KGroups(3, n_init=2, random_state=0, approximation="nystroem", n_landmarks=40).fit(
        iris.iloc[:, :4]
    )
    assert out["labels"] == km.labels_.tolist() and out["W"] == pytest.approx(km.W_, rel=1e-12)


def test_split1d_subcommand(capsys):
    assert main(["split1d", "--example", "iris", "--columns", "Petal.Length", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    res = es.split_1d(es.datasets.load_iris()["Petal.Length"])
    # one versicolor has petal length 3.0
    assert out["threshold"] == res.threshold and out["sizes"] == [51, 99]
    assert main(["split1d", "--example", "iris", "--by", "Species"]) == 2
    assert "split1d needs exactly one column" in capsys.readouterr().err


@pytest.mark.r
def test_compare_r_on_user_groups(tmp_path, capsys):
    iris = es.datasets.load_iris()
    path = tmp_path / "iris.csv"
    iris.sample(frac=1, random_state=0).to_csv(path, index=False)  # groups not contiguous
    md = tmp_path / "out" / "table.md"
    assert (
        main(
            [
                "compare-r", str(path), "--by", "Species", "--n-resamples", "99", "--json", "--out",
                str(md),
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["agree"] == out["total"] == 30
    assert {row["R quantity"] for row in out["rows"]} >= {
        "edist", "disco between (S)", "eqdist.e", "kgroups labels (r-kgroups mode)",
        "energy.hclust height", "mvnorm.e", "dcov", "bcdcor", "pdcor removing the groups",
    }
    assert md.read_text().startswith(
        f"# energystats {es.__version__} vs R {out['R']}, energy {out['energy']}"
    )


@pytest.mark.r
def test_cluster_reports_r_agreement_without_the_invalid_test(capsys):
    assert (
        main(
            [
                "cluster", "--example", "iris", "--by", "Species", "-k", "3", "--seed", "0",
                "--n-init", "2", "--compare-r",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "on these clusters: 10 of 10 quantities agree" in text
    assert "eqdist.etest" not in text  # a test of clusters found from the same data is not valid


def test_compare_r_errors(monkeypatch, capsys):
    assert main(["compare-r", "--columns", "a"]) == 2
    assert "--by and --columns need a CSV file or --example" in capsys.readouterr().err
    assert main(["compare-r", "--example", "iris"]) == 2
    assert "--by is required" in capsys.readouterr().err
    monkeypatch.setattr(_cli, "r_available", lambda: (False, "R is not here"))
    assert main(["compare-r"]) == 2
    assert capsys.readouterr().err == "energystats compare-r: error: R is not here\n"
    assert (
        main(
            [
                "cluster", "--example", "iris", "--by", "Species", "-k", "2", "--n-init", "1",
                "--compare-r",
            ]
        )
        == 0
    )
    assert "R agreement: not checked, R is not available (R is not here)" in capsys.readouterr().out


def test_hclust_json_and_plot(tmp_path, capsys):
    path = tmp_path / "blobs.csv"
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 1.0, size=(40, 2)) for c in ([0, 0], [8, 0], [0, 8])])
    pd.DataFrame(X, columns=["x", "y"]).assign(truth=np.repeat(["a", "b", "c"], 40)).to_csv(
        path, index=False
    )
    plot = tmp_path / "tree.png"
    assert (
        main(
            [
                "hclust", str(path), "--by", "truth", "--seed", "1", "--n-resamples", "99",
                "--plot", str(plot), "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["n_clusters"] == 3 and out["sizes"] == [40, 40, 40] and out["accuracy"] == 1.0
    assert out["nodes"][0]["significant"] and plot.stat().st_size > 1000
    assert (
        main(["hclust", str(path), "--columns", "x", "y", "--seed", "1", "--n-resamples", "99"])
        == 0
    )
    report = capsys.readouterr().out
    assert "3 cluster(s), sizes [40, 40, 40]" in report and "threshold" in report


def test_normality_by_group(capsys):
    assert (
        main(
            [
                "normality", "--example", "iris", "--by", "Species", "--n-resamples", "49",
                "--seed", "2", "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    iris = es.datasets.load_iris()
    setosa = iris[iris["Species"] == "setosa"].iloc[:, :4]
    assert [row["group"] for row in out["rows"]] == ["setosa", "versicolor", "virginica"]
    assert out["rows"][0]["statistic"] == pytest.approx(es.mvnorm_statistic(setosa), rel=1e-12)
    assert (
        main(["normality", "--example", "iris", "--columns", "Sepal.Length", "--n-resamples", "9"])
        == 0
    )
    assert "all rows" in capsys.readouterr().out


def test_hclust_bad_alpha(capsys):
    assert main(["hclust", "--example", "iris", "--by", "Species", "--alpha", "2"]) == 2
    assert "--alpha must be a number strictly between 0 and 1" in capsys.readouterr().err


def test_missing_values_stop_the_command_and_say_dropna(tmp_path, capsys):
    path = write(tmp_path, AIRQUALITY)
    assert main(["describe", path, "--by", "Month"]) == 2
    assert capsys.readouterr().err == (
        "energystats describe: error: column(s) 'Ozone', 'Solar.R' have missing values (in 2 of 8 "
        "rows); --dropna drops those rows\n"
    )
    assert main(["describe", write(tmp_path, "a,g\n1,x\n2,\n3,y\n4,y\n"), "--by", "g"]) == 2
    assert "column(s) 'g' have missing values (in 1 of 4 rows); --dropna" in capsys.readouterr().err


def test_dropna_drops_the_rows_with_a_missing_value_and_says_how_many(tmp_path, capsys):
    # and one group missing
    path = write(tmp_path, AIRQUALITY.replace("19,99,13.8,59,7", "19,99,13.8,59,NA"))
    assert main(["describe", path, "--by", "Month", "--dropna", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    complete = pd.read_csv(path).dropna()
    assert (
        out["rows_read"] == 8
        and out["rows_dropped"] == 3
        and out["groups"] == {"5": 3, "6": 1, "7": 1}
    )
    assert out["W"] == pytest.approx(
        es.dispersion(complete.iloc[:, :4], complete["Month"]).W, rel=1e-15
    )
    assert main(["describe", path, "--by", "Month", "--dropna"]) == 0
    assert "\ndropped 3 of 8 rows with missing values (--dropna)\n" in capsys.readouterr().out
    # only the columns used count: without Ozone and Solar.R, only the row without a Month goes
    assert (
        main(["describe", path, "--by", "Month", "--columns", "Wind", "Temp", "--dropna", "--json"])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["rows_dropped"] == 1
    assert main(["describe", "--example", "iris", "--by", "Species", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rows_read"] == 150 and out["rows_dropped"] == 0


def test_dropna_labels_one_per_row_read(tmp_path, capsys):
    path = write(tmp_path, AIRQUALITY)
    assert main(["split1d", path, "--columns", "Ozone", "--dropna", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rows_dropped"] == 1 and out["sizes"] == [4, 3]
    ref = es.split_1d(pd.read_csv(path)["Ozone"].dropna()).labels.tolist()
    assert out["labels"] == ref[:4] + [None] + ref[4:]
    assert main(["split1d", write(tmp_path, "x,y\nNA,1\n2,NA\n"), "--dropna"]) == 2
    assert (
        "no rows left: each of the 2 rows has a missing value in the columns used"
        in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    "text,args,message",
    [
        (
            "a,b,g\n1,2,x\n2,3,x\nabc,4,y\n4,5,y\n", [],
            "column 'a' is not numeric ('abc' in row 3); choose the data columns with --columns",
        ),
        (
            "a,b,g\n1,True,x\n2,False,x\n3,True,y\n4,False,y\n", [],
            "column 'b' is not numeric (True/False; write it as 0/1); choose",
        ),
        (
            "a,b,g\n1,True,x\n2,,x\n3,False,y\n4,True,y\n", [],
            "column 'b' is not numeric (True in row 1)",
        ),
        (
            "a,b,c,g\n1,2,u,x\n2,oops,v,x\n3,4,w,y\n4,5,z,y\n", [],
            "columns 'b', 'c' are not numeric ('b': 'oops' in row 2; 'c': 'u' in row 1)",
        ),
        (
            "a,b,g\n1,True,x\n2,False,x\n3,True,y\n4,False,y\n", ["--columns", "a", "b"],
            "column 'b' is not numeric (True/False; write it as 0/1)\n",
        ),
        ("a,b,g\n1,2,x\n2,3,y\n", ["--columns", "a", "a"], "--columns lists 'a' twice\n"),
        (
            "a,b,g\n1,2,x\n2,3,y\n", ["--columns", "g", "a"],
            "--by column 'g' cannot also be a data column\n",
        ),
        ("g\nx\ny\n", [], "the data have no column besides the group column"),
        ("a,b,g\n", [], "the data have no rows"),
    ],
)
def test_every_data_column_must_be_numeric(tmp_path, capsys, text, args, message):
    assert (
        main(["test", write(tmp_path, text), "--by", "g", "--json", "--n-resamples", "9", *args])
        == 2
    )
    err = capsys.readouterr().err
    assert err.startswith("energystats test: error: ") and message in err


def test_a_label_column_needs_by_or_columns(capsys):
    assert main(["cluster", "--example", "iris", "-k", "3"]) == 2
    assert capsys.readouterr().err == (
        "energystats cluster: error: column 'Species' is not numeric ('setosa' in row 1); "
        "choose the data columns with --columns, or name a column of labels with --by\n"
    )
    assert main(["split1d", "--example", "iris", "--columns", "Petal.Width"]) == 0
    assert "variables: Petal.Width\n" in capsys.readouterr().out


SEPARATED = [
    ("semicolon.csv", "a;b;g\n1;2.5;x\n2;3;x\n3;4;y\n5;5;y\n"),
    ("tab.tsv", "a\tb\tg\n1\t2.5\tx\n2\t3\tx\n3\t4\ty\n5\t5\ty\n"),
    ("tab.csv", "a\tb\tg\n1\t2.5\tx\n2\t3\tx\n3\t4\ty\n5\t5\ty\n"),
    ("pipe.txt", "a|b|g\n1|2.5|x\n2|3|x\n3|4|y\n5|5|y\n"),
    ("space.txt", "a b g\n1 2.5 x\n2 3 x\n3 4 y\n5 5 y\n"),
    ("aligned.txt", "  a    b  g\n  1  2.5  x\n  2    3  x\n  3    4  y\n  5    5  y\n"),
    ("quoted.csv", 'a,b,g\n1,2.5,"x, 1"\n2,3,"x, 1"\n3,4,y\n5,5,y\n'),
]


@pytest.mark.parametrize("name,text", SEPARATED, ids=[name for name, _ in SEPARATED])
def test_the_delimiter_is_sniffed(tmp_path, capsys, name, text):
    assert main(["describe", write(tmp_path, text, name), "--by", "g", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ref = es.dispersion(np.array([[1, 2.5], [2, 3], [3, 4], [5, 5]]), ["x", "x", "y", "y"])
    assert out["columns"] == ["a", "b"] and out["W"] == pytest.approx(ref.W, rel=1e-15)


def test_one_column_without_delimiter_reads_as_comma_separated(tmp_path, capsys):
    assert main(["split1d", write(tmp_path, "my x\n1\n2\n10\n11\n"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["column"] == "my x"


def test_dash_reads_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("a;b;g\n1;2.5;x\n2;3;x\n3;4;y\n5;5;y\n"))
    assert main(["describe", "-", "--by", "g"]) == 0
    text = capsys.readouterr().out
    assert "Energy statistics of 4 points in 2 variables, grouped by 'g'\nvariables: a, b\n" in text


def test_numbers_print_with_six_significant_digits(tmp_path, capsys):
    assert (
        main(["describe", write(tmp_path, "x,g\n1e-9,a\n2e-9,a\n3e-9,b\n4e-9,b\n"), "--by", "g"])
        == 0
    )
    text = capsys.readouterr().out
    assert (
        "W (within)      1e-09\n" in text
        and "S (between)     1.5e-09\n" in text
        and "0.000000" not in text
    )
    assert main(["split1d", write(tmp_path, "x\n1e299\n2e299\n3e299\n8e299\n9e299\n")]) == 0
    text = capsys.readouterr().out
    assert "threshold = 5.5e+299" in text and "W = 1.83333e+299   S = 6.96667e+299\n" in text


def test_library_errors_are_one_line_and_ctrl_c_exits_130(monkeypatch, capsys):
    def compute(exc):
        def raise_(args, data, groups):
            raise exc

        return raise_

    for exc, status, err in [
        (
            ValueError("`x` must be finite;\nsee the docs"), 2,
            "energystats describe: error: `x` must be finite; see the docs\n",
        ),
        (
            TypeError("`x` must be an array"), 2,
            "energystats describe: error: `x` must be an array\n",
        ),
        (KeyboardInterrupt(), 130, "energystats describe: interrupted\n"),
    ]:
        monkeypatch.setitem(_cli._COMMANDS, "describe", (compute(exc), True))
        assert main(["describe", "--example", "iris", "--by", "Species"]) == status
        assert capsys.readouterr() == ("", err)


def test_a_closed_stdout_ends_quietly():
    """`energystats ... | head -1` (here `python -m energystats`): no BrokenPipeError
    traceback, exit status 1."""
    read, write_end = os.pipe()
    os.close(read)  # the reader is gone before the command writes
    env = {**os.environ, "PYTHONPATH": str(Path(es.__file__).parents[1])}
    argv = [sys.executable, "-m", "energystats", "describe", "--example", "iris", "--by", "Species"]
    try:
        proc = subprocess.run(
            argv, stdout=write_end, stderr=subprocess.PIPE, text=True, env=env, timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (1, "")


def test_working_memory_that_no_machine_has(capsys):
    with pytest.raises(SystemExit, match="2"):
        main(["test", "--example", "iris", "--by", "Species", "--working-memory", "1e308"])
    assert (
        "argument --working-memory: 1e308 MiB is more memory than any machine has"
        in capsys.readouterr().err
    )
    with pytest.raises(SystemExit, match="2"):
        main(["test", "--example", "iris", "--by", "Species", "--working-memory", "lots"])
    assert "argument --working-memory: 'lots' is not a number of MiB" in capsys.readouterr().err


def no_computation(args, data, groups):
    raise AssertionError("computed before checking the output path")


@pytest.mark.parametrize(
    "plot,message",
    [
        (
            "missing/tree.png",
            "--plot {tmp}/missing/tree.png: the folder {tmp}/missing does not exist",
        ),
        (".", "--plot {tmp} is a folder, not a file"),
        ("file.csv/tree.png", "--plot {tmp}/file.csv/tree.png: {tmp}/file.csv is not a folder"),
        ("tree.xyz", "--plot {tmp}/tree.xyz: name a file ending in one of ."),
    ],
)
def test_the_plot_path_is_checked_before_computing(tmp_path, monkeypatch, capsys, plot, message):
    monkeypatch.setitem(_cli._COMMANDS, "hclust", (no_computation, False))
    (tmp_path / "file.csv").write_text("x\n1\n")
    plot = os.path.normpath(tmp_path / plot)
    assert main(["hclust", "--example", "iris", "--by", "Species", "--plot", plot]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("energystats hclust: error: " + message.format(tmp=tmp_path))
        and err.count("\n") == 1
    )


def test_a_plot_needs_matplotlib(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(_cli._COMMANDS, "hclust", (no_computation, False))
    # import fails as if not installed
    monkeypatch.setitem(sys.modules, "matplotlib.backend_bases", None)
    assert (
        main(
            ["hclust", "--example", "iris", "--by", "Species", "--plot", str(tmp_path / "tree.png")]
        )
        == 2
    )
    assert (
        capsys.readouterr().err
        == "energystats hclust: error: --plot needs matplotlib (pip install matplotlib)\n"
    )


def test_the_compare_r_out_path_is_checked_before_r(tmp_path, monkeypatch, capsys):
    (tmp_path / "file.md").write_text("")
    assert main(["compare-r", "--out", str(tmp_path / "file.md" / "table.md")]) == 2
    assert (
        capsys.readouterr().err
        == f"energystats compare-r: error: --out {tmp_path}/file.md/table.md: "
        f"{tmp_path}/file.md is not a folder\n"
    )
    # missing folders are made when the table is written, not before
    monkeypatch.setattr(_cli, "r_available", lambda: (False, "R is not here"))
    assert main(["compare-r", "--out", str(tmp_path / "new" / "folder" / "table.md")]) == 2
    assert capsys.readouterr().err == "energystats compare-r: error: R is not here\n"
    assert not (tmp_path / "new").exists()


# --- hostile input: no traceback, exit 2 for bad input, 1 for an output that cannot be written ---

#: Files the hostile rows read, by name.
HOSTILE_FILES = {
    "big.csv": "a,b,g\n1.7e308,1,x\n-1.7e308,2,x\n1,3,y\n2,4,y\n5,1,y\n",
    "e300.csv": "a,b,g\n1e300,1,x\n-1e300,2,x\n1,3,y\n2,4,y\n5,1,y\n",
    "const.csv": "a,b,g\n" + "1,1,x\n1,1,y\n" * 5,
    "two.csv": "a,b,g\n1,2,x\n2,1,x\n3,5,x\n5,1,y\n6,3,y\n7,2,y\n9,4,y\n",
}
OVERFLOW = "beyond float64 (largest about 2^1024): divide the data by a constant c"

#: argv ({tmp}: the folder holding HOSTILE_FILES) -> exit status -> a part of the one line on stderr
HOSTILE = [
    (["describe", "{tmp}/big.csv", "--by", "g"], 2, "T is about 2^1025, " + OVERFLOW),
    (
        ["describe", "{tmp}/e300.csv", "--by", "g", "--exponent", "2"], 2,
        "W is about 2^1994, " + OVERFLOW,
    ),
    (
        ["test", "{tmp}/e300.csv", "--by", "g", "--exponent", "2", "--n-resamples", "9"], 2,
        "the null distribution is about 2^1993",
    ),
    (
        ["cluster", "{tmp}/e300.csv", "-k", "2", "--columns", "a", "b", "--exponent", "2"], 2,
        "W_ is about 2^1993, " + OVERFLOW,
    ),
    (["split1d", "{tmp}/big.csv", "--columns", "a"], 2, "the W curve is about 2^1024, " + OVERFLOW),
    (
        ["hclust", "{tmp}/big.csv", "--columns", "a", "b", "--n-resamples", "9"], 2,
        "the merge heights is about 2^1025",
    ),
    (["describe", "{tmp}", "--by", "g"], 2, "{tmp} is a folder, not a CSV file"),
    (["describe", "{tmp}/missing.csv", "--by", "g"], 2, "file not found: {tmp}/missing.csv"),
    (
        ["cluster", "{tmp}/two.csv", "-k", "2", "--by", "g", "--n-init", "100000000"], 2,
        "--n-init must be at most 10,000 (the best of that many starts misses a partition",
    ),
    (
        ["test", "--example", "iris", "--by", "Species", "--projections", "1000000000000"], 2,
        "--projections must be at most 10,000",
    ),
    (
        ["test", "--example", "iris", "--by", "Species", "--n-resamples", "1000000000"], 2,
        "--n-resamples must be at most 10,000,000",
    ),
    (
        ["cluster", "--example", "iris", "-k", "200", "--columns", "Sepal.Length"], 2,
        "-k must be at most n_samples (150), got 200.",
    ),
    (
        ["test", "--example", "iris", "--by", "Species", "--working-memory", "0.0005"],
        2,
        "needs 15.6 KiB, more than the working memory of 524 bytes. Give --working-memory 2 (MiB), "
        "or a smaller --n-resamples.",
    ),
    (
        [
            "cluster", "--example", "iris", "--by", "Species", "-k", "3", "--n-init", "10000",
            "--working-memory", "0.5",
        ],
        2,
        "--n-init=10,000 restarts of 150 labels each needs 11.4 MiB, more than the working memory "
        "of 512.0 KiB. Give --working-memory 13 (MiB), or a smaller --n-init.",
    ),
    (
        ["hclust", "--example", "iris", "--by", "Species", "--plot", "/proc/tree.png"], 2,
        "--plot /proc/tree.png: cannot write there",
    ),
    (
        ["hclust", "--example", "iris", "--by", "Species", "--plot", "/sys/tree.png"], 2,
        "--plot /sys/tree.png: cannot write there",
    ),
    (
        ["compare-r", "--out", "/proc/new/table.md"], 2,
        "--out /proc/new/table.md: cannot write there",
    ),
    (
        ["normality", "{tmp}/const.csv", "--columns", "a", "b", "--n-resamples", "9"], 2,
        "singular sample covariance",
    ),
    # the library's `rng` and `random_state` are --seed here (issue 48, item 6)
    (["test", "--example", "iris", "--by", "Species", "--seed", "-1"], 2,
     "--seed must be a non-negative integer seed, got -1."),
    (["cluster", "{tmp}/two.csv", "-k", "2", "--by", "g", "--seed", "-1"], 2,
     "--seed must be a non-negative integer seed, got -1."),
]


@pytest.fixture
def hostile_files(tmp_path):
    for name, text in HOSTILE_FILES.items():
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    "argv, status, message", HOSTILE,
    ids=[" ".join(row[0][:2]) + f" {i}" for i, row in enumerate(HOSTILE)],
)
def test_hostile_input_gets_one_line_and_its_exit_status(
    hostile_files, monkeypatch, capsys, argv, status, message
):
    if argv[0] == "hclust" and "--plot" in argv or argv[0] == "compare-r":
        # refused before computing
        monkeypatch.setitem(_cli._COMMANDS, argv[0], (no_computation, False))
    argv = [a.format(tmp=hostile_files) for a in argv]
    assert main(argv) == status
    out, err = capsys.readouterr()
    assert (
        err.startswith(f"energystats {argv[0]}: error: ")
        and err.count("\n") == 1
        and "Traceback" not in err
    )
    assert message.format(tmp=hostile_files) in err


def test_describe_json_is_strict_json_with_the_non_finite_values_listed(hostile_files, capsys):
    """W = 0 makes F = S / 0: JSON has no NaN or Infinity (json.loads would take them, a strict
    parser not), so they are null, listed under non_finite; the text report says why."""
    assert main(["describe", str(hostile_files / "const.csv"), "--by", "g", "--json"]) == 0
    text = capsys.readouterr().out
    assert "NaN" not in text and "Infinity" not in text
    out = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    assert out["F"] is None and out["non_finite"] == {"F": "nan"} and out["W"] == 0
    assert main(["describe", str(hostile_files / "const.csv"), "--by", "g"]) == 0
    assert (
        "(F is nan: W = 0, every group is one point repeated, and so is the whole sample)"
        in capsys.readouterr().out
    )


def test_a_plot_that_cannot_be_written_exits_1(hostile_files, monkeypatch, capsys):
    import matplotlib.figure

    def full(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", full)
    plot = hostile_files / "tree.png"
    assert (
        main(
            [
                "hclust", "--example", "iris", "--by", "Species", "--n-resamples", "9", "--seed",
                "0", "--plot", str(plot),
            ]
        )
        == 1
    )
    assert (
        capsys.readouterr().err
        == f"energystats hclust: error: --plot {plot}: cannot write it (No space left on device)\n"
    )


def test_an_internal_error_is_one_line_with_status_3(monkeypatch, capsys):
    def bug(args, data, groups):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setitem(_cli._COMMANDS, "describe", (bug, True))
    assert main(["describe", "--example", "iris", "--by", "Species"]) == 3
    assert capsys.readouterr().err == (
        "energystats describe: error: internal error, please report it: ZeroDivisionError: float "
        "division by zero (ENERGYSTATS_DEBUG=1 shows the traceback)\n"
    )


def run_cli(shell: str, *, stdin=None) -> subprocess.CompletedProcess:
    """``shell`` with ``$ES`` the command line of this checkout (redirections need a shell)."""
    env = {
        **os.environ, "PYTHONPATH": str(Path(es.__file__).parents[1]),
        "ES": f"{sys.executable} -m energystats",
    }
    return subprocess.run(
        ["bash", "-c", shell], stdin=stdin, capture_output=True, text=True, env=env, timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    "shell, status, err",
    [
        (
            "$ES describe --example iris --by Species > /dev/full", 1,
            "energystats describe: error: cannot write to stdout (No space left on device)\n",
        ),
        (
            "$ES describe --example iris --by Species >&-", 1,
            "energystats describe: error: stdout is closed, nowhere to write the output\n",
        ),
    ],
    ids=["stdout full", "stdout closed"],
)
def test_stdout_that_cannot_be_written(shell, status, err):
    proc = run_cli(shell)
    assert (proc.returncode, proc.stderr) == (status, err)


def test_dev_stdin_and_a_named_pipe_are_read_as_a_unix_user_expects(hostile_files):
    """/dev/stdin and a FIFO are not regular files, but reading them is what `cat` does."""
    with open(hostile_files / "two.csv") as stdin:
        proc = run_cli("$ES describe /dev/stdin --by g --json", stdin=stdin)
    assert proc.returncode == 0 and json.loads(proc.stdout)["groups"] == {"x": 3, "y": 4}
    fifo = hostile_files / "pipe"
    os.mkfifo(fifo)
    proc = run_cli(f"cat {hostile_files}/two.csv > {fifo} & $ES describe {fifo} --by g --json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["groups"] == {"x": 3, "y": 4}
    with open(os.devnull) as stdin:
        proc = run_cli("$ES describe /dev/stdin --by g", stdin=stdin)
    assert (proc.returncode, proc.stderr) == (
        2,
        "energystats describe: error: cannot read /dev/stdin as CSV: No columns to parse from "
        "file\n",
    )


@pytest.mark.r
@pytest.mark.parametrize(
    "text, status, message",
    [
        (
            "a,b,g\n1e300,2,x\n4,5,x\n7,1,y\n1,2,y\n3,3,y\n",
            2,
            "R's energy squares the values to compute distances, which overflows beyond about "
            "1e154",
        ),
        ("a,b,c,g\n" + "1,1,1,x\n1,1,1,y\n" * 5, 2, "singular sample covariance"),
    ],
    ids=["1e300", "constant"],
)
def test_compare_r_refuses_what_r_cannot_compare(tmp_path, capsys, text, status, message):
    path = write(tmp_path, text)
    assert main(["compare-r", path, "--by", "g", "--n-resamples", "19"]) == status
    err = capsys.readouterr().err
    assert (
        err.startswith("energystats compare-r: error: ") and message in err and err.count("\n") == 1
    )


@pytest.mark.r
@pytest.mark.parametrize(
    "columns, total", [(["a"], 22), (["a", "b"], 30)], ids=["one column", "two columns"]
)
def test_compare_r_with_one_or_two_data_columns(hostile_files, capsys, columns, total):
    """The distance covariance rows compare the first column with the second (two columns), or
    only the data with the groups (one column); before, any CSV with fewer than three data
    columns was refused ("`y` must have at least one feature")."""
    path = str(hostile_files / "two.csv")
    assert (
        main(
            [
                "compare-r", path, "--by", "g", "--columns", *columns, "--n-resamples", "19",
                "--seed", "1", "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["total"] == total and out["agree"] == total


@pytest.mark.r
def test_compare_r_with_one_row_per_group_and_zero_within_dispersion(tmp_path, capsys):
    """R's kgroups W is 0 (a point per group): no ZeroDivisionError; F is NaN in both."""
    path = write(tmp_path, "a,b,g\n1,2,x\n3,1,y\n2,2,z\n5,1,w\n")
    main(["compare-r", path, "--by", "g", "--n-resamples", "19", "--json"])
    rows = {(r["R quantity"], r["alpha"]): r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert (
        rows[("disco statistic (F)", 1.0)]["agree"]
        and rows[("kgroups W: hartigan 0.0000 vs R 0.0000", 1.0)]["agree"]
    )


@pytest.mark.r
def test_compare_r_out_to_a_full_device_exits_1(hostile_files):
    proc = run_cli(f"$ES compare-r {hostile_files}/two.csv --by g --n-resamples 19 --out /dev/full")
    assert (proc.returncode, proc.stderr) == (
        1,
        "energystats compare-r: error: --out /dev/full: cannot write it (No space left on "
        "device)\n",
    )


def test_describe_many_groups_reuses_dispersion_and_caps_the_report(tmp_path, capsys):
    """30 levels, 435 pairs: the report prints the first 100 pairs and 20 group sizes and
    says how to get all; --json has every pair, each energy distance equal to energy_distance
    of the two groups (computed by dispersion once, not again pair by pair)."""
    g = np.random.default_rng(3)
    levels = np.repeat([f"L{i:02d}" for i in range(30)], 3)
    frame = pd.DataFrame({"a": g.normal(size=90), "b": g.normal(size=90), "g": levels})
    path = tmp_path / "levels.csv"
    frame.to_csv(path, index=False)
    assert main(["describe", str(path), "--by", "g"]) == 0
    text = capsys.readouterr().out
    assert "    L00     L01 " in text
    assert "... the first 100 of 435 pairs; --json prints every pair\n" in text
    assert "group sizes: L00 3, L01 3," in text
    assert "L19 3, ... (30 groups; --json lists all)\n" in text
    assert "L20 3" not in text and len(text.splitlines()) < 140
    assert main(["describe", str(path), "--by", "g", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["pairs"]) == 435 and len(out["groups"]) == 30
    X, labels = frame[["a", "b"]].to_numpy(), frame["g"].to_numpy()
    for pair in out["pairs"][::37]:
        a, b = X[labels == pair["group_a"]], X[labels == pair["group_b"]]
        assert pair["energy_distance"] == pytest.approx(es.energy_distance(a, b), rel=1e-12)
        edist = 3 * 3 / (3 + 3) * pair["energy_distance"]
        assert pair["edist_statistic"] == pytest.approx(edist, rel=1e-14)


@pytest.mark.parametrize("order", [
    ["describe", "--columns", "a", "b", "{path}", "--by", "g"],  # the file after the columns
    ["describe", "--by", "g", "--columns", "a", "b", "{path}"],
    ["describe", "{path}", "--by", "g", "--columns", "a", "b"],
    ["describe", "--by", "g", "--columns", "a", "b", "--", "{path}"],
])
def test_the_file_may_follow_the_columns(tmp_path, capsys, order):
    path = write(tmp_path, "a,b,c,g\n1,2,9,x\n2,3,8,x\n3,5,1,y\n5,5,0,y\n")
    assert main([word.format(path=path) for word in order]) == 0
    text = capsys.readouterr().out
    assert "Energy statistics of 4 points in 2 variables, grouped by 'g'\nvariables: a, b\n" in text


def test_columns_take_stdin_named_last_and_say_when_no_file_is_found(tmp_path, monkeypatch,
                                                                      capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("a,b,g\n1,2.5,x\n2,3,x\n3,4,y\n5,5,y\n"))
    assert main(["describe", "--by", "g", "--columns", "a", "b", "-"]) == 0
    assert "variables: a, b\n" in capsys.readouterr().out
    monkeypatch.chdir(tmp_path)
    assert main(["describe", "--by", "g", "--columns", "a", "b", "missing.csv"]) == 2
    assert capsys.readouterr().err == ("energystats describe: error: give a CSV file or --example "
                                       "iris (no file named 'missing.csv' was found)\n")


def test_a_test_of_minutes_says_so_before_it_starts(monkeypatch, capsys):
    """On a terminal (ENERGYSTATS_PROGRESS=1 stands for one here), `test` on a file that takes
    minutes says how long, and what --projections would take, before computing (issue 48,
    item 5); the threshold is lowered so that iris stands for 1.3 million rows."""
    from energystats import _progress

    monkeypatch.setattr(_progress, "LONG", 0.0)
    monkeypatch.setenv("ENERGYSTATS_PROGRESS", "1")
    argv = ["test", "--example", "iris", "--by", "Species", "--n-resamples", "9", "--seed", "0"]
    assert main(argv) == 0
    assert capsys.readouterr().err.startswith(
        "energystats: energy_test of 150 points in 3 groups, 10 relabelings takes about 0 s on "
        "one core (an estimate from its sizes)")
