"""``kanon-graph report``: the privacy report of a release, as HTML or JSON."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import NamedTuple

from ._common import (DataProblem, Progress, add_encoding_argument, add_schema_arguments,
                      check_writable, encoding_of, fraction, read_input, unshuffle_hint,
                      warnings_of)
from .anonymize import add_privacy_arguments, check_sensitive


class RunOrder(NamedTuple):
    """``--unshuffle``: the order seed, and the run's JSON report when one was named."""

    seed: int
    run: dict | None
    path: str | None


def run_order(value):
    """``--unshuffle SEED|REPORT.json`` read as a :class:`RunOrder`."""
    from ..io.release import order_seed_from

    try:
        seed = order_seed_from(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    try:
        int(str(value).strip())
        return RunOrder(seed, None, None)
    except ValueError:                      # the run's report: order_seed_from has read it
        return RunOrder(seed, json.loads(Path(value).read_text(encoding="utf-8")), str(value))


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
    add_schema_arguments(rep, encoding="of ORIGINAL (RELEASED: --released-encoding)")
    add_encoding_argument(rep, "--released-encoding", what="of RELEASED (anonymize writes "
                          "UTF-8)")
    rep.add_argument("-k", type=int, default=2, help="the k to check (default 2)")
    add_privacy_arguments(rep)
    rep.add_argument("-o", "--output", required=True, metavar="REPORT.html",
                     help="the report file to write")
    rep.add_argument("--format", choices=("html", "json"),
                     help="html or json (default: from the extension of -o)")
    rep.add_argument("--sampling-fraction", type=fraction, metavar="PI",
                     help="records of ORIGINAL over those of the population it was drawn "
                     "from: adds population uniques (Pitman, Zayatz, SNB, Dankar's rule) "
                     "and individual risk, and estimates each class's population size")
    rep.add_argument("--weights", metavar="COLUMN",
                     help="a column of ORIGINAL holding each record's sampling weight: a "
                     "class's population size is estimated as the sum of its records' "
                     "weights (without --sampling-fraction, the population is the sum of "
                     "all weights)")
    rep.add_argument("--population-model", choices=("individual", "expansion"),
                     help="how journalist and marketer risk read a population size "
                     "estimated from --sampling-fraction or --weights: 'individual' "
                     "(Benedetti-Franconi individual risk, as sdcMicro; the default) or "
                     "'expansion' (1 / F, optimistic for sample uniques)")
    rep.add_argument("--threshold", type=fraction, default=0.2, metavar="TAU",
                     help="risk above which a record is at risk (default 0.2)")
    rep.add_argument("--algorithm", help="the algorithm that made the release, to record "
                     "(default: the one the run's report names, with --unshuffle REPORT.json)")
    rep.add_argument("--title", help="the report's title")
    rep.add_argument("--made-by", metavar="COMMAND",
                     help="the command that made RELEASED, to record (default: this report "
                     "command)")
    rep.add_argument("--missing", choices=("error", "drop", "keep"), default="error",
                     help="rows of ORIGINAL with a missing value: fail (default), leave "
                     "them out as 'anonymize --missing drop' did, or read a missing cell as "
                     "a value of its own as 'anonymize --missing keep' did")
    rep.add_argument("--unshuffle", type=run_order, metavar="SEED|REPORT.json",
                     help="RELEASED was written shuffled by 'kanon-graph anonymize': put its "
                     "rows back in the original's order first, from the order seed or the "
                     "run's JSON report (its publication.order_seed; the report also names "
                     "the algorithm that ran). The report written shows neither")
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
        if args.weights is not None and args.weights not in original.columns:
            raise DataProblem(f"--weights {args.weights!r}: {args.original} has no such "
                              f"column; it has {list(original.columns)}")
        progress.phase(f"reading {args.released}")
        released = read_table(args.released, sep=args.sep,
                              encoding=encoding_of(args, "released_encoding"))
        if args.unshuffle is not None:      # a release of 'anonymize' is shuffled
            from ..io.release import order_of

            back = order_of(len(released), args.unshuffle.seed).argsort()
            released = released.iloc[back].reset_index(drop=True)
        progress.phase("measuring")
        with unshuffle_hint(args), warnings_of("report"):
            content = build_report(
                original, released, schema, k=args.k, l=args.l, diversity=args.diversity,
                c=args.c, t=args.t, sensitive=args.sensitive, missing=args.missing,
                sampling_fraction=args.sampling_fraction, threshold=args.threshold,
                weights=args.weights, population_model=args.population_model,
                call=_withheld(args.made_by) if args.made_by else (
                    _withheld(shlex.join(["kanon-graph", *sys.argv[1:]]))
                    if _from_console() else None),
                checksums={"input": file_checksum(args.original),
                           "output": file_checksum(args.released)},
                algorithm=_algorithm(args), title=args.title)
    finally:
        progress.close()
    if content["provenance"]["call"] is None:
        content["provenance"]["call"] = _withheld(_rebuilt(args))
    path = write_report(content, args.output, format=args.format)
    if not args.quiet:
        print(f"{content['privacy']['described']}", file=out)
        print(f"wrote {path}", file=out)
    return 0


def _algorithm(args):
    """The algorithm to record: ``--algorithm``, else the one the run's report says ran.

    A run's report (``--unshuffle REPORT.json``) names the algorithm that ran
    (``auto`` resolved); an ``--algorithm`` that is neither it nor the one the
    run was asked for is an error, not a second story in the report.
    """
    run = args.unshuffle.run if args.unshuffle is not None else None
    ran = run.get("algorithm") if isinstance(run, dict) else None
    if not isinstance(ran, str):
        return args.algorithm
    asked = (run.get("parameters") or {}).get("algorithm")
    if args.algorithm is not None and args.algorithm not in (ran, asked):
        raise DataProblem(f"--algorithm {args.algorithm!r} contradicts the run's report "
                          f"{args.unshuffle.path!r}, which says {ran!r} ran; leave "
                          f"--algorithm out to record it")
    return ran


#: Options whose value undoes a release's shuffled row order: a report that is handed on
#: shows the option, never the value.
_SECRET_OPTIONS = ("--unshuffle", "--order-seed")
_WITHHELD = "(withheld)"
#: Commands nested deeper than this (``sh -c "bash -c '...'"``) are withheld whole.
_DEPTH = 8


def _secret(flag):
    """Whether ``flag`` names a secret option: in full, or any prefix of one (``--order-s``).

    Prefixes count although ``kanon-graph`` refuses them now: a ``--made-by``
    text may come from an older version, or from a wrapper that passes
    abbreviations on.
    """
    return flag.startswith("--") and len(flag) > 2 and any(
        option.startswith(flag) for option in _SECRET_OPTIONS)


def _withheld(command):
    """``command`` with the values of :data:`_SECRET_OPTIONS` replaced by ``(withheld)``.

    Every spelling is scrubbed: ``--order-seed N``, ``--order-seed=N``, a
    prefix (``--order-s N``, ``--unsh=N``), quoted words, and commands nested
    in a word (``sh -c '... --order-seed=N'``, ``--made-by "kanon-graph
    anonymize ... --order-seed N"``) or in a ``NAME=VALUE`` word.
    """
    text, _ = _scrub_text(command, 0)
    return text


def _scrub_text(text, depth):
    """``(text scrubbed, whether the word after it is a secret's value)``."""
    if depth > _DEPTH:
        return _WITHHELD, False
    try:
        words = shlex.split(text)
    except ValueError:                     # not a shell line: keep nothing that may hold one
        return (text, False) if "--" not in text else (
            "(withheld: the command could not be read)", False)
    out, hide = [], False
    for word in words:
        if hide:
            out.append(_WITHHELD)
            hide = False
        else:
            word, hide = _scrub_word(word, depth)
            out.append(word)
    return _join(out), hide


def _join(words):
    """``shlex.join``, but ``(withheld)`` is left unquoted (it is a record, not a command)."""
    mark = "KGwithheldKG"
    return " ".join(shlex.quote(word.replace(_WITHHELD, mark)).replace(mark, _WITHHELD)
                    for word in words)


def _scrub_word(word, depth):
    """``(word scrubbed, whether the next word is a secret's value)``."""
    if depth > _DEPTH:
        return _WITHHELD, False
    if any(ch.isspace() or ch in "'\"\\" for ch in word):     # a command in one word
        return _scrub_text(word, depth + 1)
    flag, eq, value = word.partition("=")
    if _secret(flag):
        return (f"{flag}={_WITHHELD}", False) if eq else (flag, True)
    if eq and value:                       # --made-by=..., NAME=...: the value may hold one
        inner, hide = _scrub_word(value, depth + 1)
        return f"{flag}={inner}", hide
    return word, False


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
        value = value.seed if isinstance(value, RunOrder) else value   # withheld below
        words += [flag] if value is True else [flag, str(value)]
    return " ".join(shlex.quote(w) for w in words)
