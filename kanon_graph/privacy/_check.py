"""Privacy checks on any released DataFrame (ours or another tool's).

Records whose quasi-identifiers are all ``*`` are suppressed records, by
definition (a class generalized to ``*`` everywhere reads the same): they
are left out of every check and counted instead. What k, l and t are
measured on is said once, in docs/privacy.md ("What each criterion is
measured on"); ``kg.anonymize``'s verification measures the same.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..encoding.row_keys import _row_keys, _text_codes  # noqa: F401  (_text_codes: tests)
from ..exceptions import SchemaError
from . import _measures as m

__all__ = [
    "equivalence_classes",
    "k_anonymity",
    "is_k_anonymous",
    "l_diversity",
    "t_closeness",
    "prosecutor_risk",
    "released_k",
    "released_classes",
]


def released_k(table, quasi_identifiers, released, weights=None):
    """The smallest class of the released rows, counted from their released cells.

    Parameters
    ----------
    table : DataFrame
        The released table, as the user receives it.
    quasi_identifiers : list of str
    released : ndarray of bool
        The rows that are released (not suppressed), by position. The
        facade passes the rows whose quasi-identifiers are not all ``*``
        (a record all ``*`` is suppressed by definition).
    weights : ndarray of int, optional
        Records per row, when each row stands for that many records.

    Returns
    -------
    int
        The size of the smallest group of released rows whose
        quasi-identifier texts are all equal; 0 when no row is released.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> t = pd.DataFrame({"a": ["x", "x", "y", "y", "y"], "b": ["1", "1", "2", "2", "*"]})
    >>> released_k(t, ["a", "b"], np.array([True, True, True, True, False]))
    2
    """
    if not np.any(released):
        return 0
    keys, _ = _row_keys(table, list(quasi_identifiers))
    keys = keys[released]
    if weights is not None:
        weights = np.asarray(weights)[released]
    top = int(keys.max()) + 1
    if top <= 4 * len(keys) + 4096:     # few possible keys: count them without sorting
        present = np.bincount(keys, minlength=top) > 0
        sizes = np.bincount(keys, weights=weights, minlength=top)[present]
    else:
        _, inverse, sizes = np.unique(keys, return_inverse=True, return_counts=True)
        if weights is not None:
            sizes = np.bincount(inverse.reshape(-1), weights=weights)
    return int(sizes.min())


def released_classes(table, quasi_identifiers, released):
    """The class of every released row, counted from its released cells.

    Rows whose quasi-identifier texts are all equal share a class, as the
    reader of the table sees it (numbered by first appearance); ``-1`` for
    a row that is not released (left out by position, as in
    :func:`released_k`: the facade leaves out the all-``*`` rows).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> t = pd.DataFrame({"a": ["x", "y", "x", "*"], "b": ["1", "2", "1", "*"]})
    >>> released_classes(t, ["a", "b"], np.array([True, True, True, False])).tolist()
    [0, 1, 0, -1]
    """
    released = np.asarray(released, dtype=bool)
    class_of = np.full(len(table), -1, dtype=np.int64)
    if released.any():
        keys, _ = _row_keys(table, list(quasi_identifiers))
        codes, _ = pd.factorize(keys[released])
        class_of[released] = codes
    return class_of


def _class_of(table, quasi_identifiers):
    quasi_identifiers = list(quasi_identifiers)
    missing = [q for q in quasi_identifiers if q not in table.columns]
    if missing:
        raise SchemaError(f"quasi-identifier column(s) {missing} are not in the table")
    codes, suppressed = _row_keys(table, quasi_identifiers)
    _, dense = np.unique(codes[~suppressed], return_inverse=True)
    class_of = np.full(len(table), -1, dtype=np.int64)
    class_of[~suppressed] = dense.reshape(-1)
    return class_of


def equivalence_classes(table, quasi_identifiers):
    """Row positions of each equivalence class (suppressed rows left out).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"a": ["x", "x", "y", "*"], "b": [1, 1, 2, "*"]})
    >>> [c.tolist() for c in equivalence_classes(t, ["a", "b"])]
    [[0, 1], [2]]
    """
    class_of = _class_of(table, quasi_identifiers)
    order = np.argsort(class_of, kind="stable")
    order = order[class_of[order] >= 0]
    groups = np.split(order, np.flatnonzero(np.diff(class_of[order])) + 1) if order.size else []
    return sorted(groups, key=lambda g: g[0])


def k_anonymity(table, quasi_identifiers):
    """The k a table achieves: its smallest equivalence class (0 if all suppressed).

    A row whose quasi-identifiers are all ``*`` is suppressed, in no class.
    """
    sizes = m.class_sizes(_class_of(table, quasi_identifiers))
    return int(sizes.min()) if sizes.size else 0


def is_k_anonymous(table, quasi_identifiers, k):
    """Whether every equivalence class holds at least ``k`` records."""
    return k_anonymity(table, quasi_identifiers) >= k


def _sensitive_codes(table, sensitive):
    """Codes of the sensitive cells in value order, ``-1`` for a missing cell."""
    if sensitive not in table.columns:
        raise SchemaError(f"sensitive column {sensitive!r} is not in the table")
    codes, uniques = pd.factorize(table[sensitive], sort=True)
    return codes.astype(np.int64), len(uniques)


def l_diversity(table, quasi_identifiers, sensitive, *, kind="distinct", c=1.0):
    """The l a table achieves on ``sensitive`` (the least diverse class).

    ``kind`` is ``"distinct"`` (distinct values), ``"entropy"`` (exp of the
    entropy) or ``"recursive"`` (largest l with recursive (c, l)-diversity).
    A missing sensitive cell (``NaN``, ``None``) is no value: l counts the
    known values of a class (none: l 0), as ``anonymize`` does.
    """
    class_of = _class_of(table, quasi_identifiers)
    values, _ = _sensitive_codes(table, sensitive)
    n_classes = len(m.class_sizes(class_of))
    known = m.known_only(class_of, values, -1)
    if kind == "distinct":
        per_class = m.distinct_values(known, values, n_classes)
    elif kind == "entropy":
        per_class = m.entropy_l(known, values, n_classes)
    elif kind == "recursive":
        per_class = m.recursive_l(known, values, c, n_classes)
    else:
        raise ValueError(f"The 'kind' parameter of l_diversity must be one of "
                         f"['distinct', 'entropy', 'recursive']. Got {kind!r}.")
    return float(per_class.min()) if per_class.size else 0.0


def t_closeness(table, quasi_identifiers, sensitive, *, ordered=None):
    """The t a table achieves: the largest EMD of a class to the whole table.

    ``ordered`` chooses the ordered ground distance (numeric values) or the
    equal one (categorical); by default it follows the column's dtype. A
    missing sensitive cell is no value: each class's known values are
    compared with those of every released record, and a class holding none
    counts as 1 (as ``anonymize`` does).
    """
    class_of = _class_of(table, quasi_identifiers)
    values, n_values = _sensitive_codes(table, sensitive)
    if ordered is None:
        ordered = pd.api.types.is_numeric_dtype(table[sensitive].dtype)
    sizes = m.class_sizes(class_of)
    known = m.known_only(class_of, values, -1)
    emd = m.emd_to_table(known, values, n_values, ordered=ordered, n_classes=len(sizes))
    emd = np.where((sizes > 0) & (m.class_sizes(known, len(sizes)) == 0), 1.0, emd)
    return float(emd.max()) if emd.size else 0.0


def prosecutor_risk(table, quasi_identifiers):
    """Prosecutor re-identification risk: ``(highest, average)``.

    A record in a class of size ``|E|`` is re-identified with probability
    ``1/|E|``; the highest risk is ``1/min |E|`` and the average over released
    records is ``classes / records``. The two figures of
    :func:`kanon_graph.risk.prosecutor`, which also gives the share of records
    above a threshold, and :mod:`kanon_graph.risk` the other attacker models.
    """
    from ..risk import prosecutor, risk_classes

    risk = prosecutor(risk_classes(table, quasi_identifiers))
    return risk["highest"], risk["average"]
