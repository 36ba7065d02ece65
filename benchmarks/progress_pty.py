"""When does a long CLI run first show its progress? (issue 42 item 4's target: within 2 s.)

Writes ``make_census(--rows)`` (default 400,000 rows: about a minute of
hierarchy-free ``mst`` in shards on this machine) to a temporary CSV, runs
``kanon-graph anonymize --qi sex,age,race,marital-status,education,native-country -k 10``
with its stderr on a pseudo-terminal that reports no window size (the case
where tqdm drew nothing before issue 42), and prints the seconds from the
start of the command to the first text of the bar, the distinct phases
shown with the second each first appeared, the longest gap between two
redraws, the run's wall time, and the load.

Usage::

    python benchmarks/progress_pty.py [--rows 400000]
"""

from __future__ import annotations

import argparse
import os
import re
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import kanon_graph as kg


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=400_000)
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="progress-pty-"))
    kg.datasets.make_census(args.rows, seed=1).to_csv(folder / "c.csv", index=False)
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    master, slave = os.openpty()
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kanon_graph", "anonymize", str(folder / "c.csv"), "--qi",
         "sex,age,race,marital-status,education,native-country", "-k", "10",
         "-o", str(folder / "o.csv")], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=slave)
    os.close(slave)
    draws, phases = [], {}
    while True:
        if select.select([master], [], [], 0.2)[0]:
            try:
                chunk = os.read(master, 65536).decode(errors="replace")
            except OSError:
                break
            if not chunk:
                break
            now = time.monotonic() - started
            for text in re.findall(r"kanon-graph: ([^\[\r:]+)", chunk):
                draws.append(now)
                phases.setdefault(text.strip(), now)
        elif proc.poll() is not None:
            break
    proc.communicate()
    wall = time.monotonic() - started
    os.close(master)
    gaps = [b - a for a, b in zip(draws, draws[1:])]
    print(f"rows: {args.rows}; exit {proc.returncode}; wall {wall:.1f} s")
    print(f"first bar text after {draws[0]:.2f} s" if draws else "no bar drawn")
    for text, at in phases.items():
        print(f"  {at:6.2f} s  {text}")
    if gaps:
        print(f"longest gap between two redraws: {max(gaps):.2f} s ({len(draws)} draws)")
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
