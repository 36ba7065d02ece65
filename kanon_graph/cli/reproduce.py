"""``kanon-graph reproduce PAPER``: one paper's experiment, its files and its verdicts."""

from __future__ import annotations

import sys

from ..experiments import PAPERS, Run, reproduce
from ._common import UsageError, load_plugin


def register(commands):
    papers = "; ".join(f"{key}: {title}" for key, title in PAPERS.items())
    cmd = commands.add_parser(
        "reproduce", help="run one paper's experiment and judge its claims",
        description="Run the experiment of one of the five papers the library implements "
        "on Adult ($KANON_GRAPH_DATA or --data; the synthetic census when Adult is "
        "absent), write its CSV and PNG files, and print a verdict table: each claim "
        "under the paper-literal reading and ours, and why a claim does not hold. "
        f"{papers}.")
    cmd.add_argument("paper", choices=list(PAPERS), metavar="PAPER",
                     help=f"one of {', '.join(PAPERS)}")
    cmd.add_argument("--quick", action="store_true",
                     help="smaller samples and fewer k (a first look, minutes not quarters)")
    cmd.add_argument("--out", metavar="DIR", help="folder for the CSV and PNG files "
                     "(default: reproduce-PAPER in the current folder)")
    cmd.add_argument("--data", metavar="DIR", help="folder holding adult.csv (or an adult/ "
                     "subfolder); default $KANON_GRAPH_DATA")
    cmd.add_argument("--rows", type=int, metavar="N", help="cap every sample at N rows")
    cmd.add_argument("--plugin", action="append", default=[], dest="reproduce_plugins",
                     metavar="FILE.py|MODULE", help="import this Python file or module "
                     "first, so the algorithms it registers can be added with --with "
                     "(repeatable)")
    cmd.add_argument("--with", action="append", default=[], dest="extra_runs",
                     metavar="ALGORITHM[:KEY=VALUE,...]", help="add this registered "
                     "algorithm (with options) to the experiment: it appears in the CSVs, "
                     "the figures and the verdicts (repeatable)")
    cmd.add_argument("-v", "--verbose", action="store_true",
                     help="print each run on stderr as it starts")
    cmd.set_defaults(handler=run)


def parse_run(text: str) -> Run:
    """``ALGORITHM[:KEY=VALUE,...]`` as a :class:`Run` labelled by the text itself (values
    read as YAML scalars: ``2``, ``0.5``, ``true``, ``paper``)."""
    import yaml

    name, _, rest = text.partition(":")
    options = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"argument --with: expected ALGORITHM[:KEY=VALUE,...], got "
                             f"{text!r}")
        options[key.strip()] = yaml.safe_load(value.strip())
    if not name.strip():
        raise UsageError(f"argument --with: no algorithm name in {text!r}")
    return Run(text.strip(), name.strip(), options)


def run(args, out):
    folder = args.out or f"reproduce-{args.paper}"
    for plugin in args.reproduce_plugins:
        load_plugin(plugin)
    extra = [parse_run(text) for text in args.extra_runs]

    def step(text):
        print(f"  {text}", file=sys.stderr, flush=True)

    report = reproduce(args.paper, quick=args.quick, out=folder, data=args.data,
                       rows=args.rows, progress=step if args.verbose else None,
                       extra_runs=extra)
    print(report.describe(), file=out)
    print("wrote " + ", ".join(str(p) for p in report.files), file=out)
    return 0
