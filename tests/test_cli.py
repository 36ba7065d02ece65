"""The kanon-graph command line, run in-process through ``main([...])``.

One test runs the installed console script in a subprocess.
"""

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.cli._common import Progress
from kanon_graph.io import numeric_columns, read_table
from kanon_graph.viz import hierarchy_dot, hierarchy_text


@pytest.fixture
def paper_files(tmp_path):
    """Paper 003's Table 1 as CSV, and its Figure 2 hierarchies as ARX CSVs."""
    kg.datasets.paper_003_table().to_csv(tmp_path / "patients.csv", index=False)
    folder = tmp_path / "hierarchies"
    folder.mkdir()
    for column, h in kg.datasets.paper_003_hierarchies().items():
        kg.write_hierarchy(h, folder / f"{column}.csv")
    return tmp_path


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _as_the_cli_reads(path, qis, **schema):
    """The table the CLI hands the library: text, numeric-looking QIs declared numeric."""
    table = read_table(path)
    return table, kg.Schema(quasi_identifiers=qis, numeric=numeric_columns(table, qis), **schema)


def _one_line_error(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("kanon-graph: error: ")
    assert "Traceback" not in err
    return lines[0]


# ------------------------------------------------------------------ demo
def test_demo_prints_head_classes_and_the_loss_of_the_real_run(capsys):
    code, out, err = _run(capsys, "demo", "-n", 400, "-k", 4, "--seed", 3, "--rows", 5,
                          "--algorithm", "datafly")
    # datafly puts five of the eight quasi-identifiers at the root here: the one line
    # that says so (issue 30) is all that goes to stderr
    assert code == 0 and err.count("\n") == 1
    assert err.startswith("kanon-graph: warning: algorithm 'datafly' generalizes")
    res = kg.anonymize(kg.datasets.make_census(400, seed=3), kg.datasets.census_schema(),
                       k=4, algorithm="datafly")
    assert f"Released table (first 5 of 400 rows)" in out
    assert f"Equivalence classes: {len(res.classes)}," in out
    head = out.split("Released table")[1].split("Equivalence classes")[0]
    assert len(head.strip().splitlines()) == 1 + 1 + 5  # title, header, 5 rows
    for name in ("loss", "gcp", "ncp", "discernibility", "cavg"):
        line = next(l for l in out.splitlines() if l.strip().startswith(name + " "))
        assert float(line.split()[1]) == pytest.approx(res.metrics[name], rel=1e-5)
    assert res.verification.describe() in out


def test_demo_rejects_a_k_larger_than_the_table(capsys):
    code, out, err = _run(capsys, "demo", "-n", 20, "-k", 50)
    assert code == 1
    assert "'k'" in _one_line_error(err) and "50" in err


# ------------------------------------------------------------- anonymize
def test_anonymize_with_qi_writes_the_release_and_a_report(paper_files, capsys):
    out_csv, report = paper_files / "out.csv", paper_files / "report.json"
    code, out, err = _run(capsys, "anonymize", "--keep-order", paper_files / "patients.csv",
                          "--qi", "gender,age,zip", "--identifiers", "id",
                          "--hierarchies", paper_files / "hierarchies",
                          "-k", 3, "-o", out_csv, "--report", report)
    assert code == 0, err
    table, schema = _as_the_cli_reads(  # zip is numeric here (no leading zero)
        paper_files / "patients.csv", ["gender", "age", "zip"], identifiers=["id"],
        hierarchies=kg.load_hierarchies(paper_files / "hierarchies"))
    res = kg.anonymize(table, schema, k=3)
    released = pd.read_csv(out_csv, dtype=str)
    assert list(released.columns) == list(res.table.columns) and "id" not in released
    assert released.to_numpy().tolist() == res.table.astype(str).to_numpy().tolist()
    rep = json.loads(report.read_text())
    assert rep["parameters"]["k"] == 3 and rep["parameters"]["quasi_identifiers"] == \
        ["gender", "age", "zip"]
    assert rep["suppressed"] == res.suppressed == (released["age"] == "*").sum()
    assert rep["records"] == 10 and rep["released"] == 10 - res.suppressed
    assert rep["classes"]["count"] == len(res.classes)
    assert rep["classes"]["min"] == min(len(c) for c in res.classes) >= 3
    assert sum(int(s) * c for s, c in rep["classes"]["size_histogram"].items()) == \
        rep["released"]
    assert set(rep["metrics"]) == {n for n, m in kg.metrics.metrics().items() if not m.needs
                                 and m.applies is None}   # sse_sst: microaggregations only
    for name, value in res.metrics.items():
        assert rep["metrics"][name] == pytest.approx(value)
    assert rep["verification"]["holds"] is True and rep["verification"]["k"] == 3
    assert rep["levels"] == res.levels and rep["seconds"] > 0
    assert f"wrote {out_csv}" in out


def test_anonymize_with_a_schema_file_and_l_diversity(paper_files, capsys):
    schema = paper_files / "schema.yaml"
    schema.write_text("quasi_identifiers: [gender, age, zip]\nsensitive: [disease]\n"
                      "identifiers: [id]\ncategorical: [zip]\nhierarchies: hierarchies\n")
    out_csv, report = paper_files / "out.csv", paper_files / "r.json"
    kg.datasets.paper_003_table().to_csv(paper_files / "semi.csv", sep=";", index=False)
    code, out, err = _run(capsys, "anonymize", "--keep-order", paper_files / "semi.csv", "--schema", schema,
                          "-k", 2, "--l", 2, "--sensitive", "disease", "--suppression", 0.3,
                          "-o", out_csv, "--report", report, "--sep", ";", "--quiet")
    assert code == 0, err
    assert out == ""
    released = pd.read_csv(out_csv, sep=";", dtype=str)
    rep = json.loads(report.read_text())
    assert rep["verification"]["l"] == 2 and rep["verification"]["l_achieved"] >= 2
    assert rep["suppressed"] <= 3
    kept = released[released["age"] != "*"]
    qis = ["gender", "age", "zip"]
    assert kept.groupby(qis)["disease"].nunique().min() >= 2
    assert kept.groupby(qis).size().min() >= 2


def test_anonymize_passes_algorithm_options_and_reports_unknown_ones(paper_files, capsys):
    code, _, err = _run(capsys, "anonymize", "--keep-order", paper_files / "patients.csv", "--qi", "age",
                        "--hierarchies", paper_files / "hierarchies", "-k", 2,
                        "-o", paper_files / "o.csv", "--option", "speed=3",
                        "--algorithm", "datafly")
    assert code == 1
    line = _one_line_error(err)
    assert "speed" in line and "datafly" in line


@pytest.mark.parametrize("case, needle", [
    ("missing column", "'zipcode'"),
    ("value not in hierarchy", "99"),
    ("k too large", "'k'"),
    ("unknown algorithm", "Known algorithms"),
    ("no hierarchies", "needs a hierarchy"),
    ("ragged csv", "ragged.csv"),
    ("no such file", "nothere.csv"),
    ("no output folder", "does not exist"),
    ("missing values", "missing value"),
])
def test_data_mistakes_are_one_line_with_exit_code_1(paper_files, capsys, case, needle):
    patients = paper_files / "patients.csv"
    args = ["--qi", "gender,age,zip", "--hierarchies", paper_files / "hierarchies", "-k", 3,
            "-o", paper_files / "out.csv"]
    if case == "missing column":
        args[1] = "gender,age,zipcode"
    elif case == "value not in hierarchy":
        text = patients.read_text().replace(",24,", ",99,")
        patients = paper_files / "bad.csv"
        patients.write_text(text)
    elif case == "k too large":
        args[5] = 11
    elif case == "unknown algorithm":
        args += ["--algorithm", "no-such-algorithm"]
    elif case == "no hierarchies":       # (the default, auto, would run mondrian)
        args = args[:2] + args[4:] + ["--algorithm", "datafly"]
    elif case == "ragged csv":
        patients = paper_files / "ragged.csv"
        patients.write_text("a,b\n1,2\n3,4,5,6\n")
    elif case == "no such file":
        patients = paper_files / "nothere.csv"
    elif case == "no output folder":
        args[-1] = paper_files / "missing" / "out.csv"
    elif case == "missing values":
        table = kg.datasets.paper_003_table()
        table.loc[4, "gender"] = None
        patients = paper_files / "holes.csv"
        table.to_csv(patients, index=False)
    code, out, err = _run(capsys, "anonymize", "--keep-order", patients, *args)
    assert code == 1
    assert needle in _one_line_error(err)
    assert not (paper_files / "out.csv").exists()


def test_missing_values_can_be_dropped_and_are_counted(paper_files, capsys):
    table = kg.datasets.paper_003_table()
    table.loc[[0, 9], "zip"] = None
    table.to_csv(paper_files / "holes.csv", index=False)
    report = paper_files / "r.json"
    code, _, err = _run(capsys, "anonymize", "--keep-order", paper_files / "holes.csv", "--qi", "gender,age",
                        "--hierarchies", paper_files / "hierarchies", "-k", 2,
                        "--missing", "drop", "-o", paper_files / "o.csv", "--report", report)
    assert code == 0, err
    rep = json.loads(report.read_text())
    assert rep["dropped"] == 0  # zip is not a quasi-identifier here: nothing to drop
    code, _, err = _run(capsys, "anonymize", "--keep-order", paper_files / "holes.csv", "--qi", "gender,zip",
                        "--hierarchies", paper_files / "hierarchies", "-k", 2,
                        "--missing", "drop", "-o", paper_files / "o.csv", "--report", report)
    assert code == 0, err
    rep = json.loads(report.read_text())
    assert rep["dropped"] == 2 and rep["records"] == 8


@pytest.mark.parametrize("argv, needle", [
    ([], "COMMAND"),
    (["anonymize", "--keep-order", "x.csv", "-k", "2", "-o", "o.csv"], "--schema"),
    (["anonymize", "--keep-order", "x.csv", "--qi", "a", "--schema", "s.yaml", "-k", "2", "-o", "o"],
     "not allowed"),
    (["anonymize", "--keep-order", "x.csv", "--qi", "a", "-k", "two", "-o", "o.csv"], "'two'"),
    (["anonymize", "--keep-order", "x.csv", "--qi", "a", "-k", "2", "-o", "o", "--suppression", "2"],
     "[0, 1]"),
    (["anonymize", "--keep-order", "x.csv", "--qi", "a", "-k", "2", "-o", "o", "--l", "2"], "--sensitive"),
    (["hierarchy", "show", "f.csv", "--format", "png"], "invalid choice"),
    (["frobnicate"], "invalid choice"),
])
def test_usage_mistakes_are_one_line_with_exit_code_2(capsys, argv, needle):
    code, out, err = _run(capsys, *argv)
    assert code == 2
    assert needle in _one_line_error(err)


def test_help_and_version_exit_zero(capsys):
    code, out, _ = _run(capsys, "--help")
    assert code == 0 and "anonymize" in out and "hierarchy" in out
    code, out, _ = _run(capsys, "--version")
    assert code == 0 and kg.__version__ in out


# ------------------------------------------------------------- hierarchy
@pytest.mark.parametrize("fmt", ["text", "dot"])
def test_hierarchy_show_draws_the_file(paper_files, capsys, fmt):
    path = paper_files / "hierarchies" / "age.csv"
    code, out, err = _run(capsys, "hierarchy", "show", path, "--format", fmt)
    assert code == 0, err
    h = kg.read_hierarchy(path)
    expected = hierarchy_text(h) if fmt == "text" else "\n".join(hierarchy_dot(h))
    assert out == expected + "\n"


def test_hierarchy_show_reads_magval_marks_and_writes_to_a_file(tmp_path, capsys):
    path = tmp_path / "location.csv"
    kg.write_hierarchy(kg.datasets.paper_002_location(), path)
    assert "*South Egypt*" in path.read_text()
    code, out, err = _run(capsys, "hierarchy", "show", path, "--ascii", "-o", tmp_path / "l.txt")
    assert code == 0 and out == ""
    lines = (tmp_path / "l.txt").read_text().splitlines()
    assert lines[1] == "|-- South Egypt  (level 1, 3 leaves, MAGVal)"
    assert sum("MAGVal" in line for line in lines) == 3


def test_hierarchy_show_reports_a_broken_file_in_one_line(tmp_path, capsys):
    path = tmp_path / "broken.csv"
    path.write_text("a;x;*\nb;y;*\na;y;*\n")
    code, _, err = _run(capsys, "hierarchy", "show", path)
    assert code == 1
    line = _one_line_error(err)
    assert "'a'" in line and "line 3" in line


# ------------------------------------------------------------ algorithms
def test_algorithms_lists_every_registered_algorithm_with_capabilities(capsys):
    @kg.register_algorithm("cli-test-one-class", recoding="local", supports_suppression=False)
    def one_class(data, model, *, rng, suppression=None, spread=1):
        "Everything in one class."
        return kg.Partition(np.zeros(data.n, dtype=int))

    try:
        code, out, _ = _run(capsys, "algorithms")
    finally:
        kg.registry.unregister_algorithm("cli-test-one-class")
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.strip().splitlines()[1:]}
    assert set(rows) == set(kg.algorithms()) | {"cli-test-one-class"}
    assert rows["cli-test-one-class"][1:6] == ["local", "optional", "no", "no", "spread"]
    info = kg.registry.get_algorithm("datafly")
    assert rows["datafly"][1:5] == ["global", "required" if info.needs_hierarchies else "optional",
                                    "yes" if info.supports_suppression else "no",
                                    "yes" if info.supports_boundaries else "no"]


