"""The information-loss metrics of the papers, on a :class:`~kanon_graph.recoding.Release`.

Per-cell costs are computed once per class and attribute, then weighted by
class size; a suppressed cell always costs the maximum (1 for normalized
costs, the hierarchy height for level counts).

References
----------
.. [000] Sarrafi Aghdam & Sonehara, "On enhancing data utility in
   k-anonymization for data without hierarchical taxonomies" (2016).
.. [001] Bhaladhare & Jinwala, "A sensitive attribute based clustering method
   for k-anonymization" (2014).
.. [003] Venkata Ramana & Valli Kumari, "Graph based local recoding for data
   anonymization" (2013).
.. [ARX] Prasser & Kohlmayer, "Putting statistical disclosure control into
   practice: The ARX data anonymization tool" (2015); its "Loss" metric.
"""

from __future__ import annotations

import numpy as np

from ._registry import register_metric

__all__ = [
    "ncp_per_attribute",
    "total_ncp",
    "gcp",
    "utility",
    "discernibility",
    "cavg",
    "arx_loss",
    "minimal_distortion",
    "byun_il",
]


def _domain_range(attr):
    if attr.hierarchy is not None and attr.hierarchy.leaf_values is not None:
        leaves = attr.hierarchy.leaf_values
        return float(leaves.max() - leaves.min())
    return float(np.nanmax(attr.values) - np.nanmin(attr.values))


def _ncp_class(attr, rel):
    """NCP of each class on one attribute (000 eq. 2-3, 003 eq. 5-6)."""
    if attr.kind == "numeric" and rel.lo is not None:
        span = _domain_range(attr)
        return (rel.hi - rel.lo) / span if span > 0 else np.zeros(len(rel.lo))
    domain = attr.hierarchy.n_leaves if attr.hierarchy is not None else attr.n_codes
    return np.where(rel.distinct <= 1, 0.0, rel.distinct / domain)


def ncp_per_attribute(release):
    """``{attribute: NCP per class}`` (suppressed records excluded).

    Numeric attributes: ``(max - min) / (Max - Min)`` over the range the
    released value stands for (the class's values without a hierarchy, the
    numeric leaves under the released node with one), relative to the
    domain (the hierarchy's leaves, else the column) -- [000] eq. (2),
    [003] eq. (5). Categorical attributes: 0 for a single value, else the
    number of leaves under the released node over the hierarchy's leaves
    ([003] eq. (6)), or without a hierarchy the number of distinct values in
    the class over the column's distinct values ([000] eq. (3)).
    """
    data = release.data
    return {a.name: _ncp_class(a, release.attributes[a.name]) for a in data.attributes}


def total_ncp(release, k=None):
    """Total NCP: sum over classes of ``|E| * sum_A NCP_A(E)``; a suppressed record costs d."""
    per = ncp_per_attribute(release)
    d = len(per)
    return float(sum((release.sizes * cost).sum() for cost in per.values())
                 + release.suppressed * d)


def gcp(release, k=None):
    """GCP = sum_E |E| NCP(E) / (d N), in [0, 1] -- [003] eq. (7)."""
    d = len(release.data.attributes)
    return total_ncp(release) / (d * release.data.records)


def utility(release, k=None):
    """Data utility = 1 - normalized total NCP -- [000] eq. (4)."""
    return 1.0 - gcp(release)


def discernibility(release, k):
    """C_DM = sum_{|E|>=k} |E|^2 + sum_{|E|<k} |D||E|, suppressed records in the second sum.

    [000] eq. (1); without suppression it is [003] eq. (8). Registered as not
    monotone: raising a level can merge records of classes smaller than ``k``
    (cost ``|D|`` each) into a class of at least ``k`` (cost ``|E| <= |D|`` each).
    """
    sizes = release.sizes.astype(float)
    n = release.data.records
    big = sizes >= k
    return float((sizes[big] ** 2).sum() + n * sizes[~big].sum() + n * release.suppressed)


