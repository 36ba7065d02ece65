"""From an algorithm's :class:`~kanon_graph.registry.Partition` to a checked result.

The facade (:func:`kanon_graph.anonymize`, :func:`kanon_graph.apply_levels`)
recodes what the algorithm returned (:func:`recode_release`, which refuses a
partition that loses records or names levels outside the hierarchies),
checks that every released value covers its record (:func:`check_cover`) and
measures the release into an :class:`~kanon_graph.result.AnonymizationResult`
(:func:`build_result`). :func:`suppress_top_classes` counts a class
released with every quasi-identifier ``*`` as suppressed (a record whose
quasi-identifiers are all ``*`` is suppressed by definition: the written file
cannot tell it from a suppressed one; docs/privacy.md, "What each criterion
is measured on"). :func:`check_release` is the last check before a release
is returned: the algorithm's classes, and the classes the reader of the
released table sees, must both hold every criterion, and the rows the
release counts as suppressed must be exactly its all-``*`` rows.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from .arguments import level_vector
from ..encoding import encode
from ..encoding.row_keys import _row_keys
from ..exceptions import PrivacyError
from ..privacy import PrivacyModel
from ..privacy._check import released_classes
from ..privacy.parameters import check_int
from ..metrics._collapsed import COLLAPSED, collapse_notes  # noqa: F401  (COLLAPSED re-exported)
from ..metrics._loss import arx_loss_per_attribute
from ..recoding import recode_aggregate, recode_levels, recode_partition
from ..recoding._release import SUPPRESSED
from ..result import AnonymizationResult

if TYPE_CHECKING:
    from ..encoding import EncodedTable
    from ..privacy._model import Verification
    from ..recoding._release import Release
    from ..registry import Partition
    from ..schema import Schema

__all__ = ["recode_release", "check_cover", "suppress_top_classes", "check_release",
           "level_labels", "build_result", "levels_result", "apply_levels_counted"]


def recode_release(data: EncodedTable, partition: Partition, algorithm: str) -> Release:
    """Recode ``data`` as ``partition`` says, refusing one that loses records or levels."""
    class_of = np.asarray(partition.class_of)
    if class_of.shape != (data.n,):
        raise PrivacyError(f"algorithm {algorithm!r} returned {class_of.shape} class labels for "
                           f"{data.n} records; every record must appear exactly once")
    if partition.levels is not None:
        levels = tuple(partition.levels)
        if len(levels) != len(data.attributes) or any(
                not 0 <= int(l) <= a.height for l, a in zip(levels, data.attributes)):
            raise PrivacyError(f"algorithm {algorithm!r} returned levels {levels}, not one "
                               f"level per quasi-identifier {data.names} within its height "
                               f"{data.heights}")
        suppress = np.asarray(partition.class_of) < 0
        release = recode_levels(data, partition.levels, suppress=suppress,
                                capped=partition.capped)
    elif partition.aggregate is not None:
        aggregate = dict(partition.aggregate)
        if sorted(aggregate) != sorted(data.names):
            raise PrivacyError(f"algorithm {algorithm!r} aggregates {sorted(aggregate)}, not "
                               f"every quasi-identifier {data.names}")
        release = recode_aggregate(data, partition.class_of, aggregate)
    else:
        release = recode_partition(data, partition.class_of)
    # safepub's withheld records, told apart before a class at the top joins them as suppressed
    return replace(release, withheld_mask=class_of < 0) if partition.withheld else release


def check_cover(release: Release) -> None:
    """Every record is in the release once, and every released value covers it."""
    data = cast("EncodedTable", release.data)
    if release.class_of.shape != (data.n,):
        raise PrivacyError(f"the release has {release.class_of.shape} class labels for "
                           f"{data.n} records")
    rows = np.flatnonzero(release.class_of >= 0)
    cls = release.class_of[rows]
    for attr in data.attributes:
        rel = release.attributes[attr.name]
        if rel.aggregated is not None:
            _check_aggregate(attr, rel, rows, cls)
            continue
        if rel.level is not None:
            ancestor = np.empty(len(rows), dtype=np.int64)
            for level in np.unique(rel.level):
                pick = rel.level[cls] == level
                ancestor[pick] = attr.hierarchy.level_map[level][attr.codes[rows[pick]]]
            bad = ancestor != rel.node[cls]
        elif rel.lo is not None:
            values = attr.values[rows]
            bad = (values < rel.lo[cls]) | (values > rel.hi[cls])
        else:
            continue
        if bad.any():
            row = int(rows[np.flatnonzero(bad)[0]])
            raise PrivacyError(f"released value of {attr.name!r} in row {row} does not cover "
                               f"the original value {attr.domain[attr.codes[row]]!r}")


def _check_aggregate(attr: Any, rel: Any, rows: npt.NDArray[np.int64],
                     cls: npt.NDArray[np.int64]) -> None:
    """A microaggregated attribute: each class's aggregate is one of its members' values
    (categorical) or lies within their range (numeric), and the range holds them all."""
    if attr.kind == "numeric":
        lo = np.full(len(rel.centre), np.inf)
        hi = np.full(len(rel.centre), -np.inf)
        np.minimum.at(lo, cls, attr.values[rows])
        np.maximum.at(hi, cls, attr.values[rows])
        bad = (rel.centre < lo) | (rel.centre > hi)
    else:
        held = np.zeros(len(rel.centre), dtype=bool)
        held[cls[attr.codes[rows] == rel.centre[cls]]] = True
        bad = ~held
    if bad.any():
        c = int(np.flatnonzero(bad)[0])
        raise PrivacyError(f"released {rel.aggregated} {rel.labels[c]!r} of {attr.name!r} is "
                           f"no {rel.aggregated} of its class's values")


def _top_classes(release: Release) -> npt.NDArray[np.bool_]:
    """Per class: is every quasi-identifier released as ``*`` (the text a suppressed row shows)?"""
    top = np.ones(release.n_classes, dtype=bool)
    for rel in release.attributes.values():
        top &= np.asarray(rel.labels, dtype=object) == SUPPRESSED
    return top


def suppress_top_classes(release: Release, model: PrivacyModel, data: EncodedTable) -> Release:
    """``release`` with every class whose quasi-identifiers are all ``*`` counted as suppressed.

    A record whose quasi-identifiers are all ``*`` is suppressed by
    definition, whether the algorithm suppressed it or generalized its class
    to the top: the released cells are the same, and the written file cannot
    tell them apart. Its records leave the classes (class ``-1``) and count
    in ``release.suppressed``; the other classes are renumbered in order.
    With t, the distribution of the released records (the reference of t)
    loses their sensitive values, so a class that now fails t is suppressed
    too, round after round, as the full-domain searches suppress
    (:meth:`~kanon_graph.privacy.PrivacyModel.suppressed_classes`). k and l
    are properties of each class alone and do not move. The suppression
    budget is checked on the count that results (:func:`kanon_graph.pipeline.run.verify_cells`).

    Parameters
    ----------
    release : Release
        A release whose classes hold the model (the caller verified them).
    model : PrivacyModel
    data : EncodedTable
        The table ``release`` recodes (rows, or counted tuples).

    Returns
    -------
    Release
        ``release`` itself when no class is all ``*``.
    """
    drop = _top_classes(release)
    if not drop.any():
        return release
    n_classes = release.n_classes
    class_of = release.class_of
    if model.t is not None:
        left = np.where(class_of >= 0, class_of, n_classes)
        left = np.where(np.append(drop, True)[left], -1, class_of)
        drop = drop | np.asarray(model.suppressed_classes(left, data, n_classes), dtype=bool)
    keep = ~drop
    renumber = np.append(np.where(keep, np.cumsum(keep) - 1, -1), -1)
    class_of = renumber[np.where(class_of >= 0, class_of, n_classes)]
    attributes = {name: replace(rel, **{
        f.name: getattr(rel, f.name)[keep] for f in fields(rel)
        if isinstance(getattr(rel, f.name), np.ndarray)
        and getattr(rel, f.name).shape[:1] == (n_classes,)})
        for name, rel in release.attributes.items()}
    out = replace(release, class_of=class_of.astype(np.int64), sizes=release.sizes[keep],
                  attributes=attributes)
    return replace(out, at_top=release.at_top + out.suppressed - release.suppressed)


def check_release(model: PrivacyModel, release: Release, table: pd.DataFrame,
                  verification: Verification, algorithm: str) -> Verification:
    """Refuse a release whose classes, or whose released cells, break the model.

    ``verification`` measured the algorithm's classes. The independent
    check reads ``table`` (the very table the user receives) as a reader
    does: a row whose quasi-identifiers are all ``*`` is suppressed, the
    others are grouped by their quasi-identifier cells, and k, l and t are
    measured on those groups (:func:`released_classes`).

    Returns
    -------
    Verification
        The independent one (what the released cells achieve).

    Raises
    ------
    PrivacyError
        When either fails, or when the rows the release counts as suppressed
        are not exactly its all-``*`` rows, or a withheld row (``safepub``)
        shows a cell that is not ``*``; the release is not returned.
    """
    data = cast("EncodedTable", release.data)
    qis = list(data.schema.quasi_identifiers)
    _, starred = _row_keys(table, qis)
    counted = release.class_of < 0
    if verification.holds and not np.array_equal(starred, counted):
        row = int(np.flatnonzero(starred != counted)[0])
        said = "counts as suppressed" if counted[row] else "releases"
        raise PrivacyError(f"algorithm {algorithm!r} produced a release that {said} row {row}, "
                           f"whose quasi-identifier cells are {'' if starred[row] else 'not '}"
                           f"all '*' (a record is suppressed exactly when they are); it is not "
                           f"returned")
    withheld = release.withheld_mask            # safepub's: '*' in every column, or refused
    if withheld is not None and withheld.any():
        said = table[withheld].astype(str) != SUPPRESSED
        if said.to_numpy().any():
            column = str(said.columns[said.to_numpy().any(axis=0)][0])
            raise PrivacyError(f"algorithm {algorithm!r} produced a release that withholds "
                               f"{int(withheld.sum())} records but shows their {column!r} "
                               f"cells; it is not returned")
    cells = released_classes(table, qis, ~starred)
    independent = model.verify(cells, data)
    if not verification.holds:
        raise PrivacyError(f"algorithm {algorithm!r} produced a release that fails its privacy "
                           f"check: {verification.describe()}; it is not returned")
    if not independent.holds:
        raise PrivacyError(f"algorithm {algorithm!r} produced a release that fails its privacy "
                           f"check counted on its released cells: {independent.describe()}; "
                           f"it is not returned")
    return independent




def collapsed_attributes(release: Release) -> tuple[list[str], list[str]]:
    """``(collapsed, all)``: the quasi-identifiers released as (almost) nothing, and every one."""
    per = arx_loss_per_attribute(release)
    return [a for a, v in per.items() if v >= COLLAPSED], list(per)


def warn_if_collapsed(release: Release, algorithm: str, k: int, stats: dict) -> None:
    """Warn when most quasi-identifiers of ``release`` are (almost) all ``*``, for any algorithm.

    Adds the collapsed attributes to ``stats`` (``collapsed``) and says what
    would keep more; ``auto`` has its own wording (:mod:`kanon_graph.auto.choice`).
    Each quasi-identifier given (almost) nothing of, whatever the others, is
    in ``stats["collapsed_notes"]`` with its cause and remedy
    (:func:`~kanon_graph.metrics._collapsed.collapse_notes`).
    """
    collapsed, every = collapsed_attributes(release)
    stats["collapsed"] = collapsed
    stats["collapsed_notes"] = collapse_notes(release)
    if len(collapsed) * 2 <= len(every):
        return
    import warnings

    keep = [a for a in every if a not in collapsed] or every[:1]
    dp = stats.get("dp")
    levers = (f"A larger epsilon or delta (now {dp['epsilon']:g} and {dp['delta']:g}: k={k} "
              f"and {dp['not_sampled']} records not sampled)" if dp else
              f"A smaller k (now {k}), a suppression budget (suppression=0.02), the default "
              f"algorithm (a local recoding)")
    warnings.warn(
        f"algorithm {algorithm!r} generalizes {collapsed} to (almost) nothing (mean ARX cell "
        f"loss >= {COLLAPSED} on {len(collapsed)} of {len(every)} quasi-identifiers). "
        f"{levers}, fewer quasi-identifiers (e.g. only {keep}) or finer hierarchies "
        f"for {collapsed} would keep more", UserWarning, stacklevel=4)


def level_labels(data: EncodedTable, levels: Sequence[int]) -> dict[str, str]:
    """The name of each quasi-identifier's level (its hierarchy's, or value / range/set)."""
    out = {}
    for attr, level in zip(data.attributes, levels):
        if attr.hierarchy is not None:
            out[attr.name] = attr.hierarchy.label(level, 0)
        else:
            out[attr.name] = "value" if level == 0 else "range/set"
    return out


def build_result(data: EncodedTable, release: Release, verification: Verification, *,
                 algorithm: str, k: int, metrics: Sequence[str] | None,
                 stats: dict[str, Any], table: pd.DataFrame | None = None
                 ) -> AnonymizationResult:
    """The :class:`AnonymizationResult` of ``release`` (its table, classes and metrics)."""
    table = release.table() if table is None else table
    positions = cast("npt.NDArray[np.int64]", data.positions)   # encode() always sets them
    classes = [positions[c] for c in release.classes()]
    suppressed_mask = release.class_of < 0
    suppressed_rows = np.asarray(table.index)[suppressed_mask]
    levels = dict(zip(data.names, release.levels)) if release.levels is not None else None
    labels = level_labels(data, release.levels) if release.levels is not None else None
    from ..metrics import compute_metrics     # the metrics package loads on the first result

    values = compute_metrics(release, k, metrics)
    return AnonymizationResult(
        table=table, classes=classes, levels=levels, level_labels=labels, metrics=values,
        suppressed=release.suppressed, suppressed_rows=suppressed_rows,
        suppressed_mask=suppressed_mask, dropped=data.dropped,
        verification=verification, algorithm=algorithm, k=k, stats=stats, release=release)


def levels_result(table: pd.DataFrame, schema: Schema,
                  levels: Sequence[int] | Mapping[str, int], *, k: int,
                  suppress: npt.ArrayLike | None = None, respect_boundaries: bool,
                  missing: str, metrics: Sequence[str] | None,
                  weights: Any = None) -> AnonymizationResult:
    """:func:`kanon_graph.apply_levels` on a pandas table.

    ``weights``: records per row, when the rows are a Dask table's counted
    tuples (:mod:`kanon_graph.scale.dask_input`).
    """
    started = time.perf_counter()
    data = encode(table, schema, missing=missing, where="apply_levels", weights=weights)
    vector = level_vector(levels, data, "apply_levels")
    k = check_int(k, "k", "apply_levels", 1, data.records, " (the number of records)")
    if suppress is not None:
        suppress = np.asarray(suppress, dtype=bool)
        if suppress.shape != (len(table),):
            raise ValueError(f"The 'suppress' parameter of apply_levels must be a boolean "
                             f"array of length {len(table)}. Got shape {suppress.shape}.")
        suppress = suppress[data.positions]
    release = recode_levels(data, vector, suppress=suppress, capped=respect_boundaries)
    model = PrivacyModel(k)
    release = suppress_top_classes(release, model, data)    # the top node: all suppressed
    verification = model.verify(release.class_of, data)
    return build_result(data, release, verification, algorithm="apply_levels", k=k,
                        metrics=metrics, stats={"seconds": time.perf_counter() - started})


def apply_levels_counted(table: pd.DataFrame, schema: Schema,
                         levels: Sequence[int] | Mapping[str, int], *, weights: Any, k: int,
                         respect_boundaries: bool, missing: str,
                         metrics: Sequence[str] | None) -> AnonymizationResult:
    """:func:`levels_result` on a Dask table's distinct tuples, ``weights`` records each."""
    return levels_result(table, schema, levels, k=k, respect_boundaries=respect_boundaries,
                         missing=missing, metrics=metrics, weights=weights)
