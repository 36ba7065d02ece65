"""Real releases and their reports, shared by the report tests (and the docs' screenshots).

* :func:`patients_report`: the 3,000 patients of docs/getting-started.md, through
  the command line as a custodian runs it (hierarchy suggest, anonymize
  optimal, report);
* :func:`adult_report`: Adult with the package's hierarchies, through
  ``res.report``;
* :func:`sentinel_report`: a table whose every quasi-identifier value and
  identifier is a distinctive token, for the leak tests.

``python tests/report_cases.py docs/img`` writes the docs' screenshots
(``report_adult.png``, ``report_patients.png``) with the browser test's helper.
"""

from __future__ import annotations

import base64
import contextlib
import io
import os
import re
import shlex
import sys
from pathlib import Path

import numpy as np
import pandas as pd

import kanon_graph as kg
from kanon_graph.cli import main

PATIENT_QIS = ["zip", "birth", "sex", "income"]


def patients_table(n=3000, seed=16):
    """The made-up patients of docs/getting-started.md, every cell text."""
    rng = np.random.default_rng(seed)
    zips = [f"0{z}" for z in rng.integers(2100, 2200, 40)]
    born = pd.Timestamp("1935-01-01") + pd.to_timedelta(rng.integers(0, 30000, n), unit="D")
    return pd.DataFrame({
        "name": [f"patient {i}" for i in range(n)],
        "zip": rng.choice(zips, n),
        "birth": born.strftime("%Y-%m-%d"),
        "sex": rng.choice(["F", "M"], n),
        "income": [f"{v:.2f}" for v in rng.gamma(4, 12000, n)],
        "diagnosis": rng.choice(["asthma", "diabetes", "flu", "hypertension", "migraine"], n),
    })


def _cli(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    assert code == 0, (argv, out.getvalue())
    return out.getvalue()


def patients_report(folder, *, algorithm="optimal", format="html"):
    """``(report path, original csv, released csv)`` for the patients, made by the CLI.

    The commands run inside ``folder`` with relative file names, as a custodian
    types them (so the report records ``patients.csv``, not a temporary path).
    """
    folder = Path(folder).resolve()
    patients_table().to_csv(folder / "patients.csv", index=False)
    common = ["--qi", ",".join(PATIENT_QIS), "--dates", "birth", "--identifiers", "name",
              "--sensitive", "diagnosis"]
    with_h = ["--hierarchies", "suggested"] if algorithm == "optimal" else []
    released = f"released-{algorithm}.csv"
    made_by = ["anonymize", "patients.csv", *common, *with_h, "-k", "5", "--algorithm",
               algorithm, "--suppression", "0.02", "-o", released, "--report", f"run-{algorithm}.json"]
    report = f"report-{algorithm}.{format}"
    with contextlib.chdir(folder):
        _cli("hierarchy", "suggest", "patients.csv", "--qi", ",".join(PATIENT_QIS), "--dates",
             "birth", "-o", "suggested")
        _cli(*made_by, "-q")
        _cli("report", "patients.csv", released, *common, *with_h, "-k", "5",
             "--unshuffle", f"run-{algorithm}.json",
             "--algorithm", algorithm, "--sampling-fraction", "0.05", "--title",
             f"Patients, k=5, {algorithm}", "--made-by", shlex.join(["kanon-graph", *made_by]),
             "-o", report, "-q")
    return folder / report, folder / "patients.csv", folder / released


def adult_data():
    """``(table, schema)`` of Adult with the package's hierarchies, or None without data."""
    root = os.environ.get("KANON_GRAPH_DATA")
    if not root or not (Path(root) / "adult").exists():
        return None
    table = kg.datasets.load_adult(Path(root) / "adult")
    qis = ["sex", "age", "race", "marital-status", "education", "native-country",
           "workclass", "occupation"]
    schema = kg.Schema(quasi_identifiers=qis, sensitive=["salary-class"],
                       hierarchies=kg.datasets.adult_hierarchies())
    return table, schema


def adult_report(folder, *, format="html"):
    """``(report path, result)`` of Adult, k=5, optimal, 2% suppression, or None."""
    data = adult_data()
    if data is None:
        return None
    table, schema = data
    res = kg.anonymize(table, schema, k=5, algorithm="optimal", suppression=0.02)
    path = res.report(Path(folder) / f"report-adult.{format}", sampling_fraction=0.01,
                      title="Adult, k=5, optimal, 2% suppression")
    return path, res


def sentinel_table(n=120, seed=0):
    """Every quasi-identifier value and identifier a distinctive token (``cityQX07``)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "ssn": [f"ssnKV{i:04d}" for i in range(n)],
        "city": [f"cityQX{v:02d}" for v in rng.integers(0, 16, n)],
        "job": [f"jobZW{v:02d}" for v in rng.integers(0, 12, n)],
        "diag": rng.choice(["flu", "cold"], n),
    })


def sentinel_schema():
    city = kg.Hierarchy.from_rows([[f"cityQX{v:02d}", f"region-{v // 4}", "*"]
                                   for v in range(16)], name="city")
    job = kg.Hierarchy.from_rows([[f"jobZW{v:02d}", f"trade-{v // 3}", "*"]
                                  for v in range(12)], name="job")
    return kg.Schema(quasi_identifiers=["city", "job"], sensitive=["diag"],
                     identifiers=["ssn"], hierarchies={"city": city, "job": job})


_URI = re.compile(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)")
_SVG_TEXT = re.compile(r"<text\b[^>]*>(.*?)</text>", re.S)


def readable_text(document):
    """Everything a reader of the report can read: the document with each inline
    SVG picture replaced by the texts drawn in it (its ``<text>`` elements;
    the pictures are written with ``svg.fonttype = "none"``, so every label
    is such an element, and the path coordinates are left out)."""
    def texts(match):
        svg = base64.b64decode(match.group(1)).decode("utf-8")
        return " ".join(_SVG_TEXT.findall(svg))

    return _URI.sub(texts, document)


def leaks(document, forbidden):
    """The forbidden values found in ``document`` as whole tokens."""
    text = readable_text(document)
    found = []
    for value in forbidden:
        if re.search(rf"(?<![\w.\-]){re.escape(value)}(?![\w.\-])", text):
            found.append(value)
    return sorted(found)


def forbidden_values(original, released, schema):
    """``(forbidden, excused)``: what must not appear in a report, and why some may.

    Forbidden: every value of an identifier column, and every original value
    of a quasi-identifier in a row where the release generalized it. Excused
    (removed from forbidden, returned so a test can pin them): such a value
    that is *also* a released label of its column (a local recoding leaves it
    as is in another class), because then it is legitimately public.
    """
    forbidden, excused = set(), set()
    for column in schema.identifiers:
        forbidden |= set(original[column].astype(str))
    for column in schema.quasi_identifiers:
        before = original[column].astype(str).to_numpy()
        after = released[column].astype(str).to_numpy()
        generalized = set(before[before != after])
        public = generalized & set(after)
        forbidden |= generalized - public
        excused |= {(column, v) for v in public}
    return forbidden, excused


if __name__ == "__main__":                       # the docs' screenshots
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_report_browser import screenshot

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/img")
    with tempfile.TemporaryDirectory() as tmp:
        adult = adult_report(tmp)
        if adult is not None:
            screenshot(adult[0], out / "report_adult.png")
        screenshot(patients_report(tmp)[0], out / "report_patients.png")
    print(f"wrote the screenshots to {out}")
