"""Clusterings that walk the record distance graph.

* :mod:`.sd` -- SpatialDistance (paper 000): its hierarchy-free value
  distances (numeric eq. 5, contingency-table categorical distances), its
  distances as record-graph plug-ins, and the clustering registered as
  ``algorithm="sd"`` (variants ``"graph"`` and ``"paper"``).
* :mod:`.sensitive` -- Bhaladhare & Jinwala's sensitive-attribute clustering,
  registered as ``algorithm="sensitive-clustering"``.
* :mod:`.microaggregation` -- MDAV microaggregation (Domingo-Ferrer & Mateo-Sanz 2002;
  MDAV-generic, Domingo-Ferrer & Torra 2005), registered as
  ``algorithm="mdav"``: classes released as their means, medians or modes.
"""

from .sd import (ContingencyDistances, contingency_distances, numeric_distances,
                 sd_attribute_distance, sd_record_distance, sd_value_distances,
                 spatial_distance)
from .microaggregation import mdav, mdav_aggregates
from .sensitive import sensitive_clustering

__all__ = [
    "ContingencyDistances",
    "contingency_distances",
    "mdav",
    "mdav_aggregates",
    "numeric_distances",
    "sd_attribute_distance",
    "sd_record_distance",
    "sd_value_distances",
    "sensitive_clustering",
    "spatial_distance",
]
