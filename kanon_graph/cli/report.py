"""``kanon-graph report``: the privacy report of a release, as HTML or JSON."""

from __future__ import annotations

import shlex
import sys

from ._common import (Progress, add_schema_arguments, check_writable, fraction, read_input)
from ._outputs import add_unshuffle_argument
from .anonymize import add_privacy_arguments, check_sensitive




def register(commands):
    rep = commands.add_parser(
        "report", help="write the privacy report of a release (HTML or JSON)",
        description="Write one self-contained HTML page (or JSON with --format json) a "
        "custodian can hand on: the privacy model and whether it holds (checked from the "
        "released cells), re-identification risk before and after, information loss, class "
        "sizes, hierarchy levels, lattice position, suppression, this command and SHA-256 "
        "checksums of both files. It holds no identifier value and no original value of a "
        "generalized quasi-identifier.")
    rep.add_argument("original", metavar="ORIGINAL.csv")
    rep.add_argument("released", metavar="RELEASED.csv")
    add_schema_arguments(rep)
    rep.add_argument("-k", type=int, default=2, help="the k to check (default 2)")
    add_privacy_arguments(rep)
    rep.add_argument("-o", "--output", required=True, metavar="REPORT.html",
                     help="the report file to write")
    rep.add_argument("--format", choices=("html", "json"),
                     help="html or json (default: from the extension of -o)")
    rep.add_argument("--sampling-fraction", type=fraction, metavar="PI",
                     help="records of ORIGINAL over those of the population it was drawn "
                     "from: adds population uniques (Pitman, Zayatz, SNB, Dankar's rule)")
    rep.add_argument("--threshold", type=fraction, default=0.2, metavar="TAU",
                     help="risk above which a record is at risk (default 0.2)")
    rep.add_argument("--algorithm", help="the algorithm that made the release, to record")
    rep.add_argument("--title", help="the report's title")
    rep.add_argument("--made-by", metavar="COMMAND",
                     help="the command that made RELEASED, to record (default: this report "
                     "command)")
    rep.add_argument("--missing", choices=("error", "drop", "keep"), default="error",
                     help="rows of ORIGINAL with a missing value: fail (default), leave "
                     "them out as 'anonymize --missing drop' did, or read a missing cell as "
                     "a value of its own as 'anonymize --missing keep' did")
    add_unshuffle_argument(rep)
    rep.add_argument("-q", "--quiet", action="store_true", help="print nothing, no progress")
    rep.set_defaults(handler=run)


def run(args, out):
    from ..io import read_table
    from ..report import build_report, file_checksum, write_report

    check_writable(args.output, "output")
    check_sensitive(args)
    progress = Progress(args.quiet)
    try:
        original, schema, _ = read_input(args, progress, args.original)
        progress.phase(f"reading {args.released}")
        released = read_table(args.released, sep=args.sep)
        if args.unshuffle is not None:      # a release of 'anonymize' is shuffled
            from ..io.release import order_of

            back = order_of(len(released), args.unshuffle).argsort()
            released = released.iloc[back].reset_index(drop=True)
        progress.phase("measuring")
        content = build_report(
            original, released, schema, k=args.k, l=args.l, diversity=args.diversity,
            c=args.c, t=args.t, sensitive=args.sensitive, missing=args.missing,
            sampling_fraction=args.sampling_fraction, threshold=args.threshold,
            call=_withheld(args.made_by) if args.made_by else (
                _withheld(shlex.join(["kanon-graph", *sys.argv[1:]]))
                if _from_console() else None),
            checksums={"input": file_checksum(args.original),
                       "output": file_checksum(args.released)},
            algorithm=args.algorithm, title=args.title)
    finally:
        progress.close()
    if content["provenance"]["call"] is None:
        content["provenance"]["call"] = _withheld(_rebuilt(args))
    path = write_report(content, args.output, format=args.format)
    if not args.quiet:
        print(f"{content['privacy']['described']}", file=out)
        print(f"wrote {path}", file=out)
    return 0


#: Options whose value undoes a release's shuffled row order: a report that is handed on
#: shows the option, never the value.
_SECRET_OPTIONS = ("--unshuffle", "--order-seed")


def _withheld(command):
    """``command`` with the values of :data:`_SECRET_OPTIONS` replaced by ``(withheld)``."""
    try:
        words = shlex.split(command)
    except ValueError:                     # not a shell line: keep nothing that may hold one
        return "(withheld: the command could not be read)"
    out, hide = [], False
    for word in words:
        if hide:
            out.append("(withheld)")
            hide = False
            continue
        flag, eq, _ = word.partition("=")
        if flag in _SECRET_OPTIONS:
            out.append(f"{flag}=(withheld)" if eq else word)
            hide = not eq
        else:
            out.append(word)
    return shlex.join(out)


def _from_console():
    """Whether ``sys.argv`` is this command's (not a test calling ``main([...])``)."""
    return "report" in sys.argv[1:] and sys.argv[0].endswith("kanon-graph")


def _rebuilt(args):
    """The command line, from the parsed arguments (when main() was called directly)."""
    skip = {"handler", "command", "plugin", "quiet", "made_by"}
    words = ["kanon-graph", "report", args.original, args.released]
    for name, value in sorted(vars(args).items()):
        if name in skip or name in ("original", "released") or value in (None, False, []):
            continue
        flag = ("-" if name == "k" else "--") + name.replace("_", "-")
        words += [flag] if value is True else [flag, str(value)]
    return " ".join(shlex.quote(w) for w in words)
