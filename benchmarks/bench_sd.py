"""Benchmark SpatialDistance (paper 000, section 5) on Adult, next to the baselines.

For every n (the FIRST n rows of ``$KANON_GRAPH_DATA/adult/adult.csv``) and k it
prints seconds (wall and CPU of the whole ``kg.anonymize`` call: encoding,
clustering, recoding, verification, metrics), the peak of memory traced by
``tracemalloc`` during a second, identical call (tracing slows the first
otherwise; numba's own buffers are not traced, they are O(distinct tuples)),
the total NCP (eq. 2-3), the total NCP normalized to [0, 1] (``gcp``) and
the data utility (eq. 4). The process's peak RSS is printed at the end.

SD runs hierarchy-free (age numeric, the seven others categorical, no
hierarchies), as the paper intends. The baselines that need hierarchies
(Datafly; Mondrian and Incognito when registered) get ARX's Adult
hierarchies; their NCP is then measured on the hierarchy's leaves, and
Datafly's suppressed records cost 1 per attribute.

Usage::

    KANON_GRAPH_DATA=/path/to/data python benchmarks/bench_sd.py [--quick]
    python benchmarks/bench_sd.py --n 30162 --k 10 --algorithms sd
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import pandas as pd

import kanon_graph as kg

QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
       "workclass", "occupation"]
NS = [500, 1000, 3000, 5000, 30162]
KS = [2, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50]
BASELINES = ["datafly", "mondrian", "incognito"]


def schemas(adult_dir):
    free = kg.Schema(quasi_identifiers=QIS, sensitive=["salary-class"], numeric=["age"],
                     categorical=[q for q in QIS if q != "age"])
    arx = kg.Schema(quasi_identifiers=QIS, sensitive=["salary-class"], numeric=["age"],
                    hierarchies=kg.load_hierarchies(adult_dir))
    return free, arx


def run(table, schema, k, algorithm):
    """Time one call, then repeat it under ``tracemalloc`` for the peak memory."""
    def call():
        return kg.anonymize(table, schema, k=k, algorithm=algorithm,
                            metrics=["ncp", "gcp", "utility"])
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        res, error = call(), None
    except Exception as exc:  # report and go on
        res, error = None, f"{type(exc).__name__}: {exc}"
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = 0
    if error is None:
        tracemalloc.start()
        call()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return res, error, wall, cpu, peak


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="n in {500, 1000, 30162}, k in {2, 10, 50}")
    parser.add_argument("--n", type=int, nargs="*", help="row counts (first n rows)")
    parser.add_argument("--k", type=int, nargs="*", help="anonymity degrees")
    parser.add_argument("--algorithms", nargs="*", default=["sd"] + BASELINES)
    args = parser.parse_args(argv)
    root = os.environ.get("KANON_GRAPH_DATA")
    if not root:
        sys.exit("set KANON_GRAPH_DATA to the folder holding adult/")
    adult_dir = Path(root) / "adult"
    full = pd.read_csv(adult_dir / "adult.csv", sep=";")
    free, arx = schemas(adult_dir)
    ns = args.n or ([500, 1000, 30162] if args.quick else NS)
    ks = args.k or ([2, 10, 50] if args.quick else KS)
    known = kg.algorithms()
    algorithms = []
    for name in args.algorithms:
        if name in known:
            algorithms.append(name)
        else:
            print(f"# {name}: not registered in kanon_graph yet; skipped")
    # compile SD's kernels once so the first timing does not include numba's JIT
    kg.anonymize(full.head(50), free, k=2, algorithm="sd", metrics=[])
    print(f"# Adult, first n rows, 8 quasi-identifiers; SD hierarchy-free, baselines with "
          f"ARX hierarchies")
    print(f"{'algorithm':<10} {'n':>6} {'k':>3} {'wall_s':>8} {'cpu_s':>8} {'peak_MB':>8} "
          f"{'classes':>7} {'supp':>5} {'total_NCP':>11} {'NCP_norm':>8} {'utility':>8}")
    for n in ns:
        table = full.head(n)
        for k in ks:
            for name in algorithms:
                schema = free if name == "sd" else arx
                res, error, wall, cpu, peak = run(table, schema, k, name)
                head = f"{name:<10} {n:>6} {k:>3} {wall:>8.3f} {cpu:>8.3f} {peak / 2**20:>8.1f}"
                if error:
                    print(f"{head}  failed: {error[:80]}")
                    continue
                m = res.metrics
                print(f"{head} {len(res.classes):>7} {res.suppressed:>5} {m['ncp']:>11.1f} "
                      f"{m['gcp']:>8.4f} {m['utility']:>8.4f}", flush=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"# process peak RSS: {rss:.0f} MB")


if __name__ == "__main__":
    main()
