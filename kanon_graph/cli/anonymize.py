"""``kanon-graph anonymize``: a CSV in, the released CSV and a JSON report out."""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path

import numpy as np

from ..api import anonymize
from ..io import is_parquet, result_report, write_json, write_table
from ..io._parquet import take_cells
from ..io.chunks import CHUNK_ROWS
from ..io.release import Publishable, fresh_order_seed, publishable
from ..io.write import atomic_file
from ..privacy import DIVERSITY_KINDS
from ._common import (Progress, UsageError, add_schema_arguments, check_hierarchies,
                      encoding_of, fraction, give_back_free_memory, option, read_input,
                      schema_from_args)
from ._before_reading import check_k_bound
from ._dask_input import _files as dask_input_files
from ._dask_input import is_many, quiet_dask_logs, read_dask_table, write_dask_table
from ._memory import arrow_on_system_heap
from ._outputs import Output, check_outputs
from ._parser import DataProblem, positive
from ._stream import count_tuples, run_counted, wants_stream
from ._stream_write import write_release


def add_privacy_arguments(parser):
    """``--l``, ``--diversity``, ``--c``, ``--t`` (the sensitive column is ``--sensitive``)."""
    parser.add_argument("--l", type=float, help="required l-diversity of --sensitive")
    parser.add_argument("--diversity", choices=DIVERSITY_KINDS, default="distinct")
    parser.add_argument("--c", type=float, default=1.0, help="c of recursive (c,l)-diversity")
    parser.add_argument("--t", type=fraction, help="required t-closeness of --sensitive")


def add_dp_arguments(parser):
    """``--epsilon``, ``--delta``, ``--search-budget``, ``--steps`` (``--algorithm safepub``)."""
    dp = parser.add_argument_group("differential privacy (--algorithm safepub)")
    dp.add_argument("--epsilon", type=float, help="epsilon of (epsilon, delta)-differential "
                    "privacy (default 1.0)")
    dp.add_argument("--delta", type=float, help="delta of (epsilon, delta)-differential "
                    "privacy (default 1e-5; keep it below 1 / the number of records)")
    dp.add_argument("--search-budget", type=float, metavar="EPSILON",
                    help="the part of epsilon the search spends (default 0.1)")
    dp.add_argument("--steps", type=int, help="steps of the search (default 300)")
    dp.add_argument("--withheld", choices=("drop", "star"),
                    help="records not released: left out of the output (drop, default: "
                    "(epsilon, delta)-DP for adding or removing one record), or written as "
                    "rows of '*' (star: every input row, so the count of records is "
                    "published too; see docs/algorithms/safepub.md for what that form "
                    "guarantees)")


DP_OPTIONS = ("epsilon", "delta", "search_budget", "steps", "withheld")


def dp_options(args):
    """The given DP flags as algorithm options; refused with an algorithm that takes none."""
    given = {n: getattr(args, n) for n in DP_OPTIONS if getattr(args, n) is not None}
    if given and args.algorithm != "safepub":
        flags = ", ".join("--" + n.replace("_", "-") for n in given)
        raise UsageError(f"{flags} {'is an option' if len(given) == 1 else 'are options'} of "
                         f"--algorithm safepub (differential privacy); --algorithm is "
                         f"{args.algorithm!r}")
    if args.algorithm == "safepub" and args.engine == "dask":
        raise UsageError("--algorithm safepub samples records one by one and needs the table "
                         "in memory: leave out --engine dask (the default engine reads the "
                         "input into memory)")
    if args.algorithm == "safepub" and args.k is not None:
        raise UsageError("--algorithm safepub derives k from --epsilon and --delta: leave -k out")
    if args.algorithm != "safepub" and args.k is None:
        raise UsageError("-k is required (except with --algorithm safepub)")
    return given


def check_sensitive(args):
    if (args.l is not None or args.t is not None) and args.qi and not args.sensitive:
        raise UsageError("--l and --t need --sensitive COL when the schema is given by --qi")


