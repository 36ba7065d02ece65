"""``kanon-graph evaluate``: privacy checks and metrics of any released table."""

from __future__ import annotations

import contextlib
import sys

import numpy as np

from ..api import evaluate
from ..io import read_table, write_json
from ..io._escaped import unescaped_formulas
from ..io.release import order_of
from ._common import (PROG, Progress, UsageError, add_encoding_argument, add_schema_arguments,
                      encoding_of, metric_lines, read_input, schema_from_args, unshuffle_hint)
from ._dask_input import is_many, quiet_dask_logs, read_dask_table, unshuffle_dask
from ._outputs import Output, add_unshuffle_argument, check_outputs
from .anonymize import add_privacy_arguments, check_sensitive




def register(commands):
    ev = commands.add_parser(
        "evaluate", help="check and measure a released table (ours or another tool's)",
        description="Measure a released table against its original: k, l and t achieved "
        "(judged from RELEASED's own cells, its sensitive column included), "
        "prosecutor risk, suppressed rows (all quasi-identifiers '*') and every registered "
        "metric. Released cells are read as hierarchy labels, or for columns without a "
        "hierarchy as ranges [lo-hi], value sets {a,b} or single values. The two files must "
        "hold the same records in the same order: a release of 'kanon-graph anonymize' is "
        "shuffled, so pass --unshuffle REPORT.json (the run's report) or the order seed it holds "
        "(or anonymize with --keep-order).")
    ev.add_argument("original", metavar="ORIGINAL.csv")
    ev.add_argument("released", metavar="RELEASED.csv")
    add_schema_arguments(ev, encoding="of ORIGINAL (RELEASED: --released-encoding)")
    add_encoding_argument(ev, "--released-encoding", what="of RELEASED (anonymize writes "
                          "UTF-8)")
    ev.add_argument("-k", type=int, default=2, help="the k to check (default 2)")
    add_privacy_arguments(ev)
    ev.add_argument("--target", metavar="COLUMN",
                    help="a class column of ORIGINAL: also compute the metrics that need a "
                    "target (classification_accuracy, classification_f1; needs scikit-learn, "
                    "pip install -e '.[ml]')")
    ev.add_argument("--missing", choices=("error", "drop", "keep"), default="error",
                    help="rows of ORIGINAL with a missing quasi-identifier or sensitive "
                    "value: fail (default), leave them out as 'anonymize --missing drop' "
                    "did (RELEASED then holds the other rows), or keep them as "
                    "'anonymize --missing keep' did")
    ev.add_argument("--report", metavar="REPORT.json", help="write the measures as JSON")
    ev.add_argument("--check", action="store_true",
                    help="exit with code 3 when a requested criterion does not hold")
    ev.add_argument("--engine", choices=("pandas", "dask"), default="pandas",
                    help="dask: ORIGINAL and RELEASED are folders or globs of Parquet / CSV "
                    "files, row-aligned partition by partition, counted without collecting "
                    "the records (needs kanon_graph[dask])")
    ev.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler "
                    "(tcp://host:8786) for --engine dask, or 'local' to start a "
                    "LocalCluster of worker processes; default: threads in this process")
    add_unshuffle_argument(ev)
    ev.add_argument("-q", "--quiet", action="store_true", help="print nothing, no progress "
                    "(with --check, a failed check's one line on stderr)")
    ev.set_defaults(handler=run)


def run(args, out):
    outputs = [Output("--report", args.report)] if args.report else []
    check_outputs([("ORIGINAL", args.original), ("RELEASED", args.released)], outputs)
    check_sensitive(args)
    progress = Progress(args.quiet)
    dask = args.engine == "dask"
    many = [p for p in (args.original, args.released) if is_many(p)]
    if many and not dask:
        raise UsageError(f"{many[0]!r} is a folder or glob: add --engine dask")
    cluster = contextlib.nullcontext()
    if dask:
        from ..scale import client_for

        quiet_dask_logs()
        cluster = client_for(args.scheduler, where="kanon-graph evaluate --engine dask")
    try:
        with cluster:       # on --engine dask, evaluate counts on this Client
            if dask:
                progress.phase(f"reading {args.original} and {args.released} lazily")
                schema = schema_from_args(args)
                original = read_dask_table(args.original, args.sep, schema=schema, args=args,
                                           encoding=encoding_of(args))
                released = read_dask_table(args.released, args.sep,
                                           encoding=encoding_of(args, "released_encoding"))
                if args.unshuffle is not None:
                    released = unshuffle_dask(released, args.unshuffle, original)
            else:
                original, schema, _ = read_input(args, progress, args.original)
                released = read_table(args.released, sep=args.sep,
                                      encoding=encoding_of(args, "released_encoding"))
                # a quasi-identifier's cell written '=1+1 by --escape-formulas reads as =1+1
                released = unescaped_formulas(released, original, schema)
                if args.unshuffle is not None:
                    back = np.argsort(order_of(len(released), args.unshuffle))
                    released = released.iloc[back].reset_index(drop=True)
            progress.phase("evaluating")
            with unshuffle_hint(args):
                ev = evaluate(original, released, schema, k=args.k, l=args.l,
                              diversity=args.diversity, c=args.c, t=args.t,
                              sensitive=args.sensitive, target=args.target,
                              missing=args.missing)
    finally:
        progress.close()
    summary = ev.as_dict()
    if args.report:
        summary["parameters"] = {"original": str(args.original), "released": str(args.released),
                                 "schema": args.schema, "hierarchies": args.hierarchies,
                                 "quasi_identifiers": list(schema.quasi_identifiers),
                                 "k": args.k, "l": args.l, "diversity": args.diversity,
                                 "c": args.c, "t": args.t, "sensitive": args.sensitive,
                                 "target": args.target, "missing": args.missing,
                                 "encoding": encoding_of(args),
                                 "released_encoding": encoding_of(args, "released_encoding"),
                                 "engine": args.engine, "unshuffle": args.unshuffle,
                                 "scheduler": args.scheduler}
        write_json(summary, args.report)
    if not args.quiet:
        classes = summary["classes"]
        print(f"{summary['records']} records: {summary['released']} released in "
              f"{classes['count']} equivalence classes (sizes {classes['min']} to "
              f"{classes['max']}), {summary['suppressed']} suppressed", file=out)
        if ev.dropped:
            print(f"{ev.dropped} row(s) of the original with a missing value were left out",
                  file=out)
        print(ev.verification.describe(), file=out)
        print(f"prosecutor risk: highest {ev.risk['highest']:.4g}, "
              f"average {ev.risk['average']:.4g}", file=out)
        if ev.levels is not None:
            print("levels: " + ", ".join(f"{a}={v}" for a, v in ev.levels.items()), file=out)
        print("metrics:", file=out)
        print("\n".join(metric_lines(ev.metrics)), file=out)
        if args.report:
            print(f"wrote {args.report}", file=out)
    failed = args.check and not ev.verification.holds
    if failed and args.quiet:          # quiet, but the one line that says what failed
        print(f"{PROG}: evaluate --check: {ev.verification.describe()}", file=sys.stderr)
    return 3 if failed else 0
