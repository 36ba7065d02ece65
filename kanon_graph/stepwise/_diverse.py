"""``stepwise``'s node check under distinct l-diversity, read from packed keys.

Under l the steps' frequency sets are those of the quasi-identifiers *and*
the sensitive code (:class:`~._steps._NodeCounter`): one group per (class,
sensitive value), held packed by the compiled roll-up, one int64 key per
group with the sensitive code in its lowest bits. Distinct l asks, per
class, for ``k`` records and ``l`` known values, and a class's known values
are its groups whose sensitive code is not the missing one. So the records
a node releases are found from the keys alone: sort them (a class's groups
become adjacent, since its key is the group's key with the sensitive bits
shifted out) and sum each class in one compiled pass, never unpacking the
set into a ``(groups, attributes)`` array of codes nor comparing rows of it
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
    slot_bits = max(len(keys) - 1, 0).bit_length()
    if sum(widths) + slot_bits <= 63:       # distinct keys: sort (key, slot) in one int64
        both = np.sort((keys << slot_bits) | np.arange(len(keys), dtype=np.int64))
        order = both & ((1 << slot_bits) - 1)
        keys = both >> slot_bits
    else:
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
    return int(_released(keys, counts[order], int(widths[-1]),
                         -1 if missing is None else int(missing), int(k),
                         int(math.ceil(l))))


def _released_py(keys, counts, sensitive_bits, missing, k, l):
    """Sum the classes of sorted ``keys`` (sensitive code in the low ``sensitive_bits``)."""
    mask = (1 << sensitive_bits) - 1
    total = 0
    size = 0
    known = 0
    current = -1
    for i in range(len(keys)):
        cls = keys[i] >> sensitive_bits
        if i == 0 or cls != current:
            if i > 0 and size >= k and known >= l:
                total += size
            current = cls
            size = 0
            known = 0
        size += counts[i]
        if (keys[i] & mask) != missing:
            known += 1
    if len(keys) and size >= k and known >= l:
        total += size
    return total


def _released_work(keys, *rest):
    """Steps of :func:`_released_py`: one per group."""
    return len(keys)


_released = njit(cache=True, work=_released_work)(_released_py)
