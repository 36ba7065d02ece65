"""Pictures of the three graphs, as pure functions.

Every function here returns text, DOT lines, a graph object or a matplotlib
figure and touches no file; :func:`write_dot` is the thin wrapper that writes
DOT lines to disk, and ``fig.savefig(path)`` writes a figure. matplotlib is
optional (``pip install -e ".[plot]"``) and imported only when a figure is
drawn.

* hierarchy trees: :func:`hierarchy_text`, :func:`hierarchy_dot`,
  :func:`hierarchy_figure` (labels measured so none overlaps, each level's
  CHD), :func:`hierarchy_to_networkx`;
* the lattice's Hasse diagram, coloured by status, of a lattice or of a
  global recoding's result (the lattice its search walked, its node chosen):
  :func:`lattice_dot`, :func:`lattice_dot_lines`, :func:`lattice_figure`;
* the record graph's MST with its cut edges dashed and the classes coloured
  (paper 003, Figure 5): :func:`mst_split_view`, :func:`mst_dot`,
  :func:`mst_figure`;
* metric curves (loss against k per algorithm): :func:`metric_curves_figure`;
* original against released distributions: :func:`distribution_figure`;
* the CART trees grown on the original and on the released table (paper 004,
  Figures 6-9): :func:`pattern_trees_figure`;
* notebook displays: hierarchies, lattices, MST splits and results show
  themselves in Jupyter (:mod:`kanon_graph.viz.notebook`); :func:`set_display`
  sets how much they show.
"""

from .distribution import distribution_figure
from .hierarchy import (hierarchy_dot, hierarchy_figure, hierarchy_text, hierarchy_to_networkx,
                        write_dot)
from .lattice import lattice_dot, lattice_dot_lines, lattice_figure
from .metrics import metric_curves_figure
from .notebook import set_display
from .records import MSTSplitView, mst_dot, mst_figure, mst_split_view
from .trees import pattern_trees_figure

__all__ = [
    "MSTSplitView",
    "distribution_figure",
    "hierarchy_dot",
    "hierarchy_figure",
    "hierarchy_text",
    "hierarchy_to_networkx",
    "lattice_dot",
    "lattice_dot_lines",
    "lattice_figure",
    "metric_curves_figure",
    "mst_dot",
    "mst_figure",
    "mst_split_view",
    "pattern_trees_figure",
    "set_display",
    "write_dot",
]
