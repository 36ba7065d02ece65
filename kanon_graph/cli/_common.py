"""What every command shares: the parser class, argument types, errors, plugins, progress.

Every user mistake ends the command with one line on stderr,
``kanon-graph: error: ...``, and exit code 1 (a wrong command line: 2).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from .._cells import is_text_column, missing_mask, parse_date, parse_number
from .._progress import TqdmBar
from ..hierarchy import load_hierarchies
from ..io import numeric_columns, read_input_table
from ..io._parquet import library_cells
from ..metrics import get_metric
from ..schema import Schema
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
                        help="columns of ISO 8601 dates (1944-12-14): measured in days, "
                        "released as date intervals [first, last]")
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
    if args.schema:
        schema = Schema.from_file(args.schema, hierarchies=hierarchies)
        extra = [c for c in given if c not in schema.dates]
        more = [c for c in flat if c not in schema.categorical]
        return dataclasses.replace(schema, dates=tuple(schema.dates) + tuple(extra),
                                   categorical=tuple(schema.categorical) + tuple(more)) \
            if extra or more else schema
    sensitive = getattr(args, "sensitive", None)
    return Schema(quasi_identifiers=args.qi, sensitive=[sensitive] if sensitive else [],
                  identifiers=args.identifiers, hierarchies=hierarchies, dates=given,
                  categorical=flat)


def read_input(args, progress, path=None):
    """``(table, schema, text)``: an input CSV read as text, ready for the library.

    ``path`` defaults to ``args.input``. Every cell stays the text of the file;
    in quasi-identifier and sensitive columns the empty cell (and each
    ``--na-values`` text) becomes missing. A quasi-identifier whose cells are
    all plain numbers is declared numeric in the schema (still given as text);
    a numeric sensitive column is given as exact numbers, so t-closeness
    orders it by value. ``text`` is the :class:`~kanon_graph.io.TextTable`
    (file lines for messages; the cells to write back unchanged).
    """
    path = args.input if path is None else path
    schema = schema_from_args(args)
    progress.phase(f"reading {path}")
    text = read_input_table(path, sep=args.sep, encoding=encoding_of(args))
    _check_columns(schema, args, text)
    checked = list(schema.quasi_identifiers) + list(schema.sensitive)
    table = _missing_as_nan(text, checked, args)
    undeclared = [c for c in checked if c not in schema.numeric and c not in schema.categorical
                  and c not in schema.dates]
    numeric = list(schema.numeric) + numeric_columns(table, undeclared)
    table = check_cells(table, text, schema, args, numeric)
    schema = dataclasses.replace(schema, numeric=numeric)
    give_back_free_memory()
    return table, schema, text


def give_back_free_memory():
    """Return the heap's free pages to the system (glibc's ``malloc_trim``; else nothing).

    Parsing a large file frees many small blocks between the columns it
    keeps; glibc holds them for reuse, so the resident set stays as high as
    the parse's peak. Called between phases (read, anonymize, write), the
    next phase starts from what is live, not from the last phase's peak.
    """
    global _TRIM
    if _TRIM is None:
        _TRIM = False
        if sys.platform.startswith("linux"):
            import ctypes
            import ctypes.util

            try:
                _TRIM = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
            except (OSError, AttributeError):     # not glibc (musl): nothing to give back
                _TRIM = False
    if _TRIM:
        _TRIM(0)


_TRIM = None


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


def check_cells(table, text, schema, args, numeric):
    """The pandas engine's cell rules, for one file (the Dask engine runs them per file).

    Infinite numbers become missing (``--missing drop``) or an error; then
    the first missing cell, the first non-number of a ``numeric`` column and
    the first non-date of a ``--dates`` column are errors naming the file
    and line (row for Parquet). Returns ``table`` (inf cells as NaN).
    """
    checked = list(schema.quasi_identifiers) + list(schema.sensitive)
    for column in checked:
        if column in numeric:
            table = _check_infinite(table, column, args, text)
    _check_missing(table, checked, args, text)
    for column in checked:
        if column in numeric:
            _check_numbers(table[column], column, args, text)
        elif column in schema.dates:
            _check_dates(table[column], column, text)
    return floats_as_text(table, schema.quasi_identifiers)


def floats_as_text(table, columns):
    """Typed float quasi-identifiers (Parquet) as the text a CSV file would hold.

    ``74.0`` becomes ``"74.0"`` (``str`` of the float, as pandas writes CSV),
    so a release labels it ``[64.3-74.0]`` from a Parquet file exactly as
    from the same table in CSV; missing cells stay missing.
    """
    for column in columns:
        series = table[column]
        if pd.api.types.is_float_dtype(series.dtype):
            table = table.copy()
            values = series.to_numpy(dtype=float)
            text = np.array([str(v) for v in values.tolist()], dtype=object)
            text[np.isnan(values)] = np.nan
            table[column] = pd.Series(text, index=series.index, dtype=object)
    return table


def _check_infinite(table, column, args, text):
    """``inf`` / ``-inf`` in a typed numeric column: an error, or missing with --missing drop."""
    series = table[column]
    if is_text_column(series) or not pd.api.types.is_float_dtype(series.dtype):
        return table
    mask = np.isinf(series.to_numpy(dtype=float))
    if not mask.any():
        return table
    if getattr(args, "missing", "error") in ("drop", "ignore"):
        table = table.copy()
        table[column] = series.where(~mask, np.nan)
        return table
    row = int(np.flatnonzero(mask)[0])
    raise DataProblem(f"{text.where(row)}: column {column!r} holds {series.iloc[row]!r}, an "
                      f"infinite number ({int(mask.sum())} in the column); a numeric "
                      f"quasi-identifier needs finite numbers: fix them, or pass --missing "
                      f"drop to drop such rows as missing")


def _schema_flag(args, column, schema):
    if args.schema:
        return f"--schema {args.schema}"
    if column in schema.quasi_identifiers:
        return "--qi"
    return "--sensitive" if column in schema.sensitive else "--identifiers"


def _check_columns(schema, args, text):
    named = (list(schema.quasi_identifiers) + list(schema.sensitive) + list(schema.identifiers)
             + list(schema.insensitive or ()))
    for column in named:
        if column not in text.frame.columns:
            raise DataProblem(f"{_schema_flag(args, column, schema)} names column {column!r}, "
                              f"which is not in {str(text.path)!r}; its columns are "
                              f"{list(text.frame.columns)}")


def _check_missing(table, columns, args, text):
    """Name the first missing cell, with its line (the library's rule: NaN only).

    Only the empty cell and the ``--na-values`` texts became NaN on the way
    in, so ``?`` or a blank cell is a value, here as in the library.
    """
    for column in columns:
        mask = missing_mask(table[column])
        if not mask.any() or getattr(args, "missing", "error") in ("drop", "keep", "ignore"):
            continue
        row = int(np.flatnonzero(mask)[0])
        how = ("or pass --missing drop to drop such rows (--missing keep keeps them, a "
               "missing cell as a value of its own)" if hasattr(args, "missing")
               else "('anonymize' and 'evaluate' can drop such rows with --missing drop, or "
               "keep them with --missing keep)")
        raise DataProblem(
            f"{text.where(row)}: column {column!r} has a missing value "
            f"{text.frame[column].iloc[row]!r} ({int(mask.sum())} in the column; missing is "
            f"the empty cell or a --na-values text); fill them {how}")


def _check_numbers(series, column, args, text):
    """Name the first cell of a numeric column that is no number, with its line."""
    if not is_text_column(series):
        return                          # a typed (Parquet) column: the library checks it
    present = ~pd.isna(series).to_numpy()
    for value in pd.unique(series[present]):
        if parse_number(value) is None:
            row = int(np.flatnonzero(present & (series == value).to_numpy())[0])
            declared = (f"declared numeric in {args.schema}" if args.schema
                        else "numeric")
            raise DataProblem(f"{text.where(row)}: column {column!r} is {declared} but holds "
                              f"{value!r}, which is not a number")


def _check_dates(series, column, text):
    """Name the first cell of a --dates column that is no ISO 8601 date, with its line."""
    present = ~pd.isna(series).to_numpy()
    for value in pd.unique(series[present]):
        if parse_date(value) is None:
            row = int(np.flatnonzero(present & (series == value).to_numpy())[0])
            raise DataProblem(f"{text.where(row)}: column {column!r} is a date column "
                              f"(--dates) but holds {value!r}, which is not an ISO 8601 date "
                              f"(YYYY-MM-DD)")


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
