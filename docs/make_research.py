"""Copy full reproduce runs into the docs and rewrite docs/research.md's verdict tables.

Usage::

    kanon-graph reproduce 000 --out runs      # ... and 001 to 004, full runs
    python docs/make_research.py runs

Copies each ``paperNNN_verdicts.csv`` and the PNG figures from ``runs`` into
``docs/research/`` and replaces the block between ``<!-- verdicts:NNN -->``
and ``<!-- /verdicts:NNN -->`` in ``docs/research.md`` with the table.
tests/test_experiments.py checks that every block equals its CSV and that
the CSV's claims are the ones the code judges today.
"""

from __future__ import annotations

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


def block(paper: str) -> str:
    """The Markdown the page holds for ``paper``, from the committed CSV."""
    frame = pd.read_csv(FOLDER / f"paper{paper}_verdicts.csv")
    return f"<!-- verdicts:{paper} -->\n{verdicts_markdown(frame)}\n<!-- /verdicts:{paper} -->"


def pattern(paper: str) -> re.Pattern:
    return re.compile(rf"<!-- verdicts:{paper} -->.*?<!-- /verdicts:{paper} -->", re.S)


def main(runs: str) -> None:
    source = Path(runs)
    FOLDER.mkdir(exist_ok=True)
    text = PAGE.read_text()
    for paper in PAPERS:
        csv = source / f"paper{paper}_verdicts.csv"
        if not csv.exists():
            print(f"paper {paper}: no {csv}; its table is left as it is")
            continue
        shutil.copy(csv, FOLDER / csv.name)
        for png in source.glob(f"paper{paper}_*.png"):
            shutil.copy(png, FOLDER / png.name)
        text = pattern(paper).sub(lambda _: block(paper), text)
        print(f"paper {paper}: table and figures copied")
    PAGE.write_text(text)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "runs")
