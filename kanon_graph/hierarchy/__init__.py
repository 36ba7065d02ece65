"""Value generalization hierarchies: one tree per quasi-identifier.

Trees are built on anytree nodes and annotated with levels, leaf counts and
MAGVal marks; they answer CHD / CHE / HDist (Venkata Ramana & Valli Kumari
2013, Definitions 4-6) and MAGVal / MAGSet (Hussien et al. 2016,
Definitions 3-4).
"""

from ._builders import intervals, masking
from ._dates import dates
from ._drafted import LevelShare, level_shares
from ._prefix import prefix_levels
from ._suggest import round_widths, suggest
from ._distance import che, hdist
from ._io import load_hierarchies, read_hierarchy, write_hierarchy
from ._tree import Hierarchy

__all__ = [
    "Hierarchy",
    "LevelShare",
    "che",
    "dates",
    "hdist",
    "intervals",
    "level_shares",
    "load_hierarchies",
    "masking",
    "prefix_levels",
    "read_hierarchy",
    "round_widths",
    "suggest",
    "write_hierarchy",
]
