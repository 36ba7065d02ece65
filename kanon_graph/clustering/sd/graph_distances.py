"""SpatialDistance's distances as distances of the record graph.

The record graph (:class:`~kanon_graph.records.RecordGraph`) takes either a
per-attribute ``(m, m)`` matrix of distances between codes, or a whole
record distance ``fn(tuple_codes, all_codes)``. SD's categorical distance
(paper 000, section 4.1) is neither fixed nor symmetric: it is measured from
a reference tuple, and conditioned on the reference's values of the
lower-cardinality attributes. Two plug-ins follow from it:

* ``"sd"`` (:func:`sd_attribute_distance`), a registered per-attribute
  distance: the attribute on its own, so nothing to condition on -- the
  contingency "row" is the attribute's marginal distribution and the scale
  starts at 1 (Definition 2) -- and symmetrized: the distance of two values
  is the mean of the two rankings, ``(M[u, v] + M[v, u]) / 2`` (the larger
  of the two would wash out most ranks: with three values, any value tied
  between the other two makes every pair 1/2). Numeric attributes use
  eq. (5).
* :func:`sd_record_distance`, a record distance: eq. (7) from the tuple the
  graph measures from, taken as SD's reference t1, to every node, with all
  the conditioning and widening of :func:`.contingency_distances`. It is
  SD's own distance, exactly, and so is not symmetric.

References
----------
Sarrafi Aghdam & Sonehara, "On enhancing data utility in k-anonymization
for data without hierarchical taxonomies" (2016), section 4.1, eq. (5)-(7).
"""

from __future__ import annotations

import numpy as np

from ...encoding import combine_codes
from ...records.distances import MAX_MATRIX_CODES, NumericGap, register_distance
from .values import contingency_distances

__all__ = ["sd_attribute_distance", "sd_record_distance"]


def _code_values(attr):
    values = np.zeros(len(attr.domain))
    values[attr.codes] = attr.values
    return values


def sd_attribute_distance(attr):
    """SD's distance between the codes of one attribute, unconditioned and symmetric.

    Parameters
    ----------
    attr : EncodedAttribute

    Returns
    -------
    ndarray of shape (m, m), or NumericGap
        Categorical: ``(M[u, v] + M[v, u]) / 2`` with ``M`` ranked on the
        attribute's marginal counts (codes absent from the data get the
        largest distance). Numeric: ``|x - y| / (max - min)`` (eq. 5).

    Examples
    --------
    >>> import pandas as pd, kanon_graph as kg
    >>> table = pd.DataFrame({"c": list("aaaaabbbc")})
    >>> data = kg.encode(table, kg.Schema(quasi_identifiers=["c"]))
    >>> sd_attribute_distance(data.attributes[0])
    array([[0.   , 0.375, 0.5  ],
           [0.375, 0.   , 0.375],
           [0.5  , 0.375, 0.   ]])
    """
    m = len(attr.domain)
    if attr.kind == "numeric":
        values = _code_values(attr)
        span = float(attr.values.max() - attr.values.min())
        scale = 1.0 / span if span > 0 else 0.0
        if m > MAX_MATRIX_CODES:
            return NumericGap(values, scale)
        return np.abs(values[:, None] - values[None, :]) * scale
    if m > MAX_MATRIX_CODES:
        raise ValueError(f"sd_attribute_distance: attribute {attr.name!r} has {m} codes, more "
                         f"than {MAX_MATRIX_CODES}; SD's ranks need an (m, m) matrix")
    codes = np.arange(m)[:, None]
    weights = np.bincount(attr.codes, minlength=m)
    ref = int(np.argmax(weights))
    matrix = contingency_distances(codes, [ref], 1, weights=weights).matrix[0, :m, :m]
    return (matrix + matrix.T) / 2


def sd_record_distance(data, *, k):
    """SD's record distance (eq. 7) from a reference tuple, for ``RecordGraph(record_distance=)``.

    Parameters
    ----------
    data : EncodedTable
        The table whose contingency tables condition the distances.
    k : int
        Contingency rows with fewer than ``k`` records are widened.

    Returns
    -------
    callable
        ``fn(tuple_codes, all_codes) -> ndarray (u,)``: the distance from
        the tuple ``tuple_codes`` (SD's t1) to each row of ``all_codes``
        (codes as in ``data``). Not symmetric.

    Examples
    --------
    >>> import pandas as pd, kanon_graph as kg
    >>> from kanon_graph.records import RecordGraph
    >>> table = pd.DataFrame({"g": ["M"] * 11 + ["F"] * 9,
    ...                       "n": list("JJJJJKKKKKC") + list("JJJCCCCCC")})
    >>> data = kg.encode(table, kg.Schema(quasi_identifiers=["g", "n"]))
    >>> g = RecordGraph(data, record_distance=sd_record_distance(data, k=3))
    >>> [float(d) for d in g.distances_from(g.node_of[0])]    # from (M, J)
    [0.0, 0.25, 0.5, 1.0, 1.5]
    """
    attrs = data.attributes
    cat_idx = [i for i, a in enumerate(attrs) if a.kind != "numeric"]
    num_idx = [i for i, a in enumerate(attrs) if a.kind == "numeric"]
    scales = []
    for i in num_idx:
        span = float(attrs[i].values.max() - attrs[i].values.min())
        scales.append((_code_values(attrs[i]), 1.0 / span if span > 0 else 0.0))
    if cat_idx:
        columns = [attrs[i].codes for i in cat_idx]
        keys = combine_codes(columns, [max(attrs[i].n_codes, 1) for i in cat_idx])
        _, first, weights = np.unique(keys, return_index=True, return_counts=True)
        tuples = np.column_stack(columns)[first]

    def distance(tuple_codes, all_codes):
        tuple_codes = np.asarray(tuple_codes, dtype=np.int64)
        all_codes = np.asarray(all_codes, dtype=np.int64)
        out = np.zeros(len(all_codes))
        for (values, scale), i in zip(scales, num_idx):
            out += np.abs(values[all_codes[:, i]] - values[tuple_codes[i]]) * scale
        if cat_idx:
            cd = contingency_distances(tuples, tuple_codes[cat_idx], k, weights=weights)
            for a, i in enumerate(cat_idx):
                out += cd.matrix[a, tuple_codes[i]][all_codes[:, i]]
        return out

    return distance


register_distance("sd", sd_attribute_distance)
