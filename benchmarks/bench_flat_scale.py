"""Hierarchy-free tables at scale (issue 41, item 3): one call, its Loss, CPU and load.

The table (:data:`TABLES`, ``--table``, built by :func:`build`) has **no
hierarchies**, as a new user would give it: ``kg.datasets.make_register(n,
seed=42)`` with its six columns as quasi-identifiers (default; nearly every
tuple distinct, the shape of issue 41's 14.5-minute ``mst`` run), six columns
of ``kg.datasets.make_census(n, seed=0)`` (most records share their tuple),
or the held-out ``claims`` and ``admissions`` of :mod:`heldout` (never used
to choose a default) declared as ``quality.py``'s ``-flat`` tables. For
each algorithm named (default ``auto``) at each k it runs ``kg.anonymize``
in a fresh subprocess and prints one line:

* ``loss``: ``res.metrics["loss"]``, ARX's Loss
  (:func:`kanon_graph.metrics.arx_loss`: the geometric mean of ``1 +`` the
  per-attribute losses, minus 1), which the library scores every
  hierarchy-free release with from its released cells (an interval's width
  over the column's range, a set's size), so two algorithms are compared
  with one formula;
* ``wall_s`` / ``cpu_s`` of the ``kg.anonymize`` call (``time.process_time``:
  the child's user + system time, all threads),
  ``peak_MB`` (the child's peak resident set size), ``algorithm`` (what
  ``auto`` ran), ``shards``, ``inner`` (what ``flat`` clustered its rare
  records with);
* ``/proc/loadavg`` before and after: the machine is shared, CPU seconds
  are the steadier measure; Loss does not depend on load.

Usage::

    python benchmarks/bench_flat_scale.py                      # 1,000,000 rows, auto, k=10
    python benchmarks/bench_flat_scale.py --algorithms mst     # today's mst (~15 min CPU)
    python benchmarks/bench_flat_scale.py --table census --k 5 10 20 --algorithms flat mst
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

#: The tables: how to make ``n`` rows and the columns taken as quasi-identifiers.
TABLES = {
    # the register's six columns (two dates, postcode districts, ICD-10 codes): 999,925
    # distinct tuples at 1,000,000 rows, the shape of the 14.5-minute run
    "register": "kg.datasets.make_register(n, seed=42), its six columns",
    # six census columns (age and five categories): 64,856 distinct tuples at 1,000,000 rows
    "census": "kg.datasets.make_census(n, seed=0): sex, age, race, marital-status, "
              "education, native-country",
    # held out (benchmarks/heldout.py; never steered a default), as quality.py's -flat tables
    "claims": "heldout.claims(n) without hierarchies (amount numeric, birth a date)",
    "admissions": "heldout.admissions(n) without hierarchies (admitted and birth dates)",
}
CENSUS_QIS = ["sex", "age", "race", "marital-status", "education", "native-country"]


def build(name, n):
    """``(table, schema)`` of ``n`` rows of table ``name`` (:data:`TABLES`), no hierarchies."""
    import kanon_graph as kg

    if name == "register":
        table = kg.datasets.make_register(n, seed=42)
        return table, kg.Schema(quasi_identifiers=list(table.columns))
    if name == "census":
        return kg.datasets.make_census(n, seed=0), kg.Schema(quasi_identifiers=CENSUS_QIS)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import heldout

    declared = {"claims": dict(numeric=["amount"], dates=["birth"]),
                "admissions": dict(dates=["admitted", "birth"])}[name]
    table, schema = getattr(heldout, name)(n)
    qis = list(schema.quasi_identifiers)
    flat = sum(declared.values(), [])
    return table, kg.Schema(quasi_identifiers=qis, categorical=[q for q in qis if q not in flat],
                            **declared)


_CHILD = r"""
import json, resource, sys, time, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, sys.argv[5])
import bench_flat_scale
import kanon_graph as kg
name, n, k, algorithm = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
table, schema = bench_flat_scale.build(name, n)
t0, c0 = time.perf_counter(), time.process_time()
res = kg.anonymize(table, schema, k=k, algorithm=algorithm)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"loss": res.metrics["loss"], "wall_s": wall, "cpu_s": cpu, "peak_MB": peak,
                  "algorithm": res.algorithm, "shards": res.stats.get("shards", 1),
                  "inner": res.stats.get("inner", "-")}))
"""

def _load():
    with open("/proc/loadavg") as fh:
        return " ".join(fh.read().split()[:3])


def main(argv=None):
    """Run every (algorithm, k) pair and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--table", choices=sorted(TABLES), default="register")
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--k", type=int, nargs="+", default=[10])
    parser.add_argument("--algorithms", nargs="+", default=["auto"])
    args = parser.parse_args(argv)
    print(f"{args.table}, {args.n:,} rows: {TABLES[args.table]}; no hierarchies")
    for algorithm in args.algorithms:
        for k in args.k:
            before = _load()
            out = subprocess.run([sys.executable, "-c", _CHILD, args.table, str(args.n), str(k),
                                  algorithm, str(Path(__file__).resolve().parent)],
                                 capture_output=True, text=True)
            if out.returncode:
                print(f"{algorithm:10s} k={k:<3d} failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            row = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{algorithm:10s} k={k:<3d} ran={row['algorithm']:10s} loss={row['loss']:.4f} "
                  f"wall_s={row['wall_s']:.1f} cpu_s={row['cpu_s']:.1f} peak_MB={row['peak_MB']:.0f} "
                  f"shards={row['shards']} inner={row['inner']} load {before} -> {_load()}", flush=True)


if __name__ == "__main__":
    main()
