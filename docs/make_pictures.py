"""Draw the pictures of the docs into docs/img/ (or the folder given as argument).

Run ``python docs/make_pictures.py`` after changing a picture function; the
PNG files are committed. Each picture is small (low dpi) and drawn from the
papers' worked examples, so it is the same on every machine up to fonts.
"""

import sys
from pathlib import Path

import kanon_graph as kg
from kanon_graph.lattice import Lattice, StatusMap
from kanon_graph.viz import hierarchy_figure, lattice_figure, metric_curves_figure, mst_figure

PICTURES = ("hierarchy_location.png", "hierarchy_paper003_age.png", "lattice_paper003.png",
            "mst_paper003_k3.png", "metric_curves.png")

#: Pages of the privacy report as headless Chromium renders them (docs/report.md); a
#: browser takes them, not matplotlib: ``python tests/report_cases.py docs/img``.
SCREENSHOTS = ("report_adult.png", "report_patients.png")


def lattice_status(table, schema, k):
    """Status of every node of the paper 003 lattice: chosen = the optimal node."""
    data = kg.encode(table, schema)
    lattice = Lattice(data.heights, names=data.names)
    best = tuple(kg.anonymize(table, schema, k=k, algorithm="optimal").levels.values())
    status = StatusMap(lattice.dimension)
    for node in lattice.nodes():
        keys = data.group_keys(node)
        _, counts = __import__("numpy").unique(keys, return_counts=True)
        status.mark(node, bool(counts.min() >= k))
    return lattice, {node: "chosen" if node == best else status.status(node)
                     for node in lattice.nodes()}


def main(out=None):
    out = Path(out) if out else Path(__file__).resolve().parent / "img"
    out.mkdir(parents=True, exist_ok=True)
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    figures = {
        "hierarchy_location.png": hierarchy_figure(kg.datasets.paper_002_location()),
        "hierarchy_paper003_age.png": hierarchy_figure(schema.hierarchy("age")),
        "lattice_paper003.png": lattice_figure(*lattice_status(table, schema, 3)),
        "mst_paper003_k3.png": mst_figure(kg.encode(table, schema), 3),
    }
    census, cschema = kg.datasets.make_census(400, seed=0), kg.datasets.census_schema()
    rows = [{"algorithm": a, "k": k, **kg.anonymize(census, cschema, k=k, algorithm=a).metrics}
            for a in ("datafly", "optimal", "mondrian", "mst") for k in (2, 5, 10, 20)]
    figures["metric_curves.png"] = metric_curves_figure(rows, ["loss", "ncp"])
    for name, fig in figures.items():
        fig.savefig(out / name, dpi=60, metadata={"Software": None})
    return [out / name for name in PICTURES]


if __name__ == "__main__":
    for path in main(sys.argv[1] if len(sys.argv) > 1 else None):
        print(path, path.stat().st_size, "bytes")
