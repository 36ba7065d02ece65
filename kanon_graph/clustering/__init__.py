"""Clusterings that walk the record distance graph.

* :mod:`.sd` -- SpatialDistance (paper 000): its hierarchy-free value
  distances (numeric eq. 5, contingency-table categorical distances), its
  distances as record-graph plug-ins, and the clustering registered as
  ``algorithm="sd"`` (variants ``"graph"`` and ``"paper"``).
* :mod:`.sensitive` -- Bhaladhare & Jinwala's sensitive-attribute clustering,
  registered as ``algorithm="sensitive-clustering"``.
"""

from .sd import (ContingencyDistances, contingency_distances, numeric_distances,
                 sd_attribute_distance, sd_record_distance, sd_value_distances,
                 spatial_distance)
from .sensitive import sensitive_clustering

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