def cavg(release, k):
    """CAVG = records / (number of classes * k) -- [003] eq. (9).

    Suppressed records all read ``*`` and cannot be told apart, so together
    they count as one more class: ``N / ((classes + 1) k)`` when any record
    is suppressed. With every record suppressed that is ``N / k``, the value
    of one class holding the whole table (the top node), the greatest CAVG
    can take; never NaN.
    """
    classes = release.n_classes + (1 if release.suppressed else 0)
    return float(release.data.records / (classes * k))


def _arx_cell(attr, rel):
    if attr.hierarchy is not None:
        leaves = attr.hierarchy.n_leaves
        return (rel.distinct - 1) / (leaves - 1) if leaves > 1 else np.zeros(len(rel.distinct))
    if attr.kind == "numeric":
        span = _domain_range(attr)
        return (rel.hi - rel.lo) / span if span > 0 else np.zeros(len(rel.lo))
    return (rel.distinct - 1) / (attr.n_codes - 1) if attr.n_codes > 1 else np.zeros(len(rel.distinct))


def arx_loss_per_attribute(release):
    """``{attribute: mean cell loss}`` of ARX's Loss metric."""
    data = release.data
    out = {}
    for attr in data.attributes:
        cell = _arx_cell(attr, release.attributes[attr.name])
        out[attr.name] = float(((release.sizes * cell).sum() + release.suppressed) / data.records)
    return out


def arx_loss(release, k=None):
    """ARX's Loss: prod_i (1 + loss_i)^(1/d) - 1.

    ``loss_i`` is the mean over records of (leaves under the released value
    - 1) / (hierarchy leaves - 1), with hierarchy rows as leaves and 1 for a
    suppressed cell [ARX]. Without a hierarchy: the released range over the
    column's range (numeric), (values in the set - 1) / (distinct values - 1)
    (categorical).
    """
    per = arx_loss_per_attribute(release)
    return float(np.prod([1.0 + v for v in per.values()]) ** (1.0 / len(per)) - 1.0)


def minimal_distortion(release, k=None):
    """Minimal distortion: one unit per generalization step of every cell.

    A hierarchical value costs its level; a hierarchy-free one costs 1 when
    it covers more than one original value; a suppressed cell costs the full
    height (Samarati 2001; Sweeney 2002).
    """
    total = 0.0
    for attr in release.data.attributes:
        rel = release.attributes[attr.name]
        steps = rel.level if rel.level is not None else (rel.distinct > 1).astype(float)
        total += float((release.sizes * steps).sum()) + release.suppressed * attr.height
    return total


def byun_il(release, k=None):
    """Byun et al.'s information loss, summed over classes.

    IL(E) = |E| * (sum_numeric (max - min)/(Max - Min) + sum_categorical
    H(lca)/H(tree)), as restated in [001] section 4.1. H(lca) is the level of
    the released node; a hierarchy-free categorical value counts as a tree of
    height 1 (0 for one value, 1 for a set). A suppressed record costs 1 per
    attribute.
    """
    total = 0.0
    for attr in release.data.attributes:
        rel = release.attributes[attr.name]
        if attr.kind == "numeric" and rel.lo is not None:
            cost = _ncp_class(attr, rel)
        elif rel.level is not None:
            cost = rel.level / attr.hierarchy.height if attr.hierarchy.height else 0 * rel.level
        else:
            cost = (rel.distinct > 1).astype(float)
        total += float((release.sizes * cost).sum()) + release.suppressed
    return total


register_metric("ncp", total_ncp, monotone=True)
register_metric("gcp", gcp, monotone=True)
register_metric("utility", utility, lower_is_better=False, monotone=True)
# not monotone: merging classes smaller than k (cost |D| each record) into one of
# size >= k (cost |E| each record) lowers C_DM
register_metric("discernibility", discernibility, monotone=False)
register_metric("cavg", cavg, monotone=True)
register_metric("loss", arx_loss, monotone=True)
register_metric("minimal_distortion", minimal_distortion, monotone=True)
register_metric("byun_il", byun_il, monotone=True)
