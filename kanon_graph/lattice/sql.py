"""Frequency sets by SQL, on a table that lives in a database (sqlite3, DuckDB).

Morton et al. (2012, section 2.4) compute the frequency set of a node in the
database itself, with ``COUNT(*)`` grouped by the quasi-identifiers, and test
k-anonymity with one query::

    select min(myCount) as count from (select count(*) as myCount from DB1
    group by q1, q2)

:class:`SQLFrequencyEngine` does exactly that. The records are stored once
as their leaf codes (``q0 .. q{d-1}``); every hierarchy is stored as a
mapping table ``<table>_h<j>(code, l0, l1, ..., l<h>)`` giving a leaf's
ancestor at every level, so generalizing attribute ``j`` to level ``l`` is a
join on that table and a ``GROUP BY h<j>.l<l>`` -- the "generalization
columns" of the paper's data preparation (section 5.2) without copying the
data once per level. Level 0 groups by the code itself and the root level
drops the attribute from the ``GROUP BY``.

With ``capped=True`` (generalization boundaries) the mapping table of an
attribute with MAGVals holds, per leaf and level, its *capped* ancestor (a
global node id: the value stops at its MAGVal), and its root level is
grouped like any other, since capped values need not all reach the root.

sqlite3 comes with Python; DuckDB is used when installed (``pip install
kanon_graph[sql]``). The counts are identical to
:class:`~kanon_graph.lattice.FrequencyEngine`'s.

References
----------
.. [004] Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
   anonymization method", Transactions on Data Privacy 5 (2012), sections 2.3-2.4, 5.2.
"""

from __future__ import annotations

import re
import sqlite3

import numpy as np
import pandas as pd

from .frequency import FrequencySet, _check_levels, suppression_budget

__all__ = ["SQLFrequencyEngine", "BACKENDS", "duckdb_available"]

BACKENDS = ("sqlite", "duckdb")


def duckdb_available():
    """True when the optional ``duckdb`` package can be imported."""
    try:
        import duckdb  # noqa: F401
    except ImportError:
        return False
    return True


