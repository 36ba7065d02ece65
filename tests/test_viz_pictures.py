"""A test that looks: every shipped hierarchy and every docs picture reads.

Each figure is drawn as a user draws it, then every text that matplotlib
draws is measured (``get_window_extent`` after a draw, with its rounded box):
no two may overlap and none may leave the figure. The figures are measured
at 100 dpi when laid out and checked here at 50 dpi, so the layout does not
depend on the resolution it was measured at. ``python docs/check_pictures.py``
prints the same counts.
"""

import importlib.util
import re
import struct
from fractions import Fraction
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

import kanon_graph as kg
from kanon_graph.viz._overlaps import layout_problems
from picture_cases import arx_hierarchies, built_hierarchies

ROOT = Path(__file__).resolve().parent.parent
DPI = 50


def _make_pictures():
    spec = importlib.util.spec_from_file_location("make_pictures",
                                                  ROOT / "docs" / "make_pictures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def problems(fig):
    fig.set_dpi(DPI)
    try:
        return layout_problems(fig)
    finally:
        plt.close(fig)


BUILT = built_hierarchies()


@pytest.mark.parametrize("name", sorted(BUILT))
def test_shipped_hierarchy_reads(name):
    assert problems(kg.viz.hierarchy_figure(BUILT[name])) == {"overlaps": [], "clipped": []}


@pytest.mark.parametrize("folder", ["adult", "fars"])
def test_arx_hierarchies_read(folder, adult_dir, fars_dir):
    found = arx_hierarchies(adult_dir if folder == "adult" else fars_dir, folder)
    assert len(found) == (9 if folder == "adult" else 8)
    bad = {name: p for name, h in found.items()
           if (p := problems(kg.viz.hierarchy_figure(h))) != {"overlaps": [], "clipped": []}}
    assert bad == {}


def test_a_hierarchy_drawn_to_its_leaves_reads():
    """300 leaves side by side: their labels stand upright, and the figure widens."""
    fig = kg.viz.hierarchy_figure(BUILT["zip300"], max_leaves=None)
    leaves = [t for t in fig.axes[0].texts if t.get_rotation() == 90]
    assert len(leaves) == 300 and fig.get_size_inches()[0] > 40
    assert problems(fig) == {"overlaps": [], "clipped": []}


def test_docs_pictures_read():
    bad = {name: p for name, fig in _make_pictures().figures()
           if (p := problems(fig)) != {"overlaps": [], "clipped": []}}
    assert bad == {}


def _png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24])


def test_docs_pictures_are_the_committed_ones_and_shown():
    """Every picture is drawn by docs/make_pictures.py, committed at its size, and shown."""
    pictures = _make_pictures()
    pages = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("**/*.md"))
    shown = set(re.findall(r"\(img/([\w./-]+\.png)\)", pages))
    assert shown == set(pictures.PICTURES) | set(pictures.SCREENSHOTS)
    for name, fig in pictures.figures():
        w, h = fig.get_size_inches() * pictures.DPI
        plt.close(fig)
        committed = _png_size(ROOT / "docs" / "img" / name)
        assert abs(committed[0] - w) <= 2 and abs(committed[1] - h) <= 2, name


def test_no_label_is_cut():
    """Issue 35: occupation's leaves read 'Exec-managerial', not 'Exec-manage'."""
    h = kg.datasets.adult_hierarchies()["occupation"]
    texts = {t.get_text().split("\n(")[0].replace("\n", " ") for t in
             kg.viz.hierarchy_figure(h).axes[0].texts}
    assert texts == {node.name for node in h}


def test_levels_carry_their_chd():
    """Each level's label is CHD(leaf, node at that level) = level / height (paper 003, eq. 1)."""
    h = kg.datasets.adult_hierarchies()["education"]
    fig = kg.viz.hierarchy_figure(h)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    leaf = h.labels(0)[0]
    for level, label in enumerate(labels):
        name, chd = label.split("\n")
        assert name == f"level {level}"
        value = Fraction(chd.removeprefix("CHD "))
        assert float(value) == pytest.approx(h.chd(leaf, h.ancestors(leaf)[level]))
    assert any(t.get_text().startswith("CHD = level / height") for t in fig.texts)


def test_into_a_small_axes_the_fonts_shrink_and_nothing_overlaps():
    fig, ax = plt.subplots(figsize=(5, 3))
    kg.viz.hierarchy_figure(kg.datasets.adult_hierarchies()["occupation"], ax=ax)
    assert max(t.get_fontsize() for t in ax.texts) < 9
    found = [pair for pair in layout_problems(fig)["overlaps"]
             if all(p in {t.get_text() for t in ax.texts} for p in pair)]
    plt.close(fig)
    assert found == []


def test_upright_leaves_is_checked():
    with pytest.raises(ValueError, match="'upright_leaves' parameter of hierarchy_figure"):
        kg.viz.hierarchy_figure(BUILT["paper003/age"], upright_leaves="yes")
    fig = kg.viz.hierarchy_figure(BUILT["paper003/age"], upright_leaves=True)
    assert {t.get_rotation() for t in fig.axes[0].texts} == {0.0, 90.0}
    assert problems(fig) == {"overlaps": [], "clipped": []}
