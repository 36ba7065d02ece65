"""Privacy criteria: k-anonymity, l-diversity, t-closeness, re-identification risk,
and MAGVal constraint violations."""

from ._check import (equivalence_classes, is_k_anonymous, k_anonymity, l_diversity,
                     prosecutor_risk, t_closeness)
from ._model import DIVERSITY_KINDS, PrivacyModel, Verification
from .constraints import Violation, constraint_violations
from .histograms import ClassCheck

__all__ = [
    "ClassCheck",
    "DIVERSITY_KINDS",
    "PrivacyModel",
    "Verification",
    "Violation",
    "constraint_violations",
    "equivalence_classes",
    "is_k_anonymous",
    "k_anonymity",
    "l_diversity",
    "prosecutor_risk",
    "t_closeness",
]
