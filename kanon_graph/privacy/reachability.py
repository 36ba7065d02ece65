"""Refusing, before any algorithm runs, a privacy model no release can satisfy.

Called by :func:`kanon_graph.anonymize` once the table is encoded: a request
that is provably impossible ends in a one-line ``ValueError`` naming the
criterion and the best value any release could reach. What the sensitive
column alone decides (too few distinct values for l) is said once, before any
algorithm or trial runs (:func:`check_values`); what depends on an
algorithm's suppression, before that algorithm runs (:func:`check_reachable`).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

__all__ = ["check_reachable", "check_values", "best_clip"]


def _scores(kept, model):
    """How diverse each row of ``kept`` (counts per value) is as one class: higher is better.

    Entropy: the entropy. Recursive (c, l): ``c (r_l + ... + r_m) - r_1``,
    positive exactly when the class holds it.
    """
    kept = -np.sort(-kept, axis=1)
    size = kept.sum(axis=1)
    if model.diversity == "entropy":
        return np.log(size) - (kept * np.log(kept)).sum(axis=1) / size
    need = math.ceil(model.l) - 1
    return model.c * (size - kept[:, :need].sum(axis=1)) - kept[:, 0]


def best_clip(counts, drop, model):
    """The most diverse one class the suppression of up to ``drop`` records leaves.

    Removing records one at a time from the most frequent known value
    (water-filling) makes, for each number of records removed, the most
    even class there is. Its best is not the last: past the point where the
    counts are even, removing makes the class less diverse again (10 x /
    10 y: any removal lowers entropy). Between two *clip levels* (every
    value held by more than ``c`` records cut to exactly ``c``) entropy and
    recursive l are best at an end, so the candidates are every clip level
    the budget reaches and the state the whole budget reaches; the best of
    them is kept (the fewest records removed among equals).

    Parameters
    ----------
    counts : ndarray of int
        Records per known sensitive value (every one at least 1).
    drop : int
        Records the suppression may remove (never a value's last record).
    model : PrivacyModel

    Returns
    -------
    ndarray of int
        The records kept per value (``counts`` itself when no removal helps
        or l is distinct).

    Examples
    --------
    >>> from kanon_graph.privacy import PrivacyModel
    >>> model = PrivacyModel(3, l=1.9, diversity="entropy")
    >>> best_clip(np.array([10, 10]), 17, model).tolist()
    [10, 10]
    >>> best_clip(np.array([8, 1, 1]), 7, model).tolist()
    [1, 1, 1]
    """
    counts = np.asarray(counts, dtype=np.int64)
    if drop <= 0 or counts.size < 2 or model.l is None or model.diversity == "distinct":
        return counts
    if model.diversity == "recursive" and math.ceil(model.l) > counts.size:
        return counts               # fewer values than l: no removal helps
    # every clip level at once, from sums over the counts sorted (no level x value matrix)
    desc = np.sort(counts)[::-1]
    first = np.concatenate([[0], np.cumsum(desc)])          # first[i]: the i largest
    levels = np.arange(max(1, int(desc[0]) - int(drop)), int(desc[0]) + 1, dtype=np.int64)
    above = len(desc) - np.searchsorted(desc[::-1], levels, side="right")  # values > c
    removed = first[above] - above * levels
    levels, above, removed = levels[removed <= drop], above[removed <= drop], \
        removed[removed <= drop]
    size = first[-1] - removed
    if model.diversity == "entropy":
        plogp = np.concatenate([np.cumsum((desc * np.log(desc))[::-1])[::-1], [0.0]])
        score = np.log(size) - (plogp[above] + above * levels * np.log(levels)) / size
    else:                   # c (r_l + ... + r_m) - r_1, the clipped r_1 being the level
        need = math.ceil(model.l) - 1
        head = np.where(above >= need, need * levels,
                        above * levels + first[need] - first[np.minimum(above, need)])
        score = model.c * (size - head) - levels
    # the state the whole budget reaches: the lowest clip level, then one record off as
    # many of the values at that level as the rest of the budget allows
    last = np.minimum(counts, levels[0])
    rest = int(drop - removed[0])
    if levels[0] > 1 and rest > 0:
        last[np.flatnonzero(last == levels[0])[:rest]] -= 1
    best = int(levels[np.flatnonzero(score >= score.max() - 1e-12)[-1]])
    if _scores(last[None, :], model)[0] > score.max() + 1e-12:
        return last
    return np.minimum(counts, best)


def check_values(model, data):
    """Refuse an l no release can reach whatever the algorithm: too few distinct values.

    Every class of a release holds at most the distinct known values of the
    sensitive column, and distinct, entropy (``exp(entropy) <= values``) and
    recursive (c, l)-diversity (``r_l`` must exist) each need at least
    ``ceil(l)`` of them in every class. Said once, with the table's own
    record counts, before auto's trials or any algorithm runs.

    Examples
    --------
    >>> import pandas as pd, kanon_graph as kg
    >>> from kanon_graph.encoding import encode
    >>> from kanon_graph.privacy import PrivacyModel
    >>> data = encode(pd.DataFrame({"age": [30, 31, 32], "x": ["a"] * 3}),
    ...               kg.Schema(quasi_identifiers=["age"], sensitive=["x"]))
    >>> check_values(PrivacyModel(2, l=2, sensitive="x").bind(data), data)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: distinct l=2 ...: the column holds 1 distinct value ('a', in all 3 records), ...
    """
    if model.l is None or not model.needs_sensitive:
        return
    weights = getattr(data, "weights", None)
    values = np.asarray(data.sensitive[model.sensitive])
    codes, inverse = np.unique(values, return_inverse=True)
    counts = np.bincount(inverse.reshape(-1), weights=weights).astype(np.int64)
    missing = model._missing(data)
    known = codes != missing if missing is not None else np.ones(len(codes), dtype=bool)
    need = math.ceil(model.l)
    if int(known.sum()) >= need:
        return
    n = int(counts.sum())
    found = int(known.sum())
    domain = (getattr(data, "sensitive_domain", None) or {}).get(model.sensitive)
    if found == 1 and domain is not None:
        value = domain[int(codes[known][0])]
        held = int(counts[known][0])
        which = f" ({value!r}, in {'all ' if held == n else ''}{held} " \
                f"{'records' if held != 1 else 'record'}" \
                f"{'' if held == n else f' of {n}'})"
    else:
        which = f" among {n} records"
    if missing is not None and not known.all():
        which += f"; its {int(counts[~known].sum())} missing values are no value"
    what = f"{model.diversity} l={model.l:g}"
    raise ValueError(f"{what} cannot be reached on sensitive attribute {model.sensitive!r}: "
                     f"the column holds {found} distinct value{'s' if found != 1 else ''}"
                     f"{which}, so a class achieves only {found} at best, and {what} needs "
                     f"{need} in every class: no release of any algorithm holds it")


def check_reachable(model, data, suppression=None, info=None, boundaries=False):
    """Refuse a model that no release can satisfy, before any algorithm runs.

    A release keeps a set R of at least ``max(k, n - budget)`` records
    (``budget``: the records the suppression allows; with ``suppression=None``
    the algorithm's declared default, e.g. Sweeney's k records for Datafly,
    none for most). Every criterion holds on a union of classes that
    each hold it (k, distinct / entropy / recursive l; t measured on R is 0
    for R as one class), so R taken as one class must pass. The best such R
    for diversity keeps every known sensitive value and removes records
    from the most frequent values, as far as that makes it more diverse
    (:func:`best_clip`). If even that R fails, every release fails. Without
    suppression R is the whole table, and the distinct count of the whole
    table bounds every class either way. A missing sensitive value
    (``missing="keep"``) is no value: its records count toward k only.

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
    codes, inverse = np.unique(values, return_inverse=True)
    counts = np.bincount(inverse.reshape(-1), weights=weights).astype(np.int64)
    missing = model._missing(data)
    known = codes != missing if missing is not None else np.ones(len(codes), dtype=bool)
    drop = max(0, min(budget, n - model.k, int(counts[known].sum()) - int(known.sum())))
    keep = counts.copy()
    keep[known] = best_clip(counts[known], drop, model)
    # R as one class: each sensitive value (its own code) held by its kept records
    best = np.zeros(len(keep), dtype=np.int64)
    kept = SimpleNamespace(sensitive={model.sensitive: codes}, weights=keep,
                           sensitive_kinds=getattr(data, "sensitive_kinds", {}),
                           sensitive_missing=getattr(data, "sensitive_missing", {}),
                           schema=data.schema, table=data.table)
    if model.failing(best, kept, 1)[0]:
        achieved = model.verify(best, kept)
        what = (f"{model.diversity} l={model.l:g}" if model.l is not None
                and achieved.l_achieved < model.l else f"t={model.t:g}")
        reached = (f"{achieved.l_achieved:g}" if model.l is not None
                   and achieved.l_achieved < model.l else f"{achieved.t_achieved:g}")
        how = ("even the whole table as one class achieves" if drop == 0 else
               f"even the best one class the suppression budget allows ({int(keep.sum())} "
               f"of the {n} records kept) achieves")
        if missing is not None and not known.all():
            how = f"{how} (its {int(counts[~known].sum())} missing values are no value)"
        hint = ""
        if local and suppression:
            hint = (f"; algorithm {info.name!r} does not suppress records to reach it: a "
                    f"global algorithm with a suppression budget (e.g. 'optimal', "
                    f"'datafly') may")
        raise ValueError(f"{what} cannot be reached on sensitive attribute "
                         f"{model.sensitive!r}: {how} only {reached}{hint}")
