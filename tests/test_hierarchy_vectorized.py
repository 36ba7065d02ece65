"""The numpy paths that build drafted hierarchies equal the plain readings they replace.

Issue 48's speed target: ``intervals`` writes each band's label once per band
(``_bands``), a tree's levels are read with one factorize per level
(``level_arrays``, ``Hierarchy._from_columns``), the repeated-label check
intersects label sets, and ``number_reader`` cuts each amount once. Each is
compared here with the per-leaf, per-row reading it replaced, written out
plainly, on random inputs.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kanon_graph.hierarchy._tree as tree_module
from kanon_graph import Hierarchy
from kanon_graph.cells.amounts import amount_reading, number_reader
from kanon_graph.cells.kinds import parse_number
from kanon_graph.exceptions import HierarchyError
from kanon_graph.hierarchy import intervals
from kanon_graph.hierarchy._builders import _band, _fmt
from kanon_graph.hierarchy._levels import level_arrays

SETTINGS = settings(max_examples=60, deadline=None)


# ------------------------------------------------------------------ the plain readings
def plain_interval_rows(leaves, widths=None, cuts=None, origin=0, root="*"):
    """``intervals``' rows written leaf by leaf (the code before it was vectorized)."""
    values = np.asarray(sorted(leaves), dtype=float)
    integral = bool(np.all(values == np.round(values)))
    columns = []
    for width in widths or []:
        lo = origin + np.floor((values - origin) / width) * width
        hi = lo + width - 1 if integral else lo + width
        columns.append([_band(a, b, integral) for a, b in zip(lo, hi)])
    for level in cuts or []:
        edges = np.unique(np.asarray(level, dtype=float))
        labels = []
        for s in np.searchsorted(edges, values, side="right") - 1:
            lo = edges[s] if s >= 0 else -np.inf
            hi = edges[s + 1] if s + 1 < len(edges) else np.inf
            if integral and np.isfinite(hi):
                hi = hi - 1
            labels.append(_band(lo, hi, integral))
        columns.append(labels)
    return [[_fmt(leaf)] + [c[i] for c in columns] + [root]
            for i, leaf in enumerate(sorted(leaves))]


def plain_levels(rows):
    """Labels, index and parents per level, read row by row."""
    height = len(rows[0]) - 1
    labels = [[] for _ in range(height + 1)]
    index = [{} for _ in range(height + 1)]
    for row in rows:
        for level, label in enumerate(row):
            if label not in index[level]:
                index[level][label] = len(labels[level])
                labels[level].append(label)
    parent = [[-1] * len(labels[level]) for level in range(height)]
    for row in rows:
        for level in range(height):
            child, above = index[level][row[level]], index[level + 1][row[level + 1]]
            if parent[level][child] not in (-1, above):
                return None
            parent[level][child] = above
    if len(labels[height]) != 1 or any("" in level for level in labels):
        return None
    return labels, index, parent


def plain_repeated(rows):
    """The first label (in level, then node order) naming two leaf sets, as the old loop found it."""
    labels, index, parent = plain_levels(rows)
    def under(level, j):
        return {row[0] for row in rows if row[level] == labels[level][j]}
    first = {}
    for level, idx in enumerate(index):
        for label, j in idx.items():
            if label not in first:
                first[label] = (level, j)
            elif under(*first[label]) != under(level, j):
                return label, first[label][0], level
    return None


def same_hierarchy(a, b):
    assert a.height == b.height and a.name == b.name and a.source == b.source
    assert [a.labels(level) for level in range(a.height + 1)] == \
        [b.labels(level) for level in range(b.height + 1)]
    for level in range(a.height + 1):
        np.testing.assert_array_equal(a.level_map[level], b.level_map[level])
        np.testing.assert_array_equal(a.leaf_counts[level], b.leaf_counts[level])
    assert a.to_rows() == b.to_rows()
    assert (a.leaf_values is None) == (b.leaf_values is None)
    if a.leaf_values is not None:
        np.testing.assert_array_equal(a.leaf_values, b.leaf_values)
    assert [a.line_of(leaf) for leaf in a.leaf_labels] == [b.line_of(leaf) for leaf in b.leaf_labels]


# ------------------------------------------------------------------------- strategies
integers = st.lists(st.integers(-5000, 5000), min_size=1, max_size=300, unique=True)
decimals = st.lists(st.integers(-500000, 500000).map(lambda c: c / 100), min_size=1,
                    max_size=300, unique=True)
nested_widths = st.sampled_from([[1], [5, 10], [2, 10, 20], [0.5, 1, 5], [7, 14, 70],
                                 [1000, 5000, 10000], [0.25, 0.5]])


@st.composite
def nested_cuts(draw):
    finest = sorted(set(draw(st.lists(st.integers(-6000, 6000), min_size=1, max_size=12))))
    levels = [finest]
    while len(levels[-1]) > 1 and draw(st.booleans()):
        levels.append(sorted(draw(st.sets(st.sampled_from(levels[-1]), min_size=1))))
    return levels


