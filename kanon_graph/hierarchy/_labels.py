"""Range labels that do not hold what they say (a warning, not an error).

A released cell is the label of a hierarchy node. When the leaves are
numbers and a label reads as a numeric range (``35-39``, ``[35-39]``,
``[35, 40)``), a reader takes the release to say that the record's value
lies in that range. ARX's own Adult age hierarchy labels age 40 ``35-39``
and age 5 ``0-4``: such a file still anonymizes correctly (the label is only
a name), but the published range is not true of the records under it, so
loading it warns, once per hierarchy, naming the first such node.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

from ..exceptions import HierarchyWarning

__all__ = ["range_label_mismatches", "warn_untrue_ranges"]

_NUMBER = r"(-?\d+(?:\.\d+)?)"
_RANGE = re.compile(rf"^\s*([\[(]?)\s*{_NUMBER}\s*(?:-|,|\.\.)\s*{_NUMBER}\s*([\])]?)\s*$")


def _range(label: str) -> tuple[float, float, bool] | None:
    """(low, high, high is open) of a label that reads as a numeric range, else None."""
    match = _RANGE.match(label)
    if not match:
        return None
    low, high = float(match.group(2)), float(match.group(3))
    if low > high:
        return None
    return low, high, match.group(4) == ")"


def range_label_mismatches(hierarchy: Any) -> list[tuple[int, str, float, float]]:
    """Nodes whose range label does not cover their leaves: (level, label, least, greatest).

    Only for hierarchies whose leaves are all numbers.

    Examples
    --------
    >>> import warnings, kanon_graph as kg
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     h = kg.Hierarchy.from_rows([["39", "35-39", "*"], ["40", "35-39", "*"]],
    ...                                name="age")
    >>> range_label_mismatches(h), caught[0].category.__name__
    ([(1, '35-39', 39.0, 40.0)], 'HierarchyWarning')
    """
    values = hierarchy.leaf_values
    if values is None:
        return []
    found = []
    for level in range(1, hierarchy.height + 1):
        for index, label in enumerate(hierarchy.labels(level)):
            span = _range(str(label))
            if span is None:
                continue
            under = values[hierarchy.level_map[level] == index]
            if not under.size:
                continue
            low, high, open_high = span
            least, greatest = float(under.min()), float(under.max())
            if least < low or greatest > high or (open_high and greatest >= high):
                found.append((level, str(label), least, greatest))
    return found


def warn_untrue_ranges(hierarchy: Any, where: str) -> None:
    """Warn (``HierarchyWarning``) when a range label does not cover its node's values."""
    found = range_label_mismatches(hierarchy)
    if not found:
        return
    level, label, least, greatest = found[0]
    more = f" (and {len(found) - 1} more node(s))" if len(found) > 1 else ""
    warnings.warn(f"{where}: the label {label!r} on level {level} covers values "
                  f"{least:g} to {greatest:g}, outside the range it names{more}; a release "
                  f"would print {label!r} for them. Relabel the node to be truthful.",
                  HierarchyWarning, stacklevel=4)
