"""Reading and writing ARX-format hierarchy files, MAGVal marks in files, folder loading."""

import warnings

import pandas as pd

import pytest

import kanon_graph as kg
from kanon_graph import HierarchyError, load_hierarchies, read_hierarchy, write_hierarchy


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


SEX = "Male;*\nFemale;*\n"
AGE = "21;[20-24];*\n24;[20-24];*\n26;[25-29];*\n"


@pytest.mark.parametrize("sep", [";", ",", "\t"])
def test_read_any_separator(tmp_path, sep):
    path = _write(tmp_path / "age.csv", AGE.replace(";", sep))
    h = read_hierarchy(path)
    assert h.name == "age"
    assert h.height == 2
    assert h.leaf_labels == ["21", "24", "26"]
    assert h.generalize(24, 1) == "[20-24]"
    assert h.source == str(path)


def test_read_explicit_separator_and_name(tmp_path):
    # cells may themselves hold commas when the separator is ';'
    path = _write(tmp_path / "x.csv", "a;g1,g2;*\nb;g1,g2;*\n")
    h = read_hierarchy(path, name="col", sep=";")
    assert h.name == "col"
    assert h.labels(1) == ["g1,g2"]


def test_read_skips_blank_lines_strips_cells_and_bom(tmp_path):
    path = tmp_path / "sex.csv"
    path.write_bytes("\ufeffMale ; *\n\n  \nFemale;*\n".encode("utf-8"))
    h = read_hierarchy(path)
    assert h.leaf_labels == ["Male", "Female"]
    assert h.root.name == "*"


def test_duplicate_identical_row_warns_with_file_and_line(tmp_path):
    path = _write(tmp_path / "sex.csv", "Male;*\nFemale;*\nMale;*\n")
    with pytest.warns(UserWarning) as record:
        h = read_hierarchy(path)
    message = str(record[0].message)
    assert str(path) in message and "line 3" in message and "line 1" in message
    assert h.n_leaves == 2


def test_two_parents_error_names_file_and_line(tmp_path):
    path = _write(tmp_path / "zip.csv", "a;x;p;*\nb;y;q;*\n\nc;x;q;*\n")
    with pytest.raises(HierarchyError) as info:
        read_hierarchy(path)
    message = str(info.value)
    assert str(path) in message
    assert "line 4" in message           # blank line 3 counts: lines are file lines
    assert "'x'" in message and "two parents" in message and "'p'" in message


def test_different_row_lengths_error_names_file_and_line(tmp_path):
    path = _write(tmp_path / "age.csv", "21;[20-24];*\n24;[20-24];*\n26;*\n")
    with pytest.raises(HierarchyError) as info:
        read_hierarchy(path)
    message = str(info.value)
    assert str(path) in message and "line 3" in message and "'26'" in message
    assert "2 levels" in message and "3" in message


def test_a_file_with_several_values_in_its_last_column_gets_an_implicit_root(tmp_path):
    """ARX's date builder ends with years / decades, no '*' (issue 16 item 5)."""
    text = ("1944-12-14;1944;1940s\n1947-06-10;1947;1940s\n"
            "1951-02-01;1951;1950s\n1953-08-30;1953;1950s\n")
    path = _write(tmp_path / "dob.csv", text)
    h = read_hierarchy(path)
    assert h.height == 3 and h.implicit_root
    assert h.ancestors("1951-02-01") == ["1951-02-01", "1951", "1950s", "*"]
    assert h.lca(["1944-12-14", "1953-08-30"]) == "*"
    write_hierarchy(h, tmp_path / "back.csv")
    assert (tmp_path / "back.csv").read_text() == text       # the root is not written
    table = pd.DataFrame({"dob": ["1944-12-14", "1947-06-10", "1951-02-01", "1953-08-30"]})
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["dob"], hierarchies={"dob": h}),
                       k=2, algorithm="optimal")
    assert res.table["dob"].tolist() == ["1940s", "1940s", "1950s", "1950s"]
    # built in code, several roots are still refused unless asked for
    with pytest.raises(HierarchyError, match="single root.*implicit_root=True"):
        kg.Hierarchy.from_rows([["Male", "M"], ["Female", "F"]])
    assert kg.Hierarchy.from_rows([["Male", "M"], ["Female", "F"]],
                                  implicit_root=True).root.name == "*"


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(HierarchyError, match="does not exist"):
        read_hierarchy(tmp_path / "nope.csv")
    with pytest.raises(HierarchyError, match="is empty"):
        read_hierarchy(_write(tmp_path / "empty.csv", "\n\n"))


def test_not_utf8(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"\xff\xfe\xfa;*\n")
    with pytest.raises(HierarchyError, match="not UTF-8"):
        read_hierarchy(path)


# ----------------------------------------------------------------- MAGVal in files
LOCATION = ("Geza;*South Egypt*;A.R.E\nAswan;South Egypt;A.R.E\n"
            "Helwan;Mid Egypt;A.R.E\nAlex;North Egypt;A.R.E\n")


