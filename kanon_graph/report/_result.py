"""The report of an :class:`~kanon_graph.AnonymizationResult` (``res.report(path)``)."""

from __future__ import annotations

import warnings

from ..exceptions import InferenceWarning
from ._content import build_report, dp_statement
from ._files import file_checksum, table_checksum

__all__ = ["report_of_result", "content_of_result"]


def _call(result, schema):
    v = result.verification
    dp = result.stats.get("dp")
    k = (f"epsilon={dp['epsilon']:g}, delta={dp['delta']:g}, "
         f"search_budget={dp['search_budget']:g}, steps={dp['steps']}" if dp
         else f"k={result.k}")
    parts = ["table", "schema", k, f"algorithm={result.algorithm!r}"]
    if v.l is not None:
        parts += [f"l={v.l:g}", f"diversity={v.diversity!r}"]
    if v.t is not None:
        parts.append(f"t={v.t:g}")
    if v.sensitive is not None:
        parts.append(f"sensitive={v.sensitive!r}")
    if result.stats.get("seed") is not None:
        parts.append(f"seed={result.stats['seed']!r}")
    return (f"kanon_graph.anonymize({', '.join(parts)})  # quasi-identifiers: "
            f"{', '.join(schema.quasi_identifiers)}")


def _aggregate(release):
    """A microaggregation's operator per quasi-identifier (``None`` for a generalization)."""
    ops = {name: rel.aggregated for name, rel in release.attributes.items()}
    return ops if ops and all(v is not None for v in ops.values()) else None


def content_of_result(result, *, sampling_fraction=None, threshold=0.2, call=None,
                      title=None, input_file=None, output_file=None, weights=None,
                      population_model=None):
    """The report content (:func:`~kanon_graph.report.build_report`) of a result.

    ``weights`` is a column of the table given to ``anonymize``, or one
    sampling weight per row of it (rows ``missing="drop"`` dropped included).
    """
    release = result.release
    if release is None or result.classes is None:
        raise ValueError("report: this result has no in-memory release (a Dask input); run "
                         "kanon-graph report on the written files instead")
    data = release.data
    original, schema = data.table, data.schema
    v = result.verification
    sensitive = v.sensitive      # the column the call's l / t were measured on
    released = result.table.reset_index(drop=True)
    checksums = {
        "input": file_checksum(input_file) if input_file is not None
        else table_checksum(original, "input table"),
        "output": file_checksum(output_file) if output_file is not None
        else table_checksum(released, "released table"),
    }
    if weights is not None and not isinstance(weights, str):
        import numpy as np

        weights = np.asarray(weights)
        rows = len(original) + int(result.dropped)
        if weights.shape != (rows,):
            raise ValueError(f"The 'weights' parameter of report must be a column name or one "
                             f"weight per row of the table given to anonymize ({rows}). Got "
                             f"shape {weights.shape}.")
        if data.positions is not None:
            weights = weights[data.positions]
    with warnings.catch_warnings():
        # the columns' kinds were inferred, and said, by the anonymize call that made
        # ``result``; measuring its release infers the same kinds: not said again
        warnings.filterwarnings("ignore", category=InferenceWarning)
        content = build_report(
            original, released, schema, k=result.k, l=v.l,
            diversity=v.diversity or "distinct", c=result.stats.get("c", 1.0),
            t=v.t, sensitive=sensitive, suppressed=result.suppressed_mask,
            # a release of anonymize(missing="keep") holds '(missing)' cells
            missing="keep" if result.stats.get("missing_kept") else "error",
            sampling_fraction=sampling_fraction, threshold=threshold,
            weights=weights, population_model=population_model,
            call=call or _call(result, schema), checksums=checksums,
            algorithm=result.algorithm, title=title,
            # the sampling fraction is of anonymize's input, dropped rows included
            sampled_records=len(original) + int(result.dropped),
            aggregate=_aggregate(release))
    if result.stats.get("dp"):
        content["privacy"]["differential_privacy"] = dp_statement(result.stats["dp"],
                                                                     result.stats.get("seed"))
    if result.stats.get("sharding"):      # whole table or shards, with the measured cost
        content["summary"]["sharding"] = result.stats["sharding"]
    # the release's input already lacks the rows anonymize(missing="drop") dropped
    content["summary"]["dropped"] = int(result.dropped)
    content["suppression"]["dropped_for_missing_values"] = int(result.dropped)
    return content


def report_of_result(result, path, *, format=None, **options):
    """Write the report of ``result`` to ``path``; return the path."""
    from . import write_report

    return write_report(content_of_result(result, **options), path, format=format)
