"""Pattern preservation: do the rules a tree finds on the raw data survive the release?

The evaluation of Morton, Mahoui, Gibson & Yechuri (2012), section 6.2.2
and Figures 6-9: grow a recursive-partitioning (CART) tree for a target column on
the original table and on the released one, and compare their rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._features import FeatureSpace, prepare, require_sklearn, split_rows

__all__ = ["Condition", "PatternUtility", "Rule", "pattern_utility"]


@dataclass(frozen=True)
class Condition:
    """One test on a rule's path: ``column <= threshold`` or ``column > threshold``."""

    attribute: str | None        # None for the ``suppressed`` column
    column: str                  # ``age.lo``, ``age.hi``, ``sex=F`` or ``suppressed``
    op: str                      # "<=" or ">"
    threshold: float
    text: str

    def __str__(self):
        return self.text


@dataclass(frozen=True)
class Rule:
    """A leaf of a tree: its path, training records and class shares."""

    leaf: int
    conditions: tuple
    records: int
    shares: dict
    majority: str

    @property
    def share(self):
        """The share of the majority class."""
        return self.shares[self.majority]

    def __str__(self):
        path = " and ".join(map(str, self.conditions)) or "(all records)"
        return f"{path} -> {self.majority} ({self.share:.0%} of {self.records})"


@dataclass(frozen=True)
class PatternUtility:
    """What :func:`pattern_utility` found.

    Attributes
    ----------
    target : str
    original_rules, released_rules : list of Rule
        Every leaf of each tree, most training records first.
    top : list of Rule
        The original tree's ``top`` rules by records.
    survives : list of bool
        Per rule of ``top``, whether it survives in the released tree.
    matches : list of Rule or None
        Per rule of ``top``, the released leaf it survives in.
    accuracy : dict
        Held-out accuracy of the ``original`` and the ``released`` tree.
    tolerance : float
    """

    target: str
    original_rules: list
    released_rules: list
    top: list
    survives: list
    matches: list
    accuracy: dict
    tolerance: float
    columns: list = field(repr=False)
    trees: dict = field(repr=False)

    @property
    def survival_rate(self):
        """The share of the top rules that survive."""
        return float(np.mean(self.survives)) if self.survives else 1.0

    def to_frame(self):
        """One row per leaf of both trees (tree, rank, rule, records, shares, survival)."""
        rows = []
        for tree, rules in (("original", self.original_rules), ("released", self.released_rules)):
            for rank, rule in enumerate(rules, 1):
                row = {"tree": tree, "rank": rank, "rule": " and ".join(map(str, rule.conditions)),
                       "records": rule.records, "majority": rule.majority,
                       "share": rule.share, "survives": None, "matched_leaf": None}
                if tree == "original" and rank <= len(self.top):
                    row["survives"] = self.survives[rank - 1]
                    match = self.matches[rank - 1]
                    row["matched_leaf"] = None if match is None else match.leaf
                row.update({f"share[{c}]": s for c, s in rule.shares.items()})
                rows.append(row)
        return pd.DataFrame(rows)

    def __repr__(self):
        lines = [f"PatternUtility(target={self.target!r}: {sum(self.survives)} of "
                 f"{len(self.top)} top rules survive; held-out accuracy original "
                 f"{self.accuracy['original']:.3f}, released {self.accuracy['released']:.3f})"]
        for rule, ok in zip(self.top, self.survives):
            lines.append(f"  [{'survives' if ok else 'destroyed'}] {rule}")
        return "\n".join(lines)


def _rules(tree, space, classes, raw):
    """The leaves of a fitted tree as :class:`Rule` s, most records first."""
    t = tree.tree_
    out = []

    def walk(node, path):
        if t.children_left[node] < 0:
            counts = t.value[node][0]
            shares = counts / counts.sum()
            best = int(np.argmax(shares))
            merged = {}
            for cond in path:                          # keep the tightest bound per test
                # on raw values A.lo = A.hi, so both columns bound the same value
                key = (cond.attribute if raw and cond.attribute else cond.column, cond.op)
                old = merged.get(key)
                if old is None or (cond.threshold < old.threshold) == (cond.op == "<="):
                    merged[key] = cond
            out.append(Rule(int(node), tuple(merged.values()), int(t.n_node_samples[node]),
                            {str(c): float(s) for c, s in zip(classes, shares)},
                            str(classes[best])))
            return
        f, thr = int(t.feature[node]), float(t.threshold[node])
        column, owner = space.columns[f], space.owner[f]
        for op, child in (("<=", t.children_left[node]), (">", t.children_right[node])):
            walk(child, path + [_condition(owner, column, op, thr, raw)])

    walk(0, [])
    return sorted(out, key=lambda r: (-r.records, r.leaf))


def _condition(owner, column, op, thr, raw):
    if owner is None or "=" in column:
        text = column if op == ">" else f"not {column}"
        return Condition(None if owner is None else owner.name, column, op, thr, text)
    shown = owner.name if raw else column
    return Condition(owner.name, column, op, thr, f"{shown} {owner.describe(op, thr)}")


