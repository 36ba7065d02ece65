"""Smoke test of an installed kanon_graph wheel, run by .ci/run outside the checkout.

Calls every public accessor of ``kg.datasets`` (each dataset and each hierarchy
it ships) and fails if the package was imported from a source checkout (it
must be the wheel's copy in site-packages) or if ``kg.datasets`` gained a name
this script does not call.
"""

import os
import sys
from pathlib import Path

import kanon_graph as kg

package = Path(kg.__file__).resolve().parent
if "site-packages" not in package.parts:
    sys.exit(f"smoke_wheel: kanon_graph was imported from {package}, not from the wheel")

data = os.environ.get("KANON_GRAPH_DATA")
calls = {
    "ADULT_COLUMNS": lambda: kg.datasets.ADULT_COLUMNS,
    "adult_hierarchies": kg.datasets.adult_hierarchies,
    "adult_hierarchies_path": kg.datasets.adult_hierarchies_path,
    "census_schema": kg.datasets.census_schema,
    "make_census": lambda: kg.datasets.make_census(300, seed=0),
    "make_wide_binary": lambda: kg.datasets.make_wide_binary(50, 4, seed=0),
    "make_register": lambda: kg.datasets.make_register(200, seed=0),
    "paper_001_table": kg.datasets.paper_001_table,
    "paper_002_location": kg.datasets.paper_002_location,
    "paper_003_hierarchies": kg.datasets.paper_003_hierarchies,
    "paper_003_schema": kg.datasets.paper_003_schema,
    "paper_003_table": kg.datasets.paper_003_table,
    "load_adult": (lambda: kg.datasets.load_adult(Path(data) / "adult")) if data else None,
}
missing = sorted(set(kg.datasets.__all__) - set(calls))
if missing:
    sys.exit(f"smoke_wheel: kg.datasets names {missing}, which this script does not call")

for name, call in calls.items():
    if call is None:
        print(f"{name}: skipped (KANON_GRAPH_DATA is not set)")
        continue
    value = call()
    if value is None or (hasattr(value, "__len__") and len(value) == 0):
        sys.exit(f"smoke_wheel: kg.datasets.{name}() returned nothing")
    print(f"{name}: {type(value).__name__}")

path = kg.datasets.adult_hierarchies_path()
if package not in path.resolve().parents:
    sys.exit(f"smoke_wheel: the Adult hierarchies were read from {path}, outside the package")
hierarchies = kg.datasets.adult_hierarchies()
assert sorted(hierarchies) == sorted(kg.datasets.ADULT_COLUMNS), sorted(hierarchies)
table = kg.datasets.make_census(300, seed=0)
res = kg.anonymize(table, kg.datasets.census_schema(), k=5, algorithm="datafly")
assert res.verification.holds and min(len(c) for c in res.classes) >= 5
print(f"smoke_wheel: {len(calls)} accessors called from {package}; datafly k=5 verified")
