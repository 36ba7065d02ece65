"""Whole table against shards (issue 41, item 1): what sharding costs each local algorithm.

For every local recoding that ``auto`` may run and that is registered with
``shards=True`` (``mst``, ``sd``, ``mondrian``), on each table, size and k:
one ``kg.anonymize`` call on the whole table (``shard_size=n``) and one per
smaller shard size (median-cut shards, :mod:`kanon_graph.scale.sharding`),
each in a forked child process stopped after ``--timeout`` seconds (the
table is built in the child, so its peak memory is the call's and the
table's, above the parent's baseline printed first).

Measured per run: Loss (``res.metrics["loss"]``, the mean over the
quasi-identifiers of ARX's per-attribute Loss, one formula for every run),
the number of shards, CPU and wall seconds of the ``anonymize`` call (which
verifies the release from its cells), the child's peak resident memory
(``ru_maxrss``) and the load average before and after. Every row is
appended to ``--out`` (CSV) as soon as it finishes, so a long run leaves
its partial rows; rows already in that file are not run again.

Tables:

* ``census`` -- ``kg.datasets.make_census(n, seed=0)`` with
  ``kg.datasets.census_schema()`` (8 quasi-identifiers, hierarchies);
* ``census-flat`` -- the same rows without hierarchies (age numeric, the
  rest categorical);
* ``patients-flat`` -- ``tables.patients(n)`` (zip, dob, sex, income;
  income numeric; no hierarchies), the quality suite's continuous table.

``--summary`` prints, from the CSV, each sharded run against the whole
table's (Loss change and CPU change in percent), as the markdown table of
docs/large-data.md, without running anything; ``--k``, ``--n`` and
``--shards`` then narrow it to the runs named. ``--evidence`` prints the
entries of ``SHARD_EVIDENCE`` (``kanon_graph/scale/shard_rule.py``) from
the CSV.

Usage::

    python benchmarks/bench_shards.py [--algorithms mst,sd,mondrian]
        [--tables census,census-flat,patients-flat] [--n 20000,50000,100000,200000]
        [--k 10,5,20] [--shards 10000,25000,50000] [--timeout 900]
        [--out docs/bench/shards.csv]
    python benchmarks/bench_shards.py --summary [--k 10] [--n 200000] [--shards 50000]
    python benchmarks/bench_shards.py --evidence
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import sys
import time
from pathlib import Path

import kanon_graph as kg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tables as T  # noqa: E402  (benchmarks/tables.py)
from quality import forked  # noqa: E402  (benchmarks/quality.py)

FIELDS = ["table", "n", "algorithm", "k", "shard_size", "shards", "loss", "cpu_s", "wall_s",
          "peak_mb", "baseline_mb", "load_before", "load_after", "error"]


def census(n):
    return kg.datasets.make_census(n, seed=0), kg.datasets.census_schema()


def census_flat(n):
    table, schema = census(n)
    qis = list(schema.quasi_identifiers)
    return table, kg.Schema(quasi_identifiers=qis, sensitive=list(schema.sensitive),
                            numeric=["age"], categorical=[q for q in qis if q != "age"])


def patients_flat(n):
    return T.patients(n), T.patients_schema()


#: The whole table counts as runnable up to the largest size whose whole run took at
#: most this many CPU seconds (a few minutes, under the load of the run).
WHOLE_CPU_LIMIT = 300

TABLES = {"census": census, "census-flat": census_flat, "patients-flat": patients_flat}


def _rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(queue, tname, n, algorithm, k, shard_size):
    try:
        table, schema = TABLES[tname](n)
        load = os.getloadavg()[0]
        wall, cpu = time.perf_counter(), time.process_time()
        res = kg.anonymize(table, schema, k=k, algorithm=algorithm, seed=0,
                           shard_size=shard_size)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        queue.put({"shards": res.stats.get("shards", 1), "loss": float(res.metrics["loss"]),
                   "cpu_s": cpu, "wall_s": wall, "peak_mb": _rss_mb(), "load_before": load,
                   "load_after": os.getloadavg()[0], "error": ""})
    except Exception as exc:  # a failed run is a data point
        queue.put({"error": f"{type(exc).__name__}: {exc}"[:200]})


def _key(row):
    return (row["table"], int(row["n"]), row["algorithm"], int(row["k"]), int(row["shard_size"]))


def read_rows(path):
    if not Path(path).exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _fmt(row):
    if row.get("error"):
        return (f"{row['table']:13} {int(row['n']):>7} {row['algorithm']:8} k={int(row['k']):<3}"
                f" shard_size {int(row['shard_size']):>7}  {row['error']}")
    return (f"{row['table']:13} {int(row['n']):>7} {row['algorithm']:8} k={int(row['k']):<3}"
            f" shard_size {int(row['shard_size']):>7} shards {int(row['shards']):>3}"
            f"  loss {float(row['loss']):.4f}  cpu {float(row['cpu_s']):7.1f} s"
            f"  wall {float(row['wall_s']):7.1f} s  peak {float(row['peak_mb']):6.0f} MB"
            f"  load {float(row['load_before']):.1f}-{float(row['load_after']):.1f}")


def run(args):
    done = {_key(r) for r in read_rows(args.out)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    new = not Path(args.out).exists()
    # compile the kernels once in the parent (the children inherit them)
    warm_table, warm_schema = census(400)
    for name in args.algorithms:
        kg.anonymize(warm_table, warm_schema, k=5, algorithm=name)
        kg.anonymize(*census_flat(400), k=5, algorithm=name)
        kg.anonymize(*patients_flat(400), k=5, algorithm=name)
    baseline = _rss_mb()
    print(f"# parent baseline peak RSS {baseline:.0f} MB (in every child's peak); "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with open(args.out, "a", newline="") as out_file:
        writer = csv.DictWriter(out_file, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        for k in args.k:
            for n in args.n:
                for tname in args.tables:
                    for algorithm in args.algorithms:
                        sizes = [n] + [s for s in args.shards if s < n]
                        for shard_size in sizes:
                            row = {"table": tname, "n": n, "algorithm": algorithm, "k": k,
                                   "shard_size": shard_size}
                            if _key(row) in done:
                                continue
                            out = forked(_child, (tname, n, algorithm, k, shard_size),
                                         args.timeout)
                            row.update({name: out.get(name, "") for name in FIELDS
                                        if name not in row}, baseline_mb=round(baseline))
                            if row["loss"] != "":
                                row["loss"] = f"{row['loss']:.6f}"
                            for name in ("cpu_s", "wall_s", "peak_mb", "load_before",
                                         "load_after"):
                                if row[name] != "":
                                    row[name] = f"{float(row[name]):.2f}"
                            writer.writerow(row)
                            out_file.flush()
                            print(_fmt(row), flush=True)
                            if row["error"] and shard_size == n:
                                break       # the whole table did not run: no comparison
    print(f"# load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def comparisons(rows):
    """Each sharded run beside the whole table's: dicts with the changes in percent."""
    whole = {(r["table"], int(r["n"]), r["algorithm"], int(r["k"])): r for r in rows
             if int(r["shard_size"]) >= int(r["n"])}
    out = []
    for r in rows:
        key = (r["table"], int(r["n"]), r["algorithm"], int(r["k"]))
        if int(r["shard_size"]) >= int(r["n"]) or r["error"]:
            continue
        w = whole.get(key)
        entry = {"table": key[0], "n": key[1], "algorithm": key[2], "k": key[3],
                 "shard_size": int(r["shard_size"]), "shards": int(r["shards"]),
                 "loss": float(r["loss"]), "cpu_s": float(r["cpu_s"]),
                 "peak_mb": float(r["peak_mb"]),
                 "load": f"{float(r['load_before']):.1f}-{float(r['load_after']):.1f}"}
        if w is None or w["error"]:
            entry.update(whole_loss=None, whole_cpu_s=None, loss_change=None, cpu_change=None,
                         whole_error=(w or {}).get("error", "not run"))
        else:
            wl, wc = float(w["loss"]), float(w["cpu_s"])
            entry.update(whole_loss=wl, whole_cpu_s=wc, whole_peak_mb=float(w["peak_mb"]),
                         loss_change=100 * (entry["loss"] - wl) / wl,
                         cpu_change=100 * (entry["cpu_s"] - wc) / wc,
                         whole_load=f"{float(w['load_before']):.1f}-{float(w['load_after']):.1f}",
                         whole_error="")
        out.append(entry)
    return out


