"""Datasets: the papers' worked examples, Adult, and a synthetic census generator."""

from ._papers import (paper_001_table, paper_002_location, paper_003_hierarchies,
                      paper_003_schema, paper_003_table)
from .adult import (ADULT_COLUMNS, adult_hierarchies, adult_hierarchies_path,
                    load_adult)
from .census import census_schema, make_census
from .wide import make_wide_binary

__all__ = [
    "ADULT_COLUMNS",
    "adult_hierarchies",
    "adult_hierarchies_path",
    "census_schema",
    "load_adult",
    "make_census",
    "make_wide_binary",
    "paper_001_table",
    "paper_002_location",
    "paper_003_hierarchies",
    "paper_003_schema",
    "paper_003_table",
]
