"""The Schema: roles, kinds, hierarchies, and loading from YAML / JSON files."""

import json

import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph import Schema, SchemaError


def test_roles_and_released_columns(table):
    s = kg.datasets.paper_003_schema()
    assert s.role("gender") == "quasi-identifier"
    assert s.role("disease") == "sensitive"
    assert s.role("id") == "identifier"
    assert s.role("other") == "insensitive"
    assert s.released_columns(table) == ["gender", "age", "zip", "disease"]


def test_explicit_insensitive_limits_released_columns(table):
    s = Schema(quasi_identifiers=["age"], insensitive=["gender"])
    assert s.released_columns(table) == ["gender", "age"]


def test_kind_inferred_from_dtype_unless_told(table):
    s = Schema(quasi_identifiers=["gender", "age", "zip"])
    assert s.kind("age", table) == "numeric"
    assert s.kind("gender", table) == "categorical"
    # text that is all plain numbers is numeric, as the encoder treats it (one rule)
    assert s.kind("zip", table) == "numeric"
    assert s.kind("zip", table.assign(zip="0" + table["zip"])) == "categorical"  # codes
    dates = pd.DataFrame({"dob": pd.to_datetime(["1944-12-14", "2008-01-10"])})
    assert Schema(quasi_identifiers=["dob"]).kind("dob", dates) == "date"
    assert Schema(quasi_identifiers=["dob"], dates=["dob"]).kind(
        "dob", dates.astype(str)) == "date"
    bools = pd.DataFrame({"flag": [True, False]})
    assert Schema(quasi_identifiers=["flag"]).kind("flag", bools) == "categorical"
    told = Schema(quasi_identifiers=["age", "zip"], categorical=["age"], numeric=["zip"])
    assert told.kind("age", table) == "categorical"
    assert told.kind("zip", table) == "numeric"


def test_names_normalized_to_tuples():
    s = Schema(quasi_identifiers="age", sensitive=["disease"])
    assert s.quasi_identifiers == ("age",)
    assert s.sensitive == ("disease",)


def test_hierarchy_lookup_and_naming():
    h = kg.Hierarchy.from_rows([["a", "*"], ["b", "*"]])
    s = Schema(quasi_identifiers=["x"], hierarchies={"x": h})
    assert s.hierarchy("x") is h and h.name == "x"
    assert s.hierarchy("y") is None


def test_schema_errors():
    with pytest.raises(SchemaError, match="at least one column"):
        Schema(quasi_identifiers=[])
    with pytest.raises(SchemaError, match=r"'quasi_identifiers' parameter of Schema lists \['age'\] twice"):
        Schema(quasi_identifiers=["age", "age"])
    with pytest.raises(SchemaError, match="Column 'age' is listed both as quasi_identifiers and as sensitive"):
        Schema(quasi_identifiers=["age"], sensitive=["age"])
    with pytest.raises(SchemaError, match="'id' is listed both as sensitive and as identifiers"):
        Schema(quasi_identifiers=["age"], sensitive=["id"], identifiers=["id"])
    with pytest.raises(SchemaError, match=r"\['age'\] are listed as both numeric and categorical"):
        Schema(quasi_identifiers=["age"], numeric=["age"], categorical=["age"])
    with pytest.raises(SchemaError, match="hierarchy for column 'age' must be a Hierarchy, got str"):
        Schema(quasi_identifiers=["age"], hierarchies={"age": "age.csv"})
    with pytest.raises(SchemaError, match="'sensitive' parameter of Schema must be a list"):
        Schema(quasi_identifiers=["age"], sensitive=3)


def test_check_table_names_missing_column(table):
    s = Schema(quasi_identifiers=["gender", "height"], sensitive=["disease"])
    with pytest.raises(SchemaError) as info:
        s.check_table(table, where="anonymize")
    message = str(info.value)
    assert "quasi identifier column 'height' is not in the table" in message
    assert "anonymize" in message and "'gender'" in message


def test_to_dict_from_dict_round_trip():
    s = Schema(quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["id"],
               categorical=["zip"])
    again = Schema.from_dict(s.to_dict())
    assert again == s


