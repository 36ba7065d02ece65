"""The named steps of kanon_graph.pipeline.run, each on its own (issue 33 item 3)."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.pipeline import run as p
from kanon_graph._progress import reporter
from kanon_graph.exceptions import PrivacyError, SchemaError


@pytest.fixture
def paper():
    return kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()


def _encoded(paper, **asked):
    table, schema = paper
    return p.encode_input(table, schema, p.check_input(p.Options(**{"k": 3, **asked})))


def test_check_input_names_the_bad_option_before_any_data_is_read():
    with pytest.raises(ValueError, match="'suppression' parameter of anonymize"):
        p.check_input(p.Options(3, algorithm="mst", suppression=2.0))
    with pytest.raises(ValueError, match=r"Unknown option\(s\) \['nope'\] for algorithm 'mst'"):
        p.check_input(p.Options(3, algorithm="mst", extra={"nope": 1}))
    # auto's options are filtered per candidate later, not refused here
    assert p.check_input(p.Options(3, extra={"nope": 1})).extra == {"nope": 1}


def test_encode_input_binds_the_model_and_fixes_the_seed(paper):
    data, model, options = _encoded(paper, seed=None)
    assert data.n == len(paper[0]) and model.k == 3
    assert isinstance(options.seed, int)                # drawn once, then recorded


def test_plan_run_puts_a_weighted_algorithm_on_the_distinct_tuples(paper):
    table, schema = paper
    doubled = pd.concat([table, table], ignore_index=True)
    options = p.check_input(p.Options(3, algorithm="optimal"))
    data, model, options = p.encode_input(doubled, schema, options)
    plan = p.plan_run(data, model, options)
    assert plan.work.n < data.n == 2 * len(table) and plan.work.records == data.records
    local = p.plan_run(data, model, replace(options, algorithm="mondrian"))
    assert local.work is data


def test_plan_run_refuses_what_the_algorithm_cannot_do(paper):
    table, schema = paper
    data, model, options = _encoded((table[["gender", "age", "zip"]], kg.Schema(
        quasi_identifiers=["gender", "age", "zip"])), algorithm="optimal")
    with pytest.raises(SchemaError, match="needs a hierarchy for every quasi-identifier"):
        p.plan_run(data, model, options)
    data, model, options = _encoded(paper, algorithm="systematic", respect_boundaries=True)
    with pytest.raises(ValueError, match="cannot respect generalization boundaries"):
        p.plan_run(data, model, options)


def test_run_algorithm_step_refuses_anything_but_a_partition(paper, monkeypatch):
    data, model, options = _encoded(paper, algorithm="mondrian")
    plan = p.plan_run(data, model, options)
    monkeypatch.setattr(p, "run_algorithm", lambda *a, **kw: [0] * data.n)
    with pytest.raises(PrivacyError, match="returned list, not a kg.Partition"):
        p.run_algorithm_step(plan, model, reporter(None, "anonymize"))


def test_release_then_verify_refuses_a_class_below_k(paper):
    data, model, options = _encoded(paper, algorithm="mondrian")
    plan = p.plan_run(data, model, options)
    small = kg.Partition(np.arange(data.n))             # every record alone: k = 1 < 3
    release, verification = p.release_partition(plan, small, model)
    assert not verification.holds
    with pytest.raises(PrivacyError, match="fails its privacy check"):
        p.verify_cells(release, verification, model, options, data.records)


def test_verify_cells_refuses_more_suppression_than_allowed(paper):
    data, model, options = _encoded(paper, algorithm="mondrian", suppression=0.1)
    plan = p.plan_run(data, model, options)
    gone = kg.Partition(np.full(data.n, -1))           # every record suppressed
    release, verification = p.release_partition(plan, gone, model)
    with pytest.raises(PrivacyError, match="suppressed 10 records, more than the allowed"):
        p.verify_cells(release, verification, model, options, data.records)


def test_the_steps_end_to_end_are_anonymize(paper):
    table, schema = paper
    ours = p.run_pipeline(table, schema, p.Options(3, algorithm="mst"),
                          progress=reporter(None, "anonymize"))
    facade = kg.anonymize(table, schema, k=3, algorithm="mst")
    assert ours.table.equals(facade.table) and ours.metrics == facade.metrics
    with pytest.raises(ValueError, match="algorithm='auto' is chosen by kanon_graph.anonymize"):
        p.run_pipeline(table, schema, p.Options(3), progress=reporter(None, "anonymize"))
