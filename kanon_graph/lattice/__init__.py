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
  (registered as algorithm ``"optimal"``);
* :func:`research_values` -- the research value (RV) of every level (Morton
  et al. 2012, section 4), :func:`prepruning` (Figure 3), and the RV searches
  :func:`rv_global` (Figure 4), :func:`rv_local` (Figure 5),
  :func:`rv_hybrid` (5.3.4) and :func:`rv_distributed` (5.3.5), registered as
  ``"rv-global"``, ``"rv-local"``, ``"rv-hybrid"`` and ``"rv-distributed"``;
* :func:`boundary_levels` and the capped recodings every search uses with
  ``respect_boundaries=True`` (generalization boundaries, Hussien et al.
  2016; :mod:`kanon_graph.lattice.capped`).
"""

from .lattice import MAX_NODES, STATUSES, Lattice, PruningState, StatusMap, chain_up
from .capped import binding_boundaries, boundary_levels
from .frequency import FrequencyEngine, FrequencySet, suppression_budget
from .dot import lattice_dot, lattice_dot_lines
from .sql import SQLFrequencyEngine, duckdb_available
from .optimal import NODE_METRICS, OptimalResult, node_metric, optimal, optimal_search
from .rv import ResearchValues, Rule, correlation_weights, research_values
from .prepruning import PrePruning, prepruning
from .search_global import rv_global
from .search_local import rv_local
from .search_hybrid import rv_hybrid
from .search_distributed import rv_distributed

__all__ = [
    "FrequencyEngine",
    "FrequencySet",
    "Lattice",
    "MAX_NODES",
    "NODE_METRICS",
    "OptimalResult",
    "PrePruning",
    "PruningState",
    "ResearchValues",
    "Rule",
    "SQLFrequencyEngine",
    "STATUSES",
    "StatusMap",
    "binding_boundaries",
    "boundary_levels",
    "chain_up",
    "correlation_weights",
    "duckdb_available",
    "lattice_dot",
    "lattice_dot_lines",
    "node_metric",
    "optimal",
    "optimal_search",
    "prepruning",
    "research_values",
    "rv_distributed",
    "rv_global",
    "rv_hybrid",
    "rv_local",
    "suppression_budget",
]