# ------------------------------------------------------------------------ files
SEX = "Male;*\nFemale;*\n"
ZIP = "535280;53528*;*\n535292;53529*;*\n"


def _hierarchy_files(folder):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sex.csv").write_text(SEX)
    (folder / "zip.csv").write_text(ZIP)


def test_from_yaml_with_relative_hierarchy_paths(tmp_path):
    _hierarchy_files(tmp_path / "h")
    path = tmp_path / "conf" / "schema.yaml"
    path.parent.mkdir()
    path.write_text(
        "quasi_identifiers: [sex, zip]\n"
        "sensitive: [disease]\n"
        "identifiers: [name]\n"
        "categorical: [zip]\n"
        "hierarchies:\n"
        "  sex: ../h/sex.csv\n"
        "  zip: ../h/zip.csv\n")
    s = Schema.from_file(path)
    assert s.quasi_identifiers == ("sex", "zip")
    assert s.identifiers == ("name",)
    assert s.hierarchy("zip").generalize("535292", 1) == "53529*"
    assert s.hierarchy("sex").name == "sex"


def test_from_json_with_hierarchy_folder(tmp_path):
    _hierarchy_files(tmp_path / "h")
    path = tmp_path / "schema.json"
    path.write_text(json.dumps({"quasi_identifiers": ["sex"], "hierarchies": "h"}))
    s = Schema.from_file(path)
    # the folder holds zip.csv too, but zip is not a quasi-identifier
    assert sorted(s.hierarchies) == ["sex"]
    assert s.hierarchy("sex").height == 1


def test_from_file_yml_extension_and_extra_hierarchies(tmp_path):
    path = tmp_path / "s.yml"
    path.write_text("quasi_identifiers: [sex]\n")
    given = kg.Hierarchy.from_rows([["Male", "*"], ["Female", "*"]])
    s = Schema.from_file(path, hierarchies={"sex": given})
    assert s.hierarchy("sex") is given


def test_from_file_unknown_key_named(tmp_path):
    path = tmp_path / "schema.yaml"
    path.write_text("quasi_identifiers: [age]\nsensitve: [disease]\n")
    with pytest.raises(SchemaError) as info:
        Schema.from_file(path)
    message = str(info.value)
    assert str(path) in message and "['sensitve']" in message and "'sensitive'" in message


def test_from_file_duplicate_roles(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps({"quasi_identifiers": ["age"], "sensitive": ["age"]}))
    with pytest.raises(SchemaError, match=f"{path}.*'age' is listed both"):
        Schema.from_file(path)


def test_from_file_syntax_errors_name_the_line(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text('{\n "quasi_identifiers": ["age"],\n}\n')
    with pytest.raises(SchemaError, match=f"{path}.*line 3"):
        Schema.from_file(path)
    path = tmp_path / "schema.yaml"
    path.write_text("quasi_identifiers: [age\nsensitive: x\n")
    with pytest.raises(SchemaError, match=f"{path}.*line"):
        Schema.from_file(path)


def test_from_file_missing_and_not_a_mapping(tmp_path):
    with pytest.raises(SchemaError, match="does not exist"):
        Schema.from_file(tmp_path / "nope.yaml")
    path = tmp_path / "list.yaml"
    path.write_text("- age\n- zip\n")
    with pytest.raises(SchemaError, match="must be a mapping, got list"):
        Schema.from_file(path)
    path = tmp_path / "bad.yaml"
    path.write_text("quasi_identifiers: [age]\nhierarchies: 3\n")
    with pytest.raises(SchemaError, match="'hierarchies' must be a folder or a mapping"):
        Schema.from_file(path)


def test_from_file_missing_hierarchy_file(tmp_path):
    path = tmp_path / "schema.yaml"
    path.write_text("quasi_identifiers: [sex]\nhierarchies:\n  sex: nope.csv\n")
    with pytest.raises(kg.HierarchyError, match="nope.csv.*does not exist"):
        Schema.from_file(path)
