"""Compare algorithms on one table: every algorithm at every k, one row per run."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from ._progress import reporter
from .api import anonymize
from .exceptions import PrivacyError
from .registry import get_algorithm

if TYPE_CHECKING:
    from .schema import Schema

__all__ = ["compare", "DEFAULT_METRICS"]

#: The metrics :func:`compare` reports when none are named.
DEFAULT_METRICS = ("loss", "gcp", "ncp", "discernibility", "cavg")


def compare(table: pd.DataFrame, schema: Schema, algorithms: Sequence[str],
            ks: Sequence[int], *, metrics: Sequence[str] = DEFAULT_METRICS,
            suppression: float | None = None, seed: int | None = 0,
            progress: Any = None) -> pd.DataFrame:
    """Anonymize ``table`` with every algorithm at every k and tabulate the runs.

    A run that fails (its parameters are out of range, or no release meets
    the criteria) keeps its row, with the error text instead of numbers.

    Parameters
    ----------
    table : DataFrame
    schema : Schema
    algorithms : sequence of str
        Registered algorithms; an unknown name raises before any run.
    ks : sequence of int
    metrics : sequence of str
        Metrics to compute for every run.
    suppression : float, optional
        Suppression budget, given to the algorithms that support suppression.
    seed : int or None
        Passed to every run (see :func:`kanon_graph.anonymize`).
    progress : None, bool or callable
        ``True`` draws a tqdm bar on stderr; a callable is called as
        ``progress(done, total, text)`` once before the runs and after each
        one, ``total`` being ``len(algorithms) * len(ks)``.

    Returns
    -------
    DataFrame
        One row per (algorithm, k): ``seconds``, ``classes``, ``suppressed``,
        one column per metric, and ``error`` (empty for a run that succeeded).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.paper_003_table()
    >>> runs = kg.compare(table, kg.datasets.paper_003_schema(), ["datafly", "mst"], [2, 3],
    ...                   metrics=["loss"])
    >>> runs[["algorithm", "k", "classes"]].values.tolist()
    [['datafly', 2, 3], ['datafly', 3, 2], ['mst', 2, 4], ['mst', 3, 3]]
    """
    report = reporter(progress, "compare")
    infos = [get_algorithm(name) for name in algorithms]    # unknown names fail first
    rows: list[dict[str, Any]] = []
    total = len(infos) * len(ks)
    try:
        report(0, total, "")
        for info in infos:
            for k in ks:
                rows.append(_run(table, schema, info, k, metrics, suppression, seed))
                report(len(rows), total, f"{info.name} k={k}")
    finally:
        report.close()
    return pd.DataFrame(rows)


def _run(table: pd.DataFrame, schema: Schema, info: Any, k: int, metrics: Sequence[str],
         suppression: float | None, seed: int | None) -> dict[str, Any]:
    row: dict[str, Any] = {"algorithm": info.name, "k": k}
    started = time.perf_counter()
    try:
        res = anonymize(table, schema, k=k, algorithm=info.name, seed=seed,
                        suppression=suppression if info.supports_suppression else None,
                        metrics=list(metrics))
    except (ValueError, PrivacyError) as exc:
        row.update({"seconds": time.perf_counter() - started, "classes": None,
                    "suppressed": None, **{m: None for m in metrics},
                    "error": " ".join(str(exc).split())})
    else:
        classes = None if res.classes is None else len(res.classes)
        row.update({"seconds": res.stats["seconds"], "classes": classes,
                    "suppressed": res.suppressed, **res.metrics, "error": ""})
    return row
