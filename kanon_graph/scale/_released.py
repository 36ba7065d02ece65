"""A Dask release checked from its own released cells, partition by partition.

The release of a Dask table (:meth:`~kanon_graph.scale.dask_input.DaskInput.release`)
is a lazy table. Before it is returned, the released cells of the counted
tuples (each tuple released by the function that releases each partition,
weighted by its records: :func:`check_released_tuples`) are checked, without
reading the input a second time; where it is written
(:func:`kanon_graph.scale.written.write_dask_release`), or counted by
:func:`check_released_cells`, the workers count the cells computed from the
input by their text (how a reader tells the classes apart,
:func:`~kanon_graph.scale._counts.count_tuples` with ``text=True``), with
l-diversity or t-closeness together with the sensitive cell, and the client,
which holds one row per distinct (released quasi-identifiers, sensitive
value) and never one per record, checks (:class:`CellCheck`):

* the records: as many as the input's, less those dropped for a missing
  value (counted on the input's tuples, not taken from the run);
* k: every class of released cells holds ``k`` records;
* l and t: the privacy model's own check (:meth:`PrivacyModel.verify
  <kanon_graph.privacy.PrivacyModel.verify>`), on the counted classes
  weighted by their records -- the check the in-memory pipeline runs on its
  released cells (:func:`kanon_graph.pipeline.from_partition.check_release`).

A record whose quasi-identifiers are all ``*`` is suppressed, by definition:
it is in no class and counts as suppressed, whatever the algorithm reported
(the written file cannot tell a suppressed record from a class released at
the top of every hierarchy, so neither does the check). Nothing the
algorithm reported about its release (``result.verification``,
``result.suppressed``) is read. Any failure raises
:class:`~kanon_graph.exceptions.PrivacyError`: the release is not returned
(nor written).
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any

import numpy as np
import pandas as pd

from ..encoding import combine_codes
from ..encoding.row_keys import _text_codes
from ..exceptions import PrivacyError
from ..privacy import PrivacyModel
from ..recoding import SUPPRESSED
from ._cluster import compute_all
from ._counts import add_counts, count_tuples

__all__ = ["CellCheck", "check_released_cells", "check_released_tuples"]

_COUNT = "__kg_count__"


@dataclasses.dataclass(frozen=True)
class CellCheck:
    """What the counted cells of a Dask release must satisfy, wherever they are counted.

    Attributes
    ----------
    qis : tuple of str
        The released quasi-identifiers.
    k : int
    records : int
        Records the release must hold: the input's, less the rows dropped
        for a missing value (counted on the input's tuples).
    model : PrivacyModel or None
        With l or t, bound to ``data``; None for k alone.
    data : EncodedTable or None
        The encoded input tuples (how a sensitive text maps to its code).
    source : DataFrame or None
        The counted input tuples' sensitive column (with l or t), rows
        matching ``data.positions``.
    files : Fingerprints or None
        The input's files as they were when read
        (:class:`kanon_graph.scale._sources.Fingerprints`).
    """

    qis: tuple
    k: int
    records: int
    model: Any = None
    data: Any = dataclasses.field(default=None, repr=False)
    source: Any = dataclasses.field(default=None, repr=False)
    files: Any = None

    @property
    def sensitive(self):
        """The sensitive column l or t reads (None for k alone)."""
        model = self.model
        return model.sensitive if model is not None and model.needs_sensitive else None

    @property
    def columns(self):
        """The columns to count: the quasi-identifiers, then the sensitive one if any."""
        return list(self.qis) + ([self.sensitive] if self.sensitive is not None else [])

    def check(self, counted, *, where, what="the release written partition by partition"):
        """Check counted released cells (``columns`` and ``__kg_count__``).

        Returns
        -------
        Verification
            What the counted cells achieve (all-``*`` records suppressed).
        """
        held = counted[_COUNT].to_numpy(dtype=np.int64)
        class_of = _classes(counted, self.qis)
        total = int(held.sum())
        if total != self.records:
            raise PrivacyError(f"{where}: {what} holds {total} records; the input holds "
                               f"{self.records} (did the input change?)")
        sensitive = self.sensitive
        if sensitive is None:
            view = types.SimpleNamespace(weights=held)
            model = PrivacyModel(self.k)
        else:
            view = _counted_view(self.data, self.source, sensitive, counted[sensitive], held)
            model = self.model
        verification = model.verify(class_of, view)
        if not verification.holds:
            raise PrivacyError(f"{where}: {what} fails its privacy check counted on its "
                               f"released cells ({verification.released} records released in "
                               f"classes of at least {verification.k_achieved}, every all-'*' "
                               f"record suppressed): {verification.describe()}")
        if sensitive is not None:
            _same_sensitive(view, self.data, sensitive, where, what)
        return verification


def count_released(table, columns, client=None):
    """``table``'s distinct (``columns``) texts and their records, counted per partition."""
    import dask

    tasks = [dask.delayed(count_tuples, pure=True)(part, columns, text=True)
             for part in table[columns].to_delayed()]
    return add_counts(compute_all(client, tasks), columns, _COUNT)


def check_released_tuples(released, weights, check, *, where):
    """Check the released cells of the counted tuples, each weighted by its records.

    ``released`` holds one row per counted input tuple (``check.columns``:
    its released quasi-identifier cells, its sensitive cell), made by the
    very function that releases each partition; ``weights`` the records of
    each. The cells are counted by their text as a partition's are
    (:func:`count_tuples` with ``text=True``), so the check reads the
    released cells without reading the input again; the write counts the
    cells it writes (:mod:`kanon_graph.scale.written`).
    """
    counted = count_tuples(released, check.columns, text=True, weights=weights)
    return check.check(add_counts([counted], check.columns, _COUNT), where=where,
                       what="the release of the counted tuples")


def check_released_cells(table, check, *, where, client=None):
    """Count ``table``'s released cells on the workers and ``check`` them.

    Parameters
    ----------
    table : dask.dataframe.DataFrame
        The release, one row per released record.
    check : CellCheck
    where : str
        The public function to name in messages.
    client : distributed.Client, optional
        Where the partitions are counted (None: dask's threads here).

    Returns
    -------
    Verification
        What the released cells achieve.
    """
    return check.check(count_released(table, check.columns, client), where=where)


def _classes(counted, qis):
    """Class of each counted row: one per distinct quasi-identifier text, -1 when all ``*``."""
    starred = np.logical_and.reduce([counted[q].astype(str).to_numpy() == SUPPRESSED
                                     for q in qis])
    per_column = [pd.factorize(counted[q].astype(str))[0] for q in qis]
    key = combine_codes(per_column, [int(c.max()) + 1 if len(c) else 1 for c in per_column])
    class_of = np.full(len(counted), -1, dtype=np.int64)
    class_of[~starred] = np.unique(key[~starred], return_inverse=True)[1].reshape(-1)
    return class_of


def _same_sensitive(view, data, sensitive, where, what):
    """The released sensitive cells are the input's, record for record (as counts per value).

    Neither a global recoding nor ``stepwise`` changes a sensitive cell; t is measured
    against the release's own distribution, so a release whose sensitive cells were
    replaced (all one value, say) could otherwise pass it.
    """
    def per_value(codes, weights):
        counts = pd.Series(np.asarray(weights, dtype=np.int64)).groupby(
            np.asarray(codes, dtype=np.int64)).sum()
        return counts[counts > 0].sort_index()

    given = data.weights if data.weights is not None else np.ones(len(data.table), np.int64)
    if not per_value(view.sensitive[sensitive], view.weights).equals(
            per_value(data.sensitive[sensitive], given)):
        raise PrivacyError(f"{where}: {what} holds other {sensitive!r} values than the input "
                           f"(counted per value; a release never changes a sensitive cell)")


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
