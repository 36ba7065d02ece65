"""``stepwise``'s node check under distinct l-diversity, read from packed keys.

Under l the steps' frequency sets are those of the quasi-identifiers *and*
the sensitive code (:class:`~._steps._NodeCounter`): one group per (class,
sensitive value), held packed by the compiled roll-up, one int64 key per
group with the sensitive code in its lowest bits. Distinct l asks, per
class, for ``k`` records and ``l`` known values, and a class's known values
are its groups whose sensitive code is not the missing one. So the records
a node releases are found from the keys alone: a class's key is its groups'
key with the sensitive bits shifted out, so one compiled pass sums each
class's records and known values in a hash table keyed by it, never sorting
the keys nor unpacking the set into a ``(groups, attributes)`` array of codes
(which took most of the check on a 60,000-row census, issue 47).

The figures are the ones the general path computes (``tests/stepwise/
test_diverse.py`` compares them on random tables): this is only another way
to count.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import njit  # numba loads on a kernel's first call

__all__ = ["distinct_released"]


def distinct_released(fs, k, l, missing):
    """Records in the classes of ``fs`` with ``k`` records and ``l`` known sensitive values.

    Parameters
    ----------
    fs : FrequencySet
        A node's frequency set over the quasi-identifiers and the sensitive
        code (the last attribute, never generalized).
    k, l : int
    missing : int or None
        The sensitive code of a missing value (counts toward k, never l).

    Returns
    -------
    int or None
        None when the set is not packed (the caller counts from its codes).
    """
    packed = fs.packed
    if packed is None:
        return None
    keys, counts, widths = packed
    keys = np.asarray(keys, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    if not len(keys):
        return 0
    table_bits = max(int(2 * len(keys) - 1).bit_length(), 4)      # load at most 1/2
    return int(_released(keys, counts, int(widths[-1]),
                         -1 if missing is None else int(missing), int(k),
                         int(math.ceil(l)), table_bits))


def _released_py(keys, counts, sensitive_bits, missing, k, l, table_bits):
    """Sum the classes of ``keys`` (sensitive code in the low ``sensitive_bits``, any order)
    met in an open-addressing table of ``2 ** table_bits`` slots keyed by the class."""
    slots = 1 << table_bits
    mask = slots - 1
    low = (1 << sensitive_bits) - 1
    owner = np.full(slots, -1, dtype=np.int64)
    size = np.zeros(slots, dtype=np.int64)
    known = np.zeros(slots, dtype=np.int64)
    for i in range(len(keys)):
        cls = keys[i] >> sensitive_bits
        h = cls * 0x2545F4914F6CDD1D
        h = (h ^ (h >> 29)) & mask
        while owner[h] != -1 and owner[h] != cls:
            h = (h + 1) & mask
        owner[h] = cls
        size[h] += counts[i]
        if (keys[i] & low) != missing:
            known[h] += 1
    total = 0
    for h in range(slots):
        if owner[h] != -1 and size[h] >= k and known[h] >= l:
            total += size[h]
    return total


def _released_work(keys, *rest):
    """Steps of :func:`_released_py`: one per group."""
    return len(keys)


_released = njit(cache=True, work=_released_work)(_released_py)
