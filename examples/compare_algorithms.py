"""Compare algorithms on Adult (or a synthetic census) with a plot of loss against k.

Run ``python examples/compare_algorithms.py [--n N] [--out PLOT.png]``. Reads
Adult from ``$KANON_GRAPH_DATA/adult`` when that folder exists (a random
sample of N rows, default 1000), else draws N rows with
:func:`kanon_graph.datasets.make_census`. Runs datafly, mondrian, mst and
optimal for k = 2, 5, 10 and prints one line per run (ARX loss, NCP,
discernibility, smallest class, seconds); ``--out`` saves the loss and NCP
curves.
"""

import argparse
import os
import time
from pathlib import Path

import pandas as pd

import kanon_graph as kg
from kanon_graph.viz import metric_curves_figure

parser = argparse.ArgumentParser()
parser.add_argument("--n", type=int, default=1000)
parser.add_argument("--out", default=None)
parser.add_argument("--algorithms", default="datafly,mondrian,mst,optimal")
parser.add_argument("-k", default="2,5,10")
args = parser.parse_args()

adult = Path(os.environ.get("KANON_GRAPH_DATA", "")) / "adult"
if os.environ.get("KANON_GRAPH_DATA") and (adult / "adult.csv").exists():
    table = kg.datasets.load_adult(adult).sample(n=args.n, random_state=0)
    source = f"Adult sample of {args.n} rows"
else:
    table = kg.datasets.make_census(args.n, seed=0)
    source = f"make_census({args.n})"
schema = kg.datasets.census_schema()
print(f"data: {source}")

rows = []
for algorithm in args.algorithms.split(","):
    for k in [int(x) for x in args.k.split(",")]:
        start = time.perf_counter()
        res = kg.anonymize(table, schema, k=k, algorithm=algorithm)
        rows.append({"algorithm": algorithm, "k": k, **res.metrics,
                     "smallest": min(len(c) for c in res.classes),
                     "seconds": time.perf_counter() - start})
frame = pd.DataFrame(rows)
print(frame[["algorithm", "k", "loss", "ncp", "discernibility", "smallest", "seconds"]]
      .to_string(index=False, float_format=lambda x: f"{x:.4f}"))
if args.out:
    metric_curves_figure(frame, ["loss", "ncp"]).savefig(args.out, dpi=70)
    print(f"plot written to {args.out}")
