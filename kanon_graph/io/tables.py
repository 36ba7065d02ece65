"""CSV tables in, released tables and JSON reports out.

:func:`read_table` reads every cell as text and turns a column into numbers
only when every value is a plain number without a leading zero, so codes
such as ZIP ``02139`` stay text while ages become numeric.
:func:`result_report` turns an :class:`~kanon_graph.AnonymizationResult`
into a JSON-ready dict; :func:`write_json` and :func:`write_table` write.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import DataError
from ..metrics import get_metric

__all__ = ["read_table", "write_table", "result_report", "write_json"]

_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_LEADING_ZERO = re.compile(r"^[+-]?0\d")
_SEPARATORS = (";", ",", "\t", "|")


def _sniff(path):
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        first = next((line for line in handle if line.strip()), "")
    counts = {sep: first.count(sep) for sep in _SEPARATORS}
    best = max(counts, key=counts.get)
    return best if counts[best] else ","


def _maybe_numeric(series):
    present = series.dropna()
    if present.empty:
        return series
    text = present.astype(str)
    if text.str.match(_NUMBER).all() and not text.str.match(_LEADING_ZERO).any():
        return pd.to_numeric(series)
    return series


def read_table(path, *, sep=None):
    """Read a CSV file with a header row into a DataFrame.

    Parameters
    ----------
    path : str or path-like
    sep : str, optional
        The cell separator; sniffed from the header line (``;``, ``,``, tab
        or ``|``, whichever occurs most) when omitted.

    Returns
    -------
    DataFrame
        Cells are stripped of surrounding spaces; empty cells are missing
        (``NaN``). A column becomes numeric when all its values are plain
        numbers and none has a leading zero.

    Raises
    ------
    DataError
        The file does not exist, is empty, or is not a well-formed table.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "people.csv")
    >>> _ = open(path, "w").write("age;zip;sex\\n34;02139;F\\n51;10001;M\\n")
    >>> t = read_table(path)
    >>> t.dtypes.astype(str).tolist(), t["zip"].tolist()
    (['int64', 'str', 'str'], ['02139', '10001'])
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"input file {str(path)!r} does not exist")
    sep = sep or _sniff(path)
    try:
        table = pd.read_csv(path, sep=sep, dtype=str, skipinitialspace=True,
                            encoding="utf-8-sig")
    except pd.errors.EmptyDataError:
        raise DataError(f"input file {str(path)!r} is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        detail = str(exc).strip().splitlines()[-1]
        raise DataError(f"input file {str(path)!r} is not a {sep!r}-separated table: "
                        f"{detail}") from None
    table.columns = [str(c).strip() for c in table.columns]
    duplicated = sorted({c for c in table.columns if list(table.columns).count(c) > 1})
    if duplicated:
        raise DataError(f"input file {str(path)!r} has duplicate column(s) {duplicated}")
    for column in table.columns:
        table[column] = _maybe_numeric(table[column].str.strip())
    return table


def write_table(table, path, *, sep=","):
    """Write ``table`` as CSV with a header and no index; returns the path."""
    path = Path(path)
    table.to_csv(path, sep=sep, index=False)
    return path


def _jsonable(value):
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


def result_report(result, *, parameters=None):
    """A JSON-ready description of an anonymization: what was asked, what was achieved.

    Parameters
    ----------
    result : AnonymizationResult
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
    info = {}
    for name in result.metrics:
        try:
            metric = get_metric(name)
        except ValueError:  # unregistered since the run
            continue
        info[name] = {"lower_is_better": metric.lower_is_better, "monotone": metric.monotone,
                      "description": metric.description}
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


def write_json(data, path):
    """Write ``data`` as indented JSON (NaN as ``null``); returns the path."""
    path = Path(path)
    path.write_text(json.dumps(_jsonable(data), indent=2, allow_nan=False) + "\n",
                    encoding="utf-8")
    return path
