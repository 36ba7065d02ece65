"""Packed frequency sets grouped and rolled up by numpy alone (no compiled kernel).

:class:`~kanon_graph.lattice.frequency.FrequencyEngine` keeps a node's
frequency set *packed*: one int64 key per group, every attribute's code in
its own bits (:func:`~._rollup_kernels.packed_layout`), and the counts
beside them. Its compiled roll-up (:func:`~._rollup_kernels.rollup_packed_layout`)
hashes the keys in one pass; these functions give the same groups and
counts by one sort, for a run that forgoes numba
(:func:`kanon_graph._jit.numpy_only`): numba's import, CPU target and LLVM
hold about 125 MiB of a process whatever the kernel (issue 47), and a code
matrix per cached set (8 bytes per group and attribute, where a packed set
holds 16 bytes per group) held most of the rest of the numpy search's
memory.

The keys come back sorted (the lexicographic order of the groups), so the
set's first read of its codes finds them in order.
"""

from __future__ import annotations

import numpy as np

__all__ = ["group_keys", "rollup_keys"]


def group_keys(key, weights=None):
    """The distinct ``key`` values, sorted, and the records (or summed ``weights``) of each.

    Parameters
    ----------
    key : ndarray of int64
        One packed key per row (or weighted tuple).
    weights : ndarray, optional
        The count of each row (default 1).

    Returns
    -------
    keys, counts : ndarray of int64

    Examples
    --------
    >>> keys, counts = group_keys(np.array([5, 0, 5, 4]), np.array([2, 1, 3, 1]))
    >>> keys.tolist(), counts.tolist()
    ([0, 4, 5], [1, 1, 5])
    """
    key = np.asarray(key, dtype=np.int64)
    if len(key) == 0:
        return key.copy(), np.zeros(0, dtype=np.int64)
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    first = np.empty(len(ordered), dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    del first
    if weights is None:
        counts = np.diff(np.append(starts, len(ordered)))
    else:
        counts = np.add.reduceat(np.asarray(weights, dtype=np.int64)[order], starts)
    return ordered[starts], counts.astype(np.int64, copy=False)


def rollup_keys(keys, counts, source_shifts, masks, maps, shifts):
    """A packed set generalized to a more general node: its keys and counts.

    Parameters
    ----------
    keys, counts : ndarray of int64
        The source node's packed set (any order).
    source_shifts, masks : sequence of int
        Where each attribute's code sits in a source key.
    maps : list of (ndarray or None)
        Per attribute, the map from a source code to the target's (None:
        the same level).
    shifts : sequence of int
        Where each attribute's code goes in a target key.

    Returns
    -------
    keys, counts : ndarray of int64
        The target's groups, keys sorted.

    Examples
    --------
    Two attributes of 2 bits (keys ``a << 2 | b``); ``b``'s codes 0-3 go to
0, 0, 1, 1, and the target keys are ``a << 1 | b``:

    >>> keys = np.array([0b0001, 0b0011, 0b0110])
    >>> out = rollup_keys(keys, np.array([2, 3, 4]), [2, 0], [3, 3],
    ...                   [None, np.array([0, 0, 1, 1])], [1, 0])
    >>> [k.tolist() for k in out]
    [[0, 1, 3], [2, 3, 4]]
    """
    keys = np.asarray(keys, dtype=np.int64)
    out = np.zeros(len(keys), dtype=np.int64)
    for source_shift, mask, mapped, shift in zip(source_shifts, masks, maps, shifts):
        code = (keys >> int(source_shift)) & int(mask)
        if mapped is not None:
            code = np.asarray(mapped, dtype=np.int64)[code]
        if shift:
            code <<= int(shift)
        out |= code
        del code
    return group_keys(out, counts)
