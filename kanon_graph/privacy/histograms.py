"""The privacy model on per-class sensitive histograms, against the whole table.

A local recoding that builds its classes piece by piece (``stepwise``: a
class released at a step's node, a record joining a class, a class cut in
two, a tuple moving between classes) asks the same question many times: does
the model hold on these classes? :class:`ClassCheck` answers it from the
classes' *sensitive histograms* -- records per (class, sensitive value), the
same counts that give the class sizes -- without forming the classes' rows.

t-closeness is measured against one reference fixed when the check is made:
the distribution of the known sensitive values of the whole table (Li, Li &
Venkatasubramanian, "t-Closeness: privacy beyond k-anonymity and
l-diversity", ICDE 2007, section 4). A release that suppresses no record is
verified against exactly that distribution
(:meth:`~kanon_graph.privacy.PrivacyModel.verify` measures t on the released
records), so a class accepted here is a class the release's own check
accepts. l-diversity (Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam,
"l-Diversity: privacy beyond k-anonymity", TKDD 2007, Definitions 3.2, 4.1
and 4.3) is a property of the class alone. The missing-sensitive rule is the
model's: a record whose sensitive value is missing counts toward k, never
toward l or t (a class without a known value has l 0 and EMD 1).
"""

from __future__ import annotations

import copy

import numpy as np

from . import _measures as m

__all__ = ["ClassCheck"]


class ClassCheck:
    """Which classes, given by their sensitive histograms, fail a privacy model.

    Parameters
    ----------
    model : PrivacyModel
        Bound to ``data`` (:meth:`~kanon_graph.privacy.PrivacyModel.bind`).
    data : EncodedTable
        The whole table: its sensitive codes give t's reference distribution.

    Examples
    --------
    >>> import numpy as np, pandas as pd, kanon_graph as kg
    >>> table = pd.DataFrame({"age": [1, 2, 3, 4], "d": ["x", "x", "y", "y"]})
    >>> data = kg.encode(table, kg.Schema(quasi_identifiers=["age"], sensitive=["d"]))
    >>> check = ClassCheck(kg.privacy.PrivacyModel(2, t=0.2).bind(data), data)
    >>> check.failing_rows(np.array([0, 0, 1, 1])).tolist()       # {x, x} and {y, y}
    [True, True]
    >>> check.failing_rows(np.array([0, 1, 0, 1])).tolist()
    [False, False]
    """

    def __init__(self, model, data):
        self.model = model
        self.k = int(model.k)
        self.sensitive = model.needs_sensitive
        self.weights = data.weights
        if not self.sensitive:
            return
        self.values = np.asarray(data.sensitive[model.sensitive], dtype=np.int64)
        self.missing = model._missing(data)
        if model.t is not None:
            known = np.ones(len(self.values), dtype=bool) if self.missing is None \
                else self.values != self.missing
            held = self.values[known]
            self.present, dense = np.unique(held, return_inverse=True)
            weights = None if data.weights is None else np.asarray(data.weights)[known]
            q = np.bincount(dense.reshape(-1), weights=weights, minlength=len(self.present))
            self.q = q / max(q.sum(), 1)
            self.ordered = model._ordered(data)

    def restricted(self, rows):
        """The check for the records ``rows`` alone, against the same reference distribution."""
        rows = np.asarray(rows, dtype=np.int64)
        part = copy.copy(self)
        part.weights = None if self.weights is None else np.asarray(self.weights)[rows]
        if self.sensitive:
            part.values = self.values[rows]
        return part

    def failing(self, cls, values, counts, n_classes):
        """Boolean per class: does the class break the model?

        Parameters
        ----------
        cls, values, counts : ndarray of int
            Records per (class, sensitive code): a class's histogram is its
            triples (a pair may come more than once; its counts add up).
        n_classes : int

        Returns
        -------
        ndarray of bool, shape (n_classes,)
        """
        cls = np.asarray(cls, dtype=np.int64)
        counts = np.asarray(counts, dtype=np.int64)
        sizes = np.bincount(cls, weights=counts, minlength=n_classes)
        bad = sizes < self.k
        if not self.sensitive:
            return bad
        keep = counts > 0
        cls, values, counts = cls[keep], np.asarray(values, dtype=np.int64)[keep], counts[keep]
        known = m.known_only(cls, values, self.missing)
        model = self.model
        if model.l is not None:
            bad |= model._diversity(known, values, n_classes, counts) < model.l
        if model.t is not None:
            bad |= self._emd(known, values, counts, sizes, n_classes) > model.t + 1e-12
        return bad

    def _emd(self, known, values, counts, sizes, n_classes):
        held = known >= 0
        dense = np.searchsorted(self.present, values[held])
        cls, val, pair = m._pair_counts(known[held], dense, n_classes, counts[held])
        emd = _sparse_emd(cls, val, pair, self.q, self.ordered, n_classes)
        has_known = np.bincount(cls, minlength=n_classes) > 0
        return np.where((sizes > 0) & ~has_known, 1.0, emd)

    def failing_rows(self, class_of, rows=None):
        """Boolean per class of ``class_of`` (one class per row of ``rows``, default all rows).

        ``class_of`` may hold ``-1`` for rows left out.
        """
        rows = np.arange(len(class_of)) if rows is None else np.asarray(rows, dtype=np.int64)
        class_of = np.asarray(class_of, dtype=np.int64)
        n_classes = int(class_of.max()) + 1 if len(class_of) else 0
        inside = class_of >= 0
        counts = np.ones(len(rows), dtype=np.int64) if self.weights is None \
            else np.asarray(self.weights)[rows]
        values = self.values[rows] if self.sensitive else np.zeros(len(rows), dtype=np.int64)
        return self.failing(class_of[inside], values[inside], counts[inside], n_classes)

    def holds_on(self, rows):
        """Does the model hold on ``rows`` taken as one class?"""
        rows = np.asarray(rows, dtype=np.int64)
        return not bool(self.failing_rows(np.zeros(len(rows), dtype=np.int64), rows)[0])


