"""The ``kanon-graph`` command line.

::

    kanon-graph demo [-k 5] [-n 2000] [--seed 0]
    kanon-graph anonymize INPUT.csv (--schema SCHEMA.yaml | --qi a,b,c) [--hierarchies DIR]
                -k 5 [--algorithm auto] [--l 2 --sensitive COL] [--suppression 0.02]
                -o OUT.csv [--report REPORT.json] [--sep ';']
    kanon-graph evaluate ORIGINAL.csv RELEASED.csv (--schema S.yaml | --qi a,b) [-k K] ...
    kanon-graph report ORIGINAL.csv RELEASED.csv (--schema S.yaml | --qi a,b) [-k K] ...
                -o REPORT.html [--format html|json] [--sampling-fraction 0.01]
    kanon-graph hierarchy show FILE [--format text|dot]
    kanon-graph hierarchy build (--intervals 5,10,20 | --cuts ... | --mask 3)
                (--values 1..100 | --values-from DATA.csv --column COL) [-o OUT.csv]
    kanon-graph lattice show INPUT.csv (--schema | --qi ...) -k K [--format dot|png] [-o OUT]
    kanon-graph compare INPUT.csv (--schema | --qi ...) --algorithms a,b -k 2,5,10
                [-o TABLE.csv] [--plot CURVES.png]
    kanon-graph reproduce 000|001|002|003|004 [--quick] [--out DIR] [--data DIR]
    kanon-graph algorithms

One module per command group (``anonymize``, ``evaluate``, ``hierarchy``,
``lattice``, ``compare``, ``demo``); ``_common`` holds the parser, argument
types, plugin loading and the progress bar (tqdm, :mod:`kanon_graph._progress`).

Every user mistake (a bad file, a column missing, k too large, ...) ends
the command with one line on stderr, ``kanon-graph: error: ...``, and exit
code 1; a wrong command line exits with code 2. Set ``KANON_GRAPH_DEBUG=1``
to see the full traceback instead.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import warnings

from .. import __version__
from ..exceptions import PrivacyError
from . import anonymize, compare, demo, evaluate, hierarchy, lattice, report, reproduce
from ._common import PROG, Parser, UsageError, load_plugin

__all__ = ["main", "build_parser"]

_GROUPS = (demo, anonymize, evaluate, report, hierarchy, lattice, compare, reproduce)


def build_parser():
    """The argparse parser of ``kanon-graph`` (exposed for documentation and tests)."""
    parser = Parser(prog=PROG, description="k-anonymization of tabular microdata with "
                    "hierarchy trees, record graphs and generalization lattices.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--plugin", action="append", default=[], metavar="FILE.py|MODULE",
                        help="import this Python file or module first, so the algorithms "
                        "and metrics it registers can be used (repeatable)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for group in _GROUPS:
        group.register(commands)
    return parser


def _fail(message, code):
    text = " ".join(str(message).split())
    print(f"{PROG}: error: {text}", file=sys.stderr)
    return code


def main(argv=None):
    """Run ``kanon-graph`` with ``argv`` (default: ``sys.argv[1:]``); return the exit code.

    Examples
    --------
    >>> main(["hierarchy", "show", "--help"])  # doctest: +ELLIPSIS
    usage: kanon-graph hierarchy show [-h] [--format {text,dot}] ...
    ...
    0
    """
    out = sys.stdout
    previous = _on_sigterm()
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return _run(argv, out)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _on_sigterm():
    """SIGTERM ends the command like Ctrl-C, so temporary outputs are removed (main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, interrupt)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """A library warning on the command line: one line, like the errors."""
    text = " ".join(str(message).split())
    print(f"{PROG}: warning: {text}", file=sys.stderr)


def _run(argv, out):
    try:
        args = build_parser().parse_args(argv)
        for plugin in args.plugin:
            load_plugin(plugin)
        return args.handler(args, out)
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    except UsageError as exc:
        return _fail(exc, 2)
    except BrokenPipeError:  # e.g. piped into head
        sys.stdout = open(os.devnull, "w")
        return 0
    except (ValueError, PrivacyError, OSError) as exc:
        if os.environ.get("KANON_GRAPH_DEBUG"):
            raise
        if isinstance(exc, OSError) and exc.filename:
            return _fail(f"{exc.strerror}: {exc.filename!r}", 1)
        return _fail(exc, 1)
    except ImportError as exc:
        # an optional extra that is not installed: the message names it
        if os.environ.get("KANON_GRAPH_DEBUG") or "pip install" not in str(exc):
            raise
        return _fail(exc, 1)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)

