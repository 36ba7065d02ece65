"""Run the benchmarks and write their tables into docs/performance.md (issue 25).

Usage::

    KANON_GRAPH_DATA=/path/to/data python benchmarks/make_performance.py [--only NAME ...]
        [--doc docs/performance.md] [--dry-run]

Every generated block of the page sits between two markers::

    <!-- bench: NAME -->
    ...
    <!-- /bench: NAME -->

and is replaced by the output of the command :data:`BENCHMARKS` gives for
``NAME`` (one fresh process each), headed by the UTC time, the command and
the load average before and after. Nothing outside the markers is touched
(the page's prose, and any section another script maintains). ``--only``
regenerates some blocks; ``--dry-run`` prints them instead of writing.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOC = HERE.parent / "docs" / "performance.md"

#: name -> arguments of ``python benchmarks/<script>`` (in page order)
BENCHMARKS = {
    "import": ["bench_import.py", "--runs", "7"],
    "first-run": ["bench_import.py", "--first-run", "--runs", "3"],
    "first-run-compile-all": ["bench_import.py", "--first-run", "--runs", "3",
                              "--python-work", "0"],
    "call": ["bench_call.py", "--calls", "20"],
    "call-arx": ["bench_call.py", "--calls", "20", "--hierarchies", "arx"],
    "wide": ["bench_wide.py", "--qis", "8", "10", "12", "16", "--no-memory"],
    "shapes": ["bench_shapes.py", "--n", "5000", "20000", "80000"],
    "memory": ["bench_memory.py", "--n", "1000000", "10000000", "--check"],
    "releases": ["check_releases.py", "--compare", "release_fingerprints.json"],
    # issue 40: the table of a committed run (its command and loads are in the section)
    "sensitive": ["quality_sensitive.py", "--from-csv", "../docs/bench/quality-sensitive.csv"],
}

#: blocks whose output is a markdown table, written as it is (not as text)
MARKDOWN = {"sensitive"}

MARK = re.compile(r"(<!-- bench: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /bench: (?P=name) -->)",
                  re.S)


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(name):
    """The block for ``name``: a heading line and the benchmark's output as text."""
    arguments = BENCHMARKS[name]
    before, started = load(), time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    out = subprocess.run([sys.executable, *arguments], cwd=HERE, capture_output=True,
                         text=True)
    text = out.stdout.rstrip()
    if out.returncode not in (0, 1):       # check_releases exits 1 when a release changed
        text += f"\n(exit code {out.returncode})\n{out.stderr.strip()[-2000:]}"
    command = " ".join(["python", f"benchmarks/{arguments[0]}", *arguments[1:]])
    if name in MARKDOWN:
        return (f"Drawn {started} UTC by `{command}` (via `benchmarks/make_performance.py`) "
                f"from the rows of the run said above.\n\n{text}\n")
    return (f"Generated {started} UTC by `{command}` (via `benchmarks/make_performance.py`); "
            f"load average {before} before, {load()} after.\n\n```text\n{text}\n```\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(BENCHMARKS))
    parser.add_argument("--doc", type=Path, default=DOC)
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    if not os.environ.get("KANON_GRAPH_DATA"):
        sys.exit("set KANON_GRAPH_DATA to the shared data folder (holding adult/ and fars/)")
    page = args.doc.read_text()
    present = [m.group("name") for m in MARK.finditer(page)]
    wanted = [n for n in (args.only or BENCHMARKS) if n in present]
    missing = [n for n in (args.only or []) if n not in present]
    if missing:
        sys.exit(f"{args.doc} has no block for {missing} (markers '<!-- bench: NAME -->')")
    blocks = {}
    for name in wanted:
        print(f"# running {name} ...", file=sys.stderr, flush=True)
        blocks[name] = run(name)
        if args.dry_run:
            print(blocks[name])

    def replace(match):
        name = match.group("name")
        if name not in blocks:
            return match.group(0)
        return f"{match.group(1)}{blocks[name]}{match.group(4)}"

    if not args.dry_run:
        args.doc.write_text(MARK.sub(replace, page))
        print(f"# wrote {len(blocks)} block(s) into {args.doc}", file=sys.stderr)


if __name__ == "__main__":
    main()
