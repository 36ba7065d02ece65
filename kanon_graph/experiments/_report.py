"""What a paper's experiment returns: its claims, both readings' figures and the verdicts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

__all__ = ["Claim", "PaperReport", "verdicts_markdown", "pair", "FAILS", "SETUP",
           "RECONSTRUCTION"]

#: The three attributions a "does not hold" may carry (each followed by how).
FAILS = "the paper's claim fails"
SETUP = "our setup differs"
RECONSTRUCTION = "our reconstruction decides it"
ATTRIBUTIONS = (FAILS, SETUP, RECONSTRUCTION)

#: The verdict table's columns, in order (``full run`` only in quick or capped runs).
COLUMNS = ["claim", "literal", "literal_verdict", "ours", "verdict", "attribution"]


def _verdict(holds: bool | None) -> str:
    if holds is None:
        return "not run"
    return "holds" if holds else "does not hold"


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, judged under the paper-literal reading and under ours.

    Parameters
    ----------
    claim : str
        The paper's claim in one sentence, with the section or figure it is
        read from.
    ours : str
        Our figure(s) for it under our reading (our setup, metric, data),
        short enough for one table cell.
    holds : bool
        Whether our figures agree with the claim.
    literal : str, optional
        The figure under the paper-literal reading (the paper's columns,
        metric, formula and parameters as written). ``None`` when the two
        readings are the same setup: the literal verdict is then ours.
    literal_holds : bool, optional
        The literal reading's verdict (``None``: not run, e.g. its data is
        missing; ``literal`` then says why).
    attribution : str
        Required when either reading does not hold: it starts with one of
        :data:`FAILS` ("the paper's claim fails"), :data:`SETUP` ("our setup
        differs") or :data:`RECONSTRUCTION` ("our reconstruction decides
        it"), followed by how.

    Raises
    ------
    ValueError
        A claim that does not hold under some reading without an attribution
        from that list.
    """

    claim: str
    ours: str
    holds: bool
    literal: str | None = None
    literal_holds: bool | None = None
    attribution: str = ""

    def __post_init__(self):
        if self.literal is None and self.literal_holds is None:
            object.__setattr__(self, "literal_holds", self.holds)
        failing = not self.holds or self.literal_holds is False
        if failing and not self.attribution.startswith(ATTRIBUTIONS):
            raise ValueError(f"claim {self.claim[:60]!r} does not hold under some reading, so "
                             f"its attribution must start with one of {ATTRIBUTIONS}; got "
                             f"{self.attribution!r}.")

    @property
    def verdict(self) -> str:
        """Our reading's verdict: ``holds`` or ``does not hold``."""
        return _verdict(self.holds)

    @property
    def literal_verdict(self) -> str:
        """The paper-literal reading's verdict (``not run`` when it could not run)."""
        return _verdict(self.literal_holds)

    @property
    def literal_figure(self) -> str:
        return "same setup as ours" if self.literal is None else self.literal

    def row(self) -> dict:
        return {"claim": self.claim, "literal": self.literal_figure,
                "literal_verdict": self.literal_verdict, "ours": self.ours,
                "verdict": self.verdict,
                "attribution": self.attribution if (not self.holds or self.literal_holds
                                                    is False) else ""}


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
    full : bool
        Whether this is a full run (not ``quick``, no ``rows`` cap, Adult).
        Other runs' verdict tables gain a ``full run`` column that names
        every verdict differing from the committed full run's.
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
    full: bool = False

    def verdicts(self) -> pd.DataFrame:
        """The verdict table, one row per claim.

        Columns ``claim``, ``literal`` (the paper-literal reading's figure),
        ``literal_verdict``, ``ours``, ``verdict`` (our reading's) and
        ``attribution`` (for every "does not hold"); a run that is not full
        adds ``full run``: empty where its verdicts equal the committed full
        run's, else what the full run said.
        """
        frame = pd.DataFrame([c.row() for c in self.claims], columns=COLUMNS)
        if not self.full:
            frame["full run"] = [compare_with_full(self.paper, c) for c in self.claims]
        return frame

    @property
    def held(self) -> int:
        """How many claims hold under our reading."""
        return sum(c.holds for c in self.claims)

    @property
    def held_literally(self) -> int:
        """How many claims hold under the paper-literal reading."""
        return sum(bool(c.literal_holds) for c in self.claims)

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
                f"{self.held} of {len(self.claims)} claims hold under our reading, "
                f"{self.held_literally} under the paper-literal reading\n")
        head += "".join(f"note: {note}\n" for note in self.notes)
        lines = []
        for row in self.verdicts().to_dict("records"):
            lines.append(f"- {row['claim']}")
            lines.append(f"    literal: {row['literal']} -> {row['literal_verdict']}")
            lines.append(f"    ours:    {row['ours']} -> {row['verdict']}")
            if row["attribution"]:
                lines.append(f"    why:     {row['attribution']}")
            if row.get("full run"):
                lines.append(f"    full run: {row['full run']}")
        return head + "\n".join(lines)

    def __repr__(self) -> str:
        return (f"PaperReport(paper={self.paper!r}, claims={len(self.claims)}, "
                f"held={self.held}, held_literally={self.held_literally}, quick={self.quick})")

    def _repr_html_(self) -> str:
        return (f"<p><b>Paper {self.paper}</b>: {self.title} &mdash; {self.data}; "
                f"{self.held} of {len(self.claims)} claims hold</p>"
                + self.verdicts().to_html(index=False))


def compare_with_full(paper: str, claim: Claim) -> str:
    """What the committed full run said of ``claim`` when it differs; ``""`` when it agrees."""
    from ._full import FULL

    committed = {c: (lit, ours) for c, lit, ours in FULL.get(paper, ())}
    if claim.claim not in committed:
        return "not judged by the committed full run"
    literal, ours = committed[claim.claim]
    said = []
    if literal != claim.literal_verdict and claim.literal_holds is not None:
        said.append(f"literal {literal}")
    if ours != claim.verdict:
        said.append(f"ours {ours}")
    return ("differs: the full run says " + ", ".join(said)) if said else ""


def verdicts_markdown(verdicts: pd.DataFrame) -> str:
    """A verdict table (the columns of :meth:`PaperReport.verdicts`) as Markdown."""
    def cell(text):
        return "" if pd.isna(text) else str(text).replace("|", "\\|").replace("\n", " ")

    names = {"claim": "claim", "literal": "paper-literal figure",
             "literal_verdict": "literal verdict", "ours": "our figure",
             "verdict": "our verdict", "attribution": "attribution", "full run": "full run"}
    columns = [c for c in verdicts.columns if c in names]
    lines = ["| " + " | ".join(names[c] for c in columns) + " |",
             "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |"
              for row in verdicts[columns].itertuples(index=False)]
    return "\n".join(lines)


def pair(a: float, b: float, sep: str = "against") -> str:
    """Two figures side by side with enough digits to tell them apart, or ``equal``.

    A comparison printed as ``0.3698 vs 0.3698`` with a verdict of "does not
    hold" hides whether the figures differ; this prints as many digits as
    tell them apart (up to 10) and says ``equal`` when they are.

    Examples
    --------
    >>> pair(0.36981, 0.36984), pair(17.7, 17.7)
    ('0.36981 against 0.36984', '17.7000 and 17.7000: equal')
    """
    if abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b)):
        return f"{a:.4f} and {b:.4f}: equal"
    digits = 4 if max(abs(a), abs(b)) < 1 else 2
    while digits < 10 and f"{a:.{digits}f}" == f"{b:.{digits}f}":
        digits += 1
    return f"{a:.{digits}f} {sep} {b:.{digits}f}"
