"""Released cells read by their text, a categorical column through its categories."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["is_star", "suppressed_rows", "text_counts"]


def is_star(column: pd.Series) -> np.ndarray:
    """Per row: is the released cell the text ``*``? (categories compared, not rows)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        stars = np.flatnonzero(column.cat.categories.astype(str) == "*")
        return np.isin(column.cat.codes.to_numpy(), stars)
    return (column.astype(str) == "*").to_numpy()


def suppressed_rows(released: pd.DataFrame, qis: list[str]) -> np.ndarray:
    """Per row: are all its quasi-identifiers ``*`` (a suppressed record)?"""
    stars = np.ones(len(released), dtype=bool)
    for qi in qis:
        stars &= is_star(released[qi])
    return stars


def text_counts(column: pd.Series) -> pd.Series:
    """Rows per released text (a categorical column's categories read as text; unused
    categories left out)."""
    counts = column.value_counts(sort=False, dropna=False)
    counts = counts[counts > 0]
    counts.index = counts.index.astype(str)
    return counts.groupby(level=0, sort=False).sum()
