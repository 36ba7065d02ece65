"""CPU of the releases whose time stepwise's leftover placement kernels drive, and their digests.

Times ``kg.anonymize`` on the census at 60,000 rows under distinct l = 2, k = 5
(``_leftovers._place_units``) and on the screening table of
:mod:`quality_sensitive` under recursive (3, 2) and entropy l = 2, k = 5
(``_placed_checked._place_checked``): the best CPU (``time.process_time``) of
3 and 5 calls after a warm-up, and a digest of each released table (rows
sorted), so a rewrite of a kernel can be checked to give the same release
and timed. It is the measurement behind ``_place_checked_py``'s note on why
its loops are written out (session 15).

Usage::

    KANON_GRAPH_DATA=/work/shared/data python benchmarks/time_placement.py
"""

from __future__ import annotations

import hashlib
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import kanon_graph as kg  # noqa: E402
import quality_sensitive as qs  # noqa: E402


def best_cpu(call, rounds):
    """The result of ``call()`` and the least CPU seconds of ``rounds`` calls."""
    times = []
    for _ in range(rounds):
        started = time.process_time()
        res = call()
        times.append(time.process_time() - started)
    return res, min(times)


def digest(res):
    """SHA-256 (12 hex digits) of the released table, rows sorted."""
    table = res.table.astype(str)
    text = table.sort_values(list(table.columns)).to_csv(index=False)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def main():
    warnings.simplefilter("ignore")
    schema = kg.datasets.census_schema()
    kg.anonymize(kg.datasets.make_census(300, seed=1), schema, k=5, l=2)      # warm-up
    census = kg.datasets.make_census(60_000, seed=0)
    res, cpu = best_cpu(lambda: kg.anonymize(census, schema, k=5, l=2), 3)
    print(f"census 60,000 distinct l=2 k=5     {cpu:.2f} s CPU  release {digest(res)}")
    table, schema = qs.TABLES["screening"]()
    for name, model in (("recursive (3,2)", dict(l=2, diversity="recursive", c=3)),
                        ("entropy 2", dict(l=2, diversity="entropy"))):
        kg.anonymize(table, schema, k=5, **model)                              # warm-up
        res, cpu = best_cpu(lambda: kg.anonymize(table, schema, k=5, **model), 5)
        print(f"screening {name:16s} k=5    {cpu:.3f} s CPU  release {digest(res)}")


if __name__ == "__main__":
    main()
