"""The floors of the house (docs/architecture.md): contracts kept, no import circle, and the
hand-ins that replaced the upward imports (displays, starts, distances) work on first use.

The contracts themselves live in pyproject.toml ([tool.importlinter]); ``lint-imports``
checks them in .ci/run, and :func:`test_every_contract_is_kept` here.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import grimp
import pytest

import kanon_graph as kg
from kanon_graph._plugins import Registry

ROOT = Path(kg.__file__).resolve().parent.parent


def _fresh(code):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)


@pytest.fixture(scope="module")
def graph():
    """Every import of the package, those inside functions included (grimp sees them all)."""
    return grimp.build_graph("kanon_graph", cache_dir=None)


def _circles(graph):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges.get(child, ()))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_graph_holds_imports_made_inside_functions(graph):
    # result.report() imports the report room inside the method: the scan must see it,
    # or the circle test below would pass for nothing
    assert "kanon_graph.report._result" in graph.find_modules_directly_imported_by(
        "kanon_graph.result")
    details = graph.get_import_details(importer="kanon_graph.result",
                                       imported="kanon_graph.report._result")
    assert details and details[0]["line_contents"].startswith("from .report._result import")


def test_the_circle_finder_finds_a_circle():
    toy = grimp.ImportGraph()
    for a, b in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")]:
        toy.add_import(importer=a, imported=b)
    assert _circles(toy) == [["p.a", "p.b", "p.c"]]


def test_no_import_circle_among_the_modules(graph):
    assert _circles(graph) == []


def test_every_contract_is_kept(capsys):
    from importlinter.cli import lint_imports

    status = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    out = capsys.readouterr().out
    assert status == 0, out
    assert "BROKEN" not in out and "Contracts: 4 kept, 0 broken." in out


def _floors():
    """The layers of pyproject's contract, as grimp layers (missing optional rooms left out)."""
    try:
        import tomllib
    except ModuleNotFoundError:        # Python 3.10: pytest's own TOML reader
        import tomli as tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contract = next(c for c in config["contracts"] if c["type"] == "layers")
    floors = []
    for layer in contract["layers"]:
        rooms = [r.strip() for r in layer.replace("|", ":").split(":")]
        present = [r.strip("()") for r in rooms
                   if not r.startswith("(") or (PACKAGE / r.strip("()")).exists()]
        floors.append(grimp.Layer(*present, independent="|" in layer))
    return floors


PACKAGE = ROOT / "kanon_graph"

#: The upward imports issue 33 named (and one the families must not make): each would
#: break the contract again.
UPWARD = [("kanon_graph.hierarchy._io", "kanon_graph.io.write"),        # allowed: io is lower
          ("kanon_graph.hierarchy._tree", "kanon_graph.viz.notebook"),
          ("kanon_graph.lattice.lattice", "kanon_graph.viz.notebook"),
          ("kanon_graph.records.distances", "kanon_graph.clustering"),
          ("kanon_graph.records.seed", "kanon_graph.baselines.mondrian"),
          ("kanon_graph.io.tables", "kanon_graph.result"),
          ("kanon_graph.constrained.release", "kanon_graph.api"),
          ("kanon_graph.lattice.frequency", "kanon_graph.records.graph")]


@pytest.mark.parametrize("importer, imported", UPWARD)
def test_the_contract_refuses_each_named_upward_import(importer, imported):
    graph = grimp.build_graph("kanon_graph", cache_dir=None)
    floors = _floors()
    assert not graph.find_illegal_dependencies_for_layers(floors, containers={"kanon_graph"})
    graph.add_import(importer=importer, imported=imported)
    illegal = graph.find_illegal_dependencies_for_layers(floors, containers={"kanon_graph"})
    if imported == "kanon_graph.io.write":     # the writer sits below the hierarchies now
        assert not illegal
    else:
        assert illegal


def test_the_architecture_page_draws_the_contract():
    # docs/architecture.md's picture lists the floors of pyproject's contract, in order
    import re

    text = (ROOT / "docs" / "architecture.md").read_text()
    chart = text[text.index("```mermaid"):text.index("```", text.index("```mermaid") + 3)]
    drawn = [block.split() for block in
             re.findall(r"subgraph \w+\[\"[^\"]*\"\]\n(.*?)\n\s*end", chart, flags=re.S)]
    try:
        import tomllib
    except ModuleNotFoundError:
        import tomli as tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["type"] == "layers")["layers"]
    written = [[r.strip().strip("()") for r in layer.replace("|", ":").split(":")]
               for layer in layers]
    assert drawn == written


