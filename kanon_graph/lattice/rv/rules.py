"""Data-constraint rules of the research value (Morton et al. 2012, section 4, Table 1).

A rule says that two sets of original values must never share a group:
``"do not mix White and Hispanic"`` (categorical), a boundary ``"20|21"`` or a
range ``"12-18"`` (numeric). The research value of a level is scaled by the
importance share of the rules it keeps (:func:`rule_ratio`).

References
----------
.. [004] Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
   anonymization method", Transactions on Data Privacy 5 (2012), section 4.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

__all__ = ["Rule", "rule_ratio"]

_NUMBER = r"\s*(-?\d+(?:\.\d+)?)\s*"


def _share(kept, total):
    return 1.0 if total <= 0 else float(kept) / float(total)


@dataclass(frozen=True)
class Rule:
    """A data-constraint rule: the values in ``first`` and in ``second`` never share a group.

    Build one with :meth:`do_not_mix` (categorical, Table 1), :meth:`boundary`
    (numeric ``"20|21"``) or :meth:`range` (numeric ``"12-18"``), or let
    :meth:`parse` read the short forms ``("White", "Black", 20)``,
    ``("20|21", 5)`` and ``("12-18", 5)``.

    A rule is kept at a level when no node of that level has leaves from
    both sides; since generalization only merges groups, a rule broken at a
    level stays broken above it.
    """

    kind: str
    first: tuple
    second: tuple
    importance: float

    @classmethod
    def do_not_mix(cls, a, b, importance):
        """Values (or hierarchy nodes) ``a`` and ``b`` must stay in different groups."""
        def side(v):
            return tuple(v) if isinstance(v, (list, tuple, set, frozenset)) else (v,)
        return cls("mix", side(a), side(b), float(importance))

    @classmethod
    def boundary(cls, below, above, importance):
        """Numeric values ``<= below`` and ``>= above`` must stay in different groups."""
        return cls("boundary", (float(below),), (float(above),), float(importance))

    @classmethod
    def range(cls, lo, hi, importance):
        """Numeric values in ``[lo, hi]`` must not share a group with values outside."""
        return cls("range", (float(lo),), (float(hi),), float(importance))

    @classmethod
    def parse(cls, spec):
        """A rule from ``Rule`` / ``(a, b, importance)`` / ``("20|21", imp)`` / ``("12-18", imp)``."""
        if isinstance(spec, Rule):
            return spec
        if not isinstance(spec, (tuple, list)) or len(spec) not in (2, 3):
            raise ValueError(f"A rule must be a kg.lattice.Rule, (a, b, importance), "
                             f"('20|21', importance) or ('12-18', importance). Got {spec!r}.")
        if len(spec) == 3:
            return cls.do_not_mix(*spec)
        text, importance = spec
        m = re.fullmatch(_NUMBER + r"\|" + _NUMBER, str(text))
        if m:
            return cls.boundary(float(m.group(1)), float(m.group(2)), importance)
        m = re.fullmatch(_NUMBER + r"-" + _NUMBER, str(text))
        if m:
            return cls.range(float(m.group(1)), float(m.group(2)), importance)
        raise ValueError(f"A numeric rule must read 'a|b' (boundary) or 'lo-hi' (range). "
                         f"Got {text!r}.")

    def sides(self, hierarchy):
        """Boolean masks over the hierarchy's leaves: the two sides of the rule."""
        if self.kind == "mix":
            return (self._leaves(hierarchy, self.first), self._leaves(hierarchy, self.second))
        values = hierarchy.leaf_values
        if values is None:
            raise ValueError(f"the {self.kind} rule {self.describe()!r} needs numeric leaves, but "
                             f"the hierarchy of {hierarchy.name!r} has text leaves")
        lo, hi = self.first[0], self.second[0]
        if self.kind == "boundary":
            return values <= lo, values >= hi
        inside = (values >= lo) & (values <= hi)
        return inside, ~inside

    @staticmethod
    def _leaves(hierarchy, labels):
        mask = np.zeros(hierarchy.n_leaves, dtype=bool)
        for label in labels:
            try:
                node = hierarchy.node(label)
            except Exception:
                raise ValueError(f"rule value {label!r} is not a node of the hierarchy of "
                                 f"{hierarchy.name!r}") from None
            mask |= hierarchy.level_map[node.level] == node.index
        return mask

    def kept(self, hierarchy, capped=False):
        """Boolean per level 0..height: is the rule kept at that level?

        With ``capped`` the level is a capped recoding (values stop at their
        MAGVals, :meth:`Hierarchy.capped_map`).
        """
        a, b = self.sides(hierarchy)
        if not a.any() or not b.any():
            raise ValueError(f"rule {self.describe()!r} has an empty side in the hierarchy of "
                             f"{hierarchy.name!r}")
        maps = ([hierarchy.capped_map(l) for l in range(hierarchy.height + 1)]
                if capped and hierarchy.has_magvals else hierarchy.level_map)
        out = np.array([np.intersect1d(m[a], m[b]).size == 0 for m in maps])
        if not out[0]:
            raise ValueError(f"rule {self.describe()!r} is broken by the original values of "
                             f"{hierarchy.name!r} (its two sides overlap)")
        return out

    def describe(self):
        if self.kind == "mix":
            return f"do not mix {'/'.join(map(str, self.first))} and " \
                   f"{'/'.join(map(str, self.second))}"
        if self.kind == "boundary":
            return f"{self.first[0]:g}|{self.second[0]:g}"
        return f"{self.first[0]:g}-{self.second[0]:g}"


def rule_ratio(rules, hierarchy, level):
    """``sum DR_k / sum DR_0``: the importance share of the rules kept at ``level``.

    Examples
    --------
    Table 1 of Morton et al., at a level that groups Hispanic with Black:

    >>> import kanon_graph as kg
    >>> race = kg.Hierarchy.from_rows([["White", "White", "*"], ["Black", "Other", "*"],
    ...                                ["Hispanic", "Other", "*"], ["Asian", "Asian", "*"]])
    >>> rules = [("White", "Hispanic", 5), ("White", "Black", 20),
    ...          ("Hispanic", "Black", 10), ("Hispanic", "Asian", 5)]
    >>> rule_ratio(rules, race, 1)
    0.75
    """
    rules = [Rule.parse(r) for r in rules]
    total = sum(r.importance for r in rules)
    kept = sum(r.importance for r in rules if r.kept(hierarchy)[level])
    return _share(kept, total)
