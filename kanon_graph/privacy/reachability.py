"""Refusing, before any algorithm runs, a privacy model no release can satisfy.

Called by :func:`kanon_graph.anonymize` once the table is encoded: a request
that is provably impossible ends in a one-line ``ValueError`` naming the
criterion and the best value any release could reach.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

__all__ = ["check_reachable"]


def check_reachable(model, data, suppression=None, info=None, boundaries=False):
    """Refuse a model that no release can satisfy, before any algorithm runs.

    A release keeps a set R of at least ``max(k, n - budget)`` records
    (``budget``: the records the suppression allows; with ``suppression=None``
    the algorithm's declared default, e.g. Sweeney's k records for Datafly,
    none for most). Every criterion holds on a union of classes that
    each hold it (k, distinct / entropy / recursive l; t measured on R is 0
    for R as one class), so R taken as one class must pass. The best such R
    for diversity keeps every sensitive value and removes records from the
    most frequent values first (water-filling): each removal makes the
    distribution more even, and it never drops a value. If even that R
    fails, every release fails. Without suppression R is the whole table,
    and the distinct count of the whole table bounds every class either way.

    Local recodings suppress records only where generalization boundaries
    leave no allowed class, never to reach l or t: without boundaries their
    budget here is 0, so a request that only suppression could meet is
    refused up front, naming the algorithms that can.
    """
    if not model.needs_sensitive:
        return
    weights = getattr(data, "weights", None)
    n = data.n if weights is None else int(weights.sum())       # records
    local = info is not None and info.recoding == "local" and not boundaries
    if local:
        budget = 0
    elif suppression is None:      # what the algorithm suppresses by default
        budget = min(model.k, n) if info is None else info.default_budget(model.k, n)
    else:
        budget = int(np.floor(suppression * n + 1e-9))
    values = np.asarray(data.sensitive[model.sensitive])
    _, inverse = np.unique(values, return_inverse=True)
    counts = np.bincount(inverse.reshape(-1), weights=weights).astype(np.int64)
    drop = max(0, min(budget, n - model.k, n - len(counts)))
    keep = counts.copy()
    for _ in range(drop):                     # water-filling: one record off the largest
        keep[int(np.argmax(keep))] -= 1
    # R as one class: each sensitive value (in value order) held by its kept records
    best = np.zeros(len(keep), dtype=np.int64)
    kept = SimpleNamespace(sensitive={model.sensitive: np.arange(len(keep))}, weights=keep,
                           schema=data.schema, table=data.table)
    if model.failing(best, kept, 1)[0]:
        achieved = model.verify(best, kept)
        what = (f"{model.diversity} l={model.l:g}" if model.l is not None
                and achieved.l_achieved < model.l else f"t={model.t:g}")
        reached = (f"{achieved.l_achieved:g}" if model.l is not None
                   and achieved.l_achieved < model.l else f"{achieved.t_achieved:g}")
        how = ("even the whole table as one class achieves" if drop == 0 else
               f"even one class of the best {int(keep.sum())} of the {n} records that the "
               f"suppression budget can keep achieves")
        hint = ""
        if local and suppression:
            hint = (f"; algorithm {info.name!r} does not suppress records to reach it: a "
                    f"global algorithm with a suppression budget (e.g. 'optimal', "
                    f"'datafly') may")
        raise ValueError(f"{what} cannot be reached on sensitive attribute "
                         f"{model.sensitive!r}: {how} only {reached}{hint}")
