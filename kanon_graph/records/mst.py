"""Exact minimum spanning trees of the record graph: Kruskal and Prim.

* ``"kruskal"`` sorts every edge of the explicit complete graph (as paper 003
  does, section 4.2) and joins components with a union-find: O(u^2 log u)
  time and O(u^2) memory, for small graphs.
* ``"prim"`` runs on the implicit graph: O(u^2) time, O(u) memory. Each step
  adds the closest outside node and updates the others' keys with the
  distances from it, computed by table look-ups per attribute. It is
  compiled with numba when numba is installed; otherwise a numpy loop (one
  vectorized row per step) is used. With a continuous attribute (a
  ``NumericGap``) and no negative term, the same tree is found through a
  nearest-outside-neighbour index instead (:mod:`.indexed_prim`), which
  grows about as ``u log u`` on continuous tables.

Both are exact and deterministic; weights closer than ``TIE`` (1e-9) are
ties (so the tree does not depend on the order in which floating-point
terms were added); on ties Kruskal takes the edge with the smaller
``(i, j)`` and Prim the node with the smaller index (and keeps the earlier
parent), so the two may return different trees of the same total weight.

References
----------
.. [003] Venkata Ramana & Valli Kumari, "Graph based local recoding for data
   anonymization" (2013), section 4.2.
.. [K] Kruskal, "On the shortest spanning subtree of a graph and the
   traveling salesman problem" (1956).
.. [P] Prim, "Shortest connection networks and some generalizations" (1957).
"""

from __future__ import annotations

import numpy as np

from .distances import LevelGap, NumericGap

from .._jit import HAVE_NUMBA, njit  # numba loads on a kernel's first call
from ._terms import TIE, _level_term

__all__ = ["minimum_spanning_edges", "sparse_spanning_edges", "KRUSKAL_MAX_NODES",
           "HAVE_NUMBA"]

KRUSKAL_MAX_NODES = 500
"""``method="auto"`` uses Kruskal up to this many nodes, Prim above."""

def _kruskal_scan_py(i, j, order, u):
    """Union-find over edges in ``order``; the positions of the kept edges."""
    parent = np.arange(u)
    keep = np.empty(max(u - 1, 0), dtype=np.int64)
    n_keep = 0
    for idx in range(order.shape[0]):
        if n_keep == u - 1:
            break
        e = order[idx]
        a = i[e]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        b = j[e]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            parent[max(a, b)] = min(a, b)
            keep[n_keep] = e
            n_keep += 1
    return keep[:n_keep]


def _kruskal(graph):
    i, j, w = graph.edges()
    order = np.lexsort((j, i, np.round(w, 9)))      # by weight, then (i, j)
    keep = _kruskal_scan(i.astype(np.int64), j.astype(np.int64), order.astype(np.int64),
                         graph.n_nodes)
    return i[keep].astype(np.int64), j[keep].astype(np.int64), w[keep]


def _prim_numpy(graph):
    u = graph.n_nodes
    key = np.full(u, np.inf)
    par = np.zeros(u, dtype=np.int64)
    inside = np.zeros(u, dtype=bool)
    out_u = np.empty(u - 1, dtype=np.int64)
    out_v = np.empty(u - 1, dtype=np.int64)
    out_w = np.empty(u - 1)
    cur = 0
    inside[0] = True
    for step in range(u - 1):
        dist = graph.distances_from(cur)
        better = (dist < key - TIE) & ~inside
        key[better] = dist[better]
        par[better] = cur
        masked = np.where(inside, np.inf, key)
        nxt = int(np.argmax(masked <= masked.min() + TIE))     # first index among ties
        out_u[step], out_v[step], out_w[step] = par[nxt], nxt, key[nxt]
        inside[nxt] = True
        cur = nxt
    return out_u, out_v, out_w


def _flatten(parts):
    """Pack per-attribute matrices / gaps into flat arrays for the kernel."""
    d = len(parts)
    kind = np.zeros(d, dtype=np.int64)
    off = np.zeros(d, dtype=np.int64)
    width = np.zeros(d, dtype=np.int64)
    scale = np.zeros(d)
    woff = np.zeros(d, dtype=np.int64)
    chunks, wchunks = [], []
    pos = wpos = 0
    for a, part in enumerate(parts):
        if isinstance(part, np.ndarray):
            kind[a], width[a], block = 0, part.shape[0], part.ravel()
        elif isinstance(part, NumericGap):
            kind[a], scale[a], block = 1, part.scale, np.asarray(part.values, dtype=float)
        elif isinstance(part, LevelGap):
            w = np.asarray(part.weights, dtype=float)
            kind[a] = 2 if w.ndim == 1 else 3                    # 3: a weight per level and code
            width[a] = part.level_map.shape[1]
            scale[a] = part.level_map.shape[0]                  # number of levels
            block = part.level_map.astype(float).ravel()
            woff[a] = wpos
            wchunks.append(w.ravel())
            wpos += w.size
        else:  # pragma: no cover - RecordGraph only builds the three kinds
            raise TypeError(f"unsupported distance part {type(part).__name__}")
        off[a] = pos
        chunks.append(block)
        pos += len(block)
    flat = np.concatenate(chunks) if chunks else np.zeros(0)
    weights = np.concatenate(wchunks) if wchunks else np.zeros(1)
    return kind, flat, off, width, scale, weights, woff


