"""Foundation benchmark: load, encode and evaluate one level vector, on Adult and a 1M census.

Usage::

    KANON_GRAPH_DATA=/path/to/shared/data python benchmarks/bench_foundation.py
    python benchmarks/bench_foundation.py --only census --rows 200000

For each dataset it prints

* ``load``: reading the table and its hierarchies (Adult:
  ``kg.datasets.load_adult`` + ``kg.load_hierarchies`` on
  ``$KANON_GRAPH_DATA/adult`` with ARX's hierarchies; census:
  ``kg.datasets.make_census(n)`` + ``census_schema()`` with the project's
  hierarchies);
* ``encode``: ``kg.encode(table, schema)``;
* ``classes``: the equivalence classes of one level vector
  (``kg.recoding.recode_levels`` on the encoded table);
* ``metrics``: every registered metric of that release
  (``kg.metrics.compute_metrics``);
* ``apply_levels``: the public end-to-end call (encode, classes, privacy
  verification, released table, metrics);
* peak memory: the tracemalloc peak of one ``apply_levels`` run (memory
  allocated by Python and numpy during the call, the input table excluded),
  and the process's maximum resident set size (``ru_maxrss``; every dataset
  runs in its own subprocess, so the figure is per dataset).

Times are the best of ``--repeat`` runs (default 3).
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

import kanon_graph as kg
from kanon_graph.metrics import compute_metrics
from kanon_graph.recoding import recode_levels

ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation"]
ADULT_LEVELS = [0, 4, 0, 2, 3, 2, 2, 1]        # ARX's optimum for k=5 (Loss 0.591585)
# the same shape on the project's hierarchies (heights 1,5,1,3,4,3,3,2): sex and race
# kept, age one below the root, marital-status / education / country / workclass at
# the root, occupation at its middle level
CENSUS_LEVELS = [0, 4, 0, 3, 4, 3, 3, 1]
K = 5


def best_of(repeat, fn):
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value


def load_adult_case():
    root = os.environ.get("KANON_GRAPH_DATA")
    if not root:
        raise SystemExit("KANON_GRAPH_DATA is not set (it should point at the shared data "
                         "folder holding adult/); use --only census to skip Adult")
    folder = Path(root) / "adult"

    def load():
        table = kg.datasets.load_adult(folder)
        hier = kg.load_hierarchies(folder)
        schema = kg.Schema(quasi_identifiers=ADULT_QIS, sensitive=["salary-class"],
                           hierarchies=hier)
        return table, schema

    return load, ADULT_LEVELS


def load_census_case(rows):
    def load():
        return kg.datasets.make_census(rows, seed=0), kg.datasets.census_schema()

    return load, CENSUS_LEVELS


def run_case(name, rows, repeat):
    load, levels = load_adult_case() if name == "adult" else load_census_case(rows)
    t_load, (table, schema) = best_of(repeat, load)
    t_encode, data = best_of(repeat, lambda: kg.encode(table, schema))
    t_classes, release = best_of(repeat, lambda: recode_levels(data, levels))
    t_metrics, values = best_of(repeat, lambda: compute_metrics(release, K))
    t_apply, result = best_of(repeat, lambda: kg.apply_levels(table, schema, levels, k=K))

    tracemalloc.start()
    kg.apply_levels(table, schema, levels, k=K)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # KiB -> MiB (Linux)

    label = "Adult (ARX hierarchies)" if name == "adult" else \
        f"make_census({len(table):,}) (project hierarchies)"
    print(f"== {label}: {len(table):,} rows, levels {list(levels)}, k={K}")
    print(f"   load           {t_load:8.3f} s")
    print(f"   encode         {t_encode:8.3f} s")
    print(f"   classes        {t_classes:8.3f} s   ({release.n_classes} classes, smallest "
          f"{int(release.sizes.min())})")
    print(f"   metrics        {t_metrics:8.3f} s   ({len(values)} metrics: loss "
          f"{values['loss']:.6f}, gcp {values['gcp']:.4f}, cavg {values['cavg']:.3f})")
    print(f"   apply_levels   {t_apply:8.3f} s   (end to end; k achieved "
          f"{result.verification.k_achieved})")
    print(f"   peak memory    {peak / 2**20:8.1f} MiB tracemalloc in apply_levels, "
          f"{maxrss:.0f} MiB max RSS of the process")
    sys.stdout.flush()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["adult", "census"],
                        help="run one dataset in this process (default: both, each in a "
                             "subprocess)")
    parser.add_argument("--rows", type=int, default=1_000_000, help="census rows")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    if args.only:
        run_case(args.only, args.rows, args.repeat)
        return
    for name in ("adult", "census"):
        subprocess.run([sys.executable, __file__, "--only", name, "--rows", str(args.rows),
                        "--repeat", str(args.repeat)], check=True)


if __name__ == "__main__":
    main()
