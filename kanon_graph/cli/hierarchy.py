"""``kanon-graph hierarchy show`` and ``kanon-graph hierarchy build``."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from ..cells.kinds import parse_number
from ..cells.date_text import date_reading, how_to_say
from ..hierarchy import (dates, intervals, level_shares, masking, read_hierarchy, suggest,
                         write_hierarchy)
from ..io import read_table
from ..io.write import write_text
from ..viz import hierarchy_dot, hierarchy_text
from ._common import (DataProblem, Progress, UsageError, add_encoding_argument,
                      add_schema_arguments, check_writable, csv_list, encoding_of, read_input)

_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$")


def register(commands):
    hier = commands.add_parser("hierarchy", help="inspect and build hierarchies")
    sub = hier.add_subparsers(dest="hierarchy_command", metavar="SUBCOMMAND", required=True)
    show = sub.add_parser("show", help="draw a hierarchy file as text or DOT",
                          description="Draw an ARX-format hierarchy CSV: one line per node "
                          "with level, leaf count and MAGVal mark, or Graphviz DOT.")
    show.add_argument("file", metavar="FILE")
    show.add_argument("--format", choices=("text", "dot"), default="text")
    show.add_argument("--ascii", action="store_true", help="text without box characters")
    show.add_argument("--sep", help="cell separator (sniffed by default)")
    show.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")
    show.set_defaults(handler=run_show)

    build = sub.add_parser("build", help="build a hierarchy from values",
                           description="Build a hierarchy and write it in ARX's CSV format: "
                           "nested numeric bands (--intervals widths, or --cuts), masked "
                           "codes (--mask) or calendar periods of dates (--dates).")
    shape = build.add_mutually_exclusive_group(required=True)
    shape.add_argument("--intervals", type=_widths, metavar="W,W,...",
                       help="band widths per level, finest first, each dividing the next "
                       "(e.g. 5,10,20)")
    shape.add_argument("--cuts", type=_cuts, metavar="C,C,.../C,C,...",
                       help="cut points per level, finest first, levels separated by '/' "
                       "(e.g. 0,18,30,65/0,30); a band holds cut[i] <= v < cut[i+1]")
    shape.add_argument("--mask", type=int, metavar="N",
                       help="mask up to N trailing characters of fixed-length codes with '*'")
    shape.add_argument("--dates", type=csv_list, metavar="LEVEL,LEVEL,...",
                       help="dates (1944-12-14, 13/03/1961, ...) generalized through "
                       "calendar levels, finest first: month, quarter, year, 'N years', "
                       "decade, century (e.g. month,year,decade)")
    source = build.add_mutually_exclusive_group(required=True)
    source.add_argument("--values", metavar="LO..HI|V,V,...",
                        help="the leaves: a range of integers (1..100) or a list")
    source.add_argument("--values-from", metavar="DATA.csv",
                        help="take the leaves from a column of a CSV (see --column)")
    build.add_argument("--column", metavar="COL", help="the column of --values-from")
    add_encoding_argument(build, what="of --values-from")
    build.add_argument("--date-format", metavar="FORMAT",
                       help="with --dates: the values' format, such as %%d/%%m/%%Y (needed "
                       "when every value could be read either way)")
    build.add_argument("--origin", type=float, default=0, help="where width bands start")
    build.add_argument("--name", help="attribute name (default: --column)")
    build.add_argument("--sep", default=";", help="cell separator of OUT (default ';')")
    build.add_argument("-o", "--output", metavar="OUT.csv", help="write here instead of stdout")
    build.set_defaults(handler=run_build)

    sug = sub.add_parser("suggest", help="draft a hierarchy for every quasi-identifier",
                         description="Build a draft hierarchy for every quasi-identifier of "
                         "a table (without one in --hierarchies): numeric columns get nested "
                         "bands of round widths, dates month/quarter/year/5 years/decade, "
                         "fixed-length codes masking from the right, categories of 5+ values "
                         "groups of values "
                         "whose records look alike, others value -> *. Says per column the "
                         "kind it read, the levels it drew and the share of rows each level "
                         "groups with other values. Writes one ARX-format file per column to "
                         "DIR, to edit and pass to 'anonymize --hierarchies DIR'.")
    sug.add_argument("input", metavar="DATA.csv", help="the table (CSV or Parquet)")
    add_schema_arguments(sug, sensitive=False)
    sug.add_argument("-o", "--output", required=True, metavar="DIR",
                     help="folder to write <column>.csv files into (created if needed)")
    sug.add_argument("--out-sep", default=";", help="cell separator of the files (default ';')")
    sug.add_argument("--pictures", metavar="DIR", help="also draw each draft as DIR/<column>.png "
                     "(matplotlib)")
    sug.set_defaults(handler=run_suggest, missing="ignore")


def _widths(text):
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values:
        import argparse

        raise argparse.ArgumentTypeError(f"expected comma-separated widths, got {text!r}")
    return values


def _cuts(text):
    return [_widths(level) for level in re.split(r"[/;]", text) if level.strip()]


def run_show(args, out):
    h = read_hierarchy(args.file, sep=args.sep)
    text = (hierarchy_text(h, ascii=args.ascii) if args.format == "text"
            else "\n".join(hierarchy_dot(h)))
    if args.output:
        check_writable(args.output, "output")
        write_text(args.output, text + "\n")
    else:
        print(text, file=out)
    return 0


def _leaves(args):
    if args.values is not None:
        match = _RANGE.match(args.values)
        if match:
            lo, hi = int(match.group(1)), int(match.group(2))
            if hi < lo:
                raise UsageError(f"--values {args.values!r}: the range is empty")
            return list(range(lo, hi + 1))
        items = [v.strip() for v in args.values.split(",") if v.strip()]
        if not items:
            raise UsageError("--values needs LO..HI or a comma-separated list")
        return items
    if not args.column:
        raise UsageError("--values-from needs --column COL")
    table = read_table(args.values_from, encoding=encoding_of(args))
    if args.column not in table.columns:
        raise DataProblem(f"--column {args.column!r} is not a column of --values-from "
                          f"{args.values_from!r}; it has columns {list(table.columns)}")
    values = table[args.column].dropna()
    if values.empty:
        raise DataProblem(f"column {args.column!r} of {args.values_from!r} has no values")
    return values.tolist()


def run_build(args, out):
    if args.output:
        check_writable(args.output, "output")
    values = _leaves(args)
    name = args.name or args.column
    if args.mask is not None:
        h = masking(values, levels=args.mask, name=name)
    elif args.dates is not None:
        h = dates(values, levels=args.dates, name=name, format=args.date_format)
    else:
        # the leaves keep the data's own text (1.50 stays 1.50) to match its cells
        bad = next((v for v in values if isinstance(v, str) and parse_number(v) is None), None)
        if bad is not None:
            raise DataProblem(f"interval hierarchies need numbers; got {bad!r}")
        if args.intervals is not None:
            h = intervals(values, widths=args.intervals, origin=args.origin, name=name)
        else:
            h = intervals(values, cuts=args.cuts, name=name)
    if args.output:
        write_hierarchy(h, args.output, sep=args.sep)
        print(f"wrote {args.output} ({h.n_leaves} leaves, height {h.height})", file=out)
    else:
        print("\n".join(args.sep.join(row) for row in h.to_rows()), file=out)
    return 0


def _pictures_folder(args):
    if args.pictures is None:
        return None
    folder = Path(args.pictures)
    if folder.exists() and not folder.is_dir():
        raise DataProblem(f"--pictures: {str(folder)!r} exists and is not a folder")
    check_writable(folder, "--pictures", kind="files", inputs=[("INPUT", args.input)])
    try:
        import matplotlib
    except ImportError:
        raise DataProblem("--pictures needs matplotlib (pip install -e '.[plot]')") from None
    matplotlib.use("Agg")
    return folder


def _draw(h, path):
    import matplotlib.pyplot as plt

    from ..viz import hierarchy_figure

    fig = hierarchy_figure(h)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def _levels_line(h, values):
    """``level 1: 5 nodes, 23.1% of rows grouped with others | ...`` for one draft."""
    return " | ".join(f"level {s.level}: {s.nodes} node{'s' if s.nodes != 1 else ''}, "
                      f"{s.grouped:.1%} of rows grouped" for s in level_shares(h, values))


def run_suggest(args, out):
    folder = Path(args.output)
    if folder.exists() and not folder.is_dir():
        raise DataProblem(f"-o: {str(folder)!r} exists and is not a folder")
    check_writable(folder, "output", kind="files", inputs=[("INPUT", args.input)])
    pictures = _pictures_folder(args)
    progress = Progress(quiet=True)
    table, schema, _ = read_input(args, progress)
    made = suggest(table, schema)
    if not made:
        print("every quasi-identifier already has a hierarchy; nothing to suggest", file=out)
        return 0
    folder.mkdir(exist_ok=True)
    if pictures is not None:
        pictures.mkdir(parents=True, exist_ok=True)
    width = max(len(c) for c in made)
    for column, (h, how) in made.items():
        path = folder / f"{column}.csv"
        write_hierarchy(h, path, sep=args.out_sep)
        example = " -> ".join(h.ancestors(h.leaf_labels[len(h.leaf_labels) // 2]))
        print(f"{column:<{width}}  {how}; height {h.height}, {h.n_leaves} values "
              f"(e.g. {example})", file=out)
        print(f"{'':<{width}}  {_levels_line(h, table[column])}", file=out)
        if pictures is not None:
            _draw(h, pictures / f"{column}.png")
        reading = date_reading([v for v in pd.unique(table[column].dropna())
                                if isinstance(v, str)]) if h.source == "suggest" else None
        if reading is not None and reading.status == "ambiguous":
            print(f"{'':<{width}}  (its cells are dates whose day and month could be "
                  f"either way round, e.g. {reading.examples[0]!r}: "
                  f"{how_to_say(column, reading.format).split(' on the command line')[0]} "
                  f"to draft a date hierarchy)", file=out)
    if pictures is not None:
        print(f"drew {len(made)} picture(s) in {str(pictures)}", file=out)
    print(f"wrote {len(made)} file(s) to {str(folder)}; edit them, then pass "
          f"--hierarchies {str(folder)}", file=out)
    return 0
