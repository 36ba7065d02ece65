"""Peak memory of the command line on large CSV files (issue 25 item 4, issue 32 item 4).

Usage::

    python benchmarks/bench_memory.py [--n 1000000 10000000] [--dir /tmp/kg_memory]
        [--algorithm optimal] [--stream auto|on|off] [--chunk-rows N] [--check] [--keep]

For every n it writes ``make_census(n, seed=0)`` as a CSV (once; kept in
``--dir``) with the census hierarchies as ARX-format files beside it, then
runs, in a fresh process,

    kanon-graph anonymize census_N.csv --qi ... --hierarchies DIR -k 5
        --algorithm optimal -o release_N.csv --stream auto

(``--stream auto`` streams both files, of 79 and 786 MiB: two passes over
the file, see docs/cli.md) and prints the CSV's size, the child's peak
resident set (``ru_maxrss`` of that child, from ``os.wait4``), their ratio
against the target (at most 4 times the file), and the wall and CPU seconds
of the child, with the load average. Below each row, the child's resident
set and its peak so far (``VmRSS``, ``VmHWM``) as each phase ends: reading,
anonymizing, writing in memory; counting, searching, writing when streamed;
so the phase that sets the peak is the first whose "peak so far" equals the
total. ``--check`` writes the release with order seed 1 and compares it
byte for byte with the in-memory command's (``--stream off``, run after it
and not measured). ``--trace`` runs the child under :mod:`tracemalloc` and
prints what the Python heap held at its peak (sampled every 50 ms), by
package and by allocation site (the peak resident set of such a run is
tracemalloc's too: take the ratio from a run without it). The target is
issue 47's: at most 3 times the file.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import tempfile
import sys
import time
from pathlib import Path

import kanon_graph as kg

TARGET_RATIO = 3.0


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def prepare(n, folder):
    """The CSV of ``make_census(n)`` and its hierarchy folder (written once)."""
    folder.mkdir(parents=True, exist_ok=True)
    schema = kg.datasets.census_schema()
    hierarchies = folder / "hierarchies"
    if not hierarchies.exists():
        hierarchies.mkdir()
        for name, hierarchy in schema.hierarchies.items():
            kg.write_hierarchy(hierarchy, hierarchies / f"census_hierarchy_{name}.csv")
    path = folder / f"census_{n}.csv"
    if not path.exists():
        # in a process of its own: a child's ru_maxrss starts from its parent's resident set
        # at the fork (Linux keeps the larger of the two across exec), so the parent must
        # never hold the table, or the next child's peak would read as the table's size
        subprocess.run([sys.executable, "-c", "import sys, kanon_graph as kg; "
                        "kg.datasets.make_census(int(sys.argv[1]), seed=0)"
                        ".to_csv(sys.argv[2], index=False)", str(n), str(path)], check=True)
    return path, hierarchies, list(schema.quasi_identifiers)


#: The child: the CLI, with each phase reporting the resident set as it ends (on stderr).
CHILD = """
import functools, sys
from kanon_graph.cli import anonymize as command

def status():
    with open("/proc/self/status") as handle:
        fields = dict(line.split(":", 1) for line in handle)
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)

def phase(name, function):
    @functools.wraps(function)
    def timed(*args, **kwargs):
        out = function(*args, **kwargs)
        print("phase %-11s resident %7.1f MiB, peak so far %7.1f MiB" % ((name,) + status()),
              file=sys.stderr)
        return out
    return timed

command.read_input = phase("read", command.read_input)
command.anonymize = phase("anonymize", command.anonymize)
command.write_table = phase("write", command.write_table)
# the streamed run's phases (--stream): count, search, write
command.count_tuples = phase("count", command.count_tuples)
command.run_counted = phase("search", command.run_counted)
command.write_release = phase("write", command.write_release)
from kanon_graph.cli import main
raise SystemExit(main())
"""

#: Put before :data:`CHILD` with ``--trace``: the heap at its sampled peak, printed at exit.
TRACE = """
import atexit, collections, sys, threading, time, tracemalloc
tracemalloc.start(8)
_best = {"size": 0, "snap": None}

def _sample():
    while True:
        current, _ = tracemalloc.get_traced_memory()
        if current > _best["size"] * 1.02:
            _best.update(size=current, snap=tracemalloc.take_snapshot())
        time.sleep(0.05)

threading.Thread(target=_sample, daemon=True).start()

def _report():
    snap = _best["snap"]
    if snap is None:
        return
    print("trace heap peak %.1f MiB (traced peak %.1f MiB); by package:"
          % (_best["size"] / 2**20, tracemalloc.get_traced_memory()[1] / 2**20), file=sys.stderr)
    by = collections.Counter()
    for stat in snap.statistics("filename"):
        name = stat.traceback[0].filename
        key = (name.split("site-packages/")[-1].split("/")[0] if "site-packages" in name else
               "kanon_graph/" + name.split("kanon_graph/")[-1] if "kanon_graph/" in name else
               name.rsplit("/", 1)[-1])
        by[key] += stat.size
    for key, size in by.most_common(12):
        print("trace %8.1f MiB  %s" % (size / 2**20, key), file=sys.stderr)
    for stat in snap.statistics("lineno")[:8]:
        frame = stat.traceback[0]
        print("trace %8.1f MiB  at %s:%d" % (stat.size / 2**20, frame.filename, frame.lineno),
              file=sys.stderr)

