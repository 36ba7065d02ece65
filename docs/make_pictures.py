"""Draw the pictures of the docs into docs/img/ (or the folder given as argument).

Run ``python docs/make_pictures.py`` after changing a picture function
(``--only billing`` redraws only the pictures whose names hold ``billing``); the
PNG files are committed. Each picture is small (low dpi) and drawn from the
papers' worked examples or the project's own hierarchies, so it is the same
on every machine up to fonts. ``tests/viz/test_pictures_read.py`` draws the
same figures (:func:`figures`) and checks that no two texts overlap and none
leaves the figure; ``python docs/check_pictures.py`` prints those counts.
"""

import sys
from pathlib import Path

import kanon_graph as kg
from kanon_graph.hierarchy import masking
from kanon_graph.viz import hierarchy_figure, lattice_figure, metric_curves_figure, mst_figure

#: The pictures (concepts.md, visualization.md), each drawn by one entry of ``FIGURES``.
PICTURES = ("hierarchy_location.png", "hierarchy_paper003_age.png", "lattice_paper003.png",
            "mst_paper003_k3.png", "metric_curves.png", "hierarchy_adult_occupation.png",
            "hierarchy_adult_education.png", "hierarchy_zip300.png",
            "lattice_result_datafly.png", "hierarchy_register_postcode.png",
            "hierarchy_register_diagnosis.png", "hierarchy_register_date_of_birth.png",
            "hierarchy_billing_zip.png", "hierarchy_billing_occupation.png")

#: Pages of the privacy report as headless Chromium renders them (docs/report.md); a
#: browser takes them, not matplotlib: ``python tests/report_cases.py docs/img``.
SCREENSHOTS = ("report_adult.png", "report_patients.png")

#: The explorer's page in headless Chromium (docs/explore.md), taken along the browser
#: test's walk on the whole of Adult: ``python tests/test_explore_browser.py docs/img/explore``.
SCREENSHOTS += tuple(f"explore/explore_{view}.png"
                     for view in ("hierarchies", "run", "lattice", "compare"))

DPI = 60


def paper_003():
    return kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()


def metric_curves():
    census, schema = kg.datasets.make_census(400, seed=0), kg.datasets.census_schema()
    rows = [{"algorithm": a, "k": k, **kg.anonymize(census, schema, k=k, algorithm=a).metrics}
            for a in ("datafly", "optimal", "mondrian", "mst") for k in (2, 5, 10, 20)]
    return metric_curves_figure(rows, ["loss", "ncp"])


def zip300():
    """300 ZIP codes 02100..02399 masked from the right (a wide hierarchy)."""
    return masking([f"{z:05d}" for z in range(2100, 2400)], name="zip")


def register_suggested(column):
    """``hierarchy suggest``'s draft for a column of getting-started.md's 5,000 contacts."""
    contacts = kg.datasets.make_register(5000)
    schema = kg.Schema(quasi_identifiers=["postcode", "date_of_birth", "diagnosis", "referred",
                                          "sex"])
    return kg.hierarchy.suggest(contacts, schema)[column][0]


def billing_suggested(column):
    """``hierarchy suggest``'s draft for a column of getting-started.md's 5,000-row billing
    export (``benchmarks/new_user_table.py``: ZIP+4 beside ZIP, 30 job titles)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from new_user_table import QIS, new_user_table

    table = new_user_table(5000)
    return kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=QIS))[column][0]


#: Picture -> a function drawing its figure.
FIGURES = {
    "hierarchy_location.png": lambda: hierarchy_figure(kg.datasets.paper_002_location()),
    "hierarchy_paper003_age.png": lambda: hierarchy_figure(paper_003()[1].hierarchy("age")),
    "lattice_paper003.png": lambda: lattice_figure(
        kg.anonymize(*paper_003(), k=3, algorithm="optimal")),
    "mst_paper003_k3.png": lambda: mst_figure(kg.encode(*paper_003()), 3),
    "metric_curves.png": metric_curves,
    "hierarchy_adult_occupation.png": lambda: hierarchy_figure(
        kg.datasets.adult_hierarchies()["occupation"]),
    "hierarchy_adult_education.png": lambda: hierarchy_figure(
        kg.datasets.adult_hierarchies()["education"]),
    "hierarchy_zip300.png": lambda: hierarchy_figure(zip300()),
    "lattice_result_datafly.png": lambda: lattice_figure(
        kg.anonymize(*paper_003(), k=3, algorithm="datafly")),
    **{f"hierarchy_register_{c}.png": (lambda c=c: hierarchy_figure(register_suggested(c)))
       for c in ("postcode", "diagnosis", "date_of_birth")},
    **{f"hierarchy_billing_{c}.png": (lambda c=c: hierarchy_figure(billing_suggested(c)))
       for c in ("zip", "occupation")},
}


def figures():
    """Every docs picture as ``(file name, figure)``, drawn one at a time."""
    for name in PICTURES:
        yield name, FIGURES[name]()


def main(out=None, only=None):
    """Draw every picture (or those whose names contain one of ``only``) into ``out``."""
    import matplotlib.pyplot as plt

    out = Path(out) if out else Path(__file__).resolve().parent / "img"
    out.mkdir(parents=True, exist_ok=True)
    names = [n for n in PICTURES if not only or any(o in n for o in only)]
    for name in names:
        fig = FIGURES[name]()
        fig.savefig(out / name, dpi=DPI, metadata={"Software": None})
        plt.close(fig)
    return [out / name for name in names]


if __name__ == "__main__":
    # python docs/make_pictures.py [FOLDER] [--only NAME,NAME]
    args = sys.argv[1:]
    only = args[args.index("--only") + 1].split(",") if "--only" in args else None
    folder = next((a for i, a in enumerate(args) if a != "--only"
                   and (i == 0 or args[i - 1] != "--only")), None)
    for path in main(folder, only):
        print(path, path.stat().st_size, "bytes")
