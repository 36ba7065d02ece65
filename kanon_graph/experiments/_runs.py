"""Running one algorithm for an experiment, and drawing curves of the results."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pandas as pd

from ..api import anonymize
from ..schema import Schema

__all__ = ["Run", "as_runs", "measure", "curves", "figures", "Step"]

#: ``step(text)``: told before each run, so a caller can show progress.
Step = Callable[[str], object]


@dataclass(frozen=True)
class Run:
    """One algorithm run of a paper's experiment: the record every paper shares.

    Parameters
    ----------
    label : str
        The name in the CSVs, the figures' legends and the verdict table
        (e.g. ``"sd (paper)"``); unique within an experiment.
    algorithm : str
        A registered algorithm (:func:`kanon_graph.registry.algorithms`),
        including one a plugin registered.
    options : mapping
        Keyword options passed to :func:`kanon_graph.anonymize` (e.g.
        ``{"variant": "paper"}``).
    hierarchies : bool
        Whether the run gets the experiment's hierarchies (paper 000 runs SD
        without them, as its paper does); the other papers' experiments
        ignore it.
    role : {"proposed", "baseline", "extra"}
        The paper's own method, the paper's comparison, or an added run. An
        ``extra`` run joins every comparison the paper's claims make (as one
        more method to beat) and gets a claim row of its own where the paper
        compares two methods only.

    Examples
    --------
    >>> from kanon_graph.experiments import Run
    >>> Run("mondrian (relaxed)", "mondrian", {"cut": "relaxed"})
    Run(label='mondrian (relaxed)', algorithm='mondrian', options={'cut': 'relaxed'}, \
hierarchies=True, role='extra')
    """

    label: str
    algorithm: str
    options: Mapping[str, Any] = field(default_factory=dict)
    hierarchies: bool = True
    role: str = "extra"

    def __post_init__(self):
        if self.role not in ("proposed", "baseline", "extra"):
            raise ValueError(f"The 'role' of a Run must be 'proposed', 'baseline' or 'extra'. "
                             f"Got {self.role!r}.")


def as_runs(extra: Sequence[Any] | None, taken: Sequence[str] = ()) -> list[Run]:
    """``extra_runs`` as :class:`Run` records: a Run, an algorithm name, or a
    ``(label, algorithm[, options])`` tuple each; unknown algorithms and labels
    the experiment already uses are refused by name."""
    from ..registry import algorithms

    runs, labels = [], set(taken)
    for item in extra or ():
        if isinstance(item, Run):
            run = item
        elif isinstance(item, str):
            run = Run(item, item)
        elif isinstance(item, (tuple, list)) and len(item) in (2, 3):
            run = Run(str(item[0]), str(item[1]), dict(item[2]) if len(item) == 3 else {})
        else:
            raise ValueError(f"Each of 'extra_runs' must be a Run, an algorithm name or a "
                             f"(label, algorithm[, options]) tuple. Got {item!r}.")
        if run.algorithm not in algorithms():
            raise ValueError(f"extra_runs: unknown algorithm {run.algorithm!r}; registered: "
                             f"{', '.join(sorted(algorithms()))}.")
        if run.label in labels:
            raise ValueError(f"extra_runs: the label {run.label!r} is already used by this "
                             f"experiment; give the run another label.")
        labels.add(run.label)
        runs.append(run if run.role == "extra" else Run(run.label, run.algorithm,
                                                        run.options, run.hierarchies))
    return runs


def measure(table: pd.DataFrame, schema: Schema, k: int, algorithm: str,
            metrics: Sequence[str], *, extra: Callable[[Any], dict[str, Any]] | None = None,
            **options: Any) -> dict[str, Any]:
    """Anonymize once and return ``{metric: value, seconds, classes, suppressed, error}``.

    A run that raises is a data point, not a crash: its row carries the
    error's type and message in ``error`` and no metric values. Every other
    run went through the library's own verification of the released cells.
    ``extra(result)`` adds columns of its own to a successful run's row.
    """
    started = time.perf_counter()
    try:
        res = anonymize(table, schema, k=k, algorithm=algorithm, seed=0,
                        metrics=list(metrics), **options)
    except Exception as exc:  # noqa: BLE001  (recorded, not hidden)
        return {"seconds": time.perf_counter() - started,
                "error": f"{type(exc).__name__}: {exc}"[:300]}
    row: dict[str, Any] = {m: res.metrics[m] for m in metrics}
    row.update(seconds=time.perf_counter() - started, classes=len(res.classes),
               suppressed=res.suppressed, error="")
    if extra is not None:
        row.update(extra(res))
    return row


def figures(frame: pd.DataFrame, out: Path, paper: str,
            specs: Sequence[tuple[str, str, str]], panel: str | None = None) -> list[Path]:
    """One :func:`curves` PNG per ``(column, label, name)`` of ``specs``, as
    ``out/paperNNN_name.png``; the paths written (none without matplotlib)."""
    written = []
    for y, label, name in specs:
        path = curves(frame, y=y, ylabel=label, panel=panel,
                      path=out / f"paper{paper}_{name}.png", title=f"Paper {paper} {name}")
        if path is not None:
            written.append(path)
    return written


def curves(frame: pd.DataFrame, *, y: str, ylabel: str, path: Path, panel: str | None = None,
           x: str = "k", by: str = "algorithm", title: str = "") -> Path | None:
    """Draw ``y`` against ``x``, one line per ``by``, one panel per ``panel`` value (PNG).

    Returns the path written, or None when matplotlib is not installed (the
    ``plot`` extra) or there is nothing to draw.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    frame = frame[frame["error"].fillna("") == ""] if "error" in frame else frame
    if frame.empty or y not in frame:
        return None
    values = sorted(frame[panel].unique()) if panel else [None]
    fig, axes = plt.subplots(1, len(values), figsize=(3.6 * len(values), 3.2), squeeze=False)
    for ax, value in zip(axes[0], values):
        part = frame if value is None else frame[frame[panel] == value]
        for label, line in part.groupby(by, sort=True):
            line = line.sort_values(x)
            ax.plot(line[x], line[y], marker="o", ms=3, label=str(label))
        if value is not None:
            ax.set_title(f"{panel.replace('_', ' ')} = {value}", fontsize=9)
        ax.set_xlabel(x)
        ax.set_ylabel(ylabel)
    axes[0][0].legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