def summary(path, ks=None, ns=None, shard_sizes=None):
    """The markdown table of :func:`comparisons`, narrowed to ``ks``, ``ns`` and ``shard_sizes``."""
    rows = [r for r in read_rows(path)
            if (ks is None or int(r["k"]) in ks) and (ns is None or int(r["n"]) in ns)
            and (shard_sizes is None or int(r["shard_size"]) in shard_sizes
                 or int(r["shard_size"]) >= int(r["n"]))]
    print(f"# from {path} ({len(rows)} runs); Loss = res.metrics['loss']; CPU s under the "
          f"load shown")
    print("| algorithm | table | rows | k | shards (size) | whole Loss | sharded Loss | Loss "
          "change | whole CPU s | sharded CPU s | CPU change | peak MB | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for e in sorted(comparisons(rows), key=lambda e: (e["algorithm"], e["table"], e["n"],
                                                       e["k"], -e["shard_size"])):
        shards = f"{e['shards']} (<= {e['shard_size']:,})"
        if e["whole_loss"] is None:
            print(f"| {e['algorithm']} | {e['table']} | {e['n']:,} | {e['k']} | {shards} | "
                  f"({e['whole_error']}) | {e['loss']:.4f} | | | {e['cpu_s']:.1f} | | "
                  f"- / {e['peak_mb']:.0f} | {e['load']} |")
            continue
        print(f"| {e['algorithm']} | {e['table']} | {e['n']:,} | {e['k']} | {shards} | "
              f"{e['whole_loss']:.4f} | {e['loss']:.4f} | {e['loss_change']:+.1f}% | "
              f"{e['whole_cpu_s']:.1f} | {e['cpu_s']:.1f} | {e['cpu_change']:+.0f}% | "
              f"{e['whole_peak_mb']:.0f} / {e['peak_mb']:.0f} | {e['whole_load']} / {e['load']} |")


