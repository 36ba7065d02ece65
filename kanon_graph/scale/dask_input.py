"""A ``dask.dataframe.DataFrame`` as input to ``stepwise`` and the global algorithms.

The records are never collected. Each partition is reduced to its distinct
quasi-identifier and sensitive tuples with their counts (by integer codes,
:mod:`kanon_graph.scale._counts`), the partitions' counts are added up (the
frequency set of the bottom lattice node, Morton et al. 2012, section 2.3),
and the distinct tuples are encoded once with the ordinary
:func:`~kanon_graph.encoding.encode`, which builds each column's dictionary
from the tuples' values (and validates them). The algorithm then runs on
those tuples with their counts as weights (a global algorithm registered
without ``weighted`` gets them repeated into one row per record), never on
the input's text or its other columns. A global recoding releases every copy
of a tuple alike, and so does the local recoding ``stepwise``, which counts
by weight and runs on the tuples themselves (``auto``'s choice here,
:mod:`kanon_graph.auto.counted`): the release is a mapping from distinct
tuples to released values, applied partition by partition (per value when
each value is released one way, else by whole tuple; ``result.table`` is a
lazy Dask DataFrame: ``.to_parquet`` writes it without collecting it; each
released quasi-identifier is a categorical of its label texts, as in
memory). The release is checked once more from its own released cells before
it is returned: the counted tuples are released by the function that
releases each partition, and their released cells, weighted by the tuples'
records, are counted into classes (with l or t, with their sensitive values)
and checked under the privacy model (:mod:`kanon_graph.scale._released`): the
input is read once, to count it. That check goes with the result
(``result.cell_check``) so that :meth:`~kanon_graph.AnonymizationResult.write`
runs it again on the cells it writes. The input's files are fingerprinted
when read (:mod:`kanon_graph.scale._sources`): a file changed since is an
error naming it, when the release is checked, computed or written. With no
Client, the passes run on dask's threads in this process
(:func:`~kanon_graph.scale._cluster.runner_for`).

The release is mapped onto each partition by :mod:`kanon_graph.scale._mapping`.

The other local recodings may release two copies of a tuple differently;
they are not offered on a Dask DataFrame (see :mod:`kanon_graph.scale.sharding`
for large pandas tables).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ..cells.kinds import column_kind as _kind, missing_mask as _missing_mask
from ..exceptions import DataError, SchemaError
from ..recoding import SUPPRESSED
from ._cluster import compute_all, runner_for
from ._counts import add_counts, count_tuples
from ._mapping import _GONE, _per_value, _release_by_value, _release_partition
from ._released import CellCheck, check_released_tuples
from ._sources import Fingerprints, input_files

__all__ = ["is_dask_frame", "DaskInput", "collect_tuples", "run_on_dask"]

_COUNT = "__kg_count__"


def is_dask_frame(table):
    """True for a ``dask.dataframe.DataFrame`` (checked without importing Dask)."""
    return type(table).__module__.split(".")[0] in ("dask", "dask_expr") and hasattr(
        table, "map_partitions") and hasattr(table, "npartitions")


def run_on_dask(function, table, schema, where, scheduler, progress, *args, **kwargs):
    """Run ``function`` (anonymize or apply_levels) on a Dask DataFrame's records.

    The algorithm (or ``"auto"``'s choice) must release every copy of a
    tuple alike: a global recoding (one that does not count by weight gets
    the tuples repeated into rows), or a local one registered ``weighted``
    (``stepwise``); the release stays on Dask (:meth:`DaskInput.release`), checked from its
    cells under the privacy model (``kwargs["options"]``: k, l, t).
    """
    from ..registry import algorithms, get_algorithm

    algorithm = kwargs.get("algorithm")
    if where == "anonymize" and algorithm != "auto" and not _on_tuples(get_algorithm(algorithm)):
        info = get_algorithm(algorithm)
        able = [n for n in algorithms() if get_algorithm(n).recoding == "global"
                and not get_algorithm(n).samples_records]     # safepub needs the rows
        kind = "recodes locally" if info.recoding == "local" else \
            f"is a {info.recoding} that does not count records by weight"
        raise ValueError(f"algorithm {algorithm!r} {kind}; on a Dask DataFrame the local "
                         f"recoding is 'stepwise' (the default), and the global algorithms "
                         f"are {able} (or .compute() it into pandas, where every algorithm "
                         f"runs)")
    if where == "anonymize" and algorithm == "auto":
        _refuse_auto_without_hierarchies(schema)
    # one scheduler for the count, the search and the release's check: the given or current
    # Client, else dask's threads in this process (no cluster started)
    with runner_for(scheduler, where=where) as client:
        source = DaskInput.read(table, schema, where=where,
                                missing=kwargs.get("missing", "error"), scheduler=client,
                                progress=progress)
        # the records hold the quasi-identifiers and sensitive columns only: the other
        # roles (identifiers dropped, insensitive columns kept) apply to the release
        inner = dataclasses.replace(schema, identifiers=(), insensitive=None)
        counts = source.tuples[_COUNT].to_numpy(dtype=np.int64)
        result = function(source.records, inner, *args, weights=counts, **kwargs)
        options = kwargs.get("options")
        k = result.k if options is None or options.k is None else int(options.k)
        return source.release(result, where=where, client=client, k=k,
                              model=_model_of(result, options))


def _refuse_auto_without_hierarchies(schema):
    """``auto`` on a Dask table runs on the counted tuples, which takes a hierarchy for every
    quasi-identifier: refused before anything is counted when one has none."""
    from ..schema import Schema

    if not isinstance(schema, Schema):
        return                                          # DaskInput.read names the problem
    hierarchies = getattr(schema, "hierarchies", None) or {}
    lacking = [q for q in schema.quasi_identifiers if hierarchies.get(q) is None]
    if lacking:
        raise SchemaError(
            f"anonymize: algorithm='auto' on a Dask DataFrame needs a hierarchy for every "
            f"quasi-identifier, and {lacking} have none: the default without hierarchies, "
            f"'flat', recodes locally and runs in memory only. Draft the hierarchies with "
            f"kg.hierarchy.suggest (kanon-graph hierarchy suggest), or .compute() the table "
            f"into pandas, where auto runs without them ('flat' when none has one)")


def _on_tuples(info):
    """Does the algorithm release every copy of a tuple alike (a global recoding, or a local
    one run on the counted tuples)?"""
    return info.recoding == "global" or (info.recoding == "local" and info.weighted)


def _model_of(result, options):
    """The privacy model ``result`` was made under, bound to its tuples (None: k alone)."""
    if options is None or (options.l is None and options.t is None):
        return None
    from ..privacy import PrivacyModel

    return PrivacyModel(result.k, options.l, options.diversity, options.c, options.t,
                        options.sensitive).bind(result.release.data)


def collect_tuples(ddf, columns, *, client, progress=None):
    """Distinct tuples of ``columns`` and how many records hold each.

    Each partition is counted as one task (:func:`~kanon_graph.scale._counts.count_tuples`:
    integer codes, no grouping on the values); the counts are added up here.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
    columns : list of str
    client : distributed.Client or None
        Where the partitions are counted (None: dask's threads here).
    progress : callable, optional
        ``progress(done, total, text)`` after each partition.

    Returns
    -------
    DataFrame
        ``columns`` and ``__kg_count__``, one row per distinct tuple, in
        order of first appearance (partition after partition).
    """
    import dask

    tasks = [dask.delayed(count_tuples, pure=True)(part, columns)
             for part in ddf[columns].to_delayed()]
    return add_counts(compute_all(client, tasks, progress), columns, _COUNT)


@dataclasses.dataclass
class DaskInput:
    """A Dask DataFrame seen as the multiset of its (QI, sensitive) tuples.

    Attributes
    ----------
    ddf : dask.dataframe.DataFrame
    schema : Schema
    columns : list of str
        Quasi-identifiers then sensitive attributes.
    tuples : DataFrame
        Distinct tuples and their counts (``__kg_count__``).
    records : DataFrame
        The distinct tuples without their counts (categorical text
        columns): what the algorithm runs on, weighted by the counts.
    missing : str
        The missing-value rule the tuples were read under.
    files : Fingerprints
        The input's files as they were before they were counted.
    """

    ddf: object
    schema: object
    columns: list
    tuples: pd.DataFrame
    records: pd.DataFrame
    missing: str = "error"
    files: Fingerprints = dataclasses.field(default_factory=Fingerprints)

    @classmethod
    def read(cls, ddf, schema, *, where, missing="error", scheduler=None, progress=None):
        """Count ``ddf``'s tuples on Dask and build the records to anonymize."""
        from ..schema import Schema

        if not isinstance(schema, Schema):
            raise DataError(f"{where}: the schema must be a kg.Schema, got "
                            f"{type(schema).__name__}")
        schema.check_table(ddf._meta, where=where)
        columns = list(dict.fromkeys(list(schema.quasi_identifiers) + list(schema.sensitive)))
        files = Fingerprints.take(input_files(ddf))         # before the files are read
        with runner_for(scheduler, where=where) as client:
            tuples = collect_tuples(ddf, columns, client=client, progress=progress)
            if len(tuples) == 0:
                raise DataError(f"{where}: the table is empty (no rows)")
            counts = tuples[_COUNT].to_numpy(dtype=np.int64)
            if missing == "error":
                for column in columns:
                    mask = _missing_mask(tuples[column])
                    if mask.any():
                        import dask

                        first = pd.concat(compute_all(client, [
                            dask.delayed(_first_missing)(part, column)
                            for part in ddf[[column]].to_delayed()]))
                        raise DataError(
                            f"{where}: column {column!r} has {int(counts[mask].sum())} missing "
                            f"value(s) (first at row {first.iloc[0]!r}); clean them, or pass "
                            f"missing='drop' or missing='keep'")
        records = {}
        for column in columns:
            values = tuples[column]
            if _kind(schema, column, values) == "categorical":
                values = values.astype("category")
            records[column] = values.reset_index(drop=True)
        files.check(where, "it changed while it was being counted: run again")
        return cls(ddf, schema, columns, tuples, pd.DataFrame(records), missing, files)

    def release(self, result, *, where, client=None, k, model=None):
        """``result`` (made on ``records``) with its release as a lazy Dask DataFrame.

        Every copy of a tuple is released alike (a global recoding, or a
        local one run on the counted tuples: ``stepwise``); the released
        tuples are mapped onto each partition, and the class sizes (with
        ``model``'s l or t, the classes' sensitive values too) are counted
        again from the released cells of the counted tuples, released by the
        same function, and checked
        (:func:`~kanon_graph.scale._released.check_released_tuples`); the
        verification returned is that count's. The check goes with the
        result (``cell_check``), for the write.
        """
        qis = list(self.schema.quasi_identifiers)
        # the release is one of the tuples: a class per tuple kept (missing values dropped)
        kept = np.asarray(result.release.data.positions, dtype=np.int64)
        mapping = self.tuples.iloc[kept][self.columns].reset_index(drop=True)
        tuple_class = np.asarray(result.release.class_of, dtype=np.int64)
        gone = tuple_class < 0
        dtypes, stars = {}, {}
        for column in qis:
            # each tuple's label as a code into the distinct label texts (then "*"), and the
            # released column a categorical of those texts, as in memory: one small code per
            # row, the same categories in every partition
            labels = np.append(np.asarray(result.release.attributes[column].labels,
                                          dtype=object), SUPPRESSED).astype(str)
            code_of_class, distinct = pd.factorize(labels)
            dtypes[column] = pd.CategoricalDtype(pd.Index(distinct.astype(object), dtype="str"))
            stars[column] = int(code_of_class[-1])
            mapping["__kg_rel_" + column] = code_of_class[np.where(gone, len(labels) - 1,
                                                                   tuple_class)]
        mapping[_GONE] = gone
        out_columns = self.schema.released_columns(self.ddf._meta)
        # the released columns' label texts, as plain arrays: each task builds its dtype
        texts = {c: np.asarray(dtypes[c].categories, dtype=object) for c in qis}
        meta = self.ddf._meta[out_columns].copy()
        for column in qis:
            meta[column] = pd.Series(pd.Categorical([], dtype=dtypes[column]),
                                     index=meta.index)
        import dask

        lookups = None if result.dropped else _per_value(mapping, self.columns, qis)
        if lookups is not None:
            # each released value a function of the one original value: looked up per
            # column, as (original values, codes of their labels), plain arrays (each task
            # builds its own Index); only the suppressed tuples (if any) are matched whole
            payload = ({c: (np.asarray(lookups[c].index), lookups[c].to_numpy(dtype=np.int64))
                        for c in qis}, mapping.loc[mapping[_GONE], self.columns], texts, stars)
            mapper, extra = _release_by_value, ()
        else:
            payload = (mapping, texts, stars)
            mapper, extra = _release_partition, (bool(result.dropped),)
        # one graph key for the payload, shared by every partition's task; it checks first
        # that no input file changed since it was read
        shared = dask.delayed(_unchanged, pure=True)(self.files, where, payload)
        table = self.ddf.map_partitions(mapper, shared, self.columns, qis, out_columns, *extra,
                                        meta=meta)
        # k (and l, t) read back from the released cells of the counted tuples: each tuple
        # released by the function that releases each partition, weighted by its records
        # (the input is not read again; the write counts the cells it writes)
        # the check keeps the counted tuples' sensitive column only (the texts l and t map)
        sensitive = model.sensitive if model is not None and model.needs_sensitive else None
        check = CellCheck(tuple(qis), int(k), self._records(), model, result.release.data,
                          None if sensitive is None else self.tuples[[sensitive]], self.files)
        released = mapper(self.tuples[self.columns], payload, self.columns, qis, self.columns,
                          *extra)
        weights = self.tuples[_COUNT].to_numpy(dtype=np.int64)[np.asarray(released.index)]
        verification = check_released_tuples(released, weights, check, where=where)
        self.files.check(where)                 # the files counted are the files checked
        stats = dict(result.stats, partitions=int(self.ddf.npartitions),
                     distinct_tuples=int(len(self.tuples)))
        return dataclasses.replace(result, table=table, classes=None, suppressed_rows=None,
                                   suppressed_mask=None, stats=stats,
                                   verification=verification,
                                   suppressed=int(verification.suppressed), cell_check=check)

    def _records(self):
        """Records the release holds: every counted one, less those ``missing="drop"``
        drops (a missing quasi-identifier or sensitive cell), counted on the tuples."""
        counts = self.tuples[_COUNT].to_numpy(dtype=np.int64)
        if self.missing != "drop":
            return int(counts.sum())
        bad = np.zeros(len(counts), dtype=bool)
        for column in self.columns:
            bad |= np.asarray(_missing_mask(self.tuples[column]), dtype=bool)
        return int(counts[~bad].sum())


def _unchanged(files, where, payload):
    """``payload``, once no input file changed since it was read (else a DataError)."""
    files.check(where)
    return payload


def _first_missing(part, column):
    """Index label of the partition's first missing cell in ``column`` (or nothing)."""
    return pd.Series(part.index[_missing_mask(part[column])][:1], dtype=object)
