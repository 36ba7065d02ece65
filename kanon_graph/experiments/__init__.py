"""Every paper's experiment in one call: ``reproduce("000")`` .. ``reproduce("004")``.

Each paper module runs the paper's own comparison on Adult (the shared data,
found through ``data=`` or ``$KANON_GRAPH_DATA``; the synthetic census stands
in when Adult is absent; paper 004 reads UCI's full ``adult-uci/adult.data``
beside it), writes CSV and PNG files, and returns a :class:`PaperReport`
whose verdict table judges each claim of the paper twice: under the
paper-literal reading (the paper's columns, metric, formula and parameters
as written) and under ours, with an attribution for every "does not hold"
(:data:`FAILS`, :data:`SETUP`, :data:`RECONSTRUCTION`). Every paper's runs
are :class:`Run` records; ``extra_runs`` adds yours to the comparisons, and
:func:`rejudge` judges the claims again from the CSV files of a run.

=====  ==============================================================  ==========
paper  experiment                                                      module
=====  ==============================================================  ==========
000    SD against Mondrian, Incognito, Datafly: NCP, utility (Fig 4-5)  paper000
001    sensitive clustering against systematic clustering (Fig 1-5)    paper001
002    generalization boundaries: Age's distribution (3.3, Table 7)    paper002
003    MST against Mondrian and k-member: GCP, DM, CAVG (Fig 7-9)       paper003
004    RV global search against bottom-up: patterns kept (6.2.2)       paper004
=====  ==============================================================  ==========

The same from the command line: ``kanon-graph reproduce 000 [--quick] [--out DIR]
[--plugin MODULE] [--with ALGORITHM]``.
"""

from __future__ import annotations

import importlib
import time
from pathlib import Path
from typing import Callable, Sequence

from ._report import FAILS, RECONSTRUCTION, SETUP, Claim, PaperReport
from ._runs import Run

__all__ = ["PAPERS", "Claim", "ExperimentData", "PaperReport", "Run", "experiment_data",
           "reproduce", "rejudge", "FAILS", "SETUP", "RECONSTRUCTION"]

#: The papers whose experiment can be reproduced: number -> short title.
PAPERS = {
    "000": "SpatialDistance against Mondrian, Incognito and Datafly (Figures 4-5)",
    "001": "Sensitive-attribute clustering against systematic clustering (Figures 1-5)",
    "002": "Generalization boundaries keep Age's distribution (section 3.3, Table 7)",
    "003": "MST local recoding against Mondrian and k-member (Figures 7-9)",
    "004": "Research-value global search against bottom-up: patterns kept (6.2.2, Fig. 6-9)",
}