def _sparse_emd(cls, val, counts, q, ordered, n_classes):
    """:func:`~kanon_graph.privacy._measures.emd_of_histograms` in time of the pairs, not
    of classes x values (a numeric sensitive column can hold thousands of values).

    Equal distance: ``1/2 sum |p - q| = 1/2 (1 + sum over the class's values of
    (|p - q| - q))``. Ordered distance: ``sum_i |P_i - Q_i| / (m - 1)`` over the
    cumulative distributions; ``P`` is constant between two values the class
    holds and ``Q`` does not decrease, so each such run is summed from the
    prefix sums of ``Q`` on either side of the point where ``Q`` passes ``P``.
    ``cls``/``val`` come sorted by class, then value (as ``_pair_counts`` gives).
    """
    sizes = np.bincount(cls, weights=counts, minlength=n_classes)
    p = counts / sizes[cls]
    if not ordered:
        gap = np.bincount(cls, weights=np.abs(p - q[val]) - q[val], minlength=n_classes)
        return np.where(sizes > 0, 0.5 * (1.0 + gap), 0.0)
    m_values = len(q)
    if m_values < 2:
        return np.zeros(n_classes)
    big_q = np.cumsum(q)                                # Q_i
    prefix = np.concatenate([[0.0], np.cumsum(big_q)])  # S_i = Q_0 + ... + Q_(i-1)
    cum_p = np.cumsum(p)
    first = np.ones(len(cls), dtype=bool)
    first[1:] = cls[1:] != cls[:-1]
    start = np.flatnonzero(first)
    cum_p -= np.repeat(np.concatenate([[0.0], cum_p[start[1:] - 1]]), np.diff(
        np.append(start, len(cls))))
    # runs: [0, first value) with P = 0, then [value_j, next value) with P = cum_p[j]
    last = np.ones(len(cls), dtype=bool)
    last[:-1] = cls[1:] != cls[:-1]
    ends = np.where(last, m_values, np.append(val[1:], m_values))
    lo = np.concatenate([np.zeros(len(start), dtype=np.int64), val])
    hi = np.concatenate([val[start], ends])
    level = np.concatenate([np.zeros(len(start)), cum_p])
    owner = np.concatenate([cls[start], cls])
    cross = np.clip(np.searchsorted(big_q, level, side="left"), lo, hi)
    total = (level * (cross - lo) - (prefix[cross] - prefix[lo])
             + (prefix[hi] - prefix[cross]) - level * (hi - cross))
    return np.bincount(owner, weights=total, minlength=n_classes) / (m_values - 1)
