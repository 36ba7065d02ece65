"""A release's formula cells read back: the ``'`` that ``--escape-formulas`` added taken off.

``kanon-graph anonymize --escape-formulas`` writes a cell a spreadsheet would
run (``=1+1``, ``-x``, ``@a``; :mod:`kanon_graph.io.release`) as ``'=1+1``.
In a quasi-identifier that cell is a released value: read back as it is, it
names no value and no hierarchy label, and ``evaluate`` would refuse the
honest release. :func:`unescaped_formulas` reads it as the cell it stands
for, and only where that is sure: a cell ``'X`` is read as ``X`` when ``X``
would run as a formula and ``'X`` itself is neither a value of the original
column nor a label of its hierarchy (a value that really starts with ``'``
is read as it is).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .release import _is_formula

__all__ = ["unescaped_formulas"]


def unescaped_formulas(released: pd.DataFrame, original: pd.DataFrame,
                       schema: Any) -> pd.DataFrame:
    """``released`` with the escaped formula cells of its quasi-identifiers read back.

    Parameters
    ----------
    released : DataFrame
        A release as read from its file (:func:`~kanon_graph.io.read_table`).
    original : DataFrame
        The table it was made from.
    schema : Schema
        Its quasi-identifiers and their hierarchies.

    Returns
    -------
    DataFrame
        ``released`` itself when no cell changes, else a copy.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> original = pd.DataFrame({"note": ["=1+1", "'=2", "a"]})
    >>> released = pd.DataFrame({"note": ["'=1+1", "'=2", "a"]})
    >>> schema = kg.Schema(quasi_identifiers=["note"])
    >>> unescaped_formulas(released, original, schema)["note"].tolist()
    ['=1+1', "'=2", 'a']
    """
    out = released
    for column in schema.quasi_identifiers:
        if column not in released.columns or column not in original.columns:
            continue
        cells = released[column]
        codes, uniques = pd.factorize(cells)
        escaped = [isinstance(u, str) and u.startswith("'") and _is_formula(u[1:])
                   for u in uniques]
        if not any(escaped):
            continue
        known = {str(v) for v in pd.unique(original[column].dropna())}
        hierarchy = schema.hierarchy(column)
        if hierarchy is not None:
            for level in range(hierarchy.height + 1):
                known.update(hierarchy.labels(level))
        read = np.array([u[1:] if e and u not in known else u
                         for u, e in zip(uniques, escaped)], dtype=object)
        if out is released:
            out = released.copy()
        values = read[np.maximum(codes, 0)]
        values[codes < 0] = np.nan
        out[column] = pd.Series(values, index=released.index, dtype=object)
    return out