def test_respect_boundaries_keeps_values_under_their_magval(tmp_path, capsys):
    location = kg.datasets.paper_002_location()  # South / Mid / North Egypt are MAGVals
    (tmp_path / "h").mkdir()
    kg.write_hierarchy(location, tmp_path / "h" / "location.csv")
    cities = (["Geza", "Aswan", "Luxor"] * 3 + ["Helwan", "Fayoum", "Minya"] * 3
              + ["Alex", "Tanta", "Damietta"])  # 9 + 9 + 3 records
    pd.DataFrame({"location": cities, "age": range(21)}).to_csv(tmp_path / "t.csv", index=False)
    able = [n for n in kg.algorithms() if kg.registry.get_algorithm(n).supports_boundaries]
    assert "datafly" in able

    def run(suppression, *flag):
        return _run(capsys, "anonymize", "--keep-order", tmp_path / "t.csv", "--qi", "location",
                    "--hierarchies", tmp_path / "h", "-k", 7, "--suppression", suppression,
                    "-o", tmp_path / "o.csv", "--algorithm", "datafly", *flag)

    code, _, err = run(0.1)  # 2 may be suppressed: Datafly climbs to the root
    assert code == 0, err
    assert set(pd.read_csv(tmp_path / "o.csv")["location"]) == {"A.R.E"}
    code, _, err = run(0.2, "--respect-boundaries")  # capped at the regions; North suppressed
    assert code == 0, err
    released = pd.read_csv(tmp_path / "o.csv")["location"].value_counts().to_dict()
    assert released == {"South Egypt": 9, "Mid Egypt": 9, "*": 3}
    code, _, err = run(0.1, "--respect-boundaries")  # impossible within the caps
    assert code == 1 and "datafly" in _one_line_error(err)


