"""The privacy report (kanon_graph.report): its content, HTML and JSON, CLI, and leaks."""

import base64
import hashlib
import itertools
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph import report
from kanon_graph.cli import main

from report_cases import (forbidden_values, leaks, patients_report, sentinel_schema,
                          sentinel_table)

SECTION_IDS = [key for key, _ in report.SECTIONS]


@pytest.fixture(scope="module")
def optimal():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    res = kg.anonymize(table, schema, k=3, algorithm="optimal")
    return table, schema, res


def test_content_of_a_global_recoding(optimal):
    table, schema, res = optimal
    c = report.build_report(table, res.table, schema, k=3, sampling_fraction=0.1)
    assert c["privacy"]["holds"] and c["privacy"]["k_achieved"] == res.verification.k_achieved
    assert c["summary"]["classes"] == len(res.classes)
    # risk before: all ten records are unique on (gender, age, zip)
    before, after = c["risk"]["before"], c["risk"]["after"]
    assert before["prosecutor"] == {"highest": 1.0, "average": 1.0, "at_risk": 1.0}
    sizes = np.array([len(cl) for cl in res.classes])
    assert after["prosecutor"]["highest"] == pytest.approx(1 / sizes.min())
    assert after["prosecutor"]["average"] == pytest.approx(len(sizes) / sizes.sum())
    assert after["population_uniqueness"]["dankar"] == 0.0
    # levels and lattice position
    assert c["lattice"]["node"] == list(res.levels.values())
    heights = [schema.hierarchy(a).height for a in res.levels]
    assert c["lattice"]["heights"] == heights
    nodes = list(itertools.product(*[range(h + 1) for h in heights]))
    assert c["lattice"]["lattice_nodes"] == len(nodes)
    assert c["lattice"]["nodes_at_this_height"] == \
        sum(1 for n in nodes if sum(n) == sum(res.levels.values()))
    for name, level in res.levels.items():
        per_level = c["hierarchies"][name]["records_per_level"]
        assert per_level[level] == len(table) and sum(per_level) == len(table)
    # class histogram and loss
    assert sum(h["records"] for h in c["classes"]["histogram"]) == sizes.sum()
    assert c["loss"]["overall"] == pytest.approx(res.metrics)
    assert set(c["loss"]["per_attribute"]) == {"gender", "age", "zip"}


def test_html_and_json_say_the_same(optimal, tmp_path):
    table, schema, res = optimal
    c = report.build_report(table, res.table, schema, k=3, call="by hand")
    page = report.write_report(c, tmp_path / "r.html").read_text()
    data = json.loads(report.write_report(c, tmp_path / "r.json").read_text())
    assert data == c
    for key in SECTION_IDS:
        assert f'<section id="{key}">' in page
    assert "<script" not in page and "http://" not in page and "https://" not in page
    assert "default-src 'none'; img-src data:" in page
    assert page.count("<img ") >= 5               # risk, loss, classes, levels, lattice
    assert "by hand" in c["provenance"]["call"] and "by hand" in page
    with pytest.raises(ValueError, match="'format'"):
        report.write_report(c, tmp_path / "r.pdf", format="pdf")


def test_result_report_checksums_and_call(optimal, tmp_path):
    table, schema, res = optimal
    path = res.report(tmp_path / "report.json")
    c = json.loads(path.read_text())
    released = res.table.reset_index(drop=True).to_csv(index=False).encode()
    assert c["provenance"]["checksums"]["output"]["sha256"] == hashlib.sha256(released).hexdigest()
    original = table.to_csv(index=False).encode()
    assert c["provenance"]["checksums"]["input"]["sha256"] == hashlib.sha256(original).hexdigest()
    assert c["provenance"]["call"].startswith("kanon_graph.anonymize(table, schema, k=3, "
                                              "algorithm='optimal'")
    # given files are checksummed as they are on disk
    res.table.to_csv(tmp_path / "out.csv", index=False)
    c = json.loads(res.report(tmp_path / "r2.json", output_file=tmp_path / "out.csv")
                   .read_text())
    assert c["provenance"]["checksums"]["output"]["sha256"] == \
        hashlib.sha256((tmp_path / "out.csv").read_bytes()).hexdigest()


def test_result_report_counts_rows_dropped_for_missing_values(tmp_path):
    table = kg.datasets.paper_003_table().astype({"age": float})
    table.loc[4, "age"] = np.nan
    res = kg.anonymize(table, kg.datasets.paper_003_schema(), k=3, algorithm="optimal",
                       missing="drop")
    c = json.loads(res.report(tmp_path / "r.json").read_text())
    assert res.dropped == 1
    assert c["summary"]["dropped"] == c["suppression"]["dropped_for_missing_values"] == 1
    assert c["summary"]["records"] == 9 and c["privacy"]["holds"]


