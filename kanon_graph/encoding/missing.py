"""How :func:`kanon_graph.encoding.encode` keeps missing cells (``missing="keep"``).

A missing quasi-identifier cell is a value of its own, :data:`MISSING`: a
leaf of its own under the root of the column's hierarchy (its MAGVal marks
kept), or a code of its own beside the present values. A missing sensitive
cell gets code 0, before every present value; the privacy model counts it
toward k but not as a value (see :mod:`kanon_graph.privacy._model`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .cells import _date_cells, _factorize, _numeric_cells
from ..hierarchy import Hierarchy

__all__ = ["MISSING", "missing_leaf", "with_missing", "sensitive_with_missing"]

#: The released text of a missing cell kept as a value (``missing="keep"``).
MISSING = "(missing)"


def missing_leaf(hierarchy):
    """``hierarchy`` with a leaf :data:`MISSING` of its own under the root (if it lacks one).

    Every MAGVal mark is carried over (the missing leaf has none of its own:
    its MAGVal is the root), so a search within boundaries keeps them.
    """
    if MISSING in hierarchy.leaf_labels:
        return hierarchy
    rows = hierarchy.to_rows()
    rows.append([MISSING] * hierarchy.height + [rows[0][-1]])
    out = Hierarchy(rows, name=hierarchy.name, source=hierarchy.source)
    if hierarchy.has_magvals:
        for level in range(hierarchy.height + 1):
            for label in hierarchy.labels(level):
                if hierarchy.is_magval(label, level):
                    out.mark_magval(label, level)
    return out


def with_missing(present, mask):
    """A quasi-identifier encoded on its present cells (``present``), with the
    missing cells (``mask``) as a value of their own."""
    n = len(mask)
    values = None
    if present.values is not None:             # a value just below the smallest present one
        lo, hi = float(np.min(present.values)), float(np.max(present.values))
        values = np.empty(n)
        values[~mask] = present.values
        values[mask] = lo - (0.1 * (hi - lo) if hi > lo else 1.0)
    codes = np.empty(n, dtype=np.int64)
    if present.hierarchy is not None:
        hierarchy = missing_leaf(present.hierarchy)
        leaf = int(hierarchy.encode(np.asarray([MISSING], dtype=object))[0])
        codes[~mask] = present.codes             # old leaves keep their index: MISSING is last
        codes[mask] = leaf
        return dataclasses.replace(present, codes=codes, hierarchy=hierarchy,
                                   domain=hierarchy.leaf_labels, values=values,
                                   missing_code=leaf)
    if present.values is not None:             # numeric / date: MISSING first, below every value
        codes[~mask] = present.codes + 1
        codes[mask] = 0
        return dataclasses.replace(present, codes=codes, domain=[MISSING] + list(present.domain),
                                   values=values, missing_code=0)
    codes[~mask] = present.codes
    codes[mask] = len(present.domain)
    return dataclasses.replace(present, codes=codes, domain=list(present.domain) + [MISSING],
                               values=None, date=False, missing_code=len(present.domain))


def sensitive_with_missing(series, mask, kind, column, where, fmt=None):
    """Codes and domain of a sensitive column whose missing cells (``mask``) get code 0."""
    present = series[~mask].reset_index(drop=True)
    if kind == "numeric":
        inner, texts, _ = _numeric_cells(present, column, where)
    elif kind == "date":
        inner, texts, _, _ = _date_cells(present, column, where, fmt)
    else:
        texts, inner = _factorize(present)
    codes = np.zeros(len(mask), dtype=np.int64)
    codes[~mask] = inner + 1
    return codes, [MISSING] + list(texts)
