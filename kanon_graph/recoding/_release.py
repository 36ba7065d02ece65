"""From a partition of the records to released values.

Two recodings, both producing a :class:`Release`: **global** (full-domain,
:func:`recode_levels`), one level per quasi-identifier, every value replaced by
its ancestor there; **local** (:func:`recode_partition`), each class's values
replaced by their lowest common ancestor in the hierarchy, or without one by
``[min-max]``, the date interval ``[first, last]`` or the value set ``{a,b}``.

Suppressed records (class ``-1``) have every quasi-identifier replaced by
``*``; they stay in the released table and are counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..cells.kinds import date_text, parse_date
from ..encoding import MISSING, combine_codes
from ._value_labels import quoted, set_label

__all__ = ["AttributeRelease", "Release", "recode_levels", "recode_partition", "SUPPRESSED"]

SUPPRESSED = "*"


@dataclass(frozen=True)
class AttributeRelease:
    """The released value of one attribute, per class.

    ``level``/``node`` locate hierarchy nodes; ``lo``/``hi`` are the numeric
    range the value stands for (hierarchy-free numeric, or numeric leaves);
    ``distinct`` counts the original values a hierarchy-free categorical
    value set holds (or the leaves under a hierarchy node).

    A microaggregated attribute (:mod:`kanon_graph.recoding._aggregate`)
    names its operator in ``aggregated`` (``"mean"``, ``"median"``,
    ``"mode"``) and holds per class the released number, or the released
    category's code, in ``centre``; its ``lo``/``hi`` are then the range of
    the class's members, not of the released value.
    """

    labels: np.ndarray            # (n_classes,) str
    level: np.ndarray | None      # (n_classes,) hierarchy level, or None
    node: np.ndarray | None       # (n_classes,) node index at that level
    lo: np.ndarray | None         # (n_classes,) float
    hi: np.ndarray | None
    distinct: np.ndarray          # (n_classes,) leaves / values covered
    aggregated: str | None = None  # microaggregation: "mean", "median" or "mode"
    centre: np.ndarray | None = None  # (n_classes,) released number / category code


@dataclass(frozen=True)
class Release:
    """A recoded table before it is wrapped in a result.

    Attributes
    ----------
    data : EncodedTable
    class_of : ndarray of int64, shape (n,)
        Equivalence class of every record, ``-1`` for suppressed records.
    sizes : ndarray, shape (n_classes,)
    attributes : dict of str to AttributeRelease
    levels : tuple of int or None
        The level vector, for a global recoding.
    capped : bool
        Whether the levels were capped at each value's MAGVal.
    withheld_mask : ndarray of bool, shape (n,), or None
        ``safepub``'s withheld records (``*`` in every column); a class at the
        top is suppressed (``class_of`` -1), not withheld: its other columns go out.
    at_top : int
        Suppressed records the algorithm released all ``*`` (suppressed by
        definition), with t those of classes that then failed t too.
    """

    data: object
    class_of: np.ndarray
    sizes: np.ndarray
    attributes: dict
    levels: tuple | None = None
    capped: bool = False
    withheld_mask: np.ndarray | None = None
    at_top: int = 0

    @property
    def n_classes(self):
        return len(self.sizes)

    @property
    def suppressed(self):
        """Suppressed records (weighted when the rows are counted tuples)."""
        weights = getattr(self.data, "weights", None)
        if weights is None:
            return int((self.class_of < 0).sum())
        return int(weights[self.class_of < 0].sum())

    def classes(self):
        """Row positions of each class, classes ordered by first row."""
        order = np.argsort(self.class_of, kind="stable")
        bounds = np.searchsorted(self.class_of[order], np.arange(self.n_classes + 1))
        groups = [order[bounds[i]:bounds[i + 1]] for i in range(self.n_classes)]
        return sorted(groups, key=lambda g: g[0])

    def table(self):
        """The released DataFrame: identifiers removed, quasi-identifiers recoded."""
        source = self.data.table
        schema = self.data.schema
        out = {}
        # one label per class, and "*" after them for the suppressed rows
        index = np.where(self.class_of < 0, self.n_classes, self.class_of)
        withheld = self.withheld_mask       # safepub's withheld rows, if any
        withheld = withheld if withheld is not None and withheld.any() else None
        for column in schema.released_columns(source):
            if column in self.attributes:
                rel = self.attributes[column]
                numbers = (rel.aggregated is not None and rel.labels.size > 0
                           and isinstance(rel.labels[0], float))  # a mean / median
                if numbers and (index < self.n_classes).all():      # and no "*"
                    out[column] = np.asarray(rel.labels, dtype=float)[index]
                else:
                    out[column] = _released_column(rel.labels, index)
            elif withheld is not None:      # a withheld row says nothing: "*" everywhere
                cells = source[column].to_numpy(dtype=object, copy=True)
                cells[withheld] = SUPPRESSED
                out[column] = cells
            else:  # the column as the user gave it, without a round trip through numpy
                out[column] = source[column].array
        frame = pd.DataFrame(out, columns=list(out), copy=False)
        if self.data.row_labels is not None:
            frame.index = self.data.row_labels
        return frame


def _released_column(labels, index):
    """The released cells of one attribute: ``labels`` (then ``*``) taken at ``index``.

    Text labels become a categorical: one small integer code per row and
    every distinct label once, so the column costs a byte or two per row
    and is built without a Python object or a string per row. Other labels
    go through numpy as objects.
    """
    texts = np.append(np.asarray(labels, dtype=object), SUPPRESSED)
    if all(isinstance(text, str) for text in texts):
        code_of_class, distinct = pd.factorize(texts)
        categories = pd.Index(distinct, dtype=pd.Series(distinct).dtype)
        small = np.min_scalar_type(-len(distinct) - 1)     # the codes pandas keeps anyway
        return pd.Categorical.from_codes(code_of_class.astype(small)[index],
                                         dtype=pd.CategoricalDtype(categories))
    return texts[index]


def _range_label(domain, lo_code, hi_code, date=False, fmt=None):
    """``[<min member's text>-<max member's text>]``, or the one text all members share.

    The texts are the original values' own (see :func:`~kanon_graph.encoding.encode`),
    never rounded, so the interval contains every member and two different
    intervals never print alike. A date range is the closed interval
    ``[1944-12-14, 2008-01-10]`` (a ``-`` would be read as part of the date),
    its ends in ISO 8601 also when read in a format ``fmt`` (``13/03/1961``).
    """
    if lo_code == hi_code:
        return str(domain[lo_code])
    if date and fmt is not None:
        first, last = (date_text(parse_date(domain[c], fmt)) for c in (lo_code, hi_code))
        return f"[{first}, {last}]"
    if date:
        return f"[{domain[lo_code]}, {domain[hi_code]}]"
    return f"[{domain[lo_code]}-{domain[hi_code]}]"


def _classes_from_keys(keys, valid):
    """Dense class ids (by first appearance) from per-row keys; -1 where not valid."""
    class_of = np.full(len(keys), -1, dtype=np.int64)
    if valid.any():
        _, first, inverse = np.unique(keys[valid], return_index=True, return_inverse=True)
        rank = np.empty(len(first), dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(len(first))
        class_of[valid] = rank[inverse.reshape(-1)]
    return class_of


def _representatives(class_of, n_classes):
    """One row position per class (its first row)."""
    rows = np.flatnonzero(class_of >= 0)
    rep = np.empty(n_classes, dtype=np.int64)
    rep[class_of[rows][::-1]] = rows[::-1]
    return rep


def class_lca(level_map, leaves, class_of, n_classes):
    """Per class, the lowest level at which its leaves share one node, and that node.

    ``level_map[l][leaf]`` is the leaf's ancestor at level ``l``;
    ``leaves[i]`` belongs to class ``class_of[i]`` (0..n_classes-1). A class
    without leaves keeps level -1 and node 0.
    """
    level = np.full(n_classes, -1, dtype=np.int64)
    node = np.zeros(n_classes, dtype=np.int64)
    for l in range(len(level_map)):
        mapped = level_map[l][leaves]
        lo = np.full(n_classes, np.iinfo(np.int64).max)
        hi = np.full(n_classes, -1, dtype=np.int64)
        np.minimum.at(lo, class_of, mapped)
        np.maximum.at(hi, class_of, mapped)
        fresh = (level < 0) & (lo == hi)
        level[fresh] = l
        node[fresh] = lo[fresh]
        if (level >= 0).all():
            break
    return level, node


def _hierarchy_release(attr, level, node):
    """Labels, leaf counts and numeric spans of hierarchy nodes, one loop per level."""
    h = attr.hierarchy
    level = np.asarray(level, dtype=np.int64)
    node = np.asarray(node, dtype=np.int64)
    labels = np.empty(len(level), dtype=object)
    distinct = np.empty(len(level), dtype=np.int64)
    numeric = attr.kind == "numeric" and h.leaf_values is not None
    lo = np.empty(len(level)) if numeric else None
    hi = np.empty(len(level)) if numeric else None
    for l in np.unique(level):
        pick = level == l
        index = node[pick]
        labels[pick] = np.asarray(h.labels(int(l)), dtype=object)[index]
        distinct[pick] = h.leaf_counts[l][index]
        if numeric:  # min / max of the numeric leaves under every node of level l
            low = np.full(len(h.leaf_counts[l]), np.inf)
            high = np.full(len(h.leaf_counts[l]), -np.inf)
            np.minimum.at(low, h.level_map[l], h.leaf_values)
            np.maximum.at(high, h.level_map[l], h.leaf_values)
            lo[pick] = low[index]
            hi[pick] = high[index]
    return AttributeRelease(labels, level, node, lo, hi, distinct)


def recode_levels(data, levels, *, suppress=None, capped=False):
    """Full-domain generalization of ``data`` to ``levels``.

    Parameters
    ----------
    data : EncodedTable
    levels : sequence of int
        One level per quasi-identifier (hierarchy-free attributes: 0 or 1).
    suppress : ndarray of bool, optional
        Records to suppress.
    capped : bool
        Stop every value at its MAGVal when that lies below the level
        (generalization boundaries, Hussien et al. 2016).
    """
    levels = tuple(int(l) for l in levels)
    keys = data.group_keys(levels, capped)
    valid = np.ones(data.n, dtype=bool) if suppress is None else ~np.asarray(suppress, bool)
    class_of = _classes_from_keys(keys, valid)
    n_classes = int(class_of.max()) + 1 if valid.any() else 0
    sizes = _sizes(data, class_of, valid, n_classes)
    rep = _representatives(class_of, n_classes)
    attributes = {}
    for attr, level in zip(data.attributes, levels):
        if attr.is_capped(capped):
            ids = attr.hierarchy.capped_map(level)[attr.codes[rep]]
            attributes[attr.name] = _hierarchy_release(attr, *attr.hierarchy.split_node_ids(ids))
        elif attr.hierarchy is not None:
            node = attr.hierarchy.level_map[level][attr.codes[rep]]
            attributes[attr.name] = _hierarchy_release(attr, np.full(n_classes, level), node)
        elif level == 0:
            attributes[attr.name] = _free_release(attr, class_of, n_classes)
        else:
            everyone = np.zeros_like(class_of)
            whole = _free_release(attr, np.where(valid, everyone, -1), 1)
            attributes[attr.name] = AttributeRelease(
                np.repeat(whole.labels, n_classes), None, None,
                None if whole.lo is None else np.repeat(whole.lo, n_classes),
                None if whole.hi is None else np.repeat(whole.hi, n_classes),
                np.repeat(whole.distinct, n_classes))
    return Release(data, class_of, sizes, attributes, levels, capped)


def _sizes(data, class_of, valid, n_classes):
    """Records per class (rows weighted by ``data.weights`` when set)."""
    weights = getattr(data, "weights", None)
    if weights is None:
        return np.bincount(class_of[valid], minlength=n_classes)
    return np.bincount(class_of[valid], weights=weights[valid],
                       minlength=n_classes).astype(np.int64)


def _free_release(attr, class_of, n_classes):
    """Hierarchy-free released values: ``[min-max]`` or ``{a,b}`` per class."""
    rows = np.flatnonzero(class_of >= 0)
    cls = class_of[rows]
    if attr.kind == "numeric":
        vals = attr.values[rows]
        lo = np.full(n_classes, np.inf)
        hi = np.full(n_classes, -np.inf)
        np.minimum.at(lo, cls, vals)
        np.maximum.at(hi, cls, vals)
        # codes follow the numeric order: the smallest code is the smallest value
        lo_code = np.full(n_classes, np.iinfo(np.int64).max)
        hi_code = np.full(n_classes, -1, dtype=np.int64)
        np.minimum.at(lo_code, cls, attr.codes[rows])
        np.maximum.at(hi_code, cls, attr.codes[rows])
        pairs = np.unique(np.column_stack([cls, attr.codes[rows]]), axis=0)
        distinct = np.bincount(pairs[:, 0], minlength=n_classes)
        # lowest code the kept missing value and present values too: _with_missing labels it
        mixed = (lo_code == attr.missing_code) & (hi_code != lo_code)
        labels = np.array([_range_label(attr.domain, a, b, attr.date, attr.date_format) if b >= 0
                           and not m else "" for a, b, m in zip(lo_code, hi_code, mixed)],
                          dtype=object)
        if attr.missing_code is not None:      # missing="keep": code 0, below every value
            labels = _with_missing(attr, labels, lo_code, hi_code, cls, rows)
        return AttributeRelease(labels, None, None, lo, hi, distinct)
    pairs = np.unique(np.column_stack([cls, attr.codes[rows]]), axis=0)
    distinct = np.bincount(pairs[:, 0], minlength=n_classes)
    # each value as it is written (quoted when it could be misread: _value_labels)
    forms = [(str(v), quoted(v)) for v in attr.domain]
    if attr.missing_code is not None:             # the kept missing cell: the marker itself
        forms[attr.missing_code] = (MISSING, MISSING)
    members = [[] for _ in range(n_classes)]
    for c, code in pairs:
        members[c].append(code)
    # a value that needs no quotes is released as itself (an int stays an int)
    labels = np.array([attr.domain[m[0]] if len(m) == 1 and forms[m[0]][0] == forms[m[0]][1]
                       else set_label(forms[code] for code in m) for m in members],
                      dtype=object)
    return AttributeRelease(labels, None, None, None, None, distinct)


def _with_missing(attr, labels, lo_code, hi_code, cls, rows):
    """Range labels of classes holding the missing value: ``[lo-hi] or (missing)``."""
    codes = attr.codes[rows]
    mixed = np.flatnonzero((lo_code == attr.missing_code) & (hi_code > attr.missing_code))
    if mixed.size:
        present = codes != attr.missing_code
        lo_present = np.full(len(lo_code), np.iinfo(np.int64).max)
        np.minimum.at(lo_present, cls[present], codes[present])
        for c in mixed:
            inner = _range_label(attr.domain, lo_present[c], hi_code[c], attr.date, attr.date_format)
            labels[c] = f"{inner} or {attr.domain[attr.missing_code]}"
    return labels


def recode_partition(data, class_of):
    """Local recoding: each class released at its lowest common ancestors.

    Classes whose released tuples coincide are merged into one equivalence
    class (they are indistinguishable in the release).

    Parameters
    ----------
    data : EncodedTable
    class_of : array of int, shape (n,)
        A class label per record; ``-1`` marks a suppressed record.
    """
    class_of = np.asarray(class_of, dtype=np.int64)
    valid = class_of >= 0
    class_of = _classes_from_keys(class_of, valid)
    n_classes = int(class_of.max()) + 1 if valid.any() else 0
    rows = np.flatnonzero(valid)
    cls = class_of[rows]
    attributes = {}
    for attr in data.attributes:
        if attr.hierarchy is None:
            attributes[attr.name] = _free_release(attr, class_of, n_classes)
            continue
        level, node = class_lca(attr.hierarchy.level_map, attr.codes[rows], cls, n_classes)
        attributes[attr.name] = _hierarchy_release(attr, level, node)
    attributes, class_of, n_classes = merge_coinciding(data, attributes, class_of, valid,
                                                       n_classes)
    sizes = _sizes(data, class_of, valid, n_classes)
    return Release(data, class_of, sizes, attributes, None)


def merge_coinciding(data, attributes, class_of, valid, n_classes):
    """Classes whose released tuples coincide merged into one (first seen keeps its number).

    Returns ``(attributes, class_of, n_classes)``; ``valid`` marks the released records.
    """
    if not n_classes:
        return attributes, class_of, n_classes
    keys = combine_codes([pd.factorize(attributes[a.name].labels)[0] for a in data.attributes],
                         [n_classes] * len(data.attributes))
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    if len(first) == n_classes:
        return attributes, class_of, n_classes
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(first), dtype=np.int64)
    rank[order] = np.arange(len(first))
    class_of = np.where(valid, rank[inverse.reshape(-1)][np.maximum(class_of, 0)], -1)
    return ({name: _take(rel, first[order]) for name, rel in attributes.items()}, class_of,
            len(first))


def _take(rel, idx):
    pick = (lambda a: None if a is None else a[idx])
    return AttributeRelease(rel.labels[idx], pick(rel.level), pick(rel.node), pick(rel.lo),
                            pick(rel.hi), rel.distinct[idx], rel.aggregated, pick(rel.centre))
