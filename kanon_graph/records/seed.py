"""A second starting partition for the graph refinement: Mondrian's cuts.

The graph algorithms (``mst`` and ``sd``, default variants) grow classes from
single tuples by least-cost merging along graph edges, then refine them by
moving tuples along the same edges. Least-cost merging overshoots: two
classes of ``k - 1`` records become one of ``2k - 2``, and single-tuple
moves cannot split it again. Mondrian's median cuts (LeFevre et al. 2006)
give classes of ``k`` to ``2k - 1`` records that are boxes in every
attribute. Started from them, the same refinement lowers the loss further,
as ARX's local recoding starts from its global optimum and improves it.
:func:`mondrian_seed` maps Mondrian's record classes onto the graph's nodes;
the caller merges what falls below ``k`` and refines, and keeps whichever of
the two starts ends lower (``start="best"``).

Measured (issue 22's quality suite, ``benchmarks/quality.py``): see
docs/algorithms/mst.md, "Why the graph lost off Adult".

References
----------
LeFevre, DeWitt & Ramakrishnan, "Mondrian multidimensional k-anonymity" (2006).
"""

from __future__ import annotations

import numpy as np

__all__ = ["STARTS", "mondrian_seed"]

STARTS = ("best", "graph", "mondrian")
"""``start`` values of the graph variants: both starts (keep the lower loss), or one."""


def mondrian_seed(data, node_of, n_nodes, model, rng=None):
    """Mondrian's classes as one label per graph node, or ``None`` when it does not apply.

    A node (distinct tuple) whose records Mondrian put in several classes
    takes the class of its first record; classes left below ``k`` are the
    caller's to merge. ``None`` when Mondrian suppresses a record or fails.

    Parameters
    ----------
    data : EncodedTable
    node_of : ndarray (n,)
        The node of every record.
    n_nodes : int
    model : PrivacyModel

    Returns
    -------
    ndarray of int64 (n_nodes,) or None

    Examples
    --------
    >>> import kanon_graph as kg
    >>> from kanon_graph.records import RecordGraph
    >>> from kanon_graph.privacy import PrivacyModel
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> g = RecordGraph(data)
    >>> mondrian_seed(data, g.node_of, g.n_nodes, PrivacyModel(k=3)).tolist()
    [0, 0, 0, 2, 2, 2, 2, 1, 1, 1]
    """
    from ..baselines.mondrian import mondrian     # lazily: baselines import records

    try:
        part = mondrian(data, model, rng=rng)
    except Exception:           # pragma: no cover - mondrian refuses some models; no seed then
        return None
    class_of = np.asarray(part.class_of)
    if len(class_of) != len(node_of) or (class_of < 0).any():
        return None
    labels = np.full(n_nodes, -1, dtype=np.int64)
    first = np.unique(node_of, return_index=True)[1]
    labels[node_of[first]] = class_of[first]
    return np.unique(labels, return_inverse=True)[1].reshape(-1).astype(np.int64)