def register(commands):
    anon = commands.add_parser("anonymize", help="anonymize a CSV file",
                               description="Anonymize a CSV table and write the release "
                               "(and a JSON report).")
    anon.add_argument("input", metavar="INPUT.csv", help="the table: CSV with a header row, "
                      "or .parquet (needs the parquet extra, pyarrow); with --engine dask: a "
                      "folder or glob of Parquet or CSV files")
    add_schema_arguments(anon, encoding="of INPUT (the release is written as UTF-8)")
    anon.add_argument("-k", type=int, help="k of k-anonymity (required, except with "
                      "--algorithm safepub, which derives k from --epsilon and --delta)")
    anon.add_argument("--algorithm", default="auto", help="a registered algorithm (see "
                      "'kanon-graph algorithms'), or auto (default): without "
                      "--respect-boundaries, stepwise when every quasi-identifier "
                      "has a hierarchy (and the lattice is not huge; with --l and --t "
                      "too), flat when none has one (k alone); otherwise trials "
                      "of optimal, mondrian, sd and mst on up to "
                      "20,000 rows, the lowest ARX loss running; --engine dask runs "
                      "stepwise without trials (with --l too) on a lattice of at most "
                      "100,000 nodes, else optimal; it refuses a quasi-identifier without a "
                      "hierarchy. The summary says which ran and why")
    add_privacy_arguments(anon)
    add_dp_arguments(anon)
    anon.add_argument("--suppression", type=fraction, metavar="FRACTION",
                      help="fraction of records that may be suppressed")
    anon.add_argument("--respect-boundaries", action="store_true",
                      help="never generalize a value beyond its MAGVal (hierarchy marks)")
    anon.add_argument("--missing", choices=("error", "drop", "keep"), default="error",
                      help="rows with a missing quasi-identifier or sensitive value (the "
                      "empty cell, or a --na-values text): fail (default), drop and count "
                      "them, or keep them: a missing cell is a value of its own, released "
                      "as '(missing)' or generalized with the others")
    anon.add_argument("--seed", type=int, default=None,
                      help="seed for randomized algorithms (default 0, so a run is "
                      "reproducible; the seed used is in the report's parameters); "
                      "safepub, without --seed, reads the system's cryptographic source "
                      "and records nothing (a fixed seed is for tests only)")
    anon.add_argument("--centroid", choices=("mean", "median"),
                      help="--algorithm mdav: release each class's numeric values as their "
                      "mean (default) or median (shorthand for --option centroid=...)")
    anon.add_argument("--option", type=option, action="append", default=[],
                      metavar="NAME=VALUE", help="an option of the algorithm (repeatable)")
    anon.add_argument("--engine", choices=("pandas", "dask"), default="pandas",
                      help="dask: read the input lazily, count its distinct tuples on the "
                      "workers, anonymize them (stepwise, or a global algorithm) and write "
                      "the release partition by partition (needs kanon_graph[dask])")
    anon.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler "
                      "(tcp://host:8786), or 'local' to start a LocalCluster of worker "
                      "processes (default: threads in this process); also shards and "
                      "rv-distributed's subsets")
    anon.add_argument("--shard-size", type=int, metavar="N", help="run a local algorithm in "
                      "shards of at most N records (default: the whole table, unless "
                      "measured shards cost no quality; docs/large-data.md)")
    anon.add_argument("-o", "--output", required=True, metavar="OUT.csv",
                      help="the release: CSV, or Parquet for a .parquet name; with --engine "
                      "dask a folder (Parquet) or 'out/part-*.csv'")
    anon.add_argument("--report", metavar="REPORT.json", help="write a JSON report here")
    anon.add_argument("--keep-order", action="store_true",
                      help="write the rows in the input's order; risky: anyone who knows the "
                      "order of the original file (admission time, record number) can then "
                      "link released rows to people by position (default: rows shuffled "
                      "in an order drawn fresh each run)")
    anon.add_argument("--order-seed", type=int, metavar="N",
                      help="seed of the written row order (default: drawn fresh from the "
                      "system's randomness, so nobody can predict it). The seed used is in the "
                      "report's publication.order_seed, which undoes the order: keep the report "
                      "to yourself. A fixed N is for tests and reproductions only")
    anon.add_argument("--escape-formulas", action="store_true",
                      help="write cells a spreadsheet would run as a formula (starting with "
                      "=, +, -, @, tab or carriage return; not plain numbers) with a leading "
                      "' (they are counted in the summary and report either way)")
    anon.add_argument("--stream", choices=("auto", "on", "off"), default="auto",
                      help="read the input twice, a chunk of rows at a time, instead of "
                      "holding it in memory: count its distinct tuples, search on the counts, "
                      "then write the release chunk by chunk (same release, same row order "
                      "for an --order-seed). auto (default): for a CSV input of at least "
                      "64 MiB with a global algorithm that counts tuples (optimal, datafly, "
                      "incognito), k only (no --l/--t) and a CSV output; on: always (or an "
                      "error saying why not); off: never")
    anon.add_argument("--chunk-rows", type=positive, default=CHUNK_ROWS, metavar="N",
                      help=f"rows read at a time when streaming (default {CHUNK_ROWS})")
    anon.add_argument("-q", "--quiet", action="store_true",
                      help="print nothing on success, and no progress")
    anon.set_defaults(handler=run)


