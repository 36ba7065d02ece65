"""Where the command line's time and memory go, file to release (issue 47 item 3).

Usage::

    python benchmarks/profile_file_to_release.py clinic [--n 80000] [--l 2] [--dir D]
    python benchmarks/profile_file_to_release.py census [--n 1000000] [--dir D]
    ... [--profile 15] [--stream auto|on|off] [--algorithm A] [--read-only]

``clinic`` writes :func:`us_clinic.us_clinic` (BOM, CRLF, hierarchies beside,
once, in ``--dir``) and runs ``kanon-graph anonymize FILE --hierarchies DIR -k 10
--missing keep`` on it; ``census`` writes ``make_census(n, seed=0)`` as a CSV
with the census hierarchies and runs ``-k 10`` (``--algorithm``, default the
command's ``auto``). Each run is a fresh child process whose phases are timed
in **CPU seconds of the process** (``time.process_time``; shares, not wall
times: the machine is shared) by wrapping the functions that do them:

* ``read``: the file read into text columns (``read_input_table``; when
  streamed, the counting pass ``count_tuples``, which reads and encodes);
* ``cells``: the command's cell checks (missing cells, numbers, dates);
* ``encode``: the pipeline's encoding (``encode_input``);
* ``search``: planning and the algorithm (``plan_run``, ``run_algorithm_step``;
  ``auto``'s choice is in ``other``);
* ``verify``: the release recoded, covered and verified from its cells
  (``release_partition``, ``verify_cells``);
* ``write``: the release made and written (``released_text``, ``publishable``,
  ``write_table``; streamed: ``write_release``);
* ``other``: the rest (imports, hierarchies, the report, auto's trials).

Printed: each phase's CPU seconds and share, the child's peak resident set
(``ru_maxrss`` from ``os.wait4``) and its ratio to the file's size, and the
resident set and peak so far as each phase ends. ``--profile N`` adds
cProfile's top N functions by cumulative time (the profiler slows the run;
its shares are what to read). ``--read-only`` runs the reader alone
(``read_text_table``) in a child and prints its CPU seconds, the resident set
before and after (free heap pages given back) and its peak.

The child imports ``kanon_graph`` as ``python -c`` does: from the current
folder first, then ``PYTHONPATH``. To measure another checkout (main, an
older commit exported with ``git archive``), run the script from a folder
outside any checkout with ``PYTHONPATH`` naming it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: The child: the CLI with its phases wrapped; a JSON line of phase CPU seconds on stderr.
CHILD = r"""
import cProfile, functools, importlib, json, pstats, sys, time

PHASES = {
    "read": ["kanon_graph.cli._common:read_input_table",
             "kanon_graph.cli.anonymize:count_tuples"],
    "cells": ["kanon_graph.cli._common:check_cells"],
    "encode": ["kanon_graph.pipeline.run:encode_input"],
    "search": ["kanon_graph.pipeline.run:plan_run", "kanon_graph.pipeline.run:run_algorithm_step",
               "kanon_graph.cli.anonymize:run_counted"],
    "verify": ["kanon_graph.pipeline.run:release_partition",
               "kanon_graph.pipeline.run:verify_cells"],
    "write": ["kanon_graph.cli.anonymize:released_text", "kanon_graph.cli.anonymize:publishable",
              "kanon_graph.cli.anonymize:write_table", "kanon_graph.cli.anonymize:write_release"],
}
spent = {name: 0.0 for name in PHASES}
depth = [0]

def status():
    with open("/proc/self/status") as handle:
        fields = dict(line.split(":", 1) for line in handle)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024

def wrap(name, function):
    @functools.wraps(function)
    def timed(*args, **kwargs):
        depth[0] += 1
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                spent[name] += time.process_time() - start
                print("phase %-7s resident %7.1f MiB, peak so far %7.1f MiB" % ((name,) + status()),
                      file=sys.stderr)
    return timed

for name, targets in PHASES.items():
    for target in targets:
        module, attribute = target.split(":")
        module = importlib.import_module(module)
        setattr(module, attribute, wrap(name, getattr(module, attribute)))

top = int(sys.argv.pop(1))
from kanon_graph.cli import main
profiler = cProfile.Profile() if top else None
start = time.process_time()
if profiler:
    profiler.enable()
code = main(sys.argv[1:])
if profiler:
    profiler.disable()
total = time.process_time() - start
print("PHASES " + json.dumps({"total": total, **spent}), file=sys.stderr)
if profiler:
    pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(top)
raise SystemExit(code)
"""


#: The reader alone (``--read-only``): CPU seconds and the resident set before and after.
READ_ONLY = r"""
import resource, sys, time
from kanon_graph.io import read_text_table
from kanon_graph.cli._common import give_back_free_memory

def resident():
    with open("/proc/self/status") as handle:
        return next(int(l.split()[1]) for l in handle if l.startswith("VmRSS")) / 1024

