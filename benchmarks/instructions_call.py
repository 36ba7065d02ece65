"""Instructions per call of issue 47 item 4's rows, counted by callgrind (repeatable under load).

Usage::

    KANON_GRAPH_DATA=/path/to/data python benchmarks/instructions_call.py \\
        [--rows adult,wide10,patients] [--calls 3] [--code /work/main --code .]

For every row and every code folder given (``--code``, put first on
``PYTHONPATH``; default: this checkout), two child processes run under
``valgrind --tool=callgrind``: one that imports, reads the table and makes
two warm-up calls, and one that then makes ``--calls`` more. The difference
of their instruction counts over ``--calls`` is the instructions of one call,
whatever else the machine is running (a timing on a shared machine is not).
The warm-up calls compile (or load) every numba kernel the call needs, so
compiling is not counted. The rows:

* ``adult``: Adult's optimal call with ARX's hierarchy files, k = 5
  (``speed_vs_arx.py``'s ``adult-call``).
* ``wide10``: the exact optimal search at 10 quasi-identifiers
  (:func:`tables.wide_census`, 20,000 rows, k = 5, 5 % suppression): the
  12-QI row's search at a size callgrind runs in minutes.
* ``patients``: patients, 20,000 rows with ARX's builder hierarchies, k = 10
  alone (the default algorithm).

``--profile`` prints instead a cProfile of ``--calls`` warm calls per row
(shares and call counts, not times to compare across runs).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _job(row):
    """``(function, args, kwargs)`` of one call of ``row`` (the table read once)."""
    sys.path.insert(0, str(HERE))
    import kanon_graph as kg
    if row == "adult":
        import bench_call
        root = Path(os.environ["KANON_GRAPH_DATA"]) / "adult"
        table = kg.datasets.load_adult(root)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            hierarchies = kg.load_hierarchies(root, columns=bench_call.QIS)
        schema = kg.Schema(quasi_identifiers=bench_call.QIS, sensitive=["salary-class"],
                           hierarchies=hierarchies)
        return kg.anonymize, (table, schema), dict(k=5, algorithm="optimal")
    import tables
    if row == "wide10":
        table, schema = tables.wide_census(10, n=20_000)
        return kg.anonymize, (table, schema), dict(k=5, suppression=0.05, algorithm="optimal",
                                                  exact=True)
    if row == "patients":
        table = tables.patients(20_000)
        return kg.anonymize, (table, tables.patients_builder_schema(table)), dict(k=10)
    raise SystemExit(f"unknown row {row!r}; rows: adult, wide10, patients")


def inner(row, calls):
    """The child: two warm-up calls, then ``calls`` more."""
    function, args, kwargs = _job(row)
    warnings.simplefilter("ignore")
    for _ in range(2 + calls):
        function(*args, **kwargs)


def profile(row, calls):
    import cProfile
    import pstats
    function, args, kwargs = _job(row)
    warnings.simplefilter("ignore")
    for _ in range(2):
        function(*args, **kwargs)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        function(*args, **kwargs)
    prof.disable()
    pstats.Stats(prof).sort_stats("cumulative").print_stats(35)


def count(code, row, calls):
    """Instructions of the child with ``calls`` calls after its warm-up (callgrind's total)."""
    env = dict(os.environ, PYTHONPATH=str(code), PYTHONWARNINGS="ignore")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                        sys.executable, __file__, "--inner", row, str(calls)],
                       env=env, check=True, capture_output=True, text=True, cwd=code)
        text = out.read_text(errors="replace")
    return int(re.search(r"^(?:summary|totals): (\d+)", text, re.M).group(1))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="adult,wide10,patients")
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--code", action="append", help="a checkout (default: this one)")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--inner", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inner:
        return inner(args.inner[0], int(args.inner[1]))
    if args.profile:
        for row in args.rows.split(","):
            print(f"# {row}: cProfile of {args.calls} warm calls")
            profile(row, args.calls)
        return None
    codes = [Path(c).resolve() for c in (args.code or [HERE.parent])]
    print(f"# instructions per call (callgrind, {args.calls} calls after 2 warm-ups)")
    for row in args.rows.split(","):
        for code in codes:
            base = count(code, row, 0)
            more = count(code, row, args.calls)
            print(f"{row:10s} {str(code):30s} {(more - base) / args.calls / 1e6:10.1f} M",
                  flush=True)
    return None


if __name__ == "__main__":
    main()
