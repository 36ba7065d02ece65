"""RV searches beyond Adult: a 20-attribute synthetic table through rv-distributed.

Usage::

    python benchmarks/bench_rv.py [--rows 1000] [--attributes 20] [--budget-mib 4]

The table (``kg.datasets.make_wide_binary``) has binary attributes
(hierarchy: value, ``*``): all but four are functions of a hidden 8-valued
variable, four are independent noise, so the full string list has ``2**d`` strings (``d + 17`` bytes each: 38.8 MB for
``d = 20``). It prints, for ``rv-distributed`` at the given budget and for
``rv-global`` over the whole list: seconds, strings generated, frequency
sets, tests, the subsets, the answer's research value and level vector, and
memory: for rv-global the tracemalloc peak of a second run; for the pool the
largest resident set of any worker process so far (``getrusage``; a forked
worker's RSS includes the interpreter, numpy and pandas it shares with the
parent, about 100 MiB).
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import kanon_graph as kg
from kanon_graph.lattice.rv.search_distributed import rv_distributed
from kanon_graph.lattice.rv.search_global import rv_global, string_bytes
from kanon_graph.privacy import PrivacyModel


def run(name, fn, data, k, trace=False, **options):
    started = time.perf_counter()
    part = fn(data, PrivacyModel(k), **options)
    seconds = time.perf_counter() - started
    peak = "-"
    if trace:       # a second, traced run (tracing slows the search, and forked workers)
        tracemalloc.start()
        fn(data, PrivacyModel(k), **options)
        peak = f"{tracemalloc.get_traced_memory()[1] / 2**20:.1f}"
        tracemalloc.stop()
    s = part.stats
    workers_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"{name:<16} k={k:<3} {seconds:7.2f} s  generated {s['strings_generated']:>9,}  "
          f"freq_sets {s['frequency_sets']:>6}  tests {s['tests']:>6}  "
          f"subsets {s.get('subsets', 1):>3} (skipped {s.get('subsets_skipped', 0)})  "
          f"traced peak {peak:>6} MiB  worker max RSS {workers_rss:6.1f} MiB  "
          f"RV {s['research_value']:.4f}  levels {''.join(map(str, part.levels))}", flush=True)
    return part


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--attributes", type=int, default=20)
    parser.add_argument("--budget-mib", type=float, default=4.0)
    parser.add_argument("--k", type=int, action="append")
    args = parser.parse_args(argv)
    data = kg.encode(*kg.datasets.make_wide_binary(args.rows, args.attributes))
    budget = int(args.budget_mib * 2**20)
    full = 2**args.attributes * string_bytes(args.attributes)
    print(f"{args.rows} rows, {args.attributes} attributes, {2**args.attributes:,} strings "
          f"= {full / 2**20:.1f} MiB; budget per subset {budget / 2**20:.1f} MiB")
    for k in args.k or [2, 5, 10, 50]:
        dist = run("rv-distributed", rv_distributed, data, k, memory_budget=budget)
        whole = run("rv-global", rv_global, data, k, trace=True)
        assert dist.levels == whole.levels, "the distributed answer differs from the global one"


if __name__ == "__main__":
    main()
