"""Run every script in examples/ in a subprocess and check what it prints.

The scripts start together (each pays the interpreter's start-up) and are
checked against values recomputed here, not against copied output.
"""

import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

import kanon_graph as kg
from kanon_graph.viz import hierarchy_text

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SCRIPTS = {"quickstart": [], "visualize_hierarchy": ["{tmp}/pictures"], "custom_algorithm": [],
           "visualize_adult_hierarchies": ["{tmp}/adult"],
           "paper_003_worked_example": ["{tmp}/figure5.png"],
           "paper_000_worked_example": [], "paper_001_worked_example": [],
           "paper_004_worked_example": [], "custom_distance": [],
           "compare_algorithms": ["--n", "300", "-k", "2,5", "--algorithms",
                                  "datafly,mondrian,mst", "--out", "{tmp}/curves.png"],
           "sqlite_table": ["{tmp}/census.sqlite"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("examples")
    procs = {}
    for name, args in SCRIPTS.items():
        argv = [a.format(tmp=tmp) for a in args]
        procs[name] = subprocess.Popen([sys.executable, str(EXAMPLES / f"{name}.py"), *argv],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True, cwd=tmp)
    done = {}
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=300)
        done[name] = (proc.returncode, out, err)
    return tmp, done


def test_every_example_is_exercised_by_a_test():
    """The scripts run here, and any other example is named by some other test file."""
    tests = Path(__file__).resolve().parent
    others = [p.read_text() for p in tests.rglob("test_*.py") if p.name != Path(__file__).name]
    for script in EXAMPLES.glob("*.py"):
        assert script.stem in SCRIPTS or any(script.name in text for text in others), \
            f"examples/{script.name} is not run by any test"


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_example_exits_cleanly(runs, name):
    code, _, err = runs[1][name]
    assert code == 0, err


def test_quickstart(runs):
    _, out, _ = runs[1]["quickstart"]
    res = kg.anonymize(kg.datasets.make_census(2000, seed=0), kg.datasets.census_schema(), k=5,
                       algorithm="datafly")
    smallest = int(re.search(r"smallest class: (\d+)", out).group(1))
    assert smallest == min(len(c) for c in res.classes) >= 5
    assert f"ARX loss: {res.metrics['loss']:.4f}" in out
    own = out.split("== own table, k=2 ==")[1]
    rows = [line.split() for line in own.strip().splitlines()[1:9]]
    assert len(rows) == 8 and all(len(r) == 4 for r in rows)
    released = {(r[1], r[2]) for r in rows}
    for age, zip_ in released:  # every released pair is shared by at least 2 rows
        assert sum((r[1], r[2]) == (age, zip_) for r in rows) >= 2
    assert "Ann" not in own and "verified: True" in own


def test_visualize_hierarchy(runs):
    tmp, done = runs
    _, out, _ = done["visualize_hierarchy"]
    hierarchies = kg.datasets.adult_hierarchies()
    assert hierarchy_text(hierarchies["education"]) in out
    for column, h in hierarchies.items():
        dot = (tmp / "pictures" / f"{column}.dot").read_text().splitlines()
        assert dot[0].startswith("digraph") and dot[-1] == "}"
        assert sum("->" in line for line in dot) == len(h) - 1
    location = (tmp / "pictures" / "location.dot").read_text()
    assert location.count("MAGVal") == 3
    assert "MAGSet: ['Mid Egypt', 'North Egypt', 'South Egypt']" in out


def test_custom_algorithm_script(runs):
    _, out, _ = runs[1]["custom_algorithm"]
    rows = {line.split()[0]: line for line in out.strip().splitlines()}
    assert set(rows) == {"sorted-runs", "datafly"}
    for line in rows.values():
        assert int(re.search(r"smallest +(\d+)", line).group(1)) >= 10
        assert 0 <= float(re.search(r"precision ([\d.]+)", line).group(1)) <= 1


def test_custom_plugins_in_process_and_short():
    source = (EXAMPLES / "custom_algorithm.py").read_text()
    for start, end in [("@kg.register_algorithm", "return kg.Partition"),
                       ("@kg.register_metric", "return 1.0")]:
        block = source[source.index(start):source.index(end)]
        assert block.count("\n") + 1 < 30  # the docs promise under 30 lines each
    module = runpy.run_path(str(EXAMPLES / "custom_algorithm.py"), run_name="plugins")
    try:
        table = kg.datasets.paper_003_table()
        schema = kg.datasets.paper_003_schema()
        for k in (2, 3, 5):
            res = kg.anonymize(table, schema, k=k, algorithm="sorted-runs")
            assert min(len(c) for c in res.classes) >= k and res.suppressed == 0
            assert 0 <= res.metrics["precision"] <= 1
        flat = kg.apply_levels(table, schema, [0, 0, 0], metrics=["precision"])
        top = kg.apply_levels(table, schema, [1, 3, 2], metrics=["precision"])
        assert flat.metrics["precision"] == 1.0 and top.metrics["precision"] == 0.0
        assert callable(module["sorted_runs"])
    finally:
        kg.registry.unregister_algorithm("sorted-runs")
        kg.metrics.unregister_metric("precision")


def test_extending_page_shows_the_tested_plugins():
    page = (EXAMPLES.parent / "docs" / "extending.md").read_text()
    source = (EXAMPLES / "custom_algorithm.py").read_text()
    for start, end in [("@kg.register_algorithm", "return kg.Partition"),
                       ("@kg.register_metric", "return 1.0")]:
        block = source[source.index(start):source.index(end)]
        assert block in page, f"docs/extending.md differs from the example near {start}"


def test_visualize_adult_hierarchies(runs):
    tmp, done = runs
    _, out, _ = done["visualize_adult_hierarchies"]
    hierarchies = kg.datasets.adult_hierarchies()
    assert hierarchy_text(hierarchies["marital-status"]) in out
    for column, h in hierarchies.items():
        assert f"{column}: height {h.height}, {h.n_leaves} leaves, {len(h)} nodes" in out
        dot = (tmp / "adult" / f"{column}.dot").read_text()
        assert dot.count("->") == len(h) - 1
        assert (tmp / "adult" / f"{column}.png").read_bytes()[:4] == b"\x89PNG"


def test_paper_003_worked_example(runs):
    import numpy as np
    tmp, done = runs
    _, out, _ = done["paper_003_worked_example"]
    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    matrix = kg.records.RecordGraph(data).matrix()
    printed = out.split("==\n", 1)[1].split("\n\n")[0].replace("[", " ").replace("]", " ")
    assert np.allclose(np.array(printed.split(), dtype=float).reshape(10, 10), matrix, atol=0.01)
    assert "MST: 9 edges, total weight 15.67" in out       # paper 003 section 4.2
    assert out.count("(removed)") == 2                      # floor(10/3) - 1
    assert "class 0: r1, r2, r3\nclass 1: r4, r5, r6, r7\nclass 2: r8, r9, r10" in out
    res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(), k=3,
                       algorithm="mst")
    assert res.table.to_string() in out
    assert (tmp / "figure5.png").read_bytes()[:4] == b"\x89PNG"


