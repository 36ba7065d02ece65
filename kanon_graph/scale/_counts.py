"""Distinct tuples counted by integer codes: one partition, then every partition added up.

A partition is reduced to the distinct tuples of some of its columns and how
many rows hold each (the frequency set of the bottom lattice node, Morton et
al. 2012, section 2.3) without grouping on the values themselves: each column
is numbered (its categorical codes, else :func:`pandas.factorize`), the
numbers are combined into one integer key per row (mixed radix, as
:func:`~kanon_graph.encoding.combine_codes` does) and the keys are counted.
A partition's count is its tuples as codes into its own small dictionaries
(:class:`Counted`); :func:`add_counts` renumbers every partition's
dictionaries into one and adds the counts of equal tuples.

Two cells are one value as ``groupby(dropna=False)`` has them: equal values,
and every missing cell of a column alike. With ``text=True`` a cell is its
text (:func:`~kanon_graph.encoding.row_keys._text_codes`): how a reader of a released
table tells its classes apart.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ..encoding.row_keys import _text_codes
from ..encoding import combine_codes

__all__ = ["Counted", "count_tuples", "add_counts"]


@dataclasses.dataclass(frozen=True)
class Counted:
    """The distinct tuples of one partition, as codes, and their counts.

    Attributes
    ----------
    codes : list of ndarray of int64
        Per column, the code of every distinct tuple's value in ``uniques``.
    uniques : list of pandas.Index
        Per column, the partition's distinct values (its dictionary).
    counts : ndarray of int64
        Rows holding each distinct tuple.
    categorical : list of bool
        Per column, whether the partition held it as a categorical.
    """

    codes: list
    uniques: list
    counts: np.ndarray
    categorical: list


def _column_codes(values, text):
    """Codes of one column's cells and the values they stand for (missing kept as one)."""
    if text:
        codes, texts = _text_codes(values)
        return np.asarray(codes, dtype=np.int64), pd.Index(texts)
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = np.asarray(values.cat.codes, dtype=np.int64)
        categories = values.cat.categories
        if (codes < 0).any():           # missing cells: one more value after the categories
            codes = np.where(codes < 0, len(categories), codes)
            categories = pd.Index(list(categories) + [np.nan], dtype=object)
        return codes, categories
    codes, uniques = pd.factorize(values, use_na_sentinel=False)
    return np.asarray(codes, dtype=np.int64), pd.Index(uniques)


def count_tuples(frame, columns, *, text=False, weights=None):
    """The distinct tuples of ``frame[columns]`` and how many rows (records) hold each.

    Parameters
    ----------
    frame : DataFrame
        One partition.
    columns : list of str
    text : bool
        Compare cells by their text (a released table) instead of their value.
    weights : array of int, optional
        Records each row stands for (a row of counted tuples); default one.

    Returns
    -------
    Counted

    Examples
    --------
    >>> import pandas as pd
    >>> part = pd.DataFrame({"a": ["x", "y", "x", "x"], "b": [1, 2, 1, 2]})
    >>> counted = count_tuples(part, ["a", "b"])
    >>> counted.counts.tolist(), [list(u) for u in counted.uniques]
    ([2, 1, 1], [['x', 'y'], [1, 2]])
    """
    pairs = [_column_codes(frame[c], text) for c in columns]
    codes = [p[0] for p in pairs]
    uniques = [p[1] for p in pairs]
    categorical = [isinstance(frame[c].dtype, pd.CategoricalDtype) for c in columns]
    if len(frame) == 0:
        return Counted([c[:0] for c in codes], uniques, np.zeros(0, dtype=np.int64),
                       categorical)
    key = combine_codes(codes, [max(len(u), 1) for u in uniques])
    inverse, distinct = pd.factorize(key)
    first = np.empty(len(distinct), dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(key) - 1, -1, -1)
    if weights is None:
        counts = np.bincount(inverse, minlength=len(distinct)).astype(np.int64)
    else:                   # exact: a float64 holds every count below 2**53
        counts = np.rint(np.bincount(inverse, weights=np.asarray(weights, dtype=np.int64),
                                     minlength=len(distinct))).astype(np.int64)
    return Counted([c[first] for c in codes], uniques, counts, categorical)


