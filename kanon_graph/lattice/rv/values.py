"""Research value (RV): a user-driven utility of each generalization level.

Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
anonymization method" (section 4). The research value of attribute ``x`` at
generalization level ``k`` is its weight ``w_x`` times a content ratio times
the share of the data-constraint rules the level keeps:

* numeric attribute::

      RV_k = w_x * (sum_i R_i N_i at level 0) / (sum_i R_i N_i at level k)
                 * (sum DR_k) / (sum DR_0)

* categorical attribute::

      RV_k = w_x * |A_k| / |A_0| * (sum DR_k) / (sum DR_0)

``N_i`` is the number of records in group ``i`` of the level and ``R_i`` the
number of values the group spans; ``|A_k|`` is the number of distinct values
at level ``k``; ``DR`` are the importances of the data-constraint rules the
level keeps. A rule says that two sets of original values must never share a
group: ``"do not mix White and Hispanic"`` (categorical, Table 1), a boundary
``"20|21"`` or a range ``"12-18"`` (numeric).

The module also derives attribute weights from the raw data's association
matrix (:func:`correlation_weights`) and assembles per-level tables
(:func:`research_values`), or takes them as given (Table 3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .rules import Rule, _share, rule_ratio
from .weights import correlation_weights

__all__ = ["Rule", "numeric_rv", "categorical_rv", "rule_ratio", "correlation_weights",
           "research_values", "ResearchValues"]

def numeric_rv(weight, counts, spans, *, base=None, kept=1.0, total=1.0):
    """RV_k of a numeric attribute at one level (Morton et al., section 4).

    The paper's formula puts the level-``k`` sum on top, but its worked
    example (and the remark that RV falls as groups widen, and equals
    ``w_x`` at level 0) puts the level-0 sum on top. This follows the worked
    example: ``w * base / sum(counts * spans) * kept / total``.

    Parameters
    ----------
    weight : float
        ``w_x``, the attribute's weight.
    counts, spans : sequence of float
        Per group of the level: the records it holds (``N_i``) and the
        number of values it spans (``R_i``).
    base : float, optional
        ``sum_i R_i N_i`` at the most specific level; by default
        ``sum(counts)`` (every original value spans 1).
    kept, total : float
        Sum of the importances of the rules the level keeps (``sum DR_k``)
        and of all rules (``sum DR_0``).

    Examples
    --------
    The worked example of section 4:

    >>> round(numeric_rv(0.2, [25, 45, 55], [10, 15, 25], base=125 * 1,
    ...                  kept=50, total=100), 4)
    0.0054
    """
    counts = np.asarray(counts, dtype=float)
    spans = np.asarray(spans, dtype=float)
    base = float(counts.sum()) if base is None else float(base)
    spread = float((counts * spans).sum())
    if spread <= 0:
        return 0.0
    return float(weight) * base / spread * _share(kept, total)


def categorical_rv(weight, distinct, distinct0, *, kept=1.0, total=1.0):
    """RV_k of a categorical attribute: ``w * |A_k| / |A_0| * kept / total``.

    Examples
    --------
    Race with 4 values generalized to 2, keeping the rules worth 30 of 40:

    >>> categorical_rv(0.4, 2, 4, kept=30, total=40)
    0.15000000000000002
    """
    if distinct0 <= 0:
        return 0.0
    return float(weight) * float(distinct) / float(distinct0) * _share(kept, total)


# ------------------------------------------------------------ the tables
@dataclass(frozen=True)
class ResearchValues:
    """RV of every level of every quasi-identifier.

    Attributes
    ----------
    names : tuple of str
    tables : tuple of tuple of float
        ``tables[i][l]`` is the RV of attribute ``names[i]`` at level ``l``.
    weights : tuple of float
        The normalized weights used (``nan`` where a table was given).
    """

    names: tuple
    tables: tuple
    weights: tuple

    def total(self, levels):
        """Total RV of a generalization string (the sum over attributes, rounded to 10 decimals)."""
        return round(float(sum(t[l] for t, l in zip(self.tables, levels))), 10)

    def frame(self):
        """A DataFrame: one row per (attribute, level) with its RV."""
        import pandas as pd
        rows = [(n, l, v) for n, t in zip(self.names, self.tables) for l, v in enumerate(t)]
        return pd.DataFrame(rows, columns=["attribute", "level", "rv"])


def _level_rv(attr, level, weight, ratio, capped=False, root_zero=True, counts=None):
    """RV of one level; ``counts``: the records each row stands for (ones by default)."""
    counts = np.ones(attr.codes.size) if counts is None else counts
    h = attr.hierarchy
    height = attr.height
    if attr.is_capped(capped):
        # capped recoding: values stopped by their MAGVal keep their own node
        mapped = h.capped_map(level)[attr.codes]
        if root_zero and (mapped >= h.node_offsets[height]).all():
            return 0.0          # every value reached the root: "any"
        spans = np.concatenate(h.leaf_counts)[mapped]
        if attr.kind == "numeric":
            return numeric_rv(weight, counts, spans, kept=ratio, total=1.0)
        return categorical_rv(weight, np.unique(mapped).size, np.unique(attr.codes).size,
                              kept=ratio, total=1.0)
    if level == height:
        return 0.0
    if h is None:
        return weight * ratio
    mapped = h.level_map[level][attr.codes]
    if attr.kind == "numeric":
        spans = h.leaf_counts[level][mapped]
        return numeric_rv(weight, counts, spans, kept=ratio, total=1.0)
    distinct0 = np.unique(attr.codes).size
    return categorical_rv(weight, np.unique(mapped).size, distinct0, kept=ratio, total=1.0)


def _weights(data, weights):
    names = data.names
    if weights is None:
        return {n: 1.0 / len(names) for n in names}
    if isinstance(weights, str):
        if weights != "correlation":
            raise ValueError(f"The 'weights' parameter must be a dict of attribute weights or "
                             f"'correlation'. Got {weights!r}.")
        return correlation_weights(data)
    unknown = sorted(set(weights) - set(names))
    missing = [n for n in names if n not in weights]
    if unknown or missing:
        raise ValueError(f"The 'weights' parameter must give a weight for every "
                         f"quasi-identifier {names}; unknown {unknown}, missing {missing}.")
    values = np.array([weights[n] for n in names], dtype=float)
    if not np.isfinite(values).all() or (values < 0).any() or values.sum() <= 0:
        raise ValueError(f"The 'weights' parameter must hold non-negative numbers with a "
                         f"positive sum. Got {dict(weights)!r}.")
    return dict(zip(names, values / values.sum()))


def _given_table(attr, table):
    values = np.asarray(table, dtype=float)
    if values.shape != (attr.height + 1,) or not np.isfinite(values).all():
        raise ValueError(f"The RV table of {attr.name!r} must hold {attr.height + 1} finite "
                         f"numbers (levels 0..{attr.height}). Got {list(table)!r}.")
    if (np.diff(values) > 1e-12).any():
        raise ValueError(f"The RV table of {attr.name!r} must not increase with the level "
                         f"(a more general level cannot have more research value). "
                         f"Got {list(table)!r}.")
    return tuple(float(v) for v in values)


def research_values(data, *, weights=None, rules=None, rv_tables=None, root_zero=True,
                    respect_boundaries=False):
    """The RV of every level of every quasi-identifier (Morton et al., section 4).

    Parameters
    ----------
    data : EncodedTable
    weights : dict, "correlation" or None
        Attribute weights ``w_x`` (normalized to sum 1); ``"correlation"``
        derives them with :func:`correlation_weights`; ``None``: equal.
    rules : dict of str to list, optional
        Data-constraint rules per attribute (see :class:`Rule`).
    rv_tables : dict of str to sequence of float, optional
        RV per level given directly for some attributes (Table 3); used as
        given (already weighted), and must not increase with the level.
    root_zero : bool
        The root level ("any") has research value 0 (section 5.2), rather
        than the ratio the formula gives. A table computed here is
        non-increasing in the level either way.
    respect_boundaries : bool
        Compute every level as a capped recoding (values stop at their
        MAGVals, Hussien et al. 2016): group counts, spans and the rules
        kept are those of the capped values; a level is the root level
        ("any") only when every value reaches the root.

    Returns
    -------
    ResearchValues

    Notes
    -----
    ``R_i`` of a numeric group is the number of hierarchy leaves under its
    node (the values it spans; ``hi - lo + 1`` for integer leaves), ``N_i``
    its records (weighted rows count their weight), so the level-0 sum is ``n``. ``|A_k|`` counts the values
    at level ``k`` that occur in the data. An attribute without a hierarchy
    has level 0 (RV ``w_x``) and level 1 (the root).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> rv = research_values(data, weights={"gender": 1, "age": 2, "zip": 1},
    ...                      rules={"age": [("25|26", 1), ("30|31", 1)]})
    >>> [round(v, 3) for v in rv.tables[data.names.index("age")]]
    [0.5, 0.094, 0.024, 0.0]

    Level 1 (5-year bands) spans 53 values over the 10 records and keeps
    both rules: ``0.5 * 10 / 53``; level 2 (``[20-30]``, ``[31-40]``) spans
    105 and mixes 25 with 26: ``0.5 * 10 / 105 * 1 / 2``.
    """
    w = _weights(data, weights)
    rules = dict(rules or {})
    rv_tables = dict(rv_tables or {})
    names = data.names
    for option, given in (("rules", rules), ("rv_tables", rv_tables)):
        unknown = sorted(set(given) - set(names))
        if unknown:
            raise ValueError(f"The {option!r} parameter names {unknown}, which are not "
                             f"quasi-identifiers {names}.")
    tables, used = [], []
    # N_i counts records: a row of counted tuples stands for its weight's records
    counts = None if data.weights is None else np.asarray(data.weights, dtype=float)
    for attr in data.attributes:
        if attr.name in rv_tables:
            tables.append(_given_table(attr, rv_tables[attr.name]))
            used.append(float("nan"))
            continue
        given = rules.get(attr.name, [])
        if not isinstance(given, (list, tuple)):
            raise ValueError(f"The 'rules' parameter must map {attr.name!r} to a list of rules. "
                             f"Got {given!r}.")
        own = [Rule.parse(r) for r in given]
        if own and attr.hierarchy is None:
            raise ValueError(f"rules for {attr.name!r} need a hierarchy for it")
        total = sum(r.importance for r in own)
        capped = attr.is_capped(respect_boundaries)
        keeps = [r.kept(attr.hierarchy, capped) for r in own]
        row = []
        for level in range(attr.height + 1):
            kept = sum(r.importance for r, k in zip(own, keeps) if k[level])
            row.append(_level_rv(attr, level, w[attr.name], _share(kept, total), capped,
                                 root_zero, counts))
        if not root_zero and attr.hierarchy is not None and not capped:
            row[-1] = _root_rv(attr, w[attr.name], own, total, data.records)
        tables.append(tuple(row))
        used.append(float(w[attr.name]))
    return ResearchValues(tuple(names), tuple(tables), tuple(used))


def _root_rv(attr, weight, rules, total, records):
    h = attr.hierarchy
    kept = sum(r.importance for r in rules if r.kept(h)[h.height])
    if attr.kind == "numeric":
        return numeric_rv(weight, [records], [h.n_leaves], kept=_share(kept, total))
    return categorical_rv(weight, 1, np.unique(attr.codes).size, kept=_share(kept, total))
