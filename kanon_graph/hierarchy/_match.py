"""Checks on a hierarchy's rows and labels, and matching data values to its leaves.

Two concerns of :class:`~kanon_graph.Hierarchy` kept out of the tree module:

* the rows of a file are checked as they come in (one width, no empty cell,
  a leaf with one path only) and a label repeated on several levels must name
  one set of leaves;
* a data value is matched to a leaf by its exact text first, and by number
  only when no leaf has the text and one leaf alone has the number (so
  ``1.50`` matches the leaf ``1.50``, and ``1`` / ``01`` are never confused).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..exceptions import HierarchyError
from ._parts import HierarchyParts

__all__ = ["RowChecksMixin", "LeafMatchMixin"]


def _as_number(label: Any) -> float | None:
    """``float(label)`` when the label is a plain number, else ``None``."""
    try:
        value = float(label)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None



class RowChecksMixin(HierarchyParts):
    """Checks of leaf-to-root rows and of labels repeated across levels."""

    def _check_rows(self, rows: list[list[str]],
                    lines: list[int]) -> tuple[list[list[str]], list[int]]:
        width = len(rows[0])
        for row, line in zip(rows, lines):
            if len(row) != width:
                raise HierarchyError(
                    f"{self._where(line)}: row {row[0]!r} has {len(row)} levels but "
                    f"the first row has {width}; every row must run from leaf to root"
                )
            if any(cell == "" for cell in row):
                raise HierarchyError(f"{self._where(line)}: row {row[0]!r} has an empty cell")
        seen: dict[str, tuple[list[str], int]] = {}
        kept_rows, kept_lines = [], []
        for row, line in zip(rows, lines):
            leaf = row[0]
            if leaf in seen:
                first_row, first_line = seen[leaf]
                if first_row == row:
                    warnings.warn(
                        f"{self._where(line)}: duplicate row for value {leaf!r} "
                        f"(same as line {first_line}); the duplicate is ignored",
                        stacklevel=4,
                    )
                    continue
                raise HierarchyError(
                    f"{self._where(line)}: value {leaf!r} appears twice with different "
                    f"generalizations (also on line {first_line})"
                )
            seen[leaf] = (row, line)
            kept_rows.append(row)
            kept_lines.append(line)
        return kept_rows, kept_lines

    def _check_repeated_labels(self) -> None:
        """A label may stand on several levels only if it names one set of leaves.

        ARX pads short paths by repeating a value (Adult's ``[80-100]`` on
        levels 3 and 4); that names one concept. A label naming two different
        leaf sets would make a released cell ambiguous, so it is refused.
        """
        below: set[str] = set()                         # the labels of the levels below
        for level, index in enumerate(self._index):
            repeated = sorted(index.keys() & below, key=index.__getitem__)
            below.update(index.keys())
            for label in repeated:                      # in the level's order, as written
                j = index[label]
                l0 = next(l for l in range(level) if label in self._index[l])
                j0 = self._index[l0][label]
                leaves0 = np.flatnonzero(self.level_map[l0] == j0)
                leaves1 = np.flatnonzero(self.level_map[level] == j)
                if not np.array_equal(leaves0, leaves1):
                    raise HierarchyError(
                        f"{self._where()}: label {label!r} stands on level {l0} over "
                        f"{len(leaves0)} value(s) and on level {level} over a different set of "
                        f"{len(leaves1)} value(s); a label may repeat on several levels only over "
                        f"the same values, rename one of them"
                    )


class LeafMatchMixin(HierarchyParts):
    """Leaf lookup: a data value to the leaf it stands for."""

    def _index_numbers(self) -> None:
        """``leaf_values`` (when every leaf is a number) and number -> leaves."""
        numbers = []
        for label in self._labels[0]:                   # stop at the first label no number
            value = _as_number(label)
            if value is None:
                break
            numbers.append(value)
        if len(numbers) == len(self._labels[0]):
            self.leaf_values = np.asarray(numbers, dtype=float)
        else:
            self.leaf_values = None
        self._number_index = None
        if self.leaf_values is not None:  # number -> the leaves holding it (``1``, ``01``)
            self._number_index = {}
            for i, value in enumerate(self.leaf_values):
                self._number_index.setdefault(value, []).append(i)

    def _normalize(self, value: Any) -> str:
        """The leaf label ``value`` stands for: its own text when that is a leaf.

        A value whose text is no leaf matches a numeric leaf by number, if
        exactly one leaf has that number; two or more (``1`` and ``01``) make
        it ambiguous, and that is an error naming them.
        """
        text = value if isinstance(value, str) else None
        if text is None:
            if isinstance(value, (float, np.floating)) and float(value).is_integer() \
                    and abs(value) < 2**53:
                text = str(int(value))
            else:
                text = str(value)
        if text in self._index[0] or self._number_index is None:
            return text
        number = _as_number(value)
        leaves = self._number_index.get(number, []) if number is not None else []
        if len(leaves) > 1:
            shown = " and ".join(repr(self._labels[0][i]) for i in leaves[:3])
            raise HierarchyError(
                f"{self._where()}: value {value!r} is not a leaf, and leaves {shown} "
                f"all equal it as numbers; write it as one of them"
            )
        return self._labels[0][leaves[0]] if leaves else text

    def is_leaf(self, label: Any) -> bool:
        """Whether ``label`` stands for a leaf (see :meth:`leaf_index`)."""
        return self._normalize(label) in self._index[0]

    def leaf_index(self, value: Any) -> int:
        """Index of a leaf value, raising a clear error if it is not a leaf."""
        label = self._normalize(value)
        if label not in self._index[0]:
            raise HierarchyError(
                f"{self._where()}: value {value!r} is not a leaf of the hierarchy"
            )
        return self._index[0][label]

    def encode(self, values: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Leaf indices of ``values``; every missing value is named in the error.

        Examples
        --------
        >>> from kanon_graph import Hierarchy
        >>> h = Hierarchy.from_rows([["a", "*"], ["b", "*"]], name="x")
        >>> h.encode(["b", "a", "b"]).tolist()
        [1, 0, 1]
        """
        values = np.asarray(values, dtype=object)
        uniques: list[Any]
        # hash the values (O(n)) instead of sorting them: np.unique on a million
        # strings takes about half a second per column
        inverse, found = pd.factorize(values)
        uniques = list(found)
        if (inverse < 0).any():  # missing values (NaN, None) are reported below
            inverse = np.where(inverse < 0, len(uniques), inverse)
            uniques.append(values[np.flatnonzero(pd.isna(values))[0]])
        if self._number_index is None:
            uniques = [str(value) for value in uniques]
        # a text that is a leaf's own label is that leaf: all such texts in one lookup
        # (issue 47: a call's 20,000 patients, 34,000 values); the rest one by one as before
        codes = _own_leaves(self._labels[0], uniques)
        missing = []
        for i in np.flatnonzero(codes < 0).tolist():
            value = uniques[i]
            label = self._normalize(value)
            position = self._index[0].get(label)
            if position is None:
                missing.append(value)
            else:
                codes[i] = position
        if missing:
            shown = ", ".join(repr(self._normalize(v)) for v in missing[:10])
            more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
            raise HierarchyError(
                f"{self._where()}: {len(missing)} value(s) in the data are not leaves of the "
                f"hierarchy: {shown}{more}"
            )
        return codes[inverse]


def _own_leaves(leaves: list[Any], values: list[Any]) -> npt.NDArray[np.int64]:
    """Per value, the position of the leaf whose label is that very text; -1 for the rest.

    A ``str`` equal to a leaf's label is that leaf (:meth:`LeafMatchMixin._normalize`
    returns it unchanged, and the lookup hashes and compares it as the leaf index's dict
    does); any other value is left to the caller (-1).
    """
    texts = np.fromiter(values, dtype=object, count=len(values))
    if pd.api.types.infer_dtype(texts, skipna=False) == "string":   # all strs: one C pass
        plain = np.ones(len(values), dtype=bool)
    else:
        plain = np.fromiter((type(v) is str for v in values), dtype=bool, count=len(values))
        texts[~plain] = None
    if not plain.any():
        return np.full(len(values), -1, dtype=np.int64)
    found = pd.Index(leaves, dtype=object).get_indexer(pd.Index(texts, dtype=object))
    return np.where(plain, found, -1).astype(np.int64)