def _dictionary(indexes):
    """One dictionary for a column's partition dictionaries, and each one's renumbering.

    Partitions that share one dictionary (a categorical's categories, as
    Parquet stores them) keep their codes.
    """
    if indexes and all(i is indexes[0] or (i.dtype == indexes[0].dtype and
                                           i.equals(indexes[0])) for i in indexes[1:]) \
            and not indexes[0].has_duplicates:
        same = np.arange(len(indexes[0]), dtype=np.int64)
        return indexes[0], [same] * len(indexes)
    whole = pd.concat([pd.Series(i, dtype=i.dtype if len(i) else None) for i in indexes],
                      ignore_index=True) if indexes else pd.Series([], dtype=object)
    codes, uniques = pd.factorize(whole, use_na_sentinel=False)
    bounds = np.cumsum([0] + [len(i) for i in indexes])
    return pd.Index(uniques), [np.asarray(codes[bounds[j]:bounds[j + 1]], dtype=np.int64)
                               for j in range(len(indexes))]


def add_counts(pieces, columns, count="__kg_count__"):
    """Every partition's :class:`Counted` added up: one row per distinct tuple.

    Parameters
    ----------
    pieces : list of Counted
        Counts of the same ``columns``, one per partition.
    columns : list of str
    count : str
        Name of the count column.

    Returns
    -------
    DataFrame
        ``columns`` (the values, in their own dtype where the partitions
        agree on it; a categorical where every partition held one) and
        ``count``, tuples in order of first appearance, partition after
        partition (the order the in-memory call numbers them in).

    Examples
    --------
    >>> import pandas as pd
    >>> one = count_tuples(pd.DataFrame({"a": ["x", "y"]}), ["a"])
    >>> two = count_tuples(pd.DataFrame({"a": ["y", "z", "y"]}), ["a"])
    >>> add_counts([two, one], ["a"]).values.tolist()
    [['y', 3], ['z', 1], ['x', 1]]
    """
    renumbered, dictionaries = [], []
    for j in range(len(columns)):
        dictionary, remaps = _dictionary([p.uniques[j] for p in pieces])
        dictionaries.append(dictionary)
        renumbered.append(np.concatenate([remap[p.codes[j]] for remap, p in zip(remaps, pieces)])
                          if pieces else np.zeros(0, dtype=np.int64))
    counts = np.concatenate([p.counts for p in pieces]) if pieces else np.zeros(0, np.int64)
    key = combine_codes(renumbered, [max(len(d), 1) for d in dictionaries])
    # numbered by first appearance (partition after partition): no sort
    inverse, distinct = pd.factorize(key)
    first = np.empty(len(distinct), dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(key) - 1, -1, -1)
    total = np.rint(np.bincount(inverse, weights=counts, minlength=len(distinct))
                    ).astype(np.int64)     # exact: a float64 holds every count below 2**53
    frame = pd.DataFrame({c: _values(dictionaries[j], renumbered[j][first],
                                     bool(pieces) and all(p.categorical[j] for p in pieces))
                          for j, c in enumerate(columns)})
    frame[count] = total
    return frame


def _values(dictionary, codes, categorical):
    """A column of the counted tuples: a categorical where every partition held one."""
    if not categorical:
        return pd.Series(dictionary.take(codes), copy=False)
    present = ~pd.isna(dictionary)
    if present.all():
        return pd.Series(pd.Categorical.from_codes(codes, categories=dictionary))
    renumber = np.cumsum(present) - 1           # a missing value: code -1, as pandas has it
    renumber[~present] = -1
    return pd.Series(pd.Categorical.from_codes(renumber[codes],
                                               categories=dictionary[present]))
