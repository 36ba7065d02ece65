"""stepwise's soft marks: nodes checked with them and without, and the Loss of each.

Usage::

    python benchmarks/stepwise_soft_marks.py [--rows 3000] [--k 10] [--t 0.2] [--seed 0]

A node that releases too few records only under the model itself (entropy or
recursive l, t-closeness), not under its relaxation, is marked ``soft`` and
not checked again at later steps (``kanon_graph/stepwise/_steps.py``). That
is a heuristic, not a bound. This prints both halves of the comparison the
module's docstring cites, on ``kg.datasets.make_census(rows, seed)`` with its
hierarchies, ``algorithm="stepwise"`` at k and t:

* ``remembered``: the library as it is (soft marks kept over the steps);
* ``re-checked``: the soft marks cleared before every step, so every such
  node is checked again at every step.

For each: the nodes checked (``res.stats["nodes_checked"]``, a count that does
not depend on the machine's load), the mean per-cell Loss
(``res.metrics["loss"]``) and the CPU seconds (which do, with the load average
printed at the end).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import warnings

import kanon_graph as kg
from kanon_graph.stepwise import _steps


@contextlib.contextmanager
def soft_marks_cleared():
    """Every step of ``release_steps`` starts with no soft mark (the re-checked half)."""
    original = _steps._first_releasing

    def first_releasing(space, bound, failed, counter, need, soft, **options):
        soft[:] = 0
        return original(space, bound, failed, counter, need, soft, **options)

    _steps._first_releasing = first_releasing
    try:
        yield
    finally:
        _steps._first_releasing = original


def run(table, schema, k, t):
    """``(nodes checked, Loss, CPU seconds)`` of one stepwise release."""
    started = time.process_time()
    res = kg.anonymize(table, schema, k=k, t=t, algorithm="stepwise", metrics=["loss"])
    return res.stats["nodes_checked"], res.metrics["loss"], time.process_time() - started


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--t", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    table = kg.datasets.make_census(args.rows, seed=args.seed)
    schema = kg.datasets.census_schema()
    print(f"census {args.rows:,} rows (seed {args.seed}), stepwise, k={args.k}, t={args.t:g}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # collapsed quasi-identifiers
        halves = [("remembered", run(table, schema, args.k, args.t))]
        with soft_marks_cleared():
            halves.append(("re-checked", run(table, schema, args.k, args.t)))
    for name, (checked, loss, cpu) in halves:
        print(f"{name:<11} {checked:>9,} nodes checked  Loss {loss:.4f}  cpu {cpu:.1f} s")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
