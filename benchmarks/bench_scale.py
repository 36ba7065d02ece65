"""Beyond one machine (issue 13): sharded local recoding, Dask frequency sets, rv-distributed.

Three parts, each printing rows, partitions / shards, wall and CPU seconds,
peak memory and the load average of the machine (``os.getloadavg``) next to
every timing: the figures are only comparable on a quiet machine.

``local``
    ``make_census`` in memory, k=5: ``mst`` and ``sd`` at 100,000 and
    1,000,000 rows with the default shards (since issue 41
    :mod:`kanon_graph.scale.shard_rule`'s: the whole table at 100,000 rows,
    50,000-record shards at 1,000,000), with the mean Loss and peak RSS.
``dask``
    ``make_census`` written as 16 Parquet partitions, ``optimal`` k=5
    through Dask (LocalCluster of 2 workers, 4 GiB limit each) and in
    memory; the level vector and Loss must agree; peak RSS per worker;
    with ``--evaluate``, ``kg.evaluate`` of the written release through Dask.
``rv``
    ``rv-distributed`` on the 20-attribute wide table through a
    LocalCluster, against ``rv-global``.

Usage::

    python benchmarks/bench_scale.py local [--n 100000 1000000]
    python benchmarks/bench_scale.py dask [--n 1000000 10000000] [--dir /tmp/kg_scale] [--evaluate]
        [--csv] [--threads]

``--csv`` writes the same rows as 16 CSV files and reads them with the
command line's reader (``kanon_graph.cli._dask_input.read_dask_table``: the
pandas engine's cell rules, file by file) instead of ``dd.read_parquet``.
``--threads`` runs the Dask call on the default scheduler (no Client: dask's
threads in this process) and the in-memory call on the same rows (the
Parquet files read into pandas), alternating, ``--rounds`` rounds after an
untimed warm-up call of each (which compiles the search's kernels), checks
that both give the same levels, Loss and released cells, and prints the
median wall and CPU seconds of each, their ratios and the load::

    python benchmarks/bench_scale.py dask --threads --n 1000000 [--rounds 5]
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


def _write_parquet(n, folder, partitions=16):
    """make_census(n) as ``partitions`` Parquet files (generated one partition at a time
    beyond 2,000,000 rows, each with its own seed, so the table never sits in memory)."""
    import pathlib

    folder = pathlib.Path(folder) / f"census_{n}"
    if folder.is_dir() and len(list(folder.glob("*.parquet"))) == partitions:
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    step = -(-n // partitions)
    whole = kg.datasets.make_census(n, seed=0) if n <= 2_000_000 else None
    for i in range(partitions):
        lo, hi = i * step, min((i + 1) * step, n)
        part = whole.iloc[lo:hi] if whole is not None else kg.datasets.make_census(hi - lo,
                                                                                  seed=i)
        part.to_parquet(folder / f"part-{i:02d}.parquet", index=False)
    return folder


def _write_csv(n, folder, partitions=16):
    """The Parquet partitions of :func:`_write_parquet` as CSV files (one per partition)."""
    import pathlib

    import pandas as pd

    source = _write_parquet(n, folder, partitions)
    target = pathlib.Path(folder) / f"census_{n}_csv"
    if target.is_dir() and len(list(target.glob("*.csv"))) == partitions:
        return target
    target.mkdir(parents=True, exist_ok=True)
    for file in sorted(source.glob("*.parquet")):
        pd.read_parquet(file).to_csv(target / (file.stem + ".csv"), index=False)
    return target


def _worker_peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_dask(ns, k, folder, evaluate=False, csv=False):
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    schema = kg.datasets.census_schema()
    # compile the search's kernels once, outside both timed calls
    kg.anonymize(kg.datasets.make_census(2000, seed=1), schema, k=k, algorithm="optimal")
    for n in ns:
        writer = _write_csv if csv else _write_parquet
        path, wall, cpu = _timed(lambda: writer(n, folder))
        print(f"dask  wrote {n:,} rows as 16 {'CSV' if csv else 'Parquet'} files in "
              f"{wall:.1f} s", flush=True)
        with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="4GiB",
                          dashboard_address=":0") as cluster, Client(cluster) as client:
            if csv:
                from kanon_graph.cli._dask_input import read_dask_table

                ddf = read_dask_table(str(path / "*.csv"), schema=schema)
            else:
                ddf = dd.read_parquet(str(path))
            res, wall, cpu = _timed(lambda: kg.anonymize(ddf, schema, k=k, algorithm="optimal"))
            out = f"{folder}/release_{n}"
            _, wall_w, cpu_w = _timed(lambda: res.table.to_parquet(out, write_index=False))
            peaks = client.run(_worker_peak_mib)
            if evaluate:
                ev, wall_e, _ = _timed(lambda: kg.evaluate(dd.read_parquet(str(path)),
                                                           dd.read_parquet(out), schema, k=k))
                same = ev.levels == res.levels and abs(ev.metrics["loss"]
                                                       - res.metrics["loss"]) < 1e-12
                print(f"dask  evaluate rows {n:>10,} wall {wall_e:7.1f} s  same levels and "
                      f"loss: {same}  "
                      f"client peak RSS {_rss_mib():.0f} MiB  {_load()}", flush=True)
        print(f"dask  optimal {'CSV' if csv else 'Parquet'} rows {n:>10,} partitions "
              f"{ddf.npartitions} wall {wall:7.1f} s "
              f"cpu(client) {cpu:6.1f} s  write release {wall_w:5.1f} s  levels "
              f"{list(res.levels.values())} loss {res.metrics['loss']:.6f}  worker peak RSS "
              f"{', '.join(f'{v:.0f}' for v in peaks.values())} MiB  client peak RSS "
              f"{_rss_mib():.0f} MiB  {_load()}", flush=True)
        if n <= 2_000_000:
            table = kg.datasets.make_census(n, seed=0)
            mem, wall_m, cpu_m = _timed(lambda: kg.anonymize(table, schema, k=k,
                                                              algorithm="optimal"))
            same = mem.levels == res.levels and abs(mem.metrics["loss"] - res.metrics["loss"]) \
                < 1e-12
            print(f"mem   optimal rows {n:>10,} wall {wall_m:7.1f} s cpu {cpu_m:6.1f} s  "
                  f"ratio dask/memory {wall / wall_m:.2f}  same levels and loss: {same}  "
                  f"{_load()}", flush=True)


def bench_dask_threads(ns, k, folder, rounds=5):
    """``optimal`` through Dask on the default scheduler (no Client: dask's threads in this
    process) against the in-memory call on the same rows, alternating, ``rounds`` rounds
    after one untimed warm-up call of each; both must give the same levels, Loss and
    released cells. Prints the median wall and CPU seconds (CPU of the whole process, every
    thread) of each, their ratios, and the load before and after."""
    import statistics

    import dask.dataframe as dd
    import pandas as pd

    schema = kg.datasets.census_schema()
    for n in ns:
        path = _write_parquet(n, folder)
        ddf = dd.read_parquet(str(path))
        table = pd.read_parquet(path)           # the same rows, in memory
        before = _load()
        calls = {"dask": lambda: kg.anonymize(ddf, schema, k=k, algorithm="optimal"),
                 "mem": lambda: kg.anonymize(table, schema, k=k, algorithm="optimal")}
        results = {name: call() for name, call in calls.items()}       # warm-up, untimed
        dask_cells = results["dask"].table.compute().reset_index(drop=True)
        same = (results["dask"].levels == results["mem"].levels
                and abs(results["dask"].metrics["loss"] - results["mem"].metrics["loss"])
                < 1e-12 and dask_cells.astype(str).equals(
                    results["mem"].table.reset_index(drop=True).astype(str)))
        walls, cpus = {"dask": [], "mem": []}, {"dask": [], "mem": []}
        for _ in range(rounds):
            for name, call in calls.items():
                _, wall, cpu = _timed(call)
                walls[name].append(wall)
                cpus[name].append(cpu)
        med = {name: (statistics.median(walls[name]), statistics.median(cpus[name]))
               for name in calls}
        for name in calls:
            print(f"{name:5} optimal rows {n:>10,} median of {rounds}: wall "
                  f"{med[name][0]:6.3f} s cpu {med[name][1]:6.3f} s  (walls "
                  f"{', '.join(f'{w:.3f}' for w in walls[name])})", flush=True)
        print(f"ratio dask/memory rows {n:,}: wall {med['dask'][0] / med['mem'][0]:.2f}x cpu "
              f"{med['dask'][1] / med['mem'][1]:.2f}x  same levels, Loss and cells: {same}  "
              f"levels {list(results['mem'].levels.values())}  {before} -> {_load()}",
              flush=True)


def bench_rv(k):
    from distributed import Client, LocalCluster

    from kanon_graph.datasets import make_wide_binary

    table, schema = make_wide_binary(1000, 20, 0)
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="4GiB",
                      dashboard_address=":0") as cluster, Client(cluster):
        dist, wall, cpu = _timed(lambda: kg.anonymize(table, schema, k=k,
                                                      algorithm="rv-distributed",
                                                      memory_budget=4 * 2**20))
    glob_, wall_g, cpu_g = _timed(lambda: kg.anonymize(table, schema, k=k,
                                                       algorithm="rv-global"))
    print(f"rv-distributed (20 attributes, 4 MiB subsets, {dist.stats['subsets']} subsets) "
          f"wall {wall:.1f} s cpu(client) {cpu:.1f} s; rv-global wall {wall_g:.1f} s; same "
          f"levels: {dist.levels == glob_.levels}, RV {dist.stats['research_value']} vs "
          f"{glob_.stats['research_value']}  {_load()}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("local", "dask", "rv"))
    parser.add_argument("--n", type=int, nargs="+")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--dir", default="/tmp/kg_scale")
    parser.add_argument("--algorithms", nargs="+", default=["mst", "sd"])
    parser.add_argument("--evaluate", action="store_true",
                        help="dask: also time kg.evaluate of the written release through Dask")
    parser.add_argument("--threads", action="store_true",
                        help="dask: the default scheduler (threads here) against the "
                             "in-memory call, alternating, median of --rounds")
    parser.add_argument("--rounds", type=int, default=5,
                        help="dask --threads: timed rounds (each: one Dask, one in-memory call)")
    parser.add_argument("--csv", action="store_true",
                        help="dask: read 16 CSV files with the command line's reader")
    args = parser.parse_args(argv)
    if args.part == "local":
        bench_local(args.n or [100_000, 1_000_000], args.k, args.algorithms)
    elif args.part == "dask" and args.threads:
        bench_dask_threads(args.n or [1_000_000], args.k, args.dir, args.rounds)
    elif args.part == "dask":
        bench_dask(args.n or [1_000_000, 10_000_000], args.k, args.dir, args.evaluate,
                   args.csv)
    else:
        bench_rv(args.k)


if __name__ == "__main__":
    main()
