"""Recoding: turning a partition or a level vector into released values."""

from ._release import (SUPPRESSED, AttributeRelease, Release, recode_levels,
                       recode_partition)
from .boundaries import (allowed_classes, class_cells, magval_cells, run_within_cells,
                         union_allowed)

__all__ = ["SUPPRESSED", "AttributeRelease", "Release", "recode_levels", "recode_partition",
           "allowed_classes", "class_cells", "magval_cells", "run_within_cells", "union_allowed"]
