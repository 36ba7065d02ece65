"""Privacy checks and metrics of any released table, ours or another tool's.

:func:`evaluate` maps every released cell back to what it stands for -- a
node of the attribute's hierarchy (looked up by label), or for an attribute
without a hierarchy a range ``[lo-hi]`` / a value set ``{a,b}`` / a single
value, quoted where it could be misread (``{"a,b",c}``, ``"*"``:
:mod:`kanon_graph.recoding._value_labels`) -- rebuilds a :class:`~kanon_graph.recoding.Release` from them, and runs
the registered metrics and the privacy model on it. On a release made by
:func:`kanon_graph.anonymize` it gives back exactly ``result.metrics``.

Readings (a released table cannot say everything):

* a row whose quasi-identifiers are all ``*`` is a suppressed record, by
  definition (docs/privacy.md, "What each criterion is measured on");
  ``suppressed=`` may name more rows, never release an all-``*`` one;
* equivalence classes are the distinct released quasi-identifier tuples,
  numbered by first row;
* a label that occurs on several levels of a hierarchy (a value generalized
  to itself, as ``[80-100]`` on two levels of the Adult age hierarchy) is
  read at the lowest level at which every record of the attribute matches it
  when the attribute looks full-domain (one level fits every row), else at
  the lowest level whose node covers the whole class (the LCA of local
  recoding);
* a hierarchy-free numeric range stands for the distinct released values it
  contains; ``*`` alone stands for the whole column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..encoding import EncodedTable, encode
from ..exceptions import DataError
from ..recoding._release import Release, _hierarchy_release
from ._registry import compute_metrics
from ._released_cells import (aggregate_cells, column_text, free_cells, hierarchy_cells,
                              released_sensitive)

if TYPE_CHECKING:
    from ..schema import Schema

__all__ = ["Evaluation", "evaluate"]


@dataclass(frozen=True)
class Evaluation:
    """What :func:`evaluate` measured on a released table.

    Attributes
    ----------
    metrics : dict
        Every requested registered metric.
    verification : Verification
        k (and l, t when asked) required and achieved.
    risk : dict
        Prosecutor re-identification risk: ``highest`` (1 / smallest class)
        and ``average`` (classes / released records).
    levels : dict or None
        The level of every quasi-identifier when the release is full-domain
        (every attribute has a hierarchy and one level fits every row).
    release : Release
        The rebuilt release (class of every record, per-class values).
    """

    metrics: dict
    verification: object
    risk: dict
    levels: dict | None
    release: Release = field(repr=False)

    @property
    def suppressed(self) -> int:
        """Records suppressed in the release."""
        return self.release.suppressed

    @property
    def dropped(self) -> int:
        """Rows of the original left out for a missing value (``missing="drop"``)."""
        data = cast(EncodedTable, self.release.data)
        return int(data.dropped)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary: metrics, verification, risk, classes, levels."""
        sizes = self.release.sizes
        return {
            "records": int(self.release.class_of.shape[0]),
            "released": int(sizes.sum()),
            "suppressed": self.suppressed,
            "dropped": self.dropped,
            "classes": {"count": int(len(sizes)),
                        "min": int(sizes.min()) if len(sizes) else None,
                        "max": int(sizes.max()) if len(sizes) else None,
                        "mean": float(sizes.mean()) if len(sizes) else None},
            "levels": self.levels,
            "risk": dict(self.risk),
            "verification": self.verification,
            "metrics": dict(self.metrics),
        }


