"""Issue 47's speed table in one command: ours, ARX's (same run) and the target, with the load.

Usage::

    ARX_BUILD=/path/to/arx/build KANON_GRAPH_DATA=/path/to/data \\
        python benchmarks/speed_vs_arx.py [--rows NAME,...] [--quick] [--dir /tmp/kg_speed]

Each row of the issue's table is a function below (:data:`ROWS`), run in
this order; each prints one line as it finishes, and a markdown table of all
of them closes the run (the table docs/performance.md shows). Every figure of
ours and ARX's is taken in the same run, on the same rows, with the same
hierarchy objects (:mod:`arx`); ARX's seconds are its JVM's run after one
warm-up unless a row says otherwise. The load average is printed before and
after each row: take the figures on a quiet machine (nothing else running).

* ``l-suite``: the sensitive quality suite (:mod:`quality_sensitive`) under
  the four l-diversity models, the default (``auto``) against ARX's local
  recoding: CPU seconds of ours (one forked call after a warm-up) and ARX's
  (after one warm-up); counts the runs at or below ARX, in CPU and in Loss (one
  formula, the mean per-attribute Loss of both releases). ``--quick`` takes
  three tables (adult, fars; claims held out) at k = 5 only, ``--tables``
  names them; the runs above ARX's CPU are listed.
* ``census-60k-l2``: ``make_census(60000, seed=0)``, distinct l = 2, k = 5,
  no option (target <= 5 s wall).
* ``patients-20k``: patients (:func:`tables.patients`, 20,000 rows) with ARX's
  builder hierarchies, k = 5 / 10 / 20, k alone: the default against ARX's
  local recoding (target <= ARX, wall).
* ``adult-call``: Adult's optimal call with ARX's hierarchy files, median of
  ``--calls`` calls against the median of ARX's optimal search (target <= 1.0x).
* ``wide-12``: 12 quasi-identifiers (:func:`tables.wide_census`), the exact
  optimal search against ARX's Flash (target <= 0.1x, wall).
* ``cli-memory``: the CLI's peak resident set at 1,000,000 census rows
  (:mod:`bench_memory`) over the file's size (target <= 3x).
* ``clinic-80k``, ``clinic-80k-l2``, ``mistakes``, ``clinic-1m``,
  ``clinic-1m-dask``: the US clinic export of :mod:`us_clinic` through the
  CLI (``anonymize -k 10 --missing keep`` with its hierarchies), wall and CPU
  of the child; a misspelt column and a k above the row count on the same
  file; 1,000,000 rows in memory from the CSV and with ``--engine dask`` on 8
  Parquet files (targets 5 s, 8 s, < 1 s, 30 s, 1.5x in memory).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kanon_graph as kg  # noqa: E402
import arx  # noqa: E402  (benchmarks/arx.py)

RESULTS = []


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def report(what, ours, theirs, target, met, note=""):
    """One row of the table: printed now and kept for the closing markdown."""
    row = dict(what=what, ours=ours, arx=theirs, target=target,
               met="met" if met else "**missed**", note=note, load=load())
    RESULTS.append(row)
    print(f"{what}: ours {ours}; ARX {theirs}; target {target}: {row['met']} "
          f"({note}; load {row['load']})", flush=True)


def timed(function, *args, **kwargs):
    wall, cpu = time.perf_counter(), time.process_time()
    out = function(*args, **kwargs)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def cli(args, timeout=None):
    """The CLI in a child process: (finished process, wall s, CPU s, peak RSS bytes)."""
    command = [sys.executable, "-m", "kanon_graph", *map(str, args)]
    wall = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - wall
    out, err = child.stdout.read(), child.stderr.read()
    proc = subprocess.CompletedProcess(command, os.waitstatus_to_exitcode(status), out, err)
    return proc, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def row_l_suite(args):
    import quality_sensitive as qs
    tables = (args.tables.split(",") if args.tables
              else ["adult", "fars", "claims"] if args.quick else list(qs.TABLES))
    ks = [5] if args.quick else [5, 10]
    models = [m for m in qs.MODELS if not m.startswith("t")]
    options = SimpleNamespace(arx_warmups=1, arx_timeout=600.0, no_arx=False, timeout=600.0)
    ratios, losses = [], []
    for name in tables:
        rows = qs.run_table(name, ["default"], models, ks, options)
        for model in models:
            for k in ks:
                pair = {r["algorithm"]: r for r in rows if r["model"] == model and r["k"] == k}
                ours, theirs = pair.get("default", {}), pair.get("arx-local", {})
                if ours.get("error") or theirs.get("error") or "cpu_seconds" not in theirs:
                    continue
                ratios.append((ours["cpu_seconds"] / theirs["cpu_seconds"], name, model, k))
                losses.append(ours["loss"] <= theirs["loss"] + 1e-12)
    if not ratios:
        return report("under l, CPU against ARX's local recoding", "-", "-", "<= ARX", False,
                      "no run completed on both sides")
    at_or_below = sum(r <= 1.0 for r, *_ in ratios)
    worst = max(ratios)
    report("under l, CPU against ARX's local recoding",
           f"at or below ARX in {at_or_below} of {len(ratios)} runs; median "
           f"{statistics.median(r for r, *_ in ratios):.2f}x, worst {worst[0]:.2f}x "
           f"({worst[1]} {worst[2]} k={worst[3]})", "(ratio)", "every run <= 1.0x",
           at_or_below == len(ratios), "tables " + ", ".join(tables)
           + f"; Loss at or below ARX's in {sum(losses)} of {len(losses)}" + "".join(
               f"; above ARX: {n} {m} k={k} {r:.2f}x" for r, n, m, k in sorted(ratios) if r > 1.0))


def row_census_60k(args):
    schema = kg.datasets.census_schema()
    kg.anonymize(kg.datasets.make_census(300, seed=1), schema, k=5, l=2)      # warm-up
    table = kg.datasets.make_census(60_000, seed=0)
    res, wall, cpu = timed(kg.anonymize, table, schema, k=5, l=2)
    report("census 60,000 rows, distinct l=2, k=5", f"{wall:.1f} s wall, {cpu:.1f} s CPU",
           "-", "<= 5 s", wall <= 5.0, f"{res.algorithm}, Loss {res.metrics['loss']:.4f}")


def row_patients(args):
    import tables
    table = tables.patients(20_000)
    schema = tables.patients_builder_schema(table)
    kg.anonymize(table.head(300), schema, k=2)                                   # warm-up
    for k in (5, 10, 20):
        res, wall, cpu = timed(kg.anonymize, table, schema, k=k)
        theirs = arx.run("local", table, schema, k, warmup=1, rounds=1)
        once = theirs.runs[0]
        report(f"patients 20,000, ARX's builder hierarchies, k={k}", f"{wall:.2f} s wall",
               f"{once['wall']:.2f} s wall after one warm-up", "<= ARX", wall <= once["wall"],
               f"{res.algorithm}, CPU {cpu:.2f} s against ARX's {once['proc_cpu']:.2f} s")


def row_adult_call(args):
    import bench_call
    root = Path(os.environ["KANON_GRAPH_DATA"]) / "adult"
    table = kg.datasets.load_adult(root)
    with warnings.catch_warnings():          # ARX's age labels are one off (said in its docs)
        warnings.simplefilter("ignore")
        hierarchies = kg.load_hierarchies(root, columns=bench_call.QIS)
    schema = kg.Schema(quasi_identifiers=bench_call.QIS, sensitive=["salary-class"],
                       hierarchies=hierarchies)
    with warnings.catch_warnings():   # optimal's advice on Adult, said once is enough
        warnings.filterwarnings("ignore", message=r".*to \(almost\) nothing")
        kg.anonymize(table, schema, k=5, algorithm="optimal")                     # warm-up
        walls = [timed(kg.anonymize, table, schema, k=5, algorithm="optimal")[1]
                 for _ in range(args.calls)]
    theirs = arx.run("optimal", table, schema, 5, suppression=0.0, warmup=2, rounds=args.calls)
    ours, arx_wall = statistics.median(walls), theirs.median("wall")
    report("Adult optimal call, ARX's hierarchies", f"{ours * 1000:.1f} ms",
           f"{arx_wall * 1000:.1f} ms", "<= 1.0x", ours <= arx_wall,
           f"{ours / arx_wall:.2f}x; medians of {args.calls} calls")


def row_wide(args):
    import bench_wide
    import tables
    table, schema = tables.wide_census(12, n=20_000)
    ours = bench_wide.run(table, schema, "optimal", memory=False, exact=True)
    theirs = arx.run("flash", table, schema, 5, suppression=0.05, warmup=0, rounds=1,
                     timeout=900)
    flash = theirs.median("wall")
    report("12 QIs, exact", f"{ours['wall']:.1f} s wall", f"Flash {flash:.1f} s",
           "<= 0.1x Flash", ours["wall"] <= 0.1 * flash, f"{ours['wall'] / flash:.2f}x")


def row_cli_memory(args):
    # bench_memory.py in a process of its own: a child's ru_maxrss starts from its parent's
    # resident set, and this process has held the other rows' tables
    script = Path(__file__).resolve().parent / "bench_memory.py"
    done = subprocess.run([sys.executable, str(script), "--n", "1000000", "--dir",
                           str(args.dir / "memory")], capture_output=True, text=True, check=True)
    row = next(line.split() for line in done.stdout.splitlines()
               if line.strip().startswith("1,000,000"))
    size, peak, ratio = float(row[1]), float(row[2]), float(row[3])
    report("CLI peak memory, 1M census rows", f"{peak:.0f} MiB, {ratio:.1f}x the file", "-",
           "<= 3x", ratio <= 3.0, f"file {size:.1f} MiB, --stream auto, optimal")


def _clinic(n, args):
    """The folder of the US clinic export of ``n`` rows, with its hierarchies (written once)."""
    import us_clinic
    folder = args.dir / f"clinic_{n}"
    if not (folder / "us_clinic.csv").exists():
        us_clinic.write_us_clinic(folder, n)
    return folder


def _clinic_command(n, args, *extra):
    import us_clinic
    return ["anonymize", *us_clinic.cli_arguments(_clinic(n, args)), *extra]


def row_clinic(args, extra=(), target=5.0):
    command = _clinic_command(80_000, args, *extra)
    cli(_clinic_command(2_000, args, *extra) + ["-o", args.dir / "warm.csv"])  # kernels cached
    proc, wall, cpu, _ = cli(command + ["-o", args.dir / "clinic_release.csv"])
    if proc.returncode:
        raise RuntimeError(proc.stderr[-2000:])
    report("80,000-row US clinic export" + (" " + " ".join(extra) if extra else ""),
           f"{wall:.1f} s wall, {cpu:.1f} s CPU", "-", f"<= {target:g} s", wall <= target,
           "anonymize -k 10 --missing keep, hierarchies given")


def row_clinic_l2(args):
    row_clinic(args, ("--l", "2"), 8.0)


def row_mistakes(args):
    command = _clinic_command(80_000, args) + ["-o", args.dir / "mistake.csv"]
    at = command.index("--qi") + 1
    misspelt = command[:at] + [command[at].replace("zip", "zipp", 1)] + command[at + 1:]
    at = command.index("-k") + 1
    too_large = command[:at] + ["100000"] + command[at + 1:]
    for label, args_, named in (("a misspelt column", misspelt, "'zipp'"),
                                ("k above the row count", too_large, "'k'")):
        proc, wall, cpu, _ = cli(args_)
        said = (proc.stderr.strip().splitlines() or ["(nothing)"])[-1]
        report(f"{label}, 80,000-row export", f"{wall:.2f} s wall (exit {proc.returncode})",
               "-", "< 1 s", wall < 1.0 and proc.returncode != 0 and named in said, said[:140])


def row_clinic_1m(args):
    command = _clinic_command(1_000_000, args)
    proc, wall, cpu, peak = cli(command + ["-o", args.dir / "clinic_1m_release.csv"])
    if proc.returncode:
        raise RuntimeError(proc.stderr[-2000:])
    args.clinic_1m_wall = wall
    report("1,000,000-row export, in memory from the CSV", f"{wall:.1f} s wall, {cpu:.1f} s CPU",
           "-", "<= 30 s", wall <= 30.0, f"peak {peak / 2**30:.2f} GiB")


def row_clinic_1m_dask(args):
    import pandas as pd
    folder = args.dir / "clinic_1m_parquet"
    command = _clinic_command(1_000_000, args)
    if not folder.exists():                 # the same rows as the CSV, in 8 Parquet files
        folder.mkdir()
        table = pd.read_csv(command[1], dtype=str, encoding="utf-8-sig")   # empty: missing
        for i, part in enumerate(np.array_split(np.arange(len(table)), 8)):
            table.iloc[part].to_parquet(folder / f"part-{i}.parquet", index=False)
    command[1] = folder
    proc, wall, cpu, peak = cli(command + ["--engine", "dask", "-o",
                                           args.dir / "clinic_1m_dask_release"])
    if proc.returncode:
        raise RuntimeError(proc.stderr[-2000:])
    memory = getattr(args, "clinic_1m_wall", None)
    report("1,000,000-row export, --engine dask on 8 Parquet files",
           f"{wall:.1f} s wall, {cpu:.1f} s CPU (client)", "-", "<= 1.5x in memory",
           memory is not None and wall <= 1.5 * memory,
           f"{wall / memory:.2f}x in memory" if memory else "in-memory row not run")


ROWS = {"l-suite": row_l_suite, "census-60k-l2": row_census_60k, "patients-20k": row_patients,
        "adult-call": row_adult_call, "wide-12": row_wide, "cli-memory": row_cli_memory,
        "clinic-80k": row_clinic, "clinic-80k-l2": row_clinic_l2, "mistakes": row_mistakes,
        "clinic-1m": row_clinic_1m, "clinic-1m-dask": row_clinic_1m_dask}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default=",".join(ROWS), help=", ".join(ROWS))
    parser.add_argument("--quick", action="store_true", help="l-suite on three tables, k=5")
    parser.add_argument("--tables", help="l-suite's tables (names of quality_sensitive.TABLES)")
    parser.add_argument("--calls", type=int, default=20, help="adult-call's calls")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kg_speed"),
                        help="where generated files are kept between runs")
    args = parser.parse_args(argv)
    if arx.build_folder() is None or not os.environ.get("KANON_GRAPH_DATA"):
        sys.exit("set ARX_BUILD (../shared/arx/README.md) and KANON_GRAPH_DATA")
    args.dir.mkdir(parents=True, exist_ok=True)
    for name in args.rows.split(","):
        print(f"# {name}: load {load()}", flush=True)
        try:
            ROWS[name](args)
        except Exception as exc:           # a failed row is a data point, not the end
            report(name, f"failed: {type(exc).__name__}: {str(exc)[-300:]}", "-", "-", False)
    print("\n| what | ours | ARX 3.9.2 | target | | note | load after |\n|---|---|---|---|---|---|---|")
    for r in RESULTS:
        print(f"| {r['what']} | {r['ours']} | {r['arx']} | {r['target']} | {r['met']} | "
              f"{r['note']} | {r['load']} |")


if __name__ == "__main__":
    main()
