"""A constructed table whose class is known: shared by the utility tests.

``age`` 20..59 (hierarchy: value, decade, ``*``), ``zip`` z1 / z2 (value,
``*``), two records per (age, zip). The class is ``young`` below 40 whatever
the zip; from 40 on it is ``hi`` in z1 and ``lo`` in z2. A release that keeps
decades and suppresses the zip keeps the age rule (its cut, 39/40, is a
decade boundary) and destroys both zip rules.
"""

import pandas as pd

import kanon_graph as kg


def table():
    rows = [(a, z) for a in range(20, 60) for z in ("z1", "z2") for _ in range(2)]
    frame = pd.DataFrame(rows, columns=["age", "zip"])
    frame["label"] = ["young" if a < 40 else ("hi" if z == "z1" else "lo") for a, z in rows]
    return frame


def schema():
    age = kg.Hierarchy.from_rows([[str(a), f"[{a // 10 * 10}-{a // 10 * 10 + 9}]", "*"]
                                  for a in range(20, 60)], name="age")
    zip_ = kg.Hierarchy.from_rows([["z1", "*"], ["z2", "*"]], name="zip")
    return kg.Schema(quasi_identifiers=["age", "zip"], numeric=["age"],
                     hierarchies={"age": age, "zip": zip_})


def decades_without_zip(frame):
    """The full-domain release at levels age=1, zip=1."""
    out = frame.copy()
    out["age"] = [f"[{a // 10 * 10}-{a // 10 * 10 + 9}]" for a in frame["age"]]
    out["zip"] = "*"
    return out
