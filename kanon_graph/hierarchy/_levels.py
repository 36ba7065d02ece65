"""A hierarchy's per-level labels and parent arrays, from its columns in numpy.

:class:`~kanon_graph.Hierarchy` stores, per level, the labels in the order
they first appear down the rows, a ``label -> index`` dict and the index of
each node's parent one level up. Read row by row in Python that took most of
building a drafted hierarchy with tens of thousands of leaves (a money
column's 20,000 amounts, seven levels); here each level is one
``pd.factorize`` (the same order of first appearance) and each parent array
one numpy assignment.

Only regular columns are read this way: :func:`level_arrays` returns
``None`` for anything the row-by-row reading reports on (an empty label, a
leaf twice, a node with two parents, several roots), so that reading runs
and says what is wrong, exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

__all__ = ["ARRAYS_FROM", "level_arrays"]

#: Fewer leaves than this are read row by row (a factorize per level costs more there).
ARRAYS_FROM = 500

Levels = tuple[list[list[str]], list[dict[str, int]], list[npt.NDArray[np.int64]]]


def level_arrays(columns: Sequence[Sequence[str]]) -> Levels | None:
    """``(labels, index, parent)`` per level of leaf-to-root ``columns`` of text.

    ``columns[0]`` holds the leaves, ``columns[-1]`` the root; every column
    has one text per leaf. ``None`` when the columns are not a well-formed
    tree (see the module's note): the caller then reads them row by row.

    >>> labels, index, parent = level_arrays([["a", "b", "c"], ["ab", "ab", "c"],
    ...                                       ["*", "*", "*"]])
    >>> labels[1], parent[0].tolist(), parent[1].tolist()
    (['ab', 'c'], [0, 0, 1], [0, 0])
    >>> level_arrays([["a", "b"], ["x", "y"], ["*", "+"]]) is None       # two roots
    True
    """
    labels: list[list[str]] = []
    index: list[dict[str, int]] = []
    codes: list[npt.NDArray[np.int64]] = []
    size = len(columns[0])
    for column in columns:
        cells: Any = np.asarray(column, dtype=object)
        if cells.shape != (size,):
            return None
        found, uniques = pd.factorize(cells)
        level = uniques.tolist()
        if not all(type(label) is str for label in level) or "" in level:
            return None
        labels.append(level)
        index.append(dict(zip(level, range(len(level)))))
        codes.append(found.astype(np.int64, copy=False))
    if len(labels[0]) != size or len(labels[-1]) != 1:
        return None
    parent = []
    for level in range(len(columns) - 1):
        above = np.full(len(labels[level]), -1, dtype=np.int64)
        above[codes[level]] = codes[level + 1]
        if not np.array_equal(above[codes[level]], codes[level + 1]):
            return None                                  # a node with two parents
        parent.append(above)
    return labels, index, parent
