"""The one way anything is written: beside the target, synced, then renamed into place.

Every output of the library and the command line (a released CSV or Parquet
file, a JSON report, a plot, a hierarchy file, a Dask folder of part files)
goes through :func:`atomic_file` or :func:`atomic_folder`:

1. the content is written to a temporary file (or folder) in the target's
   own folder, named ``.<name>.kg-tmp-<pid>-<random>`` so that two runs
   never share one;
2. it is flushed and ``fsync``-ed (every file of a folder, then the folder);
   an ``fsync`` that fails is an error (the data may not be on the disk),
   never ignored;
3. it is renamed onto the target with :func:`os.replace` (a folder: the old
   folder is first moved aside, then removed), and the parent folder is
   synced.

So an interrupted or failed run leaves either no output or the previous one,
never a partial file; two runs writing one target each finish their own
temporary and the last rename wins, never a mixture. On any exception
(``KeyboardInterrupt`` included) the temporary is removed.

A folder written by :func:`atomic_folder` holds a manifest,
``_kanon_graph_release.json``, listing its files (their names only). A
folder is replaced only when it is empty or holds such a release and
nothing else (:func:`foreign_entry`): a folder holding anybody else's file
is refused, never deleted.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["atomic_file", "atomic_folder", "write_text", "save_figure", "temporary_name",
           "fsync_tree", "replace_folder", "foreign_entry", "write_manifest",
           "TEMP_MARK", "RELEASE_MANIFEST"]

TEMP_MARK = ".kg-tmp-"
#: The file :func:`atomic_folder` writes beside a folder's files, naming them: the folder
#: is a release this library wrote (a leading ``_`` keeps Parquet readers off it).
RELEASE_MANIFEST = "_kanon_graph_release.json"
_MANIFEST_KIND = "kanon_graph release folder"
# a folder file system that cannot sync a folder says so with one of these: nothing to sync
_NO_FOLDER_SYNC = (errno.EINVAL, errno.ENOTSUP, errno.EBADF, errno.EISDIR)


def temporary_name(target: str | os.PathLike[str], kind: str = "") -> Path:
    """A fresh hidden name beside ``target`` (same folder, so a rename is atomic)."""
    target = Path(target)
    return target.with_name(f".{target.name}{TEMP_MARK}{kind}{os.getpid()}-"
                            f"{secrets.token_hex(4)}")


def _fsync_path(path: Path, directory: bool = False) -> None:
    """``fsync`` one file or folder; an error is raised, never swallowed.

    Only a folder may be skipped: on a system that cannot open one (no
    ``O_DIRECTORY``, Windows) or a file system that does not sync folders
    (``EINVAL``). A file that cannot be opened or synced is an error: its
    data may not be on the disk.
    """
    if directory:
        if not hasattr(os, "O_DIRECTORY"):
            return
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            if exc.errno in _NO_FOLDER_SYNC or exc.errno == errno.EACCES:
                return
            raise
    else:
        fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as exc:
        if not (directory and exc.errno in _NO_FOLDER_SYNC):
            raise OSError(exc.errno, f"could not sync the written data to the disk "
                          f"({exc.strerror or exc})", str(path)) from None
    finally:
        os.close(fd)


def fsync_tree(path: str | os.PathLike[str]) -> None:
    """``fsync`` a file, or every file of a folder and the folders themselves."""
    path = Path(path)
    if path.is_dir():
        for root, _, files in os.walk(path):
            for name in files:
                _fsync_path(Path(root) / name)
            _fsync_path(Path(root), directory=True)
    else:
        _fsync_path(path)


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()


@contextlib.contextmanager
def atomic_file(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; on success it replaces ``target``.

    The caller writes the whole file to the yielded path (with any writer:
    ``to_csv``, ``to_parquet``, ``savefig``, ...). When the block ends
    without an exception the file is synced and renamed onto ``target``;
    otherwise it is removed and ``target`` is left as it was.

    Examples
    --------
    >>> import os, tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> with atomic_file(target) as tmp:
    ...     _ = tmp.write_text("all or nothing\\n")
    >>> open(target).read(), sorted(os.listdir(os.path.dirname(target)))
    ('all or nothing\\n', ['out.txt'])
    """
    target = Path(target)
    tmp = temporary_name(target)
    try:
        yield tmp
        if not tmp.exists():
            raise OSError(errno.ENOENT, "nothing was written", str(target))
        fsync_tree(tmp)
        os.replace(tmp, target)
    except BaseException:
        _remove(tmp)
        raise
    _fsync_path(target.parent if str(target.parent) else Path("."), directory=True)


