"""The generalization lattice and its searches.

* :class:`Lattice` -- the implicit lattice of level vectors (generalization
  strings), with successors, predecessors, heights, the "more general" order,
  ``to_networkx`` and a DOT Hasse diagram;
* :class:`StatusMap` (alias ``PruningState``) -- pruning as directed
  properties: anonymous spreads up, not anonymous spreads down;
* :class:`FrequencyEngine` -- frequency sets on the integer codes with
  roll-up; :class:`SQLFrequencyEngine` -- the same counts by SQL (sqlite3,
  DuckDB);
* :func:`optimal` -- the optimal full-domain search for a metric
  (registered as algorithm ``"optimal"``).
"""

from .lattice import MAX_NODES, STATUSES, Lattice, PruningState, StatusMap, chain_up
from .frequency import FrequencyEngine, FrequencySet, suppression_budget
from .dot import lattice_dot, lattice_dot_lines
from .sql import SQLFrequencyEngine, duckdb_available
from .optimal import NODE_METRICS, OptimalResult, node_metric, optimal, optimal_search

__all__ = [
    "FrequencyEngine",
    "FrequencySet",
    "Lattice",
    "MAX_NODES",
    "NODE_METRICS",
    "OptimalResult",
    "PruningState",
    "SQLFrequencyEngine",
    "STATUSES",
    "StatusMap",
    "chain_up",
    "duckdb_available",
    "lattice_dot",
    "lattice_dot_lines",
    "node_metric",
    "optimal",
    "optimal_search",
    "suppression_budget",
]
