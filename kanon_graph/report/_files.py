"""Checksums of the tables a report describes, and writing the report file.

:func:`_write_text` is the one place a report touches the disk: it writes a
temporary file beside the target and renames it over the target
(``os.replace``), so a reader never sees half a report. It is private on
purpose, so that it can later defer to the library's shared atomic writer.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

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
    """Write ``text`` to ``path`` atomically (temporary file beside it, then rename)."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                         dir=path.parent if str(path.parent) else ".")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return path
