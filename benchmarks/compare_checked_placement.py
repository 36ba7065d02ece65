"""The compiled placement of stepwise's leftovers under entropy and recursive l against
the Python loop it replaced: the same release, and the CPU of each (issue 47).

For each named table of :data:`quality_sensitive.TABLES`, entropy l = 2 and
recursive (3, 2) at k = 5 and 10, ``kg.anonymize`` runs twice in this process:
with the compiled pass and with :func:`kanon_graph.stepwise._leftovers.histograms`
answering None (the Python loop over the rows). It prints whether the two
released tables are the same (rows sorted), both Losses and both CPU times.
The first call of a table pays for its first encoding: read the CPU of later
rows, or run the command twice.

Usage::

    KANON_GRAPH_DATA=/path/to/data python benchmarks/compare_checked_placement.py screening,clinic
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import kanon_graph as kg  # noqa: E402
import quality_sensitive as qs  # noqa: E402
from kanon_graph.stepwise import _leftovers  # noqa: E402

MODELS = {"entropy-2": dict(l=2, diversity="entropy"),
          "recursive-3-2": dict(l=2, diversity="recursive", c=3.0)}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    names = argv[0].split(",") if argv else list(qs.TABLES)
    real = _leftovers.histograms
    warnings.simplefilter("ignore")
    for name in names:
        table, schema = qs.TABLES[name]()
        for model, options in MODELS.items():
            for k in (5, 10):
                out = {}
                for mode in ("compiled", "python"):
                    _leftovers.histograms = real if mode == "compiled" else (lambda *a: None)
                    start = time.process_time()
                    try:
                        res = kg.anonymize(table, schema, k=k, seed=0, **options)
                    except ValueError as error:           # a model the table cannot reach
                        out[mode] = (str(error)[:60], None, 0.0)
                        continue
                    frame = res.table.sort_values(list(res.table.columns)).reset_index(drop=True)
                    out[mode] = (f"{res.metrics['loss']:.6f}", frame, time.process_time() - start)
                _leftovers.histograms = real
                (loss, a, cpu), (loss_py, b, cpu_py) = out["compiled"], out["python"]
                same = a.equals(b) if a is not None and b is not None else loss == loss_py
                print(f"{name} {model} k={k}: {'same' if same else 'DIFFERENT'} release; "
                      f"Loss {loss} / {loss_py}; CPU {cpu:.2f} s compiled, {cpu_py:.2f} s "
                      f"Python", flush=True)


if __name__ == "__main__":
    main()