def released_text(released, schema, text, withheld=None):
    """The release with every column but the quasi-identifiers put back as the file's text.

    Those cells are not generalized, so they go out exactly as they came in
    (``released`` is indexed by row position in ``text``), except in the
    ``withheld`` rows (``safepub``'s unreleased records), which stay ``*``.
    """
    out = released.copy()
    positions = released.index.to_numpy()
    for column in out.columns:
        if column not in schema.quasi_identifiers:
            cells = take_cells(text.frame[column], positions)   # dtype kept
            if withheld is not None and withheld.any():
                cells = np.asarray(cells, dtype=object).copy()
                cells[withheld] = released[column].to_numpy(dtype=object)[withheld]
            out[column] = cells
    return out


def _withheld(res):
    """The rows whose every column the algorithm withheld (None: only the QIs are suppressed)."""
    return res.withheld_mask


def check_paths(args, dask):
    """Every output writable and apart from the input and the other outputs (before work)."""
    kind = "file"
    if dask:
        kind = "pattern" if str(args.output).lower().endswith(".csv") else "folder"
        if kind == "pattern" and "*" not in Path(args.output).name:
            raise DataProblem(f"-o {args.output!r}: --engine dask writes a folder of files, "
                              f"one per task, not one CSV file: give a folder (Parquet files) "
                              f"or a CSV pattern with '*' such as 'out/part-*.csv'")
    outputs = [Output("-o", args.output, kind)]
    if args.report:
        outputs.append(Output("--report", args.report))
    check_outputs([("INPUT", args.input)], outputs)


def run(args, out):
    check_sensitive(args)
    dp_options(args)                    # the flags' combination, before any path is checked
    dask = args.engine == "dask"
    if is_many(args.input) and not dask:
        raise UsageError(f"{args.input!r} is a folder or glob: add --engine dask")
    check_paths(args, dask)
    check_k_bound(args.k, args.input, dask_input_files(args.input)[0] if dask else [args.input],
                  encoding_of(args), args.sep)   # before any row is read (issue 47 item 2)
    arrow_on_system_heap()              # freed Arrow buffers given back between phases
    progress = Progress(args.quiet)
    progress.phase(f"looking at {args.input}")      # before the checks that read the file
    cluster = contextlib.nullcontext()
    if dask:
        from ..scale import client_for

        quiet_dask_logs()
        cluster = client_for(args.scheduler, where="kanon-graph anonymize --engine dask")
    stream = not dask and wants_stream(args)
    try:
        with cluster:
            done = _run_stream(args, progress) if stream else _run(args, progress, dask)
    finally:
        progress.close()
    res, published = done[:2]
    if not args.quiet:
        print(done[2] if stream else res.summary(), file=out)
        print(f"release: {published}", file=out)
        written = (f"wrote {args.output} (from {res.stats['partitions']} input partitions)"
                   if dask else f"wrote {args.output} ({done[3]} rows, streamed: the input "
                   f"read twice, {args.chunk_rows} rows at a time)" if stream
                   else f"wrote {args.output} ({done[2]} rows"
                   + (f"; {len(res.table) - done[2]} withheld rows left out (--withheld drop)"
                      if done[2] != len(res.table) else "") + ")")
        print(written + (f" and {args.report}" if args.report else ""), file=out)
    return 0