def test_magval_cell_syntax(tmp_path):
    h = read_hierarchy(_write(tmp_path / "location.csv", LOCATION))
    # the mark is stripped from the label
    assert h.labels(1) == ["South Egypt", "Mid Egypt", "North Egypt"]
    assert h.magval("Geza") == "South Egypt"
    assert h.magval("Aswan") == "South Egypt"     # same node, so same mark
    assert h.magval("Helwan") == "A.R.E"
    assert h.magset() == {"South Egypt", "A.R.E"}


def test_masks_and_star_root_are_not_magval_marks(tmp_path):
    h = read_hierarchy(_write(tmp_path / "zip.csv", "535280;53528*;5352**;*\n"
                                                    "535292;53529*;5352**;*\n"))
    assert not h.has_magvals
    assert h.labels(2) == ["5352**"]
    assert h.root.name == "*"
    h = read_hierarchy(_write(tmp_path / "zip2.csv", "535280;**;*\n535292;**;*\n"))
    assert not h.has_magvals and h.labels(1) == ["**"]


def test_magval_sidecar_file(tmp_path):
    path = _write(tmp_path / "location.csv", LOCATION.replace("*South Egypt*", "South Egypt"))
    _write(tmp_path / "location.csv.magval",
           "# MAGVals of the location hierarchy\nMid Egypt\n\n1;North Egypt\n0;Geza\n")
    h = read_hierarchy(path)
    assert h.magval("Helwan") == "Mid Egypt"
    assert h.magval("Alex") == "North Egypt"
    assert h.magval("Geza") == "Geza"
    assert h.magval("Aswan") == "A.R.E"


def test_magval_sidecar_unknown_label_names_file_and_line(tmp_path):
    path = _write(tmp_path / "location.csv", LOCATION)
    sidecar = _write(tmp_path / "location.csv.magval", "Mid Egypt\nCairo\n")
    with pytest.raises(HierarchyError) as info:
        read_hierarchy(path)
    message = str(info.value)
    assert str(sidecar) in message and "line 2" in message and "'Cairo'" in message


def test_write_read_round_trip_keeps_marks(tmp_path):
    h = kg.datasets.paper_002_location()
    path = tmp_path / "location.csv"
    write_hierarchy(h, path)
    text = path.read_text()
    assert "Geza;*South Egypt*;A.R.E" in text
    again = read_hierarchy(path)
    assert again.to_rows() == h.to_rows()
    assert again.magset() == h.magset()
    write_hierarchy(h, tmp_path / "plain.csv", sep=",", mark_magvals=False)
    plain = read_hierarchy(tmp_path / "plain.csv")
    assert plain.to_rows() == h.to_rows() and not plain.has_magvals


# ------------------------------------------------------------------ load_hierarchies
def test_load_arx_naming(tmp_path):
    _write(tmp_path / "adult_hierarchy_sex.csv", SEX)
    _write(tmp_path / "adult_hierarchy_age.csv", AGE)
    _write(tmp_path / "adult.csv", "sex;age\nMale;21\n")       # the data table, not a hierarchy
    hier = load_hierarchies(tmp_path)
    assert sorted(hier) == ["age", "sex"]
    assert hier["age"].name == "age" and hier["age"].height == 2


def test_load_column_naming(tmp_path):
    _write(tmp_path / "sex.csv", SEX)
    _write(tmp_path / "age.csv", AGE)
    _write(tmp_path / "notes.txt", "not a hierarchy")
    hier = load_hierarchies(tmp_path)
    assert sorted(hier) == ["age", "sex"]
    assert hier["sex"].leaf_labels == ["Male", "Female"]


def test_load_selected_columns(tmp_path):
    _write(tmp_path / "sex.csv", SEX)
    _write(tmp_path / "age.csv", AGE)
    assert list(load_hierarchies(tmp_path, columns=["sex"])) == ["sex"]
    with pytest.raises(HierarchyError, match=r"no file for column\(s\) \['zip'\]"):
        load_hierarchies(tmp_path, columns=["sex", "zip"])


def test_load_errors(tmp_path):
    with pytest.raises(HierarchyError, match="does not exist"):
        load_hierarchies(tmp_path / "missing")
    with pytest.raises(HierarchyError, match="no .csv hierarchy files"):
        load_hierarchies(tmp_path)
    _write(tmp_path / "a_hierarchy_sex.csv", SEX)
    _write(tmp_path / "b_hierarchy_sex.csv", SEX)
    with pytest.raises(HierarchyError, match="two files for column 'sex'"):
        load_hierarchies(tmp_path)


def test_load_reports_a_broken_file(tmp_path):
    _write(tmp_path / "sex.csv", SEX)
    bad = _write(tmp_path / "age.csv", "21;[20-24];*\n24;*\n")
    with pytest.raises(HierarchyError, match=f"{bad}.*line 2"):
        load_hierarchies(tmp_path)


