"""The node arrays of the exact optimal search, with costs that follow the work.

:func:`~kanon_graph.lattice.optimal.optimal_search` keeps one status byte
and one bound per node, but never passes over all of them per check
(issue 17: at 10 quasi-identifiers 90 of 116 s went into such passes).
What a check spreads -- to every more general node when it passes, to every
more specific one when it fails (Flash's predictive tagging, Kohlmayer et
al. 2012, section 4) -- is a *box* of the lattice, ``[v, top]`` or
``[bottom, v]``, whose node indices :class:`NodeSpace` computes directly
from the mixed-radix key of the box's corners, touching only the box (a
compiled odometer walks it and writes the statuses, so no index array the
size of the box is built). The next candidate comes from
:class:`CandidateQueue`, a pointer over the nodes sorted once by bound: a
node leaves the queue only when it is dead for good (failing, scored,
dominated, or its bound can no longer beat the best), so every node is
stepped over at most once, dead ones a vectorized chunk at a time.

References
----------
.. [Flash] Kohlmayer, Prasser, Eckert, Kemper & Kuhn, "Flash: efficient, stable
   and optimal k-anonymity", PASSAT 2012, section 4 (predictive tagging).
"""

from __future__ import annotations

import heapq

import numpy as np

from .._jit import compiling, njit  # numba loads on a kernel's first call
from .lattice import StatusMap

__all__ = ["NodeSpace", "CandidateQueue", "ArrayStatus", "node_key"]


def node_key(nodes, radix):
    """The mixed-radix key of each row of ``nodes`` (lexicographic order = key order).

    >>> node_key(np.array([[0, 1], [1, 0]]), np.array([2, 3])).tolist()
    [1, 3]
    """
    key = np.zeros(len(nodes), dtype=np.int64)
    for j in range(nodes.shape[1]):
        key = key * radix[j] + nodes[:, j]
    return key


@njit(cache=True, nogil=True)
def _box_apply(position, radix, low, high, target, value, keep_max):
    """Set ``target`` at every node of the box ``[low, high]`` to ``value`` (or raise it to).

    Walks the box's mixed-radix keys like an odometer, so no array the size
    of the box is built; returns the number of nodes in the box.
    """
    d = len(radix)
    stride = np.ones(d, dtype=np.int64)
    for j in range(d - 2, -1, -1):
        stride[j] = stride[j + 1] * radix[j + 1]
    at = low.copy()
    key = np.int64(0)
    for j in range(d):
        key += low[j] * stride[j]
    visited = 0
    while True:
        i = position[key]
        if keep_max:
            if target[i] < value:
                target[i] = value
        else:
            target[i] = value
        visited += 1
        j = d - 1
        while j >= 0 and at[j] == high[j]:
            key -= (at[j] - low[j]) * stride[j]
            at[j] = low[j]
            j -= 1
        if j < 0:
            return visited
        at[j] += 1
        key += stride[j]


