"""SSE / SST of our MDAV against anonypyx's MDAV-generic on mixed tables (issue 34, item 2).

Usage::

    pip install -e ".[compare]"      # anonypyx (0.2.11 was used); not a dependency
    python benchmarks/compare_mdav_anonypyx.py

Tables: ten mixed tables, two kinds at five (rows, k, seed): ``synthetic``
(age and hours numeric; sex, race and job nominal) and ``census``
(:func:`kg.datasets.make_census`: age numeric; sex, race, education and
marital-status nominal). Ours: ``kg.anonymize(..., algorithm="mdav")``.
anonypyx: ``anonypyx.microaggregation.MDAVGeneric(df, qis).partition(k)`` on
the same rows; its classes are released by the same aggregates (means,
modes: :func:`kanon_graph.recoding.recode_aggregate`) and measured by the
same :func:`kanon_graph.metrics.sse_sst`, so only the classes differ.

What anonypyx needs to run here (pandas 3): numeric columns as floats (it
writes z-scores back into them) and categorical columns as categoricals whose
categories are their own codes (it writes codes back into them); the rows
and their values are the same, relabelled one to one. It draws the mode of a
tie with ``secrets.choice``; this script makes that the smallest code, so a
run is repeatable. (On a table without categorical columns anonypyx's
distance to the average is NaN and its "farthest" record is the first one,
so only mixed tables are compared.)

Prints one line per table with both values and which is lower, then the count.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import kanon_graph as kg
from kanon_graph.metrics import sse_sst
from kanon_graph.recoding import recode_aggregate

CASES = [(300, 3, 0), (500, 5, 1), (400, 10, 2), (600, 4, 3), (300, 2, 4)]


def synthetic(n, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(18, 90, n),
                         "hours": np.round(rng.normal(40, 9, n)),
                         "sex": rng.choice(["F", "M"], n),
                         "race": rng.choice(["w", "b", "a", "o"], n, p=[.6, .2, .15, .05]),
                         "job": rng.choice(list("abcdefg"), n)})


def census(n, seed):
    return kg.datasets.make_census(n, seed=seed)[
        ["age", "sex", "race", "education", "marital-status"]]


def anonypyx_classes(table, k):
    import anonypyx.microaggregation as am

    am.secrets.choice = min                      # a repeatable mode among ties
    df = table.copy()
    for column in df.columns:
        if df[column].dtype.kind in "iuf":
            df[column] = df[column].astype(float)
        else:
            df[column] = pd.Categorical(pd.factorize(df[column])[0])
    class_of = np.empty(len(df), dtype=np.int64)
    for label, rows in enumerate(am.MDAVGeneric(df, list(df.columns)).partition(k)):
        class_of[np.asarray(rows)] = label
    return class_of


def main():
    warnings.filterwarnings("ignore", category=UserWarning)
    lower = 0
    for make in (synthetic, census):
        for n, k, seed in CASES:
            table = make(n, seed)
            schema = kg.Schema(quasi_identifiers=list(table.columns))
            ours = kg.anonymize(table, schema, k=k, algorithm="mdav")
            release = recode_aggregate(kg.encode(table, schema), anonypyx_classes(table, k),
                                       ours.stats["aggregate"])
            theirs = sse_sst(release)
            mine = ours.metrics["sse_sst"]
            lower += mine <= theirs
            print(f"{make.__name__:9s} rows={n:4d} k={k:2d}: ours {mine:.5f}  anonypyx "
                  f"{theirs:.5f}  {'ours <=' if mine <= theirs else 'ours HIGHER'}")
    print(f"ours at or below anonypyx on {lower} of {2 * len(CASES)} tables")


if __name__ == "__main__":
    main()
