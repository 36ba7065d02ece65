"""Applying a round of refinement moves one after the other, each re-costed exactly.

:func:`~kanon_graph.records.refine.refine_classes` finds, per tuple, its best
move to a neighbouring class from the classes as they stood at the start of
the round. Applying only one move per class per round keeps every gain exact
but converges slowly when classes are large (at k = 50 on Adult, 20 rounds
leave most of the possible gain). :func:`apply_moves` instead walks the
candidate moves best first and re-costs each against the classes *as they
are now* (``cost(A - x) + cost(B + x)`` against ``cost(A) + cost(B)``, both
with :func:`~kanon_graph.records.costs.set_cost`), applying it only if it
still keeps ``|A - x| >= k`` and lowers the total. So any number of moves
per class per round, and the total cost never rises.
"""

from __future__ import annotations

import numpy as np

from .costs import _set_cost
from .mst import HAVE_NUMBA

from .._jit import njit  # numba loads on a kernel's first call

__all__ = ["apply_moves"]


def _gather(c, head, nxt, skip, buf):
    n = 0
    x = head[c]
    while x >= 0:
        if x != skip:
            buf[n] = x
            n += 1
        x = nxt[x]
    return n


def _apply_moves_py(candidates, labels, target, counts, k, gain_floor, max_apply, codes,
                    tables, touched):
    """Apply the candidate moves in order when still improving; returns how many."""
    u = labels.shape[0]
    n_classes = touched.shape[0]
    head = np.full(n_classes, -1, dtype=np.int64)
    nxt = np.full(u, -1, dtype=np.int64)
    size = np.zeros(n_classes, dtype=np.int64)
    for x in range(u - 1, -1, -1):            # lists in node order
        c = labels[x]
        nxt[x] = head[c]
        head[c] = x
        size[c] += counts[x]
    own = np.full(n_classes, np.nan)
    buf_a = np.empty(u, dtype=np.int64)
    buf_b = np.empty(u + 1, dtype=np.int64)
    applied = 0
    for q in range(candidates.shape[0]):
        if applied >= max_apply:
            break
        x = candidates[q]
        a = labels[x]
        b = target[x]
        if b < 0 or a == b or size[a] - counts[x] < k:
            continue
        if own[a] != own[a]:
            n = _gather(a, head, nxt, -1, buf_a)
            own[a] = _set_cost(buf_a, n, codes, counts, tables)
        if own[b] != own[b]:
            n = _gather(b, head, nxt, -1, buf_b)
            own[b] = _set_cost(buf_b, n, codes, counts, tables)
        na = _gather(a, head, nxt, x, buf_a)
        cost_a = _set_cost(buf_a, na, codes, counts, tables)
        nb = _gather(b, head, nxt, -1, buf_b)
        buf_b[nb] = x
        cost_b = _set_cost(buf_b, nb + 1, codes, counts, tables)
        if own[a] + own[b] - cost_a - cost_b <= gain_floor:
            continue
        # unlink x from a, push it onto b
        if head[a] == x:
            head[a] = nxt[x]
        else:
            y = head[a]
            while nxt[y] != x:
                y = nxt[y]
            nxt[y] = nxt[x]
        nxt[x] = head[b]
        head[b] = x
        labels[x] = b
        size[a] -= counts[x]
        size[b] += counts[x]
        own[a] = cost_a
        own[b] = cost_b
        touched[a] = True
        touched[b] = True
        applied += 1
    return applied


def _apply_moves_work(candidates, labels, target, counts, k, gain_floor, max_apply, codes,
                      tables, touched):
    """Steps of :func:`_apply_moves_py`: per candidate, its two classes gathered and costed
    (taken at the largest class, so a call of many large classes compiles)."""
    u, n_classes = labels.shape[0], max(touched.shape[0], 1)
    largest = int(np.bincount(labels).max()) if u else 0
    return 3 * u + 4 * candidates.shape[0] * (largest + 1) * max(codes.shape[1], 1) + n_classes


if HAVE_NUMBA:
    _gather = njit(cache=True)(_gather)
    # small calls run as Python: a first run need not compile it (kanon_graph._jit)
    _apply_moves = njit(cache=True, work=_apply_moves_work)(_apply_moves_py)
else:  # pragma: no cover
    _apply_moves = _apply_moves_py


def apply_moves(candidates, labels, target, counts, k, codes, tables, n_classes, *,
                gain_floor=1e-9, max_apply=None):
    """Apply candidate moves ``x -> target[x]`` in the order given, each only if it still helps.

    Parameters
    ----------
    candidates : ndarray of int
        Nodes, best expected gain first.
    labels : ndarray of int64 (u,)
        Class of every node; updated in place.
    target : ndarray of int64 (u,)
        The class each node would move to (-1: none).
    counts : ndarray of int64 (u,)
    k : int
    codes, tables
        :attr:`ClassCost.codes` and :attr:`ClassCost.tables`.
    n_classes : int
    gain_floor : float
        A move must lower the total cost by more than this.
    max_apply : int, optional

    Returns
    -------
    applied : int
    touched : ndarray of bool (n_classes,)
        Classes that lost or gained a node.

    Examples
    --------
    >>> import numpy as np, kanon_graph as kg
    >>> from kanon_graph.records import RecordGraph
    >>> from kanon_graph.records.costs import ClassCost
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> g = RecordGraph(data)
    >>> cost = ClassCost(data, g.codes)
    >>> labels = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 2])       # r7 put with r8-r10
    >>> target = np.full(10, -1); target[6] = 1
    >>> n, touched = apply_moves(np.array([6]), labels, target, g.counts, 3, cost.codes,
    ...                          cost.tables, 3)
    >>> n, labels.tolist()
    (1, [0, 0, 0, 1, 1, 1, 1, 2, 2, 2])
    """
    touched = np.zeros(n_classes, dtype=np.bool_)
    limit = len(candidates) if max_apply is None else int(max_apply)
    applied = _apply_moves(np.asarray(candidates, dtype=np.int64), labels,
                           np.asarray(target, dtype=np.int64), np.asarray(counts, dtype=np.int64),
                           int(k), float(gain_floor), limit, codes, tables, touched)
    return int(applied), touched
