"""Copy full reproduce runs into the docs and rewrite docs/research.md's verdict tables.

Usage::

    kanon-graph reproduce 000 --out runs      # ... and 001 to 004, full runs
    python docs/make_research.py runs

Copies every ``paperNNN_*.csv`` (the verdicts and the measured tables they
are judged from) and the PNG figures from ``runs`` into ``docs/research/``,
replaces the block between ``<!-- verdicts:NNN -->`` and
``<!-- /verdicts:NNN -->`` in ``docs/research.md`` with the verdict table,
and writes ``kanon_graph/experiments/_full.py`` (the full runs' verdicts, so
a quick run can say where it differs). tests/test_experiments.py checks that
every block equals its CSV, that the code judges the committed tables to
exactly these verdicts, and that ``_full.py`` holds them.
"""

from __future__ import annotations

import pprint
import re
import shutil
import sys
from pathlib import Path

import pandas as pd

from kanon_graph.experiments import PAPERS
from kanon_graph.experiments._report import verdicts_markdown

DOCS = Path(__file__).resolve().parent
PAGE = DOCS / "research.md"
FOLDER = DOCS / "research"
FULL = DOCS.parent / "kanon_graph" / "experiments" / "_full.py"


def verdicts(paper: str) -> pd.DataFrame:
    """The committed full run's verdict table of ``paper``."""
    return pd.read_csv(FOLDER / f"paper{paper}_verdicts.csv", keep_default_na=False)


def block(paper: str) -> str:
    """The Markdown the page holds for ``paper``, from the committed CSV."""
    return (f"<!-- verdicts:{paper} -->\n{verdicts_markdown(verdicts(paper))}\n"
            f"<!-- /verdicts:{paper} -->")


def pattern(paper: str) -> re.Pattern:
    return re.compile(rf"<!-- verdicts:{paper} -->.*?<!-- /verdicts:{paper} -->", re.S)


def full_module() -> str:
    """The text of ``_full.py`` for the committed verdict CSVs."""
    full = {}
    for paper in PAPERS:
        if (FOLDER / f"paper{paper}_verdicts.csv").exists():
            frame = verdicts(paper)
            full[paper] = [(r.claim, r.literal_verdict, r.verdict)
                           for r in frame.itertuples(index=False)]
    head = FULL.read_text().split("FULL:")[0] if FULL.exists() else '"""Full runs."""\n\n'
    return head + "FULL: dict[str, list[tuple[str, str, str]]] = " + \
        pprint.pformat(full, width=96, sort_dicts=True) + "\n"


def main(runs: str) -> None:
    source = Path(runs)
    FOLDER.mkdir(exist_ok=True)
    text = PAGE.read_text()
    for paper in PAPERS:
        csv = source / f"paper{paper}_verdicts.csv"
        if not csv.exists():
            print(f"paper {paper}: no {csv}; its table is left as it is")
            continue
        for old in FOLDER.glob(f"paper{paper}_*"):
            old.unlink()
        for path in [*source.glob(f"paper{paper}_*.csv"), *source.glob(f"paper{paper}_*.png")]:
            shutil.copy(path, FOLDER / path.name)
        text = pattern(paper).sub(lambda _: block(paper), text)
        print(f"paper {paper}: tables and figures copied")
    PAGE.write_text(text)
    FULL.write_text(full_module())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "runs")
