"""What every command shares: the parser class, argument types, errors, plugins, progress.

Every user mistake ends the command with one line on stderr,
``kanon-graph: error: ...``, and exit code 1 (a wrong command line: 2).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..cells.kinds import is_iso_date_column, is_text_column, parse_date
from ..cells.date_text import check_date_format
from .._progress import TqdmBar
from ..hierarchy import load_hierarchies
from ..io import numeric_columns, read_header, read_input_table
from ..io._parquet import library_cells
from ..metrics import get_metric
from ..schema import Schema
from ._before_reading import (check_columns as _check_columns,  # noqa: F401
                              check_header_columns, check_hierarchies, check_k_rows)
from ._check_cells import (_check_missing, check_cells, floats_as_text,  # noqa: F401
                           not_a_date)
from ._memory import give_back_free_memory  # noqa: F401  (re-exported)
from ._parser import (PROG, DataProblem, Parser, UsageError,  # noqa: F401  (re-exported)
                      add_encoding_argument, encoding_of, unshuffle_hint)

def csv_list(text):
    """``a,b,c`` -> ``['a', 'b', 'c']``."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise argparse.ArgumentTypeError("expected a comma-separated list")
    return items


def int_list(text):
    """``2,5,10`` -> ``[2, 5, 10]``."""
    try:
        return [int(item) for item in csv_list(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") \
            from None


def fraction(text):
    """A number in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value


def option(text):
    """``NAME=VALUE`` with the value read as a YAML scalar."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    import yaml

    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError:
        parsed = value
    return name.strip(), parsed if parsed is not None else value


def date_format(text):
    """``COL=FORMAT`` -> ``(COL, FORMAT)``; ``FORMAT`` alone -> ``(None, FORMAT)``."""
    column, sep, fmt = text.partition("=")
    if not sep or "%" in column:
        column, fmt = None, text
    try:
        check_date_format(fmt.strip(), column, "--date-format")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).partition(": ")[2]) from None
    return (column.strip() if column else None), fmt.strip()


def add_schema_arguments(parser, *, sensitive=True, encoding="of the CSV data files"):
    """``--schema | --qi``, ``--hierarchies``, ``--identifiers`` (and ``--sensitive``),
    ``--sep``, ``--encoding`` (its help says whose: ``encoding``), ``--na-values``."""
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--schema", metavar="SCHEMA.yaml", help="a YAML or JSON schema file")
    who.add_argument("--qi", type=csv_list, metavar="COL,COL",
                     help="the quasi-identifiers, comma-separated")
    parser.add_argument("--hierarchies", metavar="DIR", help="folder of ARX-format hierarchy "
                        "CSVs named <column>.csv or *_hierarchy_<column>.csv")
    parser.add_argument("--identifiers", type=csv_list, default=[], metavar="COL,COL",
                        help="columns to drop from the release (with --qi)")
    parser.add_argument("--dates", type=csv_list, default=[], metavar="COL,COL",
                        help="date columns (1944-12-14, 13/03/1961, ...; such columns are "
                        "dates anyway when their cells tell the day from the month): "
                        "measured in days, released as date intervals [first, last] "
                        "without a hierarchy")
    parser.add_argument("--date-format", type=date_format, action="append", default=[],
                        metavar="[COL=]FORMAT",
                        help="the format of a date column's text, such as %%d/%%m/%%Y or "
                        "%%m/%%d/%%Y (COL=FORMAT for one column, a date column then; FORMAT "
                        "alone for every column of such text); needed when every cell "
                        "could be read either way (01/02/1970)")
    parser.add_argument("--categorical", type=csv_list, default=[], metavar="COL,COL",
                        help="columns to keep as categories: ISO date text and zero-padded "
                        "digit codes are otherwise inferred as dates and masked codes")
    if sensitive:
        parser.add_argument("--sensitive", metavar="COL", help="the sensitive column")
    parser.add_argument("--sep", help="cell separator of the CSV files (sniffed by default)")
    add_encoding_argument(parser, what=encoding)
    parser.add_argument("--na-values", type=csv_list, default=[], metavar="TEXT,TEXT",
                        help="cells that stand for a missing value besides the empty cell "
                        "(default: only the empty cell; 'NA', 'null', ... are data)")