def test_paper_000_worked_example(runs):
    _, out, _ = runs[1]["paper_000_worked_example"]
    male, female = out.split("from (")[1:]
    # Figure 1: from Male/Japan, Korea (5 vs 5) is nearer than China (5 vs 1)
    assert "nationality: China=0.5000, Japan=0.0000, Korea=0.2500" in male
    assert "gender: Female=1.0000, Male=0.0000" in male
    # from Female/China (3, 0, 6): Japan (|3-6|) nearer than Korea (|0-6|)
    assert "nationality: China=0.0000, Japan=0.2500, Korea=0.5000" in female


def test_paper_001_worked_example(runs):
    _, out, _ = runs[1]["paper_001_worked_example"]
    assert "Byun IL: 12.8000" in out            # 3 * (0 + 1 + 1) + 3 * (4/15 + 1 + 1)
    assert "pseudo-code IL: 17.3000" in out     # + 1/4 + 2/4 + 3/4 + 3 * 4/4
    assert "classes: [[0, 1, 2], [3, 4, 5]]" in out
    table2 = out.split("== Table 2 ==")[1].split("Byun")[0]
    assert table2.count("[36-40]") == 3 and table2.count("4433**") == 6


def test_paper_004_worked_example(runs):
    _, out, _ = runs[1]["paper_004_worked_example"]
    assert f"numeric RV: {0.2 * 125 / (25 * 10 + 45 * 15 + 55 * 25) * 50 / 100:.4f}" in out
    assert "numeric RV: 0.0054" in out
    assert "race level 1: rules kept 0.7500" in out
    res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(), k=3,
                       algorithm="rv-global")
    assert f"levels {dict(res.levels)}" in out
    assert int(re.search(r"smallest class (\d+)", out).group(1)) >= 3


def test_custom_distance_script(runs):
    _, out, _ = runs[1]["custom_distance"]
    assert "r1-r2 distance: 1.0" in out          # Male/21/535280 vs Male/24/535280: age differs
    for distance in ("hdist", "hamming"):
        classes = eval(re.search(rf"{distance}: classes (\[.*\]), ncp", out).group(1))
        assert sorted(i for c in classes for i in c) == list(range(10))
        assert min(map(len, classes)) >= 3
    assert "hamming" not in kg.records.distance_names()


def test_custom_distance_is_short():
    source = (EXAMPLES / "custom_distance.py").read_text()
    block = source[source.index("@register_distance"):source.index("return 1.0 - np.eye(m)")]
    assert block.count("\n") + 1 < 30


