"""Rows keyed by the texts of their quasi-identifier cells, as a reader of the release sees them.

Both the privacy checks (:mod:`kanon_graph.privacy`) and the risk models
(:mod:`kanon_graph.risk`) count classes of a released table this way; it sits
below both, beside the encoder.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .table import combine_codes

__all__ = ["_row_keys", "_text_codes"]


def _text_codes(column):
    """Per cell, the code of its text: equal texts share a code, different texts never do.

    ``pandas.factorize`` numbers the distinct values of the column, so the map
    text -> code is one-to-one (injective) by construction, and grouping rows
    by code is grouping them by the text the user reads. A column that is not
    already text is compared as ``str`` (the number ``1`` and the text ``"1"``
    read alike). Returns the codes and the texts, in code order.
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        # a categorical of texts (what anonymize releases): its categories are distinct
        # texts, so its codes already number the texts one to one
        categories = column.cat.categories
        codes = np.asarray(column.cat.codes)     # its own small integer type: no copy
        if categories.inferred_type in ("string", "empty") and not (codes < 0).any():
            return codes, categories
        column = column.astype(object)
    if not isinstance(column.dtype, pd.StringDtype):
        column = column.astype(str)
    codes, texts = pd.factorize(column, use_na_sentinel=False)
    return codes.astype(np.int64), texts


def _row_keys(table, quasi_identifiers):
    """One key per row, equal for two rows exactly when their quasi-identifier texts are."""
    columns, radices, star = [], [], []
    for column in quasi_identifiers:
        codes, texts = _text_codes(table[column])
        columns.append(codes)
        radices.append(len(texts))
        where = np.flatnonzero(np.asarray(texts, dtype=object) == "*")
        star.append(codes == where[0] if where.size else np.zeros(len(codes), dtype=bool))
    suppressed = np.logical_and.reduce(star) if star else np.zeros(len(table), dtype=bool)
    return combine_codes(columns, radices), suppressed
