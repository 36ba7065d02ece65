"""The continuous-patients table of issue 17, shared by the benchmarks.

``make_patients(n)`` draws ``n`` synthetic patients from
``numpy.random.default_rng(seed)`` (seed 2 in issue 17), column after
column: ``zip`` (``"0"`` + an integer in 2100..2198, text), ``dob``
(1940-01-01 plus 0..24,999 days, ISO text, about 14,000 values at 20,000
rows), ``sex`` (F / M), ``income`` (lognormal(10.5, 0.6) rounded to cents,
practically all distinct) and a ``diagnosis`` (sensitive). No hierarchies:
``zip`` and ``dob`` are categorical text, ``income`` numeric.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import kanon_graph as kg

QIS = ["zip", "dob", "sex", "income"]
DIAGNOSES = ["flu", "asthma", "diabetes", "hypertension", "migraine", "bronchitis"]


def make_patients(n, seed=2):
    """``n`` rows of the issue 17 patients table (see the module docstring)."""
    rng = np.random.default_rng(seed)
    zips = "0" + pd.Series(rng.integers(2100, 2199, n)).astype(str)
    days = rng.integers(0, 25000, n)
    dob = (np.datetime64("1940-01-01") + days.astype("timedelta64[D]")).astype(str)
    sex = rng.choice(["F", "M"], n)
    income = np.round(rng.lognormal(10.5, 0.6, n), 2)
    diagnosis = rng.choice(DIAGNOSES, n)
    return pd.DataFrame({"zip": zips.to_numpy(), "dob": dob, "sex": sex,
                         "income": income, "diagnosis": diagnosis})


def patients_schema():
    """QIs zip, dob, sex (categorical) and income (numeric); diagnosis sensitive."""
    return kg.Schema(quasi_identifiers=QIS, sensitive=["diagnosis"], numeric=["income"],
                     categorical=["zip", "dob", "sex"])