def test_compare_algorithms(runs, adult_dir):
    tmp, done = runs
    _, out, _ = done["compare_algorithms"]
    assert "data: Adult sample of 300 rows" in out
    table = kg.datasets.load_adult(adult_dir).sample(n=300, random_state=0)
    lines = {tuple(line.split()[:2]): line.split() for line in out.splitlines()[2:]
             if line.split() and line.split()[0] in ("datafly", "mondrian", "mst")}
    assert len(lines) == 6
    res = kg.anonymize(table, kg.datasets.census_schema(), k=5, algorithm="mondrian")
    row = lines[("mondrian", "5")]
    assert float(row[2]) == pytest.approx(res.metrics["loss"], abs=1e-4)
    assert int(row[5]) == min(len(c) for c in res.classes) >= 5
    assert (tmp / "curves.png").read_bytes()[:4] == b"\x89PNG"


def test_sqlite_table(runs):
    import sqlite3
    tmp, done = runs
    _, out, _ = done["sqlite_table"]
    with sqlite3.connect(tmp / "census.sqlite") as con:
        original = pd_read(con, "people")
        release = pd_read(con, "people_k5")
    schema = kg.datasets.census_schema()
    assert len(original) == len(release) == 500
    sizes = release.groupby(list(schema.quasi_identifiers)).size()
    assert sizes.min() >= 5
    assert f"smallest class {sizes.min()} (SQL GROUP BY)" in out
    res = kg.anonymize(original, schema, k=5, algorithm="optimal")
    assert release.astype(str).equals(res.table.reset_index(drop=True).astype(str))
    levels = tuple(res.levels.values())
    assert f"levels {list(levels)}: smallest class {sizes.min()} (SQL)" in out


def pd_read(con, name):
    import pandas as pd
    return pd.read_sql(f"SELECT * FROM {name}", con)


def test_extending_page_shows_the_tested_distance():
    page = (EXAMPLES.parent / "docs" / "extending.md").read_text()
    source = (EXAMPLES / "custom_distance.py").read_text()
    block = source[source.index("@register_distance"):source.index("return 1.0 - np.eye(m)")]
    assert block in page, "docs/extending.md differs from examples/custom_distance.py"


def test_readme_lists_every_example():
    section = (EXAMPLES.parent / "README.md").read_text().split("## Examples")[1]
    for script in EXAMPLES.glob("*.py"):
        assert f"`{script.name}`" in section, f"README's examples table lacks {script.name}"


def _html(cell):
    return "".join(o.get("data", {}).get("text/html", "") for o in cell.outputs)


def test_notebook_tour_runs_and_shows_its_pictures(tmp_path):
    """examples/notebook_tour.ipynb runs top to bottom with every picture inline."""
    import nbclient
    import nbformat

    nb = nbformat.read(EXAMPLES / "notebook_tour.ipynb", as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    cells = {c.source.strip().splitlines()[-1]: c for c in nb.cells if c.cell_type == "code"}
    location = kg.datasets.paper_002_location()
    assert "<svg" in _html(cells["location"])
    assert f"{location.n_leaves} leaves, {len(location)} nodes" in _html(cells["location"])
    assert "<svg" in _html(cells['hierarchies["education"]'])
    table, schema = kg.datasets.make_census(1000, seed=0), kg.datasets.census_schema()
    res = kg.anonymize(table, schema, k=5, algorithm="datafly")
    shown = _html(cells["global_res"])
    assert res.verification.describe() in shown and "<th>size</th>" in shown
    levels = "".join(f"<td>{v}</td>" for v in res.levels.values())
    assert levels in shown
    assert "<th>size</th>" in _html(cells["local_res"])
    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    lattice = kg.lattice.Lattice(data.heights, names=data.names)
    assert "<svg" in _html(cells["lattice"]) and f"{lattice.size} nodes" in _html(cells["lattice"])
    assert "<svg" in _html(cells["kg.viz.mst_split_view(data, 3)"])
    for last in ("kg.viz.lattice_figure(lattice, found.status);",
                 'kg.viz.metric_curves_figure(comparison, metrics=["loss"]);'):
        images = [o for o in cells[last].outputs if "image/png" in o.get("data", {})]
        assert len(images) == 1, last                     # the figure, inline, once
    pivot = [c for c in nb.cells if "comparison.pivot" in c.source][0]
    text = "".join(o.get("data", {}).get("text/plain", "") for o in pivot.outputs)
    mst = kg.anonymize(table, schema, k=5, algorithm="mst").metrics["loss"]
    row = next(line.split() for line in text.splitlines() if line.startswith("mst"))
    assert float(row[2]) == pytest.approx(round(mst, 4))  # columns k = 2, 5, 10
