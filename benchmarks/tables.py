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


def patients_builder_schema(table):
    """Hierarchies as ARX's builders make them, for :func:`patients` (issue 22).

    zip masked one digit per level to ``*****``; dob day, year, decade, ``*``;
    income in bands of 1,000 / 5,000 / 25,000 / 100,000, then ``*``; sex, ``*``.
    """
    from kanon_graph.hierarchy import dates, intervals, masking

    hierarchies = {
        "zip": masking(table["zip"], levels=5, name="zip"),
        "dob": dates(table["dob"], levels=("year", "decade"), name="dob"),
        "income": intervals(table["income"], widths=[1_000, 5_000, 25_000, 100_000],
                            name="income"),
        "sex": kg.Hierarchy([[s, "*"] for s in sorted(set(table["sex"]))], name="sex"),
    }
    return kg.Schema(quasi_identifiers=PATIENT_QIS, sensitive=["diagnosis"],
                     hierarchies=hierarchies)


CLINIC_QIS = ["visit", "zip", "weight", "sex"]


def clinic(n, seed=5):
    """``n`` synthetic clinic visits (issue 22), from ``numpy.random.default_rng(seed)``.

    ``visit``: a date in 2015-01-01 + 0..3,649 days (ISO text); ``zip``: one
    of 60 five-digit codes (``"1"`` + 4 digits, Zipf-like frequencies);
    ``weight``: kg, normal(78, 16) clipped to 35..180, one decimal; ``sex``;
    ``cost``: the skewed sensitive column (lognormal(7, 1.2), whole
    currency units, most visits cheap, a long tail). Drawn in that order.
    """
    rng = np.random.default_rng(seed)
    days = rng.integers(0, 3_650, size=n)
    visit = (np.datetime64("2015-01-01") + days.astype("timedelta64[D]")).astype(str)
    codes = np.char.add("1", rng.choice(np.arange(1000, 9999), size=60, replace=False)
                        .astype(str))
    freq = 1.0 / np.arange(1, 61) ** 0.8
    zips = rng.choice(codes, size=n, p=freq / freq.sum())
    weight = np.round(np.clip(rng.normal(78, 16, size=n), 35, 180), 1)
    sex = rng.choice(["F", "M"], size=n)
    cost = np.round(rng.lognormal(7, 1.2, size=n)).astype(int)
    return pd.DataFrame({"visit": visit, "zip": zips, "weight": weight, "sex": sex,
                         "cost": cost})


def clinic_schema(table):
    """``kanon-graph hierarchy suggest``'s hierarchies for :func:`clinic`; cost sensitive.

    The kinds are declared as a user would (visit a date, zip a code, weight
    numeric), so suggest builds month / year / decade, masking and bands.
    """
    base = kg.Schema(quasi_identifiers=CLINIC_QIS, sensitive=["cost"], numeric=["weight"],
                     dates=["visit"], categorical=["zip", "sex"])
    made = kg.hierarchy.suggest(table, base)
    return kg.Schema(quasi_identifiers=CLINIC_QIS, sensitive=["cost"],
                     hierarchies={c: h for c, (h, _) in made.items()})
