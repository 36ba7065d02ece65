"""SpatialDistance's hierarchy-free distances between values (paper 000, section 4.1).

Numeric attributes use the range-normalized absolute difference (eq. 5).
Categorical attributes get their distances from *contingency tables*, not
from a hierarchy: values whose observation probability, given the reference
tuple's values of the lower-cardinality attributes, is close to that of the
reference value are near it (Definitions 1-2, eq. 6), and distances shrink
geometrically from one attribute to the next (the Nationality example). The
total distance between two tuples is the sum over attributes (eq. 7).

Readings of the text (each is consistent with the worked example of
Figure 1 / Table 3, which they reproduce exactly):

* **Order.** Categorical attributes are handled in increasing order of the
  number of distinct values present (ties: schema order). Numeric attributes
  take no part in the contingency tables.
* **Conditioning (Figure 2).** The contingency table of an attribute ``N``
  has as rows the combinations of *all* categorical attributes before it in
  that order (Figure 2(c): Education is conditioned on Gender and
  Nationality); the row used is the reference tuple's.
* **Widening (Table 3).** If that row holds fewer than ``k`` tuples, the
  innermost conditioning attribute (the one of highest cardinality) is
  dropped -- the row becomes the block of rows that agree with the
  reference on the remaining ones (with a single conditioning attribute:
  Male *and* Female, as the text says) -- and so on until the row holds at
  least ``k`` tuples or nothing is conditioned on.
* **Similarity (eq. 6).** ``S(v) = count(row, v) / count(row)``; the
  dissimilarity of ``v`` to the reference value ``r`` is ``|S(v) - S(r)|``.
* **Distances.** With ``C`` values present and ``m`` the smallest positive
  distance of the previous attribute in the order (1 when there is none, or
  when the previous attribute has two values: Definition 2), the least
  similar value gets ``m / (C - 1)``, the next ``m / (C - 1)**2``, ..., the
  most similar ``m / (C - 1)**(C - 1)``: the Nationality example's
  ``1/2, 1/4`` with ``C = 3`` continued for more values.
  A value with the same similarity as the reference (Korea in the example)
  is still a different value: it gets a positive distance.
* **Ties.** Values equally dissimilar to the reference share one distance,
  that of the first rank of their group (competition ranking 1, 2, 2, 4):
  equally similar values are equally distant, and the ranks after a tie
  keep dividing as if the tied values had been ranked one by one.
* **Underflow.** ``m / (C - 1)**r`` is clamped below at the smallest normal
  float, so different values never get distance 0 (Definition 1 reserves 0
  for identical values). It does not happen on Adult (smallest: 1e-111).
* **Distance from any value.** Ranking with another value ``u`` as the
  reference (same row, same ``m``) gives row ``u`` of a (not symmetric)
  matrix ``M[u, v]``; the SD algorithm needs it to measure a tuple against
  a centre holding several values (see :mod:`.paper`).

References
----------
Sarrafi Aghdam & Sonehara, "On enhancing data utility in k-anonymization
for data without hierarchical taxonomies", IJCSI (2016): section 4.1,
Definitions 1-2, eq. (5)-(7), Figures 1-2, Table 3.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...encoding import encode
from ...exceptions import DataError
from ._contingency import _contingency, _order

__all__ = ["ContingencyDistances", "contingency_distances", "numeric_distances",
           "sd_value_distances"]


@dataclass(frozen=True)
class ContingencyDistances:
    """SD's categorical distances relative to one reference tuple.

    Attributes
    ----------
    order : tuple of int
        Attribute indices by increasing cardinality (the processing order).
    cardinality : ndarray of int, shape (c,)
        Distinct values present per attribute.
    depth : ndarray of int, shape (c,)
        Number of lower-cardinality attributes the contingency row is
        conditioned on, after widening (0: the attribute's marginal).
    counts : ndarray, shape (c, m)
        Tuples per value in that row (the numerators of eq. 6).
    similarity : ndarray, shape (c, m)
        ``counts / row total``: the similarity factors S of eq. (6).
    matrix : ndarray, shape (c, m, m)
        ``matrix[a, u, v]``: distance from value ``u`` to value ``v``,
        ``u`` ranked as the reference.
    reference : ndarray of int, shape (c,)
        The reference tuple's codes.
    n_values : tuple of int
        Number of codes of each attribute (the arrays above are padded to
        the largest).
    """

    order: tuple
    cardinality: np.ndarray
    depth: np.ndarray
    counts: np.ndarray
    similarity: np.ndarray
    matrix: np.ndarray
    reference: np.ndarray
    n_values: tuple = ()

    def distances(self, a):
        """Distances from the reference value of attribute ``a`` to each of its values."""
        return self.matrix[a, self.reference[a], :self.n_values[a]]


def contingency_distances(codes, reference, k, *, weights=None):
    """SD's categorical distances from a reference tuple (paper 000, section 4.1).

    Parameters
    ----------
    codes : array of int, shape (n, c)
        Categorical codes, ``0 .. m_a - 1`` per column.
    reference : array of int, shape (c,)
        Codes of the reference tuple (t1 in the paper).
    k : int
        A contingency row with fewer than ``k`` tuples is widened (Table 3).
    weights : array of int, shape (n,), optional
        Multiplicity of each row (deduplicated tuples); default 1.

    Returns
    -------
    ContingencyDistances

    Examples
    --------
    Figure 1: Gender x Nationality with t1 = (Male, Japan).

    >>> import numpy as np
    >>> from kanon_graph.clustering import contingency_distances
    >>> codes = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 2]])  # Male=0; Japan, Korea, China
    >>> cd = contingency_distances(codes, [0, 0], k=3, weights=[5, 5, 1, 3, 6])
    >>> cd.similarity[1] * 11
    array([5., 5., 1.])
    >>> cd.distances(0), cd.distances(1)
    (array([0., 1.]), array([0.  , 0.25, 0.5 ]))

    References
    ----------
    Sarrafi Aghdam & Sonehara (2016), Definitions 1-2, eq. (6), Table 3.
    """
    codes = np.asarray(codes, dtype=np.int64)
    if codes.ndim != 2:
        raise DataError(f"contingency_distances: 'codes' must be 2-d (n, c); got shape "
                        f"{codes.shape}")
    n, c = codes.shape
    reference = np.asarray(reference, dtype=np.int64).reshape(-1)
    if reference.shape != (c,):
        raise DataError(f"contingency_distances: 'reference' must hold {c} codes; got "
                        f"{reference.tolist()}")
    weights = np.ones(n, np.int64) if weights is None else np.asarray(weights, np.int64)
    mmax = int(max(codes.max(initial=0), reference.max(initial=0))) + 1
    present = np.zeros((c, mmax), dtype=np.bool_)
    for a in range(c):
        present[a, codes[weights > 0, a]] = True
    order, cards = _order(present)
    marginals = np.zeros((c, mmax), np.int64)
    for a in range(c):
        marginals[a] = np.bincount(codes[:, a], weights=weights, minlength=mmax)
    alive = np.arange(n, dtype=np.int64)
    counts, depth, matrix = _contingency(codes, weights, alive, order, reference, float(k),
                                         marginals, present)
    totals = counts.sum(axis=1, keepdims=True)
    similarity = np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)
    n_values = tuple(int(codes[:, a].max(initial=reference[a])) + 1 for a in range(c))
    return ContingencyDistances(tuple(int(a) for a in order), cards, depth, counts,
                                similarity, matrix, reference, n_values)


def numeric_distances(values, reference, span):
    """Eq. (5) for one attribute: ``|x - x_ref| / (Max - Min)`` (0 when the range is 0).

    Examples
    --------
    >>> numeric_distances([20, 30, 60], 30, span=40)
    array([0.25, 0.  , 0.75])
    """
    values = np.asarray(values, dtype=float)
    if span <= 0:
        return np.zeros_like(values)
    return np.abs(values - float(reference)) / float(span)


def _dense(attr):
    """Hierarchy-free dense codes of an encoded attribute (leaf codes ignore the tree)."""
    _, first, dense = np.unique(attr.codes, return_index=True, return_inverse=True)
    return dense.reshape(-1).astype(np.int64), first


def sd_value_distances(table, schema, reference=0, *, k):
    """Distance of every value of every quasi-identifier from the reference row's value.

    Hierarchy-free by design: numeric attributes by eq. (5), categorical ones
    from contingency tables (:func:`contingency_distances`, whose docstring
    lists the readings of the text); hierarchies in ``schema`` are ignored.

    Parameters
    ----------
    table : DataFrame
    schema : Schema
    reference : int
        Position of the reference row (t1).
    k : int
        The anonymity degree: contingency rows with fewer than ``k`` tuples
        are widened.

    Returns
    -------
    dict of str to dict
        ``{quasi-identifier: {value: distance}}``, values as they appear in
        the table, in code order (sorted values without a hierarchy).

    Examples
    --------
    >>> import pandas as pd, kanon_graph as kg
    >>> counts = {("Male", "Japan"): 5, ("Male", "Korea"): 5, ("Male", "China"): 1,
    ...           ("Female", "Japan"): 3, ("Female", "China"): 6}
    >>> rows = [key for key, n in counts.items() for _ in range(n)]
    >>> table = pd.DataFrame(rows, columns=["gender", "nationality"])
    >>> schema = kg.Schema(quasi_identifiers=["gender", "nationality"])
    >>> d = kg.sd_value_distances(table, schema, reference=0, k=3)
    >>> d["gender"], d["nationality"]
    ({'Female': 1.0, 'Male': 0.0}, {'China': 0.5, 'Japan': 0.0, 'Korea': 0.25})

    References
    ----------
    Sarrafi Aghdam & Sonehara, "On enhancing data utility in k-anonymization
    for data without hierarchical taxonomies" (2016), section 4.1, eq. (5)-(7).
    """
    data = encode(table, schema, where="sd_value_distances")
    if isinstance(reference, bool) or not isinstance(reference, (int, np.integer)) \
            or not 0 <= reference < data.n:
        raise DataError(f"The 'reference' parameter of sd_value_distances must be a row "
                        f"position in [0, {data.n - 1}]. Got {reference!r}.")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise DataError(f"The 'k' parameter of sd_value_distances must be a positive "
                        f"integer. Got {k!r}.")
    out = {}
    categorical = []
    for attr in data.attributes:
        dense, first = _dense(attr)
        labels = data.table[attr.name].to_numpy()[first]
        if attr.kind == "numeric":
            span = float(attr.values.max() - attr.values.min())
            dist = numeric_distances(attr.values[first], attr.values[reference], span)
            out[attr.name] = {_plain(v): float(d) for v, d in zip(labels, dist)}
        else:
            categorical.append((attr.name, dense, labels))
            out[attr.name] = None
    if categorical:
        codes = np.column_stack([dense for _, dense, _ in categorical])
        cd = contingency_distances(codes, codes[reference], k)
        for a, (name, _, labels) in enumerate(categorical):
            dist = cd.distances(a)
            out[name] = {_plain(v): float(dist[i]) for i, v in enumerate(labels)}
    return out


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value
