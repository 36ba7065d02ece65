"""Notebook displays (``_repr_html_``) of hierarchies, lattices, MST splits and results."""

import re
import sys

import pytest

import kanon_graph as kg
from kanon_graph.lattice import Lattice
from kanon_graph.viz import hierarchy_text, set_display


@pytest.fixture
def limits():
    old = set_display()
    yield
    set_display(**old)


@pytest.fixture
def no_matplotlib(monkeypatch):
    for name in list(sys.modules):
        if name == "matplotlib" or name.startswith("matplotlib."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)


def test_small_hierarchy_shows_its_drawing(limits):
    location = kg.datasets.paper_002_location()
    shown = location._repr_html_()
    assert "<svg" in shown and shown.count("<svg") == 1
    assert f"height {location.height}, {location.n_leaves} leaves, {len(location)} nodes" in shown


def test_large_hierarchy_shows_a_cut_text_tree_until_asked_for_more(limits):
    age = kg.datasets.adult_hierarchies(["age"])["age"]
    shown = age._repr_html_()
    assert "<svg" not in shown
    lines = re.search(r"<pre>(.*)</pre>", shown, re.S).group(1).splitlines()
    full = hierarchy_text(age).splitlines()
    assert len(lines) == 41 and lines[:40] == full[:40]
    assert f"{len(full) - 40} more lines" in lines[-1]
    set_display(max_leaves=age.n_leaves)
    assert "<svg" in age._repr_html_()


def test_without_matplotlib_every_display_is_text(no_matplotlib, limits):
    location = kg.datasets.paper_002_location()
    shown = location._repr_html_()
    assert "<svg" not in shown
    assert hierarchy_text(location).splitlines()[0] in shown
    assert "not drawn" in Lattice([1, 2])._repr_html_()
    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    view = kg.viz.mst_split_view(data, 3)
    assert "<svg" not in view._repr_html_() and "3 classes" in view._repr_html_()


def test_lattice_display_draws_small_lattices_only(limits):
    small = Lattice([1, 2], names=["sex", "age"])
    shown = small._repr_html_()
    assert "<svg" in shown and "6 nodes, heights sex 1, age 2" in shown
    set_display(max_nodes=5)
    assert "<svg" not in small._repr_html_()


def test_mst_split_display_is_figure_5(limits):
    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    view = kg.viz.mst_split_view(data, 3)
    shown = view._repr_html_()
    assert "<svg" in shown
    assert f"{int(view.cut.sum())} edges cut, {view.n_classes} classes" in shown


def _cells(table_html):
    return [re.findall(r"<t[dh]>(.*?)</t[dh]>", row)
            for row in re.findall(r"<tr>(.*?)</tr>", table_html)]


def test_result_display_has_levels_metrics_and_largest_classes(limits):
    table, schema = kg.datasets.make_census(400, seed=1), kg.datasets.census_schema()
    res = kg.anonymize(table, schema, k=5, algorithm="datafly")
    shown = res._repr_html_()
    tables = re.findall(r"<table>.*?</table>", shown)
    levels, metrics, classes = (_cells(t) for t in tables)
    assert levels == [list(res.levels), [str(v) for v in res.levels.values()]]
    assert dict(metrics[1:]) == {n: f"{v:.6g}" for n, v in res.metrics.items()}
    summary = res.class_summary()
    assert classes[0] == list(summary.columns)
    assert len(classes) - 1 == min(10, len(summary))
    assert [int(r[-1]) for r in classes[1:]] == summary["size"].head(10).tolist()
    assert res.verification.describe() in shown
    set_display(max_classes=2)
    assert len(_cells(re.findall(r"<table>.*?</table>", res._repr_html_())[-1])) == 3


def test_result_display_escapes_released_values(limits):
    import pandas as pd

    table = pd.DataFrame({"code": ["<a>", "<a>", "b&c", "b&c"], "x": [1, 2, 3, 4]})
    schema = kg.Schema(quasi_identifiers=["code"], sensitive=["x"])
    res = kg.anonymize(table, schema, k=2, algorithm="mondrian")
    shown = res._repr_html_()
    assert "<a>" not in shown and "&lt;a&gt;" in shown and "b&amp;c" in shown
    assert "levels" not in shown                      # local recoding: no level vector


@pytest.mark.parametrize("bad, message", [({"max_rows": 3}, "unknown limit 'max_rows'"),
                                          ({"max_classes": -1}, "'max_classes'"),
                                          ({"max_nodes": 2.5}, "'max_nodes'")])
def test_set_display_refuses_bad_limits(limits, bad, message):
    with pytest.raises((TypeError, ValueError), match=message):
        set_display(**bad)
