"""``stepwise``'s node check under l counted from packed keys (issue 47, kanon_graph.stepwise._diverse).

Every node of small random tables: the records a node releases under the
model and under its relaxation, against a brute force over the rows; and,
under distinct l, the check never unpacks the node's frequency set.
"""

import itertools

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.lattice.frequency import FrequencyEngine
from kanon_graph.privacy import ClassCheck, PrivacyModel
from kanon_graph.stepwise._steps import _NodeCounter


def _data(seed, n=80, missing=False):
    """A census sample (three hierarchies) with a random, skewed sensitive column."""
    rng = np.random.default_rng(seed)
    table = kg.datasets.make_census(n, seed=seed)[["sex", "age", "race"]].copy()
    sens = rng.choice(["a", "b", "c", "d"], size=n, p=[0.55, 0.25, 0.15, 0.05]).astype(object)
    if missing:
        sens[rng.random(n) < 0.15] = None
    table["s"] = sens
    full = kg.datasets.census_schema()
    schema = kg.Schema(quasi_identifiers=["sex", "age", "race"], sensitive=["s"],
                       hierarchies={q: full.hierarchies[q] for q in ("sex", "age", "race")})
    return kg.encode(table, schema, missing="keep") if missing else kg.encode(table, schema)


def _brute(data, check, levels):
    """Records released at ``levels``: the classes of the node's rows where ``check`` holds."""
    groups, _ = FrequencyEngine(data).class_of(levels)
    bad = check.failing_rows(groups)
    weights = np.ones(data.n) if data.weights is None else data.weights
    return int(weights[~bad[groups]].sum())


MODELS = [dict(l=2), dict(l=3), dict(l=2, diversity="entropy"), dict(l=1.5, diversity="entropy"),
          dict(l=2, c=3, diversity="recursive"), dict(t=0.3)]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("options", MODELS)
@pytest.mark.parametrize("missing", [False, True])
def test_every_node_releases_what_the_rows_say(seed, options, missing):
    data = _data(seed, missing=missing)
    model = PrivacyModel(3, sensitive="s", **options).bind(data)
    check = ClassCheck(model, data)
    relaxed = model.relaxation()
    relaxed_check = ClassCheck(relaxed.bind(data), data)
    counter = _NodeCounter(data, model, check, np.arange(data.n))
    for levels in itertools.product(*[range(h + 1) for h in data.heights]):
        released, possible = counter.released(levels)
        assert released == _brute(data, check, levels), levels
        assert possible == _brute(data, relaxed_check, levels), levels
        # asked with a need above what the relaxation releases: the model releases less
        short, same = counter.released(levels, need=possible + 1)
        assert short == same == possible and released <= possible


@pytest.mark.parametrize("seed", [0, 1])
def test_distinct_l_reads_the_packed_keys_without_unpacking(seed):
    data = _data(seed, n=300)
    model = PrivacyModel(2, sensitive="s", l=2).bind(data)
    counter = _NodeCounter(data, model, ClassCheck(model, data), np.arange(data.n))
    for levels in itertools.product(*[range(h + 1) for h in data.heights]):
        counter.released(levels)
        fs = counter.engine.cached(tuple(levels) + (0,))
        if fs is not None and fs.packed is not None:
            assert not fs._sorted, levels       # never unpacked into codes by the check


def test_k_alone_reads_the_counts_without_unpacking():
    """The rescue groups its stranded records with k alone: those checks read the counts
    of the packed set (any order) and release what the rows say."""
    data = _data(3, n=300)
    model = PrivacyModel(4)
    counter = _NodeCounter(data, model, ClassCheck(model, data), np.arange(data.n))
    check = ClassCheck(model, data)
    for levels in itertools.product(*[range(h + 1) for h in data.heights]):
        released, possible = counter.released(levels)
        assert released == possible == _brute(data, check, levels), levels
        fs = counter.engine.cached(tuple(levels))
        if fs is not None and fs.packed is not None and levels != (0,) * len(levels):
            assert not fs._sorted, levels


@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_class_sums_are_the_python_ones_and_a_sort(monkeypatch, seed):
    """The hash pass (compiled, and as Python) sums the classes a sort of the keys finds."""
    from kanon_graph import _jit
    from kanon_graph.stepwise import _diverse

    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, 1 << 20, 5000)).astype(np.int64)
    rng.shuffle(keys)
    counts = rng.integers(1, 4, len(keys)).astype(np.int64)
    bits, k, l, missing = 2, 3, 2, 1
    cls = keys >> bits
    expected = 0
    for c in np.unique(cls):
        inside = cls == c
        if counts[inside].sum() >= k and ((keys[inside] & 3) != missing).sum() >= l:
            expected += int(counts[inside].sum())
    args = (keys, counts, bits, missing, k, l, max(int(2 * len(keys) - 1).bit_length(), 4))
    with np.errstate(over="ignore"):                      # the hash wraps, as compiled
        assert _diverse._released.py_func(*args) == expected
    monkeypatch.setattr(_jit, "PYTHON_WORK", 0)
    assert _diverse._released(*args) == expected
