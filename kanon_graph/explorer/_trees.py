"""A hierarchy as the explorer shows it, and the edits the page may ask for.

A tree goes to the page as nested nodes ``{label, level, records, chd, magval,
children}``; ``records`` is the number of the table's rows under the node,
summed from the column's value counts (the rows never leave the server). An
edit rewrites the hierarchy's leaf-to-root rows (ARX's format) and builds a
new :class:`~kanon_graph.hierarchy.Hierarchy` from them, so every rule the
library enforces (one root, one parent per value, leaves at one depth, a
label naming one set of values) refuses an invalid edit with its own message.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import HierarchyError
from ..hierarchy import Hierarchy, dates, intervals, masking, prefix_levels, suggest

__all__ = ["MAX_CHILDREN", "leaf_records", "tree_of", "edited", "drafted"]

#: Children shown per node; the rest are summarized in one node.
MAX_CHILDREN = 200


def leaf_records(hierarchy: Hierarchy, counts: pd.Series) -> tuple[np.ndarray, int]:
    """Rows per leaf of ``hierarchy`` from a column's value counts, and rows matching none."""
    per_leaf = np.zeros(hierarchy.n_leaves, dtype=np.int64)
    unmatched = 0
    for value, n in counts.items():
        try:
            per_leaf[hierarchy.leaf_index(value)] += int(n)
        except HierarchyError:
            unmatched += int(n)
    return per_leaf, unmatched


def tree_of(qi: str, hierarchy: Hierarchy, counts: pd.Series, *,
            source: str | None = None) -> dict[str, Any]:
    """The JSON of ``GET /api/hierarchy/{qi}``: the tree with each node's records."""
    per_leaf, unmatched = leaf_records(hierarchy, counts)
    height = hierarchy.height
    records = [np.bincount(hierarchy.level_map[level], weights=per_leaf,
                           minlength=len(hierarchy.labels(level))).astype(np.int64)
               for level in range(height + 1)]

    def node(anynode: Any) -> dict[str, Any]:
        level, index = int(anynode.level), int(anynode.index)
        children = list(anynode.children)
        shown = [node(child) for child in children[:MAX_CHILDREN]]
        if len(children) > MAX_CHILDREN:
            rest = children[MAX_CHILDREN:]
            shown.append({"label": f"... {len(rest)} more", "level": level - 1,
                          "records": int(sum(records[level - 1][c.index] for c in rest)),
                          "chd": (level - 1) / height if height else 0.0, "magval": False,
                          "summarized": len(rest), "children": []})
        return {"label": anynode.name, "level": level, "records": int(records[level][index]),
                "chd": level / height if height else 0.0,
                "magval": bool(hierarchy.is_magval(anynode.name, level)),
                "children": shown}

    return {"qi": qi, "levels": height + 1, "source": source, "unmatched": unmatched,
            "tree": node(hierarchy.root)}


def _path(hierarchy: Hierarchy, label: Any, level: int | None) -> tuple[int, list[str]]:
    """The level of node ``label`` and the labels from it up to the root."""
    found = hierarchy.node(label, level)
    return int(found.level), [n.name for n in reversed(found.path)]


def _under(hierarchy: Hierarchy, rows: list[list[str]], label: Any,
           level: int | None) -> tuple[int, list[int]]:
    at, _ = _path(hierarchy, label, level)
    name = hierarchy.node(label, level).name
    return at, [i for i, row in enumerate(rows) if row[at] == name]


def _level_of(body: dict[str, Any], key: str) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise HierarchyError(f"the '{key}' of an edit must be an integer level, got {value!r}")
    return value


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value:
        raise HierarchyError(f"the edit needs '{key}', a non-empty text; got {value!r}")
    return value


