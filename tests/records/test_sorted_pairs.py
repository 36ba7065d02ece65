"""``block_edges``' distinct sorted pairs by a counting sort (``neighbours._sorted_pairs``)
equal the sort of all pairs as one int64 with repeats dropped (issue 47: ~40 million
chained pairs at a million tuples), as Python and compiled, on random edges."""

import numpy as np
import pytest

from kanon_graph.records import neighbours


def reference(eu, ev, u):
    pairs = np.unique(np.minimum(eu, ev) * u + np.maximum(eu, ev))
    return pairs // u, pairs % u


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_counting_sort_pairs_are_the_sorted_distinct_pairs(seed, compiled):
    rng = np.random.default_rng(seed)
    u = int(rng.integers(2, 3000))
    m = int(rng.integers(0, 20000))
    eu = rng.integers(0, u, m).astype(np.int64)
    ev = (eu + rng.integers(1, u, m)) % u            # no loops, either order, repeats
    kernel = neighbours._pairs_kernel.compile() if compiled else neighbours._pairs_py
    got = kernel(eu, ev, u)
    expected = reference(eu, ev, u)
    assert got[0].tolist() == expected[0].tolist() and got[1].tolist() == expected[1].tolist()
    small = neighbours._sorted_pairs(eu, ev, u)       # either path of the caller
    assert small[0].tolist() == expected[0].tolist() and small[1].tolist() == expected[1].tolist()


@pytest.mark.parametrize("compiled", [False, True])
def test_short_and_long_runs_of_partners_are_both_sorted(compiled):
    """A node's partners are sorted by insertion up to SHORT_RUN of them, else by np.sort:
    a table with both kinds of node gives the sorted distinct pairs."""
    rng = np.random.default_rng(7)
    u = 400
    hub = rng.integers(1, u, 5 * neighbours.SHORT_RUN)         # node 0: a long run, repeats
    eu = np.concatenate([np.zeros(len(hub), dtype=np.int64), rng.integers(0, u, 3000)])
    ev = np.concatenate([hub, rng.integers(0, u, 3000)])
    keep = eu != ev
    eu, ev = eu[keep].astype(np.int64), ev[keep].astype(np.int64)
    runs = np.bincount(np.minimum(eu, ev), minlength=u)
    assert runs.max() > neighbours.SHORT_RUN >= runs[1:].max() > 1
    kernel = neighbours._pairs_kernel.compile() if compiled else neighbours._pairs_py
    got, expected = kernel(eu, ev, u), reference(eu, ev, u)
    assert got[0].tolist() == expected[0].tolist() and got[1].tolist() == expected[1].tolist()
