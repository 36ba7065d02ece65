"""Where ``stepwise`` spends its calls under l-diversity (issue 47 item 2): a cProfile print.

Two runs of ``kg.anonymize(..., algorithm="stepwise")`` after a warm-up on
300 rows (numba kernels compiled, not profiled):

* ``census``: ``make_census(60000, seed=0)`` with the census schema
  (sensitive: salary-class), distinct l = 2, k = 5 (the size target of
  ``bench_sensitive_size.py``);
* ``claims``: the held-out claims table (:func:`heldout.claims`, 25,000 rows,
  sensitive: the claim kind), distinct l = 3, k = 5.

For each it prints the functions with the largest own time and the largest
cumulative time: call counts and shares of the profiled total. On a shared,
loaded machine the shares and counts are the figures to read, never the
seconds. Kernels are compiled before the profiled run (``_jit.PYTHON_WORK = 0``),
so the profile is that of a process past its first calls. ``--out FILE`` also writes the text to FILE (docs/bench keeps a
before and an after).

Usage (the before file: the library of main, the after file: this tree)::

    cd /tmp && KANON_GRAPH_DATA=/work/shared/data PYTHONPATH=/work/main python \\
        /path/to/this/tree/benchmarks/profile_stepwise_l.py --top 25 \\
        --out docs/bench/profile-stepwise-l-before.txt
    KANON_GRAPH_DATA=/work/shared/data PYTHONPATH=$PWD python benchmarks/profile_stepwise_l.py \\
        [--runs census,claims] [--top 25] [--out docs/bench/profile-stepwise-l-after.txt]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import warnings
from pathlib import Path

import kanon_graph as kg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import heldout  # noqa: E402  (benchmarks/heldout.py)


def census():
    return kg.datasets.make_census(60_000, seed=0), kg.datasets.census_schema(), \
        dict(k=5, l=2, diversity="distinct")


def claims():
    table, schema = heldout.claims()
    return table, schema, dict(k=5, l=3, diversity="distinct")


RUNS = {"census": census, "claims": claims}


def _rows(stats, key, top, total):
    """``top`` lines of ``stats`` sorted by ``key``: calls, own and cumulative share."""
    entries = sorted(stats.stats.items(), key=lambda item: item[1][key], reverse=True)[:top]
    lines = [f"  {'calls':>9} {'own %':>6} {'cum %':>6}  function"]
    for (path, line, name), (_, calls, own, cum, _) in entries:
        where = path.split("kanon_graph/")[-1] if "kanon_graph/" in path else Path(path).name
        lines.append(f"  {calls:9d} {100 * own / total:6.1f} {100 * cum / total:6.1f}  "
                     f"{where}:{line}({name})")
    return lines


def profile(name, top):
    """The profile of one run, as lines of text."""
    table, schema, options = RUNS[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kg.anonymize(table.sample(300, random_state=1), schema, algorithm="stepwise",
                     **{**options, "k": 2})
        profiler = cProfile.Profile()
        profiler.enable()
        res = kg.anonymize(table, schema, algorithm="stepwise", **options)
        profiler.disable()
    stats = pstats.Stats(profiler, stream=io.StringIO())
    total = max(stats.total_tt, 1e-9)
    loss = kg.metrics.arx_loss_per_attribute(res.release)
    lines = [f"## {name}: {len(table)} rows, {options}; mean Loss "
             f"{sum(loss.values()) / len(loss):.5f}; {stats.total_calls} calls; "
             f"stats {({k: v for k, v in res.stats.items() if isinstance(v, int)})}",
             "", "by own time:", *_rows(stats, 2, top, total), "",
             "by cumulative time:", *_rows(stats, 3, top, total), ""]
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default=",".join(RUNS))
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--out", default="")
    args = parser.parse_args(argv)
    from kanon_graph import _jit
    _jit.PYTHON_WORK = 0          # compiled kernels, as in a long-lived process (see quality.py)
    lines = []
    for name in args.runs.split(","):
        lines += profile(name, args.top)
        print("\n".join(lines[-(2 * args.top + 8):]), flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
