"""Dates that are read, or not, and say so (issue 46 items 8 and 9)."""

import csv
import datetime as dt
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.encoding import encode
from kanon_graph.exceptions import DataError, InferenceWarning


def _write(path, rows):
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)


def _dates(n=40, seed=0):
    rng = np.random.default_rng(seed)
    start = dt.date(1940, 1, 1)
    return [start + dt.timedelta(days=int(d)) for d in rng.integers(0, 20_000, n)]


def _rows(fmt, n=40, seed=0):
    rng = np.random.default_rng(seed)
    when = _dates(n, seed)
    when[0] = when[0].replace(day=25)             # a day above 12 tells the order
    return [["dob", "sex"]] + [[w.strftime(fmt), "FM"[int(b)]]
                               for w, b in zip(when, rng.integers(0, 2, n))]


# item 8 ---------------------------------------------------------------------------------

@pytest.mark.parametrize("algorithm", ["mondrian", "mst"])
def test_a_missing_cell_of_a_day_first_column_is_kept(tmp_path, capsys, algorithm):
    rows = _rows("%d/%m/%Y")
    rows[5][0] = ""                                # one missing date
    _write(tmp_path / "t.csv", rows)
    out = tmp_path / "o.csv"
    code = main(["anonymize", str(tmp_path / "t.csv"), "--qi", "dob,sex", "-k", "3",
                 "--algorithm", algorithm, "--missing", "keep", "--keep-order",
                 "-o", str(out), "-q"])
    assert code == 0, capsys.readouterr().err
    released = pd.read_csv(out, dtype=str, keep_default_na=False)
    holds = released["dob"][4]                     # the missing cell's row (after the header)
    assert "(missing)" in holds
    # the other cells are ISO intervals (or the kept marker), read from day-first text
    assert released["dob"].str.match(r"^(\[\d{4}-\d{2}-\d{2}, \d{4}-\d{2}-\d{2}\]|\(missing\))"
                                     ).all()
    assert main(["evaluate", str(tmp_path / "t.csv"), str(out), "--qi", "dob,sex",
                 "-k", "3", "--missing", "keep", "--check", "-q"]) == 0