@njit(cache=True, nogil=True)
def _closed_fill(position, radix, low, high, target, value, up):
    """Set ``target`` to ``value`` on the box ``[low, high]``, skipping what is already set.

    The nodes already at ``value`` must be closed upwards (``up``: every node
    more general than a set node is set, as the search's "anonymous" and
    "dominated" tags are) or downwards ("not anonymous"). The box is walked
    one attribute at a time from its corner nearest ``low`` (``up``) or
    ``high``; when the corner of a sub-box is set, that sub-box and the rest
    of its attribute's range in the walk's direction are set too, and are
    skipped. The cost follows the nodes newly set, not the box.
    """
    d = len(radix)
    stride = np.ones(d, dtype=np.int64)
    for j in range(d - 2, -1, -1):
        stride[j] = stride[j + 1] * radix[j + 1]
    # rest[j]: the key of attributes after j at the walk's starting corner
    rest = np.zeros(d, dtype=np.int64)
    for j in range(d - 2, -1, -1):
        rest[j] = rest[j + 1] + (low[j + 1] if up else high[j + 1]) * stride[j + 1]
    cur = np.empty(d, dtype=np.int64)
    prefix = np.zeros(d, dtype=np.int64)      # the key of attributes up to j
    j = 0
    cur[0] = low[0] if up else high[0]
    prefix[0] = cur[0] * stride[0]
    while True:
        i = position[prefix[j] + rest[j]]
        descend = False
        if target[i] != value:
            if j == d - 1:
                target[i] = value
                sibling = True
            else:
                descend = True
                sibling = False
        else:
            sibling = False         # set: so are its siblings further in this direction
        if descend:
            j += 1
            cur[j] = low[j] if up else high[j]
            prefix[j] = prefix[j - 1] + cur[j] * stride[j]
            continue
        while True:
            if sibling and (cur[j] < high[j] if up else cur[j] > low[j]):
                cur[j] += 1 if up else -1
                prefix[j] = (prefix[j - 1] if j > 0 else 0) + cur[j] * stride[j]
                break
            j -= 1
            if j < 0:
                return 0
            sibling = True


class NodeSpace:
    """Every node of ``lattice`` (height-then-lexicographic order) and its bound.

    Parameters
    ----------
    lattice : Lattice
    scorer : NodeMetric
        Gives the static lower bound of every node.
    max_nodes : int, optional
        Refuse larger lattices (``None``: no limit).

    Examples
    --------
    >>> from kanon_graph.lattice import Lattice
    >>> class Height:
    ...     def lower_bound(self, nodes):
    ...         return nodes.sum(axis=1).astype(float)
    >>> space = NodeSpace(Lattice([1, 2]), Height())
    >>> space.nodes[space.above(1)].tolist()     # node 1 is (0, 1)
    [[0, 1], [0, 2], [1, 1], [1, 2]]
    >>> space.nodes[space.below(4)].tolist()     # node 4 is (1, 1)
    [[0, 0], [0, 1], [1, 0], [1, 1]]
    """

    def __init__(self, lattice, scorer, max_nodes=None):
        self.lattice = lattice
        self.nodes = lattice.array(max_nodes=max_nodes or lattice.size)
        self.total = len(self.nodes)
        self.radix = np.asarray([h + 1 for h in lattice.heights], dtype=np.int64)
        self.position = np.empty(self.total, dtype=np.int64)
        keys = node_key(self.nodes, self.radix)
        self.position[keys] = np.arange(self.total)
        grid = getattr(scorer, "lower_bound_grid", None)
        if grid is not None and lattice.dimension and self.total == lattice.size:
            self.bound = np.asarray(grid(list(lattice.heights)), dtype=float)[keys]
        else:
            self.bound = scorer.lower_bound(self.nodes).astype(float)
        self._top = np.asarray(lattice.heights, dtype=np.int64)
        self._stride = [int(np.prod(self.radix[j + 1:])) for j in range(len(self.radix))]
        self._bottom = np.zeros(lattice.dimension, dtype=np.int64)

    def _box(self, low, high):
        keys = np.zeros(1, dtype=np.int64)
        for r, lo, hi in zip(self.radix, low, high):
            keys = (keys[:, None] * r + np.arange(lo, hi + 1, dtype=np.int64)).ravel()
        return self.position[keys]

    def above(self, i):
        """Indices of the nodes at least as general as node ``i`` (itself included)."""
        return self._box(self.nodes[i], self.lattice.heights)

    def below(self, i):
        """Indices of the nodes at most as general as node ``i`` (itself included)."""
        return self._box((0,) * self.lattice.dimension, self.nodes[i])

    def fill_above(self, i, target, value, keep_max=False, closed=False):
        """``target[above(i)] = value`` (or raised to ``value``), without building ``above(i)``.

        ``closed=True`` promises that the nodes already at ``value`` are
        closed upwards (every node more general than one of them is at
        ``value`` too): the walk then skips them (:func:`_closed_fill`).

        Returns
        -------
        int
            The number of nodes at least as general as node ``i``.
        """
        return self._fill(self.nodes[i], self._top, target, value, keep_max, closed, True)

    def fill_below(self, i, target, value, closed=False):
        """``target[below(i)] = value``; returns the number of nodes in ``below(i)``.

        ``closed=True``: the nodes already at ``value`` are closed downwards.
        """
        return self._fill(self._bottom, self.nodes[i], target, value, False, closed, False)

    def _fill(self, low, high, target, value, keep_max, closed=False, up=True):
        low = np.asarray(low, dtype=np.int64)
        high = np.asarray(high, dtype=np.int64)
        if not compiling():         # numpy (the kernel as plain Python is slow)
            idx = self._box(low, high)
            target[idx] = np.maximum(target[idx], value) if keep_max else value
            return len(idx)
        if closed and not keep_max:
            _closed_fill(self.position, self.radix, low, high, target,
                         target.dtype.type(value), bool(up))
            return int(np.prod(high - low + 1))
        return int(_box_apply(self.position, self.radix, low, high, target,
                              target.dtype.type(value), bool(keep_max)))

    def index(self, node):
        """The index of the level vector ``node``."""
        return int(self.position[int(node_key(np.asarray([node]), self.radix)[0])])

    def successors(self, i):
        """Indices of the direct generalizations of node ``i``, in attribute order."""
        # one attribute up one level adds that attribute's stride to the mixed-radix key
        levels = self.nodes[i].tolist()
        key = sum(v * s for v, s in zip(levels, self._stride))
        return [int(self.position[key + s])
                for v, h, s in zip(levels, self.lattice.heights, self._stride) if v < h]

    def raise_bound(self, idx, value):
        """Raise the bound of the nodes ``idx`` to at least ``value``."""
        self.bound[idx] = np.maximum(self.bound[idx], value)


