"""Add your own record distance and run the MST algorithm with it.

Run ``python examples/custom_distance.py``. A per-attribute distance is a
function ``fn(attr) -> (m, m) array`` over the attribute's codes (see
:func:`kanon_graph.records.register_distance`); here, 0 for equal values and
1 otherwise (the Hamming distance, ignoring the hierarchy).
"""

import numpy as np

import kanon_graph as kg
from kanon_graph.records import RecordGraph, register_distance, unregister_distance


@register_distance("hamming")
def hamming(attr):
    """0 between equal values, 1 between different ones."""
    m = len(attr.domain)
    return 1.0 - np.eye(m)


table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
try:
    graph = RecordGraph(kg.encode(table, schema), distance="hamming")
    print(f"r1-r2 distance: {graph.distances_from(0)[1]:.1f}")
    for distance in ("hdist", "hamming"):
        result = kg.anonymize(table, schema, k=3, algorithm="mst", distance=distance)
        print(f"{distance}: classes {[c.tolist() for c in result.classes]}, "
              f"ncp {result.metrics['ncp']:.4f}")
finally:
    unregister_distance("hamming")
