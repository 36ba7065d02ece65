"""A US clinic's export, as it leaves an electronic health record (issue 47, the 80,000-row file).

``us_clinic(n, seed)`` draws ``n`` visits: ``visit_id`` and ``mrn`` (ids),
``first_name`` and ``last_name`` (names), ``dob`` (date of birth as
``mm/dd/yyyy`` text, day-level, 1930-2020), ``zip`` (five digits with leading
zeros, drawn Zipf-like around regional centres; about a third written as
ZIP+4, ``02139-4307``), ``sex``, ``race`` (six groups, unequal), ``insurance``
(seven payers, unequal), ``visit`` (the visit's date-time, ``mm/dd/yyyy hh:mm``
on a quarter-hour grid over two years) and ``diagnosis`` (the sensitive
column, ICD-10-like and skewed: the most common code covers about 40% of the
visits). About 0.5% of the race and insurance cells are empty (the export's
"unknown"), so the run takes ``--missing keep``.

:func:`us_clinic_hierarchies` builds the quasi-identifiers' hierarchies with
the library's builders: ``dob`` by :func:`kanon_graph.hierarchy.dates` (month,
year, 5 years, decade), ``zip`` by hand (a ZIP+4 and a plain ZIP5 go to
their ZIP5 with the +4 masked, ``02139-****``, then to ZIP3, ZIP2, ZIP1, ``*****`` by
:func:`kanon_graph.hierarchy.masking`), ``visit``
by hand (the date-time, its day, then :func:`~kanon_graph.hierarchy.dates`'
month, quarter and year of that day), ``sex``, ``race`` and ``insurance`` one
level up to ``*`` (insurance through public / private / none).
An empty cell is no leaf: ``--missing keep`` adds the missing value as a
leaf of its own under the root.

``python benchmarks/us_clinic.py OUT_DIR [n]`` writes ``OUT_DIR/us_clinic.csv``
(UTF-8 with a byte order mark, CRLF line ends, as a Windows export is) and
the hierarchies ``OUT_DIR/hierarchies/<column>.csv`` (ARX's format), so that::

    kanon-graph anonymize OUT_DIR/us_clinic.csv --qi dob,zip,sex,race,insurance,visit \\
        --sensitive diagnosis --identifiers visit_id,mrn,first_name,last_name \\
        --hierarchies OUT_DIR/hierarchies -k 10 --missing keep -o release.csv

runs on it. ``python benchmarks/us_clinic.py OUT_DIR n --k-above`` writes
the file when it is not there yet, then times that command with ``-k n + 1``
(issue 47 item 2: refused before the file is read; target < 1 s) and prints
the wall time and the error line.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from kanon_graph.hierarchy import Hierarchy, dates, masking, write_hierarchy

QIS = ("dob", "zip", "sex", "race", "insurance", "visit")
SENSITIVE = "diagnosis"
IDENTIFIERS = ("visit_id", "mrn", "first_name", "last_name")

RACES = ["White", "Black or African American", "Asian", "American Indian or Alaska Native",
         "Native Hawaiian or Other Pacific Islander", "Other"]
RACE_SHARE = [0.62, 0.17, 0.08, 0.02, 0.01, 0.10]
INSURANCE = {"Medicare": "public", "Medicaid": "public", "Tricare": "public",
             "Blue Cross": "private", "Aetna": "private", "UnitedHealthcare": "private",
             "Self-pay": "none"}
INSURANCE_SHARE = [0.22, 0.18, 0.02, 0.2, 0.14, 0.16, 0.08]
DIAGNOSES = ["Z00.00", "I10", "E11.9", "J06.9", "M54.5", "F32.9", "E78.5", "K21.9", "N39.0",
             "J45.909", "R51.9", "G43.909"]
FIRST = ["James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda",
         "David", "Elizabeth", "José", "María", "Wei", "Aaliyah", "Nguyen"]
LAST = ["Smith", "Johnson", "Williams", "Brown", "Jones", "García", "Miller", "Davis",
        "Rodriguez", "Martinez", "O'Brien", "Nguyen", "Kim", "Patel", "Lee"]

#: The quarter-hours of a clinic day (08:00 to 17:45).
_SLOTS = [f"{h:02d}:{m:02d}" for h in range(8, 18) for m in (0, 15, 30, 45)]


def _us_dates(days, start):
    """``mm/dd/yyyy`` text of ``start + days``."""
    iso = (np.datetime64(start) + days.astype("timedelta64[D]")).astype(str)
    return np.array([f"{d[5:7]}/{d[8:10]}/{d[:4]}" for d in iso], dtype=object)


def us_clinic(n=80_000, seed=47):
    """``n`` synthetic visits of a US clinic (see the module docstring); a DataFrame of text."""
    rng = np.random.default_rng(seed)
    centres = rng.integers(1_000, 99_000, size=60)
    weight = 1.0 / np.arange(1, len(centres) + 1) ** 1.1
    zips = np.clip(rng.choice(centres, size=n, p=weight / weight.sum())
                   + rng.integers(-40, 40, size=n), 501, 99_950)
    zip5 = np.char.zfill(zips.astype(str), 5).astype(object)
    plus4 = np.char.zfill(rng.integers(1, 10_000, size=n).astype(str), 4).astype(object)
    zip_text = np.where(rng.random(n) < 0.35, zip5 + "-" + plus4, zip5)
    dob = _us_dates(rng.integers(0, 90 * 365, size=n), "1930-01-01")
    visit_day = _us_dates(rng.integers(0, 2 * 365, size=n), "2023-01-01")
    visit = visit_day + " " + np.asarray(_SLOTS, dtype=object)[rng.integers(0, len(_SLOTS), n)]
    share = np.r_[0.4, np.full(len(DIAGNOSES) - 1, 0.6 / (len(DIAGNOSES) - 1))]
    table = pd.DataFrame({
        "visit_id": [f"V{i:08d}" for i in range(1, n + 1)],
        "mrn": np.char.zfill(rng.permutation(10 * n)[:n].astype(str), 9).astype(object),
        "first_name": rng.choice(FIRST, size=n).astype(object),
        "last_name": rng.choice(LAST, size=n).astype(object),
        "dob": dob, "zip": zip_text,
        "sex": rng.choice(["F", "M"], size=n, p=[0.54, 0.46]).astype(object),
        "race": rng.choice(RACES, size=n, p=RACE_SHARE).astype(object),
        "insurance": rng.choice(list(INSURANCE), size=n, p=INSURANCE_SHARE).astype(object),
        "visit": visit,
        "diagnosis": rng.choice(DIAGNOSES, size=n, p=share).astype(object)})
    for column in ("race", "insurance"):
        table.loc[rng.random(n) < 0.005, column] = ""
    return table


def _zip_hierarchy(values):
    """ZIP+4 or ZIP5 -> ``ZIP5-****`` -> ZIP3 -> ZIP2 -> ZIP1 -> ``*****``.

    A plain ZIP5 and the ZIP+4 codes inside it meet on their first level
    (``02139-****``: the ZIP5 with its +4 masked), so every leaf has one height
    and no label stands for two sets of leaves.
    """
    zip5 = sorted({v[:5] for v in values})
    above = {row[0]: row[2:] for row in masking(zip5, levels=5, name="zip").to_rows()}
    return Hierarchy.from_rows([[v, v[:5] + "-****"] + above[v[:5]] for v in sorted(set(values))],
                               name="zip")


def _visit_hierarchy(values):
    """A visit's date-time -> its day -> month -> quarter -> year -> ``*``."""
    days = sorted({v.split(" ")[0] for v in values})
    above = {row[0]: row for row in dates(days, levels=("month", "quarter", "year"),
                                          format="%m/%d/%Y", name="visit").to_rows()}
    return Hierarchy.from_rows([[v] + above[v.split(" ")[0]] for v in sorted(set(values))],
                               name="visit")


