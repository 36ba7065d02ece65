"""Roll-up keys a run of attributes per table look-up (lattice/_chunk_keys.py, issue 47 item 4)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kanon_graph as kg
from kanon_graph.lattice import FrequencyEngine
from kanon_graph.lattice._check_loop import level_maps
from kanon_graph.lattice._chunk_keys import ChunkTables, chunk_plan, chunked_keys
from kanon_graph.lattice._rollup_kernels import _hash_keys, _packed_keys


def _hierarchy(name, leaves, branching):
    """Leaves ``v0..`` grouped ``branching[l]`` at a time per level, then '*'."""
    rows = []
    for i in range(leaves):
        row, at = [f"v{i}"], i
        for level, b in enumerate(branching):
            at //= b
            row.append(f"{name}{level}_{at}")
        rows.append(row + ["*"])
    return kg.Hierarchy.from_rows(rows, name=name)


@st.composite
def lattices(draw):
    """A random table over random hierarchies, a source node and a target node above it."""
    d = draw(st.integers(1, 6))
    leaves = [draw(st.integers(1, 24)) for _ in range(d)]
    branching = [draw(st.lists(st.integers(2, 4), max_size=3)) for _ in range(d)]
    n = draw(st.integers(1, 400))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    names = [f"a{j}" for j in range(d)]
    hierarchies = {name: _hierarchy(name, m, b) for name, m, b in zip(names, leaves, branching)}
    table = pd.DataFrame({name: [f"v{i}" for i in rng.integers(0, m, size=n)]
                          for name, m in zip(names, leaves)})
    schema = kg.Schema(quasi_identifiers=names, hierarchies=hierarchies, categorical=names)
    data = kg.encode(table, schema)
    target = tuple(draw(st.integers(0, h)) for h in data.heights)
    source = tuple(draw(st.sampled_from([0, t])) for t in target)
    bits = draw(st.integers(-1, 12))
    return data, source, target, bits


def _keys_both_ways(engine, source, target, bits):
    """The target keys of ``source``'s packed groups: by the runs' tables and per attribute."""
    offsets3, width2, flat = level_maps(engine)
    heights = engine.heights
    n_codes0 = [len(engine._map(j, 0, 1)) if h else 0 for j, h in enumerate(heights)]
    chunks = ChunkTables(width2[:, 0], heights, n_codes0, bits=bits)
    keys, counts, _ = engine.frequency_set(source).packed
    _, src_shifts, src_masks, _ = engine._layout(source)
    _, shifts, _, _ = engine._layout(target)
    offsets = np.asarray([-1 if a == b else offsets3[j, a, b]
                          for j, (a, b) in enumerate(zip(source, target))], dtype=np.int64)
    old = _packed_keys(keys, src_shifts, src_masks, flat, offsets, shifts)
    new = chunked_keys(keys, np.asarray(source, dtype=np.int64),
                       np.asarray(target, dtype=np.int64), src_shifts, src_masks, flat,
                       offsets, shifts, width2, offsets3, chunks.first, chunks.run_bits,
                       chunks.radix, chunks.n_codes0, chunks.tables, chunks.built,
                       chunks.table_at, chunks.built_at)
    return old, new, counts, chunks


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lattices())
def test_chunked_roll_up_gives_the_keys_and_group_counts_of_the_per_attribute_one(case):
    data, source, target, bits = case
    engine = FrequencyEngine(data)
    engine.frequency_set((0,) * len(source), rollup=False)
    old, new, counts, _ = _keys_both_ways(engine, source, target, bits)
    assert np.array_equal(old, new)
    keys, sums, read = _hash_keys(new, counts, max(int(2 * len(new)).bit_length(), 4), -1)
    assert read == len(new)
    truth = FrequencyEngine(data, compiled=False).frequency_set(target, rollup=False)
    assert sorted(sums.tolist()) == sorted(truth.counts.tolist())
    assert len(keys) == truth.n_groups


def test_a_tabled_run_is_built_once_and_used_from_the_bottom():
    rng = np.random.default_rng(3)
    names = ["a", "b", "c"]
    hierarchies = {name: _hierarchy(name, 16, [2, 2]) for name in names}
    table = pd.DataFrame({name: [f"v{i}" for i in rng.integers(0, 16, size=3000)]
                          for name in names})
    data = kg.encode(table, kg.Schema(quasi_identifiers=names, hierarchies=hierarchies,
                                      categorical=names))
    engine = FrequencyEngine(data)
    bottom = (0, 0, 0)
    engine.frequency_set(bottom, rollup=False)
    old, new, _, chunks = _keys_both_ways(engine, bottom, (1, 0, 2), 8)
    assert np.array_equal(old, new)
    # widths 4, 4, 4: runs (a, b) of 8 bits and (c) of 4; one table each built
    assert chunks.first.tolist() == [0, 2, 3] and chunks.run_bits.tolist() == [8, 4]
    assert chunks.built.sum() == 2
    assert chunks.built_at.tolist() == [0, 16]             # run (a, b): 4 x 4 combinations
    assert chunks.built[0 + 1 * 4 + 0] and chunks.built[16 + 2]
    # a source above the bottom in a run goes attribute by attribute: no new table
    engine.frequency_set((1, 1, 0))
    old, new, _, chunks = _keys_both_ways(engine, (1, 1, 0), (2, 1, 2), 8)
    assert np.array_equal(old, new)
    assert chunks.built[:16].sum() == 0 and chunks.built[16:].sum() == 1


def test_tables_hold_each_run_s_own_combinations_only():
    # a wide run with one combination beside a narrow one with many: no product of the two
    chunks = ChunkTables([12, 2, 0, 0, 0], [0, 2, 7, 7, 7], [4096, 4, 1, 1, 1], bits=12)
    assert chunks.run_bits.tolist() == [12, 2]
    assert len(chunks.tables) == 1 * 2**12 + 3 * 8 * 8 * 8 * 2**2
    assert len(chunks.built) == 1 + 3 * 8 * 8 * 8


@pytest.mark.parametrize("bits", [0, 3, 12])
def test_chunk_plan_covers_every_attribute_once_within_its_bits(bits):
    widths = [1, 7, 3, 3, 4, 6, 3, 4, 1, 7, 3, 3]
    heights = [1, 5, 1, 3, 4, 3, 3, 2, 1, 5, 1, 3]
    first, run_bits, combos = chunk_plan(widths, heights, bits)
    assert first[0] == 0 and first[-1] == len(widths) and (np.diff(first) > 0).all()
    for c in range(len(run_bits)):
        lo, hi = first[c], first[c + 1]
        width = sum(widths[lo:hi])
        assert run_bits[c] == (width if width <= bits else -1)
        assert combos[c] == np.prod([h + 1 for h in heights[lo:hi]])
        if run_bits[c] < 0:                      # untabled: a single attribute too wide
            assert hi - lo == 1
