"""Distinct tuples with counts: a table the search can run on instead of its rows.

A global recoding releases every record holding the same quasi-identifier
tuple alike, and so can a local recoding that counts by weight (``stepwise``:
run on the tuples, it releases each tuple as a whole), so such an algorithm
can run on the distinct tuples of the encoded table, each weighted by the records that hold
it (the frequency set of the bottom lattice node, Morton et al. 2012,
section 2.3). Per-class quantities (sizes, suppressed records, every
information-loss metric of :mod:`kanon_graph.metrics._loss`) are then the
same as on the rows.

* :func:`collapse` turns an encoded table into its weighted distinct tuples
  and says which tuple each row holds;
* :func:`spread` takes a release made on the tuples back to the rows;
* :func:`expand` repeats weighted tuples into one row per record (for an
  algorithm that does not count by weight), and :func:`onto_tuples` takes
  its release back to the tuples, refusing one that releases two copies of
  a tuple differently.

An algorithm declares that it counts by weight when it is registered
(``register_algorithm(..., weighted=True)``); the privacy model counts by
weight too (k, every l-diversity and t-closeness), so l and t are checked
on the tuples as well.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Callable

import numpy as np
import pandas as pd

from ..encoding import combine_codes
from ..exceptions import PrivacyError

if TYPE_CHECKING:
    from ..encoding import EncodedTable
    from ..recoding._release import Release

__all__ = ["collapse", "spread", "expand", "onto_tuples", "for_algorithm"]


def _row_key(data: EncodedTable, sensitive: bool) -> np.ndarray:
    """One int64 key per row, equal for two rows exactly when their encoded tuples are."""
    columns, radices = [], []
    for attr in data.attributes:
        columns.append(attr.codes)
        radices.append(attr.n_codes)
    for codes in (data.sensitive.values() if sensitive else ()):
        columns.append(codes)
        radices.append(int(codes.max()) + 1 if len(codes) else 1)
    return combine_codes(columns, radices)


def collapse(data: EncodedTable, *, sensitive: bool = False
             ) -> tuple[EncodedTable, np.ndarray]:
    """The distinct tuples of ``data`` weighted by their records, and each row's tuple.

    Two rows are one tuple when every quasi-identifier code agrees (and
    every sensitive code, with ``sensitive``; without it the tuples carry
    no sensitive attribute). Rows already weighted (a Dask table's counted
    tuples) add their weights. The tuples come in the order of their first
    row, so classes numbered by first appearance are numbered as on the
    rows. Only what a search and a release read is kept: the codes, the
    numbers of a numeric attribute (a function of its code; the RV
    searches' correlation weights read them), and no table columns
    (``table`` has one empty row per tuple).

    Returns
    -------
    tuples : EncodedTable
        One row per distinct tuple, ``weights`` its records.
    inverse : ndarray of int64, shape (data.n,)
        The tuple of every row of ``data``.

    Examples
    --------
    The paper 003 table with its first four rows repeated: 14 rows, 10 tuples.

    >>> import pandas as pd, kanon_graph as kg
    >>> table = kg.datasets.paper_003_table()
    >>> data = kg.encode(pd.concat([table, table.head(4)], ignore_index=True),
    ...                  kg.datasets.paper_003_schema())
    >>> tuples, inverse = collapse(data)
    >>> data.n, tuples.n, tuples.records, tuples.weights.tolist()
    (14, 10, 14, [2, 2, 2, 2, 1, 1, 1, 1, 1, 1])
    >>> inverse.tolist()
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3]
    """
    # hashing numbers the tuples by first appearance: the rows' order, without a sort
    inverse, uniques = pd.factorize(_row_key(data, sensitive))
    inverse = inverse.astype(np.int64, copy=False)
    first = np.empty(len(uniques), dtype=np.int64)
    first[inverse[::-1]] = np.arange(data.n - 1, -1, -1)
    # already weighted rows (a Dask table's tuples): their weights add up
    weights = np.bincount(inverse, weights=data.weights, minlength=len(first))
    weights = np.rint(weights).astype(np.int64)
    attributes = [dataclasses.replace(
        a, codes=a.codes[first],
        values=None if a.values is None else a.values[first])
        for a in data.attributes]
    tuples = dataclasses.replace(
        data, table=pd.DataFrame(index=pd.RangeIndex(len(first))), attributes=attributes,
        sensitive={c: v[first] for c, v in data.sensitive.items()} if sensitive else {},
        row_labels=None if data.row_labels is None else data.row_labels[first],
        positions=None if data.positions is None else data.positions[first],
        weights=weights)
    return tuples, inverse


def _take(data: EncodedTable, rows: np.ndarray, weights: np.ndarray | None) -> EncodedTable:
    """``data`` restricted to (or repeated along) ``rows``."""
    attributes = [dataclasses.replace(a, codes=a.codes[rows],
                                      values=None if a.values is None else a.values[rows])
                  for a in data.attributes]
    table = data.table.take(rows).reset_index(drop=True)
    return dataclasses.replace(
        data, table=table, attributes=attributes,
        sensitive={c: v[rows] for c, v in data.sensitive.items()},
        row_labels=None if data.row_labels is None else data.row_labels[rows],
        positions=None if data.positions is None else data.positions[rows],
        weights=weights)


def spread(release: Release, data: EncodedTable, inverse: np.ndarray) -> Release:
    """A release made on ``collapse(data)``'s tuples, as a release of ``data``'s rows."""
    return dataclasses.replace(release, data=data, class_of=release.class_of[inverse],
                               withheld_mask=_rows(release.withheld_mask, inverse))


def expand(tuples: EncodedTable) -> EncodedTable:
    """One row per record of weighted ``tuples`` (each tuple's copies consecutive)."""
    if tuples.weights is None:
        return tuples
    repeat = np.repeat(np.arange(tuples.n), tuples.weights)
    return _take(tuples, repeat, None)


def onto_tuples(release: Release, tuples: EncodedTable, algorithm: str) -> Release:
    """A release of ``expand(tuples)``'s rows as a release of the weighted ``tuples``.

    Raises
    ------
    PrivacyError
        When two copies of one tuple are in different classes: the release
        is then not a function of the tuple (a local recoding).
    """
    weights = np.asarray(tuples.weights)
    starts = np.concatenate([[0], np.cumsum(weights)[:-1]]).astype(np.int64)
    class_of = release.class_of
    if len(starts) and (np.minimum.reduceat(class_of, starts)
                        != np.maximum.reduceat(class_of, starts)).any():
        raise PrivacyError(f"algorithm {algorithm!r} released copies of one tuple "
                           f"differently; a table of counted tuples needs a global recoding "
                           f"or one registered weighted (stepwise)")
    return dataclasses.replace(release, data=tuples, class_of=class_of[starts],
                               withheld_mask=_rows(release.withheld_mask, starts))


def _rows(mask: np.ndarray | None, rows: np.ndarray) -> np.ndarray | None:
    """A per-row mask taken at ``rows`` (None stays None)."""
    return None if mask is None else mask[rows]


def for_algorithm(data: EncodedTable, weighted: bool, name: str, *, sensitive: bool = False
                  ) -> tuple[EncodedTable, Callable[[Release], Release]]:
    """The table an algorithm runs on, and how its release comes back to ``data``.

    ``weighted``: the algorithm counts records by weight; it then runs on
    the distinct tuples (with ``sensitive``, tuples of the quasi-identifiers
    and the sensitive attributes, for l and t; already weighted ``data``
    is itself those tuples, or is collapsed to its quasi-identifier tuples
    without ``sensitive``), otherwise on one row per record (``data``
    itself when not weighted).
    """
    if data.weights is None:
        if not weighted:
            return data, _same
        tuples, inverse = collapse(data, sensitive=sensitive)
        return tuples, lambda release: spread(release, data, inverse)
    if weighted:
        if data.sensitive and not sensitive:
            # weighted tuples that differ in a sensitive value only: one tuple for the search
            tuples, inverse = collapse(data)
            return tuples, lambda release: spread(release, data, inverse)
        return data, _same
    return expand(data), lambda release: onto_tuples(release, data, name)


def _same(release: Release) -> Release:
    return release
