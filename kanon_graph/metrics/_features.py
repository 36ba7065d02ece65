"""Raw records and released cells as numeric features for scikit-learn trees.

Shared by :mod:`~kanon_graph.metrics.pattern` and
:mod:`~kanon_graph.metrics.classification`. Every quasi-identifier becomes:

* **two ordinal columns** ``A.lo`` and ``A.hi``, the bounds of the interval a
  cell stands for, when the attribute is numeric (the values) or has a
  hierarchy (the positions of its leaves in depth-first order, so that every
  node covers a contiguous run of positions). A raw value ``v`` is
  ``lo = hi = v``. Bounds rather than a midpoint: two cells with the same
  midpoint and different widths (``[20-29]`` and ``[0-49]``) stay apart, and a
  split ``A.hi <= t`` is an exact statement about the cell ("lies wholly at
  or below t"), which the survival test of the pattern utility reads back;
* **one membership column per value** ``A=v`` for a categorical attribute
  without a hierarchy: 1 when the released value set holds ``v``.

A suppressed cell (``*``) is the whole domain (``lo``/``hi`` the extreme
values, every membership 1); one more column, ``suppressed``, is 1 for a
suppressed record, so that suppression is a value of its own.

Mapping a raw record to a release (what a held-out record would have been
released as): for a full-domain release (not capped at MAGVals), its values'
ancestors at the release's levels; otherwise, per attribute, the released
cell covering the value that the most records of the release carry (ties:
the narrowest, then the lowest); a value no released cell covers gets the
suppressed encoding.
"""

from __future__ import annotations

import numpy as np

from ..recoding._value_labels import member_codes

__all__ = ["FeatureSpace", "prepare", "require_sklearn", "split_rows",
           "target_values"]