class CandidateQueue:
    """Live nodes by bound (highest or lowest first), ties to the lower index.

    The order is fixed once; a bound raised later (by
    :meth:`NodeSpace.fill_above` with ``keep_max``, or
    :meth:`NodeSpace.raise_bound`) moves its node to a small heap that is
    merged in, so the queue always yields the live node of least current
    bound (``highest=False``). With ``highest=True`` bounds must not change.
    """

    def __init__(self, space, *, highest, order=None):
        self.space = space
        self.highest = bool(highest)
        if order is None:           # a stable sort: ties stay in index order
            order = np.argsort(-space.bound if highest else space.bound, kind="stable")
        self.order = order
        self.sorted_bound = space.bound[self.order].copy()
        self.at = 0
        self.moved = []           # (bound, index) of nodes whose bound rose

    @classmethod
    def pair(cls, space):
        """``(highest first, lowest first)`` queues of ``space`` from one sort of its bounds.

        The lowest-first order is a stable sort; the highest-first one is its
        reverse with every run of equal bounds turned back into index order.
        """
        low = np.argsort(space.bound, kind="stable")
        high = low[::-1]
        if len(high):
            b = space.bound[high]
            start = np.flatnonzero(np.concatenate(([True], b[1:] != b[:-1])))
            size = np.diff(np.append(start, len(high)))
            group_start = np.repeat(start, size)
            group_end = np.repeat(start + size, size)
            # position p of a run [s, e) goes to s + e - 1 - p
            out = np.empty_like(high)
            out[group_start + group_end - 1 - np.arange(len(high))] = high
            high = out
        return cls(space, highest=True, order=high), cls(space, highest=False, order=low)

    def next(self, alive, dead=None):
        """The best live node (``alive(i) -> bool``), or None; it stays queued.

        ``dead(idx) -> bool array``, when given, must be ``not alive`` for an
        array of indices: the queue then steps over dead nodes a chunk at a
        time instead of one Python call per node.
        """
        bound, order = self.space.bound, self.order
        if dead is not None:
            self._skip(dead)
        while self.at < len(order):
            i = int(order[self.at])
            if not alive(i):
                self.at += 1
            elif not self.highest and bound[i] > self.sorted_bound[self.at]:
                heapq.heappush(self.moved, (float(bound[i]), i))
                self.at += 1
            else:
                break
        while self.moved:
            b, i = self.moved[0]
            if not alive(i):
                heapq.heappop(self.moved)
            elif bound[i] > b:
                heapq.heapreplace(self.moved, (float(bound[i]), i))
            else:
                break
        head = int(order[self.at]) if self.at < len(order) else None
        if not self.moved:
            return head
        b, i = self.moved[0]
        if head is None or (b, i) < (float(bound[head]), head):
            return i
        return head


    def _skip(self, dead):
        """Step over dead nodes (and move raised ones to the heap) in growing chunks."""
        bound, order, width = self.space.bound, self.order, 32
        while self.at < len(order):
            chunk = order[self.at:self.at + width]
            keep = ~dead(chunk)
            moved = np.zeros(len(chunk), dtype=bool)
            if not self.highest:
                moved = keep & (bound[chunk] > self.sorted_bound[self.at:self.at + len(chunk)])
            stop = np.flatnonzero(keep & ~moved)
            end = int(stop[0]) if len(stop) else len(chunk)
            for i in chunk[:end][moved[:end]].tolist():
                heapq.heappush(self.moved, (float(bound[i]), i))
            self.at += end
            if len(stop):
                return
            width = min(2 * width, 8192)