def test_local_recoding_report(tmp_path):
    table = kg.datasets.make_census(500, seed=4)
    schema = kg.datasets.census_schema()
    res = kg.anonymize(table, schema, k=4, algorithm="mst")
    c = json.loads(res.report(tmp_path / "r.json").read_text())
    assert c["summary"]["recoding"] == "local" and not c["lattice"]["global"]
    sizes = sorted(len(cl) for cl in res.release.classes())
    assert c["risk"]["after"]["prosecutor"]["highest"] == pytest.approx(1 / sizes[0])
    assert c["classes"]["count"] == len(sizes)
    page = res.report(tmp_path / "r.html").read_text()
    assert "no single node of the lattice" in page


def test_the_report_checks_the_released_cells(tmp_path):
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    res = kg.anonymize(table, schema, k=3, algorithm="optimal")
    broken = res.table.astype(str)              # released QIs are categoricals: plain text to edit
    broken.loc[0, "age"] = "21"                  # one record back to its own age: a class of 1
    c = report.build_report(table, broken, schema, k=3)
    assert not c["privacy"]["holds"] and c["privacy"]["k_achieved"] == 1
    assert "does NOT hold" in report.render_html(c)
    with_ids = res.table.assign(id=table["id"])  # the identifier left in the release
    c = report.build_report(table, with_ids, schema, k=3)
    assert not c["privacy"]["holds"] and c["privacy"]["identifier_columns_released"] == ["id"]


def test_without_matplotlib_the_numbers_stay(optimal, monkeypatch):
    table, schema, res = optimal
    from kanon_graph.report import _figures
    monkeypatch.setattr(_figures, "available", lambda: False)
    page = report.render_html(report.build_report(table, res.table, schema, k=3))
    assert "<img" not in page and page.count("picture-fallback") == 5
    for key in SECTION_IDS:
        assert f'<section id="{key}">' in page
    assert "<td>prosecutor highest</td>" in page


def test_write_is_atomic(optimal, tmp_path, monkeypatch):
    table, schema, res = optimal
    target = tmp_path / "r.html"
    target.write_text("the previous report")
    c = report.build_report(table, res.table, schema, k=3)

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        report.write_report(c, target)
    assert target.read_text() == "the previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


def test_cli_report_of_files(tmp_path, capsys):
    path, original, released = patients_report(tmp_path, format="json")
    c = json.loads(path.read_text())
    for role, file in (("input", original), ("output", released)):
        assert c["provenance"]["checksums"][role] == {
            "file": file.name, "sha256": hashlib.sha256(file.read_bytes()).hexdigest(),
            "bytes": file.stat().st_size}
    assert c["provenance"]["call"].startswith("kanon-graph anonymize ")
    assert c["privacy"]["holds"] and c["privacy"]["identifier_columns"] == ["name"]
    assert c["risk"]["sampling_fraction"] == 0.05
    assert c["risk"]["after"]["prosecutor"]["highest"] <= 1 / 5
    assert c["lattice"]["global"]
    # a bad folder is one clear line
    code = main(["report", str(original), str(released), "--qi", "zip", "-o",
                 str(tmp_path / "missing" / "r.html")])
    assert code == 1 and "error" in capsys.readouterr().err


# ---------------------------------------------------------------- leaks
def _documents(res, tmp_path, name):
    html = res.report(tmp_path / f"{name}.html").read_text()
    js = res.report(tmp_path / f"{name}.json").read_text()
    return html, js


def test_the_leak_detector_finds_a_planted_value():
    svg = '<svg><text x="1">cityQX03</text><path d="M 0 0"/></svg>'
    uri = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
    page = f'<p>ok</p><img src="{uri}"><td>ssnKV0007</td>'
    assert leaks(page, {"cityQX03", "ssnKV0007", "ssnKV0070", "jobZW01"}) == \
        ["cityQX03", "ssnKV0007"]
    assert leaks("cityQX031 and region-1", {"cityQX03"}) == []   # whole tokens only


@pytest.mark.parametrize("algorithm", ["optimal", "mst", "datafly", "mondrian"])
def test_no_identifier_or_generalized_original_value_in_the_report(algorithm, tmp_path):
    table, schema = sentinel_table(), sentinel_schema()
    res = kg.anonymize(table, schema, k=5, algorithm=algorithm)
    forbidden, excused = forbidden_values(table, res.table.reset_index(drop=True), schema)
    assert len(forbidden) >= 120            # the 120 identifiers, and generalized values
    for document in _documents(res, tmp_path, algorithm):
        assert leaks(document, forbidden) == []
    # excused values are released labels of their own column, as the release shows them
    for column, value in excused:
        assert value in set(res.table[column].astype(str))


