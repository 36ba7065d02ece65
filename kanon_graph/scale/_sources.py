"""The files behind a Dask table, as they were when it was read: a changed input is an error.

A Dask release is lazy: writing it reads the input files again. A file
replaced between the run and the write would give a release of other
records than the ones counted and checked, so each file's fingerprint is
taken when the table is first read -- its size and modification time, and
for a Parquet file its footer's metadata (rows, row groups, their sizes) --
and compared again before the release is computed or written
(:meth:`Fingerprints.check`). A file that changed is named in a one-line
:class:`~kanon_graph.exceptions.DataError`.

The files are found in the Dask table's expression: those of
``dd.read_parquet`` and ``dd.read_csv`` (any filesystem fsspec reaches, size
and modification time as it reports them). A table built otherwise
(``dd.from_pandas``, ``dd.from_delayed``) names no file; the command line's
reader fingerprints its own files (:mod:`kanon_graph.cli._dask_input`).
"""

from __future__ import annotations

import dataclasses
import os

from ..exceptions import DataError

__all__ = ["Fingerprints", "fingerprint", "input_files"]

_PARQUET = (".parquet", ".pq", ".parq")
_THEN = ("the release was made and checked from the file as it was, and is not computed from "
         "the new one: anonymize the input again as it is now")


def _parquet_footer(path, fs=None):
    """A Parquet file's rows, row groups and their sizes (None: not readable as Parquet)."""
    try:
        import pyarrow.parquet as pq

        if fs is None:
            meta = pq.read_metadata(path)
        else:
            with fs.open(path, "rb") as handle:
                meta = pq.read_metadata(handle)
    except Exception:  # noqa: BLE001 -- pyarrow's errors have no common base; the size decides
        return None
    return (meta.num_rows, meta.num_row_groups, meta.serialized_size,
            tuple((meta.row_group(i).num_rows, meta.row_group(i).total_byte_size)
                  for i in range(meta.num_row_groups)))


def fingerprint(path, fs=None):
    """``(size, modified, footer)`` of a file: what tells a replaced file from the one read.

    Parameters
    ----------
    path : str
    fs : fsspec filesystem, optional
        Where ``path`` lives (None: this machine's files).

    Returns
    -------
    tuple
        The size in bytes, the modification time (nanoseconds on this
        machine, or what the filesystem reports), and for a Parquet file its
        footer's rows, row groups and their sizes (else None).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> _ = open(path, "w").write("a\\n1\\n")
    >>> fingerprint(path)[0]
    4
    """
    local = fs is None or "local" in type(fs).__name__.lower()
    parquet = str(path).lower().endswith(_PARQUET)
    if local:
        stat = os.stat(path)
        size, modified = stat.st_size, stat.st_mtime_ns
    else:
        info = fs.info(path)
        size = info.get("size")
        modified = next((info[k] for k in ("mtime", "LastModified", "last_modified", "updated",
                                           "ETag", "etag", "md5Hash") if k in info), None)
        modified = None if modified is None else str(modified)
    return size, modified, _parquet_footer(path, None if local else fs) if parquet else None


@dataclasses.dataclass(frozen=True)
class Fingerprints:
    """Files and their :func:`fingerprint` when the table was read.

    Attributes
    ----------
    files : tuple of (str, tuple)
        Each file's path and fingerprint.
    fs : dict
        Path -> fsspec filesystem, for a file not on this machine.
    """

    files: tuple = ()
    fs: dict = dataclasses.field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def take(cls, found):
        """Fingerprint ``found`` (``[(path, fs or None), ...]``) now."""
        return cls(tuple((str(p), fingerprint(p, fs)) for p, fs in found),
                   {str(p): fs for p, fs in found if fs is not None
                    and "local" not in type(fs).__name__.lower()})

    def changed(self):
        """The first file that differs from its fingerprint, and how; None when none does."""
        for path, then in self.files:
            try:
                now = fingerprint(path, self.fs.get(path))
            except OSError:
                return path, "it is gone"
            if now != then:
                what = (f"its size went from {then[0]} to {now[0]} bytes" if now[0] != then[0]
                        else "it was modified" if now[1] != then[1]
                        else "its Parquet metadata changed")
                return path, what
        return None

    def check(self, where, then=None):
        """Raise a one-line DataError naming the first file changed since it was read.

        ``then`` ends the message (what follows for the caller).
        """
        found = self.changed()
        if found is not None:
            path, how = found
            raise DataError(f"{where}: the input changed since it was read: file {path!r} "
                            f"({how}); {then or _THEN}")


def input_files(ddf):
    """``[(path, fs), ...]``: the files ``ddf`` reads, as far as its expression names them.

    ``dd.read_parquet``'s dataset files and ``dd.read_csv``'s files (fsspec
    ``OpenFile`` objects in its tasks); ``[]`` for a table built from
    memory or from delayed functions.
    """
    expr = getattr(ddf, "expr", None)
    if expr is None or not hasattr(expr, "walk"):
        return []
    found = {}
    try:
        for op in expr.walk():
            if any(base.__name__ == "ReadParquet" for base in type(op).__mro__):
                info = op._dataset_info
                for path in info["ds"].files:
                    found.setdefault(str(path), info.get("fs"))
                continue
            for operand in getattr(op, "operands", ()):
                _open_files(operand, found, depth=0)
    except (AttributeError, KeyError, TypeError, NotImplementedError):
        pass                # an expression of another dask version: the files found so far
    return list(found.items())


def _open_files(value, found, depth):
    """Collect the fsspec ``OpenFile`` objects inside an operand (lists, tasks' arguments)."""
    if depth > 4:
        return
    kind = type(value)
    if kind.__name__ == "OpenFile" and kind.__module__.startswith("fsspec"):
        found.setdefault(str(value.path), value.fs)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _open_files(item, found, depth + 1)
    elif kind.__name__ == "Task" and kind.__module__.startswith("dask"):
        for item in getattr(value, "args", ()):             # a dask task: its arguments
            _open_files(item, found, depth + 1)
