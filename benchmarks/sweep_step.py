"""The sweep that tunes ``stepwise``'s ``STEP`` (kanon_graph.stepwise._steps.STEP).

``stepwise`` releases the records step by step, each step at the lattice node
of least generalization loss that releases at least ``step`` of all records.
This command runs ``kg.anonymize(table, schema, k, algorithm="stepwise",
step=s)`` for every step ``s`` of ``--steps`` on the **tuning** tables of the
quality suite that have a hierarchy for every quasi-identifier
(``quality.py``'s ``adult``, ``fars``, ``patients`` and ``clinic``: the same
rows and hierarchies), at every k of ``--k``, and prints the Loss -- the
mean over the quasi-identifiers of ARX's per-attribute Loss, the suite's one
formula (``quality.measure``) -- with the CPU seconds of the call and the
load average. Last, per table and k, the step of least Loss, and per step
the mean Loss over every run.

The held-out tables (``heldout.py``) are refused: they never steer a default.

Usage::

    KANON_GRAPH_DATA=/work/shared/data python benchmarks/sweep_step.py \\
        [--tables adult,fars,patients,clinic] [--k 5,10,20] \\
        [--steps 0.002,0.005,0.01,0.02,0.05] [--rows N]

``--rows N`` runs on the first N rows of each table (a quicker, coarser
sweep; the tables' own sizes by default).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import quality  # noqa: E402  (benchmarks/quality.py: the suite's tables and loss)

import kanon_graph as kg  # noqa: E402
from kanon_graph.stepwise import STEP  # noqa: E402

#: The tuning tables of the suite on which stepwise runs (a hierarchy for every
#: quasi-identifier).
TUNING = ("adult", "fars", "patients", "clinic")
STEPS = (0.002, 0.005, 0.01, 0.02, 0.05)


def loss_of(table, schema, k, step):
    """One stepwise release: its Loss (the suite's formula) and the call's CPU seconds."""
    cpu = time.process_time()
    with warnings.catch_warnings():        # the collapsed-attribute advice: the Loss says it
        warnings.simplefilter("ignore", UserWarning)
        res = kg.anonymize(table, schema, k=k, algorithm="stepwise", step=step, seed=0)
    cpu = time.process_time() - cpu
    per = kg.metrics.arx_loss_per_attribute(res.release)
    return float(np.mean(list(per.values()))), cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(TUNING),
                        help="comma list of tuning tables with hierarchies: " + ", ".join(TUNING))
    parser.add_argument("--k", default="5,10,20", help="comma list of k")
    parser.add_argument("--steps", default=",".join(map(str, STEPS)),
                        help="comma list of step fractions in (0, 1]")
    parser.add_argument("--rows", type=int, default=0,
                        help="run on the first N rows of each table (default: all)")
    args = parser.parse_args(argv)
    names = [t for t in args.tables.split(",") if t]
    held = [t for t in names if quality.GROUPS.get(t) == "held out"]
    if held:
        parser.error(f"{held} are held-out tables: they never tune a default")
    bad = [t for t in names if t not in TUNING]
    if bad:
        parser.error(f"unknown table {bad}; the tuning tables with hierarchies are "
                     f"{list(TUNING)}")
    ks = [int(k) for k in args.k.split(",") if k]
    steps = [float(s) for s in args.steps.split(",") if s]
    print(f"stepwise step sweep (the library's STEP = {STEP}); load "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    losses = {}
    for name in names:
        table, schema = quality.TABLES[name]()
        if args.rows:
            table = table.iloc[:args.rows].reset_index(drop=True)
        print(f"\n{name}: {len(table)} rows, {len(schema.quasi_identifiers)} QIs", flush=True)
        for k in ks:
            for step in steps:
                load = os.getloadavg()[0]
                loss, cpu = loss_of(table, schema, k, step)
                losses[name, k, step] = loss
                print(f"  k={k:<3d} step={step:<6g} Loss {loss:.4f}  cpu {cpu:6.2f} s  "
                      f"load {load:.1f}", flush=True)
    print("\nleast Loss per table and k:")
    for name in names:
        for k in ks:
            best = min(steps, key=lambda s: (losses[name, k, s], s))
            print(f"  {name:9s} k={k:<3d} step {best:g} ({losses[name, k, best]:.4f})")
    print("\nmean Loss per step over every run:")
    for step in steps:
        mean = np.mean([losses[name, k, step] for name in names for k in ks])
        print(f"  step {step:<6g} {mean:.4f}")
    print(f"\nload {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
