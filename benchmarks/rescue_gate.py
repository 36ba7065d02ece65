"""Where ``stepwise``'s rescue of stranded records wins, against what placing them costs.

For each table and l model (k = 5) it runs ``stepwise``'s steps and, on the
records they leave, both settlements of :mod:`kanon_graph.stepwise._rescue`:
the plain placement and the rescue followed by the placement (whatever the
gate :data:`~kanon_graph.stepwise._rescue.RESCUE_FROM` says), and prints the
records left, the plain placement's added loss per left-over record
(:func:`~kanon_graph.stepwise._rescue.placement_cost`) and the settled losses
both ways (:func:`~kanon_graph.stepwise._rescue.partition_loss`, before the
cuts and graph moves). The gate's threshold sits between the costs of the
runs where the rescue won and those where it lost.

Tables: ``census`` (``make_census(60000, seed=0)``), ``fars-injury``
(:func:`tune_sensitive.fars`), and the names of :data:`quality_sensitive.TABLES`.

Usage::

    KANON_GRAPH_DATA=/work/shared/data PYTHONPATH=$PWD python benchmarks/rescue_gate.py \\
        --tables census,fars-injury,adult,fars,claims,screening \\
        --models distinct-2,distinct-3,entropy-2,recursive-3-2
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

import kanon_graph as kg
from kanon_graph.pipeline.tuples import collapse
from kanon_graph.privacy import ClassCheck, PrivacyModel
from kanon_graph.stepwise import _rescue
from kanon_graph.stepwise._leftovers import place_leftovers
from kanon_graph.stepwise._steps import release_steps

sys.path.insert(0, str(Path(__file__).resolve().parent))
import quality_sensitive as qs  # noqa: E402  (benchmarks/quality_sensitive.py)
import tune_sensitive as ts  # noqa: E402  (benchmarks/tune_sensitive.py)


def table_of(name):
    if name == "census":
        return kg.datasets.make_census(60_000, seed=0), kg.datasets.census_schema()
    if name == "fars-injury":
        return ts.fars()
    return qs.TABLES[name]()


def measure(table, schema, options, k=5):
    """``(records left, placement cost per record, plain loss, rescue loss)`` or None."""
    data, _ = collapse(kg.encode(table, schema), sensitive=True)
    model = PrivacyModel(k, **options).bind(data)
    check = ClassCheck(model, data)
    steps, _ = release_steps(data, model, check=check)
    left = np.flatnonzero(steps < 0)
    if not len(left) or not (steps >= 0).any():
        return None
    weights = np.ones(data.n) if data.weights is None else data.weights
    plain, _ = place_leftovers(data, steps, check, 0, model)
    rescued, _ = _rescue.rescue(data, steps, check, rows=left)
    other, _ = place_leftovers(data, rescued, check, 0, model)
    return (int(weights[left].sum()), _rescue.placement_cost(data, steps, plain),
            _rescue.partition_loss(data, plain), _rescue.partition_loss(data, other))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="census,fars-injury,adult,fars,claims,screening")
    parser.add_argument("--models", default="distinct-2,distinct-3,entropy-2,recursive-3-2")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    print(f"gate: rescue where the placement adds >= {_rescue.RESCUE_FROM} per record left")
    for name in args.tables.split(","):
        table, schema = table_of(name)
        for model in args.models.split(","):
            try:
                got = measure(table, schema, qs.MODELS[model][0])
            except ValueError as error:             # a model the table cannot reach
                print(f"{name:12s} {model:14s} not run: {str(error)[:60]}")
                continue
            if got is None:
                print(f"{name:12s} {model:14s} nothing left over, or nothing released")
                continue
            left, cost, plain, other = got
            print(f"{name:12s} {model:14s} left {left:6d}  placement adds {cost:.3f}/record  "
                  f"plain {plain:.5f}  rescue {other:.5f}  "
                  f"{'rescue wins' if other < plain - 1e-12 else 'plain wins'}", flush=True)


if __name__ == "__main__":
    main()