def test_load_adult_hierarchies(adult_dir):
    hier = load_hierarchies(adult_dir)
    # shape given in the data README
    expected = {"sex": (1, 2), "age": (4, 100), "race": (1, 5), "marital-status": (2, 7),
                "education": (3, 16), "native-country": (2, 41), "workclass": (2, 8),
                "occupation": (2, 14), "salary-class": (1, 2)}
    assert {c: (h.height, h.n_leaves) for c, h in hier.items()} == expected
    assert all(h.root.name == "*" for h in hier.values())
    assert [len(hier["age"].labels(l)) for l in range(5)] == [100, 20, 10, 5, 1]


def test_fars_duplicate_row_warns(fars_dir):
    with pytest.warns(UserWarning, match="duplicate row for value '99'"):
        h = read_hierarchy(fars_dir / "fars_int_hierarchy_iage.csv")
    assert h.n_leaves == 99
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_hierarchy(fars_dir / "fars_int_hierarchy_isex.csv")


# ------------------------------------------------------------------ odd labels round-trip
from hypothesis import given, settings
from hypothesis import strategies as st

_ODD = st.text(
    alphabet=st.one_of(st.sampled_from(list(';,"*\t #\' ')),
                       st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"))),
    min_size=1, max_size=8,
).map(str.strip).filter(bool)


@settings(max_examples=150, deadline=None)
@given(labels=st.lists(_ODD, min_size=5, max_size=12, unique=True),
       marks=st.lists(st.booleans(), min_size=12, max_size=12),
       sep=st.sampled_from([";", ",", "\t"]))
def test_write_read_round_trips_every_label(tmp_path_factory, labels, marks, sep):
    # leaves, then two groups, then the root: every label distinct
    *leaves, group_a, group_b, root = labels
    rows = [[leaf, group_a if i % 2 else group_b, root] for i, leaf in enumerate(leaves)]
    h = kg.Hierarchy.from_rows(rows, name="odd")
    for (level, label), mark in zip([(1, group_a), (1, group_b), (0, leaves[0])], marks):
        if mark:
            h.mark_magval(label, level)
    path = tmp_path_factory.mktemp("odd") / "odd.csv"
    write_hierarchy(h, path, sep=sep)
    again = read_hierarchy(path)  # separator sniffed
    assert again.to_rows() == h.to_rows()
    assert [m.tolist() for m in again._magval] == [m.tolist() for m in h._magval]


def test_label_with_separator_written_quoted(tmp_path):
    h = kg.Hierarchy.from_rows([["a;b", "x", "*"], ["c", "x", "*"]])
    write_hierarchy(h, tmp_path / "h.csv")
    assert tmp_path.joinpath("h.csv").read_text().splitlines()[0] == '"a;b";x;*'
    assert read_hierarchy(tmp_path / "h.csv").leaf_labels == ["a;b", "c"]


def test_quoted_star_label_is_not_a_mark_and_stale_sidecar_goes(tmp_path):
    h = kg.Hierarchy.from_rows([["a", "x;1", "*"], ["b", "*y*", "*"]])
    h.mark_magval("x;1")
    path = tmp_path / "h.csv"
    write_hierarchy(h, path)  # "x;1" cannot be marked inline: marks go to the sidecar
    assert path.with_name("h.csv.magval").read_text() == "1;x;1\n"
    assert path.read_text().splitlines()[1] == 'b;"*y*";*'
    again = read_hierarchy(path)
    assert again.labels(1) == ["x;1", "*y*"] and again.is_magval("x;1")
    assert not again.is_magval("*y*")
    write_hierarchy(h, path, mark_magvals=False)
    assert not path.with_name("h.csv.magval").exists()
    assert not read_hierarchy(path).has_magvals


def test_arx_adult_age_file_says_its_known_flaw_once(adult_dir, tmp_path, monkeypatch):
    """Issue 23 item 6: ARX's Adult age hierarchy warned on every run; now once, by name,
    while any other untrue range label still warns as before."""
    import warnings

    from kanon_graph.exceptions import HierarchyWarning
    from kanon_graph.hierarchy import _io

    monkeypatch.setattr(_io, "_SAID", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = load_hierarchies(adult_dir)
        load_hierarchies(adult_dir)
    said = [w for w in caught if issubclass(w.category, HierarchyWarning)]
    assert len(said) == 1 and "ARX's published Adult age hierarchy" in str(said[0].message)
    assert first["age"].generalize("3", 1) == "0-4"          # read as published
    text = (adult_dir / "adult_hierarchy_age.csv").read_text(encoding="utf-8-sig")
    edited = tmp_path / "age.csv"
    edited.write_text(text.replace("1;0-4;", "1;0-3;", 1), encoding="utf-8")
    with pytest.warns(HierarchyWarning, match="outside the range it names"):
        read_hierarchy(edited)
