"""The project's own Adult hierarchies (kanon_graph/datasets/hierarchies/adult/)."""

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph.datasets import ADULT_COLUMNS, adult_hierarchies, adult_hierarchies_path

# paper 003 Table 3 where it gives a height; the rest are this project's choice
HEIGHTS = {"sex": 1, "age": 5, "race": 1, "marital-status": 3, "education": 4,
           "native-country": 3, "workclass": 3, "occupation": 2, "salary-class": 1}


@pytest.fixture(scope="module")
def hier():
    return adult_hierarchies()


def test_one_file_per_adult_column_in_arx_format():
    folder = adult_hierarchies_path()
    files = sorted(p.name for p in folder.glob("*.csv"))
    assert files == sorted(f"adult_hierarchy_{c}.csv" for c in ADULT_COLUMNS)
    for name in files:
        rows = [line.split(";") for line in (folder / name).read_text().splitlines()]
        assert len({len(r) for r in rows}) == 1, name     # one width: leaf .. root
        assert {r[-1] for r in rows} == {"*"}, name       # root '*'
        leaves = [r[0] for r in rows]
        assert len(leaves) == len(set(leaves)), name      # one row per leaf


def test_heights_match_paper_003_table_3(hier):
    assert {c: h.height for c, h in hier.items()} == HEIGHTS


def test_every_level_groups_the_level_below(hier):
    # a proper tree: going up never splits a group, and the root is one node
    for column, h in hier.items():
        sizes = [len(c) for c in h.leaf_counts]
        assert sizes[-1] == 1, column
        assert all(a > b for a, b in zip(sizes, sizes[1:])), column
        for level in range(h.height):
            below, above = h.level_map[level], h.level_map[level + 1]
            parent = np.full(sizes[level], -1)
            parent[below] = above
            assert (parent[below] == above).all(), (column, level)


def test_age_bands_hold_the_ages_their_labels_say(hier):
    h = hier["age"]
    assert h.n_leaves == 100 and h.leaf_values.min() == 1 and h.leaf_values.max() == 100
    for level in range(1, h.height):
        for index, label in enumerate(h.labels(level)):
            lo, hi = h.numeric_span(level, index)
            assert label == f"[{lo:g}-{hi:g}]"
            assert h.leaf_counts[level][index] == hi - lo + 1
    assert h.generalize(37, 1) == "[35-39]" and h.generalize(37, 3) == "[20-39]"
    assert h.generalize(90, 4) == "[80-100]"


def test_named_groups(hier):
    assert hier["workclass"].generalize("Never-worked", 1) == "No pay"
    assert hier["workclass"].generalize("Self-emp-inc", 2) == "Private sector"
    assert hier["education"].generalize("Doctorate", 2) == "Graduate school"
    assert hier["education"].lca(["HS-grad", "9th"]) == "No tertiary education"
    assert hier["native-country"].generalize("Mexico", 2) == "Americas"
    assert hier["occupation"].lca(["Sales", "Adm-clerical"]).startswith("Technical")
    assert hier["marital-status"].lca(["Divorced", "Never-married"]) == "Not married"


def test_cover_every_value_of_adult(adult_table, hier):
    for column in ADULT_COLUMNS:
        codes = hier[column].encode(adult_table[column].to_numpy())
        assert len(codes) == len(adult_table)
        # every leaf except the ages and Never-worked outside the data occurs
        if column not in ("age", "workclass"):
            assert len(np.unique(codes)) == hier[column].n_leaves, column


def test_adult_anonymizes_with_project_hierarchies(adult_table):
    schema = kg.Schema(quasi_identifiers=ADULT_COLUMNS[:-1], sensitive=["salary-class"],
                       hierarchies=adult_hierarchies())
    rel = kg.apply_levels(adult_table, schema, [1, 5, 1, 3, 4, 3, 3, 2], k=5)
    # every cell '*': suppressed by definition (issue 46 item 5), the whole table
    assert len(rel.classes) == 0 and rel.suppressed == len(adult_table)
    assert rel.metrics["loss"] == pytest.approx(1.0)
    rel = kg.apply_levels(adult_table, schema, [0, 3, 0, 2, 2, 2, 2, 1], k=5)
    assert sum(len(c) for c in rel.classes) == len(adult_table)
    assert 0 < rel.metrics["loss"] < 1


def test_missing_hierarchy_folder_is_a_clear_error(monkeypatch, tmp_path):
    # as in a broken install: the package data is missing beside the module
    import kanon_graph.datasets.adult as adult

    monkeypatch.setattr(adult, "__file__", str(tmp_path / "site" / "kanon_graph" /
                                               "datasets" / "adult.py"))
    with pytest.raises(FileNotFoundError, match="missing from the installed package"):
        adult_hierarchies_path()


def test_hierarchies_are_package_data_inside_the_package():
    # a wheel holds only the package: files read at run time must sit inside it and be
    # named by pyproject's package-data globs (issue 16: they sat beside the package)
    import fnmatch
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

    package = Path(kg.__file__).resolve().parent
    folder = adult_hierarchies_path().resolve()
    assert package in folder.parents
    pyproject = tomllib.loads((package.parent / "pyproject.toml").read_text())
    globs = pyproject["tool"]["setuptools"]["package-data"]["kanon_graph"]
    for file in folder.parent.rglob("*"):
        if file.suffix in (".csv", ".md"):
            name = file.relative_to(package).as_posix()
            assert any(fnmatch.fnmatch(name, g) for g in globs), f"{name} is not package data"
