"""The facade's Dask dispatch: :func:`evaluate`, and whether a table is a Dask frame.

A Dask table, and the modules that run on it, load only for one; :func:`evaluate`
measures two pandas tables with :func:`kanon_graph.metrics.evaluate` and counts
two Dask tables first (:mod:`kanon_graph.scale.dask_evaluate`).
:func:`kanon_graph.anonymize` and :func:`kanon_graph.apply_levels`
(:mod:`kanon_graph.api`) use the same test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy.typing as npt
import pandas as pd

if TYPE_CHECKING:
    from ..metrics.evaluate import Evaluation
    from ..result import AnonymizationResult
    from ..schema import Schema

__all__ = ["evaluate", "is_dask_frame"]


def is_dask_frame(table: Any) -> bool:
    """A Dask DataFrame? (Dask, and the module that runs on it, load only for one.)"""
    if type(table).__module__.split(".")[0] not in ("dask", "dask_expr"):
        return False
    from ..scale.dask_input import is_dask_frame as dask_frame

    return bool(dask_frame(table))


def _on_dask(*args: Any, **kwargs: Any) -> AnonymizationResult:
    from ..scale.dask_input import run_on_dask

    return cast("AnonymizationResult", run_on_dask(*args, **kwargs))


def evaluate(original: pd.DataFrame | Any, released: pd.DataFrame | Any, schema: Schema,
             k: int = 1, *, l: float | None = None, diversity: str = "distinct",
             c: float = 1.0, t: float | None = None, sensitive: str | None = None,
             metrics: Sequence[str] | None = None, suppressed: npt.ArrayLike | None = None,
             target: str | None = None, missing: str = "error",
             aggregate: Mapping[str, str] | None = None) -> Evaluation:
    """Privacy and information loss of ``released``, a release of ``original``.

    Two pandas DataFrames are measured by :func:`kanon_graph.metrics.evaluate`;
    two Dask DataFrames are counted partition by partition, without collecting
    their records, and then measured the same way
    (:func:`kanon_graph.scale.dask_evaluate.evaluate_dask`).

    Parameters
    ----------
    original, released : DataFrame or dask.dataframe.DataFrame
        The table before anonymization and its release, row-aligned (Dask:
        partition by partition, and ``missing`` must be ``"error"``).
    schema, k, l, diversity, c, t, sensitive, metrics, suppressed, target, missing
        As for :func:`kanon_graph.metrics.evaluate`.
    aggregate : dict of str to str, optional
        A microaggregation's operators (``res.stats["aggregate"]`` of
        ``algorithm="mdav"``), as for :func:`kanon_graph.metrics.evaluate`;
        pandas tables only.

    Returns
    -------
    Evaluation

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    >>> res = kg.anonymize(table, schema, k=3, algorithm="mst")
    >>> ev = kg.evaluate(table, res.table, schema, k=3)
    >>> ev.metrics == res.metrics, ev.verification.k_achieved >= 3
    (True, True)
    """
    if is_dask_frame(original) or is_dask_frame(released):     # counted on Dask, then pandas
        if aggregate is not None:
            raise ValueError("The 'aggregate' parameter of evaluate is for pandas DataFrames; "
                             "a microaggregation is not measured on Dask. Got "
                             f"{dict(aggregate)!r}.")
        if missing != "error":
            raise ValueError("The 'missing' parameter of evaluate must be 'error' on Dask "
                             "DataFrames (rows are aligned partition by partition). Got "
                             f"{missing!r}.")
        from ..scale.dask_evaluate import evaluate_dask

        return cast("Evaluation", evaluate_dask(
            original, released, schema, k, l=l, diversity=diversity, c=c, t=t,
            sensitive=sensitive, metrics=metrics, suppressed=suppressed, target=target))
    from ..metrics.evaluate import evaluate as evaluate_pandas

    return evaluate_pandas(original, released, schema, k, l=l, diversity=diversity, c=c, t=t,
                           sensitive=sensitive, metrics=metrics, suppressed=suppressed,
                           target=target, missing=missing, aggregate=aggregate)