def us_clinic_hierarchies(table):
    """``{column: Hierarchy}`` for the quasi-identifiers of a :func:`us_clinic` table."""
    def cells(column):
        return [v for v in pd.unique(table[column]) if v != ""]

    def flat(column, groups=None):
        values = cells(column)
        rows = [[v, groups[v], "*"] if groups else [v, "*"] for v in values]
        return Hierarchy.from_rows(rows, name=column)

    return {"dob": dates(cells("dob"), levels=("month", "year", "5 years", "decade"),
                         format="%m/%d/%Y", name="dob"),
            "zip": _zip_hierarchy(cells("zip")),
            "sex": flat("sex"), "race": flat("race"),
            "insurance": flat("insurance", INSURANCE),
            "visit": _visit_hierarchy(cells("visit"))}


def write_us_clinic(folder, n=80_000, seed=47):
    """Write ``folder/us_clinic.csv`` (BOM, CRLF) and ``folder/hierarchies/``; the CSV's path."""
    folder = Path(folder)
    (folder / "hierarchies").mkdir(parents=True, exist_ok=True)
    table = us_clinic(n, seed)
    path = folder / "us_clinic.csv"
    table.to_csv(path, index=False, encoding="utf-8-sig", lineterminator="\r\n")
    for column, hierarchy in us_clinic_hierarchies(table).items():
        write_hierarchy(hierarchy, folder / "hierarchies" / f"{column}.csv")
    return path


def cli_arguments(folder):
    """The ``kanon-graph anonymize`` arguments of issue 47's run on ``folder`` (no ``-o``)."""
    folder = Path(folder)
    return [str(folder / "us_clinic.csv"), "--qi", ",".join(QIS), "--sensitive", SENSITIVE,
            "--identifiers", ",".join(IDENTIFIERS), "--hierarchies",
            str(folder / "hierarchies"), "-k", "10", "--missing", "keep"]


def time_k_above(folder, n):
    """Wall seconds and the last error line of the CLI run on ``folder`` with ``-k n + 1``."""
    command = [sys.executable, "-m", "kanon_graph", "anonymize", *cli_arguments(folder),
               "-o", str(Path(folder) / "never_written.csv")]
    command[command.index("-k") + 1] = str(n + 1)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    return wall, done.returncode, (done.stderr.strip().splitlines() or ["(nothing)"])[-1]


if __name__ == "__main__":
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 80_000
    folder = Path(sys.argv[1])
    if "--k-above" not in sys.argv or not (folder / "us_clinic.csv").exists():
        out = write_us_clinic(folder, n)
        print(f"wrote {out} and {out.parent / 'hierarchies'}")
    if "--k-above" in sys.argv:
        wall, code, said = time_k_above(folder, n)
        print(f"-k {n + 1} on {n:,} rows: {wall:.2f} s wall, exit {code}: {said}")
