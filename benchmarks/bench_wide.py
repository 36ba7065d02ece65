"""Wide tables: the lattice searches at 8 / 10 / 12 / 16 quasi-identifiers (issue 17).

Usage::

    python benchmarks/bench_wide.py                      # 8, 10, 12 and 16 QIs
    python benchmarks/bench_wide.py --qis 10 12 --n 20000

Table: :func:`tables.wide_census` (``make_census(20000, seed=0)`` with every
quasi-identifier copied once more as a shuffled column); k=5, suppression
0.05, ARX's Loss. For every width it prints, per search, the lattice size,
wall and CPU seconds (one run), the tracemalloc peak, the Loss of the
release (``kg.metrics`` "loss"), the nodes checked and whether the node is
proven optimal. ``optimal`` runs with its default (exact up to
``EXACT_UP_TO`` nodes, best-effort above); ``optimal-exact`` forces the
exact search where the lattice allows (``--exact-up-to``). Times come from
an untraced run; the peak from a second run under tracemalloc (which slows
numpy-heavy code about twice; ``--no-memory`` skips it). With ``ARX_BUILD``
set to an ARX 3.9.2 build (``../shared/arx/``), ARX's optimal search (Flash, run by
``java/ArxSearch.java`` without ARX's default limit of 100,000 lattice nodes)
runs the same job in the same run, once per width up to ``--arx-max-qis``
(same rows, same hierarchy objects, :mod:`arx`), and where our default search
is best effort (lattices above ``EXACT_UP_TO`` nodes) ARX's genetic search
runs too, with a time limit of ``--arx-genetic-ms``; each ARX release is
scored with the same ``loss`` metric, and the ratio of wall times and the
difference of Loss (ours minus ARX's: below 0 is ours lower) are printed.
Our exact search is set beside ARX's optimal, our default beside its genetic. The machine's
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
                        help="run ARX's Flash (with ARX_BUILD set) up to this many "
                             "quasi-identifiers (at 16 it needs more than 3 GB)")
    parser.add_argument("--arx-genetic-ms", type=int, default=10_000,
                        help="the time limit of ARX's genetic search, run where ours is best "
                             "effort (with ARX_BUILD set)")
    parser.add_argument("--arx-timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    build = arx.build_folder()
    print("uptime:", os.popen("uptime").read().strip())
    print(f"{'QIs':>3} {'nodes':>12} {'search':<14} {'wall_s':>7} {'cpu_s':>7} {'peak_MiB':>8} "
          f"{'Loss':>7} {'checked':>7} {'proven':>6}")
    for n_qis in args.qis:
        table, schema = wide_census(n_qis, n=args.n)
        heights = [schema.hierarchies[q].height for q in schema.quasi_identifiers]
        size = kg.lattice.Lattice(heights).size
        rows = [("optimal", {}), ("datafly", {})]
        if size <= args.exact_up_to and size > EXACT_UP_TO:
            rows.insert(0, ("optimal-exact", {"exact": True}))
        found = {}
        for name, options in rows:
            algorithm = "optimal" if name.startswith("optimal") else name
            r = run(table, schema, algorithm, memory=not args.no_memory, **options)
            found[name] = r
            print(f"{n_qis:>3} {size:>12,} {name:<14} {r['wall']:>7.2f} {r['cpu']:>7.2f} "
                  f"{r['peak']:>8.1f} {r['loss']:>7.4f} {str(r['checked']):>7} "
                  f"{str(r['proven']):>6}", flush=True)
        if not build:
            continue
        exact = found.get("optimal-exact", found["optimal"])
        if n_qis <= args.arx_max_qis:
            _arx_row(table, schema, size, "flash", exact, args, n_qis)
        if size > EXACT_UP_TO:      # ours is best effort here: beside ARX's genetic search
            _arx_row(table, schema, size, "genetic", found["optimal"], args, n_qis)
    print("uptime:", os.popen("uptime").read().strip())


def _arx_row(table, schema, size, mode, ours, args, n_qis):
    """One ARX run of ``mode`` in this run, scored with our ``loss``, beside ``ours``."""
    load = os.getloadavg()[0]
    name = "ARX Flash" if mode == "flash" else f"ARX {mode} {args.arx_genetic_ms / 1000:g}s"
    try:
        res = arx.run(mode, table, schema, 5, suppression=0.05, warmup=0, rounds=1,
                      build=arx.build_folder(), timeout=args.arx_timeout,
                      millis=args.arx_genetic_ms)
    except RuntimeError as exc:
        print(f"{n_qis:>3} {size:>12,} {name:<14} {exc}", flush=True)
        return
    s = arx.score(table, schema, res, 5)
    wall = res.median("wall")
    print(f"{n_qis:>3} {size:>12,} {name:<14} {wall:>7.2f} {res.median('proc_cpu'):>7.2f} "
          f"{'':>8} {s['loss_geometric']:>7.4f}  same run, load {load:.1f}; ours / ARX: wall "
          f"{ours['wall'] / wall:.2f}x, Loss {ours['loss'] - s['loss_geometric']:+.4f}",
          flush=True)


if __name__ == "__main__":
    main()
