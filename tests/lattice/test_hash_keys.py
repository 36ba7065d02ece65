"""The roll-ups' hash (``_rollup_kernels._hash_keys``) equals a plain dict on random keys.

Issue 47 (the 1M-row export) keeps a key and its running sum side by side in the
table and gathers the sums at the end; the keys must still come back in first-seen
order with their summed counts, and a ``limit`` must stop the pass where it did
(right after the key that passes it, with the sums as read so far).
"""

import numpy as np
import pytest

from kanon_graph.lattice._rollup_kernels import _hash_keys


def reference(keys, counts, limit):
    sums, read = {}, len(keys)
    for i, (key, count) in enumerate(zip(keys.tolist(), counts.tolist())):
        sums[key] = sums.get(key, 0) + count
        if 0 <= limit < len(sums):
            read = i + 1
            break
    return list(sums), list(sums.values()), read


@pytest.mark.parametrize("seed", range(40))
def test_hash_keys_is_a_dict_in_first_seen_order(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(0, 3000))
    spread = int(rng.integers(1, 5000))
    keys = (rng.integers(0, spread, m) * int(rng.choice([1, 7919, 1 << 40]))).astype(np.int64)
    counts = rng.integers(1, 9, m).astype(np.int64)
    limit = int(rng.choice([-1, -1, 0, 1, spread // 3, spread, 10**9]))
    most = m if limit < 0 else min(m, limit + 1)
    bits = max(int(2 * max(most, 1) - 1).bit_length(), 4)
    unique, sums, read = _hash_keys(keys, counts, bits, limit)
    expected = reference(keys, counts, limit)
    assert unique.tolist() == expected[0] and sums.tolist() == expected[1]
    assert read == expected[2]
