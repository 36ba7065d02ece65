"""Check and anonymize a table that lives in SQLite, and write the release back.

Run ``python examples/sqlite_table.py [DATABASE.sqlite]`` (default: a new
temporary file). The script fills a ``people`` table with 500 synthetic
census rows, reads it with pandas, asks SQLite (through
:class:`kanon_graph.lattice.SQLFrequencyEngine`) for the smallest
equivalence class of a few level vectors, anonymizes with k = 5, writes the
release into a ``people_k5`` table and checks it with a ``GROUP BY`` query.
"""

import sqlite3
import sys
import tempfile
from pathlib import Path

import pandas as pd

import kanon_graph as kg
from kanon_graph.lattice import SQLFrequencyEngine

path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()) / "census.sqlite"
schema = kg.datasets.census_schema()
with sqlite3.connect(path) as con:
    kg.datasets.make_census(500, seed=1).to_sql("people", con, if_exists="replace", index=False)

    table = pd.read_sql("SELECT * FROM people", con)
    engine = SQLFrequencyEngine(kg.encode(table, schema), connection=con)
    result = kg.anonymize(table, schema, k=5, algorithm="optimal")
    for levels in [(0,) * 8, tuple(result.levels.values()), (1, 5, 1, 3, 4, 3, 3, 2)]:
        print(f"levels {list(levels)}: smallest class {engine.min_count(levels)} (SQL)")
    result.table.to_sql("people_k5", con, if_exists="replace", index=False)
    qi = ", ".join(f'"{c}"' for c in schema.quasi_identifiers)
    smallest = con.execute(f"SELECT MIN(n) FROM (SELECT COUNT(*) AS n FROM people_k5 "
                           f"GROUP BY {qi})").fetchone()[0]
print(f"optimal levels: {dict(result.levels)}")
print(f"people_k5: {len(result.table)} rows, smallest class {smallest} (SQL GROUP BY)")
print(f"database: {path}")