# ------------------------------------------------------- console script
def test_console_script_runs_in_a_subprocess(paper_files):
    # one run only (each pays the interpreter start-up); the failure path shows that
    # the script turns main()'s return value into the exit status
    script = Path(sys.executable).with_name("kanon-graph")
    assert script.exists(), f"console script not installed next to {sys.executable}"
    bad = subprocess.run([str(script), "anonymize", "--keep-order", str(paper_files / "patients.csv"),
                          "--qi", "nope", "-k", "2", "-o", str(paper_files / "o.csv")],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1
    assert bad.stderr.startswith("kanon-graph: error: ") and "'nope'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_read_table_keeps_every_cell_as_its_text(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("age,zip,city\n34,02139, Boston\n51,,NA\n")
    table = read_table(path)
    assert list(table.columns) == ["age", "zip", "city"]
    assert table["age"].tolist() == ["34", "51"] and table["zip"].tolist()[0] == "02139"
    assert table["city"].tolist() == [" Boston", "NA"] and table["zip"].isna().tolist() == \
        [False, True]
    assert numeric_columns(table) == ["age"]  # zip has a leading zero: a code
    assert read_table(path, na_values=["", "NA"])["city"].isna().tolist() == [False, True]


def test_plugin_registers_an_algorithm_for_the_command(paper_files, capsys):
    plugin = paper_files / "plugin_one_class.py"
    plugin.write_text(
        "import numpy as np, kanon_graph as kg\n"
        "@kg.register_algorithm('cli-plugin-one-class', recoding='local')\n"
        "def one(data, model, *, rng, suppression=None):\n"
        "    'One class.'\n"
        "    return kg.Partition(np.zeros(data.n, dtype=int))\n")
    try:
        code, out, err = _run(capsys, "--plugin", plugin, "anonymize", "--keep-order",
                              paper_files / "patients.csv", "--qi", "gender,age", "-k", 10,
                              "--algorithm", "cli-plugin-one-class", "-o", paper_files / "o.csv")
        assert code == 0, err
        assert "1 equivalence classes" in out
        code, out, _ = _run(capsys, "--plugin", plugin, "algorithms")  # imported once only
        assert code == 0 and "cli-plugin-one-class" in out
    finally:
        kg.registry.unregister_algorithm("cli-plugin-one-class")
        for name in [n for n, m in sys.modules.items()
                     if str(getattr(m, "__file__", "") or "").startswith(str(paper_files))]:
            del sys.modules[name]
    code, _, err = _run(capsys, "--plugin", paper_files / "missing.py", "algorithms")
    assert code == 1 and "missing.py" in _one_line_error(err)


def test_anonymize_adult_from_the_shared_data_matches_the_library(adult_dir, adult_table,
                                                                   adult_schema, tmp_path,
                                                                   capsys):
    from conftest import ADULT_QIS

    report = tmp_path / "adult.json"
    code, _, err = _run(capsys, "anonymize", "--keep-order", adult_dir / "adult.csv", "--qi", ",".join(ADULT_QIS),
                        "--sensitive", "salary-class", "--hierarchies", adult_dir, "-k", 5,
                        "--algorithm", "datafly",
                        "-o", tmp_path / "adult.csv", "--report", report, "--quiet")
    assert code == 0, err
    rep = json.loads(report.read_text())
    res = kg.anonymize(adult_table, adult_schema, k=5, algorithm="datafly")
    assert rep["records"] == len(adult_table) == 30162
    assert rep["levels"] == res.levels and rep["suppressed"] == res.suppressed
    assert rep["metrics"]["loss"] == pytest.approx(res.metrics["loss"], abs=1e-12)
    released = pd.read_csv(tmp_path / "adult.csv", dtype=str)
    assert (released[ADULT_QIS].to_numpy() == res.table[ADULT_QIS].astype(str).to_numpy()).all()


# -------------------------------------------------------------- evaluate
def test_evaluate_reports_the_metrics_of_the_anonymize_report(paper_files, capsys):
    common = ["--qi", "gender,age,zip", "--identifiers", "id",
              "--hierarchies", paper_files / "hierarchies"]
    for algorithm in ("datafly", "mst"):
        code, _, err = _run(capsys, "anonymize", "--keep-order", paper_files / "patients.csv", *common, "-k", 3,
                            "--algorithm", algorithm, "-o", paper_files / "out.csv",
                            "--report", paper_files / "a.json", "-q")
        assert code == 0, err
        code, out, err = _run(capsys, "evaluate", paper_files / "patients.csv",
                              paper_files / "out.csv", *common, "-k", 3,
                              "--report", paper_files / "e.json")
        assert code == 0 and err == "", err
        made = json.loads((paper_files / "a.json").read_text())
        measured = json.loads((paper_files / "e.json").read_text())
        assert measured["metrics"] == pytest.approx(made["metrics"], rel=1e-12)
        assert measured["classes"]["count"] == made["classes"]["count"]
        assert measured["verification"]["k_achieved"] == made["verification"]["k_achieved"]
        assert measured["suppressed"] == made["suppressed"]
        assert measured["risk"]["highest"] == 1 / made["classes"]["min"]
        assert "holds: k=3" in out and "prosecutor risk: highest" in out


def test_evaluate_a_foreign_release_and_check_flag(tmp_path, capsys):
    pd.DataFrame({"age": [21, 25, 30, 34], "sex": list("MFMF"),
                  "disease": ["flu", "flu", "hiv", "cold"]}).to_csv(tmp_path / "o.csv",
                                                                   index=False)
    pd.DataFrame({"age": ["[20-29]", "[20-29]", "[30-39]", "[30-39]"],
                  "sex": ["{F,M}"] * 4, "disease": ["flu", "flu", "hiv", "cold"]}).to_csv(
        tmp_path / "r.csv", index=False)
    args = ["evaluate", tmp_path / "o.csv", tmp_path / "r.csv", "--qi", "age,sex",
            "--sensitive", "disease", "-k", 2, "--l", 2]
    code, out, _ = _run(capsys, *args)
    assert code == 0 and "FAILS" in out and "achieved 1" in out
    code, _, _ = _run(capsys, *args, "--check")
    assert code == 3
    code, out, _ = _run(capsys, *args[:-2], "--check")
    assert code == 0 and out.splitlines()[1].startswith("holds: k=2")


def test_evaluate_unknown_released_value_is_one_line(paper_files, capsys):
    code, _, err = _run(capsys, "anonymize", "--keep-order", paper_files / "patients.csv", "--qi", "gender,age",
                        "--hierarchies", paper_files / "hierarchies", "-k", 2,
                        "-o", paper_files / "out.csv", "-q")
    assert code == 0, err
    released = pd.read_csv(paper_files / "out.csv", dtype=str)
    released.loc[4, "gender"] = "robot"
    released.to_csv(paper_files / "bad.csv", index=False)
    code, _, err = _run(capsys, "evaluate", paper_files / "patients.csv", paper_files / "bad.csv",
                        "--qi", "gender,age", "--hierarchies", paper_files / "hierarchies")
    assert code == 1
    line = _one_line_error(err)
    assert "'robot'" in line and "'gender'" in line and "row 4" in line


# ---------------------------------------------------------- hierarchy build
def test_hierarchy_build_intervals_matches_the_library(tmp_path, capsys):
    out = tmp_path / "age.csv"
    code, text, err = _run(capsys, "hierarchy", "build", "--intervals", "5,10,20",
                           "--values", "1..100", "-o", out)
    assert code == 0, err
    built = kg.read_hierarchy(out)
    expected = kg.hierarchy.intervals(range(1, 101), widths=[5, 10, 20])
    assert built.to_rows() == expected.to_rows() and built.height == 4
    assert f"wrote {out} (100 leaves, height 4)" in text
    code, text, _ = _run(capsys, "hierarchy", "build", "--cuts", "0,18,65/0,65",
                         "--values", "10,20,70")
    assert code == 0
    assert text.splitlines() == [";".join(r) for r in kg.hierarchy.intervals(
        [10, 20, 70], cuts=[[0, 18, 65], [0, 65]]).to_rows()]


def test_hierarchy_build_mask_from_a_csv_column(tmp_path, capsys):
    pd.DataFrame({"zip": ["02139", "02138", "10001", "02139"], "x": [1, 2, 3, 4]}).to_csv(
        tmp_path / "d.csv", index=False)
    code, out, err = _run(capsys, "hierarchy", "build", "--mask", 3, "--values-from",
                          tmp_path / "d.csv", "--column", "zip", "-o", tmp_path / "zip.csv")
    assert code == 0, err
    h = kg.read_hierarchy(tmp_path / "zip.csv")
    assert h.leaf_labels == ["02138", "02139", "10001"]
    assert h.ancestors("02139") == ["02139", "0213*", "021**", "02***", "*"]


@pytest.mark.parametrize("argv, code_, needle", [
    (["--intervals", "5,10", "--values", "a,b"], 1, "'a'"),
    (["--intervals", "5,7", "--values", "1..20"], 1, "multiple"),
    (["--mask", "2", "--values-from", "d.csv"], 2, "--column"),
    (["--mask", "2", "--values-from", "d.csv", "--column", "nope"], 1, "'nope'"),
    (["--mask", "2", "--intervals", "5", "--values", "1..3"], 2, "not allowed"),
])
def test_hierarchy_build_mistakes(tmp_path, capsys, monkeypatch, argv, code_, needle):
    monkeypatch.chdir(tmp_path)
    pd.DataFrame({"zip": ["02139"]}).to_csv("d.csv", index=False)
    code, _, err = _run(capsys, "hierarchy", "build", *argv)
    assert code == code_
    assert needle in _one_line_error(err)


# ------------------------------------------------------------ lattice show
def _statuses(dot):
    return dict(re.findall(r'"([\d,]+)" \[label="[^"]*", fillcolor="[^"]*", tooltip="([^"]*)"',
                           dot))


def test_lattice_show_colours_agree_with_every_node_checked(paper_files, capsys):
    args = ["lattice", "show", paper_files / "patients.csv", "--qi", "gender,age,zip",
            "--hierarchies", paper_files / "hierarchies", "-k", 3]
    code, dot, err = _run(capsys, *args, "--all")
    assert code == 0, err
    status = _statuses(dot)
    table, schema = _as_the_cli_reads(paper_files / "patients.csv", ["gender", "age", "zip"],
                                      hierarchies=kg.load_hierarchies(paper_files / "hierarchies"))
    lattice = kg.lattice.Lattice([schema.hierarchy(c).height for c in ["gender", "age", "zip"]])
    assert len(status) == lattice.size
    best = kg.anonymize(table, schema, k=3, algorithm="optimal")
    chosen = ",".join(str(v) for v in best.levels.values())
    for node in lattice.nodes():
        key = ",".join(map(str, node))
        holds = kg.apply_levels(table, schema, node, k=3).verification.holds
        expected = "chosen" if key == chosen else ("anonymous" if holds else "not-anonymous")
        assert status[key] == expected, node
    code, dot, _ = _run(capsys, *args)       # the search alone: some nodes may be pruned
    searched = _statuses(dot)
    assert searched[chosen] == "chosen"
    assert all(searched[n] in (status[n], "pruned") for n in status)


def test_lattice_show_writes_png_and_refuses_huge_lattices(paper_files, capsys):
    args = ["lattice", "show", paper_files / "patients.csv", "--qi", "gender,age,zip",
            "--hierarchies", paper_files / "hierarchies", "-k", 3]
    code, out, err = _run(capsys, *args, "--format", "png", "-o", paper_files / "l.png")
    assert code == 0, err
    assert (paper_files / "l.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "chosen gender" in out
    code, _, err = _run(capsys, *args, "--max-nodes", 10)
    assert code == 1 and "fewer quasi-identifiers" in _one_line_error(err)
    code, _, err = _run(capsys, *args, "--format", "png")
    assert code == 2 and "-o" in _one_line_error(err)


# ---------------------------------------------------------------- compare
def test_compare_table_matches_single_runs_and_plots(paper_files, capsys):
    table_csv, plot = paper_files / "cmp.csv", paper_files / "curves.png"
    code, out, err = _run(capsys, "compare", paper_files / "patients.csv",
                          "--qi", "gender,age,zip", "--hierarchies", paper_files / "hierarchies",
                          "--algorithms", "datafly,mondrian,mst", "-k", "2,3",
                          "-o", table_csv, "--plot", plot)
    assert code == 0 and err == "", err
    frame = pd.read_csv(table_csv)
    assert frame[["algorithm", "k"]].values.tolist() == [
        [a, k] for a in ("datafly", "mondrian", "mst") for k in (2, 3)]
    data, schema = _as_the_cli_reads(paper_files / "patients.csv", ["gender", "age", "zip"],
                                     hierarchies=kg.load_hierarchies(paper_files / "hierarchies"))
    for row in frame.itertuples():
        res = kg.anonymize(data, schema, k=row.k, algorithm=row.algorithm, seed=0)
        assert row.loss == pytest.approx(res.metrics["loss"])
        assert row.gcp == pytest.approx(res.metrics["gcp"])
        assert row.classes == len(res.classes) and row.seconds > 0
    assert plot.read_bytes()[:4] == b"\x89PNG"
    assert "mondrian" in out and f"wrote {table_csv}" in out


def test_compare_fails_fast_on_unknown_names_and_keeps_failed_runs(paper_files, capsys):
    base = ["compare", paper_files / "patients.csv", "--qi", "gender,age"]
    code, _, err = _run(capsys, *base, "--algorithms", "datafly,nope", "-k", 2)
    assert code == 1 and "'nope'" in _one_line_error(err)
    code, _, err = _run(capsys, *base, "--algorithms", "mst", "-k", "2,x")
    assert code == 2
    code, out, err = _run(capsys, *base, "--algorithms", "mst", "-k", "2,50",
                          "-o", paper_files / "c.csv")
    assert code == 0, err
    frame = pd.read_csv(paper_files / "c.csv", keep_default_na=False)
    assert frame["error"].tolist()[0] == "" and "'k' parameter" in frame["error"].tolist()[1]


# --------------------------------------------------------------- progress
class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_is_a_tqdm_bar_only_on_a_terminal_and_not_when_quiet():
    tty = _Terminal()
    progress = Progress(stream=tty)
    assert progress.enabled
    progress.phase("reading")
    assert "kanon-graph: reading [00:00]" in tty.getvalue()
    for done in range(5):
        progress.step(done, 4, "mst k=2")
    bar = progress._bar
    assert type(bar).__module__.startswith("tqdm") and (bar.n, bar.total) == (4, 4)
    progress.close()
    text = tty.getvalue()
    assert "kanon-graph: reading" in text and "4/4" in text and "mst k=2" in text
    assert "100%|" in text and "[#" not in text       # tqdm's bar, not the old [###...]
    for stream, quiet in ((_Terminal(), True), (io.StringIO(), False)):
        progress = Progress(quiet, stream=stream)
        assert not progress.enabled
        progress.phase("x")
        progress.step(1, 2)
        progress.close()
        assert stream.getvalue() == ""


def test_no_hand_written_progress_bar_is_left():
    carriage_return = chr(92) + "r"               # the two characters of "\\r" in source
    for path in Path(kg.__file__).parent.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "'#' * " not in text and '"#" * ' not in text, path
        # a bar redraws its line with a carriage return written or printed; counting the
        # line breaks of a file (b"\r", "\r".encode(...)) draws nothing
        drawn = [line for line in text.splitlines() if '"' + carriage_return in line
                 and ("print(" in line or ".write(" in line or "end=" in line)]
        assert not drawn, (path, drawn)


def test_compare_drives_one_tqdm_step_per_run(paper_files, capsys, monkeypatch):
    tty = _Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    code = main(["compare", str(paper_files / "patients.csv"), "--qi", "gender,age",
                 "--algorithms", "datafly,mst", "-k", "2,3"])
    assert code == 0
    text = tty.getvalue()
    assert "4/4" in text and "mst k=3" in text
    seen = re.findall(r"(\d)/4", text)
    assert seen[0] == "0" and seen[-1] == "4"
    assert [int(n) for n in seen] == sorted(int(n) for n in seen)
    monkeypatch.setattr(sys, "stderr", tty := _Terminal())
    main(["compare", str(paper_files / "patients.csv"), "--qi", "gender,age",
          "--algorithms", "datafly", "-k", "2", "--quiet"])
    assert tty.getvalue() == ""


def test_anonymize_hands_the_bar_to_the_algorithm_on_a_terminal(paper_files, capsys,
                                                                 monkeypatch):
    tty = _Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    code = main(["anonymize", "--keep-order", str(paper_files / "patients.csv"), "--qi", "gender,age",
                 "-k", "2", "--algorithm", "mst", "-o", str(paper_files / "r.csv")])
    assert code == 0
    text = tty.getvalue()
    assert "anonymizing" in text and "5/5" in text and "refined" in text
    code, _, err = _run(capsys, "anonymize", "--keep-order", paper_files / "patients.csv", "--qi",
                        "gender,age", "-k", 2, "--algorithm", "mst", "-o",
                        paper_files / "r2.csv")
    assert code == 0 and err == ""                     # captured stderr is not a terminal


def test_data_table_beside_the_hierarchies(tmp_path, capsys, monkeypatch):
    """A user keeps patients.csv next to age.csv / zip.csv: only QI files are read."""
    rng = np.random.default_rng(3)
    n = 120
    pd.DataFrame({"name": [f"p{i}" for i in range(n)], "age": rng.integers(18, 90, n),
                  "zip": rng.choice(["02139", "02138", "10001"], n),
                  "diagnosis": rng.choice(["flu", "asthma", "none"], n)}
                 ).to_csv(tmp_path / "patients.csv", index=False)
    kg.write_hierarchy(kg.hierarchy.intervals(range(100), widths=[10, 50]), tmp_path / "age.csv")
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, "anonymize", "--keep-order", "patients.csv", "--qi", "age,zip",
                          "--identifiers", "name", "--hierarchies", ".", "-k", "5",
                          "--algorithm", "mst", "-o", "out.csv")
    assert code == 0, err
    released = pd.read_csv(tmp_path / "out.csv", dtype=str)
    assert "name" not in released.columns
    assert set(released["age"]) <= {"[0-9]", "[10-19]", "[20-29]", "[30-39]", "[40-49]",
                                     "[50-59]", "[60-69]", "[70-79]", "[80-89]", "[90-99]",
                                     "[0-49]", "[50-99]", "*"}
    # zip has no hierarchy file: it is released hierarchy-free (a value or a set)
    assert all(z in {"02139", "02138", "10001"} or z.startswith("{") or z == "*"
               for z in released["zip"])


def test_load_hierarchies_only_the_listed_columns(tmp_path):
    (tmp_path / "table.csv").write_text("a,b\n1,2\n")       # not a hierarchy
    (tmp_path / "sex.csv").write_text("F;*\nM;*\n")
    assert list(kg.load_hierarchies(tmp_path, columns=["sex", "age"], missing="ignore")) \
        == ["sex"]
    with pytest.raises(kg.HierarchyError, match=r"no file for column\(s\) \['age'\]"):
        kg.load_hierarchies(tmp_path, columns=["sex", "age"])
    # without columns every .csv is read; a file whose last column holds several values
    # is an ARX hierarchy with an implicit root (issue 16 item 5), so list the columns
    assert kg.load_hierarchies(tmp_path)["table"].implicit_root
