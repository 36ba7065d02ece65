"""The record distance graph and the clusterings that walk it.

* :mod:`~kanon_graph.records.distances` -- per-attribute distances between
  codes (HDist by default) and their open registry;
* :class:`RecordGraph` -- the implicit complete graph over distinct
  quasi-identifier tuples, with multiplicities;
* :func:`minimum_spanning_edges` -- its exact MST (Kruskal or Prim);
* :func:`mst_local_recoding` -- paper 003's MST-partition local recoding,
  registered as ``algorithm="mst"``;
* :func:`merge_failing_classes` -- merge the classes of any clustering that
  fail l-diversity / t-closeness into their nearest classes.
"""

from .distances import (LevelGap, NumericGap, distance_names, get_distance, hdist_distance,
                        loss_distance,
                        lca_levels, register_distance, unregister_distance)
from .failing import merge_failing_classes
from .graph import RecordGraph
from .merge import merge_small_classes
from .mst import minimum_spanning_edges
from .partition import mst_local_recoding, split_mst, split_mst_feasible

__all__ = [
    "LevelGap",
    "NumericGap",
    "RecordGraph",
    "distance_names",
    "get_distance",
    "hdist_distance",
    "loss_distance",
    "lca_levels",
    "merge_failing_classes",
    "merge_small_classes",
    "minimum_spanning_edges",
    "mst_local_recoding",
    "register_distance",
    "split_mst",
    "split_mst_feasible",
    "unregister_distance",
]