atexit.register(_report)
"""


def run(path, hierarchies, qis, algorithm, out, stream="auto", chunk_rows=None,
        order_seed=None, trace=False):
    """Run the CLI in a child; its peak RSS (bytes), wall and CPU seconds and the finished
    process (``returncode``, ``stdout``, ``stderr``)."""
    command = [sys.executable, "-c", (TRACE if trace else "") + CHILD,
               "anonymize", str(path), "--qi", ",".join(qis), "--hierarchies", str(hierarchies),
               "-k", "5", "--algorithm", algorithm, "-o", str(out), "--stream", stream]
    if chunk_rows is not None:
        command += ["--chunk-rows", str(chunk_rows)]
    if order_seed is not None:
        command += ["--order-seed", str(order_seed)]
    with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
        wall = time.perf_counter()
        child = subprocess.Popen(command, stdout=stdout, stderr=stderr, text=True)
        # wait4: this child's own resource use (its peak alone, whatever ran before)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - wall
        child.returncode = os.waitstatus_to_exitcode(status)
        stdout.seek(0)
        stderr.seek(0)
        proc = subprocess.CompletedProcess(command, child.returncode, stdout.read(),
                                           stderr.read())
    return usage.ru_maxrss * 1024, wall, usage.ru_utime + usage.ru_stime, proc


def same_as_in_memory(path, hierarchies, qis, algorithm, streamed):
    """Whether the release written with --stream on is the --stream off one, byte for byte
    (both with order seed 1)."""
    memory = streamed.with_name(streamed.stem + "_in_memory.csv")
    _, _, _, proc = run(path, hierarchies, qis, algorithm, memory, "off", None, 1)
    if proc.returncode != 0:
        return f"the in-memory run failed ({proc.returncode})"
    same = filecmp.cmp(streamed, memory, shallow=False)
    memory.unlink()
    return "same bytes as the in-memory run (order seed 1)" if same else \
        "DIFFERENT from the in-memory run (order seed 1)"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kg_memory"),
                        help="where the tables are written once (the 10,000,000-row CSV "
                        "is 786 MiB) and the releases")
    parser.add_argument("--algorithm", default="optimal")
    parser.add_argument("--stream", choices=("auto", "on", "off"), default="auto",
                        help="the CLI's --stream (auto: streams a CSV of 64 MiB or more)")
    parser.add_argument("--chunk-rows", type=int, help="the CLI's --chunk-rows (default: "
                        "the CLI's)")
    parser.add_argument("--check", action="store_true",
                        help="with order seed 1, also run the CLI in memory (--stream off, "
                        "not measured) and compare the two releases byte for byte")
    parser.add_argument("--trace", action="store_true",
                        help="print what the Python heap held at its peak (tracemalloc; the "
                        "peak resident set is then tracemalloc's too)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the release files (default: removed after each row)")
    args = parser.parse_args(argv)
    print(f"# load average before: {load()}")
    print(f"{'rows':>10} {'csv_MiB':>8} {'peak_MiB':>9} {'ratio':>6} {'wall_s':>7} {'cpu_s':>7}"
          f"  target <= {TARGET_RATIO:g}x the CSV")
    for n in sorted(args.n):
        path, hierarchies, qis = prepare(n, args.dir)
        out = args.dir / f"release_{n}.csv"
        peak, wall, cpu, proc = run(path, hierarchies, qis, args.algorithm, out, args.stream,
                                    args.chunk_rows, 1 if args.check else None, args.trace)
        check = same_as_in_memory(path, hierarchies, qis, args.algorithm, out) \
            if args.check and proc.returncode == 0 else None
        if not args.keep:
            out.unlink(missing_ok=True)
        size = path.stat().st_size
        if proc.returncode != 0:
            print(f"{n:>10,} failed ({proc.returncode}): {proc.stderr.strip()[-300:]}")
            continue
        ratio = peak / size
        print(f"{n:>10,} {size / 2**20:8.1f} {peak / 2**20:9.1f} {ratio:6.1f} {wall:7.1f} "
              f"{cpu:7.1f}  {'met' if ratio <= TARGET_RATIO else 'missed'}", flush=True)
        for line in proc.stderr.splitlines():
            if line.startswith("trace ") or (line.startswith("phase ")
                                             and os.path.exists("/proc/self/status")):
                print(f"{'':>10} {line}")
        wrote = [line for line in proc.stdout.splitlines() if line.startswith("wrote ")]
        print(f"{'':>10} {wrote[-1] if wrote else proc.stdout.strip()[-200:]}")
        if check is not None:
            print(f"{'':>10} {check}")
    print(f"# load average after: {load()}")


if __name__ == "__main__":
    main()
