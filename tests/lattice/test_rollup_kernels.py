"""The compiled roll-up kernel gives the same frequency sets as the numpy path."""

import numpy as np
import pytest
from test_capped import marked_case
from test_frequency import _seeded

import kanon_graph as kg
from kanon_graph.lattice import FrequencyEngine, Lattice
from kanon_graph.lattice._rollup_kernels import key_widths, rollup
from kanon_graph.privacy import PrivacyModel


def _reference(codes, counts, maps, radices):
    """Distinct mapped tuples (lexicographic) and summed counts, by np.unique."""
    mapped = np.column_stack([codes[:, j] if mp is None else mp[codes[:, j]]
                              for j, mp in enumerate(maps)]).reshape(len(codes), -1)
    unique, inverse = np.unique(mapped, axis=0, return_inverse=True)
    return unique, np.bincount(inverse.reshape(-1), weights=counts,
                               minlength=len(unique)).astype(np.int64)


@pytest.mark.parametrize("seed", range(6))
def test_rollup_equals_np_unique_on_random_groups(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 7))
    m = int(rng.integers(1, 3000))
    sources = rng.integers(1, 40, size=d)
    codes = np.column_stack([rng.integers(0, s, size=m) for s in sources])
    codes = np.asfortranarray(codes) if seed % 2 else codes      # both layouts
    counts = rng.integers(1, 50, size=m)
    maps, radices = [], []
    for s in sources:
        if rng.random() < 0.4:
            maps.append(None)
            radices.append(int(s))
        else:
            r = int(rng.integers(1, s + 1))
            maps.append(rng.integers(0, r, size=s))
            radices.append(r)
    got_codes, got_counts = rollup(codes, counts, maps, radices)
    want_codes, want_counts = _reference(codes, counts, maps, radices)
    assert np.array_equal(got_codes, want_codes) and np.array_equal(got_counts, want_counts)
    assert got_codes.flags.f_contiguous or len(got_codes) <= 1


@pytest.mark.parametrize("m, radix", [(1000, 4), (50, 3000)])
def test_rollup_direct_counters_and_hash_table_agree(m, radix):
    # 2 x 2 bits for 1,000 groups: one counter per key; 2 x 12 bits for 50: the hash table
    rng = np.random.default_rng(m)
    codes = rng.integers(0, radix, size=(m, 2))
    counts = rng.integers(1, 5, size=m)
    maps = [None, rng.integers(0, radix, size=radix)]
    got = rollup(codes, counts, maps, [radix, radix])
    want = _reference(codes, counts, maps, [radix, radix])
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_rollup_with_wide_keys_sorts_by_argsort():
    # 60 key bits leave too few for the slot: the kernel's argsort branch
    rng = np.random.default_rng(7)
    radices = [2**20] * 3
    codes = rng.integers(0, 2**20, size=(500, 3))
    codes[250:] = codes[:250]                                    # duplicates to merge
    counts = rng.integers(1, 9, size=500)
    assert sum(key_widths(radices)) == 60
    got = rollup(codes, counts, [None, None, None], radices)
    want = _reference(codes, counts, [None, None, None], radices)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_rollup_refuses_keys_over_62_bits():
    with pytest.raises(ValueError, match="62 bits"):
        rollup(np.zeros((2, 2), dtype=np.int64), np.ones(2), [None, None], [2**31, 2**32])


def _every_source(data, capped):
    """Roll every node up from every cached more specific node, compiled and with numpy."""
    lattice = Lattice(data.heights)
    nodes = list(lattice.nodes())
    compiled = FrequencyEngine(data, capped=capped, compiled=True)
    plain = FrequencyEngine(data, capped=capped, compiled=False)
    for source in nodes:
        src = plain.frequency_set(source, rollup=False)
        for target in nodes:
            if all(a <= b for a, b in zip(source, target)) and (sum(target) - sum(source)) % 2:
                got = compiled._rollup(src, target)
                want = plain._rollup(src, target)
                assert np.array_equal(got.codes, want.codes), (source, target)
                assert np.array_equal(got.counts, want.counts), (source, target)
    return compiled, plain, nodes


@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_engine_equals_numpy_engine(seed):
    data = _seeded(seed, n=300)
    compiled, plain, nodes = _every_source(data, capped=False)
    for levels in nodes:
        a, b = compiled.frequency_set(levels), plain.frequency_set(levels)
        assert np.array_equal(a.codes, b.codes) and np.array_equal(a.counts, b.counts)
        for k in (2, 5):
            model = PrivacyModel(k)
            assert compiled.suppressed_records(levels, model) == \
                plain.suppressed_records(levels, model)
            for suppression in (0.0, 0.05, 0.3):
                assert compiled.is_anonymous(levels, model, suppression) == \
                    plain.is_anonymous(levels, model, suppression)
    assert compiled.rollups == plain.rollups == len(nodes) - 1


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_compiled_engine_equals_numpy_engine_on_capped_hierarchies(seed):
    data = kg.encode(*marked_case(seed))
    compiled, plain, nodes = _every_source(data, capped=True)
    for levels in nodes:
        a, b = compiled.frequency_set(levels), plain.frequency_set(levels)
        assert np.array_equal(a.codes, b.codes) and np.array_equal(a.counts, b.counts)
        assert compiled.suppressed_records(levels, PrivacyModel(3)) == \
            plain.suppressed_records(levels, PrivacyModel(3))
