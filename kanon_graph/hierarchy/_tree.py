"""The value generalization hierarchy of one attribute, as an anytree tree.

A hierarchy is stored twice, for two kinds of reader:

* an ``anytree`` tree (``Hierarchy.root``) whose nodes carry ``level``,
  ``leaf_count`` (anytree reserves ``leaves`` for the tuple of leaf nodes)
  and ``magval`` (a boolean mark), for people who walk, render or inspect it;
  it is built on first use (``root``, :meth:`Hierarchy.node`, a picture):
  an anonymization never needs it, and the 96,000 nodes of a clinic's date
  and ZIP+4 hierarchies took a third of reading their files;
* integer arrays per level (``level_map``, ``leaf_counts``) for algorithms,
  so that generalizing a million encoded values to a level is one numpy
  indexing operation.

Levels count from the leaves: level 0 holds the original values and level
``height`` holds the root. Every leaf sits at level 0 and every root-to-leaf
path has the same length; a tree with leaves at unequal depths is rejected
when it is built (pad it by repeating a value on the short paths, as ARX's
hierarchy format does).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from anytree import Node, PreOrderIter

from .._display import html
from ..exceptions import HierarchyError
from ._magval import MagvalMixin
from ._labels import warn_untrue_ranges
from ._levels import ARRAYS_FROM, level_arrays
from ._match import LeafMatchMixin, RowChecksMixin

__all__ = ["Hierarchy"]


class Hierarchy(RowChecksMixin, LeafMatchMixin, MagvalMixin):
    """Value generalization hierarchy (a tree) for one attribute.

    Build one with :meth:`from_rows`, :func:`~kanon_graph.read_hierarchy`,
    :meth:`from_mapping`, :func:`~kanon_graph.hierarchy.intervals` or
    :func:`~kanon_graph.hierarchy.masking`, rather than calling the
    constructor directly.

    Parameters
    ----------
    rows : sequence of sequences of str
        One row per leaf, from the leaf (level 0) to the root, all of the
        same length (ARX's hierarchy format).
    name : str, optional
        The attribute the hierarchy belongs to; used in error messages.
    source : str, optional
        Where the rows came from (a file path); used in error messages.
    lines : sequence of int, optional
        The source line of each row; used in error messages.
    implicit_root : bool or str, default False
        What to do when the last column holds several values (ARX's date
        builder and many hand-made ARX files end with years or regions, no
        ``*``): refuse (``False``), or add a root above them labelled ``*``
        (``True``) or by the given text. That root releases a value as ``*``,
        exactly what suppressing the cell shows, so only a release that
        could suppress the attribute reaches it. ``implicit_root`` records
        whether one was added; :func:`~kanon_graph.write_hierarchy` leaves it
        out, so a file read and written back is unchanged.

    Examples
    --------
    >>> h = Hierarchy.from_rows([["21", "[20-25]", "*"], ["26", "[26-30]", "*"]],
    ...                         name="age")
    >>> h.height
    2
    >>> h.generalize("21", 1)
    '[20-25]'
    >>> h.lca(["21", "26"])
    '*'
    """

    def __init__(self, rows: Iterable[Sequence[Any]], *, name: str | None = None,
                 source: str | None = None, lines: Iterable[int] | None = None,
                 implicit_root: bool | str = False) -> None:
        self.name = name
        self.source = source
        texts = [[str(cell) for cell in row] for row in rows]   # a label is its exact text
        numbers = list(lines) if lines is not None else list(range(1, len(texts) + 1))
        if not texts:
            raise HierarchyError(f"{self._where()}: the hierarchy has no rows")
        texts, numbers = self._check_rows(texts, numbers)
        self.implicit_root = False
        tops = sorted({row[-1] for row in texts})
        if len(tops) > 1 and implicit_root:
            root = "*" if implicit_root is True else str(implicit_root)
            if any(root in row for row in texts):
                raise HierarchyError(
                    f"{self._where()}: the last column holds {len(tops)} values and {root!r} "
                    f"is already a label, so it cannot be the implicit root above them")
            texts = [row + [root] for row in texts]
            self.implicit_root = True
        self.height = len(texts[0]) - 1
        self._build_levels(texts, numbers)
        self._tree: list[list[Any]] | None = None      # the anytree nodes, built on first use

    # ------------------------------------------------------------------ build
    def _where(self, line: int | None = None) -> str:
        where = f"hierarchy for {self.name!r}" if self.name else "hierarchy"
        if self.source:
            where += f" ({self.source}"
            where += f", line {line})" if line is not None else ")"
        elif line is not None:
            where += f" (row {line})"
        return where

    def _build_levels(self, rows: list[list[str]], lines: list[int]) -> None:
        built = level_arrays(list(zip(*rows))) if len(rows) >= ARRAYS_FROM else None
        labels, index, parent = built if built is not None else self._levels_of_rows(rows, lines)
        self._set_levels(labels, index, parent, dict(zip((row[0] for row in rows), lines)))

    def _levels_of_rows(self, rows: list[list[str]], lines: list[int]) -> Any:
        """Labels, label -> index and parents per level, read row by row (errors named)."""
        height = self.height
        labels: list[list[str]] = [[] for _ in range(height + 1)]
        index: list[dict[str, int]] = [{} for _ in range(height + 1)]
        for row in rows:
            for level, label in enumerate(row):
                if label not in index[level]:
                    index[level][label] = len(labels[level])
                    labels[level].append(label)
        if len(labels[height]) != 1:
            raise HierarchyError(
                f"{self._where()}: the last column must hold a single root, "
                f"found {len(labels[height])}: {labels[height][:5]}; pass "
                f"implicit_root=True to add '*' above them"
            )
        parent = [np.full(len(labels[level]), -1, dtype=np.int64) for level in range(height)]
        for row, line in zip(rows, lines):
            for level in range(height):
                child = index[level][row[level]]
                above = index[level + 1][row[level + 1]]
                if parent[level][child] == -1:
                    parent[level][child] = above
                elif parent[level][child] != above:
                    raise HierarchyError(
                        f"{self._where(line)}: value {row[level]!r} at level {level} has two "
                        f"parents, {labels[level + 1][parent[level][child]]!r} and "
                        f"{row[level + 1]!r}"
                    )
        return labels, index, parent

    def _set_levels(self, labels: list[list[str]], index: list[dict[str, int]],
                    parent: list[Any], leaf_lines: dict[str, int]) -> None:
        height = self.height
        self._labels = labels
        self._index = index
        self._parent = parent
        self._leaf_lines = leaf_lines
        # level_map[l][leaf] = index of the leaf's ancestor at level l
        level_map = [np.arange(len(labels[0]), dtype=np.int64)]
        for level in range(height):
            level_map.append(parent[level][level_map[-1]])
        self.level_map = level_map
        self.leaf_counts = [np.bincount(m, minlength=len(labels[l])) for l, m in enumerate(level_map)]
        self._check_repeated_labels()
        self._magval = [np.zeros(len(labels[l]), dtype=bool) for l in range(height + 1)]
        self._index_numbers()
        warn_untrue_ranges(self, self._where())

    @property
    def _nodes(self) -> list[list[Any]]:
        """The anytree nodes per level, built on first use (with the MAGVal marks so far)."""
        if self._tree is None:
            self._tree = self._build_tree()
        return self._tree

    @property
    def root(self) -> Any:
        """The anytree root node; its descendants carry ``level``, ``leaf_count``, ``magval``."""
        return self._nodes[self.height][0]

    def _build_tree(self) -> list[list[Any]]:
        nodes: list[list[Any]] = [[None] * len(level) for level in self._labels]
        top = self.height
        nodes[top][0] = Node(self._labels[top][0], level=top, index=0,
                             leaf_count=int(self.leaf_counts[top][0]),
                             magval=bool(self._magval[top][0]))
        for level in range(top - 1, -1, -1):
            above, parents = nodes[level + 1], self._parent[level]
            counts, marks = self.leaf_counts[level], self._magval[level]
            nodes[level] = [Node(label, parent=above[parents[j]], level=level, index=j,
                                 leaf_count=int(counts[j]), magval=bool(marks[j]))
                            for j, label in enumerate(self._labels[level])]
        return nodes

    # ------------------------------------------------------------ constructors
    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[Any]], *, name: str | None = None,
                  source: str | None = None, lines: Iterable[int] | None = None,
                  implicit_root: bool | str = False) -> Hierarchy:
        """Build from leaf-to-root rows (ARX's format, already split)."""
        return cls(rows, name=name, source=source, lines=lines, implicit_root=implicit_root)

    @classmethod
    def _from_columns(cls, columns: Sequence[Sequence[str]], *, name: str | None = None,
                      source: str | None = None, implicit_root: bool = False) -> Hierarchy:
        """Build from leaf-to-root columns of text (a builder's levels, one text per leaf).

        The same hierarchy as ``cls(zip(*columns), implicit_root=implicit_root)``,
        read level by level in numpy; columns that are no well-formed tree are
        read row by row, so the error is the same.
        """
        added = implicit_root and len(set(columns[-1])) > 1
        built = None
        if len(columns[0]) >= ARRAYS_FROM and not (added and any("*" in c for c in columns)):
            built = level_arrays([*columns, ["*"] * len(columns[0])] if added else columns)
        if built is None:
            return cls(list(zip(*columns)), name=name, source=source, implicit_root=implicit_root)
        self = cls.__new__(cls)
        self.name, self.source, self.implicit_root = name, source, bool(added)
        self.height = len(built[0]) - 1
        self._tree = None
        self._set_levels(*built, dict(zip(built[0][0], range(1, len(columns[0]) + 1))))
        return self

    @classmethod
    def from_mapping(cls, mapping: Mapping[Any, Any], *, name: str | None = None) -> Hierarchy:
        """Build from a nested mapping ``{root: {child: {leaf: None, ...}}}``.

        A node's children may be given as a dict (recursing), a list or set of
        leaf labels, or ``None`` / ``{}`` for a leaf. All leaves must lie at the
        same depth.

        Examples
        --------
        >>> h = Hierarchy.from_mapping({"*": {"M": ["Male"], "F": ["Female"]}}, name="sex")
        >>> h.height, h.leaves("*")
        (2, ['Male', 'Female'])
        """
        if not isinstance(mapping, dict) or len(mapping) != 1:
            raise HierarchyError(
                f"hierarchy for {name!r}: a mapping must have exactly one top-level key "
                f"(the root), got {list(mapping)[:5] if isinstance(mapping, dict) else type(mapping).__name__}"
            )
        paths = []

        def walk(label: Any, children: Any, path: list[str]) -> None:
            path = path + [str(label)]
            if children is None or (isinstance(children, (dict, list, tuple, set)) and not children):
                paths.append(path)
            elif isinstance(children, dict):
                for child, grand in children.items():
                    walk(child, grand, path)
            elif isinstance(children, (list, tuple, set)):
                for child in children:
                    paths.append(path + [str(child)])
            else:
                walk(children, None, path)

        (root, children), = mapping.items()
        walk(root, children, [])
        depths = {len(p) for p in paths}
        if len(depths) > 1:
            short = min(paths, key=len)
            long = max(paths, key=len)
            raise HierarchyError(
                f"hierarchy for {name!r}: leaves at unequal depths ({short[-1]!r} at depth "
                f"{len(short) - 1}, {long[-1]!r} at depth {len(long) - 1}); repeat a value "
                f"on the short paths so every leaf has the same depth"
            )
        return cls([p[::-1] for p in paths], name=name, source="mapping")

    # ----------------------------------------------------------------- lookups
    @property
    def leaf_labels(self) -> list[str]:
        """The original values (level 0 labels), in hierarchy order."""
        return list(self._labels[0])

    @property
    def n_leaves(self) -> int:
        """Number of leaves, i.e. hierarchy rows (ARX's domain size)."""
        return len(self._labels[0])

    def labels(self, level: int) -> list[str]:
        """The node labels at ``level``."""
        self._check_level(level)
        return list(self._labels[level])

    def label(self, level: int, index: int) -> str:
        """The label of node number ``index`` at ``level``."""
        return self._labels[level][index]

    def _check_level(self, level: Any) -> None:
        if not isinstance(level, (int, np.integer)) or not 0 <= level <= self.height:
            raise HierarchyError(
                f"{self._where()}: level must be an integer in [0, {self.height}], got {level!r}"
            )

    def _find(self, label: Any, level: int | None = None) -> tuple[int, int]:
        """(level, index) of a node given by label (and level if ambiguous)."""
        label = self._normalize(label)
        if level is not None:
            self._check_level(level)
            if label not in self._index[level]:
                raise HierarchyError(f"{self._where()}: no node {label!r} at level {level}")
            return level, self._index[level][label]
        found = [(l, idx[label]) for l, idx in enumerate(self._index) if label in idx]
        if not found:
            raise HierarchyError(f"{self._where()}: no node labelled {label!r}")
        # a label repeated on several levels (a value generalized to itself)
        # names one concept: the lowest node stands for it
        return found[0]

    def node(self, label: Any, level: int | None = None) -> Any:
        """The anytree node of ``label`` (the lowest one if it repeats)."""
        level, index = self._find(label, level)
        return self._nodes[level][index]

    def level(self, label: Any) -> int:
        """The level of ``label`` (0 for leaves; the lowest if it repeats)."""
        return self._find(label)[0]

    # ------------------------------------------------------------- operations
    def generalize(self, value: Any, level: int) -> str:
        """The ancestor of leaf ``value`` at ``level``."""
        self._check_level(level)
        return self._labels[level][self.level_map[level][self.leaf_index(value)]]

    def ancestors(self, value: Any) -> list[str]:
        """Labels on the path from leaf ``value`` (included) to the root."""
        leaf = self.leaf_index(value)
        return [self._labels[l][self.level_map[l][leaf]] for l in range(self.height + 1)]

    def lca_level(self, leaf_codes: npt.ArrayLike) -> int:
        """Lowest level at which all encoded leaves share one ancestor."""
        leaf_codes = np.asarray(leaf_codes)
        for level in range(self.height + 1):
            mapped = self.level_map[level][leaf_codes]
            if (mapped == mapped[0]).all():
                return level
        return self.height  # pragma: no cover - the root is shared by construction

    def lca(self, values: Iterable[Any]) -> str:
        """Label of the lowest common ancestor of leaf ``values``."""
        codes = np.array([self.leaf_index(v) for v in values])
        if codes.size == 0:
            raise HierarchyError(f"{self._where()}: lca of an empty set of values")
        level = self.lca_level(codes)
        return self._labels[level][self.level_map[level][codes[0]]]

    def leaves(self, label: Any, level: int | None = None) -> list[str]:
        """Leaf labels under node ``label``."""
        level, index = self._find(label, level)
        return [self._labels[0][i] for i in np.flatnonzero(self.level_map[level] == index)]

    def numeric_span(self, level: int, index: int) -> tuple[float, float] | None:
        """(min, max) of the numeric leaves under a node, or ``None``."""
        if self.leaf_values is None:
            return None
        under = self.leaf_values[self.level_map[level] == index]
        return float(under.min()), float(under.max())

    def chd(self, value: Any, other: Any) -> float:
        """Concept hierarchical distance, CHD(v, v') = |level(v') - level(v)| / H.

        Venkata Ramana & Valli Kumari (2013), Definition 4, eq. (1).

        Examples
        --------
        >>> from kanon_graph.datasets import paper_003_hierarchies
        >>> age = paper_003_hierarchies()["age"]
        >>> round(age.chd("24", "[20-30]"), 4)
        0.6667
        """
        if self.height == 0:
            return 0.0
        return abs(self.level(other) - self.level(value)) / self.height

    # -------------------------------------------------------------- dunder
    def __iter__(self) -> Iterator[Any]:
        return PreOrderIter(self.root)

    def __len__(self) -> int:
        return sum(len(level) for level in self._labels)

    def __repr__(self) -> str:
        return (f"Hierarchy({self.name!r}, height={self.height}, "
                f"leaves={self.n_leaves}, nodes={len(self)})")

    def to_rows(self) -> list[list[str]]:
        """The hierarchy as leaf-to-root rows (ARX's format)."""
        return [self.ancestors(leaf) for leaf in self._labels[0]]

    def line_of(self, leaf: Any) -> int | None:
        """Source line of a leaf's row, when read from a file."""
        return self._leaf_lines.get(self._normalize(leaf))

    def _repr_html_(self) -> str | None:  # Jupyter's display, registered by kanon_graph.viz
        return html(self)