def _prim_kernel_py(codes, kind, flat, off, width, scale, weights, woff, prune):
    """Prim on the implicit graph (compiled by numba; see module docstring)."""
    u, d = codes.shape
    out_u = np.empty(max(u - 1, 0), dtype=np.int64)
    out_v = np.empty(max(u - 1, 0), dtype=np.int64)
    out_w = np.empty(max(u - 1, 0), dtype=np.float64)
    # outside nodes, kept compact: position p holds node rem[p] with key/par
    rem = np.arange(1, u)
    key = np.full(u - 1, np.inf)
    par = np.zeros(u - 1, dtype=np.int64)
    base = np.zeros(d, dtype=np.int64)
    cnt = u - 1
    cur = 0
    for step in range(u - 1):
        for a in range(d):
            if kind[a] == 0:
                base[a] = off[a] + codes[cur, a] * width[a]
        best = np.inf
        best_p = -1
        best_id = u
        for p in range(cnt):
            j = rem[p]
            kp = key[p]
            dist = 0.0
            for a in range(d):
                k = kind[a]
                if k == 0:
                    dist += flat[base[a] + codes[j, a]]
                elif k == 1:
                    dist += abs(flat[off[a] + codes[j, a]] - flat[off[a] + codes[cur, a]]) \
                        * scale[a]
                else:
                    dist += _level_term(k, flat, off[a], width[a], scale[a], weights, woff[a],
                                        codes[cur, a], codes[j, a])
                if prune and dist >= kp - TIE:      # terms are >= 0: no update possible
                    break
            if dist < kp - TIE:
                key[p] = dist
                par[p] = cur
                kp = dist
            if kp < best - TIE or (kp <= best + TIE and j < best_id):
                best = kp
                best_p = p
                best_id = j
        out_u[step] = par[best_p]
        out_v[step] = best_id
        out_w[step] = best
        cur = best_id
        cnt -= 1
        rem[best_p] = rem[cnt]
        key[best_p] = key[cnt]
        par[best_p] = par[cnt]
    return out_u, out_v, out_w


def _prim_tables_py(codes, flat, off, width):
    """Prim when every attribute is a matrix look-up (the common case).

    The outside nodes are kept compact, with their code rows, keys and
    parents swapped together, so the inner loop reads memory sequentially.
    """
    u, d = codes.shape
    out_u = np.empty(max(u - 1, 0), dtype=np.int64)
    out_v = np.empty(max(u - 1, 0), dtype=np.int64)
    out_w = np.empty(max(u - 1, 0), dtype=np.float64)
    rows = codes[1:].copy()
    ids = np.arange(1, u)
    key = np.full(u - 1, np.inf)
    par = np.zeros(u - 1, dtype=np.int64)
    base = np.empty(d, dtype=np.int64)
    cur_row = codes[0].copy()
    cnt = u - 1
    cur = 0
    for step in range(u - 1):
        for a in range(d):
            base[a] = off[a] + cur_row[a] * width[a]
        best = np.inf
        best_p = -1
        best_id = u
        for p in range(cnt):
            kp = key[p]
            dist = 0.0
            for a in range(d):          # no early exit here: it costs more than it saves
                dist += flat[base[a] + rows[p, a]]
            if dist < kp - TIE:
                key[p] = dist
                par[p] = cur
                kp = dist
            if kp < best - TIE or (kp <= best + TIE and ids[p] < best_id):
                best = kp
                best_p = p
                best_id = ids[p]
        out_u[step] = par[best_p]
        out_v[step] = best_id
        out_w[step] = best
        cur = best_id
        for a in range(d):
            cur_row[a] = rows[best_p, a]
        cnt -= 1
        for a in range(d):
            rows[best_p, a] = rows[cnt, a]
        ids[best_p] = ids[cnt]
        key[best_p] = key[cnt]
        par[best_p] = par[cnt]
    return out_u, out_v, out_w


_prim_kernel = njit(cache=True, nogil=True)(_prim_kernel_py) if HAVE_NUMBA else None
_kruskal_scan = njit(cache=True)(_kruskal_scan_py) if HAVE_NUMBA else _kruskal_scan_py
_prim_tables = njit(cache=True, nogil=True)(_prim_tables_py) if HAVE_NUMBA else None


