"""The lattice of a result (issue 35 item 3): lattice_figure / lattice_dot of a result."""

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph import viz
from kanon_graph.lattice import Lattice
from kanon_graph.viz.notebook import result_html, set_display


@pytest.fixture(scope="module")
def paper():
    return kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()


def _k_anonymous(data, node, k, budget):
    _, counts = np.unique(data.group_keys(node), return_counts=True)
    return int(counts[counts < k].sum()) <= budget


@pytest.mark.parametrize("algorithm", ["optimal", "datafly", "incognito"])
def test_every_node_is_checked_and_the_released_one_chosen(paper, algorithm):
    table, schema = paper
    res = kg.anonymize(table, schema, k=3, algorithm=algorithm)
    ax = viz.lattice_figure(res).axes[0]
    data = kg.encode(table, schema)
    lattice = Lattice(data.heights, names=data.names)
    chosen = tuple(res.levels[n] for n in data.names)
    by_label = {t.get_text(): t.get_bbox_patch().get_facecolor() for t in ax.texts}
    assert len(by_label) == lattice.size == 24
    budget = max(res.suppressed, res.stats.get("suppression_budget", 0))
    import matplotlib.colors as mc
    for node in lattice.nodes():
        if node == chosen:
            expected = "gold"
        else:
            expected = "palegreen" if _k_anonymous(data, node, 3, budget) else "lightcoral"
        assert by_label[lattice.label(node)] == mc.to_rgba(expected), node
    assert ax.get_title() == (f"{algorithm}, k=3: released {lattice.label(chosen)}; "
                              f"lattice of 24 nodes")
    footer = [t.get_text() for t in ax.figure.texts]
    assert footer and footer[0].startswith("anonymous: k=3 holds")


def test_statuses_follow_l_diversity(paper):
    table, schema = paper
    res = kg.anonymize(table, schema, k=2, l=2, algorithm="optimal")
    found = viz.lattice_dot(res)
    assert "distinct l=2" in viz.lattice_figure(res).texts[0].get_text()
    assert found.count('tooltip="chosen"') == 1
    # a node that is 2-anonymous but not 2-diverse is shown failing
    data = kg.encode(table, schema)
    model = kg.privacy.PrivacyModel(2, l=2).bind(data)
    from kanon_graph.lattice import FrequencyEngine
    engine = FrequencyEngine(data)
    for node in Lattice(data.heights).nodes():
        if node == tuple(res.levels.values()):
            continue
        passes = engine.suppressed_records(node, model) <= res.suppressed
        tip = "anonymous" if passes else "not-anonymous"
        label = Lattice(data.heights, names=data.names).label(node)
        assert f'label="{label}", fillcolor="{"palegreen" if passes else "lightcoral"}", ' \
               f'tooltip="{tip}"' in found


def test_anything_else_is_a_type_error_naming_what_it_takes(paper):
    table, _ = paper
    for bad in (table, 42, None, {(0, 0): "chosen"}):
        with pytest.raises(TypeError, match="lattice_figure takes a Lattice .* or an "
                                            "AnonymizationResult of a global recoding"):
            viz.lattice_figure(bad)
    with pytest.raises(TypeError, match="lattice_dot_lines takes a Lattice"):
        viz.lattice_dot("lattice")


def test_a_local_recoding_has_no_node(paper):
    res = kg.anonymize(*paper, k=3, algorithm="mondrian")
    with pytest.raises(ValueError, match="'mondrian' is a local recoding"):
        viz.lattice_figure(res)


def test_a_result_brings_its_own_statuses(paper):
    res = kg.anonymize(*paper, k=3, algorithm="optimal")
    with pytest.raises(TypeError, match="brings its own statuses"):
        viz.lattice_figure(res, {(0, 0, 0): "chosen"})


def test_a_large_lattice_says_so_and_offers_dot(paper):
    res = kg.anonymize(*paper, k=3, algorithm="optimal")
    with pytest.raises(ValueError, match=r"24 nodes, more than max_nodes=10 .*"
                                         r"kg\.viz\.lattice_dot\(res\)"):
        viz.lattice_figure(res, max_nodes=10)


def test_boundaries_draw_the_capped_lattice():
    schema = kg.datasets.paper_003_schema()
    schema.hierarchy("age").mark_magval("[20-30]").mark_magval("[31-40]")
    res = kg.anonymize(kg.datasets.paper_003_table(), schema, k=3, algorithm="optimal",
                       respect_boundaries=True)
    ax = viz.lattice_figure(res).axes[0]
    assert len(ax.texts) == 2 * 3 * 3            # age stops at level 2: heights (1, 2, 2)


def test_the_notebook_shows_a_global_results_lattice(paper):
    res = kg.anonymize(*paper, k=3, algorithm="datafly")
    shown = result_html(res)
    assert "lattice<br><svg" in shown and "released gender1-age2-zip1" in shown
    old = set_display(max_nodes=10)
    try:
        assert "lattice: 24 nodes, not drawn (kg.viz.lattice_dot(res)" in result_html(res)
    finally:
        set_display(**old)
    assert "lattice" not in result_html(kg.anonymize(*paper, k=3, algorithm="mondrian"))
