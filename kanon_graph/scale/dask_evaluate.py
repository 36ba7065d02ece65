"""``kg.evaluate`` on Dask DataFrames: a release measured without collecting its records.

The original and the released table are read partition by partition, side
by side (they must be row-aligned partition by partition, as a release
written by ``result.table.to_parquet`` is). Each pair of partitions is
reduced, as one task, to the distinct (original quasi-identifier and
sensitive tuple, released quasi-identifier tuple) combinations and how many
rows hold each; the counts are added up across partitions. Every metric,
the class sizes and the privacy check depend on the records only through
that multiset, so the pandas :func:`~kanon_graph.metrics.evaluate` runs on
it, each combination repeated as often as it occurs (categorical columns
for text, so one row costs one small integer code per column). What this
process holds is the distinct combinations (about the distinct original
tuples for a global recoding) plus those codes: one per record and
column. Only ``paper001_il``, which depends on the order of the records,
can differ from a pandas run on the same rows.

A message about a released value names the row as ``partition P, row R``
(the first row of the input holding that combination).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..exceptions import DataError
from ._cluster import client_for, quiet_graphs

__all__ = ["evaluate_dask"]

_COUNT = "__kg_count__"
_FIRST = "__kg_first__"
_PART = "__kg_partition__"
_REL = "__kg_rel_"


def _pair_counts(original, released, number, columns, qis):
    """Distinct (original, released) combinations of one pair of partitions, counted."""
    if len(original) != len(released):
        raise DataError(f"evaluate: partition {number} of the released table has "
                        f"{len(released)} rows but the original's has {len(original)}; "
                        f"they must be row-aligned partition by partition")
    both = pd.DataFrame({c: original[c].to_numpy() for c in columns})
    for q in qis:
        both[_REL + q] = released[q].to_numpy()
    both[_FIRST] = np.arange(len(both), dtype=np.int64)
    keys = columns + [_REL + q for q in qis]
    if len(both) == 0:
        return both.assign(**{_COUNT: np.zeros(0, dtype=np.int64), _PART: number})
    grouped = both.groupby(keys, dropna=False, sort=False, observed=True)[_FIRST]
    out = grouped.agg(["size", "min"]).rename(columns={"size": _COUNT, "min": _FIRST})
    return out.reset_index().assign(**{_PART: number})


def count_pairs(original, released, columns, qis, *, client):
    """The multiset of (original tuple, released tuple) over all partitions.

    Returns
    -------
    DataFrame
        ``columns``, ``__kg_rel_<qi>`` for each quasi-identifier, the count
        and the first (partition, row) holding each combination.
    """
    pairs = zip(original[columns].to_delayed(), released[qis].to_delayed())
    with quiet_graphs():        # a lazy release's one payload is no accident of the user's
        futures = [client.submit(_pair_counts, client.compute(o), client.compute(r), i,
                                 columns, qis)
                   for i, (o, r) in enumerate(pairs)]
    pieces = client.gather(futures)
    whole = pd.concat(pieces, ignore_index=True)
    keys = columns + [_REL + q for q in qis]
    whole = whole.sort_values([_PART, _FIRST], kind="stable")
    total = whole.groupby(keys, dropna=False, sort=False, observed=True).agg(
        **{_COUNT: (_COUNT, "sum"), _PART: (_PART, "first"), _FIRST: (_FIRST, "first")})
    return total.reset_index()


def evaluate_dask(original, released, schema, k=1, *, scheduler=None, **options):
    """:func:`kanon_graph.evaluate` for Dask DataFrames (see the module docstring).

    ``kg.evaluate`` calls it when either table is a Dask DataFrame; it counts
    the partitions here and hands the counted records to the pandas
    :func:`kanon_graph.metrics.evaluate`.

    Parameters
    ----------
    original, released : dask.dataframe.DataFrame
        Row-aligned partition by partition (same number of partitions, same
        rows in each).
    schema, k, options
        As for :func:`kanon_graph.evaluate` (``suppressed=`` is not
        available: suppressed rows are those whose quasi-identifiers are
        all ``*``).
    scheduler : None, str or distributed.Client
        Where the partitions are counted (:func:`~kanon_graph.scale.client_for`:
        the current Client, else a LocalCluster).

    Returns
    -------
    Evaluation
        Its ``release`` describes the counted records, in the order of their
        combinations (first occurrence), not the input's row order.
    """
    from ..metrics.evaluate import evaluate
    from ..schema import Schema
    from .dask_input import is_dask_frame

    for name, table in (("original", original), ("released", released)):
        if not is_dask_frame(table):
            raise DataError(f"evaluate: the {name} table must be a Dask DataFrame when the "
                            f"other one is, got {type(table).__name__}")
    if not isinstance(schema, Schema):
        raise DataError(f"evaluate: the schema must be a kg.Schema, got "
                        f"{type(schema).__name__}")
    if options.get("suppressed") is not None:
        raise ValueError("The 'suppressed' parameter of evaluate is not available on Dask "
                         "DataFrames (it is one flag per row); mark suppressed rows with '*' "
                         "in every quasi-identifier. Got an array.")
    options.pop("suppressed", None)
    schema.check_table(original._meta, where="evaluate")
    qis = list(schema.quasi_identifiers)
    absent = [q for q in qis if q not in released.columns]
    if absent:
        raise DataError(f"evaluate: quasi-identifier column(s) {absent} are not in the "
                        f"released table; it has columns {list(released.columns)}")
    if original.npartitions != released.npartitions:
        raise DataError(f"evaluate: the released table has {released.npartitions} partitions "
                        f"but the original has {original.npartitions}; they must be "
                        f"row-aligned partition by partition")
    extra = [options[name] for name in ("sensitive", "target") if options.get(name)]
    columns = list(dict.fromkeys(qis + list(schema.sensitive) + extra))
    missing = [c for c in columns if c not in original.columns]
    if missing:
        raise DataError(f"evaluate: column(s) {missing} are not in the original table; it "
                        f"has columns {list(original.columns)}")
    # the released sensitive cells too: l and t are judged from the release, not the original
    shown = qis + [c for c in schema.sensitive if c in released.columns and c not in qis]
    with client_for(scheduler, where="evaluate") as client:
        counted = count_pairs(original, released, columns, shown, client=client)
    counts = counted[_COUNT].to_numpy(dtype=np.int64)
    repeat = np.repeat(np.arange(len(counted)), counts)
    labels = np.array([f"partition {p}, row {r}" for p, r in
                       zip(counted[_PART], counted[_FIRST])], dtype=object)
    index = pd.Index(labels[repeat])

    def expand(frame):
        out = {}
        for column in frame.columns:
            values = frame[column]
            if values.dtype == object or isinstance(values.dtype, pd.StringDtype):
                values = values.astype("category")
            out[column] = values.take(repeat).to_numpy() if not isinstance(
                values.dtype, pd.CategoricalDtype) else values.take(repeat).array
        return pd.DataFrame(out, index=index)

    records = expand(counted[columns])
    release = expand(counted[[_REL + q for q in shown]].rename(
        columns=lambda c: c[len(_REL):]))
    return evaluate(records, release, schema, k, **options)