class SQLFrequencyEngine:
    """Frequency sets and k-anonymity checks by SQL queries.

    Parameters
    ----------
    data : EncodedTable
        Every quasi-identifier needs a hierarchy (or is treated as having the
        two levels "value" and "any").
    backend : {"sqlite", "duckdb"}
        Which database to create when no ``connection`` is given (in memory).
    connection : DB-API connection, optional
        An open sqlite3 or DuckDB connection to store the tables in.
    table : str
        Name of the records table; the hierarchy tables are ``<table>_h<j>``.
    capped : bool
        Count capped recodings (values stop at their MAGVals); codes of
        attributes with MAGVals are then global node ids, as in a capped
        :class:`~kanon_graph.lattice.FrequencyEngine`.

    Attributes
    ----------
    frequency_sets_computed : int
        Queries run (each computes one node's frequency set in the database).
    rollups : int
        Always 0: the database groups the stored rows.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> eng = SQLFrequencyEngine(data)
    >>> eng.min_count((0, 3, 2)), eng.min_count((0, 0, 0))
    (4, 1)
    >>> print(eng.query((1, 0, 1)))  # doctest: +NORMALIZE_WHITESPACE
    select min(c) from (select count(*) as c from kg_records t
    join kg_records_h2 h2 on h2.code = t.q2 group by t.q1, h2.l1)
    >>> eng.is_anonymous((0, 3, 2), 4), eng.frequency_sets_computed
    (True, 3)
    """

    def __init__(self, data, *, backend="sqlite", connection=None, table="kg_records",
                 capped=False):
        if backend not in BACKENDS:
            raise ValueError(f"The 'backend' parameter of SQLFrequencyEngine must be one of "
                             f"{list(BACKENDS)}. Got {backend!r}.")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(table)):
            raise ValueError(f"The 'table' parameter of SQLFrequencyEngine must be a plain SQL "
                             f"identifier. Got {table!r}.")
        if connection is None:
            if backend == "duckdb":
                if not duckdb_available():
                    raise ImportError("SQLFrequencyEngine(backend='duckdb') needs the duckdb "
                                      "package: pip install kanon_graph[sql]")
                import duckdb

                connection = duckdb.connect()
            else:
                connection = sqlite3.connect(":memory:")
        self.data = data
        self.capped = bool(capped)
        self._capped = [a.is_capped(capped) for a in data.attributes]
        self.backend = backend
        self.connection = connection
        self.table = table
        self.heights = tuple(data.heights)
        self.n = data.records
        # weighted tuples (a counted table) sum their weights; rows are counted
        self._count = "count(*)" if data.weights is None else "sum(t.w)"
        self.frequency_sets_computed = 0
        self.rollups = 0
        self._last = None
        self._load()

    # ---------------------------------------------------------------- setup
    def _frame(self, name, frame):
        cols = ", ".join(f"{c} INTEGER" for c in frame.columns)
        self.connection.execute(f"DROP TABLE IF EXISTS {name}")
        self.connection.execute(f"CREATE TABLE {name} ({cols})")
        if self.backend == "duckdb":
            self.connection.register("kg_frame_tmp", frame)
            self.connection.execute(f"INSERT INTO {name} SELECT * FROM kg_frame_tmp")
            self.connection.unregister("kg_frame_tmp")
        else:
            marks = ", ".join("?" for _ in frame.columns)
            rows = [tuple(int(v) for v in row) for row in frame.itertuples(index=False)]
            self.connection.executemany(f"INSERT INTO {name} VALUES ({marks})", rows)

    def _load(self):
        codes = {f"q{j}": a.codes.astype(np.int64) for j, a in enumerate(self.data.attributes)}
        if self.data.weights is not None:
            codes["w"] = np.asarray(self.data.weights, dtype=np.int64)
        self._frame(self.table, pd.DataFrame(codes))
        for j, attr in enumerate(self.data.attributes):
            if self._capped[j]:
                h = attr.hierarchy
                mapping = {"code": np.arange(h.n_leaves)}
                mapping.update({f"l{l}": h.capped_map(l) for l in range(h.height + 1)})
            elif attr.hierarchy is not None:
                lm = attr.hierarchy.level_map
                mapping = {"code": lm[0]}
                mapping.update({f"l{l}": lm[l] for l in range(len(lm))})
            else:
                mapping = {"code": np.arange(attr.n_codes), "l0": np.arange(attr.n_codes),
                           "l1": np.zeros(attr.n_codes, dtype=np.int64)}
            self._frame(f"{self.table}_h{j}", pd.DataFrame(mapping))
        if self.backend == "sqlite":
            self.connection.commit()

    # -------------------------------------------------------------- queries
    def _check(self, levels):
        return _check_levels(levels, self.heights)

    def _grouped(self, levels):
        """(FROM clause with joins, list of grouped column expressions, their positions)."""
        joins, groups, where = [f"{self.table} t"], [], []
        for j, (level, height) in enumerate(zip(levels, self.heights)):
            if level == height and not self._capped[j]:
                continue
            if level == 0:
                groups.append(f"t.q{j}")
            else:
                joins.append(f"join {self.table}_h{j} h{j} on h{j}.code = t.q{j}")
                groups.append(f"h{j}.l{level}")
            where.append(j)
        return " ".join(joins), groups, where

    def query(self, levels, *, what="min"):
        """The SQL text for ``levels``: the paper's ``min(count)`` query, or the groups.

        ``what="min"`` gives ``select min(c) from (select count(*) as c ...)``;
        ``what="groups"`` selects the grouped columns and their counts.
        """
        levels = self._check(levels)
        source, groups, _ = self._grouped(levels)
        group_by = f" group by {', '.join(groups)}" if groups else ""
        if what == "groups":
            cols = ", ".join(groups + [f"{self._count} as c"])
            return f"select {cols} from {source}{group_by}"
        return f"select min(c) from (select {self._count} as c from {source}{group_by})"

    def min_count(self, levels):
        """The paper's ``min(count(GS))`` for node ``levels``, computed by the database."""
        (value,), = self.connection.execute(self.query(levels)).fetchall()
        self.frequency_sets_computed += 1
        return int(value) if value is not None else 0

    def failing_records(self, levels, k):
        """Records in groups smaller than ``k`` (one query)."""
        inner = self.query(levels, what="groups")
        sql = f"select coalesce(sum(c), 0) from ({inner}) g where c < {int(k)}"
        (value,), = self.connection.execute(sql).fetchall()
        self.frequency_sets_computed += 1
        return int(value)

    def frequency_set(self, levels):
        """The frequency set of ``levels``, ordered like :class:`FrequencyEngine`'s.

        The last one is kept, so asking twice for the same node runs one query.
        """
        levels = self._check(levels)
        if self._last is not None and self._last.levels == levels:
            return self._last
        _, groups, where = self._grouped(levels)
        rows = self.connection.execute(self.query(levels, what="groups")).fetchall()
        self.frequency_sets_computed += 1
        m = len(rows)
        codes = np.zeros((m, len(levels)), dtype=np.int64)
        if m:
            got = np.asarray(rows, dtype=np.int64).reshape(m, len(groups) + 1)
            for col, j in enumerate(where):
                codes[:, j] = got[:, col]
            counts = got[:, -1]
        else:
            counts = np.zeros(0, dtype=np.int64)
        order = np.lexsort(tuple(codes[:, j] for j in range(len(levels) - 1, -1, -1)))
        self._last = FrequencySet(levels, codes[order], counts[order])
        return self._last

    def failing_groups(self, levels, model):
        """Boolean per group of :meth:`frequency_set`: smaller than ``model.k``.

        Only k-anonymity is checked in the database; l-diversity and
        t-closeness need the sensitive values (use :class:`FrequencyEngine`).
        """
        if getattr(model, "needs_sensitive", False):
            raise ValueError("SQLFrequencyEngine checks k-anonymity only; use "
                             "FrequencyEngine for l-diversity / t-closeness")
        k = model if isinstance(model, (int, np.integer)) else model.k
        return self.frequency_set(levels).counts < k

    def is_anonymous(self, levels, model, suppression=0.0):
        """k-anonymity of node ``levels`` by SQL, with a record-suppression budget.

        Without suppression this runs the paper's ``min(count)`` query.
        """
        if getattr(model, "needs_sensitive", False):
            raise ValueError("SQLFrequencyEngine checks k-anonymity only; use "
                             "FrequencyEngine for l-diversity / t-closeness")
        k = int(model) if isinstance(model, (int, np.integer)) else model.k
        budget = suppression_budget(suppression, self.n)
        if budget == 0:
            return self.min_count(levels) >= k
        return self.failing_records(levels, k) <= budget

    def close(self):
        """Close the database connection."""
        self.connection.close()
