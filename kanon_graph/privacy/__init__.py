"""Privacy criteria: k-anonymity, l-diversity, t-closeness and re-identification risk."""

from ._check import (equivalence_classes, is_k_anonymous, k_anonymity, l_diversity,
                     prosecutor_risk, t_closeness)
from ._model import DIVERSITY_KINDS, PrivacyModel, Verification

__all__ = [
    "DIVERSITY_KINDS",
    "PrivacyModel",
    "Verification",
    "equivalence_classes",
    "is_k_anonymous",
    "k_anonymity",
    "l_diversity",
    "prosecutor_risk",
    "t_closeness",
]