def _run(args, progress, dask):
    """Read, anonymize, write the release (and the report); the result."""
    if dask:
        progress.phase(f"reading {args.input} lazily")
        schema = schema_from_args(args)
        check_hierarchies(schema, args)             # before the files, as in memory
        table = read_dask_table(args.input, args.sep, schema=schema, args=args,
                                encoding=encoding_of(args))
        text = None
    else:
        table, schema, text = read_input(args, progress, k=args.k,
                                         check=lambda schema: check_hierarchies(schema, args))
    options = dict(args.option)
    if args.centroid is not None:
        options["centroid"] = args.centroid
    options.update(dp_options(args))
    rows = f"{table.npartitions} partitions" if dask else f"{len(table)} rows"
    what = f"k={args.k}" if args.k is not None else "k from epsilon and delta"
    progress.phase(f"anonymizing {rows} with {args.algorithm} ({what})")
    seeded = {} if args.seed is None else {"seed": args.seed}
    res = anonymize(table, schema, k=args.k, algorithm=args.algorithm, l=args.l,
                    diversity=args.diversity, c=args.c, t=args.t, sensitive=args.sensitive,
                    suppression=args.suppression, missing=args.missing, **seeded,
                    respect_boundaries=True if args.respect_boundaries else None,
                    shard_size=args.shard_size,
                    # on --engine dask the cluster is already this process's current Client
                    scheduler=None if dask else args.scheduler,
                    progress=progress if progress.enabled else None, **options)
    parameters = run_parameters(args, schema, options, k=res.k, seed=res.stats.get("seed"))
    progress.phase(f"writing {args.output}")
    give_back_free_memory()             # the search's freed blocks, before the release is built
    # the order seed: fresh unless asked for (a guessable seed makes the order undoable)
    seed = None if args.keep_order else (
        args.order_seed if args.order_seed is not None else fresh_order_seed())
    parameters["order_seed_given"] = args.order_seed is not None
    # both written to temporaries first; the report is renamed into place, then the release
    # (so a release in place always has its report), each atomically (kanon_graph.io.write)
    with contextlib.ExitStack() as stack:
        if dask:
            # the folder is written whole, then swapped in; the report renamed just before
            seen = {}

            def commit_report(publication):
                seen.update(publication)
                if args.report:
                    report = result_report(res, parameters=parameters)
                    report["publication"] = publication
                    write_json(report, args.report)
            files = write_dask_table(res, args.output, seed=seed, keep_order=args.keep_order,
                                     escape_formulas=args.escape_formulas,
                                     before_swap=commit_report)
            return res, Publishable(None, shuffled=not args.keep_order,
                                    formulas=seen["formula_cells"],
                                    escaped=seen["formulas_escaped"], files=files).describe()
        released = released_text(res.table, schema, text, _withheld(res))
        rows = res.published_mask()             # safepub: withheld rows left out by default
        if rows is not None:
            released = released[rows]
        release = publishable(released, seed=seed, keep_order=args.keep_order,
                              escape_formulas=args.escape_formulas)
        tmp = stack.enter_context(atomic_file(args.output))
        write_table(release.table, tmp, sep=args.sep or ",",
                    format="parquet" if is_parquet(args.output) else "csv")
        if args.report:
            report = result_report(res, parameters=parameters)
            report["publication"] = {"shuffled": release.shuffled, "order_seed": release.seed,
                                     "formula_cells": release.formulas,
                                     "formulas_escaped": release.escaped}
            if res.stats.get("dp"):         # the guarantee, as safepub.md states it
                from ..report import dp_statement

                report["privacy"] = {"differential_privacy": dp_statement(
                    res.stats["dp"], res.stats.get("seed"))}
            write_json(report, args.report)
    return res, release.describe(), len(release.table)


