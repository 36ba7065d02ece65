"""Held-out tables: shapes no default of the library was tuned on (issue 30).

The quality suite (``quality.py``) splits its tables in two groups:

* **tuning** -- Adult, FARS, patients, clinic, wide: the tables the defaults
  were chosen on (issues 17, 22 and 30). A default may change only on their
  evidence.
* **held out** -- the three tables of this module, built by code with fixed
  seeds and hierarchies made the way ARX's hierarchy builders make them
  (masking, date periods, numeric bands, prefix codes). No default is ever
  chosen on them: every commit that changes a default reports its effect on
  them, and docs/performance.md shows the two groups apart.

* :func:`claims` -- 25,000 insurance claims: a skewed five-digit postcode
  with leading zeros, an ISO birth date, sex, a four-digit occupation code
  hierarchical by prefix (ISCO-like: major, sub-major, minor, unit group),
  the claim amount (cents); sensitive: the claim type.
* :func:`registry` -- 20,000 rows of a population register: nine small
  categorical columns, correlated through a hidden household type, each
  with a two-level grouping; sensitive: a benefit code.
* :func:`admissions` -- 25,000 hospital admissions: two dates (admission
  and birth), a heavily skewed postcode with leading zeros, sex; sensitive:
  the ward.
* :func:`screening` -- 20,000 screening tests (issue 40): age, a
  municipality code, sex, the insurer; sensitive: the **skewed** result
  (``negative`` for about 70% of the rows, less often with age).
* :func:`earnings` -- 20,000 employees (issue 40): age, region, sex,
  education, a two-digit industry code; sensitive: the **numeric** monthly
  earnings (t-closeness takes the ordered distance).

The last two were added for the suite with sensitive columns
(``quality_sensitive.py``); they are held out for it and for ``quality.py``.

Each builder returns ``(table, schema)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import kanon_graph as kg
from kanon_graph.hierarchy import dates, intervals, masking


def _postcodes(rng, n, count, skew):
    """``n`` draws from ``count`` five-digit codes (many with leading zeros), Zipf-like."""
    codes = rng.choice(np.arange(0, 100_000), size=count, replace=False)
    codes = np.where(rng.random(count) < 0.4, codes % 10_000, codes)      # leading zeros
    codes = np.unique(codes)
    rng.shuffle(codes)
    freq = 1.0 / np.arange(1, len(codes) + 1) ** skew
    drawn = rng.choice(codes, size=n, p=freq / freq.sum())
    return np.char.zfill(drawn.astype(str), 5)


def _iso(start, days):
    return (np.datetime64(start) + days.astype("timedelta64[D]")).astype(str)


def _flat(values, groups, name):
    """A two-level hierarchy: value -> its group -> ``*``."""
    rows = [[v, groups[v], "*"] for v in sorted(set(values))]
    return kg.Hierarchy(rows, name=name)


CLAIM_QIS = ["postcode", "birth", "sex", "occupation", "amount"]


def claims(n=25_000, seed=11):
    """Insurance claims (see the module docstring); hierarchies as ARX's builders make them."""
    rng = np.random.default_rng(seed)
    postcode = _postcodes(rng, n, 900, 1.1)
    age_days = np.clip(rng.gamma(9.0, 4.5, size=n) * 365.25, 18 * 365, 95 * 365).astype(int)
    birth = _iso("2024-06-30", -age_days)
    sex = rng.choice(["F", "M"], size=n, p=[0.54, 0.46])
    units = []
    for major in range(1, 10):
        for sub in range(rng.integers(2, 5)):
            for minor in range(rng.integers(1, 5)):
                for unit in range(rng.integers(1, 6)):
                    units.append(f"{major}{sub + 1}{minor + 1}{unit + 1}")
    units = np.array(units)
    freq = rng.pareto(1.2, size=len(units)) + 0.05
    occupation = rng.choice(units, size=n, p=freq / freq.sum())
    amount = np.round(rng.lognormal(6.2, 1.1, size=n), 2)
    kind = rng.choice(["outpatient", "inpatient", "dental", "pharmacy", "vision", "therapy"],
                      size=n, p=[0.4, 0.1, 0.15, 0.25, 0.05, 0.05])
    table = pd.DataFrame({"postcode": postcode, "birth": birth, "sex": sex,
                          "occupation": occupation, "amount": amount, "kind": kind})
    hierarchies = {
        "postcode": masking(table["postcode"], levels=5, name="postcode"),
        "birth": dates(table["birth"], levels=("month", "year", "5 years", "decade"),
                       name="birth"),
        "sex": kg.Hierarchy([["F", "*"], ["M", "*"]], name="sex"),
        "occupation": masking(table["occupation"], levels=4, name="occupation"),
        "amount": intervals(table["amount"], widths=[50, 250, 1_000, 5_000, 25_000],
                            name="amount"),
    }
    return table, kg.Schema(quasi_identifiers=CLAIM_QIS, sensitive=["kind"],
                            hierarchies=hierarchies)