def schema_from_args(args):
    """The Schema of ``--schema`` or ``--qi`` (+ ``--hierarchies``)."""
    qis = Schema.from_file(args.schema).quasi_identifiers if args.schema else args.qi
    # only the quasi-identifiers' files: the folder may also hold the data table
    hierarchies = (load_hierarchies(args.hierarchies, columns=qis, missing="ignore")
                   if args.hierarchies else {})
    given = list(getattr(args, "dates", None) or ())
    flat = list(getattr(args, "categorical", None) or ())
    formats = dict(getattr(args, "date_format", None) or ())
    anywhere = formats.pop(None, None)       # FORMAT alone: read_input finds its columns
    if args.schema:
        schema = Schema.from_file(args.schema, hierarchies=hierarchies)
        extra = [c for c in given if c not in schema.dates]
        more = [c for c in flat if c not in schema.categorical]
        schema = dataclasses.replace(schema, dates=tuple(schema.dates) + tuple(extra),
                                     categorical=tuple(schema.categorical) + tuple(more),
                                     date_formats={**schema.date_formats, **formats})
    else:
        sensitive = getattr(args, "sensitive", None)
        schema = Schema(quasi_identifiers=args.qi, sensitive=[sensitive] if sensitive else [],
                        identifiers=args.identifiers, hierarchies=hierarchies, dates=given,
                        categorical=flat, date_formats=formats)
    if anywhere is not None:                 # every declared date column without its own
        schema = dataclasses.replace(schema, date_formats={
            **{c: anywhere for c in schema.dates}, **schema.date_formats})
    _check_date_formats(args, schema)
    return schema


def _check_date_formats(args, schema):
    """One ``--date-format`` per column, each naming a quasi-identifier or the sensitive column."""
    given = {}
    for column, fmt in getattr(args, "date_format", None) or ():
        if column in given and given[column] != fmt:
            which = f"column {column!r}" if column else "every column (FORMAT alone)"
            raise DataProblem(f"--date-format is given twice for {which}: {given[column]!r} "
                              f"and {fmt!r}; give one")
        given[column] = fmt
    used = list(schema.quasi_identifiers) + list(schema.sensitive)
    for column in given:
        if column is not None and column not in used:
            raise DataProblem(f"--date-format names column {column!r}, which is neither a "
                              f"quasi-identifier nor the sensitive column ({', '.join(used)})")


def read_input(args, progress, path=None, *, k=None, check=None):
    """``(table, schema, text)``: an input CSV read as text, ready for the library.

    ``path`` defaults to ``args.input``. Every cell stays the text of the file;
    in quasi-identifier and sensitive columns the empty cell (and each
    ``--na-values`` text) becomes missing. A quasi-identifier whose cells are
    all plain numbers is declared numeric in the schema (still given as text);
    a sensitive column of numbers is left undeclared: the library infers it
    numeric by the same rule (t-closeness orders it by value) and says so.
    ``text`` is the :class:`~kanon_graph.io.TextTable`
    (file lines for messages; the cells to write back unchanged).

    What the command line alone can tell is checked before the rows are read:
    the named columns against the file's header (:func:`check_header_columns`);
    ``k`` (when given) against the row count as soon as it is known, before
    any cell is checked or encoded (:func:`check_k_rows`); ``check(schema)``,
    when given, runs before the rows are read too.
    """
    path = args.input if path is None else path
    header = read_header(path, sep=args.sep, encoding=encoding_of(args))
    if header is not None and not args.schema:     # --qi: before the hierarchy files
        sensitive = getattr(args, "sensitive", None)
        check_header_columns(Schema(quasi_identifiers=args.qi, identifiers=args.identifiers,
                                    sensitive=[sensitive] if sensitive else []),
                             args, header, path)
    schema = schema_from_args(args)
    if header is not None:
        check_header_columns(schema, args, header, path)
    if check is not None:
        check(schema)
    progress.phase(f"reading {path}")
    text = read_input_table(path, sep=args.sep, encoding=encoding_of(args))
    _check_columns(schema, args, text)
    check_k_rows(k, len(text.frame), path)
    checked = list(schema.quasi_identifiers) + list(schema.sensitive)
    table = _missing_as_nan(text, checked, args)
    undeclared = [c for c in checked if c not in schema.numeric and c not in schema.categorical
                  and c not in schema.dates]
    numeric = list(schema.numeric) + numeric_columns(table, undeclared)
    schema = _formatted_dates(schema, table, undeclared, numeric, args)
    table = check_cells(table, text, schema, args, numeric)
    # an undeclared sensitive column of numbers stays undeclared: the library infers it
    # numeric by the same rule, and says that t then takes the ordered distance
    schema = dataclasses.replace(schema, numeric=[c for c in numeric if c in schema.numeric
                                                  or c not in schema.sensitive])
    give_back_free_memory()
    return table, schema, text


