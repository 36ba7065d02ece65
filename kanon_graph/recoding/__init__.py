"""Recoding: turning a partition or a level vector into released values."""

from ._release import (SUPPRESSED, AttributeRelease, Release, recode_levels,
                       recode_partition)

__all__ = ["SUPPRESSED", "AttributeRelease", "Release", "recode_levels", "recode_partition"]
