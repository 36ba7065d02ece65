"""SpatialDistance (SD, paper 000): one folder, one way through it.

* :mod:`.values` (with the kernels of :mod:`._contingency`) -- the
  hierarchy-free value distances: numeric eq. 5, contingency-table
  categorical distances (section 4.1);
* :mod:`.tuples` -- distinct tuples in SD's sorted order (Figure 3, step 1);
* :mod:`.paper` (kernels in :mod:`._greedy_kernels`) -- Figure 3's greedy
  clustering as the paper gives it, ``variant="paper"``;
* :mod:`.graph` -- nearest-neighbour merging with a priority queue on a
  k-nearest-neighbour record graph, ``variant="graph"`` (the default);
* :mod:`.centres` -- SD's class-to-class distance, for merging the classes
  that fail l-diversity / t-closeness;
* :mod:`.algorithm` -- :func:`spatial_distance`, registered as
  ``algorithm="sd"``;
* :mod:`.graph_distances` -- SD's distances as plug-ins of the record graph
  (per-attribute distance ``"sd"``, and the reference-conditioned record
  distance), used by other clusterings.
"""

from .algorithm import VARIANTS, spatial_distance
from .graph_distances import sd_attribute_distance, sd_record_distance
from .values import (ContingencyDistances, contingency_distances, numeric_distances,
                     sd_value_distances)

__all__ = [
    "ContingencyDistances",
    "VARIANTS",
    "contingency_distances",
    "numeric_distances",
    "sd_attribute_distance",
    "sd_record_distance",
    "sd_value_distances",
    "spatial_distance",
]
