"""SD's first step: the distinct quasi-identifier tuples, in SD's sorted order.

Both variants of :func:`~kanon_graph.clustering.spatial_distance` work on
distinct tuples with multiplicities; this module builds them (Figure 3,
step 1 of paper 000: sorted ascending on the attribute with most distinct
values, ties broken by the quasi-identifiers in schema order, so identical
tuples are adjacent and nothing depends on row order) and, at the end, hands
each tuple's records back to the classes chosen for them.

References
----------
Sarrafi Aghdam & Sonehara, "On enhancing data utility in k-anonymization
for data without hierarchical taxonomies", IJCSI (2016): section 4.2,
Figure 3, step 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...encoding import combine_codes

__all__ = ["SDTuples", "sd_tuples", "records_to_classes"]


@dataclass(frozen=True)
class SDTuples:
    """The distinct tuples of a table, in SD's order (``u`` of them).

    Attributes
    ----------
    cat : ndarray (u, c) of int64
        Dense codes of the categorical attributes (0..distinct-1, numbers of
        a numeric attribute's codes by value), schema order.
    num : ndarray (u, p)
        Numeric attributes divided by their range (eq. 5's normalization).
    codes : ndarray (u, d) of int64
        The encoded codes (hierarchy leaf codes) of every quasi-identifier.
    weight : ndarray (u,) of int64
        Records per tuple.
    rows, starts : ndarray
        ``rows[starts[t]:starts[t + 1]]`` are tuple ``t``'s records, in row order.
    sort_attribute : str
        The attribute with most distinct values.
    sorted_numeric : int
        Index into ``num`` of the sort attribute when it is numeric, else -1.
    """

    cat: np.ndarray
    num: np.ndarray
    codes: np.ndarray
    weight: np.ndarray
    rows: np.ndarray
    starts: np.ndarray
    sort_attribute: str
    sorted_numeric: int


def sd_tuples(data):
    """Distinct quasi-identifier tuples of ``data`` in SD's sorted order.

    Parameters
    ----------
    data : EncodedTable

    Returns
    -------
    SDTuples
    """
    dense, cards, numeric = [], [], []
    for attr in data.attributes:
        source = attr.values if attr.kind == "numeric" else attr.codes
        _, inverse = np.unique(source, return_inverse=True)     # numbers by value
        dense.append(inverse.reshape(-1).astype(np.int64))
        cards.append(int(inverse.max()) + 1)
    keys = combine_codes(dense, cards)
    _, first, inverse, weight = np.unique(keys, return_index=True, return_inverse=True,
                                          return_counts=True)
    inverse = inverse.reshape(-1)
    sort_attr = int(np.argmax(cards))
    # sorted on the sort attribute, ties by the quasi-identifiers in schema order
    rank = np.lexsort([d[first] for d in dense[::-1]] + [dense[sort_attr][first]])
    position = np.empty_like(rank)
    position[rank] = np.arange(len(rank))
    tuple_of_row = position[inverse]
    rows = np.argsort(tuple_of_row, kind="stable")
    starts = np.searchsorted(tuple_of_row[rows], np.arange(len(rank) + 1))
    reps = first[rank]
    cat_cols = [d[reps] for a, d in zip(data.attributes, dense) if a.kind != "numeric"]
    for attr in data.attributes:
        if attr.kind == "numeric":
            span = float(attr.values.max() - attr.values.min())
            numeric.append(attr.values[reps] / span if span > 0 else np.zeros(len(rank)))
    n_u = len(rank)
    cat = np.column_stack(cat_cols) if cat_cols else np.zeros((n_u, 0), np.int64)
    num = np.column_stack(numeric) if numeric else np.zeros((n_u, 0))
    codes = np.column_stack([a.codes[reps] for a in data.attributes]).astype(np.int64)
    numeric_names = [a.name for a in data.attributes if a.kind == "numeric"]
    name = data.names[sort_attr]
    js = numeric_names.index(name) if name in numeric_names else -1
    if js >= 0 and np.any(np.diff(num[:, js]) < 0):
        js = -1
    return SDTuples(np.ascontiguousarray(cat, np.int64), np.ascontiguousarray(num, float),
                    np.ascontiguousarray(codes), weight[rank].astype(np.int64), rows, starts,
                    name, js)


def records_to_classes(tuples, picks, owner, n):
    """Class of every record: tuple ``picks[i]`` gives one record to class ``owner[i]``.

    Each tuple's records are handed out in row order, in the order of the picks.

    Returns
    -------
    ndarray (n,) of int64
        ``-1`` for records no pick covers (suppressed).
    """
    class_of = np.full(n, -1, dtype=np.int64)
    order = np.argsort(picks, kind="stable")
    cursor = tuples.starts[picks[order]] + _rank_within(picks[order])
    class_of[tuples.rows[cursor]] = owner[order]
    return class_of


def _rank_within(sorted_ids):
    """0, 1, 2, ... within each run of equal ids of a sorted array."""
    idx = np.arange(len(sorted_ids))
    run_start = np.r_[0, np.flatnonzero(np.diff(sorted_ids)) + 1] if len(idx) else idx
    starts = np.zeros(len(idx), dtype=np.int64)
    starts[run_start] = run_start
    return idx - np.maximum.accumulate(starts)
