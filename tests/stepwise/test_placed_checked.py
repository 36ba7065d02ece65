"""stepwise's leftovers under entropy and recursive l placed in one compiled pass (issue 47).

The compiled pass keeps each class's histogram of known sensitive values and
tests the model on it; it must choose exactly what the Python loop over
:class:`~kanon_graph.privacy.ClassCheck` chose, unit by unit.
"""

import dataclasses

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph import _jit
from kanon_graph.privacy import ClassCheck, PrivacyModel
from kanon_graph.stepwise import _leftovers, _placed_checked


def _data(seed, n=400, missing=False, weighted=False):
    rng = np.random.default_rng(seed)
    table = kg.datasets.make_census(n, seed=seed)[["sex", "age", "race"]].copy()
    sens = rng.choice(list("abcde"), size=n, p=[0.5, 0.2, 0.15, 0.1, 0.05]).astype(object)
    if missing:
        sens[rng.random(n) < 0.1] = None
    table["s"] = sens
    full = kg.datasets.census_schema()
    schema = kg.Schema(quasi_identifiers=["sex", "age", "race"], sensitive=["s"],
                       hierarchies={q: full.hierarchies[q] for q in ("sex", "age", "race")})
    data = kg.encode(table, schema, missing="keep") if missing else kg.encode(table, schema)
    if weighted:
        data = dataclasses.replace(data, weights=rng.integers(1, 4, data.n))
    return data


def _start(data, rng, n_classes=12, left_share=0.3):
    """Random classes over the rows, a share of the rows left over (-1)."""
    class_of = rng.integers(0, n_classes, data.n)
    class_of[rng.random(data.n) < left_share] = -1
    return class_of


MODELS = [dict(l=2, diversity="entropy"), dict(l=2.5, diversity="entropy"),
          dict(l=2, c=3, diversity="recursive"), dict(l=3, c=2, diversity="recursive"),
          dict(l=2, c=1, diversity="recursive")]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("options", MODELS)
@pytest.mark.parametrize("missing,weighted", [(False, False), (True, False), (False, True)])
def test_compiled_checked_placement_is_the_python_loop(monkeypatch, seed, options, missing,
                                                       weighted):
    data = _data(seed, missing=missing, weighted=weighted)
    model = PrivacyModel(4, sensitive="s", **options).bind(data)
    check = ClassCheck(model, data)
    class_of = _start(data, np.random.default_rng(seed))
    monkeypatch.setattr(_jit, "PYTHON_WORK", 0)                    # the compiled kernels
    compiled, stats = _leftovers.place_leftovers(data, class_of, check, 0, model)
    monkeypatch.setattr(_leftovers, "histograms", lambda *args: None)  # the Python loop
    python, python_stats = _leftovers.place_leftovers(data, class_of, check, 0, model)
    assert compiled.tolist() == python.tolist()
    assert stats == python_stats and stats["placed"] > 0


@pytest.mark.parametrize("seed", range(20))
def test_holds_on_a_histogram_is_the_class_check(seed):
    """``_holds`` on a class's histogram plus a unit's answers as ClassCheck on their rows."""
    rng = np.random.default_rng(seed)
    data = _data(seed, n=60, missing=bool(seed % 2))
    for options in MODELS:
        model = PrivacyModel(3, sensitive="s", **options).bind(data)
        check = ClassCheck(model, data)
        rows = rng.choice(data.n, size=int(rng.integers(1, 25)), replace=False)
        unit = rng.choice(np.setdiff1d(np.arange(data.n), rows), size=3, replace=False)
        hist, dense = _placed_checked.histograms(check, np.zeros(len(rows), dtype=np.int64),
                                                 rows, 1)
        held = dense[unit] >= 0
        kind = (_placed_checked.ENTROPY if options["diversity"] == "entropy"
                else _placed_checked.RECURSIVE)
        got = _placed_checked._holds_py(
            hist[0], dense[unit][held], np.ones(int(held.sum()), dtype=np.int64),
            len(rows) + len(unit), check.k, kind, float(model.l),
            float(options.get("c", 0.0)), np.zeros(hist.shape[1], dtype=np.int64))
        assert got == check.holds_on(np.concatenate([rows, unit])), options


def test_screening_like_release_under_recursive_l_verifies():
    """End to end: a skewed sensitive column under recursive (3, 2) leaves records to
    place, and the release holds."""
    rng = np.random.default_rng(3)
    table = kg.datasets.make_census(3000, seed=3)
    table["result"] = rng.choice(["neg", "pos", "inc", "rep"], size=len(table),
                                 p=[0.7, 0.15, 0.1, 0.05])
    schema = kg.datasets.census_schema()
    schema = kg.Schema(quasi_identifiers=schema.quasi_identifiers, sensitive=["result"],
                       hierarchies=schema.hierarchies)
    res = kg.anonymize(table, schema, algorithm="stepwise", k=5, l=2, c=3.0,
                       diversity="recursive")
    assert res.verification.holds and res.stats["placed"] > 0
