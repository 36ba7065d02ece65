"""algorithm="auto", the default (issue 16 item 3): which one ran, and why."""

import pandas as pd

import kanon_graph as kg
from kanon_graph.api import AUTO_LATTICE_LIMIT, choose_algorithm
from kanon_graph.cli import main


def test_auto_searches_a_small_lattice_exactly():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    res = kg.anonymize(table, schema, k=3)
    assert res.algorithm == "optimal" and res.levels is not None
    assert "chose optimal" in res.stats["auto"] and "lattice has" in res.stats["auto"]
    assert "auto chose optimal" in res.summary()
    exact = kg.anonymize(table, schema, k=3, algorithm="optimal")
    assert res.levels == exact.levels and res.metrics == exact.metrics


def test_auto_goes_local_without_hierarchies_or_with_a_large_lattice():
    table = kg.datasets.paper_003_table()
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["age", "zip"]), k=3)
    assert res.algorithm == "mondrian" and "no hierarchy for ['age', 'zip']" in res.stats["auto"]
    census, schema = kg.datasets.make_census(300, seed=1), kg.datasets.census_schema()
    data = kg.encode(census, schema)
    nodes = 1
    for a in data.attributes:
        nodes *= a.height + 1
    assert nodes > AUTO_LATTICE_LIMIT
    name, why = choose_algorithm(data)
    assert name == "mondrian" and f"{nodes} nodes" in why
    assert "auto" not in kg.anonymize(census, schema, k=5, algorithm="mondrian").stats


def test_cli_default_is_auto_and_says_why(tmp_path, capsys):
    table = kg.datasets.paper_003_table()
    table.to_csv(tmp_path / "t.csv", index=False)
    assert main(["anonymize", str(tmp_path / "t.csv"), "--qi", "age,zip", "-k", "3",
                 "-o", str(tmp_path / "o.csv"), "--report", str(tmp_path / "r.json")]) == 0
    printed = capsys.readouterr().out
    assert "algorithm mondrian" in printed and "auto chose mondrian: no hierarchy" in printed
    report = pd.read_json(tmp_path / "r.json", typ="series")
    assert report["algorithm"] == "mondrian" and report["parameters"]["algorithm"] == "auto"
    assert "chose mondrian" in report["stats"]["auto"]
    assert main(["demo", "-n", "300"]) == 0
    assert "algorithm auto chose" in capsys.readouterr().out
