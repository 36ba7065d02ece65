"""Every local algorithm on the continuous patients table of issue 17, and on Adult.

For every n (default 5,000 / 20,000 / 80,000 rows of
``tables.patients(n)``: zip, dob, sex and income as quasi-identifiers, no
hierarchies) and every local-recoding algorithm at k = 5, it prints

* ``wall_s`` / ``cpu_s``: the ``kg.anonymize`` call (encoding, clustering,
  recoding, the independent k check, metrics), after a warm-up call of the
  same algorithm on 300 rows in the same process, so numba's compilation
  (or the load of its on-disk cache) is not counted;
* ``peak_MB``: the resident set size added at the peak of the call (sampled
  every 5 ms; each run is a fresh subprocess);
* the information loss beside it: GCP (normalized certainty penalty, [003]
  eq. 7), total NCP, and the mean per-attribute ARX ``loss`` where the
  schema has hierarchies (the patients table has none: ``-``).

A run whose time, extrapolated from the same algorithm's previous row
counts, exceeds ``--budget`` seconds (default 120) prints
``skipped (> budget)`` instead; the growth exponent is the one measured
between the last two row counts (clipped to [1, 3]), else 2. A run still
going after twice the budget is stopped and printed as ``timeout``.

``--adult`` runs full Adult (30,162 rows, 8 quasi-identifiers, ARX's
hierarchies) at k = 5 and 10 instead, for the algorithms given (default
k-member and bottom-up). The machine's ``uptime`` load is printed before and
after: the figures are from a shared machine, CPU seconds are the steadier
measure.

Usage::

    KANON_GRAPH_DATA=/path/to/data python benchmarks/bench_shapes.py [--quick]
    python benchmarks/bench_shapes.py --n 20000 --algorithms k-member bottom-up
    KANON_GRAPH_DATA=/path/to/data python benchmarks/bench_shapes.py --adult
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import kanon_graph as kg  # noqa: E402
from tables import patients, patients_schema  # noqa: E402

LOCAL = ["mst", "sd", "mondrian", "k-member", "bottom-up", "sensitive-clustering"]
NS = [5_000, 20_000, 80_000]
QUICK_NS = [1_000, 5_000]
ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation"]


def _rss_mb():
    """Current resident set size (Linux /proc; else the peak so far)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _table(args):
    """The table and schema of one run (``--adult`` or the patients of ``--rows``)."""
    if args.adult:
        root = os.environ.get("KANON_GRAPH_DATA")
        if not root:
            sys.exit("set KANON_GRAPH_DATA to the folder holding adult/")
        import pandas as pd

        adult = Path(root) / "adult"
        table = pd.read_csv(adult / "adult.csv", sep=";")
        schema = kg.Schema(quasi_identifiers=ADULT_QIS, sensitive=["salary-class"],
                           hierarchies=kg.load_hierarchies(adult))
        return table, schema
    return patients(args.rows), patients_schema()


def one(args):
    """Subprocess body: warm up, then time one call; prints one JSON line."""
    table, schema = _table(args)
    metrics = ["gcp", "ncp"] + (["loss"] if schema.hierarchies else [])
    kg.anonymize(table.head(300), schema, k=args.k, algorithm=args.one, metrics=[])
    before = _rss_mb()
    peak = [before]
    stop = threading.Event()

    def watch():
        while not stop.wait(0.005):
            peak[0] = max(peak[0], _rss_mb())

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    wall, cpu = time.perf_counter(), time.process_time()
    res = kg.anonymize(table, schema, k=args.k, algorithm=args.one, metrics=metrics)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    stop.set()
    watcher.join()
    out = {"wall": wall, "cpu": cpu, "peak_mb": max(peak[0], _rss_mb()) - before,
           "classes": len(res.classes)}
    out.update({m: float(res.metrics[m]) for m in metrics})
    print(json.dumps(out))


def predict(history, n):
    """Seconds expected at ``n`` rows from ``[(rows, seconds), ...]`` (None if no history)."""
    if not history:
        return None
    (n1, t1) = history[-1]
    exponent = 2.0
    if len(history) >= 2:
        (n0, t0) = history[-2]
        if t0 > 0 and t1 > 0 and n1 != n0:
            exponent = min(3.0, max(1.0, math.log(t1 / t0) / math.log(n1 / n0)))
    return t1 * (n / n1) ** exponent


def launch(algorithm, rows, k, args):
    cmd = [sys.executable, __file__, "--one", algorithm, "--rows", str(rows), "--k", str(k)]
    if args.adult:
        cmd.append("--adult")
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=2 * args.budget)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout (> {2 * args.budget:.0f} s)"}
    line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    if line.startswith("{"):
        return json.loads(line)
    err = done.stderr.strip().splitlines()
    return {"error": (err[-1] if err else f"exit code {done.returncode}")[:100]}


def load():
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"n in {QUICK_NS}")
    parser.add_argument("--n", type=int, nargs="*", help="row counts of the patients table")
    parser.add_argument("--k", type=int, nargs="*", help="anonymity degrees (default 5; "
                        "5 and 10 with --adult)")
    parser.add_argument("--algorithms", nargs="*", help="default: every local algorithm "
                        "(k-member and bottom-up with --adult)")
    parser.add_argument("--budget", type=float, default=120.0,
                        help="skip a run predicted to take longer (seconds, default 120)")
    parser.add_argument("--adult", action="store_true",
                        help="full Adult with ARX's hierarchies instead of the patients")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--rows", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        args.k = args.k[0]
        return one(args)
    ks = args.k or ([5, 10] if args.adult else [5])
    ns = [30_162] if args.adult else (args.n or (QUICK_NS if args.quick else NS))
    names = args.algorithms or (["k-member", "bottom-up"] if args.adult else LOCAL)
    known = kg.algorithms()
    table = "full Adult, 8 QIs, ARX hierarchies" if args.adult else \
        "patients(n): zip, dob, sex, income; no hierarchies"
    print(f"# {table}; load average before: {load()}")
    print(f"{'algorithm':<21} {'n':>6} {'k':>3} {'wall_s':>8} {'cpu_s':>8} {'peak_MB':>8} "
          f"{'classes':>7} {'GCP':>7} {'NCP':>10} {'Loss':>7}")
    for name in names:
        if name not in known:
            print(f"# {name}: not registered; skipped")
            continue
        for k in ks:
            history = []
            for n in ns:
                head = f"{name:<21} {n:>6} {k:>3}"
                guess = predict(history, n)
                if guess is not None and guess > args.budget:
                    print(f"{head}  skipped (> budget: about {guess:.0f} s predicted)",
                          flush=True)
                    continue
                r = launch(name, n, k, args)
                if "error" in r:
                    print(f"{head}  {r['error']}", flush=True)
                    history.append((n, 2 * args.budget))
                    continue
                history.append((n, r["wall"]))
                loss = f"{r['loss']:>7.4f}" if "loss" in r else f"{'-':>7}"
                print(f"{head} {r['wall']:>8.2f} {r['cpu']:>8.2f} {r['peak_mb']:>8.0f} "
                      f"{r['classes']:>7} {r['gcp']:>7.4f} {r['ncp']:>10.1f} {loss}",
                      flush=True)
    print(f"# load average after: {load()} (2 cores shared; compare cpu_s)")


if __name__ == "__main__":
    main()