def write_manifest(folder: str | os.PathLike[str]) -> Path:
    """Write :data:`RELEASE_MANIFEST` into ``folder``, naming every file it holds.

    It holds the file names only (nothing about the rows, no order seed):
    it marks the folder as a release this library wrote, which a later
    release may replace (:func:`foreign_entry`).
    """
    folder = Path(folder)
    names = sorted(p.name for p in folder.iterdir() if p.name != RELEASE_MANIFEST)
    path = folder / RELEASE_MANIFEST
    path.write_text(json.dumps({"kind": _MANIFEST_KIND, "files": names}, indent=1) + "\n",
                    encoding="utf-8")
    return path


def _manifest_files(folder: Path) -> set[str] | None:
    try:
        data = json.loads((folder / RELEASE_MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("kind") != _MANIFEST_KIND or \
            not isinstance(data.get("files"), list):
        return None
    return {str(name) for name in data["files"]}


def foreign_entry(folder: str | os.PathLike[str]) -> str | None:
    """The first entry of ``folder`` that a replacing release must not delete, or None.

    None when the folder is missing or empty, or holds a release written
    by :func:`atomic_folder` and nothing else: the files its manifest names
    (and hidden temporaries of this library's interrupted runs). Anything
    else (a file the manifest does not name, any file when there is no
    manifest, a sub-folder) is returned by name, sorted first.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> foreign_entry(folder) is None
    True
    >>> _ = open(os.path.join(folder, "my_raw_2025.csv"), "w").write("id,diagnosis")
    >>> foreign_entry(folder)
    'my_raw_2025.csv'
    """
    folder = Path(folder)
    if not folder.is_dir():
        return None
    listed = _manifest_files(folder)
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if TEMP_MARK in entry.name:          # this library's own interrupted temporary
            continue
        if listed is not None and entry.name == RELEASE_MANIFEST:
            continue
        if listed is None or entry.name not in listed or entry.is_dir():
            return entry.name
    return None


def _refuse(target: Path, name: str) -> OSError:
    return FileExistsError(f"folder {str(target)!r} holds {name!r}, which is "
                           f"not part of a release kanon_graph wrote; a release replaces its "
                           f"folder as a whole, so give a new or empty folder")


def replace_folder(tmp: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Put the complete folder ``tmp`` at ``target``, replacing any release there as a whole.

    A rename onto a folder that exists and is not empty fails, so the old
    one is moved aside first (and removed after); if another run puts its
    folder there in between, the loop moves that one aside too: the last
    rename wins and no folder is ever a mixture of two releases. A folder
    that holds anything but a release this library wrote
    (:func:`foreign_entry`) is refused with ``FileExistsError`` naming the
    first such file, and left as it was.
    """
    tmp, target = Path(tmp), Path(target)
    for _ in range(100):
        strange = foreign_entry(target)
        if strange is not None:
            raise _refuse(target, strange)
        try:
            os.rename(tmp, target)
            break
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.EISDIR, errno.ENOTDIR):
                raise
        aside = temporary_name(target, "old-")
        try:
            os.rename(target, aside)
        except FileNotFoundError:
            continue
        strange = foreign_entry(aside)
        if strange is not None:             # a file put there since the check: put it back
            with contextlib.suppress(OSError):
                os.rename(aside, target)
            raise _refuse(target, strange)
        _remove(aside)
    else:  # pragma: no cover - a hundred competing writers in a row
        raise OSError(errno.EBUSY, "could not replace the folder", str(target))
    _fsync_path(target.parent, directory=True)


@contextlib.contextmanager
def atomic_folder(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a new temporary folder beside ``target``; on success it replaces ``target``.

    The files written are named in a manifest (:data:`RELEASE_MANIFEST`,
    written last). The release that ``target`` held before is replaced as
    a whole (never merged with the new files); a ``target`` holding
    anything else is refused (:func:`replace_folder`). On an exception the
    temporary folder is removed and ``target`` is left as it was.

    Examples
    --------
    >>> import os, tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "release")
    >>> with atomic_folder(target) as tmp:
    ...     _ = (tmp / "part-0.csv").write_text("old")
    >>> with atomic_folder(target) as tmp:
    ...     _ = (tmp / "part-1.csv").write_text("new")
    >>> sorted(os.listdir(target))
    ['_kanon_graph_release.json', 'part-1.csv']
    """
    target = Path(target)
    tmp = temporary_name(target)
    tmp.mkdir()
    try:
        yield tmp
        write_manifest(tmp)
        fsync_tree(tmp)
        replace_folder(tmp, target)
    except BaseException:
        _remove(tmp)
        raise


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path."""
    with atomic_file(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def save_figure(fig: Any, path: str | os.PathLike[str], **options: Any) -> Path:
    """``fig.savefig(path, **options)``, atomically (the format is taken from the suffix)."""
    fmt = options.pop("format", None) or (Path(path).suffix[1:].lower() or "png")
    with atomic_file(path) as tmp:
        fig.savefig(tmp, format=fmt, **options)
    return Path(path)
