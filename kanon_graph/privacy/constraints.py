"""Constraint violations: values released beyond their MAGVal.

Hussien, Darwish & Hefny, "Utility-based anonymization using generalization
boundaries to protect sensitive attributes" (2016), Definitions 5-6. A
release satisfies *constrained* k-anonymity when it is k-anonymous and
:func:`constraint_violations` finds nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..exceptions import DataError

__all__ = ["Violation", "constraint_violations"]


@dataclass(frozen=True)
class Violation:
    """A released value generalized beyond its MAGVal (Hussien et al., Definition 5)."""

    row: object
    attribute: str
    value: str
    released: str
    magval: str


def constraint_violations(result, schema=None, original=None):
    """Every MAGVal violation of a release (Hussien et al. 2016, Definition 5).

    A release satisfies constrained k-anonymity (Definition 6) when it is
    k-anonymous and this list is empty.

    Parameters
    ----------
    result : AnonymizationResult or DataFrame
        A result of this library, or any released table (then ``original``
        is needed to know each record's original value).
    schema : Schema, optional
        Where the hierarchies (with their MAGVal marks) come from; defaults
        to the schema the result was made with.
    original : DataFrame, optional
        The original table, row-aligned with a released DataFrame.

    Returns
    -------
    list of Violation

    Notes
    -----
    Suppressed records (all quasi-identifiers ``*``) are not listed: their
    values are withheld, not generalized, and ``result.suppressed`` counts
    them. A single ``*`` cell elsewhere counts as the hierarchy's root.
    """
    if hasattr(result, "release"):     # an AnonymizationResult (not imported: no circle)
        schema = schema or result.release.data.schema
        released = result.table
        source = result.release.data.table.set_index(released.index)
        suppressed = result.release.class_of < 0
    else:
        if original is None or schema is None:
            raise ValueError("constraint_violations of a DataFrame needs the schema and the "
                             "original table")
        released, source = result, original
        if len(released) != len(source):
            raise DataError(f"constraint_violations: the released table has {len(released)} "
                            f"rows but the original has {len(source)}")
        qis = list(schema.quasi_identifiers)
        suppressed = (released[qis].astype(str) == "*").all(axis=1).to_numpy()
    violations = []
    kept = ~suppressed
    for column in schema.quasi_identifiers:
        h = schema.hierarchy(column)
        if h is None:
            continue
        cache = {}
        for row, value, out in zip(released.index[kept], source[column].to_numpy()[kept],
                                   released[column].to_numpy()[kept]):
            shown = out
            if out == "*" and not h.is_leaf("*"):
                out = h.root.name
            key = (value, out)
            if key not in cache:
                try:
                    cache[key] = h.allows(value, out)
                except ValueError:  # not a node of the hierarchy: not a permitted value
                    cache[key] = False
            if not cache[key]:
                violations.append(Violation(row, column, str(h._normalize(value)), str(shown),
                                            h.magval(value)))
    return violations
