"""UCI's full Adult (all 15 columns) for the paper-literal readings, and hierarchies for
the two columns ARX's extract lacks (capital gain, education number)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..hierarchy import Hierarchy

__all__ = ["UCI_COLUMNS", "find_uci", "load_uci", "capital_gain_hierarchy",
           "education_num_hierarchy"]

#: UCI's ``adult.names``, in file order; ``income`` is named ``salary-class`` as in ARX's.
UCI_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
               "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
               "hours-per-week", "native-country", "salary-class"]
NUMERIC = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]


def find_uci(folder: Path | None) -> Path | None:
    """UCI's ``adult.data`` beside the Adult folder the experiment found (``adult-uci/``
    in it or in its parent, the layout of ``$KANON_GRAPH_DATA``), or None."""
    if folder is None:
        return None
    for place in (folder / "adult-uci", folder.parent / "adult-uci", folder):
        path = place / "adult.data"
        if path.is_file():
            with open(path) as handle:
                if handle.readline().count(",") == len(UCI_COLUMNS) - 1:
                    return path
    return None


def load_uci(path: Path) -> pd.DataFrame:
    """``adult.data`` with its 15 columns; rows with a ``?`` anywhere are dropped (32,561
    rows become the 30,162 of the literature and of paper 004's Figure 6)."""
    table = pd.read_csv(path, header=None, names=UCI_COLUMNS, dtype=str,
                        skipinitialspace=True, comment="|")
    table = table.apply(lambda column: column.str.strip())
    table = table[~table.isin(["?", ""]).any(axis=1)].reset_index(drop=True)
    table["salary-class"] = table["salary-class"].str.rstrip(".")
    for column in NUMERIC:
        table[column] = table[column].astype("int64")
    return table


def capital_gain_hierarchy(values) -> Hierarchy:
    """Capital gain in 5 levels: the value; 0 or a 3,000-dollar band (15,001 and more
    together); 0, 1-6,000, 6,001-15,000, 15,001+; 0 or any gain; ``*``.

    Paper 004 states no hierarchy for Adult; its Figure 7 reads a cut at
    6,001 dollars off the global release, Figures 8-9 "15,000+" and 7,000,
    so the bands are cut at 6,000 and 15,000.
    """
    def row(v: int) -> list[str]:
        if v == 0:
            return ["0", "0", "0", "0", "*"]
        band = (v - 1) // 3000
        first = (f"[{band * 3000 + 1}-{band * 3000 + 3000}]" if v <= 15000
                 else "[15001-99999]")
        second = ("[1-6000]" if v <= 6000 else "[6001-15000]" if v <= 15000
                  else "[15001-99999]")
        return [str(v), first, second, "[1-99999]", "*"]

    return Hierarchy.from_rows([row(int(v)) for v in sorted(set(int(v) for v in values))],
                               name="capital-gain")


def education_num_hierarchy() -> Hierarchy:
    """Education number (1-16) in 4 levels: the number; pre-college (1-8), high school (9),
    some college (10), associate (11-12), bachelors (13), graduate (14-16); pre-college,
    9-12, 13-16; ``*``. Paper 004 names "Pre-college" (Figure 8); the rest is ours."""
    def row(v: int) -> list[str]:
        first = ("[1-8]" if v <= 8 else "9" if v == 9 else "10" if v == 10
                 else "[11-12]" if v <= 12 else "13" if v == 13 else "[14-16]")
        second = "[1-8]" if v <= 8 else "[9-12]" if v <= 12 else "[13-16]"
        return [str(v), first, second, "*"]

    return Hierarchy.from_rows([row(v) for v in range(1, 17)], name="education-num")
