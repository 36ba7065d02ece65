"""``kanon-graph lattice show``: the generalization lattice as a coloured Hasse diagram."""

from __future__ import annotations

import shutil
import subprocess

from ..encoding import encode
from ..io.write import atomic_file, save_figure, write_text
from ..lattice import FrequencyEngine, Lattice, lattice_dot, optimal_search
from ._common import (DataProblem, Progress, UsageError, add_schema_arguments, check_writable,
                      fraction, read_input)
from .anonymize import add_privacy_arguments, check_sensitive

#: Largest lattice drawn unless --max-nodes says otherwise.
MAX_DRAWN = 500


def register(commands):
    lat = commands.add_parser("lattice", help="draw the generalization lattice")
    sub = lat.add_subparsers(dest="lattice_command", metavar="SUBCOMMAND", required=True)
    show = sub.add_parser(
        "show", help="the lattice as a Hasse diagram (DOT or PNG)",
        description="Draw the lattice of level vectors of the quasi-identifiers as a Hasse "
        "diagram, nodes coloured by what the optimal search learnt for k (and l, t): "
        "anonymous (green), not anonymous (red), pruned (grey), chosen (gold). With --all "
        "every node is checked, so none stays pruned.")
    show.add_argument("input", metavar="INPUT.csv")
    add_schema_arguments(show)
    show.add_argument("-k", type=int, required=True, help="k of k-anonymity")
    add_privacy_arguments(show)
    show.add_argument("--suppression", type=fraction, default=0.0, metavar="FRACTION",
                      help="fraction of records that may be suppressed (default 0)")
    show.add_argument("--metric", default="loss",
                      choices=("loss", "discernibility", "dm_star", "precision", "height"),
                      help="what the search minimizes to choose a node (default loss)")
    show.add_argument("--all", action="store_true", help="check every node")
    show.add_argument("--max-nodes", type=int, default=MAX_DRAWN,
                      help=f"refuse larger lattices (default {MAX_DRAWN})")
    show.add_argument("--format", choices=("dot", "png"), default="dot")
    show.add_argument("-o", "--output", metavar="OUT", help="write here (PNG: required)")
    show.add_argument("-q", "--quiet", action="store_true", help="no progress")
    show.set_defaults(handler=run)


def lattice_status(data, model, *, suppression=0.0, metric="loss", every=False):
    """``(lattice, {node: status}, chosen)`` from the optimal search (and every node)."""
    lattice = Lattice(data.heights, names=data.names)
    found = optimal_search(data, model, metric=metric, suppression=suppression)
    status = {node: found.status.status(node) for node in lattice.nodes()}
    if every:
        engine = FrequencyEngine(data)
        for node, st in status.items():
            if st == "pruned":
                ok = engine.is_anonymous(node, model, suppression)
                status[node] = "anonymous" if ok else "not-anonymous"
    return lattice, status, found.levels


def run(args, out):
    from ..privacy.parameters import privacy_model as _model

    check_sensitive(args)
    if args.format == "png" and not args.output:
        raise UsageError("--format png needs -o OUT.png")
    if args.output:
        check_writable(args.output, "output", inputs=[("INPUT", args.input)])
    progress = Progress(args.quiet)
    try:
        table, schema, _ = read_input(args, progress)
        data = encode(table, schema, where="lattice show")
        lacking = [a.name for a in data.attributes if a.hierarchy is None]
        if lacking:
            raise DataProblem(f"lattice show needs a hierarchy for every quasi-identifier; "
                              f"none is given for {lacking} (see --hierarchies)")
        lattice = Lattice(data.heights, names=data.names)
        if lattice.size > args.max_nodes:
            raise DataProblem(
                f"the lattice of {data.names} has {lattice.size:,} nodes, more than "
                f"{args.max_nodes:,} can be drawn readably; use fewer quasi-identifiers "
                f"(--qi) or raise --max-nodes")
        model = _model(args.k, args.l, args.diversity, args.c, args.t, args.sensitive,
                       data.n, "lattice show").bind(data)
        progress.phase(f"searching {lattice.size} nodes")
        lattice, status, chosen = lattice_status(data, model, suppression=args.suppression,
                                                 metric=args.metric, every=args.all)
        progress.phase("drawing")
        if args.format == "dot":
            text = lattice_dot(lattice, status)
            if args.output:
                write_text(args.output, text)
            else:
                out.write(text)
                return 0
        else:
            _write_png(lattice, status, args.output)
    finally:
        progress.close()
    counts = {}
    for st in status.values():
        counts[st] = counts.get(st, 0) + 1
    shown = ", ".join(f"{n} {st}" for st, n in sorted(counts.items(), key=lambda x: str(x[0])))
    best = lattice.label(chosen) if chosen is not None else "none (no node satisfies the model)"
    print(f"wrote {args.output}: {lattice.size} nodes ({shown}); chosen {best}", file=out)
    return 0


class _DotFailed(Exception):
    """Graphviz could not render the lattice."""


def _write_png(lattice, status, path):
    """Render with Graphviz ``dot`` when installed, else with matplotlib."""
    dot = shutil.which("dot")
    if dot:
        try:
            with atomic_file(path) as tmp:
                done = subprocess.run([dot, "-Tpng", "-o", str(tmp)],
                                      input=lattice_dot(lattice, status), text=True,
                                      capture_output=True)
                if done.returncode != 0:
                    raise _DotFailed         # the temporary is removed; matplotlib draws
            return
        except _DotFailed:
            pass
    try:
        from ..viz import lattice_figure

        fig = lattice_figure(lattice, status, max_nodes=max(lattice.size, 1))
    except ImportError:
        raise DataProblem("PNG output needs Graphviz ('dot') or matplotlib "
                          "(pip install -e '.[plot]'); use --format dot instead") from None
    save_figure(fig, path, dpi=120, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
