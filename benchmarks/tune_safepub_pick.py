"""The share of SafePub's search budget spent on the pick of the node released, tuned.

Usage::

    python benchmarks/tune_safepub_pick.py [SHARE ...]   (default 0.0033 0.5 0.9 1.0)

On a tuning table only, a synthetic census of 20,000 records
(``kg.datasets.make_census(20000, seed=5)``; ARX's Adult, where
``bench_safepub.py`` reports the chosen share, is held out), at (epsilon,
delta) = (1, 1e-5), search budget 0.1 and 300 steps: for each share it prints
the mean per-cell Loss of 8 seeded releases (seeds 2000-2007) and its standard
error, then the CPU seconds and the load average. Share 1/301 (0.0033) is every
draw alike; 1.0 leaves the walk no budget (a random walk).
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np

import kanon_graph as kg
from kanon_graph.lattice.safepub import _search


def main(argv=None) -> int:
    shares = [float(x) for x in (argv if argv is not None else sys.argv[1:])] or \
        [0.0033, 0.5, 0.9, 1.0]
    table, schema = kg.datasets.make_census(20000, seed=5), kg.datasets.census_schema()
    started = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # collapsed quasi-identifiers
        for share in shares:
            _search.PICK_SHARE = share
            losses = []
            for seed in range(2000, 2008):
                res = kg.anonymize(table, schema, algorithm="safepub", epsilon=1.0,
                                   delta=1e-5, seed=seed, metrics=["loss"])
                per = kg.metrics.arx_loss_per_attribute(res.release)
                losses.append(float(np.mean(list(per.values()))))
            print(f"pick share {share:g}: Loss {np.mean(losses):.4f} "
                  f"(se {np.std(losses, ddof=1) / np.sqrt(len(losses)):.4f}, 8 runs)",
                  flush=True)
    print(f"cpu {time.process_time() - started:.1f} s; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
