"""A synthetic contacts register, written as a user's spreadsheet export writes it."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["make_register"]

_AREAS = {  # area -> (share, number of districts)
    "LS": (0.36, 29), "BD": (0.25, 24), "WF": (0.14, 17), "HD": (0.10, 9), "HX": (0.06, 7),
    "HG": (0.015, 5), "YO": (0.015, 62), "S": (0.015, 36), "M": (0.01, 40),
    "OL": (0.01, 16), "HU": (0.005, 20), "DN": (0.005, 22), "LN": (0.003, 13),
    "NE": (0.003, 40), "B": (0.004, 40),
}

_BLOCKS = {  # block share, then (code, weight) within it
    "F1": (0.08, [("F10.1", 3), ("F10.2", 6), ("F11.2", 2), ("F12.1", 2), ("F19.2", 1)]),
    "F2": (0.14, [("F20.0", 8), ("F20.9", 2), ("F22.0", 1), ("F23.9", 1), ("F25.0", 2),
                  ("F25.1", 1), ("F29", 1)]),
    "F3": (0.38, [("F31.1", 2), ("F31.3", 2), ("F31.9", 1), ("F32.0", 3), ("F32.1", 6),
                  ("F32.2", 3), ("F32.9", 2), ("F33.0", 2), ("F33.1", 4), ("F33.2", 2),
                  ("F34.1", 2), ("F39", 1)]),
    "F4": (0.26, [("F40.0", 1), ("F40.1", 2), ("F41.0", 2), ("F41.1", 5), ("F41.2", 4),
                  ("F42.0", 1), ("F43.1", 4), ("F43.2", 3), ("F44.9", 1)]),
    "F5": (0.03, [("F50.0", 2), ("F50.2", 1), ("F51.0", 1)]),
    "F6": (0.06, [("F60.3", 4), ("F60.2", 1), ("F61", 1)]),
    "F8": (0.02, [("F84.0", 3), ("F84.5", 1)]),
    "F9": (0.03, [("F90.0", 4), ("F91.9", 1), ("F99", 1)]),
}


def _zipf(rng, count, size, skew=1.0):
    p = 1.0 / np.arange(1, count + 1) ** skew
    return rng.choice(count, size=size, p=p / p.sum())


def make_register(n=60_000, seed=42, dob_format="%d/%m/%Y"):
    """A made-up mental-health contacts register: ``n`` rows of text columns.

    Drawn from ``numpy.random.default_rng(seed)``:

    * ``postcode``: a UK postcode district (``LS6``, ``BD10``): West Yorkshire's
      areas most of the time (LS 36%, BD 25%, WF 14%, HD 10%, HX 6%), the rest
      from ten neighbouring areas; within an area, districts Zipf-like;
    * ``date_of_birth``: written with ``dob_format`` (default ``dd/mm/yyyy``,
      as a spreadsheet export in the UK writes it), ages 16 to 95 at 2024-06-30;
    * ``diagnosis``: an ICD-10 F-chapter code (``F32.1``, ``F20.0``, ``F39``)
      from the blocks a mental-health service sees;
    * ``referred``: the referral date, ISO (2019-01-01 to 2024-06-30);
    * ``sex``; ``risk``: a sensitive risk flag (``low``, ``medium``, ``high``).

    The shape of issue 42's register: a table a data custodian exports, with
    dates as people write them and codes whose prefixes are levels.

    Examples
    --------
    >>> make_register(3).columns.tolist()
    ['postcode', 'date_of_birth', 'diagnosis', 'referred', 'sex', 'risk']
    """
    rng = np.random.default_rng(seed)
    areas = list(_AREAS)
    share = np.array([_AREAS[a][0] for a in areas])
    area = rng.choice(len(areas), size=n, p=share / share.sum())
    postcode = np.empty(n, dtype=object)
    for i, a in enumerate(areas):
        rows = np.flatnonzero(area == i)
        order = rng.permutation(_AREAS[a][1]) + 1          # which districts are busiest
        postcode[rows] = [f"{a}{d}" for d in order[_zipf(rng, len(order), len(rows))]]
    age_days = np.clip(rng.gamma(6.0, 7.0, size=n) + 16, 16, 95) * 365.25
    born = pd.Timestamp("2024-06-30") - pd.to_timedelta(age_days.astype(int), unit="D")
    blocks = list(_BLOCKS)
    bshare = np.array([_BLOCKS[b][0] for b in blocks])
    block = rng.choice(len(blocks), size=n, p=bshare / bshare.sum())
    diagnosis = np.empty(n, dtype=object)
    for i, b in enumerate(blocks):
        rows = np.flatnonzero(block == i)
        codes, weights = zip(*_BLOCKS[b][1])
        w = np.array(weights, dtype=float)
        diagnosis[rows] = np.array(codes)[rng.choice(len(codes), size=len(rows), p=w / w.sum())]
    referred = pd.Timestamp("2019-01-01") + pd.to_timedelta(rng.integers(0, 2_007, size=n),
                                                           unit="D")
    sex = rng.choice(["F", "M"], size=n, p=[0.55, 0.45])
    risk = rng.choice(["low", "medium", "high"], size=n, p=[0.7, 0.22, 0.08])
    return pd.DataFrame({"postcode": postcode, "date_of_birth": born.strftime(dob_format),
                         "diagnosis": diagnosis, "referred": referred.strftime("%Y-%m-%d"),
                         "sex": sex, "risk": risk})