def _survives(rule, leaf, space, tolerance):
    """Whether released ``leaf`` keeps original ``rule`` (see :func:`pattern_utility`)."""
    if leaf.majority != rule.majority or abs(leaf.share - rule.share) > tolerance:
        return False
    for cond in rule.conditions:
        ok = False
        for other in leaf.conditions:
            if other.op != cond.op or other.attribute != cond.attribute:
                continue
            if cond.attribute is None or "=" in cond.column:
                ok = other.column == cond.column
            else:
                reader = next(a for a in space.attributes if a.name == cond.attribute)
                a, b = reader.cut_range(other.column.rsplit(".", 1)[1], other.threshold)
                lo, hi = reader.interval_of(cond.threshold)
                ok = a <= hi and lo <= b
            if ok:
                break
        if not ok:
            return False
    return True


def pattern_utility(original, released, target, schema=None, *, top=5, tolerance=0.1,
                    max_depth=4, min_samples_leaf=0.01, test_size=0.3, seed=0):
    """Compare the rules of a CART tree grown on the original and on the released table.

    Both trees are scikit-learn ``DecisionTreeClassifier`` s (Gini,
    ``random_state=seed``) for ``target``, grown on the same seeded
    ``1 - test_size`` share of the original rows: the original tree on their
    raw values, the released tree on their released cells (encoded as in
    :mod:`kanon_graph.metrics._features`: numeric and hierarchy attributes as
    the bounds ``A.lo``, ``A.hi`` of their interval, value sets as one
    membership column per value, suppression as its own column).

    A top rule (a leaf of the original tree, the ``top`` largest by training
    records) **survives** when some leaf of the released tree

    1. predicts the same majority class, with a share within ``tolerance``
       of the original's, and
    2. matches every condition of the rule: for a condition ``A <= t`` (or
       ``A > t``), its path holds a condition on the same attribute, same
       direction, on ``A.lo`` or ``A.hi`` whose cut lies on the released
       interval holding ``t`` -- the cut's raw range (from the largest upper
       bound of the released cells it sends left to the smallest lower bound
       of those it sends right) meets the hull of the released cells that
       contain ``t`` (``[t, t]`` when none does). So a release that
       generalizes ages to ``[25-29]`` keeps a rule ``age <= 27.5`` when its
       tree cuts at 24/25 or at 29/30. A membership or ``suppressed``
       condition needs the same column and direction.

    Parameters
    ----------
    original : DataFrame
        The table before anonymization (holding ``target``).
    released : AnonymizationResult or DataFrame
        The release; a DataFrame must be row-aligned with ``original`` and
        is read back as :func:`~kanon_graph.evaluate` does (``schema`` then
        required).
    target : str
        The class column (not a quasi-identifier).
    schema : Schema, optional
    top : int
        How many of the original tree's largest rules to test.
    tolerance : float
        Largest difference of the majority class's share.
    max_depth : int
        4 by default: paper 004's trees (Figures 6-9) are 3-4 levels deep,
        and a rule of more than four tests is not one a reader compares.
    min_samples_leaf : int or float
        A leaf's fewest training records (a float is a share of them); 1 %
        by default so that every rule speaks for a visible group and no leaf
        isolates a single equivalence class.
    test_size : float
        Share of the original rows held out to score both trees; the released
        tree is scored on them mapped to the release's generalization (see
        :mod:`kanon_graph.metrics._features`).
    seed : int
        Seeds the split and both trees.

    Returns
    -------
    PatternUtility
        ``repr`` lists the top rules and their verdicts; ``to_frame()`` all
        leaves; :func:`kanon_graph.viz.pattern_trees_figure` draws both trees.

    Raises
    ------
    ImportError
        scikit-learn is missing (``pip install -e ".[ml]"``).
    ValueError
        ``target`` is not a column of ``original`` or is a quasi-identifier.

    References
    ----------
    Morton, S., Mahoui, M., Gibson, P. J. & Yechuri, S. (2012), "An enhanced
    utility-driven data anonymization method", section 6.2.2 and Figures 6-9
    (recursive partitioning on raw and anonymized Adult).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    >>> res = kg.anonymize(table, schema, k=1, algorithm="mst")
    >>> pu = kg.metrics.pattern_utility(table, res, "disease", min_samples_leaf=1)
    >>> pu.survives == [True] * len(pu.top)
    True
    """
    require_sklearn("pattern_utility")
    from sklearn.tree import DecisionTreeClassifier

    release, y = prepare(original, released, target, schema, "pattern_utility")
    space = FeatureSpace(release)
    train, test = split_rows(y, test_size, seed)
    trees, rules, accuracy = {}, {}, {}
    for name, fit_x, test_x in (("original", space.raw(train), space.raw(test)),
                                ("released", space.released(train), space.mapped(test))):
        tree = DecisionTreeClassifier(max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                                      random_state=seed).fit(fit_x, y[train])
        trees[name] = tree
        rules[name] = _rules(tree, space, tree.classes_, raw=name == "original")
        accuracy[name] = float(np.mean(tree.predict(test_x) == y[test])) if len(test) else 1.0
    chosen = rules["original"][:top]
    matches = []
    for rule in chosen:
        match = next((leaf for leaf in rules["released"]
                      if _survives(rule, leaf, space, tolerance)), None)
        matches.append(match)
    return PatternUtility(target, rules["original"], rules["released"], chosen,
                          [m is not None for m in matches], matches, accuracy, tolerance,
                          list(space.columns), trees)