def reproduce(paper: str | int, *, quick: bool = False, out: str | Path | None = None,
              data: str | Path | None = None, rows: int | None = None,
              progress: Callable[[str], object] | None = None,
              extra_runs: Sequence[Run | str | tuple] | None = None) -> PaperReport:
    """Run one paper's experiment and judge its claims.

    Parameters
    ----------
    paper : str or int
        ``"000"`` .. ``"004"`` (``0`` .. ``4`` accepted).
    quick : bool
        Smaller samples and fewer k: a check that everything runs and a first
        look at the verdicts (``reproduce 004 --quick`` is meant to take under
        two minutes on a 2-core machine).
    out : path, optional
        Folder for the CSV and PNG files (created if needed); nothing is
        written when omitted.
    data : path, optional
        The folder holding Adult (see :func:`experiment_data`).
    rows : int, optional
        Cap on the rows of every sample: for tests and trials. The verdicts
        of a capped run say so in :attr:`PaperReport.data`.
    progress : callable, optional
        ``progress(text)`` before each run.
    extra_runs : sequence of Run, str or tuple, optional
        Algorithms to add to the comparison (e.g. one a plugin registered):
        :class:`Run` records, algorithm names, or ``(label, algorithm[,
        options])`` tuples. Each joins the CSVs, the figures *and* the
        verdicts: it is one more method the paper's proposal must beat, and
        where the paper compares two methods only it gets a claim row of its
        own. An unknown algorithm or a label already taken is refused.

    Returns
    -------
    PaperReport

    Examples
    --------
    >>> import kanon_graph as kg
    >>> report = kg.experiments.reproduce("003", quick=True, rows=120)
    >>> report.paper, len(report.claims) > 0
    ('003', True)
    >>> report.verdicts().columns.tolist()[:6]
    ['claim', 'literal', 'literal_verdict', 'ours', 'verdict', 'attribution']
    >>> added = kg.experiments.reproduce("003", quick=True, rows=120,
    ...                                  extra_runs=[kg.experiments.Run("greedy", "k-member")])
    >>> sorted(added.tables["fig79"]["algorithm"].unique())
    ['greedy', 'k-member', 'mondrian', 'mst', 'mst (paper)']
    """
    from ._data import experiment_data

    key = _paper_key(paper)
    module = importlib.import_module(f".paper{key}", __name__)
    if rows is not None and (isinstance(rows, bool) or not isinstance(rows, int) or rows < 10):
        raise ValueError(f"rows must be an integer of at least 10, got {rows!r}.")
    from ._runs import as_runs

    extra = as_runs(extra_runs, [r.label for r in getattr(module, "RUNS", ())])
    started = time.perf_counter()
    source = experiment_data(data)
    folder = Path(out) if out is not None else None
    report = module.run(source, quick=quick, rows=rows, out=folder,
                        step=progress or (lambda text: None), extra=extra)
    report.seconds = time.perf_counter() - started
    report.full = not quick and rows is None and source.is_adult and not extra
    report.notes += _failed_extras(report, extra)
    if folder is not None:
        report.write(folder)
        if not any(p.suffix == ".png" for p in report.files) and not _can_plot():
            report.notes.append("no figures were drawn: matplotlib is not installed "
                                "(pip install -e \".[plot]\")")
    return report


def rejudge(paper: str | int, folder: str | Path) -> PaperReport:
    """Judge ``paper``'s claims again from the CSV files a run wrote to ``folder``.

    Only the verdicts are recomputed, by the code of today, from the run's
    measured tables (``paperNNN_*.csv``); nothing is anonymized. The test
    suite uses it to check that the committed full runs' verdict tables in
    ``docs/research/`` are what the code judges from the committed figures.

    Returns
    -------
    PaperReport
        ``full`` is True (the comparison with the committed full run is
        left out), ``seconds`` 0.
    """
    import pandas as pd

    key = _paper_key(paper)
    module = importlib.import_module(f".paper{key}", __name__)
    folder = Path(folder)
    prefix = f"paper{key}_"
    tables = {p.stem[len(prefix):]: pd.read_csv(p) for p in sorted(folder.glob(f"{prefix}*.csv"))
              if p.stem != f"{prefix}verdicts"}
    return PaperReport(key, PAPERS[key], f"re-judged from {folder}", False,
                       module.claims_from(tables), tables, full=True)


def _failed_extras(report: PaperReport, extra) -> list[str]:
    """A note for each added run that failed at every point (so it is in no verdict)."""
    notes = []
    for run in extra:
        for frame in report.tables.values():
            column = "algorithm" if "algorithm" in frame else "release"
            if column not in frame or "error" not in frame:
                continue
            rows = frame[frame[column] == run.label]
            errors = rows["error"].astype(object).fillna("")
            if len(rows) and (errors != "").all():
                notes.append(f"added run {run.label!r} failed at every point: "
                             f"{errors.iloc[0]}")
            break
    return notes


def _can_plot() -> bool:
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def _paper_key(paper: str | int) -> str:
    text = f"{paper:03d}" if isinstance(paper, int) and not isinstance(paper, bool) \
        else str(paper).strip()
    if text not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}; got {paper!r}.")
    return text


def __getattr__(name: str):
    # the data loader pulls in kg.datasets: loaded when first asked for
    if name in ("ExperimentData", "experiment_data"):
        from . import _data

        return getattr(_data, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