@pytest.mark.parametrize("algorithm", ["optimal", "mst"])
def test_no_patient_name_or_generalized_value_in_the_patients_report(algorithm, tmp_path):
    schema = kg.Schema(quasi_identifiers=["zip", "birth", "sex", "income"],
                       identifiers=["name"], sensitive=["diagnosis"])
    html, original, released = patients_report(tmp_path, algorithm=algorithm)
    (tmp_path / "json").mkdir()
    js, _, _ = patients_report(tmp_path / "json", algorithm=algorithm, format="json")
    before = pd.read_csv(original, dtype=str, keep_default_na=False)
    after = pd.read_csv(released, dtype=str, keep_default_na=False)
    forbidden, excused = forbidden_values(before, after, schema)
    assert {f"patient {i}" for i in range(3000)} <= forbidden
    assert len(forbidden) > 3000
    for path in (html, js):
        assert leaks(path.read_text(), forbidden) == []
    for column, value in excused:          # e.g. a zip a local class releases as is
        assert value in set(after[column])


# ---------------------------------------------------------------- notebook
def test_notebook_display_folds_in_the_report_sections(optimal):
    from kanon_graph.viz.notebook import set_display

    table, schema, res = optimal
    shown = res._repr_html_()
    assert "<details>" in shown
    for key in ("risk", "loss", "classes", "hierarchies", "lattice"):
        assert f'<section id="{key}">' in shown
    assert '<section id="provenance">' not in shown
    local = kg.anonymize(table, schema, k=3, algorithm="mst")._repr_html_()
    assert '<section id="risk">' in local and '<section id="lattice">' not in local
    old = set_display(max_report_rows=0)
    try:
        small = res._repr_html_()
    finally:
        set_display(**old)
    assert "<details>" not in small and 'res.report(&quot;report.html&quot;)' in small


def test_a_release_that_kept_missing_cells_has_its_report(tmp_path):
    """anonymize(missing="keep") releases every row; its report reads them the same way."""
    table = kg.datasets.make_census(400, seed=5)
    table.loc[[3, 50, 120, 121], "sex"] = None
    schema = kg.Schema(quasi_identifiers=["sex", "age"])
    res = kg.anonymize(table, schema, k=5, algorithm="mondrian", missing="keep")
    assert res.stats["missing_kept"] == {"sex": 4}
    c = report.build_report(table, res.table.reset_index(drop=True), schema, k=5,
                            missing="keep")
    assert c["privacy"]["holds"] and c["summary"]["records"] == 400
    path = res.report(tmp_path / "kept.json")
    assert json.loads(Path(path).read_text())["summary"]["records"] == 400
    table.to_csv(tmp_path / "in.csv", index=False)
    assert main(["anonymize", str(tmp_path / "in.csv"), "--qi", "sex,age", "-k", "5",
                 "--algorithm", "mondrian", "--missing", "keep", "-o", str(tmp_path / "o.csv"),
                 "--report", str(tmp_path / "run.json"), "-q"]) == 0
    assert main(["report", str(tmp_path / "in.csv"), str(tmp_path / "o.csv"), "--qi",
                 "sex,age", "-k", "5", "--missing", "keep", "--unshuffle",
                 str(tmp_path / "run.json"), "-o", str(tmp_path / "r.json"), "-q"]) == 0
    assert json.loads((tmp_path / "r.json").read_text())["privacy"]["holds"]


def test_the_report_measures_l_on_the_sensitive_column_the_call_chose(tmp_path):
    # two sensitive columns; l = 3 asked of the second: the first has two values only,
    # so a report measured on it would say the release fails
    table = kg.datasets.make_census(600, seed=5)
    table["diagnosis"] = np.random.default_rng(5).choice(list("ABCDEF"), size=len(table))
    census = kg.datasets.census_schema()
    schema = kg.Schema(quasi_identifiers=list(census.quasi_identifiers),
                       sensitive=["salary-class", "diagnosis"],
                       hierarchies=dict(census.hierarchies))
    res = kg.anonymize(table, schema, k=4, l=3, sensitive="diagnosis", algorithm="mst")
    assert res.verification.sensitive == "diagnosis"
    c = json.loads(res.report(tmp_path / "r.json").read_text())
    assert c["privacy"]["holds"] and c["privacy"]["sensitive"] == "diagnosis"
    assert c["privacy"]["l_achieved"] == res.verification.l_achieved >= 3
    assert "sensitive='diagnosis'" in c["provenance"]["call"]
