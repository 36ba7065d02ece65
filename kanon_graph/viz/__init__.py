"""Pictures of the three graphs, as pure functions.

Every function here returns text, DOT lines or a graph object and touches no
file; :func:`write_dot` is the thin wrapper that writes DOT lines to disk.

* hierarchy trees: :func:`hierarchy_text`, :func:`hierarchy_dot`,
  :func:`hierarchy_to_networkx`;
* original against released distributions (needs matplotlib):
  :mod:`kanon_graph.viz.distribution`; the lattice's Hasse diagram:
  :func:`kanon_graph.lattice.lattice_dot`.
"""

from .hierarchy import hierarchy_dot, hierarchy_text, hierarchy_to_networkx, write_dot

__all__ = ["hierarchy_dot", "hierarchy_text", "hierarchy_to_networkx", "write_dot"]
