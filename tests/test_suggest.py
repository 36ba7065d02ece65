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
    assert birth_h.height == 4 and birth_h.ancestors(table["birth"][0])[2] \
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
    assert "masked from the right" in printed and "month, year, decade" in printed
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
    assert kg.hierarchy.round_widths(-2500, 110000) == [10000, 20000, 100000, 200000]
    assert kg.hierarchy.round_widths(-3, 4, integral=True) == [1, 2, 10]
    table = pd.DataFrame({"balance": [-2500.5, -10.25, 0.0, 47.5, 61000.75, 110000.0]})
    hierarchy, _ = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["balance"]))["balance"]
    release = kg.anonymize(table, kg.Schema(quasi_identifiers=["balance"],
                                            hierarchies={"balance": hierarchy}), k=2,
                           algorithm="optimal")
    assert release.verification.holds and release.levels["balance"] >= 1


def test_classification_codes_get_category_and_letter_levels():
    """Issue 30 item 6: ICD-10 codes were drafted as value -> * only."""
    codes = ["J45.9", "J45.0", "J45", "J44.1", "E11.65", "E11.9", "I10", "I11.0"]
    table = pd.DataFrame({"icd": codes * 5, "age": list(range(40))})
    schema = kg.Schema(quasi_identifiers=["icd"])
    made = kg.hierarchy.suggest(table, schema)
    h, note = made["icd"]
    assert "classification" in note
    assert h.ancestors("J45.9") == ["J45.9", "J45*", "J*", "*"]
    assert h.ancestors("J45") == ["J45", "J45*", "J*", "*"]
    assert h.ancestors("I10") == ["I10", "I10*", "I*", "*"]
    # the pairs suggest returns are taken by Schema as they are
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["icd"], hierarchies=made), k=5)
    assert res.verification.holds
    assert not (res.table["icd"] == "*").all()


def test_equal_width_codes_without_dots_are_still_masked():
    table = pd.DataFrame({"zip": ["02139", "02141", "10001", "10002"]})
    h, note = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["zip"]))["zip"]
    assert "masked" in note and h.ancestors("02139")[1] == "0213*"

