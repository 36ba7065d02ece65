"""Hierarchy pictures: golden files for text and DOT, and the networkx graph.

The golden files in ``tests/refdata/`` were checked by eye against paper 003
Figure 2 (age) and paper 002 Figure 2 (Location). To regenerate them after a
deliberate change of format, run ``python tests/test_viz_hierarchy.py``.
"""

from pathlib import Path

import networkx as nx
import pytest

import kanon_graph as kg
from kanon_graph.viz import hierarchy_dot, hierarchy_text, hierarchy_to_networkx, write_dot

REFDATA = Path(__file__).parent / "refdata"


def _cases():
    return {
        "paper_003_age": kg.datasets.paper_003_hierarchies()["age"],
        "paper_002_location": kg.datasets.paper_002_location(),
    }


@pytest.mark.parametrize("name", sorted(_cases()))
def test_text_matches_golden_file(name):
    expected = (REFDATA / f"{name}.txt").read_text(encoding="utf-8")
    assert hierarchy_text(_cases()[name]) + "\n" == expected


@pytest.mark.parametrize("name", sorted(_cases()))
def test_dot_matches_golden_file(name):
    expected = (REFDATA / f"{name}.dot").read_text(encoding="utf-8")
    assert "\n".join(hierarchy_dot(_cases()[name])) + "\n" == expected


def test_text_has_one_line_per_node_with_level_leaves_and_magval():
    h = kg.datasets.paper_002_location()
    lines = hierarchy_text(h).splitlines()
    assert len(lines) == len(h)  # every node once
    marked = [line for line in lines if "MAGVal" in line]
    assert len(marked) == 3 and all("level 1, 3 leaves" in line for line in marked)
    # indentation grows with depth: leaves are indented deeper than regions
    depth = {line.split("  (")[0].lstrip("│├└─ "): len(line) - len(line.lstrip("│├└─ "))
             for line in lines}
    assert depth["A.R.E"] < depth["South Egypt"] < depth["Geza"]


def test_text_ascii_mode_uses_only_ascii():
    text = hierarchy_text(kg.datasets.paper_003_hierarchies()["age"], ascii=True)
    assert text.isascii()
    assert text.splitlines()[1] == "|-- [20-30]  (level 2, 11 leaves)"


def test_magval_mark_follows_the_hierarchy():
    h = kg.datasets.paper_003_hierarchies()["age"]
    assert "MAGVal" not in hierarchy_text(h)
    h.mark_magval("[20-30]")
    lines = [line for line in hierarchy_text(h).splitlines() if "MAGVal" in line]
    assert lines == ["├── [20-30]  (level 2, 11 leaves, MAGVal)"]
    dot = list(hierarchy_dot(h))
    assert sum("peripheries=2" in line for line in dot) == 1


def test_dot_is_a_tree_with_quoted_labels():
    h = kg.Hierarchy.from_rows([['say "hi"', "a\\b", "*"], ["x", "y", "*"]], name='odd "name"')
    dot = list(hierarchy_dot(h, rankdir="LR"))
    assert dot[0] == 'digraph "odd \\"name\\"" {' and dot[-1] == "}"
    assert "  rankdir=LR;" in dot
    assert any('label="say \\"hi\\"\\nlevel 0, 1 leaf"' in line for line in dot)
    assert any('label="a\\\\b\\nlevel 1, 1 leaf"' in line for line in dot)
    edges = [line for line in dot if "->" in line]
    assert len(edges) == len(h) - 1


def test_dot_rejects_unknown_rankdir():
    with pytest.raises(ValueError, match="rankdir"):
        list(hierarchy_dot(kg.datasets.paper_002_location(), rankdir="up"))


def test_write_dot_writes_the_lines(tmp_path):
    h = kg.datasets.paper_002_location()
    path = write_dot(hierarchy_dot(h), tmp_path / "loc.dot")
    assert path.read_text().splitlines() == list(hierarchy_dot(h))


def test_networkx_graph_is_an_annotated_arborescence():
    h = kg.datasets.paper_003_hierarchies()["age"]
    h.mark_magval("[31-40]")
    g = hierarchy_to_networkx(h)
    assert nx.is_arborescence(g)
    assert g.number_of_nodes() == len(h)
    assert g.graph["root"] == (3, "[20-40]") and g.graph["height"] == 3
    for node, attrs in g.nodes(data=True):
        assert node == (attrs["level"], attrs["label"])
        below = [d for d in nx.descendants(g, node) if g.out_degree(d) == 0]
        assert attrs["leaves"] == max(1, len(below))
    assert [n for n, m in g.nodes(data="magval") if m] == [(2, "[31-40]")]
    assert sorted(g.successors((1, "[20-25]"))) == [(0, str(a)) for a in range(20, 26)]


def test_networkx_keeps_labels_repeated_on_several_levels():
    # ARX pads short paths by repeating a value; the nodes must stay distinct
    h = kg.Hierarchy.from_rows([["a", "a", "*"], ["b", "B", "*"], ["c", "B", "*"]])
    g = hierarchy_to_networkx(h)
    assert (0, "a") in g and (1, "a") in g
    assert list(g.successors((1, "a"))) == [(0, "a")]


if __name__ == "__main__":  # regenerate the golden files
    for name, h in _cases().items():
        (REFDATA / f"{name}.txt").write_text(hierarchy_text(h) + "\n", encoding="utf-8")
        write_dot(hierarchy_dot(h), REFDATA / f"{name}.dot")
        print("wrote", name)
