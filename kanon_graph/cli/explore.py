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
    from ..explore.server import HOST, free_port, needs_extra, serve
    from ..explore._session import Session

    needs_extra()
    progress = Progress(False)
    try:
        table, schema, _ = read_input(args, progress)
    finally:
        progress.close()
    sources = {qi: args.hierarchies for qi in schema.hierarchies} if args.hierarchies else {}
    session = Session(table, schema, hierarchies_folder=args.hierarchies,
                      exports_folder=args.exports, sources=sources)
    port = args.port or free_port()
    url = f"http://{HOST}:{port}/?token={session.token}"
    print(url, file=out, flush=True)
    if not args.no_browser:
        import webbrowser

        webbrowser.open(url)
    serve(session, port=port, background=False)
    return 0
