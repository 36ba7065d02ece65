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

The RV searches live in the subpackage :mod:`kanon_graph.lattice.rv`.
"""

import importlib

# "optimal" names both a function and its submodule: imported here, so the package
# attribute is the function whatever imports the submodule later
from .optimal import NODE_METRICS, OptimalResult, node_metric, optimal, optimal_search

#: Every other public name and the submodule that defines it, loaded on first use: the
#: ``optimal`` search does not pay for the RV searches, the SQL engine or the DOT export.
_NAMES = {
    "MAX_NODES": "lattice", "STATUSES": "lattice", "Lattice": "lattice",
    "PruningState": "lattice", "StatusMap": "lattice", "chain_up": "lattice",
    "binding_boundaries": "capped", "boundary_levels": "capped",
    "FrequencyEngine": "frequency", "FrequencySet": "frequency",
    "suppression_budget": "frequency",
    "lattice_dot": "dot", "lattice_dot_lines": "dot",
    "SQLFrequencyEngine": "sql", "duckdb_available": "sql",
    "PrePruning": "rv.prepruning", "prepruning": "rv.prepruning",
    "ResearchValues": "rv.values", "Rule": "rv.values", "correlation_weights": "rv.values",
    "research_values": "rv.values",
    "rv_global": "rv.search_global", "rv_local": "rv.search_local",
    "rv_hybrid": "rv.search_hybrid", "rv_distributed": "rv.search_distributed",
}


def __getattr__(name):
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_NAMES[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_NAMES))


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
