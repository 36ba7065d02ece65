"""Running one algorithm for an experiment, and drawing curves of the results."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Sequence

import pandas as pd

from ..api import anonymize
from ..schema import Schema

__all__ = ["measure", "curves", "figures", "Step"]

#: ``step(text)``: told before each run, so a caller can show progress.
Step = Callable[[str], object]


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
