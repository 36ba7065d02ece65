"""encode's fast paths give what the general path gives (issue 47, the patients row).

kanon_graph/encoding/plain.py: a string-dtype column's distinct values taken once as
Python strs, a column of plain ISO days known from one numpy read (no text parsed one by
one for the kind, the format or the days), the shortest texts of a number array at once;
kanon_graph/hierarchy/_match.py: values that are a leaf's own text matched in one lookup.
Each is compared here with the general path (the fast path switched off) on random
tables, errors and warnings included.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kanon_graph as kg
from kanon_graph.cells import date_text
from kanon_graph.encoding import cells, plain, table as table_mod
from kanon_graph.exceptions import DataError, HierarchyError
from kanon_graph.hierarchy import _match


def _general(monkeypatch):
    """Switch every fast path off (the code before them)."""
    monkeypatch.setattr(table_mod, "plain_strings", lambda d, inverse, u: (d, (inverse, u)))
    monkeypatch.setattr(table_mod, "iso_column_days", lambda d, f: None)
    monkeypatch.setattr(cells, "number_texts",
                        lambda a: [cells._number_text(v) for v in a.tolist()])
    monkeypatch.setattr(_match, "_own_leaves",
                        lambda leaves, values: np.full(len(values), -1, dtype=np.int64))


def _encoded(frame, schema):
    """Every field of the encoding, or the error's message; with the warnings said."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            data = kg.encode(frame, schema)
        except (DataError, HierarchyError) as error:
            return type(error).__name__ + ": " + str(error), [str(w.message) for w in said]
    out = []
    for a in data.attributes:
        out.append((a.name, a.kind, a.codes.tolist(), a.codes.dtype, list(a.domain),
                    None if a.values is None else (a.values.tolist(), a.values.dtype),
                    a.date, a.date_format, a.missing_code,
                    None if a.hierarchy is None else a.hierarchy.leaf_labels))
    return out, [str(w.message) for w in said]


def _both(frame, schema):
    fast = _encoded(frame, schema)
    with pytest.MonkeyPatch.context() as mp:
        _general(mp)
        slow = _encoded(frame, schema)
    return fast, slow


iso_days = st.dates().map(lambda d: d.isoformat())
near_iso = st.one_of(
    st.builds(lambda y, m, d: f"{y:04d}-{m:02d}-{d:02d}",      # 0000, month 13, 02-30
              st.integers(0, 9999), st.integers(0, 13), st.integers(0, 32)),
    st.sampled_from(["1970-01", "19700101", "1970-01-01T08:30", " 1970-01-01", "1970/01/01",
                     "13/03/1961", "01/02/1970", "abc", "02139", "2139", "1.5", "١٩٧٠-٠١-٠١"]))
COLUMNS = {
    "iso": st.lists(iso_days, min_size=1, max_size=12),
    "mixed": st.lists(st.one_of(iso_days, near_iso), min_size=1, max_size=12),
    "codes": st.lists(st.from_regex(r"0[0-9]{4}", fullmatch=True), min_size=1, max_size=8),
    "words": st.lists(st.text("abcé*-/ 0123", min_size=1, max_size=5), min_size=1, max_size=8),
    "numbers": st.lists(st.one_of(st.floats(allow_nan=False, width=64),
                                  st.integers(-2**60, 2**60).map(float)), min_size=1,
                        max_size=10),
}


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(sorted(COLUMNS)).flatmap(lambda kind: st.tuples(st.just(kind),
                                                                         COLUMNS[kind])),
       st.sampled_from(["str", "object"]), st.sampled_from([None, "dates", "categorical"]),
       st.booleans(), st.integers(0, 2**16))
