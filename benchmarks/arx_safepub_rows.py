"""What ARX 3.9.2's SafePub writes for the records it does not release.

Usage::

    ARX_BUILD=/work/arx/build KANON_GRAPH_DATA=/work/shared/data \\
        python benchmarks/arx_safepub_rows.py [EPSILON DELTA]

Runs ``ArxRun dp`` (``../shared/arx``, ARX's Example 37: search budget 0.1,
300 steps) once on ARX's Adult with the eight quasi-identifiers and
``salary-class`` as an insensitive column, and prints: the rows in ARX's
output against the input's, the rows ARX flags as outliers (not sampled or
suppressed), how many of those have every quasi-identifier ``*``, and how
many keep the input's ``salary-class`` (the insensitive cell, released as
it was). docs/algorithms/safepub.md, "Records not released", cites it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation"]


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    epsilon, delta = (args + ["1", "1e-5"][len(args):])[:2]
    adult = Path(os.environ["KANON_GRAPH_DATA"]) / "adult"
    build = Path(os.environ["ARX_BUILD"])
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "arx.csv"
        subprocess.run(["java", "-cp", (build / "classpath").read_text().strip(), "ArxRun",
                        "dp", str(adult / "adult.csv"), ",".join(QIS), str(adult), epsilon,
                        delta, "0.1", "300", "0", "1", str(out)],
                       check=True, capture_output=True, text=True)
        read = [line.rstrip("\r").split(";")
                for line in (adult / "adult.csv").read_text().splitlines() if line]
        written = [line.rstrip("\r").split(";")
                   for line in out.read_text().splitlines() if line]
        flags = [line.strip() == "1" for line in
                 Path(str(out) + ".outliers").read_text().splitlines() if line.strip()]
    head, rows, released = read[0], read[1:], written[1:]
    qi = [head.index(q) for q in QIS]
    salary = head.index("salary-class")
    outliers = [i for i, flag in enumerate(flags) if flag]
    starred = sum(all(released[i][j] == "*" for j in qi) for i in outliers)
    kept = sum(released[i][salary] == rows[i][salary] for i in outliers)
    print(f"ARX 3.9.2 SafePub on Adult, epsilon {epsilon}, delta {delta}: {len(released)} rows "
          f"written for {len(rows)} input rows; {len(outliers)} outliers (not sampled or "
          f"suppressed), {starred} of them with every quasi-identifier '*', {kept} of them "
          f"with the input's salary-class")
    return 0


if __name__ == "__main__":
    sys.exit(main())