class ArrayStatus(StatusMap):
    """A :class:`StatusMap` read from the search's status array (O(1) per query).

    The exact search already holds every node's outcome (spread or checked)
    in ``state`` (0 unknown, 1 anonymous, 2 not anonymous); keeping a
    frontier as well cost a pass over the frontier per check (10 of 58 s at
    10 quasi-identifiers). The frontiers are computed on request from the
    checked nodes.
    """

    def __init__(self, space, state, checked):
        super().__init__(space.lattice.dimension)
        self._space, self._state, self._log = space, state, checked

    @property
    def _checked(self):
        """``(node, passed)`` per check, in order; the log may hold ``(indices, passed)``
        for a whole run of checks (an int64 array), expanded here."""
        out = []
        for item, ok in self._log:
            if isinstance(item, np.ndarray):
                out.extend((tuple(row), ok) for row in self._space.nodes[item].tolist())
            else:
                out.append((item, ok))
        return out

    def is_anonymous(self, node):
        known = int(self._state[self._space.index(node)])
        return None if known == 0 else known == 1

    def _lookup(self, nodes):
        nodes = np.asarray(nodes, dtype=np.int64).reshape(-1, self.dimension)
        return self._state[self._space.position[node_key(nodes, self._space.radix)]]

    def anonymous_mask(self, nodes):
        return self._lookup(nodes) == 1

    def not_anonymous_mask(self, nodes):
        return self._lookup(nodes) == 2

    def _frontier(self, ok, pick):
        rows = np.asarray([n for n, o in self._checked if o == ok], dtype=np.int64)
        rows = rows.reshape(-1, self.dimension)
        keep = [i for i, r in enumerate(rows)
                if not any(j != i and pick(rows[j], r) for j in range(len(rows)))]
        return sorted(tuple(int(v) for v in rows[i]) for i in keep)

    @property
    def minimal_anonymous(self):
        return self._frontier(True, lambda other, r: (other <= r).all() and (other != r).any())

    @property
    def maximal_not_anonymous(self):
        return self._frontier(False, lambda other, r: (other >= r).all() and (other != r).any())

    def mark(self, node, anonymous):
        raise TypeError("ArrayStatus is read-only: it reflects a finished search")

    mark_anonymous = mark_not_anonymous = mark
