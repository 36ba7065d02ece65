"""Rule 1 of :func:`~._leftovers.place_leftovers` under entropy or recursive l, compiled.

Under a model that is not superset-closed (entropy l, recursive (c, l)) a
class that holds may break with a record more, so each unit must join the
class it widens least *among those where the model still holds with it in*.
The loop over units in Python formed each candidate class's rows and asked
the :class:`~kanon_graph.privacy.ClassCheck` (about 80 us a question); on a
20,000-row screening table under recursive (3, 2) it was 69% of the call.

Here every class keeps its histogram of known sensitive values (the records
whose value is missing count toward k only, as in the check), and one
compiled pass visits the classes of each unit as :func:`~._leftovers._place_units`
does (in order of their starting cost per record, stopping once ``m`` times
that cost exceeds the least added loss of a class that holds), testing the
model on the histogram plus the unit's:

* entropy l (Machanavajjhala et al. 2007, Definition 4.1): ``exp(-sum p log p)
  + 1e-9 >= l`` over the values present, summed in value order, as
  :func:`~kanon_graph.privacy._measures.entropy_l` and the model's slack;
* recursive (c, l) (Definition 4.3): ``r_1 < c (r_l + ... + r_m)`` with
  ``r_i`` the i-th largest count, as :func:`~kanon_graph.privacy._measures.recursive_l`.

The choice is the one the Python loop made: the class of least added loss
(summed attribute by attribute in the same order), the lowest class on a tie,
among those that hold; ``-1`` where none does. The release is verified from
its cells afterwards as always.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import njit

__all__ = ["ENTROPY", "RECURSIVE", "histograms", "place_checked"]

ENTROPY, RECURSIVE = 0, 1

_CELLS = 1 << 24
"""Most (class, value) cells of the histograms kept; beyond, the Python loop runs."""

_VALUES = 256
"""Most known sensitive values for the histograms: a test reads every value of the
class's row, so with many (a numeric cost of thousands of values in classes of a few
records) the Python loop over the rows is faster; it runs there."""


def histograms(check, class_index, rows, n_classes):
    """``(hist, dense)``: records per (class, known sensitive value) of ``rows`` in
    classes ``class_index``, and each row's dense value (``-1``: missing), or None
    when the sensitive column has more than :data:`_VALUES` known values or the table
    would exceed :data:`_CELLS`."""
    values = check.values
    known = np.ones(len(values), dtype=bool) if check.missing is None \
        else values != check.missing
    present, dense_known = np.unique(values[known], return_inverse=True)
    if len(present) > _VALUES or n_classes * max(len(present), 1) > _CELLS:
        return None
    dense = np.full(len(values), -1, dtype=np.int64)
    dense[known] = dense_known.reshape(-1)
    hist = np.zeros((n_classes, max(len(present), 1)), dtype=np.int64)
    weights = np.ones(len(values), dtype=np.int64) if check.weights is None \
        else np.asarray(check.weights, dtype=np.int64)
    held = dense[rows] >= 0
    np.add.at(hist, (class_index[held], dense[rows][held]), weights[rows][held])
    return hist, dense


def _holds_py(hist_c, unit_vals, unit_counts, size, k, kind, l, c, scratch):
    """Does the class of histogram ``hist_c`` and ``size`` records hold with the unit in?"""
    if size < k:
        return False
    v = hist_c.shape[0]
    for i in range(v):
        scratch[i] = hist_c[i]
    for i in range(unit_vals.shape[0]):
        scratch[unit_vals[i]] += unit_counts[i]
    if kind == ENTROPY:
        total = 0
        for i in range(v):
            total += scratch[i]
        if total == 0:
            return 0.0 + 1e-9 >= l
        entropy = 0.0
        for i in range(v):
            if scratch[i] > 0:
                p = scratch[i] / total
                entropy += p * math.log(p)
        return math.exp(-entropy) + 1e-9 >= l
    li = int(l)
    present = 0
    for i in range(v):
        if scratch[i] > 0:
            present += 1
    if present < li:
        return False
    ranked = np.sort(scratch[:v])[::-1]
    tail = 0
    for i in range(li - 1, v):
        tail += ranked[i]
    return ranked[0] < c * tail


def _place_checked_py(unit_codes, unit_m, unit_start, unit_vals, unit_counts, level, ref,
                      sizes, old, per, anc, lca, rising, hist, k, kind, l, c):
    """Each unit, in order, joins the class of least added loss where the model holds
    with it (``-1``: none); that class's levels, costs, size and histogram follow.

    The added-loss and joining loops repeat :func:`~._leftovers._place_units_py`'s on
    purpose: as shared kernels (numba ``inline="always"``) the same releases took 1.7-2x
    the CPU (``benchmarks/time_placement.py``: census 60k, distinct l = 2, 4.2 -> 7.2 s;
    screening recursive, 0.59 -> 1.18 s)."""
    n_units, d = unit_codes.shape
    n_classes = level.shape[0]
    chosen = np.full(n_units, -1, dtype=np.int64)
    start = np.zeros(n_classes)
    for cl in range(n_classes):
        for j in range(d):
            start[cl] += old[cl, j]
    tabulated = lca.shape[0] == d
    order = np.argsort(start, kind="mergesort")
    scratch = np.zeros(hist.shape[1], dtype=np.int64)
    for u in range(n_units):
        m = unit_m[u]
        vals = unit_vals[unit_start[u]:unit_start[u + 1]]
        counts = unit_counts[unit_start[u]:unit_start[u + 1]]
        best, best_extra = -1, np.inf
        for i in range(n_classes):
            cl = order[i]
            if m * start[cl] > best_extra + 1e-9:
                break
            extra = 0.0
            for j in range(d):
                lv = level[cl, j]
                if tabulated:
                    meet = lca[j, ref[cl, j], unit_codes[u, j]]
                    if meet > lv:
                        lv = meet
                else:
                    while anc[j, lv, ref[cl, j]] != anc[j, lv, unit_codes[u, j]]:
                        lv += 1
                extra += (sizes[cl] + m) * per[j, lv, cl] - sizes[cl] * old[cl, j]
                if rising and extra > best_extra:
                    break
            if extra < best_extra or (extra == best_extra and cl < best):
                if _holds(hist[cl], vals, counts, sizes[cl] + m, k, kind, l, c, scratch):
                    best, best_extra = cl, extra
        if best < 0:
            continue
        for j in range(d):
            lv = level[best, j]
            while anc[j, lv, ref[best, j]] != anc[j, lv, unit_codes[u, j]]:
                lv += 1
            level[best, j] = lv
            old[best, j] = per[j, lv, best]
        sizes[best] += m
        for i in range(vals.shape[0]):
            hist[best, vals[i]] += counts[i]
        chosen[u] = best
    return chosen


def _place_checked_work(unit_codes, unit_m, unit_start, unit_vals, unit_counts, level, *rest):
    """Steps of :func:`_place_checked_py`: units x classes x attributes."""
    return unit_codes.shape[0] * level.shape[0] * max(level.shape[1], 1)


_holds = njit(cache=True)(_holds_py)
_place_checked = njit(cache=True, work=_place_checked_work)(_place_checked_py)


def place_checked(check, units, dense, unit_codes, unit_m, level, ref, sizes, old, per, anc,
                  lca, rising, hist):
    """The class index each unit joins (``-1``: no class holds with it), in unit order.

    ``dense``: each row's dense sensitive value from :func:`histograms` (``-1``
    missing); the other arguments as :func:`~._leftovers._place_units` takes them.
    """
    weights = None if check.weights is None else np.asarray(check.weights, dtype=np.int64)
    vals, counts, bounds = [], [], [0]
    for unit in units:
        d = dense[unit]
        held = d >= 0
        w = np.ones(len(unit), dtype=np.int64) if weights is None else weights[unit]
        vals.append(d[held])
        counts.append(w[held])
        bounds.append(bounds[-1] + int(held.sum()))
    model = check.model
    kind = ENTROPY if model.diversity == "entropy" else RECURSIVE
    c = float(model.c) if model.c is not None else 0.0
    return _place_checked(unit_codes, unit_m, np.asarray(bounds, dtype=np.int64),
                          np.concatenate(vals) if vals else np.zeros(0, dtype=np.int64),
                          np.concatenate(counts) if counts else np.zeros(0, dtype=np.int64),
                          level, ref, sizes, old, per, anc, lca, rising, hist,
                          int(check.k), kind, float(model.l), c)
