"""Print, per picture, how many pairs of texts overlap and how many leave the figure.

``python docs/check_pictures.py [DATA]`` draws every hierarchy the project
ships or reads (``tests/picture_cases.py``: the project's Adult hierarchies,
ARX's Adult and FARS hierarchies from ``DATA`` or ``$KANON_GRAPH_DATA``, the
papers' hierarchies, a 300-leaf ZIP and a suggested date hierarchy) with
``kg.viz.hierarchy_figure`` as a user would, and every picture of the docs
(``docs/make_pictures.py``), then prints the counts of
:func:`kanon_graph.viz._overlaps.layout_problems` (texts measured with
``get_window_extent`` after a draw). Every count should be 0; the exit
status is 1 otherwise. ``--full`` also draws each hierarchy down to its
leaves (``max_leaves=None``).
"""

import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

import kanon_graph as kg  # noqa: E402
from kanon_graph.viz._overlaps import layout_problems  # noqa: E402
from picture_cases import all_hierarchies  # noqa: E402

DPI = 60


def counts(fig):
    fig.set_dpi(DPI)
    found = layout_problems(fig)
    plt.close(fig)
    return len(found["overlaps"]), len(found["clipped"])


def main(argv):
    full = "--full" in argv
    args = [a for a in argv if a != "--full"]
    data = args[0] if args else os.environ.get("KANON_GRAPH_DATA")
    rows = []
    for name, h in all_hierarchies(data).items():
        rows.append((name, *counts(kg.viz.hierarchy_figure(h))))
        if full:
            rows.append((f"{name} (all leaves)", *counts(kg.viz.hierarchy_figure(
                h, max_leaves=None))))
    try:
        import make_pictures
    except ImportError:           # an older checkout without figures(): hierarchies only
        make_pictures = None
    for name, fig in getattr(make_pictures, "figures", lambda: [])():
        rows.append((f"docs/img/{name}", *counts(fig)))
    width = max(len(r[0]) for r in rows)
    print(f"{'picture':{width}}  overlapping pairs  clipped texts")
    for name, overlaps, clipped in rows:
        print(f"{name:{width}}  {overlaps:17d}  {clipped:13d}")
    if data is None:
        print("(ARX's Adult and FARS hierarchies skipped: pass the data folder or set "
              "KANON_GRAPH_DATA)")
    return int(any(o or c for _, o, c in rows))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
