"""Many lattice nodes checked in one compiled call, for a step's few remaining records.

Late in step 1 of ``stepwise`` few records are left, and the search visits
hundreds or thousands of nodes for them (the last step, whose need is every
record left, clears the marks and climbs most of the lattice: 2,559 nodes for
31 records on the 80,000-row clinic export). A frequency set through the
engine then costs far more in Python than in counting. :class:`BatchCounter`
counts a whole chunk of nodes at once under k alone: for each node it packs
every record's generalized codes into one integer, sorts the keys and adds
the records of the groups of ``k`` or more -- the records the node releases,
the very number the frequency set gives (``tests/records/test_fast_paths.py``
checks it against the engine on random tables).
"""

from __future__ import annotations

import numpy as np

from .._jit import HAVE_NUMBA, njit  # numba loads on a kernel's first call

__all__ = ["BatchCounter", "BATCH_ROWS", "BATCH_TABLES"]

BATCH_TABLES = 20_000
"""Only tables of at least this many rows count in batches: a small table's search is short,
and compiling the kernel on a first run would cost more than it saves (``kanon-graph demo``
compiles the lattice's kernels alone, ``tests/test_first_run.py``)."""

BATCH_ROWS = 1000
"""Steps with at most this many remaining rows count their nodes in batches (above it the
engine's roll-ups from cached nodes cost less: 80,000-row clinic export, steps of 1,649 to
2,739 rows 0.015-0.033 s by the engine, 0.019-0.11 s in batches; 195 and 31 rows 0.033 and
0.198 s by the engine, 0.009 and 0.021 s in batches)."""


def _released_py(codes, weights, maps, start, radix, nodes, k, out):
    """``out[b]``: the records in groups of ``k`` or more at node ``nodes[b]``.

    ``maps[start[a, level] + code]`` is attribute ``a``'s leaf ``code`` at
    ``level``, ``radix[a, level]`` the number of codes there.
    """
    n, d = codes.shape
    keys = np.empty(n, dtype=np.int64)
    for b in range(nodes.shape[0]):
        for i in range(n):
            key = 0
            for a in range(d):
                level = nodes[b, a]
                key = key * radix[a, level] + maps[start[a, level] + codes[i, a]]
            keys[i] = key
        order = np.argsort(keys)
        released = 0
        run = 0
        for j in range(n):
            if j > 0 and keys[order[j]] != keys[order[j - 1]]:
                if run >= k:
                    released += run
                run = 0
            run += weights[order[j]]
        if run >= k:
            released += run
        out[b] = released


def _released_work(codes, weights, maps, start, radix, nodes, k, out):
    """Steps of :func:`_released_py`: per node, a key per record and their sort."""
    n, d = codes.shape
    return nodes.shape[0] * n * (d + max(int(n).bit_length(), 1))


# small calls run as Python: a first run need not compile it (kanon_graph._jit)
_released = (njit(cache=True, work=_released_work)(_released_py) if HAVE_NUMBA
             else _released_py)


class BatchCounter:
    """The records each node releases from ``sub`` under k alone, a batch of nodes at a time.

    Parameters
    ----------
    sub : EncodedTable
        One step's remaining records (every quasi-identifier with a hierarchy).
    k : int
    """

    def __init__(self, sub, k):
        attrs = sub.attributes
        d = len(attrs)
        top = max(a.hierarchy.height for a in attrs) + 1
        self.codes = np.ascontiguousarray(np.column_stack([a.codes for a in attrs]),
                                          dtype=np.int64)
        self.weights = (np.ones(sub.n, dtype=np.int64) if sub.weights is None
                        else np.asarray(sub.weights, dtype=np.int64))
        self.radix = np.ones((d, top), dtype=np.int64)
        self.start = np.zeros((d, top), dtype=np.int64)
        parts, at = [], 0
        for j, a in enumerate(attrs):
            h = a.hierarchy
            for level in range(h.height + 1):
                self.start[j, level] = at
                parts.append(np.asarray(h.level_map[level], dtype=np.int64))
                at += len(parts[-1])
                self.radix[j, level] = len(h.leaf_counts[level])
        self.maps = np.concatenate(parts)
        self.k = int(k)

    @staticmethod
    def fits(sub, rows):
        """Whether ``sub`` (a step's records of a table of ``rows`` rows) is small enough, of
        a table large enough, and its bottom node's keys fit in an int64."""
        if sub.n > BATCH_ROWS or rows < BATCH_TABLES or any(
                a.hierarchy is None for a in sub.attributes):
            return False
        return float(np.sum([np.log2(max(len(a.hierarchy.leaf_counts[0]), 1))
                             for a in sub.attributes])) < 62

    def released(self, nodes):
        """Records released at each of ``nodes`` (rows of level vectors)."""
        nodes = np.ascontiguousarray(nodes, dtype=np.int64)
        out = np.zeros(len(nodes), dtype=np.int64)
        _released(self.codes, self.weights, self.maps, self.start, self.radix, nodes, self.k,
                  out)
        return out
