"""The ``kanon-graph`` command line.

::

    kanon-graph demo [-k 5] [-n 2000] [--seed 0]
    kanon-graph anonymize INPUT.csv (--schema SCHEMA.yaml | --qi a,b,c) [--hierarchies DIR]
                -k 5 [--algorithm auto] [--l 2 --sensitive COL] [--suppression 0.02]
                -o OUT.csv [--report REPORT.json] [--sep ';']
    kanon-graph evaluate ORIGINAL.csv RELEASED.csv (--schema S.yaml | --qi a,b) [-k K] ...
    kanon-graph hierarchy show FILE [--format text|dot]
    kanon-graph hierarchy build (--intervals 5,10,20 | --cuts ... | --mask 3)
                (--values 1..100 | --values-from DATA.csv --column COL) [-o OUT.csv]
    kanon-graph lattice show INPUT.csv (--schema | --qi ...) -k K [--format dot|png] [-o OUT]
    kanon-graph compare INPUT.csv (--schema | --qi ...) --algorithms a,b -k 2,5,10
                [-o TABLE.csv] [--plot CURVES.png]
    kanon-graph reproduce 000|001|002|003|004 [--quick] [--out DIR] [--data DIR]
    kanon-graph algorithms
    kanon-graph explore DATA.csv (--schema | --qi ...) [--hierarchies DIR] [--port N]
                [--exports DIR] [--no-browser]

One module per command group (``anonymize``, ``evaluate``, ``hierarchy``,
``lattice``, ``compare``, ``demo``); ``_common`` holds the parser, argument
types, plugin loading and the progress bar (tqdm, :mod:`kanon_graph._progress`).

Every user mistake (a bad file, a column missing, k too large, ...) ends
the command with one line on stderr, ``kanon-graph: error: ...``, and exit
code 1; a wrong command line exits with code 2. Set ``KANON_GRAPH_DEBUG=1``
to see the full traceback instead.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
import warnings

from .. import __version__
from .._progress import write_line
from ..exceptions import PrivacyError
from ._parser import PROG, Parser, UsageError

__all__ = ["main", "build_parser"]

#: Every command: (name, the module that registers it, its one-line help). ``kanon-graph
#: --help`` is drawn from this table alone; a command's module (and with it pandas and
#: numpy) is imported only when that command is parsed. tests/test_cli_lazy.py checks the
#: help lines against the modules' own.
COMMANDS = (
    ("demo", "demo", "anonymize the built-in synthetic census table"),
    ("algorithms", "demo", "list the registered algorithms"),
    ("anonymize", "anonymize", "anonymize a CSV file"),
    ("evaluate", "evaluate", "check and measure a released table (ours or another tool's)"),
    ("report", "report", "write the privacy report of a release (HTML or JSON)"),
    ("hierarchy", "hierarchy", "inspect and build hierarchies"),
    ("lattice", "lattice", "draw the generalization lattice"),
    ("compare", "compare", "compare algorithms on one table"),
    ("reproduce", "reproduce", "run one paper's experiment and judge its claims"),
    ("explore", "explore", "open the explorer in the browser (a local server)"),
)


def _command_module(name):
    return importlib.import_module(f".{name}", __name__)


def build_parser(command=None):
    """The argparse parser of ``kanon-graph`` (exposed for documentation and tests).

    Parameters
    ----------
    command : str, optional
        Build the full parser of this command only, and a one-line stand-in
        for every other (what ``main`` does, so that ``kanon-graph --help``
        imports no command). ``None`` (default) builds every command in full.
    """
    parser = Parser(prog=PROG, description="k-anonymization of tabular microdata with "
                    "hierarchy trees, record graphs and generalization lattices.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--plugin", action="append", default=[], metavar="FILE.py|MODULE",
                        help="import this Python file or module first, so the algorithms "
                        "and metrics it registers can be used (repeatable)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    wanted = {module for name, module, _ in COMMANDS if command is None or name == command}
    registered = set()
    for name, module, help_text in COMMANDS:
        if module not in wanted:
            commands.add_parser(name, help=help_text)
        elif module not in registered:      # a module registers all its commands at once
            registered.add(module)
            _command_module(module).register(commands)
    return parser


def _command_of(argv):
    """The command named on the command line (``None`` when there is none)."""
    names = {name for name, _, _ in COMMANDS}
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--plugin":
            skip = True
        elif not arg.startswith("-"):
            return arg if arg in names else None
    return None


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
    write_line(f"{PROG}: warning: {text}", sys.stderr)     # an open bar's line cleared first


def _run(argv, out):
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        command = _command_of(argv)
        args = build_parser(command if command is not None else "").parse_args(argv)
        if args.plugin:
            from ._common import load_plugin

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