@st.composite
def trees(draw):
    """Leaf-to-root rows over distinct leaves, sometimes malformed (two parents, two roots)."""
    n = draw(st.integers(1, 40))
    leaves = [f"v{i}" for i in draw(st.permutations(range(n)))]
    height = draw(st.integers(1, 4))
    rows = [[leaf] for leaf in leaves]
    place = list(range(n))                   # each row's node number on the last level
    groups = n
    for level in range(1, height):
        groups = max(1, groups // draw(st.integers(1, 4)))
        style = draw(st.sampled_from([f"g{level}_", "v"]))   # "v": leaf labels reused above
        for i, row in enumerate(rows):
            stray = draw(st.integers(0, 19)) == 0            # now and then a second parent
            place[i] = draw(st.integers(0, groups - 1)) if stray else place[i] % groups
            row.append(f"{style}{place[i]}")
    roots = ["*", "+"] if draw(st.integers(0, 9)) == 0 else ["*"]
    for row in rows:
        row.append(draw(st.sampled_from(roots)))
    return rows


# ----------------------------------------------------------------------------- tests
@pytest.mark.filterwarnings("ignore::kanon_graph.exceptions.HierarchyWarning")
@SETTINGS
@given(leaves=st.one_of(integers, decimals), widths=nested_widths,
       origin=st.sampled_from([0, 3, -2.5]))
def test_interval_bands_by_width_are_the_leaf_by_leaf_labels(leaves, widths, origin,
                                                              monkeypatch_module):
    monkeypatch_module.setattr(tree_module, "ARRAYS_FROM", 0)   # the numpy path at any size
    made = intervals(leaves, widths=widths, origin=origin, name="x")
    assert made.to_rows() == plain_interval_rows(leaves, widths=widths, origin=origin)


@SETTINGS
@given(leaves=st.one_of(integers, decimals), cuts=nested_cuts())
def test_interval_bands_by_cuts_are_the_leaf_by_leaf_labels(leaves, cuts, monkeypatch_module):
    monkeypatch_module.setattr(tree_module, "ARRAYS_FROM", 0)
    made = intervals(leaves, cuts=cuts, name="x")
    assert made.to_rows() == plain_interval_rows(leaves, cuts=cuts)


@SETTINGS
@given(rows=trees())
def test_levels_read_in_numpy_are_the_levels_read_row_by_row(rows):
    found = level_arrays(list(zip(*rows)))
    expected = plain_levels(rows)
    assert (found is None) == (expected is None)
    if found is not None:
        labels, index, parent = found
        assert labels == expected[0] and index == expected[1]
        assert [p.tolist() for p in parent] == expected[2]


@SETTINGS
@given(rows=trees())
def test_a_tree_built_from_columns_is_the_tree_built_from_rows(rows, monkeypatch_module):
    def build(how):
        try:
            return how(), None
        except HierarchyError as error:
            return None, str(error)

    monkeypatch_module.setattr(tree_module, "ARRAYS_FROM", 0)   # the numpy path at any size
    fast, fast_error = build(lambda: Hierarchy._from_columns(list(zip(*rows)), name="c"))
    by_rows, rows_error = build(lambda: Hierarchy(rows, name="c"))
    monkeypatch_module.setattr(tree_module, "ARRAYS_FROM", 10**9)  # row by row throughout
    plain, plain_error = build(lambda: Hierarchy(rows, name="c"))
    assert fast_error == rows_error == plain_error
    refused = plain_repeated(rows) if plain_levels(rows) is not None else None
    if refused is not None:
        label, low, high = refused
        assert f"label {label!r} stands on level {low} " in plain_error
        assert f"and on level {high} over" in plain_error
    if plain is not None:
        same_hierarchy(fast, plain)
        same_hierarchy(by_rows, plain)


@pytest.fixture(scope="module")
def monkeypatch_module():
    patch = pytest.MonkeyPatch()
    yield patch
    patch.undo()


def test_a_label_on_two_levels_over_different_values_is_refused_by_either_path(monkeypatch):
    rows = [["a", "ab", "a", "*"], ["b", "ab", "a", "*"], ["c", "c", "x", "*"]]
    monkeypatch.setattr(tree_module, "ARRAYS_FROM", 0)
    with pytest.raises(HierarchyError, match="label 'a' stands on level 0 over 1 value"):
        Hierarchy._from_columns(list(zip(*rows)), name="c")
    padded = [["a", "ab", "ab", "*"], ["b", "ab", "ab", "*"], ["c", "c", "c", "*"]]
    assert Hierarchy._from_columns(list(zip(*padded)), name="c").generalize("c", 2) == "c"


def money_text(cents, grouped, with_cents):
    whole = f"${cents // 100:,}" if grouped else f"{cents // 100}"
    return f"{whole}.{cents % 100:02d}" if with_cents else whole


money = st.lists(st.builds(money_text, st.integers(0, 10**8), st.booleans(), st.booleans()),
                 min_size=1, max_size=200, unique=True)


@SETTINGS
@given(texts=money, others=st.lists(st.sampled_from(["$7", "7 EUR", "12%", "x", "$1,2"]),
                                    max_size=5))
def test_amounts_read_from_one_cut_are_the_amounts_read_cell_by_cell(texts, others):
    read = number_reader(texts, parse_number)
    reading = amount_reading(texts)
    if reading is None:                       # plain numbers: the plain reader itself
        assert read is parse_number
        return
    for text in texts + others:
        assert read(text) == reading.number(text)
        assert type(read(text)) is type(reading.number(text))
