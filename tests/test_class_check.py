"""privacy.ClassCheck: the model on per-class sensitive histograms."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.privacy import ClassCheck, PrivacyModel
from kanon_graph.privacy import _measures as m
from kanon_graph.privacy.histograms import _sparse_emd


@pytest.mark.parametrize("ordered", [False, True])
def test_the_sparse_emd_is_the_dense_one(ordered):
    rng = np.random.default_rng(0)
    for _ in range(200):
        n_values, n_classes = int(rng.integers(1, 30)), int(rng.integers(1, 20))
        q = rng.random(n_values)
        q /= q.sum()
        rows = int(rng.integers(1, 200))
        cls, val, counts = m._pair_counts(rng.integers(0, n_classes, rows),
                                          rng.integers(0, n_values, rows), n_classes,
                                          rng.integers(1, 5, rows))
        held = np.bincount(cls, minlength=n_classes) > 0
        dense = m.emd_of_histograms(cls, val, counts, q, ordered=ordered, n_classes=n_classes)
        sparse = _sparse_emd(cls, val, counts, q, ordered, n_classes)
        assert np.allclose(dense[held], sparse[held], atol=1e-12)


@pytest.mark.parametrize("options", [dict(l=2), dict(l=1.8, diversity="entropy"),
                                     dict(l=2, diversity="recursive", c=2), dict(t=0.25)])
@pytest.mark.parametrize("numeric", [False, True])
def test_the_check_agrees_with_the_models_own_verification(options, numeric):
    rng = np.random.default_rng(3)
    table = pd.DataFrame({"a": rng.integers(0, 5, 300),
                          "s": rng.integers(0, 9, 300) if numeric
                          else rng.choice(list("pqrstu"), 300, p=[.4, .2, .1, .1, .1, .1])})
    table.loc[::13, "s"] = None
    schema = kg.Schema(quasi_identifiers=["a"], sensitive=["s"],
                       numeric=["s"] if numeric else None)
    data = kg.encode(table, schema, missing="keep")
    model = PrivacyModel(3, **options).bind(data)
    check = ClassCheck(model, data)
    for _ in range(20):
        class_of = rng.integers(0, 12, 300)
        assert check.failing_rows(class_of).tolist() == model.failing(class_of, data).tolist()
