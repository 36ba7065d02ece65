"""The ``kanon-graph`` command line.

::

    kanon-graph demo [-k 5] [-n 2000] [--seed 0]
    kanon-graph anonymize INPUT.csv (--schema SCHEMA.yaml | --qi a,b,c) [--hierarchies DIR]
                -k 5 [--algorithm datafly] [--l 2 --sensitive COL] [--suppression 0.02]
                -o OUT.csv [--report REPORT.json] [--sep ';']
    kanon-graph hierarchy show FILE [--format text|dot]
    kanon-graph algorithms

Every user mistake (a bad file, a column missing, k too large, ...) ends
the command with one line on stderr, ``kanon-graph: error: ...``, and exit
code 1; a wrong command line exits with code 2. Set ``KANON_GRAPH_DEBUG=1``
to see the full traceback instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import pandas as pd

from . import __version__
from .api import anonymize
from .exceptions import PrivacyError
from .hierarchy import load_hierarchies, read_hierarchy
from .io import read_table, result_report, write_json, write_table
from .metrics import get_metric
from .privacy import DIVERSITY_KINDS
from .registry import algorithms, get_algorithm
from .schema import Schema
from .viz import hierarchy_dot, hierarchy_text

__all__ = ["main", "build_parser"]

PROG = "kanon-graph"


class _UsageError(Exception):
    """A malformed command line (exit code 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are one line and do not exit the interpreter."""

    def error(self, message):
        raise _UsageError(f"{message} (see '{self.prog} --help')")


def _csv_list(text):
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise argparse.ArgumentTypeError("expected a comma-separated list of column names")
    return items


def _fraction(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value


def _option(text):
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    import yaml

    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError:
        parsed = value
    return name.strip(), parsed if parsed is not None else value


def build_parser():
    """The argparse parser of ``kanon-graph`` (exposed for documentation and tests)."""
    parser = _Parser(prog=PROG, description="k-anonymization of tabular microdata with "
                     "hierarchy trees, record graphs and generalization lattices.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--plugin", action="append", default=[], metavar="FILE.py|MODULE",
                        help="import this Python file or module first, so the algorithms "
                        "and metrics it registers can be used (repeatable)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    demo = commands.add_parser("demo", help="anonymize the built-in synthetic census table",
                               description="Anonymize the built-in synthetic census table "
                               "and print the released table, its classes and its loss.")
    demo.add_argument("-k", type=int, default=5, help="k of k-anonymity (default 5)")
    demo.add_argument("-n", type=int, default=2000, help="number of rows (default 2000)")
    demo.add_argument("--seed", type=int, default=0, help="seed of the synthetic table")
    demo.add_argument("--algorithm", default="datafly", help="a registered algorithm")
    demo.add_argument("--rows", type=int, default=8, help="rows of each table to print")

    anon = commands.add_parser("anonymize", help="anonymize a CSV file",
                               description="Anonymize a CSV table and write the release "
                               "(and a JSON report).")
    anon.add_argument("input", metavar="INPUT.csv", help="the table, with a header row")
    who = anon.add_mutually_exclusive_group(required=True)
    who.add_argument("--schema", metavar="SCHEMA.yaml", help="a YAML or JSON schema file")
    who.add_argument("--qi", type=_csv_list, metavar="COL,COL",
                     help="the quasi-identifiers, comma-separated")
    anon.add_argument("--hierarchies", metavar="DIR", help="folder of ARX-format hierarchy "
                      "CSVs named <column>.csv or *_hierarchy_<column>.csv")
    anon.add_argument("--identifiers", type=_csv_list, default=[], metavar="COL,COL",
                      help="columns to drop from the release (with --qi)")
    anon.add_argument("-k", type=int, required=True, help="k of k-anonymity")
    anon.add_argument("--algorithm", default="datafly", help="a registered algorithm "
                      "(see 'kanon-graph algorithms'; default datafly)")
    anon.add_argument("--l", type=float, help="required l-diversity of --sensitive")
    anon.add_argument("--diversity", choices=DIVERSITY_KINDS, default="distinct")
    anon.add_argument("--c", type=float, default=1.0, help="c of recursive (c,l)-diversity")
    anon.add_argument("--t", type=_fraction, help="required t-closeness of --sensitive")
    anon.add_argument("--sensitive", metavar="COL", help="the sensitive column")
    anon.add_argument("--suppression", type=_fraction, metavar="FRACTION",
                      help="fraction of records that may be suppressed")
    anon.add_argument("--respect-boundaries", action="store_true",
                      help="never generalize a value beyond its MAGVal (hierarchy marks)")
    anon.add_argument("--missing", choices=("error", "drop"), default="error",
                      help="rows with missing values: fail (default) or drop and count them")
    anon.add_argument("--seed", type=int, help="seed for randomized algorithms")
    anon.add_argument("--option", type=_option, action="append", default=[],
                      metavar="NAME=VALUE", help="an option of the algorithm (repeatable)")
    anon.add_argument("-o", "--output", required=True, metavar="OUT.csv")
    anon.add_argument("--report", metavar="REPORT.json", help="write a JSON report here")
    anon.add_argument("--sep", help="separator of INPUT (sniffed by default) and OUT")
    anon.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")

    hier = commands.add_parser("hierarchy", help="inspect hierarchies")
    hier_commands = hier.add_subparsers(dest="hierarchy_command", metavar="SUBCOMMAND",
                                        required=True)
    show = hier_commands.add_parser("show", help="draw a hierarchy file as text or DOT",
                                    description="Draw an ARX-format hierarchy CSV: one line "
                                    "per node with level, leaf count and MAGVal mark, or "
                                    "Graphviz DOT.")
    show.add_argument("file", metavar="FILE")
    show.add_argument("--format", choices=("text", "dot"), default="text")
    show.add_argument("--ascii", action="store_true", help="text without box characters")
    show.add_argument("--sep", help="cell separator (sniffed by default)")
    show.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")

    commands.add_parser("algorithms", help="list the registered algorithms",
                        description="List the registered algorithms and what they declare.")
    return parser


# ---------------------------------------------------------------- commands
_FIRST_METRICS = ("loss", "gcp", "ncp", "discernibility", "cavg")


def _metric_lines(metrics):
    """One line per metric, the ones of the issue first: name, value, direction, formula."""
    names = [n for n in _FIRST_METRICS if n in metrics]
    names += sorted(n for n in metrics if n not in names)
    width = max(len(name) for name in names)
    lines = []
    for name in names:
        info = get_metric(name)
        better = "lower" if info.lower_is_better else "higher"
        text = info.description.replace("``", "")
        lines.append(f"  {name:<{width}}  {metrics[name]:>12.6g}  {better:<6}  {text}")
    return lines


def _frame_text(frame):
    with pd.option_context("display.width", 200, "display.max_columns", 50,
                           "display.max_colwidth", 30):
        return frame.to_string()


def _demo(args, out):
    from . import datasets

    table = datasets.make_census(args.n, seed=args.seed)
    schema = datasets.census_schema()
    res = anonymize(table, schema, k=args.k, algorithm=args.algorithm)
    rows = max(args.rows, 0)
    qis = ", ".join(schema.quasi_identifiers)
    print(f"Synthetic census table: {len(table)} rows (seed {args.seed}), "
          f"quasi-identifiers {qis}.", file=out)
    print(f"Anonymized with {res.algorithm} at k={res.k} in {res.stats['seconds']:.2f} s: "
          f"{res.verification.describe()}.", file=out)
    if res.levels is not None:
        print("Generalization levels (level/height): " + ", ".join(
            f"{a} {l}/{schema.hierarchy(a).height}" for a, l in res.levels.items()), file=out)
    print(f"\nReleased table (first {rows} of {len(res.table)} rows):", file=out)
    print(_frame_text(res.table.head(rows)), file=out)
    summary = res.class_summary()
    sizes = summary["size"]
    print(f"\nEquivalence classes: {len(summary)}, sizes {sizes.min()} to {sizes.max()} "
          f"(the {min(rows, len(summary))} largest):", file=out)
    print(_frame_text(summary.head(rows)), file=out)
    print("\nInformation loss (better: lower/higher; see docs/metrics.md):", file=out)
    print("\n".join(_metric_lines(res.metrics)), file=out)
    return 0


def _schema_from_args(args):
    hierarchies = load_hierarchies(args.hierarchies) if args.hierarchies else {}
    if args.schema:
        return Schema.from_file(args.schema, hierarchies=hierarchies)
    sensitive = [args.sensitive] if args.sensitive else []
    return Schema(quasi_identifiers=args.qi, sensitive=sensitive,
                  identifiers=args.identifiers,
                  hierarchies={c: h for c, h in hierarchies.items() if c in args.qi})


def _check_writable(path, what):
    parent = Path(path).resolve().parent
    if not parent.is_dir():
        raise _DataProblem(f"cannot write the {what} {str(path)!r}: folder {str(parent)!r} "
                           f"does not exist")


class _DataProblem(ValueError):
    """A problem with files given on the command line (exit code 1)."""


def _anonymize(args, out):
    _check_writable(args.output, "output")
    if args.report:
        _check_writable(args.report, "report")
    if (args.l is not None or args.t is not None) and args.qi and not args.sensitive:
        raise _UsageError("--l and --t need --sensitive COL when the schema is given by --qi")
    table = read_table(args.input, sep=args.sep)
    schema = _schema_from_args(args)
    options = dict(args.option)
    res = anonymize(table, schema, k=args.k, algorithm=args.algorithm, l=args.l,
                    diversity=args.diversity, c=args.c, t=args.t, sensitive=args.sensitive,
                    suppression=args.suppression, missing=args.missing, seed=args.seed,
                    respect_boundaries=True if args.respect_boundaries else None, **options)
    write_table(res.table, args.output, sep=args.sep or ",")
    parameters = {
        "input": str(args.input), "output": str(args.output), "schema": args.schema,
        "hierarchies": args.hierarchies, "quasi_identifiers": list(schema.quasi_identifiers),
        "sensitive": list(schema.sensitive), "identifiers": list(schema.identifiers),
        "hierarchy_heights": {c: h.height for c, h in schema.hierarchies.items()
                              if c in schema.quasi_identifiers},
        "k": args.k, "algorithm": args.algorithm, "l": args.l, "diversity": args.diversity,
        "c": args.c, "t": args.t, "suppression": args.suppression, "missing": args.missing,
        "seed": args.seed, "respect_boundaries": args.respect_boundaries, "options": options,
    }
    if args.report:
        write_json(result_report(res, parameters=parameters), args.report)
    if not args.quiet:
        print(res.summary(), file=out)
        written = f"wrote {args.output} ({len(res.table)} rows)"
        print(written + (f" and {args.report}" if args.report else ""), file=out)
    return 0


def _hierarchy_show(args, out):
    h = read_hierarchy(args.file, sep=args.sep)
    text = (hierarchy_text(h, ascii=args.ascii) if args.format == "text"
            else "\n".join(hierarchy_dot(h)))
    if args.output:
        _check_writable(args.output, "output")
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    else:
        print(text, file=out)
    return 0


def _algorithms(args, out):
    rows = []
    for name in algorithms():
        info = get_algorithm(name)
        options = ", ".join(info.options()) or "-"
        yes_no = ["yes" if flag else "no" for flag in
                  (info.supports_suppression, getattr(info, "supports_boundaries", False))]
        rows.append((name, info.recoding, "required" if info.needs_hierarchies else "optional",
                     *yes_no, options, info.description))
    header = ("name", "recoding", "hierarchies", "suppression", "boundaries", "options",
              "description")
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header) - 1)]
    for row in [header] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1], file=out)
    return 0


def _load_plugin(spec):
    """Import a plugin given as a ``.py`` path or a module name (once per process)."""
    import importlib
    import importlib.util

    if spec.endswith(".py"):
        path = Path(spec).resolve()
        if not path.is_file():
            raise _DataProblem(f"plugin file {spec!r} does not exist")
        for module in list(sys.modules.values()):  # already imported (e.g. by the caller)
            known = getattr(module, "__file__", None)
            if known and Path(known).resolve() == path:
                return
        name = f"kanon_graph_plugin_{path.stem.replace('-', '_')}_{abs(hash(str(path)))}"
        module_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        try:
            module_spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        return
    try:
        importlib.import_module(spec)
    except ModuleNotFoundError as exc:
        raise _DataProblem(f"plugin module {spec!r} cannot be imported: {exc}") from None


_COMMANDS = {"demo": _demo, "anonymize": _anonymize, "algorithms": _algorithms,
             ("hierarchy", "show"): _hierarchy_show}


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
    try:
        args = build_parser().parse_args(argv)
        for plugin in args.plugin:
            _load_plugin(plugin)
        key = args.command if args.command != "hierarchy" else ("hierarchy",
                                                                 args.hierarchy_command)
        return _COMMANDS[key](args, out)
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    except _UsageError as exc:
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
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
