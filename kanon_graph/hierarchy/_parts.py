"""What the mixins of :class:`~kanon_graph.Hierarchy` read of the tree they are part of.

The hierarchy's checks, leaf matching and MAGVal marks live in mixins of their
own (``_match``, ``_magval``); each reads the tree's per-level arrays. This base
declares those attributes once, for type checkers only: at run time it is an
empty class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["HierarchyParts"]


class HierarchyParts:
    """The attributes and helpers of a Hierarchy that its mixins use."""

    if TYPE_CHECKING:
        name: str | None
        height: int
        level_map: list[npt.NDArray[np.int64]]
        leaf_values: npt.NDArray[np.float64] | None
        _labels: list[list[str]]
        _index: list[dict[str, int]]
        _tree: list[list[Any]] | None
        _magval: list[npt.NDArray[np.bool_]]
        _number_index: dict[float, list[int]] | None

        def _where(self, line: int | None = None) -> str: ...
        def _find(self, label: Any, level: int | None = None) -> tuple[int, int]: ...
        def _check_level(self, level: Any) -> None: ...
        def _normalize(self, value: Any) -> str: ...
        def leaf_index(self, value: Any) -> int: ...
        @property
        def n_leaves(self) -> int: ...
