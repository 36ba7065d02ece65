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


def text_encoding(text):
    """``--encoding NAME``: a text encoding Python knows (checked when parsed)."""
    from ..io._encoding import text_codec        # only when the option is given

    try:
        text_codec(text, "--encoding")
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"unknown text encoding {text!r} (utf-8, latin-1, cp1252, utf-16, ...)") from None
    return text


def add_encoding_argument(parser, flag="--encoding", what="of the CSV data files"):
    """``--encoding`` (or ``flag``): the text encoding of CSV input, UTF-8 by default."""
    parser.add_argument(flag, type=text_encoding, metavar="NAME",
                        help=f"text encoding {what} (default utf-8, a byte order mark "
                        f"dropped): latin-1, cp1252, utf-16, ... A byte that does not decode "
                        f"is an error naming its line. Parquet is always UTF-8")


def encoding_of(args, name="encoding"):
    """The encoding an ``args`` option names (UTF-8 when not given)."""
    return getattr(args, name, None) or "utf-8"


def positive(text):
    """An integer >= 1 (an argument type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value
