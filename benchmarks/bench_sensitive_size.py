"""Issue 40's size target: the default under l and t on a large census, no option given.

``make_census(rows, seed=0)`` with the census schema (sensitive: salary-class),
``kg.anonymize(table, schema, k=5, l=2)`` and ``(k=5, t=0.2)`` with nothing
else, after a warm-up on 300 rows (numba kernels compiled, not timed). Prints
the algorithm ``auto`` ran, ``res.metrics["loss"]``, wall and CPU seconds of
the call (which verifies the release from its cells) and the load average.

Usage::

    python benchmarks/bench_sensitive_size.py [--rows 60000]
"""

from __future__ import annotations

import argparse
import os
import time

import kanon_graph as kg


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=60_000)
    args = parser.parse_args(argv)
    schema = kg.datasets.census_schema()
    kg.anonymize(kg.datasets.make_census(300, seed=1), schema, k=5, l=2)     # warm-up
    table = kg.datasets.make_census(args.rows, seed=0)
    print(f"# census {args.rows} rows; load average {os.getloadavg()}")
    for options in (dict(k=5, l=2), dict(k=5, t=0.2)):
        wall, cpu = time.perf_counter(), time.process_time()
        res = kg.anonymize(table, schema, **options)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"{options}: {res.algorithm}, loss {res.metrics['loss']:.4f}, "
              f"wall {wall:.1f} s, CPU {cpu:.1f} s, holds {res.verification.holds}")
    print(f"# load average {os.getloadavg()} at the end")


if __name__ == "__main__":
    main()
