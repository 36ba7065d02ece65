"""A suppressed record costs as much as a fully generalized one (issue 11, item 7)."""

import pandas as pd
import pytest

import kanon_graph as kg

H = kg.Hierarchy.from_rows([["a", "AB", "*"], ["b", "AB", "*"],
                            ["c", "CD", "*"], ["d", "CD", "*"]], name="q")


def _run(q, k, **kw):
    table = pd.DataFrame({"q": list(q), "s": list("xy" * len(q))[:len(q)]})
    schema = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": H})
    return kg.anonymize(table, schema, k=k, **kw)


@pytest.mark.parametrize("algorithm", ["datafly", "incognito"])
def test_full_budget_does_not_suppress_the_whole_table(algorithm):
    # level 0 suppresses all 6 records (Loss 1); level 1 suppresses 2 (Loss 5/9)
    res = _run("abcdab", 3, algorithm=algorithm, suppression=1.0)
    assert res.suppressed < 6
    assert res.metrics["loss"] < 1.0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_datafly_default_budget_never_suppresses_the_whole_table(n):
    # n <= k: Sweeney's k-record budget used to suppress every record at level 0
    res = _run("abcd"[:n], n, algorithm="datafly")
    assert res.suppressed == 0
    assert res.verification.k_achieved == n


def test_datafly_picks_the_lower_loss_along_its_path():
    res = _run("abcdab", 3, algorithm="datafly", suppression=1.0)
    assert res.levels == {"q": 1} and res.suppressed == 2
