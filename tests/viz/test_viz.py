"""Pictures of the three graphs: golden DOT files and the content of the figures."""

from pathlib import Path

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph import viz
from kanon_graph.lattice import Lattice, StatusMap

REFDATA = Path(__file__).resolve().parent / "refdata"


def paper_003_data():
    return kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())


def small_status():
    status = StatusMap(3)
    status.mark_not_anonymous((0, 1, 1))
    status.mark_anonymous((1, 1, 1))
    return {node: ("chosen" if node == (1, 1, 1) else status.status(node))
            for node in Lattice([1, 3, 2]).nodes()}


def golden(name, lines):
    text = "\n".join(lines) + "\n"
    assert text == (REFDATA / name).read_text(encoding="utf-8"), f"{name} differs"


def test_hierarchy_dot_golden():
    golden("../../refdata/paper_002_location.dot", viz.hierarchy_dot(kg.datasets.paper_002_location()))


def test_lattice_dot_golden():
    lattice = Lattice([1, 3, 2], names=["gender", "age", "zip"])
    golden("lattice.dot", viz.lattice_dot_lines(lattice, small_status()))


def test_mst_dot_golden():
    golden("mst_paper_003_k3.dot", viz.mst_dot(paper_003_data(), 3))


def test_mst_view_cuts_exactly_the_removed_edges():
    data = paper_003_data()
    for k in (2, 3, 5):
        view = viz.mst_split_view(data, k)
        assert int(view.cut.sum()) == 10 // k - 1
        assert view.n_classes == 10 // k
        # the removed edges are the heaviest ones of the tree
        assert view.w[view.cut].min() >= view.w[~view.cut].max() - 1e-9
        # every class is a connected piece of the kept edges (small ones are merged later
        # by the algorithm, not by the split)
        assert all(view.cluster_of[a] == view.cluster_of[b]
                   for a, b in zip(view.u[~view.cut], view.v[~view.cut]))


def test_mst_classes_are_the_algorithms_classes_on_the_worked_example():
    view = viz.mst_split_view(paper_003_data(), 3)
    res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(), k=3,
                       algorithm="mst")
    drawn = sorted(sorted(np.flatnonzero(view.cluster_of == c).tolist())
                   for c in range(view.n_classes))
    assert drawn == sorted(sorted(c.tolist()) for c in res.classes)


def test_mst_figure_content():
    view = viz.mst_split_view(paper_003_data(), 2)
    ax = viz.mst_figure(view).axes[0]
    assert len(ax.lines) == view.graph.n_nodes - 1
    assert [line.get_linestyle() for line in ax.lines].count("--") == int(view.cut.sum()) == 4
    colours = ax.collections[0].get_facecolors()
    assert len(colours) == 10
    assert len({tuple(c) for c in colours}) == view.n_classes == 5
    assert ax.get_title() == "MST, k=2: 4 edges cut, 5 classes"
    assert {t.get_text() for t in ax.texts} >= {f"r{i}" for i in range(1, 11)}


def test_mst_view_refuses_bad_input():
    with pytest.raises(ValueError, match="'k' parameter of mst_split_view"):
        viz.mst_split_view(paper_003_data(), 0)
    with pytest.raises(ValueError, match="EncodedTable or a RecordGraph"):
        viz.mst_split_view(kg.datasets.paper_003_table(), 3)


def test_hierarchy_figure_draws_every_node_edge_and_magval():
    h = kg.datasets.paper_002_location()
    ax = viz.hierarchy_figure(h).axes[0]
    assert len(ax.texts) == len(h)
    assert len(ax.collections[0].get_segments()) == len(h) - 1
    assert len(ax.collections[1].get_offsets()) == sum(bool(n.magval) for n in h) == 3
    assert "South Egypt\n(3)" in {t.get_text() for t in ax.texts}
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "level 0\nCHD 0", "level 1\nCHD 1/2", "level 2\nCHD 1"]
    plain = viz.hierarchy_figure(h, chd=False)
    assert [t.get_text() for t in plain.axes[0].get_yticklabels()] == [
        "level 0", "level 1", "level 2"]
    assert not any("CHD" in t.get_text() for t in plain.texts)


def test_hierarchy_figure_on_adult_education():
    h = kg.datasets.adult_hierarchies()["education"]
    ax = viz.hierarchy_figure(h).axes[0]
    assert ax.get_title() == f"education: height {h.height}, {h.n_leaves} leaves"
    top = max(t.get_position()[1] for t in ax.texts)       # the root's row is the highest
    root = [t.get_text() for t in ax.texts if t.get_position()[1] == top]
    assert root == [f"{h.root.name}\n({h.n_leaves})"]
    assert len(ax.collections[1].get_offsets()) == 0


