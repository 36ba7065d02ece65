"""SSE / SST, the information loss of a microaggregation, as metric ``"sse_sst"``.

Domingo-Ferrer and Mateo-Sanz (2002, section 2, eq. (1)-(3)) measure a
microaggregation by the within-groups sum of squares over the total sum of
squares, on standardized data::

    SSE = sum_i sum_{x in G_i} d(x, released_i)^2
    SST = sum_x d(x, average)^2
    IL  = SSE / SST            (in [0, 1]; 0: nothing changed)

with ``d`` MDAV-generic's distance (Domingo-Ferrer and Torra 2005,
section 3; :class:`kanon_graph.recoding.AggregateSpace`): every numeric
quasi-identifier standardized by its standard deviation over the records
(``ddof=0``), an ordinal one by rank over its number of categories, a
nominal one 0 or 1. On numeric quasi-identifiers alone this is SSE / SST of
the z-scores, the "IL" that sdcMicro's ``microaggregation`` reports as a
percentage (``100 * SSE / SST``); here it is a fraction. ``released_i`` is
what the class releases (its mean or median, median or mode), ``average``
the records' average record (the mean, the lower median, the mode). Only a
microaggregated release has this metric: it is computed by default for
those (``res.metrics["sse_sst"]``) and for no other.
"""

from __future__ import annotations

import numpy as np

from ..recoding import aggregate_space
from ._registry import register_metric

__all__ = ["sse_sst", "is_microaggregation"]


def is_microaggregation(release):
    """Whether every quasi-identifier of ``release`` is released as a class aggregate."""
    return bool(release.attributes) and all(
        rel.aggregated is not None for rel in release.attributes.values())


def _global_codes(codes, weights, size, how):
    counts = np.bincount(codes, weights=weights, minlength=size)
    if how == "mode":
        return int(np.argmax(counts))
    cumulative = np.cumsum(counts)
    return int(np.argmax(cumulative >= np.ceil(cumulative[-1] / 2)))


def sse_sst(release, k=None):
    """SSE / SST of a microaggregated release (2002, eq. (1)-(3); module docstring).

    Parameters
    ----------
    release : Release
        A microaggregation (every attribute released as an aggregate).
    k : int, optional
        Unused (the metric protocol).

    Returns
    -------
    float
        In [0, 1]; 0 when SST is 0 (every record alike).

    Examples
    --------
    >>> import pandas as pd, kanon_graph as kg
    >>> table = pd.DataFrame({"x": [0.0, 2.0, 10.0, 12.0]})
    >>> res = kg.anonymize(table, kg.Schema(quasi_identifiers=["x"]), k=2, algorithm="mdav")
    >>> round(res.metrics["sse_sst"], 6)      # (1 + 1 + 1 + 1) / (36 + 16 + 16 + 36)
    0.038462
    """
    if not is_microaggregation(release):
        raise ValueError("The 'sse_sst' metric measures a microaggregation (algorithm='mdav'); "
                         "this release generalizes its classes")
    data = release.data
    aggregate = {name: rel.aggregated for name, rel in release.attributes.items()}
    space = aggregate_space(data, aggregate)
    rows = np.flatnonzero(release.class_of >= 0)
    if rows.size == 0:
        return 0.0
    cls = release.class_of[rows]
    weights = getattr(data, "weights", None)
    w = np.ones(len(rows)) if weights is None else np.asarray(weights, float)[rows]
    rel = release.attributes
    numeric = (np.column_stack([(rel[n].centre[cls] - m) / s for n, m, s in zip(
        space.numeric_names, space.mean, space.scale)]) if space.numeric_names
        else np.zeros((len(rows), 0)))
    ordinal = (np.column_stack([rel[n].centre[cls] for n in space.ordinal_names])
               if space.ordinal_names else np.zeros((len(rows), 0), dtype=np.int64))
    nominal = (np.column_stack([rel[n].centre[cls] for n in space.nominal_names])
               if space.nominal_names else np.zeros((len(rows), 0), dtype=np.int64))
    sse = float((w * space.squared_distance_to(rows, numeric, ordinal, nominal)).sum())
    average = np.average(space.numeric[rows], axis=0, weights=w)
    ords = [_global_codes(space.ordinal[rows, j], w, space.ordinal_size[j], "median")
            for j in range(space.ordinal.shape[1])]
    noms = [_global_codes(space.nominal[rows, j], w, space.nominal_size[j], "mode")
            for j in range(space.nominal.shape[1])]
    sst = float((w * space.squared_distance_to(
        rows, average[None, :], np.array(ords, dtype=np.int64)[None, :],
        np.array(noms, dtype=np.int64)[None, :])).sum())
    return sse / sst if sst > 0 else 0.0


register_metric("sse_sst", sse_sst, monotone=False, applies=is_microaggregation,
                description="SSE / SST of a microaggregation on standardized data "
                            "(Domingo-Ferrer and Mateo-Sanz 2002)")