def require_sklearn(where):
    """Import scikit-learn or fail with one line naming the extra to install."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise ImportError(f"{where} needs scikit-learn, which is not installed: "
                          f'pip install -e ".[ml]" (the ml extra)') from None


class _Spans:
    """An attribute read as intervals ``[lo, hi]`` of ordinal coordinates."""

    def __init__(self, attr, rel, class_of, sizes):
        self.name = attr.name
        self.codes = np.asarray(attr.codes)
        h = attr.hierarchy
        if h is not None:
            if attr.kind == "numeric" and h.leaf_values is not None:
                coord = np.asarray(h.leaf_values, dtype=float)
                self.leaf_labels = None
            else:                       # depth-first leaf order: every node is a run
                keys = [np.asarray(m) for m in h.level_map]
                order = np.lexsort(keys)
                coord = np.empty(len(order))
                coord[order] = np.arange(len(order))
                self.leaf_labels = np.asarray(h.labels(0), dtype=object)[order]
            self.node_lo, self.node_hi = [], []
            for m in h.level_map:
                low = np.full(int(m.max()) + 1, np.inf)
                high = np.full(int(m.max()) + 1, -np.inf)
                np.minimum.at(low, m, coord)
                np.maximum.at(high, m, coord)
                self.node_lo.append(low)
                self.node_hi.append(high)
            self.raw = coord[attr.codes]
            self.level_map = h.level_map
            if len(sizes):
                lo = np.array([self.node_lo[l][j] for l, j in zip(rel.level, rel.node)])
                hi = np.array([self.node_hi[l][j] for l, j in zip(rel.level, rel.node)])
            else:
                lo = hi = np.empty(0)
        else:
            self.raw = np.asarray(attr.values, dtype=float)
            self.leaf_labels, self.level_map = None, None
            lo, hi = np.asarray(rel.lo, dtype=float), np.asarray(rel.hi, dtype=float)
        self.whole = (float(min(np.min(self.raw), lo.min() if len(lo) else np.inf)),
                      float(max(np.max(self.raw), hi.max() if len(hi) else -np.inf)))
        self.class_lo, self.class_hi = lo, hi
        # the distinct released cells and how many records carry each
        cells = {}
        for a, b, s in zip(lo, hi, sizes):
            cells[(a, b)] = cells.get((a, b), 0) + int(s)
        keys = sorted(cells)
        self.cell_lo = np.array([a for a, _ in keys])
        self.cell_hi = np.array([b for _, b in keys])
        self.cell_n = np.array([cells[c] for c in keys])
        self.columns = [f"{self.name}.lo", f"{self.name}.hi"]

    def released(self, class_of):
        lo = np.full(len(class_of), self.whole[0])
        hi = np.full(len(class_of), self.whole[1])
        kept = class_of >= 0
        lo[kept], hi[kept] = self.class_lo[class_of[kept]], self.class_hi[class_of[kept]]
        return np.column_stack([lo, hi])

    def raw_block(self, rows):
        return np.column_stack([self.raw[rows], self.raw[rows]])

    def mapped(self, rows, level):
        """(block, uncovered) of the raw ``rows`` mapped to the release."""
        v = self.raw[rows]
        if level is not None:
            if self.level_map is not None:
                node = np.asarray(self.level_map[level])[self.codes[rows]]
                return (np.column_stack([self.node_lo[level][node], self.node_hi[level][node]]),
                        np.zeros(len(rows), dtype=bool))
            if level == 0:
                return np.column_stack([v, v]), np.zeros(len(rows), dtype=bool)
            return (np.tile(self.whole, (len(rows), 1)), np.zeros(len(rows), dtype=bool))
        values, inverse = np.unique(v, return_inverse=True)
        covers = (self.cell_lo[None, :] <= values[:, None]) & \
            (values[:, None] <= self.cell_hi[None, :])
        # most records first, then narrowest, then lowest (cells are sorted by lo)
        score = np.where(covers, self.cell_n[None, :], -1).astype(float)
        width = self.cell_hi - self.cell_lo
        score = score - width[None, :] / (2.0 * (width.max() + 1.0) if len(width) else 1.0)
        best = np.argmax(score, axis=1) if len(self.cell_n) else np.zeros(len(values), int)
        found = covers.any(axis=1) if len(self.cell_n) else np.zeros(len(values), bool)
        lo = np.where(found, self.cell_lo[best] if len(self.cell_n) else 0, self.whole[0])
        hi = np.where(found, self.cell_hi[best] if len(self.cell_n) else 0, self.whole[1])
        inverse = inverse.reshape(-1)
        return np.column_stack([lo[inverse], hi[inverse]]), ~found[inverse]

    def interval_of(self, t):
        """The hull of the released cells holding ``t`` (``[t, t]`` when none does)."""
        hold = (self.cell_lo <= t) & (t <= self.cell_hi)
        if not hold.any():
            return t, t
        return float(self.cell_lo[hold].min()), float(self.cell_hi[hold].max())

    def cut_range(self, bound, t):
        """Where in raw values a released split ``A.<bound> <= t`` cuts."""
        key = self.cell_lo if bound == "lo" else self.cell_hi
        left, right = key <= t, key > t
        if not left.any() or not right.any():
            return t, t
        a, b = float(self.cell_hi[left].max()), float(self.cell_lo[right].min())
        return min(a, b), max(a, b)

    def describe(self, op, t):
        """``op t`` in words: a number, the leaves on its side (up to 4), or the last /
        first leaf on its side in hierarchy order."""
        if self.leaf_labels is None:
            return f"{op} {t:g}"
        last = len(self.leaf_labels) - 1
        cut = int(np.clip(np.floor(t), -1, last))
        side = self.leaf_labels[:cut + 1] if op == "<=" else self.leaf_labels[cut + 1:]
        if 0 < len(side) <= 4:
            return "in {" + ", ".join(map(str, side)) + "}"
        if op == "<=":
            return f"<= '{self.leaf_labels[int(np.clip(np.floor(t), 0, last))]}' (hierarchy order)"
        return f">= '{self.leaf_labels[int(np.clip(np.floor(t) + 1, 0, last))]}' (hierarchy order)"


class _Members:
    """A hierarchy-free categorical attribute read as value sets."""

    def __init__(self, attr, rel, class_of, sizes):
        self.name = attr.name
        self.domain = [str(v) for v in attr.domain]
        lookup = {v: j for j, v in enumerate(self.domain) if j != attr.missing_code}
        self.codes = np.asarray(attr.codes)
        member = np.zeros((len(sizes), len(self.domain)), dtype=float)
        for c, text in enumerate(np.asarray(rel.labels, dtype=str)):
            codes = member_codes(text, lookup, attr.missing_code)   # quoted values too
            if codes is None:
                member[c] = 1
                continue
            member[c, codes] = 1
        self.class_member = member
        counts = {}
        for row, s in zip(map(bytes, member.astype(np.uint8)), sizes):
            counts[row] = counts.get(row, 0) + int(s)
        self.cells = np.array([np.frombuffer(r, dtype=np.uint8) for r in counts], dtype=float)
        self.cell_n = np.array(list(counts.values()))
        self.columns = [f"{self.name}={v}" for v in self.domain]

    def released(self, class_of):
        out = np.ones((len(class_of), len(self.domain)))
        kept = class_of >= 0
        out[kept] = self.class_member[class_of[kept]]
        return out

    def raw_block(self, rows):
        return np.eye(len(self.domain))[self.codes[rows]]

    def mapped(self, rows, level):
        codes = self.codes[rows]
        if level is not None:
            block = self.raw_block(rows) if level == 0 else np.ones((len(rows), len(self.domain)))
            return block, np.zeros(len(rows), dtype=bool)
        if not len(self.cell_n):
            return np.ones((len(rows), len(self.domain))), np.ones(len(rows), dtype=bool)
        covers = self.cells[:, codes].T > 0                       # (rows, cells)
        score = np.where(covers, self.cell_n[None, :] - self.cells.sum(axis=1)[None, :]
                         / (len(self.domain) + 1.0), -1.0)
        best = np.argmax(score, axis=1)
        found = covers.any(axis=1)
        block = np.where(found[:, None], self.cells[best], 1.0)
        return block, ~found


class FeatureSpace:
    """The columns every tree sees, built from a :class:`~kanon_graph.recoding.Release`."""

    def __init__(self, release):
        self.release = release
        data, class_of, sizes = release.data, release.class_of, release.sizes
        self.attributes = []
        for attr in data.attributes:
            rel = release.attributes[attr.name]
            if attr.hierarchy is not None or attr.kind == "numeric":
                reader = _Spans(attr, rel, class_of, sizes)
            else:
                reader = _Members(attr, rel, class_of, sizes)
            self.attributes.append(reader)
        self.columns = [c for a in self.attributes for c in a.columns] + ["suppressed"]
        self.owner = [a for a in self.attributes for _ in a.columns] + [None]
        global_ = release.levels is not None and not release.capped
        self.levels = list(release.levels) if global_ else [None] * len(self.attributes)

    def released(self, rows):
        """Features of ``rows`` as the release shows them."""
        cls = self.release.class_of[rows]
        blocks = [a.released(cls) for a in self.attributes]
        return np.column_stack(blocks + [(cls < 0).astype(float)])

    def raw(self, rows):
        """Features of the original ``rows``."""
        blocks = [a.raw_block(rows) for a in self.attributes]
        return np.column_stack(blocks + [np.zeros(len(rows))])

    def mapped(self, rows):
        """Features of the original ``rows`` mapped to the release's generalization."""
        blocks, uncovered = [], np.ones(len(rows), dtype=bool)
        for a, level in zip(self.attributes, self.levels):
            block, miss = a.mapped(rows, level)
            blocks.append(block)
            uncovered &= miss
        return np.column_stack(blocks + [uncovered.astype(float)])


