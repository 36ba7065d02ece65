"""``stepwise`` under every privacy model: leftovers, cuts, graph moves, budget, boundaries."""

import copy

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.privacy import ClassCheck, PrivacyModel
from kanon_graph.records.graph import RecordGraph
from kanon_graph.stepwise import _leftovers, _polish
from kanon_graph.stepwise._split import split_classes

MODELS = [dict(k=5), dict(k=5, l=2), dict(k=4, l=3), dict(k=5, l=2, diversity="entropy"),
          dict(k=5, l=2, diversity="recursive", c=3), dict(k=5, t=0.15), dict(k=5, t=0.3)]


def _census(n, seed=0):
    table = kg.datasets.make_census(n, seed=seed)
    table["occupation-group"] = table["occupation"]
    schema = kg.datasets.census_schema()
    qis = ["sex", "age", "race", "marital-status", "education", "native-country"]
    return table, kg.Schema(quasi_identifiers=qis, sensitive=["occupation-group"],
                            hierarchies={q: schema.hierarchies[q] for q in qis})


def _income(n, seed=0):
    """A numeric sensitive column: t takes the ordered distance."""
    table, schema = _census(n, seed)
    table["income"] = np.random.default_rng(seed).lognormal(8, 1, n).round(-2)
    return table, kg.Schema(quasi_identifiers=schema.quasi_identifiers, sensitive=["income"],
                            hierarchies=schema.hierarchies)


@pytest.mark.parametrize("options", MODELS, ids=lambda o: "-".join(f"{k}{v}" for k, v in
                                                                  o.items()))
def test_every_model_is_released_and_verified_from_its_cells(options):
    table, schema = _census(1500)
    res = kg.anonymize(table, schema, algorithm="stepwise", **options)
    # stepwise suppresses nothing by choice: what is suppressed is a class it released all
    # '*' (and, with t, the classes that then failed t), counted from the cells
    assert res.verification.holds and res.suppressed == res.stats.get("suppressed_at_top", 0)
    v = kg.privacy.PrivacyModel(**options, sensitive="occupation-group")
    again = v.bind(res.release.data).verify(res.release.class_of, res.release.data)
    assert again.holds


def test_t_closeness_with_the_ordered_distance():
    table, schema = _income(1500)
    res = kg.anonymize(table, schema, k=5, t=0.1, algorithm="stepwise")
    assert res.verification.holds and res.verification.t_achieved <= 0.1


def test_missing_sensitive_values_count_toward_k_only():
    table, schema = _census(1200, seed=4)
    table.loc[table.index % 9 == 0, "occupation-group"] = None
    for options in (dict(l=3), dict(t=0.2), dict(l=2, diversity="entropy")):
        res = kg.anonymize(table, schema, k=5, missing="keep", algorithm="stepwise", **options)
        assert res.verification.holds


def _setup(model_options, n=800, seed=1):
    table, schema = _census(n, seed)
    data = kg.encode(table, schema)
    model = PrivacyModel(**model_options).bind(data)
    return data, model, ClassCheck(model, data)


@pytest.mark.parametrize("options", MODELS[1:], ids=str)
def test_leftovers_join_only_classes_where_the_model_still_holds(options):
    data, model, check = _setup(options)
    # classes: the records sorted by age, cut in blocks of 40 that hold the model; the
    # records of one tuple left over together
    order = np.argsort(data.attributes[1].codes, kind="stable")
    class_of = np.full(data.n, -1, dtype=np.int64)
    class_of[order[:640]] = np.arange(640) // 40
    bad = check.failing_rows(class_of)
    class_of[(class_of >= 0) & bad[np.maximum(class_of, 0)]] = -1
    good = np.unique(class_of[class_of >= 0])
    assert len(good) and (class_of < 0).sum() >= 160
    assert not check.failing_rows(class_of)[good].any()
    out, stats = _leftovers.place_leftovers(data, class_of, check, 0, model)
    assert stats["suppressed"] == 0
    assert (out >= 0).all()
    assert not check.failing_rows(out)[np.unique(out)].any()
    # the classes that were there keep their records
    assert (out[class_of >= 0] == class_of[class_of >= 0]).all() or stats["merged"]


