"""Checksums of the tables a report describes, and writing the report file.

:func:`_write_text` is the one place a report touches the disk, through the
library's atomic writer (:mod:`kanon_graph.io.write`: a temporary file beside
the target, synced, then renamed over it), so a reader never sees half a report.
"""

from __future__ import annotations

import hashlib
import os

__all__ = ["file_checksum", "table_checksum"]


def file_checksum(path):
    """``{"file": name, "sha256": hex, "bytes": size}`` of a file as it is on disk.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write("a\\n1\\n")
    >>> file_checksum(path)["sha256"][:12]
    '309b0e45a73d'
    """
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
    return {"file": os.path.basename(os.fspath(path)), "sha256": digest.hexdigest(),
            "bytes": size}


def table_checksum(table, name):
    """SHA-256 of a DataFrame written as CSV (pandas ``to_csv``, no index, UTF-8).

    A table in memory has no file yet: this is the checksum of the CSV file
    ``table.to_csv(path, index=False)`` writes, so whoever receives that file
    can check it against the report.
    """
    data = table.to_csv(index=False).encode("utf-8")
    return {"file": name, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
            "of": "the table as CSV (to_csv(index=False), UTF-8)"}


def _write_text(text, path):
    """Write ``text`` to ``path`` through the library's one atomic writer (:mod:`kanon_graph.io.write`)."""
    from ..io.write import write_text

    return write_text(path, text)
