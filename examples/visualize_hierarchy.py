"""Look at hierarchies: as a text tree, as Graphviz DOT files, as a networkx graph.

Run ``python examples/visualize_hierarchy.py [OUT_DIR]``. It prints the
project's Adult ``education`` hierarchy as a tree, writes one DOT file per
Adult attribute into OUT_DIR (default ``hierarchy_pictures``), summarizes
every hierarchy from its networkx graph, and shows the MAGVal marks of
paper 002's Location hierarchy. Render a DOT file with Graphviz:
``dot -Tpng OUT_DIR/education.dot -o education.png``.
"""

import sys
from pathlib import Path

import networkx as nx

import kanon_graph as kg
from kanon_graph.viz import hierarchy_dot, hierarchy_text, hierarchy_to_networkx, write_dot

out_dir = Path(sys.argv[1] if len(sys.argv) > 1 else "hierarchy_pictures")
out_dir.mkdir(parents=True, exist_ok=True)

hierarchies = kg.datasets.adult_hierarchies()

print("== Adult education hierarchy ==")
print(hierarchy_text(hierarchies["education"]))

print("\n== every Adult hierarchy ==")
for column, h in hierarchies.items():
    graph = hierarchy_to_networkx(h)
    per_level = [sum(1 for _, lvl in graph.nodes(data="level") if lvl == level)
                 for level in range(h.height + 1)]
    path = write_dot(hierarchy_dot(h, rankdir="LR"), out_dir / f"{column}.dot")
    assert nx.is_arborescence(graph)
    print(f"{column:<15} height {h.height}  nodes per level {per_level}  -> {path}")

print("\n== paper 002, Figure 2: Location with MAGVals ==")
location = kg.datasets.paper_002_location()
print(hierarchy_text(location))
print(f"MAGSet: {sorted(location.magset())}")
write_dot(hierarchy_dot(location), out_dir / "location.dot")
