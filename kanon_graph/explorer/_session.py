"""What one explorer serves: the table, its schema, the hierarchies being edited, the runs.

Everything the page sees is computed here from counts: a column's value
counts for the trees, a release's class sizes and cell counts for its views.
The rows themselves never leave this process (and the worker processes that
anonymize them).
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from ..exceptions import HierarchyError
from ..hierarchy import Hierarchy, read_hierarchy, write_hierarchy
from ._runs import Runs

__all__ = ["Session"]



def _inside(folder: Path, name: str) -> Path:
    """``folder / name``, refused unless it stays inside ``folder``."""
    if not name or "/" in name or "\\" in name or name in (".", "..") or "\x00" in name:
        raise PermissionError(f"refused the name {name!r}: a plain file or folder name only")
    path = (folder / name).resolve()
    if path.parent != folder.resolve():
        raise PermissionError(f"refused {name!r}: outside {folder}")
    return path


class Session:
    """The state of one explorer server.

    Parameters
    ----------
    table : DataFrame
    schema : Schema
        Its hierarchies are the trees the page starts from.
    hierarchies_folder : path, optional
        Where ``save`` writes ``<qi>.csv``; without it, saving is refused.
    exports_folder : path, optional
        Under which exports go (a sub-folder each); without it, export is refused.
    sources : dict, optional
        Where each hierarchy came from (a file path), shown by the page.
    """

    def __init__(self, table: pd.DataFrame, schema: Any, *, hierarchies_folder: Any = None,
                 exports_folder: Any = None, sources: dict[str, str] | None = None) -> None:
        self.table = table
        self.schema = schema
        self.token = secrets.token_urlsafe(32)
        self.hierarchies: dict[str, Hierarchy] = dict(schema.hierarchies)
        self.sources = {qi: (sources or {}).get(qi, "given") for qi in self.hierarchies}
        self.hierarchies_folder = Path(hierarchies_folder) if hierarchies_folder else None
        self.exports_folder = Path(exports_folder) if exports_folder else None
        self.runs = Runs()
        self.lock = threading.Lock()       # hierarchy edits, drafts and saves, one at a time
        self.views: dict[str, dict[str, Any]] = {}      # per run id: the cached views
        self._counts: dict[str, pd.Series] = {}
        self._trees: dict[str, tuple[Hierarchy, dict[str, Any]]] = {}

    # ----------------------------------------------------------- the table
    @property
    def qis(self) -> list[str]:
        return list(self.schema.quasi_identifiers)

    def counts(self, qi: str) -> pd.Series:
        """The value counts of a quasi-identifier (cached)."""
        if qi not in self._counts:
            self._counts[qi] = self.table[qi].value_counts(dropna=False, sort=False)
        return self._counts[qi]

    def current_schema(self) -> Any:
        """The schema with the hierarchies as edited so far."""
        return replace(self.schema, hierarchies=dict(self.hierarchies))

    def describe(self) -> dict[str, Any]:
        """The JSON of ``GET /api/session``."""
        from ..registry import algorithms

        known = list(algorithms())
        return {"rows": int(len(self.table)), "columns": [str(c) for c in self.table.columns],
                "qis": self.qis, "sensitive": list(self.schema.sensitive),
                "hierarchies": {qi: {"levels": h.height + 1, "source": self.sources.get(qi)}
                                for qi, h in self.hierarchies.items()},
                "algorithms": ["auto"] + [a for a in known if a != "auto"],
                "can_save": self.hierarchies_folder is not None,
                "can_export": self.exports_folder is not None}

    # ---------------------------------------------------------- hierarchies
    def hierarchy(self, qi: str) -> Hierarchy:
        if qi not in self.qis:
            raise KeyError(f"{qi!r} is not a quasi-identifier; they are {self.qis}")
        if qi not in self.hierarchies:
            raise KeyError(f"{qi!r} has no hierarchy yet: start one with a draft")
        return self.hierarchies[qi]

    def tree(self, qi: str) -> dict[str, Any]:
        """The JSON of ``GET /api/hierarchy/{qi}`` (kept until the tree is edited)."""
        from ._trees import tree_of

        hierarchy = self.hierarchy(qi)
        cached = self._trees.get(qi)
        if cached is None or cached[0] is not hierarchy:
            cached = (hierarchy, tree_of(qi, hierarchy, self.counts(qi)))
            self._trees[qi] = cached
        return {**cached[1], "source": self.sources.get(qi)}

    def replace_hierarchy(self, qi: str, hierarchy: Hierarchy, source: str) -> None:
        self.hierarchies[qi] = hierarchy
        self.sources[qi] = source

    def save(self, qi: str) -> Path:
        """Write ``qi``'s hierarchy as ``<qi>.csv`` in the hierarchies folder (ARX format)."""
        hierarchy = self.hierarchy(qi)
        if self.hierarchies_folder is None:
            raise PermissionError("no hierarchies folder was given at start (--hierarchies "
                                  "DIR, or hierarchies=FOLDER): saving is off")
        self.hierarchies_folder.mkdir(parents=True, exist_ok=True)
        path = _inside(self.hierarchies_folder, f"{qi}.csv")
        write_hierarchy(hierarchy, path)
        back = read_hierarchy(path, name=qi)
        if back.to_rows() != hierarchy.to_rows():           # the file is what the page shows
            raise HierarchyError(f"{path} does not read back as the hierarchy saved")
        self.sources[qi] = str(path)
        return path

    def export_folder(self, name: Any) -> Path:
        """A sub-folder of the exports folder for one export (refused elsewhere)."""
        if self.exports_folder is None:
            raise PermissionError("no exports folder was given at start (--exports DIR): "
                                  "export is off")
        if not isinstance(name, str):
            raise PermissionError(f"the export 'folder' must be a folder name, got {name!r}")
        self.exports_folder.mkdir(parents=True, exist_ok=True)
        folder = _inside(self.exports_folder, name)
        folder.mkdir(exist_ok=True)
        return folder