REGISTRY_QIS = ["region", "marital", "education", "employment", "household", "tenure",
                "citizenship", "language", "religion"]

_REGISTRY = {   # column -> (values, group of each value)
    "region": ({"north-1": "north", "north-2": "north", "east-1": "east", "east-2": "east",
                "east-3": "east", "south-1": "south", "west-1": "west"}),
    "marital": ({"single": "unmarried", "widowed": "unmarried", "divorced": "unmarried",
                 "married": "partnered", "partnership": "partnered"}),
    "education": ({"none": "basic", "primary": "basic", "lower-sec": "secondary",
                   "upper-sec": "secondary", "bachelor": "tertiary", "master+": "tertiary"}),
    "employment": ({"employed": "active", "self-employed": "active", "unemployed": "inactive",
                    "retired": "inactive"}),
    "household": ({"1": "1-2", "2": "1-2", "3": "3-4", "4": "3-4", "5": "5+", "6+": "5+"}),
    "tenure": ({"owner": "own", "mortgage": "own", "rent-private": "rent",
                "rent-social": "rent"}),
    "citizenship": ({"national": "national", "eu": "foreign", "non-eu": "foreign"}),
    "language": ({"lang-a": "official", "lang-b": "official", "lang-c": "other",
                  "lang-d": "other"}),
    "religion": ({"none": "none", "rel-a": "some", "rel-b": "some", "rel-c": "some"}),
}


def registry(n=20_000, seed=12):
    """A population register with nine small correlated categorical columns."""
    rng = np.random.default_rng(seed)
    types = rng.choice(6, size=n, p=[0.3, 0.2, 0.2, 0.15, 0.1, 0.05])
    table = {}
    for column, groups in _REGISTRY.items():
        values = np.array(list(groups))
        # each household type has its own skewed distribution over the column's values
        weights = rng.dirichlet(np.full(len(values), 0.6), size=6)
        u = rng.random(n)
        cum = np.cumsum(weights[types], axis=1)
        table[column] = values[(u[:, None] > cum).sum(axis=1).clip(0, len(values) - 1)]
    table["benefit"] = rng.choice(["B0", "B1", "B2", "B3", "B4"], size=n)
    table = pd.DataFrame(table)
    hierarchies = {c: _flat(table[c], g, c) for c, g in _REGISTRY.items()}
    return table, kg.Schema(quasi_identifiers=REGISTRY_QIS, sensitive=["benefit"],
                            hierarchies=hierarchies)


ADMISSION_QIS = ["admitted", "birth", "postcode", "sex"]


def admissions(n=25_000, seed=13):
    """Hospital admissions: two dates, a heavily skewed postcode, sex."""
    rng = np.random.default_rng(seed)
    admitted = _iso("2018-01-01", rng.integers(0, 6 * 365, size=n))
    age_days = np.clip(rng.normal(58, 21, size=n) * 365.25, 0, 100 * 365).astype(int)
    birth = _iso("2021-01-01", -age_days)
    postcode = _postcodes(rng, n, 1_500, 1.3)
    sex = rng.choice(["F", "M"], size=n)
    ward = rng.choice(["medicine", "surgery", "cardiology", "oncology", "maternity",
                       "geriatrics", "icu"], size=n)
    table = pd.DataFrame({"admitted": admitted, "birth": birth, "postcode": postcode,
                          "sex": sex, "ward": ward})
    hierarchies = {
        "admitted": dates(table["admitted"], levels=("month", "quarter", "year"),
                          name="admitted"),
        "birth": dates(table["birth"], levels=("year", "5 years", "decade"), name="birth"),
        "postcode": masking(table["postcode"], levels=5, name="postcode"),
        "sex": kg.Hierarchy([["F", "*"], ["M", "*"]], name="sex"),
    }
    return table, kg.Schema(quasi_identifiers=ADMISSION_QIS, sensitive=["ward"],
                            hierarchies=hierarchies)