def _run_stream(args, progress):
    """``--stream``: count, search, write (:mod:`kanon_graph.cli._stream`); the result,
    the publication line, the summary and the rows written."""
    counted = count_tuples(args, progress, rows=args.chunk_rows)
    give_back_free_memory()
    res = run_counted(counted, args, progress)
    give_back_free_memory()
    parameters = run_parameters(args, counted.schema, dict(args.option), k=res.k,
                                seed=res.stats.get("seed"))
    parameters["order_seed_given"] = args.order_seed is not None
    parameters["stream"] = {"chunk_rows": args.chunk_rows, "rows": counted.rows,
                            "distinct_tuples": len(counted.tuples)}

    def commit_report(written):
        if args.report:
            report = result_report(res, parameters=parameters)
            report.update(streamed_counts(written))
            report["publication"] = {"shuffled": written.shuffled, "order_seed": written.seed,
                                     "formula_cells": written.formulas,
                                     "formulas_escaped": written.escaped}
            write_json(report, args.report)

    written = write_release(res, counted, args, progress, rows=args.chunk_rows,
                            before_publish=commit_report)
    published = Publishable(None, shuffled=written.shuffled, formulas=written.formulas,
                            escaped=written.escaped).describe()
    # the summary's class line from the written cells (res.classes are the tuples')
    lines = dataclasses.replace(res, classes=None).summary().split("\n")
    sizes = written.sizes
    if sizes.size:
        lines.insert(1 + bool(res.stats.get("auto")),
                     f"{len(sizes)} equivalence classes, sizes min {sizes.min()}, "
                     f"median {np.median(sizes):g}, max {sizes.max()}")
    return res, published, "\n".join(lines), written.rows


def streamed_counts(written):
    """The report's rows and classes, counted on the streamed release's written cells."""
    sizes = written.sizes
    values, counts = np.unique(sizes, return_counts=True)
    return {"records": written.rows, "released": written.rows - written.suppressed,
            "classes": {
                "count": int(sizes.size),
                "min": int(sizes.min()) if sizes.size else None,
                "median": float(np.median(sizes)) if sizes.size else None,
                "mean": float(sizes.mean()) if sizes.size else None,
                "max": int(sizes.max()) if sizes.size else None,
                "size_histogram": {str(int(v)): int(c) for v, c in zip(values, counts)}}}


def run_parameters(args, schema, options, *, k, seed):
    """The report's ``parameters``: the command line as the run understood it (``k`` and
    ``seed`` as the run used them: safepub derives k and draws its seed)."""
    return {
        "input": str(args.input), "output": str(args.output), "schema": args.schema,
        "hierarchies": args.hierarchies,
        "quasi_identifiers": list(schema.quasi_identifiers),
        "sensitive": list(schema.sensitive), "identifiers": list(schema.identifiers),
        "hierarchy_heights": {c: h.height for c, h in schema.hierarchies.items()
                              if c in schema.quasi_identifiers},
        "k": k, "algorithm": args.algorithm, "l": args.l,
        "diversity": args.diversity, "c": args.c, "t": args.t,
        "suppression": args.suppression, "missing": args.missing,
        "na_values": [""] + list(args.na_values), "encoding": encoding_of(args),
        "seed": seed,
        "respect_boundaries": args.respect_boundaries, "options": options,
        "engine": args.engine, "scheduler": args.scheduler, "shard_size": args.shard_size,
        "keep_order": args.keep_order, "escape_formulas": args.escape_formulas,
    }
