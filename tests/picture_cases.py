"""Every hierarchy the project ships or reads, for the tests and scripts that draw them.

Used by ``tests/viz/test_pictures_read.py`` (no two texts overlap, none leaves
the figure) and by ``docs/check_pictures.py`` (prints the counts):

* the project's Adult hierarchies (``kg.datasets.adult_hierarchies``; the
  synthetic census uses the same ones);
* ARX's Adult and FARS hierarchies, read from ``$KANON_GRAPH_DATA``;
* the papers' worked examples (paper 003's gender, age and ZIP; paper 002's
  Location with its MAGVals);
* a 300-leaf ZIP code hierarchy (masked from the right) and a suggested date
  hierarchy (``kg.hierarchy.suggest`` on a date column).
"""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import kanon_graph as kg
from kanon_graph.hierarchy import load_hierarchies, masking


def project_hierarchies():
    return {f"adult/{c}": h for c, h in kg.datasets.adult_hierarchies().items()}


def arx_hierarchies(folder, prefix):
    with warnings.catch_warnings():      # ARX's age labels are one off, FARS repeats a row:
        warnings.simplefilter("ignore")  # read as published, said by the reader elsewhere
        return {f"{prefix}/{c}": h for c, h in load_hierarchies(Path(folder)).items()}


def paper_hierarchies():
    out = {f"paper003/{c}": h for c, h in kg.datasets.paper_003_hierarchies().items()}
    out["paper002/location"] = kg.datasets.paper_002_location()
    return out


def zip_hierarchy():
    """300 ZIP codes 02100..02399, masked one digit at a time."""
    return masking([f"{z:05d}" for z in range(2100, 2400)], name="zip")


def date_hierarchy():
    """The hierarchy ``suggest`` drafts for 400 dates of birth over 60 years."""
    rng = np.random.default_rng(0)
    days = pd.Timestamp("1940-01-01") + pd.to_timedelta(rng.integers(0, 60 * 365, 400), "D")
    table = pd.DataFrame({"birth": days.strftime("%Y-%m-%d")})
    schema = kg.Schema(quasi_identifiers=["birth"], dates=["birth"])
    return kg.hierarchy.suggest(table, schema)["birth"][0]


def built_hierarchies():
    """The hierarchies that need no data folder."""
    out = {**project_hierarchies(), **paper_hierarchies()}
    out["zip300"] = zip_hierarchy()
    out["dates/birth"] = date_hierarchy()
    return out


def all_hierarchies(data=None):
    """Every case; ``data`` is the shared data folder (ARX's Adult and FARS)."""
    out = built_hierarchies()
    if data is not None:
        out.update(arx_hierarchies(Path(data) / "adult", "arx-adult"))
        out.update(arx_hierarchies(Path(data) / "fars", "arx-fars"))
    return out
