"""The register of issue 42's targets: a mental-health contacts register, as a user exports it.

:func:`register` draws 60,000 contacts with
:func:`kanon_graph.datasets.make_register` (fixed seed 42):

* ``postcode``: a UK postcode district (``LS6``, ``BD10``): West Yorkshire's
  areas most of the time (LS 36%, BD 25%, WF 14%, HD 10%, HX 6%), the rest
  from ten neighbouring areas; within an area, districts Zipf-like;
* ``date_of_birth``: ``dd/mm/yyyy``, ages 16 to 95 at 2024-06-30 (a gamma
  shape around 40);
* ``diagnosis``: an ICD-10 F-chapter code (``F32.1``, ``F20.0``, ``F39``)
  from the blocks a mental-health service sees, depressive and anxiety
  disorders most often;
* ``referred``: the referral date, ISO (2019-01-01 to 2024-06-30);
* ``sex``; ``risk``: the sensitive risk flag (``low``, ``medium``, ``high``).

:func:`write_export` writes it as a spreadsheet does: UTF-8 with a byte
order mark, CRLF line ends.

Run as a command, it writes the export into ``--out``, runs
``kanon-graph hierarchy suggest`` and ``kanon-graph anonymize -k 10`` on it
as a user would (``--qi`` and ``--hierarchies`` and nothing else), and
prints the targets' shares of the release:

* date of birth released as a year or a coarser interval, but not ``*``
  (the target: at least 90%), and beside it the share at a day or month and
  the share at ``*``;
* postcode at the area (``LS*``) or finer (at least 70%);
* diagnosis at the block (``F3*``) or finer: a code, ``F32*``, ``F3*`` (at
  least 90%).

Usage::

    python benchmarks/register.py [--rows 60000] [--out DIR] [--iso-dob]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

import kanon_graph as kg

QIS = ["postcode", "date_of_birth", "diagnosis", "referred", "sex"]

def register(n=60_000, seed=42, dob_format="%d/%m/%Y"):
    """The register as a DataFrame of text columns: :func:`kanon_graph.datasets.make_register`."""
    return kg.datasets.make_register(n, seed=seed, dob_format=dob_format)


def write_export(table, path):
    """Write ``table`` as a spreadsheet export: UTF-8 with a BOM, CRLF line ends."""
    with open(path, "w", encoding="utf-8-sig", newline="") as f:
        table.to_csv(f, index=False, lineterminator="\r\n")


_DAY = re.compile(r"^(\d{2}/\d{2}/\d{4}|\d{4}-\d{2}-\d{2})$")
_MONTH = re.compile(r"^(\d{2}/\d{4}|\d{4}-\d{2})$")


def dob_grain(label):
    """``"*"``, ``"day or month"``, ``"set"`` (of texts) or ``"year or coarser"``."""
    label = str(label)
    if label == "*":
        return "*"
    if _DAY.match(label) or _MONTH.match(label):
        return "day or month"
    if label.startswith("{"):
        return "set"
    return "year or coarser"


def area_or_finer(label):
    """A district (``LS6``) or an area group (``LS*``); not ``*`` nor a set of areas."""
    return bool(re.fullmatch(r"[A-Z]{1,2}[0-9]{1,2}|[A-Z]{1,2}\*", str(label)))


def block_or_finer(label):
    """A code (``F32.1``), a category (``F32*``) or a block (``F3*``); not ``F*`` nor ``*``."""
    return bool(re.fullmatch(r"F[0-9]{2}(\.[0-9])?|F[0-9]{2}\*|F[0-9]\*", str(label)))


def _cli(*args):
    started = time.time()
    done = subprocess.run(["kanon-graph", *args], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"kanon-graph {' '.join(args)} failed:\n{done.stderr}")
    return done, time.time() - started


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=60_000)
    parser.add_argument("--out", default=None, help="folder (default: a temporary one)")
    parser.add_argument("--iso-dob", action="store_true",
                        help="write dates of birth as ISO (not the target's shape: what the "
                             "release is once dd/mm/yyyy is read as a date)")
    args = parser.parse_args(argv)
    out = Path(args.out or tempfile.mkdtemp(prefix="register-"))
    out.mkdir(parents=True, exist_ok=True)
    data = out / "register.csv"
    write_export(register(args.rows, dob_format="%Y-%m-%d" if args.iso_dob else "%d/%m/%Y"),
                 data)
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    qi = ",".join(QIS)
    done, _ = _cli("hierarchy", "suggest", str(data), "--qi", qi, "-o", str(out / "hier"))
    print(done.stdout.strip())
    done, wall = _cli("anonymize", str(data), "--qi", qi, "--hierarchies", str(out / "hier"),
                      "-k", "10", "-o", str(out / "release.csv"))
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(done.stdout.strip())
    for line in done.stderr.strip().splitlines():
        print("stderr:", line)
    release = pd.read_csv(out / "release.csv", dtype=str, keep_default_na=False)
    grain = release["date_of_birth"].map(dob_grain).value_counts(normalize=True)
    print(f"rows: {len(release)}; wall {wall:.1f} s, CPU of the two commands "
          f"{cpu.ru_utime + cpu.ru_stime:.1f} s; load after: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"date_of_birth as a year or coarser interval (not *): "
          f"{grain.get('year or coarser', 0):.1%} (target >= 90%); at a day or month "
          f"{grain.get('day or month', 0):.1%}; as a set {grain.get('set', 0):.1%}; "
          f"* {grain.get('*', 0):.1%}")
    print(f"postcode at the area or finer: {release['postcode'].map(area_or_finer).mean():.1%} "
          f"(target >= 70%)")
    print(f"diagnosis at the block or finer: "
          f"{release['diagnosis'].map(block_or_finer).mean():.1%} (target >= 90%)")


if __name__ == "__main__":
    sys.exit(main())
