"""The small worked-example tables of the papers, as built-ins.

* :func:`paper_003_table` -- Venkata Ramana & Valli Kumari (2013), Table 1(a):
  10 patients with gender, age and zip code, and the Figure 2 hierarchies
  (:func:`paper_003_hierarchies`).
* :func:`paper_001_table` -- Bhaladhare & Jinwala (2014), Table 1: 6 patients.
* :func:`paper_002_location` -- Hussien, Darwish & Hefny (2016), Figure 2: a
  Location hierarchy with the MAGVals of Geza, Helwan and Alex marked.
"""

from __future__ import annotations

import pandas as pd

from ..hierarchy import Hierarchy, masking
from ..schema import Schema

__all__ = [
    "paper_003_table",
    "paper_003_hierarchies",
    "paper_003_schema",
    "paper_001_table",
    "paper_002_location",
]


def paper_003_table():
    """Table 1(a) of paper 003: ID, gender, age, zip, disease (10 rows).

    Examples
    --------
    >>> paper_003_table().iloc[1].astype(str).tolist()
    ['2', 'Male', '24', '535280', 'HIV']
    """
    rows = [
        (1, "Male", 21, "535280", "Flu"),
        (2, "Male", 24, "535280", "HIV"),
        (3, "Male", 25, "535280", "Heart Disease"),
        (4, "Female", 26, "535280", "Heart Disease"),
        (5, "Female", 26, "535285", "Cancer"),
        (6, "Female", 32, "535288", "Flu"),
        (7, "Female", 32, "535292", "Flu"),
        (8, "Male", 36, "535292", "HIV"),
        (9, "Male", 36, "535296", "Cancer"),
        (10, "Male", 38, "535296", "Obesity"),
    ]
    return pd.DataFrame(rows, columns=["id", "gender", "age", "zip", "disease"])


def paper_003_hierarchies():
    """The Figure 2 hierarchies of paper 003: age (height 3), gender (1), zip (2).

    Age: leaves -> 5-year bands ``[20-25] [26-30] [31-35] [36-40]`` -> 10-year
    bands ``[20-30] [31-40]`` -> ``[20-40]``, the bands the paper's text and
    Table 1(c) use. Gender: ``Male``/``Female`` -> ``Person``. Zip: the last
    digit, then the last two masked (``535280 -> 53528* -> 5352**``).
    """
    ages = range(20, 41)

    def band5(a):
        return "[20-25]" if a <= 25 else "[26-30]" if a <= 30 else "[31-35]" if a <= 35 else "[36-40]"

    age = Hierarchy.from_rows(
        [[str(a), band5(a), "[20-30]" if a <= 30 else "[31-40]", "[20-40]"] for a in ages],
        name="age")
    gender = Hierarchy.from_rows([["Male", "Person"], ["Female", "Person"]], name="gender")
    zips = ["535280", "535285", "535288", "535292", "535296"]
    return {"gender": gender, "age": age, "zip": masking(zips, levels=2, name="zip")}


def paper_003_schema():
    """Schema of Table 1: quasi-identifiers gender, age, zip; sensitive disease; id an identifier."""
    return Schema(quasi_identifiers=["gender", "age", "zip"], sensitive=["disease"],
                  identifiers=["id"], categorical=["zip"], hierarchies=paper_003_hierarchies())


def paper_001_table():
    """Table 1 of paper 001: the 6-patient table (name, age, gender, zip, disease)."""
    rows = [
        ("Ajay", 25, "Male", "443350", "Diabetes"),
        ("Vijay", 26, "Male", "443351", "Cancer"),
        ("Kamal", 27, "Male", "443352", "Flu"),
        ("Rajesh", 36, "Male", "443350", "Hepatitis"),
        ("Anjana", 40, "Female", "443350", "Hepatitis"),
        ("Rajani", 39, "Female", "443350", "Hepatitis"),
    ]
    return pd.DataFrame(rows, columns=["name", "age", "gender", "zip", "disease"])


def paper_002_location():
    """Figure 2 of paper 002: Egyptian locations with MAGVals marked.

    ``A.R.E`` (the root) -> ``South Egypt``, ``Mid Egypt``, ``North Egypt`` ->
    cities. MAGVal(Geza) = South Egypt, MAGVal(Helwan) = Mid Egypt,
    MAGVal(Alex) = North Egypt; the figure's other cities are not given in
    the text, so two per region are added here for a usable table.

    Examples
    --------
    >>> h = paper_002_location()
    >>> h.allows("Geza", "South Egypt"), h.allows("Geza", "A.R.E")
    (True, False)
    """
    h = Hierarchy.from_mapping({"A.R.E": {
        "South Egypt": ["Geza", "Aswan", "Luxor"],
        "Mid Egypt": ["Helwan", "Fayoum", "Minya"],
        "North Egypt": ["Alex", "Tanta", "Damietta"],
    }}, name="location")
    for region in ("South Egypt", "Mid Egypt", "North Egypt"):
        h.mark_magval(region)
    return h
