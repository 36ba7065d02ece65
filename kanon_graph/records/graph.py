"""The record distance graph: an implicit complete graph over quasi-identifier tuples.

Records are nodes and the weight of an edge is the distance between two
records' quasi-identifier tuples. Identical tuples are collapsed into one
node that carries a multiplicity: their distance is 0, so every minimum
spanning tree of the records is a minimum spanning tree of the distinct
tuples plus zero-weight edges joining duplicates (same total weight). The
graph is never materialized for large n: distances from one node to all
nodes are one gather and one sum per quasi-identifier.

References
----------
.. [003] Venkata Ramana & Valli Kumari, "Graph based local recoding for data
   anonymization" (2013), Definitions 6-7, eq. (3)-(4), section 4.2.
"""

from __future__ import annotations

import numpy as np

from ..encoding import EncodedTable, combine_codes
from .distances import LevelGap, NumericGap, get_distance

__all__ = ["RecordGraph"]

MAX_DENSE_NODES = 5000
"""Largest node count for which dense matrices and explicit graphs are built."""


def _compile(attr, spec):
    """Turn a distance name / function into a matrix or a lazy gap for ``attr``."""
    fn = get_distance(spec) if isinstance(spec, str) else spec
    if not callable(fn):
        raise ValueError(f"The distance for attribute {attr.name!r} must be a registered name "
                         f"or a callable fn(attr) -> (m, m) array. Got {spec!r}.")
    out = fn(attr)
    if isinstance(out, (NumericGap, LevelGap)):
        return out
    out = np.asarray(out, dtype=float)
    m = len(attr.domain)
    if out.shape != (m, m):
        raise ValueError(f"The distance for attribute {attr.name!r} must return an ({m}, {m}) "
                         f"array (one row and column per code). Got shape {out.shape}.")
    return np.ascontiguousarray(out)


