"""``kanon-graph explore``: the explorer's server on a data file (see docs/explore.md)."""

from __future__ import annotations

import argparse

from ._common import Progress, add_schema_arguments, read_input


def port_number(text):
    """``--port N``: an integer in [1, 65535] (an argument type)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be an integer in [1, 65535], got {text!r}")
    return value


def register(commands):
    exp = commands.add_parser(
        "explore", help="open the explorer in the browser (a local server)",
        description="Serve a page on 127.0.0.1 to see and edit the hierarchies, run, walk the "
        "lattice around a release, compare releases and export one. The URL printed carries "
        "a random token every request needs: give it to no one. Needs the extra "
        "kanon_graph[explore] (Starlette, uvicorn). Ctrl-C stops it.")
    exp.add_argument("input", metavar="DATA.csv")
    add_schema_arguments(exp)
    exp.add_argument("--port", type=port_number, help="the port (default: a free one)")
    exp.add_argument("--exports", metavar="DIR",
                     help="the folder exports go under (one sub-folder each); without it "
                     "export is off")
    exp.add_argument("--no-browser", action="store_true", help="print the URL, open nothing")
    exp.set_defaults(handler=run)


def run(args, out):
    from ..explorer.server import needs_extra, serve
    from ..explorer._session import Session

    needs_extra()
    if args.port is not None:
        _check_port_free(args.port)
    progress = Progress(False)
    try:
        table, schema, _ = read_input(args, progress)
    finally:
        progress.close()
    sources = {qi: args.hierarchies for qi in schema.hierarchies} if args.hierarchies else {}
    session = Session(table, schema, hierarchies_folder=args.hierarchies,
                      exports_folder=args.exports, sources=sources)
    explorer = serve(session, port=args.port)          # returns once it listens
    try:
        print(explorer.url, file=out, flush=True)
        if not args.no_browser:
            import webbrowser

            webbrowser.open(explorer.url)
        explorer.wait()
    except KeyboardInterrupt:                          # Ctrl-C (or SIGTERM): stop cleanly
        pass
    finally:
        explorer.stop()
    return 0


def _check_port_free(port):
    """``--port N`` already taken: say so in one line, before the data is read."""
    import socket

    from ..explorer.server import HOST
    from ._parser import DataProblem

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((HOST, port))
        except OSError as exc:
            raise DataProblem(f"--port {port}: {HOST}:{port} cannot be used "
                              f"({exc.strerror}); give another port or none") from None