SCREENING_QIS = ["age", "municipality", "sex", "insurer"]
_INSURERS = {"public-a": "public", "public-b": "public", "private-a": "private",
             "private-b": "private", "none": "none"}


def screening(n=20_000, seed=14):
    """Screening tests with a skewed sensitive result, drawn in the order of the columns."""
    rng = np.random.default_rng(seed)
    age = np.clip(np.round(rng.normal(52, 17, size=n)), 18, 95).astype(int)
    municipality = _postcodes(rng, n, 400, 0.9).astype("<U4")   # their first four digits
    sex = rng.choice(["F", "M"], size=n, p=[0.57, 0.43])
    insurer = rng.choice(list(_INSURERS), size=n, p=[0.45, 0.25, 0.12, 0.1, 0.08])
    negative = np.where(age < 40, 0.78, np.where(age < 65, 0.70, 0.60))
    others = np.array(["positive", "inconclusive", "retest", "referred"])
    result = np.where(rng.random(n) < negative, "negative",
                      others[rng.choice(4, size=n, p=[0.4, 0.25, 0.2, 0.15])])
    table = pd.DataFrame({"age": age, "municipality": municipality, "sex": sex,
                          "insurer": insurer, "result": result})
    hierarchies = {
        "age": intervals(table["age"], widths=[5, 10, 20, 40], name="age"),
        "municipality": masking(table["municipality"], levels=4, name="municipality"),
        "sex": kg.Hierarchy([["F", "*"], ["M", "*"]], name="sex"),
        "insurer": _flat(table["insurer"], _INSURERS, "insurer"),
    }
    return table, kg.Schema(quasi_identifiers=SCREENING_QIS, sensitive=["result"],
                            hierarchies=hierarchies)


EARNINGS_QIS = ["age", "region", "sex", "education", "industry"]
_REGIONS = {f"r{i:02d}": f"zone-{i // 4}" for i in range(12)}
_EDUCATION = {"none": "low", "basic": "low", "vocational": "middle", "secondary": "middle",
              "bachelor": "high", "master+": "high"}


def earnings(n=20_000, seed=15):
    """Employees with a numeric sensitive monthly earnings, drawn in the order of the columns."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 67, size=n)
    region = rng.choice(list(_REGIONS), size=n, p=np.linspace(2, 1, 12) / np.linspace(2, 1, 12)
                        .sum())
    sex = rng.choice(["F", "M"], size=n)
    level = rng.choice(6, size=n, p=[0.05, 0.15, 0.3, 0.2, 0.2, 0.1])
    education = np.array(list(_EDUCATION))[level]
    industry = np.char.zfill(rng.choice(np.arange(10, 100), size=n).astype(str), 2)
    base = 1_800 * (1 + 0.12 * level) * (1 + 0.015 * np.minimum(age - 18, 30))
    monthly = np.round(base * rng.lognormal(0, 0.35, size=n), -1).astype(int)  # whole tens
    table = pd.DataFrame({"age": age, "region": region, "sex": sex, "education": education,
                          "industry": industry, "monthly": monthly})
    hierarchies = {
        "age": intervals(table["age"], widths=[5, 10, 20, 40], name="age"),
        "region": _flat(table["region"], _REGIONS, "region"),
        "sex": kg.Hierarchy([["F", "*"], ["M", "*"]], name="sex"),
        "education": _flat(table["education"], _EDUCATION, "education"),
        "industry": masking(table["industry"], levels=2, name="industry"),
    }
    return table, kg.Schema(quasi_identifiers=EARNINGS_QIS, sensitive=["monthly"],
                            hierarchies=hierarchies)


#: name -> builder returning ``(table, schema)``.
HELD_OUT = {"claims": claims, "registry": registry, "admissions": admissions,
            "screening": screening, "earnings": earnings}
