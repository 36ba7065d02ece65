"""Issue 30 item 6: every algorithm, not only auto, says when its release is mostly `*`."""

import warnings

import pytest

import kanon_graph as kg


@pytest.mark.parametrize("algorithm", ["optimal", "datafly", "stepwise", "mondrian"])
def test_a_release_of_almost_nothing_is_said_for_every_algorithm(algorithm):
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    with pytest.warns(UserWarning, match=f"algorithm '{algorithm}' generalizes") as seen:
        res = kg.anonymize(table, schema, k=len(table), algorithm=algorithm)
    assert len(res.stats["collapsed"]) * 2 > len(schema.quasi_identifiers)
    assert any(w.filename == __file__ for w in seen)          # points at the caller's line


def test_a_useful_release_is_not_warned_about():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = kg.anonymize(table, schema, k=2, algorithm="optimal")
    assert len(res.stats["collapsed"]) * 2 <= len(schema.quasi_identifiers)
