"""The project's Adult hierarchies as text, DOT files and PNG drawings.

Run ``python examples/visualize_adult_hierarchies.py [OUT_DIR]`` (default: a
new temporary folder). For every Adult quasi-identifier it prints the
hierarchy's shape, writes ``<column>.dot`` and ``<column>.png`` (a
matplotlib drawing with levels, leaf counts and MAGVal marks) into OUT_DIR,
and prints the text tree of ``marital-status``.
"""

import sys
import tempfile
from pathlib import Path

import kanon_graph as kg
from kanon_graph.viz import hierarchy_dot, hierarchy_figure, hierarchy_text, write_dot

out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="adult_"))
out_dir.mkdir(parents=True, exist_ok=True)

for column, h in kg.datasets.adult_hierarchies().items():
    write_dot(hierarchy_dot(h, rankdir="LR" if h.n_leaves > 20 else "TB"),
              out_dir / f"{column}.dot")
    fig = hierarchy_figure(h)
    fig.savefig(out_dir / f"{column}.png", dpi=60)
    fig.clf()
    print(f"{column}: height {h.height}, {h.n_leaves} leaves, {len(h)} nodes")

print()
print(hierarchy_text(kg.datasets.adult_hierarchies()["marital-status"]))
print(f"\npictures in {out_dir}")
