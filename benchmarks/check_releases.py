"""Fingerprints of releases on Adult, FARS and the wide table: did a change alter one? (issue 25)

Usage::

    KANON_GRAPH_DATA=/path/to/data python benchmarks/check_releases.py --save before.json
    KANON_GRAPH_DATA=/path/to/data python benchmarks/check_releases.py --compare before.json
        [--quick]

For every case (a table, an algorithm and its parameters) it records the
levels, the number of suppressed records, a SHA-256 of the released table
(every cell read as text, so a column stored as a categorical and the same
column stored as objects print the same) and a SHA-256 of the classes (the
sorted row positions of every class). ``--compare`` prints the cases whose
fingerprint differs and exits with code 1 if any does. ``--quick`` leaves out
the slow cases (the 12-QI exact search). Wall and CPU seconds are printed
per case, with the load average.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import kanon_graph as kg  # noqa: E402
from tables import patients, patients_schema, wide_census  # noqa: E402

ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation"]


def adult(root, rows=None):
    folder = Path(root) / "adult"
    table = pd.read_csv(folder / "adult.csv", sep=";")
    if rows:
        table = table.iloc[:rows].reset_index(drop=True)
    schema = kg.Schema(quasi_identifiers=ADULT_QIS, sensitive=["salary-class"],
                       hierarchies=kg.load_hierarchies(folder))
    return table, schema


def fars(root):
    folder = Path(root) / "fars"
    table = pd.read_csv(folder / "fars_int.csv", sep=";")
    with warnings.catch_warnings():     # iage's hierarchy repeats the row of 99
        warnings.simplefilter("ignore")
        hierarchies = kg.load_hierarchies(folder)
    return table, kg.Schema(quasi_identifiers=list(table.columns), hierarchies=hierarchies)


def cases(root, quick):
    """(name, table loader, anonymize keywords)."""
    out = []
    for k in (2, 5, 10):
        out.append((f"adult optimal k={k}", lambda: adult(root),
                    {"k": k, "algorithm": "optimal"}))
    out.append(("adult optimal k=5 supp=0.05", lambda: adult(root),
                {"k": 5, "algorithm": "optimal", "suppression": 0.05}))
    for name in ("datafly", "mondrian", "incognito"):
        out.append((f"adult {name} k=5", lambda: adult(root), {"k": 5, "algorithm": name}))
    for name in ("bottom-up", "k-member", "mst", "mondrian"):
        out.append((f"adult[:3000] {name} k=5", lambda: adult(root, 3000),
                    {"k": 5, "algorithm": name, "seed": 0}))
    for name in ("bottom-up", "k-member", "mondrian"):
        out.append((f"patients 3000 {name} k=5", lambda: (patients(3000), patients_schema()),
                    {"k": 5, "algorithm": name, "seed": 0}))
    for k in (5, 100):
        out.append((f"fars optimal k={k}", lambda: fars(root), {"k": k, "algorithm": "optimal"}))
    out.append(("fars optimal k=5 supp=0.02", lambda: fars(root),
                {"k": 5, "algorithm": "optimal", "suppression": 0.02}))
    widths = (8, 10, 16) if quick else (8, 10, 12, 16)
    for n_qis in widths:
        options = {"k": 5, "algorithm": "optimal", "suppression": 0.05}
        if n_qis == 12:
            options["exact"] = True
        out.append((f"wide {n_qis} QIs optimal", lambda n_qis=n_qis: wide_census(n_qis),
                    options))
    return out


def digest(values):
    return hashlib.sha256("\n".join(values).encode()).hexdigest()[:16]


def fingerprint(res):
    table = res.table.astype(str)
    rows = table.to_csv(index=True, header=True, lineterminator="\n").splitlines()
    classes = sorted(",".join(map(str, np.sort(c))) for c in (res.classes or []))
    return {"levels": None if res.levels is None else {q: int(v) for q, v in res.levels.items()},
            "suppressed": int(res.suppressed), "table": digest(rows),
            "classes": digest(classes), "n_classes": len(classes)}


def load_avg():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", metavar="FILE")
    group.add_argument("--compare", metavar="FILE")
    parser.add_argument("--quick", action="store_true", help="leave out the 12-QI exact search")
    args = parser.parse_args(argv)
    root = os.environ.get("KANON_GRAPH_DATA")
    if not root:
        sys.exit("set KANON_GRAPH_DATA to the shared data folder (holding adult/ and fars/)")
    print(f"# load average {load_avg()}")
    expected = json.loads(Path(args.compare).read_text()) if args.compare else {}
    found, changed = {}, []
    for name, load, options in cases(root, args.quick):
        table, schema = load()
        wall, cpu = time.perf_counter(), time.process_time()
        res = kg.anonymize(table, schema, **options)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        found[name] = fingerprint(res)
        verdict = ""
        if args.compare:
            if name not in expected:
                verdict = "  (no reference)"
            elif expected[name] != found[name]:
                verdict = f"  CHANGED: was {expected[name]}, now {found[name]}"
                changed.append(name)
            else:
                verdict = "  same"
        print(f"{name:<30} wall {wall:7.2f} s  cpu {cpu:7.2f} s  levels "
              f"{found[name]['levels']}  classes {found[name]['n_classes']}{verdict}",
              flush=True)
    print(f"# load average {load_avg()}")
    if args.save:
        Path(args.save).write_text(json.dumps(found, indent=1) + "\n")
        print(f"# wrote {args.save}")
        return 0
    print(f"# {len(changed)} of {len(found)} releases changed" if changed
          else f"# all {len(found)} releases unchanged")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
