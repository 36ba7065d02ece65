"""Benchmark SpatialDistance's variants on full Adult and on issue 17's patients table.

Two tables:

* **Adult** (``$KANON_GRAPH_DATA/adult/adult.csv``, 30,162 rows), the 8 usual
  quasi-identifiers with ARX's hierarchies (age numeric), at k = 2, 5, 10, 20,
  50, for ``sd`` (default ``variant="graph"``), ``sd`` with
  ``variant="paper"`` and ``mondrian`` (the reference of issue 12's target);
  ``--free`` also runs SD hierarchy-free, as the paper intends.
* **patients** (``benchmarks/tables.py``: issue 17's continuous table, no
  hierarchies) at 5,000 / 20,000 / 80,000 rows, k = 5, default variant. The
  paper variant is cubic there (issue 17: 144 s at 3,000 rows), so it runs
  only at the sizes given with ``--paper-patients``.

For every run: wall and CPU seconds of the whole ``kg.anonymize`` call
(encoding, clustering, release, verification, metrics), the peak of memory
traced by ``tracemalloc`` during a second, identical call (numba's own
buffers are not traced), the classes, the mean per-attribute ARX Loss, GCP
and discernibility (DM), and SD's own counters. The machine is shared:
``uptime`` is printed before and after; compare CPU seconds.

Usage::

    KANON_GRAPH_DATA=/path/to/data python benchmarks/bench_sd.py
    python benchmarks/bench_sd.py --k 10 --skip-patients
    python benchmarks/bench_sd.py --skip-adult --rows 5000 20000 --paper-patients 1000
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pandas as pd

import kanon_graph as kg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tables import patients as make_patients, patients_schema  # noqa: E402

QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
       "workclass", "occupation"]
KS = [2, 5, 10, 20, 50]
ROWS = [5000, 20000, 80000]
METRICS = ["loss", "gcp", "discernibility"]


def adult_schemas(adult_dir):
    arx = kg.Schema(quasi_identifiers=QIS, sensitive=["salary-class"], numeric=["age"],
                    hierarchies=kg.load_hierarchies(adult_dir))
    free = kg.Schema(quasi_identifiers=QIS, sensitive=["salary-class"], numeric=["age"],
                     categorical=[q for q in QIS if q != "age"])
    return arx, free


def run(table, schema, k, algorithm, options):
    """Time one call, then repeat it under ``tracemalloc`` for the peak memory."""
    def call():
        return kg.anonymize(table, schema, k=k, algorithm=algorithm, metrics=METRICS,
                            **options)
    wall, cpu = time.perf_counter(), time.process_time()
    res = call()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    tracemalloc.start()
    call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return res, wall, cpu, peak


def line(table_name, label, n, k, res, wall, cpu, peak):
    m, s = res.metrics, res.stats
    extra = " ".join(f"{key}={s[key]}" for key in ("merges", "orphans", "refine_moves",
                                                   "refine_splits", "leftovers") if key in s)
    if "loss_before_refine" in s:
        extra += f" refine_loss={s['loss_before_refine']:.4f}->{s['loss_after_refine']:.4f}"
    return (f"{table_name:<8} {label:<10} {n:>6} {k:>3} {wall:>7.2f} {cpu:>7.2f} "
            f"{peak / 2**20:>7.1f} {len(res.classes):>7} {m['loss']:>7.4f} {m['gcp']:>7.4f} "
            f"{m['discernibility']:>12.0f}  {extra}")


def uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:  # pragma: no cover
        return "uptime unavailable"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="*", default=KS, help="k on Adult")
    parser.add_argument("--rows", type=int, nargs="*", default=ROWS, help="patients rows")
    parser.add_argument("--paper-patients", type=int, nargs="*", default=[],
                        help="patients rows for the (cubic) paper variant")
    parser.add_argument("--free", action="store_true", help="also SD hierarchy-free on Adult")
    parser.add_argument("--skip-adult", action="store_true")
    parser.add_argument("--skip-patients", action="store_true")
    args = parser.parse_args(argv)
    print(f"# {uptime()}")
    # compile the numba kernels once so that no timing includes the JIT
    warm = make_patients(300)
    for variant in ("graph", "paper"):
        kg.anonymize(warm, patients_schema(), k=5, algorithm="sd", variant=variant,
                     metrics=[])
    print(f"{'table':<8} {'run':<10} {'n':>6} {'k':>3} {'wall_s':>7} {'cpu_s':>7} "
          f"{'peak_MB':>7} {'classes':>7} {'loss':>7} {'gcp':>7} {'DM':>12}  counters")
    if not args.skip_adult:
        root = os.environ.get("KANON_GRAPH_DATA")
        if not root:
            sys.exit("set KANON_GRAPH_DATA to the folder holding adult/")
        adult_dir = Path(root) / "adult"
        adult = pd.read_csv(adult_dir / "adult.csv", sep=";")
        arx, free = adult_schemas(adult_dir)
        runs = [("sd", "sd", arx, {}), ("sd-paper", "sd", arx, {"variant": "paper"}),
                ("mondrian", "mondrian", arx, {})]
        if args.free:
            runs += [("sd-free", "sd", free, {}),
                     ("paper-free", "sd", free, {"variant": "paper"})]
        for k in args.k:
            for label, algorithm, schema, options in runs:
                res, wall, cpu, peak = run(adult, schema, k, algorithm, options)
                print(line("adult", label, len(adult), k, res, wall, cpu, peak), flush=True)
    if not args.skip_patients:
        schema = patients_schema()
        for n in args.rows:
            res, wall, cpu, peak = run(make_patients(n), schema, 5, "sd", {})
            print(line("patients", "sd", n, 5, res, wall, cpu, peak), flush=True)
        for n in args.paper_patients:
            res, wall, cpu, peak = run(make_patients(n), schema, 5, "sd", {"variant": "paper"})
            print(line("patients", "sd-paper", n, 5, res, wall, cpu, peak), flush=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"# process peak RSS: {rss:.0f} MB")
    print(f"# {uptime()}")


if __name__ == "__main__":
    main()
