"""A Dask release mapped onto one partition: its rows' released cells, order kept.

:meth:`kanon_graph.scale.dask_input.DaskInput.release` hands every partition's
task one payload (one graph key): per quasi-identifier, the original values
and the codes of their labels (:func:`_release_by_value`), or the whole
mapping from distinct tuples to label codes (:func:`_release_partition`),
with the released columns' label texts and the code of ``*`` in each.

The tasks run at once on threads (dask's threaded scheduler, a worker's
threads), so the payload holds nothing pandas builds lazily and caches: its
lookups are plain arrays, and each task builds its own ``Index``. A pandas
``Index`` computes its hash table and its uniqueness on first use, and two
threads doing that at once on one shared ``Index`` can leave it saying that
it is not unique (pandas issue 21150), after which every lookup in it raises
``InvalidIndexError: Reindexing only valid with uniquely valued Index
objects`` -- what a run under heavy load once raised at ``.table.compute()``.
No label is looked up in a categorical's categories either (the payload
carries the codes), and each task builds its released columns' dtypes from
the label texts (equal dtypes, one per task).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..cells.kinds import missing_mask as _missing_mask
from ..exceptions import PrivacyError

__all__ = []

_GONE = "__kg_suppressed__"


def _per_value(mapping, columns, qis):
    """``{qi: Series original value -> released label}`` over the tuples not suppressed,
    or None when some value is released two ways, or a tuple has a missing value."""
    if any(_missing_mask(mapping[c]).any() for c in columns):
        return None
    free = ~mapping[_GONE].to_numpy(dtype=bool)
    lookups = {}
    for column in qis:
        # value and label as codes: each value's label taken from one of its tuples, then
        # every tuple checked against it
        # Series, not their .array: pandas 2 deprecates factorizing a NumpyExtensionArray
        value, values = pd.factorize(mapping[column][free])
        label, labels = pd.factorize(mapping["__kg_rel_" + column][free])
        label_of = np.empty(len(values), dtype=np.int64)
        label_of[value] = label
        if (label_of[value] != label).any():
            return None
        lookups[column] = pd.Series(np.asarray(labels, dtype=object)[label_of],
                                    index=pd.Index(values))
    return lookups


def _dtype(texts):
    """A released column's categorical dtype, this task's own, from its label texts."""
    return pd.CategoricalDtype(pd.Index(texts, dtype="str"))


def _release_by_value(part, shared, columns, qis, out_columns):
    """One partition's release by per-column lookups, order kept (no row dropped)."""
    lookups, gone_tuples, texts, stars = shared
    gone = np.zeros(len(part), dtype=bool)
    if len(gone_tuples):
        joined = part[columns].merge(gone_tuples.assign(**{_GONE: True}), on=columns,
                                     how="left", sort=False)
        gone = joined[_GONE].notna().to_numpy()
    out = part[out_columns].copy()
    for column in qis:
        # one lookup per distinct value of the partition, then spread by code: each cell a
        # code into the column's label texts (no per-row text or Python object)
        cells = part[column]
        if isinstance(cells.dtype, pd.CategoricalDtype):
            codes, uniques = np.asarray(cells.cat.codes), cells.cat.categories
        else:
            codes, uniques = pd.factorize(cells, use_na_sentinel=False)
        held, label_of = lookups[column]
        values = pd.Index(held)             # this task's own Index (see the module docstring)
        at = values.get_indexer(pd.Index(np.asarray(uniques), dtype=values.dtype)
                                if len(uniques) else pd.Index([], dtype=object))
        # a value held gets its label; an unknown or missing one none (-1); every tuple
        # suppressed (k = the row count at the top of a hierarchy) holds no value at all
        per_unique = np.full(len(at) + 1, -1, dtype=np.int64)
        found = np.flatnonzero(at >= 0)
        per_unique[found] = np.asarray(label_of)[at[found]]
        taken = per_unique[codes]           # a missing cell (code -1) has no label
        unknown = (taken < 0) & ~gone
        if unknown.any():
            raise PrivacyError(f"value {cells.to_numpy()[unknown][0]!r} of {column!r} "
                               f"has no released label (did the input change?)")
        taken[gone] = stars[column]
        out[column] = pd.Series(pd.Categorical.from_codes(taken, dtype=_dtype(texts[column])),
                                index=part.index)
    return out


def _release_partition(part, shared, columns, qis, out_columns, dropped=False):
    """One partition's release: its tuples looked up in ``mapping``, order kept.

    A row is left out only when the run dropped rows with a missing value
    (``dropped``) and it has one; any other tuple that ``mapping`` does not
    hold (an input changed since it was counted) is an error, never a row
    lost.
    """
    mapping, texts, stars = shared
    joined = part[columns].merge(mapping, on=columns, how="left", sort=False)
    missing = joined[_GONE].isna().to_numpy()
    if missing.any():
        has_missing = np.zeros(len(part), dtype=bool)
        if dropped:
            for column in columns:
                has_missing |= np.asarray(_missing_mask(part[column]), dtype=bool)
        unknown = missing & ~has_missing
        if unknown.any():
            row = part.index[int(np.flatnonzero(unknown)[0])]
            raise PrivacyError(f"row {row!r} of the input holds a tuple of {list(columns)} "
                               f"that has no released value: it was not in the input when "
                               f"the release was computed (did the input change?)")
    # not fillna(False): pandas 2 deprecates its silent downcast of an object column
    gone = joined[_GONE].to_numpy(dtype=object, na_value=False).astype(bool)
    out = part[out_columns].copy()
    for column in qis:
        # each row's label as its code (missing rows get "*" as a placeholder, dropped below)
        codes = joined["__kg_rel_" + column].to_numpy(dtype=np.float64, na_value=np.nan)
        codes = np.where(gone | missing, stars[column], np.nan_to_num(codes)).astype(np.int64)
        out[column] = pd.Series(pd.Categorical.from_codes(codes, dtype=_dtype(texts[column])),
                                index=part.index)
    # rows dropped for missing values have no released tuple
    return out.loc[~missing]


