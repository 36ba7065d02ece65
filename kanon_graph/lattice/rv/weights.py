"""Attribute weights for the research value from the raw data's association matrix.

Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
anonymization method" (section 4): "The weight calculation of each attribute
can be determined by establishing a correlation matrix between each pair of
attributes using the original raw dataset. The total sum of all the weights
is normalized to be 1. If an attribute does not correlate highly with any
other attribute [...] it will be assigned a higher weight."

These weights are used only when asked for (``weights="correlation"`` of
:func:`~kanon_graph.lattice.rv.research_values` and the RV searches); the
searches' default is equal weights. The paper's own Adult and MCPHD weights
were set by hand by its data expert (section 4) and are not given in it.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["correlation_weights"]


def _cramers_v(x, y, counts=None):
    """Cramér's V of two code arrays (bias-free enough for weights); ``counts``: the
    records each row stands for."""
    _, x = np.unique(x, return_inverse=True)
    _, y = np.unique(y, return_inverse=True)
    x, y = x.reshape(-1), y.reshape(-1)
    nx, ny = x.max() + 1, y.max() + 1
    if nx < 2 or ny < 2:
        return 0.0
    table = np.bincount(x * ny + y, weights=counts,
                        minlength=nx * ny).reshape(nx, ny).astype(float)
    n = table.sum()
    expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        chi2 = np.nansum((table - expected) ** 2 / expected)
    return float(math.sqrt(chi2 / (n * (min(nx, ny) - 1))))


def _quantiles(values, qs, counts):
    """``np.quantile`` (linear) of ``values`` each repeated ``counts`` times, not repeated."""
    order = np.argsort(values, kind="stable")
    ranked, ends = values[order], np.cumsum(counts[order])
    n, qs = ends[-1], np.asarray(qs, dtype=float)
    # numpy's virtual index and interpolation of its "linear" method, written as it does
    at = n * qs + (1 + qs * (1 - 1 - 1)) - 1             # positions in the repeated array
    below = np.clip(np.floor(at), 0, n - 1)
    t = at - below
    lo = ranked[np.searchsorted(ends, below, side="right")]
    hi = ranked[np.searchsorted(ends, np.minimum(below + 1, n - 1), side="right")]
    diff = hi - lo
    return np.where(t >= 0.5, hi - diff * (1 - t), lo + diff * t)


def _binned(values, bins, counts=None):
    qs = np.linspace(0, 1, bins + 1)[1:-1]
    cuts = np.quantile(values, qs) if counts is None else _quantiles(values, qs, counts)
    edges = np.unique(cuts)
    return np.searchsorted(edges, values, side="right")


def _pearson(a, b, counts):
    """``|r|`` of two numeric arrays (0 when one is constant), rows counted ``counts`` times."""
    if counts is None:
        sa, sb = a.std(), b.std()
        return 0.0 if sa == 0 or sb == 0 else abs(np.corrcoef(a, b)[0, 1])
    cov = np.cov(np.vstack([a, b]).astype(float), fweights=counts)
    if cov[0, 0] <= 0 or cov[1, 1] <= 0:
        return 0.0
    return abs(cov[0, 1] / np.sqrt(cov[0, 0] * cov[1, 1]))


def correlation_weights(data, *, bins=10):
    """Attribute weights from the raw data's association matrix, summing to 1.

    Morton et al. (section 4) weigh an attribute by how little it correlates
    with the others. Here the association of two numeric attributes is
    ``|Pearson r|``; any pair with a categorical attribute uses Cramér's V
    (a numeric partner is cut into ``bins`` quantile bins). An attribute's
    weight is ``1 - mean association with the others``, normalized to sum
    to 1 (the mean, rather than the maximum, keeps two duplicate columns from
    both getting weight 0).

    Parameters
    ----------
    data : EncodedTable
    bins : int

    Returns
    -------
    dict of str to float

    Examples
    --------
    >>> import numpy as np, pandas as pd, kanon_graph as kg
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 4, 500)
    >>> t = pd.DataFrame({"a": a, "b": a, "c": rng.integers(0, 4, 500)})
    >>> data = kg.encode(t, kg.Schema(quasi_identifiers=["a", "b", "c"], categorical=["a", "b", "c"]))
    >>> w = correlation_weights(data)
    >>> w["c"] > w["a"] == w["b"], round(sum(w.values()), 12)
    (True, 1.0)
    """
    attrs = data.attributes
    counts = None if data.weights is None else np.asarray(data.weights, dtype=np.int64)
    d = len(attrs)
    if d == 1:
        return {attrs[0].name: 1.0}
    assoc = np.zeros((d, d))
    for i in range(d):
        for j in range(i + 1, d):
            a, b = attrs[i], attrs[j]
            if a.values is not None and b.values is not None:
                r = _pearson(a.values, b.values, counts)
            else:
                xa = _binned(a.values, bins, counts) if a.values is not None else a.codes
                xb = _binned(b.values, bins, counts) if b.values is not None else b.codes
                r = _cramers_v(xa, xb, counts)
            assoc[i, j] = assoc[j, i] = min(r, 1.0)
    raw = 1.0 - assoc.sum(1) / (d - 1)
    raw = np.full(d, 1.0) if raw.sum() <= 0 else raw
    return {a.name: float(w) for a, w in zip(attrs, raw / raw.sum())}
