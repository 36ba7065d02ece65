"""Paper 004 (Morton et al. 2012): research value worked examples and a small RV search.

Run ``python examples/paper_004_worked_example.py``. Prints the numeric
research value of section 4 (0.2 * 125 / (25*10 + 45*15 + 55*25) * 50/100 =
0.0054), the share of constraint-rule importance a race level keeps in the
Table 1 example (0.75 when Hispanic and Black are merged), and runs the
``rv-global`` search on paper 003's small table with k = 3.
"""

import kanon_graph as kg
from kanon_graph.lattice.rv import numeric_rv, rule_ratio

value = numeric_rv(0.2, [25, 45, 55], [10, 15, 25], base=125, kept=50, total=100)
print(f"numeric RV: {value:.4f}")

rules = [("White", "Hispanic", 5), ("White", "Black", 20),
         ("Hispanic", "Black", 10), ("Hispanic", "Asian", 5)]
race = kg.Hierarchy.from_rows([
    ["White", "White", "White", "*"],
    ["Black", "Black or Hispanic", "Other", "*"],
    ["Hispanic", "Black or Hispanic", "Other", "*"],
    ["Asian", "Asian", "Other", "*"],
], name="race")
for level in range(race.height + 1):
    print(f"race level {level}: rules kept {rule_ratio(rules, race, level):.4f}")

table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
result = kg.anonymize(table, schema, k=3, algorithm="rv-global")
print(f"\nrv-global, k = 3: levels {dict(result.levels)}, smallest class "
      f"{min(len(c) for c in result.classes)}, suppressed {result.suppressed}")
print(result.table.to_string())