before, start = resident(), time.process_time()
table = read_text_table(sys.argv[1])
give_back_free_memory()
print("read %d rows: cpu %.2f s, resident %.0f -> %.0f MiB, peak %.0f MiB" % (
    len(table.frame), time.process_time() - start, before, resident(),
    resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
"""


def clinic_input(folder, n):
    """The US clinic export and its hierarchies (written once); the CLI's arguments."""
    sys.path.insert(0, str(HERE))
    from us_clinic import cli_arguments

    folder = Path(folder) / f"us_clinic_{n}"
    if not (folder / "us_clinic.csv").exists():
        subprocess.run([sys.executable, str(HERE / "us_clinic.py"), str(folder), str(n)],
                       check=True, stdout=subprocess.DEVNULL)
    arguments = cli_arguments(folder)
    return Path(arguments[0]), arguments


def census_input(folder, n):
    """``make_census(n, seed=0)`` as a CSV with its hierarchies (written once); the arguments."""
    import kanon_graph as kg

    folder = Path(folder) / f"census_{n}"
    folder.mkdir(parents=True, exist_ok=True)
    schema = kg.datasets.census_schema()
    hierarchies = folder / "hierarchies"
    if not hierarchies.exists():
        hierarchies.mkdir()
        for name, hierarchy in schema.hierarchies.items():
            kg.write_hierarchy(hierarchy, hierarchies / f"{name}.csv")
    path = folder / "census.csv"
    if not path.exists():           # in a child: this process never holds the table
        subprocess.run([sys.executable, "-c", "import sys, kanon_graph as kg; "
                        "kg.datasets.make_census(int(sys.argv[1]), seed=0)"
                        ".to_csv(sys.argv[2], index=False)", str(n), str(path)], check=True)
    return path, [str(path), "--qi", ",".join(schema.quasi_identifiers), "--hierarchies",
                  str(hierarchies), "-k", "10"]


def run(arguments, top):
    """The CLI in a child: (peak RSS bytes, phases dict, phase lines, profile text, stdout)."""
    command = [sys.executable, "-c", CHILD, str(top), "anonymize", *arguments]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the command failed: {stderr.strip()[-1000:]}")
    lines = stderr.splitlines()
    phases = next(json.loads(line[7:]) for line in lines if line.startswith("PHASES "))
    at = lines.index(next(line for line in lines if line.startswith("PHASES ")))
    return (usage.ru_maxrss * 1024, phases, [line for line in lines if line.startswith("phase ")],
            "\n".join(lines[at + 1:]), stdout)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", choices=("clinic", "census"))
    parser.add_argument("--n", type=int, help="rows (default 80,000 clinic, 1,000,000 census)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kg_file_to_release"))
    parser.add_argument("--l", help="--l of the run (with --sensitive diagnosis for clinic)")
    parser.add_argument("--algorithm", help="--algorithm of the run (default: the command's)")
    parser.add_argument("--stream", choices=("auto", "on", "off"), help="--stream of the run")
    parser.add_argument("--read-only", action="store_true",
                        help="only read the file (read_text_table) in a child: its CPU "
                        "seconds and resident set")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="print cProfile's top N functions by cumulative time")
    args = parser.parse_args(argv)
    n = args.n or (80_000 if args.table == "clinic" else 1_000_000)
    path, arguments = (clinic_input if args.table == "clinic" else census_input)(args.dir, n)
    if args.read_only:
        done = subprocess.run([sys.executable, "-c", READ_ONLY, str(path)], check=True,
                              capture_output=True, text=True)
        print(f"# {args.table} {n:,} rows, {path.stat().st_size / 2**20:.1f} MiB: "
              f"{done.stdout.strip()}")
        return
    output = args.dir / f"release_{args.table}_{n}.csv"
    arguments += ["-o", str(output), "--order-seed", "1"]
    for flag in ("l", "algorithm", "stream"):
        if getattr(args, flag) is not None:
            arguments += [f"--{flag}", str(getattr(args, flag))]
    peak, phases, lines, profile, stdout = run(arguments, args.profile)
    size = path.stat().st_size
    total = phases.pop("total")
    print(f"# {args.table} {n:,} rows, {size / 2**20:.1f} MiB: anonymize {' '.join(arguments)}")
    print(f"{'phase':<8}{'cpu_s':>8}{'share':>8}")
    for name, seconds in list(phases.items()) + [("other", total - sum(phases.values())),
                                                 ("total", total)]:
        print(f"{name:<8}{seconds:8.2f}{seconds / total:8.1%}")
    print(f"peak RSS {peak / 2**20:.1f} MiB = {peak / size:.2f}x the file")
    for line in lines:
        print(f"  {line}")
    print("\n".join(f"  {line}" for line in stdout.splitlines() if line.startswith("wrote ")))
    if profile:
        print(profile)


if __name__ == "__main__":
    main()