def test_encode_gives_what_the_general_path_gives(column, dtype, declared, with_hierarchy, seed):
    kind, values = column
    rng = np.random.default_rng(seed)
    cells_ = np.asarray(values, dtype=object)[rng.integers(0, len(values), 3 * len(values))]
    frame = pd.DataFrame({"x": pd.Series(cells_, dtype=None if kind == "numbers" else dtype),
                          "s": "a"})
    hierarchies = {}
    if with_hierarchy:           # a leaf for every distinct text, and one more
        texts = sorted({cells._number_text(v) if isinstance(v, float) else v for v in values})
        hierarchies["x"] = kg.Hierarchy([[t, "(all)"] for t in texts + ["zz-extra"]], name="x")
    schema = kg.Schema(quasi_identifiers=["x"], sensitive=["s"], hierarchies=hierarchies,
                       **({declared: ["x"]} if declared and kind != "numbers" else {}))
    fast, slow = _both(frame, schema)
    assert fast == slow


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(["1", "01", "2", "2.5", "x", "3"]),
                          st.sampled_from([1, 2, 2.5, 3.0, 7]),
                          st.text("0123.", min_size=1, max_size=3)), min_size=1, max_size=12),
       st.sampled_from([["1", "2", "2.5", "3"], ["1", "01", "2.5"], ["a", "b", "1"]]))
def test_leaf_matching_gives_what_matching_one_by_one_gives(values, leaves):
    hierarchy = kg.Hierarchy([[leaf, "*"] for leaf in leaves], name="h")

    def run():
        try:
            return hierarchy.encode(values).tolist()
        except HierarchyError as error:
            return str(error)

    fast = run()
    with pytest.MonkeyPatch.context() as mp:
        _general(mp)
        slow = run()
    assert fast == slow
    if not isinstance(slow, str):        # and each value is the leaf leaf_index names
        assert slow == [hierarchy.leaf_index(v) for v in values]


def test_a_missing_leaf_is_still_named_with_its_column():
    frame = pd.DataFrame({"zip": pd.Series(["02139", "02140", "99999"], dtype="str"),
                          "s": ["a", "b", "c"]})
    schema = kg.Schema(quasi_identifiers=["zip"], sensitive=["s"],
                       hierarchies={"zip": kg.Hierarchy([["02139", "*"], ["02140", "*"]],
                                                        name="zip")})
    with pytest.raises(HierarchyError, match=r"zip.*'99999'"):
        kg.encode(frame, schema)


def test_a_plain_iso_column_is_read_without_parsing_a_text(monkeypatch):
    """On main, the kind inference and the format rule parse every distinct date text."""
    days = pd.date_range("1940-01-01", periods=4000, freq="D").strftime("%Y-%m-%d")
    frame = pd.DataFrame({"dob": pd.Series(np.random.default_rng(0).choice(np.asarray(days),
                                                                           8000), dtype="str"),
                          "s": 1})
    schema = kg.Schema(quasi_identifiers=["dob"], sensitive=["s"])
    slow = _both(frame, schema)[1]
    parsed = []
    real = date_text.parse_iso
    monkeypatch.setattr(date_text, "parse_iso", lambda t: parsed.append(t) or real(t))
    fast = _encoded(frame, schema)
    assert parsed == [] and fast == slow
    assert fast[0][0][6] is True and "ISO 8601 date text" in fast[1][0]


def test_leaves_given_by_their_own_text_are_matched_in_one_lookup(monkeypatch):
    """On main, every distinct value went through ``_normalize`` one by one."""
    leaves = [f"{i:05d}" for i in range(3000)]
    hierarchy = kg.Hierarchy([[leaf, "*"] for leaf in leaves], name="zip")
    values = np.random.default_rng(1).choice(np.asarray(leaves, dtype=object), 6000)
    seen = []
    real = type(hierarchy)._normalize
    monkeypatch.setattr(type(hierarchy), "_normalize",
                        lambda self, v: seen.append(v) or real(self, v))
    codes = hierarchy.encode(values)
    assert seen == [] and codes.tolist() == [int(v) for v in values]


@pytest.mark.parametrize("values", [[1.0, 2.5, -0.0, 1e300, 2.0**53, 2.0**53 + 2, -3.0, 1e-7],
                                    [3, -2**62, 0]])
def test_number_texts_are_the_shortest_texts_one_by_one(values):
    array = np.asarray(values)
    assert plain.number_texts(array) == [cells._number_text(v) for v in array.tolist()]
