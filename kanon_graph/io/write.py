"""The one way anything is written: beside the target, synced, then renamed into place.

Every output of the library and the command line (a released CSV or Parquet
file, a JSON report, a plot, a hierarchy file, a Dask folder of part files)
goes through :func:`atomic_file` or :func:`atomic_folder`:

1. the content is written to a temporary file (or folder) in the target's
   own folder, named ``.<name>.kg-tmp-<pid>-<random>`` so that two runs
   never share one;
2. it is flushed and ``fsync``-ed (every file of a folder, then the folder);
3. it is renamed onto the target with :func:`os.replace` (a folder: the old
   folder is first moved aside, then removed), and the parent folder is
   synced.

So an interrupted or failed run leaves either no output or the previous one,
never a partial file; two runs writing one target each finish their own
temporary and the last rename wins, never a mixture. On any exception
(``KeyboardInterrupt`` included) the temporary is removed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["atomic_file", "atomic_folder", "write_text", "save_figure", "temporary_name",
           "fsync_tree", "replace_folder",
           "TEMP_MARK"]

TEMP_MARK = ".kg-tmp-"


def temporary_name(target: str | os.PathLike[str], kind: str = "") -> Path:
    """A fresh hidden name beside ``target`` (same folder, so a rename is atomic)."""
    target = Path(target)
    return target.with_name(f".{target.name}{TEMP_MARK}{kind}{os.getpid()}-"
                            f"{secrets.token_hex(4)}")


def _test_pause() -> None:
    """Tests only: ``KANON_GRAPH_TEST_WRITE_PAUSE=SECONDS`` waits with the temporary complete
    and not yet renamed, so a test can interrupt a run at that moment reliably."""
    pause = os.environ.get("KANON_GRAPH_TEST_WRITE_PAUSE")
    if pause:
        import time

        time.sleep(float(pause))


def _fsync_path(path: Path, directory: bool = False) -> None:
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0)
    try:
        fd = os.open(path, flags)
    except OSError:            # a file system that cannot open folders: nothing to sync
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
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
        _test_pause()
        if not tmp.exists():
            raise OSError(errno.ENOENT, "nothing was written", str(target))
        fsync_tree(tmp)
        os.replace(tmp, target)
    except BaseException:
        _remove(tmp)
        raise
    _fsync_path(target.parent if str(target.parent) else Path("."), directory=True)


def replace_folder(tmp: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Put the complete folder ``tmp`` at ``target``, replacing any folder there as a whole.

    A rename onto a folder that exists and is not empty fails, so the old
    one is moved aside first (and removed after); if another run puts its
    folder there in between, the loop moves that one aside too: the last
    rename wins and no folder is ever a mixture of two releases.
    """
    tmp, target = Path(tmp), Path(target)
    for _ in range(100):
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
        _remove(aside)
    else:  # pragma: no cover - a hundred competing writers in a row
        raise OSError(errno.EBUSY, "could not replace the folder", str(target))
    _fsync_path(target.parent, directory=True)


@contextlib.contextmanager
def atomic_folder(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a new temporary folder beside ``target``; on success it replaces ``target``.

    Whatever ``target`` held before is replaced as a whole (never merged
    with the new files); on an exception the temporary folder is removed
    and ``target`` is left as it was.

    Examples
    --------
    >>> import os, tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "release")
    >>> os.mkdir(target); _ = open(os.path.join(target, "stale.csv"), "w").write("old")
    >>> with atomic_folder(target) as tmp:
    ...     _ = (tmp / "part-0.csv").write_text("new")
    >>> sorted(os.listdir(target))
    ['part-0.csv']
    """
    target = Path(target)
    tmp = temporary_name(target)
    tmp.mkdir()
    try:
        yield tmp
        _test_pause()
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
