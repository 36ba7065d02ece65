"""The parser class of ``kanon-graph`` and its usage error (no heavy import: ``--help`` uses it)."""

from __future__ import annotations

import argparse

PROG = "kanon-graph"


class UsageError(Exception):
    """A malformed command line (exit code 2)."""


class Parser(argparse.ArgumentParser):
    """argparse, but errors are one line and do not exit the interpreter."""

    def error(self, message):
        raise UsageError(f"{message} (see '{self.prog} --help')")
