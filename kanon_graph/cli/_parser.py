"""The parser class of ``kanon-graph``, its two errors (usage, data), and the hint
``evaluate`` and ``report`` share (no heavy import: ``--help`` uses it)."""

from __future__ import annotations

import argparse
import contextlib

PROG = "kanon-graph"


class UsageError(Exception):
    """A malformed command line (exit code 2)."""


class DataProblem(ValueError):
    """A problem with files given on the command line (exit code 1)."""


class Parser(argparse.ArgumentParser):
    """argparse, but errors are one line and do not exit the interpreter.

    Options are never abbreviated (``allow_abbrev=False``, on every command's
    parser too: ``add_subparsers`` builds them with this class): ``--unsh``
    is an error, not ``--unshuffle``, so an option is always spelled as the
    report that withholds its value looks for it.
    """

    def __init__(self, *args, **kwargs):
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message):
        raise UsageError(f"{message} (see '{self.prog} --help')")


@contextlib.contextmanager
def unshuffle_hint(args):
    """A released value that does not cover its original, without ``--unshuffle``: say why.

    The likely cause is a release of ``anonymize``, written shuffled: the
    error gains the hint to pass ``--unshuffle`` (``evaluate`` and ``report``
    alike).
    """
    try:
        yield
    except ValueError as exc:
        if getattr(args, "unshuffle", None) is None and "does not cover" in str(exc):
            raise type(exc)(f"{exc} (a release of 'kanon-graph anonymize' is shuffled: pass "
                            f"--unshuffle with the run's report or its order seed)") from None
        raise