def edited(qi: str, hierarchy: Hierarchy, body: dict[str, Any]) -> Hierarchy:
    """The hierarchy after one edit of ``POST /api/hierarchy/{qi}/edit``.

    ``body["op"]`` is one of ``move`` (``value`` under group ``to``),
    ``rename`` (``group`` to ``name``), ``add_group`` (``name`` under
    ``parent`` with the ``members``), ``add_level`` (a copy of the level below
    the root, to be regrouped) or ``drop_level`` (``level``, neither the
    leaves nor the root). Raises :class:`~kanon_graph.exceptions.HierarchyError`
    with the library's message for an invalid edit.
    """
    rows = hierarchy.to_rows()
    height = hierarchy.height
    op = body.get("op")
    if op == "move":
        at, moved = _under(hierarchy, rows, body.get("value"), _level_of(body, "level"))
        to_level, above = _path(hierarchy, _text(body, "to"), None if at + 1 > height else at + 1)
        if to_level != at + 1:
            raise HierarchyError(f"hierarchy for {qi!r}: {body.get('to')!r} is on level "
                                 f"{to_level}, a value of level {at} moves under a group of "
                                 f"level {at + 1}")
        for i in moved:
            rows[i] = rows[i][:at + 1] + above
    elif op == "rename":
        at, renamed = _under(hierarchy, rows, body.get("group"), _level_of(body, "level"))
        if at == 0:
            raise HierarchyError(f"hierarchy for {qi!r}: {body.get('group')!r} is a value of "
                                 f"the data, not a group; only groups are renamed (the values "
                                 f"must match the table's cells)")
        name = _text(body, "name")
        for i in renamed:
            rows[i][at] = name
    elif op == "add_group":
        name = _text(body, "name")
        members = body.get("members")
        if not isinstance(members, list) or not members:
            raise HierarchyError(f"hierarchy for {qi!r}: a new group needs 'members', a "
                                 f"non-empty list of the values it holds; got {members!r}")
        parent_level, above = _path(hierarchy, _text(body, "parent"), None)
        for member in members:
            at, under = _under(hierarchy, rows, member, parent_level - 2)
            for i in under:
                rows[i] = rows[i][:at + 1] + [name] + above
    elif op == "add_level":
        rows = [row[:-1] + [row[-2] if height else row[-1], row[-1]] for row in rows]
    elif op == "drop_level":
        level = _level_of(body, "level")
        if level is None or not 0 < level < height:
            raise HierarchyError(f"hierarchy for {qi!r}: only a level between the values and "
                                 f"the root can be dropped, in [1, {height - 1}]; got {level!r}")
        rows = [row[:level] + row[level + 1:] for row in rows]
    else:
        raise HierarchyError(f"unknown edit op {op!r}; one of move, rename, add_group, "
                             f"add_level, drop_level")
    return Hierarchy.from_rows(rows, name=qi, source="the explorer")


def drafted(qi: str, column: pd.Series, schema: Any, body: dict[str, Any]) -> Hierarchy:
    """A draft hierarchy of ``POST /api/hierarchy/{qi}/draft`` (``body["from"]``).

    ``suggest`` is :func:`kanon_graph.hierarchy.suggest`'s draft for the
    column; ``intervals`` (``widths``), ``mask`` (``levels``), ``dates``
    (``levels``) and ``prefix`` call the builders of
    :mod:`kanon_graph.hierarchy` on the column's distinct values.
    """
    kind = body.get("from")
    present = column.dropna()
    values = present.unique().tolist()
    params = {key: value for key, value in body.items() if key not in ("from",)}
    params.setdefault("name", qi)                 # the builders' messages name the column
    if kind == "suggest":
        from dataclasses import replace

        frame = pd.DataFrame({qi: column})
        drafts = suggest(frame, replace(schema, hierarchies={}), columns=[qi])
        made = drafts[qi][0]
        return Hierarchy.from_rows(made.to_rows(), name=qi, source="draft: suggest")
    if kind == "intervals":
        made = intervals(values, **params)       # text cells stay the leaves' labels
    elif kind == "mask":
        made = masking(values, **params)
    elif kind == "dates":
        made = dates(values, **params)
    elif kind == "prefix":
        counts = present.astype(str).value_counts()
        made = Hierarchy.from_rows(prefix_levels(list(counts.index), list(counts.values)),
                                   name=qi)
    else:
        raise HierarchyError(f"unknown draft {kind!r}; one of suggest, intervals, mask, "
                             f"dates, prefix")
    return Hierarchy.from_rows(made.to_rows(), name=qi, source=f"draft: {kind}")

