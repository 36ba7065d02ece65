"""MAGVal annotations of a hierarchy: generalization boundaries.

Hussien, Darwish & Hefny, "Utility-based anonymization using generalization
boundaries to protect sensitive attributes" (2016), Definitions 3-6. A data
owner marks nodes as maximum allowed generalization values (MAGVals); the
MAGVal of a leaf is the first marked node on its path to the root, and the
root when none is marked. :class:`~kanon_graph.Hierarchy` inherits these
methods; they read its per-level arrays (``_magval``, ``level_map``,
``_labels``, and the anytree nodes ``_tree`` once built).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ._parts import HierarchyParts

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["MagvalMixin"]


class MagvalMixin(HierarchyParts):
    """Marking MAGVals and answering boundary questions (Definitions 3-6)."""

    def mark_magval(self, label: Any, level: int | None = None) -> Self:
        """Mark node ``label`` as a maximum allowed generalization value.

        Hussien, Darwish & Hefny (2016), Definition 3. Returns ``self`` so
        calls can be chained.
        """
        level, index = self._find(label, level)
        self._magval[level][index] = True
        if self._tree is not None:                  # the tree, once built, shows the mark
            self._tree[level][index].magval = True
        return self

    def clear_magvals(self) -> Self:
        """Remove every MAGVal mark; returns ``self``."""
        for level, marks in enumerate(self._magval):
            marks[:] = False
            for node in self._tree[level] if self._tree is not None else ():
                node.magval = False
        return self

    def is_magval(self, label: Any, level: int | None = None) -> bool:
        """Whether node ``label`` is marked as a MAGVal."""
        level, index = self._find(label, level)
        return bool(self._magval[level][index])

    @property
    def has_magvals(self) -> bool:
        """Whether any node is marked."""
        return any(marks.any() for marks in self._magval)

    def magval_levels(self) -> npt.NDArray[np.int64]:
        """For every leaf, the level of its MAGVal (the height when unmarked).

        The MAGVal of a leaf is the first marked node on the path from the leaf
        to the root (Definition 3, second condition); with no mark on the path
        it is the root.
        """
        result = np.full(self.n_leaves, self.height, dtype=np.int64)
        pending = np.ones(self.n_leaves, dtype=bool)
        for level in range(self.height + 1):
            hit = pending & self._magval[level][self.level_map[level]]
            result[hit] = level
            pending &= ~hit
        return result

    @property
    def node_offsets(self) -> npt.NDArray[np.int64]:
        """Start of each level in the global node numbering (level by level)."""
        return np.cumsum([0] + [len(level) for level in self._labels])

    def capped_map(self, level: int) -> npt.NDArray[np.int64]:
        """Per leaf, the global node id of its ancestor at ``min(level, MAGVal level)``.

        This is full-domain generalization within generalization boundaries:
        every value rises to ``level`` except where its MAGVal stops it
        (Hussien et al. 2016, Definitions 3 and 6). Global node ids number the
        nodes level by level (see :attr:`node_offsets`).
        """
        self._check_level(level)
        effective = np.minimum(level, self.magval_levels())
        mapped = np.empty(self.n_leaves, dtype=np.int64)
        for l in np.unique(effective):
            pick = effective == l
            mapped[pick] = self.node_offsets[l] + self.level_map[l][pick]
        return mapped

    def split_node_ids(self, ids: npt.ArrayLike) -> tuple[npt.NDArray[np.int64],
                                                           npt.NDArray[np.int64]]:
        """(level, index within level) arrays of global node ids."""
        ids = np.asarray(ids, dtype=np.int64)
        level = np.searchsorted(self.node_offsets, ids, side="right") - 1
        return level, ids - self.node_offsets[level]

    def magval(self, value: Any) -> str:
        """MAGVal(v) of leaf ``value`` (Definition 3).

        Examples
        --------
        >>> from kanon_graph import Hierarchy
        >>> h = Hierarchy.from_mapping({"A.R.E": {"South Egypt": ["Geza", "Aswan"],
        ...                                       "North Egypt": ["Alex", "Tanta"]}})
        >>> h.mark_magval("South Egypt").magval("Geza"), h.magval("Alex")
        ('South Egypt', 'A.R.E')
        """
        leaf = self.leaf_index(value)
        level = self.magval_levels()[leaf]
        return self._labels[level][self.level_map[level][leaf]]

    def magset(self) -> set[str]:
        """MAGSet(Q): the set of MAGVals of all leaves (Definition 4)."""
        levels = self.magval_levels()
        return {self._labels[l][self.level_map[l][leaf]] for leaf, l in enumerate(levels)}

    def allows(self, value: Any, generalized: Any, level: int | None = None) -> bool:
        """Whether releasing leaf ``value`` as ``generalized`` respects its MAGVal.

        False when ``generalized`` is not an ancestor of ``value`` at all.
        """
        leaf = self.leaf_index(value)
        g_level, g_index = self._find(generalized, level)
        if self.level_map[g_level][leaf] != g_index:
            return False
        return bool(g_level <= self.magval_levels()[leaf])
