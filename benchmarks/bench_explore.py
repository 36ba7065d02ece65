"""The explorer on a million rows (issue 49): each view's answer time once the run is done.

Starts ``kg.explore`` (a real uvicorn server on 127.0.0.1, in a thread) on
``make_census(N, seed=0)``, runs k (default 10) with each algorithm named
(default ``auto`` then ``optimal``: a local and a global recoding, so the
lattice view has a node to show), waits for each, then times every view
endpoint over HTTP, ``--repeat`` times each (the median and the largest):
``GET /api/release/{id}``, ``/api/release/{id}/lattice``,
``/api/compare?a&b``, ``/api/hierarchy/{qi}`` for every quasi-identifier,
and one hierarchy edit (``add_level``, then ``drop_level`` back). The target
is under one second per view after the run: the views are computed once, in
the run's worker process, from the released cells, and the server answers
from that summary. The run's own seconds are printed too (not a view).

Timings are only meaningful on a quiet machine: the load average is printed
beside them.

Usage::

    python benchmarks/bench_explore.py [--n 1000000] [--k 10] [--algorithms auto,optimal]
        [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import kanon_graph as kg


def _timed(call, repeat):
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        answer = call()
        seconds.append(time.perf_counter() - start)
        answer.raise_for_status()
    return statistics.median(seconds), max(seconds), len(answer.content)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--algorithms", default="auto,optimal")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    import httpx

    table = kg.datasets.make_census(args.n, seed=0)
    schema = kg.datasets.census_schema()
    ex = kg.explore(table, schema)
    base = ex.url.split("/?")[0]
    http = httpx.Client(base_url=base, headers={"X-Token": ex.session.token}, timeout=3600)
    print(f"rows {args.n:,}  k {args.k}  load {os.getloadavg()[0]:.2f}")
    try:
        runs = []
        for algorithm in args.algorithms.split(","):
            start = time.perf_counter()
            run = http.post("/api/run", json={"k": args.k, "algorithm": algorithm}).json()["run"]
            while (state := http.get(f"/api/run/{run}").json())["state"] == "running":
                time.sleep(0.5)
            if state["state"] != "done":
                raise SystemExit(f"run {algorithm} {state['state']}: {state.get('error')}")
            print(f"run {algorithm:10s} {time.perf_counter() - start:8.2f} s (the run and its "
                  f"views, in a worker)  loss {state['summary']['loss']:.4f}")
            runs.append(run)
        views = []
        for run in runs:
            views.append((f"release {run}", lambda r=run: http.get(f"/api/release/{r}")))
            views.append((f"lattice {run}", lambda r=run: http.get(f"/api/release/{r}/lattice")))
        a, b = runs[0], runs[-1]
        views.append((f"compare {a} {b}", lambda: http.get(f"/api/compare?a={a}&b={b}")))
        for qi in schema.quasi_identifiers:
            views.append((f"hierarchy {qi}", lambda q=qi: http.get(f"/api/hierarchy/{q}")))

        def edit_and_back():
            http.post("/api/hierarchy/age/edit", json={"op": "add_level"}).raise_for_status()
            return http.post("/api/hierarchy/age/edit", json={"op": "drop_level", "level": 1})

        views.append(("edit age (twice)", edit_and_back))
        print(f"{'view':28s} {'median s':>9s} {'max s':>9s} {'bytes':>9s}")
        for name, call in views:
            median, largest, size = _timed(call, args.repeat)
            print(f"{name:28s} {median:9.4f} {largest:9.4f} {size:9,d}")
        print(f"load {os.getloadavg()[0]:.2f}")
    finally:
        http.close()
        ex.stop()


if __name__ == "__main__":
    main()
