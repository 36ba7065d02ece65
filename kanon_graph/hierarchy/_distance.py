"""Distances defined by hierarchies: CHE and HDist (paper 003, Definitions 5-6).

CHD itself (Definition 4) is :meth:`Hierarchy.chd`. Records here are mappings
``{attribute: value}`` (or sequences aligned with ``attributes``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._tree import Hierarchy

__all__ = ["che", "hdist"]


def _items(record: Mapping[str, Any] | Sequence[Any],
           attributes: Sequence[str]) -> dict[str, Any]:
    if isinstance(record, Mapping):
        return {a: record[a] for a in attributes}
    return dict(zip(attributes, record))


def che(record: Mapping[str, Any] | Sequence[Any],
        generalized: Mapping[str, Any] | Sequence[Any], hierarchies: Mapping[str, Hierarchy],
        attributes: Sequence[str] | None = None) -> float:
    """Conceptual hierarchical effort, CHE(r, r') = sum_i CHD(a_i, a'_i).

    Venkata Ramana & Valli Kumari, "Graph based local recoding for data
    anonymization" (2013), Definition 5, eq. (2).

    Examples
    --------
    >>> from kanon_graph.datasets import paper_003_hierarchies
    >>> hier = paper_003_hierarchies()
    >>> che({"gender": "Male", "age": 24, "zip": "535280"},
    ...     {"gender": "Male", "age": "[20-40]", "zip": "5352**"}, hier)
    2.0
    """
    attributes = list(attributes if attributes is not None else hierarchies)
    r = _items(record, attributes)
    g = _items(generalized, attributes)
    return float(sum(hierarchies[a].chd(r[a], g[a]) for a in attributes))


def hdist(record: Mapping[str, Any] | Sequence[Any], other: Mapping[str, Any] | Sequence[Any],
          hierarchies: Mapping[str, Hierarchy], attributes: Sequence[str] | None = None) -> float:
    """Hierarchical distance, HDist(r1, r2) = CHE(r1, r12) + CHE(r2, r12).

    ``r12`` is the records' closest common ancestor, attribute by attribute
    (Definition 6, eq. (3)). For two leaves whose lowest common ancestor is at
    level ``L`` of a hierarchy of height ``H`` the attribute contributes
    ``2 L / H``.

    Examples
    --------
    >>> from kanon_graph.datasets import paper_003_hierarchies
    >>> hier = paper_003_hierarchies()
    >>> round(hdist({"gender": "Male", "age": 24, "zip": "535280"},
    ...             {"gender": "Male", "age": 25, "zip": "535280"}, hier), 3)
    0.667
    """
    attributes = list(attributes if attributes is not None else hierarchies)
    r1 = _items(record, attributes)
    r2 = _items(other, attributes)
    common = {a: hierarchies[a].lca([r1[a], r2[a]]) for a in attributes}
    return che(r1, common, hierarchies, attributes) + che(r2, common, hierarchies, attributes)
