"""Per-class privacy measures on integer arrays.

Every function takes ``class_of`` (the equivalence class of each record,
``-1`` for suppressed records, which are left out) and returns one number per
class, so that a criterion is a comparison and a table-level value is a
``min`` or ``max``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "class_sizes",
    "known_only",
    "distinct_values",
    "entropy_l",
    "recursive_cl_holds",
    "recursive_l",
    "emd_to_table",
    "emd_of_histograms",
]

_CHUNK = 4096


def _valid(class_of):
    class_of = np.asarray(class_of, dtype=np.int64)
    return class_of, class_of >= 0


def _n_classes(class_of, n_classes):
    if n_classes is None:
        n_classes = int(class_of.max()) + 1 if class_of.size and class_of.max() >= 0 else 0
    return n_classes


def class_sizes(class_of, n_classes=None, weights=None):
    """Number of records in each class (``weights``: records per row, when rows are tuples)."""
    class_of, valid = _valid(class_of)
    n_classes = _n_classes(class_of, n_classes)
    if weights is None:
        return np.bincount(class_of[valid], minlength=n_classes)
    return np.bincount(class_of[valid], weights=np.asarray(weights)[valid],
                       minlength=n_classes).astype(np.int64)


def known_only(class_of, values, missing):
    """``class_of`` with the records whose sensitive value is ``missing`` left out (``-1``).

    A missing sensitive value is no value: it counts toward a class's size
    (k), never toward its diversity or its distribution. ``missing=None``:
    every value is known.

    >>> known_only([0, 0, 1, 1], [0, 2, 1, 0], 0).tolist()
    [-1, 0, 1, -1]
    """
    class_of = np.asarray(class_of, dtype=np.int64)
    if missing is None:
        return class_of
    return np.where(np.asarray(values) == missing, -1, class_of)


def _pair_counts(class_of, values, n_classes, weights=None):
    """Unique (class, value) pairs and their records (rows, or summed ``weights``)."""
    class_of, valid = _valid(class_of)
    values = np.asarray(values, dtype=np.int64)[valid]
    cls = class_of[valid]
    width = int(values.max()) + 1 if values.size else 1
    if weights is None:
        pairs, counts = np.unique(cls * width + values, return_counts=True)
    else:
        pairs, inverse = np.unique(cls * width + values, return_inverse=True)
        counts = np.bincount(inverse.reshape(-1), weights=np.asarray(weights)[valid],
                             minlength=len(pairs)).astype(np.int64)
    return pairs // width, pairs % width, counts


def distinct_values(class_of, values, n_classes=None):
    """Distinct sensitive values per class (distinct l-diversity's l)."""
    class_of = np.asarray(class_of, dtype=np.int64)
    n_classes = _n_classes(class_of, n_classes)
    cls, _, _ = _pair_counts(class_of, values, n_classes)
    return np.bincount(cls, minlength=n_classes)


def entropy_l(class_of, values, n_classes=None, weights=None):
    """exp(entropy) of the sensitive values per class (entropy l-diversity's l).

    A class is entropy l-diverse when ``-sum p log p >= log l`` (Machanavajjhala
    et al. 2007), i.e. when this value is at least ``l``. A class without a
    value (every record left out) has 0, as its distinct count.
    """
    class_of = np.asarray(class_of, dtype=np.int64)
    n_classes = _n_classes(class_of, n_classes)
    cls, _, counts = _pair_counts(class_of, values, n_classes, weights)
    sizes = np.bincount(cls, weights=counts, minlength=n_classes)
    p = counts / sizes[cls]
    entropy = -np.bincount(cls, weights=p * np.log(p), minlength=n_classes)
    return np.where(sizes > 0, np.exp(entropy), 0.0)


def _sorted_counts(class_of, values, n_classes, weights=None):
    """(n_classes, max distinct) matrix of value counts, each row descending."""
    cls, _, counts = _pair_counts(class_of, values, n_classes, weights)
    order = np.lexsort((-counts, cls))
    cls, counts = cls[order], counts[order]
    starts = np.searchsorted(cls, np.arange(n_classes))
    rank = np.arange(len(cls)) - starts[cls]
    width = int(rank.max()) + 1 if rank.size else 1
    matrix = np.zeros((n_classes, width), dtype=np.int64)
    matrix[cls, rank] = counts
    return matrix


def recursive_cl_holds(class_of, values, c, l, n_classes=None, weights=None):
    """Recursive (c, l)-diversity per class: ``r_1 < c (r_l + ... + r_m)``.

    ``r_i`` is the i-th largest count of a sensitive value in the class
    (Machanavajjhala et al. 2007, Definition 4.3).
    """
    class_of = np.asarray(class_of, dtype=np.int64)
    n_classes = _n_classes(class_of, n_classes)
    matrix = _sorted_counts(class_of, values, n_classes, weights)
    if l > matrix.shape[1]:
        return np.zeros(n_classes, dtype=bool)
    tail = matrix[:, l - 1:].sum(axis=1)
    return matrix[:, 0] < c * tail


def recursive_l(class_of, values, c, n_classes=None, weights=None):
    """The largest l for which each class is recursive (c, l)-diverse (0 if none)."""
    class_of = np.asarray(class_of, dtype=np.int64)
    n_classes = _n_classes(class_of, n_classes)
    matrix = _sorted_counts(class_of, values, n_classes, weights)
    tails = np.cumsum(matrix[:, ::-1], axis=1)[:, ::-1]  # tails[:, j] = sum_{i>=j} r_i
    ok = matrix[:, [0]] < c * tails  # column j: (c, j+1)-diversity holds
    # the tail shrinks as l grows, so the l that hold are 1..L: count them
    return ok.sum(axis=1)


def emd_to_table(class_of, values, n_values=None, *, ordered, n_classes=None,
                 reference=None, weights=None):
    """Earth mover's distance between each class's and the released table's distribution.

    Li, Li & Venkatasubramanian (2007), "t-Closeness", section 4.2: with
    equal ground distance (categorical) EMD = ½ Σ |p_i - q_i|; with ordered
    distance (numeric, values sorted) EMD = Σ_i |Σ_{j<=i} (p_j - q_j)| / (m - 1).

    Everything is measured on the released records (``class_of >= 0``): the
    table distribution ``Q`` counts them only, and the ``m`` ordered values
    are the distinct values they hold, so a value held only by suppressed
    records is no step of the ordered distance.

    Parameters
    ----------
    class_of : array of int
        Class of every record, ``-1`` for suppressed records.
    values : array of int
        Code of every record's sensitive value; codes must sort as the
        values do when ``ordered``.
    n_values : int, optional
        Size of the whole input's domain. Ignored: the ordered values are
        those of the released records (the argument is kept so callers
        that pass it keep working).
    ordered : bool
    n_classes : int, optional
    reference : array of int, optional
        The sensitive codes of the records that make the table distribution
        ``Q`` (default: the released records among ``values``). A caller
        that checks a few classes cut from a larger release (Mondrian) passes
        the codes of every released record; the classes' values must be
        among them.
    weights : array of int, optional
        Records per row of ``values`` (rows that are counted tuples); not
        with ``reference``.

    Examples
    --------
    >>> emd_to_table([0, 0, 1, 1, -1], [0, 0, 1, 1, 2], 3, ordered=True).tolist()
    [0.5, 0.5]
    """
    class_of, valid = _valid(class_of)
    n_classes = _n_classes(class_of, n_classes)
    values = np.asarray(values, dtype=np.int64)
    if weights is not None and reference is not None:
        raise ValueError("emd_to_table takes weights or a reference, not both")
    reference = values[valid] if reference is None else np.asarray(reference, dtype=np.int64)
    present, dense = np.unique(reference, return_inverse=True)
    m_values = len(present)
    held = None if weights is None else np.asarray(weights)[valid]
    q = np.bincount(dense.reshape(-1), weights=held, minlength=m_values)
    q = q / max(q.sum(), 1)
    values = np.where(valid, np.searchsorted(present, values), 0)
    cls, val, counts = _pair_counts(class_of, values, n_classes, weights)
    return emd_of_histograms(cls, val, counts, q, ordered=ordered, n_classes=n_classes)


def emd_of_histograms(cls, val, counts, q, *, ordered, n_classes):
    """EMD of each class's histogram to the distribution ``q`` (Li, Li & Venkatasubramanian 2007).

    Parameters
    ----------
    cls, val, counts : ndarray of int
        One (class, value, records) triple per distinct pair, sorted by
        class; ``val`` indexes ``q``.
    q : ndarray of float
        The reference distribution over the ``m`` values (summing to 1),
        in value order for the ordered distance.
    ordered : bool
    n_classes : int

    Returns
    -------
    ndarray of float, shape (n_classes,)
        0 for a class without a triple.

    Examples
    --------
    >>> emd_of_histograms(np.array([0, 0]), np.array([0, 1]), np.array([3, 1]),
    ...                   np.array([0.5, 0.5]), ordered=False, n_classes=1).tolist()
    [0.25]
    """
    m_values = len(q)
    sizes = np.bincount(cls, weights=counts, minlength=n_classes)
    result = np.zeros(n_classes)
    starts = np.searchsorted(cls, np.arange(0, n_classes + _CHUNK, _CHUNK))
    for block, first in enumerate(range(0, n_classes, _CHUNK)):
        last = min(first + _CHUNK, n_classes)
        lo, hi = starts[block], starts[block + 1] if block + 1 < len(starts) else len(cls)
        p = np.zeros((last - first, m_values))
        p[cls[lo:hi] - first, val[lo:hi]] = counts[lo:hi] / sizes[cls[lo:hi]]
        diff = p - q
        if ordered:
            if m_values > 1:
                result[first:last] = np.abs(np.cumsum(diff, axis=1)).sum(axis=1) / (m_values - 1)
        else:
            result[first:last] = 0.5 * np.abs(diff).sum(axis=1)
    return result
