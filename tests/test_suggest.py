"""Hierarchies when none are given (issue 16 item 2): kg.hierarchy.suggest and the CLI."""

import csv

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main


def _patients(n=400, seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "zip": rng.choice([f"0{z}" for z in rng.integers(2100, 2200, 12)], n),
        "birth": (pd.Timestamp("1935-01-01")
                  + pd.to_timedelta(rng.integers(0, 30000, n), unit="D")).strftime("%Y-%m-%d"),
        "sex": rng.choice(["F", "M"], n),
        "income": [f"{v:.2f}" for v in rng.gamma(4, 12000, n)],
        "age": rng.integers(17, 91, n),
    })


def test_each_kind_gets_its_own_draft():
    table = _patients()
    schema = kg.Schema(quasi_identifiers=["zip", "birth", "sex", "income", "age"],
                       dates=["birth"])
    made = kg.hierarchy.suggest(table, schema)
    assert list(made) == ["zip", "birth", "sex", "income", "age"]
    zip_h, birth_h, sex_h, income_h, age_h = (made[c][0] for c in made)
    assert zip_h.ancestors(table["zip"][0])[1:] == [table["zip"][0][:4] + "*",
                                                   table["zip"][0][:3] + "**",
                                                   table["zip"][0][:2] + "***",
                                                   table["zip"][0][:1] + "****", "*****"]
    assert birth_h.height == 6 and birth_h.ancestors(table["birth"][0])[3] \
        == table["birth"][0][:4]
    assert sex_h.to_rows() == [["F", "*"], ["M", "*"]]
    # the data's own text is the leaf (cents kept), bands of round nested widths
    assert set(income_h.leaf_labels) == set(table["income"])
    assert age_h.ancestors(int(table["age"][0]))[-1] == "*"
    assert kg.hierarchy.round_widths(17, 90, integral=True) == [5, 10, 20]
    assert kg.hierarchy.round_widths(0, 3, integral=True) == [1, 2]
    widths = kg.hierarchy.round_widths(0.125, 0.875)
    assert widths == [0.05, 0.1, 0.2]
    for column, (h, how) in made.items():   # every draft encodes the column as is
        kg.encode(table, kg.Schema(quasi_identifiers=[column], dates=["birth"],
                                   hierarchies={column: h}))
        assert how


def test_a_global_algorithm_without_hierarchies_names_suggest():
    table = _patients(50)
    with pytest.raises(kg.SchemaError, match=r"kg\.hierarchy\.suggest.*hierarchy suggest"):
        kg.anonymize(table, kg.Schema(quasi_identifiers=["zip", "sex"]), k=2,
                     algorithm="optimal")


def test_cli_suggest_then_optimal(tmp_path, capsys):
    table = _patients()
    table.to_csv(tmp_path / "p.csv", index=False, quoting=csv.QUOTE_MINIMAL)
    assert main(["hierarchy", "suggest", str(tmp_path / "p.csv"), "--qi",
                 "zip,birth,sex,income", "--dates", "birth", "-o", str(tmp_path / "h")]) == 0
    printed = capsys.readouterr().out
    assert "masked from the right" in printed and "month, quarter, year, 5 years, decade" in printed
    assert sorted(p.name for p in (tmp_path / "h").iterdir()) == [
        "birth.csv", "income.csv", "sex.csv", "zip.csv"]
    assert main(["anonymize", str(tmp_path / "p.csv"), "--qi", "zip,birth,sex,income",
                 "--dates", "birth", "--hierarchies", str(tmp_path / "h"), "-k", "5",
                 "--algorithm", "optimal", "--suppression", "0.05",
                 "-o", str(tmp_path / "o.csv"), "-q"]) == 0
    out = pd.read_csv(tmp_path / "o.csv", dtype=str)
    released = out[~(out[["zip", "birth", "sex", "income"]] == "*").all(axis=1)]
    assert len(out) == len(table) and len(released) >= 0.95 * len(table)
    assert released.groupby(["zip", "birth", "sex", "income"]).size().min() >= 5


def test_a_numeric_range_across_zero_gets_finite_widths():
    # the two bands around zero never merge: the widths used to grow until overflow
    assert kg.hierarchy.round_widths(-2500, 110000) == [10000, 20000, 40000, 80000, 160000]
    assert kg.hierarchy.round_widths(-3, 4, integral=True) == [1, 2, 4, 8]
    table = pd.DataFrame({"balance": [-2500.5, -10.25, 0.0, 47.5, 61000.75, 110000.0]})
    hierarchy, _ = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["balance"]))["balance"]
    release = kg.anonymize(table, kg.Schema(quasi_identifiers=["balance"],
                                            hierarchies={"balance": hierarchy}), k=2,
                           algorithm="optimal")
    assert release.verification.holds and release.levels["balance"] >= 1


