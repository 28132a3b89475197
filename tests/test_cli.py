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
