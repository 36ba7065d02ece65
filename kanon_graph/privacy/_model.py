"""The privacy model a release must satisfy: k, and optionally l and t.

:class:`PrivacyModel` is what algorithms receive: ``model.failing(class_of)``
tells which classes break any criterion, so an algorithm that honours it
(Datafly, the lattice searches) satisfies l-diversity and t-closeness as
readily as k-anonymity. Every criterion here is monotone under
generalization: merging two classes that satisfy it gives a class that
satisfies it (for t-closeness this holds for the EMD; Li et al. 2007).

The *check* of a node with a suppression budget ("the records of the
failing classes fit the budget") is monotone only for k and distinct l: a
record failing them at a node fails them at every more specific node. For
entropy / recursive l and t it is not (suppressing the failing classes can
leave a more specific release that passes where a more general one fails),
so :meth:`PrivacyModel.is_monotone` tells the lattice searches, per budget,
whether they may spread a check's outcome through the lattice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..exceptions import SchemaError
from . import _measures as m

__all__ = ["PrivacyModel", "Verification", "DIVERSITY_KINDS"]

DIVERSITY_KINDS = ("distinct", "entropy", "recursive")


@dataclass(frozen=True)
class PrivacyModel:
    """k-anonymity plus optional l-diversity and t-closeness.

    Parameters
    ----------
    k : int
    l : float, optional
        Required diversity of the sensitive attribute in every class.
    diversity : {"distinct", "entropy", "recursive"}
    c : float
        The constant of recursive (c, l)-diversity.
    t : float, optional
        Largest allowed EMD between a class's distribution and that of the
        released (not suppressed) records.
    sensitive : str, optional
        The sensitive attribute l and t apply to (the schema's first
        sensitive column by default).
    missing : int, optional
        The code of a missing sensitive value (``missing="keep"``), set by
        :meth:`bind` from ``data.sensitive_missing``. A record holding it
        counts toward k but is no value: l counts the known values only
        (a class without one has l 0), and t compares the known values of
        a class with those of every released record (a class without one
        has nothing to compare and counts as EMD 1).
    """

    k: int
    l: float | None = None
    diversity: str = "distinct"
    c: float = 1.0
    t: float | None = None
    sensitive: str | None = None
    missing: int | None = None

    monotone = True

    def is_monotone(self, budget=0):
        """Whether the check of a node with ``budget`` suppressed records is monotone.

        True when a node that passes (its failing classes hold at most
        ``budget`` records) makes every more general node pass, and a node
        that fails makes every more specific node fail, so a search may
        spread a check both ways (ARX's predictive tagging). Without a
        budget every criterion here is monotone. With one, k and distinct l
        stay monotone (a class's size and distinct count only grow when it
        merges, so the failing records only shrink), entropy / recursive l
        and t do not.

        Parameters
        ----------
        budget : int
            Records that may be suppressed.

        Examples
        --------
        >>> PrivacyModel(5, l=2).is_monotone(10), PrivacyModel(5, t=0.2).is_monotone(10)
        (True, False)
        >>> PrivacyModel(5, l=2, diversity="entropy").is_monotone(0)
        True
        """
        if not self.monotone:
            return False
        if int(budget) == 0:
            return True
        return self.superset_closed

    @property
    def superset_closed(self):
        """Whether every class containing a class that satisfies the model satisfies it too.

        True for k-anonymity and distinct l-diversity: a class's size and its
        number of distinct sensitive values only grow when records join it.
        False for entropy and recursive (c, l)-diversity and t-closeness:
        their measures read the proportions of the values, and a class that
        satisfies them can take in records that break them (the union of two
        classes that *both* satisfy them still does: Machanavajjhala et al.
        2007, section 4; Li, Li & Venkatasubramanian 2007, section 4). A
        search may spread "releases too few records" to more specific nodes
        only with a superset-closed model (see :meth:`relaxation`).

        Examples
        --------
        >>> PrivacyModel(5, l=2).superset_closed, PrivacyModel(5, t=0.2).superset_closed
        (True, False)
        """
        return self.t is None and (self.l is None or self.diversity == "distinct")

    def relaxation(self):
        """The strongest superset-closed model this one implies.

        Every class satisfying this model satisfies the relaxation: itself
        when :attr:`superset_closed`; k with distinct ``ceil(l)``-diversity
        for entropy and recursive (c, l)-diversity (``exp(entropy)`` is at
        most the number of distinct values, and ``r_1 < c (r_l + ... + r_m)``
        needs ``l`` values; Machanavajjhala et al. 2007, Definitions 4.1 and
        4.3); k alone for t-closeness. The records a node releases under the
        relaxation bound those it releases under the model.

        Examples
        --------
        >>> PrivacyModel(5, l=2.5, diversity="entropy").relaxation().l
        3
        >>> PrivacyModel(5, t=0.2, sensitive="s").relaxation()
        PrivacyModel(k=5, l=None, diversity='distinct', c=1.0, t=None, sensitive='s', missing=None)
        """
        if self.superset_closed:
            return self
        l = None if self.l is None else math.ceil(self.l - 1e-9)
        return PrivacyModel(self.k, l, "distinct", 1.0, None, self.sensitive, self.missing)

    @property
    def needs_whole_table(self):
        """Whether a class is judged against the whole table (t-closeness), not alone.

        Such a model cannot be checked inside a part of the table (a shard)
        without the whole table's distribution."""
        return self.t is not None

    @property
    def needs_sensitive(self):
        return self.l is not None or self.t is not None

    def bind(self, data):
        """Check the model against an encoded table and fill in ``sensitive``."""
        if not self.needs_sensitive:
            return self
        sensitive = self.sensitive
        if sensitive is None:
            if not data.schema.sensitive:
                raise SchemaError(
                    "l-diversity / t-closeness need a sensitive attribute: list one in "
                    "Schema(sensitive=[...])"
                )
            sensitive = data.schema.sensitive[0]
        if sensitive not in data.sensitive:
            raise SchemaError(
                f"The 'sensitive' parameter names {sensitive!r}, which is not a sensitive "
                f"column of the schema {list(data.schema.sensitive)}"
            )
        missing = (getattr(data, "sensitive_missing", None) or {}).get(sensitive)
        return PrivacyModel(self.k, self.l, self.diversity, self.c, self.t, sensitive, missing)

    def _missing(self, data):
        """The code of a missing sensitive value: bound, else the table's (None: none)."""
        if self.missing is not None:
            return self.missing
        return (getattr(data, "sensitive_missing", None) or {}).get(self.sensitive)

    def failing(self, class_of, data, n_classes=None, *, reference=None):
        """Boolean per class: does the class break any criterion?

        t is measured against the records with ``class_of >= 0``, or against
        ``reference`` (sensitive codes of the released records) when given.
        """
        class_of = np.asarray(class_of, dtype=np.int64)
        if n_classes is None:
            n_classes = int(class_of.max()) + 1 if class_of.size and class_of.max() >= 0 else 0
        weights = getattr(data, "weights", None)
        bad = m.class_sizes(class_of, n_classes, weights) < self.k
        if self.needs_sensitive:
            values = data.sensitive[self.sensitive]
            known = m.known_only(class_of, values, self._missing(data))
            if self.l is not None:
                bad |= self._diversity(known, values, n_classes, weights) < self.l
            if self.t is not None:
                bad |= self._closeness(class_of, known, values, data, n_classes,
                                       reference) > self.t + 1e-12
        return bad

    def suppressed_classes(self, class_of, data, n_classes=None):
        """Boolean per class: the classes whose records a release suppresses.

        Every class that fails is suppressed. k and l are properties of a
        class alone, but t compares a class with the *released* records, so
        suppressing a class changes the reference distribution and can make
        another class fail: this repeats, suppressing the newly failing
        classes, until every class left passes (at most one round per
        class; without t one round). Decision and check agree: the records
        left released are exactly a release that :meth:`verify` passes.

        Parameters
        ----------
        class_of : array of int
            Class of every record (``-1``: already suppressed).
        data : EncodedTable
        n_classes : int, optional

        Returns
        -------
        ndarray of bool, shape (n_classes,)
        """
        class_of = np.asarray(class_of, dtype=np.int64)
        if n_classes is None:
            n_classes = int(class_of.max()) + 1 if class_of.size and class_of.max() >= 0 else 0
        out = np.asarray(self.failing(class_of, data, n_classes), dtype=bool)
        if self.t is None or not out.any():
            return out
        while True:
            left = np.where(class_of >= 0, class_of, n_classes)
            left = np.where(np.append(out, True)[left], -1, class_of)
            more = np.asarray(self.failing(left, data, n_classes), dtype=bool) & ~out
            more &= np.bincount(left[left >= 0], minlength=n_classes) > 0
            if not more.any():
                return out
            out |= more

    def _diversity(self, class_of, values, n_classes, weights=None):
        if self.diversity == "distinct":
            return m.distinct_values(class_of, values, n_classes)
        if self.diversity == "entropy":
            return m.entropy_l(class_of, values, n_classes, weights) + 1e-9
        return m.recursive_l(class_of, values, self.c, n_classes, weights)

    def _ordered(self, data):
        """Whether t takes the ordered distance: the sensitive column is numeric or a date.

        The kind the encoder decided (``data.sensitive_kinds``): a table of
        counted tuples has no columns to infer it from again.
        """
        kinds = getattr(data, "sensitive_kinds", None) or {}
        kind = kinds.get(self.sensitive)
        if kind is None:       # a hand-made view: one rule for every column's kind
            kind = data.schema.kind(self.sensitive, data.table)
        return kind in ("numeric", "date")

    def t_distance(self, data):
        """The ground distance t measures with: ``"ordered"`` (a numeric or date
        sensitive column: values by their order) or ``"equal"`` (categories: every
        two values one apart); ``None`` without t."""
        if self.t is None or self.sensitive is None:
            return None
        return "ordered" if self._ordered(data) else "equal"

    def _closeness(self, class_of, known, values, data, n_classes, reference=None):
        """EMD of each class's known values to those of the released records.

        ``known`` is ``class_of`` without the records of a missing value; a
        class of records that holds no known value counts as 1, the largest
        distance (it cannot be compared).
        """
        missing = self._missing(data)
        if reference is not None and missing is not None:
            reference = np.asarray(reference)[np.asarray(reference) != missing]
        weights = getattr(data, "weights", None)
        emd = m.emd_to_table(known, values, ordered=self._ordered(data), n_classes=n_classes,
                             reference=reference, weights=weights)
        if missing is None:
            return emd
        held = m.class_sizes(class_of, n_classes, weights) > 0
        return np.where(held & (m.class_sizes(known, n_classes, weights) == 0), 1.0, emd)

    def verify(self, class_of, data):
        """Measure every criterion on a release and say whether all hold."""
        class_of = np.asarray(class_of, dtype=np.int64)
        n_classes = int(class_of.max()) + 1 if class_of.size and class_of.max() >= 0 else 0
        weights = getattr(data, "weights", None)
        sizes = m.class_sizes(class_of, n_classes, weights)
        k_achieved = int(sizes.min()) if n_classes else 0
        l_achieved = t_achieved = None
        if self.needs_sensitive and n_classes:
            values = data.sensitive[self.sensitive]
            known = m.known_only(class_of, values, self._missing(data))
            if self.l is not None:
                l_achieved = float(self._diversity(known, values, n_classes, weights).min())
            if self.t is not None:
                t_achieved = float(self._closeness(class_of, known, values, data,
                                                   n_classes).max())
        counted = np.ones(len(class_of), dtype=np.int64) if weights is None else weights
        released = int(counted[class_of >= 0].sum())
        suppressed = int(counted[class_of < 0].sum())
        holds = (released == 0 or k_achieved >= self.k) \
            and (self.l is None or released == 0 or l_achieved >= self.l) \
            and (self.t is None or released == 0 or t_achieved <= self.t + 1e-12)
        return Verification(
            k=self.k, k_achieved=k_achieved, l=self.l, l_achieved=l_achieved,
            diversity=self.diversity if self.l is not None else None,
            t=self.t, t_achieved=t_achieved, released=released,
            suppressed=suppressed, classes=n_classes, holds=bool(holds),
            t_distance=self.t_distance(data),
            sensitive=self.sensitive if self.needs_sensitive else None)


@dataclass(frozen=True)
class Verification:
    """What a release was checked against, and what it achieved.

    ``k_achieved`` is the smallest class among released (not suppressed)
    records; ``l_achieved`` the smallest diversity; ``t_achieved`` the
    largest EMD, measured with the ground distance ``t_distance``
    (``"ordered"`` or ``"equal"``), both on the column ``sensitive``.
    ``holds`` is true when every requested criterion holds.
    """

    k: int
    k_achieved: int
    l: float | None
    l_achieved: float | None
    diversity: str | None
    t: float | None
    t_achieved: float | None
    released: int
    suppressed: int
    classes: int
    holds: bool
    t_distance: str | None = None
    sensitive: str | None = None

    def describe(self):
        parts = [f"k={self.k} (smallest class {self.k_achieved})"]
        # l_achieved / t_achieved are None when no record is released
        if self.l is not None:
            achieved = "none released" if self.l_achieved is None else f"{self.l_achieved:g}"
            parts.append(f"{self.diversity} l={self.l:g} (achieved {achieved})")
        if self.t is not None:
            largest = "none released" if self.t_achieved is None else f"{self.t_achieved:.4f}"
            how = f"{self.t_distance} distance, " if self.t_distance else ""
            parts.append(f"t={self.t:g} ({how}largest EMD {largest})")
        parts.append(f"{self.suppressed} suppressed")
        return ("holds: " if self.holds else "FAILS: ") + ", ".join(parts)
