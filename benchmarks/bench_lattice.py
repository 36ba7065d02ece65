"""Lattice benchmark: the lattice searches on Adult (6,480 nodes) and FARS (20,736 nodes).

Usage::

    KANON_GRAPH_DATA=/path/to/shared/data python benchmarks/bench_lattice.py
    python benchmarks/bench_lattice.py --only adult --k 5 --searches optimal-loss

For every dataset, search and k it prints

* ``seconds``: the search itself (the registered algorithm function called
  on the already encoded table; encoding, recoding and verification are not
  included), best of ``--repeat`` runs;
* ``freq_sets``: frequency sets the search computed (``stats["frequency_sets"]``),
  and ``checked`` the lattice nodes it tested for anonymity (when reported);
* ``peak_MiB``: the tracemalloc peak of one more run (memory allocated by
  Python and numpy during the search);
* ``value``: the search's own objective (``stats["metric_value"]``, e.g. the
  DM* of an ``optimal`` search with ``metric="dm_star"``);
* the chosen level vector and its ARX Loss (``kg.metrics`` "loss" on the
  recoded release), so different searches can be compared.

Adding a search: append a :class:`Search` to ``SEARCHES`` (a name, the
registered algorithm, and its options). The RV searches of paper 004 go in
the marked slot below.

Rows ending in ``+mag`` run with ``respect_boundaries=True`` after marking
the MAGVals of :data:`MAGVALS` (paper 002's generalization boundaries); the
marks are cleared after the row. Their loss is that of the capped release.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

import kanon_graph as kg
from kanon_graph.privacy import PrivacyModel
from kanon_graph.recoding import recode_levels
from kanon_graph.registry import get_algorithm

ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation"]


@dataclass
class Search:
    """One row group of the benchmark: a registered algorithm with options."""

    name: str
    algorithm: str
    options: dict = field(default_factory=dict)
    suppression: float = 0.0
    datasets: tuple = ("adult", "fars")
    ks: tuple | None = None         # None: the --k values (default 2, 5, 10, 50)
    boundaries: bool = False        # mark MAGVALS[dataset] and respect them


#: MAGVal marks per dataset: {attribute: level (mark every node there) or [labels]}.
MAGVALS = {
    "adult": {"age": 3, "education": ["Higher education"], "marital-status": 1},
    "fars": {"iage": 2, "istatenum": 1},
}


SEARCHES = [
    Search("optimal-loss", "optimal", {"metric": "loss"}),
    Search("optimal-discernibility", "optimal", {"metric": "discernibility"}),
    Search("optimal-loss-4%", "optimal", {"metric": "loss"}, suppression=0.04, ks=(5,)),
    # ARX's own FARS test cases: DM*, 4% suppression, k = 5 and 100 (ARX's optima:
    # [0,2,2,2,1,2,1,0] 4,469,271 and [0,2,3,3,1,2,2,2] 56,052,481)
    Search("optimal-dm*-4%", "optimal", {"metric": "dm_star"}, suppression=0.04,
           datasets=("fars",), ks=(5, 100)),
    # ---- slot for the research-value searches of paper 004 (rv-global, rv-local,
    # ---- rv-hybrid, rv-distributed): append Search(...) rows here.
    # equal attribute weights, computed RV tables; "value" is the total RV found,
    # "checked" the strings tested; rv-distributed splits the string list (25 bytes
    # a string) into subsets of at most 40 kB run in a 2-process pool (peak_MiB
    # then covers the parent process only)
    Search("rv-global", "rv-global"),
    Search("rv-local", "rv-local"),
    Search("rv-hybrid", "rv-hybrid"),
    Search("rv-distributed-40kB", "rv-distributed", {"memory_budget": 40_000}),
    # generalization boundaries (capped lattice)
    Search("optimal-loss+mag", "optimal", {"metric": "loss"}, boundaries=True),
    Search("optimal-loss-4%+mag", "optimal", {"metric": "loss"}, suppression=0.04, ks=(5,),
           boundaries=True),
    Search("incognito+mag", "incognito", {"metric": "loss"}, boundaries=True, ks=(5,)),
    Search("rv-global+mag", "rv-global", boundaries=True),
]


def mark_magvals(data, marks):
    """Mark ``marks`` on the hierarchies of ``data``; returns the hierarchies touched."""
    touched = []
    for name, spec in marks.items():
        h = data.attribute(name).hierarchy
        if isinstance(spec, int):
            for label in h.labels(spec):
                h.mark_magval(label, spec)
        else:
            for label in spec:
                h.mark_magval(label)
        touched.append(h)
    return touched


def load(name, root):
    """(EncodedTable, description) for ``adult`` or ``fars`` under ``root``."""
    folder = Path(root) / name
    if name == "adult":
        table = pd.read_csv(folder / "adult.csv", sep=";")
        schema = kg.Schema(quasi_identifiers=ADULT_QIS, sensitive=["salary-class"],
                           hierarchies=kg.load_hierarchies(folder))
    else:
        table = pd.read_csv(folder / "fars_int.csv", sep=";")
        with warnings.catch_warnings():     # iage's hierarchy repeats the row of 99
            warnings.simplefilter("ignore")
            hierarchies = kg.load_hierarchies(folder)
        schema = kg.Schema(quasi_identifiers=list(table.columns), hierarchies=hierarchies)
    data = kg.encode(table, schema)
    size = int(np.prod([h + 1 for h in data.heights]))
    return data, f"{name}: {data.n:,} rows, {len(data.heights)} QIs, {size:,} nodes"


def run_once(search, data, k):
    info = get_algorithm(search.algorithm)
    model = PrivacyModel(k).bind(data)
    started = time.perf_counter()
    options = dict(search.options)
    if search.boundaries:
        options["respect_boundaries"] = True
    part = info.function(data, model, rng=np.random.default_rng(0),
                         suppression=search.suppression, **options)
    return part, time.perf_counter() - started


def measure(search, data, k, repeat):
    times = []
    for _ in range(repeat):
        part, seconds = run_once(search, data, k)
        times.append(seconds)
    tracemalloc.start()
    run_once(search, data, k)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    loss = None
    if part.levels is not None:
        release = recode_levels(data, part.levels, suppress=np.asarray(part.class_of) < 0,
                                capped=part.capped)
        loss = kg.metrics.get_metric("loss")(release, k)
    return {"seconds": min(times), "peak_mib": peak / 2**20, "levels": part.levels,
            "loss": loss, "freq_sets": part.stats.get("frequency_sets"),
            "checked": part.stats.get("nodes_checked"),
            "value": part.stats.get("metric_value"),
            "suppressed": int((np.asarray(part.class_of) < 0).sum())}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["adult", "fars"], action="append")
    parser.add_argument("--k", type=int, action="append")
    parser.add_argument("--searches", help="comma-separated search names")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    root = os.environ.get("KANON_GRAPH_DATA")
    if not root:
        sys.exit("set KANON_GRAPH_DATA to the shared data folder (holding adult/ and fars/)")
    ks = args.k or [2, 5, 10, 50]
    wanted = set(args.searches.split(",")) if args.searches else None
    header = (f"{'search':<24} {'k':>3} {'seconds':>8} {'freq_sets':>9} {'checked':>7} "
              f"{'peak_MiB':>8} {'supp':>5} {'loss':>9} {'value':>12}  levels")
    for name in args.only or ["adult", "fars"]:
        started = time.perf_counter()
        data, description = load(name, root)
        print(f"\n{description} (load + encode {time.perf_counter() - started:.2f} s)")
        print(header)
        for search in SEARCHES:
            if name not in search.datasets or (wanted and search.name not in wanted):
                continue
            touched = mark_magvals(data, MAGVALS[name]) if search.boundaries else []
            for k in (search.ks if search.ks and not args.k else ks):
                try:
                    r = measure(search, data, k, args.repeat)
                except ValueError as exc:       # no anonymous node, etc.
                    print(f"{search.name:<24} {k:>3} failed: {exc}")
                    continue
                loss = f"{r['loss']:.6f}" if r["loss"] is not None else "-"
                print(f"{search.name:<24} {k:>3} {r['seconds']:>8.3f} "
                      f"{_fmt(r['freq_sets']):>9} {_fmt(r['checked']):>7} "
                      f"{r['peak_mib']:>8.1f} {r['suppressed']:>5} {loss:>9} "
                      f"{_fmt(r['value'], '.6g'):>12}  "
                      f"{list(r['levels']) if r['levels'] is not None else '-'}", flush=True)
            for h in touched:
                h.clear_magvals()


def _fmt(value, spec=""):
    return "-" if value is None else format(value, spec)


if __name__ == "__main__":
    main()
