"""SD's greedy clustering as the paper gives it (``variant="paper"``; paper 000, Figure 3).

Readings of Figure 3 and of the text around it (the pseudo-code is slightly
garbled):

* **Sort (step 1).** Records are sorted ascending on the quasi-identifier
  with the most distinct values (ties: the first in schema order); the
  text leaves ties in that attribute open: they are broken by the other
  quasi-identifiers in schema order (numbers by value, categories by
  label), so identical tuples are adjacent and the result does not depend
  on row order. t1 is always the first remaining record in that order.
* **Distances (step 2).** Numeric attributes by eq. (5) with the range of
  the whole column; categorical ones from the contingency tables of the
  *remaining* records relative to t1 (:mod:`.values`); hierarchies in
  the schema are ignored (SD is hierarchy-free by design).
* **Growing a class (step 3).** t1 moves into *Merge*; while ``|Merge| < k``
  the remaining record nearest to the centre ``t_c`` moves in (ties: the
  first in sorted order). ``t_c`` is the mean of each numeric attribute and,
  for each categorical attribute, the set of distinct values in *Merge*
  (the paper's "sum of all the distinct values"). The distance from
  ``t_c`` to a record is eq. (7) with, per categorical attribute, the
  smallest distance from a value of the set to the record's value,
  ``min_{u in set} M[u, v]`` (``M`` ranked with ``u`` as the reference,
  conditioned on t1's values): 0 when the value is already in the set --
  adding it costs no NCP (eq. 3) -- and, with the set ``{t1's value}``,
  exactly the paper's distance from t1.
* **Update (end of step 3).** *Merge* becomes a class; the contingency
  tables (and so cardinalities, order, widening and distances) are
  recomputed on the remaining records for the next t1.
* **Loop condition.** Figure 3 reads ``WHILE |T| > K`` and step 4 ``WHILE
  |T| < K``, which together would strand exactly ``k`` remaining records;
  the loop runs while ``|T| >= k`` (so ``k`` remaining records form a
  class of their own).
* **Leftovers (step 4).** Each of the fewer than ``k`` remaining records,
  in sorted order, joins the class whose centre is nearest (ties: the
  first class); the class centre is updated after every join. The
  remaining table holds fewer than ``k`` records, so these distances use
  the contingency tables of the whole table with the leftover record as
  the reference: ``min_{u in set} M[v, u]``.

Runs on deduplicated tuples with multiplicities: one record is moved at a
time (so the result is the per-record algorithm's), and the distances of
all remaining tuples to the centre are kept up to date incrementally (a
categorical term changes only when a new value enters a set) in compiled
loops; time ``O(n * u)`` for ``u`` distinct tuples, memory ``O(u)``.

References
----------
Sarrafi Aghdam & Sonehara, "On enhancing data utility in k-anonymization
for data without hierarchical taxonomies", IJCSI (2016): section 4.2,
Figure 3; complexity section 5.1.
"""

from __future__ import annotations

import numpy as np

from ._contingency import _contingency, _order
from ._greedy_kernels import _classes

__all__ = ["paper_classes"]


def _value_counts(cat, weight, mmax):
    out = np.zeros((cat.shape[1], mmax), np.int64)
    for a in range(cat.shape[1]):
        out[a] = np.bincount(cat[:, a], weights=weight, minlength=mmax)
    return out


def _leftovers(cat, num, weight, rem, picks, k, mmax):
    """Step 4: every remaining record joins the class with the nearest centre."""
    n_classes = len(picks) // k
    owner = np.repeat(np.arange(n_classes), k)
    sizes = np.full(n_classes, k, dtype=np.int64)
    sums = np.zeros((n_classes, num.shape[1]))
    np.add.at(sums, owner, num[picks])
    member = np.zeros((n_classes, cat.shape[1], mmax), dtype=bool)
    for a in range(cat.shape[1]):
        member[owner, a, cat[picks, a]] = True
    full = _value_counts(cat, weight, mmax)
    present = full > 0
    order, _ = _order(present)
    everyone = np.arange(len(weight), dtype=np.int64)
    extra_picks, extra_owner = [], []
    for t in np.flatnonzero(rem > 0):
        _, _, matrices = _contingency(cat, weight, everyone, order, cat[t].copy(), float(k),
                                      full, present)
        for _ in range(int(rem[t])):
            dist = np.abs(num[t] - sums / sizes[:, None]).sum(axis=1)
            for a in range(cat.shape[1]):
                row = matrices[a, cat[t, a]]
                dist += np.where(member[:, a, :], row, np.inf).min(axis=1)
            b = int(np.argmin(dist))
            sizes[b] += 1
            sums[b] += num[t]
            member[b, np.arange(cat.shape[1]), cat[t]] = True
            extra_picks.append(t)
            extra_owner.append(b)
        rem[t] = 0
    return np.asarray(extra_picks, np.int64), np.asarray(extra_owner, np.int64)


def paper_classes(tuples, weight, k):
    """Steps 2-4 of Figure 3 on the records ``weight`` counts per tuple.

    Parameters
    ----------
    tuples : SDTuples
    weight : ndarray (u,) of int64
        Records of each tuple taking part (all of them, or one MAGVal cell's).
    k : int

    Returns
    -------
    picks, owner : ndarray of int64
        One entry per record: its tuple and its class (``0..classes-1``); a
        class's first pick is its t1.
    n_classes : int
    leftovers : int
        Records placed by step 4.
    """
    cat, num = tuples.cat, tuples.num
    mmax = int(cat.max(initial=0)) + 1
    cat_t = np.ascontiguousarray(cat.T)
    rem = weight.copy()
    got = _classes(cat, cat_t, num, rem, _value_counts(cat, weight, mmax), k,
                   tuples.sorted_numeric)
    left, left_owner = _leftovers(cat, num, weight, rem, got, k, mmax)
    n_classes = len(got) // k
    owner = np.concatenate([np.repeat(np.arange(n_classes), k), left_owner])
    return np.concatenate([got, left]), owner, n_classes, len(left)
