"""The benchmark tables of issue 17, built exactly as its recipes say.

* :func:`patients` -- continuous columns: ``zip`` (``"0"`` + an integer in
  2100..2198), ``dob`` (1940-01-01 plus 0..24,999 days, ISO text), ``sex``
  (F / M), ``income`` (lognormal(10.5, 0.6) rounded to cents) and a
  ``diagnosis``; drawn from ``numpy.random.default_rng(2)`` in that order.
  Quasi-identifiers: zip, dob, sex, income; sensitive: diagnosis.
* :func:`wide_census` -- ``make_census(n, seed=0)`` with each of its 8
  quasi-identifiers copied once more as a shuffled column ``<name>_2``
  (``numpy.random.default_rng(0).permutation`` of the column, taken in column
  order, one generator for all), with the same hierarchy; the first
  ``n_qis`` of the 16 columns are the quasi-identifiers.

Both are imported by the benchmark scripts (``from tables import ...`` with
``benchmarks/`` as the working directory or on ``sys.path``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import kanon_graph as kg

DIAGNOSES = ["flu", "asthma", "diabetes", "hypertension", "migraine", "fracture",
             "bronchitis", "anemia"]
PATIENT_QIS = ["zip", "dob", "sex", "income"]


def patients(n, seed=2):
    """``n`` synthetic patients with continuous quasi-identifiers (issue 17)."""
    rng = np.random.default_rng(seed)
    zips = np.char.add("0", rng.integers(2100, 2199, size=n).astype(str))
    days = rng.integers(0, 25_000, size=n)
    dob = (np.datetime64("1940-01-01") + days.astype("timedelta64[D]")).astype(str)
    sex = rng.choice(["F", "M"], size=n)
    income = np.round(rng.lognormal(10.5, 0.6, size=n), 2)
    diagnosis = rng.choice(DIAGNOSES, size=n)
    return pd.DataFrame({"zip": zips, "dob": dob, "sex": sex, "income": income,
                         "diagnosis": diagnosis})


def patients_schema():
    """No hierarchies; income numeric, the rest categorical; diagnosis sensitive."""
    return kg.Schema(quasi_identifiers=PATIENT_QIS, sensitive=["diagnosis"],
                     numeric=["income"], categorical=["zip", "dob", "sex"])


def wide_census(n_qis, n=20_000):
    """``make_census(n, seed=0)`` widened to 16 quasi-identifiers; the first ``n_qis`` are used.

    Returns ``(table, schema)``.
    """
    table = kg.datasets.make_census(n, seed=0)
    base = kg.datasets.census_schema()
    qis = list(base.quasi_identifiers)
    rng = np.random.default_rng(0)
    hierarchies = dict(base.hierarchies)
    for name in qis:
        table[f"{name}_2"] = rng.permutation(table[name].to_numpy())
        hierarchies[f"{name}_2"] = hierarchies[name]
    columns = (qis + [f"{q}_2" for q in qis])[:n_qis]
    schema = kg.Schema(quasi_identifiers=columns, sensitive=list(base.sensitive),
                       hierarchies={c: hierarchies[c] for c in columns})
    return table, schema
