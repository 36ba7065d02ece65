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
SCRIPTS = {"quickstart": [], "visualize_hierarchy": ["{tmp}/pictures"], "custom_algorithm": []}


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
    res = kg.anonymize(kg.datasets.make_census(2000, seed=0), kg.datasets.census_schema(), k=5)
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