class RecordGraph:
    """Implicit complete graph over the distinct quasi-identifier tuples of a table.

    Parameters
    ----------
    data : EncodedTable
        The encoded table (see :func:`kanon_graph.encode`).
    distance : str, callable or dict, default "hdist"
        A registered per-attribute distance name (see
        :func:`~kanon_graph.records.register_distance`) used for every
        quasi-identifier; or a dict ``{attribute: name_or_fn}`` (attributes
        not listed use ``"hdist"``); or a per-attribute function
        ``fn(attr) -> (m, m)`` for every attribute. To replace the record
        distance as a whole, pass ``record_distance`` instead.
    record_distance : callable, optional
        ``fn(tuple_codes, all_codes) -> ndarray (u,)``: the distances from one
        code tuple ``(d,)`` to the ``(u, d)`` code tuples of the nodes. It
        overrides ``distance`` and disables the compiled Prim kernel.

    Attributes
    ----------
    codes : ndarray of int64, shape (u, d)
        The code tuple of every node (distinct tuples, by first appearance).
    counts : ndarray of int64, shape (u,)
        Multiplicity of every node (records sharing the tuple).
    node_of : ndarray of int64, shape (n,)
        The node of every record.
    parts : list
        Per quasi-identifier: an (m, m) matrix, a NumericGap or a LevelGap.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> from kanon_graph.records import RecordGraph
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> g = RecordGraph(data)
    >>> g.n_nodes, g.n_records
    (10, 10)
    >>> [round(float(x), 2) for x in g.distances_from(1)[:4]]   # r2 to r1..r4
    [0.67, 0.0, 0.67, 3.33]
    """

    def __init__(self, data, distance="hdist", *, record_distance=None):
        if not isinstance(data, EncodedTable):
            raise ValueError(f"The 'data' parameter of RecordGraph must be an EncodedTable "
                             f"(kg.encode(table, schema)). Got {type(data).__name__}.")
        self.data = data
        self.names = data.names
        columns = [a.codes for a in data.attributes]
        keys = combine_codes(columns, [max(a.n_codes, 1) for a in data.attributes])
        _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True,
                                              return_counts=True)
        order = np.argsort(first, kind="stable")          # nodes by first appearance
        rank = np.empty(len(first), dtype=np.int64)
        rank[order] = np.arange(len(first))
        self.node_of = rank[inverse.reshape(-1)]
        self.counts = counts[order].astype(np.int64)
        self.first_record = first[order].astype(np.int64)
        self.codes = np.ascontiguousarray(
            np.column_stack(columns)[self.first_record].astype(np.int64)
            if columns else np.zeros((len(first), 0), dtype=np.int64))
        self.record_distance = record_distance
        if record_distance is not None and not callable(record_distance):
            raise ValueError(f"The 'record_distance' parameter of RecordGraph must be callable "
                             f"fn(tuple_codes, all_codes) -> (u,) array. Got {record_distance!r}.")
        if isinstance(distance, dict):
            unknown = sorted(set(distance) - set(self.names))
            if unknown:
                raise ValueError(f"The 'distance' parameter of RecordGraph names {unknown}, "
                                 f"which are not quasi-identifiers {self.names}.")
            specs = [distance.get(n, "hdist") for n in self.names]
        else:
            specs = [distance] * len(self.names)
        self.parts = [] if record_distance is not None else [
            _compile(a, s) for a, s in zip(data.attributes, specs)]

    # ---------------------------------------------------------------- sizes
    @property
    def n_nodes(self):
        """Number of distinct quasi-identifier tuples (nodes)."""
        return len(self.counts)

    @property
    def n_records(self):
        return int(self.counts.sum())

    def records_of(self, node):
        """Row positions (in the encoded table) of the records of ``node``."""
        return np.flatnonzero(self.node_of == node)

    # ------------------------------------------------------------ distances
    def distances_to(self, tuple_codes):
        """Distances from a code tuple ``(d,)`` (a record or a centroid) to every node."""
        tuple_codes = np.asarray(tuple_codes, dtype=np.int64)
        if self.record_distance is not None:
            return np.asarray(self.record_distance(tuple_codes, self.codes), dtype=float)
        out = np.zeros(self.n_nodes)
        for a, part in enumerate(self.parts):
            col = self.codes[:, a]
            if isinstance(part, np.ndarray):
                out += part[tuple_codes[a]][col]
            else:
                out += part.row(tuple_codes[a], col)
        return out

    def pair_distances(self, i, j):
        """Distances between node pairs ``(i[e], j[e])``, one per pair (per-attribute parts only).

        Examples
        --------
        >>> import kanon_graph as kg
        >>> from kanon_graph.records import RecordGraph
        >>> g = RecordGraph(kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()))
        >>> bool(abs(g.pair_distances([0], [5])[0] - g.distances_from(0)[5]) < 1e-12)
        True
        """
        if self.record_distance is not None:
            raise ValueError("pair_distances() needs per-attribute distances; this graph has a "
                             "record_distance.")
        i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
        out = np.zeros(len(i))
        for a, part in enumerate(self.parts):
            ci, cj = self.codes[i, a], self.codes[j, a]
            if isinstance(part, np.ndarray):
                out += part[ci, cj]
            elif isinstance(part, NumericGap):
                out += np.abs(part.values[ci] - part.values[cj]) * part.scale
            else:
                top = part.level_map.shape[0] - 1
                level = np.full(len(i), top, dtype=np.int64)
                for l in range(top - 1, -1, -1):
                    level[part.level_map[l][ci] == part.level_map[l][cj]] = l
                out += part.weight(level, ci)
        return out

    def distances_from(self, node):
        """Distances from node ``node`` to every node (a vector of length ``n_nodes``)."""
        return self.distances_to(self.codes[node])

    def _check_small(self, n, what):
        if n > MAX_DENSE_NODES:
            raise ValueError(f"{what} needs n x n memory; the graph has {n} nodes, more than "
                             f"{MAX_DENSE_NODES}. Use distances_from() or mst() instead.")

    def matrix(self, *, records=False):
        """Dense distance matrix, over nodes or over records ([003] Definition 7, eq. (4)).

        Parameters
        ----------
        records : bool
            ``True``: the ``(n, n)`` matrix of the records (duplicates
            repeated); ``False``: the ``(u, u)`` matrix of the distinct tuples.
        """
        self._check_small(self.n_records if records else self.n_nodes, "matrix()")
        dense = np.vstack([self.distances_from(i) for i in range(self.n_nodes)])
        if records:
            return dense[self.node_of][:, self.node_of]
        return dense

    def edges(self):
        """All edges ``(i, j, w)`` with ``i < j`` of the node graph (small graphs only)."""
        dense = self.matrix()
        i, j = np.triu_indices(self.n_nodes, k=1)
        return i, j, dense[i, j]

    def node_labels(self, node):
        """The original values of a node's tuple, ``{attribute: value}``."""
        return {a.name: a.domain[c] for a, c in zip(self.data.attributes, self.codes[node])}

    def to_networkx(self):
        """The complete node graph as a weighted ``networkx.Graph`` (small graphs only).

        Nodes carry ``count`` (multiplicity) and ``values`` (the tuple).
        """
        import networkx as nx

        self._check_small(self.n_nodes, "to_networkx()")
        g = nx.Graph()
        for v in range(self.n_nodes):
            g.add_node(v, count=int(self.counts[v]), values=self.node_labels(v))
        i, j, w = self.edges()
        g.add_weighted_edges_from(zip(i.tolist(), j.tolist(), w.tolist()))
        return g

    def to_igraph(self):
        """The complete node graph as a weighted ``igraph.Graph`` (small graphs only)."""
        import igraph

        self._check_small(self.n_nodes, "to_igraph()")
        i, j, w = self.edges()
        g = igraph.Graph(n=self.n_nodes, edges=list(zip(i.tolist(), j.tolist())))
        g.es["weight"] = w.tolist()
        g.vs["count"] = self.counts.tolist()
        return g

    def mst(self, method="auto", *, backend="networkx"):
        """The exact minimum spanning tree of the node graph, as a weighted graph.

        Parameters
        ----------
        method : {"auto", "kruskal", "prim"}
            See :func:`~kanon_graph.records.minimum_spanning_edges`.
        backend : {"networkx", "igraph"}

        Examples
        --------
        >>> import kanon_graph as kg
        >>> from kanon_graph.records import RecordGraph
        >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
        >>> t = RecordGraph(data).mst()
        >>> t.number_of_edges(), round(t.size(weight="weight"), 2)
        (9, 15.67)
        """
        from .mst import minimum_spanning_edges

        u, v, w = minimum_spanning_edges(self, method=method)
        if backend == "networkx":
            import networkx as nx

            g = nx.Graph()
            for node in range(self.n_nodes):
                g.add_node(node, count=int(self.counts[node]))
            g.add_weighted_edges_from(zip(u.tolist(), v.tolist(), w.tolist()))
            return g
        if backend == "igraph":
            import igraph

            g = igraph.Graph(n=self.n_nodes, edges=list(zip(u.tolist(), v.tolist())))
            g.es["weight"] = w.tolist()
            g.vs["count"] = self.counts.tolist()
            return g
        raise ValueError(f"The 'backend' parameter of RecordGraph.mst must be 'networkx' or "
                         f"'igraph'. Got {backend!r}.")

    def __repr__(self):
        return (f"RecordGraph(nodes={self.n_nodes}, records={self.n_records}, "
                f"attributes={self.names})")
