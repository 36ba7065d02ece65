"""``benchmarks/us_clinic.py``: issue 47's US clinic export, and the CLI run on it.

The file is written as the generator's command writes it (a few hundred rows),
checked for the shape the issue names (UTF-8 byte order mark, CRLF, ``mm/dd/yyyy``
births, ZIP mixed with ZIP+4, visit date-times, names and ids), and anonymized
through the real entry point with the issue's arguments; the release is read
back with the csv module.
"""

import csv
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from kanon_graph.cli import main
from kanon_graph.hierarchy import read_hierarchy

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))
from us_clinic import IDENTIFIERS, QIS, SENSITIVE, cli_arguments  # noqa: E402


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    folder = tmp_path_factory.mktemp("us_clinic")
    done = subprocess.run([sys.executable, str(BENCH / "us_clinic.py"), str(folder), "400"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return folder


def test_the_export_has_the_issues_shape(export):
    raw = (export / "us_clinic.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    assert raw.count(b"\r\n") == raw.count(b"\n") == 401          # header + 400 rows, CRLF
    with open(export / "us_clinic.csv", newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert set(QIS) | {SENSITIVE} | set(IDENTIFIERS) == set(rows[0])
    assert all(re.fullmatch(r"\d\d/\d\d/\d{4}", r["dob"]) for r in rows)
    assert all(re.fullmatch(r"\d\d/\d\d/\d{4} \d\d:\d\d", r["visit"]) for r in rows)
    zips = [r["zip"] for r in rows]
    plus4 = [z for z in zips if re.fullmatch(r"\d{5}-\d{4}", z)]
    assert plus4 and len(plus4) < len(zips)
    assert all(re.fullmatch(r"\d{5}(-\d{4})?", z) for z in zips)
    assert any(z.startswith("0") for z in zips)
    top = Counter(r[SENSITIVE] for r in rows).most_common()
    assert top[0][1] > 3 * top[-1][1]                           # skewed
    assert len({r["visit_id"] for r in rows}) == 400


def test_a_zip4_goes_to_its_zip5_then_its_zip3(export):
    zip_h = read_hierarchy(export / "hierarchies" / "zip.csv")
    leaf = next(z for z in zip_h.leaf_labels if "-" in z)
    chain = zip_h.ancestors(leaf)
    assert chain[1] == leaf[:5] + "-****" and chain[2] == leaf[:3] + "**"
    for column in QIS:                        # every cell a leaf of its column's file
        hierarchy = read_hierarchy(export / "hierarchies" / f"{column}.csv")
        with open(export / "us_clinic.csv", newline="", encoding="utf-8-sig") as handle:
            cells = {r[column] for r in csv.DictReader(handle)} - {""}
        assert cells <= set(hierarchy.leaf_labels), column


def test_the_cli_releases_it_with_k_10_and_missing_kept(export, tmp_path, capsys):
    out, report = tmp_path / "release.csv", tmp_path / "report.json"
    code = main(["anonymize", *cli_arguments(export), "-o", str(out), "--report",
                 str(report), "-q"])
    assert code == 0
    with open(out, newline="", encoding="utf-8") as handle:
        released = list(csv.DictReader(handle))
    assert len(released) == 400
    assert set(released[0]) == set(QIS) | {SENSITIVE}              # names and ids dropped
    classes = Counter(tuple(r[c] for c in QIS) for r in released if r["zip"] != "*")
    assert min(classes.values()) >= 10
    assert json.loads(report.read_text())["verification"]["holds"] is True
