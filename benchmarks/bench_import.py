"""The cost of starting: ``import kanon_graph`` and ``kanon-graph --help`` (issue 17, item 8).

Usage::

    python benchmarks/bench_import.py [--runs 7] [--top 12]

Every run is a fresh interpreter (``sys.executable``), so nothing is cached
in memory; the operating system's file cache is warm after the first run.
It prints the median wall seconds of

* ``python -c pass`` (the interpreter alone),
* ``python -c "import pandas"`` (the floor the library cannot go under: its
  tables are pandas DataFrames),
* ``python -c "import kanon_graph"`` (target: 0.35 s),
* ``kanon-graph --help`` (target: 0.4 s), run as the installed script
  runs it: ``kanon_graph.cli.main()`` with the argument ``--help``,

the heavy optional libraries the import left in ``sys.modules`` (there should
be none), and the top ``--top`` entries of ``python -X importtime -c "import
kanon_graph"`` by cumulative time. The machine's load average is printed
first and last: on a shared machine the figures vary.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

TARGETS = {"import kanon_graph": 0.35, "kanon-graph --help": 0.4}
HEAVY = ("numba", "networkx", "igraph", "matplotlib", "duckdb", "dask", "scipy")
COMMANDS = {
    "python (nothing)": ["-c", "pass"],
    "import pandas": ["-c", "import pandas"],
    "import kanon_graph": ["-c", "import kanon_graph"],
    # what the kanon-graph script runs: kanon_graph.cli.main with sys.argv[1:] == ["--help"]
    "kanon-graph --help": ["-c", "from kanon_graph.cli import main; main()", "--help"],
}


def seconds(arguments, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, *arguments], check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def heavy_modules():
    code = ("import sys, kanon_graph; print(' '.join(sorted({m.split('.')[0] for m in "
            f"sys.modules}} & set({HEAVY!r}))))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True)
    return out.stdout.split()


def importtime(top):
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", "import kanon_graph"],
                         check=True, capture_output=True, text=True)
    rows = []
    for line in out.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].strip()))
    return sorted(rows, reverse=True)[:top]


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args(argv)
    print(f"# load average before: {load()}; median of {args.runs} fresh processes")
    print(f"{'command':<22} {'seconds':>8}  target")
    for name, arguments in COMMANDS.items():
        value = seconds(arguments, args.runs)
        target = TARGETS.get(name)
        verdict = (f"<= {target} s ({'met' if value <= target else 'missed'})"
                   if target else "-")
        print(f"{name:<22} {value:8.3f}  {verdict}")
    print(f"# heavy libraries loaded by 'import kanon_graph': {heavy_modules() or 'none'}")
    print("# python -X importtime -c 'import kanon_graph', top by cumulative time:")
    for micro, module in importtime(args.top):
        print(f"{micro / 1e6:8.3f} s  {module}")
    print(f"# load average after: {load()}")


if __name__ == "__main__":
    main()
