"""Datasets: the papers' worked examples, Adult, a synthetic census and a contacts register."""

from ._papers import (paper_001_table, paper_002_location, paper_003_hierarchies,
                      paper_003_schema, paper_003_table)
from .adult import (ADULT_COLUMNS, adult_hierarchies, adult_hierarchies_path,
                    load_adult)
from .census import census_schema, make_census
from .register import make_register
from .wide import make_wide_binary

__all__ = [
    "ADULT_COLUMNS",
    "adult_hierarchies",
    "adult_hierarchies_path",
    "census_schema",
    "load_adult",
    "make_census",
    "make_register",
    "make_wide_binary",
    "paper_001_table",
    "paper_002_location",
    "paper_003_hierarchies",
    "paper_003_schema",
    "paper_003_table",
]
