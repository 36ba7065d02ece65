"""What a drafted hierarchy does to its column: how many rows each level groups.

``hierarchy suggest`` says, per column, the kind it read, the levels it drew
and, for each level, the share of the column's rows whose node at that level
holds other values of the column too (rows *grouped with others*): a level
that groups 2% of the rows costs little and protects little; one that groups
90% is almost ``*``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from ..cells.kinds import cell_text
from ..exceptions import HierarchyError
from ._tree import Hierarchy

__all__ = ["LevelShare", "level_shares"]


@dataclass(frozen=True)
class LevelShare:
    """One level of a draft: its number, how many of its nodes hold the column's
    values, and the share of rows whose node holds other values too."""

    level: int
    nodes: int
    grouped: float


def level_shares(hierarchy: Hierarchy, values: pd.Series | Sequence[object]) -> list[LevelShare]:
    """Per level above the leaves, the share of rows of ``values`` grouped with others.

    Missing cells and values the hierarchy does not hold are left out.

    Examples
    --------
    >>> h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]])
    >>> [(s.level, s.nodes, s.grouped) for s in level_shares(h, ["a", "a", "b", "c"])]
    [(1, 2, 0.75), (2, 1, 1.0)]
    """
    counts = pd.Series(values).dropna().map(cell_text).value_counts()
    held = {}
    for value, count in counts.items():
        try:
            held[value] = (int(count), hierarchy.ancestors(value))
        except HierarchyError:
            continue
    total = sum(c for c, _ in held.values())
    out = []
    for level in range(1, hierarchy.height + 1):
        members: dict[str, int] = {}
        for _, path in held.values():
            members[path[level]] = members.get(path[level], 0) + 1
        grouped = sum(c for c, path in held.values() if members[path[level]] > 1)
        out.append(LevelShare(level, len(members), grouped / total if total else 0.0))
    return out