def _formatted_dates(schema, table, undeclared, numeric, args):
    """``--date-format FORMAT`` alone: each undeclared column of text in it is a date in it."""
    anywhere = dict(getattr(args, "date_format", None) or ()).get(None)
    if anywhere is None:
        return schema
    found = {}
    for column in undeclared:
        if column in numeric or not is_text_column(table[column]):
            continue
        cells = pd.unique(table[column].dropna())
        if len(cells) and all(isinstance(c, str) and parse_date(c, anywhere) is not None
                              for c in cells) and not is_iso_date_column(table[column]):
            found[column] = anywhere
    return dataclasses.replace(schema, date_formats={**found, **schema.date_formats}) \
        if found else schema


@contextlib.contextmanager
def warnings_of(command, called="evaluate"):
    """Within, a library warning or error that names the function ``called`` names ``command``.

    ``kanon-graph report`` measures through :func:`kanon_graph.evaluate`, whose
    warnings and errors start ``evaluate:``; the command line says ``report:``.
    """
    shown = warnings.showwarning
    lead = f"{called}: "

    def show(message, category, *rest, **kwargs):
        text = str(message)
        if text.startswith(lead):
            message = f"{command}: {text[len(lead):]}"
        shown(message, category, *rest, **kwargs)

    with warnings.catch_warnings():
        warnings.showwarning = show
        try:
            yield
        except ValueError as exc:
            if not str(exc).startswith(lead):
                raise
            raise type(exc)(f"{command}: {str(exc)[len(lead):]}") from None




def _missing_as_nan(text, columns, args):
    """The file's cells, with the empty cell (CSV) and each ``--na-values`` text as NaN."""
    missing = set(getattr(args, "na_values", None) or ())
    if not text.typed:                 # in a CSV file the empty cell is missing too
        missing.add("")
    table = text.frame.copy(deep=False)   # copy-on-write: only the changed columns are new
    for column in columns:
        table[column] = library_cells(table[column])   # Parquet's exact floats: NaN missing
        mask = table[column].isin(missing)
        if mask.any():
            table[column] = table[column].where(~mask, np.nan)
    return table


def check_writable(path, what, *, inputs=(), kind="file"):
    """Fail early (before a long run) when ``path`` cannot be written.

    Its folder must exist and be writable, ``path`` must not be a folder
    (unless ``kind="files"``: a folder to write files into), nor one of the
    ``inputs`` (``(flag, path)`` pairs); see
    :func:`kanon_graph.cli._outputs.check_outputs`.
    """
    from ._outputs import Output, check_outputs

    flag = {"output": "-o", "report": "--report", "plot": "--plot"}.get(what, what)
    check_outputs(list(inputs), [Output(flag, path, kind)])


_FIRST_METRICS = ("loss", "gcp", "ncp", "discernibility", "cavg")


def ordered_metrics(metrics):
    """Metric names, the usual ones first."""
    names = [n for n in _FIRST_METRICS if n in metrics]
    return names + sorted(n for n in metrics if n not in names)


def metric_lines(metrics):
    """One line per metric: name, value, direction, formula."""
    names = ordered_metrics(metrics)
    width = max(len(name) for name in names)
    lines = []
    for name in names:
        info = get_metric(name)
        better = "lower" if info.lower_is_better else "higher"
        text = info.description.replace("``", "")
        lines.append(f"  {name:<{width}}  {metrics[name]:>12.6g}  {better:<6}  {text}")
    return lines


def frame_text(frame):
    """A DataFrame as wide text."""
    with pd.option_context("display.width", 200, "display.max_columns", 50,
                           "display.max_colwidth", 30):
        return frame.to_string()


def load_plugin(spec):
    """Import a plugin given as a ``.py`` path or a module name (once per process)."""
    import importlib
    import importlib.util

    if spec.endswith(".py"):
        path = Path(spec).resolve()
        if not path.is_file():
            raise DataProblem(f"plugin file {spec!r} does not exist")
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
        raise DataProblem(f"plugin module {spec!r} cannot be imported: {exc}") from None


class Progress(TqdmBar):
    """The command line's progress: a tqdm bar on stderr, shown only on a terminal.

    ``Progress(quiet)`` draws nothing when ``quiet`` or when the stream is not
    a terminal (piped, redirected, captured by tests); ``enabled=True``
    forces it. ``phase(text)`` shows what runs now with the time elapsed;
    ``step(done, total, text)`` (or calling it) moves the bar, so it can be
    passed to a library call's ``progress=``; ``close()`` clears the line.
    """

    def __init__(self, quiet: bool = False, *, stream=None, enabled=None):
        stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(stream, "isatty", None)
            enabled = not quiet and bool(isatty and isatty())
        super().__init__(stream, enabled=enabled, leave=False, prefix=PROG)
