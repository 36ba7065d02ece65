"""Which layer imports which: the dispatch of a Dask frame and of an algorithm sits above
the layers it dispatches to (the facade), never inside them."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import kanon_graph as kg

PACKAGE = Path(kg.__file__).resolve().parent


def _imported_modules(path):
    """Absolute names of the kanon_graph modules ``path`` imports (top level or in a body)."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if path.name == "__init__.py":
        package += ".__init__"
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:-node.level]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.add(name)
            found.update(f"{name}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {n for n in found if n.startswith("kanon_graph")}


def _layer_imports(layer):
    return {str(p.relative_to(PACKAGE)): sorted(_imported_modules(p))
            for p in sorted((PACKAGE / layer).rglob("*.py"))}


def test_the_import_scan_sees_a_known_import():
    # the scanner itself must find imports, or the tests below pass for nothing
    assert "kanon_graph.metrics.evaluate.evaluate" in _imported_modules(
        PACKAGE / "scale" / "dask_evaluate.py")


def test_metrics_imports_nothing_from_scale():
    bad = {f: [m for m in mods if m.startswith("kanon_graph.scale")]
           for f, mods in _layer_imports("metrics").items()}
    assert {f: m for f, m in bad.items() if m} == {}


@pytest.mark.parametrize("layer", ["metrics", "scale"])
def test_lower_layers_do_not_import_the_facade(layer):
    bad = {f: [m for m in mods if m.startswith(("kanon_graph.api", "kanon_graph._dispatch"))]
           for f, mods in _layer_imports(layer).items()}
    assert {f: m for f, m in bad.items() if m} == {}


def test_a_pandas_evaluate_loads_no_scale_module(tmp_path):
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    kg.apply_levels(table, schema, [0, 3, 2], k=3).table.to_csv(tmp_path / "release.csv",
                                                                index=False)
    code = f"""
import json, sys
import pandas as pd
from kanon_graph.metrics.evaluate import evaluate
from kanon_graph import datasets
table, schema = datasets.paper_003_table(), datasets.paper_003_schema()
release = pd.read_csv({str(tmp_path / "release.csv")!r}, dtype=str)
ev = evaluate(table, release, schema, k=3)
print(json.dumps({{"k": ev.verification.k_achieved,
                   "scale": sorted(m for m in sys.modules if m.startswith("kanon_graph.scale"))}}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    import pandas as pd

    expected = kg.evaluate(table, pd.read_csv(tmp_path / "release.csv", dtype=str), schema, k=3)
    assert json.loads(out) == {"k": expected.verification.k_achieved, "scale": []}


def test_kg_evaluate_is_the_facade_that_dispatches_dask_frames():
    from kanon_graph import api
    from kanon_graph.metrics import evaluate as pandas_evaluate

    assert kg.evaluate is api.evaluate
    assert pandas_evaluate is not api.evaluate
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    release = kg.apply_levels(table, schema, [0, 3, 2], k=3).table
    ours, theirs = kg.evaluate(table, release, schema, k=3), pandas_evaluate(
        table, release, schema, k=3)
    assert ours.metrics == theirs.metrics and ours.risk == theirs.risk


def test_algorithm_dispatch_sits_in_the_facade_not_in_scale():
    from kanon_graph import _auto, _dispatch, api
    from kanon_graph.scale import sharding

    assert not hasattr(sharding, "run_algorithm")
    assert api.run_algorithm is _dispatch.run_algorithm is _auto.run_algorithm
    assert "kanon_graph._dispatch" not in {m for mods in _layer_imports("scale").values()
                                          for m in mods}
