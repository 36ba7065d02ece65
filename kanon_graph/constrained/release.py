"""The sensitivity-weight release decision of paper 002 (sections 2.4 and 3.1-3.2).

Each attribute carries a sensitivity weight set by the data owner, who also
sets a threshold. A request names the attributes wanted. If their total
weight is at most the threshold, the requested columns are released as they
are; above it, the release is anonymized: identifier attributes are
suppressed (removed), and the quasi-identifiers are generalized within their
boundaries in ascending weight (:func:`~kanon_graph.constrained.boundaries`).
Sensitive attributes carry no weight and are never generalized.

This library never releases an identifier column, even under the threshold:
the paper gives identifiers a weight equal to the threshold so that they are
"suppressed first", and a request for an identifier alone would otherwise
reach the data miner untouched. Such columns are withheld and listed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..pipeline.run import Options, run_pipeline
from .._progress import reporter
from ..exceptions import SchemaError
from ..privacy import k_anonymity
from ..schema import Schema
from .boundaries import generalization_order

__all__ = ["ReleaseDecision", "SensitivityRelease", "release_decision", "sensitivity_release"]


@dataclass(frozen=True)
class ReleaseDecision:
    """What the data owner's rule decides for one request.

    Attributes
    ----------
    request : tuple of str
    total_weight : float
        Sum of the requested attributes' weights.
    threshold : float
    anonymize : bool
        Whether the total weight exceeds the threshold.
    withheld : tuple of str
        Requested identifier columns, which are never released.
    order : list of str
        The requested quasi-identifiers in the order they would be generalized.
    """

    request: tuple
    total_weight: float
    threshold: float
    anonymize: bool
    withheld: tuple
    order: list


@dataclass(frozen=True)
class SensitivityRelease:
    """The released table, the decision behind it, and the anonymization result if any.

    ``k_achieved`` is measured on ``table`` in both cases; it is guaranteed
    to be at least ``k`` only when ``decision.anonymize`` is true.
    """

    table: pd.DataFrame
    decision: ReleaseDecision
    result: object
    k_achieved: int


def _number(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or value < 0:
        raise ValueError(f"{what} must be a number >= 0. Got {value!r}.")
    return float(value)


def release_decision(schema, request, weights, threshold):
    """Apply the threshold rule to a request.

    Parameters
    ----------
    schema : Schema
    request : list of str
        The columns the client asks for.
    weights : dict
        Sensitivity weight per column; every requested quasi-identifier and
        identifier needs one, sensitive columns must have none (or 0).
    threshold : float

    Examples
    --------
    >>> import kanon_graph as kg
    >>> schema = kg.Schema(quasi_identifiers=["sex", "age"], identifiers=["name"],
    ...                    sensitive=["salary"])
    >>> w = {"name": 6, "sex": 2, "age": 5}
    >>> release_decision(schema, ["sex", "salary"], w, 6).anonymize
    False
    >>> d = release_decision(schema, ["name", "age", "sex", "salary"], w, 6)
    >>> d.anonymize, d.total_weight, d.withheld, d.order
    (True, 13.0, ('name',), ['sex', 'age'])
    """
    threshold = _number(threshold, "The 'threshold' parameter of release_decision")
    request = tuple(str(c) for c in request)
    if not request:
        raise ValueError("The 'request' parameter of release_decision must name at least "
                         "one column.")
    weights = dict(weights or {})
    for column in schema.sensitive:
        if weights.get(column, 0) != 0:
            raise SchemaError(f"Sensitive attribute {column!r} carries no weight in this "
                              f"model (paper 002, section 3.2); got {weights[column]!r}.")
    needs = [c for c in request if schema.role(c) in ("quasi-identifier", "identifier")]
    missing = [c for c in needs if c not in weights]
    if missing:
        raise SchemaError(f"No sensitivity weight given for requested column(s) {missing}.")
    total = sum(_number(weights.get(c, 0), f"The weight of {c!r}") for c in request)
    qis = [c for c in schema.quasi_identifiers if c in request]
    return ReleaseDecision(request=request, total_weight=total, threshold=threshold,
                           anonymize=total > threshold,
                           withheld=tuple(c for c in request if c in schema.identifiers),
                           order=generalization_order(qis, {c: weights[c] for c in qis}))


def sensitivity_release(table, schema, request, *, weights, threshold, k, l=None,
                        diversity="distinct", sensitive=None, suppression=None,
                        respect_boundaries=True):
    """Answer a request under the sensitivity-weight rule of paper 002.

    Under the threshold the requested columns (identifiers withheld) are
    returned as they are. Above it they are anonymized with the
    ``"boundaries"`` algorithm, in ascending weight, verified for ``k`` (and
    ``l`` when given) before they are returned.

    Returns
    -------
    SensitivityRelease
    """
    decision = release_decision(schema, request, weights, threshold)
    missing = [c for c in decision.request if c not in table.columns]
    if missing:
        raise SchemaError(f"sensitivity_release: requested column(s) {missing} are not in "
                          f"the table")
    columns = [c for c in decision.request if c not in decision.withheld]
    qis = [c for c in schema.quasi_identifiers if c in columns]
    if not decision.anonymize or not qis:
        out = table[columns].copy()
        k_now = k_anonymity(out, qis) if qis else len(out)
        return SensitivityRelease(out, decision, None, k_now)
    sub = Schema(quasi_identifiers=qis,
                 sensitive=[c for c in schema.sensitive if c in columns],
                 insensitive=[c for c in columns if schema.role(c) == "insensitive"],
                 hierarchies={c: h for c, h in schema.hierarchies.items() if c in qis},
                 numeric=[c for c in schema.numeric if c in columns],
                 categorical=[c for c in schema.categorical if c in columns])
    # the steps of kanon_graph.anonymize (kanon_graph.pipeline.run), with the "boundaries"
    # algorithm: verified from the released cells before it is returned
    asked = Options(k, algorithm="boundaries", l=l, diversity=diversity, sensitive=sensitive,
                    suppression=suppression, respect_boundaries=respect_boundaries,
                    extra={"weights": {c: weights[c] for c in qis}})
    result = run_pipeline(table[columns], sub, asked,
                          progress=reporter(None, "sensitivity_release"))
    return SensitivityRelease(result.table, decision, result, result.verification.k_achieved)
