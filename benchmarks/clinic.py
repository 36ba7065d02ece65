"""The walk-through table of issue 23: a clinic's own table, as a new user brings it.

``clinic(n, seed)`` draws ``n`` patients: ``patient_id`` (an identifier),
``zip`` (five digits with leading zeros, drawn around 40 regional centres so
prefixes mean something), ``birth_date`` (ISO text, 1925-2005), ``sex``,
``ethnicity`` (six groups, unequal), ``weight`` (kg, one decimal),
``diagnosis`` (ICD-10-like code, sensitive) and ``cost`` (lognormal, cents);
about 1% of the zip / birth_date / sex / ethnicity / weight / diagnosis
cells are empty. ``python benchmarks/clinic.py OUT.csv [n]`` writes it.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

ETHNICITIES = ["white", "black", "hispanic", "asian", "native", "other"]
ETHNICITY_SHARE = [0.58, 0.13, 0.17, 0.07, 0.02, 0.03]
DIAGNOSES = ["E11.9", "I10", "J45.9", "M54.5", "F32.9", "J06.9", "K21.9", "N39.0",
             "E78.5", "G43.9"]


def clinic(n=15_000, seed=23, missing=0.01):
    """``n`` synthetic patients of one clinic (see the module docstring)."""
    rng = np.random.default_rng(seed)
    centres = rng.integers(1_000, 99_000, size=40)
    zips = np.clip(rng.choice(centres, size=n) + rng.integers(-60, 60, size=n), 501, 99_950)
    zip_text = np.char.zfill(zips.astype(str), 5)
    days = rng.integers(0, 80 * 365, size=n)
    birth = (np.datetime64("1925-01-01") + days.astype("timedelta64[D]")).astype(str)
    sex = rng.choice(["F", "M"], size=n)
    ethnicity = rng.choice(ETHNICITIES, size=n, p=ETHNICITY_SHARE)
    weight = np.round(rng.normal(78, 14, size=n).clip(35, 180), 1)
    diagnosis = rng.choice(DIAGNOSES, size=n)
    cost = np.round(rng.lognormal(6.5, 1.0, size=n), 2)
    table = pd.DataFrame({"patient_id": [f"P{i:06d}" for i in range(1, n + 1)],
                          "zip": zip_text, "birth_date": birth, "sex": sex,
                          "ethnicity": ethnicity, "weight": weight.astype(object),
                          "diagnosis": diagnosis, "cost": cost})
    for column in ("zip", "birth_date", "sex", "ethnicity", "weight", "diagnosis"):
        table.loc[rng.random(n) < missing, column] = None
    return table


if __name__ == "__main__":
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 15_000
    clinic(rows).to_csv(sys.argv[1], index=False)
