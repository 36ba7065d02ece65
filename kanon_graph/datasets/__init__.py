"""Datasets: the papers' worked examples, Adult, and a synthetic census generator."""

from ._papers import (paper_001_table, paper_002_location, paper_003_hierarchies,
                      paper_003_schema, paper_003_table)

__all__ = [
    "paper_001_table",
    "paper_002_location",
    "paper_003_hierarchies",
    "paper_003_schema",
    "paper_003_table",
]
