"""Constrained anonymization (paper 002): generalization boundaries and sensitivity weights."""

from .boundaries import boundaries, generalization_order
from .release import ReleaseDecision, SensitivityRelease, release_decision, sensitivity_release

__all__ = [
    "ReleaseDecision",
    "SensitivityRelease",
    "boundaries",
    "generalization_order",
    "release_decision",
    "sensitivity_release",
]
