"""Outputs checked before any work: no collision, no unwritable folder, no stale folder.

A command names its inputs and outputs once; :func:`check_outputs` refuses,
with one line naming the flags, an output that is an input (resolved paths,
and :func:`os.path.samefile` for links), two outputs on one path, an output
whose folder is missing or not writable, and a Dask output folder that holds
anything but a release this library wrote (it is replaced as a whole; a
release folder carries a manifest naming its files, see
:func:`kanon_graph.io.write.foreign_entry`). Nothing is read or computed
before these checks pass.
"""

from __future__ import annotations

import argparse
import glob
import os
from pathlib import Path

from ..io.write import foreign_entry
from ._parser import DataProblem

__all__ = ["Output", "check_outputs", "output_folder"]

_FLAGS = {"output": "-o", "report": "--report", "plot": "--plot"}


class Output:
    """One path a command will write: ``flag`` (``-o``), ``path``, and its ``kind``.

    ``kind`` is ``"file"``, ``"folder"`` (a Dask Parquet folder, replaced
    whole), ``"pattern"`` (a Dask ``out/part-*.csv``: its folder is the
    output) or ``"files"`` (a folder new files are written into, e.g.
    ``hierarchy suggest -o DIR``).
    """

    def __init__(self, flag, path, kind="file"):
        self.flag, self.path, self.kind = flag, str(path), kind

    @property
    def target(self):
        """The file or folder replaced by the write."""
        return Path(self.path).parent if self.kind == "pattern" else Path(self.path)


def output_folder(path):
    """The folder a Dask ``out/part-*.csv`` pattern writes into (the path itself otherwise)."""
    return Path(path).parent if "*" in Path(path).name else Path(path)


def _input_files(path):
    path = Path(path)
    if path.is_dir():
        return [p for p in path.iterdir() if p.is_file()]
    if any(ch in str(path) for ch in "*?["):
        return [Path(p) for p in glob.glob(str(path))]
    return [path]


def _same(a, b):
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _inside(child, folder):
    try:
        child.resolve().relative_to(folder.resolve())
        return True
    except ValueError:
        return False


def check_outputs(inputs, outputs):
    """Refuse every collision and unwritable output before the command does any work.

    Parameters
    ----------
    inputs : list of (flag, path)
        Files, folders or globs read by the command (``flag`` names it in
        messages, e.g. ``"INPUT"``).
    outputs : list of Output
    """
    outputs = [o for o in outputs if o.path not in (None, "None")]
    for i, out in enumerate(outputs):
        target = out.target
        _check_folder(out, target)
        for flag, path in inputs:
            source = Path(path)
            files = _input_files(path)
            hit = (_same(target, source) if source.exists() else False) or any(
                _same(target, f) for f in files if f.exists())
            if not hit and out.kind in ("folder", "pattern"):       # replaced as a whole
                hit = any(_inside(f, target) for f in files) or (
                    source.exists() and _inside(source, target))
            if hit:
                raise DataProblem(f"{out.flag} {out.path!r} would overwrite the input "
                                  f"{flag} {str(path)!r}; write the output elsewhere")
        _check_release_folder(out, target)
        for other in outputs[:i]:
            a, b = other.target, target
            whole = ("folder", "pattern")
            if _same(a, b) or (other.kind in whole and _inside(b, a)) or (
                    out.kind in whole and _inside(a, b)):
                raise DataProblem(f"{other.flag} {other.path!r} and {out.flag} {out.path!r} "
                                  f"name the same place; give each output its own path")


def _check_folder(out, target):
    parent = target.resolve().parent
    if not parent.is_dir():
        raise DataProblem(f"{out.flag}: cannot write {out.path!r}: folder {str(parent)!r} "
                          f"does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise DataProblem(f"{out.flag}: cannot write {out.path!r}: folder {str(parent)!r} "
                          f"is not writable")
    if out.kind == "files":
        if target.exists() and not target.is_dir():
            raise DataProblem(f"{out.flag}: {out.path!r} exists and is not a folder")
        return
    if out.kind == "file":
        if target.is_dir():
            raise DataProblem(f"{out.flag}: cannot write {out.path!r}: it is a folder")
        return
    if target.exists() and not target.is_dir():
        raise DataProblem(f"{out.flag}: cannot write the Dask release folder {str(target)!r}: "
                          f"a file of that name exists")


def _check_release_folder(out, target):
    """A Dask release folder replaces ``target`` whole: only an earlier release may be there."""
    strange = foreign_entry(target) if out.kind in ("folder", "pattern") else None
    if strange is not None:
        raise DataProblem(f"{out.flag}: folder {str(target)!r} holds {strange!r}, which is "
                          f"not part of a release kanon_graph wrote; a Dask release replaces "
                          f"its folder as a whole, so give a new or empty folder")


def add_unshuffle_argument(parser):
    """``--unshuffle SEED|REPORT.json`` (evaluate, report): undo a written release's order."""

    def order_seed(value):
        from ..io.release import order_seed_from

        try:
            return order_seed_from(value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parser.add_argument("--unshuffle", type=order_seed, metavar="SEED|REPORT.json",
                        help="RELEASED was written shuffled by 'kanon-graph anonymize': put "
                        "its rows back in the original's order first, from the order seed or "
                        "the run's JSON report (its publication.order_seed)")
