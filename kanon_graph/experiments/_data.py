"""The table an experiment runs on: Adult when it is found, else the synthetic census."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..datasets import adult_hierarchies, load_adult, make_census
from ..exceptions import DataError
from ..hierarchy import Hierarchy, load_hierarchies

__all__ = ["ExperimentData", "experiment_data"]

#: Rows of the synthetic census stand-in: as many as Adult's 30,162.
CENSUS_ROWS = 30162


@dataclass(frozen=True)
class ExperimentData:
    """A table, ARX-style hierarchies for its columns, and where both came from."""

    table: pd.DataFrame
    hierarchies: dict[str, Hierarchy]
    source: str
    is_adult: bool
    folder: Path | None = None

    def sample(self, n: int | None, seed: int = 0) -> pd.DataFrame:
        """``n`` rows drawn without replacement (``random_state=seed``); all when ``n`` is
        None or not smaller than the table."""
        if n is None or n >= len(self.table):
            return self.table
        return self.table.sample(n, random_state=seed)

    def describe(self, rows: int | None = None) -> str:
        used = len(self.table) if rows is None else min(rows, len(self.table))
        return f"{self.source}, {used:,} rows"


def _adult_folder(data: str | Path | None) -> Path | None:
    root = data if data is not None else os.environ.get("KANON_GRAPH_DATA")
    if not root:
        return None
    root = Path(root)
    for folder in (root, root / "adult"):
        if (folder / "adult.csv").exists() or (folder / "adult.data").exists():
            return folder
    if data is not None:
        raise DataError(f"data={str(data)!r}: no adult.csv or adult.data in that folder "
                        f"or in its adult/ subfolder.")
    return None


def experiment_data(data: str | Path | None = None) -> ExperimentData:
    """Adult from ``data`` (or ``$KANON_GRAPH_DATA``), else the synthetic census.

    Parameters
    ----------
    data : path, optional
        A folder holding ARX's ``adult.csv`` (or UCI's ``adult.data``), or a
        folder with an ``adult/`` subfolder that does. When given and not
        found, a :class:`~kanon_graph.exceptions.DataError` names it. When not
        given, ``$KANON_GRAPH_DATA`` is tried the same way; when that is unset
        or holds no Adult, :func:`~kanon_graph.datasets.make_census` (30,162
        rows, seed 0, Adult's columns) stands in.

    Returns
    -------
    ExperimentData
        The hierarchies are ARX's files from the folder when present, else the
        project's Adult hierarchies.
    """
    folder = _adult_folder(data)
    if folder is None:
        return ExperimentData(make_census(CENSUS_ROWS, seed=0), adult_hierarchies(),
                              "synthetic census (make_census, seed 0; Adult not found)",
                              False)
    table = load_adult(folder)
    if any(folder.glob("adult_hierarchy_*.csv")):
        hierarchies, which = load_hierarchies(folder), "ARX's hierarchies"
    else:
        hierarchies, which = adult_hierarchies(), "the project's hierarchies"
    return ExperimentData(table, hierarchies, f"Adult ({folder}; {which} when the "
                          f"experiment does not bring its own)", True, folder)
