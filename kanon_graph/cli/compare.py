"""``kanon-graph compare``: metrics and seconds of several algorithms at several k."""

from __future__ import annotations

from ..comparison import DEFAULT_METRICS, compare
from ..io import write_table
from ..io.write import save_figure
from ..metrics import get_metric
from ..registry import get_algorithm
from ._common import (Progress, add_schema_arguments, csv_list, fraction,
                      frame_text, int_list, read_input)
from ._outputs import Output, check_outputs


def register(commands):
    cmp_ = commands.add_parser(
        "compare", help="compare algorithms on one table",
        description="Anonymize one table with every algorithm at every k and print a table "
        "of metrics and seconds per run (a run that fails shows its error instead).")
    cmp_.add_argument("input", metavar="INPUT.csv")
    add_schema_arguments(cmp_)
    cmp_.add_argument("--algorithms", type=csv_list, required=True, metavar="NAME,NAME",
                      help="registered algorithms (see 'kanon-graph algorithms')")
    cmp_.add_argument("-k", type=int_list, required=True, metavar="K,K",
                      help="values of k, comma-separated")
    cmp_.add_argument("--metrics", type=csv_list, default=list(DEFAULT_METRICS),
                      metavar="NAME,NAME",
                      help=f"metrics to show (default {','.join(DEFAULT_METRICS)})")
    cmp_.add_argument("--suppression", type=fraction, metavar="FRACTION",
                      help="suppression budget, for the algorithms that support it")
    cmp_.add_argument("--seed", type=int, default=0, help="seed for randomized algorithms")
    cmp_.add_argument("-o", "--output", metavar="TABLE.csv", help="write the table as CSV")
    cmp_.add_argument("--plot", metavar="CURVES.png",
                      help="plot each metric against k, one line per algorithm (matplotlib)")
    cmp_.add_argument("-q", "--quiet", action="store_true", help="no table, no progress")
    cmp_.set_defaults(handler=run)


def run(args, out):
    for name in args.algorithms:
        get_algorithm(name)                      # unknown names fail before any run
    for name in args.metrics:
        get_metric(name)
    outputs = [Output(flag, path) for flag, path in (("-o", args.output),
                                                     ("--plot", args.plot)) if path]
    check_outputs([("INPUT", args.input)], outputs)
    progress = Progress(args.quiet)
    try:
        table, schema, _ = read_input(args, progress)
        progress.phase(f"running {len(args.algorithms) * len(args.k)} anonymizations")
        frame = compare(table, schema, args.algorithms, args.k, metrics=args.metrics,
                        suppression=args.suppression, seed=args.seed,
                        progress=progress if progress.enabled else None)
    finally:
        progress.close()
    if args.output:
        write_table(frame, args.output)
    if args.plot:
        _plot(frame, args.metrics, args.plot)
    if not args.quiet:
        shown = frame.drop(columns="error") if not frame["error"].any() else frame
        print(frame_text(shown.set_index(["algorithm", "k"])), file=out)
        for path in (args.output, args.plot):
            if path:
                print(f"wrote {path}", file=out)
    return 0


def _plot(frame, metrics, path):
    from ._common import DataProblem

    ok = frame[frame["error"] == ""]
    if ok.empty:
        raise DataProblem("nothing to plot: every run failed")
    try:
        from ..viz import metric_curves_figure

        fig = metric_curves_figure(ok, list(metrics))
    except ImportError:
        raise DataProblem("--plot needs matplotlib (pip install -e '.[plot]')") from None
    save_figure(fig, path, dpi=110, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
