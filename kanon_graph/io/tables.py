"""Released tables and JSON reports out.

:func:`write_table` writes a table as CSV, quoting a cell only where CSV
needs it, so text cells go out exactly as they are;
:func:`result_report` turns an :class:`~kanon_graph.AnonymizationResult`
into a JSON-ready dict; :func:`write_json` writes it. Reading is in
:mod:`kanon_graph.io.read`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from typing import Any
from pathlib import Path

import numpy as np
import pandas as pd
from pandas.api.types import is_string_dtype

from ..cells.kinds import one_kind
from ..exceptions import DataError
from .write import atomic_file


__all__ = ["write_table", "result_report", "write_json", "CRLF"]

#: The RFC 4180 line end: with it Python's CSV writer quotes a cell holding a bare CR.
CRLF = chr(13) + chr(10)


def write_table(table: pd.DataFrame, path: str | os.PathLike[str], *, sep: str = ",",
                format: str | None = None) -> Path:
    """Write ``table`` as CSV (or Parquet for a ``.parquet`` path); returns the path.

    CSV: a header and no index; a ``str`` cell is written as it is (quoted
    only when it holds the separator, a quote or a line break, ``\\r``
    included); a missing cell is written empty. The file is written
    beside ``path`` and renamed into place (:mod:`kanon_graph.io.write`):
    an interrupted write leaves the previous file or none. Parquet (the
    ``parquet`` extra, pyarrow): every column keeps its dtype, so released
    quasi-identifiers are text and the other columns what they were, except a
    column holding ``*`` beside numbers or dates (``safepub``'s withheld rows),
    written as text (:func:`kanon_graph.cells.kinds.one_kind`).
    ``format`` (``"csv"`` or ``"parquet"``) overrides the choice by suffix.
    """
    from .read import is_parquet

    path = Path(path)
    if format not in (None, "csv", "parquet"):
        raise ValueError(f"The 'format' parameter of write_table must be 'csv', 'parquet' or "
                         f"None. Got {format!r}.")
    if format == "parquet" or (format is None and is_parquet(path)):
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise DataError(f"writing {str(path)!r} needs pyarrow: "
                            f"pip install -e \".[parquet]\"") from None
        mixed = {c: one_kind(table[c]) for c in table.columns if table[c].dtype == object}
        mixed = {c: v for c, v in mixed.items() if v is not table[c]}
        if mixed:                   # '*' beside numbers (withheld rows): text, like a QI
            table = table.copy(deep=False)
            for column, cells in mixed.items():
                table[column] = cells
        with atomic_file(path) as tmp:
            table.to_parquet(tmp, index=False)
        return path
    with atomic_file(path) as tmp:
        table.to_csv(tmp, sep=sep, index=False, lineterminator=_line_end(table))
    return path


def _line_end(table: pd.DataFrame) -> str:
    """``"\\n"``, or ``"\\r\\n"`` when a text cell holds a bare carriage return.

    Python's CSV writer quotes a cell only for the characters of its line
    terminator: with ``"\\n"`` a cell holding ``"\\r"`` would go out unquoted
    and split the row when read back; with ``"\\r\\n"`` (RFC 4180) it is quoted.
    """
    for column in table.columns:
        cells = table[column]
        if getattr(cells.dtype, "name", None) == "category":
            # a released quasi-identifier: its labels are written, once each
            codes = cells.cat.codes.to_numpy()
            labels = np.asarray(cells.cat.categories, dtype=object)
            if any(isinstance(v, str) and chr(13) in v
                   for v in labels[np.unique(codes[codes >= 0])].tolist()):
                return CRLF
        elif cells.dtype == object or is_string_dtype(cells.dtype):
            # each distinct cell once (a column repeats its texts), not a call per cell
            if any(isinstance(v, str) and chr(13) in v for v in pd.unique(cells.to_numpy())):
                return CRLF
    return "\n"


def _jsonable(value: Any) -> Any:
    """Python scalars, lists and dicts only; NaN and infinities become ``None``."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_jsonable(v) for v in value.tolist()]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value) if math.isfinite(value) else None
    if value is None or isinstance(value, str):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _jsonable(dataclasses.asdict(value))
    return str(value)


def result_report(result: Any, *,
                  parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    """A JSON-ready description of an anonymization: what was asked, what was achieved.

    Parameters
    ----------
    result : AnonymizationResult
        Read by its attributes (io, the bottom room, imports no result).
    parameters : dict, optional
        What the run was asked to do (k, algorithm, files, ...), stored as is.

    Returns
    -------
    dict
        Keys ``parameters``, ``algorithm``, ``k``, ``records``, ``released``,
        ``suppressed``, ``dropped``, ``levels``, ``level_labels``,
        ``classes`` (count, min, median, mean, max and a histogram of class
        sizes), ``metrics`` (every computed metric), ``metric_info`` (per
        metric: lower_is_better, monotone, description), ``verification``
        (every criterion asked and achieved), ``seconds`` and ``stats``.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(), k=3)
    >>> report = result_report(res, parameters={"k": 3})
    >>> report["classes"]["count"] == len(res.classes), report["suppressed"] == res.suppressed
    (True, True)
    >>> report["verification"]["holds"], report["parameters"]
    (True, {'k': 3})
    """
    # a Dask release keeps no row positions: its class sizes are those of the release made
    classes = result.classes if result.classes is not None else result.release.classes()
    sizes = np.array([len(c) for c in classes], dtype=np.int64)
    values, counts = np.unique(sizes, return_counts=True)
    classes = {
        "count": int(sizes.size),
        "min": int(sizes.min()) if sizes.size else None,
        "median": float(np.median(sizes)) if sizes.size else None,
        "mean": float(sizes.mean()) if sizes.size else None,
        "max": int(sizes.max()) if sizes.size else None,
        "size_histogram": {str(int(v)): int(c) for v, c in zip(values, counts)},
    }
    info = result.metric_info()       # what the metrics declare (asked of the result:
    #                                   io sits below the metrics and the result)
    report = {
        "parameters": parameters or {},
        "algorithm": result.algorithm,
        "k": result.k,
        "records": len(result.table),
        "released": len(result.table) - result.suppressed,
        "suppressed": result.suppressed,
        "dropped": result.dropped,
        "levels": result.levels,
        "level_labels": result.level_labels,
        "classes": classes,
        "metrics": result.metrics,
        "metric_info": info,
        "verification": result.verification,
        "seconds": result.stats.get("seconds"),
        "stats": result.stats,
    }
    return _jsonable(report)


def write_json(data: Any, path: str | os.PathLike[str]) -> Path:
    """Write ``data`` as indented JSON (NaN as ``null``); returns the path."""
    path = Path(path)
    with atomic_file(path) as tmp:
        tmp.write_text(json.dumps(_jsonable(data), indent=2, allow_nan=False) + "\n",
                       encoding="utf-8")
    return path
