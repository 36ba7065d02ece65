"""Quick start: anonymize a table in a few lines, then look at what was released.

Run it with ``python examples/quickstart.py``. It uses only built-in data:

1. the synthetic census table (Adult's schema) with the project's Adult
   hierarchies, anonymized by Datafly at k = 5;
2. a small table of your own making, with hierarchies built in Python from
   interval bands (age) and digit masking (ZIP).
"""

import pandas as pd

import kanon_graph as kg

# 1. The built-in synthetic census ----------------------------------------------------
table = kg.datasets.make_census(2000, seed=0)
schema = kg.datasets.census_schema()
res = kg.anonymize(table, schema, k=5, algorithm="datafly")

print("== census, k=5 ==")
print(res.summary())
print(res.class_summary().head(5).to_string())
print(f"smallest class: {min(len(c) for c in res.classes)}")
print(f"ARX loss: {res.metrics['loss']:.4f}")

# 2. A table of your own -----------------------------------------------------------
people = pd.DataFrame({
    "name": ["Ann", "Bob", "Cem", "Dee", "Eli", "Fay", "Gus", "Hal"],
    "age": [23, 27, 31, 36, 24, 29, 33, 38],
    "zip": ["53711", "53712", "53715", "53716", "53711", "53713", "53714", "53716"],
    "diagnosis": ["flu", "cold", "flu", "asthma", "cold", "flu", "asthma", "cold"],
})
hierarchies = {
    "age": kg.hierarchy.intervals(range(20, 40), widths=[5, 10], name="age"),
    "zip": kg.hierarchy.masking(people["zip"], levels=2, name="zip"),
}
own = kg.Schema(quasi_identifiers=["age", "zip"], sensitive=["diagnosis"],
                identifiers=["name"], categorical=["zip"], hierarchies=hierarchies)
mine = kg.anonymize(people, own, k=2, algorithm="datafly")

print("== own table, k=2 ==")
print(mine.table.to_string())
print(f"levels: {mine.levels}")
print(f"verified: {mine.verification.holds}, suppressed: {mine.suppressed}")
