"""A Dask release on disk, and its order undone for ``evaluate --unshuffle``.

The release is written by :func:`kanon_graph.scale.written.write_dask_release`
(what :meth:`kanon_graph.AnonymizationResult.write` runs too): its cells
checked again as they are written, every row sent to an output file drawn
from the order seed and every file shuffled, the folder swapped in whole.
:func:`unshuffle_dask` undoes that order from the seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..exceptions import DataError
from ..io.release import file_of_rows, file_order
from ..scale.written import write_dask_release

__all__ = ["write_dask_table", "unshuffle_dask"]


def write_dask_table(result, path, **options):
    """Write a Dask run's release (:func:`~kanon_graph.scale.written.write_dask_release`);
    the number of files written."""
    return write_dask_release(result, path, where="kanon-graph anonymize", **options).files


def _split_file(part, file, seed, counts):
    """Released file ``file`` cut into the rows of each input partition, in input order."""
    if len(part) != int(counts.sum()):
        raise DataError(f"evaluate: released file {file} has {len(part)} rows, but the "
                        f"original's files and the order seed put {int(counts.sum())} there: "
                        f"is RELEASED the release of ORIGINAL written with this order seed?")
    gathered = part.iloc[np.argsort(file_order(len(part), seed, file))]
    gathered = gathered.astype({c: "category" for c in gathered.columns
                                if gathered[c].dtype == object
                                or pd.api.types.is_string_dtype(gathered[c].dtype)})
    ends = np.cumsum(counts)
    return [gathered.iloc[end - n:end] for n, end in zip(counts, ends)]


def _rebuild(pieces, number, n, seed, files, dtypes):
    """Input partition ``number``'s released rows, in its order, from every file's piece."""
    target = file_of_rows(n, seed, number, files)
    by_file = np.argsort(target, kind="stable")        # the rows grouped file by file
    back = np.empty(n, dtype=np.int64)
    back[by_file] = np.arange(n)
    rows = pd.concat(pieces, ignore_index=True)
    return rows.iloc[back].reset_index(drop=True).astype(dtypes)


def unshuffle_dask(released, seed, original):
    """Undo :func:`write_dask_table`'s order: ``released`` row-aligned with ``original``.

    The original's partitions are counted (one pass over it) to redraw
    every row's file; each released file is cut into the rows of each input
    partition, and each input partition's rows are put back together in its
    order. The cut pieces (text columns as categoricals) stay in memory
    between the two steps.
    """
    import dask
    import dask.dataframe as dd

    lengths = [int(n) for n in original.map_partitions(len).compute()]
    files = int(released.npartitions)
    plan = np.stack([np.bincount(file_of_rows(n, seed, i, files), minlength=files)
                     for i, n in enumerate(lengths)]) if lengths else np.zeros((0, files), int)
    split = [dask.delayed(_split_file, nout=len(lengths))(part, j, seed, plan[:, j])
             for j, part in enumerate(released.to_delayed())]
    dtypes = released._meta.dtypes.to_dict()
    rebuilt = [dask.delayed(_rebuild)([split[j][i] for j in range(files)], i, n, seed, files,
                                      dtypes)
               for i, n in enumerate(lengths)]
    return dd.from_delayed(rebuilt, meta=released._meta, verify_meta=False)