def _prim(graph, nodes=None):
    """Exact Prim over all nodes, or over the sub-graph of ``nodes`` (its edges' ends index it)."""
    if graph.record_distance is not None or not HAVE_NUMBA:
        if nodes is not None:
            raise ValueError("a sub-graph MST needs per-attribute distances and numba")
        return _prim_numpy(graph)
    codes = graph.codes if nodes is None else graph.codes[nodes]
    kind, flat, off, width, scale, weights, woff = _flatten(graph.parts)
    # a partial sum that already reaches a node's key cannot lower it when no term is
    # negative (every built-in distance): the kernels then stop summing early
    prune = bool((flat >= 0).all() and (weights >= 0).all() and (scale >= 0).all())
    if (kind == 0).all():
        return _prim_tables(codes.astype(np.int32), flat, off, width)
    if prune and (kind == 1).any():     # a continuous attribute: the same tree through an index
        from .indexed_prim import indexed_prim

        tree = indexed_prim(codes, graph.parts, (kind, flat, off, width, scale, weights, woff))
        if tree is not None:
            return tree
    return _prim_kernel(np.ascontiguousarray(codes, dtype=np.int64), kind, flat, off, width,
                        scale, weights, woff, prune)


def sparse_spanning_edges(graph, eu, ev):
    """A spanning tree of ``graph`` through a sparse set of candidate edges.

    The minimum spanning forest of the sub-graph made of the edges
    ``(eu, ev)`` (weighted by the graph's distance; scipy's
    ``minimum_spanning_tree``), its components joined by the exact MST of
    one representative (the smallest node) per component. When the
    candidates hold every edge of some MST -- as a near-neighbour index
    usually nearly does -- this is an MST; it is never lighter than one.
    ``O(E log E + r^2 d)`` for ``E`` candidates and ``r`` components,
    against Prim's ``O(u^2 d)``.

    Parameters
    ----------
    graph : RecordGraph
        With per-attribute distances (no ``record_distance``).
    eu, ev : ndarray of int
        Candidate edges between nodes.

    Returns
    -------
    u, v, w : ndarray
        ``n_nodes - 1`` tree edges and their weights, as
        :func:`minimum_spanning_edges`.

    Examples
    --------
    >>> import numpy as np, kanon_graph as kg
    >>> from kanon_graph.records import RecordGraph
    >>> g = RecordGraph(kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()))
    >>> u, v, w = sparse_spanning_edges(g, np.array([0, 3]), np.array([1, 4]))
    >>> len(u), bool(w.sum() >= minimum_spanning_edges(g)[2].sum() - 1e-9)
    (9, True)
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

    n = graph.n_nodes
    eu, ev = np.asarray(eu, dtype=np.int64), np.asarray(ev, dtype=np.int64)
    if n <= 1:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    w = graph.pair_distances(eu, ev)
    # shifted by 1: scipy drops zero weights; every spanning forest has as many edges
    shifted = coo_matrix((w + 1.0, (eu, ev)), shape=(n, n)).tocsr()
    tree = minimum_spanning_tree(shifted).tocoo()
    tu, tv = tree.row.astype(np.int64), tree.col.astype(np.int64)
    n_comp, comp = connected_components(tree, directed=False)
    if n_comp > 1:
        reps = np.unique(comp, return_index=True)[1].astype(np.int64)   # smallest node of each
        if HAVE_NUMBA:
            ru, rv, _ = _prim(graph, reps)
        else:  # pragma: no cover - numba is a dependency; the dense fallback for small r
            i, j = np.triu_indices(n_comp, 1)
            full = coo_matrix((graph.pair_distances(reps[i], reps[j]) + 1.0, (i, j)),
                              shape=(n_comp, n_comp))
            joined = minimum_spanning_tree(full).tocoo()
            ru, rv = joined.row, joined.col
        tu, tv = np.concatenate([tu, reps[ru]]), np.concatenate([tv, reps[rv]])
    lo, hi = np.minimum(tu, tv), np.maximum(tu, tv)
    order = np.lexsort((hi, lo))
    lo, hi = lo[order], hi[order]
    return lo, hi, graph.pair_distances(lo, hi)


METHODS = {"kruskal": _kruskal, "prim": _prim}


def minimum_spanning_edges(graph, method="auto"):
    """The exact minimum spanning tree of a :class:`RecordGraph`, as edge arrays.

    Parameters
    ----------
    graph : RecordGraph
    method : {"auto", "kruskal", "prim"}
        ``"auto"`` is Kruskal up to :data:`KRUSKAL_MAX_NODES` nodes, Prim
        above.

    Returns
    -------
    u, v : ndarray of int64, shape (n_nodes - 1,)
        End points (node indices) of every tree edge.
    w : ndarray of float, shape (n_nodes - 1,)
        Edge weights.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> from kanon_graph.records import RecordGraph, minimum_spanning_edges
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> g = RecordGraph(data)
    >>> a = minimum_spanning_edges(g, "kruskal")[2].sum()
    >>> b = minimum_spanning_edges(g, "prim")[2].sum()
    >>> bool(abs(a - b) < 1e-9), round(float(a), 3)
    (True, 15.667)
    """
    if method == "auto":
        method = "kruskal" if graph.n_nodes <= KRUSKAL_MAX_NODES else "prim"
    if method not in METHODS:
        raise ValueError(f"The 'method' parameter of minimum_spanning_edges must be one of "
                         f"{['auto', *METHODS]}. Got {method!r}.")
    if graph.n_nodes <= 1:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    return METHODS[method](graph)
