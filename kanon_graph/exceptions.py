"""The exceptions kanon_graph raises for user mistakes and broken guarantees.

Every error a user can trigger with bad input is a subclass of ``ValueError``
(so ``except ValueError`` keeps working) and carries a one-line message naming
the parameter, attribute, file, line or value at fault.
"""

__all__ = ["HierarchyError", "HierarchyWarning", "InferenceWarning", "SchemaError", "DataError",
           "PrivacyError"]


class HierarchyError(ValueError):
    """A hierarchy file or mapping is malformed, or a value is not in it."""


class HierarchyWarning(UserWarning):
    """A hierarchy works but would publish something untrue, e.g. a range label
    (``35-39``) over a value outside it (40)."""


class InferenceWarning(UserWarning):
    """A column's kind was inferred from its cells in a way that changes the
    release: ISO date text taken as a date, digit codes with leading zeros
    generalized by masking. Declaring the kind (``Schema(dates=...)``,
    ``Schema(categorical=...)``) silences it."""


class SchemaError(ValueError):
    """A schema does not fit the table it is applied to."""


class DataError(ValueError):
    """The table itself is unusable: empty, missing values, wrong types."""


class PrivacyError(RuntimeError):
    """An anonymization's own output failed its privacy verification.

    This is never a user mistake: it means an algorithm broke its promise,
    and the release must not be published.
    """
