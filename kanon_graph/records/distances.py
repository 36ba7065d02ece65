"""Per-attribute distances between codes, found through an open registry.

A per-attribute distance is a plain function::

    def my_distance(attr: EncodedAttribute) -> ndarray of shape (m, m)

returning the float distance between every pair of the attribute's codes
(``m = len(attr.domain)``; a code is a leaf index of the attribute's
hierarchy, or an index into its sorted distinct values). The distance
between two records is the sum, over the quasi-identifiers, of these
matrices looked up at the records' codes, so "distances from one record to
all records" is a gather and a sum per attribute.

When an ``m x m`` matrix would be too large, a distance may instead return
one of the lazy descriptions below, which the record graph evaluates on the
fly: :class:`NumericGap` (``|x - y| * scale``) or :class:`LevelGap`
(a weight per level of the lowest common ancestor in a hierarchy).

Register a distance with :func:`register_distance`; the record graph
(:class:`~kanon_graph.records.RecordGraph`) looks names up with
:func:`get_distance`.

References
----------
.. [003] Venkata Ramana & Valli Kumari, "Graph based local recoding for data
   anonymization" (2013), Definitions 4-7, eq. (1)-(4).
.. [000] Sarrafi Aghdam & Sonehara, "On enhancing data utility in
   k-anonymization for data without hierarchical taxonomies" (2016), eq. (5).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._plugins import Registry

__all__ = [
    "MAX_MATRIX_CODES",
    "LevelGap",
    "NumericGap",
    "distance_names",
    "get_distance",
    "hdist_distance",
    "loss_distance",
    "lca_levels",
    "register_distance",
    "unregister_distance",
]

MAX_MATRIX_CODES = 4096
"""Above this many codes the built-in distances are evaluated on the fly."""


@dataclass(frozen=True)
class NumericGap:
    """Lazy per-attribute distance ``|values[a] - values[b]| * scale``."""

    values: np.ndarray
    scale: float

    def row(self, code, codes):
        return np.abs(self.values[codes] - self.values[code]) * self.scale


@dataclass(frozen=True)
class LevelGap:
    """Lazy per-attribute distance ``weights[L]``, ``L`` the level of the codes' LCA.

    ``level_map`` is the hierarchy's ``(H + 1, m)`` array of ancestors.
    ``weights`` is either one weight per level, shape ``(H + 1,)``, or one
    per level and code, shape ``(H + 1, m)``: ``weights[L, a]`` is then the
    weight of ``a``'s ancestor at level ``L`` (the same for both codes of a
    pair whose LCA sits at ``L``), e.g. that ancestor's ARX cell loss.
    """

    level_map: np.ndarray
    weights: np.ndarray

    def row(self, code, codes):
        level = np.full(len(codes), self.level_map.shape[0] - 1, dtype=np.int64)
        for l in range(self.level_map.shape[0] - 2, -1, -1):
            same = self.level_map[l][codes] == self.level_map[l][code]
            level[same] = l
        return self.weight(level, np.asarray(codes))

    def weight(self, level, codes):
        """Weights of pairs meeting at ``level`` (arrays), ``codes`` one end of each pair."""
        w = np.asarray(self.weights)
        return w[level] if w.ndim == 1 else w[level, codes]


#: SD's distance (paper 000) is registered by the clustering family above this room,
#: loaded by name on its first lookup (:mod:`kanon_graph._plugins`).
_REGISTRY = Registry("distance", builtins={"sd": ("kanon_graph.clustering.sd.graph_distances",)})
_DISTANCES = _REGISTRY.entries


def register_distance(name, function=None, *, replace=False):
    """Register ``function(attr) -> (m, m) array`` as per-attribute distance ``name``.

    Usable as a decorator.

    Parameters
    ----------
    name : str
    function : callable
        ``function(attr: EncodedAttribute) -> ndarray (m, m)`` (or a
        :class:`NumericGap` / :class:`LevelGap` for large domains).
    replace : bool
        Allow replacing an existing registration.

    Examples
    --------
    >>> import numpy as np
    >>> from kanon_graph.records import register_distance, get_distance
    >>> @register_distance("same-or-not")
    ... def same_or_not(attr):
    ...     m = len(attr.domain)
    ...     return 1.0 - np.eye(m)
    >>> get_distance("same-or-not") is same_or_not
    True
    >>> unregister_distance("same-or-not")
    """
    if not isinstance(name, str):
        raise ValueError(f"The 'name' parameter of register_distance must be a str. Got {name!r}.")

    def decorate(fn):
        if not callable(fn):
            raise ValueError(f"The 'function' parameter of register_distance must be callable. "
                             f"Got {fn!r}.")
        _REGISTRY.add(name, fn, replace=replace)
        return fn

    return decorate if function is None else decorate(function)


def unregister_distance(name):
    """Remove a registered distance."""
    _REGISTRY.remove(name)


def get_distance(name):
    """The per-attribute distance registered as ``name``; unknown names list the known ones."""
    return _REGISTRY.get(name)


def distance_names():
    """Names of the registered per-attribute distances, sorted."""
    return _REGISTRY.names()


def lca_levels(hierarchy):
    """``(m, m)`` int array: the level of the lowest common ancestor of two leaves.

    Examples
    --------
    >>> from kanon_graph.datasets import paper_003_hierarchies
    >>> age = paper_003_hierarchies()["age"]
    >>> codes = age.encode([21, 24, 26, 36])
    >>> lca_levels(age)[codes][:, codes].tolist()
    [[0, 1, 2, 3], [1, 0, 2, 3], [2, 2, 0, 3], [3, 3, 3, 0]]
    """
    m = hierarchy.n_leaves
    level = np.full((m, m), hierarchy.height, dtype=np.int64)
    for l in range(hierarchy.height - 1, -1, -1):
        anc = hierarchy.level_map[l]
        level[anc[:, None] == anc[None, :]] = l
    return level


def hdist_distance(attr):
    """HDist per attribute: ``CHD(a, lca) + CHD(b, lca) = 2 L / H``.

    With a hierarchy of height ``H``, two leaves whose lowest common ancestor
    sits at level ``L`` are ``2 L / H`` apart ([003] Definitions 4-6,
    eq. (1)-(3)). Without a hierarchy a numeric attribute uses
    ``|x - y| / (max - min)`` over the column ([000] eq. (5)) and a
    categorical one 0 for equal values, 1 otherwise. Above
    :data:`MAX_MATRIX_CODES` codes the lazy :class:`LevelGap` /
    :class:`NumericGap` is returned instead of a matrix.

    Parameters
    ----------
    attr : EncodedAttribute

    Returns
    -------
    ndarray of shape (m, m), or NumericGap / LevelGap

    Examples
    --------
    >>> import kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> age = data.attribute("age")
    >>> d = hdist_distance(age)
    >>> round(float(d[age.codes[1], age.codes[2]]), 4)   # 24 vs 25: LCA [20-25]
    0.6667
    """
    h = attr.hierarchy
    m = len(attr.domain)
    if h is not None:
        weights = (2.0 * np.arange(h.height + 1) / h.height) if h.height else np.zeros(1)
        if m > MAX_MATRIX_CODES:
            return LevelGap(np.vstack(h.level_map), weights)
        return weights[lca_levels(h)]
    if attr.kind == "numeric":
        values = np.asarray([float(v) for v in attr.domain]) if attr.values is None else None
        if values is None:
            values = np.zeros(m)
            values[attr.codes] = attr.values
        span = float(values.max() - values.min()) if m else 0.0
        scale = 1.0 / span if span > 0 else 0.0
        if m > MAX_MATRIX_CODES:
            return NumericGap(values, scale)
        return np.abs(values[:, None] - values[None, :]) * scale
    if m > MAX_MATRIX_CODES:
        return LevelGap(np.vstack([np.arange(m), np.zeros(m, dtype=np.int64)]),
                        np.array([0.0, 1.0]))
    return 1.0 - np.eye(m)


register_distance("hdist", hdist_distance)


def loss_distance(attr):
    """The ARX Loss of releasing two values together: the cost the release is scored by.

    With a hierarchy, two leaves whose lowest common ancestor ``c`` covers
    ``n_c`` of the hierarchy's ``N`` leaves are ``(n_c - 1) / (N - 1)``
    apart: ARX's cell loss of ``c``, what each of the two records costs on
    this attribute if they share a class and nothing else widens it. So a
    zip's first masked digit (10 of 1,000 leaves) is cheap and a date's year
    (365 of 25,000 days) cheaper still, whatever the levels' depths --
    unlike HDist's ``2 L / H``, which prices every level by its depth alone.
    Without a hierarchy: ``|x - y| / (max - min)`` (numeric; the range's
    loss), ``1 / (m - 1)`` for two different categorical values (a set of
    two). Above :data:`MAX_MATRIX_CODES` codes a :class:`LevelGap` holds the
    cell loss of every code's ancestor at every level, so the distance is
    exact there too.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> age = data.attribute("age")
    >>> d = loss_distance(age)
    >>> bool(d[age.codes[1], age.codes[2]] < d[age.codes[0], age.codes[9]])
    True
    """
    h = attr.hierarchy
    m = len(attr.domain)
    if h is not None:
        leaves = h.n_leaves
        if leaves <= 1:
            return np.zeros((m, m))
        cost = [(np.asarray(c, dtype=float) - 1.0) / (leaves - 1) for c in h.leaf_counts]
        if m > MAX_MATRIX_CODES:
            weights = np.vstack([cost[l][h.level_map[l][:m]] for l in range(h.height + 1)])
            return LevelGap(np.vstack([lm[:m] for lm in h.level_map]), weights)
        level = lca_levels(h)[:m, :m]
        out = np.zeros((m, m))
        for l in range(h.height + 1):
            at = level == l
            anc = h.level_map[l][:m]
            out[at] = cost[l][np.broadcast_to(anc[:, None], (m, m))[at]]
        return out
    if attr.kind == "numeric":
        return hdist_distance(attr)
    step = 1.0 / (m - 1) if m > 1 else 0.0
    if m > MAX_MATRIX_CODES:
        return LevelGap(np.vstack([np.arange(m), np.zeros(m, dtype=np.int64)]),
                        np.array([0.0, step]))
    return (1.0 - np.eye(m)) * step


register_distance("loss", loss_distance)
