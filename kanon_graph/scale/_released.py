"""A Dask release checked from its own released cells, partition by partition.

The release of a Dask table (:meth:`~kanon_graph.scale.dask_input.DaskInput.release`)
is a lazy table; before it is returned, the workers count its released
quasi-identifier cells by their text (how a reader tells the classes apart,
:func:`~kanon_graph.scale._counts.count_tuples` with ``text=True``) -- with
l-diversity or t-closeness together with the sensitive cell -- and the
client, which holds one row per distinct (released quasi-identifiers,
sensitive value) and never one per record, checks:

* the records: as many as the input's, less those dropped for a missing value;
* k: every class of released cells holds ``k`` records;
* l and t: the privacy model's own check (:meth:`PrivacyModel.verify
  <kanon_graph.privacy.PrivacyModel.verify>`), on the counted classes
  weighted by their records -- the check the in-memory pipeline runs on its
  released cells (:func:`kanon_graph.pipeline.from_partition.check_release`).

A record whose quasi-identifiers are all ``*`` counts as suppressed when the
run suppressed records (as the written table shows it). Any failure raises
:class:`~kanon_graph.exceptions.PrivacyError`: the release is not returned.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ..encoding.row_keys import _text_codes
from ..encoding import combine_codes
from ..exceptions import PrivacyError
from ..recoding import SUPPRESSED
from ._cluster import compute_all
from ._counts import add_counts, count_tuples

__all__ = ["check_released_cells"]

_COUNT = "__kg_count__"


def check_released_cells(table, qis, result, *, records, where, client=None, model=None,
                         source=None):
    """Count ``table``'s released cells on the workers and check the model on them.

    Parameters
    ----------
    table : dask.dataframe.DataFrame
        The release, one row per released record.
    qis : list of str
    result : AnonymizationResult
        Made on the counted tuples (``result.release.data``: their encoding).
    records : int
        Records the release must hold.
    model : PrivacyModel, optional
        With l or t: checked on (released classes, sensitive values).
    source : DataFrame, optional
        The counted input tuples (with the sensitive column), rows matching
        ``result.release.data.positions``: how a sensitive text maps to its code.

    Returns
    -------
    Verification or None
        What the released cells achieve under ``model`` (None without l or t).
    """
    import dask

    sensitive = model.sensitive if model is not None and model.needs_sensitive else None
    columns = list(qis) + ([sensitive] if sensitive is not None else [])
    tasks = [dask.delayed(count_tuples, pure=True)(part, columns, text=True)
             for part in table.to_delayed()]
    counted = add_counts(compute_all(client, tasks), columns, _COUNT)
    held = counted[_COUNT].to_numpy(dtype=np.int64)
    starred = np.logical_and.reduce([counted[q].astype(str).to_numpy() == SUPPRESSED
                                     for q in qis])
    gone = starred if result.suppressed else np.zeros(len(counted), dtype=bool)
    # one class per distinct released quasi-identifier text (suppressed: -1)
    per_column = [pd.factorize(counted[q].astype(str))[0] for q in qis]
    key = combine_codes(per_column, [int(c.max()) + 1 if len(c) else 1 for c in per_column])
    dense = np.unique(key[~gone], return_inverse=True)[1].reshape(-1)
    class_of = np.full(len(counted), -1, dtype=np.int64)
    class_of[~gone] = dense
    sizes = np.bincount(dense, weights=held[~gone])
    smallest = int(sizes.min()) if len(sizes) else 0
    if int(held.sum()) != records or (len(sizes) and smallest < result.k
                                      and result.verification.released):
        raise PrivacyError(f"{where}: the release written partition by partition holds "
                           f"{int(held.sum())} records in classes of at least {smallest}; "
                           f"expected {records} records in classes of at least {result.k}")
    if sensitive is None:
        return None
    view = _counted_view(result.release.data, source, sensitive, counted[sensitive], held)
    verification = model.verify(class_of, view)
    if not verification.holds:
        raise PrivacyError(f"{where}: the release written partition by partition fails its "
                           f"privacy check counted on its released cells: "
                           f"{verification.describe()}; it is not returned")
    return verification


def _counted_view(data, source, sensitive, cells, held):
    """``data`` (the encoded tuples) as one row per counted released cell, weighted."""
    # each sensitive text of the input's tuples, and its code in the encoding
    rows = np.asarray(data.positions, dtype=np.int64)
    codes_in, texts_in = _text_codes(source[sensitive].iloc[rows].reset_index(drop=True))
    code_of_text = dict(zip(np.asarray(texts_in, dtype=object)[codes_in].astype(str),
                            np.asarray(data.sensitive[sensitive], dtype=np.int64)))
    codes_out, texts_out = _text_codes(cells.reset_index(drop=True))
    known = np.array([code_of_text.get(str(text), -1) for text in texts_out], dtype=np.int64)
    values = known[codes_out] if len(codes_out) else np.zeros(0, dtype=np.int64)
    if (values < 0).any():
        text = str(np.asarray(texts_out, dtype=object)[codes_out[values < 0][0]])
        raise PrivacyError(f"the release holds a sensitive value {text!r} of {sensitive!r} "
                           f"that was not counted in the input (did the input change?)")
    return dataclasses.replace(data, table=pd.DataFrame(index=pd.RangeIndex(len(values))),
                               sensitive={sensitive: values}, row_labels=None,
                               positions=None, weights=np.asarray(held, dtype=np.int64))
