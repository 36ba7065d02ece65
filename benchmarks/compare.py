"""Seconds, peak memory and loss on Adult: every algorithm, and issue 12's local table.

The papers' own comparisons (000's Figures 4-5, 003's Figures 7-9, ...) moved
to ``kanon-graph reproduce PAPER`` (:mod:`kanon_graph.experiments`); this
script keeps the timing.

Usage::

    KANON_GRAPH_DATA=/path/to/shared/data python benchmarks/compare.py [--quick]
        [--out benchmarks/out] [--only timing,local]
        [--local-ks 2,5,10,20,50] [--local-skip "k-member:50;bottom-up:50"]

Writes CSV files (and PNG figures when matplotlib is installed) to ``--out``:

``timing.csv``
    Seconds and peak memory of every registered algorithm on the full Adult
    table (8 quasi-identifiers, ARX's hierarchies) at k = 5 and 10. Each run
    is a fresh subprocess: ``rss_before_mb`` is its resident set size just
    before ``anonymize`` (data loaded), ``peak_rss_mb`` the largest resident
    set size sampled every 5 ms during the call, so the difference is what
    the algorithm (with encoding, recoding, verification and metrics) added
    at its peak.
``local.csv``, ``local_loss.png``
    Issue 12's table (``benchmarks/compare_local.py``): every local-recoding
    algorithm and variant on full Adult (8 quasi-identifiers, ARX's
    hierarchies) at ``--local-ks``: mean per-attribute ARX Loss, seconds,
    GCP and discernibility, ARX 3.9.2's local-recoding figure as a constant
    row, and Loss against k. ``--local-skip LABEL:K,K;...`` leaves chosen
    runs out (each still gets a row saying so); nothing is skipped otherwise.

``--quick`` shrinks everything (a 5000-row sample for the timing table, a
3000-row sample and k = 5, 10 for ``local``).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd

import kanon_graph as kg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_local import local, parse_skip  # noqa: E402  (benchmarks/ is not a package)

ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation"]
TIMEOUT = 1800


def data_dir(args):
    root = args.data or os.environ.get("KANON_GRAPH_DATA")
    if not root:
        sys.exit("set KANON_GRAPH_DATA (or --data) to the folder holding adult/")
    return Path(root) / "adult"


def load(adult):
    table = pd.read_csv(adult / "adult.csv", sep=";")
    return table, kg.load_hierarchies(adult)


def run(table, schema, k, algorithm, metrics):
    started = time.perf_counter()
    try:
        res = kg.anonymize(table, schema, k=k, algorithm=algorithm, seed=0, metrics=metrics)
    except Exception as exc:  # a failed run is a data point, not a crash
        return {"error": f"{type(exc).__name__}: {exc}"[:200],
                "seconds": time.perf_counter() - started}
    out = {m: res.metrics[m] for m in metrics}
    out.update(seconds=time.perf_counter() - started, classes=len(res.classes),
               suppressed=res.suppressed, error="")
    return out


def write_csv(path, rows):
    columns = []
    for row in rows:
        columns += [c for c in row if c not in columns]
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    print(f"  wrote {path}")


# ------------------------------------------------------------------- timing
def one(args):
    """Subprocess body: one algorithm at one k; prints a JSON line."""
    table, hier = load(data_dir(args))
    if args.rows:
        table = table.sample(args.rows, random_state=0)
    schema = kg.Schema(quasi_identifiers=ADULT_QIS, sensitive=["salary-class"],
                       hierarchies=hier)
    before = _rss_mb()
    peak = [before]
    stop = threading.Event()

    def watch():
        while not stop.wait(0.005):
            peak[0] = max(peak[0], _rss_mb())

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    r = run(table, schema, args.k, args.one, ["ncp", "gcp", "loss"])
    stop.set()
    watcher.join()
    r.update(rss_before_mb=before, peak_rss_mb=max(peak[0], _rss_mb()))
    print(json.dumps(r))


def _rss_mb():
    """Current resident set size (Linux /proc; falls back to the peak so far)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timing(args):
    rows_n = 5000 if args.quick else 0
    rows = []
    for algorithm in kg.algorithms():
        for k in (5, 10):
            cmd = [sys.executable, __file__, "--one", algorithm, "--k", str(k),
                   "--rows", str(rows_n)] + (["--data", args.data] if args.data else [])
            started = time.perf_counter()
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
                line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "{}"
                r = json.loads(line) if line.startswith("{") else {
                    "error": done.stderr.strip().splitlines()[-1][:200]}
            except subprocess.TimeoutExpired:
                r = {"error": f"timeout after {TIMEOUT} s"}
            r.setdefault("seconds", time.perf_counter() - started)
            row = {"algorithm": algorithm, "k": k, "rows": rows_n or 30162, **r}
            rows.append(row)
            print(f"  timing {algorithm:22s} k={k:2d}: {row['seconds']:8.2f} s  "
                  f"peak {row.get('peak_rss_mb', float('nan')):7.0f} MB "
                  f"(+{row.get('peak_rss_mb', 0) - row.get('rss_before_mb', 0):.0f})  "
                  f"GCP {row.get('gcp', float('nan')):.4f}  {row.get('error', '')}", flush=True)
    write_csv(args.out / "timing.csv", rows)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=str(Path(__file__).parent / "out"))
    parser.add_argument("--data", default=None)
    parser.add_argument("--only", default="timing,local")
    parser.add_argument("--local-ks", default="2,5,10,20,50",
                        help="k values of the local section (full mode)")
    parser.add_argument("--local-skip", default="",
                        help='runs the local section leaves out, e.g. "k-member:50;bottom-up:50"')
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--k", type=int, default=5, help=argparse.SUPPRESS)
    parser.add_argument("--rows", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        parse_skip(args.local_skip)
    except ValueError as exc:
        parser.error(str(exc))
    if args.one:
        return one(args)
    args.out = Path(args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    table, hier = load(data_dir(args))
    parts = set(args.only.split(","))
    if "timing" in parts:
        print("full Adult, seconds and peak memory" + (" (quick: 5000 rows)" if args.quick else ""))
        timing(args)
    if "local" in parts:
        print("local recoding on Adult, 8 QIs (issue 12)"
              + (" (quick)" if args.quick else ""))
        local(args, table, hier, ADULT_QIS, write_csv)


if __name__ == "__main__":
    main()
