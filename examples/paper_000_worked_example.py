"""Paper 000 (SpatialDistance): the Figure 1 contingency distances.

Run ``python examples/paper_000_worked_example.py``. Builds the Gender x
Nationality table of Figure 1 (counts: Male 5/5/1 and Female 3/0/6 over
Japan/Korea/China), and prints the value distances seen from the first
record (Male, Japan) and from a (Female, China) record, as
:func:`kanon_graph.sd_value_distances` computes them (section 4.1): a value
is close to the reference value when its row of counts is similar.
"""

import pandas as pd

import kanon_graph as kg

FIGURE_1 = {("Male", "Japan"): 5, ("Male", "Korea"): 5, ("Male", "China"): 1,
            ("Female", "Japan"): 3, ("Female", "Korea"): 0, ("Female", "China"): 6}

rows = [key for key, n in FIGURE_1.items() for _ in range(n)]
table = pd.DataFrame(rows, columns=["gender", "nationality"])
schema = kg.Schema(quasi_identifiers=["gender", "nationality"])

print(pd.crosstab(table["gender"], table["nationality"]).to_string())
for label, ref in [("Male, Japan", 0),
                   ("Female, China", int(((table.gender == "Female")
                                          & (table.nationality == "China")).idxmax()))]:
    d = kg.sd_value_distances(table, schema, reference=ref, k=3)
    print(f"\nfrom ({label}), record {ref}:")
    for attribute, distances in d.items():
        print(f"  {attribute}: " + ", ".join(f"{v}={x:.4f}" for v, x in sorted(distances.items())))
