"""Recoding: turning a partition or a level vector into released values."""

from ._release import (SUPPRESSED, AttributeRelease, Release, recode_levels,
                       recode_partition)
from ._aggregate import AGGREGATES, AggregateSpace, aggregate_space, recode_aggregate
from .boundaries import (allowed_classes, cells_to_suppress, class_cells, has_boundaries,
                         magval_cells, union_allowed)

__all__ = ["AGGREGATES", "AggregateSpace", "aggregate_space", "recode_aggregate",
           "SUPPRESSED", "AttributeRelease", "Release", "recode_levels", "recode_partition",
           "allowed_classes", "cells_to_suppress", "class_cells", "has_boundaries",
           "magval_cells", "union_allowed"]
