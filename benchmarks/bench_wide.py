"""Wide tables: the lattice searches at 8 / 10 / 12 / 16 quasi-identifiers (issue 17).

Usage::

    python benchmarks/bench_wide.py                      # 8, 10, 12 and 16 QIs
    python benchmarks/bench_wide.py --qis 10 12 --n 20000

Table: :func:`tables.wide_census` (``make_census(20000, seed=0)`` with every
quasi-identifier copied once more as a shuffled column); k=5, suppression
0.05, ARX's Loss. For every width it prints, per search, the lattice size,
wall and CPU seconds (one run), the tracemalloc peak, the Loss of the
release (``kg.metrics`` "loss"), the nodes checked and whether the node is
proven optimal, beside the reference figures of issue 17 (ARX 3.9.2 exact /
best-effort). ``optimal`` runs with its default (exact up to
``EXACT_UP_TO`` nodes, best-effort above); ``optimal-exact`` forces the
exact search where the lattice allows (``--exact-up-to``). Times come from
an untraced run; the peak from a second run under tracemalloc (which slows
numpy-heavy code about twice; ``--no-memory`` skips it). With ``ARX_BUILD``
set to an ARX 3.9.2 build (``../shared/arx/``), ARX's optimal search (Flash)
runs the same job in the same run, once per width up to ``--arx-max-qis``
(same rows, same hierarchy objects, :mod:`arx`); its release is scored with the
same ``loss`` metric and the ratio of wall times is printed. The machine's
``uptime`` is printed first and last: timings on a shared machine vary.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import kanon_graph as kg  # noqa: E402
from kanon_graph.lattice.optimal import EXACT_UP_TO  # noqa: E402
from tables import wide_census  # noqa: E402

import arx  # noqa: E402  (benchmarks/arx.py)

#: Issue 17's reference figures: QIs -> (ARX exact, ARX best-effort with a 10 s budget).
REFERENCE = {8: ("1.29 s, 0.2712", "same optimum"),
             10: ("17.5 s, 0.3322", "genetic 3.1 s, 0.3329"),
             12: ("125 s, 0.3936", "genetic 5.1 s, 0.3968"),
             16: ("out of memory (3 GB)", "genetic 10 s, 0.515-0.521")}


def run(table, schema, algorithm, memory=True, **options):
    wall, cpu = time.perf_counter(), time.process_time()
    res = kg.anonymize(table, schema, k=5, suppression=0.05, algorithm=algorithm, **options)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = float("nan")
    if memory:      # a second run: tracemalloc slows numpy-heavy code down about twice
        tracemalloc.start()
        kg.anonymize(table, schema, k=5, suppression=0.05, algorithm=algorithm, **options)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    stats = res.stats
    return {"wall": wall, "cpu": cpu, "peak": peak, "loss": res.metrics["loss"],
            "checked": stats.get("nodes_checked", "-"),
            "proven": stats.get("proven_optimal", "-")}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qis", type=int, nargs="+", default=[8, 10, 12, 16])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--exact-up-to", type=int, default=3_000_000,
                        help="run optimal-exact on lattices up to this size")
    parser.add_argument("--no-memory", action="store_true",
                        help="skip the second, traced run that measures peak memory")
    parser.add_argument("--arx-max-qis", type=int, default=12,
                        help="run ARX (with ARX_BUILD set) up to this many quasi-identifiers")
    parser.add_argument("--arx-timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    build = arx.build_folder()
    print("uptime:", os.popen("uptime").read().strip())
    print(f"{'QIs':>3} {'nodes':>12} {'search':<14} {'wall_s':>7} {'cpu_s':>7} {'peak_MiB':>8} "
          f"{'Loss':>7} {'checked':>7} {'proven':>6}  ARX 3.9.2, separate run of issue 17 "
          f"(exact | best-effort)")
    for n_qis in args.qis:
        table, schema = wide_census(n_qis, n=args.n)
        heights = [schema.hierarchies[q].height for q in schema.quasi_identifiers]
        size = kg.lattice.Lattice(heights).size
        rows = [("optimal", {}), ("datafly", {})]
        if size <= args.exact_up_to and size > EXACT_UP_TO:
            rows.insert(0, ("optimal-exact", {"exact": True}))
        for name, options in rows:
            algorithm = "optimal" if name.startswith("optimal") else name
            r = run(table, schema, algorithm, memory=not args.no_memory, **options)
            ref = REFERENCE.get(n_qis, ("", ""))
            print(f"{n_qis:>3} {size:>12,} {name:<14} {r['wall']:>7.2f} {r['cpu']:>7.2f} "
                  f"{r['peak']:>8.1f} {r['loss']:>7.4f} {str(r['checked']):>7} "
                  f"{str(r['proven']):>6}  {ref[0]} | {ref[1]}", flush=True)
            if name.startswith("optimal"):
                ours = r
        if build and n_qis <= args.arx_max_qis:
            load = os.getloadavg()[0]
            try:
                res = arx.run("optimal", table, schema, 5, suppression=0.05, warmup=0,
                              rounds=1, build=build, timeout=args.arx_timeout)
                s = arx.score(table, schema, res, 5)
                wall = res.median("wall")
                print(f"{n_qis:>3} {size:>12,} {'ARX optimal':<14} {wall:>7.2f} "
                      f"{res.median('proc_cpu'):>7.2f} {'':>8} {s['loss_geometric']:>7.4f}  same "
                      f"run, load {load:.1f}; ours / ARX wall {ours['wall'] / wall:.2f}x",
                      flush=True)
            except RuntimeError as exc:
                print(f"{n_qis:>3} {size:>12,} {'ARX optimal':<14} {exc}", flush=True)
    print("uptime:", os.popen("uptime").read().strip())


if __name__ == "__main__":
    main()
