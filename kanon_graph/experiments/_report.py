"""What a paper's experiment returns: its claims, our figures and the verdicts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

__all__ = ["Claim", "PaperReport", "verdicts_markdown"]


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, what we measured for it, and whether it holds.

    Parameters
    ----------
    claim : str
        The paper's claim in one sentence, with the section or figure it is
        read from.
    ours : str
        Our figure(s) for it, short enough for one table cell.
    holds : bool
        Whether our figures agree with the claim.
    """

    claim: str
    ours: str
    holds: bool

    @property
    def verdict(self) -> str:
        return "holds" if self.holds else "does not hold"


@dataclass
class PaperReport:
    """One run of one paper's experiment.

    Attributes
    ----------
    paper : str
        The paper's number, ``"000"`` .. ``"004"``.
    title : str
    data : str
        Which table the run used (Adult, or the synthetic census when Adult
        is absent) and how many rows.
    quick : bool
        Whether this was a ``quick`` run (smaller samples, fewer k).
    claims : list of Claim
    tables : dict of str to DataFrame
        The measured figures, one CSV each when written.
    files : list of Path
        Everything :meth:`write` (and the figures) wrote.
    seconds : float
        Wall-clock seconds of the whole run.
    notes : list of str
        What the reader should know about the run (e.g. figures not drawn).
    """

    paper: str
    title: str
    data: str
    quick: bool
    claims: list[Claim]
    tables: dict[str, pd.DataFrame]
    files: list[Path] = field(default_factory=list)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def verdicts(self) -> pd.DataFrame:
        """The verdict table: ``claim``, ``ours``, ``verdict``, one row per claim."""
        return pd.DataFrame({"claim": [c.claim for c in self.claims],
                             "ours": [c.ours for c in self.claims],
                             "verdict": [c.verdict for c in self.claims]})

    @property
    def held(self) -> int:
        """How many claims hold."""
        return sum(c.holds for c in self.claims)

    def to_markdown(self) -> str:
        """The verdict table as a Markdown table (pipes in cells escaped)."""
        return verdicts_markdown(self.verdicts())

    def write(self, out: str | Path) -> list[Path]:
        """Write every table and the verdicts as CSV to folder ``out``; return the paths."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, frame in self.tables.items():
            path = out / f"paper{self.paper}_{name}.csv"
            frame.to_csv(path, index=False)
            written.append(path)
        path = out / f"paper{self.paper}_verdicts.csv"
        self.verdicts().to_csv(path, index=False)
        written.append(path)
        self.files.extend(p for p in written if p not in self.files)
        return written

    def describe(self) -> str:
        """A few lines for a terminal: the title, the data, the verdict table."""
        mode = " (quick)" if self.quick else ""
        head = (f"Paper {self.paper}: {self.title}{mode}\n"
                f"data: {self.data}; {self.seconds:.1f} s; "
                f"{self.held} of {len(self.claims)} claims hold\n")
        head += "".join(f"note: {note}\n" for note in self.notes)
        frame = self.verdicts()
        with pd.option_context("display.max_colwidth", 70, "display.width", 200):
            return head + frame.to_string(index=False)

    def __repr__(self) -> str:
        return (f"PaperReport(paper={self.paper!r}, claims={len(self.claims)}, "
                f"held={self.held}, quick={self.quick})")

    def _repr_html_(self) -> str:
        return (f"<p><b>Paper {self.paper}</b>: {self.title} &mdash; {self.data}; "
                f"{self.held} of {len(self.claims)} claims hold</p>"
                + self.verdicts().to_html(index=False))


def verdicts_markdown(verdicts: pd.DataFrame) -> str:
    """A verdict table (columns ``claim``, ``ours``, ``verdict``) as Markdown."""
    def cell(text):
        return str(text).replace("|", "\\|").replace("\n", " ")

    lines = ["| claim | ours | verdict |", "|---|---|---|"]
    lines += [f"| {cell(r.claim)} | {cell(r.ours)} | {cell(r.verdict)} |"
              for r in verdicts.itertuples(index=False)]
    return "\n".join(lines)
