"""Clusterings that walk the record distance graph.

* :mod:`.sd_distance` -- SpatialDistance's hierarchy-free value distances
  (numeric eq. 5, contingency-table categorical distances);
* :mod:`.spatial_distance` -- the SD greedy algorithm, registered as
  ``algorithm="sd"``.
* :mod:`.sd_graph` -- SD's distances on the record graph (per-attribute
  distance ``"sd"``, and the reference-conditioned record distance).
* :mod:`.sensitive` -- Bhaladhare & Jinwala's sensitive-attribute clustering,
  registered as ``algorithm="sensitive-clustering"``.
"""

from .sensitive import sensitive_clustering
from .sd_distance import (ContingencyDistances, contingency_distances, numeric_distances,
                          sd_value_distances)
from .sd_graph import sd_attribute_distance, sd_record_distance
from .spatial_distance import spatial_distance

__all__ = [
    "ContingencyDistances",
    "contingency_distances",
    "numeric_distances",
    "sd_attribute_distance",
    "sd_record_distance",
    "sd_value_distances",
    "sensitive_clustering",
    "spatial_distance",
]
