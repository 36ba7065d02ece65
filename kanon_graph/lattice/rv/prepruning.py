"""Pre-pruning of the attributes' levels before the RV searches (Figure 3).

Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
anonymization method", section 5.3.1 and Figure 3. If the table is not
k-anonymous with respect to one attribute alone at level ``j``, it is not
k-anonymous with respect to any generalization string that holds that
attribute at ``j`` or below (negations of the subset and generalization
properties). So each attribute's levels that fail on their own are dropped
before any string is generated, and an attribute that fails even at its most
general allowed level is withheld from the release.

With ``respect_boundaries=True`` levels are capped recodings (values stop at
their MAGVals) and each attribute's levels end at its boundary level
(:func:`~kanon_graph.lattice.capped.boundary_levels`). An attribute whose
MAGVals stop some value below the root cannot be withheld (its root would go
past them): when it fails on its own at its highest level no string can pass,
and the pre-pruning raises an error naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..capped import binding_boundaries, boundary_levels, magval_stops, suppression_hint
from ..frequency import suppression_budget

__all__ = ["prepruning", "PrePruning"]


@dataclass(frozen=True)
class PrePruning:
    """The levels left for the string generation.

    Attributes
    ----------
    names : tuple of str
    lowest : tuple of int
        Per attribute, the most specific level that passes on its own
        (for a withheld attribute: its root level, where it is released as
        the hierarchy's root, e.g. ``*``).
    highest : tuple of int
        Per attribute, the most general level the search may use (the cap
        from ``max_levels``, or the height; the root for withheld ones).
    withheld : tuple of str
        Attributes that fail even at their highest allowed level: they are
        not searched and are released at their root (suppressed column).
    tests : int
        Single-attribute frequency sets computed.
    """

    names: tuple
    lowest: tuple
    highest: tuple
    withheld: tuple
    tests: int

    @property
    def levels_dropped(self):
        """Per attribute, how many levels pre-pruning removed."""
        return {n: lo for n, lo, hi in zip(self.names, self.lowest, self.highest)
                if n not in self.withheld and lo > 0}

    @property
    def n_strings(self):
        """How many generalization strings the remaining levels make."""
        out = 1
        for lo, hi in zip(self.lowest, self.highest):
            out *= hi - lo + 1
        return out


def _failing_alone(attr, level, data, model, capped=True):
    """Records in classes failing ``model`` when grouping by ``attr`` alone at ``level``."""
    classes = attr.at_level(level, capped)
    weights = data.weights          # counted tuples: a row stands for its weight's records
    if not getattr(model, "needs_sensitive", False):
        counts = np.bincount(classes, weights=weights)
        return int(round(counts[(counts > 0) & (counts < model.k)].sum()))
    _, class_of = np.unique(classes, return_inverse=True)
    class_of = class_of.reshape(-1)
    failing = np.asarray(model.suppressed_classes(class_of, data, int(class_of.max()) + 1),
                         dtype=bool)
    return int(failing[class_of].sum() if weights is None else weights[failing[class_of]].sum())


def _passes(attr, level, data, model, budget, capped=False):
    return _failing_alone(attr, level, data, model, capped) <= budget


def _subset_model(model, budget):
    """The part of ``model`` whose failing records only grow on a subset of attributes.

    A class on one attribute is a union of classes of every string holding
    it. Its size and distinct count bound theirs, so the records failing k or
    distinct l only grow with more attributes. Entropy / recursive l and t
    do not: a failing union may hold passing classes (and t is measured on
    the records left released), so with a suppression budget the count of
    records they fail on one attribute says nothing about a string, and
    the pre-pruning tests k and distinct l only. Without a budget one
    failing class suffices and the whole model is tested (a union of
    classes passing entropy / recursive l or t passes too).
    """
    if budget == 0 or not getattr(model, "needs_sensitive", False):
        return model
    distinct = model.l is not None and model.diversity == "distinct"
    if model.t is None and (model.l is None or distinct):
        return model
    return replace(model, l=model.l if distinct else None, diversity="distinct", t=None)


def _caps(data, max_levels):
    names = data.names
    max_levels = dict(max_levels or {})
    unknown = sorted(set(max_levels) - set(names))
    if unknown:
        raise ValueError(f"The 'max_levels' parameter names {unknown}, which are not "
                         f"quasi-identifiers {names}.")
    caps = []
    for attr in data.attributes:
        cap = max_levels.get(attr.name, attr.height)
        if isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) \
                or not 0 <= cap <= attr.height:
            raise ValueError(f"The 'max_levels' parameter must give {attr.name!r} an integer "
                             f"in [0, {attr.height}]. Got {cap!r}.")
        caps.append(int(cap))
    return caps


def prepruning(data, model, *, suppression=0.0, max_levels=None, respect_boundaries=False):
    """Drop the levels (and attributes) that fail the privacy model on their own.

    For each attribute, levels are tested from its highest allowed level
    down to level 0; the first failure ends the attribute's scan, since every
    more specific level fails too (Figure 3: "else select attribute
    a_{m+1}"). An attribute that fails at its highest allowed level is
    withheld: it takes no part in the search and is released at its root.

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
    suppression : float
        Fraction of records that may be suppressed (as in the search).
    max_levels : dict of str to int, optional
        The most general level the user accepts for an attribute (by default
        its root). Section 5.2 of the paper keeps the "any" level out of the
        hierarchies shown; capping an attribute below its root makes its
        withholding possible, exactly as the paper's pre-pruning removes an
        attribute that fails at its most general level.
    respect_boundaries : bool
        Test capped recodings and stop every attribute at its boundary level.

    Returns
    -------
    PrePruning

    Examples
    --------
    >>> import kanon_graph as kg
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> data.names
    ['gender', 'age', 'zip']
    >>> p = prepruning(data, kg.privacy.PrivacyModel(k=3), max_levels={"zip": 0})
    >>> p.lowest, p.highest, p.withheld, p.n_strings
    ((0, 2, 2), (1, 3, 2), ('zip',), 4)
    """
    caps = [min(c, b) for c, b in zip(_caps(data, max_levels),
                                      boundary_levels(data, respect_boundaries))]
    binding = binding_boundaries(data) if respect_boundaries else {}
    budget = suppression_budget(suppression, data.records)
    model = _subset_model(model, budget)
    lowest, highest, withheld, tests = [], [], [], 0
    for attr, cap in zip(data.attributes, caps):
        low = None
        for level in range(cap, -1, -1):
            tests += 1
            if not _passes(attr, level, data, model, budget, respect_boundaries):
                break
            low = level
        if low is None and attr.name in binding:
            failing = _failing_alone(attr, cap, data, model)
            hint = suppression_hint(failing, data.records)
            raise ValueError(
                f"pre-pruning: the privacy model cannot be reached within the generalization "
                f"boundaries of {attr.name!r} (values stop at {magval_stops(attr)}): on its own "
                f"at level {cap} it leaves {failing} records failing, more than the {budget} "
                f"that may be suppressed, and withholding it at its root would go past its "
                f"MAGVals; allow suppression >= {hint}, or relax "
                f"the boundaries")
        if low is None:
            withheld.append(attr.name)
            lowest.append(attr.height)
            highest.append(attr.height)
        else:
            lowest.append(low)
            highest.append(cap)
    return PrePruning(tuple(data.names), tuple(lowest), tuple(highest), tuple(withheld), tests)
