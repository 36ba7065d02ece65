"""SafePub beside ARX's SafePub on ARX's Adult, in the same run, scored with one formula.

Usage::

    ARX_BUILD=/work/arx/build KANON_GRAPH_DATA=/work/shared/data \\
        python benchmarks/bench_safepub.py [--runs 20] [--steps 300] [--budget 0.1]

For each (epsilon, delta) of the issue, (1, 1e-5) and (2, 1e-6), it runs

* ours: ``kg.anonymize(table, schema, algorithm="safepub", epsilon=...,
  delta=..., search_budget=BUDGET, steps=STEPS, seed=1000 + i)`` for ``i`` in
  ``range(RUNS)``, after one unmeasured warm-up call (numba's kernel loads
  from its disk cache on the first call of a process); the seeds make the
  benchmark reproducible (a real release takes no seed);
* ARX 3.9.2: ``ArxRun dp`` (``../shared/arx``), configured as ARX's Example
  37 (suppression limit 1, search budget BUDGET, STEPS steps), once per run
  in a fresh JVM (``wall`` is ARX's anonymization in that cold JVM, what a
  single run costs) so that every run's released table can be scored; and
  once more with 2 warm-up and RUNS measured runs in one JVM, for ARX's warm
  time (its releases not scored).

Both tools' releases are scored with the suite's formula
(:func:`benchmarks.arx.score`, as ``quality.py``): the mean over the
quasi-identifiers of the mean per-cell Loss, every suppressed or unsampled
record costing 1. It prints one line per tool and setting with the mean Loss
and its standard error over the runs, the mean number of records not
released, the derived k, and the median seconds; then the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import kanon_graph as kg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import arx  # noqa: E402  (benchmarks/arx.py)
import quality  # noqa: E402  (benchmarks/quality.py: ARX's Adult with ARX's hierarchies)

SETTINGS = [(1.0, 1e-5), (2.0, 1e-6)]


def ours(table, schema, epsilon, delta, budget, steps, runs):
    """Mean per-cell Loss, records withheld, k and seconds of our SafePub, one per run."""
    def once(seed):
        started = time.perf_counter()
        res = kg.anonymize(table, schema, algorithm="safepub", epsilon=epsilon, delta=delta,
                           search_budget=budget, steps=steps, seed=seed, metrics=["loss"])
        seconds = time.perf_counter() - started
        per = kg.metrics.arx_loss_per_attribute(res.release)
        return float(np.mean(list(per.values()))), res.suppressed, res.k, seconds

    once(999)                                   # warm-up: loads the compiled kernel
    return [once(1000 + i) for i in range(runs)]


def theirs(table, schema, epsilon, delta, budget, steps, runs):
    """ARX's runs, one cold JVM each (scored), and its warm seconds (one JVM, RUNS runs)."""
    scored = []
    for _ in range(runs):
        res = arx.run("dp", table, schema, 0, warmup=0, rounds=1,
                      dp=(epsilon, delta, budget, steps))
        s = arx.score(table, schema, res, 1)
        scored.append((s["loss"], s["suppressed"], s["achieved_k"], res.runs[0]["wall"]))
    warm = arx.run("dp", table, schema, 0, warmup=2, rounds=runs,
                   dp=(epsilon, delta, budget, steps))
    return scored, [r["wall"] for r in warm.runs]


def line(tool, epsilon, delta, rows, k_label, seconds):
    loss = np.array([r[0] for r in rows])
    withheld = np.mean([r[1] for r in rows])
    return (f"{tool:<24} eps={epsilon:g} delta={delta:g}: Loss {loss.mean():.4f} "
            f"(se {loss.std(ddof=1) / np.sqrt(len(loss)):.4f}, {len(loss)} runs), "
            f"withheld {withheld:,.0f} of {quality_rows}, {k_label}, {seconds}")


def main(argv=None) -> int:
    global quality_rows
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--budget", type=float, default=0.1)
    parser.add_argument("--no-arx", action="store_true", help="our runs only")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # ARX's published age labels; collapsed QIs
        table, schema = quality.adult()
        quality_rows = len(table)
        print(f"ARX's Adult: {len(table)} records, {len(schema.quasi_identifiers)} "
              f"quasi-identifiers; search budget {args.budget}, {args.steps} steps, "
              f"{args.runs} runs per tool and setting")
        for epsilon, delta in SETTINGS:
            mine = ours(table, schema, epsilon, delta, args.budget, args.steps, args.runs)
            print(line("kanon_graph safepub", epsilon, delta, mine, f"k={mine[0][2]}",
                       f"median {np.median([r[3] for r in mine]):.2f} s "
                       f"(max {max(r[3] for r in mine):.2f})"), flush=True)
            if args.no_arx:
                continue
            cold, warm = theirs(table, schema, epsilon, delta, args.budget, args.steps,
                                args.runs)
            print(line("ARX 3.9.2 SafePub", epsilon, delta, cold,
                       f"smallest class {min(r[2] for r in cold)}",
                       f"median {np.median([r[3] for r in cold]):.2f} s in a cold JVM "
                       f"(max {max(r[3] for r in cold):.2f}), {np.median(warm):.2f} s warm"),
                  flush=True)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


quality_rows = 0

if __name__ == "__main__":
    sys.exit(main())
