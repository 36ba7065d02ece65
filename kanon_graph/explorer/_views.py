"""A release's views, computed from counts: class sizes, level profile, collapsed cells, risk.

:func:`release_views` runs where the release was made (the worker process),
once per release, so the server answers the page's views from this summary
without touching the rows again. Every figure is recomputed from the
released cells; none is read from what the algorithm reported about itself,
except the Loss metric, which the library itself measures on the release.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import HierarchyError
from ..report._content import json_ready as json_safe  # the report's strict-JSON form
from ._cells import is_star, suppressed_rows, text_counts

__all__ = ["release_views", "class_histogram", "summary_of", "json_safe"]

#: Risk models shown before and after.
RISK_MODELS = ("prosecutor", "journalist", "marketer")


def class_sizes(released: pd.DataFrame, qis: list[str]) -> np.ndarray:
    """The size of every equivalence class of the released cells (suppressed rows left out)."""
    kept = released.loc[~suppressed_rows(released, qis), qis]
    if kept.empty:
        return np.zeros(0, dtype=np.int64)
    # cells compared as text, as the library's checks compare them
    keys = [kept[qi].astype(str) if not isinstance(kept[qi].dtype, pd.CategoricalDtype)
            else kept[qi].cat.rename_categories(kept[qi].cat.categories.astype(str))
            for qi in qis]
    frame = pd.concat(keys, axis=1)
    return frame.groupby(qis, sort=False, observed=True, dropna=False).size().to_numpy(
        dtype=np.int64)


def class_histogram(sizes: np.ndarray, *, bins: int = 40) -> list[dict[str, int]]:
    """Classes and records by class size: one bar per size when few, else log-spaced bands."""
    if sizes.size == 0:
        return []
    distinct, many = np.unique(sizes, return_counts=True)
    if distinct.size <= bins:
        return [{"from": int(s), "to": int(s), "classes": int(c), "records": int(s * c)}
                for s, c in zip(distinct, many)]
    else:
        edges = np.unique(np.geomspace(distinct[0], distinct[-1] + 1, bins + 1).astype(np.int64))
        edges[-1] = distinct[-1] + 1
    where = np.searchsorted(edges, sizes, side="right") - 1
    classes = np.bincount(where, minlength=len(edges) - 1)
    records = np.bincount(where, weights=sizes, minlength=len(edges) - 1)
    return [{"from": int(edges[i]), "to": int(edges[i + 1] - 1), "classes": int(classes[i]),
             "records": int(records[i])} for i in range(len(edges) - 1) if classes[i]]


def _profile(column: pd.Series, original: pd.Series, hierarchy: Any) -> dict[str, Any]:
    """The share of rows at each level of ``hierarchy`` (or unchanged / generalized)."""
    n = max(len(column), 1)
    if hierarchy is None:
        same = float((column.astype(str).to_numpy() == original.astype(str).to_numpy()).sum()) / n
        return {"kind": "unchanged", "shares": [same, 1.0 - same]}
    shares = np.zeros(hierarchy.height + 1)
    other = 0.0
    for label, count in text_counts(column).items():
        if label == "*":
            shares[hierarchy.height] += count
            continue
        try:
            shares[hierarchy.level(label)] += count
        except HierarchyError:
            other += count
    return {"kind": "levels", "shares": (shares / n).tolist(), "other": other / n}


def release_views(result: Any, table: pd.DataFrame, schema: Any,
                  params: dict[str, Any] | None = None) -> dict[str, Any]:
    """The summary of ``GET /api/release/{id}``, from the released cells of ``result``."""
    return json_safe(_views(result, table, schema, params))


def _views(result: Any, table: pd.DataFrame, schema: Any,
           params: dict[str, Any] | None) -> dict[str, Any]:
    from ..risk import assess
    from ._lattice import lattice_of

    qis = list(schema.quasi_identifiers)
    released = result.table
    sizes = class_sizes(released, qis)
    suppressed = suppressed_rows(released, qis)
    profile = {qi: _profile(released[qi], table[qi], schema.hierarchy(qi)) for qi in qis}
    collapsed = {qi: int(is_star(released[qi]).sum()) for qi in qis}
    v = result.verification
    cells = cells_check(released, qis, schema, params or {}, int(sizes.min()) if sizes.size
                        else 0)
    failing = [f"{name} fails on the released cells ({c['achieved']:g} for {c['asked']:g})"
               for name, c in cells.items() if not c["holds"]]
    return {
        "algorithm": result.algorithm, "params": dict(params or {}),
        "rows": int(len(released)),
        "loss": float(result.metrics["loss"]) if "loss" in result.metrics else None,
        "metrics": {name: float(value) for name, value in result.metrics.items()
                    if isinstance(value, (int, float)) and np.isfinite(value)},
        "suppressed": int(suppressed.sum()),
        "min_class": int(sizes.min()) if sizes.size else 0,
        "n_classes": int(sizes.size),
        "classes": class_histogram(sizes),
        "profile": profile, "collapsed": collapsed,
        "levels": dict(result.levels) if result.levels is not None else None,
        "verified": {"k": v.k, "k_achieved": int(v.k_achieved),
                     "holds": bool(v.holds) and not failing, "library_holds": bool(v.holds),
                     "l": v.l, "l_achieved": v.l_achieved, "t": v.t, "t_achieved": v.t_achieved,
                     "cells": cells,
                     "described": "; ".join([v.describe()] + failing)},
        "risk": {"before": assess(table, qis, models=list(RISK_MODELS)),
                 "after": assess(released, qis, models=list(RISK_MODELS))},
        "lattice": lattice_of(result),
    }


def cells_check(released: pd.DataFrame, qis: list[str], schema: Any, params: dict[str, Any],
                smallest: int) -> dict[str, dict[str, Any]]:
    """k (and l, t when asked) recomputed from the released cells, whatever made them.

    A lattice node's release (:func:`kanon_graph.apply_levels`) is verified by
    the library for k only; the run's l and t are checked here on its cells.
    """
    from ..privacy import l_diversity, t_closeness

    out: dict[str, dict[str, Any]] = {}
    k = params.get("k")
    if k is not None:
        out["k"] = {"asked": k, "achieved": smallest, "holds": smallest >= k}
    sensitive = params.get("sensitive") or (schema.sensitive[0] if schema.sensitive else None)
    if params.get("l") is not None and sensitive is not None:
        got = l_diversity(released, qis, sensitive, kind=params.get("diversity", "distinct"),
                          c=params.get("c", 1.0))
        out["l"] = {"asked": params["l"], "achieved": got, "holds": got >= params["l"]}
    if params.get("t") is not None and sensitive is not None:
        got = t_closeness(released, qis, sensitive)
        out["t"] = {"asked": params["t"], "achieved": got, "holds": got <= params["t"] + 1e-12}
    return out


def summary_of(views: dict[str, Any]) -> dict[str, Any]:
    """The short summary a finished run reports (``GET /api/run/{id}``)."""
    keys = ("algorithm", "loss", "suppressed", "min_class", "n_classes", "levels", "verified")
    return {key: views[key] for key in keys}
