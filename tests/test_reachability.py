"""A privacy model no release can satisfy is refused before any algorithm runs."""

import pytest

import kanon_graph as kg


@pytest.fixture
def table_schema():
    return kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()


@pytest.mark.parametrize("algorithm", ["datafly", "mst", "optimal"])
def test_distinct_l_above_the_table_diversity(table_schema, algorithm):
    table, schema = table_schema  # 5 distinct diseases
    with pytest.raises(ValueError, match=r"distinct l=6 cannot be reached on sensitive "
                                         r"attribute 'disease'.*achieves only 5"):
        kg.anonymize(table, schema, k=2, l=6, algorithm=algorithm)


def test_entropy_l_above_the_table_entropy(table_schema):
    table, schema = table_schema
    with pytest.raises(ValueError, match="entropy l=4.9 cannot be reached"):
        kg.anonymize(table, schema, k=2, l=4.9, diversity="entropy")


def test_reachable_model_still_runs(table_schema):
    table, schema = table_schema
    res = kg.anonymize(table, schema, k=2, l=5)   # exactly the table's diversity
    assert res.verification.holds and res.verification.l_achieved >= 5


def test_datafly_names_the_binding_boundary():
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    location = kg.datasets.paper_002_location()
    table = pd.DataFrame({"location": rng.choice(location.leaf_labels, 60)})
    schema = kg.Schema(quasi_identifiers=["location"], hierarchies={"location": location})
    with pytest.raises(ValueError, match=r"at its generalization boundary \(location stops "
                                         r"at level 1 of 2\)"):
        kg.anonymize(table, schema, k=25, respect_boundaries=True, algorithm="datafly")
