"""``kanon-graph reproduce PAPER``: one paper's experiment, its files and its verdicts."""

from __future__ import annotations

import sys

from ..experiments import PAPERS, reproduce


def register(commands):
    papers = "; ".join(f"{key}: {title}" for key, title in PAPERS.items())
    cmd = commands.add_parser(
        "reproduce", help="run one paper's experiment and judge its claims",
        description="Run the experiment of one of the five papers the library implements "
        "on Adult ($KANON_GRAPH_DATA or --data; the synthetic census when Adult is "
        f"absent), write its CSV and PNG files, and print a verdict table. {papers}.")
    cmd.add_argument("paper", choices=list(PAPERS), metavar="PAPER",
                     help=f"one of {', '.join(PAPERS)}")
    cmd.add_argument("--quick", action="store_true",
                     help="smaller samples and fewer k (a first look, minutes not quarters)")
    cmd.add_argument("--out", metavar="DIR", help="folder for the CSV and PNG files "
                     "(default: reproduce-PAPER in the current folder)")
    cmd.add_argument("--data", metavar="DIR", help="folder holding adult.csv (or an adult/ "
                     "subfolder); default $KANON_GRAPH_DATA")
    cmd.add_argument("--rows", type=int, metavar="N", help="cap every sample at N rows")
    cmd.add_argument("-v", "--verbose", action="store_true",
                     help="print each run on stderr as it starts")
    cmd.set_defaults(handler=run)


def run(args, out):
    folder = args.out or f"reproduce-{args.paper}"

    def step(text):
        print(f"  {text}", file=sys.stderr, flush=True)

    report = reproduce(args.paper, quick=args.quick, out=folder, data=args.data,
                       rows=args.rows, progress=step if args.verbose else None)
    print(report.describe(), file=out)
    print("wrote " + ", ".join(str(p) for p in report.files), file=out)
    return 0