def test_lattice_figure_layers_and_colours():
    lattice = Lattice([1, 3, 2], names=["gender", "age", "zip"])
    status = small_status()
    ax = viz.lattice_figure(lattice, status).axes[0]
    assert len(ax.texts) == lattice.size == 24
    edges = sum(len(lattice.successors(n)) for n in lattice.nodes())
    assert len(ax.collections[0].get_segments()) == edges
    by_label = {t.get_text(): t for t in ax.texts}
    row = {}                                    # nodes of one height share a row, rows rise
    for node in lattice.nodes():
        row.setdefault(sum(node), set()).add(by_label[lattice.label(node)].get_position()[1])
    assert all(len(ys) == 1 for ys in row.values())
    ys = [min(row[h]) for h in sorted(row)]
    assert ys == sorted(ys) and len(set(ys)) == len(ys) == lattice.max_height + 1
    chosen = by_label[lattice.label((1, 1, 1))].get_bbox_patch().get_facecolor()
    bottom = by_label[lattice.label((0, 0, 0))].get_bbox_patch().get_facecolor()
    import matplotlib.colors as mc
    assert chosen == mc.to_rgba("gold") and bottom == mc.to_rgba("lightcoral")
    with pytest.raises(ValueError, match="max_nodes"):
        viz.lattice_figure(Lattice([5, 5, 5]), max_nodes=100)


def test_metric_curves_figure_from_real_runs():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    rows = [{"algorithm": a, "k": k, **kg.anonymize(table, schema, k=k, algorithm=a).metrics}
            for a in ("mst", "datafly") for k in (2, 3, 5)]
    fig = viz.metric_curves_figure(rows, ["loss", "ncp"])
    assert [ax.get_title() for ax in fig.axes] == ["loss against k", "ncp against k"]
    mst = [line for line in fig.axes[0].lines if line.get_label() == "mst"][0]
    assert mst.get_xydata()[:, 1].tolist() == [r["loss"] for r in rows[:3]]
    with pytest.raises(ValueError, match="lacks the columns \\['seconds'\\]"):
        viz.metric_curves_figure(rows, "seconds")


def test_write_dot_writes_the_lines(tmp_path):
    path = viz.write_dot(viz.mst_dot(paper_003_data(), 3), tmp_path / "mst.dot")
    assert path.read_text().count(" -- ") == 9


def test_a_300_leaf_zip_hierarchy_is_summarized():
    """Issue 23 item 6: a wide hierarchy's picture is drawn from a level that fits, and
    wide nodes collapse into '... N more' in every picture."""
    from kanon_graph.hierarchy import masking

    zips = [f"{z:05d}" for z in range(2100, 2400)]
    h = masking(zips, name="zip")
    ax = viz.hierarchy_figure(h).axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert ax.get_title() == "zip: height 5, 300 leaves; drawn from level 1 up"
    bottom = [t for t in texts if t.split("\n")[0] in h.labels(1)]
    assert len(bottom) == 30 and len(texts) == 30 + 3 + 1 + 1 + 1
    assert sum(int(t.split("(")[1].rstrip(")")) for t in bottom) == 300
    full = viz.hierarchy_figure(h, max_leaves=None).axes[0]
    assert len(full.texts) == len(list(h))
    wide = kg.Hierarchy.from_rows([[z, "*"] for z in zips], name="zip")      # flat
    flat = viz.hierarchy_figure(wide).axes[0]
    assert len(flat.texts) == 1 + 11 + 1 and "... 289 more\n(289)" in [
        t.get_text() for t in flat.texts]
    lines = viz.hierarchy_text(wide).splitlines()
    summaries = [line for line in lines if "... " in line]
    assert summaries and all("more  (level" in line for line in summaries)
    shown = sum(1 for line in lines if "(level 0, 1 leaf)" in line)
    hidden = sum(int(line.split(", ")[1].split(" ")[0]) for line in summaries)
    assert shown + hidden == wide.n_leaves
    dot = list(viz.hierarchy_dot(wide))
    assert sum('style="dashed"' in line for line in dot) == len(summaries)
    assert len(viz.hierarchy_text(wide, max_children=None).splitlines()) == len(list(wide))
    with pytest.raises(ValueError, match="'max_children' parameter of hierarchy_text"):
        viz.hierarchy_text(h, max_children=1)
