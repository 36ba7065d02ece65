"""The cost of starting: ``import kanon_graph`` and ``kanon-graph --help`` (issues 17 and 25).

Usage::

    python benchmarks/bench_import.py [--runs 7] [--top 12]

Every run is a fresh interpreter (``sys.executable``), so nothing is cached
in memory; the operating system's file cache is warm after the first run.
It prints the median wall seconds of

* ``python -c pass`` (the interpreter alone),
* ``python -c "import pandas"`` (the floor the library cannot go under: its
  tables are pandas DataFrames),
* ``python -c "import kanon_graph"`` (issue 25's target: at most 0.1 s
  more than ``import pandas``; the package loads its names on first use, so
  this imports neither pandas nor numpy),
* ``import kanon_graph; kanon_graph.anonymize`` and the same followed by
  ``kanon_graph.registry.get_algorithm("optimal")``: what the first call
  really loads (pandas, numpy, the facade; then the lattice searches),
  held to the same target,
* ``kanon-graph --help`` (target: 0.15 s), run as the installed script
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

#: absolute targets, and targets relative to ``import pandas`` (issue 25)
TARGETS = {"kanon-graph --help": 0.15}
OVER_PANDAS = {"import kanon_graph": 0.1, "kg.anonymize (first use)": 0.1,
               "... + get_algorithm('optimal')": 0.1}
HEAVY = ("numba", "networkx", "igraph", "matplotlib", "duckdb", "dask", "scipy", "pandas",
         "numpy")
COMMANDS = {
    "python (nothing)": ["-c", "pass"],
    "import pandas": ["-c", "import pandas"],
    "import kanon_graph": ["-c", "import kanon_graph"],
    "kg.anonymize (first use)": ["-c", "import kanon_graph as kg; kg.anonymize"],
    "... + get_algorithm('optimal')": ["-c", "import kanon_graph as kg; kg.anonymize; "
                                       "kg.registry.get_algorithm('optimal')"],
    # what the kanon-graph script runs: kanon_graph.cli.main with sys.argv[1:] == ["--help"]
    "kanon-graph --help": ["-c", "from kanon_graph.cli import main; main()", "--help"],
}


def seconds(arguments, runs):
    """Median wall and CPU (user + system of the child) seconds of ``runs`` fresh processes."""
    walls, cpus = [], []
    for _ in range(runs):
        before = os.times()
        start = time.perf_counter()
        subprocess.run([sys.executable, *arguments], check=True, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - start)
        after = os.times()
        cpus.append(after.children_user + after.children_system
                    - before.children_user - before.children_system)
    return statistics.median(walls), statistics.median(cpus)


def heavy_modules():
    code = ("import sys, kanon_graph; print(' '.join(sorted({m.split('.')[0] for m in "
            f"sys.modules}} & set({HEAVY!r}))))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True)
    return out.stdout.split()


def importtime(top):
    out = subprocess.run([sys.executable, "-X", "importtime", "-c",
                          "import kanon_graph as kg; kg.anonymize"],
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
    print(f"# load average before: {load()}; median of {args.runs} fresh processes "
          f"(wall and CPU seconds; targets judged on wall time)")
    print(f"{'command':<32} {'wall_s':>7} {'cpu_s':>7}  target")
    pandas = None
    for name, arguments in COMMANDS.items():
        value, cpu = seconds(arguments, args.runs)
        if name == "import pandas":
            pandas = value
        if name in TARGETS:
            target = TARGETS[name]
            verdict = f"<= {target} s ({'met' if value <= target else 'missed'})"
        elif name in OVER_PANDAS and pandas is not None:
            target = pandas + OVER_PANDAS[name]
            verdict = (f"<= pandas + {OVER_PANDAS[name]} s = {target:.3f} s "
                       f"({'met' if value <= target else 'missed'})")
        else:
            verdict = "-"
        print(f"{name:<32} {value:7.3f} {cpu:7.3f}  {verdict}")
    print(f"# heavy libraries loaded by 'import kanon_graph': {heavy_modules() or 'none'}")
    print("# python -X importtime -c 'import kanon_graph as kg; kg.anonymize', "
          "top by cumulative time:")
    for micro, module in importtime(args.top):
        print(f"{micro / 1e6:8.3f} s  {module}")
    print(f"# load average after: {load()}")


if __name__ == "__main__":
    main()
