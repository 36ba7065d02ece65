"""How long ``kg.hierarchy.suggest`` takes, against the code before issue 48 (its speed target).

Issue 48 asks that ``hierarchy suggest`` be no slower than before the
issue's work by more than 10%. Two tables, each drafted whole (every
quasi-identifier, kinds inferred):

* **adult**: ARX's Adult (30,162 rows from ``$KANON_GRAPH_DATA/adult``),
  its eight quasi-identifiers and ``salary-class`` sensitive, the schema of
  ``benchmarks/suggest_vs_builder.py``;
* **generated**: ``benchmarks/new_user_table.py``'s table at 20,000 rows
  (ZIP mixed with ZIP+4, 30 occupations, money as text, age, sex).

Each timing is the CPU time (``time.process_time``) of one ``suggest``
call on a fresh deep copy of the table (so nothing a column caches is
reused), the best of ``--rounds`` calls after one warm-up call. The code
measured is the ``kanon_graph`` on ``PYTHONPATH``; ``--baseline DIR`` also
measures the tree at ``DIR`` (a ``git worktree`` checkout, e.g. of
``BASELINE``, the last commit before issue 48's work on suggest), each
tree in its own child process, rounds alternating between them so both
see the same load. ``--profile`` prints cProfile's top lines by internal
time for this tree's calls instead (shares, not seconds, on a loaded
machine).

``--drafts DIR`` writes, instead, the drafts of every table of
``suggest_vs_builder.py`` (adult, fars, patients, clinic, claims, registry,
admissions, screening, earnings; their quasi-identifiers and sensitive
columns) as ARX files ``DIR/<table>/<column>.csv`` with the notes in
``DIR/<table>/notes.txt``, and prints one SHA-256 over them all: run it
before and after a change that should not change the drafts and compare.

Usage::

    git worktree add --detach ../base 03b8da6~1
    KANON_GRAPH_DATA=/work/shared/data PYTHONPATH=$PWD python benchmarks/bench_suggest.py \\
        [--baseline ../base] [--rounds 9] [--profile] [--drafts DIR]
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
#: The last commit before issue 48's work on suggest (``git log --
#: kanon_graph/hierarchy/_suggest.py``: issue 48 item 1 is 03b8da6).
BASELINE = "bb024d7"
ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation"]
GENERATED_ROWS = 20_000


def tables():
    """``{name: (table, quasi-identifiers, sensitive)}`` of the two timed tables."""
    sys.path.insert(0, str(HERE))
    from new_user_table import QIS, new_user_table

    root = os.environ.get("KANON_GRAPH_DATA")
    if not root:
        raise SystemExit("KANON_GRAPH_DATA is not set (the folder with adult/)")
    adult = pd.read_csv(Path(root) / "adult" / "adult.csv", sep=";")
    return {"adult": (adult, ADULT_QIS, ["salary-class"]),
            "generated": (new_user_table(GENERATED_ROWS), list(QIS), [])}


def timed(path, rounds, profile=False):
    """``{table: best CPU seconds}`` of ``suggest`` for each table in the pickle ``path``."""
    import kanon_graph as kg

    loaded = pd.read_pickle(path)
    out = {}
    for name, (table, qis, sensitive) in loaded.items():
        profiler = cProfile.Profile() if profile else None
        schema = kg.Schema(quasi_identifiers=qis, sensitive=sensitive)
        kg.hierarchy.suggest(table.copy(deep=True), schema)              # warm-up
        best = float("inf")
        for _ in range(rounds):
            fresh = table.copy(deep=True)
            if profiler:
                profiler.enable()
            start = time.process_time()
            kg.hierarchy.suggest(fresh, schema)
            best = min(best, time.process_time() - start)
            if profiler:
                profiler.disable()
        out[name] = best
        if profiler:
            print(f"== {name}: cProfile of {rounds} calls, by internal time")
            pstats.Stats(profiler).sort_stats("tottime").print_stats(12)
    return out


def _child(tree, path, rounds):
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, __file__, "--child", path, "--rounds", str(rounds)],
                          env=env, cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def drafts(folder):
    """Write every suite table's drafts into ``folder``; return one digest over them."""
    import kanon_graph as kg

    sys.path.insert(0, str(HERE))
    import suggest_vs_builder as svb

    digest = hashlib.sha256()
    for name in svb.TABLES:
        table, hand = svb.hand_built(name)
        qis = list(hand.quasi_identifiers)
        made = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=qis,
                                                     sensitive=list(hand.sensitive)))
        out = Path(folder) / name
        out.mkdir(parents=True, exist_ok=True)
        (out / "notes.txt").write_text("".join(f"{q}: {made[q][1]}\n" for q in qis),
                                       encoding="utf-8")
        for q in qis:
            kg.write_hierarchy(made[q][0], out / f"{q}.csv")
        for file in sorted(out.iterdir()):
            digest.update(f"{name}/{file.name}\n".encode())
            digest.update(file.read_bytes())
        print(f"{name}: " + "; ".join(f"{q}: {made[q][1]}" for q in qis), flush=True)
    return digest.hexdigest()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="DIR", help="also time the tree at DIR")
    parser.add_argument("--rounds", type=int, default=9, help="best of this many (default 9)")
    parser.add_argument("--profile", action="store_true", help="cProfile's top 12 instead")
    parser.add_argument("--drafts", metavar="DIR", help="write the suite's drafts, print a digest")
    parser.add_argument("--child", metavar="PICKLE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(timed(args.child, args.rounds)))
        return
    if args.drafts:
        print("sha256 of the drafts:", drafts(args.drafts))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "tables.pkl")
        pd.to_pickle(tables(), path)
        if args.profile:
            timed(path, args.rounds, profile=True)
            return
        here = HERE.parent
        trees = {"this tree": here}
        if args.baseline:
            trees["baseline"] = Path(args.baseline).resolve()
        best = {label: {} for label in trees}
        for _ in range(3):                       # alternate the trees, keep each best
            for label, tree in trees.items():
                for name, seconds in _child(tree, path, args.rounds).items():
                    best[label][name] = min(seconds, best[label].get(name, float("inf")))
    print(f"load average {os.getloadavg()[0]:.2f}; CPU seconds of suggest, best of "
          f"{3 * args.rounds}")
    for label, tree in trees.items():
        commit = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
        print(f"{label:<10} {commit:<9} " + "  ".join(
            f"{name} {seconds:.4f} s" for name, seconds in best[label].items()))
    if args.baseline:
        print("ratio      " + "  ".join(
            f"{name} {best['this tree'][name] / best['baseline'][name]:.2f}x"
            for name in best["this tree"]))


if __name__ == "__main__":
    main()
