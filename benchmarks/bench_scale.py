"""Beyond one machine (issue 13): sharded local recoding, Dask frequency sets, rv-distributed.

Three parts, each printing rows, partitions / shards, wall and CPU seconds,
peak memory and the load average of the machine (``os.getloadavg``) next to
every timing: the figures are only comparable on a quiet machine.

``local``
    ``make_census`` in memory, k=5: ``mst`` and ``sd`` at 100,000 and
    1,000,000 rows through the default sharding (50,000-record shards, in
    this process), with the mean Loss and peak RSS.
``dask``
    ``make_census`` written as 16 Parquet partitions, ``optimal`` k=5
    through Dask (LocalCluster of 2 workers, 4 GiB limit each) and in
    memory; the level vector and Loss must agree; peak RSS per worker.
``rv``
    ``rv-distributed`` on the 20-attribute wide table through a
    LocalCluster, against ``rv-global``.

Usage::

    python benchmarks/bench_scale.py local [--n 100000 1000000]
    python benchmarks/bench_scale.py dask [--n 1000000 10000000] [--dir /tmp/kg_scale]
    python benchmarks/bench_scale.py rv
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import kanon_graph as kg


def _load():
    return "load %.1f %.1f %.1f" % os.getloadavg()


def _rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def bench_local(ns, k=5, algorithms=("mst", "sd")):
    schema = kg.datasets.census_schema()
    for n in ns:
        table = kg.datasets.make_census(n, seed=0)
        for name in algorithms:
            res, wall, cpu = _timed(lambda: kg.anonymize(table, schema, k=k, algorithm=name))
            print(f"local {name:4} rows {n:>9,} shards {res.stats.get('shards', 1):>4} "
                  f"wall {wall:7.1f} s cpu {cpu:7.1f} s  loss {res.metrics['loss']:.4f}  "
                  f"k {res.verification.k_achieved}  peak RSS {_rss_mib():7.0f} MiB  {_load()}",
                  flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("local", "dask", "rv"))
    parser.add_argument("--n", type=int, nargs="+")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--dir", default="/tmp/kg_scale")
    parser.add_argument("--algorithms", nargs="+", default=["mst", "sd"])
    args = parser.parse_args(argv)
    if args.part == "local":
        bench_local(args.n or [100_000, 1_000_000], args.k, args.algorithms)
    elif args.part == "dask":
        from bench_scale_dask import bench_dask

        bench_dask(args.n or [1_000_000, 10_000_000], args.k, args.dir)
    else:
        from bench_scale_dask import bench_rv

        bench_rv(args.k)


if __name__ == "__main__":
    main()
