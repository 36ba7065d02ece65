"""What the command line alone can tell, checked before a file's rows are read.

The named columns against the file's header (with the closest name when one
is close), a named algorithm that needs hierarchies against the declared
columns that have none, and ``k`` against an upper bound on the row count
counted on the file's bytes (its line breaks: issue 47 item 2), then against
the row count once it is read (issue 46 item 10: a mistake costs the header,
not the file).
"""

from __future__ import annotations

import difflib

from ._parser import DataProblem

__all__ = ["check_k_bound", "check_k_rows", "check_hierarchies", "check_header_columns",
           "check_columns"]


def check_k_bound(k, path, files, encoding, sep=None):
    """``k`` above an upper bound on the records of ``files`` (the input ``path``'s):
    a one-line error before any row is read (None: no k, or no bound).

    The bound is :func:`kanon_graph.io.bounds.records_bound`: line breaks
    counted on the bytes (a quoted line break only over-counts), a Parquet
    file's footer. A ``k`` at or below it is checked again against the rows
    read (:func:`check_k_rows`). A broken header (a duplicate or empty name,
    a bad byte) is the more basic mistake: each CSV file's header is read
    first and its own error comes first, as it would from the reader.
    """
    if k is None:
        return
    from ..io.bounds import records_bound
    from ..io.read import is_parquet, read_header

    bound = records_bound(files, encoding)
    if bound is not None and k > bound:
        for file in files:
            if not is_parquet(file):
                read_header(file, sep=sep, encoding=encoding)
        if bound == 0:
            raise DataProblem(_no_records(path))
        parquet = all(str(f).lower().endswith((".parquet", ".pq")) for f in files)
        how = (("the Parquet footer" if parquet else "the line breaks after the header")
               + (" of each file" if len(files) > 1 else ""))
        raise DataProblem(f"The 'k' parameter of anonymize (-k) must be an integer in "
                          f"[1, {bound}] (the number of records in {str(path)!r} is at most "
                          f"{bound}, counted by {how} before reading it). Got {k}.")


def check_k_rows(k, rows, path):
    """``k`` above the file's row count: a one-line error before any work (None: no k)."""
    if rows == 0:
        raise DataProblem(_no_records(path))
    if k is not None and k > rows:
        raise DataProblem(f"The 'k' parameter of anonymize (-k) must be an integer in "
                          f"[1, {rows}] (the number of records in {str(path)!r}). Got {k}.")


def _no_records(path):
    return (f"{str(path)!r} has no records (a header and nothing after it): there is "
            f"nothing to anonymize")


def check_hierarchies(schema, args):
    """A named algorithm that needs hierarchies, and a declared QI with none: refused early.

    A declared (numeric, date or categorical) column gets no inferred
    hierarchy, so the run would fail after reading the whole file.
    """
    from ..registry import get_algorithm

    if args.algorithm == "auto":
        return
    try:    # the named algorithm's module alone (every algorithm's would load scipy & co.)
        info = get_algorithm(args.algorithm)
    except ValueError:                  # unknown: the run names the known ones
        return
    if info.needs_hierarchies:
        declared = set(schema.numeric) | set(schema.dates) | set(schema.categorical)
        lacking = [c for c in schema.quasi_identifiers
                   if c in declared and schema.hierarchy(c) is None]
        if lacking:
            where = f"in --hierarchies {args.hierarchies}" if args.hierarchies else \
                "(no --hierarchies)"
            raise DataProblem(f"--algorithm {args.algorithm} needs a hierarchy for every "
                              f"quasi-identifier; none is given {where} for {lacking} (declared "
                              f"numeric, date or categorical, so none is inferred): add "
                              f"<column>.csv files, or draft them with 'kanon-graph "
                              f"hierarchy suggest'")


def _schema_flag(args, column, schema):
    if args.schema:
        return f"--schema {args.schema}"
    if column in schema.quasi_identifiers:
        return "--qi"
    return "--sensitive" if column in schema.sensitive else "--identifiers"


def check_columns(schema, args, text):
    check_header_columns(schema, args, list(text.frame.columns), text.path)


def check_header_columns(schema, args, header, path):
    """Every column the command line or the schema names is in ``header`` (the file's).

    The error names the flag, the column, the file, the closest column
    name when one is close, and the file's columns.
    """
    named = (list(schema.quasi_identifiers) + list(schema.sensitive) + list(schema.identifiers)
             + list(schema.insensitive or ()))
    for column in named:
        if column not in header:
            close = difflib.get_close_matches(column, [str(c) for c in header], n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise DataProblem(f"{_schema_flag(args, column, schema)} names column {column!r}, "
                              f"which is not in {str(path)!r}{hint}; its columns are "
                              f"{list(header)}")