def test_a_pandas_evaluate_loads_no_scale_module(tmp_path):
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    kg.apply_levels(table, schema, [0, 3, 2], k=3).table.to_csv(tmp_path / "release.csv",
                                                                index=False)
    report = _fresh(f"""
        import json, sys
        import pandas as pd
        from kanon_graph.metrics.evaluate import evaluate
        from kanon_graph import datasets
        table, schema = datasets.paper_003_table(), datasets.paper_003_schema()
        release = pd.read_csv({str(tmp_path / "release.csv")!r}, dtype=str)
        ev = evaluate(table, release, schema, k=3)
        print(json.dumps({{"k": ev.verification.k_achieved,
                           "scale": sorted(m for m in sys.modules
                                           if m.startswith("kanon_graph.scale"))}}))
    """)
    import pandas as pd

    expected = kg.evaluate(table, pd.read_csv(tmp_path / "release.csv", dtype=str), schema, k=3)
    assert report == {"k": expected.verification.k_achieved, "scale": []}


def test_kg_evaluate_is_the_facade_that_dispatches_dask_frames():
    from kanon_graph import api
    from kanon_graph.metrics import evaluate as pandas_evaluate

    assert kg.evaluate is api.evaluate and pandas_evaluate is not api.evaluate
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    release = kg.apply_levels(table, schema, [0, 3, 2], k=3).table
    ours, theirs = kg.evaluate(table, release, schema, k=3), pandas_evaluate(
        table, release, schema, k=3)
    assert ours.metrics == theirs.metrics and ours.risk == theirs.risk


def test_a_model_object_shows_its_picture_without_importing_viz_itself():
    # the hierarchy never imports viz; viz registers the display, loaded on first display
    report = _fresh("""
        import json, sys
        from kanon_graph.datasets import paper_002_location
        from kanon_graph.lattice import Lattice
        h = paper_002_location()
        before = "kanon_graph.viz.notebook" in sys.modules
        shown = h._repr_html_()
        lattice = Lattice([1, 2], names=["sex", "age"])._repr_html_()
        print(json.dumps({"before": before, "after": "kanon_graph.viz.notebook" in sys.modules,
                          "div": shown.startswith("<div"), "lattice": "6 nodes" in lattice}))
    """)
    assert report == {"before": False, "after": True, "div": True, "lattice": True}


def test_an_unregistered_class_shows_its_text_repr():
    from kanon_graph._display import html

    assert html(object()) is None


def test_the_mondrian_start_is_handed_in_by_the_baselines_room():
    report = _fresh("""
        import json, sys
        from kanon_graph.records.seed import get_start
        before = "kanon_graph.baselines.mondrian" in sys.modules
        start = get_start("mondrian")
        print(json.dumps({"before": before, "module": start.__module__}))
    """)
    assert report == {"before": False, "module": "kanon_graph.baselines.mondrian"}
    from kanon_graph.records.seed import get_start

    with pytest.raises(ValueError, match=r"Unknown start 'nowhere'\. Known starts: \[.*'mondrian'"):
        get_start("nowhere")


def test_one_registry_base_behind_every_registry():
    from kanon_graph import registry
    from kanon_graph._display import _REGISTRY as displays
    from kanon_graph.metrics import _registry as metrics
    from kanon_graph.records import distances, seed
    from kanon_graph.risk import _registry as risk

    for reg in (registry._REGISTRY, metrics._REGISTRY, risk._REGISTRY, distances._REGISTRY,
                seed._REGISTRY, displays):
        assert isinstance(reg, Registry)
    assert registry._ALGORITHMS is registry._REGISTRY.entries


def test_the_registry_base_rules():
    reg = Registry("widget", builtins={"kanon-demo": ("kanon_graph._version",)})
    reg.add("a", 1)
    with pytest.raises(ValueError, match="A widget named 'a' is already registered; pass "
                                         "replace=True"):
        reg.add("a", 2)
    reg.add("a", 2, replace=True)
    assert reg.get("a") == 2 and reg.find("b") is None
    with pytest.raises(ValueError, match=r"Unknown widget 'b'\. Known widgets: \['a'\]\."):
        reg.get("b")
    assert Registry("algorithm").kind == "algorithm"
    with pytest.raises(ValueError, match="An item named"):
        other = Registry("item")
        other.add("x", 1)
        other.add("x", 1)


def test_the_root_shows_the_floors():
    """Issue 46 item 15 (STYLE.md item 15): the package root holds the rooms of the design,
    the facade and the small core, not the pipeline or the cell encoding as loose modules."""
    import pkgutil

    import kanon_graph

    loose = {m.name for m in pkgutil.iter_modules(kanon_graph.__path__)
             if not m.ispkg and m.name.startswith("_")}
    assert loose <= {"__main__", "_display", "_jit", "_plugins", "_progress", "_version"}, loose
    rooms = {m.name for m in pkgutil.iter_modules(kanon_graph.__path__) if m.ispkg}
    assert {"pipeline", "auto", "encoding", "cells"} <= rooms
