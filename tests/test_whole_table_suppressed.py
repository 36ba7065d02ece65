"""A suppressed record costs as much as a fully generalized one (issue 11, item 7)."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg

H = kg.Hierarchy.from_rows([["a", "AB", "*"], ["b", "AB", "*"],
                            ["c", "CD", "*"], ["d", "CD", "*"]], name="q")


def _run(q, k, **kw):
    table = pd.DataFrame({"q": list(q), "s": list("xy" * len(q))[:len(q)]})
    schema = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": H})
    return kg.anonymize(table, schema, k=k, **kw)


@pytest.mark.parametrize("algorithm", ["datafly", "incognito", "rv-global", "rv-local",
                                       "rv-hybrid", "rv-distributed"])
def test_full_budget_does_not_suppress_the_whole_table(algorithm):
    # level 0 suppresses all 6 records (Loss 1); level 1 suppresses 2 (Loss 5/9)
    res = _run("abcdab", 3, algorithm=algorithm, suppression=1.0)
    assert res.suppressed < 6
    assert res.metrics["loss"] < 1.0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_datafly_default_budget_never_suppresses_the_whole_table(n):
    # n <= k: Sweeney's k-record budget used to suppress every record at level 0; Datafly
    # generalizes instead. "ab" meets k=2 at AB; "abc" and "abcd" only at the top, whose
    # cells are all '*': every record there is suppressed by definition, and counted
    res = _run("abcd"[:n], n, algorithm="datafly")
    assert res.levels == {"q": 1 if n == 2 else 2}
    if n == 2:
        assert res.suppressed == 0 and res.verification.k_achieved == n
    else:
        assert res.suppressed == n and res.classes == []
        assert res.verification.released == 0 and res.verification.holds


def test_datafly_picks_the_lower_loss_along_its_path():
    res = _run("abcdab", 3, algorithm="datafly", suppression=1.0)
    assert res.levels == {"q": 1} and res.suppressed == 2


NODE_METRICS = ["loss", "height", "dm_star", "discernibility", "precision"]


@pytest.mark.parametrize("metric", NODE_METRICS)
def test_optimal_does_not_suppress_the_whole_table(metric):
    # level 0 suppresses all 6 records; level 1 suppresses 2, level 2 none
    res = _run("abcdab", 3, algorithm="optimal", metric=metric, suppression=1.0)
    assert res.suppressed < 6 and res.levels["q"] >= 1


@pytest.mark.parametrize("metric", NODE_METRICS)
def test_optimal_ties_go_to_fewer_suppressed_records(metric):
    # n == k: suppress all 4 at level 0, or generalize all 4 to the top; both cost the
    # greatest loss and the search takes the top, whose cells are all '*' as the
    # suppressed ones are: the same release, every record suppressed and counted
    res = _run("abcd", 4, algorithm="optimal", metric=metric, suppression=1.0)
    assert res.levels == {"q": 2}
    assert res.suppressed == 4 and res.classes == [] and res.metrics["loss"] == 1.0


@pytest.mark.parametrize("metric", NODE_METRICS)
def test_a_suppressed_record_costs_at_least_the_top_node(metric):
    from kanon_graph.lattice import FrequencyEngine, node_metric
    from kanon_graph.privacy import PrivacyModel

    table = pd.DataFrame({"q": list("abcdab"), "s": list("xyxyxy")})
    schema = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": H})
    data = kg.encode(table, schema)
    engine, scorer = FrequencyEngine(data), node_metric(metric, data, data.n)
    model = PrivacyModel(7)                       # every class fails: all suppressed
    bottom, top = (0,), (2,)
    low, high = engine.frequency_set(bottom), engine.frequency_set(top)
    all_suppressed = scorer.value(bottom, low, engine.failing_groups(bottom, model))
    all_released = scorer.value(top, high, np.zeros(len(high.counts), dtype=bool))
    nothing_generalized = scorer.value(bottom, low, np.zeros(len(low.counts), dtype=bool))
    assert all_suppressed >= all_released > nothing_generalized


def test_rv_local_falls_back_to_the_top_when_its_pointers_only_find_full_suppression():
    # k = n: every string below the top passes only by suppressing all 4 records, and
    # the Hi/Lo/Mid pointers run to level 0; the top string releases every record
    res = _run("abcd", 4, algorithm="rv-local", suppression=1.0)
    assert res.levels == {"q": 2}        # all '*': every record suppressed, and counted
    assert res.suppressed == 4 and res.classes == []
    assert res.stats["strings_generated"] == 3
