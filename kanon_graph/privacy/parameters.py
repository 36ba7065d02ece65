"""Validating the privacy parameters of the public entry points.

One uniform message per parameter (its name, the constraint and the value
received), shared by :func:`kanon_graph.anonymize`, :func:`kanon_graph.evaluate`
and the command line.
"""

from __future__ import annotations

import numpy as np

from ._model import DIVERSITY_KINDS, PrivacyModel

__all__ = ["check_int", "check_fraction", "privacy_model"]


def check_int(value, name, where, lo, hi, what=""):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or not lo <= value <= hi:
        raise ValueError(
            f"The {name!r} parameter of {where} must be an integer in [{lo}, {hi}]{what}. "
            f"Got {value!r}."
        )
    return int(value)


def check_fraction(value, name, where):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) \
            or not 0 <= value <= 1:
        raise ValueError(f"The {name!r} parameter of {where} must be a number in [0, 1]. "
                         f"Got {value!r}.")
    return float(value)


def _is_real(value):
    """A finite real number (not a bool, not NaN or infinite, not a complex)."""
    return (not isinstance(value, (bool, np.bool_))
            and isinstance(value, (int, float, np.integer, np.floating))
            and bool(np.isfinite(value)))


def privacy_model(k, l, diversity, c, t, sensitive, n, where):
    k = check_int(k, "k", where, 1, n, " (the number of records)")
    if l is not None and not (_is_real(l) and l >= 1):
        raise ValueError(f"The 'l' parameter of {where} must be a number >= 1. "
                         f"Got {l!r}.")
    if not isinstance(diversity, str) or diversity not in DIVERSITY_KINDS:
        raise ValueError(f"The 'diversity' parameter of {where} must be one of "
                         f"{list(DIVERSITY_KINDS)}. Got {diversity!r}.")
    if not (_is_real(c) and c > 0):
        raise ValueError(f"The 'c' parameter of {where} must be a positive number. "
                         f"Got {c!r}.")
    if t is not None and not (_is_real(t) and 0 <= t <= 1):
        raise ValueError(f"The 't' parameter of {where} must be a number in [0, 1]. Got {t!r}.")
    return PrivacyModel(k, l, diversity, float(c), t, sensitive)