def evidence(path):
    """Print ``SHARD_EVIDENCE``'s entries (kanon_graph/scale/shard_rule.py) from the CSV.

    Per algorithm: every comparison with shards of the default 50,000, and at
    50,000 rows those with shards of 25,000; the largest census table at
    k = 10 first (the one a report cites); ``whole_limit`` the largest size at
    which every whole run measured finished within :data:`WHOLE_CPU_LIMIT` CPU
    seconds, or
    None where shards never saved a tenth of the whole run's CPU time (no
    size at which shards would pay for their Loss).
    """
    rows = read_rows(path)
    for name in sorted({r["algorithm"] for r in rows}):
        chosen = [e for e in comparisons([r for r in rows if r["algorithm"] == name])
                  if e["whole_loss"] is not None
                  and (e["shard_size"] == 50_000
                       or (e["n"], e["shard_size"]) == (50_000, 25_000))]
        chosen.sort(key=lambda e: (e["table"] != "census", e["k"] != 10, -e["n"], e["table"],
                                   e["k"]))
        wholes = [r for r in rows if r["algorithm"] == name and int(r["shard_size"]) >= int(r["n"])]
        limit = max(n for n in {int(r["n"]) for r in wholes}
                    if all(not r["error"] and float(r["cpu_s"]) <= WHOLE_CPU_LIMIT
                           for r in wholes if int(r["n"]) == n))
        print(f'    "{name}": ShardEvidence((')
        for e in chosen:
            print(f'        ShardCost("{e["table"]}", {e["n"]:_}, {e["k"]}, {e["shard_size"]:_}, '
                  f'{e["shards"]}, {e["whole_loss"]:.6f}, {e["loss"]:.6f}, '
                  f'{e["whole_cpu_s"]:.1f}, {e["cpu_s"]:.1f},\n'
                  f'                  "{e["whole_load"]} / {e["load"]}"),')
        saves = any(e["cpu_s"] < 0.9 * e["whole_cpu_s"] for e in chosen)
        print(f"    ), whole_limit={f'{limit:_}' if saves else None}),")


def _ints(text):
    return [int(x) for x in text.split(",") if x]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", default="mst,sd,mondrian",
                        type=lambda s: s.split(","))
    parser.add_argument("--tables", default="census,census-flat,patients-flat",
                        type=lambda s: s.split(","))
    parser.add_argument("--n", type=_ints, help="default 20000,50000,100000,200000")
    parser.add_argument("--k", type=_ints, help="default 10,5,20")
    parser.add_argument("--shards", type=_ints, help="default 10000,25000,50000")
    parser.add_argument("--timeout", default=900.0, type=float)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent
                                             / "docs" / "bench" / "shards.csv"))
    parser.add_argument("--summary", action="store_true",
                        help="print the comparison from --out and run nothing")
    parser.add_argument("--evidence", action="store_true",
                        help="print shard_rule.SHARD_EVIDENCE's entries from --out")
    args = parser.parse_args(argv)
    narrow = (args.k, args.n, args.shards)         # --summary: only what was named
    args.n = args.n or [20_000, 50_000, 100_000, 200_000]
    args.k = args.k or [10, 5, 20]
    args.shards = args.shards or [10_000, 25_000, 50_000]
    if args.evidence:
        return evidence(args.out)
    if not args.summary:
        run(args)
    summary(args.out, *narrow)


if __name__ == "__main__":
    main()