def prepare(original, released, target, schema, where):
    """``(release, y)`` of a release given as a result or as a released table.

    ``released`` is an :class:`~kanon_graph.AnonymizationResult` (its own
    release is used; ``schema`` may be None) or a released DataFrame
    row-aligned with ``original`` (read back by :func:`~kanon_graph.evaluate`).
    """
    import pandas as pd

    from ..exceptions import DataError

    if not isinstance(original, pd.DataFrame):
        raise DataError(f"{where}: the original table must be a pandas DataFrame, got "
                        f"{type(original).__name__}")
    if not isinstance(target, str) or target not in original.columns:
        raise ValueError(f"The 'target' parameter of {where} must name a column of the "
                         f"original table. Got {target!r}; the columns are "
                         f"{list(original.columns)}.")
    release = getattr(released, "release", None)
    if release is None:
        if isinstance(released, pd.DataFrame):
            if schema is None:
                raise ValueError(f"The 'schema' parameter of {where} is required when the "
                                 f"release is a DataFrame. Got None.")
            from .evaluate import evaluate
            release = evaluate(original, released, schema, metrics=[]).release
        else:
            raise DataError(f"{where}: the release must be an AnonymizationResult or a "
                            f"pandas DataFrame, got {type(released).__name__}")
    elif release.data.n + release.data.dropped != len(original):
        raise DataError(f"{where}: the release holds {release.data.n} records "
                        f"(+{release.data.dropped} dropped) but the original table has "
                        f"{len(original)} rows; pass the table that was anonymized")
    return release, target_values(release, target, where)


def target_values(release, target, where):
    """The class of every record of ``release``, as text; a clear error for a bad name."""
    from ..exceptions import DataError

    columns = list(release.data.table.columns)
    if not isinstance(target, str) or target not in columns:
        raise ValueError(f"The 'target' parameter of {where} must name a column of the "
                         f"original table. Got {target!r}; the columns are {columns}.")
    qis = list(release.data.schema.quasi_identifiers)
    if target in qis:
        raise ValueError(f"The 'target' parameter of {where} must not be a quasi-identifier "
                         f"(its released cells are generalized). Got {target!r}.")
    y = release.data.table[target]
    if y.isna().any():
        row = y.index[y.isna().to_numpy()][0]
        raise DataError(f"{where}: the target column {target!r} has a missing value in "
                        f"row {row!r}")
    return y.astype(str).to_numpy()


def split_rows(y, test_size, seed):
    """Seeded train / test positions, stratified by class when every class has 2 records."""
    from sklearn.model_selection import train_test_split

    rows = np.arange(len(y))
    _, counts = np.unique(y, return_counts=True)
    stratify = y if counts.min() >= 2 and len(counts) > 1 else None
    try:
        return train_test_split(rows, test_size=test_size, random_state=seed, stratify=stratify)
    except ValueError:       # too few records per class for a stratified split
        return train_test_split(rows, test_size=test_size, random_state=seed)