def test_leftovers_are_suppressed_within_the_budget_and_merged_beyond_it():
    data, model, check = _setup(dict(k=3, l=2, diversity="entropy"), n=400)
    values = check.values
    # one class per sensitive value but one: no record of a value can join any class
    # without breaking entropy l = 2 ... unless merged
    fine = np.flatnonzero(values != values[0])
    class_of = np.full(data.n, -1, dtype=np.int64)
    class_of[fine] = 0
    assert not check.failing_rows(class_of)[0]
    left = int((class_of < 0).sum())
    out, stats = _leftovers.place_leftovers(data, class_of, check, left, model)
    assert stats["placed"] + stats["suppressed"] == left
    assert not check.failing_rows(out)[np.unique(out[out >= 0])].any()
    out, stats = _leftovers.place_leftovers(data, class_of, check, 0, model)
    assert (out >= 0).all() and stats["suppressed"] == 0
    assert not check.failing_rows(out)[np.unique(out)].any()


def test_leftovers_with_k_alone_join_the_class_they_widen_least():
    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    start = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, -1])
    out, stats = _leftovers.place_leftovers(data, start)
    # record 10 (Male, 38, 535296) joins records 8-9 (Male, 36, 535292/535296)
    assert out[9] == 2 and stats == {"placed": 1, "suppressed": 0, "merged": 0}


@pytest.mark.parametrize("options", [dict(k=4), dict(k=4, l=3), dict(k=4, t=0.2),
                                     dict(k=4, l=2, diversity="entropy")], ids=str)
def test_cuts_and_graph_moves_keep_the_model(options):
    data, model, check = _setup(options, n=1000, seed=2)
    class_of = np.zeros(data.n, dtype=np.int64)         # one class: the whole table holds
    assert not check.failing_rows(class_of)[0]
    cut, cuts = split_classes(data, class_of, model.k, check if model.needs_sensitive else None)
    assert cuts > 0
    assert not check.failing_rows(cut)[np.unique(cut)].any()
    moved, stats = _polish.polish(data, cut, model.k,
                                  check if model.needs_sensitive else None)
    assert not check.failing_rows(moved)[np.unique(moved)].any()
    assert stats["loss_after_polish"] <= stats["loss_before_polish"] + 1e-12
    # every class is still a set of whole distinct tuples
    graph = RecordGraph(data)
    per_tuple = pd.Series(moved).groupby(graph.node_of).nunique()
    assert (per_tuple == 1).all()


def test_the_polish_check_reads_the_same_counts_as_the_class_sizes():
    data, model, check = _setup(dict(k=4, l=3), n=300, seed=5)
    graph = RecordGraph(data)
    failing = _polish._histogram_failing(check, graph.node_of)
    labels = np.arange(graph.n_nodes) % 7
    assert failing(labels).tolist() == check.failing_rows(labels[graph.node_of]).tolist()


def test_a_suppression_budget_is_never_exceeded():
    table, schema = _census(1500, seed=3)
    for options in (dict(l=3), dict(t=0.2), dict(l=2, diversity="recursive", c=2)):
        try:
            res = kg.anonymize(table, schema, k=5, suppression=0.01, algorithm="stepwise",
                               **options)
        except kg.PrivacyError as refused:
            # a class released all '*' counts as suppressed: beyond the budget, refused
            # (stepwise does not yet count its top class toward the budget; issue 46 item 5)
            assert "released with every quasi-identifier '*'" in str(refused), options
            continue
        assert res.verification.holds and res.suppressed <= 15


def test_boundaries_under_l_diversity_and_t_closeness():
    table, schema = _census(1500, seed=6)
    age = copy.deepcopy(schema.hierarchies["age"])
    for label in ("[20-29]", "[30-39]", "[40-49]"):
        age.mark_magval(label, 2)                   # ages never released above a decade
    schema = kg.Schema(quasi_identifiers=schema.quasi_identifiers, sensitive=schema.sensitive,
                       hierarchies={**schema.hierarchies, "age": age})
    for options in (dict(l=2), dict(t=0.3)):
        try:
            res = kg.anonymize(table, schema, k=5, algorithm="stepwise",
                               respect_boundaries=True, suppression=0.2, **options)
        except kg.PrivacyError as refused:      # its top class beyond the budget, as above
            assert "released with every quasi-identifier '*'" in str(refused), options
            continue
        assert res.verification.holds
        assert not kg.privacy.constraint_violations(res)
        assert res.stats["cells"] > 1