def test_classification_codes_get_the_levels_their_prefix_tree_has():
    """Issue 30 item 6, then issue 42 item 3: ICD-10 codes get category and block levels."""
    codes = ["J45.9", "J45.0", "J45", "J44.1", "E11.65", "E11.9", "I10", "I11.0"]
    table = pd.DataFrame({"icd": codes * 5, "age": list(range(40))})
    schema = kg.Schema(quasi_identifiers=["icd"])
    made = kg.hierarchy.suggest(table, schema)
    h, note = made["icd"]
    assert "prefix levels" in note
    # J4* groups J45 and J44; the letter level would join nothing more (J4 is all of J)
    assert h.ancestors("J45.9") == ["J45.9", "J45*", "J4*", "*"]
    assert h.ancestors("J45") == ["J45", "J45*", "J4*", "*"]
    assert h.ancestors("I10") == ["I10", "I10*", "I1*", "*"]
    # the pairs suggest returns are taken by Schema as they are
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["icd"], hierarchies=made), k=5)
    assert res.verification.holds
    assert not (res.table["icd"] == "*").all()


def test_equal_width_codes_without_dots_are_still_masked():
    table = pd.DataFrame({"zip": ["02139", "02141", "10001", "10002"]})
    h, note = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["zip"]))["zip"]
    assert "masked" in note and h.ancestors("02139")[1] == "0213*"



def _draft(values, counts=None):
    counts = counts or [1] * len(values)
    table = pd.DataFrame({"c": [v for v, n in zip(values, counts) for _ in range(n)]})
    return kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["c"]))["c"]


def _assert_truthful(h):
    """Every label above a leaf is a group label whose prefix starts every leaf under it."""
    leaves = set(h.leaf_labels)
    for row in h.to_rows():
        for label in row[1:]:
            assert label.endswith("*") and label not in leaves
            assert row[0].startswith(label.rstrip("*"))


def test_uk_postcode_districts_get_their_area():
    # BD1 and BD10 are two districts: no "BD1*" level joins them
    h, note = _draft(["LS6", "LS1", "LS11", "BD10", "BD1", "HX1"], [30, 20, 10, 10, 5, 5])
    assert h.ancestors("BD10") == ["BD10", "BD*", "*"]
    assert h.ancestors("LS1") == ["LS1", "LS*", "*"] and "BD1*" not in h.labels(1)
    assert "prefix levels" in note
    _assert_truthful(h)


def test_full_uk_postcodes_get_sector_district_and_area():
    codes = ["LS6 3AB", "LS6 3AD", "LS6 4QT", "LS2 9JT", "BD10 8PX", "BD10 8PY", "BD1 1AA"]
    h, _ = _draft(codes, [5] * len(codes))
    assert h.ancestors("LS6 3AB") == ["LS6 3AB", "LS6 3*", "LS6*", "LS*", "*"]
    _assert_truthful(h)


def test_icd_f_chapter_gets_category_and_block_without_a_one_group_chapter():
    codes = ["F32.1", "F32.0", "F33.2", "F33.1", "F41.1", "F41.0", "F20.0", "F25.1"]
    h, _ = _draft(codes, [10] * len(codes))
    assert h.ancestors("F32.1") == ["F32.1", "F32*", "F3*", "*"]   # no "F*": it is all rows
    assert h.ancestors("F20.0") == ["F20.0", "F20*", "F2*", "*"]
    _assert_truthful(h)


def test_a_level_that_groups_few_rows_is_left_out():
    # only the rare B codes share a category: 4 of 100 rows, below 10%
    common = [f"{letter}1" for letter in "ACDEGHKLMN"]
    h, _ = _draft(common + ["B11.1", "B11.2"], [9] * 10 + [2, 2])
    assert h.height == 1 and h.ancestors("B11.1") == ["B11.1", "*"]
    # the same codes, the B category common: it is kept
    h, _ = _draft(common + ["B11.1", "B11.2"], [9] * 10 + [40, 40])
    assert h.ancestors("B11.1") == ["B11.1", "B11*", "*"]
    assert h.ancestors("A1") == ["A1", "A1*", "*"]


def test_dutch_postcodes_get_their_leading_digits():
    codes = ["1011 AB", "1011 AC", "1012 XY", "1071 AA", "3511 KL", "3512 ZZ"]
    h, _ = _draft(codes, [10] * len(codes))
    assert h.ancestors("1011 AB") == ["1011 AB", "1011*", "101*", "10*", "1*", "*"] \
        or h.ancestors("1011 AB")[1] == "1011*"
    _assert_truthful(h)


def test_cli_suggest_prints_the_prefix_levels(tmp_path, capsys):
    table = pd.DataFrame({"district": ["LS6", "LS7", "BD10", "BD3"] * 10,
                          "icd": ["F32.1", "F33.0", "F41.1", "F20.0"] * 10})
    table.to_csv(tmp_path / "r.csv", index=False)
    assert main(["hierarchy", "suggest", str(tmp_path / "r.csv"), "--qi", "district,icd",
                 "-o", str(tmp_path / "h")]) == 0
    printed = capsys.readouterr().out
    assert "LS6 -> LS* -> *" in printed or "BD10 -> BD* -> *" in printed
    rows = (tmp_path / "h" / "district.csv").read_text().splitlines()
    assert "LS6;LS*;*" in rows