def evaluate(original: pd.DataFrame, released: pd.DataFrame, schema: Schema, k: int = 1, *,
             l: float | None = None, diversity: str = "distinct", c: float = 1.0,
             t: float | None = None, sensitive: str | None = None,
             metrics: Sequence[str] | None = None,
             suppressed: npt.ArrayLike | None = None,
             target: str | None = None, missing: str = "error",
             aggregate: Mapping[str, str] | None = None) -> Evaluation:
    """Privacy and information loss of ``released``, a release of ``original``.

    Parameters
    ----------
    original : DataFrame
        The table before anonymization (a pandas DataFrame; :func:`kanon_graph.evaluate`
        also takes two Dask DataFrames, see :mod:`kanon_graph.scale.dask_evaluate`).
    released : DataFrame
        The released table, row-aligned with ``original`` (same number of
        rows, same order), with every quasi-identifier column. With
        ``missing="drop"``, row-aligned with the rows of ``original`` that
        have no missing value, as :func:`kanon_graph.anonymize` releases them.
    schema : Schema
        Quasi-identifiers, hierarchies and sensitive attributes.
    k : int
        The k to check (and the threshold of discernibility and CAVG).
    l, diversity, c, t, sensitive
        Optional l-diversity / t-closeness to check, as in
        :func:`kanon_graph.anonymize`. They are judged on the sensitive
        column of ``released`` (as published), never on the original's.
    metrics : list of str, optional
        Registered metrics to compute (default: all whose needs are met;
        the classification metrics only with a ``target``).
    suppressed : array of bool, optional
        Rows suppressed besides those whose quasi-identifiers are all
        ``*``, which are suppressed whatever this says (the file cannot
        tell a class generalized to ``*`` everywhere from suppressed rows).
    missing : {"error", "drop", "keep"}
        Rows of ``original`` with a missing quasi-identifier or sensitive
        value: an error (default), or left out as ``anonymize(...,
        missing="drop")`` leaves them out (their number is in
        ``evaluation.dropped``), or ``"keep"``: a missing cell is a value of
        its own, as ``anonymize(..., missing="keep")`` releases it.
    target : str, optional
        A class column of ``original`` (not a quasi-identifier); with it the
        metrics that need a target (``classification_accuracy``,
        ``classification_f1``; scikit-learn, ``pip install -e ".[ml]"``)
        are computed too.
    aggregate : dict of str to str, optional
        For a microaggregation (``algorithm="mdav"``): how each
        quasi-identifier was released (``"mean"``, ``"median"``,
        ``"mode"``; ``res.stats["aggregate"]``). Its cells are then read as
        class aggregates, each of which must lie within its class's values
        (or be one of them), and ``sse_sst`` is measured too.

    Returns
    -------
    Evaluation

    Raises
    ------
    DataError
        A released value is not a node of its hierarchy, cannot be read as a
        range or set, or does not cover the original value; the message
        names the attribute, the row and the value. With ``l`` or ``t``: the
        released table lacks the sensitive column, or has a missing cell in
        it (without ``missing="keep"``).

    References
    ----------
    The metrics are those of :mod:`kanon_graph.metrics` (NCP: Sarrafi Aghdam &
    Sonehara 2016, eq. 2-3; GCP and CAVG: Venkata Ramana & Valli Kumari 2013,
    eq. 7 and 9; ARX's Loss: Prasser & Kohlmayer 2015); prosecutor risk
    ``1/|E|`` as in ARX.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    >>> res = kg.anonymize(table, schema, k=3, algorithm="mst")
    >>> ev = kg.evaluate(table, res.table, schema, k=3)
    >>> ev.metrics == res.metrics, ev.verification.k_achieved >= 3
    (True, True)
    >>> ev.risk["highest"] <= 1 / 3
    True
    """
    from ..privacy.distance import warn_inferred_distance
    from ..privacy.parameters import privacy_model as _model

    data = encode(original, schema, missing=missing, where="evaluate")
    if not isinstance(released, pd.DataFrame):
        raise DataError(f"evaluate: the released table must be a pandas DataFrame, got "
                        f"{type(released).__name__}")
    if len(released) != data.n:
        left = (f" ({data.n} once the {data.dropped} with a missing value are dropped)"
                if data.dropped else "")
        hint = ("" if data.dropped or missing == "drop" else
                "; a release made with missing='drop' needs missing='drop' here too")
        if len(released) < data.n:
            hint += ("; a SafePub release published without its withheld rows "
                     "(withheld='drop', the default) is not row-aligned with its original: "
                     "write it with withheld='star' (--withheld star) to evaluate it")
        raise DataError(f"evaluate: the released table has {len(released)} rows but the "
                        f"original has {len(original)}{left}; they must be row-aligned{hint}")
    qis = list(schema.quasi_identifiers)
    absent = [q for q in qis if q not in released.columns]
    if absent:
        raise DataError(f"evaluate: quasi-identifier column(s) {absent} are not in the "
                        f"released table; it has columns {list(released.columns)}")
    model = _model(k, l, diversity, c, t, sensitive, data.n, "evaluate").bind(data)
    warn_inferred_distance(model, data, "evaluate")
    text = pd.DataFrame({q: column_text(released[q]) for q in qis})
    starred = (text == "*").all(axis=1).to_numpy(dtype=bool)
    given = starred if suppressed is None else np.asarray(suppressed, dtype=bool)
    if given.shape != (data.n,):
        raise ValueError(f"The 'suppressed' parameter of evaluate must be a boolean array of "
                         f"length {data.n}. Got shape {given.shape}.")
    kept = ~(given | starred)       # an all-'*' row is suppressed by definition
    rows = np.flatnonzero(kept)
    index = released.index.to_numpy()
    class_of = np.full(data.n, -1, dtype=np.int64)
    if rows.size:
        key, _ = pd.MultiIndex.from_frame(text.iloc[rows]).factorize()
        class_of[rows] = np.asarray(key, dtype=np.int64)   # by first appearance
    n_classes = int(class_of.max()) + 1 if rows.size else 0
    cls = class_of[rows]
    attributes: dict[str, Any] = {}
    levels: list[int | None] = []
    if aggregate is not None and sorted(aggregate) != sorted(qis):
        raise ValueError(f"The 'aggregate' parameter of evaluate must give every "
                         f"quasi-identifier {qis} its aggregate. Got {dict(aggregate)!r}.")
    for attr in data.attributes:
        labels = text[attr.name].to_numpy(dtype=object)[rows].astype(str)
        if aggregate is not None:
            attributes[attr.name] = aggregate_cells(attr, labels, rows, cls, n_classes, index,
                                                    aggregate[attr.name])
            levels.append(None)
        elif attr.hierarchy is not None:
            level, node, uniform = hierarchy_cells(attr, labels, rows, cls, n_classes, index)
            attributes[attr.name] = _hierarchy_release(attr, level, node)
            levels.append(uniform)
        else:
            attributes[attr.name] = free_cells(attr, labels, rows, cls, n_classes, index, kept)
            levels.append(None)
    sizes = np.bincount(cls, minlength=n_classes)
    full_domain = all(v is not None for v in levels)
    release = Release(data, class_of, sizes, attributes,
                      tuple(levels) if full_domain else None)
    if target is not None and (not isinstance(target, str) or target not in original.columns):
        raise ValueError(f"The 'target' parameter of evaluate must name a column of the "
                         f"original table. Got {target!r}; the columns are "
                         f"{list(original.columns)}.")
    values = compute_metrics(release, model.k, metrics, target=target)
    # every criterion is judged from the released cells: the classes above, and the
    # sensitive values of the released table (never the original's)
    judged = released_sensitive(data, released, model.sensitive) if model.needs_sensitive \
        else data
    verification = model.verify(class_of, judged)
    risk = {"highest": float(1.0 / sizes.min()) if n_classes else 0.0,
            "average": float(n_classes / sizes.sum()) if n_classes else 0.0}
    return Evaluation(values, verification, risk,
                      dict(zip(data.names, levels)) if full_domain else None, release)
