"""Issue 23's walk-through, through the CLI as a new user runs it, with the numbers.

Draws the clinic table (``clinic.py``: 15,000 rows, zip codes with leading
zeros, ISO birth dates as text, ~1% empty cells), then for two set-ups --
no hierarchies, and ``hierarchy suggest``'s drafts -- runs ``anonymize``
with the default (``auto``) and with each candidate algorithm, and prints
ARX Loss (the ``loss`` metric, one formula for all), rows released, wall
and CPU seconds (of the child process) and the load average.

    python benchmarks/walkthrough.py [ROWS] [--missing drop|keep]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from clinic import clinic  # noqa: E402

QI = "zip,birth_date,sex,ethnicity,weight"
ALGORITHMS = ["auto", "optimal", "mondrian", "sd", "mst", "stepwise"]


def cli(*args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "kanon_graph", *args], capture_output=True,
                          text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, wall, cpu


def main(argv):
    rows = int(argv[0]) if argv and argv[0].isdigit() else 15_000
    missing = argv[argv.index("--missing") + 1] if "--missing" in argv else "keep"
    folder = Path(tempfile.mkdtemp(prefix="walkthrough-"))
    data = folder / "clinic.csv"
    clinic(rows).to_csv(data, index=False)
    done, _, _ = cli("hierarchy", "suggest", str(data), "--qi", QI, "-o", str(folder / "hier"))
    assert done.returncode == 0, done.stderr
    print(f"{rows} rows, --missing {missing}, k=5; load average {os.getloadavg()}")
    print(done.stdout)
    for setup, extra in (("no hierarchies", []),
                         ("suggested hierarchies", ["--hierarchies", str(folder / "hier")])):
        print(f"== {setup}")
        losses = {}
        for algorithm in ALGORITHMS:
            report = folder / f"{algorithm}.json"
            done, wall, cpu = cli("anonymize", str(data), "--qi", QI, "--identifiers",
                                  "patient_id", "--sensitive", "diagnosis", "-k", "5",
                                  "--missing", missing, "--algorithm", algorithm, *extra,
                                  "-o", str(folder / f"{algorithm}.csv"), "--report",
                                  str(report), "-q")
            if done.returncode:
                print(f"{algorithm:9s} failed: {done.stderr.strip().splitlines()[-1]}")
                continue
            rep = json.loads(report.read_text())
            loss = rep["metrics"]["loss"]
            losses[algorithm] = loss
            chose = f" (chose {rep['algorithm']})" if algorithm == "auto" else ""
            released = sum(1 for _ in open(folder / f"{algorithm}.csv")) - 1
            print(f"{algorithm:9s} loss {loss:.4f}  rows {released}  {wall:6.2f} s wall "
                  f"{cpu:6.2f} s CPU  load {os.getloadavg()[0]:.2f}{chose}")
        best = min(v for a, v in losses.items() if a != "auto")
        if "auto" in losses:
            print(f"default / best = {losses['auto'] / best:.3f} (target <= 1.10)")
    print(f"files in {folder}")


if __name__ == "__main__":
    main(sys.argv[1:])
